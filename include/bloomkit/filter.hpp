// bloomkit/filter.hpp - what every filter and view shares, as types: the
// `filter` concept (the contract of DESIGN.md, "Public API shape"), the
// optional capabilities a kind may add, the kind ids, and kind_traits, the
// one place a kind states its facts: file-format id, names (file, CLI,
// Python class), help line, default hash and key type, capabilities (static,
// grows, removes, merges, windows) and how a target FPR picks its parameters.
//
// Every kind header specialises kind_traits for its owning type and view
// and checks itself against `filter` with a static_assert; tools (the CLI,
// the playground, the bindings) ask these traits and concepts instead of
// guessing with requires-expressions or kind names.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"

namespace bloomkit {

/// The kind ids a bloomkit file stores (docs/FORMAT.md). Never renumbered;
/// a new kind takes the next id.
enum class filter_kind : std::uint8_t {
  standard_bloom = 1,
  blocked_bloom = 2,
  split_block_bloom = 3,
  counting_bloom = 4,
  scalable_bloom = 5,
  binary_fuse = 6,
  ribbon = 7,
  cuckoo_filter = 8,
  age_partitioned_bloom = 9,
};

/// The kind's name, e.g. "blocked_bloom" (kind_traits<F>::name spells the same).
constexpr std::string_view to_string(filter_kind kind) noexcept {
  switch (kind) {
    case filter_kind::standard_bloom: return "standard_bloom";
    case filter_kind::blocked_bloom: return "blocked_bloom";
    case filter_kind::split_block_bloom: return "split_block_bloom";
    case filter_kind::counting_bloom: return "counting_bloom";
    case filter_kind::scalable_bloom: return "scalable_bloom";
    case filter_kind::binary_fuse: return "binary_fuse";
    case filter_kind::ribbon: return "ribbon";
    case filter_kind::cuckoo_filter: return "cuckoo_filter";
    case filter_kind::age_partitioned_bloom: return "age_partitioned_bloom";
  }
  return "unknown";
}

/// What a filter's inserted() is. Insert calls are counted exactly, but
/// set algebra and foreign formats lose the count: an intersection of two
/// filters holds at most min(a, b) of their keys (often far fewer), and a
/// filter read from a Parquet file only has the distinct values its bits
/// suggest. Files record which (docs/FORMAT.md, "flags"), so a tool never
/// prints a bound or a guess as a count.
enum class count_accuracy : std::uint8_t {
  exact = 0,      ///< insert calls counted (duplicates included; merges add)
  at_most = 1,    ///< an upper bound of the keys held (an intersection's smaller input count)
  estimated = 2,  ///< an estimate of the distinct keys (for example from the bits set)
};

/// "exact", "at_most" or "estimated" (what `bloomkit info --json` prints).
constexpr std::string_view to_string(count_accuracy a) noexcept {
  switch (a) {
    case count_accuracy::exact: return "exact";
    case count_accuracy::at_most: return "at_most";
    case count_accuracy::estimated: return "estimated";
  }
  return "unknown";
}

/// The accuracy of a sum of two counts (a merge, or inserts after a bound):
/// an estimate stays an estimate, a bound plus a count is a bound.
constexpr count_accuracy combine_sum(count_accuracy a, count_accuracy b) noexcept {
  return static_cast<count_accuracy>(std::max(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
}
/// The accuracy of an intersection's min(a, b): at best an upper bound.
constexpr count_accuracy combine_min(count_accuracy a, count_accuracy b) noexcept {
  return combine_sum(combine_sum(a, b), count_accuracy::at_most);
}

/// The facts of one kind, specialised in the kind's header for its owning
/// type (and inherited by its view). They are the only place a kind states
/// them: the file format, the CLI, the Python bindings and the playground
/// read them through the list of kinds (any_filter, format/registry.hpp)
/// and never name a kind to decide what it can do.
///
///   kind            filter_kind, the id files store
///   name            to_string(kind), the name files and `bloomkit info` use
///   cli_name        the `bloomkit build --kind` spelling ("split-block")
///   summary         one line for the CLI's --help
///   python_class    the class the Python package binds ("SplitBlockBloom")
///   default_hash    the hash_spec the kind uses unless told otherwise (its
///                   algorithm, seed and key type)
///   is_static       built once from the whole key set (no insert)
///   grows           adds capacity as keys arrive (never saturates by design)
///   removes         takes keys out again (remove_hash; removable_filter)
///   merges          combines with a filter of its shape by union (merge)
///   windows         remembers only the most recent keys (a sliding window)
///   stores_repeats  [optional, default false] a multiset: a key inserted d
///                   times is held d times, so its capacity counts inserts;
///                   for every other kind a capacity counts distinct keys
///                   (docs/KEYS.md "Capacity")
///   no_merge_reason [optional] why an incremental kind refuses merge and
///                   intersect (tools print it)
///   lowest_fpr()    [optional] incremental kinds whose planner has a floor:
///                   the lowest target FPR it reaches, with lowest_fpr_reason
///                   saying why ({} stands for the figure)
///   min_fpr         the smallest target FPR its parameters reach (static kinds)
///   fpr_bits(p)     static kinds: the fingerprint / result width for target p
///   build(...)      static kinds: the filter over a hash set at a target FPR
template <class F>
struct kind_traits;

/// The traits as a value, for code that picks a kind at run time.
struct kind_info {
  filter_kind kind{};
  std::string_view name;
  std::string_view cli_name;
  std::string_view summary;
  std::string_view python_class;
  hash_spec default_hash{};
  bool is_static = false;
  bool grows = false;
  bool removes = false;
  bool merges = false;
  bool windows = false;
  bool stores_repeats = false;
  std::string_view no_merge_reason;  ///< empty where the kind merges or is static
  double (*lowest_fpr)() noexcept = nullptr;  ///< null where an incremental kind reaches any FPR
  std::string_view lowest_fpr_reason;
  /// Takes keys one at a time (every kind that is not static).
  constexpr bool inserts() const noexcept { return !is_static; }
};

/// kind_traits<F>::stores_repeats, false where the kind does not declare it.
template <class F>
inline constexpr bool stores_repeats_v = [] {
  if constexpr (requires { kind_traits<F>::stores_repeats; }) {
    return kind_traits<F>::stores_repeats;
  } else {
    return false;
  }
}();

/// kind_traits<F>::no_merge_reason, empty where the kind does not declare it.
template <class F>
inline constexpr std::string_view no_merge_reason_v = [] {
  if constexpr (requires { kind_traits<F>::no_merge_reason; }) {
    return std::string_view(kind_traits<F>::no_merge_reason);
  } else {
    return std::string_view();
  }
}();

/// kind_traits<F> as a kind_info.
template <class F>
constexpr kind_info info_of() noexcept {
  using T = kind_traits<F>;
  kind_info info{T::kind,      T::name,      T::cli_name, T::summary, T::python_class,
                 T::default_hash, T::is_static, T::grows,    T::removes, T::merges,
                 T::windows,   stores_repeats_v<F>, no_merge_reason_v<F>, nullptr, {}};
  if constexpr (requires { T::lowest_fpr(); }) {
    info.lowest_fpr = &T::lowest_fpr;
    info.lowest_fpr_reason = T::lowest_fpr_reason;
  }
  return info;
}

/// The contract every filter and every view satisfies: hash-based and
/// key-based queries, the batch query, its hash_spec and parameters, and the
/// state a user can ask for (DESIGN.md, "Public API shape"). Batch names:
/// `_many` takes precomputed hashes (may_contain_many(hashes, out)), `_keys`
/// takes keys (may_contain_keys); Python's `may_contain_many` takes keys and
/// its `may_contain_hashes` takes hashes (README, "One contract for every kind").
template <class F>
concept filter = requires(const F& f, std::uint64_t h, std::span<const std::uint64_t> hashes, std::span<bool> out) {
  { kind_traits<F>::kind } -> std::convertible_to<filter_kind>;
  { f.may_contain_hash(h) } -> std::same_as<bool>;
  { f.may_contain(std::uint64_t{}) } -> std::same_as<bool>;
  f.may_contain_many(hashes, out);
  { f.hash() } -> std::same_as<hash_spec>;
  f.params();
  { f.size_in_bytes() } -> std::convertible_to<std::uint64_t>;
  { f.capacity() } -> std::convertible_to<std::uint64_t>;
  { f.inserted() } -> std::convertible_to<std::uint64_t>;
  { f.target_fpr() } -> std::convertible_to<double>;
  { f.design_fpr() } -> std::convertible_to<double>;
  { f.estimated_fpr() } -> std::convertible_to<double>;
  { f.estimated_cardinality() } -> std::convertible_to<double>;
  { f.saturated() } -> std::same_as<bool>;
};

/// An owning filter: a filter with a zero-copy view of the same kind.
template <class F>
concept owning_filter = filter<F> && requires(const F& f) {
  typename F::view_type;
  { f.view() } -> std::same_as<typename F::view_type>;
} && filter<typename F::view_type>;

/// A filter that takes keys one at a time (not a static kind). insert_hash,
/// insert_many (and the facade's insert, insert_keys) return nothing: they
/// add every key or throw bloomkit::error; a kind whose insert can fail
/// offers the answering form under a try_ name (fallible_insert below).
template <class F>
concept incremental_filter = owning_filter<F> && requires(F& f, std::uint64_t h, std::span<const std::uint64_t> hs) {
  { f.insert_hash(h) } -> std::same_as<void>;
  { f.insert_many(hs) } -> std::same_as<void>;
  f.clear();
};

/// A filter that takes keys out again (kind_traits<F>::removes): remove_hash
/// takes one occurrence out, count_estimate_hash bounds how often a key was
/// inserted.
template <class F>
concept removable_filter = incremental_filter<F> && requires(F& f, const F& c, std::uint64_t h) {
  f.remove_hash(h);
  c.count_estimate_hash(h);
};

/// An incremental filter whose insert can fail (a full table): besides the
/// throwing insert_hash it answers through try_insert_hash.
template <class F>
concept fallible_insert = incremental_filter<F> && requires(F& f, std::uint64_t h) { f.try_insert_hash(h); };

/// A filter (or view) of a kind that remembers only its most recent keys
/// (kind_traits<F>::windows): its answers depend on where the window stands.
template <class F>
concept windowed_filter = filter<F> && kind_traits<F>::windows;

/// Filters of one shape that combine by union (OR) with a filter or view.
template <class F, class Other>
concept mergeable_with = requires(F& f, const Other& other) { f.merge(other); };
/// Filters of one shape that combine by intersection (AND).
template <class F, class Other>
concept intersectable_with = requires(F& f, const Other& other) { f.intersect(other); };

/// Kinds with a bit array of bit_count() bits (not counting, not the static kinds).
template <class F>
concept has_bit_array = requires(const F& f) { { f.bit_count() } -> std::convertible_to<std::uint64_t>; };
/// Kinds whose state is a fill (bits or counters set): the Bloom family.
template <class F>
concept has_fill_ratio = requires(const F& f) { { f.fill_ratio() } -> std::convertible_to<double>; };
/// Kinds with a fixed number of probes per key.
template <class F>
concept has_probe_count = requires(const F& f) { { f.num_hashes() } -> std::convertible_to<std::uint64_t>; };
/// Block-shaped kinds (one block per key).
template <class F>
concept has_blocks = requires(const F& f) { { f.num_blocks() } -> std::convertible_to<std::uint64_t>; };
/// Kinds that can list where a key's probes go (for pictures and teaching):
/// bit (or counter) positions appended to a vector.
template <class F>
concept has_probe_positions = requires(const F& f, std::uint64_t h, std::vector<std::uint64_t>& out) {
  f.probe_positions(h, out);
};

namespace fpr_rule {

/// The narrowest binary fuse fingerprint width whose FPR 2^-f is at or below
/// target_fpr: 8 bits down to 1/256, else 16 (the CLI's rule since the kind
/// was added; callers refuse targets below 2^-16 first).
constexpr std::uint32_t binary_fuse_bits(double target_fpr) noexcept { return target_fpr >= 1.0 / 256 ? 8 : 16; }

/// The smallest Ribbon result width r with 2^-r <= target_fpr, in [1, 16]
/// (the epsilon keeps 2^-7 at r = 7).
inline std::uint32_t ribbon_bits(double target_fpr) noexcept {
  return static_cast<std::uint32_t>(std::clamp(std::ceil(-std::log2(target_fpr) - 1e-9), 1.0, 16.0));
}

}  // namespace fpr_rule

}  // namespace bloomkit
