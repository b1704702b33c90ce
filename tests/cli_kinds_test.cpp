// tests/cli_kinds_test.cpp - the kinds of issue 19 through the real binary:
// build --kind cuckoo (a multiset, remove, full is an error, merge
// refused), --kind window --window N, `bloomkit dedupe`, and k-mer input
// (build --format fasta --kmer K, query --kmer K --fraction).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/kmer.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace bloomkit::test {
namespace {

std::uint64_t count_suffix(const std::string& out, const std::string& suffix) {
  std::uint64_t n = 0;
  for (const auto& line : lines_of(out)) n += line.ends_with(suffix) ? 1 : 0;
  return n;
}

// Text keys under XXH64 are hashed a batch at a time (the library's string
// lanes for keys of 8-23 bytes, one call per key otherwise): keys of every
// length 0..70 in every lane position, some with CRLF endings and the last
// without a newline, give the file of the library's filter fed the same
// keys, with the default seed and another, and query --count finds them all.
TEST(CliTextKeys, XxhKeysOfEveryLengthHashAsTheLibrary) {
  scratch_dir dir;
  bloomkit::detail::splitmix64 rng(71);
  std::vector<std::string> keys;
  std::string text;
  for (std::size_t i = 0; i < 71 * 8 + 3; ++i) {
    std::string key;
    for (std::size_t len = (i * 37 + i / 71) % 71; key.size() < len;) key += static_cast<char>(0x20 + rng() % 95);
    text += key + (i % 5 == 2 ? "\r\n" : "\n");
    keys.push_back(std::move(key));
  }
  keys.push_back("last-line-without-newline");
  text += keys.back();
  write_file(dir / "keys.txt", text);
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{99}}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto built = run_cli({"build", "keys.txt", "--kind", "split-block", "--capacity", "1000", "--fpr", "0.01",
                                "--hash", "xxh64", "--seed", std::to_string(seed), "-o", "s.bkf", "-q"},
                               {}, dir);
    ASSERT_EQ(built.rc, 0) << built.err;
    split_block_bloom mine(1000, 0.01, hash_spec{hash_algorithm::xxh64, seed, key_type::bytes});  // text keys are bytes
    for (const auto& k : keys) mine.insert(std::string_view(k));
    const auto cli = load_as<split_block_bloom>(std::filesystem::path(dir / "s.bkf"));
    EXPECT_EQ(save_to_bytes(cli), save_to_bytes(mine));
    const auto q = run_cli({"query", "s.bkf", "--input", "keys.txt", "--count"}, {}, dir);
    ASSERT_EQ(q.rc, 0) << q.err;
    EXPECT_EQ(q.out, std::to_string(keys.size()) + "\n");
  }
}

TEST(CliCuckoo, BuildQueryRemoveAndRefuseMerge) {
  scratch_dir dir;
  const std::uint64_t n = scaled(4000, 4);
  write_file(dir / "keys.txt", numbered_keys("k", 0, n));
  write_file(dir / "gone.txt", numbered_keys("k", 0, n / 2));
  const auto built = run_cli({"build", "keys.txt", "-o", "c.bkf", "--kind", "cuckoo", "--fpr", "0.001"}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  const auto f = load_as<cuckoo_filter>(std::filesystem::path(dir / "c.bkf"), hash_spec{});
  EXPECT_EQ(f.inserted(), n);
  EXPECT_EQ(f.fingerprint_bits(), 13u);
  // A multiset: a key given twice is stored twice and needs two removes.
  write_file(dir / "twice.txt", "dup\ndup\n");
  ASSERT_EQ(run_cli({"build", "twice.txt", "-o", "d.bkf", "--kind", "cuckoo"}, {}, dir).rc, 0);
  EXPECT_EQ(run_cli({"remove", "d.bkf", "dup"}, {}, dir).out, "dup\tremoved\n");
  EXPECT_EQ(run_cli({"query", "d.bkf", "dup"}, {}, dir).out, "dup\tmaybe\n");
  EXPECT_EQ(run_cli({"remove", "d.bkf", "dup"}, {}, dir).out, "dup\tremoved\n");
  EXPECT_EQ(run_cli({"query", "d.bkf", "dup"}, {}, dir).out, "dup\tabsent\n");

  const auto removed = run_cli({"remove", "c.bkf", "-i", "gone.txt"}, {}, dir);
  ASSERT_EQ(removed.rc, 0) << removed.err;
  EXPECT_EQ(count_suffix(removed.out, "\tremoved"), n / 2);
  write_file(dir / "kept.txt", numbered_keys("k", n / 2, n - n / 2));
  const auto kept = run_cli({"query", "c.bkf", "-i", "kept.txt", "--count"}, {}, dir);
  ASSERT_EQ(kept.rc, 0) << kept.err;
  EXPECT_EQ(std::stoull(kept.out), n - n / 2) << "no false negatives after removes";
  const auto gone = run_cli({"query", "c.bkf", "-i", "gone.txt", "--count"}, {}, dir);
  EXPECT_LT(std::stoull(gone.out), n / 100);
  const auto again = run_cli({"remove", "c.bkf", "k0"}, {}, dir);
  EXPECT_EQ(again.out, "k0\tabsent\n");

  const auto merged = run_cli({"merge", "c.bkf", "c.bkf", "-o", "m.bkf"}, {}, dir);
  EXPECT_NE(merged.rc, 0);
  EXPECT_NE(merged.err.find("cuckoo filters do not merge"), std::string::npos) << merged.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.bkf"));
  const auto inter = run_cli({"intersect", "c.bkf", "c.bkf", "-o", "m.bkf"}, {}, dir);
  EXPECT_NE(inter.rc, 0);
  EXPECT_NE(inter.err.find("cuckoo filters do not merge"), std::string::npos) << inter.err;

  const auto info = run_cli({"info", "c.bkf", "--json"}, {}, dir);
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_NE(info.out.find("\"cuckoo_filter\""), std::string::npos) << info.out;
}

TEST(CliCuckoo, AFullTableIsAnErrorAndWritesNothing) {
  scratch_dir dir;
  write_file(dir / "keys.txt", numbered_keys("k", 0, 1000));
  const auto r = run_cli({"build", "keys.txt", "-o", "c.bkf", "--kind", "cuckoo", "--capacity", "100"}, {}, dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("cuckoo filter is full"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "c.bkf"));
}

TEST(CliWindow, RemembersTheLastNKeysOnly) {
  scratch_dir dir;
  const std::uint64_t n = 20'000, window = 1000;
  write_file(dir / "stream.txt", numbered_keys("e", 0, n));
  const auto built =
      run_cli({"build", "stream.txt", "-o", "w.bkf", "--kind", "window", "--window", std::to_string(window)}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  const auto w = load_as<age_partitioned_bloom>(std::filesystem::path(dir / "w.bkf"), hash_spec{});
  EXPECT_EQ(w.params().window, window);
  write_file(dir / "recent.txt", numbered_keys("e", n - window, window));
  const auto recent = run_cli({"query", "w.bkf", "-i", "recent.txt", "--count"}, {}, dir);
  ASSERT_EQ(recent.rc, 0) << recent.err;
  EXPECT_EQ(std::stoull(recent.out), window) << "the last N keys are always reported";
  write_file(dir / "old.txt", numbered_keys("e", 0, n / 2));
  const auto old = run_cli({"query", "w.bkf", "-i", "old.txt", "--count"}, {}, dir);
  EXPECT_LT(std::stoull(old.out), n / 2 / 50) << "old keys are forgotten (only false positives remain)";

  EXPECT_EQ(run_cli({"build", "stream.txt", "-o", "x.bkf", "--kind", "window"}, {}, dir).rc, 1) << "needs --window";
  EXPECT_EQ(run_cli({"build", "stream.txt", "-o", "x.bkf", "--window", "5"}, {}, dir).rc, 1) << "window only";
  // An unsigned option: CLI11 alone would wrap "-5" to 2^64 - 5 and fail later, as a data error.
  const auto negative = run_cli({"build", "stream.txt", "-o", "x.bkf", "--kind", "window", "--window", "-5"}, {}, dir);
  EXPECT_EQ(negative.rc, 1) << negative.err;
  EXPECT_NE(negative.err.find("must not be negative"), std::string::npos) << negative.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bkf"));
  EXPECT_EQ(run_cli({"dedupe", "--kind", "window", "--window", "-3"}, "a\na\n", dir).rc, 1) << "dedupe too";
  const auto merged = run_cli({"merge", "w.bkf", "w.bkf", "-o", "m.bkf"}, {}, dir);
  EXPECT_NE(merged.rc, 0);
  EXPECT_NE(merged.err.find("do not merge"), std::string::npos) << merged.err;
}

TEST(CliWindow, TimeWindowForgetsByTheClockOfItsLines) {
  scratch_dir dir;
  // One key a second for 10000 seconds; a window of 600 seconds, planned for 1000 keys.
  std::string lines;
  for (std::uint64_t t = 0; t < 10'000; ++t) {
    lines += std::to_string(1'700'000'000 + t) + "\te" + std::to_string(t) + "\n";
  }
  write_file(dir / "events.tsv", lines);
  const auto built = run_cli({"build", "events.tsv", "-o", "w.bkf", "--kind", "window", "--window", "1000",
                              "--window-seconds", "600", "--fpr", "0.01"}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  EXPECT_EQ(built.err.find("filled up"), std::string::npos) << built.err;
  auto w = load_as<age_partitioned_bloom>(std::filesystem::path(dir / "w.bkf"), hash_spec{});
  EXPECT_EQ(w.params().window, 600u);
  EXPECT_GT(w.params().generation_time, 0u);
  EXPECT_EQ(w.state().now, 1'700'009'999u) << "the clock is the last TIME read";
  // The library's own time-window filter fed the same lines gives the same bytes.
  age_partitioned_bloom_params planned = age_partitioned_bloom::plan_time_params(600, 1000, 0.01, hash_spec{});
  EXPECT_EQ(w.params().time_unit, apbf_time_unit::seconds) << "the CLI records its unit";
  planned.time_unit = apbf_time_unit::seconds;
  planned.hash.keys = key_type::bytes;  // the CLI records its text keys' type
  age_partitioned_bloom mine(planned);
  for (std::uint64_t t = 0; t < 10'000; ++t) {
    // (Appended, not "e" + to_string(t): GCC 12 -O3 reports a false -Wrestrict for that form.)
    std::string key = "e";
    key += std::to_string(t);
    mine.insert_at(key, 1'700'000'000 + t);
  }
  EXPECT_EQ(save_to_bytes(mine), save_to_bytes(w));

  // The last 600 seconds are reported; at a later --at they are gone.
  write_file(dir / "recent.txt", numbered_keys("e", 10'000 - 600, 600));
  const auto recent = run_cli({"query", "w.bkf", "-i", "recent.txt", "--count"}, {}, dir);
  ASSERT_EQ(recent.rc, 0) << recent.err;
  EXPECT_EQ(std::stoull(recent.out), 600u);
  const std::string later = std::to_string(1'700'009'999 + w.forgotten_time());
  const auto gone = run_cli({"query", "w.bkf", "-i", "recent.txt", "--count", "--at", later}, {}, dir);
  ASSERT_EQ(gone.rc, 0) << gone.err;
  EXPECT_EQ(std::stoull(gone.out), 0u) << "every generation would have ended by then";
  const auto one = run_cli({"query", "w.bkf", "e9999", "--at", std::to_string(1'700'009'999 + 300)}, {}, dir);
  EXPECT_EQ(one.out, "e9999\tmaybe\n");
  // Before the file's clock the filter cannot answer (keys inserted later are in it, keys that
  // expired since are gone): refused, naming the clock, not answered as of the clock.
  const auto past = run_cli({"query", "w.bkf", "e5000", "--at", "1700005000"}, {}, dir);
  EXPECT_EQ(past.rc, 1) << past.out;
  EXPECT_NE(past.err.find("1700009999"), std::string::npos) << past.err;
  EXPECT_EQ(past.out, "");

  // `info` says seconds, not keys, for a time window; keys for a count window.
  const auto info = run_cli({"info", "w.bkf"}, {}, dir);
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_NE(info.out.find("600 seconds (a time window"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("600 keys"), std::string::npos) << info.out;
  const auto json = run_cli({"info", "w.bkf", "--json"}, {}, dir);
  EXPECT_NE(json.out.find("\"capacity_unit\":\"seconds\""), std::string::npos) << json.out;
  write_file(dir / "plain.txt", numbered_keys("p", 0, 100));
  ASSERT_EQ(run_cli({"build", "plain.txt", "-o", "c.bkf", "--kind", "window", "--window", "50"}, {}, dir).rc, 0);
  const auto count_info = run_cli({"info", "c.bkf"}, {}, dir);
  EXPECT_NE(count_info.out.find("50 keys (a count window"), std::string::npos) << count_info.out;

  // Bad input: exit 2 (data) or 1 (usage), and no output file.
  const std::vector<std::pair<std::string, int>> bad_inputs = {
      {"5\ta\n4\tb\n", 2},   // time goes backwards
      {"5\ta\nb\n", 2},       // no TAB
      {"x5\ta\n", 2},          // not a number
      {"-5\ta\n", 2},          // negative
  };
  for (const auto& [text, rc] : bad_inputs) {
    write_file(dir / "bad.tsv", text);
    const auto r = run_cli({"build", "bad.tsv", "-o", "bad.bkf", "--kind", "window", "--window", "10",
                            "--window-seconds", "60"}, {}, dir);
    EXPECT_EQ(r.rc, rc) << text << r.err;
    EXPECT_NE(r.err.find("bad.tsv:"), std::string::npos) << r.err;  // names the file and line
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.bkf")) << text;
  }
  const auto build_x = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"build", "events.tsv", "-o", "x.bkf"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args, {}, dir).rc;
  };
  EXPECT_EQ(build_x({"--kind", "window", "--window-seconds", "60"}), 1) << "needs --window";
  EXPECT_EQ(build_x({"--kind", "blocked", "--window-seconds", "60"}), 1) << "window only";
  EXPECT_EQ(build_x({"--kind", "window", "--window", "5", "--window-seconds", "0"}), 1);
  EXPECT_EQ(build_x({"--kind", "window", "--window", "5", "--window-seconds", "-5"}), 1) << "refused, not wrapped";
  EXPECT_EQ(build_x({"--kind", "window", "--window", "5", "--window-seconds", "9", "--kmer", "5", "--format", "fasta"}),
            1);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bkf"));
  EXPECT_EQ(run_cli({"query", "c.bkf", "p1", "--at", "5"}, {}, dir).rc, 1) << "--at needs a time window";
  const auto w_before = read_file(dir / "w.bkf");
  EXPECT_EQ(run_cli({"query", "w.bkf", "e1", "--at", "-5"}, {}, dir).rc, 1);
  EXPECT_EQ(read_file(dir / "w.bkf"), w_before) << "a query never changes the file";
}

// `info` names seconds only where the file records them: a time window
// built on another clock (the library or Python with no unit, as
// AgePartitionedBloom.time_window does; a file from before format version
// 3) is in "time units of the caller's clock", in text and JSON.
TEST(CliWindow, InfoNamesTheClockUnitOnlyWhereTheFileRecordsIt) {
  scratch_dir dir;
  age_partitioned_bloom ms(age_partitioned_bloom::plan_time_params(60'000, 500, 0.01));  // e.g. milliseconds
  ASSERT_EQ(ms.params().time_unit, apbf_time_unit::unspecified);
  for (std::uint64_t t = 0; t < 2000; ++t) ms.insert_hash_at(detail::mix64(t), t * 100);
  save(ms, dir / "ms.bkf");
  const std::filesystem::path old_file =
      std::filesystem::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "file_format" / "age_partitioned_bloom.bkf";
  for (const std::filesystem::path& file : {std::filesystem::path(dir / "ms.bkf"), old_file}) {
    SCOPED_TRACE(file.string());
    const std::string capacity = std::to_string(load_as<age_partitioned_bloom>(file, hash_spec{}).params().window);
    const auto info = run_cli({"info", file.string()}, {}, dir);
    ASSERT_EQ(info.rc, 0) << info.err;
    EXPECT_NE(info.out.find(capacity + " time units (a time window"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("the caller's clock"), std::string::npos) << info.out;
    EXPECT_EQ(info.out.find("seconds"), std::string::npos) << info.out;
    const auto json = run_cli({"info", file.string(), "--json"}, {}, dir);
    ASSERT_EQ(json.rc, 0) << json.err;
    EXPECT_NE(json.out.find("\"capacity_unit\":\"time_units\""), std::string::npos) << json.out;
    EXPECT_EQ(json.out.find("seconds"), std::string::npos) << json.out;
  }
  // A unit in a count window, or one in a version 1 file, is refused.
  age_partitioned_bloom_params bad = age_partitioned_bloom::plan_params(100, 0.01);
  bad.time_unit = apbf_time_unit::seconds;
  EXPECT_EQ(error_code_of([&] { age_partitioned_bloom f(bad); }), errc::invalid_argument);
}

TEST(CliDedupe, PrintsEachLineTheFirstTimeInOrder) {
  scratch_dir dir;
  std::string input, expected;
  std::set<std::string> seen;
  detail::splitmix64 rng(5);
  for (int i = 0; i < 20'000; ++i) {
    const std::string line = "line-" + std::to_string(rng() % 5000);
    input += line + "\n";
    if (seen.insert(line).second) expected += line + "\n";
  }
  write_file(dir / "in.txt", input);
  const auto r = run_cli({"dedupe", "in.txt", "--fpr", "1e-6"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, expected) << "at 1e-6 no new line of 5000 is dropped (the seeds are fixed)";
  EXPECT_NE(r.err.find("20000 lines, " + std::to_string(seen.size()) + " printed"), std::string::npos) << r.err;
  // From a pipe, and with every fixed-size kind: a repeat is never printed twice.
  for (const char* kind : {"blocked", "split-block", "standard", "counting", "cuckoo"}) {
    const auto p = run_cli({"dedupe", "--kind", kind, "--capacity", "6000", "--fpr", "0.001", "-q"}, input, dir);
    ASSERT_EQ(p.rc, 0) << kind << ": " << p.err;
    std::set<std::string> printed;
    for (const auto& line : lines_of(p.out)) ASSERT_TRUE(printed.insert(line).second) << kind << " printed twice";
    EXPECT_GE(printed.size(), seen.size() * 97 / 100) << kind;
    EXPECT_TRUE(p.err.empty());
  }
  // Window: unique within the last N lines, so a line comes back after it
  // has been forgotten.
  const auto w = run_cli({"dedupe", "--kind", "window", "--window", "10", "-q"}, "a\nb\na\n" + numbered_keys("x", 0, 100) + "a\n", dir);
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(count_suffix(w.out, "a"), 2u) << w.out.substr(0, 200);
  EXPECT_EQ(run_cli({"dedupe", "--kind", "ribbon"}, std::string("a\n"), dir).rc, 1);
  EXPECT_EQ(run_cli({"dedupe", "missing.txt"}, {}, dir).rc, 2);
}

// dedupe --kind window --window N --window-seconds T: TIME<TAB>KEY lines,
// each printed (whole) when its KEY is certainly not among the keys printed
// in the last T seconds. The output is exactly what the library's own time
// window gives for the same lines; no KEY is printed twice within T seconds
// (no false negatives), and after it is certainly forgotten it is printed
// again except for the stated FPR.
TEST(CliDedupe, TimeWindowPrintsEachKeyOncePerWindow) {
  scratch_dir dir;
  const std::uint64_t T = 60, N = 400;
  std::string input;
  std::vector<std::pair<std::uint64_t, std::string>> events;
  detail::splitmix64 rng(12);
  std::uint64_t now = 1'700'000'000;
  for (int i = 0; i < 6000; ++i) {
    now = 1'700'000'000 + static_cast<std::uint64_t>(i / 3);  // 3 lines a second: 180 per 60 seconds, below N
    std::string key = "k";  // appended: GCC 12 -O3 reports a false -Wrestrict for "k" + to_string
    key += std::to_string(rng() % 700);
    events.emplace_back(now, key);
    input += std::to_string(now) + "\t" + events.back().second + "\n";
  }
  write_file(dir / "events.tsv", input);
  age_partitioned_bloom_params params = age_partitioned_bloom::plan_time_params(T, N, 1e-4);
  params.time_unit = apbf_time_unit::seconds;
  age_partitioned_bloom mine(params);
  std::string expected;
  std::map<std::string, std::uint64_t> last_printed;
  std::uint64_t owed = 0, dropped_after_forgotten = 0;
  for (const auto& [time, key] : events) {
    mine.advance_to(time);
    const bool print = mine.insert_if_absent(key);
    const auto it = last_printed.find(key);
    if (print) {
      expected += std::to_string(time) + "\t" + key + "\n";
      ASSERT_TRUE(it == last_printed.end() || time - it->second > T) << key << " printed twice within T at " << time;
      last_printed[key] = time;
    } else if (it == last_printed.end() || time - it->second >= mine.forgotten_time()) {
      ++dropped_after_forgotten;  // a false positive
    }
    owed += it == last_printed.end() || time - it->second >= mine.forgotten_time();
  }
  const auto r = run_cli({"dedupe", "events.tsv", "--kind", "window", "--window", std::to_string(N), "--window-seconds",
                          std::to_string(T), "--fpr", "1e-4"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(mine.overflowed_generations(), 0u) << "the rate stays within the planned N per T";
  EXPECT_LE(static_cast<double>(dropped_after_forgotten),
            static_cast<double>(owed) * 1e-4 + binomial_tolerance(1e-4, static_cast<double>(owed)) * static_cast<double>(owed) + 5.0);
  EXPECT_GT(count_suffix(r.out, "\tk1"), 1u) << "a key comes back once its window has passed";
  std::string summary = "6000 lines, ";
  summary += std::to_string(lines_of(expected).size());
  summary += " printed";
  EXPECT_NE(r.err.find(summary), std::string::npos) << r.err;
  // From a pipe: the same lines.
  const auto piped = run_cli({"dedupe", "--kind", "window", "--window", std::to_string(N), "--window-seconds",
                              std::to_string(T), "--fpr", "1e-4", "-q"}, input, dir);
  ASSERT_EQ(piped.rc, 0) << piped.err;
  EXPECT_EQ(piped.out, expected);
  EXPECT_TRUE(piped.err.empty());

  // Bad lines: exit 2 naming FILE:LINE (or <stdin>:LINE), nothing printed.
  const std::vector<std::pair<std::string, std::string>> bad_inputs = {
      {"5\ta\n6\tb\n4\tc\n", ":3:"},  // TIME goes backwards
      {"5\ta\nb\n", ":2:"},              // no TAB
      {"x5\ta\n", ":1:"},                 // not a number
      {"5\ta\n-5\ta\n", ":2:"},         // negative
  };
  for (const auto& [text, where] : bad_inputs) {
    write_file(dir / "bad.tsv", text);
    const auto b = run_cli({"dedupe", "bad.tsv", "--kind", "window", "--window", "10", "--window-seconds", "60"}, {}, dir);
    EXPECT_EQ(b.rc, 2) << text << b.err;
    std::string file_line = "bad.tsv";
    file_line += where;
    EXPECT_NE(b.err.find(file_line), std::string::npos) << b.err;
    EXPECT_TRUE(b.out.empty()) << "nothing printed: " << b.out;
    const auto p = run_cli({"dedupe", "--kind", "window", "--window", "10", "--window-seconds", "60"}, text, dir);
    EXPECT_EQ(p.rc, 2) << text << p.err;
    std::string stdin_line = "<stdin>";
    stdin_line += where;
    EXPECT_NE(p.err.find(stdin_line), std::string::npos) << p.err;
    EXPECT_TRUE(p.out.empty()) << p.out;
  }
  // The options are checked as build checks them (usage errors, exit 1).
  const auto dedupe_rc = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"dedupe", "events.tsv"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto x = run_cli(args, {}, dir);
    EXPECT_TRUE(x.out.empty());
    return x.rc;
  };
  EXPECT_EQ(dedupe_rc({"--kind", "window", "--window", "10", "--window-seconds", "-3"}), 1) << "refused, not wrapped";
  EXPECT_EQ(dedupe_rc({"--kind", "window", "--window", "10", "--window-seconds", "0"}), 1);
  EXPECT_EQ(dedupe_rc({"--kind", "window", "--window", "-10", "--window-seconds", "60"}), 1);
  EXPECT_EQ(dedupe_rc({"--kind", "window", "--window-seconds", "60"}), 1) << "needs --window";
  EXPECT_EQ(dedupe_rc({"--kind", "blocked", "--window-seconds", "60"}), 1) << "window only";
  EXPECT_EQ(dedupe_rc({"--window-seconds", "60"}), 1) << "the default kind is not a window";
}

std::string fasta_of(const std::string& name, const std::string& seq) {
  std::string out = ">" + name + "\n";
  for (std::size_t i = 0; i < seq.size(); i += 70) out += seq.substr(i, 70) + "\n";
  return out;
}

TEST(CliKmer, BuildFromFastaAndScreenReadsFromFastq) {
  scratch_dir dir;
  detail::splitmix64 rng(9);
  std::string genome(200'000, 'A');
  for (char& c : genome) c = "ACGT"[rng() % 4];
  for (std::size_t i = 50'000; i < 50'100; ++i) genome[i] = 'N';
  write_file(dir / "genome.fa", fasta_of("chr1", genome));
  const auto built = run_cli({"build", "genome.fa", "--kmer", "31", "-o", "g.bkf", "--fpr", "0.001"}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  std::uint64_t expected_kmers = 0;
  for_each_kmer(genome, 31, true, [&](std::uint64_t) { ++expected_kmers; });
  const any_filter g = load(std::filesystem::path(dir / "g.bkf"));
  EXPECT_EQ(std::visit([](const auto& f) { return f.inserted(); }, g), expected_kmers);

  // Reads: from the genome (one reverse-complemented, one lower case), and random ones.
  auto rc = [](std::string s) {
    std::string out(s.rbegin(), s.rend());
    for (char& c : out) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
    return out;
  };
  std::string lower = genome.substr(1000, 150);
  for (char& c : lower) c = static_cast<char>(c - 'A' + 'a');
  std::string random_read(150, 'A');
  for (char& c : random_read) c = "ACGT"[rng() % 4];
  const std::vector<std::string> reads = {genome.substr(10'000, 150), rc(genome.substr(20'000, 150)), lower,
                                          random_read, "ACGT"};
  std::string fastq;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    fastq += "@r" + std::to_string(i) + " extra words\n" + reads[i] + "\n+\n" + std::string(reads[i].size(), 'I') + "\n";
  }
  write_file(dir / "reads.fq", fastq);
  const auto q = run_cli({"query", "g.bkf", "--kmer", "31", "reads.fq", "--fraction"}, {}, dir);
  ASSERT_EQ(q.rc, 0) << q.err;
  const auto rows = lines_of(q.out);
  ASSERT_EQ(rows.size(), reads.size()) << q.out;
  EXPECT_EQ(rows[0], "r0\t120\t120\t1.000000");
  EXPECT_EQ(rows[1], "r1\t120\t120\t1.000000") << "canonical k-mers match the other strand";
  EXPECT_EQ(rows[2], "r2\t120\t120\t1.000000") << "lower case";
  EXPECT_TRUE(rows[3].starts_with("r3\t0\t120\t") || rows[3].starts_with("r3\t1\t120\t")) << rows[3];
  EXPECT_EQ(rows[4], "r4\t0\t0\t0.000000") << "a read shorter than k has no k-mers";
  EXPECT_NE(q.err.find("false positives"), std::string::npos) << q.err;
  const auto j = run_cli({"query", "g.bkf", "--kmer", "31", "--format", "fastq", "--json"}, fastq, dir);
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_NE(j.out.find("\"fraction\":1"), std::string::npos) << j.out;

  // Errors: K out of range, fasta without --kmer, a malformed FASTQ (exit 2).
  EXPECT_EQ(run_cli({"build", "genome.fa", "--kmer", "33", "-o", "x.bkf"}, {}, dir).rc, 1);
  // K = 0 is out of range too, not "no --kmer" (the FASTA lines read as text keys).
  for (const auto& args : {std::vector<std::string>{"build", "genome.fa", "--kmer", "0", "-o", "x.bkf"},
                           std::vector<std::string>{"build", "genome.fa", "--format", "fasta", "--kmer", "0", "-o", "x.bkf"},
                           std::vector<std::string>{"query", "g.bkf", "--kmer", "0", "reads.fq"}}) {
    const auto zero = run_cli(args, {}, dir);
    EXPECT_EQ(zero.rc, 1) << args[0] << " " << zero.err;
    EXPECT_NE(zero.err.find("--kmer"), std::string::npos) << zero.err;
  }
  EXPECT_EQ(run_cli({"build", "genome.fa", "--format", "fasta", "-o", "x.bkf"}, {}, dir).rc, 1);
  write_file(dir / "bad.fq", "@r\nACGT\n-\nIIII\n");
  const auto bad = run_cli({"query", "g.bkf", "--kmer", "31", "bad.fq"}, {}, dir);
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("bad.fq"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bkf"));
}

// `bloomkit demo` shows every kind `build --kind` accepts: each kind's file
// (as `info` names it) has a row in the at-capacity table, with no false
// negatives among the keys that kind must still report.
TEST(CliDemo, ShowsEveryKindTheCliBuilds) {
  scratch_dir dir;
  write_file(dir / "keys.txt", "a\nb\nc\n");
  const auto demo = run_cli({"demo", "--keys", "4000", "--json"}, {}, dir);
  ASSERT_EQ(demo.rc, 0) << demo.err;
  std::set<std::string> shown;
  for (const auto& line : lines_of(demo.out)) {
    const auto j = nlohmann::json::parse(line);
    if (j["section"] != "at_capacity") continue;
    shown.insert(j["kind"].get<std::string>());
    EXPECT_EQ(j["false_negatives"], 0) << line;
  }
  const std::vector<std::string> spellings = {"standard", "blocked", "split-block", "binary-fuse", "ribbon",
                                              "counting", "scalable", "cuckoo", "window"};
  for (const auto& spelling : spellings) {
    SCOPED_TRACE(spelling);
    std::vector<std::string> args = {"build", "keys.txt", "--kind", spelling, "-o", spelling + ".bkf", "--json"};
    if (spelling == "window") args.insert(args.end(), {"--window", "10"});
    const auto built = run_cli(args, {}, dir);
    ASSERT_EQ(built.rc, 0) << built.err;
    const std::string kind = nlohmann::json::parse(built.out)["kind"].get<std::string>();
    bool found = false;
    for (const auto& s : shown) found = found || s.starts_with(kind) || kind.starts_with(s);
    EXPECT_TRUE(found) << kind << " is not in the demo";
  }
  EXPECT_EQ(shown.size(), spellings.size());
  const auto help = run_cli({"--help"}, {}, dir);
  EXPECT_NE(help.out.find("all " + std::to_string(spellings.size())), std::string::npos) << help.out;
}

}  // namespace
}  // namespace bloomkit::test
