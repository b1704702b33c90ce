// tools/bloomkit/completion.cpp - `bloomkit completion bash|zsh|fish` and
// `bloomkit man`: shell completion scripts and a man page written from the
// CLI11 App tree itself, so they name exactly the commands and options that
// --help lists (the same objects print both) and cannot drift from it.
// Both subcommands are hidden from --help: they are for installers
// (`./bloomkit.sh install` writes their output under PREFIX/share).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"

// GCC 12 reports a false -Wrestrict overlap inside std::string's insert when
// "literal" + std::string is inlined (GCC bug 105329); this file builds its
// scripts from such concatenations.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace bloomkit::cli {

namespace {

/// A command as --help shows it: its words after "bloomkit", its help line,
/// its visible options and its visible subcommands.
struct command_node {
  std::vector<std::string> path;  // {} for bloomkit itself, {"parquet", "list"} for a nested one
  std::string description;
  struct option {
    std::vector<std::string> names;  // "-o", "--output"
    std::string description;
    bool takes_value;
  };
  std::vector<option> options;
  std::vector<std::string> positionals;  // their names, for the man page
  std::vector<command_node> children;
};

/// CLI11 hides an option or a subcommand from --help when its group is
/// empty; the same test keeps hidden ones out here.
command_node walk(const CLI::App& app, std::vector<std::string> path) {
  command_node node{path, app.get_description(), {}, {}, {}};
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;
    if (!opt->nonpositional()) {
      node.positionals.push_back(opt->get_name());
      continue;
    }
    command_node::option o{{}, opt->get_description(), opt->get_items_expected_max() > 0};
    for (const auto& s : opt->get_snames()) o.names.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) o.names.push_back("--" + l);
    node.options.push_back(std::move(o));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    std::vector<std::string> child = path;
    child.push_back(sub->get_name());
    node.children.push_back(walk(*sub, std::move(child)));
  }
  return node;
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

/// `text` inside single quotes for a POSIX shell (bash, zsh) or fish.
std::string single_quoted(const std::string& text, bool fish = false) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += fish ? "\\'" : "'\\''";
    } else if (fish && c == '\\') {
      out += "\\\\";
    } else {
      out += c;
    }
  }
  return out + "'";
}

void for_each_node(const command_node& node, const std::function<void(const command_node&)>& f) {
  f(node);
  for (const auto& child : node.children) for_each_node(child, f);
}

// bash: the words typed so far select a command path (only words that name a
// subcommand of the path so far extend it); a word starting with '-' then
// completes to that command's options, any other word to its subcommands,
// and where it has none, to file names (complete -o default).
std::string bash_script(const command_node& root) {
  std::string cases_extend;
  std::string cases_words;
  for_each_node(root, [&](const command_node& n) {
    std::vector<std::string> names;
    for (const auto& c : n.children) names.push_back(c.path.back());
    std::vector<std::string> options;
    for (const auto& o : n.options) options.insert(options.end(), o.names.begin(), o.names.end());
    const std::string key = joined(n.path, " ");
    for (const auto& c : n.children) cases_extend += "      " + single_quoted(joined(c.path, " ")) + ") path=" + single_quoted(joined(c.path, " ")) + " ;;\n";
    cases_words += "    " + single_quoted(key) + ") subs=" + single_quoted(joined(names, " ")) +
                   "; opts=" + single_quoted(joined(options, " ")) + " ;;\n";
  });
  return "# bash completion for bloomkit (written by `bloomkit completion bash`)\n"
         "_bloomkit() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" path='' i subs='' opts=''\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case \"${path:+$path }${COMP_WORDS[i]}\" in\n" +
         cases_extend +
         "    esac\n"
         "  done\n"
         "  case \"$path\" in\n" +
         cases_words +
         "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
         "  elif [[ -n \"$subs\" ]]; then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"$subs\" -- \"$cur\")\n"
         "  else\n"
         "    COMPREPLY=()\n"
         "  fi\n"
         "}\n"
         "complete -o default -F _bloomkit bloomkit\n";
}

/// "NAME:DESCRIPTION", as _describe takes it.
std::string described(const std::string& name, const std::string& description) {
  std::string out = name;
  out += ':';
  out += description;
  return out;
}

// zsh: the same walk, with each command's and option's help line shown by
// _describe; files where a command has no subcommands and the word is not
// an option.
std::string zsh_script(const command_node& root) {
  std::string cases_extend;
  std::string cases_words;
  for_each_node(root, [&](const command_node& n) {
    for (const auto& c : n.children) {
      cases_extend += "      (" + single_quoted(joined(c.path, " ")) + ") cmdpath=" + single_quoted(joined(c.path, " ")) + " ;;\n";
    }
    std::string subs;
    for (const auto& c : n.children) subs += " " + single_quoted(described(c.path.back(), c.description));
    std::string opts;
    for (const auto& o : n.options) {
      for (const auto& name : o.names) opts += " " + single_quoted(described(name, o.description));
    }
    cases_words += "    (" + single_quoted(joined(n.path, " ")) + ") subs=(" + subs + " ); opts=(" + opts + " ) ;;\n";
  });
  return "#compdef bloomkit\n"
         "# zsh completion for bloomkit (written by `bloomkit completion zsh`)\n"
         "_bloomkit() {\n"
         "  local cmdpath='' i\n"
         "  local -a subs opts\n"
         "  for ((i = 2; i < CURRENT; i++)); do\n"
         "    case \"${cmdpath:+$cmdpath }${words[i]}\" in\n" +
         cases_extend +
         "    esac\n"
         "  done\n"
         "  case \"$cmdpath\" in\n" +
         cases_words +
         "  esac\n"
         "  if [[ \"${words[CURRENT]}\" == -* ]]; then\n"
         "    _describe -t options option opts\n"
         "  elif (( ${#subs} )); then\n"
         "    _describe -t commands command subs\n"
         "  else\n"
         "    _files\n"
         "  fi\n"
         "}\n"
         "_bloomkit \"$@\"\n";
}

// fish: one `complete` line per subcommand and per option, conditioned on
// the subcommands seen so far on the line.
std::string fish_script(const command_node& root) {
  std::string out = "# fish completion for bloomkit (written by `bloomkit completion fish`)\ncomplete -c bloomkit -e\n";
  for_each_node(root, [&](const command_node& n) {
    // The condition under which this command is the one being typed.
    std::string here;
    if (n.path.empty()) {
      std::vector<std::string> top;
      for (const auto& c : n.children) top.push_back(c.path.back());
      here = "not __fish_seen_subcommand_from " + joined(top, " ");
    } else {
      for (const auto& word : n.path) here += (here.empty() ? "" : "; and ") + std::string("__fish_seen_subcommand_from ") + word;
      if (!n.children.empty()) {
        std::vector<std::string> names;
        for (const auto& c : n.children) names.push_back(c.path.back());
        here += "; and not __fish_seen_subcommand_from " + joined(names, " ");
      }
    }
    for (const auto& c : n.children) {
      out += "complete -c bloomkit -f -n " + single_quoted(here, true) + " -a " + c.path.back() + " -d " +
             single_quoted(c.description, true) + "\n";
    }
    for (const auto& o : n.options) {
      std::string line = "complete -c bloomkit -n " + single_quoted(here, true);
      for (const auto& name : o.names) line += name.starts_with("--") ? " -l " + name.substr(2) : " -s " + name.substr(1);
      if (o.takes_value) line += " -r";
      out += line + " -d " + single_quoted(o.description, true) + "\n";
    }
  });
  return out;
}

/// Text for a roff line: backslashes and hyphens escaped, a leading '.' or
/// '\'' kept from being read as a request.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c == '\n') {
      out += "\n.br\n";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string man_page(const command_node& root) {
  std::string out =
      ".TH BLOOMKIT 1 \"\" \"bloomkit 0.1.0\" \"User Commands\"\n"
      ".SH NAME\n"
      "bloomkit \\- " + roff(root.description.substr(root.description.find(':') == std::string::npos ? 0 : root.description.find(':') + 2)) +
      "\n"
      ".SH SYNOPSIS\n"
      ".B bloomkit\n"
      "\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n"
      ".SH DESCRIPTION\n"
      "Every command has \\fB\\-\\-help\\fR with examples; this page lists the same commands and options, "
      "from the same tables. Keys come one per line from files or standard input.\n"
      ".SH OPTIONS\n";
  for (const auto& o : root.options) {
    out += ".TP\n.B " + roff(joined(o.names, ", ")) + "\n" + roff(o.description) + "\n";
  }
  out += ".SH COMMANDS\n";
  for_each_node(root, [&](const command_node& n) {
    if (n.path.empty()) return;
    out += ".SS \"bloomkit " + roff(joined(n.path, " ")) + "\"\n";
    if (!n.positionals.empty()) out += "Arguments: \\fI" + roff(joined(n.positionals, " ")) + "\\fR.\n.br\n";
    out += roff(n.description) + "\n";
    for (const auto& o : n.options) {
      out += ".TP\n.B " + roff(joined(o.names, ", ")) + (o.takes_value ? " \\fIVALUE\\fR" : "") + "\n" +
             roff(o.description) + "\n";
    }
  });
  out +=
      ".SH EXIT STATUS\n"
      ".TP\n.B 0\nsuccess\n"
      ".TP\n.B 1\nusage error (unknown option or command, bad value)\n"
      ".TP\n.B 2\ndata error (unreadable or damaged filter file, bad key, filters that do not match)\n"
      ".SH SEE ALSO\n"
      "README.md and docs/ in the bloomkit source tree.\n";
  return out;
}

int print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  return exit_ok;
}

}  // namespace

void register_completion(CLI::App& app, command_table& table) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand("completion", "Print a shell completion script (bash, zsh or fish)");
  completion->group("");  // hidden: for installers, not a command users look for in --help
  completion->add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  table.emplace_back(completion, [&app, shell] {
    const command_node root = walk(app, {});
    if (*shell == "bash") return print(bash_script(root));
    if (*shell == "zsh") return print(zsh_script(root));
    return print(fish_script(root));
  });
  CLI::App* man = app.add_subcommand("man", "Print the man page (roff), made from the same option tables as --help");
  man->group("");
  table.emplace_back(man, [&app] { return print(man_page(walk(app, {}))); });
}

}  // namespace bloomkit::cli

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
