// bloomkit/detail/java_bit_array.hpp - the one bit array Spark's and Guava's
// Bloom filters share, kept exactly as their writeTo streams hold it: a Java
// long[] written with DataOutputStream.writeLong, so big-endian words, at
// most 2^31 - 1 of them (a Java array's limit). Private to bloomkit.
//
// Bit i is bit i % 64 (from the least significant end) of word i / 64. In the
// big-endian bytes that is bit i % 8 of byte 8 (i / 64) + 7 - (i % 64) / 8,
// which is byte (i / 8) XOR 7: one byte load per probe, the same cost as a
// word load and a shift. Keeping the stream's byte order in memory is what
// lets one type serve both the owning filters (bytes in a vector) and the
// zero-copy views (bytes in a mapped stream, any alignment), and makes
// reading and writing a stream a copy of its payload.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::detail {

/// Java arrays hold at most 2^31 - 1 elements; both libraries size their
/// long[] with an int.
inline constexpr std::uint64_t java_max_words = (std::uint64_t{1} << 31) - 1;

/// The byte of a big-endian long[] that holds bit `bit` (see the header comment).
constexpr std::uint64_t java_byte_of(std::uint64_t bit) noexcept { return (bit >> 3) ^ 7; }

/// Word `i` of a big-endian long[] as a native integer.
inline std::uint64_t java_word_at(const std::byte* words, std::size_t i) noexcept {
  std::uint64_t w;
  std::memcpy(&w, words + 8 * i, 8);
  if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
  return w;
}

/// Stores `w` as word `i` of a big-endian long[].
inline void java_store_word(std::byte* words, std::size_t i, std::uint64_t w) noexcept {
  if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
  std::memcpy(words + 8 * i, &w, 8);
}

/// The bit array of a Spark or Guava filter: owning (Owning = true, a
/// vector) or viewing borrowed stream bytes (false, a span that must outlive
/// it). Sizes are validated by the filter that holds it (java_max_words,
/// the parameters' word count); this type stores, tests, sets and counts.
template <bool Owning>
class java_bit_array {
 public:
  using storage = std::conditional_t<Owning, std::vector<std::byte>, std::span<const std::byte>>;

  java_bit_array() = default;
  /// `words` zero words, owned (errc::out_of_memory naming the bytes).
  explicit java_bit_array(std::uint64_t words)
    requires Owning
  {
    assign_or_fail(bytes_, 8 * words, std::byte{0}, "a JVM Bloom filter of " + std::to_string(words) + " words");
  }
  /// The big-endian words `be_words` (8 bytes each): copied when owning,
  /// viewed in place otherwise.
  explicit java_bit_array(std::span<const std::byte> be_words) : bytes_(be_words.begin(), be_words.end()) {}
  /// Native words, stored big-endian (owning only).
  explicit java_bit_array(std::span<const std::uint64_t> words)
    requires Owning
      : java_bit_array(static_cast<std::uint64_t>(words.size())) {
    for (std::size_t i = 0; i < words.size(); ++i) java_store_word(bytes_.data(), i, words[i]);
  }

  /// Bits: 64 per word (both libraries round the requested size up to whole words).
  [[nodiscard]] std::uint64_t bit_count() const noexcept { return std::uint64_t{8} * bytes_.size(); }
  [[nodiscard]] std::size_t word_count() const noexcept { return bytes_.size() / 8; }
  [[nodiscard]] bool get(std::uint64_t bit) const noexcept {
    return ((std::to_integer<unsigned>(bytes_[java_byte_of(bit)]) >> (bit & 7)) & 1u) != 0;
  }
  /// Sets the bit; true if it was clear before.
  bool set(std::uint64_t bit) noexcept
    requires Owning
  {
    const auto mask = static_cast<std::byte>(1u << (bit & 7));
    std::byte& b = bytes_[java_byte_of(bit)];
    const bool was_clear = (b & mask) == std::byte{0};
    b |= mask;
    return was_clear;
  }
  /// Word `i` as a native integer (the value Java's long[] holds).
  [[nodiscard]] std::uint64_t word(std::size_t i) const noexcept { return java_word_at(bytes_.data(), i); }
  /// Number of set bits (Spark's cardinality(), Guava's bitCount()); byte
  /// order does not change a word's population count.
  [[nodiscard]] std::uint64_t popcount() const noexcept {
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < bytes_.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, bytes_.data() + i, 8);
      count += static_cast<std::uint64_t>(std::popcount(w));
    }
    return count;
  }
  /// OR / AND with an array of the same size (checked by the caller).
  template <bool O>
  void merge(const java_bit_array<O>& other) noexcept
    requires Owning
  {
    const auto theirs = other.bytes();
    for (std::size_t i = 0; i < bytes_.size(); ++i) bytes_[i] |= theirs[i];
  }
  template <bool O>
  void intersect(const java_bit_array<O>& other) noexcept
    requires Owning
  {
    const auto theirs = other.bytes();
    for (std::size_t i = 0; i < bytes_.size(); ++i) bytes_[i] &= theirs[i];
  }
  void clear() noexcept
    requires Owning
  {
    std::memset(bytes_.data(), 0, bytes_.size());
  }
  /// The words as the stream holds them (big-endian).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }

  template <bool O>
  [[nodiscard]] bool same_bits(const java_bit_array<O>& other) const noexcept {
    const auto theirs = other.bytes();
    return bytes_.size() == theirs.size() && (bytes_.empty() || std::memcmp(bytes_.data(), theirs.data(), bytes_.size()) == 0);
  }

 private:
  storage bytes_{};
};

/// What a Spark or Guava filter and its view share besides their probe
/// rule: the parameters (each kind's own struct, with k and words), the bit
/// array, and the state computed from them. Owning picks the storage.
template <class Params, bool Owning>
class jvm_bloom_base {
 public:
  [[nodiscard]] const Params& params() const noexcept { return params_; }
  /// numHashFunctions.
  [[nodiscard]] std::uint32_t k() const noexcept { return params_.k; }
  /// Spark's bitSize(), Guava's bitSize(): 64 * words.
  [[nodiscard]] std::uint64_t bit_count() const noexcept { return bits_.bit_count(); }
  [[nodiscard]] std::size_t word_count() const noexcept { return bits_.word_count(); }
  /// Word `i` (in [0, word_count())) as the Java long[] holds it.
  [[nodiscard]] std::uint64_t word(std::size_t i) const noexcept { return bits_.word(i); }
  /// The words as the library's writeTo writes them (big-endian), 8 * word_count() bytes.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bits_.bytes(); }
  [[nodiscard]] std::size_t size_in_bytes() const noexcept { return 8 * bits_.word_count(); }
  /// Spark's cardinality(), Guava's bitCount(): the number of set bits.
  [[nodiscard]] std::uint64_t popcount() const noexcept { return bits_.popcount(); }
  [[nodiscard]] double fill_ratio() const noexcept {
    return static_cast<double>(popcount()) / static_cast<double>(bit_count());
  }
  /// Both libraries' expectedFpp(): fill^k.
  [[nodiscard]] double estimated_fpr() const noexcept {
    return std::pow(fill_ratio(), static_cast<double>(params_.k));
  }
  /// Keys inserted, estimated from the fill (Swamidass and Baldi 2007;
  /// Guava's approximateElementCount() before its rounding):
  /// -(m / k) ln(1 - X / m); infinity when every bit is set.
  [[nodiscard]] double estimated_cardinality() const noexcept {
    const double m = static_cast<double>(bit_count());
    const double x = static_cast<double>(popcount());
    if (x >= m) return std::numeric_limits<double>::infinity();
    return -(m / static_cast<double>(params_.k)) * std::log1p(-x / m);
  }

  /// Equal parameters and bits (an owner and a view compare too).
  template <bool O>
  [[nodiscard]] bool same_filter(const jvm_bloom_base<Params, O>& other) const noexcept {
    return params_ == other.params() && bits_.same_bits(other.bits());
  }
  [[nodiscard]] const java_bit_array<Owning>& bits() const noexcept { return bits_; }

 protected:
  /// Stores `params` and builds the bit array from `args` (java_bit_array's
  /// constructors). Every argument is evaluated before the array allocates
  /// or copies, so a derived class validates in its first argument.
  template <class... Args>
  explicit jvm_bloom_base(const Params& params, Args&&... args)
      : params_(params), bits_(std::forward<Args>(args)...) {}

  Params params_;
  java_bit_array<Owning> bits_;
};

/// The size check every Spark or Guava filter and view makes before it
/// stores its bits: `bytes` (the big-endian words given, or 8 * words for a
/// zeroed filter) must be 8 * `words`. errc::invalid_argument naming `kind`.
inline void require_word_bytes(const char* kind, std::uint64_t bytes, std::uint64_t words) {
  require(bytes == 8 * words, errc::invalid_argument,
          std::string(kind) + ": " + std::to_string(bytes / 8) + " words given, the parameters say " +
              std::to_string(words));
}

/// The owning Spark or Guava filter: what spark_bloom and guava_bloom share
/// beyond their views (constructors, inserts, set algebra, view()). `Basic`
/// is the kind's basic_*_bloom template, which brings the hash type, the
/// probe rule (for_each_bit), the parameter check (checked) and the shape
/// check of the set operations (require_same_shape); `View` is its view.
/// Inserts are not thread-safe (one writer; queries are const and safe).
template <template <bool> class Basic, class View>
class jvm_bloom_owner : public Basic<true> {
  using base = Basic<true>;

 public:
  using params_type = typename base::params_type;
  using hash_type = typename base::hash_type;
  using view_type = View;

  /// An empty filter with exactly these parameters (validated first; then
  /// allocates 8 * words bytes, errc::out_of_memory naming them).
  explicit jvm_bloom_owner(const params_type& params) : base(base::checked(params, 8 * params.words), params.words) {}
  /// A filter over these native words (words.size() must equal params.words).
  jvm_bloom_owner(const params_type& params, std::span<const std::uint64_t> words)
      : base(base::checked(params, 8 * static_cast<std::uint64_t>(words.size())), words) {}
  /// A filter over a copy of big-endian words as the JVM library's stream
  /// holds them (be_words.size() must be 8 * params.words).
  jvm_bloom_owner(const params_type& params, std::span<const std::byte> be_words)
      : base(base::checked(params, be_words.size()), be_words) {}
  /// An owning copy of a view.
  explicit jvm_bloom_owner(const View& view) : jvm_bloom_owner(view.params(), view.bytes()) {}

  /// Sets the key's k bits; true if any bit changed (Spark's and Guava's put result).
  bool insert_hash(hash_type h) noexcept {
    bool changed = false;
    this->for_each_bit(h, [&](std::uint64_t bit) {
      changed |= this->bits_.set(bit);
      return true;
    });
    return changed;
  }
  /// Any key the kind's hash takes (its `key` constraint, from hash.hpp).
  template <class K>
    requires requires(const base& f, const K& k) { f.hash(k); }
  bool insert(const K& k) noexcept {
    return insert_hash(this->hash(k));
  }
  /// A key given as its bytes (Spark's putBinary, and putString on UTF-8
  /// bytes; Guava's put through the funnel that gives these bytes).
  bool insert_bytes(std::span<const std::byte> bytes) noexcept {
    return insert_hash(this->hash_bytes(bytes.data(), bytes.size()));
  }

  /// OR with a filter or view (Spark's mergeInPlace, Guava's putAll).
  /// errc::mismatch naming the field when the shapes differ, as both
  /// libraries refuse; nothing changes then.
  template <bool O>
  void merge(const Basic<O>& other) {
    this->require_same_shape(other, "merge");
    this->bits_.merge(other.bits());
  }
  /// AND with the same checks (Spark's intersectInPlace; Guava has none:
  /// the bits are a Bloom filter of a superset of the intersection).
  template <bool O>
  void intersect(const Basic<O>& other) {
    this->require_same_shape(other, "intersect");
    this->bits_.intersect(other.bits());
  }
  void clear() noexcept { this->bits_.clear(); }

  /// A read-only view of this filter (valid while it lives, unchanged).
  [[nodiscard]] View view() const { return View(this->params_, this->bits_.bytes()); }
};

}  // namespace bloomkit::detail
