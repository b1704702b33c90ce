// tools/bloomkit/query.cpp - `bloomkit query FILE [KEY...]`: ask a filter
// about keys given as arguments, in files (--input) or on stdin.
//
// The filter file is mapped and viewed in place (file_format's open_mapped):
// no copy, and the payload checksum is verified once before the first answer.
// Keys are hashed in batches and answered with may_contain_many, which
// prefetches a window ahead; output goes through one 1 MiB buffer.
//
// Output, one line per key in input order:
//   plain   KEY<TAB>maybe | KEY<TAB>absent     (KEY as written, without '\r')
//   --json  {"key":"...","maybe":true}         (u64 keys print as JSON numbers;
//           a text key that is not valid UTF-8 gets U+FFFD in "key" and its
//           exact bytes in "key_hex")
//   --count the number of "maybe" answers only
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "commands.hpp"
#include "json_out.hpp"
#include "jvm_formats.hpp"
#include "key_input.hpp"
#include "kmer_input.hpp"
#include "signals.hpp"

namespace bloomkit::cli {

namespace {

using clock_type = std::chrono::steady_clock;

struct query_options {
  std::string file;
  std::vector<std::string> keys;
  std::vector<std::string> inputs;
  std::optional<std::string> format;  // unset: the file's key type decides (format_against)
  unsigned kmer = 0;
  std::optional<std::string> at_text;  // --at, parsed by parse_u64 (CLI11 would wrap "-5" to 2^64 - 5)
  std::optional<std::uint64_t> at;
  bool fraction = false;
  bool count = false;
  bool json = false;
  bool stats = false;
};

/// Buffered stdout: one fwrite per MiB.
class output_buffer {
 public:
  output_buffer() { text_.reserve(capacity + 4096); }
  output_buffer(const output_buffer&) = delete;
  output_buffer& operator=(const output_buffer&) = delete;
  ~output_buffer() {
    if (!text_.empty()) (void)std::fwrite(text_.data(), 1, text_.size(), stdout);
  }
  std::string& text() noexcept { return text_; }
  void maybe_flush() {
    if (text_.size() >= capacity) flush();
  }
  void flush() {
    if (!text_.empty() && std::fwrite(text_.data(), 1, text_.size(), stdout) != text_.size()) {
      throw error(errc::io, "cannot write to stdout (the answers)");
    }
    text_.clear();
  }

 private:
  static constexpr std::size_t capacity = std::size_t{1} << 20;
  std::string text_;
};

void append_hex(std::string& out, std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
}

/// Writes the answers for one batch.
class answer_writer {
 public:
  answer_writer(const query_options& o, key_format format) : o_(o), format_(format) {}

  void write(std::span<const std::string_view> lines, const bool* maybe) {
    if (o_.count) {
      for (std::size_t i = 0; i < lines.size(); ++i) maybes_ += maybe[i] ? 1 : 0;
      return;
    }
    std::string& out = buffer_.text();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      maybes_ += maybe[i] ? 1 : 0;
      if (o_.json) {
        out += "{\"key\":";
        if (is_integer_format(format_)) {
          append_integer_key(out, format_, lines[i]);  // validated when hashed
        } else {
          append_json_string(out, lines[i]);
          if (format_ == key_format::text && !is_valid_utf8(lines[i])) {
            out += ",\"key_hex\":\"";
            append_hex(out, lines[i]);
            out += '"';
          }
        }
        out += maybe[i] ? ",\"maybe\":true}\n" : ",\"maybe\":false}\n";
      } else {
        out.append(lines[i]);
        out += maybe[i] ? "\tmaybe\n" : "\tabsent\n";
      }
    }
    buffer_.maybe_flush();
  }

  void finish() {
    if (o_.count) {
      buffer_.text() += std::to_string(maybes_);
      buffer_.text() += '\n';
    }
    buffer_.flush();
    if (std::fflush(stdout) != 0) throw error(errc::io, "cannot write to stdout (the answers)");
  }

 private:
  const query_options& o_;
  key_format format_;
  output_buffer buffer_;
  std::uint64_t maybes_ = 0;
};

/// --kmer K: per record, how many of its canonical k-mers the filter may
/// contain (read screening). Positional arguments after FILE are sequence
/// files here; stdin without them.
int run_kmer_query(const query_options& o) {
  if (o.count) throw usage_error("--count does not apply to --kmer queries (they report per record)");
  std::vector<std::string> inputs = o.inputs;
  inputs.insert(inputs.end(), o.keys.begin(), o.keys.end());
  if (inputs.empty()) inputs.push_back("-");
  int stdin_uses = 0;
  for (const auto& path : inputs) stdin_uses += path == "-" ? 1 : 0;
  if (stdin_uses > 1) throw usage_error("stdin (-) can be an input only once");
  note_mapped_file(o.file.c_str());  // a SIGBUS from here on names it (signals.hpp)
  const mapped_filter mapped = open_mapped(o.file);
  output_buffer out;
  std::uint64_t records = 0, kmers = 0, present = 0;
  double fpr = 0;
  std::visit(
      [&](const auto& filter) {
        fpr = filter.estimated_fpr();
        std::unique_ptr<bool[]> answers;
        std::size_t room = 0;
        for (const auto& path : inputs) {
          kmers += for_each_kmer_record(
              path, o.format.value_or("text"), o.kmer, filter.hash(),
              [&](std::string_view name, std::span<const std::uint64_t> hashes) {
                if (hashes.size() > room) {
                  room = hashes.size();
                  answers.reset(new bool[room]);
                }
                filter.may_contain_many(hashes, std::span<bool>(answers.get(), hashes.size()));
                std::uint64_t hits = 0;
                for (std::size_t i = 0; i < hashes.size(); ++i) hits += answers[i] ? 1 : 0;
                present += hits;
                ++records;
                const double f = hashes.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(hashes.size());
                std::string& text = out.text();
                if (o.json) {
                  json_object line;
                  line.field("read", name).field("kmers", static_cast<std::uint64_t>(hashes.size()))
                      .field("present", hits).field("fraction", f);
                  text += line.line();
                } else {
                  text.append(name.substr(0, name.find_first_of(" \t")));
                  text += '\t' + std::to_string(hits) + '\t' + std::to_string(hashes.size()) + '\t';
                  char buf[32];
                  std::snprintf(buf, sizeof buf, "%.6f\n", f);
                  text += buf;
                }
                out.maybe_flush();
              },
              [](std::span<const std::uint64_t>) {});
        }
      },
      mapped.filter);
  out.flush();
  if (std::fflush(stdout) != 0) throw error(errc::io, "cannot write to stdout (the answers)");
  std::fprintf(stderr,
               "bloomkit: %llu records, %llu %u-mers, %llu present (%.4f); each fraction includes false positives at "
               "the filter's estimated FPR %.4g%%\n",
               static_cast<unsigned long long>(records), static_cast<unsigned long long>(kmers), o.kmer,
               static_cast<unsigned long long>(present),
               kmers ? static_cast<double>(present) / static_cast<double>(kmers) : 0.0, 100 * fpr);
  return exit_ok;
}

int run_bloomkit_query(const query_options& o) {
  const std::string format_name = o.format.value_or("text");
  check_kmer_options(format_name, o.kmer);
  if (o.fraction && o.kmer == 0) throw usage_error("--fraction needs --kmer K and --format fasta|fastq");
  if (o.at && o.kmer != 0) throw usage_error("--at applies to key queries of a time window, not to --kmer");
  if (o.kmer != 0) return run_kmer_query(o);
  // i32 is a key format of Spark's and Guava's filters only (refused below
  // once FILE turns out to be one of bloomkit's).
  const bool jvm_only_format = format_name == "i32";
  if (!jvm_only_format) (void)parse_key_format(format_name);  // a misspelt --format is a usage error before FILE opens
  if (o.count && o.json) throw usage_error("--count and --json cannot be combined");
  if (!o.keys.empty() && !o.inputs.empty()) throw usage_error("give keys as arguments or with --input, not both");
  int stdin_uses = 0;
  for (const auto& path : o.inputs) stdin_uses += path == "-" ? 1 : 0;
  if (stdin_uses > 1) throw usage_error("stdin (-) can be an input only once");

  const auto start = clock_type::now();
  note_mapped_file(o.file.c_str());  // a SIGBUS from here on names it (signals.hpp)
  // FILE is mapped once, here, whichever format it is in (bloomkit's own,
  // Spark's or Guava's stream: open_mapped(..., any_format)), so a file
  // replaced by rename while it is read never matters (docs/RELIABILITY.md).
  const mapped_any_format_filter mapped = open_mapped(o.file, any_format);
  if (o.at) {
    const auto* w = std::get_if<age_partitioned_bloom_view>(&mapped.filter);
    if (w == nullptr || w->params().generation_time == 0) {
      const std::string what = std::visit(
          [](const auto& f) -> std::string {
            using F = std::decay_t<decltype(f)>;
            if constexpr (std::is_same_v<F, spark_bloom_view>) {
              return "a Spark filter";
            } else if constexpr (std::is_same_v<F, guava_bloom_view>) {
              return "a Guava filter";
            } else if constexpr (windowed_filter<F>) {
              return "a count window";
            } else {
              return "a " + std::string(to_string(format_codec<F>::kind));
            }
          },
          mapped.filter);
      throw usage_error("--at TIME applies to a time window only (bloomkit build --kind window --window-seconds T); " +
                        o.file + " is " + what);
    }
    if (*o.at < w->state().now) {  // the bits hold later keys and have lost earlier ones: no answer for the past
      throw usage_error("--at " + std::to_string(*o.at) + " is before " + o.file + "'s clock (" +
                        std::to_string(w->state().now) + ", the last TIME it saw); a time window answers at its " +
                        "clock or later only");
    }
  }
  if (const auto* spark = std::get_if<spark_bloom_view>(&mapped.filter)) {
    return run_jvm_query(jvm_filter_view(*spark), o.keys, o.inputs, format_name, o.count, o.json);
  }
  if (const auto* guava = std::get_if<guava_bloom_view>(&mapped.filter)) {
    return run_jvm_query(jvm_filter_view(*guava), o.keys, o.inputs, format_name, o.count, o.json);
  }
  if (jvm_only_format) throw usage_error("--format i32 applies to Spark and Guava filters only");
  // The file's key type picks the format when none is given, and refuses
  // one whose keys never convert into it, before any key is read.
  const key_type file_keys = std::visit(
      [](const auto& f) {
        if constexpr (is_jvm_kind<std::decay_t<decltype(f)>>) {
          return key_type::unspecified;
        } else {
          return f.hash().keys;
        }
      },
      mapped.filter);
  const key_format format = format_against(o.format, file_keys, o.file);
  answer_writer writer(o, format);
  double lookup_seconds = 0;
  std::uint64_t keys = 0;

  std::visit(
      [&](const auto& filter) {
        if constexpr (is_jvm_kind<std::decay_t<decltype(filter)>>) {
          return;  // answered above
        } else {
          key_hasher hasher(format, filter.hash());
          bool answers[key_batch_size];
          auto answer = [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view> lines) {
            const auto t = clock_type::now();
            if constexpr (windowed_filter<std::decay_t<decltype(filter)>>) {
              if (o.at) {
                // As of TIME: generations that would have ended by then are
                // ignored (a TIME before the file's clock answers as of it).
                for (std::size_t i = 0; i < hashes.size(); ++i) answers[i] = filter.may_contain_hash_at(hashes[i], *o.at);
              } else {
                filter.may_contain_many(hashes, std::span<bool>(answers, hashes.size()));
              }
            } else {
              filter.may_contain_many(hashes, std::span<bool>(answers, hashes.size()));  // every kind batches (filter.hpp)
            }
            lookup_seconds += std::chrono::duration<double>(clock_type::now() - t).count();
            keys += hashes.size();
            writer.write(lines, answers);
          };
          if (!o.keys.empty()) {
            std::uint64_t hashes[key_batch_size];
            std::string_view lines[key_batch_size];
            std::size_t n = 0;
            for (std::size_t i = 0; i < o.keys.size(); ++i) {
              const std::string_view key = o.keys[i];
              if (!hasher.hash(key, hashes[n])) {
                throw error(errc::invalid_argument, "key " + std::to_string(i + 1) + " on the command line: " +
                                                        hasher.why() + " (got " + quote_for_message(key) + ")");
              }
              lines[n] = key;
              if (++n == key_batch_size || i + 1 == o.keys.size()) {
                answer(std::span<const std::uint64_t>(hashes, n), std::span<const std::string_view>(lines, n));
                n = 0;
              }
            }
          } else {
            const std::vector<std::string> inputs = o.inputs.empty() ? std::vector<std::string>{"-"} : o.inputs;
            for (const auto& path : inputs) {
              line_reader reader(path);
              (void)for_each_key_batch(reader, hasher, answer, [](std::uint64_t, std::uint64_t) {});
            }
          }
        }
      },
      mapped.filter);
  writer.finish();
  if (o.stats) {
    const double total = std::chrono::duration<double>(clock_type::now() - start).count();
    std::fprintf(stderr, "bloomkit: stats: keys %llu, total %.3f s, may_contain_many %.3f s, the rest %.3f s\n",
                 static_cast<unsigned long long>(keys), total, lookup_seconds, total - lookup_seconds);
  }
  return exit_ok;
}

int run_query(query_options& o) {
  if (o.at_text) {
    std::uint64_t at = 0;
    if (!parse_u64(*o.at_text, at)) {
      throw usage_error("--at must be a whole number of seconds in [0, 2^64 - 1], got \"" + *o.at_text + "\"");
    }
    o.at = at;
  }
  return run_bloomkit_query(o);
}

}  // namespace

void register_query(CLI::App& app, command_table& table) {
  auto o = std::make_shared<query_options>();
  CLI::App* sub = app.add_subcommand("query", "Ask a filter about keys: one line per key, KEY<TAB>maybe|absent");
  sub->footer(
      "Examples:\n"
      "  bloomkit query keys.bkf alice bob\n"
      "  bloomkit query keys.bkf < candidates.txt > answers.tsv\n"
      "  seq 1 100 | bloomkit query ids.bkf --count   # ids.bkf built with --format u64: keys read as integers\n"
      "  bloomkit query keys.bkf --json carol        # {\"key\":\"carol\",\"maybe\":false}\n"
      "  bloomkit query genome.bkf --format fastq --kmer 31 reads.fq --fraction\n"
      "  bloomkit query last-hour.bkf --at 1767225600 10.0.0.7   # a time window, as of that Unix time\n\n"
      "Without KEY arguments or --input, keys are read from stdin, one per line (see build --help).");
  sub->add_option("file", o->file, "the filter file")->required();
  sub->add_option("keys", o->keys, "keys to ask about (else --input files or stdin)");
  sub->add_option("-i,--input", o->inputs, "read keys from this file (repeatable; - is stdin)");
  sub->add_option("-f,--format", o->format,
                  "key format: text, hex, u64, i64, int, f64, or fasta / fastq with --kmer (default: the file's key "
                  "type: text for bytes and for files without one, int for int64, f64 for float64); on Spark/Guava "
                  "filters also i32 (default text)");
  sub->add_option("--kmer", o->kmer,
                  "read screening: per FASTA/FASTQ record, how many of its canonical K-mers the filter may hold "
                  "(NAME<TAB>present<TAB>kmers<TAB>fraction); the arguments after FILE are sequence files")
      ->check(CLI::Range(1u, 32u));  // 0 is no K, not "no --kmer"
  sub->add_option("--at", o->at_text,
                  "time windows (build --window-seconds): answer as of TIME (whole seconds, the clock of the build's "
                  "TIME column, not before the last time the filter saw); keys older than the window at TIME are absent. "
                  "Default: the last time the filter saw");
  sub->add_flag("--fraction", o->fraction, "with --kmer: report the fraction per record (the default output)");
  sub->add_flag("-c,--count", o->count, "print only the number of keys answered maybe");
  sub->add_flag("--json", o->json, "one JSON object per key: {\"key\": ..., \"maybe\": true|false}");
  sub->add_flag("--stats", o->stats, "print the time spent in lookups and in the rest on stderr");
  table.emplace_back(sub, [o] { return run_query(*o); });
}

}  // namespace bloomkit::cli
