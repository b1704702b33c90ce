// tests/cli_completion_test.cpp - `bloomkit completion bash|zsh|fish` and
// `bloomkit man` against --help: every subcommand and option that --help
// lists is completed by the bash script (run in a real bash), named by the
// zsh and fish scripts, and every subcommand has a section in the man page.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace bloomkit::test {
namespace {

struct help_entries {
  std::vector<std::string> subcommands;
  std::vector<std::string> options;  // "-o", "--output", ...
};

/// What `bloomkit PATH... --help` lists: the first word of each line of its
/// Subcommands section, and every name in the Options section's first column.
help_entries parse_help(const std::string& help) {
  help_entries out;
  std::string section;
  for (const auto& line : lines_of(help)) {
    if (!line.empty() && line.back() == ':' && line.front() != ' ') {
      section = line;
      continue;
    }
    if (line.size() < 3 || line.compare(0, 2, "  ") != 0 || line[2] == ' ') continue;
    const std::string first = line.substr(2, line.find(' ', 2) - 2);
    if (section == "Subcommands:") out.subcommands.push_back(first);
    if (section == "Options:" && first.front() == '-') {
      std::size_t start = 0;
      while (start <= first.size()) {
        const std::size_t comma = first.find(',', start);
        out.options.push_back(first.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  }
  return out;
}

/// Every command path --help reaches ({} is bloomkit itself).
std::vector<std::vector<std::string>> command_paths(const scratch_dir& dir) {
  std::vector<std::vector<std::string>> paths{{}};
  for (std::size_t i = 0; i < paths.size(); ++i) {
    std::vector<std::string> args = paths[i];
    args.push_back("--help");
    const auto help = run_cli(args, {}, dir);
    EXPECT_EQ(help.rc, 0) << help.err;
    for (const auto& sub : parse_help(help.out).subcommands) {
      auto child = paths[i];
      child.push_back(sub);
      paths.push_back(child);
    }
  }
  return paths;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

/// COMPREPLY of the bash script for `bloomkit PATH... CUR<TAB>`.
std::set<std::string> bash_completes(const scratch_dir& dir, const std::vector<std::string>& path, const std::string& cur) {
  std::string words = "bloomkit";
  for (const auto& w : path) words += " '" + w + "'";
  words += " '" + cur + "'";
  const auto r = run_shell("source bloomkit.bash; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                               std::to_string(path.size() + 1) + "; _bloomkit; printf '%s\\n' \"${COMPREPLY[@]}\"",
                           dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  std::set<std::string> out;
  for (const auto& line : lines_of(r.out)) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

TEST(CliCompletion, BashCompletesEverySubcommandAndOptionOfHelp) {
  scratch_dir dir;
  const auto script = run_cli({"completion", "bash"}, {}, dir);
  ASSERT_EQ(script.rc, 0) << script.err;
  write_file(dir / "bloomkit.bash", script.out);
  ASSERT_EQ(run_shell("bash -n bloomkit.bash", dir).rc, 0);
  const auto paths = command_paths(dir);
  ASSERT_GE(paths.size(), 15u);  // bloomkit, its commands, parquet's
  for (const auto& path : paths) {
    SCOPED_TRACE("bloomkit " + joined(path));
    std::vector<std::string> args = path;
    args.push_back("--help");
    const help_entries help = parse_help(run_cli(args, {}, dir).out);
    ASSERT_FALSE(help.options.empty());
    const auto options = bash_completes(dir, path, "-");
    for (const auto& option : help.options) EXPECT_TRUE(options.contains(option)) << option;
    EXPECT_EQ(options.size(), std::set<std::string>(help.options.begin(), help.options.end()).size())
        << "completes only what --help lists";
    if (!help.subcommands.empty()) {
      const auto subs = bash_completes(dir, path, "");
      EXPECT_EQ(subs, std::set<std::string>(help.subcommands.begin(), help.subcommands.end()));
    }
  }
  // A prefix narrows; an argument after a command's name is not a command.
  EXPECT_EQ(bash_completes(dir, {}, "in"), (std::set<std::string>{"info", "intersect"}));
  EXPECT_EQ(bash_completes(dir, {"parquet"}, "p"), (std::set<std::string>{"probe"}));
  EXPECT_TRUE(bash_completes(dir, {"build", "query"}, "--o").contains("--output"));
  // The hidden commands stay hidden from --help and from completion.
  const auto top = run_cli({"--help"}, {}, dir).out;
  EXPECT_EQ(top.find("completion"), std::string::npos);
  EXPECT_FALSE(bash_completes(dir, {}, "").contains("man"));
}

TEST(CliCompletion, ZshAndFishNameEverySubcommandAndOption) {
  scratch_dir dir;
  const auto zsh = run_cli({"completion", "zsh"}, {}, dir);
  const auto fish = run_cli({"completion", "fish"}, {}, dir);
  ASSERT_EQ(zsh.rc, 0) << zsh.err;
  ASSERT_EQ(fish.rc, 0) << fish.err;
  EXPECT_TRUE(zsh.out.starts_with("#compdef bloomkit\n"));
  for (const auto& path : command_paths(dir)) {
    if (path.empty()) continue;
    SCOPED_TRACE("bloomkit " + joined(path));
    EXPECT_NE(zsh.out.find("'" + path.back() + ":"), std::string::npos);
    EXPECT_NE(fish.out.find(" -a " + path.back() + " "), std::string::npos);
    std::vector<std::string> args = path;
    args.push_back("--help");
    for (const auto& option : parse_help(run_cli(args, {}, dir).out).options) {
      EXPECT_NE(zsh.out.find("'" + option + ":"), std::string::npos) << option;
      const std::string fish_name = option.starts_with("--") ? " -l " + option.substr(2) : " -s " + option.substr(1);
      EXPECT_NE(fish.out.find(fish_name), std::string::npos) << option;
    }
  }
  EXPECT_NE(run_cli({"completion", "tcsh"}, {}, dir).rc, 0);
}

TEST(CliMan, NamesEverySubcommand) {
  scratch_dir dir;
  const auto man = run_cli({"man"}, {}, dir);
  ASSERT_EQ(man.rc, 0) << man.err;
  EXPECT_TRUE(man.out.starts_with(".TH BLOOMKIT 1 "));
  for (const auto& path : command_paths(dir)) {
    if (path.empty()) continue;
    std::string roff_name;
    for (char c : joined(path)) roff_name += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(man.out.find(".SS \"bloomkit " + roff_name + "\""), std::string::npos) << joined(path);
  }
  EXPECT_NE(man.out.find("\\-\\-capacity"), std::string::npos);
  // It renders: man reads it without a warning.
  write_file(dir / "bloomkit.1", man.out);
  const auto shown = run_shell("MANWIDTH=100 man --warnings -l bloomkit.1 2>&1 >/dev/null; exit 0", dir);
  EXPECT_EQ(shown.out, "") << shown.out;
}

}  // namespace
}  // namespace bloomkit::test
