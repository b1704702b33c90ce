// web/file_view.hpp - the playground's file view: a bloomkit file (.bkf)
// opened in the browser, described and probed with the library's own code.
//
// The bytes go to bloomkit::load (every check a file gets anywhere: magic,
// version, lengths, both checksums, every parameter) and bloomkit::inspect
// (the header facts `bloomkit info` prints); the page parses nothing. What
// it shows comes from the loaded filter: its parameters, inserted count,
// capacity, the FPR now (estimated_fpr, from the fill) against the design
// FPR, and its fill cut into cells for a picture: one cell per block for the
// block kinds (or per run of blocks when there are too many to draw), per
// region of bits for the standard and counting filters, per slice region for
// a window, per run of buckets for a cuckoo filter. The static kinds (binary
// fuse, ribbon) solve equations rather than set bits, so they have no fill.
//
// Typed keys are converted by the file's key type as `bloomkit query` reads
// a key line when --format is not given (tools/bloomkit/key_input.hpp): text
// for bytes (and unspecified) files, a decimal integer for int64 and int32,
// a number for float64 and float32. Text that is not such a number goes to
// the library as text, so the refusal is the library's mismatch message,
// never a silent "no".
//
// No emscripten dependency: this header also compiles natively.
#pragma once

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "views.hpp"

namespace bloomkit::playground {

/// Bounds of the file view's picture.
struct file_view_limits {
  /// Cells drawn at most; more blocks (or bits) than this share a cell,
  /// which shows their mean fill.
  static constexpr std::uint64_t max_cells = 4096;
};

/// One row of the fill picture: `fills[i]` in [0, 1] is the fraction of
/// bits (counters, slots) set in cell i, each cell `cell_units` of `unit`.
struct fill_row {
  std::string label;       ///< "" for a filter drawn as one row, else "stage 2", "slice 0 (newest)", ...
  std::string unit;        ///< "block", "bit", "counter", "bucket"
  std::uint64_t cell_units = 1;
  std::vector<double> fills;
};

/// A JSON string literal of `text` (quotes, backslashes and control bytes escaped).
inline std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace detail_file {

/// Units per cell so that `units` of them fit max_cells cells (a multiple of
/// `align`, so a cell of bits covers whole words).
inline std::uint64_t units_per_cell(std::uint64_t units, std::uint64_t align = 1) {
  const std::uint64_t cells = file_view_limits::max_cells;
  std::uint64_t per = (units + cells - 1) / cells;
  per = std::max<std::uint64_t>(per, 1);
  return (per + align - 1) / align * align;
}

/// Cells of `count_set(first, n)` / n over [0, units) in steps of `per`.
template <class CountSet>
std::vector<double> cells_of(std::uint64_t units, std::uint64_t per, CountSet count_set) {
  std::vector<double> fills;
  for (std::uint64_t first = 0; first < units; first += per) {
    const std::uint64_t n = std::min(per, units - first);
    fills.push_back(static_cast<double>(count_set(first, n)) / static_cast<double>(n));
  }
  return fills;
}

/// Bits set among bits [first, first + n) of `words` (bit b is bit b % 64 of word b / 64).
inline std::uint64_t bits_set(std::span<const std::uint64_t> words, std::uint64_t first, std::uint64_t n) {
  std::uint64_t total = 0;
  for (std::uint64_t b = first; b < first + n;) {
    const std::uint64_t word = words[b / 64];
    const unsigned shift = static_cast<unsigned>(b % 64);
    const std::uint64_t take = std::min<std::uint64_t>(64 - shift, first + n - b);
    const std::uint64_t mask = take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1) << shift;
    total += static_cast<std::uint64_t>(std::popcount(word & mask));
    b += take;
  }
  return total;
}

/// Bits set in one block of a block kind (its words, whatever their width).
template <class Block>
std::uint64_t block_popcount(const Block& block) {
  std::uint64_t total = 0;
  for (const auto w : block.words) total += static_cast<std::uint64_t>(std::popcount(w));
  return total;
}

/// The per-block cells of a blocked or split-block filter (or stage).
template <class F>
fill_row block_row(const F& f, std::string label) {
  fill_row row;
  row.label = std::move(label);
  row.unit = "block";
  const auto blocks = f.blocks();
  const double bits_per_block = static_cast<double>(f.bit_count()) / static_cast<double>(f.num_blocks());
  row.cell_units = units_per_cell(blocks.size());
  for (std::uint64_t first = 0; first < blocks.size(); first += row.cell_units) {
    const std::uint64_t n = std::min<std::uint64_t>(row.cell_units, blocks.size() - first);
    std::uint64_t set = 0;
    for (std::uint64_t i = first; i < first + n; ++i) set += block_popcount(blocks[i]);
    row.fills.push_back(static_cast<double>(set) / (bits_per_block * static_cast<double>(n)));
  }
  return row;
}

/// The fill picture of any kind (empty for the static kinds).
template <class F>
std::vector<fill_row> fill_rows(const F& f) {
  std::vector<fill_row> rows;
  if constexpr (requires { f.stages(); f.stage(0).blocks(); }) {  // scalable: one row per stage
    for (std::size_t i = 0; i < f.stages(); ++i) rows.push_back(block_row(f.stage(i), "stage " + std::to_string(i)));
  } else if constexpr (requires { f.blocks(); f.num_blocks(); }) {  // blocked, split-block
    rows.push_back(block_row(f, ""));
  } else if constexpr (requires { f.slice_words(0u); f.slices(); }) {  // window: one row per slice, newest first
    const std::uint64_t bits = f.params().slice_bits;
    const std::uint64_t per = units_per_cell(bits * f.slices(), 64);
    for (std::uint32_t j = 0; j < f.slices(); ++j) {
      fill_row row;
      row.label = "slice " + std::to_string(j) + (j == 0 ? " (newest)" : j + 1 == f.slices() ? " (oldest)" : "");
      row.unit = "bit";
      row.cell_units = std::min(per, bits);
      const auto words = f.slice_words(j);
      row.fills = cells_of(bits, row.cell_units, [&](std::uint64_t a, std::uint64_t n) { return bits_set(words, a, n); });
      rows.push_back(std::move(row));
    }
  } else if constexpr (requires { f.counter(std::uint64_t{0}); }) {  // counting: non-zero counters
    fill_row row;
    row.unit = "counter";
    const std::uint64_t m = f.params().counters;
    row.cell_units = units_per_cell(m);
    row.fills = cells_of(m, row.cell_units, [&](std::uint64_t a, std::uint64_t n) {
      std::uint64_t set = 0;
      for (std::uint64_t i = a; i < a + n; ++i) set += f.counter(i) != 0;
      return set;
    });
    rows.push_back(std::move(row));
  } else if constexpr (requires { f.slot_fingerprint(std::uint64_t{0}, 0u); }) {  // cuckoo: occupied slots
    fill_row row;
    row.unit = "bucket";
    row.cell_units = units_per_cell(f.buckets());
    row.fills = cells_of(f.buckets(), row.cell_units, [&](std::uint64_t a, std::uint64_t n) {
      std::uint64_t set = 0;
      for (std::uint64_t i = a; i < a + n; ++i) {
        for (std::uint32_t j = 0; j < 4; ++j) set += f.slot_fingerprint(i, j) != 0;
      }
      return set;
    });
    for (auto& x : row.fills) x /= 4;  // four slots a bucket
    rows.push_back(std::move(row));
  } else if constexpr (requires { f.words(); f.bit_count(); }) {  // standard
    fill_row row;
    row.unit = "bit";
    const std::uint64_t m = f.bit_count();
    row.cell_units = units_per_cell(m, 64);
    const auto words = f.words();
    row.fills = cells_of(m, row.cell_units, [&](std::uint64_t a, std::uint64_t n) { return bits_set(words, a, n); });
    rows.push_back(std::move(row));
  }
  return rows;
}

/// Parses `text` whole as a signed decimal integer; false when it is not one.
inline bool parse_signed(std::string_view text, std::int64_t& out) {
  if (text.size() < 2 || text[0] != '-') return false;
  std::uint64_t magnitude = 0;
  for (const char c : text.substr(1)) {
    if (c < '0' || c > '9') return false;
    if (magnitude > (std::uint64_t{1} << 63) / 10) return false;
    magnitude = magnitude * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (magnitude > (std::uint64_t{1} << 63)) return false;
  out = magnitude == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                             : -static_cast<std::int64_t>(magnitude);
  return true;
}

/// Parses `text` whole as an unsigned decimal integer in [0, 2^64 - 1].
inline bool parse_unsigned(std::string_view text, std::uint64_t& out) {
  if (text.empty()) return false;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

/// Parses `text` whole as a double (decimal, scientific, hex-float, inf,
/// nan: what the CLI's f64 keys accept); no leading or trailing space.
inline bool parse_number(std::string_view text, double& out) {
  if (text.empty() || text.front() == ' ' || text.front() == '\t' || text.front() == '+') return false;
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return false;
  out = value;
  return true;
}

}  // namespace detail_file

/// A key typed on the page, converted by `spec.keys` and hashed as `bloomkit
/// query` hashes a key line of a file of that type. Throws the library's
/// errc::mismatch (through hash_key) when the key does not convert.
inline std::uint64_t hash_typed_key(std::string_view text, hash_spec spec) {
  switch (spec.keys) {
    case key_type::int64:
    case key_type::int32:
    case key_type::timestamp_us:
    case key_type::date32: {
      std::int64_t negative = 0;
      std::uint64_t value = 0;
      if (detail_file::parse_signed(text, negative)) return hash_key(negative, spec);
      if (detail_file::parse_unsigned(text, value)) return hash_key(value, spec);
      break;
    }
    case key_type::float64:
    case key_type::float32: {
      double value = 0;
      if (detail_file::parse_number(text, value)) return hash_key(value, spec);
      break;
    }
    case key_type::unspecified:
    case key_type::bytes: break;
  }
  return hash_key(text, spec);  // text: kept by bytes files, refused by the library for number types
}

/// A bloomkit file opened for the page.
class file_view {
 public:
  /// Loads the file in `bytes` (any kind bloomkit saves). Throws the
  /// library's bloomkit::error for anything load() or inspect() refuses: a
  /// truncated, damaged or foreign file never gets this far.
  explicit file_view(std::span<const std::byte> bytes) : filter_(load(bytes)), info_(inspect(bytes)) {}

  /// Everything the page prints, as one JSON object: kind, format_version,
  /// hash, seed, key_type, params (the file's own, by name, as text),
  /// bits, k, blocks
  /// (null where the kind has none), capacity, inserted, inserted_accuracy,
  /// target_fpr, design_fpr, estimated_fpr, fill_ratio (null for kinds
  /// without one), load_factor (cuckoo), saturated, size_bytes, file_bytes,
  /// and rows, the fill picture (fill_row, fills to 4 decimals).
  [[nodiscard]] std::string summary_json() const {
    return std::visit([&](const auto& f) { return summary_of(f); }, filter_);
  }

  /// The library's answer for the typed key: "maybe" or "no". Throws the
  /// library's errc::mismatch for a key the file's key type refuses.
  [[nodiscard]] bool may_contain(std::string_view key) const {
    return std::visit([&](const auto& f) { return f.may_contain_hash(hash_typed_key(key, f.hash())); }, filter_);
  }

  [[nodiscard]] key_type keys() const noexcept { return info_.key_type; }

 private:
  template <class F>
  std::string summary_of(const F& f) const {
    const auto optional_count = [](bool has, std::uint64_t v) { return has ? std::to_string(v) : std::string("null"); };
    std::uint64_t bits = 0, k = 0, blocks = 0;
    if constexpr (has_bit_array<F>) bits = f.bit_count();
    if constexpr (has_probe_count<F>) k = f.num_hashes();
    if constexpr (has_blocks<F>) blocks = f.num_blocks();
    double fill = -1;
    if constexpr (has_fill_ratio<F>) fill = f.fill_ratio();
    double load = -1;
    if constexpr (requires { f.load_factor(); }) load = f.load_factor();
    count_accuracy accuracy = info_.inserted_accuracy;
    if constexpr (requires { f.inserted_accuracy(); }) accuracy = f.inserted_accuracy();

    std::string params = "{";
    for (const auto& p : info_.params) {
      if (params.size() > 1) params += ",";
      params += json_string(p.name) + ":";
      // As text, as `bloomkit info` prints them: 64-bit values (a ribbon's seed) would lose digits as JSON numbers.
      if (std::holds_alternative<std::uint64_t>(p.value)) {
        params += json_string(std::to_string(std::get<std::uint64_t>(p.value)));
      } else {
        char text[64];
        std::snprintf(text, sizeof text, "%.6g", std::get<double>(p.value));
        params += json_string(text);
      }
    }
    params += "}";

    std::string rows = "[";
    for (const auto& row : detail_file::fill_rows(f)) {
      if (rows.size() > 1) rows += ",";
      rows += "{\"label\":" + json_string(row.label) + ",\"unit\":" + json_string(row.unit) +
              ",\"cell_units\":" + std::to_string(row.cell_units) + ",\"fills\":[";
      for (std::size_t i = 0; i < row.fills.size(); ++i) {
        char text[16];
        std::snprintf(text, sizeof text, "%.4f", row.fills[i]);
        rows += (i ? "," : "") + std::string(text);
      }
      rows += "]}";
    }
    rows += "]";

    return std::string("{") + "\"kind\":" + json_string(to_string(kind_of(filter_))) +
           ",\"format_version\":" + std::to_string(info_.version) +
           ",\"hash\":" + json_string(to_string(f.hash().algorithm)) +
           ",\"seed\":" + json_string(std::to_string(f.hash().seed)) +
           ",\"key_type\":" + json_string(to_string(f.hash().keys)) + ",\"params\":" + params +
           ",\"bits\":" + optional_count(has_bit_array<F>, bits) + ",\"k\":" + optional_count(has_probe_count<F>, k) +
           ",\"blocks\":" + optional_count(has_blocks<F>, blocks) + ",\"capacity\":" + std::to_string(f.capacity()) +
           ",\"capacity_unit\":" + json_string(capacity_unit(f)) + ",\"inserted\":" + std::to_string(f.inserted()) + ",\"inserted_accuracy\":" +
           json_string(to_string(accuracy)) + ",\"target_fpr\":" + json_number(f.target_fpr()) +
           ",\"design_fpr\":" + json_number(f.design_fpr()) + ",\"estimated_fpr\":" + json_number(f.estimated_fpr()) +
           ",\"fill_ratio\":" + (fill >= 0 ? json_number(fill) : std::string("null")) +
           ",\"load_factor\":" + (load >= 0 ? json_number(load) : std::string("null")) +
           ",\"saturated\":" + (f.saturated() ? "true" : "false") +
           ",\"size_bytes\":" + std::to_string(f.size_in_bytes()) +
           ",\"file_bytes\":" + std::to_string(info_.file_bytes) + ",\"rows\":" + rows + "}";
  }

  /// What capacity() counts: keys, or a time window's time units
  /// ("seconds" where the file records that unit).
  template <class F>
  static std::string capacity_unit(const F& f) {
    if constexpr (requires { f.params().generation_time; f.params().time_unit; }) {
      if (f.params().generation_time != 0) {
        return f.params().time_unit == apbf_time_unit::seconds ? "seconds" : "time units";
      }
    }
    return "keys";
  }

  any_filter filter_;
  file_info info_;
};

}  // namespace bloomkit::playground
