// tools/bloomkit/info.cpp - `bloomkit info FILE [--json]`: what a filter file
// holds and how full it is.
//
// inspect() reads the header and checks both checksums without throwing on a
// mismatch, so a damaged file is still described (with its checksum flagged
// and exit code 2); a file too broken to parse is a plain error (exit 2).
// The statistics (fill ratio, estimated cardinality and FPR, saturation) come
// from a zero-copy view of the mapped file.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "bloomkit/file_format.hpp"
#include "commands.hpp"
#include "filter_summary.hpp"
#include "json_out.hpp"
#include "signals.hpp"
#include "jvm_formats.hpp"

namespace bloomkit::cli {

namespace {

struct info_options {
  std::string file;
  bool json = false;
};

std::string format_double(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

std::string percent(double p) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g%%", 100 * p);
  return buffer;
}

void row(const char* name, const std::string& value) { std::printf("%-22s %s\n", name, value.c_str()); }

/// The plain-words verdict on saturation (also used by the tests).
std::string saturation_words(const filter_summary& s) {
  if (!s.saturated) return "no";
  return "YES: this filter holds more keys than it was sized for (" + std::to_string(s.inserted) +
         " inserted, capacity " + std::to_string(s.capacity) + "); it now answers \"maybe\" for about " +
         percent(s.estimated_fpr) + " of absent keys instead of the designed " + percent(s.target_fpr) +
         ". Rebuild it with a larger --capacity.";
}

std::string hash_words(hash_spec h) {
  return std::string(to_string(h.algorithm)) + ", seed " + std::to_string(h.seed);
}

/// The capacity row: keys for most kinds (a scalable filter's over all its
/// stages: the header records the first stage's design); for a window the
/// window it keeps, in keys or, for a time window, in seconds (when the
/// file records that unit) or the caller's time units.
std::string capacity_words(const file_info& info, const std::optional<filter_summary>& summary) {
  const std::uint64_t capacity = summary ? summary->capacity : info.capacity;
  if (info.kind == filter_kind::age_partitioned_bloom) {
    // The unit comes from the header's own fields, so a damaged file (no summary) is described truly too.
    std::uint64_t generation_time = 0, generation_keys = 0, l = 0, time_unit = 0;
    for (const auto& p : info.params) {
      if (const auto* v = std::get_if<std::uint64_t>(&p.value)) {
        if (p.name == "generation_time") generation_time = *v;
        if (p.name == "generation_keys") generation_keys = *v;
        if (p.name == "l") l = *v;
        if (p.name == "time_unit") time_unit = *v;
      }
    }
    if (generation_time != 0) {
      // Seconds only where the file says so (bloomkit build --window-seconds);
      // a window built on another clock (Python's time_window, files before
      // format version 3) counts units the file does not name.
      const bool seconds = time_unit == static_cast<std::uint64_t>(apbf_time_unit::seconds);
      const std::string unit = seconds ? " seconds" : " time units";
      return std::to_string(capacity) + unit + " (a time window: keys of the last " + std::to_string(capacity) + unit +
             "; generations of " + std::to_string(generation_time) + unit + ", planned for " +
             std::to_string(l * generation_keys) + " keys per window" +
             (seconds ? ")" : "; the unit is the caller's clock, not recorded in the file)");
    }
    return std::to_string(capacity) + " keys (a count window: the last " + std::to_string(capacity) +
           " keys are always reported)";
  }
  return std::to_string(capacity) + " keys" +
         (summary && summary->capacity != info.capacity
              ? " (all stages; the first was sized for " + std::to_string(info.capacity) + ")"
              : "");
}

std::string checksum_words(const file_info& info) {
  if (info.checksum_ok) return "ok";
  std::string which = !info.header_checksum_ok && !info.payload_checksum_ok ? "header and payload"
                      : !info.header_checksum_ok                             ? "header"
                                                                             : "payload";
  return "MISMATCH in the " + which + ": the file was damaged or altered after it was written; do not trust it";
}

int run_info(const info_options& o) {
  if (is_jvm_filter_file(o.file)) return run_jvm_info(o.file, o.json);
  const file_info info = inspect(std::filesystem::path(o.file));

  std::optional<filter_summary> summary;
  if (info.checksum_ok) {
    // inspect() has verified the payload checksum; skip the second pass.
    note_mapped_file(o.file.c_str());  // a SIGBUS from here on names it (signals.hpp)
    const mapped_filter mapped = open_mapped(o.file, payload_check::skip);
    summary = summarize(mapped.filter);
  }

  if (o.json) {
    json_object line;
    if (summary) {
      line = summary_json(*summary);
    } else {
      // Header facts only: the statistics of a damaged payload mean nothing.
      line.field("kind", to_string(info.kind))
          .field("hash", to_string(info.hash.algorithm))
          .field("seed", info.hash.seed)
          .field("key_type", to_string(info.key_type))
          .field("capacity", info.capacity)
          .field("target_fpr", info.target_fpr)
          .field("inserted", info.inserted)
          .field("inserted_accuracy", to_string(info.inserted_accuracy));
    }
    line.field("file", o.file)
        .field("format_version", info.version)
        .field("file_bytes", info.file_bytes)
        .field("checksum_ok", info.checksum_ok);
    std::fputs(line.line().c_str(), stdout);
  } else {
    row("file", o.file);
    row("kind", std::string(to_string(info.kind)));
    row("format version", std::to_string(info.version));
    row("hash", hash_words(info.hash));
    row("key type", std::string(to_string(info.key_type)) +
                        (info.key_type == key_type::unspecified ? " (keys are hashed as given: a file from before "
                                                                  "key types, or one built from hashes)"
                                                                : ""));
    for (const auto& p : info.params) {
      const std::string value = std::holds_alternative<std::uint64_t>(p.value)
                                    ? std::to_string(std::get<std::uint64_t>(p.value))
                                    : format_double(std::get<double>(p.value));
      // A ribbon's layout is a number in the file (1 = bumped, BuRR); say it in words.
      const bool layout = info.kind == filter_kind::ribbon && p.name == "layout" && value == "1";
      row(p.name.c_str(), layout ? value + " (bumped: BuRR layers, format version 4)" : value);
    }
    row("capacity", capacity_words(info, summary));
    row("target FPR", percent(info.target_fpr));
    row("inserted", inserted_words(info.inserted, info.inserted_accuracy));
    row("file size", std::to_string(info.file_bytes) + " bytes (payload " + std::to_string(info.payload_bytes) + ")");
    if (summary) {
      row("bits per key", format_double(summary->bits_per_key()) +
                              (summary->window_keys ? " (at the " + std::to_string(*summary->window_keys) +
                                                          " keys the window is planned for)"
                                                    : std::string(" (at capacity)")));
      const bool counters = info.kind == filter_kind::counting_bloom;
      if (summary->fill_ratio) {
        row("fill ratio", percent(*summary->fill_ratio) + (counters ? " of counters non-zero" : " of bits set"));
      }
      row("est. cardinality", std::isfinite(summary->estimated_cardinality)
                                  ? format_double(summary->estimated_cardinality) + " distinct keys"
                                  : std::string(counters ? "unknown (every counter is non-zero)"
                                                         : "unknown (the filter is full: every bit of a block is set)"));
      row("estimated FPR", percent(summary->estimated_fpr) + " (for the bits set now)");
      row("design FPR", percent(summary->design_fpr) + " (at capacity)");
      row("saturated", saturation_words(*summary));
    }
    row("checksum", checksum_words(info));
  }
  if (!info.checksum_ok) {
    std::fprintf(stderr, "bloomkit: %s: checksum mismatch in the %s\n", o.file.c_str(),
                 !info.header_checksum_ok ? "header" : "payload");
    return exit_data;
  }
  if (summary && summary->saturated && o.json) {
    std::fprintf(stderr, "bloomkit: warning: %s is saturated: %s\n", o.file.c_str(),
                 saturation_words(*summary).c_str() + 5);
  }
  return exit_ok;
}

}  // namespace

void register_info(CLI::App& app, command_table& table) {
  auto o = std::make_shared<info_options>();
  CLI::App* sub = app.add_subcommand("info", "Describe a filter file: kind, parameters, fill, FPR now, saturation");
  sub->footer(
      "Examples:\n"
      "  bloomkit info keys.bkf\n"
      "  bloomkit info keys.bkf --json | jq .estimated_fpr\n\n"
      "Exit code 2 when the file is damaged (the checksum does not match) or cannot be read.");
  sub->add_option("file", o->file, "the filter file")->required();
  sub->add_flag("--json", o->json, "one JSON object (fields listed in README.md)");
  table.emplace_back(sub, [o] { return run_info(*o); });
}

}  // namespace bloomkit::cli
