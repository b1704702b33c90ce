// tools/bloomkit/set_ops.cpp - `bloomkit merge A B... -o OUT` (union) and
// `bloomkit intersect A B... -o OUT` (intersection).
//
// Both need filters of one kind, one hash_spec and one shape (bits and k, or
// blocks and k); the first difference found is named, with both values and
// both files, and nothing is written (exit 2). The result keeps the first
// file's capacity and target FPR, and is written atomically (file_format's
// save). OUT may not be one of the inputs (output_guard.hpp): an intersection
// written over its input cannot be undone; write a new file, then rename it.
//
// What the result means: the union of two Bloom filters is exactly the filter
// of the union of their sets. The intersection's bits are a superset of the
// bits of the intersection's own filter, so it has no false negatives but
// may answer "maybe" more often than a filter built from the common keys
// (Broder and Mitzenmacher 2004, "Network applications of Bloom filters",
// section 2.2). inserted() of a union is the sum of the inputs' counts and
// of an intersection their minimum, as the library defines; the minimum is
// only an upper bound of the common keys, so the file records it as one
// (inserted_accuracy "at_most", format version 2) and `info` prints "at most".
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "commands.hpp"
#include "filter_summary.hpp"
#include "json_out.hpp"
#include "output_guard.hpp"
#include "jvm_formats.hpp"

namespace bloomkit::cli {

namespace {

enum class set_op { merge, intersect };

struct set_options {
  std::vector<std::string> inputs;
  std::string output;
  bool json = false;
  bool quiet = false;
};

std::string hash_words(hash_spec h) { return std::string(to_string(h.algorithm)) + " seed " + std::to_string(h.seed); }

/// "bits 1024, k 7, blocks 2 (built for --capacity 100 --fpr 0.01)": what must agree.
std::string shape_words(const filter_summary& s) {
  std::string out;
  if (s.bits) out += "bits " + std::to_string(*s.bits);
  if (s.k) out += (out.empty() ? "" : ", ") + std::string("k ") + std::to_string(*s.k);
  if (s.blocks) out += (out.empty() ? "" : ", ") + std::string("blocks ") + std::to_string(*s.blocks);
  char fpr[32];
  std::snprintf(fpr, sizeof fpr, "%g", s.target_fpr);
  return out + " (built for --capacity " + std::to_string(s.capacity) + " --fpr " + fpr + ")";
}

int run_set_op(set_op op, const set_options& o) {
  const char* verb = op == set_op::merge ? "merge" : "intersect";
  if (o.inputs.size() < 2) throw usage_error(std::string(verb) + " needs at least two filter files");
  check_output(o.output, o.inputs);
  // The first input is read once: only a file that is not in bloomkit's
  // format is looked at again, as a Spark or Guava stream (a file replaced
  // by rename while it is read never matters: docs/RELIABILITY.md).
  std::optional<any_filter> first;
  try {
    first.emplace(load(std::filesystem::path(o.inputs[0])));
  } catch (const error&) {
    if (is_jvm_filter_file(o.inputs[0])) return run_jvm_set_op(op == set_op::merge, o.inputs, o.output, o.json, o.quiet);
    throw;
  }
  any_filter result = std::move(*first);
  for (std::size_t i = 1; i < o.inputs.size(); ++i) {
    const any_filter other = load(std::filesystem::path(o.inputs[i]));
    // The files in the order every "X vs Y" below gives their values: the
    // result so far (the first file's parameters) first.
    const std::string prefix =
        std::string("cannot ") + verb + " " + o.inputs[0] + " with " + o.inputs[i] + ": ";
    if (kind_of(other) != kind_of(result)) {
      throw error(errc::mismatch, prefix + "kinds differ (" + std::string(to_string(kind_of(result))) + " vs " +
                                      std::string(to_string(kind_of(other))) + ")");
    }
    std::visit(
        [&](auto& a) {
          using F = std::decay_t<decltype(a)>;
          const F& b = std::get<F>(other);
          if (!same_hash_function(a.hash(), b.hash())) {
            throw error(errc::mismatch,
                        prefix + "hashes differ (" + hash_words(a.hash()) + " vs " + hash_words(b.hash()) + ")");
          }
          if (a.hash().keys != b.hash().keys) {
            // Keys of two types hash different bytes: the union would answer
            // neither type's keys truly. A usage error, as a --format that
            // contradicts a file is: nothing is read further or written.
            throw usage_error(prefix + "key types differ (" + o.inputs[0] + " holds " +
                              std::string(to_string(a.hash().keys)) + " keys, " + o.inputs[i] + " holds " +
                              std::string(to_string(b.hash().keys)) +
                              " keys); rebuild one with the other's --format");
          }
          try {
            if (op == set_op::merge) {
              if constexpr (mergeable_with<F, F>) {
                a.merge(b);
              } else {
                if constexpr (requires { kind_traits<F>::no_merge_reason; }) {
                  throw error(errc::unsupported, std::string(kind_traits<F>::no_merge_reason));
                } else {
                  throw error(errc::unsupported, std::string(to_string(kind_of(result))) + " filters cannot be merged");
                }
              }
            } else {
              if constexpr (intersectable_with<F, F>) {
                a.intersect(b);
              } else {
                if constexpr (requires { kind_traits<F>::no_merge_reason; }) {
                  throw error(errc::unsupported, std::string(kind_traits<F>::no_merge_reason));
                } else {
                  throw error(errc::unsupported,
                              std::string(to_string(kind_of(result))) + " filters cannot be intersected");
                }
              }
            }
          } catch (const error& e) {
            // The library names the differing parameter; add each file with
            // its own figures, and the fix.
            if (e.code() != errc::mismatch) throw error::in_context(prefix, e);
            throw error::in_context(prefix, e, "; " + o.inputs[0] + ": " + shape_words(summarize_one(a, kind_of(result))) +
                                      "; " + o.inputs[i] + ": " + shape_words(summarize_one(b, kind_of(other))) +
                                      ". Build both with the same --kind, --capacity and --fpr (or the same --bits and "
                                      "--hashes) to " + verb + " them");
          }
        },
        result);
  }

  // The --json summary first, then the commit (as in build): a lost
  // summary fails the command with nothing written.
  const filter_summary summary = summarize(result);
  if (o.json) {
    json_object line = summary_json(summary);
    line.field("file", o.output);
    std::fputs(line.line().c_str(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      throw error(errc::io, "cannot write to stdout (the --json summary); " + o.output + " was not written");
    }
  }
  // The message is made before the file is committed: after save() nothing
  // may allocate, or a failing allocation would exit 2 with the output
  // already written (a non-zero exit means nothing changed).
  const std::string count = summary.inserted_accuracy == count_accuracy::exact
                                ? std::to_string(summary.inserted) + " inserted"
                                : summary.inserted_accuracy == count_accuracy::at_most
                                      ? "at most " + std::to_string(summary.inserted) + " keys"
                                      : "about " + std::to_string(summary.inserted) + " keys";
  save(result, o.output);
  if (!o.json && !o.quiet) {
    std::fprintf(stderr, "bloomkit: wrote %s: %s of %zu filters, %s, estimated FPR %.4g%%\n", o.output.c_str(),
                 op == set_op::merge ? "union" : "intersection", o.inputs.size(), count.c_str(),
                 100 * summary.estimated_fpr);
  }
  if (summary.saturated) {
    std::fprintf(stderr,
                 "bloomkit: warning: %s is past its design capacity (%llu inserted, capacity %llu); "
                 "estimated FPR %.4g%% vs target %.4g%%\n",
                 o.output.c_str(), static_cast<unsigned long long>(summary.inserted),
                 static_cast<unsigned long long>(summary.capacity), 100 * summary.estimated_fpr,
                 100 * summary.target_fpr);
  }
  return exit_ok;
}

void register_one(CLI::App& app, command_table& table, set_op op) {
  auto o = std::make_shared<set_options>();
  const bool merge = op == set_op::merge;
  CLI::App* sub = app.add_subcommand(merge ? "merge" : "intersect",
                                     merge ? "Union of filters of one kind, hash and size (bitwise OR)"
                                           : "Intersection of filters of one kind, hash and size (bitwise AND)");
  sub->footer(merge ? "Example:\n  bloomkit merge monday.bkf tuesday.bkf -o week.bkf\n\n"
                      "Refuses (exit 2) filters whose kind, hash or parameters differ, naming the difference."
                    : "Example:\n  bloomkit intersect a.bkf b.bkf -o both.bkf\n\n"
                      "Refuses (exit 2) filters whose kind, hash or parameters differ, naming the difference.\n"
                      "The result may answer maybe more often than a filter built from the common keys.");
  sub->add_option("inputs", o->inputs, "two or more filter files")->required();
  sub->add_option("-o,--output", o->output, "the filter file to write (appears only when complete)")->required();
  sub->add_flag("--json", o->json, "print a summary of the result as one JSON object on stdout");
  sub->add_flag("-q,--quiet", o->quiet, "no summary line");
  table.emplace_back(sub, [op, o] { return run_set_op(op, *o); });
}

}  // namespace

void register_set_ops(CLI::App& app, command_table& table) {
  register_one(app, table, set_op::merge);
  register_one(app, table, set_op::intersect);
}

}  // namespace bloomkit::cli
