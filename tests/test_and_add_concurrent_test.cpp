// tests/test_and_add_concurrent_test.cpp - insert_if_absent_concurrent on
// the kinds with concurrent inserts (standard, blocked, split-block), run
// under TSan by the tsan preset: after the threads join, the bits equal a
// sequential insert of every key, inserted() equals the number of true
// answers, and every key some thread added for the first time got at least
// one true answer (up to false positives among the other keys).
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "concurrent_support.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::make_filter;
using bloomkit::test::random_hashes;
using bloomkit::test::scaled;
using bloomkit::test::words_of;

template <class F>
class test_and_add_concurrent : public ::testing::Test {};

using filter_types = ::testing::Types<bloomkit::standard_bloom, bloomkit::blocked_bloom, bloomkit::split_block_bloom>;
TYPED_TEST_SUITE(test_and_add_concurrent, filter_types);

TYPED_TEST(test_and_add_concurrent, overlapping_threads_match_sequential_and_answer_once_at_least) {
  const std::uint64_t n = scaled(40'000, 4);
  const auto keys = random_hashes(n, 7);
  TypeParam shared = make_filter<TypeParam>(n);
  constexpr int threads = 3;
  // Every thread adds every key, each from a different starting point, so
  // the same new key is often added by several threads at once.
  std::vector<std::vector<char>> answered(threads, std::vector<char>(n, 0));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::uint64_t j = 0; j < n; ++j) {
        const std::uint64_t i = (j + static_cast<std::uint64_t>(t) * n / threads) % n;
        answered[t][i] = shared.insert_if_absent_hash_concurrent(keys[i]) ? 1 : 0;
      }
    });
  }
  for (auto& th : pool) th.join();

  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_many(keys);
  EXPECT_EQ(words_of(shared), words_of(sequential)) << "no bit lost, none invented";

  std::uint64_t trues = 0, keys_with_a_true = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    bool any = false;
    for (int t = 0; t < threads; ++t) {
      trues += answered[t][i];
      any |= answered[t][i] != 0;
    }
    keys_with_a_true += any;
  }
  EXPECT_EQ(shared.inserted(), trues) << "inserted() counts the true answers";
  // A key misses a true answer only if other keys had set all its bits
  // before it (a false positive): at 1 %, far below 5 %.
  EXPECT_GE(keys_with_a_true, n - n / 20);
  for (const auto h : keys) ASSERT_TRUE(shared.may_contain_hash(h));
}

TYPED_TEST(test_and_add_concurrent, single_thread_concurrent_call_answers_like_the_plain_one) {
  TypeParam a = make_filter<TypeParam>(5000), b = make_filter<TypeParam>(5000);
  for (const auto h : random_hashes(5000, 8)) {
    ASSERT_EQ(a.insert_if_absent_hash_concurrent(h), b.insert_if_absent_hash(h));
    ASSERT_EQ(a.insert_if_absent_hash_concurrent(h), false);
  }
  EXPECT_EQ(a.inserted(), b.inserted());
  EXPECT_TRUE(a.insert_if_absent_concurrent(std::string("x")));
  EXPECT_FALSE(a.insert_if_absent_concurrent(std::string("x")));
}

}  // namespace
