// tools/bloomkit/argv_rewrite.hpp - what main does to the arguments before
// CLI11 sees them.
//
// 1. Unknown commands: `bloomkit bild` is answered with the nearest command
//    ("did you mean build?") and the list of commands, exit 1.
// 2. Values are data: for the commands whose trailing arguments are keys or
//    values (query FILE KEY..., remove FILE KEY..., parquet probe FILE
//    COLUMN VALUE...), a token after the fixed positionals that is not
//    exactly one of that command's options is a key, even when it begins
//    with '-' ("-hello", "-inf", "-Af", "-5"). CLI11 alone would take
//    "-hello" for -h (help, exit 0 without answering) and refuse "-inf" as
//    an unknown option. The keys are moved, in order, behind a "--"; an
//    explicit "--" keeps working (everything after it is data). A key that
//    is exactly an option's name ("-c", "--json") still needs "--".
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

/// argv[1..] rewritten as described above, in normal (not CLI11's reversed)
/// order. Throws usage_error for an unknown command.
std::vector<std::string> rewrite_arguments(CLI::App& app, int argc, const char* const* argv);

/// The closest of `names` to `word` (edit distance at most 2, or `word` a
/// prefix of it), or "" when none is close.
std::string nearest_name(std::string_view word, const std::vector<std::string>& names);

}  // namespace bloomkit::cli
