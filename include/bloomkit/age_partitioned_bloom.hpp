// bloomkit/age_partitioned_bloom.hpp - "seen among the last N keys" (or the
// last T time units) with an FPR bound that holds at every moment.
//
// Shtul, Baquero and Almeida, "Age-Partitioned Bloom Filters" (2020). The
// filter is k + l slices of m bits, kept as a ring of logical positions
// 0 (newest) .. k + l - 1 (oldest). Every key sets one bit in each of the k
// newest slices (the bit of physical slice s is (g_s * m) >> 64 with
// g_s = h + s * mix64(h), so a bit stays put while its slice ages). After g
// inserts (one "generation") the ring shifts: the oldest slice is cleared and
// becomes the newest. A query answers "maybe" when some k *consecutive*
// slices all have the key's bit.
//
//   insert:  [ 0 ][ 1 ] .. [k-1] [ k ] .. [k+l-1]       k newest slices get a bit
//   shift:   oldest slice cleared, re-used as position 0; the rest age by one
//   query:   any run of k consecutive hits among the k + l slices
//
// The exact window (section 3 of the paper, restated for this code): a key
// sits in k consecutive slices; it is lost when the oldest of them, at
// position k - 1 when it was inserted, leaves the ring, at the (l + 1)-th
// shift after its insert. Shifts happen at the start of the insert that
// would be the (g + 1)-th of a generation, so, with c keys of its generation
// inserted before it (0 <= c < g):
//   * never forgotten before:  every key is reported while at most l * g
//     keys have been inserted after it (c = g - 1 is the worst case), so the
//     last l * g + 1 keys are always reported (no false negatives);
//   * expired after:           once (l + 1) * g keys followed it (c = 0 is the
//     worst case) it is no longer reported for certain. Its k - 1 newer
//     slices still hold its bits, though, so for the next k - 1 generations
//     it needs fewer chance hits than a never-seen key and answers "maybe"
//     more often than the FPR (right after expiry, about as often as one
//     slice is filled, e.g. 40 %);
//   * forgotten by:            once (k + l) * g keys followed it, its last
//     slice is gone too and it answers exactly like a key never inserted
//     (at most the FPR bound below).
// With window N the planner takes g = ceil((N - 1) / l), so the last N keys
// are always reported. Inserting a key again restarts its life.
//
// The FPR bound. Logical slice j has received j g + c keys' bits when j < k
// (c keys so far in this generation) and k g when j >= k: each key sets one
// bit per slice in k slices. A random absent key hits slice j with
// probability equal to that slice's fill (the fraction of its bits set),
// independently per slice, and the FPR for the bits present is P(some run
// of k hits), computed exactly by a DP over the slices (estimated_fpr()
// runs it on the actual fills). The FPR only grows within a generation
// (bits are only set) and drops at a shift (the new slice is empty, the
// dropped one was the fullest), so the worst phase is c = g.
//
// The paper's analysis puts each
// slice's fill at its mean 1 - (1 - 1/m)^keys; that gives the FPR averaged
// over hash functions (expected_design_fpr()), which one filter exceeds at
// about half of all shifts. design_fpr() is a bound instead: the same DP over
// an upper bound on every slice's fill at the worst phase (slice j < k
// holding (j + 1) g keys, older ones k g), each exceeded with probability
// at most delta / (k + l), delta = 10^-9 (detail::apbf_fill_bound: the set
// bits of balls in bins are negatively associated, so Bernstein's and
// McDiarmid's inequalities apply). The exact guarantee, with the hash
// modelled as random and the keys not chosen after seeing it:
//   for any one generation, with probability at least 1 - 10^-9, the FPR
//   for the bits present is at most design_fpr() at every moment of that
//   generation (any phase, before the ring has turned once, after a time
//   window's early or idle shifts, with repeated keys: each holds at most as
//   many keys per slice as the worst phase, hence stochastically fewer bits).
// Over a stream of G generations, all of them hold except with probability
// at most G 10^-9. The planner sizes m on this bound, so design_fpr() <=
// target_fpr; the margin costs +1.2 % bits for N = 10^6 at 1 %, +8 % for
// N = 20,000 and +23 % for N = 2,000 (small slices scatter more). A file
// written before (sized on the mean) keeps its parameters and answers
// exactly as before; its design_fpr() is its own bound, above its target.
//
// Time windows. With generation_time = tau > 0 a generation also ends when
// tau time units (the caller's clock: seconds, ms, any monotone integer)
// have passed since it began; idle time shifts as many slices as it spans.
// A key inserted at time t is reported until at least t + l tau (the window
// T <= l tau), expires by t + (l + 1) tau and is forgotten by t + (k + l) tau,
// *provided* no generation after its own filled up (more than g keys within
// tau): a full generation still ends early to keep the FPR bound, which
// shortens the window for the keys before it. What holds in every case: a
// key is lost only at the (l + 1)-th shift after its insert, and each of the
// l whole generations between took g keys (ended by count) or tau time
// (ended by time), so a key with j keys inserted after it is reported at
// time now while
//     floor(j / g) + floor((now - t) / tau) < l
// (keys and time share one budget of l generations; neither the count
// guarantee l g + 1 nor the time guarantee l tau holds alone under bursts).
// overflowed_generations() counts the early ends, so a caller can see the
// time guarantee was bent. The FPR bound holds regardless.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {

/// How a key's bit in each slice is derived from its 64-bit hash h.
enum class apbf_probes : std::uint32_t {
  /// (h + s mix64(h)) reduced to [0, m) for physical slice s: double
  /// hashing, what files before format version 3 hold. Any two slices' bits
  /// are independent, but a run of three or more is not: an absent key whose
  /// (h, mix64(h)) is close to an inserted key's follows that key's bits
  /// through many slices, which adds about (keys in the ring) / (k m^2) to
  /// the FPR (measured: +12-15 % over the DP at m = 190; negligible at m of
  /// tens of thousands). Kept so that such files answer exactly as before.
  double_hashing = 0,
  /// The s-th output of splitmix64 seeded with h, reduced to [0, m): every
  /// slice's bit is a separately mixed value, so an absent key's hits are
  /// independent across slices as the FPR's DP assumes. New filters use it.
  independent = 1,
};

/// The unit of a time window's clock, as far as the filter knows it. The
/// filter only compares integers; the unit is recorded so that tools can
/// name it (`bloomkit info`), and nothing else depends on it.
enum class apbf_time_unit : std::uint32_t {
  unspecified = 0,  ///< the caller's clock, unit not recorded (count windows; files before version 3; Python)
  seconds = 1,      ///< whole seconds (`bloomkit build --window-seconds`)
};

/// The parameters that fix an age-partitioned filter's layout and window.
struct age_partitioned_bloom_params {
  std::uint32_t k = 0;                  ///< slices a key is written to, 1 <= k <= 32
  std::uint32_t l = 0;                  ///< extra slices (the window in generations), 1 <= l <= 64
  std::uint64_t slice_bits = 0;         ///< m, bits per slice, 1 <= m <= 2^40
  std::uint64_t generation_keys = 0;    ///< g, inserts per generation, >= 1
  std::uint64_t generation_time = 0;    ///< tau, time units per generation; 0 = count window only
  std::uint64_t window = 0;             ///< the window asked for (keys, or time units when tau > 0)
  double target_fpr = 0.0;              ///< design false-positive rate, in (0, 1)
  hash_spec hash{};
  apbf_probes probes = apbf_probes::independent;  ///< how a slice's bit is derived (format version 3)
  apbf_time_unit time_unit = apbf_time_unit::unspecified;  ///< what generation_time and window count (time windows)

  friend bool operator==(const age_partitioned_bloom_params&, const age_partitioned_bloom_params&) = default;
};

/// The ring's position: everything besides the bits that a saved filter needs.
struct age_partitioned_bloom_state {
  std::uint32_t newest = 0;              ///< physical slice at logical position 0
  std::uint64_t generation_count = 0;    ///< keys inserted in the current generation, 0..g
  std::uint64_t generation_start = 0;    ///< time the current generation began (time windows)
  std::uint64_t now = 0;                 ///< the latest time seen (time windows; monotone)
  std::uint64_t inserted = 0;            ///< insert calls in total
  std::uint64_t overflowed_generations = 0;  ///< generations ended by count before their time

  friend bool operator==(const age_partitioned_bloom_state&, const age_partitioned_bloom_state&) = default;
};

namespace detail {

inline constexpr std::uint64_t apbf_max_slice_bits = std::uint64_t{1} << 40;
/// The largest g and tau validate() accepts: with k + l <= 96 every count
/// and time the reader derives from them ((k + l) g, (k + l) tau) fits 64 bits.
inline constexpr std::uint64_t apbf_max_generation = std::uint64_t{1} << 56;
/// The planner's largest l, and so the largest window it can cover with
/// g <= 2^56: 32 * 2^56 + 1 keys (l g + 1).
inline constexpr std::uint32_t apbf_max_planned_l = 32;
inline constexpr std::uint64_t apbf_max_planned_window = apbf_max_planned_l * apbf_max_generation + 1;

/// ceil(a / b) for b >= 1, without the overflow of (a + b - 1) / b near 2^64.
constexpr std::uint64_t apbf_ceil_div(std::uint64_t a, std::uint64_t b) noexcept {
  return a / b + (a % b != 0);
}

constexpr std::uint64_t apbf_slice_words(std::uint64_t slice_bits) noexcept {
  return slice_bits / 64 + (slice_bits % 64 != 0);
}

inline void validate(const age_partitioned_bloom_params& p) {
  const std::string prefix = "age_partitioned_bloom: ";
  require(p.k >= 1 && p.k <= 32, errc::invalid_argument, prefix + "k must be in [1, 32], got " + std::to_string(p.k));
  require(p.l >= 1 && p.l <= 64, errc::invalid_argument, prefix + "l must be in [1, 64], got " + std::to_string(p.l));
  require(p.slice_bits >= 1 && p.slice_bits <= apbf_max_slice_bits, errc::invalid_argument,
          prefix + "slice_bits must be in [1, 2^40], got " + std::to_string(p.slice_bits));
  require(p.generation_keys >= 1 && p.generation_keys <= apbf_max_generation, errc::invalid_argument,
          prefix + "generation_keys must be in [1, 2^56], got " + std::to_string(p.generation_keys));
  require(p.generation_time <= apbf_max_generation, errc::invalid_argument,
          prefix + "generation_time must be at most 2^56, got " + std::to_string(p.generation_time));
  require(p.target_fpr > 0.0 && p.target_fpr < 1.0, errc::invalid_argument,
          prefix + "target_fpr must be in (0, 1), got " + detail::format_number(p.target_fpr));
  require(is_known(p.hash.algorithm), errc::invalid_argument, prefix + "unknown hash algorithm");
  require(is_known(p.hash.keys), errc::invalid_argument, prefix + "unknown key type");
  require(p.probes == apbf_probes::double_hashing || p.probes == apbf_probes::independent, errc::invalid_argument,
          prefix + "unknown probe scheme " + std::to_string(static_cast<std::uint32_t>(p.probes)));
  require(p.time_unit == apbf_time_unit::unspecified || (p.time_unit == apbf_time_unit::seconds && p.generation_time != 0),
          errc::invalid_argument, prefix + "a time unit applies to a time window (generation_time > 0) only");
}

/// P(some run of k consecutive hits) over slices hit independently with
/// probabilities fills[0..n): a DP over the current run length (0..k-1),
/// with an absorbing "found" state. O(n k).
inline double apbf_run_probability(std::span<const double> fills, std::uint32_t k) {
  std::vector<double> run(k, 0.0), next(k, 0.0);
  run[0] = 1.0;
  double found = 0.0;
  for (const double r : fills) {
    double alive = 0.0;
    for (const double x : run) alive += x;
    std::fill(next.begin(), next.end(), 0.0);
    next[0] = alive * (1.0 - r);
    for (std::uint32_t i = 0; i + 1 < k; ++i) next[i + 1] = run[i] * r;
    found += run[k - 1] * r;
    run.swap(next);
  }
  // A probability: the sum of the absorbed mass can round past 1 when every
  // fill is near 1 (file_format_fuzz found 1.0000000000000002 on a legal file).
  return std::min(found, 1.0);
}

/// The expected FPR with c keys in the current generation (see the header):
/// logical slice j holds min(j g + c, k g) keys' bits, and each slice's fill
/// is replaced by its mean 1 - (1 - 1/m)^keys. This is the average over hash
/// functions (the DP is multilinear in the fills and the slices' fills are
/// independent, so the mean of the FPR is the FPR of the mean fills); one
/// filter's FPR scatters around it.
inline double apbf_fpr_at(std::uint32_t k, std::uint32_t l, double slice_bits, double g, double c) {
  std::vector<double> fills(k + l);
  for (std::uint32_t j = 0; j < k + l; ++j) {
    const double keys = j < k ? j * g + c : k * g;
    fills[j] = -std::expm1(keys * std::log1p(-1.0 / slice_bits));
  }
  return apbf_run_probability(fills, k);
}

/// The mean FPR at the worst phase of the cycle (c = g, just before a
/// shift): what design_fpr() reported before it became a bound. Exceeded by
/// about half of all filters at any given moment.
inline double apbf_expected_design_fpr(std::uint32_t k, std::uint32_t l, double slice_bits, double g) {
  return apbf_fpr_at(k, l, slice_bits, g, g);
}

/// ln(1 / delta) for the design bound's confidence: for any one generation,
/// the FPR exceeds apbf_design_fpr() at some moment of it with probability
/// at most delta = 10^-9 (over the choice of hash function; see the header).
inline constexpr double apbf_bound_log_inverse_delta = 20.723265836946411;  // ln(10^9)

/// An upper bound on the fill (fraction of bits set) of a slice of m bits
/// after `keys` keys each set one bit in it, exceeded with probability at
/// most e^-L. The set-bit indicators of balls in bins are negatively
/// associated (Dubhashi, Ranjan, "Balls and bins: a study in negative
/// dependence", 1998), so the Chernoff-type bounds of independent Bernoulli
/// trials apply to their sum; the smallest of these is taken:
///   * the trivial ones: at most every bit, and at most one new bit per key;
///   * Bernstein over the m indicators (variance at most m r (1 - r)):
///     X - E X <= L / 3 + sqrt(L^2 / 9 + 2 m r (1 - r) L);
///   * McDiarmid over the `keys` independent throws (one throw moves X by at
///     most 1): X - E X <= sqrt(keys L / 2).
inline double apbf_fill_bound(double keys, double slice_bits, double log_inverse_delta) {
  if (keys <= 0.0) return 0.0;
  const double m = slice_bits;
  const double L = log_inverse_delta;
  const double mean = -std::expm1(keys * std::log1p(-1.0 / m));
  const double bernstein = L / 3.0 + std::sqrt(L * L / 9.0 + 2.0 * m * mean * (1.0 - mean) * L);
  const double mcdiarmid = std::sqrt(keys * L / 2.0);
  return std::min({1.0, keys / m, mean + std::min(bernstein, mcdiarmid) / m});
}

/// The reported FPR bound (design_fpr()): the run DP over every slice's fill
/// bound at the worst phase of the cycle, slice j < k holding (j + 1) g
/// keys and every older one k g, each slice's bound at confidence
/// delta / (k + l) (a union bound over the slices). The DP is increasing in
/// every fill, so when no slice passes its bound the FPR is at most this.
/// Every other moment of the stream holds fewer keys per slice (earlier in a
/// generation, before the ring turned once, a generation ended early by
/// time, repeated keys), and fewer keys give stochastically fewer set bits,
/// so the same bound covers it.
inline double apbf_design_fpr(std::uint32_t k, std::uint32_t l, double slice_bits, double g) {
  const double L = apbf_bound_log_inverse_delta + std::log(static_cast<double>(k + l));
  std::vector<double> fills(k + l);
  for (std::uint32_t j = 0; j < k + l; ++j) {
    const double keys = j < k ? (j + 1) * g : k * g;
    fills[j] = apbf_fill_bound(keys, slice_bits, L);
  }
  return apbf_run_probability(fills, k);
}

/// The smallest m with apbf_design_fpr(k, l, m, g) <= p (m <= 2^40), or 0.
inline std::uint64_t apbf_slice_bits_for(std::uint32_t k, std::uint32_t l, std::uint64_t g, double p) {
  std::uint64_t lo = 1, hi = 1;
  while (apbf_design_fpr(k, l, static_cast<double>(hi), static_cast<double>(g)) > p) {
    if (hi >= apbf_max_slice_bits) return 0;
    lo = hi + 1;
    hi = std::min(apbf_max_slice_bits, hi * 2);
  }
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (apbf_design_fpr(k, l, static_cast<double>(mid), static_cast<double>(g)) <= p) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

/// Throws `code` unless `words` and `state` are an age-partitioned filter
/// for `p`: the word count, bits past m zero in every slice, a ring position
/// in range, a generation count at most g, a clock that never ran backwards
/// (and none at all in a count window).
inline void require_apbf_payload(const age_partitioned_bloom_params& p, std::span<const std::uint64_t> words,
                                 const age_partitioned_bloom_state& state, errc code) {
  const std::uint64_t per = apbf_slice_words(p.slice_bits);
  const std::uint64_t expected = per * (p.k + p.l);
  require(words.size() == expected, code,
          "age_partitioned_bloom: expected " + std::to_string(expected) + " words, got " + std::to_string(words.size()));
  const unsigned tail = static_cast<unsigned>(p.slice_bits % 64);
  for (std::uint32_t s = 0; s < p.k + p.l; ++s) {
    require(tail == 0 || (words[s * per + per - 1] >> tail) == 0, code,
            "age_partitioned_bloom: bits past the end of a slice are set");
  }
  require(state.newest < p.k + p.l, code, "age_partitioned_bloom: the ring position is out of range");
  require(state.generation_count <= p.generation_keys, code,
          "age_partitioned_bloom: the generation count exceeds generation_keys");
  require(state.generation_start <= state.now, code, "age_partitioned_bloom: the generation starts after the latest time");
  require(p.generation_time != 0 || (state.now == 0 && state.generation_start == 0), code,
          "age_partitioned_bloom: a count window holds no time");
}

/// The query and statistics code of an age-partitioned filter, shared by
/// age_partitioned_bloom and its view (detail/facade.hpp). D provides
/// params(), words() and state().
template <class D>
class apbf_reader : public query_facade<D> {
 public:
  static constexpr const char* kind_name = "age_partitioned_bloom";

  /// True if the key with hash `h` may be in the window; false means it was
  /// not inserted within the guaranteed window (see the header). For a time
  /// window this answers at the latest time seen; see may_contain_hash_at.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept { return test(h, 0); }
  /// The logical slice (0 = newest) where the first run of k consecutive
  /// slices holding the key's bit starts: may_contain_hash answers "maybe"
  /// because of slices [run, run + k). slices() when it answers "no". For
  /// pictures and teaching; the query's own search (test) finds it.
  [[nodiscard]] std::uint32_t answering_run_hash(std::uint64_t h) const noexcept { return first_run(h, 0); }
  /// The key's bit in each logical slice, newest first (slices() values
  /// appended to `out`): an insert sets the first k, a query looks for k
  /// consecutive ones that are set. For pictures and teaching.
  void slice_positions(std::uint64_t h, std::vector<std::uint64_t>& out) const {
    for (std::uint32_t j = 0; j < slices(); ++j) out.push_back(bit_of(h, physical(j)));
  }
  /// The words of logical slice j (0 = newest): bit b of the slice is bit
  /// b % 64 of word b / 64; bits past m are zero.
  [[nodiscard]] std::span<const std::uint64_t> slice_words(std::uint32_t logical) const noexcept {
    const std::uint64_t per = detail::apbf_slice_words(self().params().slice_bits);
    return self().words().subspan(physical(logical) * per, per);
  }
  /// The answer at time `now` (time windows): slices that would have
  /// expired by then are ignored, as if the filter had advanced. A `now`
  /// before the latest time seen answers at the latest time seen.
  [[nodiscard]] bool may_contain_hash_at(std::uint64_t h, std::uint64_t now) const noexcept {
    return test(h, pending_shifts(now));
  }
  template <key K>
  [[nodiscard]] bool may_contain_at(const K& k, std::uint64_t now) const {
    return may_contain_hash_at(hash_key(k, self().params().hash), now);
  }

  /// The batch core (detail/facade.hpp): out[i] = may_contain_hash(hash_at(i)).
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    for (std::size_t i = 0; i < n; ++i) out[i] = may_contain_hash(hash_at(i));
  }

  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return self().params().k; }
  [[nodiscard]] std::uint32_t slices() const noexcept { return self().params().k + self().params().l; }
  [[nodiscard]] double target_fpr() const noexcept { return self().params().target_fpr; }
  /// Insert calls in total (duplicates count).
  [[nodiscard]] std::uint64_t inserted() const noexcept { return self().state().inserted; }
  [[nodiscard]] std::uint64_t overflowed_generations() const noexcept { return self().state().overflowed_generations; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return self().words().size() * sizeof(std::uint64_t); }

  /// Keys always reported: the last l g + 1 inserts (count windows).
  [[nodiscard]] std::uint64_t guaranteed_window() const noexcept {
    return static_cast<std::uint64_t>(self().params().l) * self().params().generation_keys + 1;
  }
  /// A key is no longer reported for certain once this many keys followed
  /// it: (l + 1) g (it still answers "maybe" more often than the FPR for the
  /// next k - 1 generations; see the header).
  [[nodiscard]] std::uint64_t expired_after() const noexcept {
    return static_cast<std::uint64_t>(self().params().l + 1) * self().params().generation_keys;
  }
  /// A key answers like a never-inserted one (no bit of it left) once this
  /// many keys followed it: (k + l) g.
  [[nodiscard]] std::uint64_t forgotten_after() const noexcept {
    return static_cast<std::uint64_t>(self().params().k + self().params().l) * self().params().generation_keys;
  }
  /// Time windows: a key inserted at t is reported until at least t + l tau
  /// (if no generation after its own overflowed; in every case while
  /// floor(j / g) + floor((now - t) / tau) < l with j keys after it, see the
  /// header), expires by t + (l + 1) tau and is forgotten by t + (k + l) tau.
  [[nodiscard]] std::uint64_t guaranteed_time() const noexcept { return self().params().l * self().params().generation_time; }
  [[nodiscard]] std::uint64_t expired_time() const noexcept { return (self().params().l + 1) * self().params().generation_time; }
  [[nodiscard]] std::uint64_t forgotten_time() const noexcept {
    return (self().params().k + self().params().l) * self().params().generation_time;
  }

  /// Set bits in logical slice j (0 = newest). O(m / 64).
  [[nodiscard]] std::uint64_t slice_popcount(std::uint32_t logical) const noexcept {
    const std::uint64_t per = detail::apbf_slice_words(self().params().slice_bits);
    const std::uint64_t* s = self().words().data() + physical(logical) * per;
    std::uint64_t n = 0;
    for (std::uint64_t w = 0; w < per; ++w) n += static_cast<std::uint64_t>(std::popcount(s[w]));
    return n;
  }
  /// Fraction of all bits set.
  [[nodiscard]] double fill_ratio() const noexcept {
    std::uint64_t n = 0;
    for (std::uint32_t j = 0; j < slices(); ++j) n += slice_popcount(j);
    return static_cast<double>(n) / (static_cast<double>(self().params().slice_bits) * slices());
  }
  /// The FPR for the bits present now: the run DP over each slice's actual
  /// fill (slices a time window would already have expired count as empty).
  [[nodiscard]] double estimated_fpr() const {
    std::vector<double> fills(slices());
    for (std::uint32_t j = 0; j < slices(); ++j) {
      fills[j] = static_cast<double>(slice_popcount(j)) / static_cast<double>(self().params().slice_bits);
    }
    return detail::apbf_run_probability(fills, self().params().k);
  }
  /// The reported FPR bound (see the header): for any one generation, the
  /// FPR stays at most this at every moment of it, except with probability
  /// at most 10^-9 over the hash function. The planner sizes m so that it is
  /// at most target_fpr(); a file written before the bound existed (sized
  /// on the mean) reports its own parameters' bound, a little above its
  /// target.
  [[nodiscard]] double design_fpr() const {
    return detail::apbf_design_fpr(self().params().k, self().params().l, static_cast<double>(self().params().slice_bits),
                                   static_cast<double>(self().params().generation_keys));
  }
  /// The mean FPR at the worst phase of the cycle (fills at their expected
  /// values, c = g): a typical filter's FPR just before a shift, not a
  /// bound (about half of all filters are above it at that moment).
  [[nodiscard]] double expected_design_fpr() const {
    return detail::apbf_expected_design_fpr(self().params().k, self().params().l,
                                            static_cast<double>(self().params().slice_bits),
                                            static_cast<double>(self().params().generation_keys));
  }
  /// Never saturated: the window slides, and the FPR bound holds at every
  /// moment. Always false, for the common state API.
  [[nodiscard]] bool saturated() const noexcept { return false; }
  /// The window asked for (keys; time units for a time window).
  [[nodiscard]] std::uint64_t capacity() const noexcept { return self().params().window; }
  /// Keys in the guaranteed window, by count: min(inserted, l g + c) with
  /// c the current generation's count (duplicates count; the slices cannot
  /// tell them apart, and a Swamidass-Baldi estimate per slice would add
  /// noise for little).
  [[nodiscard]] double estimated_cardinality() const noexcept {
    const std::uint64_t recent = static_cast<std::uint64_t>(self().params().l) * self().params().generation_keys +
                                 self().state().generation_count;
    return static_cast<double>(std::min(self().state().inserted, recent));
  }

 protected:

  [[nodiscard]] std::uint32_t physical(std::uint32_t logical) const noexcept {
    const std::uint32_t n = self().params().k + self().params().l;
    const std::uint32_t p = self().state().newest + logical;
    return p >= n ? p - n : p;
  }
  [[nodiscard]] std::uint64_t bit_of(std::uint64_t h, std::uint32_t phys) const noexcept {
    if (self().params().probes == apbf_probes::double_hashing) {
      return detail::reduce64(h + phys * detail::mix64(h), self().params().slice_bits);
    }
    // splitmix64's output number phys + 1 for the seed h (detail/bits.hpp).
    std::uint64_t z = h + (std::uint64_t{phys} + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return detail::reduce64(z ^ (z >> 31), self().params().slice_bits);
  }
  [[nodiscard]] bool has_bit(std::uint64_t h, std::uint32_t logical) const noexcept {
    const std::uint32_t p = physical(logical);
    const std::uint64_t bit = bit_of(h, p);
    const std::uint64_t per = detail::apbf_slice_words(self().params().slice_bits);
    return (self().words()[p * per + (bit >> 6)] >> (bit & 63)) & 1;
  }
  /// Shifts a time window would make by `now` (0 for count windows).
  [[nodiscard]] std::uint64_t pending_shifts(std::uint64_t now) const noexcept {
    if (self().params().generation_time == 0 || now <= self().state().now) {
      return self().params().generation_time == 0 ? 0 : (self().state().now - self().state().generation_start) / self().params().generation_time;
    }
    return (now - self().state().generation_start) / self().params().generation_time;
  }
  /// Looks for k consecutive hits among the slices that remain after
  /// `expired` shifts (those push the oldest slices out; the new ones they
  /// would add are empty and can hold no run). A candidate run starting at s
  /// is tested from its far end s + k - 1 backwards; a miss at x rules out
  /// every start up to x, so the next candidate starts at x + 1, and the
  /// hits already seen between x + 1 and the old far end are not tested
  /// again (a Boyer-Moore-like skip, as the paper's query does): a negative
  /// key costs about (k + l) / k probes per miss instead of k + l.
  [[nodiscard]] bool test(std::uint64_t h, std::uint64_t expired) const noexcept {
    return first_run(h, expired) < self().params().k + self().params().l;
  }
  /// The search of test(): the first start of k consecutive hits, or k + l.
  [[nodiscard]] std::uint32_t first_run(std::uint64_t h, std::uint64_t expired) const noexcept {
    const std::uint32_t n = self().params().k + self().params().l;
    if (expired >= n) return n;
    const auto live = static_cast<std::uint32_t>(n - expired);  // logical 0 .. live - 1
    const std::uint32_t k = self().params().k;
    std::uint32_t start = 0;
    std::uint32_t known = 0;  // [start, known) are known hits
    while (start + k <= live) {
      std::uint32_t j = start + k;  // test j - 1 down to known
      while (j > known && has_bit(h, j - 1)) --j;
      if (j == known) return start;
      // Miss at j - 1: the next run starts at j; [j, start + k) are hits.
      known = start + k;
      start = j;
    }
    return n;
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

/// What an age-partitioned filter keeps beside its slices
/// (detail/filter_state.hpp's Side): the ring's position.
struct apbf_side {
  age_partitioned_bloom_state state_{};
};

}  // namespace detail

/// A read-only age-partitioned filter over borrowed words ((k + l) slices of
/// ceil(m / 64) words, physical slice order) and a saved ring position.
/// Queries and statistics are detail::apbf_reader's; the words must outlive it.
class age_partitioned_bloom_view
    : public detail::apbf_reader<age_partitioned_bloom_view>,
      public detail::array_view_state<age_partitioned_bloom_params, std::uint64_t, detail::apbf_side> {
  // Not `state`, the name of the ring's accessor.
  using base_state = detail::array_view_state<age_partitioned_bloom_params, std::uint64_t, detail::apbf_side>;

 public:
  /// Throws bloomkit::error (invalid_argument or corrupt) when the words or
  /// the state disagree with the parameters (detail::require_apbf_payload).
  age_partitioned_bloom_view(const age_partitioned_bloom_params& params, std::span<const std::uint64_t> words,
                             const age_partitioned_bloom_state& state)
      : base_state(detail::trusted, params, words, detail::apbf_side{state}) {
    detail::validate(params);
    detail::require_apbf_payload(params, words, state, errc::corrupt);
  }
  using base_state::base_state;  // (trusted_t, params, words, apbf_side): no validation

  using base_state::params;
  [[nodiscard]] const age_partitioned_bloom_state& state() const noexcept { return state_; }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements(); }
};

/// An owning age-partitioned Bloom filter (see the header comment for the
/// window guarantee and the FPR bound).
class age_partitioned_bloom
    : public detail::apbf_reader<age_partitioned_bloom>,
      public detail::insert_facade<age_partitioned_bloom>,
      public detail::array_owner_state<age_partitioned_bloom_view, age_partitioned_bloom_params, std::uint64_t,
                                       detail::apbf_side> {
  // Not `state`, the name of the ring's accessor.
  using base_state = detail::array_owner_state<age_partitioned_bloom_view, age_partitioned_bloom_params,
                                               std::uint64_t, detail::apbf_side>;

 public:
  using view_type = age_partitioned_bloom_view;

  /// A count window: the last `window` keys are always reported, at an FPR
  /// of at most `target_fpr` at every moment (plan_params). Throws
  /// errc::invalid_argument for window = 0 or p outside (0, 1).
  age_partitioned_bloom(std::uint64_t window, double target_fpr, hash_spec hash = {})
      : age_partitioned_bloom(plan_params(window, target_fpr, hash)) {}

  /// An empty filter with exactly these parameters (validated).
  explicit age_partitioned_bloom(const age_partitioned_bloom_params& params) : base_state(params) {
    detail::validate(params_);
    elements_.assign(detail::apbf_slice_words(params_.slice_bits) * (params_.k + params_.l), 0);
  }

  /// A filter from saved words and ring position; validated like a view.
  age_partitioned_bloom(const age_partitioned_bloom_params& params, std::vector<std::uint64_t> words,
                        const age_partitioned_bloom_state& state)
      : base_state(params, std::move(words), detail::apbf_side{state}) {
    detail::validate(params_);
    detail::require_apbf_payload(params_, elements_, state_, errc::invalid_argument);
  }

  /// The count-window design with the fewest bits: for each k in [1, 20]
  /// and l in [1, 32], g = max(1, ceil((N - 1) / l)) (so l g + 1 >= N;
  /// computed without overflow, and skipped when g > 2^56) and the smallest
  /// m whose design_fpr is at most p; the cheapest (k + l) m wins. Throws
  /// errc::invalid_argument for N = 0, N > 32 * 2^56 + 1, p outside (0, 1),
  /// or a design needing more than 2^40 bits per slice.
  static age_partitioned_bloom_params plan_params(std::uint64_t window, double target_fpr, hash_spec hash = {}) {
    detail::require(window >= 1, errc::invalid_argument, "age_partitioned_bloom: window must be at least 1");
    detail::require(window <= detail::apbf_max_planned_window, errc::invalid_argument,
                    "age_partitioned_bloom: window must be at most 32 * 2^56 + 1 keys, got " + std::to_string(window));
    detail::require(target_fpr > 0.0 && target_fpr < 1.0, errc::invalid_argument,
                    "age_partitioned_bloom: target_fpr must be in (0, 1), got " + detail::format_number(target_fpr));
    age_partitioned_bloom_params best{};
    double best_bits = std::numeric_limits<double>::infinity();
    for (std::uint32_t k = 1; k <= 20; ++k) {
      for (std::uint32_t l = 1; l <= detail::apbf_max_planned_l; ++l) {
        const std::uint64_t g = std::max<std::uint64_t>(1, detail::apbf_ceil_div(window - 1, l));
        if (g > detail::apbf_max_generation) continue;
        const std::uint64_t m = detail::apbf_slice_bits_for(k, l, g, target_fpr);
        if (m == 0) continue;
        const double bits = static_cast<double>(detail::apbf_slice_words(m) * 64) * (k + l);
        if (bits < best_bits) {
          best_bits = bits;
          best = age_partitioned_bloom_params{k, l, m, g, 0, window, target_fpr, hash, apbf_probes::independent};
        }
      }
    }
    detail::require(best.k != 0, errc::invalid_argument,
                    "age_partitioned_bloom: no design for a window of " + std::to_string(window) + " keys at fpr " +
                        detail::format_number(target_fpr) + " fits 2^40 bits per slice");
    return best;
  }

  /// A time window: keys inserted within the last `window_time` time units
  /// are reported (the caller's clock), for up to `max_keys` keys per
  /// window at a uniform rate; k, l, m as plan_params(max_keys + 1, p)
  /// chooses, generation_time tau = ceil(window_time / l) and g = ceil(max_keys
  /// tau / window_time), with m re-planned for that g. `unit` is recorded
  /// in the file (format version 3) when the caller knows what its clock
  /// counts; `info` then names it. Every step is exact integer arithmetic.
  /// Throws errc::invalid_argument for a zero window or max_keys, max_keys
  /// above 32 * 2^56, a window whose generation would span more than 2^56
  /// time units (window_time > l 2^56), p outside (0, 1), or a design
  /// needing more than 2^40 bits per slice.
  static age_partitioned_bloom_params plan_time_params(std::uint64_t window_time, std::uint64_t max_keys,
                                                       double target_fpr, hash_spec hash = {},
                                                       apbf_time_unit unit = apbf_time_unit::unspecified) {
    detail::require(window_time >= 1, errc::invalid_argument, "age_partitioned_bloom: window_time must be at least 1");
    detail::require(max_keys >= 1, errc::invalid_argument, "age_partitioned_bloom: max_keys must be at least 1");
    detail::require(max_keys < detail::apbf_max_planned_window, errc::invalid_argument,
                    "age_partitioned_bloom: max_keys must be at most 32 * 2^56, got " + std::to_string(max_keys));
    // k and l from the count design for the same number of keys; then a
    // generation spans tau = ceil(T / l) and, at a uniform rate of max_keys
    // per T, receives ceil(max_keys tau / T) keys: that is g, and m is
    // re-planned for it (the FPR bound must hold when generations are full).
    age_partitioned_bloom_params p = plan_params(max_keys + 1, target_fpr, hash);
    p.generation_time = detail::apbf_ceil_div(window_time, p.l);
    detail::require(p.generation_time <= detail::apbf_max_generation, errc::invalid_argument,
                    "age_partitioned_bloom: window_time " + std::to_string(window_time) + " is too long: with l = " +
                        std::to_string(p.l) + " a generation would span " + std::to_string(p.generation_time) +
                        " time units, more than 2^56 (use a coarser clock)");
    p.window = window_time;
    p.time_unit = unit;
    // max_keys tau < 2^61 * 2^56 fits 128 bits; the quotient is at most
    // max_keys + l (tau < T / l + 1), so it fits 64 bits.
    const detail::uint128 product = static_cast<detail::uint128>(max_keys) * p.generation_time;
    const auto per_generation =
        static_cast<std::uint64_t>(product / window_time + (product % window_time != 0 ? 1 : 0));
    p.generation_keys = std::max<std::uint64_t>(1, per_generation);
    detail::require(p.generation_keys <= detail::apbf_max_generation, errc::invalid_argument,
                    "age_partitioned_bloom: max_keys " + std::to_string(max_keys) +
                        " gives more than 2^56 keys per generation");
    p.slice_bits = detail::apbf_slice_bits_for(p.k, p.l, p.generation_keys, target_fpr);
    detail::require(p.slice_bits != 0, errc::invalid_argument,
                    "age_partitioned_bloom: no design for " + std::to_string(max_keys) + " keys per window at fpr " +
                        detail::format_number(target_fpr) + " fits 2^40 bits per slice");
    return p;
  }

  /// Adds the key with hash `h` to the newest generation (shifting first if
  /// that generation holds g keys). For a time window the key is added at
  /// the latest time seen.
  void insert_hash(std::uint64_t h) noexcept {
    if (state_.generation_count == params_.generation_keys) {
      if (params_.generation_time != 0) ++state_.overflowed_generations;
      shift();
      state_.generation_start = state_.now;
    }
    set_bits(h);
  }

  /// Time windows: advances the clock to `now` (expiring whole generations)
  /// and inserts. Throws errc::invalid_argument when now is before the latest
  /// time seen, or the filter has no generation_time.
  void insert_hash_at(std::uint64_t h, std::uint64_t now) {
    advance_to(now);
    insert_hash(h);
  }
  template <key K>
  void insert_at(const K& k, std::uint64_t now) {
    insert_hash_at(hash_key(k, params_.hash), now);
  }

  /// Moves a time window's clock to `now`, clearing the slices of every
  /// generation that ended (at most k + l of them). Throws
  /// errc::invalid_argument when now is before the latest time seen, or the
  /// filter has no generation_time; nothing changes then.
  void advance_to(std::uint64_t now) {
    detail::require(params_.generation_time != 0, errc::invalid_argument,
                    "age_partitioned_bloom: advance_to needs a time window (generation_time > 0)");
    detail::require(now >= state_.now, errc::invalid_argument,
                    "age_partitioned_bloom: time went backwards (" + std::to_string(now) + " < " +
                        std::to_string(state_.now) + ")");
    const std::uint64_t ended = (now - state_.generation_start) / params_.generation_time;
    const std::uint64_t n = params_.k + params_.l;
    for (std::uint64_t s = 0; s < std::min(ended, n); ++s) shift();
    state_.generation_start += ended * params_.generation_time;
    state_.now = now;
  }

  /// Test-and-add (the facade derives insert_if_absent(key) and the bitmap
  /// batch insert_if_absent_many): returns true and inserts when the key is
  /// certainly not in the window; returns false, changing nothing, when it
  /// may be (its life is not restarted: use insert to refresh a key). The
  /// query's one pass over the slices answers; the insert then sets k bits.
  bool insert_if_absent_hash(std::uint64_t h) noexcept {
    if (test(h, 0)) return false;
    insert_hash(h);
    return true;
  }

  /// Every bit zero and the ring back at its start.
  void clear() noexcept { clear_elements(); }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "age_partitioned_bloom");
  }
  using base_state::params;
  [[nodiscard]] const age_partitioned_bloom_state& state() const noexcept { return state_; }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements_; }

 private:
  void set_bits(std::uint64_t h) noexcept {
    const std::uint64_t per = detail::apbf_slice_words(params_.slice_bits);
    for (std::uint32_t j = 0; j < params_.k; ++j) {
      const std::uint32_t p = physical(j);
      const std::uint64_t bit = bit_of(h, p);
      elements_[p * per + (bit >> 6)] |= std::uint64_t{1} << (bit & 63);
    }
    ++state_.generation_count;
    ++state_.inserted;
  }
  /// The oldest slice is cleared and becomes the newest; a new generation begins.
  void shift() noexcept {
    const std::uint32_t n = params_.k + params_.l;
    state_.newest = state_.newest == 0 ? n - 1 : state_.newest - 1;
    const std::uint64_t per = detail::apbf_slice_words(params_.slice_bits);
    std::fill_n(elements_.begin() + static_cast<std::ptrdiff_t>(state_.newest * per), per, 0);
    state_.generation_count = 0;
  }
};

/// age_partitioned_bloom's facts (filter.hpp). It never saturates: the
/// window slides, so the kind counts as one that grows.
template <>
struct kind_traits<age_partitioned_bloom> {
  static constexpr filter_kind kind = filter_kind::age_partitioned_bloom;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "window";
  static constexpr std::string_view summary =
      "age-partitioned Bloom filter: remembers only the last --window N keys, FPR bound at every moment";
  static constexpr std::string_view python_class = "AgePartitionedBloom";
  static constexpr hash_spec default_hash = hash_spec{};
  static constexpr bool is_static = false;
  static constexpr bool grows = true;
  static constexpr bool removes = false;
  static constexpr bool merges = false;
  static constexpr bool windows = true;
  /// Why merge and intersect are refused (tools print it).
  static constexpr std::string_view no_merge_reason =
      "age-partitioned (window) filters do not merge: the slices of two streams are at different ages, so an OR "
      "would keep old keys past their window; insert both streams into one filter instead";
};
template <>
struct kind_traits<age_partitioned_bloom_view> : kind_traits<age_partitioned_bloom> {};

static_assert(incremental_filter<age_partitioned_bloom> && filter<age_partitioned_bloom_view>);

}  // namespace bloomkit
