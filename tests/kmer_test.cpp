// tests/kmer_test.cpp - k-mer packing, the rolling iterator against a naive
// encoder, FASTA/FASTQ reading, and a generated 10 Mbp genome with repeats,
// reverse-complemented copies, soft-masked stretches and N runs in a filter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/kmer.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::canonical_kmer;
using bloomkit::decode_kmer;
using bloomkit::encode_kmer;
using bloomkit::reverse_complement;
using bloomkit::test::binomial_tolerance;
using bloomkit::test::error_code_of;
using bloomkit::test::scaled;

char complement(char c) {
  switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
  }
  return 'N';
}

std::string reverse_complement_text(const std::string& s) {
  std::string out(s.rbegin(), s.rend());
  for (char& c : out) c = complement(c);
  return out;
}

/// The k-mers of `s` the slow way: every window of k letters, uppercased,
/// skipped if it holds a non-ACGT letter, encoded letter by letter.
std::vector<std::uint64_t> naive_kmers(const std::string& s, unsigned k, bool canonical) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i + k <= s.size(); ++i) {
    std::string w = s.substr(i, k);
    bool ok = true;
    for (char& c : w) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      ok &= c == 'A' || c == 'C' || c == 'G' || c == 'T';
    }
    if (!ok) continue;
    const std::uint64_t fwd = encode_kmer(w);
    const std::uint64_t rc = encode_kmer(reverse_complement_text(w));
    out.push_back(canonical ? std::min(fwd, rc) : fwd);
  }
  return out;
}

TEST(Kmer, PackingKnownValues) {
  EXPECT_EQ(encode_kmer("A"), 0u);
  EXPECT_EQ(encode_kmer("T"), 3u);
  EXPECT_EQ(encode_kmer("ACGT"), 0b00011011u);
  EXPECT_EQ(encode_kmer("acgt"), 0b00011011u) << "lower case is the same base";
  EXPECT_EQ(decode_kmer(0b00011011u, 4), "ACGT");
  EXPECT_EQ(reverse_complement(encode_kmer("AAC"), 3), encode_kmer("GTT"));
  EXPECT_EQ(canonical_kmer(encode_kmer("GTT"), 3), encode_kmer("AAC"));
  EXPECT_EQ(reverse_complement(encode_kmer("ACGT"), 4), encode_kmer("ACGT")) << "a palindrome";
  const std::string t32(32, 'T');
  EXPECT_EQ(encode_kmer(t32), ~std::uint64_t{0});
  EXPECT_EQ(reverse_complement(encode_kmer(t32), 32), 0u);
  EXPECT_EQ(error_code_of([] { (void)encode_kmer("ACGN"); }), bloomkit::errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { (void)encode_kmer(""); }), bloomkit::errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { (void)encode_kmer(std::string(33, 'A')); }), bloomkit::errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { bloomkit::for_each_kmer("ACGT", 0, true, [](std::uint64_t) {}); }),
            bloomkit::errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { bloomkit::for_each_kmer("ACGT", 33, true, [](std::uint64_t) {}); }),
            bloomkit::errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { bloomkit::kmer_range r("ACGT", 0); }), bloomkit::errc::invalid_argument);
}

TEST(Kmer, ReverseComplementIsAnInvolutionAndMatchesText) {
  bloomkit::detail::splitmix64 rng(1);
  for (unsigned k = 1; k <= 32; ++k) {
    for (int t = 0; t < 200; ++t) {
      const std::uint64_t x = rng() & bloomkit::kmer_mask(k);
      ASSERT_EQ(reverse_complement(reverse_complement(x, k), k), x);
      ASSERT_EQ(reverse_complement(x, k), encode_kmer(reverse_complement_text(decode_kmer(x, k))));
      ASSERT_EQ(canonical_kmer(x, k), canonical_kmer(reverse_complement(x, k), k));
    }
  }
}

TEST(Kmer, RollingEncoderMatchesTheNaiveOneForEveryK) {
  // Random sequences with N, other IUPAC letters, '-', lower case.
  const std::string alphabet = "ACGTACGTACGTACGTacgtNnRY-";
  bloomkit::detail::splitmix64 rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    std::string s(500 + rng() % 500, 'A');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    if (trial % 2 == 0) {
      for (char& c : s) c = "ACGT"[rng() % 4];  // some without breaks
    }
    for (unsigned k = 1; k <= 32; ++k) {
      for (const bool canonical : {false, true}) {
        std::vector<std::uint64_t> rolled;
        const std::uint64_t n = bloomkit::for_each_kmer(s, k, canonical, [&](std::uint64_t x) { rolled.push_back(x); });
        ASSERT_EQ(n, rolled.size());
        ASSERT_EQ(rolled, naive_kmers(s, k, canonical)) << "k=" << k << " trial " << trial;
        const bloomkit::kmer_range range(s, k, canonical);
        ASSERT_EQ(std::vector<std::uint64_t>(range.begin(), range.end()), rolled);
      }
    }
  }
}

TEST(Kmer, EdgesEmptyShortAndAllN) {
  EXPECT_EQ(bloomkit::for_each_kmer("", 5, true, [](std::uint64_t) {}), 0u);
  EXPECT_EQ(bloomkit::for_each_kmer("ACGT", 5, true, [](std::uint64_t) {}), 0u);
  EXPECT_EQ(bloomkit::for_each_kmer("ACGTA", 5, true, [](std::uint64_t) {}), 1u);
  EXPECT_EQ(bloomkit::for_each_kmer("NNNNNNNNNN", 3, true, [](std::uint64_t) {}), 0u);
  EXPECT_EQ(bloomkit::for_each_kmer("ACGNACG", 3, true, [](std::uint64_t) {}), 2u) << "N breaks";
  const bloomkit::kmer_range empty("", 3);
  EXPECT_TRUE(empty.begin() == empty.end());
}

TEST(SequenceReader, FastaJoinsLinesAndHandlesCrlfAndBlankLines) {
  std::istringstream in(">r1 first\r\nACGT\r\nacgt\r\n\r\n>r2\nNNAC\n>empty\n");
  bloomkit::sequence_reader reader(in, bloomkit::sequence_format::fasta);
  bloomkit::sequence_record r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "r1 first");
  EXPECT_EQ(r.sequence, "ACGTacgt");
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "r2");
  EXPECT_EQ(r.sequence, "NNAC");
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "empty");
  EXPECT_EQ(r.sequence, "");
  EXPECT_FALSE(reader.next(r));
}

TEST(SequenceReader, FastqRecordsAndErrors) {
  std::istringstream in("@read1\nACGTN\n+\nIIIII\n@read2\nGG\n+read2\n!!\n");
  bloomkit::sequence_reader reader(in, bloomkit::sequence_format::fastq);
  bloomkit::sequence_record r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "read1");
  EXPECT_EQ(r.sequence, "ACGTN");
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.sequence, "GG");
  EXPECT_FALSE(reader.next(r));

  for (const char* bad : {"ACGT\n", "@r\nACGT\n", "@r\nACGT\n-\nIIII\n", "@r\nACGT\n+\nIII\n", "@r\nACGT\n+\n"}) {
    std::istringstream b(bad);
    bloomkit::sequence_reader rb(b, bloomkit::sequence_format::fastq);
    EXPECT_EQ(error_code_of([&] {
                while (rb.next(r)) {
                }
              }),
              bloomkit::errc::corrupt)
        << bad;
  }
  std::istringstream nohead("ACGT\n>r\nAC\n");
  bloomkit::sequence_reader rf(nohead, bloomkit::sequence_format::fasta);
  EXPECT_EQ(error_code_of([&] { rf.next(r); }), bloomkit::errc::corrupt);
}

/// A 10 Mbp genome shaped like a real one: random bases, then copies of
/// earlier stretches (some reverse-complemented, some with point mutations)
/// as repeats, soft-masked (lower case) stretches, and runs of N.
std::string generated_genome(std::size_t length, std::uint64_t seed) {
  bloomkit::detail::splitmix64 rng(seed);
  std::string g(length, 'A');
  for (char& c : g) c = "ACGT"[rng() % 4];
  for (int r = 0; r < 2000; ++r) {  // repeats: 300..5300 bp copies
    const std::size_t len = 300 + rng() % 5000;
    const std::size_t from = rng() % (length - len), to = rng() % (length - len);
    std::string piece = g.substr(from, len);
    if (r % 3 == 0) piece = reverse_complement_text(piece);
    if (r % 5 == 0) piece[rng() % len] = "ACGT"[rng() % 4];
    g.replace(to, len, piece);
  }
  for (int r = 0; r < 300; ++r) {  // soft-masked stretches
    const std::size_t len = 100 + rng() % 2000, at = rng() % (length - len);
    for (std::size_t i = at; i < at + len; ++i) g[i] = static_cast<char>(g[i] - 'A' + 'a');
  }
  for (int r = 0; r < 100; ++r) {  // N runs (gaps), 1..10000 bp
    const std::size_t len = 1 + rng() % 10000, at = rng() % (length - len);
    std::fill_n(g.begin() + static_cast<std::ptrdiff_t>(at), len, 'N');
  }
  return g;
}

TEST(KmerGenome, AllKmersPresentAndAbsentOnesAtTheFilterFpr) {
  const std::size_t length = scaled(10'000'000, 10);
  const std::string genome = generated_genome(length, 3);
  constexpr unsigned k = 31;

  std::vector<std::uint64_t> kmers;
  kmers.reserve(length);
  bloomkit::for_each_kmer(genome, k, true, [&](std::uint64_t x) { kmers.push_back(x); });
  std::vector<std::uint64_t> distinct = kmers;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  ASSERT_LT(distinct.size(), kmers.size()) << "the repeats give repeated k-mers";

  // Reading the genome as FASTA (60-column lines) gives the same k-mers.
  std::string fasta = ">chr1 generated\n";
  for (std::size_t i = 0; i < genome.size(); i += 60) fasta += genome.substr(i, 60) + "\n";
  std::istringstream in(fasta);
  bloomkit::sequence_reader reader(in, bloomkit::sequence_format::fasta);
  bloomkit::sequence_record record;
  ASSERT_TRUE(reader.next(record));
  EXPECT_EQ(record.sequence, genome);

  bloomkit::blocked_bloom filter(distinct.size(), 0.01);
  std::vector<std::uint64_t> hashes(kmers.size());
  for (std::size_t i = 0; i < kmers.size(); ++i) hashes[i] = bloomkit::hash_key(kmers[i], filter.hash());
  filter.insert_many(hashes);

  // Every k-mer of the genome, and of its reverse complement, is present.
  std::uint64_t missing = 0;
  bloomkit::for_each_kmer(genome, k, true, [&](std::uint64_t x) { missing += !filter.may_contain(x); });
  EXPECT_EQ(missing, 0u);
  const std::string rc = reverse_complement_text([&] {
    std::string up = genome;
    for (char& c : up) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    return up;
  }());
  bloomkit::for_each_kmer(rc, k, true, [&](std::uint64_t x) { missing += !filter.may_contain(x); });
  EXPECT_EQ(missing, 0u) << "canonical k-mers match the other strand";

  // Absent k-mers (random 31-mers not in the genome) pass at the filter's FPR.
  bloomkit::detail::splitmix64 rng(4);
  const std::uint64_t trials = scaled(1'000'000, 10);
  std::uint64_t positives = 0, tried = 0;
  while (tried < trials) {
    const std::uint64_t x = canonical_kmer(rng() & bloomkit::kmer_mask(k), k);
    if (std::binary_search(distinct.begin(), distinct.end(), x)) continue;
    ++tried;
    positives += filter.may_contain(x);
  }
  const double measured = static_cast<double>(positives) / static_cast<double>(trials);
  EXPECT_NEAR(measured, filter.estimated_fpr(), binomial_tolerance(filter.estimated_fpr(), trials));
  std::printf("genome %zu bp: %zu k-mers, %zu distinct; FPR measured %.5f, estimated %.5f\n", genome.size(),
              kmers.size(), distinct.size(), measured, filter.estimated_fpr());
}

}  // namespace
