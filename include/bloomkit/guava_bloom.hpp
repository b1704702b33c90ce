// bloomkit/guava_bloom.hpp - Guava's Bloom filter (com.google.common.hash.BloomFilter),
// bit for bit.
//
// JVM services build these with BloomFilter.create(funnel, n, fpp) and ship
// them with writeTo. This type answers every probe exactly as Guava's
// mightContain does and holds the same bits; format/jvm_streams.hpp reads and
// writes Guava's stream. guava_bloom owns its words; guava_bloom_view queries
// a stream's words in place, with the same code (detail/java_bit_array.hpp
// holds what both share with Spark's filter).
//
// Layout (Guava 33.8.0's BloomFilterStrategies; checked against that jar in
// tests/jvm_formats_test.cpp and the `interop` test step):
//
//   words W (1 <= W <= 2^31 - 1), m = 64 W bits; bit i is bit i % 64 of word i / 64
//   (h1, h2) = MurmurHash3_x64_128(funnel bytes, seed 0)          (murmur3.hpp)
//   MURMUR128_MITZ_64 (ordinal 1, what create() uses):
//       c = h1;  for i = 0..k-1:  bit (c & (2^63 - 1)) % m;  c += h2      (64-bit wrap)
//   MURMUR128_MITZ_32 (ordinal 0, older filters):
//       a = low 32 bits of h1, b = high 32 bits of h1
//       for i = 1..k:  c = a + i b (32-bit wrap);  c < 0 ? ~c : c;  bit c % m
//
// Keys: a Guava funnel turns an object into bytes; bloomkit's canonical key
// bytes (hash.hpp) are the same bytes for the common funnels:
//   Funnels.longFunnel()             <- std::int64_t / std::uint64_t keys (8 bytes, little-endian)
//   Funnels.integerFunnel()          <- std::int32_t / std::uint32_t keys (4 bytes)
//   Funnels.stringFunnel(UTF_8)      <- std::string / string_view holding UTF-8
//   Funnels.byteArrayFunnel()        <- byte spans and containers
// The funnel is not in Guava's stream (readFrom takes it as an argument), so
// the caller must use the key type the filter was built with, as in Java.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/detail/java_bit_array.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/murmur3.hpp"
#include "bloomkit/spark_bloom.hpp"  // detail::java_round_to_int, java_double_to_long

namespace bloomkit {

/// Guava's BloomFilterStrategies, by the ordinal its stream stores.
enum class guava_strategy : std::uint8_t {
  murmur128_mitz_32 = 0,  ///< Guava 11-12 (still read by every Guava)
  murmur128_mitz_64 = 1,  ///< Guava 13 on: what BloomFilter.create uses
};

/// The parameters that fix a Guava filter's layout.
struct guava_bloom_params {
  guava_strategy strategy = guava_strategy::murmur128_mitz_64;
  std::uint32_t k = 1;      ///< numHashFunctions, in [1, 255] (one unsigned byte in the stream)
  std::uint64_t words = 1;  ///< 64-bit words, in [1, 2^31 - 1]

  friend bool operator==(const guava_bloom_params&, const guava_bloom_params&) = default;
};

namespace detail {

inline void validate(const guava_bloom_params& p) {
  require(p.strategy == guava_strategy::murmur128_mitz_32 || p.strategy == guava_strategy::murmur128_mitz_64,
          errc::unsupported, "guava_bloom: unknown strategy ordinal " + std::to_string(static_cast<int>(p.strategy)) +
                                 " (Guava defines 0 and 1)");
  require(p.k >= 1 && p.k <= 255, errc::invalid_argument,
          "guava_bloom: k (numHashFunctions) must be in [1, 255], got " + std::to_string(p.k));
  require(p.words >= 1 && p.words <= java_max_words, errc::invalid_argument,
          "guava_bloom: words must be in [1, 2^31 - 1], got " + std::to_string(p.words));
}

}  // namespace detail

namespace detail {

/// The hashing, queries and state of a Guava filter, shared by guava_bloom
/// (owning) and guava_bloom_view (a stream's words in place).
template <bool Owning>
class basic_guava_bloom : public jvm_bloom_base<guava_bloom_params, Owning> {
  using base = jvm_bloom_base<guava_bloom_params, Owning>;

 public:
  using params_type = guava_bloom_params;
  using hash_type = murmur3_128_result;

  // ---- hashing -------------------------------------------------------------------
  /// murmur3_128 (seed 0) of the funnel's bytes.
  [[nodiscard]] static murmur3_128_result hash_bytes(const void* data, std::size_t size) noexcept {
    return murmur3_x64_128(data, size, 0);
  }
  /// The hash of a key's canonical bytes (see the header comment for which funnel that is).
  template <key K>
  [[nodiscard]] static murmur3_128_result hash(const K& k) noexcept {
    return with_key_bytes(k, [](const void* data, std::size_t size) { return hash_bytes(data, size); });
  }

  // ---- queries ---------------------------------------------------------------------
  /// Guava's mightContain for a key with this hash.
  [[nodiscard]] bool may_contain_hash(murmur3_128_result h) const noexcept {
    return for_each_bit(h, [&](std::uint64_t bit) { return this->bits_.get(bit); });
  }
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const noexcept {
    return may_contain_hash(hash(k));
  }
  /// A key given as its funnel bytes.
  [[nodiscard]] bool may_contain_bytes(std::span<const std::byte> bytes) const noexcept {
    return may_contain_hash(hash_bytes(bytes.data(), bytes.size()));
  }

  [[nodiscard]] guava_strategy strategy() const noexcept { return this->params_.strategy; }

 protected:
  template <class... Args>
  explicit basic_guava_bloom(const guava_bloom_params& params, Args&&... args)
      : base(params, std::forward<Args>(args)...) {}

  /// Calls visit(bit) for the key's k bits in Guava's order, stopping at the
  /// first false; returns whether none returned false.
  template <class Visit>
  bool for_each_bit(murmur3_128_result h, Visit&& visit) const noexcept {
    const std::uint64_t m = this->bits_.bit_count();
    const std::uint32_t k = this->params_.k;
    if (this->params_.strategy == guava_strategy::murmur128_mitz_64) {
      std::uint64_t c = h.h1;
      for (std::uint32_t i = 0; i < k; ++i) {
        if (!visit((c & 0x7fffffffffffffffULL) % m)) return false;
        c += h.h2;
      }
      return true;
    }
    const auto a = static_cast<std::uint32_t>(h.h1);
    const auto b = static_cast<std::uint32_t>(h.h1 >> 32);
    for (std::uint32_t i = 1; i <= k; ++i) {
      auto c = static_cast<std::int32_t>(a + i * b);
      if (c < 0) c = ~c;
      if (!visit(static_cast<std::uint64_t>(c) % m)) return false;
    }
    return true;
  }

  /// validate(params), then `bytes` must be 8 * params.words (as Spark's
  /// basic_spark_bloom::checked).
  static const guava_bloom_params& checked(const guava_bloom_params& params, std::uint64_t bytes) {
    validate(params);
    require_word_bytes("guava_bloom", bytes, params.words);
    return params;
  }

  /// errc::mismatch naming the field when the strategy, bits or k differ
  /// (Guava's isCompatible).
  template <bool O>
  void require_same_shape(const basic_guava_bloom<O>& other, const char* operation) const {
    const guava_bloom_params& a = this->params_;
    const guava_bloom_params& b = other.params();
    const std::string prefix = std::string("guava_bloom ") + operation + ": ";
    require(a.strategy == b.strategy, errc::mismatch, prefix + "strategies differ");
    require(a.words == b.words, errc::mismatch,
            prefix + "bit sizes differ (" + std::to_string(64 * a.words) + " vs " + std::to_string(64 * b.words) + ")");
    require(a.k == b.k, errc::mismatch, prefix + "numbers of hash functions differ");
  }
};

/// Equal parameters and bits (owners and views alike).
template <bool A, bool B>
bool operator==(const basic_guava_bloom<A>& a, const basic_guava_bloom<B>& b) noexcept {
  return a.same_filter(b);
}

}  // namespace detail

/// A read-only Guava filter over borrowed big-endian words (a stream's, in
/// place: view_guava_stream, a mapped file; or a guava_bloom's view()). The
/// bytes must outlive the view and stay unchanged; any alignment works.
class guava_bloom_view : public detail::basic_guava_bloom<false> {
 public:
  /// Views `be_words` (exactly 8 * params.words bytes, big-endian as Guava's
  /// writeTo writes them). errc::invalid_argument / unsupported when the
  /// parameters are invalid or the size differs.
  guava_bloom_view(const guava_bloom_params& params, std::span<const std::byte> be_words)
      : basic_guava_bloom(checked(params, be_words.size()), be_words) {}
};

/// Guava's Bloom filter, owning its words. Queries are const and
/// thread-safe; inserts are not (Guava's are lock-free; use one writer here).
class guava_bloom : public detail::jvm_bloom_owner<detail::basic_guava_bloom, guava_bloom_view> {
 public:
  /// The constructors are jvm_bloom_owner's: (params) empty, (params,
  /// native words), (params, big-endian words as Guava's stream holds
  /// them), (view) an owning copy; each validates the parameters first.
  using jvm_bloom_owner::jvm_bloom_owner;

  /// Guava's BloomFilter.create(funnel, expectedInsertions, fpp): n = 0 counts
  /// as 1, m = (long)(-n ln p / ln^2 2) rounded up to whole words,
  /// k = max(1, round(-ln p / ln 2)), MURMUR128_MITZ_64. Throws
  /// errc::invalid_argument where Guava throws (p outside (0, 1), k > 255,
  /// more than 2^31 - 1 words).
  static guava_bloom create(std::uint64_t expected_insertions, double fpp) {
    detail::require(fpp > 0.0 && fpp < 1.0, errc::invalid_argument,
                    "guava_bloom: fpp must be in (0, 1), got " + detail::format_number(fpp));
    detail::require(expected_insertions <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
                    errc::invalid_argument, "guava_bloom: expected insertions too large");
    const auto n = static_cast<std::int64_t>(std::max<std::uint64_t>(expected_insertions, 1));
    const double ln2 = std::log(2.0);
    const std::int64_t bits = detail::java_double_to_long(static_cast<double>(-n) * std::log(fpp) / (ln2 * ln2));
    detail::require(bits >= 1, errc::invalid_argument, "guava_bloom: the sizing gives no bits (Guava refuses too)");
    const std::int32_t k = std::max<std::int32_t>(1, detail::java_round_to_int(-std::log(fpp) / ln2));
    const auto b = static_cast<std::uint64_t>(bits);
    return guava_bloom(guava_bloom_params{guava_strategy::murmur128_mitz_64, static_cast<std::uint32_t>(k),
                                          b / 64 + (b % 64 != 0)});
  }
};

}  // namespace bloomkit
