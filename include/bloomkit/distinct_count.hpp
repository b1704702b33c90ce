// bloomkit/distinct_count.hpp - how many distinct keys an input holds, for
// sizing a filter before it is built.
//
// A filter's capacity is a number of distinct keys: a repeat sets no new bit
// and takes no new slot. Every builder that sizes from its input (the CLI's
// `build` without --capacity, the Spark and Dask builds) follows one rule,
// stated in docs/KEYS.md ("Capacity"): fewer than K = 4096 distinct keys are
// counted exactly; more are estimated by a k-minimum-values sketch of the
// keys' 64-bit hashes, and the filter is sized for the estimate plus two
// standard errors, but never for more keys than were read (an input holds
// at most as many distinct keys as keys). The Python engines (python/bloomkit/_engines.py) and the
// JVM (jvm/.../Kmv.java) keep the same sketch and compute the same numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace bloomkit {

/// A k-minimum-values (KMV) sketch of a multiset of 64-bit hashes: the K
/// smallest distinct values seen (Bar-Yossef et al., RANDOM 2002; Beyer et
/// al., SIGMOD 2007). The sketch depends only on the set of hashes (not on
/// order, repeats or how the input was split), and two sketches merge into
/// the sketch of the union. Below K distinct hashes it holds them all and the
/// count is exact; above, the estimate (K - 1) / (h_K / 2^64) is unbiased
/// with relative standard error about 1 / sqrt(K - 2) (1.6 % at K = 4096).
/// The hashes must be uniform: use the filter kind's own key hash. Counting
/// distinct hashes, not keys: two keys that collide in 64 bits count once
/// (about n^2 / 2^65 of them, negligible below 10^9 keys). Every number it
/// answers is at most the number of hashes added, repeats included: an
/// estimate above that is known to be too high. Not thread-safe.
class distinct_counter {
 public:
  /// The sketch size every bloomkit builder uses.
  static constexpr std::size_t sketch_size = 4096;

  /// Adds hashes; O(1) per hash once the sketch is full (one comparison for
  /// most of them), amortized O(log K) for the rest.
  void add(std::span<const std::uint64_t> hashes) {
    added_ += hashes.size();
    for (const std::uint64_t h : hashes) {
      if (full_ && h >= threshold_) continue;
      pending_.push_back(h);
      if (pending_.size() >= pending_limit) compact();
    }
  }

  /// Adds the other sketch's set (the sketch of the union).
  void merge(const distinct_counter& other) {
    added_ += other.added_;
    pending_.insert(pending_.end(), other.kept_.begin(), other.kept_.end());
    pending_.insert(pending_.end(), other.pending_.begin(), other.pending_.end());
    compact();
  }

  /// True while fewer than sketch_size distinct hashes were seen: count()
  /// is then the exact number of distinct hashes.
  [[nodiscard]] bool exact() const { return settled().size() < sketch_size; }

  /// The distinct count: exact (see exact()) or the KMV estimate, at most
  /// added(). 0 for no input.
  [[nodiscard]] double count() const { return bounded(count_of(settled())); }

  /// The capacity a build sizes for: the count itself when exact, else the
  /// estimate plus two standard errors (about +3.1 %), so the filter meets
  /// its false-positive target unless the estimate was more than two sigma
  /// low (about 2 % of inputs); at most added(), the most distinct keys the
  /// input can hold. At least 1 (the sizing formulas need n >= 1).
  [[nodiscard]] std::uint64_t capacity() const {
    const std::vector<std::uint64_t> kept = settled();
    const double n = count_of(kept);
    if (kept.size() < sketch_size) return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(n));
    const double upper = std::ceil(n * (1.0 + two_standard_errors));
    // An estimate never exceeds 2^64 (K - 1) / K; the clamp keeps the
    // conversion defined whatever the floating-point rounding.
    constexpr double limit = 18446744073709549568.0;  // the largest double below 2^64
    return std::max<std::uint64_t>(1, std::min(added_, static_cast<std::uint64_t>(std::min(upper, limit))));
  }

  /// The fewest distinct keys the input surely holds, as far as two standard
  /// errors go: the count when exact, else the estimate minus two standard
  /// errors, at most added(). A build warns of more keys than its
  /// --capacity only past this.
  [[nodiscard]] double at_least() const {
    const std::vector<std::uint64_t> kept = settled();
    const double n = count_of(kept);
    return kept.size() < sketch_size ? n : bounded(n * (1.0 - two_standard_errors));
  }

  /// The hashes added, repeats included (merged counters: the sum).
  [[nodiscard]] std::uint64_t added() const noexcept { return added_; }

  /// The sketch: at most sketch_size distinct hashes, ascending.
  [[nodiscard]] std::vector<std::uint64_t> sketch() const { return settled(); }

 private:
  static constexpr std::size_t pending_limit = 4 * sketch_size;
  // Two relative standard errors of the KMV estimate, 2 / sqrt(K - 2).
  static inline const double two_standard_errors = 2.0 / std::sqrt(static_cast<double>(sketch_size - 2));

  // `n` no larger than the hashes added.
  [[nodiscard]] double bounded(double n) const { return std::min(n, static_cast<double>(added_)); }

  // The distinct count of a settled sketch (see count()).
  static double count_of(const std::vector<std::uint64_t>& kept) {
    if (kept.size() < sketch_size) return static_cast<double>(kept.size());
    // (h_K + 1) / 2^64 is the K-th smallest of uniform draws in (0, 1],
    // rounded to a double once, as Python's int-to-float division and
    // Java's BigInteger do (h_K + 1 = 2^64 is exact in a double).
    const std::uint64_t h = kept[sketch_size - 1];
    const double top = h == std::numeric_limits<std::uint64_t>::max() ? 0x1p64 : static_cast<double>(h + 1);
    return static_cast<double>(sketch_size - 1) / std::ldexp(top, -64);
  }

  // kept_ sorted, distinct and at most sketch_size long.
  static void settle(std::vector<std::uint64_t>& kept, std::vector<std::uint64_t>& pending) {
    pending.insert(pending.end(), kept.begin(), kept.end());
    std::sort(pending.begin(), pending.end());
    pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
    if (pending.size() > sketch_size) pending.resize(sketch_size);
    kept.swap(pending);
    pending.clear();
  }

  void compact() {
    settle(kept_, pending_);
    full_ = kept_.size() == sketch_size;
    if (full_) threshold_ = kept_.back();
  }

  [[nodiscard]] std::vector<std::uint64_t> settled() const {
    std::vector<std::uint64_t> kept = kept_;
    std::vector<std::uint64_t> pending = pending_;
    settle(kept, pending);
    return kept;
  }

  std::vector<std::uint64_t> kept_;
  std::vector<std::uint64_t> pending_;
  std::uint64_t added_ = 0;      // hashes added, repeats included
  std::uint64_t threshold_ = 0;  // once full_: the K-th smallest hash kept
  bool full_ = false;
};

}  // namespace bloomkit
