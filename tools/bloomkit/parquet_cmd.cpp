// tools/bloomkit/parquet_cmd.cpp - `bloomkit parquet list|probe|extract|encode|write`:
// the split-block Bloom filters inside Parquet files (bloomkit/parquet.hpp).
//
//   list FILE [--json]                    per row group and column: path, types, filter
//                                         offset/length, bits, fill ratio, estimated distinct count
//   probe FILE COLUMN VALUE... [--hex] [--json]
//                                         per value and row group: does the filter exclude it?
//                                         then how many row groups a reader could skip
//   extract FILE COLUMN --row-group N -o OUT   one filter in bloomkit's file format
//   encode FILTER -o OUT                  a bloomkit split_block_bloom (XXH64 seed 0) as the
//                                         BloomFilterHeader + bitset a Parquet writer embeds
//   write KEYS -o OUT.parquet --type T    a one-column Parquet file with a filter per row group
//   add-filters IN -o OUT [--columns a,b] [--fpp P] [--replace]
//                                         IN with folded filters added, data copied byte for byte:
//                                         runs `python3 -m bloomkit.parquet add-filters` (the
//                                         values are decoded by pyarrow; see run_add_filters)
//
// Values are converted from text as the column's logical type says (DATE as
// YYYY-MM-DD, DECIMAL with its scale, UUID canonical, ...; the table is in
// include/bloomkit/parquet/values.hpp); --hex takes the exact bytes.
// Exit codes as everywhere: 0 ok, 1 usage, 2 bad data (the message names the
// file, row group, column or value).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "bloomkit/parquet.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "commands.hpp"
#include "json_out.hpp"
#include "key_input.hpp"
#include "output_guard.hpp"

namespace bloomkit::cli {

namespace {

namespace pq = bloomkit::parquet;

struct parquet_options {
  std::string file;
  std::string column;
  std::vector<std::string> values;
  std::string output;
  std::string type;
  std::string sizing = "duckdb";
  std::size_t row_group = 0;
  std::uint64_t row_group_rows = 1 << 20;
  double fpp = 0.01;
  bool hex = false;
  bool json = false;
  std::string columns;  ///< add-filters: comma-separated
  bool replace = false;
};

std::string type_words(const pq::column_descriptor& c) { return pq::describe(c); }

/// One column chunk's filter as a reader can use it: absent, usable, or
/// present but unusable (a malformed or unsupported header, a bitset outside
/// the file). An unusable filter is reported with its reason and the chunk
/// is treated as having no filter (it cannot be skipped), as DuckDB and
/// Arrow readers do: one bad header must not make the other chunks fail.
struct chunk_filter {
  std::optional<pq::column_bloom_filter> filter;
  std::string unusable;  ///< the reason, when the chunk has a filter that cannot be used
};

/// Opens a Parquet file; a folder (a partitioned dataset) is named as such
/// rather than failing somewhere inside the footer parser.
pq::reader open_parquet(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw error(errc::io, path + ": is a directory, not a Parquet file (give one of the .parquet files inside it)");
  }
  return pq::reader{std::filesystem::path(path)};
}

chunk_filter filter_of(pq::reader& file, std::size_t row_group, std::size_t column) {
  chunk_filter out;
  try {
    out.filter = file.bloom_filter(row_group, column);
  } catch (const error& e) {
    if (e.code() == errc::invalid_argument) throw;  // our own index mistake, not the file's
    out.unusable = e.what();
  }
  return out;
}

std::string fmt(const char* format, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, x);
  return buffer;
}

int run_list(const parquet_options& o) {
  pq::reader file = open_parquet(o.file);
  const auto& md = file.metadata();
  if (!o.json) {
    std::printf("%s: %zu row group(s), %zu column(s), %lld rows, written by %s\n", o.file.c_str(), md.row_groups.size(),
                md.columns.size(), static_cast<long long>(md.num_rows), md.created_by.empty() ? "?" : md.created_by.c_str());
    std::printf("%-4s %-24s %-28s %10s %8s %10s %8s %10s\n", "rg", "column", "type", "offset", "length", "bits", "fill",
                "est.ndv");
  }
  for (std::size_t g = 0; g < md.row_groups.size(); ++g) {
    for (std::size_t c = 0; c < md.columns.size(); ++c) {
      const auto& col = md.columns[c];
      const chunk_filter chunk = filter_of(file, g, c);
      const auto& filter = chunk.filter;
      if (!chunk.unusable.empty()) {
        std::fprintf(stderr, "bloomkit: warning: %s\n", chunk.unusable.c_str());
      }
      if (o.json) {
        json_object j;
        j.field("row_group", g).field("column", col.dotted_path()).field("physical_type", pq::to_string(col.type));
        const std::string logical = pq::to_string(col.logical);
        if (logical.empty()) {
          j.null_field("logical_type");
        } else {
          j.field("logical_type", logical);
        }
        j.field("num_values", md.row_groups[g].columns[c].num_values)
            .field("has_filter", filter.has_value() || !chunk.unusable.empty());
        if (!chunk.unusable.empty()) j.field("usable", false).field("error", chunk.unusable);
        if (filter) {
          j.field("usable", true);
          j.field("bloom_filter_offset", filter->offset)
              .field("bloom_filter_length", filter->declared_length)
              .field("num_bytes", filter->header.num_bytes)
              .field("bits", filter->filter.bit_count())
              .field("fill_ratio", filter->filter.fill_ratio())
              .field("estimated_distinct", filter->filter.estimated_cardinality())
              .field("estimated_fpr", filter->filter.estimated_fpr());
        }
        std::fputs(j.line().c_str(), stdout);
      } else if (filter) {
        const std::string length = filter->declared_length ? std::to_string(*filter->declared_length) : "-";
        std::printf("%-4zu %-24s %-28s %10llu %8s %10llu %8s %10.0f\n", g, col.dotted_path().c_str(),
                    type_words(col).c_str(), static_cast<unsigned long long>(filter->offset), length.c_str(),
                    static_cast<unsigned long long>(filter->filter.bit_count()),
                    fmt("%.4f", filter->filter.fill_ratio()).c_str(), filter->filter.estimated_cardinality());
      } else if (!chunk.unusable.empty()) {
        std::printf("%-4zu %-24s %-28s %10s\n", g, col.dotted_path().c_str(), type_words(col).c_str(),
                    "unusable filter (see the warning)");
      } else {
        std::printf("%-4zu %-24s %-28s %10s\n", g, col.dotted_path().c_str(), type_words(col).c_str(), "no filter");
      }
    }
  }
  return exit_ok;
}

int run_probe(const parquet_options& o) {
  pq::reader file = open_parquet(o.file);
  const auto& md = file.metadata();
  const std::size_t c = file.column_index(o.column);
  const auto& col = md.columns[c];
  // Convert every value first, so a bad one fails before any output.
  std::vector<std::vector<std::byte>> bytes;
  for (const auto& v : o.values) bytes.push_back(o.hex ? pq::encode_hex(col, v) : pq::encode_value(col, v));
  std::vector<chunk_filter> chunks;
  for (std::size_t g = 0; g < md.row_groups.size(); ++g) {
    chunks.push_back(filter_of(file, g, c));
    if (!chunks.back().unusable.empty()) {
      std::fprintf(stderr, "bloomkit: warning: %s; that row group cannot be skipped\n", chunks.back().unusable.c_str());
    }
  }

  std::size_t skippable_all = 0;  // row groups excluded for every value (col IN (...))
  std::vector<std::size_t> skippable(o.values.size(), 0);
  for (std::size_t g = 0; g < chunks.size(); ++g) {
    bool all_excluded = !o.values.empty();
    const auto& filter = chunks[g].filter;
    const bool unusable = !chunks[g].unusable.empty();
    for (std::size_t i = 0; i < o.values.size(); ++i) {
      const bool has = filter.has_value();
      const bool excluded = has && !filter->filter.may_contain(bytes[i]);
      if (excluded) ++skippable[i];
      all_excluded = all_excluded && excluded;
      if (o.json) {
        json_object j;
        j.field("row_group", g).field("column", col.dotted_path()).field("value", o.values[i]);
        j.field("has_filter", has || unusable).field("excluded", excluded);
        if (unusable) j.field("usable", false).field("error", chunks[g].unusable);
        std::fputs(j.line().c_str(), stdout);
      } else {
        std::printf("row group %zu  %s = %s  %s\n", g, col.dotted_path().c_str(), o.values[i].c_str(),
                    unusable ? "unusable filter (must be read)"
                    : !has   ? "no filter (must be read)"
                    : excluded ? "excluded (definitely absent)"
                               : "may contain");
      }
    }
    if (all_excluded) ++skippable_all;
  }
  if (o.json) {
    json_object j;
    j.field("summary", true).field("column", col.dotted_path()).field("type", type_words(col));
    j.field("values", o.values.size()).field("row_groups", md.row_groups.size());
    j.field("skippable_row_groups", skippable_all);
    std::fputs(j.line().c_str(), stdout);
  } else {
    for (std::size_t i = 0; i < o.values.size(); ++i) {
      std::printf("%s = %s: a reader can skip %zu of %zu row groups\n", col.dotted_path().c_str(), o.values[i].c_str(),
                  skippable[i], md.row_groups.size());
    }
    if (o.values.size() > 1) {
      std::printf("%s IN (%zu values): a reader can skip %zu of %zu row groups\n", col.dotted_path().c_str(),
                  o.values.size(), skippable_all, md.row_groups.size());
    }
  }
  return exit_ok;
}

int run_extract(const parquet_options& o) {
  check_output(o.output, {o.file});
  pq::reader file = open_parquet(o.file);
  const std::size_t c = file.column_index(o.column);
  auto filter = file.bloom_filter(o.row_group, c);
  if (!filter) {
    throw error(errc::invalid_argument, o.file + ": row group " + std::to_string(o.row_group) + " column " +
                                            file.metadata().columns[c].dotted_path() + " has no Bloom filter");
  }
  // The file records neither how many values were inserted nor the design
  // point. Record what the file does say: the chunk's value count as the
  // capacity (the writer inserted at most that many), the FPR the formula
  // gives at that count, and, as inserted, the distinct values estimated
  // from the bits (never more than the value count), marked as an estimate
  // (inserted_accuracy "estimated"). Not 0 beside an estimate of thousands,
  // and not a capacity made up from a 1 % rule.
  const split_block_bloom& bits = filter->filter;
  const auto values = static_cast<std::uint64_t>(
      std::max<std::int64_t>(1, file.metadata().row_groups[o.row_group].columns[c].num_values));
  const double estimate = bits.estimated_cardinality();
  const std::uint64_t inserted =
      std::isfinite(estimate) ? std::min<std::uint64_t>(values, static_cast<std::uint64_t>(std::llround(estimate)))
                              : values;
  const double fpr = std::clamp(sizing::split_block_fpr(static_cast<double>(bits.num_blocks()), static_cast<double>(values)),
                                1e-300, 0.999999);
  split_block_bloom truthful(block_filter_params{bits.num_blocks(), 8, values, fpr, bits.hash()},
                             std::vector<split_block_bloom::block_type>(bits.blocks().begin(), bits.blocks().end()),
                             inserted, count_accuracy::estimated);
  // The column's key type (INT64 int64, BYTE_ARRAY bytes, ...): `bloomkit
  // query` then reads the file's keys as the column's values by default.
  truthful.adopt_key_type(filter->keys);
  bloomkit::save(truthful, std::filesystem::path(o.output));
  std::fprintf(stderr,
               "wrote %s: split_block_bloom, %llu bytes, fill %.4f; capacity %llu (the chunk's values), inserted %llu "
               "(distinct values estimated from the bits: the Parquet file does not record it)\n",
               o.output.c_str(), static_cast<unsigned long long>(truthful.size_in_bytes()), truthful.fill_ratio(),
               static_cast<unsigned long long>(values), static_cast<unsigned long long>(inserted));
  return exit_ok;
}

void write_atomically(const std::string& path, std::span<const std::byte> bytes) {
  bloomkit::atomic_file_writer out{std::filesystem::path(path)};
  out.write(bytes);
  out.commit();
}

int run_encode(const parquet_options& o) {
  check_output(o.output, {o.file});
  const any_filter loaded = bloomkit::load(std::filesystem::path(o.file));
  const auto* sbbf = std::get_if<split_block_bloom>(&loaded);
  if (sbbf == nullptr) {
    throw error(errc::mismatch, o.file + " holds a " + std::string(to_string(kind_of(loaded))) +
                                    "; only a split_block_bloom can be embedded in a Parquet file");
  }
  const auto bytes = pq::encode_bloom_filter(sbbf->view());
  write_atomically(o.output, bytes);
  std::fprintf(stderr, "wrote %s: BloomFilterHeader (%zu bytes) + %llu-byte bitset\n", o.output.c_str(),
               bytes.size() - static_cast<std::size_t>(sbbf->size_in_bytes()),
               static_cast<unsigned long long>(sbbf->size_in_bytes()));
  return exit_ok;
}

/// add-filters needs every value of each column chunk decoded: PLAIN,
/// dictionary and the other encodings, under snappy, zstd, gzip, lz4 or
/// brotli, and every logical type's physical form. pyarrow's reader does all
/// of that and is tested against every writer, so the command runs the
/// Python package's add_filters (bloomkit.parquet) in `$BLOOMKIT_PYTHON`
/// (default python3) in place of this process; its exit code is the
/// command's (0, 1 usage, 2 data). The footer rewrite and the atomic write
/// are this library's (parquet::write_with_filters), reached through the
/// extension module.
int run_add_filters(const parquet_options& o) {
  if (!(o.fpp > 0.0 && o.fpp < 1.0)) throw usage_error("--fpp must be in (0, 1)");
  check_output(o.output, {o.file});
  const char* env = std::getenv("BLOOMKIT_PYTHON");
  const std::string python = env != nullptr && *env != '\0' ? env : "python3";
  char fpp[32];
  std::snprintf(fpp, sizeof fpp, "%.17g", o.fpp);
  std::vector<std::string> args = {python, "-m", "bloomkit.parquet", "add-filters", o.file, "-o", o.output, "--fpp", fpp};
  if (!o.columns.empty()) {
    args.push_back("--columns");
    args.push_back(o.columns);
  }
  if (o.replace) args.push_back("--replace");
  if (o.json) args.push_back("--json");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execvp(argv[0], argv.data());
  throw error(errc::unsupported, "parquet add-filters runs bloomkit's Python package (" + python +
                                     " -m bloomkit.parquet), and " + python + " could not be started (" +
                                     std::strerror(errno) + "); install the package or set BLOOMKIT_PYTHON");
}

pq::write_options write_options_from(const parquet_options& o) {
  pq::write_options w;
  if (o.row_group_rows == 0) throw usage_error("--row-group-rows must be at least 1");
  w.row_group_rows = o.row_group_rows;
  w.fpp = o.fpp;
  if (o.sizing == "duckdb") {
    w.sizing = sizing::parquet_writer::duckdb;
  } else if (o.sizing == "arrow_cpp") {
    w.sizing = sizing::parquet_writer::arrow_cpp;
  } else if (o.sizing == "arrow_rs") {
    w.sizing = sizing::parquet_writer::arrow_rs;
  } else if (o.sizing == "fold") {
    w.fold = true;
  } else {
    throw usage_error("--sizing must be duckdb, arrow_cpp, arrow_rs or fold, got '" + o.sizing + "'");
  }
  return w;
}

int run_write(const parquet_options& o) {
  if (!(o.fpp > 0.0 && o.fpp < 1.0)) throw usage_error("--fpr must be in (0, 1)");
  const pq::write_options options = write_options_from(o);
  check_output(o.output, {o.file});
  pq::column_spec column = pq::column_for_type(o.type, o.column.empty() ? "value" : o.column);
  const pq::column_descriptor desc = column.descriptor();
  std::vector<std::vector<std::byte>> values;
  line_reader input(o.file);
  std::uint64_t line_number = 0;
  for (std::string_view chunk = input.next_chunk(); !chunk.empty(); chunk = input.next_chunk()) {
    while (!chunk.empty()) {
      const std::size_t nl = chunk.find('\n');
      const std::string_view line = strip_cr(chunk.substr(0, nl));
      chunk = nl == std::string_view::npos ? std::string_view{} : chunk.substr(nl + 1);
      ++line_number;
      try {
        values.push_back(o.hex ? pq::encode_hex(desc, line) : pq::encode_value(desc, line));
      } catch (const error& e) {
        throw error::in_context(input.name() + " line " + std::to_string(line_number) + ": ", e);
      }
    }
  }
  const auto bytes = pq::write_file(column, values, options);
  const std::uint64_t groups = (values.size() + options.row_group_rows - 1) / options.row_group_rows;
  const std::string type = type_words(desc);  // allocates: before the file is in place (docs/RELIABILITY.md)
  write_atomically(o.output, bytes);
  std::fprintf(stderr, "wrote %s: %zu rows of %s in %llu row group(s), %zu bytes\n", o.output.c_str(), values.size(),
               type.c_str(), static_cast<unsigned long long>(groups), bytes.size());
  return exit_ok;
}

}  // namespace

void register_parquet(CLI::App& app, command_table& table) {
  auto o = std::make_shared<parquet_options>();
  CLI::App* group = app.add_subcommand("parquet", "Read, probe and write the Bloom filters inside Parquet files");
  group->require_subcommand(1);

  CLI::App* list = group->add_subcommand("list", "Each row group's and column's filter: offset, size, fill, estimated distinct values");
  list->add_option("file", o->file, "the Parquet file")->required();
  list->add_flag("--json", o->json, "one JSON object per row group and column");

  CLI::App* probe = group->add_subcommand("probe", "Ask each row group's filter whether it excludes values");
  probe->add_option("file", o->file, "the Parquet file")->required();
  probe->add_option("column", o->column, "the column: its dotted path, or its name if unambiguous")->required();
  probe->add_option("values", o->values, "values as text, converted by the column's type (or hex with --hex)")
      ->required();
  probe->add_flag("--hex", o->hex, "values are the exact bytes hashed, in hex");
  probe->add_flag("--json", o->json, "one JSON object per value and row group, then a summary object");
  probe->footer(
      "Examples:\n"
      "  bloomkit parquet probe events.parquet user_id 42 43\n"
      "  bloomkit parquet probe events.parquet day 2024-02-29 --json\n"
      "  bloomkit parquet probe blobs.parquet payload 00ff --hex\n\n"
      "excluded=true means the filter proves the value absent from that row group;\n"
      "false means it may be there (or there is no filter).");

  CLI::App* extract = group->add_subcommand("extract", "Save one column chunk's filter in bloomkit's file format");
  extract->add_option("file", o->file, "the Parquet file")->required();
  extract->add_option("column", o->column, "the column")->required();
  extract->add_option("--row-group", o->row_group, "row group index (default 0)");
  extract->add_option("-o,--output", o->output, "the bloomkit filter file to write")->required();

  CLI::App* encode = group->add_subcommand("encode", "Turn a bloomkit split_block_bloom into a Parquet BloomFilterHeader + bitset");
  encode->add_option("filter", o->file, "a bloomkit filter file holding a split_block_bloom (XXH64 seed 0)")->required();
  encode->add_option("-o,--output", o->output, "where to write the header + bitset")->required();

  CLI::App* write = group->add_subcommand("write", "Write a one-column Parquet file with a Bloom filter per row group");
  write->add_option("keys", o->file, "values, one per line ('-' for stdin)")->required();
  write->add_option("-o,--output", o->output, "the Parquet file to write")->required();
  write->add_option("--type", o->type,
                    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 float double string binary date time_ms "
                    "time_us timestamp_ms timestamp_us timestamp_ns uuid decimal(P,S)")
      ->required();
  write->add_option("--column", o->column, "the column's name (default value)");
  write->add_option("--row-group-rows", o->row_group_rows, "rows per row group (default 1048576)");
  write->add_option("--fpr,--fpp", o->fpp, "false-positive rate each filter is sized for (default 0.01; --fpp is Parquet's name)");
  write->add_option("--sizing", o->sizing,
                    "how each filter is sized: for the row group's distinct values with duckdb's (default), arrow_cpp's "
                    "or arrow_rs's rounding, or fold: sized for the row group's rows, filled, then halved while the "
                    "estimated FPR stays at or under --fpp (no distinct count needed; usually the smallest)");
  write->add_flag("--hex", o->hex, "lines are the exact value bytes in hex");

  CLI::App* add = group->add_subcommand("add-filters", "Add folded Bloom filters to a Parquet file without rewriting its data");
  add->add_option("file", o->file, "the Parquet file")->required();
  add->add_option("-o,--output", o->output, "the Parquet file to write (appears only when complete)")->required();
  add->add_option("--columns", o->columns, "comma-separated columns (default: every non-BOOLEAN column)");
  add->add_option("--fpp,--fpr", o->fpp, "the highest estimated false-positive rate each filter is folded to (default 0.01)");
  add->add_flag("--replace", o->replace, "replace filters the file already has (kept by default)");
  add->add_flag("--json", o->json, "one JSON object per column chunk on stdout");
  add->footer(
      "Example:\n  bloomkit parquet add-filters events.parquet -o events.bf.parquet --columns user_id,day\n\n"
      "Every page, dictionary and index is copied byte for byte; the filters go after the data and the footer\n"
      "is rewritten to point at them. Runs bloomkit's Python package (pyarrow decodes the values):\n"
      "$BLOOMKIT_PYTHON (default python3) -m bloomkit.parquet add-filters ...");
  table.emplace_back(group, [o, list, probe, extract, encode, write, add]() -> int {
    if (add->parsed()) return run_add_filters(*o);
    if (list->parsed()) return run_list(*o);
    if (probe->parsed()) return run_probe(*o);
    if (extract->parsed()) return run_extract(*o);
    if (encode->parsed()) return run_encode(*o);
    if (write->parsed()) return run_write(*o);
    throw usage_error("parquet: give a subcommand (list, probe, extract, encode, write, add-filters)");
  });
}

}  // namespace bloomkit::cli
