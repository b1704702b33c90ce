// tests/distinct_count_test.cpp - the distinct-key rule every builder sizes by
// (include/bloomkit/distinct_count.hpp, docs/KEYS.md "Capacity").
#include "bloomkit/distinct_count.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace {

using bloomkit::distinct_counter;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<std::uint64_t> random_hashes(std::uint64_t seed, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = splitmix64(seed);
  return out;
}

TEST(DistinctCounter, NoInputIsZeroAndSizesForOne) {
  const distinct_counter c;
  EXPECT_TRUE(c.exact());
  EXPECT_EQ(c.count(), 0.0);
  EXPECT_EQ(c.capacity(), 1u);
}

// 3 keys added 1000 times each are 3 keys: the capacity a build asks for.
TEST(DistinctCounter, RepeatsCountOnce) {
  distinct_counter c;
  const std::vector<std::uint64_t> three = {7, 1ULL << 63, std::numeric_limits<std::uint64_t>::max()};
  for (int i = 0; i < 1000; ++i) c.add(three);
  EXPECT_TRUE(c.exact());
  EXPECT_EQ(c.count(), 3.0);
  EXPECT_EQ(c.capacity(), 3u);
}

TEST(DistinctCounter, ExactJustBelowTheSketchSize) {
  const auto hashes = random_hashes(1, distinct_counter::sketch_size - 1);
  distinct_counter c;
  c.add(hashes);
  c.add(hashes);
  EXPECT_TRUE(c.exact());
  EXPECT_EQ(c.capacity(), distinct_counter::sketch_size - 1);
  c.add(random_hashes(2, 1));
  EXPECT_FALSE(c.exact()) << "K distinct hashes: from here on an estimate";
}

// The estimate's formula, pinned on evenly spaced hashes i * 2^44
// (i = 1 .. 2^20 - 1), each added twice so that the inserts do not bound
// the answers: h_K = 4096 * 2^44, so the estimate is
// 4095 / ((4096 * 2^44 + 1) / 2^64) and the capacity that plus 2/sqrt(4094).
TEST(DistinctCounter, EstimateAndCapacityFollowTheFormula) {
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 1; i < (1u << 20); ++i) hashes.push_back(i << 44);
  distinct_counter c;
  c.add(hashes);
  c.add(hashes);
  const double kth = static_cast<double>((std::uint64_t{4096} << 44) + 1) / 18446744073709551616.0;
  const double expected = 4095.0 / kth;
  EXPECT_FALSE(c.exact());
  EXPECT_DOUBLE_EQ(c.count(), expected);
  EXPECT_EQ(c.capacity(), static_cast<std::uint64_t>(std::ceil(expected * (1.0 + 2.0 / std::sqrt(4094.0)))));
  EXPECT_NEAR(c.count(), 1048576.0, 1048576.0 * 0.001);
}

// An input holds no more distinct keys than keys: 50000 random hashes whose
// estimate is about 51121 (sizing for 3 % more) count 50000 and size for
// 50000, the number added.
TEST(DistinctCounter, NeverMoreThanTheHashesAdded) {
  const auto hashes = random_hashes(3, 50000);
  distinct_counter c;
  c.add(hashes);
  EXPECT_FALSE(c.exact());
  EXPECT_EQ(c.added(), hashes.size());
  EXPECT_EQ(c.count(), static_cast<double>(hashes.size()));
  EXPECT_EQ(c.capacity(), hashes.size());
  EXPECT_LE(c.at_least(), static_cast<double>(hashes.size()));

  distinct_counter halves, second;
  halves.add(std::span<const std::uint64_t>(hashes).first(hashes.size() / 2));
  second.add(std::span<const std::uint64_t>(hashes).subspan(hashes.size() / 2));
  halves.merge(second);
  EXPECT_EQ(halves.added(), hashes.size()) << "a merge adds the hashes of both";
  EXPECT_EQ(halves.capacity(), hashes.size());
}

// The sketch is a function of the set: order, repeats and splitting into
// merged parts give the same sketch, so every engine sizes alike.
TEST(DistinctCounter, DependsOnlyOnTheSet) {
  const auto hashes = random_hashes(3, 50000);
  distinct_counter whole;
  whole.add(hashes);

  distinct_counter a, b;
  a.add(std::span(hashes).first(20000));
  b.add(std::span(hashes).subspan(15000));  // overlapping parts
  b.add(std::span(hashes).first(100));
  a.merge(b);
  EXPECT_EQ(a.sketch(), whole.sketch());
  // The counts differ only by their bound, the hashes added (repeats
  // included): 50000 for whole, whose estimate is above that, and 55100.
  EXPECT_EQ(a.added(), 55100u);
  EXPECT_EQ(whole.count(), 50000.0);
  EXPECT_GT(a.count(), whole.count());

  std::vector<std::uint64_t> reversed(hashes.rbegin(), hashes.rend());
  distinct_counter r;
  r.add(reversed);
  EXPECT_EQ(r.sketch(), whole.sketch());
}

// Relative error within 5 standard errors (5 * 1.57 % = 7.8 %) for 20 fixed
// seeds at several sizes: at 5 sigma a failure has probability below 1e-6
// per case, and the seeds are fixed, so the test is deterministic.
TEST(DistinctCounter, EstimateIsWithinItsStandardError) {
  const double se = 1.0 / std::sqrt(4094.0);
  for (const std::size_t n : {5000u, 100000u, 1000000u}) {
    for (std::uint64_t seed = 10; seed < 30; ++seed) {
      distinct_counter c;
      c.add(random_hashes(seed, n));
      EXPECT_LT(std::abs(c.count() / static_cast<double>(n) - 1.0), 5 * se) << "n " << n << " seed " << seed;
      EXPECT_GE(c.capacity(), static_cast<std::uint64_t>(c.count()));
    }
  }
}

}  // namespace
