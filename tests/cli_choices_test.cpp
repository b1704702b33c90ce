// tests/cli_choices_test.cpp - choices a user should not have to know
// (issue 17, items 9-14): targets a kind cannot reach efficiently, sizes too
// large for memory, exact parameters, one spelling of each kind, --fpr
// everywhere, signed keys, and the form of error messages.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

bool mentions(const cli_result& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

// ---- item 9: targets a kind cannot reach efficiently -----------------------------

TEST(CliFprTargets, BlockKindsRefuseTargetsBelowTheirFloor) {
  scratch_dir dir;
  // --fpr 1e-30 on 4 keys wrote a 188 MB blocked filter; 1e-12 on 1000 keys
  // gave split-block 3,347 bits per key.
  auto r = run_cli({"build", "--kind", "blocked", "--fpr", "1e-30", "-o", "b.bkf"}, "a\nb\nc\nd\n", dir);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(mentions(r, "--kind standard")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "b.bkf"));
  write_file(dir / "k.txt", seq(1, 1000));
  r = run_cli({"build", "k.txt", "--kind", "split-block", "--fpr", "1e-12", "-o", "s.bkf"}, {}, dir);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(mentions(r, "bits per key")) << r.err;
  EXPECT_TRUE(mentions(r, "--kind standard")) << r.err;
  // The standard filter reaches it, at the size the math says.
  r = run_cli({"build", "k.txt", "--kind", "standard", "--fpr", "1e-12", "-o", "st.bkf", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_LT(nlohmann::json::parse(r.out)["bits_per_key"].get<double>(), 60.0);
  // Ordinary targets still build every block kind.
  for (const auto& kind : {"blocked", "split-block"}) {
    for (const auto& fpr : {"0.1", "0.01", "0.001", "0.0001"}) {
      SCOPED_TRACE(std::string(kind) + " " + fpr);
      EXPECT_EQ(run_cli({"build", "k.txt", "--kind", kind, "--fpr", fpr, "-o", "ok.bkf"}, {}, dir).rc, 0);
    }
  }
}

// --fpr 1e-30 is a usage error (exit 1) for every kind that cannot reach
// it, in one form, before any file is written; the kinds that reach any
// rate build (issue 37 item 8).
TEST(CliFprTargets, UnreachableTargetsAreOneUsageError) {
  scratch_dir dir;
  write_file(dir / "k.txt", seq(1, 1000));
  for (const std::string kind : {"blocked", "split-block", "scalable", "cuckoo", "ribbon", "binary-fuse"}) {
    SCOPED_TRACE(kind);
    for (const bool sized : {false, true}) {
      std::vector<std::string> args = {"build", "k.txt", "--kind", kind, "--fpr", "1e-30", "-o", "u.bkf"};
      if (sized) args.insert(args.end(), {"--capacity", "1000"});
      const auto r = run_cli(args, {}, dir);
      EXPECT_EQ(r.rc, 1) << r.err;
      EXPECT_EQ(r.err.rfind("bloomkit: --kind " + kind + " cannot reach --fpr 1e-30: ", 0), 0u) << r.err;
      EXPECT_TRUE(mentions(r, ". Use --kind standard, which reaches any FPR (")) << r.err;
      EXPECT_FALSE(mentions(r, "0.000000")) << r.err;
      EXPECT_FALSE(std::filesystem::exists(dir / "u.bkf"));
    }
  }
  for (const std::string kind : {"standard", "counting"}) {
    EXPECT_EQ(run_cli({"build", "k.txt", "--kind", kind, "--fpr", "1e-30", "-o", "ok.bkf"}, {}, dir).rc, 0) << kind;
  }
  const auto dedupe = run_cli({"dedupe", "--kind", "cuckoo", "--fpr", "1e-30"}, "a\n", dir);
  EXPECT_EQ(dedupe.rc, 1) << dedupe.err;
  EXPECT_TRUE(mentions(dedupe, "--kind cuckoo cannot reach --fpr 1e-30: ")) << dedupe.err;
  EXPECT_EQ(dedupe.out, "");
}

TEST(CliFprTargets, FingerprintWidthsAreExplained) {
  scratch_dir dir;
  write_file(dir / "k.txt", seq(1, 2000));
  // binary fuse at 0.001 must take its 16-bit width: it says so and names
  // the kinds that need fewer bits.
  auto r = run_cli({"build", "k.txt", "--kind", "binary-fuse", "--fpr", "0.001", "-o", "f.bkf"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(mentions(r, "--kind ribbon")) << r.err;
  // Below 2^-16 the static kinds refuse, naming the kind that can.
  r = run_cli({"build", "k.txt", "--kind", "ribbon", "--fpr", "1e-9", "-o", "r.bkf"}, {}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(mentions(r, "--kind standard")) << r.err;
  // Ribbon at 0.001 uses about 1.05 * 10 bits per key.
  r = run_cli({"build", "k.txt", "--kind", "ribbon", "--fpr", "0.001", "-o", "r.bkf", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_LT(nlohmann::json::parse(r.out)["bits_per_key"].get<double>(), 12.5);
}

// ---- item 10: sizes too large, negative sizes -------------------------------------

TEST(CliSizes, HugeCapacityNamesTheBytesAndExitsOne) {
  scratch_dir dir;
  for (const auto& kind : {"standard", "blocked", "split-block", "counting", "scalable"}) {
    SCOPED_TRACE(kind);
    const auto r = run_cli({"build", "--kind", kind, "--capacity", "10000000000000", "-o", "h.bkf"}, "a\n", dir);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_TRUE(mentions(r, "bytes")) << r.err;
    EXPECT_TRUE(mentions(r, "GiB of memory")) << "names the memory, not a floor: " << r.err;
    EXPECT_FALSE(mentions(r, "bad_alloc")) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "h.bkf"));
}

TEST(CliSizes, NegativeCapacityIsAUsageError) {
  scratch_dir dir;
  for (const auto& value : {"-5", "-1", "0"}) {
    const auto r = run_cli({"build", "--capacity", value, "-o", "n.bkf"}, "a\n", dir);
    EXPECT_EQ(r.rc, 1) << value << ": " << r.err;
  }
}

// Counts take scientific notation and integral decimals, exactly; a
// fraction, a negative value or one past 2^64 - 1 is a usage error naming
// the problem (issue 37 item 9).
TEST(CliSizes, CountsTakeScientificNotation) {
  scratch_dir dir;
  const auto capacity_of = [&](const std::string& value) {
    const auto r = run_cli({"build", "--capacity", value, "-o", "c.bkf", "--kind", "standard"}, "a\n", dir);
    EXPECT_EQ(r.rc, 0) << value << ": " << r.err;
    return nlohmann::json::parse(run_cli({"info", "c.bkf", "--json"}, {}, dir).out).at("capacity").get<std::uint64_t>();
  };
  EXPECT_EQ(capacity_of("1e3"), 1000u);
  EXPECT_EQ(capacity_of("2.5E3"), 2500u);
  EXPECT_EQ(capacity_of("1000.0"), 1000u);
  EXPECT_EQ(capacity_of("12300e-2"), 123u);
  EXPECT_EQ(capacity_of("0.5e1"), 5u);
  struct refused {
    std::string value, says;
  };
  for (const auto& [value, says] : std::vector<refused>{{"1.5", "whole number"},
                                                        {"1e-1", "whole number"},
                                                        {"12345e-2", "whole number"},
                                                        {"-5", "negative"},
                                                        {"-1e3", "negative"},
                                                        {"18446744073709551616", "2^64 - 1"},
                                                        {"1e20", "2^64 - 1"},
                                                        {"1e999999999999", "2^64 - 1"},
                                                        {"12abc", "whole number"},
                                                        {"e5", "whole number"}}) {
    const auto r = run_cli({"build", "--capacity", value, "-o", "n.bkf"}, "a\n", dir);
    EXPECT_EQ(r.rc, 1) << value << ": " << r.err;
    EXPECT_TRUE(mentions(r, says)) << value << ": " << r.err;
  }
  // The largest count parses (and is then refused as too large for memory).
  const auto huge = run_cli({"build", "--capacity", "18446744073709551615", "-o", "n.bkf"}, "a\n", dir);
  EXPECT_EQ(huge.rc, 1) << huge.err;
  EXPECT_FALSE(mentions(huge, "2^64 - 1")) << huge.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "n.bkf"));
  // The other counts: dedupe --capacity, build --bits and --window.
  EXPECT_EQ(run_cli({"dedupe", "--capacity", "1e3", "--kind", "standard"}, "a\na\n", dir).out, "a\n");
  EXPECT_EQ(run_cli({"build", "--bits", "8.192e3", "--hashes", "3", "--kind", "standard", "-o", "b.bkf"}, "a\n", dir).rc,
            0);
  EXPECT_EQ(nlohmann::json::parse(run_cli({"info", "b.bkf", "--json"}, {}, dir).out).at("bits").get<std::uint64_t>(),
            8192u);
  EXPECT_EQ(run_cli({"build", "--kind", "window", "--window", "1e2", "-o", "w.bkf"}, "a\n", dir).rc, 0);
}

// An output that is a folder is refused before any input is read (the
// rename at the end would fail only after the whole build).
TEST(CliSizes, OutputFolderIsRefusedBeforeAnyWork) {
  scratch_dir dir;
  std::filesystem::create_directory(dir.path() / "out");
  // "oops" is not a u64 key: a build that read its input would fail on it (exit 2).
  const auto r = run_cli({"build", "--format", "u64", "-o", "out"}, "oops\n", dir);
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(mentions(r, "out is a folder")) << r.err;
  EXPECT_FALSE(mentions(r, "<stdin>")) << r.err;
  const auto merge = run_cli({"merge", "x.bkf", "y.bkf", "-o", "out"}, {}, dir);
  EXPECT_EQ(merge.rc, 1) << merge.err;
  EXPECT_TRUE(mentions(merge, "out is a folder")) << merge.err;
}

// ---- item 11: exact parameters ----------------------------------------------------

TEST(CliExactParameters, BitsAndHashes) {
  scratch_dir dir;
  write_file(dir / "k.txt", seq(1, 1000));
  auto r = run_cli({"build", "k.txt", "--kind", "standard", "--bits", "20000", "--hashes", "7", "-o", "s.bkf", "--json"},
                   {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bits"], 20000);
  EXPECT_EQ(j["k"], 7);
  EXPECT_EQ(j["capacity"], 1000);
  r = run_cli({"build", "k.txt", "--kind", "blocked", "--bits", "51200", "--hashes", "5", "-o", "b.bkf", "--json"}, {},
              dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["blocks"], 100);
  EXPECT_EQ(j["k"], 5);
  r = run_cli({"build", "k.txt", "--kind", "counting", "--hashes", "4", "-o", "c.bkf", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["k"], 4);
  EXPECT_EQ(run_cli({"query", "s.bkf", "1", "1000"}, {}, dir).out, "1\tmaybe\n1000\tmaybe\n");
  // Where they do not apply, a usage error says so.
  EXPECT_EQ(run_cli({"build", "k.txt", "--kind", "split-block", "--hashes", "7", "-o", "x.bkf"}, {}, dir).rc, 1);
  EXPECT_EQ(run_cli({"build", "k.txt", "--kind", "ribbon", "--bits", "100", "-o", "x.bkf"}, {}, dir).rc, 1);
  // -k is --kind: `-k 7` points to --hashes.
  r = run_cli({"build", "k.txt", "-k", "7", "-o", "x.bkf"}, {}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(mentions(r, "--hashes 7")) << r.err;
}

// ---- item 12: one spelling of each kind, --fpr everywhere, i64 keys -----------------

TEST(CliSpellings, InfoNamesAreAcceptedByKind) {
  scratch_dir dir;
  write_file(dir / "k.txt", seq(1, 100));
  for (const auto& kind : {"standard", "blocked", "split-block", "counting", "scalable", "binary-fuse", "ribbon"}) {
    SCOPED_TRACE(kind);
    auto r = run_cli({"build", "k.txt", "--kind", kind, "-o", "a.bkf", "--json"}, {}, dir);
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string info_name = nlohmann::json::parse(r.out)["kind"];
    r = run_cli({"build", "k.txt", "--kind", info_name, "-o", "b.bkf", "--json"}, {}, dir);
    ASSERT_EQ(r.rc, 0) << info_name << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["kind"], info_name);
    EXPECT_EQ(read_file(dir / "a.bkf"), read_file(dir / "b.bkf"));
  }
  EXPECT_EQ(run_cli({"build", "k.txt", "--kind", "Split_Block", "-o", "c.bkf"}, {}, dir).rc, 0);
  const auto r = run_cli({"build", "k.txt", "--kind", "blokced", "-o", "c.bkf"}, {}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(mentions(r, "did you mean blocked")) << r.err;
}

TEST(CliSpellings, ParquetWriteTakesFprAndFpp) {
  scratch_dir dir;
  write_file(dir / "k.txt", seq(1, 100));
  EXPECT_EQ(run_cli({"parquet", "write", "k.txt", "--type", "int64", "--fpr", "0.001", "-o", "a.parquet"}, {}, dir).rc,
            0);
  EXPECT_EQ(run_cli({"parquet", "write", "k.txt", "--type", "int64", "--fpp", "0.001", "-o", "b.parquet"}, {}, dir).rc,
            0);
  EXPECT_EQ(read_file(dir / "a.parquet"), read_file(dir / "b.parquet"));
}

// An INT64 column's extracted filter answers signed values with --format i64.
TEST(CliSpellings, SignedKeysQueryExtractedInt64Filters) {
  scratch_dir dir;
  write_file(dir / "v.txt", "-1\n-9223372036854775808\n9223372036854775807\n42\n");
  ASSERT_EQ(run_cli({"parquet", "write", "v.txt", "--type", "int64", "-o", "t.parquet"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"parquet", "extract", "t.parquet", "value", "-o", "t.bkf"}, {}, dir).rc, 0);
  auto r = run_cli({"query", "t.bkf", "--format", "i64", "-1", "-9223372036854775808", "9223372036854775807", "42"}, {},
                   dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "-1\tmaybe\n-9223372036854775808\tmaybe\n9223372036854775807\tmaybe\n42\tmaybe\n");
  r = run_cli({"query", "t.bkf", "--format", "i64", "--json", "-1"}, {}, dir);
  EXPECT_EQ(r.out, "{\"key\":-1,\"maybe\":true}\n");
  // i64 and u64 agree where both apply; out of range is a data error.
  EXPECT_EQ(run_cli({"query", "t.bkf", "--format", "u64", "42", "18446744073709551615"}, {}, dir).out,
            "42\tmaybe\n18446744073709551615\tmaybe\n");
  EXPECT_EQ(run_cli({"query", "t.bkf", "--format", "i64", "9223372036854775808"}, {}, dir).rc, 2);
  // Parquet records no count: the extract's is an estimate from the bits,
  // and the file and info say so (item 13).
  const auto info = nlohmann::json::parse(run_cli({"info", "t.bkf", "--json"}, {}, dir).out);
  EXPECT_EQ(info["inserted_accuracy"], "estimated");
  // Version 5: the extract records the column's key type (INT64: int64),
  // and keeps version 2's inserted_accuracy.
  EXPECT_EQ(info["format_version"], 5);
  EXPECT_EQ(info["key_type"], "int64");
  EXPECT_NE(run_cli({"info", "t.bkf"}, {}, dir).out.find("(estimated from the bits set: the source did not record a count)"),
            std::string::npos);
  // So the column's values are read as integers without --format, and text is refused.
  EXPECT_EQ(run_cli({"query", "t.bkf", "--", "-1", "42"}, {}, dir).out, "-1\tmaybe\n42\tmaybe\n");
  EXPECT_EQ(run_cli({"query", "t.bkf", "--format", "text", "42"}, {}, dir).rc, 1);
}

// ---- item 14: message form, suggestions, waiting for keys -------------------------

TEST(CliMessages, OnePrefixAndFileFirst) {
  scratch_dir dir;
  write_file(dir / "junk.bkf", "not a filter at all, just some bytes that are long enough to look at");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"info", "missing.bkf"}, {"info", "junk.bkf"}, {"query", "junk.bkf", "a"},
        {"merge", "junk.bkf", "missing.bkf", "-o", "m.bkf"}}) {
    const auto r = run_cli(args, {}, dir);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err.rfind("bloomkit: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find("bloomkit: ", 1), std::string::npos) << "doubled prefix: " << r.err;
  }
}

TEST(CliMessages, UnknownCommandSuggestsTheNearest) {
  scratch_dir dir;
  auto r = run_cli({"bild", "x"}, {}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(mentions(r, "did you mean 'build'")) << r.err;
  r = run_cli({"quer"}, {}, dir);
  EXPECT_TRUE(mentions(r, "did you mean 'query'")) << r.err;
  r = run_cli({"parquet", "lst", "x"}, {}, dir);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(mentions(r, "did you mean 'parquet list'")) << r.err;
}

TEST(CliMessages, MergeNamesEachFileBesideItsValue) {
  scratch_dir dir;
  write_file(dir / "k.txt", seq(1, 100));
  ASSERT_EQ(run_cli({"build", "k.txt", "-o", "small.bkf", "--capacity", "100"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "k.txt", "-o", "big.bkf", "--capacity", "100000"}, {}, dir).rc, 0);
  const auto r = run_cli({"merge", "small.bkf", "big.bkf", "-o", "m.bkf"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  // Each file appears with its own figure, and the fix is suggested.
  EXPECT_TRUE(mentions(r, "small.bkf")) << r.err;
  EXPECT_TRUE(mentions(r, "big.bkf")) << r.err;
  EXPECT_TRUE(mentions(r, "--capacity")) << r.err;
}

// A terminal on stdin: `query f.bkf` says it is waiting for keys.
TEST(CliMessages, TerminalStdinSaysItIsWaiting) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "f.bkf"}, "alice\n", dir).rc, 0);
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const std::string slave = ::ptsname(master);
  // The line and an end-of-file (Ctrl-D) wait in the terminal's buffer.
  ASSERT_EQ(::write(master, "alice\n\x04", 7), 7);
  const auto r = run_shell("timeout 20 \"$BLOOMKIT\" query f.bkf < " + slave, dir);
  ::close(master);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(mentions(r, "reading keys from the terminal")) << r.err;
  EXPECT_EQ(r.out, "alice\tmaybe\n");
}

}  // namespace
}  // namespace bloomkit::test
