// tools/bloomkit/main.cpp - `bloomkit <command> [options]`.
//
// Each subcommand lives in its own file and registers itself here through
// the functions declared in commands.hpp. Whatever goes wrong ends here as
// one "bloomkit: ..." line and exit 1 (usage) or 2 (data, I/O, memory);
// nothing escapes as std::terminate (docs/RELIABILITY.md).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "bloomkit/error.hpp"
#include "commands.hpp"
#include "memory.hpp"
#include "signals.hpp"

namespace {

/// Prints "bloomkit: what" (once, if the message already starts so).
void report(const char* what) {
  const char* prefix = "bloomkit: ";
  while (std::strncmp(what, prefix, std::strlen(prefix)) == 0) what += std::strlen(prefix);
  std::fprintf(stderr, "bloomkit: %s\n", what);
}

/// The message for std::bad_alloc, formatted without allocating.
int report_out_of_memory() {
  const std::size_t bytes = bloomkit::cli::failed_allocation_bytes();
  char line[160];
  if (bytes != 0) {
    std::snprintf(line, sizeof line, "out of memory: an allocation of %zu bytes (%.1f MiB) failed; nothing was written",
                  bytes, static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(line, sizeof line, "out of memory; nothing was written");
  }
  report(line);
  return bloomkit::cli::exit_data;
}

int run(int argc, char** argv) {
  CLI::App app{"bloomkit: build, query and inspect Bloom filters and their relatives"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bloomkit 0.1.0");
  bloomkit::cli::register_commands(app);
  try {
    app.parse(argc, argv);
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
    return run(argc, argv);
  } catch (const bloomkit::cli::usage_error& e) {
    report(e.what());
    return bloomkit::cli::exit_usage;
  } catch (const std::bad_alloc&) {
    return report_out_of_memory();
  } catch (const bloomkit::error& e) {
    report(e.what());
    return bloomkit::cli::exit_data;
  } catch (const std::exception& e) {
    report(e.what());
    return bloomkit::cli::exit_data;
  } catch (...) {
    report("an unexpected error (not a std::exception)");
    return bloomkit::cli::exit_data;
  }
}
