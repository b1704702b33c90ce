// bloomkit/standard_bloom.hpp - the standard (Bloom 1970) filter.
//
// m bits, k probes per key, all derived from one 64-bit hash h by enhanced
// double hashing (Kirsch and Mitzenmacher 2006; Dillinger and Manolios 2004):
//
//   g_0 = h,  d_0 = mix64(h)                        (mix64 is bijective)
//   g_{i+1} = g_i + d_i,  d_{i+1} = d_i + i + 1     (mod 2^64)
//   probe_i = (g_i * m) >> 64                        (multiply-shift, Lemire 2019)
//
// The sequence runs in 64-bit arithmetic and each g_i is mapped to [0, m) by
// its *high* bits, so probes stay well spread for any m up to 2^63: no `% m`,
// and no 32-bit halves that would cap m at 2^32 or repeat probes when m > 2^32.
// The extra triangular step (d grows by i + 1) breaks the clustering of plain
// double hashing when d is small. A query exits at its first zero bit, so a
// negative lookup at 1 % costs about 2 probes on average.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/concurrent.hpp"
#include "bloomkit/hash_batch.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

/// The parameters that fix a standard filter's layout and design point.
struct standard_bloom_params {
  std::uint64_t bits = 0;      ///< m, 1 <= m <= 2^63
  std::uint32_t k = 0;         ///< probes per key, 1 <= k <= 64
  std::uint64_t capacity = 0;  ///< design number of keys (>= 1)
  double target_fpr = 0.0;     ///< design false-positive rate, in (0, 1)
  hash_spec hash{};

  friend bool operator==(const standard_bloom_params&, const standard_bloom_params&) = default;
};

namespace detail {

/// 64-bit words needed for m bits.
constexpr std::uint64_t words_for_bits(std::uint64_t bits) noexcept { return bits / 64 + (bits % 64 != 0); }

/// The one domain check of standard_bloom_params (constructors, views and
/// the codec; see param_check).
inline void validate(const standard_bloom_params& p, const param_check& check = {"standard_bloom"}) {
  check(p.bits >= 1 && p.bits <= (std::uint64_t{1} << 63), "bits", "= " + std::to_string(p.bits) + " is not in [1, 2^63]");
  check(p.k >= 1 && p.k <= 64, "k", "= " + std::to_string(p.k) + " is not in [1, 64]");
  check(p.capacity >= 1, "capacity", "is 0; a filter's design capacity is at least 1");
  check(p.target_fpr > 0.0 && p.target_fpr < 1.0, "target_fpr", "= " + bloomkit::detail::format_number(p.target_fpr) + " is not in (0, 1)");
  check(is_known(p.hash.algorithm), "hash_algorithm", "is not a known hash algorithm");
  check(is_known(p.hash.keys), "key_type", "is not a known key type");
}

/// Throws `code` unless `words` is a standard filter's payload for `p`:
/// exactly ceil(bits / 64) words with the bits past m zero. Views, loading
/// constructors and the codec all call it (code corrupt for stored words).
inline void require_standard_payload(const standard_bloom_params& p, std::span<const std::uint64_t> words,
                                     errc code) {
  require(words.size() == words_for_bits(p.bits), code,
          "standard_bloom: expected " + std::to_string(words_for_bits(p.bits)) + " words for " +
              std::to_string(p.bits) + " bits, got " + std::to_string(words.size()));
  const unsigned tail = static_cast<unsigned>(p.bits % 64);
  require(tail == 0 || (words.back() >> tail) == 0, code, "standard_bloom: bits past the end of the filter are set");
}

/// T(j) = j (j + 1) / 2: summing the header comment's d_{j+1} = d_j + j + 1
/// gives d_j = d_0 + T(j), whose second term is the same for every key.
constexpr std::uint64_t triangular(std::uint32_t j) noexcept { return std::uint64_t{j} * (j + 1) / 2; }

/// g_{j+1} = g_j + d_j, the step of every walk over the standard layout
/// (the sequence is part of the file format, docs/FORMAT.md). A single walk
/// carries d_j and adds j + 1 to it per probe; a batch carries d_0 per key
/// and forms d_j = d_0 + T(j) with one T(j) per round.
constexpr std::uint64_t standard_step(std::uint64_t g, std::uint64_t d) noexcept { return g + d; }

/// The probe sequence of one key: the "locate" step of the standard layout.
/// Constructing it from the hash is all the per-key set-up a walk needs
/// (g_0 = h, d_0 = mix64(h)), and next() yields the probes in order.
/// standard_probe_batch starts each key from the same state, prefetches
/// probe 0's word and probes it from there.
class standard_probes {
 public:
  constexpr standard_probes(std::uint64_t h, std::uint64_t bits) noexcept : g_(h), d_(mix64(h)), bits_(bits) {}
  /// The next bit index in [0, bits).
  constexpr std::uint64_t next() noexcept {
    const std::uint64_t bit = reduce64(g_, bits_);
    g_ = standard_step(g_, d_);
    d_ += ++step_;
    return bit;
  }

 private:
  std::uint64_t g_, d_, bits_, step_ = 0;
};

/// The first probe of hash h: the word a batched walk prefetches for a key
/// before it probes it.
constexpr std::uint64_t first_probe(std::uint64_t h, std::uint64_t bits) noexcept {
  return standard_probes(h, bits).next();
}

/// Calls f(bit) for each of the k probes of hash h, in order (repeats
/// possible). The walk of every path that visits all k probes: set, the
/// branch-free test, prefetch, test-and-set, the atomic variants, the
/// counting filter and the parallel build.
template <class F>
constexpr void for_each_probe(std::uint64_t h, std::uint64_t bits, std::uint32_t k, F&& f) {
  standard_probes probes(h, bits);
  for (std::uint32_t i = 0; i < k; ++i) f(probes.next());
}

/// What probe_while found: whether all k probes were set, and how many
/// probes it read (early exit at work).
struct probe_walk {
  bool all_set;
  std::uint32_t read;
};

/// The k probes of h in order with early exit: bit_at(bit) returns the
/// probed position's state in its lowest bit (1 set, 0 clear), and the walk
/// stops at the first clear one. The single-key query of every standard
/// layout (plain, atomic loads, 4-bit counters) and the words-read count.
///
/// The first two probes are read together and tested with one branch, the
/// rest one by one. Why: a negative key exits at a random probe, so a branch
/// per probe mispredicts about once per negative lookup (~17 cycles, more
/// than the probes themselves when the filter is in cache). One branch on
/// "both of the first two bits set" exits 3/4 of negatives (at the design
/// fill of one half) and mispredicts about half as often, for 2.5 words read
/// per negative on average instead of 2; positives read all k either way.
template <class BitAt>
constexpr probe_walk probe_while(std::uint64_t h, std::uint64_t bits, std::uint32_t k, BitAt&& bit_at) {
  standard_probes probes(h, bits);
  std::uint32_t i = 0;
  if (k >= 2) {
    const std::uint64_t a = probes.next(), b = probes.next();
    if ((bit_at(a) & bit_at(b) & 1) == 0) return {false, 2};
    i = 2;
  }
  for (; i < k; ++i) {
    if ((bit_at(probes.next()) & 1) == 0) return {false, i + 1};
  }
  return {true, k};
}

/// Bit `bit` of a bit array held in 64-bit words, in the lowest bit.
constexpr std::uint64_t word_bit(const std::uint64_t* words, std::uint64_t bit) noexcept {
  return words[bit >> 6] >> (bit & 63);
}
/// The mask of bit `bit` within its 64-bit word.
constexpr std::uint64_t bit_mask(std::uint64_t bit) noexcept { return std::uint64_t{1} << (bit & 63); }

inline void require_same_shape(const standard_bloom_params& a, const standard_bloom_params& b, const char* operation) {
  const std::string prefix = std::string("standard_bloom ") + operation + ": ";
  require(a.bits == b.bits, errc::mismatch,
          prefix + "bit counts differ (" + std::to_string(a.bits) + " vs " + std::to_string(b.bits) + ")");
  require(a.k == b.k, errc::mismatch, prefix + "k differs (" + std::to_string(a.k) + " vs " + std::to_string(b.k) + ")");
  require_same_hash(a.hash, b.hash, prefix);
}

/// Probes a batched lookup prefetches per key. A negative lookup at the
/// usual fill (half the bits set) reads 1 + 1/2 + 1/4 + ... ~ 2 probes before
/// its first zero bit, so prefetching the first two covers most of them
/// without spending fill buffers on probes that early exit never reads.
inline constexpr std::uint32_t standard_lookup_prefetch = 2;

/// Prefetches the first `count` probes of hash h (bounded by k).
inline void prefetch_standard_probes(const std::uint64_t* words, std::uint64_t h, std::uint64_t bits,
                                     std::uint32_t count, bool for_write) noexcept {
  for_each_probe(h, bits, count, [&](std::uint64_t bit) {
    if (for_write) {
      prefetch_for_write(words + (bit >> 6));
    } else {
      prefetch(words + (bit >> 6));
    }
  });
}

/// k-probe test with early exit (the single-key query; probe_while says
/// why the first two probes share a branch).
inline bool standard_test(const std::uint64_t* words, std::uint64_t h, std::uint64_t bits, std::uint32_t k) noexcept {
  return probe_while(h, bits, k, [words](std::uint64_t bit) { return word_bit(words, bit); }).all_set;
}

/// standard_test without a branch: all k words are read and their bits
/// ANDed, so the answer is standard_test's (the same probes). For a caller
/// whose next lookup is far away (one key per call from an interpreter),
/// where each mispredicted early exit (one negative in four at the design
/// fill) costs a cache or memory latency in series; here the k loads are
/// independent and overlap.
inline bool standard_test_branch_free(const std::uint64_t* words, std::uint64_t h, std::uint64_t bits,
                                      std::uint32_t k) noexcept {
  std::uint64_t all = 1;
  for_each_probe(h, bits, k, [&](std::uint64_t bit) { all &= word_bit(words, bit); });
  return (all & 1) != 0;
}

/// Words standard_test reads for hash h (benchmarks report it: early exit
/// at work); the same walk, counted.
inline std::uint32_t standard_words_read(const std::uint64_t* words, std::uint64_t h, std::uint64_t bits,
                                         std::uint32_t k) noexcept {
  return probe_while(h, bits, k, [words](std::uint64_t bit) { return word_bit(words, bit); }).read;
}

/// The largest k for which a single insert has a walk of its own.
inline constexpr std::uint32_t standard_unrolled_k = 16;

/// f(std::integral_constant<std::uint32_t, k>{}) for k in [1, standard_unrolled_k],
/// else f(k): a walk instantiated for a constant k is unrolled, and its
/// d_j = d_0 + T(j) steps fold into constants. One indirect jump chooses.
template <class F, std::uint32_t... K>
inline void with_probe_count(std::uint32_t k, F&& f, std::integer_sequence<std::uint32_t, K...>) {
  const bool constant = ((k == K + 1 && (f(std::integral_constant<std::uint32_t, K + 1>{}), true)) || ...);
  if (!constant) f(k);
}
template <class F>
inline void with_probe_count(std::uint32_t k, F&& f) {
  with_probe_count(k, std::forward<F>(f), std::make_integer_sequence<std::uint32_t, standard_unrolled_k>{});
}

/// Sets the k probes of h. Why a walk per k: a single insert is bound by
/// how many of its stores' misses are in flight at once, which is how many
/// keys' instructions fit the out-of-order window; the unrolled walk has
/// about half the instructions per probe (no counter, no compare, the step
/// a constant), which made keyed single inserts at 10^6 keys 5-10 % faster.
inline void standard_set(std::uint64_t* words, std::uint64_t h, std::uint64_t bits, std::uint32_t k) noexcept {
  with_probe_count(k, [&](auto probes) {
    for_each_probe(h, bits, probes, [words](std::uint64_t bit) { words[bit >> 6] |= bit_mask(bit); });
  });
}

/// Test-and-set, plain: each probe's bit is read and set in the same pass;
/// true when all k were already set.
inline bool standard_test_and_set(std::uint64_t* words, std::uint64_t h, std::uint64_t bits,
                                  std::uint32_t k) noexcept {
  bool present = true;
  for_each_probe(h, bits, k, [&](std::uint64_t bit) {
    present &= (words[bit >> 6] & bit_mask(bit)) != 0;
    words[bit >> 6] |= bit_mask(bit);
  });
  return present;
}

/// The same with an atomic test-and-set per probe word (the semantics of
/// insert_if_absent_hash_concurrent).
inline bool standard_test_and_set_atomic(std::uint64_t* words, std::uint64_t h, std::uint64_t bits,
                                         std::uint32_t k) noexcept {
  bool present = true;
  for_each_probe(h, bits, k,
                 [&](std::uint64_t bit) { present &= atomic_test_and_or(words[bit >> 6], bit_mask(bit)); });
  return present;
}

/// Concurrent set: one atomic OR per probe word, skipped when the word
/// already holds the bit (detail/concurrent.hpp).
inline void standard_set_atomic(std::uint64_t* words, std::uint64_t h, std::uint64_t bits, std::uint32_t k) noexcept {
  for_each_probe(h, bits, k, [words](std::uint64_t bit) { atomic_or_if_missing(words[bit >> 6], bit_mask(bit)); });
}

/// Concurrent test: relaxed loads, the same walk and exits as standard_test.
inline bool standard_test_atomic(const std::uint64_t* words, std::uint64_t h, std::uint64_t bits,
                                 std::uint32_t k) noexcept {
  return probe_while(h, bits, k, [words](std::uint64_t bit) {
           return atomic_load_relaxed(words[bit >> 6]) >> (bit & 63);
         }).all_set;
}

/// Keys probed together by the batched calls (one bit of a 64-bit mask each).
inline constexpr std::size_t standard_batch = 64;

/// The probe sequences of up to standard_batch keys, advanced in rounds:
/// round j reads probe j of every key still in play. Each key starts where
/// standard_probes starts and is stepped by standard_step; the state is
/// arrays of g, d_0 and the current probe (d_j = d_0 + T(j), with one T(j)
/// per round, so a step costs a key two adds and no store of d).
struct standard_probe_batch {
  std::uint64_t g[standard_batch], d0[standard_batch];
  std::uint64_t bit[standard_batch];  ///< the key's current probe

  /// Locates keys [base, base + count) (probe 0 current) and prefetches
  /// each one's first word.
  template <class HashAt>
  void load(HashAt& hash_at, std::size_t base, std::size_t count, const std::uint64_t* words, std::uint64_t bits,
            bool for_write) noexcept(noexcept(hash_at(std::size_t{}))) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t h = hash_at(base + i);
      g[i] = h;  // the state standard_probes(h, bits) starts from
      d0[i] = mix64(h);
      bit[i] = reduce64(h, bits);
      const std::uint64_t* line = words + (bit[i] >> 6);
      if (for_write) prefetch_for_write(line); else prefetch(line);
    }
  }

  /// Moves key i from probe j to probe j + 1 and returns it.
  std::uint64_t advance(std::size_t i, std::uint32_t j, std::uint64_t bits) noexcept {
    g[i] = standard_step(g[i], d0[i] + triangular(j));
    bit[i] = reduce64(g[i], bits);
    return bit[i];
  }
};

/// Batched lookup: out[i] = standard_test(hash_at(i)), by rounds over 64
/// keys at a time (the bulk probe of Boost.Bloom's filter_core, which this
/// follows in shape). Round j tests probe j of every key still possibly
/// present (a 64-bit mask, walked with countr_zero), clears the key's bit
/// when its probe is zero, and prefetches the key's probe j + 1. So the
/// misses of one round are independent and overlap, there is no
/// data-dependent branch per probe (a key's fate is a mask update), and a
/// negative costs what early exit costs (about 2 probes at half fill) while
/// a positive's k probes are all in flight one round ahead. The next
/// batch's first probes are prefetched while this batch's answers are
/// written. Answers equal standard_test's: the same probes, ANDed.
template <class HashAt>
void standard_test_many(const std::uint64_t* words, std::uint64_t bits, std::uint32_t k, std::size_t n,
                        HashAt hash_at, bool* out) {
  standard_probe_batch batch;
  std::size_t count = n < standard_batch ? n : standard_batch;
  batch.load(hash_at, 0, count, words, bits, false);
  for (std::size_t base = 0; base < n;) {
    std::uint64_t alive = count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
    const std::uint64_t all = alive;
    for (std::uint32_t j = 0; j < k && alive != 0; ++j) {
      const bool last = j + 1 == k;
      if (alive == all) {  // every key still in play (positives): no mask walk
        std::uint64_t missing = 0;
        for (std::size_t i = 0; i < count; ++i) {
          const std::uint64_t bit = batch.bit[i];
          missing |= ((word_bit(words, bit) & 1) ^ 1) << i;
          if (!last) prefetch(words + (batch.advance(i, j, bits) >> 6));
        }
        alive &= ~missing;
        continue;
      }
      for (std::uint64_t pending = alive; pending != 0; pending &= pending - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(pending));
        const std::uint64_t bit = batch.bit[i];
        const std::uint64_t hit = word_bit(words, bit) & 1;
        alive &= ~((hit ^ 1) << i);
        if (!last) prefetch(words + (batch.advance(i, j, bits) >> 6));
      }
    }
    for (std::size_t i = 0; i < count; ++i) out[base + i] = ((alive >> i) & 1) != 0;
    base += count;
    count = n - base < standard_batch ? n - base : standard_batch;
    batch.load(hash_at, base, count, words, bits, false);
  }
}

/// Batched insert by rounds, as standard_test_many without the mask: round
/// j sets probe j of each of 64 keys and prefetches probe j + 1 for
/// writing, so 64 independent stores are in flight per round. set_bit(bit)
/// sets one bit: a plain OR, or an atomic one for concurrent inserts. The
/// bits are those of standard_set on each key (OR is order-free).
template <class HashAt, class SetBit>
void standard_set_many(std::uint64_t* words, std::uint64_t bits, std::uint32_t k, std::size_t n, HashAt hash_at,
                       SetBit set_bit) {
  standard_probe_batch batch;
  std::size_t count = n < standard_batch ? n : standard_batch;
  batch.load(hash_at, 0, count, words, bits, true);
  for (std::size_t base = 0; base < n;) {
    for (std::uint32_t j = 0; j < k; ++j) {
      const bool last = j + 1 == k;
      for (std::size_t i = 0; i < count; ++i) {
        set_bit(batch.bit[i]);
        if (!last) prefetch_for_write(words + (batch.advance(i, j, bits) >> 6));
      }
    }
    base += count;
    count = n - base < standard_batch ? n - base : standard_batch;
    batch.load(hash_at, base, count, words, bits, true);
  }
}
template <class HashAt>
void standard_set_many(std::uint64_t* words, std::uint64_t bits, std::uint32_t k, std::size_t n, HashAt hash_at) {
  standard_set_many(words, bits, k, n, hash_at, [words](std::uint64_t bit) { words[bit >> 6] |= bit_mask(bit); });
}

}  // namespace detail

namespace detail {

/// The query and statistics code of a standard filter, shared by
/// standard_bloom and standard_bloom_view (detail/facade.hpp). D provides
/// params(), words() and inserted().
template <class D>
class standard_bloom_reader : public query_facade<D> {
 public:
  static constexpr const char* kind_name = "standard_bloom";
  /// Keyed batches hash a tile of keys together, then run the prehashed
  /// batch core over it (detail/facade.hpp, hashes_keys_in_tiles).
  static constexpr bool keyed_batches_in_tiles = true;
  /// Batch inserts hash integer and float keys in the rounds instead
  /// (detail/facade.hpp, hashes_numbers_in_walk).
  static constexpr bool numeric_keys_in_walk = true;

  /// True if the key with hash `h` may be in the set; false means certainly
  /// not. Stops at the first zero bit.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    return standard_test(self().words().data(), h, self().params().bits, self().params().k);
  }

  /// may_contain_hash reading all k probes without a branch: the same
  /// answer, for single lookups far apart (a Python loop's `key in f`; see
  /// detail::standard_test_branch_free for why).
  [[nodiscard]] bool may_contain_hash_branch_free(std::uint64_t h) const noexcept {
    return standard_test_branch_free(self().words().data(), h, self().params().bits, self().params().k);
  }

  /// may_contain_hash for use while other threads may be inserting with the
  /// *_concurrent calls: each probe word is read with a relaxed atomic load
  /// (detail/concurrent.hpp), so it is data-race free. Same answer as
  /// may_contain_hash on the same bits; a key whose concurrent insert has not
  /// finished (happened-before this call) may be missed. Use plain
  /// may_contain_hash when no writer runs. Reads only the words (never
  /// inserted(), which concurrent inserts write).
  [[nodiscard]] bool may_contain_hash_concurrent(std::uint64_t h) const noexcept {
    return standard_test_atomic(self().words().data(), h, self().params().bits, self().params().k);
  }

  /// The batch core: out[i] = may_contain_hash(hash_at(i)), probed in
  /// rounds over 64 keys at a time (detail::standard_test_many): each
  /// round's misses overlap and no branch depends on a probe's bit.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    standard_test_many(self().words().data(), self().params().bits, self().params().k, n, hash_at, out);
  }

  /// Appends the k bit positions (in [0, bit_count())) that the key with
  /// hash `h` sets and tests, in probe order (repeats possible).
  void probe_positions(std::uint64_t h, std::vector<std::uint64_t>& out) const {
    for_each_probe(h, self().params().bits, self().params().k, [&](std::uint64_t bit) { out.push_back(bit); });
  }

  [[nodiscard]] std::uint64_t bit_count() const noexcept { return self().params().bits; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return self().params().k; }
  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return self().params().capacity; }
  [[nodiscard]] double target_fpr() const noexcept { return self().params().target_fpr; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return self().words().size() * sizeof(std::uint64_t); }

  [[nodiscard]] std::uint64_t set_bit_count() const noexcept {
    std::uint64_t total = 0;
    for (auto w : self().words()) total += static_cast<std::uint64_t>(std::popcount(w));
    return total;
  }
  [[nodiscard]] double fill_ratio() const noexcept {
    return static_cast<double>(set_bit_count()) / static_cast<double>(self().params().bits);
  }
  /// Swamidass-Baldi estimate of distinct keys; +infinity when every bit is set.
  [[nodiscard]] double estimated_cardinality() const {
    return sizing::cardinality_from_bits(static_cast<double>(self().params().bits), self().params().k,
                                         static_cast<double>(set_bit_count()));
  }
  /// FPR for the bits set now, (X/m)^k; follows the fill past capacity.
  [[nodiscard]] double estimated_fpr() const { return sizing::fpr_from_fill(fill_ratio(), self().params().k); }
  /// The classic formula at the design point (capacity keys).
  [[nodiscard]] double design_fpr() const {
    return sizing::classic_fpr(static_cast<double>(self().params().bits), static_cast<double>(self().params().capacity),
                               self().params().k);
  }
  /// Past design capacity: more inserts than capacity, confirmed by the bits
  /// beyond the estimate's noise (sizing::past_capacity).
  [[nodiscard]] bool saturated() const {
    return self().inserted() > self().params().capacity &&
           sizing::past_capacity(estimated_cardinality(), self().params().capacity);
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

}  // namespace detail

/// A read-only standard filter over borrowed 64-bit words (bit i is bit
/// i % 64 of word i / 64). The queries and statistics are
/// detail::standard_bloom_reader's, shared with standard_bloom.
class standard_bloom_view
    : public detail::standard_bloom_reader<standard_bloom_view>,
      public detail::view_state<standard_bloom_params, std::uint64_t, count_accuracy> {
  using state = detail::view_state<standard_bloom_params, std::uint64_t, count_accuracy>;

 public:
  /// Views `words` (exactly ceil(bits / 64) of them, the bits past m zero)
  /// as a filter with `params`. Throws bloomkit::error when they disagree.
  standard_bloom_view(const standard_bloom_params& params, std::span<const std::uint64_t> words,
                      std::uint64_t inserted, count_accuracy accuracy = count_accuracy::exact)
      : state(detail::trusted, params, words, inserted, accuracy) {
    detail::validate(params);
    detail::require_standard_payload(params, words, errc::corrupt);
  }
  using state::state;  // (trusted_t, params, words, inserted, accuracy): no validation

  using state::params;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements(); }
};

/// An owning standard Bloom filter. Queries and statistics come from
/// detail::standard_bloom_reader, the key and batch overloads from the
/// facade (detail/facade.hpp); this class adds inserts, set algebra, clear.
class standard_bloom
    : public detail::standard_bloom_reader<standard_bloom>,
      public detail::insert_facade<standard_bloom>,
      public detail::owner_state<standard_bloom_view, standard_bloom_params, std::uint64_t, count_accuracy> {
  using state = detail::owner_state<standard_bloom_view, standard_bloom_params, std::uint64_t, count_accuracy>;

 public:
  using view_type = standard_bloom_view;

  /// A filter for `capacity` keys at `target_fpr`, sized by
  /// sizing::standard_plan_for (the fewest bits with an integer k that meet
  /// p). Throws errc::invalid_argument for n = 0 or p outside (0, 1).
  standard_bloom(std::uint64_t capacity, double target_fpr, hash_spec hash = {})
      : standard_bloom(plan_params(capacity, target_fpr, hash)) {}

  /// A zeroed filter with exactly these parameters (validated).
  explicit standard_bloom(const standard_bloom_params& params) : state(params) {
    detail::validate(params_);
    detail::assign_or_fail<std::uint64_t>(elements_, detail::words_for_bits(params_.bits), 0,
                                          "a standard_bloom of " + std::to_string(params_.bits) + " bits");
  }

  /// A filter from existing words (loading); validated like a view.
  /// `accuracy` says what `inserted` is (a count unless told otherwise).
  standard_bloom(const standard_bloom_params& params, std::vector<std::uint64_t> words, std::uint64_t inserted,
                 count_accuracy accuracy = count_accuracy::exact)
      : state(params, std::move(words), inserted, accuracy) {
    detail::validate(params_);
    detail::require_standard_payload(params_, elements_, errc::corrupt);
  }

  /// A filter with m bits and k probes; the design point is the n at which
  /// this k is optimal (m ln2 / k) and the classic FPR there.
  static standard_bloom with_bits(std::uint64_t bits, std::uint32_t k, hash_spec hash = {}) {
    detail::require(bits >= 1 && k >= 1 && k <= 64, errc::invalid_argument,
                    "standard_bloom: bits must be >= 1 and k in [1, 64]");
    const auto capacity = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(static_cast<double>(bits) * std::numbers::ln2 / k));
    const double fpr = std::clamp(sizing::classic_fpr(static_cast<double>(bits), static_cast<double>(capacity), k),
                                  1e-300, 0.999999);
    return standard_bloom(standard_bloom_params{bits, k, capacity, fpr, hash});
  }

  /// The parameters a (capacity, target_fpr) construction chooses.
  static standard_bloom_params plan_params(std::uint64_t capacity, double target_fpr, hash_spec hash = {}) {
    const sizing::standard_plan plan = sizing::standard_plan_for(capacity, target_fpr);
    return standard_bloom_params{plan.bits, plan.k, capacity, target_fpr, hash};
  }

  using detail::standard_bloom_reader<standard_bloom>::hash;

  /// Adds the key with hash `h`.
  void insert_hash(std::uint64_t h) noexcept {
    detail::standard_set(elements_.data(), h, params_.bits, params_.k);
    ++count_.value;
  }

  /// Test-and-add: reads and sets each of the k probe bits in one pass;
  /// returns true iff some bit was missing (the key was certainly absent and
  /// is now inserted; inserted() grows by one), false when all k were set
  /// (nothing changed).
  bool insert_if_absent_hash(std::uint64_t h) noexcept {
    const bool present = detail::standard_test_and_set(elements_.data(), h, params_.bits, params_.k);
    count_.value += present ? 0 : 1;
    return !present;
  }

  /// insert_if_absent_hash beside other *_concurrent calls: an atomic
  /// test-and-set per probe word, with the semantics stated at
  /// block_filter::insert_if_absent_hash_concurrent (false only if every
  /// probe bit was set before this call's ORs; of threads adding one new key
  /// at once, at least one returns true).
  bool insert_if_absent_hash_concurrent(std::uint64_t h) noexcept {
    const bool present = detail::standard_test_and_set_atomic(elements_.data(), h, params_.bits, params_.k);
    if (!present) detail::atomic_add_relaxed(count_.value, 1);
    return !present;
  }

  /// insert_hash that may run in many threads at once on the same filter,
  /// and beside *_concurrent queries: each probe's word gets an atomic
  /// relaxed OR (detail/concurrent.hpp explains why relaxed suffices) and
  /// inserted() an atomic add. The bits end up identical to insert_hash's.
  /// Contract: while any concurrent insert runs, the only other calls on this
  /// filter are *_concurrent ones; plain queries, inserted() and the
  /// statistics are for after the writers are joined (or otherwise ordered
  /// before). Plain insert_hash stays free of atomics.
  void insert_hash_concurrent(std::uint64_t h) noexcept {
    detail::standard_set_atomic(elements_.data(), h, params_.bits, params_.k);
    detail::atomic_add_relaxed(count_.value, 1);
  }

  /// The batch insert core: all k probe words of the key a window ahead are
  /// prefetched for writing (identical to insert_hash on each, in order).
  template <class HashAt>
  void insert_pipelined(std::size_t n, HashAt hash_at) noexcept(noexcept(hash_at(std::size_t{}))) {
    detail::standard_set_many(elements_.data(), params_.bits, params_.k, n, hash_at);
    count_.value += n;
  }
  /// insert_pipelined with insert_hash_concurrent's atomic OR (the same
  /// rounds); inserted() grows by one atomic add of n.
  template <class HashAt>
  void insert_pipelined_concurrent(std::size_t n, HashAt hash_at) noexcept {
    std::uint64_t* words = elements_.data();
    detail::standard_set_many(elements_.data(), params_.bits, params_.k, n, hash_at, [words](std::uint64_t bit) {
      detail::atomic_or_if_missing(words[bit >> 6], detail::bit_mask(bit));
    });
    detail::atomic_add_relaxed(count_.value, n);
  }

  /// Union (bitwise OR). Throws errc::mismatch naming the differing field
  /// unless bits, k and hash_spec are equal. inserted() becomes the sum
  /// (exact when both were: combine_sum).
  standard_bloom& merge(const standard_bloom_view& other) {
    detail::require_same_shape(params_, other.params(), "merge");
    merge_elements(other, other.words(), [](std::uint64_t& mine, std::uint64_t theirs) { mine |= theirs; });
    return *this;
  }
  standard_bloom& merge(const standard_bloom& other) { return merge(other.view()); }

  /// Intersection (bitwise AND); same checks as merge. inserted() becomes the
  /// smaller count, which is only an upper bound of the keys both hold:
  /// inserted_accuracy() is count_accuracy::at_most from then on.
  standard_bloom& intersect(const standard_bloom_view& other) {
    detail::require_same_shape(params_, other.params(), "intersect");
    intersect_elements(other, other.words(), [](std::uint64_t& mine, std::uint64_t theirs) { mine &= theirs; });
    return *this;
  }
  standard_bloom& intersect(const standard_bloom& other) { return intersect(other.view()); }

  /// All bits zero, inserted() zero (and exact again).
  void clear() noexcept { clear_elements(); }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "standard_bloom");
  }
  using state::params;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements_; }
  using state::inserted;
  using state::inserted_accuracy;

 private:
  // build_parallel (parallel_build.hpp) writes the words directly, each
  // thread its own word range, and adds to the count after joining them.
  friend struct detail::parallel_build_access;
};

/// standard_bloom's facts (filter.hpp).
template <>
struct kind_traits<standard_bloom> {
  static constexpr filter_kind kind = filter_kind::standard_bloom;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "standard";
  static constexpr std::string_view summary =
      "classic Bloom filter: fewest bits per key for a given FPR, k random probes";
  static constexpr std::string_view python_class = "StandardBloom";
  static constexpr hash_spec default_hash = hash_spec{};
  static constexpr bool is_static = false;
  static constexpr bool grows = false;
  static constexpr bool removes = false;
  static constexpr bool merges = true;
  static constexpr bool windows = false;
};
template <>
struct kind_traits<standard_bloom_view> : kind_traits<standard_bloom> {};

static_assert(incremental_filter<standard_bloom> && filter<standard_bloom_view>);

}  // namespace bloomkit
