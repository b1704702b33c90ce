// tools/bloomkit/filter_summary.hpp - what `info` and `build --json` report
// about a filter, gathered the same way for every kind.
//
// Every field comes from the `filter` concept (bloomkit/filter.hpp); the
// optional ones from the named capabilities a kind has (has_bit_array,
// has_probe_count, has_blocks), so a kind added later shows up with whatever
// it offers and null for the rest (e.g. k for a binary fuse filter) without
// a change here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "bloomkit/file_format.hpp"
#include "json_out.hpp"

namespace bloomkit::cli {

struct filter_summary {
  std::string kind;                     ///< to_string(filter_kind), e.g. "blocked_bloom"
  std::optional<std::uint64_t> bits;    ///< bits of the filter's bit array, if it has one
  std::optional<std::uint64_t> k;       ///< probes per key, where that applies
  std::optional<std::uint64_t> blocks;  ///< blocks, for blocked layouts
  hash_spec hash{};
  std::uint64_t capacity = 0;
  double target_fpr = 0;
  std::uint64_t inserted = 0;
  /// What `inserted` is: a count, an upper bound (an intersection) or an estimate.
  count_accuracy inserted_accuracy = count_accuracy::exact;
  std::uint64_t size_bytes = 0;
  std::optional<double> fill_ratio;
  double estimated_cardinality = 0;  ///< may be +infinity (every bit set)
  double estimated_fpr = 0;
  double design_fpr = 0;
  bool saturated = false;
  /// Time windows: `capacity` counts time units, not keys, and window_keys
  /// is what the window is planned to hold, l g keys (one generation of g
  /// keys per generation_time, l of them). capacity_unit says which unit:
  /// "seconds" where the file records it (bloomkit build --window-seconds),
  /// else "time_units" (the caller's clock: Python's time_window, files
  /// written before format version 3).
  bool capacity_in_time = false;
  std::string capacity_unit;
  std::optional<std::uint64_t> window_keys;
  std::optional<std::uint64_t> generation_time;
  /// Ribbon filters: "standard" or "bumped" (BuRR, format version 4).
  std::optional<std::string> layout;

  /// bits / capacity (the definition); size_bytes * 8 / capacity for
  /// a kind without a bit count; a time window's bits over its window_keys.
  [[nodiscard]] double bits_per_key() const noexcept {
    const double b = bits ? static_cast<double>(*bits) : static_cast<double>(size_bytes) * 8.0;
    const std::uint64_t keys = window_keys ? *window_keys : capacity;
    return keys > 0 ? b / static_cast<double>(keys) : 0.0;
  }
};

/// The summary of one filter or view of kind `kind`.
template <filter F>
filter_summary summarize_one(const F& f, filter_kind kind) {
  filter_summary s;
  s.kind = std::string(to_string(kind));
  if constexpr (has_bit_array<F>) s.bits = static_cast<std::uint64_t>(f.bit_count());
  if constexpr (has_probe_count<F>) s.k = static_cast<std::uint64_t>(f.num_hashes());
  if constexpr (has_blocks<F>) s.blocks = static_cast<std::uint64_t>(f.num_blocks());
  s.hash = f.hash();
  s.capacity = f.capacity();
  s.target_fpr = f.target_fpr();
  s.inserted = f.inserted();
  if constexpr (requires { f.inserted_accuracy(); }) s.inserted_accuracy = f.inserted_accuracy();
  s.size_bytes = f.size_in_bytes();
  if constexpr (has_fill_ratio<F>) s.fill_ratio = f.fill_ratio();
  s.estimated_cardinality = f.estimated_cardinality();
  s.estimated_fpr = f.estimated_fpr();
  s.design_fpr = f.design_fpr();
  s.saturated = f.saturated();
  if constexpr (windowed_filter<F>) {
    if (f.params().generation_time != 0) {
      s.capacity_in_time = true;
      s.capacity_unit = f.params().time_unit == apbf_time_unit::seconds ? "seconds" : "time_units";
      s.window_keys = std::uint64_t{f.params().l} * f.params().generation_keys;
      s.generation_time = f.params().generation_time;
    }
  }
  if constexpr (requires { f.layout(); }) {
    s.layout = f.layout() == ribbon_layout::bumped ? "bumped" : "standard";
  }
  return s;
}

inline filter_summary summarize(const any_filter& filter) {
  return std::visit([&](const auto& f) { return summarize_one(f, kind_of(filter)); }, filter);
}
inline filter_summary summarize(const any_filter_view& filter) {
  return std::visit([&](const auto& f) { return summarize_one(f, kind_of(filter)); }, filter);
}

/// The JSON fields of a summary, in the documented order (README.md,
/// "Command-line tool"): kind, bits, k, blocks, hash, seed, key_type, capacity,
/// target_fpr, inserted, inserted_accuracy, size_bytes, bits_per_key,
/// fill_ratio, estimated_cardinality, estimated_fpr, design_fpr, saturated;
/// for a time window also capacity_unit ("seconds" where the file records
/// it, else "time_units": the caller's clock) and window_keys; for a ribbon
/// also layout ("standard" or "bumped").
/// Callers may append more fields.
inline json_object summary_json(const filter_summary& s) {
  json_object o;
  o.field("kind", s.kind)
      .field("bits", s.bits)
      .field("k", s.k)
      .field("blocks", s.blocks)
      .field("hash", to_string(s.hash.algorithm))
      .field("seed", s.hash.seed)
      .field("key_type", to_string(s.hash.keys))
      .field("capacity", s.capacity)
      .field("target_fpr", s.target_fpr)
      .field("inserted", s.inserted)
      .field("inserted_accuracy", to_string(s.inserted_accuracy))
      .field("size_bytes", s.size_bytes)
      .field("bits_per_key", s.bits_per_key())
      .field("fill_ratio", s.fill_ratio)
      .field("estimated_cardinality", s.estimated_cardinality)
      .field("estimated_fpr", s.estimated_fpr)
      .field("design_fpr", s.design_fpr)
      .field("saturated", s.saturated);
  if (s.capacity_in_time) o.field("capacity_unit", s.capacity_unit).field("window_keys", s.window_keys);
  if (s.layout) o.field("layout", *s.layout);
  return o;
}

/// `inserted` in words for people: "1200 (insert calls, duplicates
/// included)", "at most 300 (...)" or "about 3030 (...)".
inline std::string inserted_words(std::uint64_t inserted, count_accuracy accuracy) {
  switch (accuracy) {
    case count_accuracy::at_most:
      return "at most " + std::to_string(inserted) +
             " (an upper bound, not a count: an intersection holds at most its smaller input's keys, often far fewer)";
    case count_accuracy::estimated:
      return "about " + std::to_string(inserted) + " (estimated from the bits set: the source did not record a count)";
    case count_accuracy::exact:
      break;
  }
  return std::to_string(inserted) + " (insert calls, duplicates included)";
}

}  // namespace bloomkit::cli
