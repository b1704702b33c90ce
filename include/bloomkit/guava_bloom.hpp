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

/// validate(params), then `bytes` must be the parameters' 8 * words (see
/// the Spark twin in spark_bloom.hpp).
inline const guava_bloom_params& checked(const guava_bloom_params& params, std::uint64_t bytes) {
  validate(params);
  require(bytes == 8 * params.words, errc::invalid_argument,
          "guava_bloom: " + std::to_string(bytes / 8) + " words given, the parameters say " + std::to_string(params.words));
  return params;
}

/// The hashing, queries and state of a Guava filter, shared by guava_bloom
/// (owning) and guava_bloom_view (a stream's words in place).
template <bool Owning>
class basic_guava_bloom : public jvm_bloom_base<guava_bloom_params, Owning> {
  using base = jvm_bloom_base<guava_bloom_params, Owning>;

 public:
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
      : basic_guava_bloom(detail::checked(params, be_words.size()), be_words) {}
};

/// Guava's Bloom filter, owning its words. Queries are const and
/// thread-safe; inserts are not (Guava's are lock-free; use one writer here).
class guava_bloom : public detail::basic_guava_bloom<true> {
 public:
  using view_type = guava_bloom_view;

  /// Guava's BloomFilter.create(funnel, expectedInsertions, fpp): n = 0 counts
  /// as 1, m = (long)(-n ln p / ln^2 2) rounded up to whole words,
  /// k = max(1, round(-ln p / ln 2)), MURMUR128_MITZ_64. Throws
  /// errc::invalid_argument where Guava throws (p outside (0, 1), k > 255,
  /// more than 2^31 - 1 words).
  static guava_bloom create(std::uint64_t expected_insertions, double fpp) {
    detail::require(fpp > 0.0 && fpp < 1.0, errc::invalid_argument,
                    "guava_bloom: fpp must be in (0, 1), got " + std::to_string(fpp));
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

  /// An empty filter with exactly these parameters (validated first; then
  /// allocates 8 * words bytes, errc::out_of_memory naming them).
  explicit guava_bloom(const guava_bloom_params& params)
      : basic_guava_bloom(detail::checked(params, 8 * params.words), params.words) {}

  /// A filter over these native words (words.size() must equal params.words).
  guava_bloom(const guava_bloom_params& params, std::span<const std::uint64_t> words)
      : basic_guava_bloom(detail::checked(params, 8 * static_cast<std::uint64_t>(words.size())), words) {}

  /// A filter over a copy of big-endian words as Guava's stream holds them.
  guava_bloom(const guava_bloom_params& params, std::span<const std::byte> be_words)
      : basic_guava_bloom(detail::checked(params, be_words.size()), be_words) {}

  /// An owning copy of a view.
  explicit guava_bloom(const guava_bloom_view& view) : guava_bloom(view.params(), view.bytes()) {}

  // ---- insert -------------------------------------------------------------------------
  /// Sets the key's k bits; true if any changed (Guava's put result).
  bool insert_hash(murmur3_128_result h) noexcept {
    bool changed = false;
    for_each_bit(h, [&](std::uint64_t bit) {
      changed |= bits_.set(bit);
      return true;
    });
    return changed;
  }
  template <key K>
  bool insert(const K& k) noexcept {
    return insert_hash(hash(k));
  }
  /// A key given as its funnel bytes.
  bool insert_bytes(std::span<const std::byte> bytes) noexcept { return insert_hash(hash_bytes(bytes.data(), bytes.size())); }

  // ---- set algebra -------------------------------------------------------------------
  /// Guava's putAll: OR with a filter or view. errc::mismatch naming the field
  /// when the strategy, bits or k differ (Guava's isCompatible).
  template <bool O>
  void merge(const detail::basic_guava_bloom<O>& other) {
    require_same_shape(other, "merge");
    bits_.merge(other.bits());
  }
  /// AND with the same checks (Guava has no intersect; the bits are a Bloom
  /// filter of a superset of the intersection).
  template <bool O>
  void intersect(const detail::basic_guava_bloom<O>& other) {
    require_same_shape(other, "intersect");
    bits_.intersect(other.bits());
  }
  void clear() noexcept { bits_.clear(); }

  /// A read-only view of this filter (valid while it lives, unchanged).
  [[nodiscard]] guava_bloom_view view() const { return guava_bloom_view(params_, bits_.bytes()); }
};

}  // namespace bloomkit
