// tools/bloomkit/commands.hpp - how subcommands plug into the CLI.
//
// A subcommand file defines `void register_NAME(CLI::App&, command_table&)`
// which adds its CLI11 subcommand and a function to run when it is chosen;
// register_commands in commands.cpp calls each. Exit codes: 0 success,
// 1 usage error, 2 data error (bad file, bad key, mismatch).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bloomkit::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 1;
inline constexpr int exit_data = 2;

/// Thrown for a usage error found after parsing (exit 1).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CLI11 transform for a count option (keys, bits, a window): rewrites
/// scientific notation and integral decimals ("1e15", "2.5e3", "1000.0") to
/// the plain integer CLI11 converts, exactly (no rounding through a double),
/// and refuses a negative value, a fraction ("1.5") or one past 2^64 - 1 by
/// saying which. Plain digits pass through unchanged.
CLI::Validator count_notation();

/// Subcommands and what to run for each.
using command_table = std::vector<std::pair<CLI::App*, std::function<int()>>>;

void register_commands(CLI::App& app);
int run_selected(CLI::App& app);

void register_demo(CLI::App& app, command_table& table);
void register_build(CLI::App& app, command_table& table);
void register_query(CLI::App& app, command_table& table);
void register_info(CLI::App& app, command_table& table);
void register_set_ops(CLI::App& app, command_table& table);  // merge and intersect
void register_parquet(CLI::App& app, command_table& table);  // parquet list/probe/extract/encode/write
void register_remove(CLI::App& app, command_table& table);   // the kinds that remove keys
void register_dedupe(CLI::App& app, command_table& table);   // streaming uniq by test-and-add
void register_fold(CLI::App& app, command_table& table);     // halve block filters down to a target FPR
void register_completion(CLI::App& app, command_table& table);  // hidden: completion bash|zsh|fish, man

}  // namespace bloomkit::cli
