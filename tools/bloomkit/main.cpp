// tools/bloomkit/main.cpp - `bloomkit <command> [options]`.
//
// Each subcommand lives in its own file and registers itself here through
// the functions declared in commands.hpp. main owns what every command
// shares: the one message form on stderr (`bloomkit: WHERE: what`, built from
// a library error's parts), the exit
// codes (0 ok, 1 usage, 2 data), the unknown-command suggestion, values that
// begin with '-' read as data (argv_rewrite.hpp), and the final check of
// stdout: a command whose output could not be written (a full disk,
// /dev/full) exits 2 instead of 0. Nothing escapes as std::terminate, and
// SIGINT/SIGTERM remove a save's temporary file (docs/RELIABILITY.md).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "argv_rewrite.hpp"
#include "bloomkit/error.hpp"
#include "commands.hpp"
#include "memory.hpp"
#include "signals.hpp"

namespace {

/// Set once a message went to stderr: checked_exit then adds no second
/// line for the same failure (a command that could not write its answers to
/// stdout has said so; the flush after it fails for the same reason).
bool reported_an_error = false;

/// Prints `bloomkit: MESSAGE`: the one line of a failure.
void report(const std::string& message) {
  reported_an_error = true;
  std::fprintf(stderr, "bloomkit: %s\n", message.c_str());
}

/// A library error's MESSAGE, formatted from its parts. This program speaks
/// once, as "bloomkit: " in front of the line, so the parts that say who
/// speaks inside the library (its "bloomkit: ", the file reader's "bloomkit
/// file: ") print nothing. An error about a file leads with it, "FILE: what",
/// and does not name that file again ("x.bkf: cannot map: ..." where what()
/// reads "'x.bkf': bloomkit: cannot map 'x.bkf': ...").
std::string message_of(const bloomkit::error& e) {
  using role = bloomkit::error_part::role_t;
  const auto& parts = e.parts();
  std::string out;
  std::string subject;
  std::size_t first = 0;
  if (!parts.empty() && parts[0].role == role::subject) {
    subject = parts[0].value;
    out = subject + ": ";
    first = 1;
  }
  for (std::size_t i = first; i < parts.size(); ++i) {
    const auto& p = parts[i];
    switch (p.role) {
      case role::text: out += p.value; break;
      case role::origin: break;
      case role::mention:
        if (p.value != subject) out += " '" + p.value + "'";
        break;
      case role::subject: out += "'" + p.value + "': "; break;
      case role::kind:
      case role::field: out += p.value; break;
    }
  }
  return out;
}

/// Flushes stdout (C and C++ streams) and turns a failed write into exit 2:
/// output that did not arrive must not look like success.
int checked_exit(int rc) {
  std::cout.flush();
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int code = errno;
  if (flush_failed || std::ferror(stdout) || !std::cout.good()) {
    if (!reported_an_error) {
      report(std::string("cannot write to stdout") + (code != 0 ? std::string(": ") + std::strerror(code) : ""));
    }
    return rc == bloomkit::cli::exit_ok ? bloomkit::cli::exit_data : rc;
  }
  return rc;
}

/// The message for std::bad_alloc, formatted and printed without
/// allocating (the heap is what just failed).
int report_out_of_memory() {
  reported_an_error = true;
  const std::size_t bytes = bloomkit::cli::failed_allocation_bytes();
  if (bytes != 0) {
    std::fprintf(stderr,
                 "bloomkit: out of memory: an allocation of %zu bytes (%.1f MiB) failed; nothing was written "
                 "(a smaller --capacity or a larger --fpr needs less)\n",
                 bytes, static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::fprintf(stderr, "bloomkit: out of memory; nothing was written\n");
  }
  return bloomkit::cli::exit_data;
}

int run(int argc, char** argv) {
  CLI::App app{"bloomkit: build, query and inspect Bloom filters and their relatives"};
  app.name("bloomkit");  // parse(vector) does not take the name from argv[0]
  app.require_subcommand(1);
  app.set_version_flag("--version", "bloomkit 0.1.0");
  bloomkit::cli::register_commands(app);
  const std::vector<std::string> args = bloomkit::cli::rewrite_arguments(app, argc, argv);
  try {
    // CLI11 takes the arguments in reverse order (it pops from the back).
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : bloomkit::cli::exit_usage;
  }
  return bloomkit::cli::run_selected(app);
}

}  // namespace

int main(int argc, char** argv) {
  bloomkit::cli::install_signal_handlers();
  try {
    return checked_exit(run(argc, argv));
  } catch (const bloomkit::cli::usage_error& e) {
    report(e.what());
    return checked_exit(bloomkit::cli::exit_usage);
  } catch (const std::bad_alloc&) {
    return checked_exit(report_out_of_memory());
  } catch (const bloomkit::error& e) {
    report(message_of(e));
    return checked_exit(bloomkit::cli::exit_data);
  } catch (const std::exception& e) {
    report(e.what());
    return checked_exit(bloomkit::cli::exit_data);
  } catch (...) {
    report("an unexpected error (not a std::exception)");
    return checked_exit(bloomkit::cli::exit_data);
  }
}
