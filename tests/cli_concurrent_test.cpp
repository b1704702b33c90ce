// tests/cli_concurrent_test.cpp - `bloomkit build --threads T` fills the
// filter with insert_parallel, and the file it writes is byte for byte the
// file of a single-threaded build. Labelled `concurrent`, so ./bloomkit.sh
// test also runs it against a ThreadSanitizer build of the CLI.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit::test;

// Enough keys that two and three threads really split the work
// (detail::parallel_min_keys_per_thread = 32768 keys per thread).
constexpr std::uint64_t keys_count = 150000;

TEST(CliConcurrent, ThreadsGiveTheSameFileForEveryKind) {
  scratch_dir dir;
  write_file(dir / "keys.txt", numbered_keys("user-", 0, keys_count));
  for (const std::string kind : {"standard", "blocked", "split-block", "counting"}) {
    SCOPED_TRACE(kind);
    const auto one = run_cli({"build", "keys.txt", "-o", "one.bloom", "--kind", kind, "--threads", "1", "-q"}, {}, dir);
    ASSERT_EQ(one.rc, 0) << one.err;
    const auto two = run_cli({"build", "keys.txt", "-o", "two.bloom", "--kind", kind, "--threads", "2", "-q"}, {}, dir);
    ASSERT_EQ(two.rc, 0) << two.err;
    const auto three =
        run_cli({"build", "keys.txt", "-o", "three.bloom", "--kind", kind, "-t", "3", "-q"}, {}, dir);
    ASSERT_EQ(three.rc, 0) << three.err;
    const std::string reference = read_file(dir / "one.bloom");
    ASSERT_FALSE(reference.empty());
    EXPECT_EQ(reference, read_file(dir / "two.bloom"));
    EXPECT_EQ(reference, read_file(dir / "three.bloom"));

    const auto present = run_cli({"query", "two.bloom", "--count", "-i", "keys.txt"}, {}, dir);
    ASSERT_EQ(present.rc, 0) << present.err;
    EXPECT_EQ(std::stoull(present.out), keys_count) << "a false negative";
  }
}

// From stdin the hashes are spooled and replayed; --threads must not change
// that file either.
TEST(CliConcurrent, StdinSpoolWithThreadsGivesTheSameFile) {
  scratch_dir dir;
  const std::string keys = numbered_keys("", 0, keys_count);
  const auto one = run_cli({"build", "--format", "u64", "-o", "one.bloom", "-q"}, keys, dir);
  ASSERT_EQ(one.rc, 0) << one.err;
  const auto two = run_cli({"build", "--format", "u64", "-o", "two.bloom", "--threads", "2", "-q"}, keys, dir,
                           {"BLOOMKIT_SPOOL_BYTES=65536", "TMPDIR=" + dir.path().string()});
  ASSERT_EQ(two.rc, 0) << two.err;
  EXPECT_EQ(read_file(dir / "one.bloom"), read_file(dir / "two.bloom"));
}

TEST(CliConcurrent, ZeroThreadsIsAUsageError) {
  scratch_dir dir;
  write_file(dir / "keys.txt", numbered_keys("k", 0, 10));
  const auto r = run_cli({"build", "keys.txt", "-o", "x.bloom", "--threads", "0"}, {}, dir);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bloom"));
}

}  // namespace
