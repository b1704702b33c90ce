// tests/cli_support.hpp - running the real `bloomkit` binary from a test.
//
// The CLI tests drive the installed-to-be executable (bloomkit::test::paths::cli) as a
// user would: arguments, stdin, stdout, stderr and the exit status, in a
// scratch folder of their own.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.hpp"

extern char** environ;

namespace bloomkit::test {

struct cli_result {
  int rc = -1;  ///< exit status; 128 + signal number if killed
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

/// A scratch folder, removed with everything in it at the end of the test.
class scratch_dir {
 public:
  scratch_dir() {
    std::string templ = (std::filesystem::temp_directory_path() / "bloomkit-cli-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    path_ = templ;
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  /// The names in the folder, sorted.
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

/// The binary under test: $BLOOMKIT_CLI_UNDER_TEST when set (to run these
/// tests against another build, e.g. the previous release, and see which
/// fail), else the one this test was built with.
inline std::string cli_path() {
  const char* override_path = std::getenv("BLOOMKIT_CLI_UNDER_TEST");
  return override_path != nullptr && *override_path != '\0' ? override_path : bloomkit::test::paths::cli;
}

/// Starts `program argv...` (argv[0] included) with `stdin_bytes` on stdin
/// (/dev/null when absent), `cwd` as its working folder and `extra_env`
/// (NAME=value) added to the environment; waits for it and returns what it
/// printed. The common part of run_cli and run_shell.
inline cli_result spawn_and_capture(const std::string& program, std::vector<std::string> argv_strings,
                                    const std::optional<std::string>& stdin_bytes, const scratch_dir& dir,
                                    const std::vector<std::string>& extra_env) {
  static int counter = 0;
  const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string in_path = dir / (".stdin-" + tag);
  const std::string out_path = dir / (".stdout-" + tag);
  const std::string err_path = dir / (".stderr-" + tag);
  if (stdin_bytes) write_file(in_path, *stdin_bytes);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_bytes ? in_path.c_str() : "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, dir.path().c_str());

  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  cli_result result;
  if (spawned != 0) {
    ADD_FAILURE() << "cannot start " << program << ": " << std::strerror(spawned);
    return result;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  std::filesystem::remove(in_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return result;
}

/// Runs `bloomkit args...` with `stdin_bytes` on stdin (/dev/null when
/// absent), `cwd` as its working folder, and `extra_env` (NAME=value) added
/// to the environment. Waits for it and returns what it printed.
inline cli_result run_cli(const std::vector<std::string>& args, const std::optional<std::string>& stdin_bytes,
                          const scratch_dir& dir, const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> argv{cli_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_and_capture(cli_path(), std::move(argv), stdin_bytes, dir, extra_env);
}

/// Runs `script` with bash in `dir`, for what a user types at a shell:
/// process substitution, FIFOs, redirection to /dev/full. "$BLOOMKIT" is the
/// binary under test. stdout and stderr are the script's (a command inside
/// it may redirect its own elsewhere).
inline cli_result run_shell(const std::string& script, const scratch_dir& dir,
                            const std::optional<std::string>& stdin_bytes = {}) {
  return spawn_and_capture("/bin/bash", {"bash", "-c", script}, stdin_bytes, dir,
                           {"BLOOMKIT=" + cli_path()});
}

/// Lines of `text` (without their '\n').
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// "prefix0\nprefix1\n..." for i in [first, first + count).
inline std::string numbered_keys(const std::string& prefix, std::uint64_t first, std::uint64_t count,
                                 const char* eol = "\n") {
  std::string out;
  for (std::uint64_t i = first; i < first + count; ++i) {
    out += prefix;
    out += std::to_string(i);
    out += eol;
  }
  return out;
}

}  // namespace bloomkit::test
