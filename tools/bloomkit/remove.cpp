// tools/bloomkit/remove.cpp - `bloomkit remove FILE [KEY...]`: delete keys
// from a filter of a kind that removes (kind_traits<F>::removes; the
// removable_filter concept) and write it back.
//
// Each key is removed once (remove_hash). A key that is certainly
// absent (a zero counter) is refused and changes nothing; it is reported as
// "absent", not as an error, so a batch of deletions goes through.
//
// Order, so that a non-zero exit always means the filter is unchanged (a
// retry then removes each key once, not twice): the removals are made in
// memory, the per-key answers are written to stdout and flushed, and only
// when that succeeded is the filter committed, atomically (file_format's
// save: temporary file, fsync, rename), to FILE itself or to -o OUT. If
// stdout fails (a full disk, a closed pipe) nothing is saved (exit 2); if
// the save fails after the answers were printed, the message says that
// nothing was removed (exit 2). So the answers are final only with exit 0.
// A key that does not parse in --format aborts before anything is written
// (exit 2). Neither FILE nor -o OUT may be one of the --input key files.
//
// Output, one line per key in input order:
//   plain   KEY<TAB>removed | KEY<TAB>absent
//   --json  {"key":"...","removed":true|false}   (u64 keys as JSON numbers)
// and on stderr (unless -q) a summary with how many were refused.
//
// Removing a key that was never inserted but passes the filter (a false
// positive) is accepted like any other and decrements counters other keys
// share: callers remove only keys they inserted (counting_bloom.hpp).
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/file_format.hpp"
#include "commands.hpp"
#include "json_out.hpp"
#include "key_input.hpp"
#include "output_guard.hpp"

namespace bloomkit::cli {

namespace {

struct remove_options {
  std::string file;
  std::vector<std::string> keys;
  std::vector<std::string> inputs;
  std::optional<std::string> format;  // unset: the file's key type decides (format_against)
  std::string output;  // empty: FILE itself
  bool json = false;
  bool quiet = false;
};

/// The --kind names of the kinds that remove keys (kind_traits<F>::removes),
/// each after `prefix`, joined by `separator`.
std::string removing_kinds(std::string_view separator, std::string_view prefix) {
  std::string out;
  for (const kind_info& k : all_kinds) {
    if (!k.removes) continue;
    if (!out.empty()) out += separator;
    out += prefix;
    out += k.cli_name;
  }
  return out;
}

void append_hex_bytes(std::string& out, std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
}

/// The answer line for one key (see the header comment).
void append_answer(std::string& out, const remove_options& o, key_format format, std::string_view line, bool removed) {
  if (o.json) {
    out += "{\"key\":";
    if (is_integer_format(format)) {
      append_integer_key(out, format, line);  // validated when hashed
    } else {
      append_json_string(out, line);
      if (format == key_format::text && !is_valid_utf8(line)) {
        out += ",\"key_hex\":\"";
        append_hex_bytes(out, line);
        out += '"';
      }
    }
    out += removed ? ",\"removed\":true}\n" : ",\"removed\":false}\n";
  } else {
    out.append(line);
    out += removed ? "\tremoved\n" : "\tabsent\n";
  }
}

int run_remove(const remove_options& o) {
  if (o.format) (void)parse_key_format(*o.format);  // a misspelt --format is a usage error before FILE opens
  if (!o.keys.empty() && !o.inputs.empty()) throw usage_error("give keys as arguments or with --input, not both");
  int stdin_uses = 0;
  for (const auto& path : o.inputs) stdin_uses += path == "-" ? 1 : 0;
  if (stdin_uses > 1) throw usage_error("stdin (-) can be an input only once");

  const std::string target = o.output.empty() ? o.file : o.output;
  check_output(target, o.inputs, o.output.empty() ? "FILE" : "-o");
  any_filter loaded = load(std::filesystem::path(o.file));
  if (!std::visit([](const auto& f) { return removable_filter<std::decay_t<decltype(f)>>; }, loaded)) {
    throw error(errc::unsupported, "'" + o.file + "' holds a " + std::string(to_string(kind_of(loaded))) +
                                       "; only " + removing_kinds(" and ", "") +
                                       " filters can remove keys (build one with " +
                                       removing_kinds(" or ", "--kind ") + ")");
  }
  // The file's key type picks the format when none is given, and refuses
  // one whose keys never convert into it, before any key is read.
  const key_format format =
      format_against(o.format, std::visit([](const auto& f) { return f.hash().keys; }, loaded), o.file);
  std::string answers;
  std::uint64_t removed = 0, absent = 0;
  std::visit(
      [&](auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (removable_filter<F>) {
          key_hasher hasher(format, f.hash());
          auto remove_batch = [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view> lines) {
            for (std::size_t i = 0; i < hashes.size(); ++i) {
              const bool ok = f.remove_hash(hashes[i]) == remove_result::removed;
              (ok ? removed : absent) += 1;
              append_answer(answers, o, format, lines[i], ok);
            }
          };
          if (!o.keys.empty()) {
            for (std::size_t i = 0; i < o.keys.size(); ++i) {
              const std::string_view key = o.keys[i];
              std::uint64_t h = 0;
              if (!hasher.hash(key, h)) {
                throw error(errc::invalid_argument, "key " + std::to_string(i + 1) + " on the command line: " +
                                                        hasher.why() + " (got " + quote_for_message(key) + ")");
              }
              remove_batch(std::span<const std::uint64_t>(&h, 1), std::span<const std::string_view>(&key, 1));
            }
          } else {
            const std::vector<std::string> inputs = o.inputs.empty() ? std::vector<std::string>{"-"} : o.inputs;
            for (const auto& path : inputs) {
              line_reader reader(path);
              (void)for_each_key_batch(reader, hasher, remove_batch, [](std::uint64_t, std::uint64_t) {});
            }
          }
        }
      },
      loaded);

  // Answers first, then commit (see the header comment).
  if ((!answers.empty() && std::fwrite(answers.data(), 1, answers.size(), stdout) != answers.size()) ||
      std::fflush(stdout) != 0) {
    throw error(errc::io, "cannot write to stdout (the answers: " + std::string(std::strerror(errno)) + "); " +
                              target + " was not changed");
  }
  try {
    save(loaded, std::filesystem::path(target));
  } catch (const error& e) {
    throw error::in_context("", e, "; nothing was removed, " + target + " is unchanged");
  }
  if (!o.quiet) {
    std::visit(
        [&](const auto& f) {
          std::string detail;
          if constexpr (requires { f.saturated_counters(); }) {
            detail = std::to_string(f.saturated_counters()) + " saturated counters";
          } else if constexpr (requires { f.full(); }) {
            detail = "load " + std::to_string(100 * f.load_factor()).substr(0, 5) + "%" +
                     (f.full() ? ", still full" : "");
          }
          std::fprintf(stderr,
                       "bloomkit: removed %llu of %llu keys from %s (%llu certainly absent, left unchanged); "
                       "%llu inserted, %s, estimated FPR %.4g%%\n",
                       static_cast<unsigned long long>(removed), static_cast<unsigned long long>(removed + absent),
                       target.c_str(), static_cast<unsigned long long>(absent),
                       static_cast<unsigned long long>(f.inserted()), detail.c_str(), 100 * f.estimated_fpr());
        },
        loaded);
  }
  return exit_ok;
}

}  // namespace

void register_remove(CLI::App& app, command_table& table) {
  auto o = std::make_shared<remove_options>();
  CLI::App* sub = app.add_subcommand(
      "remove", "Delete keys from a counting filter: one line per key, KEY<TAB>removed|absent");
  sub->footer(
      "Examples:\n"
      "  bloomkit build --kind counting users.txt -o users.bkf\n"
      "  bloomkit remove users.bkf alice bob\n"
      "  bloomkit remove users.bkf --input departed.txt -o users-now.bkf --json\n\n"
      "A key with a zero counter is certainly absent: it is refused, changes nothing and prints\n"
      "\"absent\" (exit 0). Remove only keys that were inserted: removing a false positive can\n"
      "make other keys disappear. Counters stuck at 15 are never decremented (no false negatives).\n"
      "Without KEY arguments or --input, keys are read from stdin, one per line (see build --help).");
  sub->add_option("file", o->file, "the counting filter file")->required();
  sub->add_option("keys", o->keys, "keys to remove (else --input files or stdin)");
  sub->add_option("-i,--input", o->inputs, "read keys from this file (repeatable; - is stdin)");
  sub->add_option("-f,--format", o->format,
                  "key format: text, hex, u64, i64, int or f64 (default: the file's key type: text for bytes and "
                  "for files without one, int for int64, f64 for float64)");
  sub->add_option("-o,--output", o->output, "write the result here instead of back to FILE (atomically)");
  sub->add_flag("--json", o->json, "one JSON object per key: {\"key\": ..., \"removed\": true|false}");
  sub->add_flag("-q,--quiet", o->quiet, "no summary line on stderr");
  table.emplace_back(sub, [o] { return run_remove(*o); });
}

}  // namespace bloomkit::cli
