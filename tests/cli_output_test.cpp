// tests/cli_output_test.cpp - stdout that cannot be written (issue 17, item
// 3): every command notices and exits non-zero, and a command that also
// writes a file changes nothing when its answers could not be delivered.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_support.hpp"

namespace bloomkit::test {
namespace {

// `remove f.bkf alice > /dev/full` used to exit 2 having already rewritten
// the filter, so the retry removed alice a second time.
TEST(CliFullStdout, RemoveChangesNothingWhenItsAnswersAreLost) {
  scratch_dir dir;
  // alice twice: after one removal she is still (maybe) present.
  ASSERT_EQ(run_cli({"build", "--kind", "counting", "-o", "c.bkf"}, "alice\nalice\nbob\n", dir).rc, 0);
  const std::string before = read_file(dir / "c.bkf");
  const auto failed = run_shell(R"("$BLOOMKIT" remove c.bkf alice > /dev/full)", dir);
  EXPECT_EQ(failed.rc, 2) << failed.err;
  EXPECT_NE(failed.err.find("stdout"), std::string::npos) << failed.err;
  EXPECT_EQ(read_file(dir / "c.bkf"), before) << "a non-zero exit means nothing changed";
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"c.bkf"})) << "no temporary file left";
  // The retry removes alice once: she is still in (inserted twice).
  const auto retry = run_cli({"remove", "c.bkf", "alice", "-q"}, {}, dir);
  ASSERT_EQ(retry.rc, 0) << retry.err;
  EXPECT_EQ(retry.out, "alice\tremoved\n");
  EXPECT_EQ(run_cli({"query", "c.bkf", "alice"}, {}, dir).out, "alice\tmaybe\n");
}

TEST(CliFullStdout, EveryCommandChecksItsOutput) {
  scratch_dir dir;
  write_file(dir / "keys.txt", "a\nb\nc\n");
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "f.bkf"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "g.bkf"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"parquet", "write", "keys.txt", "--type", "string", "-o", "t.parquet"}, {}, dir).rc, 0);
  const std::vector<std::string> commands = {
      R"("$BLOOMKIT" info f.bkf)",
      R"("$BLOOMKIT" info f.bkf --json)",
      R"("$BLOOMKIT" query f.bkf a b)",
      R"("$BLOOMKIT" query f.bkf --json a)",
      R"("$BLOOMKIT" build keys.txt -o new.bkf --json)",
      R"("$BLOOMKIT" merge f.bkf g.bkf -o m.bkf --json)",
      R"("$BLOOMKIT" demo --keys 1000)",
      R"("$BLOOMKIT" --help)",
      R"("$BLOOMKIT" build --help)",
      R"("$BLOOMKIT" --version)",
      R"("$BLOOMKIT" parquet list t.parquet)",
      R"("$BLOOMKIT" parquet probe t.parquet value a)",
  };
  for (const auto& command : commands) {
    SCOPED_TRACE(command);
    const auto r = run_shell(command + " > /dev/full", dir);
    EXPECT_NE(r.rc, 0) << "a lost output must not look like success";
    EXPECT_NE(r.err.find("cannot write to stdout"), std::string::npos) << r.err;
    // One failure, one message: the flush at exit adds no second line.
    std::size_t lines = 0;
    for (std::size_t at = r.err.find("bloomkit: "); at != std::string::npos; at = r.err.find("bloomkit: ", at + 1)) ++lines;
    EXPECT_EQ(lines, 1u) << r.err;
  }
  // build and merge with --json: the summary is printed before the commit,
  // so a lost summary leaves no output file (non-zero exit: nothing changed).
  EXPECT_FALSE(std::filesystem::exists(dir / "new.bkf"));
  EXPECT_FALSE(std::filesystem::exists(dir / "m.bkf"));
}

}  // namespace
}  // namespace bloomkit::test
