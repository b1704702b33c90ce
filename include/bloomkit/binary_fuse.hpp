// bloomkit/binary_fuse.hpp - binary fuse filters (Graf and Lemire 2022,
// "Binary Fuse Filters: Fast and Smaller Than Xor Filters", JEA 27).
//
// A static filter: built once from the whole key set, then only queried. It
// stores one f-bit fingerprint per slot in an array of A slots cut into
// segments of L = 2^j slots. A key's seeded hash h picks `arity` slots, one in
// each of `arity` consecutive segments, and the filter is solved so that
//
//     F[p_0(h)] ^ F[p_1(h)] ^ ... ^ F[p_{arity-1}(h)] == fingerprint(h)
//
// holds for every key. A key not in the set passes with probability 2^-f
// (1/256 for binary_fuse8, 1/65536 for binary_fuse16).
//
//   slots:  | seg 0 | seg 1 | seg 2 | ... | seg S-1 | seg S | seg S+1 |
//                      ^ p_0      ^ p_1       ^ p_2          (3-wise: the key's
//   p_0 = (h * (S * L)) >> 64              window is 3 consecutive segments)
//   p_i = (p_0 + i * L) ^ (bits_i(h) & (L - 1))   for i >= 1 (same offset rule
//                                                 stays inside segment seg(p_0)+i)
//
// Construction is hypergraph peeling (§3): count keys per slot, repeatedly
// take a slot that holds exactly one key, record (key, that slot) on a stack
// and remove the key from its other slots; then pop the stack and set the
// recorded slot so the key's equation holds (its other slots are final by
// then). Peeling succeeds with high probability when A >= n * size_factor
// (§5 gives the fits used here: 3-wise max(1.125, 0.875 + 0.25 ln 10^6 / ln n),
// 4-wise max(1.075, 0.77 + 0.305 ln 600000 / ln n), and segment lengths
// 2^floor(ln n / ln 3.33 + 2.25) resp. 2^floor(ln n / ln 2.91 - 0.5), capped at
// 2^18). On failure it retries with a new seed; when seeds keep failing at one
// size (attempts_per_size of them), the table grows (below), so a build ends
// in a filter for every key set rather than in construction_failed.
//
// Growth: the fits are for large n, and at some small and middle n one seed
// succeeds rarely (measured: up to 44 seeds at n < 20,000 with 3-wise; a
// user reported a failure after 64). Growth step g multiplies the size
// factor by (17/16)^g and adds at least g segments (for small n, where the
// whole array is `arity` segments and a larger factor alone would round to
// the same array). More slots per key only make peeling easier (§4), and
// the FPR 2^-f does not change; bits per key rise by 6 % a step.
//
// Bits per key for large n: 3-wise 1.125 f (9.0 for f = 8), 4-wise 1.075 f
// (8.6 for f = 8). A 4-wise query reads one more slot. docs/STATIC.md has the
// measured figures on this machine.
//
// Duplicate keys: two equal hashes can never be peeled (they share all their
// slots), so the first failed attempt switches to a sorted, de-duplicated copy
// of the remixed hashes. keys() then reports the distinct count.
//
// Construction memory, n keys (distinct or not), A slots (about 1.125 n):
//   8n  remixed hashes (later reused as the peeling stack)
//   1n  which-slot byte per peeled key
//   12A per-slot count (4 B) and XOR of the hashes (8 B)
//   4A  stack of slots holding one key
// then, after the per-slot scratch is freed, the result A * sizeof(fingerprint).
// Peak about 9n + 16A = 27n bytes for 3-wise (2.7 GB for 10^8 keys), plus 8n
// for the caller's hashes. Nothing is held after construction.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/detail/static_build.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/hash_batch.hpp"

namespace bloomkit {

/// The parameters that fix a binary fuse filter's layout and meaning (all a
/// file format must store beside the fingerprints).
struct binary_fuse_params {
  std::uint32_t fingerprint_bits = 8;  ///< f: 8 or 16, fixed by the filter type
  std::uint32_t arity = 3;             ///< slots per key: 3 or 4
  std::uint32_t segment_length = 0;    ///< L, a power of two in [4, 2^18]; 0 only for an empty filter
  std::uint32_t segment_count = 0;     ///< S >= 1 segments a key's first slot may fall in; 0 only when empty
  std::uint64_t seed = 0;              ///< seed of the successful construction attempt
  std::uint64_t keys = 0;              ///< distinct keys stored (0 = empty filter, which rejects everything)
  hash_spec hash{};                    ///< hash used for keys

  /// Number of fingerprint slots: (S + arity - 1) * L, or 0 when empty.
  [[nodiscard]] constexpr std::uint64_t array_length() const noexcept {
    return segment_length == 0 ? 0 : (std::uint64_t{segment_count} + arity - 1) * segment_length;
  }

  friend bool operator==(const binary_fuse_params&, const binary_fuse_params&) = default;
};

/// How to build a binary fuse filter.
struct binary_fuse_options {
  std::uint32_t arity = 3;                             ///< 3 or 4 slots per key
  hash_spec hash{};                                    ///< hash for keys (default XXH3-64, seed 0)
  std::uint64_t seed = detail::default_static_seed;    ///< first construction seed
  std::uint32_t max_attempts = 64;                     ///< seeds to try in all before errc::construction_failed (>= 1)
  /// Seeds tried at one table size before the table grows (see the header
  /// comment); 0 never grows (then max_attempts failures at the planned size
  /// are construction_failed). With the defaults a build tries 16 sizes, the
  /// last 2.5x the first: every sweep in tests/static_sweep_test.cpp succeeds.
  std::uint32_t attempts_per_size = 4;
  double size_factor = 0.0;  ///< slots per key; 0 picks Graf and Lemire's fit. Below ~1.1 construction fails.
};

namespace detail {

/// Slot positions of seeded hash h (see the header comment). `out` gets
/// `arity` positions, each in its own segment, so they are distinct.
constexpr void fuse_positions(std::uint64_t h, std::uint32_t arity, std::uint64_t segment_length,
                              std::uint64_t segment_count_length, std::uint64_t out[4]) noexcept {
  const std::uint64_t mask = segment_length - 1;
  const std::uint64_t p0 = reduce64(h, segment_count_length);
  out[0] = p0;
  // Offsets come from bits the first position does not use: reduce64 reads
  // the top log2(S * L) bits (27 for 10^8 keys), the offsets bits 0..35.
  out[1] = (p0 + segment_length) ^ ((h >> 18) & mask);
  out[2] = (p0 + 2 * segment_length) ^ (h & mask);
  if (arity == 4) out[3] = (p0 + 3 * segment_length) ^ (((h * 0x9e3779b97f4a7c15ULL) >> 46) & mask);
}

/// The f-bit fingerprint of seeded hash h: folds the two halves so the low
/// bits (also used for an offset) are mixed with bits no position uses.
template <std::unsigned_integral F>
constexpr F fuse_fingerprint(std::uint64_t h) noexcept {
  return static_cast<F>(h ^ (h >> 32));
}

/// Keys in flight in a batched lookup. Each key touches `arity` lines, so 8
/// keys keep 24-32 lines requested, about what the core tracks (see
/// detail/simd_batch.hpp on choosing a window).
inline constexpr std::size_t fuse_batch_window = 8;

/// The layout Graf and Lemire's fits give for n distinct keys (§5), grown
/// by `growth` steps (the header comment: factor x (17/16)^growth, and at
/// least `growth` more segments).
inline binary_fuse_params plan_binary_fuse(std::uint64_t n, std::uint32_t arity, double size_factor,
                                           std::uint32_t growth = 0) {
  binary_fuse_params p;
  p.arity = arity;
  p.keys = n;
  if (n == 0) return p;
  const double ln_n = std::log(static_cast<double>(std::max<std::uint64_t>(n, 2)));
  const double exponent = arity == 3 ? std::floor(ln_n / std::log(3.33) + 2.25) : std::floor(ln_n / std::log(2.91) - 0.5);
  const int log_segment = std::clamp(static_cast<int>(exponent), 2, 18);
  const std::uint64_t segment_length = std::uint64_t{1} << log_segment;
  double factor = size_factor;
  if (factor <= 0.0) {
    factor = arity == 3 ? std::max(1.125, 0.875 + 0.25 * std::log(1e6) / ln_n)
                        : std::max(1.075, 0.77 + 0.305 * std::log(6e5) / ln_n);
  }
  const auto segments_for = [&](double f) {
    const auto capacity = static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * f));
    const std::uint64_t spanned = (capacity + segment_length - 1) / segment_length;
    return spanned > arity ? spanned - (arity - 1) : std::uint64_t{1};
  };
  std::uint64_t segment_count = segments_for(factor);
  if (growth > 0) {
    segment_count = std::max(segments_for(factor * std::pow(17.0 / 16.0, growth)), segment_count + growth);
  }
  p.segment_length = static_cast<std::uint32_t>(segment_length);
  require(segment_count < (std::uint64_t{1} << 32), errc::invalid_argument, "binary_fuse: too many keys");
  p.segment_count = static_cast<std::uint32_t>(segment_count);
  return p;
}

/// The one domain check of binary_fuse_params (constructors, views and the
/// codec; see param_check): fingerprint_bits 8 or 16, arity 3 or 4, and the
/// segment layout of a filter with keys (none when empty).
inline void validate(const binary_fuse_params& p, const param_check& check) {
  check(p.fingerprint_bits == 8 || p.fingerprint_bits == 16, "fingerprint_bits",
        "= " + std::to_string(p.fingerprint_bits) + " is not 8 or 16");
  check(p.arity == 3 || p.arity == 4, "arity", "= " + std::to_string(p.arity) + " is not 3 or 4");
  check(is_known(p.hash.algorithm), "hash_algorithm", "is not a known hash algorithm");
  check(is_known(p.hash.keys), "key_type", "is not a known key type");
  if (p.keys == 0) {
    check(p.segment_length == 0 && p.segment_count == 0, "segment_length",
          "must be 0 with segment_count 0 in an empty filter (keys = 0)");
    return;
  }
  check(std::has_single_bit(p.segment_length) && p.segment_length >= 4 && p.segment_length <= (1U << 18),
        "segment_length", "= " + std::to_string(p.segment_length) + " is not a power of two in [4, 2^18]");
  check(p.segment_count >= 1, "segment_count", "is 0 in a filter with keys");
  check(p.array_length() < (std::uint64_t{1} << 32), "segment_count",
        "= " + std::to_string(p.segment_count) + " gives more than 2^32 slots");
}

/// validate() for a filter with F-bit fingerprints (the width must match F).
template <std::unsigned_integral F>
void validate(const binary_fuse_params& p) {
  const std::string name = "binary_fuse" + std::to_string(sizeof(F) * 8);
  const param_check check{name};
  check(p.fingerprint_bits == sizeof(F) * 8, "fingerprint_bits",
        "= " + std::to_string(p.fingerprint_bits) + " is not " + std::to_string(sizeof(F) * 8));
  validate(p, check);
}

}  // namespace detail

namespace detail {

/// A lookup's view of a typed filter: the fields a probe reads, with S * L
/// multiplied once (a batch builds it once for all its keys). `x` is a
/// seeded hash. Why a struct: lookups are bound by the multiplier port (the
/// remix is two 64-bit multiplies, the first slot a 64x64->128 one), and GCC
/// does not hoist S * L past the empty-filter test by itself; on a hash, a
/// lookup does the work of xor_singleheader's binary_fuse8_contain and no
/// more.
template <std::unsigned_integral F>
struct fuse_prober {
  const F* fingerprints;
  std::uint64_t segment_length;
  std::uint64_t segment_count_length;  ///< S * L: the range of the first slot
  std::uint32_t arity;

  /// The XOR of x's slots equals its fingerprint: the filter's answer for x.
  [[nodiscard]] bool matches(std::uint64_t x) const noexcept {
    std::uint64_t at[4];
    fuse_positions(x, arity, segment_length, segment_count_length, at);
    F acc = static_cast<F>(fingerprints[at[0]] ^ fingerprints[at[1]] ^ fingerprints[at[2]]);
    if (arity == 4) acc = static_cast<F>(acc ^ fingerprints[at[3]]);
    return acc == fuse_fingerprint<F>(x);
  }
  /// Requests the lines of x's slots.
  void prefetch_slots(std::uint64_t x) const noexcept {
    std::uint64_t at[4];
    fuse_positions(x, arity, segment_length, segment_count_length, at);
    for (std::uint32_t i = 0; i < arity; ++i) prefetch(fingerprints + at[i]);
  }
};

/// The query code of a typed binary fuse filter, shared by
/// basic_binary_fuse<F> and basic_binary_fuse_view<F>; the statistics come
/// from static_facade. D provides params() and fingerprints().
template <class D, std::unsigned_integral F>
class binary_fuse_reader : public static_facade<D> {
 public:
  static constexpr const char* kind_name = "binary_fuse";
  /// Keyed batches hash a tile of keys together, then run the prehashed
  /// batch core over it (detail/facade.hpp, hashes_keys_in_tiles).
  static constexpr bool keyed_batches_in_tiles = true;

  /// True if the key with hash `h` may be in the set; false means certainly
  /// not. Never false for a key the filter was built from.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    const binary_fuse_params& p = self().params();
    if (p.keys == 0) return false;
    return prober().matches(seeded_hash(h, p.seed));
  }

  /// The batch core: the prefetch pipeline of detail/simd_batch.hpp over
  /// seeded hashes, so each key is hashed and remixed once (the slots are
  /// computed twice, for the prefetch and for the test: one multiply, less
  /// than a ring of three positions costs), and the slots of the next
  /// fuse_batch_window keys are requested while the current one is tested.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    const binary_fuse_params& p = self().params();
    if (p.keys == 0) {
      std::fill(out, out + n, false);
      return;
    }
    const fuse_prober<F> probe = prober();
    const std::uint64_t seed = p.seed;
    prefetch_pipeline<fuse_batch_window>(
        n, [&](std::size_t i) { return seeded_hash(hash_at(i), seed); },
        [&](std::uint64_t x) { probe.prefetch_slots(x); },
        [&](std::size_t i, std::uint64_t x) { out[i] = probe.matches(x); });
  }

  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint32_t arity() const noexcept { return self().params().arity; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return sizeof(F) * 8; }
  /// The FPR exponent: 2^-fpr_bits() is the design rate.
  [[nodiscard]] std::uint32_t fpr_bits() const noexcept { return sizeof(F) * 8; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return self().fingerprints().size() * sizeof(F); }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
  [[nodiscard]] fuse_prober<F> prober() const noexcept {
    const binary_fuse_params& p = self().params();
    return {self().fingerprints().data(), p.segment_length, std::uint64_t{p.segment_count} * p.segment_length,
            p.arity};
  }
};

/// Throws `code` unless `fingerprints` holds exactly params.array_length() slots.
inline void require_fuse_payload(const binary_fuse_params& params, std::size_t fingerprints, errc code) {
  require(fingerprints == params.array_length(), code,
          "binary_fuse: expected " + std::to_string(params.array_length()) + " fingerprints, got " +
              std::to_string(fingerprints));
}

}  // namespace detail

/// A read-only binary fuse filter over borrowed fingerprints (for example a
/// memory-mapped file). Owns nothing: the fingerprints must outlive it.
/// Queries are detail::binary_fuse_reader's, shared with basic_binary_fuse.
template <std::unsigned_integral F>
class basic_binary_fuse_view
    : public detail::binary_fuse_reader<basic_binary_fuse_view<F>, F>,
      public detail::array_view_state<binary_fuse_params, F, detail::no_side> {
  using state = detail::array_view_state<binary_fuse_params, F, detail::no_side>;

 public:
  using fingerprint_type = F;

  /// Views `fingerprints` with `params`. Validates the parameters and that
  /// fingerprints.size() == params.array_length(); throws bloomkit::error
  /// (invalid_argument for bad parameters, corrupt for a wrong length).
  basic_binary_fuse_view(const binary_fuse_params& params, std::span<const F> fingerprints)
      : state(detail::trusted, params, fingerprints, {}) {
    detail::validate<F>(params);
    detail::require_fuse_payload(params, fingerprints.size(), errc::corrupt);
  }
  using state::state;  // (trusted_t, params, fingerprints, no_side): no validation

  using state::params;
  /// The raw payload: array_length() fingerprints, slot 0 first.
  [[nodiscard]] std::span<const F> fingerprints() const noexcept { return this->elements(); }
};

/// An owning binary fuse filter with F-bit fingerprints (std::uint8_t or
/// std::uint16_t). Immutable once built.
template <std::unsigned_integral F>
class basic_binary_fuse
    : public detail::binary_fuse_reader<basic_binary_fuse<F>, F>,
      public detail::array_owner_state<basic_binary_fuse_view<F>, binary_fuse_params, F, detail::no_side> {
  static_assert(std::is_same_v<F, std::uint8_t> || std::is_same_v<F, std::uint16_t>,
                "binary fuse fingerprints are 8 or 16 bits");
  using state = detail::array_owner_state<basic_binary_fuse_view<F>, binary_fuse_params, F, detail::no_side>;
  using state::params_;
  using state::elements_;

 public:
  using fingerprint_type = F;
  using view_type = basic_binary_fuse_view<F>;

  /// An empty filter (rejects every key).
  basic_binary_fuse() { params_.fingerprint_bits = sizeof(F) * 8; }

  /// Builds a filter holding every hash in `hashes` (duplicates allowed).
  /// Throws errc::invalid_argument for bad options (arity not 3 or 4,
  /// max_attempts 0, more than about 3.8e9 keys) and
  /// errc::construction_failed when max_attempts seeds all fail to peel
  /// (with growth on, the default, not seen for any key set we tried).
  explicit basic_binary_fuse(std::span<const std::uint64_t> hashes, const binary_fuse_options& options = {}) {
    build(hashes, options);
  }

  /// Builds from keys, hashed with options.hash. Same contract as above.
  template <key K>
  static basic_binary_fuse from_keys(std::span<const K> keys, const binary_fuse_options& options = {}) {
    std::vector<std::uint64_t> hashes;
    hashes.reserve(keys.size());
    for (const auto& k : keys) hashes.push_back(hash_key(k, options.hash));
    return basic_binary_fuse(hashes, options);
  }

  /// A filter from stored parts (loading). Validates like the view does.
  basic_binary_fuse(const binary_fuse_params& params, std::vector<F> fingerprints)
      : state(params, std::move(fingerprints), {}) {
    detail::validate<F>(params_);
    detail::require_fuse_payload(params_, elements_.size(), errc::corrupt);
  }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "binary_fuse");
  }
  using state::params;
  [[nodiscard]] std::span<const F> fingerprints() const noexcept { return elements_; }
  /// Construction attempts the last build needed (1 = first seed worked).
  [[nodiscard]] std::uint32_t attempts() const noexcept { return attempts_; }

 private:
  void build(std::span<const std::uint64_t> hashes, const binary_fuse_options& options) {
    const std::string name = "binary_fuse" + std::to_string(sizeof(F) * 8);
    detail::require(options.arity == 3 || options.arity == 4, errc::invalid_argument,
                    name + ": arity must be 3 or 4, got " + std::to_string(options.arity));
    detail::require(options.max_attempts >= 1, errc::invalid_argument, name + ": max_attempts must be at least 1");
    detail::require(is_known(options.hash.algorithm), errc::invalid_argument, name + ": unknown hash algorithm");
    detail::require(options.size_factor == 0.0 || (options.size_factor > 0.0 && options.size_factor < 64.0),
                    errc::invalid_argument, name + ": size_factor must be 0 (automatic) or in (0, 64)");
    detail::require(hashes.size() < (std::uint64_t{3} << 30), errc::invalid_argument,
                    name + ": at most 3 * 2^30 keys are supported");
    params_.fingerprint_bits = sizeof(F) * 8;
    params_.arity = options.arity;
    params_.hash = options.hash;
    params_.seed = options.seed;
    if (hashes.empty()) return;

    std::vector<std::uint64_t> keys;  // remixed hashes; later the peeling stack
    bool deduplicate = false;
    for (std::uint32_t attempt = 0; attempt < options.max_attempts; ++attempt) {
      const std::uint64_t seed = detail::attempt_seed(options.seed, attempt);
      detail::remix_in_bucket_order(hashes, seed, keys);
      if (deduplicate) {
        // Bucket order is only by top bits; a full sort brings equal hashes together.
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      }
      const std::uint32_t growth = options.attempts_per_size == 0 ? 0 : attempt / options.attempts_per_size;
      binary_fuse_params plan = detail::plan_binary_fuse(keys.size(), options.arity, options.size_factor, growth);
      plan.fingerprint_bits = params_.fingerprint_bits;
      plan.hash = options.hash;
      plan.seed = seed;
      detail::validate<F>(plan);
      attempts_ = attempt + 1;
      if (peel_and_assign(plan, keys)) {
        params_ = plan;
        return;
      }
      deduplicate = true;
    }
    throw error(errc::construction_failed, name + ": construction failed after " +
                                               std::to_string(options.max_attempts) + " seeds for " +
                                               std::to_string(hashes.size()) + " keys");
  }

  /// One construction attempt for distinct-or-not remixed `keys` (sorted by
  /// their top bits). On success fills elements_ and returns true.
  /// Reuses `keys` as the peeling stack (it is not needed after counting).
  bool peel_and_assign(const binary_fuse_params& plan, std::vector<std::uint64_t>& keys) {
    const std::uint64_t slots = plan.array_length();
    const std::uint64_t segment_length = plan.segment_length;
    const std::uint64_t span_length = std::uint64_t{plan.segment_count} * segment_length;
    const std::uint32_t arity = plan.arity;
    const std::size_t n = keys.size();

    auto count = detail::vector_or_fail<std::uint32_t>(slots, 0, "building a binary_fuse (slot counts)");
    auto xors = detail::vector_or_fail<std::uint64_t>(slots, 0, "building a binary_fuse (slot hashes)");
    std::uint64_t p[4];
    for (const std::uint64_t h : keys) {
      detail::fuse_positions(h, arity, segment_length, span_length, p);
      for (std::uint32_t i = 0; i < arity; ++i) {
        ++count[p[i]];
        xors[p[i]] ^= h;
      }
    }

    // Slots holding exactly one key, as a stack (order does not matter for
    // correctness; LIFO keeps recently touched slots hot).
    std::vector<std::uint32_t> alone;
    alone.reserve(static_cast<std::size_t>(slots));
    for (std::uint64_t s = 0; s < slots; ++s) {
      if (count[s] == 1) alone.push_back(static_cast<std::uint32_t>(s));
    }
    std::vector<std::uint8_t> which(n);
    std::size_t peeled = 0;
    while (!alone.empty()) {
      const std::uint32_t slot = alone.back();
      alone.pop_back();
      if (count[slot] != 1) continue;  // emptied since it was queued
      const std::uint64_t h = xors[slot];
      detail::fuse_positions(h, arity, segment_length, span_length, p);
      std::uint8_t found = 0;
      for (std::uint32_t i = 0; i < arity; ++i) {
        if (p[i] == slot) {
          found = static_cast<std::uint8_t>(i);
        } else {
          xors[p[i]] ^= h;
          if (--count[p[i]] == 1) alone.push_back(static_cast<std::uint32_t>(p[i]));
        }
      }
      count[slot] = 0;
      keys[peeled] = h;  // counting is done: `keys` is free to hold the stack
      which[peeled] = found;
      ++peeled;
    }
    if (peeled != n) return false;
    // Free the scratch before allocating the result, to bound peak memory.
    std::vector<std::uint32_t>().swap(count);
    std::vector<std::uint64_t>().swap(xors);
    std::vector<std::uint32_t>().swap(alone);

    // vector_or_fail: the typed out-of-memory error, and huge pages for a
    // large array (its lookups probe three random lines each).
    auto fingerprints = detail::vector_or_fail<F>(slots, F{0}, "building a binary_fuse (fingerprints)");
    for (std::size_t i = n; i-- > 0;) {
      const std::uint64_t h = keys[i];
      detail::fuse_positions(h, arity, segment_length, span_length, p);
      F value = detail::fuse_fingerprint<F>(h);
      for (std::uint32_t j = 0; j < arity; ++j) {
        if (j != which[i]) value = static_cast<F>(value ^ fingerprints[p[j]]);
      }
      fingerprints[p[which[i]]] = value;
    }
    elements_ = std::move(fingerprints);
    return true;
  }

  std::uint32_t attempts_ = 0;
};

/// Binary fuse filter with 8-bit fingerprints: FPR 1/256, about 9.0 bits/key
/// (3-wise) or 8.6 (4-wise) for large n.
using binary_fuse8 = basic_binary_fuse<std::uint8_t>;
/// Binary fuse filter with 16-bit fingerprints: FPR 1/65536, about 18 bits/key.
using binary_fuse16 = basic_binary_fuse<std::uint16_t>;
using binary_fuse8_view = basic_binary_fuse_view<std::uint8_t>;
using binary_fuse16_view = basic_binary_fuse_view<std::uint16_t>;

namespace detail {

/// The query code of the width-erased binary_fuse and binary_fuse_view: one
/// branch on the width, then the typed reader's code. D provides params()
/// and typed() (a variant of the typed filters or views).
template <class D>
class binary_fuse_any_reader : public static_facade<D> {
 public:
  static constexpr const char* kind_name = "binary_fuse";
  /// Keyed batches hash a tile of keys together, then run the prehashed
  /// batch core over it (detail/facade.hpp, hashes_keys_in_tiles).
  static constexpr bool keyed_batches_in_tiles = true;

  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    return std::visit([h](const auto& f) { return f.may_contain_hash(h); }, self().typed());
  }
  /// The batch core of the typed filter inside.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    std::visit([&](const auto& f) { f.test_pipelined(n, hash_at, out); }, self().typed());
  }
  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return self().params().fingerprint_bits; }
  [[nodiscard]] std::uint32_t fpr_bits() const noexcept { return self().params().fingerprint_bits; }
  [[nodiscard]] std::uint32_t arity() const noexcept { return self().params().arity; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept {
    return std::visit([](const auto& f) { return f.size_in_bytes(); }, self().typed());
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

}  // namespace detail

/// A binary fuse filter of either fingerprint width, chosen at run time (the
/// type the file format, the CLI and other width-agnostic code hold). Queries
/// branch once on the width, then run the typed filter's code.
class binary_fuse_view : public detail::binary_fuse_any_reader<binary_fuse_view> {
 public:
  binary_fuse_view(binary_fuse8_view v) noexcept : impl_(v) {}    // NOLINT: implicit by design
  binary_fuse_view(binary_fuse16_view v) noexcept : impl_(v) {}   // NOLINT: implicit by design

  [[nodiscard]] const binary_fuse_params& params() const noexcept {
    return std::visit([](const auto& v) -> const binary_fuse_params& { return v.params(); }, impl_);
  }
  /// The typed view inside (binary_fuse8_view or binary_fuse16_view).
  [[nodiscard]] const std::variant<binary_fuse8_view, binary_fuse16_view>& typed() const noexcept { return impl_; }

 private:
  std::variant<binary_fuse8_view, binary_fuse16_view> impl_;
};

/// An owning binary fuse filter of either fingerprint width (see
/// binary_fuse_view). Build one with a width, or wrap a typed filter.
class binary_fuse : public detail::binary_fuse_any_reader<binary_fuse> {
 public:
  using view_type = binary_fuse_view;

  /// An empty 8-bit filter (rejects every key).
  binary_fuse() = default;
  binary_fuse(binary_fuse8 f) noexcept : impl_(std::move(f)) {}   // NOLINT: implicit by design
  binary_fuse(binary_fuse16 f) noexcept : impl_(std::move(f)) {}  // NOLINT: implicit by design

  /// Builds a filter with `fingerprint_bits` (8 or 16; otherwise
  /// errc::invalid_argument) from `hashes`. Same contract as basic_binary_fuse.
  binary_fuse(std::span<const std::uint64_t> hashes, std::uint32_t fingerprint_bits,
              const binary_fuse_options& options = {})
      : impl_(make(hashes, fingerprint_bits, options)) {}

  /// A filter from stored parts: params.fingerprint_bits picks the width;
  /// `payload` holds array_length() fingerprints, each little-endian (8-bit:
  /// one byte each). Validates like the views do (errc::corrupt for a wrong
  /// payload length, errc::invalid_argument for bad parameters).
  static binary_fuse from_parts(const binary_fuse_params& params, std::span<const std::byte> payload) {
    if (params.fingerprint_bits == 16) {
      detail::require(payload.size() % 2 == 0, errc::corrupt, "binary_fuse16: payload length is odd");
      std::vector<std::uint16_t> fingerprints(payload.size() / 2);
      for (std::size_t i = 0; i < fingerprints.size(); ++i) {
        fingerprints[i] = detail::load_le<std::uint16_t>(payload.data() + 2 * i);
      }
      return binary_fuse16(params, std::move(fingerprints));
    }
    detail::require(params.fingerprint_bits == 8, errc::invalid_argument,
                    "binary_fuse: fingerprint_bits must be 8 or 16, got " + std::to_string(params.fingerprint_bits));
    std::vector<std::uint8_t> fingerprints(payload.size());
    for (std::size_t i = 0; i < payload.size(); ++i) fingerprints[i] = std::to_integer<std::uint8_t>(payload[i]);
    return binary_fuse8(params, std::move(fingerprints));
  }

  [[nodiscard]] view_type view() const noexcept {
    if (const auto* f8 = std::get_if<binary_fuse8>(&impl_)) return f8->view();
    return std::get<binary_fuse16>(impl_).view();
  }
  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    std::visit([type](auto& f) { f.adopt_key_type(type); }, impl_);
  }
  [[nodiscard]] const binary_fuse_params& params() const noexcept {
    return std::visit([](const auto& f) -> const binary_fuse_params& { return f.params(); }, impl_);
  }
  /// The typed filter inside (binary_fuse8 or binary_fuse16).
  [[nodiscard]] const std::variant<binary_fuse8, binary_fuse16>& typed() const noexcept { return impl_; }

 private:
  static std::variant<binary_fuse8, binary_fuse16> make(std::span<const std::uint64_t> hashes, std::uint32_t bits,
                                                        const binary_fuse_options& options) {
    if (bits == 8) return binary_fuse8(hashes, options);
    if (bits == 16) return binary_fuse16(hashes, options);
    throw error(errc::invalid_argument, "binary_fuse: fingerprint_bits must be 8 or 16, got " + std::to_string(bits));
  }

  std::variant<binary_fuse8, binary_fuse16> impl_;
};

/// binary_fuse's facts (filter.hpp): static, FPR 2^-8 or 2^-16 by width.
template <>
struct kind_traits<binary_fuse> {
  static constexpr filter_kind kind = filter_kind::binary_fuse;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "binary-fuse";
  static constexpr std::string_view summary =
      "static: binary fuse filter, 8- or 16-bit fingerprints (FPR 2^-8 / 2^-16), ~9 / ~18 bits per key";
  static constexpr std::string_view python_class = "BinaryFuse";
  static constexpr hash_spec default_hash{};
  static constexpr bool is_static = true;
  static constexpr bool grows = false;
  static constexpr bool removes = false;
  static constexpr bool merges = false;
  static constexpr bool windows = false;
  /// The lowest FPR a width reaches: 2^-16.
  static constexpr double min_fpr = 1.0 / 65536;
  /// The fingerprint width for `target_fpr` (fpr_rule::binary_fuse_bits).
  static std::uint32_t fpr_bits(double target_fpr) noexcept { return fpr_rule::binary_fuse_bits(target_fpr); }
  /// A filter over `hashes` whose FPR is at or below target_fpr (>= min_fpr).
  static binary_fuse build(std::span<const std::uint64_t> hashes, double target_fpr, hash_spec hash) {
    binary_fuse_options options;
    options.hash = hash;
    return binary_fuse(hashes, fpr_bits(target_fpr), options);
  }
};
template <>
struct kind_traits<binary_fuse_view> : kind_traits<binary_fuse> {};
template <std::unsigned_integral F>
struct kind_traits<basic_binary_fuse<F>> : kind_traits<binary_fuse> {};
template <std::unsigned_integral F>
struct kind_traits<basic_binary_fuse_view<F>> : kind_traits<binary_fuse> {};

static_assert(owning_filter<binary_fuse> && filter<binary_fuse_view>);
static_assert(owning_filter<binary_fuse8> && owning_filter<binary_fuse16>);

}  // namespace bloomkit
