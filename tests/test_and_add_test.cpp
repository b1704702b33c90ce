// tests/test_and_add_test.cpp - insert_if_absent (test-and-add) on every kind
// that inserts: it answers exactly "!may_contain before", leaves the bits a
// plain insert of every key leaves, counts only the keys it inserted, and
// the bitmap batch matches the single-key calls.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/scalable_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::random_hashes;

template <class F>
F make(std::uint64_t n, double p) {
  return F(n, p);
}

/// A stream with repeats: n fresh keys, then every third of them again, interleaved.
std::vector<std::uint64_t> stream_with_repeats(std::uint64_t n, std::uint64_t seed) {
  auto keys = random_hashes(n, seed);
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    out.push_back(keys[i]);
    if (i % 3 == 0) out.push_back(keys[i / 2]);
  }
  return out;
}

template <class F>
class TestAndAdd : public ::testing::Test {};

using kinds = ::testing::Types<bloomkit::standard_bloom, bloomkit::blocked_bloom, bloomkit::split_block_bloom,
                               bloomkit::counting_bloom, bloomkit::scalable_bloom, bloomkit::age_partitioned_bloom>;
TYPED_TEST_SUITE(TestAndAdd, kinds);

TYPED_TEST(TestAndAdd, AnswersNotMayContainBeforeAndInsertsOnlyThen) {
  auto f = make<TypeParam>(5000, 0.01);
  std::uint64_t added = 0;
  for (const std::uint64_t h : stream_with_repeats(5000, 1)) {
    const bool expected = !f.may_contain_hash(h);
    ASSERT_EQ(f.insert_if_absent_hash(h), expected);
    ASSERT_TRUE(f.may_contain_hash(h));
    added += expected;
    ASSERT_EQ(f.inserted(), added) << "only inserted keys count";
  }
  EXPECT_GE(added, 5000u * 97 / 100) << "fresh keys are inserted (up to false positives)";
  EXPECT_LE(added, 5000u);
}

TYPED_TEST(TestAndAdd, TheSameKeyTwiceAndKeys) {
  auto f = make<TypeParam>(100, 0.01);
  EXPECT_TRUE(f.insert_if_absent(std::string("apple")));
  EXPECT_FALSE(f.insert_if_absent(std::string("apple")));
  EXPECT_FALSE(f.insert_if_absent(std::string_view("apple")));
  EXPECT_TRUE(f.may_contain(std::string("apple")));
  EXPECT_EQ(f.inserted(), 1u);
}

TYPED_TEST(TestAndAdd, BatchBitmapMatchesSingleCalls) {
  auto a = make<TypeParam>(3000, 0.01);
  auto b = make<TypeParam>(3000, 0.01);
  const auto hashes = stream_with_repeats(3000, 2);
  const std::vector<std::uint64_t> bits = a.insert_if_absent_many(hashes);
  ASSERT_EQ(bits.size(), (hashes.size() + 63) / 64);
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    ASSERT_EQ(((bits[i / 64] >> (i % 64)) & 1) != 0, b.insert_if_absent_hash(hashes[i])) << i;
  }
  EXPECT_EQ(a.inserted(), b.inserted());
  EXPECT_TRUE(a.insert_if_absent_many({}).empty());
}

// For the Bloom kinds: the bits after test-and-add are exactly the bits of a
// plain insert of every key (a key found present had all its bits set).
TEST(TestAndAddBits, SameBitsAsPlainInserts) {
  const auto hashes = stream_with_repeats(4000, 3);
  {
    bloomkit::standard_bloom a(4000, 0.01), b(4000, 0.01);
    (void)a.insert_if_absent_many(hashes);
    b.insert_many(hashes);
    EXPECT_TRUE(std::equal(a.words().begin(), a.words().end(), b.words().begin()));
  }
  {
    bloomkit::blocked_bloom a(4000, 0.01), b(4000, 0.01);
    (void)a.insert_if_absent_many(hashes);
    b.insert_many(hashes);
    EXPECT_EQ(0, std::memcmp(a.blocks().data(), b.blocks().data(), a.size_in_bytes()));
  }
  {
    bloomkit::split_block_bloom a(4000, 0.01), b(4000, 0.01);
    (void)a.insert_if_absent_many(hashes);
    b.insert_many(hashes);
    EXPECT_EQ(0, std::memcmp(a.blocks().data(), b.blocks().data(), a.size_in_bytes()));
  }
  {
    // Counting: set semantics, so each distinct key counts once; its
    // non-zero counters are those of the plain inserts.
    bloomkit::counting_bloom a(4000, 0.01), b(4000, 0.01);
    (void)a.insert_if_absent_many(hashes);
    b.insert_many(hashes);
    EXPECT_EQ(a.nonzero_counters(), b.nonzero_counters());
    for (const std::uint64_t h : random_hashes(4000, 3)) EXPECT_EQ(a.count_estimate_hash(h) >= 1, true);
    for (const std::uint64_t h : random_hashes(4000, 3)) {
      if (a.count_estimate_hash(h) == 1) {
        ASSERT_EQ(a.remove_hash(h), bloomkit::remove_result::removed);
      }
    }
  }
}

}  // namespace
