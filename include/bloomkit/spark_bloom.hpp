// bloomkit/spark_bloom.hpp - Apache Spark's Bloom filter
// (org.apache.spark.util.sketch.BloomFilter), bit for bit.
//
// Spark builds these with `df.stat.bloomFilter(col, n, fpp)`, with
// BloomFilter.create(...) in user code and in its runtime join filters. This
// type answers every probe exactly as Spark's mightContain does and holds the
// same bits, so a filter read from Spark's writeTo stream
// (format/jvm_streams.hpp) and written back is byte-identical. spark_bloom
// owns its words; spark_bloom_view queries a stream's words in place (a
// mapped file), with the same code.
//
// The layout, as spark-sketch 4.3.0 computes it (checked against that jar
// in tests/jvm_formats_test.cpp and the `interop` test step):
//
//   words W (1 <= W <= 2^31 - 1), m = 64 W bits; bit i is bit i % 64 of word i / 64
//   (the words kept big-endian, as in the stream: detail/java_bit_array.hpp)
//   h1 = murmur3(key, seed), h2 = murmur3(key, h1)     (Spark's Murmur3_x86_32, murmur3.hpp)
//   version 1:  for i = 1..k:  c = h1 + i * h2 (32-bit wrap);  c < 0 ? ~c : c;  bit c % m
//               (seed is always 0; since c < 2^31, bits past 2^31 are never used)
//   version 2:  c = h1 * (2^31 - 1) (64-bit);  for i = 1..k:  c += h2;  bit (c < 0 ? ~c : c) % m
//               (any 32-bit seed; indexes all 64-bit m, so filters past 2^31 bits work)
//
// Keys, as Spark's put(Object) sees them: any integer (Spark's Byte, Short,
// Integer, Long) is widened to a 64-bit long and hashed as its 8
// little-endian bytes (Spark's hashLong); strings are hashed as their bytes
// (Spark hashes a String's UTF-8 encoding: pass UTF-8); byte containers as
// their bytes (putBinary). Floating-point and bool keys are refused at compile
// time, as Spark refuses them at run time.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/java_bit_array.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/murmur3.hpp"

namespace bloomkit {

/// Spark's binary format versions (BloomFilter.Version). The number is the
/// first big-endian int of the stream.
enum class spark_bloom_version : std::uint32_t {
  v1 = 1,  ///< Spark 2.0-3.x: 32-bit combined hash, seed 0
  v2 = 2,  ///< Spark 4.x default: 64-bit combined hash and a seed
};

/// The largest k bloomkit accepts in a Spark filter. Spark itself stores any
/// int; no Spark sizing rule gives more than a few dozen, and refusing absurd
/// values keeps a lying stream from making every query loop 2^31 times.
inline constexpr std::uint32_t spark_max_k = 1u << 16;

/// The parameters that fix a Spark filter's layout.
struct spark_bloom_params {
  spark_bloom_version version = spark_bloom_version::v2;
  std::uint32_t k = 1;      ///< numHashFunctions, in [1, spark_max_k]
  std::uint64_t words = 1;  ///< 64-bit words, in [1, 2^31 - 1]
  std::int32_t seed = 0;    ///< version 2 only; version 1 is always 0

  friend bool operator==(const spark_bloom_params&, const spark_bloom_params&) = default;
};

/// Spark's two murmur3 values for one key (h1 with the seed, h2 with h1).
struct spark_hash {
  std::uint32_t h1 = 0;
  std::uint32_t h2 = 0;
};

namespace detail {

inline void validate(const spark_bloom_params& p) {
  require(p.version == spark_bloom_version::v1 || p.version == spark_bloom_version::v2, errc::unsupported_version,
          "spark_bloom: unknown version " + std::to_string(static_cast<std::uint32_t>(p.version)) +
              " (Spark defines 1 and 2)");
  require(p.k >= 1 && p.k <= spark_max_k, errc::invalid_argument,
          "spark_bloom: k (numHashFunctions) must be in [1, " + std::to_string(spark_max_k) + "], got " +
              std::to_string(p.k));
  require(p.words >= 1 && p.words <= java_max_words, errc::invalid_argument,
          "spark_bloom: words must be in [1, 2^31 - 1], got " + std::to_string(p.words));
  require(p.version == spark_bloom_version::v2 || p.seed == 0, errc::invalid_argument,
          "spark_bloom: version 1 has no seed (it is always 0)");
}

/// Java's Math.round(double) for the finite, positive values sizing gives,
/// then Java's (int) narrowing of the long it returns (keeps the low 32 bits).
inline std::int32_t java_round_to_int(double x) noexcept {
  const double r = std::floor(x + 0.5);
  std::int64_t as_long;
  if (!(r == r)) {
    as_long = 0;
  } else if (r >= 9.2233720368547758e18) {
    as_long = std::numeric_limits<std::int64_t>::max();
  } else if (r <= -9.2233720368547758e18) {
    as_long = std::numeric_limits<std::int64_t>::min();
  } else {
    as_long = static_cast<std::int64_t>(r);
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(as_long)));
}

/// Java's (long) narrowing of a double (truncation, saturating, NaN -> 0).
inline std::int64_t java_double_to_long(double x) noexcept {
  if (!(x == x)) return 0;
  if (x >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (x <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(x);
}

}  // namespace detail

namespace detail {

/// The hashing, queries and state of a Spark filter, shared by spark_bloom
/// (owning) and spark_bloom_view (the words of a stream, in place).
template <bool Owning>
class basic_spark_bloom : public jvm_bloom_base<spark_bloom_params, Owning> {
  using base = jvm_bloom_base<spark_bloom_params, Owning>;

 public:
  using params_type = spark_bloom_params;
  using hash_type = spark_hash;

  // ---- hashing -------------------------------------------------------------------
  /// Spark's hash pair of a long (hashLongToIntPair).
  [[nodiscard]] spark_hash hash_long(std::int64_t value) const noexcept {
    const auto v = static_cast<std::uint64_t>(value);
    const std::uint32_t h1 = spark_murmur3_hash_long(v, seed_bits());
    return {h1, spark_murmur3_hash_long(v, h1)};
  }
  /// Spark's hash pair of a byte array (hashBytesToIntPair).
  [[nodiscard]] spark_hash hash_bytes(const void* data, std::size_t size) const noexcept {
    const std::uint32_t h1 = spark_murmur3_x86_32(data, size, seed_bits());
    return {h1, spark_murmur3_x86_32(data, size, h1)};
  }
  /// The hash pair of any key Spark accepts (see the header comment).
  template <key K>
  [[nodiscard]] spark_hash hash(const K& k) const noexcept {
    using T = std::remove_cvref_t<K>;
    static_assert(!std::is_same_v<T, bool> && !std::is_floating_point_v<T>,
                  "Spark's BloomFilter takes integers, strings and byte arrays only");
    if constexpr (std::is_integral_v<T>) {
      return hash_long(static_cast<std::int64_t>(k));
    } else {
      return with_key_bytes(k, [this](const void* data, std::size_t size) { return hash_bytes(data, size); });
    }
  }

  // ---- queries ---------------------------------------------------------------------
  /// Spark's mightContain for a key with this hash pair.
  [[nodiscard]] bool may_contain_hash(spark_hash h) const noexcept {
    return for_each_bit(h, [&](std::uint64_t bit) { return this->bits_.get(bit); });
  }
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const noexcept {
    return may_contain_hash(hash(k));
  }
  /// mightContainLong.
  [[nodiscard]] bool may_contain_long(std::int64_t value) const noexcept { return may_contain_hash(hash_long(value)); }
  /// mightContainBinary (and mightContainString on UTF-8 bytes).
  [[nodiscard]] bool may_contain_bytes(std::span<const std::byte> bytes) const noexcept {
    return may_contain_hash(hash_bytes(bytes.data(), bytes.size()));
  }

  // ---- state -------------------------------------------------------------------------
  [[nodiscard]] spark_bloom_version version() const noexcept { return this->params_.version; }
  [[nodiscard]] std::int32_t seed() const noexcept { return this->params_.seed; }


 protected:
  template <class... Args>
  explicit basic_spark_bloom(const spark_bloom_params& params, Args&&... args)
      : base(params, std::forward<Args>(args)...) {}

  /// Calls visit(bit) for the key's k bits in Spark's order, stopping at the
  /// first false; returns whether none returned false.
  template <class Visit>
  bool for_each_bit(spark_hash h, Visit&& visit) const noexcept {
    const std::uint64_t m = this->bits_.bit_count();
    const std::uint32_t k = this->params_.k;
    if (this->params_.version == spark_bloom_version::v1) {
      for (std::uint32_t i = 1; i <= k; ++i) {
        // Java int arithmetic: wraps mod 2^32; a negative result is flipped.
        auto c = static_cast<std::int32_t>(h.h1 + i * h.h2);
        if (c < 0) c = ~c;
        if (!visit(static_cast<std::uint64_t>(c) % m)) return false;
      }
      return true;
    }
    // Version 2: (long) h1 * Integer.MAX_VALUE, then += h2 per probe. The
    // running sum stays within +-2^62 + k 2^31, so it never wraps.
    std::int64_t c = static_cast<std::int64_t>(static_cast<std::int32_t>(h.h1)) * std::int64_t{2147483647};
    const auto step = static_cast<std::int64_t>(static_cast<std::int32_t>(h.h2));
    for (std::uint32_t i = 0; i < k; ++i) {
      c += step;
      const std::int64_t index = c < 0 ? ~c : c;
      if (!visit(static_cast<std::uint64_t>(index) % m)) return false;
    }
    return true;
  }

  /// validate(params), then `bytes` (the big-endian words given, or 8 *
  /// words for a zeroed filter) must be 8 * params.words: the check every
  /// filter and view makes before it stores its bits.
  static const spark_bloom_params& checked(const spark_bloom_params& params, std::uint64_t bytes) {
    validate(params);
    require_word_bytes("spark_bloom", bytes, params.words);
    return params;
  }

  /// errc::mismatch naming the field when the version, bits, seed or k differ
  /// (Spark's mergeInPlace and intersectInPlace refuse the same).
  template <bool O>
  void require_same_shape(const basic_spark_bloom<O>& other, const char* operation) const {
    const spark_bloom_params& a = this->params_;
    const spark_bloom_params& b = other.params();
    const std::string prefix = std::string("spark_bloom ") + operation + ": ";
    require(a.version == b.version, errc::mismatch, prefix + "versions differ");
    require(a.words == b.words, errc::mismatch,
            prefix + "bit sizes differ (" + std::to_string(64 * a.words) + " vs " + std::to_string(64 * b.words) + ")");
    require(a.seed == b.seed, errc::mismatch, prefix + "seeds differ");
    require(a.k == b.k, errc::mismatch, prefix + "numbers of hash functions differ");
  }

 private:
  [[nodiscard]] std::uint32_t seed_bits() const noexcept { return static_cast<std::uint32_t>(this->params_.seed); }
};

/// Equal parameters and bits (owners and views alike).
template <bool A, bool B>
bool operator==(const basic_spark_bloom<A>& a, const basic_spark_bloom<B>& b) noexcept {
  return a.same_filter(b);
}

}  // namespace detail

/// A read-only Spark filter over borrowed big-endian words: the words of a
/// Spark stream in place (view_spark_stream, a mapped file), or of a
/// spark_bloom (its view()). The bytes must outlive the view and stay
/// unchanged; any alignment works. Queries and state are
/// detail::basic_spark_bloom's, shared with spark_bloom.
class spark_bloom_view : public detail::basic_spark_bloom<false> {
 public:
  /// Views `be_words` (exactly 8 * params.words bytes, the words big-endian
  /// as Spark's writeTo writes them). Throws errc::invalid_argument or
  /// errc::unsupported_version when the parameters are invalid or the size
  /// differs.
  spark_bloom_view(const spark_bloom_params& params, std::span<const std::byte> be_words)
      : basic_spark_bloom(checked(params, be_words.size()), be_words) {}
};

/// Spark's Bloom filter, owning its words. Queries are const and
/// thread-safe; inserts are not (as in Spark).
class spark_bloom : public detail::jvm_bloom_owner<detail::basic_spark_bloom, spark_bloom_view> {
 public:
  /// The constructors are jvm_bloom_owner's: (params) empty, (params,
  /// native words), (params, big-endian words as Spark's stream holds
  /// them), (view) an owning copy; each validates the parameters first.
  using jvm_bloom_owner::jvm_bloom_owner;

  /// Spark's BloomFilter.create(expectedNumItems, fpp): version 2, seed 0,
  /// m = (long)(-n ln p / ln^2 2) bits rounded up to whole words, and
  /// k = max(1, round(m / n ln 2)). Throws errc::invalid_argument where
  /// Spark throws (n < 1, p outside (0, 1), more than 2^31 - 1 words).
  static spark_bloom create(std::uint64_t expected_items, double fpp) {
    detail::require(fpp > 0.0 && fpp < 1.0, errc::invalid_argument,
                    "spark_bloom: fpp must be in (0, 1), got " + bloomkit::detail::format_number(fpp));
    detail::require(expected_items >= 1 && expected_items <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
                    errc::invalid_argument, "spark_bloom: expected items must be positive");
    const double ln2 = std::log(2.0);
    const auto n = static_cast<std::int64_t>(expected_items);
    const std::int64_t bits = detail::java_double_to_long(static_cast<double>(-n) * std::log(fpp) / (ln2 * ln2));
    detail::require(bits >= 1, errc::invalid_argument, "spark_bloom: the sizing gives no bits (Spark refuses too)");
    return create(spark_bloom_version::v2, expected_items, static_cast<std::uint64_t>(bits), 0);
  }

  /// Spark's BloomFilter.create(version, expectedNumItems, numBits, seed):
  /// numBits rounded up to whole words, k = max(1, round(numBits / n ln 2)).
  static spark_bloom create(spark_bloom_version version, std::uint64_t expected_items, std::uint64_t num_bits,
                            std::int32_t seed = 0) {
    detail::require(expected_items >= 1, errc::invalid_argument, "spark_bloom: expected items must be positive");
    detail::require(num_bits >= 1 && num_bits <= detail::java_max_words * 64, errc::invalid_argument,
                    "spark_bloom: bits must be in [1, 64 (2^31 - 1)], got " + std::to_string(num_bits));
    const double per_key = static_cast<double>(num_bits) / static_cast<double>(expected_items);
    const std::int32_t k = std::max<std::int32_t>(1, detail::java_round_to_int(per_key * std::log(2.0)));
    // Spark's numWords: (long) Math.ceil(numBits / 64.0); exact for numBits < 2^53.
    const std::uint64_t words = num_bits / 64 + (num_bits % 64 != 0);
    return spark_bloom(spark_bloom_params{version, static_cast<std::uint32_t>(k), words,
                                          version == spark_bloom_version::v1 ? 0 : seed});
  }

  /// putLong.
  bool insert_long(std::int64_t value) noexcept { return insert_hash(hash_long(value)); }
};

}  // namespace bloomkit
