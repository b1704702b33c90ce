// tools/bloomkit/output_guard.cpp - see output_guard.hpp.
#include "output_guard.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "commands.hpp"

namespace bloomkit::cli {

void check_output(const std::string& output, const std::vector<std::string>& inputs, std::string_view option) {
  if (output == "-") {
    throw usage_error(std::string(option) + " -: a filter is saved only to a named file (written beside it, then "
                      "renamed over it), not to stdout; name a file");
  }
  struct stat out {};
  if (output.empty() || ::stat(output.c_str(), &out) != 0) return;  // a new file: nothing to lose
  if (S_ISDIR(out.st_mode)) {
    // The rename at the end would fail only after all the work.
    throw usage_error(std::string(option) + " " + output + " is a folder: name the file to write (e.g. " +
                      (output.back() == '/' ? output : output + "/") + "filter.bkf)");
  }
  for (const auto& input : inputs) {
    struct stat in {};
    const int rc = input == "-" ? ::fstat(STDIN_FILENO, &in) : ::stat(input.c_str(), &in);
    if (rc != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino) continue;
    const std::string name = input == "-" ? "stdin" : "the input " + input;
    const std::string same = input == output ? "" : " (the same file, through a link or another path)";
    throw usage_error(std::string(option) + " " + output + " is " + name + same +
                      ": writing it would replace the input; choose another output name");
  }
}

}  // namespace bloomkit::cli
