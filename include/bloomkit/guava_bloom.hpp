// bloomkit/guava_bloom.hpp - Guava's Bloom filter (com.google.common.hash.BloomFilter),
// bit for bit.
//
// JVM services build these with BloomFilter.create(funnel, n, fpp) and ship
// them with writeTo. This type answers every probe exactly as Guava's
// mightContain does and holds the same bits; format/guava_stream.hpp reads and
// writes Guava's stream.
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

/// Guava's Bloom filter, owning its words. Queries are const and
/// thread-safe; inserts are not (Guava's are lock-free; use one writer here).
class guava_bloom {
 public:
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

  /// An empty filter with exactly these parameters (validated; allocates 8 * words bytes).
  explicit guava_bloom(const guava_bloom_params& params) : params_((detail::validate(params), params)), bits_(params.words) {}

  /// A filter over these words (words.size() must equal params.words).
  guava_bloom(const guava_bloom_params& params, std::vector<std::uint64_t> words)
      : params_((detail::validate(params), params)), bits_(std::move(words)) {
    detail::require(bits_.word_count() == params.words, errc::invalid_argument,
                    "guava_bloom: " + std::to_string(bits_.word_count()) + " words given, the parameters say " +
                        std::to_string(params.words));
  }

  // ---- hashing -------------------------------------------------------------------
  /// murmur3_128 (seed 0) of the funnel's bytes.
  [[nodiscard]] static murmur3_128_result hash_bytes(const void* data, std::size_t size) noexcept {
    return murmur3_x64_128(data, size, 0);
  }
  /// The hash of a key's canonical bytes (see the header comment for which funnel that is).
  template <key K>
  [[nodiscard]] static murmur3_128_result hash(const K& k) noexcept {
    return detail::with_key_bytes(k, [](const void* data, std::size_t size) { return hash_bytes(data, size); });
  }

  // ---- insert and query -------------------------------------------------------------
  /// Sets the key's k bits; true if any changed (Guava's put result).
  bool insert_hash(murmur3_128_result h) noexcept {
    bool changed = false;
    for_each_bit(h, [&](std::uint64_t bit) {
      changed |= bits_.set(bit);
      return true;
    });
    return changed;
  }
  /// Guava's mightContain for a key with this hash.
  [[nodiscard]] bool may_contain_hash(murmur3_128_result h) const noexcept {
    return for_each_bit(h, [&](std::uint64_t bit) { return bits_.get(bit); });
  }
  template <key K>
  bool insert(const K& k) noexcept {
    return insert_hash(hash(k));
  }
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const noexcept {
    return may_contain_hash(hash(k));
  }
  /// A key given as its funnel bytes.
  bool insert_bytes(std::span<const std::byte> bytes) noexcept { return insert_hash(hash_bytes(bytes.data(), bytes.size())); }
  [[nodiscard]] bool may_contain_bytes(std::span<const std::byte> bytes) const noexcept {
    return may_contain_hash(hash_bytes(bytes.data(), bytes.size()));
  }

  // ---- set algebra -------------------------------------------------------------------
  /// Guava's putAll: OR. errc::mismatch naming the field when the strategy,
  /// bits or k differ (Guava's isCompatible).
  void merge(const guava_bloom& other) {
    require_same_shape(other, "merge");
    bits_.merge(other.bits_);
  }
  /// AND with the same checks (Guava has no intersect; the bits are a Bloom filter of the intersection's superset).
  void intersect(const guava_bloom& other) {
    require_same_shape(other, "intersect");
    bits_.intersect(other.bits_);
  }
  void clear() noexcept { bits_.clear(); }

  // ---- state --------------------------------------------------------------------------
  [[nodiscard]] const guava_bloom_params& params() const noexcept { return params_; }
  [[nodiscard]] guava_strategy strategy() const noexcept { return params_.strategy; }
  [[nodiscard]] std::uint32_t k() const noexcept { return params_.k; }
  [[nodiscard]] std::uint64_t bit_count() const noexcept { return bits_.bit_count(); }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return bits_.words(); }
  [[nodiscard]] std::size_t size_in_bytes() const noexcept { return 8 * bits_.word_count(); }
  [[nodiscard]] std::uint64_t popcount() const noexcept { return bits_.popcount(); }
  [[nodiscard]] double fill_ratio() const noexcept {
    return static_cast<double>(popcount()) / static_cast<double>(bit_count());
  }
  /// Guava's expectedFpp(): fill^k.
  [[nodiscard]] double estimated_fpr() const noexcept { return std::pow(fill_ratio(), static_cast<double>(k())); }
  /// Guava's approximateElementCount() before its rounding: -(m / k) ln(1 - X / m).
  [[nodiscard]] double estimated_cardinality() const noexcept {
    const double m = static_cast<double>(bit_count());
    const double x = static_cast<double>(popcount());
    if (x >= m) return std::numeric_limits<double>::infinity();
    return -(m / static_cast<double>(k())) * std::log1p(-x / m);
  }

  friend bool operator==(const guava_bloom& a, const guava_bloom& b) noexcept {
    if (!(a.params_ == b.params_)) return false;
    const auto x = a.words(), y = b.words();
    return std::equal(x.begin(), x.end(), y.begin(), y.end());
  }

 private:
  template <class Visit>
  bool for_each_bit(murmur3_128_result h, Visit&& visit) const noexcept {
    const std::uint64_t m = bits_.bit_count();
    if (params_.strategy == guava_strategy::murmur128_mitz_64) {
      std::uint64_t c = h.h1;
      for (std::uint32_t i = 0; i < params_.k; ++i) {
        if (!visit((c & 0x7fffffffffffffffULL) % m)) return false;
        c += h.h2;
      }
      return true;
    }
    const auto a = static_cast<std::uint32_t>(h.h1);
    const auto b = static_cast<std::uint32_t>(h.h1 >> 32);
    for (std::uint32_t i = 1; i <= params_.k; ++i) {
      auto c = static_cast<std::int32_t>(a + i * b);
      if (c < 0) c = ~c;
      if (!visit(static_cast<std::uint64_t>(c) % m)) return false;
    }
    return true;
  }

  void require_same_shape(const guava_bloom& other, const char* operation) const {
    const std::string prefix = std::string("guava_bloom ") + operation + ": ";
    detail::require(params_.strategy == other.params_.strategy, errc::mismatch, prefix + "strategies differ");
    detail::require(params_.words == other.params_.words, errc::mismatch,
                    prefix + "bit sizes differ (" + std::to_string(bit_count()) + " vs " +
                        std::to_string(other.bit_count()) + ")");
    detail::require(params_.k == other.params_.k, errc::mismatch, prefix + "numbers of hash functions differ");
  }

  guava_bloom_params params_;
  detail::java_bit_array bits_;
};

}  // namespace bloomkit
