// bloomkit/cuckoo_filter.hpp - the cuckoo filter (deletion at ~log2(1/p) + 3 bits per key).
//
// Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically
// Better Than Bloom", CoNEXT 2014. A table of m buckets of b = 4 slots holds
// one f-bit fingerprint per key in one of the key's two candidate buckets:
//
//   i1  = (h * m) >> 64                                 (multiply-shift, high bits of h)
//   fp  = 1 + ((uint32(h) * (2^f - 1)) >> 32)           (low bits of h; 0 marks an empty slot)
//   i2  = alt(i1, fp),  alt(i, fp) = (t(fp) - i) mod m,  t(fp) = (mix64(fp) * m) >> 64
//
// Partial-key cuckoo hashing (section 3.1): the second bucket is computed from
// the *fingerprint* and the bucket it sits in, so a fingerprint can be moved
// between its two buckets without the key. The paper's XOR form needs m to be
// a power of two (up to 2x memory lost to rounding); the subtractive form
// above is an involution for every m (alt(alt(i)) = t - (t - i) = i), so
// m = ceil(n / (4 alpha)) exactly and bits/key stay near f / alpha.
//
//   bucket i, at bit offset 4 f i of the table (little-endian bit order):
//     +--------+--------+--------+--------+
//     | slot 0 | slot 1 | slot 2 | slot 3 |   f bits each, 0 = empty
//     +--------+--------+--------+--------+
//   plus one victim slot (bucket, fingerprint) outside the table.
//
// Insert puts fp in an empty slot of i1 or i2; otherwise it evicts a slot's
// fingerprint (chosen deterministically from the fingerprint, bucket and
// step, so equal inserts give equal tables) and moves the evicted one to its
// other bucket, up to max_kicks = 500 times (the paper's bound). When the walk
// ends without a free slot, the last evicted fingerprint goes to the victim
// slot: the key being inserted *is* stored and every stored key still
// answers. While the victim slot is taken the filter is full: an insert
// changes nothing and says so. remove() of any key frees a slot and
// re-inserts the victim.
//
// The insert contract is every kind's (README.md, "One contract for every
// kind"): insert, insert_hash, insert_many and insert_keys add or throw
// bloomkit::error (errc::construction_failed, "the filter is full"), and so
// does test-and-add: insert_if_absent, insert_if_absent_hash and
// insert_if_absent_many answer inserted or present, or throw. The fallible
// names answer instead of throwing: try_insert / try_insert_hash return
// insert_result, try_insert_many the count inserted, try_insert_if_absent /
// try_insert_if_absent_hash insert_result (full among the answers) and
// try_insert_if_absent_many a cuckoo_batch_result that stops at the key that
// found the filter full. A single insert that fails changes nothing; a batch
// keeps the keys before the one that failed. Batch names: `_many` takes
// precomputed 64-bit hashes, `_keys` takes keys (Python spells them `_hashes`
// and `_many`; README, "One contract for every kind").
//
// Why the FPR is what it is (section 4): a query compares fp with the 2b = 8
// slots of its two buckets; each occupied slot holds an independent uniform
// fingerprint in [1, 2^f - 1], so at load alpha
//   FPR = 1 - (1 - 1/(2^f - 1))^(8 alpha)   ~ 8 alpha / 2^f   (<= 2b / 2^f at full load).
// sizing: f is the smallest width whose FPR at the planned load (alpha_plan =
// 0.95) is at most p, i.e. f ~ log2(1/p) + 3, and bits/key = f / alpha_plan.
// At p = 1 %: f = 10, 10.53 bits/key, FPR 0.74 % at 0.95 load; at p = 0.1 %:
// f = 13, 13.68 bits/key, FPR 0.093 %. Restricting f to the paper's 8/12/16
// (cuckoo_widths::paper) costs up to 24 % more bits (12.6 bits/key at 1 %).
// A counting Bloom filter needs 4 x 9.59 = 38.3 bits/key at 1 %.
//
// Contracts worth knowing:
//   * Multiset: inserting a key twice stores two copies (remove takes one
//     away). At most 2b = 8 copies of one key fit; more make insert fail.
//   * remove() of a key that was never inserted may delete another key's
//     colliding fingerprint, a false negative for that key: callers remove
//     only keys they inserted (as with counting_bloom).
//   * Cuckoo filters do not merge: two tables' slots cannot be OR-ed, and
//     re-inserting one into the other can fail. There is no merge().
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/counting_bloom.hpp"  // remove_result
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {

/// What a cuckoo insert did.
enum class insert_result : std::uint8_t {
  inserted = 0,  ///< the key's fingerprint is stored (possibly after evictions)
  full = 1,      ///< (try_ forms only) no room: the victim slot is taken; nothing changed
  present = 2,   ///< (test-and-add only) the key may already be present; nothing changed
};

/// "inserted", "full" or "present".
constexpr std::string_view to_string(insert_result r) noexcept {
  switch (r) {
    case insert_result::inserted: return "inserted";
    case insert_result::full: return "full";
    case insert_result::present: return "present";
  }
  return "unknown";
}

/// Which fingerprint widths the (capacity, fpr) planner may pick.
enum class cuckoo_widths : std::uint8_t {
  smallest = 0,  ///< any f in [4, 16]: the fewest bits that reach the target
  paper = 1,     ///< only 8, 12 or 16 bits (the widths of Fan et al.'s reference code)
};

/// The parameters that fix a cuckoo filter's layout and design point.
struct cuckoo_filter_params {
  std::uint64_t buckets = 0;           ///< m, 1 <= m <= 2^44 (4 slots each)
  std::uint32_t fingerprint_bits = 0;  ///< f, 4 <= f <= 16
  std::uint64_t capacity = 0;          ///< design number of keys (>= 1, <= 4 m)
  double target_fpr = 0.0;             ///< design false-positive rate, in (0, 1)
  hash_spec hash{};

  friend bool operator==(const cuckoo_filter_params&, const cuckoo_filter_params&) = default;
};

/// The victim slot: a fingerprint that found no room, with the bucket it
/// belongs to (either of its two). fingerprint == 0 means empty.
struct cuckoo_victim {
  std::uint64_t bucket = 0;
  std::uint32_t fingerprint = 0;

  friend bool operator==(const cuckoo_victim&, const cuckoo_victim&) = default;
};

/// One slot written by an insert (cuckoo_filter::insert_hash_traced, for
/// pictures and teaching): `fingerprint` went into slot `slot` of `bucket`,
/// displacing `evicted` (0: the slot was empty). slot == 4 (one past the
/// bucket's slots) is the victim slot, where a walk that found no free slot
/// leaves its last fingerprint.
struct cuckoo_move {
  std::uint64_t bucket = 0;
  std::uint32_t slot = 0;
  std::uint32_t fingerprint = 0;
  std::uint32_t evicted = 0;

  friend bool operator==(const cuckoo_move&, const cuckoo_move&) = default;
};

namespace detail {

inline constexpr std::uint32_t cuckoo_slots = 4;          ///< b, slots per bucket
inline constexpr std::uint32_t cuckoo_max_kicks = 500;    ///< Fan et al.'s bound on an eviction walk
inline constexpr double cuckoo_plan_load = 0.95;          ///< alpha_plan: load at design capacity
inline constexpr std::uint64_t cuckoo_max_buckets = std::uint64_t{1} << 44;

/// Words of the table: 4 f m bits, plus one so a bucket straddling the last
/// word boundary can always read the word after it.
constexpr std::uint64_t cuckoo_words_for(std::uint64_t buckets, std::uint32_t f) noexcept {
  const std::uint64_t bits = buckets * cuckoo_slots * f;
  return bits / 64 + (bits % 64 != 0) + 1;
}

inline void validate(const cuckoo_filter_params& p) {
  require(p.buckets >= 1 && p.buckets <= cuckoo_max_buckets, errc::invalid_argument,
          "cuckoo_filter: buckets must be in [1, 2^44], got " + std::to_string(p.buckets));
  require(p.fingerprint_bits >= 4 && p.fingerprint_bits <= 16, errc::invalid_argument,
          "cuckoo_filter: fingerprint_bits must be in [4, 16], got " + std::to_string(p.fingerprint_bits));
  require(p.capacity >= 1 && p.capacity <= p.buckets * cuckoo_slots, errc::invalid_argument,
          "cuckoo_filter: capacity must be in [1, 4 buckets], got " + std::to_string(p.capacity));
  require(p.target_fpr > 0.0 && p.target_fpr < 1.0, errc::invalid_argument,
          "cuckoo_filter: target_fpr must be in (0, 1), got " + detail::format_number(p.target_fpr));
  require(is_known(p.hash.algorithm), errc::invalid_argument, "cuckoo_filter: unknown hash algorithm");
  require(is_known(p.hash.keys), errc::invalid_argument, "cuckoo_filter: unknown key type");
}

/// The expected FPR of a table at load `alpha` with f-bit fingerprints: each
/// of the 2b alpha occupied candidate slots matches with 1 / (2^f - 1).
inline double cuckoo_fpr(double alpha, std::uint32_t f) noexcept {
  const double per_slot = 1.0 / (std::ldexp(1.0, static_cast<int>(f)) - 1.0);
  return -std::expm1(2.0 * cuckoo_slots * alpha * std::log1p(-per_slot));
}

/// Where a key lives: its first bucket, its fingerprint and its second bucket.
struct cuckoo_address {
  std::uint64_t first;
  std::uint64_t second;
  std::uint32_t fingerprint;
};

/// The other bucket of fingerprint fp in bucket i (an involution, see the header).
constexpr std::uint64_t cuckoo_alt(std::uint64_t i, std::uint32_t fp, std::uint64_t buckets) noexcept {
  const std::uint64_t t = reduce64(mix64(fp), buckets);
  return t >= i ? t - i : t + buckets - i;
}

constexpr cuckoo_address cuckoo_address_of(std::uint64_t h, std::uint64_t buckets, std::uint32_t f) noexcept {
  const std::uint64_t fp_range = (std::uint64_t{1} << f) - 1;
  const auto fp = static_cast<std::uint32_t>(1 + (((h & 0xffffffffULL) * fp_range) >> 32));
  const std::uint64_t first = reduce64(h, buckets);
  return {first, cuckoo_alt(first, fp, buckets), fp};
}

constexpr std::uint64_t cuckoo_bucket_mask(std::uint32_t f) noexcept {
  return 4 * f == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (4 * f)) - 1;
}

/// The 4 f bits of bucket i (slot j in bits [j f, (j + 1) f)).
inline std::uint64_t cuckoo_load_bucket(const std::uint64_t* words, std::uint64_t i, std::uint32_t f) noexcept {
  const std::uint64_t offset = i * cuckoo_slots * f;
  const std::uint64_t w = offset >> 6;
  const unsigned s = static_cast<unsigned>(offset & 63);
  std::uint64_t v = words[w] >> s;
  if (s != 0) v |= words[w + 1] << (64 - s);
  return v & cuckoo_bucket_mask(f);
}

inline void cuckoo_store_bucket(std::uint64_t* words, std::uint64_t i, std::uint32_t f, std::uint64_t v) noexcept {
  const std::uint64_t offset = i * cuckoo_slots * f;
  const std::uint64_t w = offset >> 6;
  const unsigned s = static_cast<unsigned>(offset & 63);
  const std::uint64_t mask = cuckoo_bucket_mask(f);
  words[w] = (words[w] & ~(mask << s)) | (v << s);
  if (s != 0 && s + 4 * f > 64) {
    words[w + 1] = (words[w + 1] & ~(mask >> (64 - s))) | (v >> (64 - s));
  }
}

constexpr std::uint32_t cuckoo_slot(std::uint64_t bucket, std::uint32_t j, std::uint32_t f) noexcept {
  return static_cast<std::uint32_t>((bucket >> (j * f)) & ((std::uint64_t{1} << f) - 1));
}

constexpr bool cuckoo_bucket_has(std::uint64_t bucket, std::uint32_t fp, std::uint32_t f) noexcept {
  bool found = false;
  for (std::uint32_t j = 0; j < cuckoo_slots; ++j) found |= cuckoo_slot(bucket, j, f) == fp;
  return found;
}

/// Index of the first slot holding `fp` (0 finds an empty slot), or 4.
constexpr std::uint32_t cuckoo_find_slot(std::uint64_t bucket, std::uint32_t fp, std::uint32_t f) noexcept {
  for (std::uint32_t j = 0; j < cuckoo_slots; ++j) {
    if (cuckoo_slot(bucket, j, f) == fp) return j;
  }
  return cuckoo_slots;
}

constexpr std::uint64_t cuckoo_with_slot(std::uint64_t bucket, std::uint32_t j, std::uint32_t f,
                                         std::uint32_t fp) noexcept {
  const std::uint64_t lane = ((std::uint64_t{1} << f) - 1) << (j * f);
  return (bucket & ~lane) | (static_cast<std::uint64_t>(fp) << (j * f));
}

/// Throws `code` unless `words` is a cuckoo table for `p` with `stored`
/// fingerprints and this victim slot: exactly cuckoo_words_for(m, f) words,
/// every bit past the table zero, the victim in range, and the stored count
/// equal to the occupied slots plus the victim.
inline void require_cuckoo_payload(const cuckoo_filter_params& p, std::span<const std::uint64_t> words,
                                   std::uint64_t stored, const cuckoo_victim& victim, errc code) {
  const std::uint64_t expected = cuckoo_words_for(p.buckets, p.fingerprint_bits);
  require(words.size() == expected, code,
          "cuckoo_filter: expected " + std::to_string(expected) + " words for " + std::to_string(p.buckets) +
              " buckets, got " + std::to_string(words.size()));
  const std::uint64_t table_bits = p.buckets * cuckoo_slots * p.fingerprint_bits;
  const std::uint64_t last = table_bits / 64;  // the word holding the table's end
  const unsigned used = static_cast<unsigned>(table_bits % 64);
  require(used == 0 || (words[last] >> used) == 0, code, "cuckoo_filter: bits past the end of the table are non-zero");
  for (std::uint64_t w = last + (used != 0); w < words.size(); ++w) {
    require(words[w] == 0, code, "cuckoo_filter: bits past the end of the table are non-zero");
  }
  const std::uint32_t fp_max = (std::uint32_t{1} << p.fingerprint_bits) - 1;
  require(victim.fingerprint <= fp_max && (victim.fingerprint != 0 || victim.bucket == 0) && victim.bucket < p.buckets,
          code, "cuckoo_filter: the victim slot is out of range");
  std::uint64_t occupied = 0;
  for (std::uint64_t i = 0; i < p.buckets; ++i) {
    const std::uint64_t b = cuckoo_load_bucket(words.data(), i, p.fingerprint_bits);
    for (std::uint32_t j = 0; j < cuckoo_slots; ++j) occupied += cuckoo_slot(b, j, p.fingerprint_bits) != 0;
  }
  require(occupied + (victim.fingerprint != 0) == stored, code,
          "cuckoo_filter: the stored count disagrees with the occupied slots");
}

/// The query and statistics code of a cuckoo filter, shared by
/// cuckoo_filter and cuckoo_filter_view (detail/facade.hpp). D provides
/// params(), words(), inserted() and victim().
template <class D>
class cuckoo_reader : public query_facade<D> {
 public:
  static constexpr const char* kind_name = "cuckoo_filter";

  /// True if the key with hash `h` may be present; false means certainly
  /// not. Reads two buckets (8 slots) and the victim slot, no branch per slot.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    return contains(cuckoo_address_of(h, self().params().buckets, self().params().fingerprint_bits));
  }

  /// The batch core: out[i] = may_contain_hash(hash_at(i)), prefetching both
  /// buckets a window ahead.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    constexpr std::size_t window = 16;
    for (std::size_t i = 0; i < n; ++i) {
      if (i + window < n) prefetch_buckets(hash_at(i + window), false);
      out[i] = may_contain_hash(hash_at(i));
    }
  }

  /// How many copies of the key's fingerprint sit in its two buckets and the
  /// victim slot: an upper bound on its multiplicity (colliding keys add).
  [[nodiscard]] std::uint32_t count_estimate_hash(std::uint64_t h) const noexcept {
    const std::uint32_t f = self().params().fingerprint_bits;
    const auto a = cuckoo_address_of(h, self().params().buckets, f);
    const std::uint64_t* words = self().words().data();
    std::uint32_t n = 0;
    const std::uint64_t b1 = cuckoo_load_bucket(words, a.first, f);
    for (std::uint32_t j = 0; j < cuckoo_slots; ++j) n += cuckoo_slot(b1, j, f) == a.fingerprint;
    if (a.second != a.first) {
      const std::uint64_t b2 = cuckoo_load_bucket(words, a.second, f);
      for (std::uint32_t j = 0; j < cuckoo_slots; ++j) n += cuckoo_slot(b2, j, f) == a.fingerprint;
    }
    return n + victim_matches(a);
  }
  template <key K>
  [[nodiscard]] std::uint32_t count_estimate(const K& k) const {
    return count_estimate_hash(hash_key(k, self().params().hash));
  }

  /// The two buckets of the key with hash `h` (for pictures and teaching).
  void probe_positions(std::uint64_t h, std::vector<std::uint64_t>& out) const {
    const auto a = cuckoo_address_of(h, self().params().buckets, self().params().fingerprint_bits);
    out.push_back(a.first);
    out.push_back(a.second);
  }

  /// Slots per bucket (b = 4).
  static constexpr std::uint32_t slots_per_bucket = detail::cuckoo_slots;
  /// The fingerprint the key with hash `h` stores, in [1, 2^f - 1] (for
  /// pictures and teaching; its buckets are probe_positions').
  [[nodiscard]] std::uint32_t fingerprint_of_hash(std::uint64_t h) const noexcept {
    return detail::cuckoo_address_of(h, self().params().buckets, self().params().fingerprint_bits).fingerprint;
  }
  /// The fingerprint in slot j (< 4) of bucket i (< buckets()), 0 for an
  /// empty slot (for pictures and teaching).
  [[nodiscard]] std::uint32_t slot_fingerprint(std::uint64_t i, std::uint32_t j) const noexcept {
    const std::uint32_t f = self().params().fingerprint_bits;
    return detail::cuckoo_slot(detail::cuckoo_load_bucket(self().words().data(), i, f), j, f);
  }

  [[nodiscard]] std::uint64_t buckets() const noexcept { return self().params().buckets; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return self().params().fingerprint_bits; }
  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return self().params().capacity; }
  [[nodiscard]] double target_fpr() const noexcept { return self().params().target_fpr; }
  /// Slots in the table (4 m).
  [[nodiscard]] std::uint64_t slots() const noexcept { return self().params().buckets * cuckoo_slots; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return self().words().size() * sizeof(std::uint64_t); }
  /// Memory per stored key, in bits (size_in_bytes over inserted()); infinity when empty.
  [[nodiscard]] double bits_per_key() const noexcept {
    return static_cast<double>(size_in_bytes()) * 8.0 / static_cast<double>(self().inserted());
  }
  /// Non-empty table slots, counted. O(size).
  [[nodiscard]] std::uint64_t occupied_slots() const noexcept {
    const std::uint32_t f = self().params().fingerprint_bits;
    std::uint64_t n = 0;
    for (std::uint64_t i = 0; i < self().params().buckets; ++i) {
      const std::uint64_t b = cuckoo_load_bucket(self().words().data(), i, f);
      for (std::uint32_t j = 0; j < cuckoo_slots; ++j) n += cuckoo_slot(b, j, f) != 0;
    }
    return n;
  }
  /// Load factor alpha: stored fingerprints over table slots, in [0, 1]
  /// (the victim slot counts as a key, not as a slot).
  [[nodiscard]] double load_factor() const noexcept {
    return std::min(1.0, static_cast<double>(self().inserted()) / static_cast<double>(slots()));
  }
  /// For the common state API: the load factor.
  [[nodiscard]] double fill_ratio() const noexcept { return load_factor(); }
  /// Keys held, exactly (duplicates included): the stored count.
  [[nodiscard]] double estimated_cardinality() const noexcept { return static_cast<double>(self().inserted()); }
  /// FPR at the load now: 1 - (1 - 1/(2^f - 1))^(8 alpha) (see the header).
  [[nodiscard]] double estimated_fpr() const noexcept { return cuckoo_fpr(load_factor(), self().params().fingerprint_bits); }
  /// FPR at the design capacity's load.
  [[nodiscard]] double design_fpr() const noexcept {
    return cuckoo_fpr(static_cast<double>(self().params().capacity) / static_cast<double>(slots()),
                      self().params().fingerprint_bits);
  }
  /// The bound at 100 % load, 1 - (1 - 1/(2^f - 1))^8 ~ 2b / 2^f.
  [[nodiscard]] double full_load_fpr() const noexcept { return cuckoo_fpr(1.0, self().params().fingerprint_bits); }
  /// Full: the victim slot is taken, so the next insert returns
  /// insert_result::full (a remove makes room again).
  [[nodiscard]] bool full() const noexcept { return self().victim().fingerprint != 0; }
  /// For the common state API: full, or more keys than the design capacity.
  [[nodiscard]] bool saturated() const noexcept { return full() || self().inserted() > self().params().capacity; }

 protected:
  [[nodiscard]] bool victim_matches(const cuckoo_address& a) const noexcept {
    const cuckoo_victim v = self().victim();
    return v.fingerprint == a.fingerprint && (v.bucket == a.first || v.bucket == a.second);
  }
  [[nodiscard]] bool contains(const cuckoo_address& a) const noexcept {
    const std::uint32_t f = self().params().fingerprint_bits;
    const std::uint64_t* words = self().words().data();
    const std::uint64_t b1 = cuckoo_load_bucket(words, a.first, f);
    const std::uint64_t b2 = cuckoo_load_bucket(words, a.second, f);
    // Bitwise on ints, not ||: all three tests run, without branches.
    return (static_cast<int>(cuckoo_bucket_has(b1, a.fingerprint, f)) |
            static_cast<int>(cuckoo_bucket_has(b2, a.fingerprint, f)) | static_cast<int>(victim_matches(a))) != 0;
  }
  void prefetch_buckets(std::uint64_t h, bool for_write) const noexcept {
    const std::uint32_t f = self().params().fingerprint_bits;
    const auto a = cuckoo_address_of(h, self().params().buckets, f);
    const std::uint64_t* w1 = self().words().data() + ((a.first * cuckoo_slots * f) >> 6);
    const std::uint64_t* w2 = self().words().data() + ((a.second * cuckoo_slots * f) >> 6);
    if (for_write) {
      prefetch_for_write(w1);
      prefetch_for_write(w2);
    } else {
      prefetch(w1);
      prefetch(w2);
    }
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

/// What a cuckoo filter keeps beside its table (detail/filter_state.hpp's
/// Side): the fingerprints held, and the victim slot.
struct cuckoo_side {
  std::uint64_t stored_ = 0;
  cuckoo_victim victim_{};
};

}  // namespace detail

/// A read-only cuckoo filter over borrowed words (the table as described in
/// the header comment, one padding word at the end), e.g. a memory-mapped
/// file. Queries and statistics are detail::cuckoo_reader's; the words must
/// outlive it.
class cuckoo_filter_view
    : public detail::cuckoo_reader<cuckoo_filter_view>,
      public detail::array_view_state<cuckoo_filter_params, std::uint64_t, detail::cuckoo_side> {
  using state = detail::array_view_state<cuckoo_filter_params, std::uint64_t, detail::cuckoo_side>;

 public:
  /// Views `words` (exactly cuckoo_words_for(buckets, f) of them, bits past
  /// the table zero) with `params`; `stored` is the number of fingerprints
  /// held (table plus victim). Throws bloomkit::error (invalid_argument or
  /// corrupt) when they disagree, including a stored count that differs from
  /// the occupied slots, or a victim slot out of range.
  cuckoo_filter_view(const cuckoo_filter_params& params, std::span<const std::uint64_t> words, std::uint64_t stored,
                     cuckoo_victim victim)
      : state(detail::trusted, params, words, detail::cuckoo_side{stored, victim}) {
    detail::validate(params);
    detail::require_cuckoo_payload(params, words, stored, victim, errc::corrupt);
  }
  using state::state;  // (trusted_t, params, words, cuckoo_side): no validation

  using state::params;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements(); }
  /// Fingerprints held (table and victim slot): inserts minus removes.
  /// Exact, duplicates included.
  [[nodiscard]] std::uint64_t inserted() const noexcept { return stored_; }
  [[nodiscard]] cuckoo_victim victim() const noexcept { return victim_; }
};

/// The result of a batched test-and-add on a cuckoo filter.
struct cuckoo_batch_result {
  /// Bit i (word i / 64, bit i % 64) set iff key i was inserted, i.e. it
  /// was certainly absent before (earlier keys of the batch included).
  std::vector<std::uint64_t> inserted_bits;
  /// Keys handled; less than the batch size iff the filter became full at
  /// hashes[processed] (that key and the rest were not touched).
  std::size_t processed = 0;
};

/// An owning cuckoo filter (see the header comment for the layout, the
/// eviction walk and the FPR).
class cuckoo_filter
    : public detail::cuckoo_reader<cuckoo_filter>,
      public detail::insert_facade<cuckoo_filter>,
      public detail::array_owner_state<cuckoo_filter_view, cuckoo_filter_params, std::uint64_t, detail::cuckoo_side> {
  using state = detail::array_owner_state<cuckoo_filter_view, cuckoo_filter_params, std::uint64_t, detail::cuckoo_side>;

 public:
  using view_type = cuckoo_filter_view;

  /// A filter for `capacity` keys at `target_fpr`: plan_params(capacity,
  /// target_fpr, hash, widths). Throws errc::invalid_argument for n = 0, p
  /// outside (0, 1), or p below what 16-bit fingerprints reach (~1.2e-4).
  cuckoo_filter(std::uint64_t capacity, double target_fpr, hash_spec hash = {},
                cuckoo_widths widths = cuckoo_widths::smallest)
      : cuckoo_filter(plan_params(capacity, target_fpr, hash, widths)) {}

  /// The lowest target_fpr any plan reaches: 16-bit fingerprints at the
  /// planning load of 95 % (about 1.2e-4); a smaller target is refused.
  [[nodiscard]] static double lowest_plannable_fpr() noexcept {
    return detail::cuckoo_fpr(detail::cuckoo_plan_load, 16);
  }

  /// An empty filter with exactly these parameters (validated).
  explicit cuckoo_filter(const cuckoo_filter_params& params) : state(params) {
    detail::validate(params_);
    elements_.assign(detail::cuckoo_words_for(params_.buckets, params_.fingerprint_bits), 0);
  }

  /// A filter from existing words (loading); validated like a view.
  cuckoo_filter(const cuckoo_filter_params& params, std::vector<std::uint64_t> words, std::uint64_t stored,
                cuckoo_victim victim)
      : state(params, std::move(words), detail::cuckoo_side{stored, victim}) {
    detail::validate(params_);
    detail::require_cuckoo_payload(params_, elements_, stored_, victim_, errc::invalid_argument);
  }

  /// The parameters a (capacity, target_fpr) construction chooses: the
  /// smallest f (from [4, 16], or from {8, 12, 16} with cuckoo_widths::paper)
  /// whose FPR at load 0.95 is at most p, and m = ceil(n / (4 * 0.95))
  /// buckets. Throws errc::invalid_argument when n = 0, p is outside (0, 1)
  /// or no width reaches p.
  static cuckoo_filter_params plan_params(std::uint64_t capacity, double target_fpr, hash_spec hash = {},
                                          cuckoo_widths widths = cuckoo_widths::smallest) {
    detail::require(capacity >= 1, errc::invalid_argument, "cuckoo_filter: capacity must be at least 1");
    detail::require(target_fpr > 0.0 && target_fpr < 1.0, errc::invalid_argument,
                    "cuckoo_filter: target_fpr must be in (0, 1), got " + detail::format_number(target_fpr));
    std::uint32_t f = 0;
    for (std::uint32_t candidate = 4; candidate <= 16; ++candidate) {
      if (widths == cuckoo_widths::paper && candidate != 8 && candidate != 12 && candidate != 16) continue;
      if (detail::cuckoo_fpr(detail::cuckoo_plan_load, candidate) <= target_fpr) {
        f = candidate;
        break;
      }
    }
    detail::require(f != 0, errc::invalid_argument,
                    "cuckoo_filter: target_fpr " + detail::format_number(target_fpr) +
                        " is below what 16-bit fingerprints reach at 95 % load (" +
                        detail::format_number(detail::cuckoo_fpr(detail::cuckoo_plan_load, 16)) + ")");
    const double wanted = std::ceil(static_cast<double>(capacity) /
                                    (detail::cuckoo_slots * detail::cuckoo_plan_load));
    detail::require(wanted <= static_cast<double>(detail::cuckoo_max_buckets), errc::invalid_argument,
                    "cuckoo_filter: capacity too large");
    const auto buckets = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
    return cuckoo_filter_params{buckets, f, capacity, target_fpr, hash};
  }

  /// The fallible insert: adds the key with hash `h` (one more copy if it
  /// is already there) and returns insert_result::inserted, or returns
  /// insert_result::full when the victim slot is taken, changing nothing.
  /// An insert whose eviction walk fails still succeeds: the last evicted
  /// fingerprint takes the victim slot, and the filter is full from then on.
  insert_result try_insert_hash(std::uint64_t h) noexcept {
    if (full()) return insert_result::full;
    const auto a = detail::cuckoo_address_of(h, params_.buckets, params_.fingerprint_bits);
    place(a, detail::mix64(h) & 1);
    return insert_result::inserted;
  }
  /// try_insert_hash of the key hashed with this filter's hash_spec.
  template <key K>
  insert_result try_insert(const K& k) {
    return try_insert_hash(hash_key(k, params_.hash));
  }

  /// The insert every kind has (insert(key), insert_many and insert_keys
  /// come from detail::insert_facade on top of it): adds the key with hash
  /// `h`, or throws bloomkit::error (errc::construction_failed, "... the
  /// filter is full ...") when the victim slot is taken; then nothing
  /// changed. try_insert_hash is the same insert, answering instead of
  /// throwing.
  void insert_hash(std::uint64_t h) {
    if (try_insert_hash(h) == insert_result::full) throw_full(0, false);
  }

  /// insert_hash, recording where the fingerprint went (for pictures and
  /// teaching, as probe_positions is): `moves` is cleared, then gets one
  /// cuckoo_move per slot written, in order. A key that found a free slot in
  /// one of its buckets gives one move; an eviction walk gives one move per
  /// kick (each evicted fingerprint is the next move's, written to its other
  /// bucket) and a last one into a free slot or the victim slot (slot 4).
  /// Empty when the result is insert_result::full (nothing changed). The
  /// table it leaves is exactly insert_hash's. Throws std::bad_alloc only
  /// before changing anything (room for the longest walk is reserved first).
  insert_result insert_hash_traced(std::uint64_t h, std::vector<cuckoo_move>& moves) {
    moves.clear();
    moves.reserve(detail::cuckoo_max_kicks + 2);
    if (full()) return insert_result::full;
    const auto a = detail::cuckoo_address_of(h, params_.buckets, params_.fingerprint_bits);
    place(a, detail::mix64(h) & 1, &moves);
    return insert_result::inserted;
  }

  /// The fallible test-and-add: stores the key only if it is certainly
  /// absent. One read of its two buckets answers and finds the free slot.
  /// Returns insert_result::present (the key may be present; nothing
  /// changed), inserted, or full (absent but no room; nothing changed). Set
  /// semantics: a key added only through this call is stored at most once.
  /// Caution with remove: a key refused as a false positive shares another
  /// key's fingerprint, so removing that key makes it a false negative; where
  /// keys are removed later, insert (a multiset) is the safe call.
  insert_result try_insert_if_absent_hash(std::uint64_t h) noexcept {
    const std::uint32_t f = params_.fingerprint_bits;
    const auto a = detail::cuckoo_address_of(h, params_.buckets, f);
    const std::uint64_t b1 = detail::cuckoo_load_bucket(elements_.data(), a.first, f);
    const std::uint64_t b2 = detail::cuckoo_load_bucket(elements_.data(), a.second, f);
    if (detail::cuckoo_bucket_has(b1, a.fingerprint, f) || detail::cuckoo_bucket_has(b2, a.fingerprint, f) ||
        victim_matches(a)) {
      return insert_result::present;
    }
    if (full()) return insert_result::full;
    if (const std::uint32_t j = detail::cuckoo_find_slot(b1, 0, f); j < detail::cuckoo_slots) {
      detail::cuckoo_store_bucket(elements_.data(), a.first, f, detail::cuckoo_with_slot(b1, j, f, a.fingerprint));
      ++stored_;
    } else if (const std::uint32_t j2 = detail::cuckoo_find_slot(b2, 0, f); j2 < detail::cuckoo_slots) {
      detail::cuckoo_store_bucket(elements_.data(), a.second, f, detail::cuckoo_with_slot(b2, j2, f, a.fingerprint));
      ++stored_;
    } else {
      place(a, detail::mix64(h) & 1);
    }
    return insert_result::inserted;
  }
  /// try_insert_if_absent_hash of the key hashed with this filter's hash_spec.
  template <key K>
  insert_result try_insert_if_absent(const K& k) {
    return try_insert_if_absent_hash(hash_key(k, params_.hash));
  }

  /// try_insert_if_absent_hash over a batch of hashes, in order, prefetching
  /// a window ahead (see cuckoo_batch_result). Stops at the first key that
  /// finds the filter full: processed is then its index.
  cuckoo_batch_result try_insert_if_absent_many(std::span<const std::uint64_t> hashes) {
    cuckoo_batch_result out;
    out.inserted_bits.assign(hashes.size() / 64 + (hashes.size() % 64 != 0), 0);
    constexpr std::size_t window = 16;
    const std::size_t n = hashes.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (i + window < n) prefetch_buckets(hashes[i + window], true);
      const insert_result r = try_insert_if_absent_hash(hashes[i]);
      if (r == insert_result::full) return out;
      if (r == insert_result::inserted) out.inserted_bits[i / 64] |= std::uint64_t{1} << (i % 64);
      out.processed = i + 1;
    }
    return out;
  }

  /// Test-and-add, as on every kind that inserts: try_insert_if_absent_hash,
  /// answering insert_result::inserted (the key was certainly absent and is
  /// now stored) or present (nothing changed), and throwing bloomkit::error
  /// (errc::construction_failed, "... the filter is full ...") where the key
  /// is absent and there is no room; then nothing changed.
  insert_result insert_if_absent_hash(std::uint64_t h) {
    const insert_result r = try_insert_if_absent_hash(h);
    if (r == insert_result::full) throw_full(0, false);
    return r;
  }
  /// insert_if_absent_hash of the key hashed with this filter's hash_spec.
  template <key K>
  insert_result insert_if_absent(const K& k) {
    return insert_if_absent_hash(hash_key(k, params_.hash));
  }
  /// insert_if_absent_hash over a batch of hashes, in order: the result has
  /// every key processed. Throws as insert_if_absent_hash does at the first
  /// key that finds the filter full; the keys before it stay as they went.
  cuckoo_batch_result insert_if_absent_many(std::span<const std::uint64_t> hashes) {
    cuckoo_batch_result out = try_insert_if_absent_many(hashes);
    if (out.processed < hashes.size()) throw_full(out.processed, true);
    return out;
  }

  /// The fallible batch insert: try_insert_hash on every hash in order,
  /// prefetching a window ahead. Returns how many were inserted:
  /// hashes.size(), or the index of the first that found the filter full
  /// (it and the rest were not inserted; the ones before it stay in).
  std::size_t try_insert_many(std::span<const std::uint64_t> hashes) noexcept {
    return try_insert_pipelined(hashes.size(), detail::hashes_in_memory{hashes.data()});
  }

  /// Removes one copy of the key with hash `h`: returns remove_result::absent,
  /// changing nothing, when its fingerprint is in neither bucket nor the
  /// victim slot; otherwise clears one copy and, when the victim slot was
  /// taken, re-inserts the victim (the filter is then usually no longer
  /// full). Precondition for correctness (not memory safety): the key was
  /// inserted; removing a false positive deletes another key's fingerprint.
  remove_result remove_hash(std::uint64_t h) noexcept {
    const std::uint32_t f = params_.fingerprint_bits;
    const auto a = detail::cuckoo_address_of(h, params_.buckets, f);
    if (victim_matches(a)) {
      victim_ = {};
      --stored_;
      return remove_result::removed;
    }
    bool removed = false;
    for (const std::uint64_t i : {a.first, a.second}) {
      const std::uint64_t b = detail::cuckoo_load_bucket(elements_.data(), i, f);
      if (const std::uint32_t j = detail::cuckoo_find_slot(b, a.fingerprint, f); j < detail::cuckoo_slots) {
        detail::cuckoo_store_bucket(elements_.data(), i, f, detail::cuckoo_with_slot(b, j, f, 0));
        removed = true;
        break;
      }
    }
    if (!removed) return remove_result::absent;
    --stored_;
    if (full()) {
      const cuckoo_victim v = victim_;
      victim_ = {};
      --stored_;  // place() counts it again
      const detail::cuckoo_address va{v.bucket, detail::cuckoo_alt(v.bucket, v.fingerprint, params_.buckets),
                                      v.fingerprint};
      place(va, false);
    }
    return remove_result::removed;
  }
  template <key K>
  remove_result remove(const K& k) {
    return remove_hash(hash_key(k, params_.hash));
  }

  /// Every slot empty, the victim slot empty, inserted() zero.
  void clear() noexcept { clear_elements(); }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "cuckoo_filter");
  }
  using state::params;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements_; }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return stored_; }
  [[nodiscard]] cuckoo_victim victim() const noexcept { return victim_; }

 private:
  /// Stores fingerprint a.fingerprint in a.first or a.second, evicting when
  /// both are full (the walk starts at a.second when `start_second`). Counts
  /// it in stored_. Records each slot written in `*trace` when given (its
  /// capacity must hold cuckoo_max_kicks + 2 moves, so nothing allocates).
  /// Precondition: the victim slot is empty.
  void place(const detail::cuckoo_address& a, bool start_second, std::vector<cuckoo_move>* trace = nullptr) noexcept {
    const std::uint32_t f = params_.fingerprint_bits;
    ++stored_;
    if (try_put(a.first, a.fingerprint, trace) || try_put(a.second, a.fingerprint, trace)) return;
    std::uint64_t i = start_second ? a.second : a.first;
    std::uint32_t fp = a.fingerprint;
    for (std::uint32_t kick = 0; kick < detail::cuckoo_max_kicks; ++kick) {
      // The slot to evict: a fixed function of (fingerprint, bucket, step),
      // so the walk is a random walk yet equal insert sequences give equal
      // tables (files are reproducible).
      const auto j = static_cast<std::uint32_t>(detail::mix64(fp ^ (i << 16) ^ (std::uint64_t{kick} << 56)) & 3);
      const std::uint64_t b = detail::cuckoo_load_bucket(elements_.data(), i, f);
      const std::uint32_t evicted = detail::cuckoo_slot(b, j, f);
      detail::cuckoo_store_bucket(elements_.data(), i, f, detail::cuckoo_with_slot(b, j, f, fp));
      if (trace != nullptr) trace->push_back(cuckoo_move{i, j, fp, evicted});
      fp = evicted;
      i = detail::cuckoo_alt(i, fp, params_.buckets);
      if (try_put(i, fp, trace)) return;
    }
    victim_ = {i, fp};
    if (trace != nullptr) trace->push_back(cuckoo_move{i, detail::cuckoo_slots, fp, 0});
  }
  bool try_put(std::uint64_t i, std::uint32_t fp, std::vector<cuckoo_move>* trace = nullptr) noexcept {
    const std::uint32_t f = params_.fingerprint_bits;
    const std::uint64_t b = detail::cuckoo_load_bucket(elements_.data(), i, f);
    const std::uint32_t j = detail::cuckoo_find_slot(b, 0, f);
    if (j == detail::cuckoo_slots) return false;
    detail::cuckoo_store_bucket(elements_.data(), i, f, detail::cuckoo_with_slot(b, j, f, fp));
    if (trace != nullptr) trace->push_back(cuckoo_move{i, j, fp, 0});
    return true;
  }

  friend class detail::insert_facade<cuckoo_filter>;

  /// The batch core of try_insert_many and insert_keys: try_insert_hash on
  /// hash_at(0 .. n), prefetching both buckets a window ahead; returns the
  /// index of the first that found the filter full, or n.
  template <class HashAt>
  std::size_t try_insert_pipelined(std::size_t n, HashAt hash_at) {
    constexpr std::size_t window = 16;
    for (std::size_t i = 0; i < n; ++i) {
      if (i + window < n) prefetch_buckets(hash_at(i + window), true);
      if (try_insert_hash(hash_at(i)) == insert_result::full) return i;
    }
    return n;
  }
  /// insert_facade's batch core (insert_many, insert_keys): throws as
  /// insert_hash does at the first key that finds the filter full; the keys
  /// before it stay inserted.
  template <class HashAt>
  void insert_pipelined(std::size_t n, HashAt hash_at) {
    if (const std::size_t done = try_insert_pipelined(n, hash_at); done < n) throw_full(done, false);
  }
  /// The error of an insert that found the filter full, after `before` keys
  /// of its batch went in (0 for a single insert); `tested` for test-and-add,
  /// whose keys before it went in only where they were absent.
  [[noreturn]] void throw_full(std::size_t before, bool tested) const {
    std::string message = "cuckoo_filter: the filter is full (load " + detail::format_number(load_factor()) +
                          " of " + std::to_string(slots()) + " slots, victim slot taken); the key was not added";
    if (before != 0) {
      message += " (the " + std::to_string(before) + " keys before it in the batch were" +
                 (tested ? ", where absent)" : ")");
    }
    throw error(errc::construction_failed, message + "; remove keys, or build a larger filter");
  }
};

/// cuckoo_filter's facts (filter.hpp).
template <>
struct kind_traits<cuckoo_filter> {
  static constexpr filter_kind kind = filter_kind::cuckoo_filter;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "cuckoo";
  static constexpr std::string_view summary =
      "cuckoo filter: supports `bloomkit remove` at ~log2(1/p) + 3 bits per key (not 4x); no merge";
  static constexpr std::string_view python_class = "CuckooFilter";
  static constexpr hash_spec default_hash = hash_spec{};
  static constexpr bool is_static = false;
  static constexpr bool grows = false;
  static constexpr bool removes = true;
  static constexpr bool merges = false;
  static constexpr bool windows = false;
  static constexpr bool stores_repeats = true;  // each insert is a fingerprint (removable one by one)
  /// The lowest target FPR its planner reaches (lowest_plannable_fpr), and
  /// why, with {} for that figure (tools print it when refusing a target).
  static double lowest_fpr() noexcept { return cuckoo_filter::lowest_plannable_fpr(); }
  static constexpr std::string_view lowest_fpr_reason = "its 16-bit fingerprints reach FPR {} at best (at 95 % load)";
  /// Why merge and intersect are refused (tools print it).
  static constexpr std::string_view no_merge_reason =
      "cuckoo filters do not merge: each key is one fingerprint in one of two buckets, so two tables cannot be "
      "combined by OR, and re-inserting one into the other can fail; build one filter from all the keys";
};
template <>
struct kind_traits<cuckoo_filter_view> : kind_traits<cuckoo_filter> {};

static_assert(incremental_filter<cuckoo_filter> && filter<cuckoo_filter_view>);

}  // namespace bloomkit
