// tools/bloomkit/dedupe.cpp - `bloomkit dedupe [FILE...]`: a streaming
// `uniq` for unsorted input of any size. Each line is printed the first time
// it is (probably) seen; memory is one filter, never the lines.
//
// Every line goes through the filter's test-and-add (insert_if_absent_many,
// one pass over each key's probes): a line the filter certainly has not
// seen is inserted and printed; a line it may have seen is dropped. So a
// repeated line is never printed twice (no false negatives), and a new line
// is wrongly dropped only when it is a false positive, with probability at
// most the filter's FPR at that moment. The default kind, scalable, keeps that
// below --fpr however many distinct lines arrive (its compound bound); a
// fixed-size kind (blocked, split-block, standard, counting) exceeds it past
// --capacity, and `dedupe` says so on stderr at the end. --kind window
// --window N forgets lines after N more (a repeat after that is printed
// again: "unique within the last N lines"). --kind window --window N
// --window-seconds T reads TIME<TAB>KEY lines (the rules of build
// --window-seconds, time_window_input.hpp) and prints a line when its KEY is
// certainly not among the keys of the last T seconds (planned for up to N
// keys per T seconds): "unique within the last T seconds". A kind whose
// inserts can fail (fallible_insert) stops with exit 2 when its table is full.
//
// A bad line (a key that does not parse; for a time window also no TAB, a
// TIME that is not a whole number, a TIME below the one above it) is exit 2
// naming FILE:LINE. Output is written in pieces of 1 MiB, so nothing is
// printed when the error comes within the first MiB of output; past it,
// the pieces already written stay (stdout is a stream), and all of them are
// correct.
//
// Output: the kept lines, each followed by '\n', in input order (one
// trailing '\r' is dropped, as for keys). A summary goes to stderr unless
// -q: lines read, printed, dropped, and the FPR the drops carry.
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
#include "key_input.hpp"
#include "kinds.hpp"
#include "time_window_input.hpp"

namespace bloomkit::cli {

namespace {

struct dedupe_options {
  std::vector<std::string> inputs;
  std::string kind = "scalable";
  double fpr = 1e-4;
  std::uint64_t capacity = 10'000'000;
  std::optional<std::uint64_t> window;
  std::optional<std::int64_t> window_seconds;  // signed, so "-5" is refused, not wrapped
  std::string format = "text";
  bool quiet = false;
};

int run_dedupe(const dedupe_options& o) {
  const kind_entry& entry = find_kind(o.kind);
  const kind_info info = info_of(entry.kind);
  if (info.is_static) throw usage_error("--kind " + std::string(entry.cli_name) + " is static; dedupe needs a kind that inserts");
  if (!(o.fpr > 0.0 && o.fpr < 1.0)) throw usage_error("--fpr must be in (0, 1)");
  if (o.capacity == 0) throw usage_error("--capacity must be at least 1");
  if (entry.kind == filter_kind::age_partitioned_bloom) {
    if (!o.window || *o.window == 0) throw usage_error("--kind window needs --window N (N >= 1)");
  } else if (o.window) {
    throw usage_error("--window applies to --kind window only");
  }
  check_window_seconds(entry.kind, o.window_seconds, false);
  check_fpr_reachable(entry, o.window ? *o.window : o.capacity, o.fpr);
  const key_format format = parse_key_format(o.format);
  std::vector<std::string> inputs = o.inputs.empty() ? std::vector<std::string>{"-"} : o.inputs;
  int stdin_uses = 0;
  for (const auto& path : inputs) stdin_uses += path == "-" ? 1 : 0;
  if (stdin_uses > 1) throw usage_error("stdin (-) can be an input only once");
  for (const auto& path : inputs) {
    if (path != "-") line_reader probe(path);  // every input opens before any output
  }

  any_filter filter = o.window_seconds
                          ? any_filter(std::in_place_type<age_partitioned_bloom>,
                                       age_partitioned_bloom::plan_time_params(
                                           static_cast<std::uint64_t>(*o.window_seconds), *o.window, o.fpr,
                                           info.default_hash, apbf_time_unit::seconds))
                          : make_filter(entry.kind, o.window ? *o.window : o.capacity, o.fpr, info.default_hash);
  std::uint64_t lines = 0, printed = 0;
  std::string out;
  out.reserve(std::size_t{1} << 20);
  auto flush = [&] {
    if (!out.empty() && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
      throw error(errc::io, "cannot write to stdout");
    }
    out.clear();
  };
  std::visit(
      [&](auto& f) {
        using F = std::decay_t<decltype(f)>;
        key_hasher hasher(format, f.hash());
        auto batch = [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view> text) {
          std::vector<std::uint64_t> bits;
          if constexpr (fallible_insert<F>) {
            cuckoo_batch_result r = f.try_insert_if_absent_many(hashes);
            if (r.processed < hashes.size()) {
              flush();
              throw error(errc::construction_failed,
                          "the " + std::string(kind_traits<F>::cli_name) + " filter is full after " + std::to_string(f.inserted()) +
                              " distinct lines; give a larger --capacity (the lines printed so far are correct)");
            }
            bits = std::move(r.inserted_bits);
          } else if constexpr (requires { f.insert_if_absent_many(hashes); }) {
            bits = f.insert_if_absent_many(hashes);
          } else {
            throw error(errc::unsupported, "this kind has no test-and-add");
          }
          for (std::size_t i = 0; i < hashes.size(); ++i) {
            if ((bits[i / 64] >> (i % 64)) & 1) {
              out.append(text[i]);
              out += '\n';
              ++printed;
            }
          }
          lines += hashes.size();
          if (out.size() >= (std::size_t{1} << 20)) flush();
        };
        if constexpr (windowed_filter<F>) {
          if (o.window_seconds) {
            // A time window: each line's KEY is tested and added at its TIME.
            std::uint64_t latest = f.state().now;
            for (const auto& path : inputs) {
              line_reader reader(path);
              for_each_timed_line(
                  reader, hasher, latest,
                  [&](std::uint64_t time, std::uint64_t h, std::string_view line) {
                    f.advance_to(time);
                    if (f.insert_if_absent_hash(h)) {
                      out.append(line);
                      out += '\n';
                      ++printed;
                    }
                    ++lines;
                  },
                  [&] {
                    if (out.size() >= (std::size_t{1} << 20)) flush();
                  });
            }
            return;
          }
        }
        for (const auto& path : inputs) {
          line_reader reader(path);
          (void)for_each_key_batch(reader, hasher, batch, [](std::uint64_t, std::uint64_t) {});
        }
      },
      filter);
  flush();
  if (std::fflush(stdout) != 0) throw error(errc::io, "cannot write to stdout");
  if (!o.quiet) {
    const double fpr = std::visit([](const auto& f) { return f.estimated_fpr(); }, filter);
    const bool over = !info.grows && printed > o.capacity;
    std::string window_note;
    if (const auto* w = std::get_if<age_partitioned_bloom>(&filter); w != nullptr && w->overflowed_generations() != 0) {
      window_note = "; " + std::to_string(w->overflowed_generations()) +
                    " generations filled up before their time (more than --window keys within --window-seconds), "
                    "so lines before them were forgotten early";
    }
    std::fprintf(stderr,
                 "bloomkit: dedupe: %llu lines, %llu printed, %llu dropped as seen before; a new line is dropped "
                 "with probability at most the filter's FPR: %.3g%% now (target %.3g%%)%s%s\n",
                 static_cast<unsigned long long>(lines), static_cast<unsigned long long>(printed),
                 static_cast<unsigned long long>(lines - printed), 100 * fpr, 100 * o.fpr,
                 over ? "; more distinct lines than --capacity, so the FPR is past its target" : "",
                 window_note.c_str());
  }
  return exit_ok;
}

}  // namespace

void register_dedupe(CLI::App& app, command_table& table) {
  auto o = std::make_shared<dedupe_options>();
  CLI::App* sub = app.add_subcommand(
      "dedupe", "Print each line the first time it is (probably) seen: a streaming uniq for unsorted input");
  sub->footer(
      "Examples:\n"
      "  bloomkit dedupe access.log > first-seen.log\n"
      "  zcat huge.gz | bloomkit dedupe --fpr 1e-6 > unique.txt\n"
      "  bloomkit dedupe --kind window --window 100000 events.txt   # unique within the last 100000 lines\n"
      "  bloomkit dedupe --kind window --window 100000 --window-seconds 3600 events.tsv\n"
      "      # TIME<TAB>KEY lines: each line whose KEY is new within the last hour\n\n"
      "A repeated line is never printed twice. A new line is wrongly dropped only as a false positive,\n"
      "with probability at most the filter's FPR (--fpr; the scalable default keeps it there for any\n"
      "number of distinct lines; fixed-size kinds pass it beyond --capacity and say so at the end).");
  sub->add_option("inputs", o->inputs, "files to read in order; - or nothing reads stdin");
  sub->add_option("-k,--kind", o->kind, "filter kind (default scalable): " + kind_names());
  sub->add_option("-p,--fpr", o->fpr, "the chance a new line is wrongly dropped, in (0, 1) (default 1e-4)");
  sub->add_option("-n,--capacity", o->capacity,
                  "expected distinct lines, e.g. 10000000 or 1e7 (default 10000000; scalable grows past it)")
      ->transform(count_notation());
  sub->add_option("--window", o->window,
                  "--kind window: lines are unique within the last N lines; with --window-seconds, the most keys "
                  "any window of that many seconds holds")
      ->transform(count_notation());
  sub->add_option("--window-seconds", o->window_seconds,
                  "--kind window: unique within the last T seconds instead of N lines: every line is TIME<TAB>KEY "
                  "(TIME in whole seconds, never decreasing, as for build --window-seconds); the whole line is "
                  "printed");
  sub->add_option("-f,--format", o->format,
                  "key format: text, hex, u64, i64, int or f64 (default text: the line's bytes)");
  sub->add_flag("-q,--quiet", o->quiet, "no summary on stderr");
  table.emplace_back(sub, [o] { return run_dedupe(*o); });
}

}  // namespace bloomkit::cli
