// tools/bloomkit/commands.cpp - the list of subcommands.
#include "commands.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace bloomkit::cli {

namespace {
command_table& table() {
  static command_table commands;
  return commands;
}
}  // namespace

CLI::Validator count_notation() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string given = value;
        if (!given.empty() && given.front() == '-') return "must not be negative, got " + given;
        const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
        std::size_t i = given.size() > 0 && given.front() == '+' ? 1 : 0;
        std::string digits;
        std::size_t fraction_digits = 0;
        while (i < given.size() && is_digit(given[i])) digits += given[i++];
        if (i < given.size() && given[i] == '.') {
          ++i;
          while (i < given.size() && is_digit(given[i])) {
            digits += given[i++];
            ++fraction_digits;
          }
        }
        long long exponent = 0;
        bool exponent_ok = true;
        if (i < given.size() && (given[i] == 'e' || given[i] == 'E')) {
          ++i;
          bool negative = false;
          if (i < given.size() && (given[i] == '+' || given[i] == '-')) negative = given[i++] == '-';
          const std::size_t first = i;
          while (i < given.size() && is_digit(given[i])) {
            // Past a few hundred the value is 0 or too large either way.
            if (exponent < 100000) exponent = exponent * 10 + (given[i] - '0');
            ++i;
          }
          exponent_ok = i > first;
          if (negative) exponent = -exponent;
        }
        if (digits.empty() || !exponent_ok || i != given.size()) {
          return "must be a whole number (digits, or scientific notation such as 1e6), got " + given;
        }
        // The value is digits * 10^shift, worked on the decimal digits so
        // that nothing is rounded.
        const long long shift = exponent - static_cast<long long>(fraction_digits);
        digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
        if (digits.empty()) {
          value = "0";
          return {};
        }
        if (shift < 0) {
          const auto dropped = static_cast<std::size_t>(-shift);
          if (dropped >= digits.size() || digits.find_first_not_of('0', digits.size() - dropped) != std::string::npos) {
            return "must be a whole number, got " + given;
          }
          digits.resize(digits.size() - dropped);
        } else {
          if (static_cast<long long>(digits.size()) + shift > 20) return "must be at most 2^64 - 1, got " + given;
          digits.append(static_cast<std::size_t>(shift), '0');
        }
        if (digits.size() == 20 && digits > "18446744073709551615") return "must be at most 2^64 - 1, got " + given;
        value = digits;
        return {};
      },
      "N >= 0");
}

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
