// standard_bloom specifics: exact parameters, m > 2^32, the probe sequence.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <set>
#include <vector>

#include "bloomkit/standard_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::standard_bloom;
using bloomkit::standard_bloom_params;

TEST(StandardBloom, SizedFromNAndP) {
  standard_bloom filter(1'000'000, 0.01);
  // k = 7 (rounded from 6.64) needs 9.593 bits/key to meet 1 % exactly.
  EXPECT_EQ(filter.num_hashes(), 7u);
  EXPECT_NEAR(filter.bit_count() / 1e6, 9.593, 0.001);
  EXPECT_EQ(filter.size_in_bytes(), (filter.bit_count() + 63) / 64 * 8);
  EXPECT_LE(filter.design_fpr(), 0.01);
  EXPECT_GT(bloomkit::sizing::classic_fpr(filter.bit_count() - 1, 1e6, 7), 0.01);
  standard_bloom ten(1'000'000, 0.1);
  EXPECT_EQ(ten.num_hashes(), 3u);
  EXPECT_LE(ten.design_fpr(), 0.1);
}

// Every walk of the layout yields the probes of the header comment's
// recurrence, written out here on its own (g += d, d += j + 1): the single
// walk, for_each_probe, the words-read count of probe_while, and the rounds
// of standard_probe_batch (which carry d_0 and add T(j) per round).
TEST(StandardBloom, EveryWalkFollowsTheRecurrence) {
  bloomkit::detail::splitmix64 rng(11);
  for (const std::uint64_t m : {std::uint64_t{1}, std::uint64_t{63}, std::uint64_t{1000}, (std::uint64_t{1} << 26) + 7,
                                (std::uint64_t{1} << 40) + 7}) {
    std::vector<std::uint64_t> hashes(bloomkit::detail::standard_batch);
    for (auto& h : hashes) h = rng();
    std::vector<std::vector<std::uint64_t>> want(hashes.size());
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      std::uint64_t g = hashes[i], d = bloomkit::detail::mix64(hashes[i]);
      for (std::uint32_t j = 0; j < 64; ++j) {
        want[i].push_back(static_cast<std::uint64_t>((static_cast<bloomkit::detail::uint128>(g) * m) >> 64));
        g += d;
        d += j + 1;
      }
      bloomkit::detail::standard_probes probes(hashes[i], m);
      std::vector<std::uint64_t> walked;
      bloomkit::detail::for_each_probe(hashes[i], m, 64, [&](std::uint64_t bit) {
        walked.push_back(bit);
        ASSERT_EQ(bit, probes.next());
      });
      ASSERT_EQ(walked, want[i]) << "m = " << m;
    }
    if (m > (std::uint64_t{1} << 30)) continue;  // the batch prefetches into a filter of m bits
    bloomkit::detail::standard_probe_batch batch;
    auto hash_at = [&](std::size_t i) { return hashes[i]; };
    std::vector<std::uint64_t> words(bloomkit::detail::words_for_bits(m), 0);
    batch.load(hash_at, 0, hashes.size(), words.data(), m, false);
    for (std::uint32_t j = 0; j < 64; ++j) {
      for (std::size_t i = 0; i < hashes.size(); ++i) {
        ASSERT_EQ(batch.bit[i], want[i][j]) << "m = " << m << ", probe " << j;
        if (j + 1 < 64) batch.advance(i, j, m);
      }
    }
  }
  // probe_while reads up to and including the first clear probe.
  std::vector<std::uint64_t> words(16, ~std::uint64_t{0});
  const std::uint64_t h = 12345;
  const std::uint64_t third = [&] {
    bloomkit::detail::standard_probes probes(h, 1024);
    probes.next();
    probes.next();
    return probes.next();
  }();
  words[third >> 6] &= ~(std::uint64_t{1} << (third & 63));
  const auto walk = bloomkit::detail::probe_while(
      h, 1024, 7, [&](std::uint64_t bit) { return bloomkit::detail::word_bit(words.data(), bit); });
  EXPECT_FALSE(walk.all_set);
  EXPECT_LE(walk.read, 3u);  // the third probe, or an earlier one at the same bit
}

// The single insert has a walk instantiated per k up to standard_unrolled_k
// and the runtime walk past it: each sets exactly the first k probes of
// the recurrence (written out here as above), whatever k.
TEST(StandardBloom, SingleInsertSetsTheFirstKProbesForEveryK) {
  bloomkit::detail::splitmix64 rng(12);
  for (const std::uint64_t m : {std::uint64_t{1}, std::uint64_t{1000}, (std::uint64_t{1} << 20) + 7}) {
    for (std::uint32_t k = 1; k <= bloomkit::detail::standard_unrolled_k + 3; ++k) {
      for (int key = 0; key < 16; ++key) {
        const std::uint64_t h = rng();
        std::vector<std::uint64_t> want(bloomkit::detail::words_for_bits(m), 0);
        std::uint64_t g = h, d = bloomkit::detail::mix64(h);
        for (std::uint32_t j = 0; j < k; ++j) {
          const auto bit = static_cast<std::uint64_t>((static_cast<bloomkit::detail::uint128>(g) * m) >> 64);
          want[bit >> 6] |= std::uint64_t{1} << (bit & 63);
          g += d;
          d += j + 1;
        }
        std::vector<std::uint64_t> words(want.size(), 0);
        bloomkit::detail::standard_set(words.data(), h, m, k);
        ASSERT_EQ(words, want) << "m = " << m << ", k = " << k;
      }
    }
  }
}

TEST(StandardBloom, WithBitsAndK) {
  auto filter = standard_bloom::with_bits(1000, 3);
  EXPECT_EQ(filter.bit_count(), 1000u);
  EXPECT_EQ(filter.num_hashes(), 3u);
  EXPECT_EQ(filter.capacity(), 231u);  // 1000 ln2 / 3
  EXPECT_THROW(standard_bloom::with_bits(1000, 0), bloomkit::error);
  EXPECT_THROW(standard_bloom::with_bits(0, 3), bloomkit::error);
  EXPECT_THROW(standard_bloom(standard_bloom_params{64, 65, 1, 0.1, {}}), bloomkit::error);
}

TEST(StandardBloom, ProbesAreDistinctAndSpread) {
  // For a large m, the k probes of one key are distinct (no degenerate
  // double-hashing cycles) and cover the whole range.
  const std::uint64_t m = (1ULL << 40) + 12345;
  bloomkit::detail::splitmix64 rng(3);
  std::uint64_t max_seen = 0;
  for (int key = 0; key < 10'000; ++key) {
    bloomkit::detail::standard_probes probes(rng(), m);
    std::set<std::uint64_t> seen;
    for (int i = 0; i < 16; ++i) {
      const auto bit = probes.next();
      ASSERT_LT(bit, m);
      seen.insert(bit);
      max_seen = std::max(max_seen, bit);
    }
    ASSERT_EQ(seen.size(), 16u);
  }
  EXPECT_GT(max_seen, m - m / 1000);
}

TEST(StandardBloom, MoreThanTwoToThe32Bits) {
  // 3 * 2^31 bits = 768 MiB: a third of the probes must land above bit
  // 2^32 (a 32-bit reduction would never get there) and every key must be
  // found.
  const std::uint64_t m = 3ULL << 31;
  standard_bloom filter(standard_bloom_params{m, 4, 100'000, 0.0001, {}});
  bloomkit::detail::splitmix64 rng(17);
  std::vector<std::uint64_t> keys(bloomkit::test::scaled(200'000));
  for (auto& k : keys) k = rng();
  for (auto k : keys) filter.insert(k);
  for (auto k : keys) ASSERT_TRUE(filter.may_contain(k));
  const auto words = filter.words();
  std::uint64_t high_bits = 0;
  for (std::size_t i = (1ULL << 32) / 64; i < words.size(); ++i) high_bits += std::popcount(words[i]);
  EXPECT_NEAR(static_cast<double>(high_bits) / filter.set_bit_count(), 1.0 / 3, 0.02);
  // Roughly half of the bits fall in the upper half of the array.
  std::uint64_t upper = 0;
  for (std::size_t i = words.size() / 2; i < words.size(); ++i) upper += std::popcount(words[i]);
  EXPECT_NEAR(static_cast<double>(upper) / filter.set_bit_count(), 0.5, 0.01);
}

TEST(StandardBloom, BranchFreeLookupAnswersAsMayContainHash) {
  // may_contain_hash_branch_free reads all k probes and ANDs them: the same
  // answer as the early-exit may_contain_hash and the batch path, for every
  // inserted hash (all true) and for others at under-, design and 3x fill
  // (then both answers occur), for k from 1 to 64, owner and view alike.
  for (const std::uint32_t k : {1U, 2U, 3U, 7U, 13U, 64U}) {
    for (const double fill : {0.3, 1.0, 3.0}) {
      const std::uint64_t n = 2000;
      standard_bloom filter = standard_bloom::with_bits(static_cast<std::uint64_t>(n * k * 1.44 / fill) + 1, k);
      const auto present = bloomkit::test::random_hashes(n, 1000 * k + static_cast<std::uint64_t>(10 * fill));
      const auto absent = bloomkit::test::random_hashes(20000, 7 + k);
      filter.insert_many(present);
      auto answers = std::make_unique<bool[]>(absent.size());
      filter.may_contain_many(absent, std::span<bool>(answers.get(), absent.size()));
      std::size_t yes = 0;
      for (std::size_t i = 0; i < absent.size(); ++i) {
        ASSERT_EQ(filter.may_contain_hash_branch_free(absent[i]), filter.may_contain_hash(absent[i])) << k << " " << i;
        ASSERT_EQ(filter.view().may_contain_hash_branch_free(absent[i]), answers[i]) << k << " " << i;
        yes += answers[i] ? 1 : 0;
      }
      for (const auto h : present) ASSERT_TRUE(filter.may_contain_hash_branch_free(h)) << k;
      if (fill == 3.0 && k <= 13) {
        EXPECT_GT(yes, 0U) << k;
        EXPECT_LT(yes, absent.size()) << k;
      }
    }
  }
}

TEST(StandardBloom, NegativeLookupsExitEarly) {
  // At 1 % with k = 7 and fill ~1/2, a negative lookup stops at the first
  // zero bit: about 2 probes on average (1 / (1 - fill)).
  standard_bloom filter(100'000, 0.01);
  bloomkit::detail::splitmix64 rng(23);
  for (int i = 0; i < 100'000; ++i) filter.insert(rng());
  const double fill = filter.fill_ratio();
  double probes = 0;
  const int queries = 100'000;
  for (int q = 0; q < queries; ++q) {
    bloomkit::detail::standard_probes seq(rng(), filter.bit_count());
    for (std::uint32_t i = 0; i < filter.num_hashes(); ++i) {
      ++probes;
      const auto bit = seq.next();
      if (((filter.words()[bit >> 6] >> (bit & 63)) & 1) == 0) break;
    }
  }
  EXPECT_NEAR(probes / queries, (1 - std::pow(fill, 7)) / (1 - fill), 0.05);
  EXPECT_LT(probes / queries, 2.1);
}

TEST(StandardBloom, TailBitsMustBeZeroInAView) {
  std::vector<std::uint64_t> words(2, 0);
  words[1] = 1ULL << 40;  // bit 104 of a 100-bit filter
  EXPECT_THROW(bloomkit::standard_bloom_view(standard_bloom_params{100, 3, 10, 0.1, {}}, words, 0), bloomkit::error);
  words[1] = 1ULL << 35;  // bit 99: inside
  EXPECT_NO_THROW(bloomkit::standard_bloom_view(standard_bloom_params{100, 3, 10, 0.1, {}}, words, 0));
}

}  // namespace
