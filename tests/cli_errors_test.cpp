// tests/cli_errors_test.cpp - what the CLI does with bad input: exit code 1
// for usage errors, 2 for data errors (bad file, bad key, mismatch), a
// message naming the file and line, and never a partial output file.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace bloomkit::test {
namespace {

bool mentions(const cli_result& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

TEST(CliExitCodes, UsageErrorsExitOne) {
  scratch_dir dir;
  write_file(dir / "keys.txt", "a\nb\n");
  const std::vector<std::vector<std::string>> usage_errors = {
      {},                                                   // no command
      {"frobnicate"},                                       // unknown command
      {"build", "keys.txt"},                                // no -o
      {"build", "keys.txt", "-o", "x.bloom", "--kind", "quotient"},
      {"build", "keys.txt", "-o", "x.bloom", "--fpr", "1.5"},
      {"build", "keys.txt", "-o", "x.bloom", "--fpr", "0"},
      {"build", "keys.txt", "-o", "x.bloom", "--fpr", "abc"},
      {"build", "keys.txt", "-o", "x.bloom", "--capacity", "0"},
      {"build", "keys.txt", "-o", "x.bloom", "--format", "base64"},
      {"build", "keys.txt", "-o", "x.bloom", "--hash", "md5"},
      {"build", "keys.txt", "-o", "x.bloom", "--threads", "0"},
      {"build", "-", "-", "-o", "x.bloom"},
      {"build", "keys.txt", "-o", "x.bloom", "--no-such-flag"},
      {"query"},                                            // no file
      {"query", "x.bloom", "--count", "--json", "a"},
      {"info"},
      {"merge", "a.bloom", "-o", "m.bloom"},                // one input
      {"intersect", "a.bloom", "b.bloom"},                  // no -o
  };
  for (const auto& args : usage_errors) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const auto r = run_cli(args, {}, dir);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_FALSE(r.err.empty());
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bloom"));
}

TEST(CliExitCodes, BadKeysExitTwoNamingFileAndLine) {
  scratch_dir dir;
  write_file(dir / "hex.txt", "00ff\nABCD\nzz\n");
  auto r = run_cli({"build", "hex.txt", "--format", "hex", "-o", "h.bloom"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "hex.txt:3: not a hex digit (got \"zz\")")) << r.err;

  write_file(dir / "odd.txt", "abc\n");
  r = run_cli({"build", "odd.txt", "--format", "hex", "-o", "h.bloom", "--capacity", "5"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "odd.txt:1: odd number of hex digits")) << r.err;

  write_file(dir / "u.txt", "1\n2\n18446744073709551616\n");
  r = run_cli({"build", "u.txt", "--format", "u64", "-o", "u.bloom"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "u.txt:3: not a decimal integer")) << r.err;

  r = run_cli({"build", "--format", "u64", "-o", "u.bloom"}, "1\n\n3\n", dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "<stdin>:2: empty line")) << r.err;

  r = run_cli({"build", "--format", "u64", "-o", "u.bloom"}, "-5\n", dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "<stdin>:1:")) << r.err;

  // Query keys given as arguments are named by position (a file of integer
  // keys: --format u64 is its own type, so the bad key is a data error).
  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "n.bloom"}, "1\n", dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "k.bloom"}, "a\n", dir).rc, 0);
  r = run_cli({"query", "n.bloom", "--format", "u64", "12", "x1"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "key 2 on the command line")) << r.err;
  // Non-printable bytes are escaped in the message.
  r = run_cli({"query", "k.bloom", "--format", "hex"}, "00\n\x01\xff\n", dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "<stdin>:2: not a hex digit (got \"\\x01\\xff\")")) << r.err;

  EXPECT_FALSE(std::filesystem::exists(dir / "h.bloom"));
  EXPECT_FALSE(std::filesystem::exists(dir / "u.bloom"));
}

TEST(CliExitCodes, MissingFilesExitTwoNamingThem) {
  scratch_dir dir;
  auto r = run_cli({"build", "nowhere.txt", "-o", "x.bloom"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "nowhere.txt")) << r.err;
  r = run_cli({"build", ".", "-o", "x.bloom"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "directory")) << r.err;
  for (const char* command : {"query", "info"}) {
    r = run_cli({command, "missing.bloom"}, "", dir);
    EXPECT_EQ(r.rc, 2) << command;
    EXPECT_TRUE(mentions(r, "missing.bloom")) << r.err;
  }
  // An output folder that does not exist.
  r = run_cli({"build", "-o", "no/such/dir/x.bloom"}, "a\n", dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "x.bloom")) << r.err;
  EXPECT_EQ(dir.names(), std::vector<std::string>{});
}

// A filter file cut short or with a flipped byte: a data error naming the
// file, from every command that reads it; never a crash.
TEST(CliDamagedFiles, TruncatedAndCorruptFilesExitTwo) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "good.bloom", "--kind", "standard"}, numbered_keys("k", 0, 3000), dir).rc, 0);
  const std::string good = read_file(dir / "good.bloom");
  ASSERT_GT(good.size(), 200u);

  write_file(dir / "short.bloom", good.substr(0, good.size() - 10));
  write_file(dir / "header.bloom", good.substr(0, 30));
  write_file(dir / "empty.bloom", "");
  write_file(dir / "text.bloom", "this is not a filter file at all, just some text\n");
  std::string flipped = good;
  flipped[flipped.size() - 17] = static_cast<char>(flipped[flipped.size() - 17] ^ 0x10);
  write_file(dir / "flipped.bloom", flipped);

  for (const char* name : {"short.bloom", "header.bloom", "empty.bloom", "text.bloom", "flipped.bloom"}) {
    SCOPED_TRACE(name);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"query", name, "k1"}, {"info", name}, {"info", name, "--json"},
          {"merge", "good.bloom", name, "-o", "m.bloom"}}) {
      const auto r = run_cli(args, {}, dir);
      EXPECT_EQ(r.rc, 2) << args[0] << ": " << r.err;
      EXPECT_TRUE(mentions(r, name)) << r.err;
    }
  }
  // info still describes a file whose only fault is its checksum.
  const auto info = run_cli({"info", "flipped.bloom"}, {}, dir);
  EXPECT_NE(info.out.find("MISMATCH in the payload"), std::string::npos) << info.out;
  const auto json = run_cli({"info", "flipped.bloom", "--json"}, {}, dir);
  EXPECT_NE(json.out.find("\"checksum_ok\":false"), std::string::npos) << json.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.bloom"));
}

TEST(CliSetOps, MismatchedFiltersAreRefusedNamingTheDifference) {
  scratch_dir dir;
  const std::string keys = numbered_keys("k", 0, 1000);
  ASSERT_EQ(run_cli({"build", "-o", "std.bloom", "--kind", "standard"}, keys, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "blk.bloom", "--kind", "blocked"}, keys, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "std_big.bloom", "--kind", "standard", "--capacity", "5000"}, keys, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "std_seed.bloom", "--kind", "standard", "--seed", "9"}, keys, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "std_fpr.bloom", "--kind", "standard", "--fpr", "0.0001"}, keys, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "blk_xx.bloom", "--kind", "blocked", "--hash", "xxh64"}, keys, dir).rc, 0);

  struct mismatch {
    std::string a, b, says;
  };
  for (const auto& m : std::vector<mismatch>{
           {"std.bloom", "blk.bloom", "kinds differ (standard_bloom vs blocked_bloom)"},
           {"std.bloom", "std_big.bloom", "bit counts differ"},
           {"std.bloom", "std_seed.bloom", "hashes differ (xxh3_64 seed 0 vs xxh3_64 seed 9)"},
           {"std.bloom", "std_fpr.bloom", "differ"},
           {"blk.bloom", "blk_xx.bloom", "hashes differ (xxh3_64 seed 0 vs xxh64 seed 0)"},
       }) {
    for (const char* op : {"merge", "intersect"}) {
      SCOPED_TRACE(m.b + " " + op);
      const auto r = run_cli({op, m.a, m.b, "-o", "out.bloom"}, {}, dir);
      EXPECT_EQ(r.rc, 2);
      EXPECT_TRUE(mentions(r, m.says)) << r.err;
      EXPECT_TRUE(mentions(r, m.a) && mentions(r, m.b)) << r.err;
      // The files are named in the order of the "X vs Y" values: the first
      // file (whose values come first) before the second.
      EXPECT_LT(r.err.find(m.a), r.err.find(m.b)) << r.err;
      EXPECT_FALSE(std::filesystem::exists(dir / "out.bloom"));
    }
  }
}

// A failed build leaves an existing output file as it was, and no
// temporary files.
TEST(CliAtomicOutput, FailedBuildKeepsTheOldFile) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "out.bloom"}, "old\n", dir).rc, 0);
  const std::string before = read_file(dir / "out.bloom");
  std::string keys = numbered_keys("", 0, 5000);
  keys += "oops\n";
  const auto r = run_cli({"build", "--format", "u64", "-o", "out.bloom", "--capacity", "10000"}, keys, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "<stdin>:5001:")) << r.err;
  EXPECT_EQ(read_file(dir / "out.bloom"), before);
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.bloom"});
}

// A build killed while it reads its input leaves nothing under the output
// name (the file is only written, then renamed, once the input is done).
TEST(CliAtomicOutput, InterruptedBuildLeavesNoFile) {
  scratch_dir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, dir.path().c_str());
  std::vector<std::string> args = {bloomkit::test::paths::cli, "build", "-o", "out.bloom", "--capacity", "1000000"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, bloomkit::test::paths::cli, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  const std::string keys = numbered_keys("key", 0, 50000);
  ASSERT_EQ(::write(fds[1], keys.data(), keys.size()), static_cast<ssize_t>(keys.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(fds[1]);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the build should still have been waiting for input";
  EXPECT_EQ(dir.names(), std::vector<std::string>{});
}

}  // namespace
}  // namespace bloomkit::test
