// tools/bloomkit/output_guard.hpp - refusing an output that cannot be
// written safely: stdout ("-"), or one of the command's own inputs.
//
// A filter is saved to a named file only (a temporary file beside it, then a
// rename over it, so no reader ever sees half a filter), which stdout cannot
// be: "-o -" would otherwise write a file named "-" in the current folder,
// where a user who meant stdout never looks, and "-o /dev/stdout" is refused
// by the save itself (a device). So "-" is refused at once, before any work.
//
// Every writing command saves atomically (temporary file, then rename), so an
// output named like an input never corrupts a half-read file; but the rename
// still replaces the input, and `bloomkit build keys.txt -o keys.txt` would
// swap a user's key file for a filter. Files are compared by identity (device
// and inode, following symbolic links), so a hard link, a symbolic link or a
// path spelled differently ("./keys.txt", "dir/../keys.txt") is caught too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

/// Throws usage_error (exit 1) when `output` is "-" (stdout), is a folder,
/// or exists and is the same file as one of `inputs` ("-" is stdin, compared by what fd 0
/// is). `option` names the output in the message ("-o"). Inputs that do not
/// exist are ignored (the command reports them itself).
void check_output(const std::string& output, const std::vector<std::string>& inputs, std::string_view option = "-o");

}  // namespace bloomkit::cli
