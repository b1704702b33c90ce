// tests/cli_inputs_test.cpp - inputs a careful user brings (issue 17):
// inputs that can be read only once, an output that names an input, and
// keys or values that begin with '-'. Each case here answered wrong with
// exit 0, hung, or destroyed a file before the fix.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace bloomkit::test {
namespace {

std::string seq(int first, int last) {
  std::string out;
  for (int i = first; i <= last; ++i) out += std::to_string(i) + "\n";
  return out;
}

// ---- item 1: inputs that can be read only once ---------------------------------

// A process substitution is a pipe: the counting pass used to drain it and
// the insert pass found no keys ("no keys read", an empty filter, exit 0).
TEST(CliOnceOnlyInputs, ProcessSubstitutionIsReadOnce) {
  scratch_dir dir;
  const auto r = run_shell(R"("$BLOOMKIT" build <(seq 1 100000) --format u64 -o f.bkf --json)", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("no keys read"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["keys_read"], 100000);
  // The capacity is the distinct count's KMV estimate plus two standard
  // errors (docs/KEYS.md "Capacity"): near 100000, never far below it.
  EXPECT_GE(j["capacity"].get<double>(), 100000 * 0.97);
  EXPECT_LE(j["capacity"].get<double>(), 100000 * 1.10);
  write_file(dir / "all.txt", seq(1, 100000));
  const auto q = run_cli({"query", "f.bkf", "--format", "u64", "--count", "--input", "all.txt"}, {}, dir);
  EXPECT_EQ(q.out, "100000\n") << "every key answers maybe";
}

// Two substitutions and a regular file in one build: all three are counted.
TEST(CliOnceOnlyInputs, MixedPipesAndFiles) {
  scratch_dir dir;
  write_file(dir / "c.txt", seq(201, 300));
  const auto r =
      run_shell(R"("$BLOOMKIT" build <(seq 1 100) <(seq 101 200) c.txt --format u64 -o f.bkf --json)", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["keys_read"], 300);
  EXPECT_EQ(run_cli({"query", "f.bkf", "--format", "u64", "--count"}, seq(1, 300), dir).out, "300\n");
}

// A named FIFO used to hang: it was opened (and closed) once to learn its
// size, which killed the writer, then opened again, waiting for a writer
// forever. `timeout` turns a hang into a failure, not a stuck test.
TEST(CliOnceOnlyInputs, NamedFifoDoesNotHang) {
  scratch_dir dir;
  const auto r = run_shell(R"(mkfifo keys.fifo && { seq 1 5000 > keys.fifo & }
timeout 20 "$BLOOMKIT" build keys.fifo --format u64 -o f.bkf --json; rc=$?; wait; exit $rc)",
                           dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["keys_read"], 5000);
  // The static kinds read once anyway, and must not hang either.
  const auto s = run_shell(R"(mkfifo k2.fifo && { seq 1 5000 > k2.fifo & }
timeout 20 "$BLOOMKIT" build k2.fifo --kind ribbon --format u64 -o r.bkf --json; rc=$?; wait; exit $rc)",
                           dir);
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_EQ(nlohmann::json::parse(s.out)["keys_read"], 5000);
}

// A FIFO given to query with --input is read once, in order.
TEST(CliOnceOnlyInputs, QueryFromFifo) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "f.bkf"}, seq(1, 1000), dir).rc, 0);
  const auto r = run_shell(R"(mkfifo q.fifo && { seq 1 1000 > q.fifo & }
timeout 20 "$BLOOMKIT" query f.bkf --format u64 --count --input q.fifo; rc=$?; wait; exit $rc)",
                           dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "1000\n");
}

// An output that is a FIFO (or a device, socket) is refused before anything
// is written: the save's rename would replace it with a regular file (run as
// root, `-o /dev/full` turned the device into a file and exited 0).
TEST(CliOnceOnlyInputs, OutputThatIsAFifoIsRefusedAndKept) {
  scratch_dir dir;
  write_file(dir / "keys.txt", seq(1, 100));
  const auto r = run_shell(R"(mkfifo out.fifo && "$BLOOMKIT" build keys.txt -o out.fifo; rc=$?; test -p out.fifo || exit 99; exit $rc)",
                           dir);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

// stdin redirected from a regular file is counted and rewound like a file.
TEST(CliOnceOnlyInputs, StdinFromRegularFile) {
  scratch_dir dir;
  write_file(dir / "keys.txt", seq(1, 777));
  const auto r = run_shell(R"("$BLOOMKIT" build --format u64 -o f.bkf --json < keys.txt)", dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["keys_read"], 777);
}

// ---- item 2: an output that is one of the inputs ---------------------------------

// `build keys.txt -o keys.txt` used to replace the key file with a filter.
TEST(CliOutputOverInput, BuildRefusesItsOwnInput) {
  scratch_dir dir;
  const std::string keys = seq(1, 100);
  write_file(dir / "keys.txt", keys);
  std::filesystem::create_hard_link(dir / "keys.txt", dir / "hard.txt");
  std::filesystem::create_symlink("keys.txt", dir / "soft.txt");
  std::filesystem::create_directory(dir / "sub");
  const std::vector<std::vector<std::string>> cases = {
      {"build", "keys.txt", "-o", "keys.txt"},
      {"build", "keys.txt", "-o", "./keys.txt"},
      {"build", "keys.txt", "-o", "sub/../keys.txt"},
      {"build", "keys.txt", "-o", "hard.txt"},
      {"build", "keys.txt", "-o", "soft.txt"},
      {"build", "soft.txt", "-o", "keys.txt"},
      {"build", "other.txt", "keys.txt", "-o", "hard.txt"},
      {"build", "keys.txt", "--kind", "ribbon", "-o", "keys.txt"},
  };
  write_file(dir / "other.txt", "x\n");
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const auto r = run_cli(args, {}, dir);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("input"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(dir / "keys.txt"), keys) << "the key file is untouched";
  }
  // stdin redirected from the output file.
  const auto r = run_shell(R"("$BLOOMKIT" build -o keys.txt < keys.txt)", dir);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_EQ(read_file(dir / "keys.txt"), keys);
}

/// The inputs of every writing command: keys.txt (1..50), a.bkf and b.bkf
/// (blocked), c.bkf (counting), s.bkf (split-block) and t.parquet.
void make_writing_inputs(const scratch_dir& dir) {
  write_file(dir / "keys.txt", seq(1, 50));
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "a.bkf"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "b.bkf"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "--kind", "counting", "-o", "c.bkf"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "--kind", "split-block", "-o", "s.bkf"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"parquet", "write", "keys.txt", "--type", "int64", "-o", "t.parquet"}, {}, dir).rc, 0);
}

TEST(CliOutputOverInput, EveryWritingCommandRefuses) {
  scratch_dir dir;
  ASSERT_NO_FATAL_FAILURE(make_writing_inputs(dir));
  std::filesystem::create_symlink("a.bkf", dir / "a-link.bkf");
  std::filesystem::create_symlink("keys.txt", dir / "keys-link.txt");
  const std::vector<std::vector<std::string>> cases = {
      {"merge", "a.bkf", "b.bkf", "-o", "a.bkf"},
      {"merge", "a.bkf", "b.bkf", "-o", "a-link.bkf"},
      {"intersect", "a.bkf", "b.bkf", "-o", "b.bkf"},
      {"remove", "c.bkf", "--input", "keys.txt", "-o", "keys-link.txt"},
      {"parquet", "extract", "t.parquet", "value", "-o", "t.parquet"},
      {"parquet", "encode", "s.bkf", "-o", "s.bkf"},
      {"parquet", "write", "keys.txt", "--type", "int64", "-o", "keys-link.txt"},
  };
  const std::string before_a = read_file(dir / "a.bkf"), before_b = read_file(dir / "b.bkf"),
                    before_keys = read_file(dir / "keys.txt"), before_t = read_file(dir / "t.parquet"),
                    before_s = read_file(dir / "s.bkf");
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const auto r = run_cli(args, {}, dir);
    EXPECT_EQ(r.rc, 1) << r.err;
  }
  EXPECT_EQ(read_file(dir / "a.bkf"), before_a);
  EXPECT_EQ(read_file(dir / "b.bkf"), before_b);
  EXPECT_EQ(read_file(dir / "keys.txt"), before_keys);
  EXPECT_EQ(read_file(dir / "t.parquet"), before_t);
  EXPECT_EQ(read_file(dir / "s.bkf"), before_s);
  // remove's own FILE is its in-place target by design; its key input is not.
  EXPECT_EQ(run_cli({"remove", "c.bkf", "1"}, {}, dir).rc, 0);
}

// `-o -` wrote a filter to a file named "-" in the current folder (exit 0):
// a user who meant stdout never found it. Every writing command now refuses
// "-" as its output before any work, and writes nothing anywhere.
TEST(CliOutputOverInput, DashIsNotAnOutput) {
  scratch_dir dir;
  ASSERT_NO_FATAL_FAILURE(make_writing_inputs(dir));
  const std::string before_c = read_file(dir / "c.bkf");
  const std::vector<std::vector<std::string>> cases = {
      {"build", "keys.txt", "-o", "-"},
      {"build", "--kind", "ribbon", "-o", "-"},  // keys from stdin too: still refused, stdin unread
      {"build", "keys.txt", "--output=-"},
      {"merge", "a.bkf", "b.bkf", "-o", "-"},
      {"intersect", "a.bkf", "b.bkf", "--output", "-"},
      {"remove", "c.bkf", "1", "-o", "-"},
      {"parquet", "extract", "t.parquet", "value", "-o", "-"},
      {"parquet", "encode", "s.bkf", "-o", "-"},
      {"parquet", "write", "keys.txt", "--type", "int64", "-o", "-"},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const auto r = run_cli(args, seq(1, 10), dir);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("not to stdout"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing written to stdout either";
    EXPECT_FALSE(std::filesystem::exists(dir / "-")) << "no file named -";
  }
  EXPECT_EQ(read_file(dir / "c.bkf"), before_c) << "remove changed nothing";
}

// ---- item 7: keys and values that begin with '-' ---------------------------------

TEST(CliDashKeys, QueryTakesDashKeysAsData) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "f.bkf", "--kind", "standard"}, "-hello\n-x\n--weird\nplain\n", dir).rc, 0);
  // `-hello` used to print the help (as -h) and exit 0 without answering.
  auto r = run_cli({"query", "f.bkf", "-hello"}, {}, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "-hello\tmaybe\n");
  r = run_cli({"query", "f.bkf", "plain", "-x", "--weird", "-absent"}, {}, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "plain\tmaybe\n-x\tmaybe\n--weird\tmaybe\n-absent\tabsent\n");
  // Options still work after the keys, and an explicit -- still works.
  r = run_cli({"query", "f.bkf", "-hello", "--json"}, {}, dir);
  EXPECT_EQ(r.out, "{\"key\":\"-hello\",\"maybe\":true}\n");
  r = run_cli({"query", "f.bkf", "--count", "--", "-hello", "--json"}, {}, dir);
  EXPECT_EQ(r.out, "1\n") << "after --, --json is a key";
  r = run_cli({"query", "--format", "text", "f.bkf", "-x"}, {}, dir);
  EXPECT_EQ(r.out, "-x\tmaybe\n");
  r = run_cli({"query", "f.bkf", "-fhex", "2d78"}, {}, dir);
  EXPECT_EQ(r.out, "2d78\tmaybe\n") << "-fVALUE is -f with its value";
}

TEST(CliDashKeys, RemoveTakesDashKeysAsData) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "c.bkf", "--kind", "counting"}, "-alice\nbob\n", dir).rc, 0);
  const auto r = run_cli({"remove", "c.bkf", "-alice", "-q"}, {}, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "-alice\tremoved\n");
  EXPECT_EQ(run_cli({"query", "c.bkf", "-alice", "bob"}, {}, dir).out, "-alice\tabsent\nbob\tmaybe\n");
}

TEST(CliDashKeys, ParquetProbeTakesNegativeValues) {
  scratch_dir dir;
  write_file(dir / "d.txt", "-inf\n-1.5\n2.5\n");
  ASSERT_EQ(run_cli({"parquet", "write", "d.txt", "--type", "double", "-o", "d.parquet"}, {}, dir).rc, 0);
  auto r = run_cli({"parquet", "probe", "d.parquet", "value", "-inf", "-1.5", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(nlohmann::json::parse(lines[0])["value"], "-inf");
  EXPECT_FALSE(nlohmann::json::parse(lines[0])["excluded"]);
  EXPECT_FALSE(nlohmann::json::parse(lines[1])["excluded"]);

  write_file(dir / "s.txt", "-Af\nplain\n");
  ASSERT_EQ(run_cli({"parquet", "write", "s.txt", "--type", "string", "-o", "s.parquet"}, {}, dir).rc, 0);
  r = run_cli({"parquet", "probe", "s.parquet", "value", "-Af"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("value = -Af  may contain"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bloomkit::test
