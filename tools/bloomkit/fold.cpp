// tools/bloomkit/fold.cpp - `bloomkit fold FILE --fpr P -o OUT`: the smallest
// filter reached by halving FILE's blocks whose estimated FPR stays at or
// under P.
//
// Only the block layouts fold (blocked_bloom, split_block_bloom): their block
// index is ((h >> 32) * n) >> 32, so for an even block count OR-ing block 2i
// with 2i + 1 gives exactly the filter of n / 2 blocks (block_filter::fold
// states the proof). Other kinds are refused (exit 2) with the reason; a
// filter whose block count is odd cannot halve and is written unchanged,
// which the summary says. The estimate is the folded bits' own FPR (the
// per-block mixture of docs/MATH.md); the result is written atomically
// (file_format's save), OUT may not be FILE.
#include <cstdio>
#include <memory>
#include <string>
#include <variant>

#include "bloomkit/file_format.hpp"
#include "commands.hpp"
#include "filter_summary.hpp"
#include "json_out.hpp"
#include "output_guard.hpp"

namespace bloomkit::cli {

namespace {

struct fold_options {
  std::string input;
  std::string output;
  double fpr = 0;
  bool json = false;
  bool quiet = false;
};

int run_fold(const fold_options& o) {
  if (!(o.fpr > 0.0 && o.fpr < 1.0)) throw usage_error("--fpr must be in (0, 1), got " + bloomkit::format_number(o.fpr));
  check_output(o.output, {o.input});
  any_filter filter = load(std::filesystem::path(o.input));
  const std::string kind(to_string(kind_of(filter)));
  std::uint64_t before = 0, after = 0;
  std::uint32_t levels = 0;
  std::visit(
      [&](auto& f) {
        if constexpr (requires { f.fold_to(0.5); }) {
          before = f.num_blocks();
          levels = f.fold_to(o.fpr);
          after = f.num_blocks();
        } else {
          throw error(errc::unsupported,
                      o.input + ": a " + kind +
                          " cannot fold; only blocked_bloom and split_block_bloom filters fold (their block index "
                          "((h >> 32) * n) >> 32 halves exactly when n halves). Rebuild it smaller instead.");
        }
      },
      filter);
  const filter_summary summary = summarize(filter);
  if (o.json) {
    json_object line = summary_json(summary);
    line.field("file", o.output);
    line.field("blocks_before", before);
    line.field("folds", static_cast<std::uint64_t>(levels));
    std::fputs(line.line().c_str(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      throw error(errc::io, "cannot write to stdout (the --json summary); " + o.output + " was not written");
    }
  }
  // The message is made before the commit: nothing may fail after save().
  char message[512];
  if (levels == 0) {
    std::snprintf(message, sizeof message,
                  "bloomkit: wrote %s unchanged (%llu blocks): %s; estimated FPR %.4g%%\n", o.output.c_str(),
                  static_cast<unsigned long long>(before),
                  before % 2 != 0 ? "an odd block count cannot halve" : "one fold would exceed --fpr",
                  100 * summary.estimated_fpr);
  } else {
    std::snprintf(message, sizeof message, "bloomkit: wrote %s: %s folded %u times, %llu -> %llu blocks (%llu bytes), estimated FPR %.4g%%\n",
                  o.output.c_str(), kind.c_str(), levels, static_cast<unsigned long long>(before),
                  static_cast<unsigned long long>(after), static_cast<unsigned long long>(summary.size_bytes),
                  100 * summary.estimated_fpr);
  }
  save(filter, o.output);
  if (!o.json && !o.quiet) std::fputs(message, stderr);
  return exit_ok;
}

}  // namespace

void register_fold(CLI::App& app, command_table& table) {
  auto o = std::make_shared<fold_options>();
  CLI::App* sub = app.add_subcommand("fold", "Shrink a block filter by halving while its estimated FPR stays under --fpr");
  sub->footer(
      "Example:\n  bloomkit build keys.txt --kind split_block --capacity 10000000 --fpr 0.01 -o big.bkf\n"
      "  bloomkit fold big.bkf --fpr 0.01 -o small.bkf\n\n"
      "Folding ORs block 2i with block 2i+1: the result is exactly the filter of half the blocks built from\n"
      "the same keys, so nothing inserted is lost. Build large when the key count is unknown, then fold.\n"
      "Only blocked_bloom and split_block_bloom filters fold; others are refused (exit 2).");
  sub->add_option("input", o->input, "the filter file to fold")->required();
  sub->add_option("--fpr", o->fpr, "the highest estimated false-positive rate to fold down to, in (0, 1)")->required();
  sub->add_option("-o,--output", o->output, "the filter file to write (appears only when complete)")->required();
  sub->add_flag("--json", o->json, "print a summary of the result as one JSON object on stdout");
  sub->add_flag("-q,--quiet", o->quiet, "no summary line");
  table.emplace_back(sub, [o] { return run_fold(*o); });
}

}  // namespace bloomkit::cli
