// tests/cli_test.cpp - the bloomkit CLI driven as a user drives it: round
// trips from text files and stdin, the three key formats, CRLF input, empty
// input, query output forms, info and its JSON, merge and intersect.
// Errors and exit codes are in cli_errors_test.cpp.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace bloomkit::test {
namespace {

const std::vector<std::string> kinds = {"standard", "blocked", "split-block"};

std::uint64_t count_maybe(const std::string& out) {
  std::uint64_t n = 0;
  for (const auto& line : lines_of(out)) n += line.ends_with("\tmaybe") ? 1 : 0;
  return n;
}

// Every kind: no false negatives, and the false-positive rate on absent keys
// within the binomial band around the design FPR (plus the slack the layout
// formulas need at this small n: the sizing tests pin those formulas).
TEST(CliRoundTrip, TextFileEveryKind) {
  scratch_dir dir;
  const std::uint64_t n = scaled(20000, 4);
  const double p = 0.01;
  write_file(dir / "keys.txt", numbered_keys("user-", 0, n));
  write_file(dir / "absent.txt", numbered_keys("nobody-", 0, n));
  for (const auto& kind : kinds) {
    SCOPED_TRACE(kind);
    const auto built = run_cli({"build", "keys.txt", "-o", kind + ".bloom", "--kind", kind, "--fpr", "0.01"}, {}, dir);
    ASSERT_EQ(built.rc, 0) << built.err;
    const auto present = run_cli({"query", kind + ".bloom", "-i", "keys.txt"}, {}, dir);
    ASSERT_EQ(present.rc, 0) << present.err;
    EXPECT_EQ(lines_of(present.out).size(), n);
    EXPECT_EQ(count_maybe(present.out), n) << "a false negative";
    EXPECT_EQ(lines_of(present.out).front(), "user-0\tmaybe");

    const auto absent = run_cli({"query", kind + ".bloom", "--count"}, read_file(dir / "absent.txt"), dir);
    ASSERT_EQ(absent.rc, 0) << absent.err;
    const double rate = std::stod(absent.out) / static_cast<double>(n);
    EXPECT_LE(rate, p * 1.3 + binomial_tolerance(p, static_cast<double>(n))) << "measured FPR " << rate;
  }
}

// Without --capacity the input's distinct keys are counted first; from stdin
// it is spooled. Both give the same capacity (5000 keys: past the exact range,
// so the KMV estimate plus two standard errors), and --capacity of that value
// gives the same file, byte for byte.
TEST(CliRoundTrip, StdinFileAndCapacityGiveTheSameFile) {
  scratch_dir dir;
  const std::string keys = numbered_keys("k", 0, 5000);
  write_file(dir / "keys.txt", keys);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "file.bloom"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-o", "stdin.bloom"}, keys, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "-", "-o", "dash.bloom"}, keys, dir).rc, 0);
  const auto info = run_cli({"info", "file.bloom", "--json"}, {}, dir);
  ASSERT_EQ(info.rc, 0) << info.err;
  const auto capacity = nlohmann::json::parse(info.out)["capacity"].get<std::uint64_t>();
  EXPECT_GE(capacity, 5000u * 97 / 100);
  EXPECT_LE(capacity, 5000u * 110 / 100);
  ASSERT_EQ(run_cli({"build", "keys.txt", "--capacity", std::to_string(capacity), "-o", "cap.bloom"}, {}, dir).rc, 0);
  const std::string file = read_file(dir / "file.bloom");
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(file, read_file(dir / "stdin.bloom"));
  EXPECT_EQ(file, read_file(dir / "dash.bloom"));
  EXPECT_EQ(file, read_file(dir / "cap.bloom"));
}

// More stdin keys than the in-memory spool holds: the rest goes through the
// temporary file, and the result is still the same filter.
TEST(CliRoundTrip, StdinSpillsToTemporaryFile) {
  scratch_dir dir;
  const std::string keys = numbered_keys("", 0, scaled(30000, 3));
  write_file(dir / "keys.txt", keys);
  ASSERT_EQ(run_cli({"build", "keys.txt", "--format", "u64", "-o", "file.bloom"}, {}, dir).rc, 0);
  const auto spilled = run_cli({"build", "--format", "u64", "-o", "stdin.bloom"}, keys, dir,
                               {"BLOOMKIT_SPOOL_BYTES=8192", "TMPDIR=" + dir.path().string()});
  ASSERT_EQ(spilled.rc, 0) << spilled.err;
  EXPECT_EQ(read_file(dir / "file.bloom"), read_file(dir / "stdin.bloom"));
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"file.bloom", "keys.txt", "stdin.bloom"}))
      << "the spool file must not stay behind";
}

TEST(CliRoundTrip, SeveralInputFilesInOrder) {
  scratch_dir dir;
  write_file(dir / "a.txt", numbered_keys("a", 0, 300));
  write_file(dir / "b.txt", numbered_keys("b", 0, 700));
  const auto built = run_cli({"build", "a.txt", "b.txt", "-o", "ab.bloom", "--json"}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  const auto j = nlohmann::json::parse(built.out);
  EXPECT_EQ(j["capacity"], 1000);
  EXPECT_EQ(j["inserted"], 1000);
  EXPECT_EQ(j["keys_read"], 1000);
  const auto q = run_cli({"query", "ab.bloom", "a0", "a299", "b0", "b699"}, {}, dir);
  EXPECT_EQ(q.out, "a0\tmaybe\na299\tmaybe\nb0\tmaybe\nb699\tmaybe\n");
}

// hex keys are bytes: "616c696365" is the key "alice", in either case.
TEST(CliFormats, HexKeysAreTheirBytes) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "--format", "hex", "-o", "h.bloom", "--capacity", "100"}, "616c696365\n00ff\n\n", dir).rc,
            0);
  EXPECT_EQ(run_cli({"query", "h.bloom", "alice"}, {}, dir).out, "alice\tmaybe\n");
  EXPECT_EQ(run_cli({"query", "h.bloom", "--format", "hex", "616C696365", "00FF"}, {}, dir).out,
            "616C696365\tmaybe\n00FF\tmaybe\n");
  // The empty line was the empty key; text mode's empty line is the same key.
  EXPECT_EQ(run_cli({"query", "h.bloom"}, "\n", dir).out, "\tmaybe\n");
}

// u64 keys hash as 8 little-endian bytes (an int64 key): the key 1 is the
// byte string 01 00 00 00 00 00 00 00, which a file of int64 keys refuses as
// hex text but the library finds by its hash.
TEST(CliFormats, U64KeysAreEightLittleEndianBytes) {
  scratch_dir dir;
  const std::uint64_t n = 1000;
  std::string keys;
  for (std::uint64_t i = 1; i <= n; ++i) keys += std::to_string(i * 0x9e3779b97f4a7c15ULL) + "\n";
  keys += "18446744073709551615\n";
  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "u.bloom"}, keys, dir).rc, 0);
  const auto all = run_cli({"query", "u.bloom", "--format", "u64", "--count"}, keys, dir);
  EXPECT_EQ(all.out, std::to_string(n + 1) + "\n");

  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "one.bloom", "--capacity", "10"}, "1\n", dir).rc, 0);
  const auto one = bloomkit::load_as<bloomkit::blocked_bloom>(std::filesystem::path(dir / "one.bloom"));
  EXPECT_EQ(one.hash().keys, bloomkit::key_type::int64);
  const std::array<std::byte, 8> le1{std::byte{1}};
  EXPECT_TRUE(one.may_contain_hash(bloomkit::hash_bytes(le1, one.hash())));
  EXPECT_EQ(run_cli({"query", "one.bloom", "--format", "hex", "0100000000000000"}, {}, dir).rc, 1)
      << "hex keys are bytes: a usage error against int64 keys";
  EXPECT_EQ(run_cli({"query", "one.bloom", "--format", "u64", "0001"}, {}, dir).out, "0001\tmaybe\n")
      << "leading zeros do not change the number";
}

// CRLF: one '\r' before '\n' is dropped in every format, so a Windows key
// file gives the same filter as its LF twin (the documented choice).
TEST(CliFormats, CrlfLinesGiveTheSameKeysAsLf) {
  scratch_dir dir;
  write_file(dir / "lf.txt", numbered_keys("key", 0, 1000, "\n"));
  write_file(dir / "crlf.txt", numbered_keys("key", 0, 1000, "\r\n"));
  ASSERT_EQ(run_cli({"build", "lf.txt", "-o", "lf.bloom"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "crlf.txt", "-o", "crlf.bloom"}, {}, dir).rc, 0);
  EXPECT_EQ(read_file(dir / "lf.bloom"), read_file(dir / "crlf.bloom"));
  // The query side strips it too, and does not echo it.
  EXPECT_EQ(run_cli({"query", "crlf.bloom"}, "key7\r\nkey999\r\n", dir).out, "key7\tmaybe\nkey999\tmaybe\n");
  // A last line without a line end is a key; a final CRLF does not add one.
  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "u.bloom", "--json"}, "1\r\n2\r\n3", dir).rc, 0);
  EXPECT_EQ(run_cli({"query", "u.bloom", "--format", "u64", "--count"}, "1\r\n2\r\n3\r\n", dir).out, "3\n");
  EXPECT_EQ(nlohmann::json::parse(run_cli({"info", "u.bloom", "--json"}, {}, dir).out)["inserted"], 3);
}

TEST(CliFormats, EmptyInputGivesAnEmptyFilter) {
  scratch_dir dir;
  write_file(dir / "empty.txt", "");
  const auto built = run_cli({"build", "empty.txt", "-o", "e.bloom"}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  EXPECT_NE(built.err.find("no keys read"), std::string::npos) << built.err;
  const auto info = nlohmann::json::parse(run_cli({"info", "e.bloom", "--json"}, {}, dir).out);
  EXPECT_EQ(info["inserted"], 0);
  EXPECT_EQ(info["fill_ratio"], 0.0);
  EXPECT_EQ(run_cli({"query", "e.bloom", "anything"}, {}, dir).out, "anything\tabsent\n");
  // From stdin, and querying with no keys at all.
  EXPECT_EQ(run_cli({"build", "-o", "e2.bloom"}, "", dir).rc, 0);
  const auto none = run_cli({"query", "e2.bloom"}, "", dir);
  EXPECT_EQ(none.rc, 0);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(run_cli({"query", "e2.bloom", "--count"}, "", dir).out, "0\n");
}

TEST(CliQuery, JsonLinesOnePerKey) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "k.bloom", "--capacity", "100"}, "tab\there\nquote\"d\n\xff\xfe\n", dir).rc, 0);
  const auto q = run_cli({"query", "k.bloom", "--json"}, "tab\there\nquote\"d\n\xff\xfe\nnot-there\n", dir);
  ASSERT_EQ(q.rc, 0) << q.err;
  const auto lines = lines_of(q.out);
  ASSERT_EQ(lines.size(), 4u);
  const auto a = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(a["key"], "tab\there");
  EXPECT_EQ(a["maybe"], true);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["key"], "quote\"d");
  // Not UTF-8: the key is shown with U+FFFD and its bytes are given in hex.
  const auto bad = nlohmann::json::parse(lines[2]);
  EXPECT_EQ(bad["key_hex"], "fffe");
  EXPECT_EQ(bad["maybe"], true);
  EXPECT_EQ(nlohmann::json::parse(lines[3])["maybe"], false);

  ASSERT_EQ(run_cli({"build", "--format", "u64", "-o", "u.bloom"}, "18446744073709551615\n", dir).rc, 0);
  const auto u = nlohmann::json::parse(run_cli({"query", "u.bloom", "--format", "u64", "--json", "18446744073709551615"}, {}, dir).out);
  EXPECT_EQ(u["key"].get<std::uint64_t>(), 18446744073709551615ULL);
}

TEST(CliInfo, JsonHasTheDocumentedFields) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "s.bloom", "--kind", "standard", "--fpr", "0.001", "--seed", "7"},
                    numbered_keys("x", 0, 2000), dir)
                .rc,
            0);
  const auto r = run_cli({"info", "s.bloom", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_EQ(lines_of(r.out).size(), 1u) << "one object, one line";
  const auto j = nlohmann::json::parse(r.out);
  for (const char* field : {"kind", "bits", "k", "hash", "seed", "capacity", "target_fpr", "inserted", "size_bytes",
                            "bits_per_key", "fill_ratio", "estimated_cardinality", "estimated_fpr", "design_fpr",
                            "saturated", "checksum_ok", "file_bytes", "format_version"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["kind"], "standard_bloom");
  EXPECT_EQ(j["hash"], "xxh3_64");
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["capacity"], 2000);
  EXPECT_EQ(j["inserted"], 2000);
  EXPECT_EQ(j["saturated"], false);
  EXPECT_EQ(j["checksum_ok"], true);
  EXPECT_DOUBLE_EQ(j["bits_per_key"].get<double>(), j["bits"].get<double>() / 2000.0);
  EXPECT_NEAR(j["estimated_cardinality"].get<double>(), 2000.0, 2000.0 * 0.05);
  EXPECT_NEAR(j["fill_ratio"].get<double>(), 0.5, 0.05) << "an optimally sized filter is about half full";

  // A split-block filter reports Parquet's hash, and k = 8.
  ASSERT_EQ(run_cli({"build", "-o", "p.bloom", "--kind", "split-block"}, "a\nb\n", dir).rc, 0);
  const auto p = nlohmann::json::parse(run_cli({"info", "p.bloom", "--json"}, {}, dir).out);
  EXPECT_EQ(p["hash"], "xxh64");
  EXPECT_EQ(p["seed"], 0);
  EXPECT_EQ(p["k"], 8);
}

// Past capacity: build warns, info says so in plain words and in JSON.
TEST(CliInfo, SaturationIsFlaggedInPlainWords) {
  scratch_dir dir;
  const auto built = run_cli({"build", "-o", "full.bloom", "--capacity", "100", "--kind", "blocked"},
                             numbered_keys("key", 0, 5000), dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  EXPECT_NE(built.err.find("warning: about "), std::string::npos) << built.err;
  EXPECT_NE(built.err.find(" distinct keys read (5000 in all) but --capacity is 100"), std::string::npos) << built.err;
  const auto info = run_cli({"info", "full.bloom"}, {}, dir);
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_NE(info.out.find("more keys than it was sized for"), std::string::npos) << info.out;
  EXPECT_EQ(nlohmann::json::parse(run_cli({"info", "full.bloom", "--json"}, {}, dir).out)["saturated"], true);

  const auto fine = run_cli({"build", "-o", "fine.bloom", "--capacity", "5000"}, numbered_keys("key", 0, 5000), dir);
  EXPECT_EQ(fine.err.find("warning"), std::string::npos) << fine.err;
  EXPECT_NE(run_cli({"info", "fine.bloom"}, {}, dir).out.find("saturated              no"), std::string::npos);
}

// A capacity is a number of distinct keys, in build as in the Spark and Dask
// builds (docs/KEYS.md "Capacity"): repeats neither warn nor size.
TEST(CliBuild, CapacityCountsDistinctKeys) {
  scratch_dir dir;
  std::string repeated;
  for (int i = 0; i < 1000; ++i) repeated += "a\nb\nc\n";
  const auto fixed = run_cli({"build", "-o", "fixed.bkf", "--capacity", "3"}, repeated, dir);
  ASSERT_EQ(fixed.rc, 0) << fixed.err;
  EXPECT_EQ(fixed.err.find("warning"), std::string::npos) << fixed.err;

  // Sized from the input: a file given twice, stdin, and the file once all
  // give capacity 3, the distinct keys.
  write_file(dir.path() / "keys.txt", repeated);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"build", "keys.txt", "-o", "once.bkf"},
           {"build", "keys.txt", "keys.txt", "-o", "twice.bkf"},
           {"build", "-o", "piped.bkf"}}) {
    const auto built = run_cli(args, args.size() == 3 ? repeated : std::string(), dir);
    ASSERT_EQ(built.rc, 0) << built.err;
    const auto info = nlohmann::json::parse(run_cli({"info", args[args.size() - 1], "--json"}, {}, dir).out);
    EXPECT_EQ(info["capacity"], 3) << args[1];
    EXPECT_EQ(info["inserted"], args[2] == "keys.txt" ? 6000 : 3000) << "inserted counts insert calls";
  }

  // Over capacity in distinct keys still warns, naming them.
  const auto over = run_cli({"build", "-o", "over.bkf", "--capacity", "2"}, repeated, dir);
  ASSERT_EQ(over.rc, 0) << over.err;
  EXPECT_NE(over.err.find("warning: 3 distinct keys read (3000 in all) but --capacity is 2"), std::string::npos)
      << over.err;
}

// An input holds no more distinct keys than keys: where the estimate of
// `seq 1 100000` is above 100000 (about 101168), the build sizes for the
// 100000 keys read and the warning past --capacity names no more.
TEST(CliBuild, DistinctKeysNeverExceedTheKeysRead) {
  scratch_dir dir;
  std::string seq;
  for (int i = 1; i <= 100000; ++i) seq += std::to_string(i) + "\n";
  const auto sized = run_cli({"build", "-o", "seq.bkf"}, seq, dir);
  ASSERT_EQ(sized.rc, 0) << sized.err;
  EXPECT_EQ(nlohmann::json::parse(run_cli({"info", "seq.bkf", "--json"}, {}, dir).out)["capacity"], 100000);
  const auto over = run_cli({"build", "-o", "over.bkf", "--capacity", "100"}, seq, dir);
  ASSERT_EQ(over.rc, 0) << over.err;
  EXPECT_NE(over.err.find("warning: about 100000 distinct keys read (100000 in all) but --capacity is 100"),
            std::string::npos)
      << over.err;
}

TEST(CliSetOps, MergeIsTheUnionIntersectKeepsTheCommonKeys) {
  scratch_dir dir;
  for (const auto& kind : kinds) {
    SCOPED_TRACE(kind);
    const std::vector<std::string> common = {"--capacity", "3000", "--kind", kind};
    auto args = [&](std::vector<std::string> a) {
      a.insert(a.end(), common.begin(), common.end());
      return a;
    };
    ASSERT_EQ(run_cli(args({"build", "-o", "a.bloom"}), numbered_keys("k", 0, 1000), dir).rc, 0);
    ASSERT_EQ(run_cli(args({"build", "-o", "b.bloom"}), numbered_keys("k", 500, 1000), dir).rc, 0);
    ASSERT_EQ(run_cli(args({"build", "-o", "c.bloom"}), numbered_keys("k", 2000, 10), dir).rc, 0);
    const auto merged = run_cli({"merge", "a.bloom", "b.bloom", "c.bloom", "-o", "union.bloom", "--json"}, {}, dir);
    ASSERT_EQ(merged.rc, 0) << merged.err;
    EXPECT_EQ(nlohmann::json::parse(merged.out)["inserted"], 2010);
    EXPECT_EQ(run_cli({"query", "union.bloom", "--count"}, numbered_keys("k", 0, 1500), dir).out, "1500\n");
    EXPECT_EQ(run_cli({"query", "union.bloom", "--count"}, numbered_keys("k", 2000, 10), dir).out, "10\n");

    ASSERT_EQ(run_cli({"intersect", "a.bloom", "b.bloom", "-o", "both.bloom"}, {}, dir).rc, 0);
    EXPECT_EQ(run_cli({"query", "both.bloom", "--count"}, numbered_keys("k", 500, 500), dir).out, "500\n");
    // Keys only in a: the AND of two filters answers maybe for few of them.
    const auto only_a = std::stoull(run_cli({"query", "both.bloom", "--count"}, numbered_keys("k", 0, 500), dir).out);
    EXPECT_LT(only_a, 100u);
    // Its count is the smaller input's (1000, where 500 keys are common):
    // an upper bound, which info, --json and the file say (issue 17, item 13).
    const auto info = run_cli({"info", "both.bloom"}, {}, dir);
    EXPECT_NE(info.out.find("inserted               at most 1000 (an upper bound, not a count"), std::string::npos) << info.out;
    // Format version 5: a CLI-built filter records its key type, and version 5
    // keeps version 2's inserted_accuracy (docs/FORMAT.md).
    EXPECT_NE(info.out.find("format version         5"), std::string::npos) << info.out;
    const auto json = nlohmann::json::parse(run_cli({"info", "both.bloom", "--json"}, {}, dir).out);
    EXPECT_EQ(json["inserted"], 1000);
    EXPECT_EQ(json["inserted_accuracy"], "at_most");
    EXPECT_EQ(json["format_version"], 5);
    const auto plain = nlohmann::json::parse(run_cli({"info", "a.bloom", "--json"}, {}, dir).out);
    EXPECT_EQ(plain["inserted_accuracy"], "exact");
    EXPECT_EQ(plain["format_version"], 5);
    EXPECT_NE(run_cli({"info", "a.bloom"}, {}, dir).out.find("(insert calls, duplicates included)"), std::string::npos);

    // The output may not be one of the inputs (issue 17: an intersection
    // written over its input cannot be undone); the input is untouched.
    const std::string before = read_file(dir / "a.bloom");
    EXPECT_EQ(run_cli({"merge", "a.bloom", "b.bloom", "-o", "a.bloom"}, {}, dir).rc, 1);
    EXPECT_EQ(read_file(dir / "a.bloom"), before);
  }
}

TEST(CliHelp, EveryCommandHasHelpWithExamples) {
  scratch_dir dir;
  for (const char* command : {"build", "query", "info", "merge", "intersect", "demo"}) {
    SCOPED_TRACE(command);
    const auto r = run_cli({command, "--help"}, {}, dir);
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
  const auto top = run_cli({"--help"}, {}, dir);
  EXPECT_EQ(top.rc, 0);
  for (const char* command : {"build", "query", "info", "merge", "intersect", "demo"}) {
    EXPECT_NE(top.out.find(command), std::string::npos) << command;
  }
}

// No progress bar, no terminal escapes when stderr is not a terminal.
TEST(CliProgress, SilentWhenStderrIsNotATerminal) {
  scratch_dir dir;
  const auto r = run_cli({"build", "-o", "k.bloom", "--quiet"}, numbered_keys("k", 0, 10000), dir);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(r.err, "");
  const auto loud = run_cli({"build", "-o", "k.bloom"}, numbered_keys("k", 0, 10000), dir);
  EXPECT_EQ(loud.err.find('\r'), std::string::npos);
  EXPECT_EQ(loud.err.find('\033'), std::string::npos);
}

}  // namespace
}  // namespace bloomkit::test
