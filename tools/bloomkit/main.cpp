// tools/bloomkit/main.cpp - `bloomkit <command> [options]`.
//
// Each subcommand lives in its own file and registers itself here through
// the functions declared in commands.hpp.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "bloomkit/error.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
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
  try {
    return bloomkit::cli::run_selected(app);
  } catch (const bloomkit::cli::usage_error& e) {
    std::fprintf(stderr, "bloomkit: %s\n", e.what());
    return bloomkit::cli::exit_usage;
  } catch (const bloomkit::error& e) {
    std::fprintf(stderr, "bloomkit: %s\n", e.what());
    return bloomkit::cli::exit_data;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit: %s\n", e.what());
    return bloomkit::cli::exit_data;
  }
}
