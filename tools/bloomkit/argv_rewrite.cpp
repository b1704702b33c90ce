// tools/bloomkit/argv_rewrite.cpp - see argv_rewrite.hpp.
#include "argv_rewrite.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "commands.hpp"

namespace bloomkit::cli {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

CLI::App* find_subcommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

/// The option of `sub` that `token` names exactly ("-c", "--json",
/// "--format=u64", "-fu64" for a short option that takes a value), or
/// nullptr. `inline_value` says whether the value is inside the token.
const CLI::Option* option_named(const CLI::App& sub, const std::string& token, bool& inline_value) {
  inline_value = false;
  if (token.size() < 2 || token[0] != '-') return nullptr;
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->get_positional()) continue;
    const bool takes_value = opt->get_items_expected_max() > 0;  // flags expect 0 items
    if (token[1] == '-') {
      const std::string body = token.substr(2);
      const std::string name = body.substr(0, body.find('='));
      for (const auto& l : opt->get_lnames()) {
        if (l == name) {
          inline_value = body.find('=') != std::string::npos;
          return opt;
        }
      }
    } else {
      for (const auto& s : opt->get_snames()) {
        if (token.compare(1, s.size(), s) != 0) continue;
        if (token.size() == 1 + s.size()) return opt;
        if (takes_value) {
          inline_value = true;
          return opt;
        }
      }
    }
  }
  return nullptr;
}

/// Rewrites the arguments after the subcommand token (see the header).
std::vector<std::string> values_as_data(const CLI::App& sub, std::vector<std::string> tail, std::size_t fixed) {
  std::vector<std::string> options, positionals, data;
  for (std::size_t i = 0; i < tail.size(); ++i) {
    const std::string& token = tail[i];
    if (token == "--") {
      for (std::size_t j = i + 1; j < tail.size(); ++j) {
        (positionals.size() < fixed ? positionals : data).push_back(tail[j]);
      }
      break;
    }
    bool inline_value = false;
    const CLI::Option* opt = option_named(sub, token, inline_value);
    const bool looks_like_option = token.size() > 1 && token[0] == '-';
    if (opt != nullptr || (looks_like_option && positionals.size() < fixed)) {
      // An option (or, before the fixed positionals, anything option-shaped:
      // CLI11 reports unknown ones). Its value, if separate, goes with it.
      options.push_back(token);
      if (opt != nullptr && opt->get_items_expected_max() > 0 && !inline_value && i + 1 < tail.size()) {
        options.push_back(tail[++i]);
      }
    } else if (positionals.size() < fixed) {
      positionals.push_back(token);
    } else {
      data.push_back(token);
    }
  }
  // Positionals first: an option taking several values (--input a b)
  // would otherwise swallow FILE; "--" ends the options before the data.
  std::vector<std::string> out = std::move(positionals);
  out.insert(out.end(), options.begin(), options.end());
  if (!data.empty()) {
    out.emplace_back("--");
    out.insert(out.end(), data.begin(), data.end());
  }
  return out;
}

/// Index of the first token at or after `from` that does not begin with '-'.
std::size_t first_word(const std::vector<std::string>& args, std::size_t from) {
  while (from < args.size() && !args[from].empty() && args[from][0] == '-') ++from;
  return from;
}

[[noreturn]] void unknown_command(const std::string& word, const std::vector<std::string>& names,
                                  const std::string& where) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string near = nearest_name(word, names);
  throw usage_error("unknown command '" + where + word + "'" +
                    (near.empty() ? std::string() : "; did you mean '" + where + near + "'?") +
                    " (commands: " + list + "; see bloomkit " + where + "--help)");
}

}  // namespace

std::string nearest_name(std::string_view word, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& name : names) {
    const std::size_t d = name.starts_with(word) && !word.empty() ? 1 : edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::vector<std::string> rewrite_arguments(CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::size_t at = first_word(args, 0);
  if (at == args.size()) return args;
  CLI::App* sub = find_subcommand(app, args[at]);
  if (sub == nullptr) unknown_command(args[at], subcommand_names(app), "");

  std::size_t tail_from = at + 1;
  std::size_t fixed = 0;
  const std::string& name = args[at];
  if (name == "query" || name == "remove") fixed = 1;
  if (name == "parquet") {
    const std::size_t inner = first_word(args, at + 1);
    if (inner == args.size()) return args;
    CLI::App* leaf = find_subcommand(*sub, args[inner]);
    if (leaf == nullptr) unknown_command(args[inner], subcommand_names(*sub), "parquet ");
    if (leaf->get_name() != "probe") return args;
    sub = leaf;
    tail_from = inner + 1;
    fixed = 2;
  }
  if (fixed == 0) return args;
  std::vector<std::string> head(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(tail_from));
  const std::vector<std::string> tail =
      values_as_data(*sub, std::vector<std::string>(args.begin() + static_cast<std::ptrdiff_t>(tail_from), args.end()),
                     fixed);
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace bloomkit::cli
