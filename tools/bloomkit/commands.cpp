// tools/bloomkit/commands.cpp - the list of subcommands.
#include "commands.hpp"

namespace bloomkit::cli {

namespace {
command_table& table() {
  static command_table commands;
  return commands;
}
}  // namespace

void register_commands(CLI::App& app) {
  register_build(app, table());
  register_query(app, table());
  register_info(app, table());
  register_set_ops(app, table());
  register_fold(app, table());
  register_remove(app, table());
  register_dedupe(app, table());
  register_parquet(app, table());
  register_demo(app, table());
  register_completion(app, table());
}

int run_selected(CLI::App& app) {
  for (auto& [sub, run] : table()) {
    if (sub->parsed()) return run();
  }
  (void)app;
  throw usage_error("no command given; see bloomkit --help");
}

}  // namespace bloomkit::cli
