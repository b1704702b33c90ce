// tests/cli_key_types_test.cpp - the CLI reads a file's key type (issue 36,
// docs/KEYS.md): `build` records the type of --format, `query` and `remove`
// default --format to it and refuse one that contradicts it (exit 1, naming
// the file's type, nothing read or written), `info` shows it, `merge` of two
// types is refused. Files without a key type behave exactly as before.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "cli_support.hpp"
#include "test_paths.hpp"

namespace bloomkit::test {
namespace {

std::string seq(long first, long last) {
  std::string out;
  for (long i = first; i <= last; ++i) out += std::to_string(i) + "\n";
  return out;
}

bool mentions(const cli_result& r, const std::string& what) { return r.err.find(what) != std::string::npos; }

// The example: integers written with --format u64 were read back as
// text by default and answered "absent", exit 0.
TEST(CliKeyTypes, QueryReadsTheFileKeyType) {
  scratch_dir dir;
  auto r = run_cli({"build", "--format", "u64", "--kind", "split-block", "-o", "ids.bkf", "-q"}, seq(1, 100000), dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli({"query", "ids.bkf", "1", "2", "3"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "1\tmaybe\n2\tmaybe\n3\tmaybe\n");
  r = run_cli({"query", "ids.bkf", "--count"}, seq(1, 100000), dir);
  EXPECT_EQ(r.out, "100000\n");
  // Every integer format reads an int64 file.
  for (const char* format : {"u64", "i64", "int"}) {
    r = run_cli({"query", "ids.bkf", "--format", format, "--count"}, seq(1, 1000), dir);
    EXPECT_EQ(r.rc, 0) << format << r.err;
    EXPECT_EQ(r.out, "1000\n") << format;
  }
  r = run_cli({"query", "ids.bkf", "--json", "7"}, {}, dir);
  EXPECT_EQ(r.out, "{\"key\":7,\"maybe\":true}\n") << "integer keys print as JSON numbers by default";
}

TEST(CliKeyTypes, AContradictingFormatIsAUsageErrorBeforeAnyWork) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "ids.bkf", "-q"}, seq(1, 100), dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "names.bkf", "-q"}, "alice\nbob\n", dir).rc, 0);
  for (const char* format : {"text", "hex"}) {
    const auto r = run_cli({"query", "ids.bkf", "--format", format, "1"}, {}, dir);
    EXPECT_EQ(r.rc, 1) << format;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(mentions(r, "ids.bkf holds int64 keys")) << r.err;
  }
  for (const char* format : {"u64", "i64", "f64"}) {
    const auto r = run_cli({"query", "names.bkf", "--format", format}, "1\n", dir);
    EXPECT_EQ(r.rc, 1) << format;
    EXPECT_TRUE(mentions(r, "names.bkf holds bytes keys")) << r.err;
  }
  // A bad key of the file's own format is still a data error naming the key.
  const auto bad = run_cli({"query", "ids.bkf", "12", "x1"}, {}, dir);
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(mentions(bad, "key 2 on the command line")) << bad.err;
}

TEST(CliKeyTypes, RemoveReadsTheFileKeyType) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "i64", "--kind", "counting", "-o", "c.bkf", "-q"}, seq(-50, 50), dir).rc, 0);
  const std::string before = read_file(dir / "c.bkf");
  auto r = run_cli({"remove", "c.bkf", "--format", "text", "-q", "1"}, {}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(mentions(r, "c.bkf holds int64 keys")) << r.err;
  EXPECT_EQ(read_file(dir / "c.bkf"), before) << "nothing written";
  r = run_cli({"remove", "c.bkf", "-q", "--", "-7", "7"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "-7\tremoved\n7\tremoved\n");
  r = run_cli({"query", "c.bkf", "--count"}, seq(-50, 50), dir);
  EXPECT_EQ(r.out, "99\n");
}

TEST(CliKeyTypes, IntFormatReadsBothSignsAsOneInt64) {
  // -1 and 2^64 - 1 are one int64 key (its bit pattern): i64 writes it, the
  // default int format reads either spelling.
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "i64", "-o", "f.bkf", "-q"}, "-1\n", dir).rc, 0);
  const auto r = run_cli({"query", "f.bkf", "--", "-1", "18446744073709551615"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "-1\tmaybe\n18446744073709551615\tmaybe\n");
}

TEST(CliKeyTypes, F64FilesTakeNumbersThatConvertExactly) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "f64", "-o", "f.bkf", "-q"}, "0.5\n2\n-3e3\n", dir).rc, 0);
  auto r = run_cli({"query", "f.bkf", "0.5", "2.0", "-3000"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "0.5\tmaybe\n2.0\tmaybe\n-3000\tmaybe\n");
  // Integers convert into float64 when exact (|v| <= 2^53) ...
  r = run_cli({"query", "f.bkf", "--format", "i64", "2", "--", "-3000"}, {}, dir);
  EXPECT_EQ(r.out, "2\tmaybe\n-3000\tmaybe\n") << r.err;
  // ... and a value that does not is a data error naming both types.
  r = run_cli({"query", "f.bkf", "--format", "i64", "9007199254740993"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(mentions(r, "holds float64 keys; got int64 value 9007199254740993")) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliKeyTypes, InfoShowsTheKeyType) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "ids.bkf", "-q"}, seq(1, 10), dir).rc, 0);
  auto r = run_cli({"info", "ids.bkf"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("key type               int64\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("format version         5\n"), std::string::npos) << r.out;
  r = run_cli({"info", "ids.bkf", "--json"}, {}, dir);
  EXPECT_EQ(nlohmann::json::parse(r.out)["key_type"], "int64");
  r = run_cli({"build", "--format", "hex", "-o", "b.bkf", "--json"}, "00ff\n", dir);
  EXPECT_EQ(nlohmann::json::parse(r.out)["key_type"], "bytes");
}

TEST(CliKeyTypes, FilesWithoutAKeyTypeBehaveAsBefore) {
  // A golden file of format version 1 (fuzz/corpus/file_format): uint64
  // keys 0..14 hashed as their 8 bytes, no key type. Every format is
  // accepted and hashes as it always did.
  scratch_dir dir;
  std::filesystem::copy_file(std::filesystem::path(paths::source_dir) / "fuzz" / "corpus" / "file_format" /
                                 "split_block_bloom.bkf",
                             dir.path() / "old.bkf");
  auto r = run_cli({"info", "old.bkf"}, {}, dir);
  EXPECT_NE(r.out.find("key type               unspecified"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("format version         1\n"), std::string::npos) << r.out;
  r = run_cli({"query", "old.bkf", "--format", "u64", "--count"}, seq(0, 14), dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "15\n");
  r = run_cli({"query", "old.bkf", "0"}, {}, dir);  // text by default, as before: the text "0" is another key
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run_cli({"query", "old.bkf", "--format", "hex", "00"}, {}, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(CliKeyTypes, MergeOfTwoKeyTypesIsRefusedNamingBoth) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "u64", "--capacity", "100", "-o", "a.bkf", "-q"}, seq(1, 10), dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "--capacity", "100", "-o", "b.bkf", "-q"}, "x\ny\n", dir).rc, 0);
  for (const char* op : {"merge", "intersect"}) {
    const auto r = run_cli({op, "a.bkf", "b.bkf", "-o", "m.bkf"}, {}, dir);
    EXPECT_EQ(r.rc, 1) << op;
    EXPECT_TRUE(mentions(r, "key types differ (a.bkf holds int64 keys, b.bkf holds bytes keys)")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "m.bkf")) << "the output is not written";
  }
  ASSERT_EQ(run_cli({"build", "--format", "i64", "--capacity", "100", "-o", "c.bkf", "-q"}, seq(11, 20), dir).rc, 0);
  const auto ok = run_cli({"merge", "a.bkf", "c.bkf", "-o", "m.bkf", "-q"}, {}, dir);
  ASSERT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(run_cli({"query", "m.bkf", "--count"}, seq(1, 20), dir).out, "20\n");
}

}  // namespace
}  // namespace bloomkit::test
