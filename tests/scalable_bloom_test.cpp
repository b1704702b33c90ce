// scalable_bloom: the growth plan, the compound FPR bound measured at 1x, 10x
// and 100x the initial capacity, batch calls, merge, views and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <memory>
#include <vector>

#include "bloomkit/scalable_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::error_code_of;

using bloomkit::test::random_hashes;

using bloomkit::errc;
using bloomkit::scalable_bloom;
using bloomkit::scalable_bloom_params;
using bloomkit::scalable_bloom_view;
using bloomkit::detail::splitmix64;

TEST(ScalableBloom, DefaultsAndTheFirstStage) {
  const scalable_bloom filter(1000, 0.01);
  EXPECT_EQ(filter.params().growth, 2.0);
  EXPECT_EQ(filter.params().tightening, 0.85);
  EXPECT_EQ(filter.stages(), 1u);
  EXPECT_EQ(filter.capacity(), 1000u);
  EXPECT_EQ(filter.inserted(), 0u);
  EXPECT_EQ(filter.stage(0).capacity(), 1000u);
  EXPECT_NEAR(filter.stage(0).target_fpr(), 0.0015, 1e-15);  // P (1 - r)
  EXPECT_LE(filter.stage(0).design_fpr(), 0.0015);
  EXPECT_EQ(filter.total_bits(), filter.stage(0).bit_count());
  EXPECT_EQ(filter.size_in_bytes(), filter.total_bits() / 8);
  EXPECT_NEAR(filter.fpr_bound(), 0.0015, 1e-15);
  EXPECT_EQ(filter.estimated_fpr(), 0.0);
  EXPECT_FALSE(filter.saturated());
}

TEST(ScalableBloom, GrowthPlanIsTheSameIntegersEverywhere) {
  const scalable_bloom_params p{1000, 0.01, 1.5, 0.5, {}};
  const std::vector<std::uint64_t> expected{1000, 1500, 2250, 3375, 5063, 7595};  // ceil at each step
  for (std::uint32_t i = 0; i < expected.size(); ++i) EXPECT_EQ(scalable_bloom::stage_capacity(p, i), expected[i]);
  EXPECT_DOUBLE_EQ(scalable_bloom::stage_fpr(p, 0), 0.005);
  EXPECT_DOUBLE_EQ(scalable_bloom::stage_fpr(p, 3), 0.000625);
  const scalable_bloom_params s1{7, 0.1, 1.0, 0.85, {}};
  EXPECT_EQ(scalable_bloom::stage_capacity(s1, 40), 7u);  // growth 1: every stage the same size
  // Past 2^40 keys per stage: a clear error, not an overflow.
  const scalable_bloom_params big{1ULL << 39, 0.01, 16.0, 0.85, {}};
  EXPECT_EQ(error_code_of([&] { (void)scalable_bloom::stage_capacity(big, 2); }), errc::unsupported);
}

TEST(ScalableBloom, RejectsParametersOutOfDomain) {
  EXPECT_EQ(error_code_of([] { scalable_bloom(0, 0.01); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 0.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 1.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 0.01, {}, 0.5); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 0.01, {}, 17.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 0.01, {}, 2.0, 0.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 0.01, {}, 2.0, 1.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { scalable_bloom(10, 0.01, {}, std::numeric_limits<double>::quiet_NaN()); }),
            errc::invalid_argument);
}

TEST(ScalableBloom, GrowsOneStageAtATime) {
  scalable_bloom filter(1000, 0.01);
  const auto keys = random_hashes(100'000, 1);
  for (auto h : keys) filter.insert_hash(h);
  // 1000 (2^7 - 1) = 127 000 >= 100 000 > 63 000: seven stages.
  ASSERT_EQ(filter.stages(), 7u);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < filter.stages(); ++i) {
    EXPECT_EQ(filter.stage(i).capacity(), 1000u << i);
    EXPECT_NEAR(filter.stage(i).target_fpr(), 0.0015 * std::pow(0.85, static_cast<double>(i)), 1e-15);
    if (i + 1 < filter.stages()) {
      EXPECT_EQ(filter.stage(i).inserted(), filter.stage(i).capacity());
    }
    EXPECT_FALSE(filter.stage(i).saturated());
    bits += filter.stage(i).bit_count();
  }
  EXPECT_EQ(filter.stage(6).inserted(), 100'000u - 63'000u);
  EXPECT_EQ(filter.total_bits(), bits);
  EXPECT_EQ(filter.bit_count(), bits);
  EXPECT_EQ(filter.view().bit_count(), bits);
  EXPECT_EQ(filter.inserted(), keys.size());
  EXPECT_EQ(filter.capacity(), 127'000u);
  for (auto h : keys) ASSERT_TRUE(filter.may_contain_hash(h));
  EXPECT_LT(filter.fpr_bound(), 0.01);
  EXPECT_NEAR(filter.fpr_bound(), 1.0 - [] {
    double pass = 1.0;
    for (int i = 0; i < 7; ++i) pass *= 1.0 - 0.0015 * std::pow(0.85, i);
    return pass;
  }(), 1e-12);
  EXPECT_NEAR(filter.estimated_cardinality() / 100'000.0, 1.0, 0.03);
  EXPECT_FALSE(filter.saturated());
}

// The compound FPR stays under the target at 1x, 10x and 100x the initial
// capacity: measured with fixed seeds over `trials` negatives, accepted when
// within a binomial band (z = 5) of the FPR the stages' bits imply, and that
// implied FPR itself below the target.
class ScalableFpr : public ::testing::TestWithParam<double> {};

TEST_P(ScalableFpr, StaysUnderTargetAt1x10x100x) {
  const double target = GetParam();
  const std::uint64_t n0 = 2000;
  scalable_bloom filter(n0, target);
  const std::uint64_t trials = bloomkit::test::scaled(1'000'000);
  std::uint64_t inserted = 0;
  splitmix64 keys(11);
  for (const std::uint64_t multiple : {1ULL, 10ULL, 100ULL}) {
    while (inserted < multiple * n0) {
      filter.insert_hash(keys());
      ++inserted;
    }
    splitmix64 negatives(1000 + multiple);
    std::uint64_t hits = 0;
    for (std::uint64_t i = 0; i < trials; ++i) hits += filter.may_contain_hash(negatives());
    const double measured = static_cast<double>(hits) / static_cast<double>(trials);
    const double implied = filter.estimated_fpr();
    const double band = bloomkit::test::binomial_tolerance(std::max(implied, 1e-6), static_cast<double>(trials));
    std::printf("target %.4f at %3llux: stages %zu, %.2f bits/key, measured %.5f, implied %.5f, bound %.5f\n",
                target, static_cast<unsigned long long>(multiple), filter.stages(),
                static_cast<double>(filter.total_bits()) / static_cast<double>(inserted), measured, implied,
                filter.fpr_bound());
    EXPECT_NEAR(measured, implied, band + 2.0 / static_cast<double>(trials)) << multiple << "x";
    EXPECT_LT(implied, target) << multiple << "x";
    EXPECT_LE(measured, target + band) << multiple << "x";
    EXPECT_LT(filter.fpr_bound(), target);
    EXPECT_LE(filter.design_fpr(), filter.fpr_bound() * (1.0 + 1e-9));
  }
  EXPECT_EQ(filter.stages(), 7u);  // 2000 (2^7 - 1) >= 200 000
}

INSTANTIATE_TEST_SUITE_P(Targets, ScalableFpr, ::testing::Values(0.05, 0.01, 0.001));

TEST(ScalableBloom, TighteningRatioTradeOff) {
  // The reason for the 0.85 default: at 100x growth it needs fewer bits than
  // 0.5; near the initial capacity 0.5 is the smaller one (see the header).
  auto bits_at = [](double ratio, std::uint64_t keys) {
    scalable_bloom filter(1000, 0.01, {}, 2.0, ratio);
    filter.insert_many(random_hashes(keys, 5));
    return filter.total_bits();
  };
  EXPECT_LT(bits_at(0.5, 1000), bits_at(0.85, 1000));
  EXPECT_LT(bits_at(0.85, 100'000), bits_at(0.5, 100'000));
}

TEST(ScalableBloom, BatchCallsMatchSingleCalls) {
  const auto keys = random_hashes(25'000, 21);
  scalable_bloom one(1000, 0.01), many(1000, 0.01);
  for (auto h : keys) one.insert_hash(h);
  many.insert_many(std::span<const std::uint64_t>(keys).first(1));
  many.insert_many(std::span<const std::uint64_t>(keys).subspan(1, 1998));
  many.insert_many(std::span<const std::uint64_t>(keys).subspan(1999));
  ASSERT_EQ(one.stages(), many.stages());
  for (std::size_t i = 0; i < one.stages(); ++i) {
    ASSERT_EQ(one.stage(i).inserted(), many.stage(i).inserted());
    ASSERT_TRUE(std::equal(one.stage(i).blocks().begin(), one.stage(i).blocks().end(),
                           many.stage(i).blocks().begin()));
  }
  const auto queries = random_hashes(10'000, 22);
  std::vector<std::uint64_t> mixed(queries);
  mixed.insert(mixed.end(), keys.begin(), keys.begin() + 5000);
  std::unique_ptr<bool[]> out(new bool[mixed.size()]);
  many.may_contain_many(mixed, std::span<bool>(out.get(), mixed.size()));
  for (std::size_t i = 0; i < mixed.size(); ++i) ASSERT_EQ(out[i], many.may_contain_hash(mixed[i])) << i;
  bool small[1];
  EXPECT_EQ(error_code_of([&] { many.may_contain_many(mixed, std::span<bool>(small, 1)); }), errc::invalid_argument);
}

TEST(ScalableBloom, KeysOfEveryFormAndClear) {
  scalable_bloom filter(10, 0.01);
  for (int i = 0; i < 1000; ++i) filter.insert(i);
  filter.insert(std::string("alpha"));
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(filter.may_contain(i));
  EXPECT_TRUE(filter.may_contain("alpha"));
  EXPECT_GT(filter.stages(), 5u);
  filter.clear();
  EXPECT_EQ(filter.stages(), 1u);
  EXPECT_EQ(filter.inserted(), 0u);
  EXPECT_EQ(filter.set_bit_count(), 0u);
}

TEST(ScalableBloom, MergeIsStageWiseUnion) {
  scalable_bloom small(1000, 0.01), large(1000, 0.01);
  const auto a = random_hashes(1500, 31), b = random_hashes(9000, 32);
  small.insert_many(a);  // 2 stages
  large.insert_many(b);  // 4 stages
  scalable_bloom merged = small;
  merged.merge(large);
  EXPECT_EQ(merged.stages(), 4u);
  EXPECT_EQ(merged.inserted(), a.size() + b.size());
  for (auto h : a) ASSERT_TRUE(merged.may_contain_hash(h));
  for (auto h : b) ASSERT_TRUE(merged.may_contain_hash(h));
  // Stage 0 now holds 2000 keys for a capacity of 1000: reported honestly.
  EXPECT_TRUE(merged.saturated());
  EXPECT_GT(merged.estimated_fpr(), merged.fpr_bound());
  // New keys go to the newest stage (8000 keys of room, 2000 used).
  merged.insert(1);
  EXPECT_EQ(merged.stages(), 4u);
  EXPECT_EQ(merged.stage(3).inserted(), 2001u);

  for (const scalable_bloom& other :
       {scalable_bloom(999, 0.01), scalable_bloom(1000, 0.02), scalable_bloom(1000, 0.01, {}, 4.0),
        scalable_bloom(1000, 0.01, {}, 2.0, 0.5),
        scalable_bloom(1000, 0.01, bloomkit::hash_spec{bloomkit::hash_algorithm::xxh64, 0})}) {
    scalable_bloom copy = small;
    EXPECT_EQ(error_code_of([&] { copy.merge(other); }), errc::mismatch);
    EXPECT_EQ(copy.inserted(), small.inserted());
  }
}

TEST(ScalableBloom, ViewOverBorrowedStagesAnswersTheSame) {
  scalable_bloom filter(500, 0.01);
  const auto keys = random_hashes(5000, 41);
  filter.insert_many(keys);
  const scalable_bloom_view view = filter.view();
  EXPECT_EQ(view.stages(), filter.stages());
  EXPECT_EQ(view.total_bits(), filter.total_bits());
  EXPECT_EQ(view.inserted(), filter.inserted());
  for (auto h : keys) ASSERT_TRUE(view.may_contain_hash(h));
  for (auto h : random_hashes(10'000, 42)) ASSERT_EQ(view.may_contain_hash(h), filter.may_contain_hash(h));

  // Validated construction from stage views (as a loader does).
  std::vector<bloomkit::blocked_bloom_view> stages(view.stage_views().begin(), view.stage_views().end());
  EXPECT_NO_THROW(scalable_bloom_view(filter.params(), stages));
  EXPECT_EQ(error_code_of([&] { scalable_bloom_view(filter.params(), {}); }), errc::corrupt);
  auto swapped = stages;
  std::swap(swapped[0], swapped[1]);
  EXPECT_EQ(error_code_of([&] { scalable_bloom_view(filter.params(), swapped); }), errc::corrupt);
  auto other = filter.params();
  other.growth = 3.0;
  EXPECT_EQ(error_code_of([&] { scalable_bloom_view(other, stages); }), errc::corrupt);
  other = filter.params();
  other.hash.seed = 9;
  EXPECT_EQ(error_code_of([&] { scalable_bloom_view(other, stages); }), errc::corrupt);
  other = filter.params();
  other.tightening = 2.0;
  EXPECT_EQ(error_code_of([&] { scalable_bloom_view(other, stages); }), errc::invalid_argument);

  // An owning filter from copies of the stages (loading).
  std::vector<bloomkit::blocked_bloom> owned;
  for (std::size_t i = 0; i < filter.stages(); ++i) owned.push_back(filter.stage(i));
  const scalable_bloom loaded(filter.params(), owned);
  for (auto h : keys) ASSERT_TRUE(loaded.may_contain_hash(h));
  scalable_bloom merged(filter.params());
  merged.merge(view);
  EXPECT_EQ(merged.stages(), filter.stages());
  for (auto h : keys) ASSERT_TRUE(merged.may_contain_hash(h));
}

TEST(ScalableBloom, SixtyFourStagesAtMostAndAClearError) {
  scalable_bloom filter(1, 0.01, {}, 1.0, 0.85);  // one key per stage
  for (int i = 0; i < 64; ++i) filter.insert(i);
  EXPECT_EQ(filter.stages(), 64u);
  EXPECT_EQ(error_code_of([&] { filter.insert(64); }), errc::unsupported);
  EXPECT_EQ(filter.inserted(), 64u);  // nothing changed
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(filter.may_contain(i));
  EXPECT_LT(filter.fpr_bound(), 0.01);
}

}  // namespace

namespace {

/// Every stage's inserted count and blocks, to compare a filter before and after a failed call.
std::vector<std::vector<std::uint64_t>> snapshot(const scalable_bloom& f) {
  std::vector<std::vector<std::uint64_t>> out;
  for (std::size_t i = 0; i < f.stages(); ++i) {
    std::vector<std::uint64_t> s{f.stage(i).inserted()};
    for (const auto& block : f.stage(i).blocks()) s.insert(s.end(), std::begin(block.words), std::end(block.words));
    out.push_back(std::move(s));
  }
  return out;
}

TEST(ScalableBloom, AFailedBatchChangesNothing) {
  // Two ways a stage cannot be opened: its FPR P (1 - r) r^i is beyond any
  // blocked layout (r = 1e-300), or it would be the 65th stage. Every batch
  // call that needs such a stage fails before changing anything: the stages
  // it needs are planned and built first, also across the tiles of a keyed
  // batch and for test-and-add (which plans for every key being new).
  const auto keys = random_hashes(5000, 31);
  std::vector<std::uint64_t> ints(5000);
  for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = i;
  for (const auto& make : {+[] { return scalable_bloom(1000, 0.01, {}, 2.0, 1e-300); },
                           +[] { return scalable_bloom(1, 0.01, {}, 1.0, 0.85); }}) {
    for (const std::size_t before : {std::size_t{0}, std::size_t{1}}) {
      scalable_bloom f = make();
      f.insert_many(std::span<const std::uint64_t>(keys).first(before));
      const auto was = snapshot(f);
      EXPECT_NE(error_code_of([&] { f.insert_many(keys); }), errc{});
      EXPECT_EQ(f.inserted(), before);
      EXPECT_EQ(snapshot(f), was) << "insert_many";
      EXPECT_NE(error_code_of([&] { f.insert_keys(ints); }), errc{});
      EXPECT_EQ(snapshot(f), was) << "insert_keys";
      EXPECT_NE(error_code_of([&] { (void)f.insert_if_absent_many(keys); }), errc{});
      EXPECT_EQ(snapshot(f), was) << "insert_if_absent_many";
      // The filter still works after the failures, as if they never happened.
      f.insert_hash(keys[0]);
      EXPECT_TRUE(f.may_contain_hash(keys[0]));
    }
  }
}

}  // namespace
