// tests/full_filter_test.cpp - a filter whose every bit (or counter) is set
// no longer knows how many keys it holds (issue 17, item 5).
//
// Standard and counting filters reported +infinity; split-block and blocked
// summed per-block estimates with a full block counted as "nearly full", so
// they reported finite numbers (655, 1420, 33,534) for filters that say
// nothing about their contents. Every incremental kind must report no finite
// estimate when full, call itself saturated, and say "maybe" to everything.
// (Static kinds, binary fuse and ribbon, hold exactly their keys and are
// never "full": their estimate is their key count.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "test_support.hpp"

namespace bloomkit {
namespace {

/// Inserts distinct keys until fill_ratio() is 1 (or a generous limit).
template <class F>
void fill_completely(F& filter) {
  detail::splitmix64 rng(77);
  for (std::uint64_t i = 0; i < 50'000'000 && filter.fill_ratio() < 1.0; i += 4096) {
    for (int j = 0; j < 4096; ++j) filter.insert_hash(rng());
  }
  ASSERT_EQ(filter.fill_ratio(), 1.0) << "could not fill the filter";
}

template <class F>
void expect_knows_nothing(const F& filter) {
  EXPECT_FALSE(std::isfinite(filter.estimated_cardinality())) << filter.estimated_cardinality();
  EXPECT_TRUE(filter.saturated());
  EXPECT_DOUBLE_EQ(filter.estimated_fpr(), 1.0);
  detail::splitmix64 rng(99);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(filter.may_contain_hash(rng()));
}

TEST(FullFilter, StandardReportsNoFiniteEstimate) {
  standard_bloom f(100, 0.01);
  fill_completely(f);
  expect_knows_nothing(f);
  expect_knows_nothing(f.view());
}

TEST(FullFilter, BlockedReportsNoFiniteEstimate) {
  for (const std::uint64_t capacity : {10u, 1000u, 10'000u}) {
    blocked_bloom f(capacity, 0.01);
    fill_completely(f);
    expect_knows_nothing(f);
    expect_knows_nothing(f.view());
  }
}

TEST(FullFilter, SplitBlockReportsNoFiniteEstimate) {
  for (const std::uint64_t capacity : {10u, 1000u, 10'000u}) {
    split_block_bloom f(capacity, 0.01);
    fill_completely(f);
    expect_knows_nothing(f);
    expect_knows_nothing(f.view());
  }
}

TEST(FullFilter, CountingReportsNoFiniteEstimate) {
  counting_bloom f(100, 0.01);
  fill_completely(f);
  expect_knows_nothing(f);
}

// A block filter with only some blocks full cannot bound its count either:
// a full block may hold any number of keys. (The old sum counted it as
// "nearly full", a finite lower bound presented as an estimate.)
template <class F>
void one_full_block_case() {
  F f(100'000, 0.01);
  f.insert_many(test::random_hashes(10'000, 5));
  EXPECT_TRUE(std::isfinite(f.estimated_cardinality()));
  std::vector<typename F::block_type> blocks(f.blocks().begin(), f.blocks().end());
  std::memset(&blocks[blocks.size() / 2], 0xff, sizeof(typename F::block_type));
  const typename F::view_type view(f.params(), blocks, f.inserted());
  EXPECT_FALSE(std::isfinite(view.estimated_cardinality()));
}

TEST(FullFilter, OneFullBlockMakesTheEstimateUnbounded) {
  one_full_block_case<blocked_bloom>();
  one_full_block_case<split_block_bloom>();
}

}  // namespace
}  // namespace bloomkit
