// bloomkit/scalable_bloom.hpp - a Bloom filter that grows as keys arrive.
//
// Almeida, Baquero, Preguica and Hutchison (2007), "Scalable Bloom Filters",
// Information Processing Letters 101(6). A fixed-size filter past its
// capacity degrades without saying so; a scalable filter instead adds a new,
// larger and tighter stage whenever the newest one is full:
//
//   stage i:  capacity n_i = n_0 s^i            (growth factor s, default 2)
//             design FPR p_i = P (1 - r) r^i    (tightening ratio r, default 0.85)
//
//   stage 0 [n0, p0] -> stage 1 [s n0, r p0] -> stage 2 [s^2 n0, r^2 p0] -> ...
//   insert: into the newest stage; a new stage opens when it holds n_i keys
//   query:  "maybe" if any stage says maybe (newest first: it holds the most keys)
//
// A negative key is a false positive if any stage lets it through, so the
// compound rate is 1 - prod(1 - p_i) <= sum p_i = P (1 - r^L) < P for L
// stages (paper, section 4): the target P holds for any number of keys. This
// is a union bound, so it holds whatever the correlation between stages (all
// stages use the same 64-bit hash; each key lives in one stage, so their
// fills are independent).
//
// Why r = 0.85: stage i needs about -ln p_i / (ln 2)^2 bits per key, and
// -ln p_i = -ln P - ln(1 - r) + i ln(1/r). With r = 0.5 the first term is
// small (ln 2) but every stage costs ln 2 = 0.69 more; with r = 0.85 the
// first costs ln(1/0.15) = 1.90 and each stage only 0.16 more. The stages
// past i ~ 2.3 are cheaper with 0.85, and with s = 2 the last stages hold
// most of the keys, so for growth beyond ~8x the initial capacity 0.85 uses
// less memory (the paper recommends r in 0.8..0.9 for large growth; s = 2
// for moderate growth, 4 for fast growth). Pass r = 0.5 when the filter is
// expected to stay near its initial capacity.
//
// Stages are blocked_bloom filters (one cache line per key per stage), each
// sized with the blocked layout's own formula for its (n_i, p_i).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {

/// The parameters that fix a scalable filter's growth. The stages follow
/// from them (scalable_bloom::stage_capacity, stage_fpr).
struct scalable_bloom_params {
  std::uint64_t initial_capacity = 0;  ///< n_0, keys in stage 0 (>= 1)
  double target_fpr = 0.0;             ///< P, the compound bound for any number of keys, in (0, 1)
  double growth = 2.0;                 ///< s, stage i+1 holds s times the keys of stage i; in [1, 16]
  double tightening = 0.85;            ///< r, stage i+1 has r times the FPR of stage i; in (0, 1)
  hash_spec hash{};

  friend bool operator==(const scalable_bloom_params&, const scalable_bloom_params&) = default;
};

namespace detail {

/// No more than this many stages: with s = 2 that is 2^64 n_0 keys, and with
/// s = 1, r = 0.85 the last stage's FPR is still above 1e-5 P.
inline constexpr std::uint32_t scalable_max_stages = 64;
/// No stage holds more keys than this (a 2^32-block blocked_bloom at ~10
/// bits per key holds about 2^37 keys).
inline constexpr std::uint64_t scalable_max_stage_capacity = std::uint64_t{1} << 40;

/// The one domain check of scalable_bloom_params (constructors, views and
/// the codec; see param_check). The file stores the initial capacity in the
/// header's capacity field, hence that field name.
inline void validate(const scalable_bloom_params& p, const param_check& check = {"scalable_bloom"}) {
  check(p.initial_capacity >= 1 && p.initial_capacity <= scalable_max_stage_capacity, "capacity",
        "(the initial capacity) = " + std::to_string(p.initial_capacity) + " is not in [1, 2^40]");
  check(p.target_fpr > 0.0 && p.target_fpr < 1.0, "target_fpr", "= " + detail::format_number(p.target_fpr) + " is not in (0, 1)");
  check(p.growth >= 1.0 && p.growth <= 16.0, "growth", "= " + detail::format_number(p.growth) + " is not in [1, 16]");
  check(p.tightening > 0.0 && p.tightening < 1.0, "tightening",
        "= " + detail::format_number(p.tightening) + " is not in (0, 1)");
  check(is_known(p.hash.algorithm), "hash_algorithm", "is not a known hash algorithm");
  check(is_known(p.hash.keys), "key_type", "is not a known key type");
}

/// n_i, computed by repeated multiplication and rounding up (one correctly
/// rounded IEEE multiply per step, so every machine gets the same integers;
/// std::pow need not be correctly rounded). Throws errc::unsupported past
/// scalable_max_stage_capacity. Precondition: validate(p) passed.
inline std::uint64_t scalable_stage_capacity(const scalable_bloom_params& p, std::uint32_t stage) {
  std::uint64_t n = p.initial_capacity;
  for (std::uint32_t i = 0; i < stage; ++i) {
    const double next = std::ceil(static_cast<double>(n) * p.growth);
    require(next <= static_cast<double>(scalable_max_stage_capacity), errc::unsupported,
            "scalable_bloom: stage " + std::to_string(stage) + " would hold more than 2^40 keys");
    n = std::max(n, static_cast<std::uint64_t>(next));
  }
  return n;
}

/// p_i = P (1 - r) r^i, by repeated multiplication (same on every machine).
inline double scalable_stage_fpr(const scalable_bloom_params& p, std::uint32_t stage) {
  double fpr = p.target_fpr * (1.0 - p.tightening);
  for (std::uint32_t i = 0; i < stage; ++i) fpr *= p.tightening;
  return fpr;
}

/// Throws errc::corrupt unless `stage` (the i-th) has the capacity, design
/// FPR and hash that `p` fixes for it.
inline void require_stage_matches(const scalable_bloom_params& p, std::uint32_t i, const block_filter_params& stage) {
  const std::string prefix = "scalable_bloom: stage " + std::to_string(i) + " ";
  require(stage.hash == p.hash, errc::corrupt, prefix + "has a different hash spec from the filter");
  require(stage.capacity == scalable_stage_capacity(p, i), errc::corrupt,
          prefix + "capacity " + std::to_string(stage.capacity) + " differs from the growth plan's " +
              std::to_string(scalable_stage_capacity(p, i)));
  const double want = scalable_stage_fpr(p, i);
  require(std::fabs(stage.target_fpr - want) <= 1e-12 * want, errc::corrupt,
          prefix + "design FPR differs from the tightening plan");
}

inline void require_same_growth(const scalable_bloom_params& a, const scalable_bloom_params& b, const char* op) {
  const std::string prefix = std::string("scalable_bloom ") + op + ": ";
  require(a.initial_capacity == b.initial_capacity, errc::mismatch, prefix + "initial capacities differ");
  require(a.target_fpr == b.target_fpr, errc::mismatch, prefix + "target FPRs differ");
  require(a.growth == b.growth, errc::mismatch, prefix + "growth factors differ");
  require(a.tightening == b.tightening, errc::mismatch, prefix + "tightening ratios differ");
  require_same_hash(a.hash, b.hash, prefix);
}

/// The one check of a scalable filter's stages against its parameters
/// (views, loading constructors and the codec): 1 to 64 stages, each with
/// the hash, capacity and design FPR of the growth plan. errc::corrupt.
template <class Stage>
void require_scalable_stages(const scalable_bloom_params& params, std::span<const Stage> stages) {
  require(!stages.empty() && stages.size() <= scalable_max_stages, errc::corrupt,
          "scalable_bloom: stage count must be in [1, 64], got " + std::to_string(stages.size()));
  for (std::uint32_t i = 0; i < stages.size(); ++i) require_stage_matches(params, i, stages[i].params());
}

/// The query and statistics code of a scalable filter, shared by
/// scalable_bloom (stages are blocked_bloom) and scalable_bloom_view (stages
/// are blocked_bloom_view): both stage types have the same members, so every
/// statistic runs over the stages in place, with no vector of stage views.
/// D provides params() and stage_span().
template <class D>
class scalable_bloom_reader : public query_facade<D> {
 public:
  static constexpr const char* kind_name = "scalable_bloom";

  /// True if any stage may contain the key with hash `h`; false: certainly not.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    const auto stages = self().stage_span();
    for (std::size_t i = stages.size(); i-- > 0;) {
      if (stages[i].may_contain_hash(h)) return true;
    }
    return false;
  }

  /// The batch core: each stage answers a chunk of hashes with its own
  /// prefetching kernel, newest first; results are OR-ed.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    const auto stages = self().stage_span();
    constexpr std::size_t chunk = 256;
    std::uint64_t hashes[chunk];
    bool partial[chunk];
    for (std::size_t start = 0; start < n; start += chunk) {
      const std::size_t m = std::min(chunk, n - start);
      for (std::size_t j = 0; j < m; ++j) {
        hashes[j] = hash_at(start + j);
        out[start + j] = false;
      }
      for (std::size_t s = stages.size(); s-- > 0;) {
        stages[s].may_contain_many(std::span<const std::uint64_t>(hashes, m), std::span<bool>(partial, m));
        for (std::size_t j = 0; j < m; ++j) out[start + j] = out[start + j] || partial[j];
      }
    }
  }

  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] double target_fpr() const noexcept { return self().params().target_fpr; }
  /// Number of stages (at least 1).
  [[nodiscard]] std::size_t stages() const noexcept { return self().stage_span().size(); }
  /// Stage i, 0 the oldest. Precondition: i < stages().
  [[nodiscard]] const auto& stage(std::size_t i) const noexcept { return self().stage_span()[i]; }

  /// Keys the present stages hold at design load (sum of their capacities);
  /// more keys open a new stage.
  [[nodiscard]] std::uint64_t capacity() const noexcept {
    return sum([](const auto& s) { return s.capacity(); });
  }
  /// Insert calls counted over all stages.
  [[nodiscard]] std::uint64_t inserted() const noexcept {
    return sum([](const auto& s) { return s.inserted(); });
  }
  /// Bits over all stages.
  [[nodiscard]] std::uint64_t total_bits() const noexcept {
    return sum([](const auto& s) { return s.bit_count(); });
  }
  /// total_bits() under the name every bit-array filter uses (for tools).
  [[nodiscard]] std::uint64_t bit_count() const noexcept { return total_bits(); }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return total_bits() / 8; }
  [[nodiscard]] std::uint64_t set_bit_count() const noexcept {
    return sum([](const auto& s) { return s.set_bit_count(); });
  }
  /// Fraction of all bits set. O(size).
  [[nodiscard]] double fill_ratio() const noexcept {
    return static_cast<double>(set_bit_count()) / static_cast<double>(total_bits());
  }
  /// Sum of the stages' distinct-key estimates. O(size).
  [[nodiscard]] double estimated_cardinality() const noexcept {
    double total = 0.0;
    for (const auto& s : self().stage_span()) total += s.estimated_cardinality();
    return total;
  }
  /// FPR for the bits set now: 1 - prod (1 - stage estimated_fpr). O(size).
  [[nodiscard]] double estimated_fpr() const {
    return compound([](const auto& s) { return s.estimated_fpr(); });
  }
  /// The model FPR with every present stage at its capacity:
  /// 1 - prod (1 - stage design_fpr) (each at most p_i).
  [[nodiscard]] double design_fpr() const {
    return compound([](const auto& s) { return s.design_fpr(); });
  }
  /// The compound bound of the present stages' design rates,
  /// 1 - prod (1 - p_i) <= P (1 - r^stages) < target_fpr().
  [[nodiscard]] double fpr_bound() const {
    return compound([](const auto& s) { return s.target_fpr(); });
  }
  /// True when some stage holds more keys than its capacity (possible only
  /// after merge); growth itself never saturates the filter.
  [[nodiscard]] bool saturated() const noexcept {
    const auto stages = self().stage_span();
    return std::any_of(stages.begin(), stages.end(), [](const auto& s) { return s.saturated(); });
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
  template <class F>
  std::uint64_t sum(F&& f) const noexcept {
    std::uint64_t total = 0;
    for (const auto& s : self().stage_span()) total += f(s);
    return total;
  }
  /// 1 - prod_i (1 - f_i) for per-stage rates f_i.
  template <class F>
  double compound(F&& per_stage) const {
    // 1 - prod (1 - p_i) as -expm1(sum log1p(-p_i)): the same value, without
    // rounding 1 - p_i to 1 when p_i is below 1e-16.
    double log_pass_all = 0.0;
    for (const auto& s : self().stage_span()) log_pass_all += std::log1p(-per_stage(s));
    return -std::expm1(log_pass_all);
  }
};

}  // namespace detail

/// A read-only scalable filter over borrowed stages (each a blocked_bloom_view
/// over borrowed blocks, e.g. from a mapped file). Queries and statistics
/// are detail::scalable_bloom_reader's; the blocks must outlive it.
class scalable_bloom_view : public detail::scalable_bloom_reader<scalable_bloom_view> {
 public:
  /// Views `stages` as the stages of a filter with `params`. Throws
  /// bloomkit::error: invalid_argument for bad params, corrupt when there
  /// are no stages or more than 64, or a stage's hash, capacity or design FPR
  /// differs from the growth plan.
  scalable_bloom_view(const scalable_bloom_params& params, std::vector<blocked_bloom_view> stages)
      : params_(params), stages_(std::move(stages)) {
    detail::validate(params_);
    detail::require_scalable_stages(params_, std::span<const blocked_bloom_view>(stages_));
  }
  scalable_bloom_view(detail::trusted_t, const scalable_bloom_params& params,
                      std::vector<blocked_bloom_view> stages) noexcept
      : params_(params), stages_(std::move(stages)) {}

  [[nodiscard]] const scalable_bloom_params& params() const noexcept { return params_; }
  /// The stages, oldest first.
  [[nodiscard]] std::span<const blocked_bloom_view> stage_span() const noexcept { return stages_; }
  [[nodiscard]] std::span<const blocked_bloom_view> stage_views() const noexcept { return stages_; }

 private:
  scalable_bloom_params params_;
  std::vector<blocked_bloom_view> stages_;
};

/// An owning scalable Bloom filter (see the header comment). Starts with one
/// stage of initial_capacity keys and adds stages as needed.
class scalable_bloom : public detail::scalable_bloom_reader<scalable_bloom>,
                       public detail::insert_facade<scalable_bloom> {
 public:
  using view_type = scalable_bloom_view;

  /// A filter whose FPR stays below `target_fpr` for any number of keys,
  /// starting with room for `initial_capacity` keys. Throws
  /// errc::invalid_argument for parameters out of their domains (see
  /// scalable_bloom_params).
  scalable_bloom(std::uint64_t initial_capacity, double target_fpr, hash_spec hash = {}, double growth = 2.0,
                 double tightening = 0.85)
      : scalable_bloom(scalable_bloom_params{initial_capacity, target_fpr, growth, tightening, hash}) {}

  /// An empty filter (one empty stage) with these parameters (validated).
  explicit scalable_bloom(const scalable_bloom_params& params) : params_(params) {
    detail::validate(params_);
    add_stage();
  }

  /// A filter from existing stages (loading); validated like a view.
  scalable_bloom(const scalable_bloom_params& params, std::vector<blocked_bloom> stages)
      : params_(params), stages_(std::move(stages)) {
    detail::validate(params_);
    detail::require_scalable_stages(params_, std::span<const blocked_bloom>(stages_));
  }

  /// Capacity of stage i under `params`: n_0 s^i rounded up step by step.
  /// Throws errc::unsupported past 2^40 keys.
  static std::uint64_t stage_capacity(const scalable_bloom_params& params, std::uint32_t i) {
    detail::validate(params);
    return detail::scalable_stage_capacity(params, i);
  }
  /// Design FPR of stage i under `params`: P (1 - r) r^i.
  static double stage_fpr(const scalable_bloom_params& params, std::uint32_t i) {
    detail::validate(params);
    return detail::scalable_stage_fpr(params, i);
  }
  /// The blocked_bloom parameters of stage i (blocked sizing for n_i, p_i).
  static block_filter_params stage_params(const scalable_bloom_params& params, std::uint32_t i) {
    return blocked_bloom::plan_params(stage_capacity(params, i), stage_fpr(params, i), params.hash);
  }

  /// Builds every stage that `n` more inserts could open (the ones beyond
  /// the newest stage's room), so that n inserts after it cannot fail:
  /// plan first, then commit. The stages wait in a spare list that no query,
  /// statistic or saved file sees, and the next stages opened are taken from
  /// it. Throws errc::unsupported (a 65th stage, a stage over 2^40 keys),
  /// errc::invalid_argument (a stage FPR P (1 - r) r^i that no blocked
  /// layout reaches) or std::bad_alloc, the filter unchanged. Every batch
  /// insert calls it first, so a failed batch changes nothing.
  void reserve_inserts(std::uint64_t n) {
    const blocked_bloom& last = stages_.back();
    const std::uint64_t room = last.inserted() >= last.capacity() ? 0 : last.capacity() - last.inserted();
    if (n <= room) return;
    n -= room;
    std::size_t needed = 0;  // spare_[j] is stage stages_.size() + j
    while (n > 0) {
      if (needed == spare_.size()) spare_.push_back(build_stage(static_cast<std::uint32_t>(stages_.size() + needed)));
      n -= std::min(n, spare_[needed].capacity());
      ++needed;
    }
    // Opening a stage must not allocate either (a push_back that cannot grow).
    stages_.reserve(stages_.size() + needed);
  }

  /// Adds the key with hash `h` to the newest stage, first opening a new one
  /// if the newest holds its capacity. Throws errc::unsupported when a 65th
  /// stage or a stage over 2^40 keys would be needed, and std::bad_alloc;
  /// nothing changes then.
  void insert_hash(std::uint64_t h) {
    if (stages_.back().inserted() >= stages_.back().capacity()) add_stage();
    stages_.back().insert_hash(h);
  }
  /// Test-and-add: false (nothing changed) when some stage may hold the
  /// key; otherwise inserts it into the newest stage (opening one when it
  /// is full) and returns true. The older stages are only read; the newest
  /// stage's test and set are two passes over its block.
  bool insert_if_absent_hash(std::uint64_t h) {
    if (this->may_contain_hash(h)) return false;
    insert_hash(h);
    return true;
  }
  /// insert_if_absent_hash on every hash, in order (insert_facade's), after
  /// reserve_inserts for the worst case, every key new: a batch that could
  /// need a stage that cannot be opened is refused whole, changing nothing.
  std::vector<std::uint64_t> insert_if_absent_many(std::span<const std::uint64_t> hashes) {
    reserve_inserts(hashes.size());
    return detail::insert_facade<scalable_bloom>::insert_if_absent_many(hashes);
  }

  /// The batch insert core: reserve_inserts(n) (a batch that cannot be
  /// completed fails before changing anything), then fills the newest stage
  /// up to its capacity with its own batched (prefetching) insert, opens the
  /// next, and so on.
  template <class HashAt>
  void insert_pipelined(std::size_t n, HashAt hash_at) {
    reserve_inserts(n);
    std::size_t done = 0;
    while (done < n) {
      if (stages_.back().inserted() >= stages_.back().capacity()) add_stage();
      auto& last = stages_.back();
      const std::uint64_t room = last.capacity() - last.inserted();
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(room, n - done));
      last.insert_pipelined(take, [&hash_at, done](std::size_t i) { return hash_at(done + i); });
      done += take;
    }
  }

  /// Union: stage i |= other's stage i; other's stages beyond ours are
  /// copied. Throws errc::mismatch unless every scalable parameter and the
  /// hash are equal (then the stages have equal shapes). Each stage's count
  /// follows the rule of a union (blocked_bloom::merge; a copied stage is
  /// the union with an empty one: its count and accuracy as they were). A
  /// merged stage may hold more than its capacity: saturated() and
  /// estimated_fpr() say so, and fpr_bound() no longer applies to it.
  scalable_bloom& merge(const scalable_bloom_view& other) {
    detail::require_same_growth(params_, other.params(), "merge");
    if (other.stages() > stages_.size()) spare_.clear();  // they were built for the stage numbers merge fills
    for (std::size_t i = 0; i < other.stages(); ++i) {
      const blocked_bloom_view& theirs = other.stage(i);
      if (i < stages_.size()) {
        stages_[i].merge(theirs);
      } else {
        stages_.emplace_back(theirs.params(),
                             std::vector<detail::block512>(theirs.blocks().begin(), theirs.blocks().end()),
                             theirs.inserted(), theirs.inserted_accuracy());
      }
    }
    return *this;
  }
  scalable_bloom& merge(const scalable_bloom& other) { return merge(other.view()); }

  /// Back to one empty stage (memory of the later stages released).
  void clear() {
    stages_.clear();
    spare_.clear();
    add_stage();
  }

  /// A read-only view (allocates a vector of stage views; valid while this
  /// filter lives and gains no stage).
  [[nodiscard]] scalable_bloom_view view() const {
    std::vector<blocked_bloom_view> views;
    views.reserve(stages_.size());
    for (const auto& s : stages_) views.push_back(s.view());
    return scalable_bloom_view(detail::trusted, params_, std::move(views));
  }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "scalable_bloom");
    for (auto& stage : stages_) stage.adopt_key_type(type);  // every stage hashes as the filter does
  }
  [[nodiscard]] const scalable_bloom_params& params() const noexcept { return params_; }
  /// The stages, oldest first.
  [[nodiscard]] std::span<const blocked_bloom> stage_span() const noexcept { return stages_; }

 private:
  /// Stage `index`, empty. Throws as reserve_inserts says.
  blocked_bloom build_stage(std::uint32_t index) const {
    detail::require(index < detail::scalable_max_stages, errc::unsupported,
                    "scalable_bloom: all 64 stages are full; build with a larger initial capacity or growth factor");
    return blocked_bloom(stage_params(params_, index));
  }
  /// Opens the next stage: the spare one reserve_inserts built, else a new one.
  void add_stage() {
    if (!spare_.empty()) {
      stages_.push_back(std::move(spare_.front()));
      spare_.erase(spare_.begin());
      return;
    }
    stages_.push_back(build_stage(static_cast<std::uint32_t>(stages_.size())));
  }

  scalable_bloom_params params_;
  std::vector<blocked_bloom> stages_;
  /// Stages built ahead by reserve_inserts: spare_[j] is stage stages_.size() + j.
  std::vector<blocked_bloom> spare_;
};

/// scalable_bloom's facts (filter.hpp).
template <>
struct kind_traits<scalable_bloom> {
  static constexpr filter_kind kind = filter_kind::scalable_bloom;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "scalable";
  static constexpr std::string_view summary =
      "grows by blocked stages (x2 keys, x0.85 FPR each): stays under --fpr past --capacity";
  static constexpr std::string_view python_class = "ScalableBloom";
  static constexpr hash_spec default_hash = hash_spec{};
  static constexpr bool is_static = false;
  static constexpr bool grows = true;
  static constexpr bool removes = false;
  static constexpr bool merges = true;
  static constexpr bool windows = false;
};
template <>
struct kind_traits<scalable_bloom_view> : kind_traits<scalable_bloom> {};

static_assert(incremental_filter<scalable_bloom> && filter<scalable_bloom_view>);

}  // namespace bloomkit
