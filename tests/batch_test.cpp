// Batched calls (insert_many, may_contain_many, insert_keys, may_contain_keys)
// against their one-key counterparts, for every filter kind: identical bits,
// identical answers, at every length around the pipeline's window, and the
// same errors for mismatched spans.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::detail::splitmix64;

template <class F>
class Batch : public ::testing::Test {};

using Filters = ::testing::Types<bloomkit::standard_bloom, bloomkit::blocked_bloom, bloomkit::split_block_bloom>;
TYPED_TEST_SUITE(Batch, Filters);

/// The filter's raw contents, comparable across kinds.
std::vector<std::uint64_t> contents(const bloomkit::standard_bloom& f) { return {f.words().begin(), f.words().end()}; }
template <class F>
std::vector<std::uint64_t> contents(const F& f) {
  std::vector<std::uint64_t> out(f.size_in_bytes() / 8);
  std::memcpy(out.data(), f.blocks().data(), f.size_in_bytes());
  return out;
}

/// Lengths around the window (0, 1, W - 1, W, W + 1, 2W + 3) and larger.
std::vector<std::size_t> lengths() {
  const std::size_t w = bloomkit::detail::batch_window;
  return {0, 1, 2, w - 1, w, w + 1, 2 * w + 3, 1000, 33'333};
}

TYPED_TEST(Batch, InsertManyEqualsInsertHashAtEveryLength) {
  // One (n, p) construction, copied: sizing a blocked filter is not free.
  const TypeParam empty(40'000, 0.01);
  for (std::size_t n : lengths()) {
    splitmix64 rng(n + 1);
    std::vector<std::uint64_t> hashes(n);
    for (auto& h : hashes) h = rng();
    TypeParam one = empty, many = empty;
    for (auto h : hashes) one.insert_hash(h);
    many.insert_many(hashes);
    EXPECT_EQ(contents(one), contents(many)) << "n=" << n;
    EXPECT_EQ(many.inserted(), n);
  }
}

TYPED_TEST(Batch, MayContainManyEqualsMayContainHashAtEveryLength) {
  TypeParam filter(3000, 0.05);  // a high FPR so both answers occur often
  splitmix64 rng(42);
  std::vector<std::uint64_t> members(3000);
  for (auto& h : members) h = rng();
  filter.insert_many(members);  // a third of the probes below are members
  for (std::size_t n : lengths()) {
    std::vector<std::uint64_t> probes(n);
    for (std::size_t i = 0; i < n; ++i) probes[i] = (i % 3 == 0) ? members[(i / 3) % members.size()] : rng();
    std::unique_ptr<bool[]> out(new bool[n + 1]);
    filter.may_contain_many(probes, std::span<bool>(out.get(), n));
    std::size_t yes = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], filter.may_contain_hash(probes[i])) << "n=" << n << " i=" << i;
      yes += out[i];
    }
    if (n >= 1000) {
      EXPECT_GT(yes, n / 4);  // both answers exercised
      EXPECT_LT(yes, n / 2);
    }
  }
}

TYPED_TEST(Batch, KeyBatchesEqualOneKeyCallsForIntegerAndStringKeys) {
  std::vector<std::uint64_t> ints;
  std::vector<std::string> strings;
  splitmix64 rng(7);
  for (int i = 0; i < 2500; ++i) {
    ints.push_back(rng());
    strings.push_back("user:" + std::to_string(rng() % 100000));
  }
  TypeParam one(5000, 0.01), many(5000, 0.01);
  for (auto k : ints) one.insert(k);
  for (const auto& k : strings) one.insert(k);
  many.insert_keys(ints);
  many.insert_keys(std::span<const std::string>(strings));
  EXPECT_EQ(contents(one), contents(many));
  EXPECT_EQ(many.inserted(), ints.size() + strings.size());

  std::vector<std::uint64_t> probe_ints(ints.begin(), ints.begin() + 500);
  for (int i = 0; i < 1500; ++i) probe_ints.push_back(rng());
  std::unique_ptr<bool[]> out(new bool[probe_ints.size()]);
  many.may_contain_keys(probe_ints, std::span<bool>(out.get(), probe_ints.size()));
  for (std::size_t i = 0; i < probe_ints.size(); ++i) ASSERT_EQ(out[i], many.may_contain(probe_ints[i]));
  for (std::size_t i = 0; i < 500; ++i) ASSERT_TRUE(out[i]);  // no false negatives

  std::unique_ptr<bool[]> out2(new bool[strings.size()]);
  many.view().may_contain_keys(std::span<const std::string>(strings), std::span<bool>(out2.get(), strings.size()));
  for (std::size_t i = 0; i < strings.size(); ++i) ASSERT_TRUE(out2[i]);
}

TYPED_TEST(Batch, KeyBatchesHashWithTheFiltersOwnHashSpec) {
  // A filter with a non-default seed: insert_keys must use it, so the bits
  // equal insert(key) and differ from a default-seeded filter.
  const bloomkit::hash_spec seeded{bloomkit::hash_algorithm::xxh3_64, 99};
  TypeParam filter(1000, 0.01, seeded);
  TypeParam reference = filter;
  std::vector<std::uint64_t> keys = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  filter.insert_keys(keys);
  for (auto k : keys) reference.insert(k);
  EXPECT_EQ(contents(filter), contents(reference));
}

TYPED_TEST(Batch, MismatchedOutputSpansAreRejected) {
  TypeParam filter(100, 0.01);
  std::vector<std::uint64_t> hashes(10, 5);
  bool out[9] = {};
  try {
    filter.may_contain_many(hashes, std::span<bool>(out, 9));
    ADD_FAILURE() << "may_contain_many accepted 10 hashes and 9 outputs";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), bloomkit::errc::invalid_argument);
  }
  try {
    filter.may_contain_keys(hashes, std::span<bool>(out, 9));
    ADD_FAILURE() << "may_contain_keys accepted 10 keys and 9 outputs";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), bloomkit::errc::invalid_argument);
  }
}

TYPED_TEST(Batch, LargeBatchHasNoFalseNegativesAndTheDesignFpr) {
  // A filter bigger than L2 so the prefetching path really runs ahead; the
  // measured FPR of the batched answers stays within the binomial band.
  const std::uint64_t n = bloomkit::test::scaled(300'000);
  TypeParam filter(n, 0.01);
  splitmix64 rng(31337);
  std::vector<std::uint64_t> keys(n), negatives(n);
  for (auto& k : keys) k = rng();
  for (auto& k : negatives) k = rng();
  filter.insert_keys(keys);
  std::unique_ptr<bool[]> out(new bool[n]);
  filter.may_contain_keys(keys, std::span<bool>(out.get(), n));
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(out[i]);
  filter.may_contain_keys(negatives, std::span<bool>(out.get(), n));
  const double fp = static_cast<double>(std::count(out.get(), out.get() + n, true));
  const double p = filter.design_fpr();
  EXPECT_NEAR(fp / static_cast<double>(n), p, bloomkit::test::binomial_tolerance(p, static_cast<double>(n)) + 0.002);
}

}  // namespace
