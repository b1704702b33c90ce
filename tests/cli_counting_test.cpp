// tests/cli_counting_test.cpp - the counting and scalable kinds through the
// real binary: build --kind counting|scalable, query, info, and
// `bloomkit remove` (answers, refusals, atomic write-back, errors).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/file_format.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace bloomkit::test {
namespace {

std::uint64_t count_suffix(const std::string& out, const std::string& suffix) {
  std::uint64_t n = 0;
  for (const auto& line : lines_of(out)) n += line.ends_with(suffix) ? 1 : 0;
  return n;
}

TEST(CliCounting, BuildQueryRemoveRoundTrip) {
  scratch_dir dir;
  const std::uint64_t n = scaled(5000, 4);
  write_file(dir / "keys.txt", numbered_keys("user-", 0, n));
  write_file(dir / "gone.txt", numbered_keys("user-", 0, n / 2));
  const auto built = run_cli({"build", "keys.txt", "-o", "c.bkf", "--kind", "counting", "--fpr", "0.01"}, {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  const any_filter loaded = load(std::filesystem::path(dir / "c.bkf"));
  ASSERT_TRUE(std::holds_alternative<counting_bloom>(loaded));
  EXPECT_EQ(std::get<counting_bloom>(loaded).inserted(), n);

  const auto present = run_cli({"query", "c.bkf", "-i", "keys.txt"}, {}, dir);
  ASSERT_EQ(present.rc, 0) << present.err;
  EXPECT_EQ(count_suffix(present.out, "\tmaybe"), n);

  // Remove the first half from a file; every one is accepted.
  const auto removed = run_cli({"remove", "c.bkf", "-i", "gone.txt"}, {}, dir);
  ASSERT_EQ(removed.rc, 0) << removed.err;
  EXPECT_EQ(lines_of(removed.out).size(), n / 2);
  EXPECT_EQ(count_suffix(removed.out, "\tremoved"), n / 2);
  EXPECT_EQ(lines_of(removed.out).front(), "user-0\tremoved");
  EXPECT_NE(removed.err.find("removed " + std::to_string(n / 2) + " of " + std::to_string(n / 2)), std::string::npos)
      << removed.err;

  // The second half is all still there (no false negatives), the first half
  // mostly gone (only false positives remain).
  write_file(dir / "kept.txt", numbered_keys("user-", n / 2, n - n / 2));
  const auto kept = run_cli({"query", "c.bkf", "-i", "kept.txt", "--count"}, {}, dir);
  ASSERT_EQ(kept.rc, 0) << kept.err;
  EXPECT_EQ(std::stoull(kept.out), n - n / 2);
  const auto gone = run_cli({"query", "c.bkf", "-i", "gone.txt", "--count"}, {}, dir);
  ASSERT_EQ(gone.rc, 0) << gone.err;
  EXPECT_LT(std::stoull(gone.out), n / 20);
  EXPECT_EQ(std::get<counting_bloom>(load(std::filesystem::path(dir / "c.bkf"))).inserted(), n - n / 2);
}

TEST(CliCounting, AbsentKeysAreRefusedAndChangeNothing) {
  scratch_dir dir;
  write_file(dir / "keys.txt", numbered_keys("k", 0, 100));
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "c.bkf", "--kind", "counting", "--fpr", "0.001"}, {}, dir).rc, 0);
  const std::string before = read_file(dir / "c.bkf");
  // "nope" has a zero counter in a 0.1 % filter of 100 keys (checked below
  // with the library, so the test says why it expects "absent").
  const auto f = std::get<counting_bloom>(load(std::filesystem::path(dir / "c.bkf")));
  ASSERT_FALSE(f.may_contain(std::string("nope")));
  const auto r = run_cli({"remove", "c.bkf", "nope", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto line = nlohmann::json::parse(lines_of(r.out).at(0));
  EXPECT_EQ(line["key"], "nope");
  EXPECT_EQ(line["removed"], false);
  EXPECT_NE(r.err.find("1 certainly absent"), std::string::npos) << r.err;
  // Written back unchanged: the same bytes.
  EXPECT_EQ(read_file(dir / "c.bkf"), before);

  // Present and absent keys mixed, stdin, -o to another file.
  const auto mixed = run_cli({"remove", "c.bkf", "-o", "after.bkf", "-q"}, std::string("k1\nnope\nk2\n"), dir);
  ASSERT_EQ(mixed.rc, 0) << mixed.err;
  EXPECT_EQ(mixed.out, "k1\tremoved\nnope\tabsent\nk2\tremoved\n");
  EXPECT_TRUE(mixed.err.empty()) << mixed.err;
  EXPECT_EQ(read_file(dir / "c.bkf"), before);  // -o leaves FILE alone
  EXPECT_EQ(std::get<counting_bloom>(load(std::filesystem::path(dir / "after.bkf"))).inserted(), 98u);
}

TEST(CliCounting, RemoveTwiceThenAbsent) {
  scratch_dir dir;
  ASSERT_EQ(run_cli({"build", "-o", "c.bkf", "--kind", "counting", "--capacity", "1000", "--format", "u64"},
                    std::string("7\n7\n"), dir)
                .rc,
            0);
  const auto r = run_cli({"remove", "c.bkf", "--format", "u64", "7", "7", "7", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["key"], 7);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["removed"], true);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["removed"], true);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["removed"], false);
}

TEST(CliCounting, RemoveRefusesOtherKindsAndBadInput) {
  scratch_dir dir;
  write_file(dir / "keys.txt", numbered_keys("k", 0, 50));
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "b.bkf", "--kind", "blocked"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "c.bkf", "--kind", "counting"}, {}, dir).rc, 0);
  const std::string blocked = read_file(dir / "b.bkf"), counting = read_file(dir / "c.bkf");

  const auto other = run_cli({"remove", "b.bkf", "k1"}, {}, dir);
  EXPECT_EQ(other.rc, 2);
  EXPECT_NE(other.err.find("only counting and cuckoo filters"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("blocked_bloom"), std::string::npos) << other.err;
  EXPECT_EQ(read_file(dir / "b.bkf"), blocked);

  const auto bad_key = run_cli({"remove", "c.bkf", "--format", "hex", "abc"}, {}, dir);
  EXPECT_EQ(bad_key.rc, 2);
  EXPECT_TRUE(bad_key.out.empty());
  EXPECT_EQ(read_file(dir / "c.bkf"), counting);  // nothing written

  // A bad line halfway through a file: nothing is written either (a
  // filter of integer keys, so --format u64 is its own type).
  ASSERT_EQ(run_cli({"build", "-o", "n.bkf", "--kind", "counting", "--format", "u64"}, std::string("1\n2\n"), dir).rc, 0);
  const std::string numbers = read_file(dir / "n.bkf");
  const auto bad_line = run_cli({"remove", "n.bkf", "--format", "u64"}, std::string("1\n2\nxyz\n"), dir);
  EXPECT_EQ(bad_line.rc, 2);
  EXPECT_NE(bad_line.err.find(":3:"), std::string::npos) << bad_line.err;
  EXPECT_EQ(read_file(dir / "n.bkf"), numbers);
  // --format u64 against a file of text keys is a usage error naming its
  // type, before any key is read: nothing is written.
  const auto contradiction = run_cli({"remove", "c.bkf", "--format", "u64"}, std::string("1\n"), dir);
  EXPECT_EQ(contradiction.rc, 1);
  EXPECT_NE(contradiction.err.find("c.bkf holds bytes keys"), std::string::npos) << contradiction.err;
  EXPECT_TRUE(contradiction.out.empty());
  EXPECT_EQ(read_file(dir / "c.bkf"), counting);

  EXPECT_EQ(run_cli({"remove", "c.bkf", "k1", "-i", "keys.txt"}, {}, dir).rc, 1);  // usage
  EXPECT_EQ(run_cli({"remove", "missing.bkf", "k1"}, {}, dir).rc, 2);
  EXPECT_EQ(run_cli({"remove"}, {}, dir).rc, 1);
  const auto help = run_cli({"remove", "--help"}, {}, dir);
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("counting"), std::string::npos);
}

TEST(CliScalable, BuildPastCapacityStaysUnderTarget) {
  scratch_dir dir;
  const std::uint64_t n = scaled(20000, 4);
  write_file(dir / "keys.txt", numbered_keys("user-", 0, n));
  write_file(dir / "absent.txt", numbered_keys("nobody-", 0, n));
  // Ten times the stated capacity: the scalable kind grows instead.
  const auto built = run_cli({"build", "keys.txt", "-o", "s.bkf", "--kind", "scalable", "--capacity",
                              std::to_string(n / 10), "--fpr", "0.01", "--json"},
                             {}, dir);
  ASSERT_EQ(built.rc, 0) << built.err;
  const auto summary = nlohmann::json::parse(lines_of(built.out).at(0));
  EXPECT_EQ(summary["kind"], "scalable_bloom");
  EXPECT_EQ(summary["saturated"], false);
  EXPECT_LT(summary["estimated_fpr"].get<double>(), 0.01);
  const auto f = std::get<scalable_bloom>(load(std::filesystem::path(dir / "s.bkf")));
  EXPECT_EQ(f.stages(), 4u);  // n/10 (1 + 2 + 4 + 8) >= n > n/10 (1 + 2 + 4)
  EXPECT_EQ(f.inserted(), n);

  const auto present = run_cli({"query", "s.bkf", "-i", "keys.txt", "--count"}, {}, dir);
  ASSERT_EQ(present.rc, 0) << present.err;
  EXPECT_EQ(std::stoull(present.out), n);
  const auto absent = run_cli({"query", "s.bkf", "-i", "absent.txt", "--count"}, {}, dir);
  ASSERT_EQ(absent.rc, 0) << absent.err;
  const double rate = std::stod(absent.out) / static_cast<double>(n);
  EXPECT_LE(rate, 0.01 + binomial_tolerance(0.01, static_cast<double>(n))) << rate;

  const auto info = run_cli({"info", "s.bkf", "--json"}, {}, dir);
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_NE(info.out.find("scalable_bloom"), std::string::npos);
  EXPECT_EQ(run_cli({"remove", "s.bkf", "user-1"}, {}, dir).rc, 2);  // not a counting filter
}

}  // namespace
}  // namespace bloomkit::test
