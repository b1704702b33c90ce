// bloomkit/counting_bloom.hpp - counting Bloom filter with 4-bit counters.
//
// Fan, Cao, Almeida and Broder (2000), "Summary cache": replace each bit of a
// standard filter by a small counter, increment on insert, decrement on
// remove, and test "counter != 0" on a query. This gives deletion at four
// times the memory of the standard filter.
//
// Layout (fixed; part of the file format):
//   * m counters of 4 bits, packed two per byte: counter i is the low nibble
//     of byte i / 2 when i is even, the high nibble when i is odd. In memory
//     the bytes are held as little-endian 64-bit words (counter i is bits
//     4 (i % 16) .. 4 (i % 16) + 3 of word i / 16), so the words written
//     little-endian are exactly those bytes.
//   * A key's k counters are exactly the k bits a standard_bloom with the same
//     m, k and hash probes (detail::for_each_probe, enhanced double hashing).
//     So counter i != 0 iff bit i of the standard filter built from the same
//     multiset of keys is set, and to_standard_bloom() is exact, bit for bit.
//
// Counters and their invariants:
//   * A counter stops at 15 (saturates) and is never decremented once there:
//     its true value is unknown, and decrementing it could drive it to zero
//     while keys still hash to it, a false negative. Below 15 a counter holds
//     exactly the number of probes of present keys that hit it, as long as
//     only present keys are removed; so no sequence of inserts and removes of
//     inserted keys can create a false negative.
//   * Fan et al. (section V.C) bound the chance that any counter reaches 16 at
//     the optimal k by m (e ln 2 / 16)^16 ~ 1.37e-15 m, which is why 4 bits
//     suffice at or below design capacity; saturated_counters() says how often
//     it happened anyway (overfull filters, heavy duplicates).
//   * remove() refuses, changing nothing, when the key is certainly absent:
//     some counter of it is below the number of times the key probes that
//     counter (so zero, in the common case of distinct probes). Removing a key
//     that was never inserted but passes may_contain (a false positive) is
//     indistinguishable from removing a present key and *can* create false
//     negatives for other keys: callers remove only keys they inserted.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/standard_bloom.hpp"

namespace bloomkit {

/// The parameters that fix a counting filter's layout and design point.
struct counting_bloom_params {
  std::uint64_t counters = 0;  ///< m, 1 <= m <= 2^40 (4 bits each)
  std::uint32_t k = 0;         ///< counters per key, 1 <= k <= 64
  std::uint64_t capacity = 0;  ///< design number of keys (>= 1)
  double target_fpr = 0.0;     ///< design false-positive rate, in (0, 1)
  hash_spec hash{};

  friend bool operator==(const counting_bloom_params&, const counting_bloom_params&) = default;
};

/// What counting_bloom::remove did.
enum class remove_result : std::uint8_t {
  removed = 0,  ///< the key's counters were decremented (saturated ones left at 15)
  absent = 1,   ///< the key is certainly not in the filter; nothing changed
};

/// "removed" or "absent".
constexpr std::string_view to_string(remove_result r) noexcept {
  return r == remove_result::removed ? "removed" : "absent";
}

namespace detail {

inline constexpr std::uint32_t counter_max = 15;  ///< a 4-bit counter saturates here
inline constexpr std::uint64_t max_counters = std::uint64_t{1} << 40;  // 512 GiB of counters

/// 64-bit words holding m 4-bit counters.
constexpr std::uint64_t words_for_counters(std::uint64_t counters) noexcept {
  return counters / 16 + (counters % 16 != 0);
}

constexpr std::uint32_t get_counter(std::span<const std::uint64_t> words, std::uint64_t i) noexcept {
  return static_cast<std::uint32_t>((words[i >> 4] >> ((i & 15) * 4)) & 0xF);
}

/// The one domain check of counting_bloom_params (constructors, views and
/// the codec; see param_check).
inline void validate(const counting_bloom_params& p, const param_check& check = {"counting_bloom"}) {
  check(p.counters >= 1 && p.counters <= max_counters, "counters",
        "= " + std::to_string(p.counters) + " is not in [1, 2^40]");
  check(p.k >= 1 && p.k <= 64, "k", "= " + std::to_string(p.k) + " is not in [1, 64]");
  check(p.capacity >= 1, "capacity", "is 0; a filter's design capacity is at least 1");
  check(p.target_fpr > 0.0 && p.target_fpr < 1.0, "target_fpr", "= " + detail::format_number(p.target_fpr) + " is not in (0, 1)");
  check(is_known(p.hash.algorithm), "hash_algorithm", "is not a known hash algorithm");
  check(is_known(p.hash.keys), "key_type", "is not a known key type");
}

inline void require_same_shape(const counting_bloom_params& a, const counting_bloom_params& b,
                               const char* operation) {
  const std::string prefix = std::string("counting_bloom ") + operation + ": ";
  require(a.counters == b.counters, errc::mismatch,
          prefix + "counter counts differ (" + std::to_string(a.counters) + " vs " + std::to_string(b.counters) + ")");
  require(a.k == b.k, errc::mismatch, prefix + "k differs (" + std::to_string(a.k) + " vs " + std::to_string(b.k) + ")");
  require_same_hash(a.hash, b.hash, prefix);
}

/// A key's k counter indices with, for each, how many times the key probes
/// that counter (enhanced double hashing repeats an index now and then when
/// m is small). Only the first occurrence of an index carries its count;
/// later ones carry 0.
struct counting_probe_set {
  std::array<std::uint64_t, 64> index{};
  std::array<std::uint8_t, 64> times{};
  std::uint32_t k = 0;

  counting_probe_set(std::uint64_t h, std::uint64_t counters, std::uint32_t k_) noexcept : k(k_) {
    std::uint32_t i = 0;
    for_each_probe(h, counters, k, [&](std::uint64_t counter) {
      index[i] = counter;
      times[i] = 1;
      for (std::uint32_t j = 0; j < i; ++j) {
        if (times[j] != 0 && index[j] == counter) {
          ++times[j];
          times[i] = 0;
          break;
        }
      }
      ++i;
    });
  }
};

/// The batch walk of a counting filter: prefetch_pipeline with each key
/// located by its first probe's word (16 counters to a word), prefetched a
/// window ahead (for writing when Word is mutable), and visit(i, h) run on
/// the keys in order. One line per key is in flight: the first probe's,
/// which every lookup reads and every insert writes.
template <class Word, class HashAt, class Visit>
inline void counting_pipeline(Word* words, std::uint64_t counters, std::size_t n, HashAt& hash_at, Visit&& visit) {
  prefetch_pipeline<batch_window>(
      n, hash_at,
      [&](std::uint64_t h) {
        const Word* word = words + (first_probe(h, counters) >> 4);
        if constexpr (std::is_const_v<Word>) {
          prefetch(word);
        } else {
          prefetch_for_write(word);
        }
      },
      std::forward<Visit>(visit));
}

/// Throws `code` unless `words` is a counting filter's payload for `p`:
/// exactly ceil(counters / 16) words with the nibbles past m zero.
inline void require_counting_payload(const counting_bloom_params& p, std::span<const std::uint64_t> words,
                                     errc code) {
  const std::uint64_t expected = words_for_counters(p.counters);
  require(words.size() == expected, code,
          "counting_bloom: expected " + std::to_string(expected) + " words for " + std::to_string(p.counters) +
              " counters, got " + std::to_string(words.size()));
  const unsigned tail = static_cast<unsigned>(p.counters % 16);
  require(tail == 0 || (words.back() >> (4 * tail)) == 0, code,
          "counting_bloom: counters past the end of the filter are non-zero");
}

/// The query and statistics code of a counting filter, shared by
/// counting_bloom and counting_bloom_view (detail/facade.hpp). D provides
/// params(), words() and inserted().
template <class D>
class counting_bloom_reader : public query_facade<D> {
 public:
  static constexpr const char* kind_name = "counting_bloom";

  /// True if the key with hash `h` may be present; false means certainly not
  /// (some counter of it is zero). Stops at the first zero counter.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    const auto words = self().words();
    return probe_while(h, self().params().counters, self().params().k, [words](std::uint64_t i) {
             return std::uint64_t{get_counter(words, i) != 0};
           }).all_set;
  }

  /// The batch core: out[i] = may_contain_hash(hash_at(i)), each key's
  /// first counter prefetched a window ahead (counting_pipeline).
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    counting_pipeline(self().words().data(), self().params().counters, n, hash_at,
                      [&](std::size_t i, std::uint64_t h) { out[i] = may_contain_hash(h); });
  }

  /// Appends the k counter indices (in [0, counters())) the key with hash
  /// `h` touches, in probe order: the probes of a standard filter of the
  /// same m and k (repeats possible).
  void probe_positions(std::uint64_t h, std::vector<std::uint64_t>& out) const {
    for_each_probe(h, self().params().counters, self().params().k, [&](std::uint64_t i) { out.push_back(i); });
  }

  /// An upper bound on how many times the key with hash `h` is present (the
  /// minimum over its counters, each divided by how often the key probes it;
  /// Fan et al. 2000, Cohen and Matias 2003 "minimum selection"). 0 means
  /// certainly absent. A result of 15 means "15 or more": a saturated
  /// counter no longer bounds anything.
  [[nodiscard]] std::uint32_t count_estimate_hash(std::uint64_t h) const noexcept {
    const counting_probe_set set(h, self().params().counters, self().params().k);
    std::uint32_t best = counter_max;
    for (std::uint32_t i = 0; i < set.k; ++i) {
      if (set.times[i] == 0) continue;
      const std::uint32_t c = get_counter(self().words(), set.index[i]);
      if (c == counter_max) continue;
      best = std::min(best, c / set.times[i]);
    }
    return best;
  }
  template <key K>
  [[nodiscard]] std::uint32_t count_estimate(const K& k) const {
    return count_estimate_hash(hash_key(k, self().params().hash));
  }

  /// The value of counter i in [0, 15]. Precondition: i < counters().
  [[nodiscard]] std::uint32_t counter(std::uint64_t i) const noexcept { return get_counter(self().words(), i); }

  [[nodiscard]] std::uint64_t counters() const noexcept { return self().params().counters; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return self().params().k; }
  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return self().params().capacity; }
  [[nodiscard]] double target_fpr() const noexcept { return self().params().target_fpr; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return self().words().size() * sizeof(std::uint64_t); }

  /// Counters that are not zero (the bits a standard filter would have set). O(size).
  [[nodiscard]] std::uint64_t nonzero_counters() const noexcept {
    std::uint64_t total = 0;
    for (const std::uint64_t w : self().words()) {
      // Fold each nibble to its lowest bit: set iff the nibble is non-zero.
      const std::uint64_t any = (w | (w >> 1) | (w >> 2) | (w >> 3)) & 0x1111111111111111ULL;
      total += static_cast<std::uint64_t>(std::popcount(any));
    }
    return total;
  }
  /// Counters stuck at 15: their keys can no longer be fully removed. O(size).
  [[nodiscard]] std::uint64_t saturated_counters() const noexcept {
    std::uint64_t total = 0;
    for (const std::uint64_t w : self().words()) {
      const std::uint64_t all = w & (w >> 1) & (w >> 2) & (w >> 3) & 0x1111111111111111ULL;
      total += static_cast<std::uint64_t>(std::popcount(all));
    }
    return total;
  }
  /// Fraction of non-zero counters, in [0, 1].
  [[nodiscard]] double fill_ratio() const noexcept {
    return static_cast<double>(nonzero_counters()) / static_cast<double>(self().params().counters);
  }
  /// Distinct keys present, estimated from the non-zero counters (Swamidass
  /// and Baldi 2007); +infinity when every counter is non-zero.
  [[nodiscard]] double estimated_cardinality() const {
    return sizing::cardinality_from_bits(static_cast<double>(self().params().counters), self().params().k,
                                         static_cast<double>(nonzero_counters()));
  }
  /// FPR for the counters now, (non-zero fraction)^k; follows the fill past
  /// capacity and falls again as keys are removed.
  [[nodiscard]] double estimated_fpr() const { return sizing::fpr_from_fill(fill_ratio(), self().params().k); }
  /// The classic formula at the design point (capacity keys).
  [[nodiscard]] double design_fpr() const {
    return sizing::classic_fpr(static_cast<double>(self().params().counters), static_cast<double>(self().params().capacity),
                               self().params().k);
  }
  /// Past design capacity: the net insert count is above capacity and the
  /// counters confirm more distinct keys than capacity beyond the estimate's
  /// noise (sizing::past_capacity). Removing keys can clear it again.
  [[nodiscard]] bool saturated() const {
    return self().inserted() > self().params().capacity && sizing::past_capacity(estimated_cardinality(), self().params().capacity);
  }

  /// The standard_bloom a standard filter with the same m, k, hash and design
  /// point would hold after the same inserts: bit i set iff counter i != 0.
  /// For shipping a filter that no longer needs deletion at a quarter of the
  /// size; inserted() carries over.
  [[nodiscard]] standard_bloom to_standard_bloom() const {
    std::vector<std::uint64_t> bits(words_for_bits(self().params().counters), 0);
    for (std::size_t w = 0; w < self().words().size(); ++w) {
      const std::uint64_t any = (self().words()[w] | (self().words()[w] >> 1) | (self().words()[w] >> 2) | (self().words()[w] >> 3));
      std::uint64_t packed = 0;
      for (unsigned j = 0; j < 16; ++j) packed |= ((any >> (4 * j)) & 1) << j;  // 16 counters -> 16 bits
      bits[w / 4] |= packed << (16 * (w % 4));
    }
    return standard_bloom(
        standard_bloom_params{self().params().counters, self().params().k, self().params().capacity, self().params().target_fpr, self().params().hash},
        std::move(bits), self().inserted(), self().inserted_accuracy());
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

}  // namespace detail

/// A read-only counting filter over borrowed 64-bit words (16 counters per
/// word, see the header comment), e.g. a memory-mapped file. Queries and
/// statistics are detail::counting_bloom_reader's; the words must outlive it.
class counting_bloom_view
    : public detail::counting_bloom_reader<counting_bloom_view>,
      public detail::view_state<counting_bloom_params, std::uint64_t, count_accuracy> {
  using state = detail::view_state<counting_bloom_params, std::uint64_t, count_accuracy>;

 public:
  /// Views `words` (exactly ceil(counters / 16) of them, the nibbles past m
  /// zero) as a filter with `params`; `inserted` is the net insert count.
  /// Throws bloomkit::error (invalid_argument or corrupt) when they disagree.
  counting_bloom_view(const counting_bloom_params& params, std::span<const std::uint64_t> words,
                      std::uint64_t inserted, count_accuracy accuracy = count_accuracy::exact)
      : state(detail::trusted, params, words, inserted, accuracy) {
    detail::validate(params);
    detail::require_counting_payload(params, words, errc::corrupt);
  }
  using state::state;  // (trusted_t, params, words, inserted, accuracy): no validation

  using state::params;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements(); }
};

/// An owning counting Bloom filter (see the header comment for the layout and
/// the counter invariants). Four bits per counter: 4x a standard filter.
class counting_bloom
    : public detail::counting_bloom_reader<counting_bloom>,
      public detail::insert_facade<counting_bloom>,
      public detail::owner_state<counting_bloom_view, counting_bloom_params, std::uint64_t, count_accuracy> {
  using state = detail::owner_state<counting_bloom_view, counting_bloom_params, std::uint64_t, count_accuracy>;

 public:
  using view_type = counting_bloom_view;

  /// A filter for `capacity` keys at `target_fpr`, sized exactly like
  /// standard_bloom(capacity, target_fpr): m = bits_for(n, p) counters,
  /// k = optimal_k_for(p). Throws errc::invalid_argument for n = 0 or p
  /// outside (0, 1).
  counting_bloom(std::uint64_t capacity, double target_fpr, hash_spec hash = {})
      : counting_bloom(plan_params(capacity, target_fpr, hash)) {}

  /// A zeroed filter with exactly these parameters (validated).
  explicit counting_bloom(const counting_bloom_params& params) : state(params) {
    detail::validate(params_);
    detail::assign_or_fail<std::uint64_t>(elements_, detail::words_for_counters(params_.counters), 0,
                                          "a counting_bloom of " + std::to_string(params_.counters) + " counters");
  }

  /// A filter from existing words (loading); validated like a view.
  /// `accuracy` says what `inserted` is (a count unless told otherwise).
  counting_bloom(const counting_bloom_params& params, std::vector<std::uint64_t> words, std::uint64_t inserted,
                 count_accuracy accuracy = count_accuracy::exact)
      : state(params, std::move(words), inserted, accuracy) {
    detail::validate(params_);
    detail::require_counting_payload(params_, elements_, errc::corrupt);
  }

  /// The parameters a (capacity, target_fpr) construction chooses: those of
  /// standard_bloom::plan_params, counters in place of bits.
  static counting_bloom_params plan_params(std::uint64_t capacity, double target_fpr, hash_spec hash = {}) {
    const standard_bloom_params s = standard_bloom::plan_params(capacity, target_fpr, hash);
    return counting_bloom_params{s.bits, s.k, s.capacity, s.target_fpr, s.hash};
  }

  /// Adds the key with hash `h`: increments its k counters, each stopping at 15.
  void insert_hash(std::uint64_t h) noexcept {
    detail::for_each_probe(h, params_.counters, params_.k, [this](std::uint64_t i) { increment(i); });
    ++count_.value;
  }
  /// Test-and-add with set semantics: computes the key's k counters once;
  /// if every one is non-zero the key may be present and nothing changes
  /// (false); otherwise increments them and returns true. A key added only
  /// this way is counted once. Caution with remove: a key refused here as a
  /// false positive holds no counters of its own, so removing the keys it
  /// collided with can make it a false negative; mix the two only where that
  /// is acceptable (insert counts every occurrence and has no such gap).
  bool insert_if_absent_hash(std::uint64_t h) noexcept {
    const detail::counting_probe_set set(h, params_.counters, params_.k);
    bool present = true;
    for (std::uint32_t i = 0; i < set.k; ++i) present &= get(set.index[i]) != 0;
    if (present) return false;
    for (std::uint32_t i = 0; i < set.k; ++i) increment(set.index[i]);
    ++count_.value;
    return true;
  }
  /// Adds every hash, in order (insert_hash on each), each key's first
  /// counter prefetched for writing a window ahead (detail::counting_pipeline).
  template <class HashAt>
  void insert_pipelined(std::size_t n, HashAt hash_at) {
    detail::counting_pipeline(elements_.data(), params_.counters, n, hash_at,
                              [this](std::size_t, std::uint64_t h) { insert_hash(h); });
  }

  /// Removes one occurrence of the key with hash `h`. Returns
  /// remove_result::absent, changing nothing, when the key is certainly not
  /// present (a counter below the number of times the key probes it);
  /// otherwise decrements each of its counters that is below 15 and returns
  /// removed. Precondition for correctness (not for memory safety): the key
  /// was inserted; removing a false positive can cause false negatives.
  remove_result remove_hash(std::uint64_t h) noexcept {
    const detail::counting_probe_set set(h, params_.counters, params_.k);
    for (std::uint32_t i = 0; i < set.k; ++i) {
      if (set.times[i] == 0) continue;
      const std::uint32_t c = get(set.index[i]);
      if (c != detail::counter_max && c < set.times[i]) return remove_result::absent;
    }
    for (std::uint32_t i = 0; i < set.k; ++i) decrement(set.index[i]);
    if (count_.value > 0) --count_.value;
    return remove_result::removed;
  }
  template <key K>
  remove_result remove(const K& k) {
    return remove_hash(hash_key(k, params_.hash));
  }


  /// Multiset union: counter-wise addition saturating at 15. Throws
  /// errc::mismatch (naming the field) unless counters, k and hash_spec are
  /// equal. inserted() becomes the sum. The counter invariants hold for the
  /// union of the two multisets.
  counting_bloom& merge(const counting_bloom_view& other) {
    detail::require_same_shape(params_, other.params(), "merge");
    merge_elements(other, other.words(),
                   [](std::uint64_t& mine, std::uint64_t theirs) { mine = saturating_add(mine, theirs); });
    return *this;
  }
  counting_bloom& merge(const counting_bloom& other) { return merge(other.view()); }

  /// Counter-wise minimum (an upper bound of the multiset intersection, as
  /// with bits); same checks as merge. inserted() becomes the smaller count,
  /// an upper bound only: inserted_accuracy() becomes at_most.
  counting_bloom& intersect(const counting_bloom_view& other) {
    detail::require_same_shape(params_, other.params(), "intersect");
    intersect_elements(other, other.words(), [](std::uint64_t& mine, std::uint64_t theirs) {
      std::uint64_t out = 0;
      for (unsigned j = 0; j < 64; j += 4) out |= std::min((mine >> j) & 0xF, (theirs >> j) & 0xF) << j;
      mine = out;
    });
    return *this;
  }
  counting_bloom& intersect(const counting_bloom& other) { return intersect(other.view()); }

  /// All counters zero, inserted() zero.
  void clear() noexcept { clear_elements(); }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "counting_bloom");
  }
  using state::params;
  using state::inserted;
  using state::inserted_accuracy;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements_; }

 private:
  [[nodiscard]] std::uint32_t get(std::uint64_t i) const noexcept { return detail::get_counter(elements_, i); }
  void increment(std::uint64_t i) noexcept {
    std::uint64_t& w = elements_[i >> 4];
    const unsigned shift = static_cast<unsigned>(i & 15) * 4;
    if (((w >> shift) & 0xF) != detail::counter_max) w += std::uint64_t{1} << shift;
  }
  void decrement(std::uint64_t i) noexcept {
    std::uint64_t& w = elements_[i >> 4];
    const unsigned shift = static_cast<unsigned>(i & 15) * 4;
    const std::uint64_t c = (w >> shift) & 0xF;
    if (c != 0 && c != detail::counter_max) w -= std::uint64_t{1} << shift;
  }
  /// Sixteen 4-bit lanes added lane by lane, each stopping at 15 (merge is
  /// rare and O(size) anyway; the compiler vectorises the loop).
  static std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
    std::uint64_t out = 0;
    for (unsigned j = 0; j < 64; j += 4) {
      const std::uint64_t s = ((a >> j) & 0xF) + ((b >> j) & 0xF);
      out |= std::min<std::uint64_t>(s, detail::counter_max) << j;
    }
    return out;
  }
};

/// counting_bloom's facts (filter.hpp).
template <>
struct kind_traits<counting_bloom> {
  static constexpr filter_kind kind = filter_kind::counting_bloom;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "counting";
  static constexpr std::string_view summary =
      "4-bit counters in place of bits: supports `bloomkit remove`, 4x the standard filter's size";
  static constexpr std::string_view python_class = "CountingBloom";
  static constexpr hash_spec default_hash = hash_spec{};
  static constexpr bool is_static = false;
  static constexpr bool grows = false;
  static constexpr bool removes = true;
  static constexpr bool merges = true;
  static constexpr bool windows = false;
};
template <>
struct kind_traits<counting_bloom_view> : kind_traits<counting_bloom> {};

static_assert(incremental_filter<counting_bloom> && filter<counting_bloom_view>);

}  // namespace bloomkit
