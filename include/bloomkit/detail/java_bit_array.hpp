// bloomkit/detail/java_bit_array.hpp - the bit array Spark's and Guava's
// Bloom filters share: 64-bit words, bit i is bit (i % 64) of word i / 64,
// at most 2^31 - 1 words (a Java array's limit). Private to bloomkit.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

/// Java arrays hold at most 2^31 - 1 elements; both libraries size their
/// long[] with an int.
inline constexpr std::uint64_t java_max_words = (std::uint64_t{1} << 31) - 1;

/// The words of a Spark or Guava filter, owned. Sizes are checked by the
/// filter that owns it; this type only stores and counts.
class java_bit_array {
 public:
  java_bit_array() = default;
  explicit java_bit_array(std::uint64_t words) : words_(words, 0) {}  // zeroed, owned
  explicit java_bit_array(std::vector<std::uint64_t> words) : words_(std::move(words)) {}

  /// Bits: words * 64 (both libraries round the requested size up to whole words).
  [[nodiscard]] std::uint64_t bit_count() const noexcept { return std::uint64_t{64} * words_.size(); }
  [[nodiscard]] bool get(std::uint64_t bit) const noexcept { return (words_[bit >> 6] >> (bit & 63)) & 1; }
  /// Sets the bit; true if it was clear before.
  bool set(std::uint64_t bit) noexcept {
    const std::uint64_t mask = std::uint64_t{1} << (bit & 63);
    const bool was_clear = (words_[bit >> 6] & mask) == 0;
    words_[bit >> 6] |= mask;
    return was_clear;
  }
  /// Number of set bits (Spark's cardinality(), Guava's bitCount()).
  [[nodiscard]] std::uint64_t popcount() const noexcept {
    std::uint64_t count = 0;
    for (const std::uint64_t w : words_) count += static_cast<std::uint64_t>(std::popcount(w));
    return count;
  }
  void merge(const java_bit_array& other) noexcept {
    for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= other.words_[i];
  }
  void intersect(const java_bit_array& other) noexcept {
    for (std::size_t i = 0; i < words_.size(); ++i) words_[i] &= other.words_[i];
  }
  void clear() noexcept {
    for (auto& w : words_) w = 0;
  }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return words_; }
  [[nodiscard]] std::size_t word_count() const noexcept { return words_.size(); }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace bloomkit::detail
