// tests/cli_kinds_test.cpp - the kinds of issue 19 through the real binary:
// build --kind cuckoo (a multiset, remove, full is an error, merge
// refused), --kind window --window N, `bloomkit dedupe`, and k-mer input
// (build --format fasta --kmer K, query --kmer K --fraction).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/kmer.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace bloomkit::test {
namespace {

std::uint64_t count_suffix(const std::string& out, const std::string& suffix) {
  std::uint64_t n = 0;
  for (const auto& line : lines_of(out)) n += line.ends_with(suffix) ? 1 : 0;
  return n;
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
  const auto merged = run_cli({"merge", "w.bkf", "w.bkf", "-o", "m.bkf"}, {}, dir);
  EXPECT_NE(merged.rc, 0);
  EXPECT_NE(merged.err.find("do not merge"), std::string::npos) << merged.err;
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
  EXPECT_EQ(run_cli({"build", "genome.fa", "--format", "fasta", "-o", "x.bkf"}, {}, dir).rc, 1);
  write_file(dir / "bad.fq", "@r\nACGT\n-\nIIII\n");
  const auto bad = run_cli({"query", "g.bkf", "--kmer", "31", "bad.fq"}, {}, dir);
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("bad.fq"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bkf"));
}

}  // namespace
}  // namespace bloomkit::test
