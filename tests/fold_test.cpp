// Folding block filters (block_filter::fold, fold_to, folded_fpr).
//
// The property: for an even block count 2m, the filter folded from 2m blocks
// is bit for bit the filter built directly at m blocks from the same keys
// (detail::require_foldable states the proof). Checked over random key sets
// and sizes for both block layouts, for single folds and for several folds in
// one call; odd counts are refused, and the test shows why (the naive pairing
// at 3 blocks loses keys). fold_to is checked against its contract (the
// result's estimate meets the target, one fold more would not) and against a
// measured FPR.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::block_filter_params;
using bloomkit::fold_estimate;

template <class Filter>
Filter build(std::uint64_t blocks, std::uint32_t k, const std::vector<std::uint64_t>& hashes) {
  Filter f(block_filter_params{blocks, k, 1000, 0.01, Filter::policy::default_hash});
  for (auto h : hashes) f.insert_hash(h);
  return f;
}

template <class Filter>
bool same_blocks(const Filter& a, const Filter& b) {
  return a.num_blocks() == b.num_blocks() && std::equal(a.blocks().begin(), a.blocks().end(), b.blocks().begin());
}

template <class Filter>
class Fold : public ::testing::Test {};
using Layouts = ::testing::Types<bloomkit::split_block_bloom, bloomkit::blocked_bloom>;
TYPED_TEST_SUITE(Fold, Layouts);

TYPED_TEST(Fold, FoldedEqualsBuiltAtHalfTheBlocks) {
  using F = TypeParam;
  const std::uint32_t k = F::policy::min_k == F::policy::max_k ? F::policy::min_k : 6;
  std::mt19937_64 rng(20261204);
  std::size_t cases = 0;
  for (int trial = 0; trial < 120; ++trial) {
    // Powers of two (2^1 .. 2^14) and other even counts (2m for m up to 5000).
    const std::uint64_t blocks = trial % 3 == 0 ? 2 * (1 + rng() % 5000) : std::uint64_t{1} << (1 + rng() % 14);
    const std::uint64_t keys = rng() % (blocks * 40 + 1);
    const auto hashes = bloomkit::test::random_hashes(keys, rng());
    F folded = build<F>(blocks, k, hashes);
    const double predicted = folded.folded_fpr();
    folded.fold();
    const F direct = build<F>(blocks / 2, k, hashes);
    ASSERT_TRUE(same_blocks(folded, direct)) << blocks << " blocks, " << keys << " keys";
    EXPECT_EQ(folded.inserted(), direct.inserted());
    EXPECT_DOUBLE_EQ(predicted, direct.estimated_fpr());
    for (auto h : hashes) ASSERT_TRUE(folded.may_contain_hash(h));
    ++cases;
  }
  EXPECT_EQ(cases, 120u);
}

TYPED_TEST(Fold, SeveralFoldsEqualBuiltAtTheFinalSize) {
  using F = TypeParam;
  const std::uint32_t k = F::policy::min_k == F::policy::max_k ? F::policy::min_k : 6;
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint64_t blocks = std::uint64_t{1} << (4 + rng() % 10);
    const auto hashes = bloomkit::test::random_hashes(blocks * (1 + rng() % 8), rng());
    const double target = 0.001 + 0.2 * std::uniform_real_distribution<double>()(rng);
    F folded = build<F>(blocks, k, hashes);
    const std::uint32_t levels = folded.fold_to(target);
    ASSERT_EQ(folded.num_blocks(), blocks >> levels);
    const F direct = build<F>(blocks >> levels, k, hashes);
    ASSERT_TRUE(same_blocks(folded, direct)) << blocks << " blocks folded " << levels << " times";
    // Contract: a folded result meets the target; one more fold would not (or cannot be made).
    if (levels > 0) {
      EXPECT_LE(folded.estimated_fpr(), target);
    }
    if (folded.num_blocks() % 2 == 0) {
      EXPECT_GT(folded.folded_fpr(), target);
    }
    if (levels > 0) {
      EXPECT_EQ(folded.target_fpr(), target);
    }

    F by_fill = build<F>(blocks, k, hashes);
    const std::uint32_t fill_levels = by_fill.fold_to(target, fold_estimate::mean_fill);
    ASSERT_TRUE(same_blocks(by_fill, build<F>(blocks >> fill_levels, k, hashes)));
  }
}

TYPED_TEST(Fold, OddBlockCountsAreRefusedAndUnchanged) {
  using F = TypeParam;
  const std::uint32_t k = F::policy::min_k == F::policy::max_k ? F::policy::min_k : 6;
  const auto hashes = bloomkit::test::random_hashes(500, 3);
  for (std::uint64_t blocks : {1, 3, 5, 999}) {
    F f = build<F>(blocks, k, hashes);
    const F before = f;
    try {
      f.fold();
      FAIL() << "folded " << blocks << " blocks";
    } catch (const bloomkit::error& e) {
      EXPECT_EQ(e.code(), bloomkit::errc::invalid_argument);
    }
    EXPECT_THROW((void)f.folded_fpr(), bloomkit::error);
    EXPECT_TRUE(same_blocks(f, before));
    EXPECT_EQ(f.fold_to(0.5), 0u);  // fold_to stops at an odd count
    EXPECT_TRUE(same_blocks(f, before));
  }
  F f = build<F>(8, k, hashes);
  EXPECT_THROW(f.fold_to(0.0), bloomkit::error);
  EXPECT_THROW(f.fold_to(1.0), bloomkit::error);
  EXPECT_EQ(f.num_blocks(), 8u);
}

TEST(FoldWhyOddIsRefused, PairingThreeBlocksIntoTwoLosesKeys) {
  // At 3 blocks a hash whose high half x is just past 2^32 / 2 lies in block
  // 1 (floor(3x / 2^32) = 1), and at 2 blocks in block 1 too; pairing blocks
  // (0, 1) -> 0 and (2) -> 1 would put it in block 0. Build the 3-block
  // filter, pair it that way, and find keys the result misses.
  const auto hashes = bloomkit::test::random_hashes(300, 11);
  const auto three = build<bloomkit::split_block_bloom>(3, 8, hashes);
  std::vector<bloomkit::detail::block256> paired(2);
  paired[0] = three.blocks()[0];
  bloomkit::detail::split_block_policy::merge(paired[0], three.blocks()[1]);
  paired[1] = three.blocks()[2];
  const bloomkit::split_block_bloom naive(block_filter_params{2, 8, 1000, 0.01, bloomkit::parquet_hash_spec},
                                          std::move(paired), hashes.size());
  std::size_t missed = 0;
  for (auto h : hashes) missed += naive.may_contain_hash(h) ? 0 : 1;
  EXPECT_GT(missed, 0u) << "the odd pairing lost no key: the refusal would be unnecessary";
}

TEST(FoldTo, EmptyFilterFoldsToOneBlock) {
  bloomkit::split_block_bloom f(block_filter_params{1024, 8, 1, 0.01, bloomkit::parquet_hash_spec});
  EXPECT_EQ(f.fold_to(0.01), 10u);
  EXPECT_EQ(f.num_blocks(), 1u);
  bloomkit::split_block_bloom g(block_filter_params{1024, 8, 1, 0.01, bloomkit::parquet_hash_spec});
  EXPECT_EQ(g.fold_to(0.01, fold_estimate::mean_fill), 10u);
}

TEST(FoldTo, MeasuredFprMeetsTheTarget) {
  // 20,000 keys in a filter sized for 2^20 (as a Parquet writer's default
  // NDV does), folded to 1 %: the folded filter's FPR on 200,000 absent
  // hashes is within the binomial tolerance of its estimate, and that
  // estimate is at most 1 %.
  const auto keys = bloomkit::test::random_hashes(20000, 1);
  bloomkit::split_block_bloom f = bloomkit::parquet_sized_split_block(1 << 20, 0.01);
  for (auto h : keys) f.insert_hash(h);
  const std::uint64_t before = f.size_in_bytes();
  const std::uint32_t levels = f.fold_to(0.01);
  EXPECT_GE(levels, 5u) << before << " bytes";
  const double estimate = f.estimated_fpr();
  EXPECT_LE(estimate, 0.01);
  const auto absent = bloomkit::test::random_hashes(200000, 2);
  std::size_t hits = 0;
  for (auto h : absent) hits += f.may_contain_hash(h) ? 1 : 0;
  const double measured = static_cast<double>(hits) / static_cast<double>(absent.size());
  EXPECT_NEAR(measured, estimate, bloomkit::test::binomial_tolerance(estimate, static_cast<double>(absent.size())));
  for (auto h : keys) ASSERT_TRUE(f.may_contain_hash(h));
  std::printf("20,000 keys: %llu -> %llu bytes (%u folds), estimated FPR %.5f, measured %.5f\n",
              static_cast<unsigned long long>(before), static_cast<unsigned long long>(f.size_in_bytes()), levels,
              estimate, measured);
}

TEST(FoldTo, PowerBySquaringMatchesRepeatedSquaring) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const double x = std::uniform_real_distribution<double>()(rng);
    const double x2 = x * x, x4 = x2 * x2;
    EXPECT_EQ(bloomkit::detail::power_by_squaring(x, 8), x4 * x4);
  }
  EXPECT_EQ(bloomkit::detail::power_by_squaring(0.5, 0), 1.0);
  EXPECT_EQ(bloomkit::detail::power_by_squaring(0.5, 3), 0.125);
}

}  // namespace
