// tests/concurrent_build_test.cpp - insert_parallel / build_parallel /
// build_keys_parallel give the words of a sequential build, bit for bit, for
// every thread count, round size and filter kind; run under ThreadSanitizer
// by ./bloomkit.sh test (label `concurrent`).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "concurrent_support.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::make_filter;
using bloomkit::test::random_hashes;
using bloomkit::test::words_of;

using namespace bloomkit;

template <class F>
class concurrent_build : public ::testing::Test {};
using filter_types = ::testing::Types<standard_bloom, blocked_bloom, split_block_bloom>;
TYPED_TEST_SUITE(concurrent_build, filter_types);

// Small rounds and no per-thread minimum reach every path (several rounds,
// uneven slices, more threads than work) with few keys.
TYPED_TEST(concurrent_build, tuned_parallel_insert_is_bit_identical) {
  const std::size_t n = test::scaled(30000, 6);
  const auto keys = random_hashes(n, 21);
  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_many(keys);
  for (const unsigned threads : {1u, 2u, 3u, 4u, 7u}) {
    for (const std::size_t round : {std::size_t{1000}, std::size_t{4099}, n + 1}) {
      TypeParam parallel = make_filter<TypeParam>(n);
      detail::parallel_build_access::insert(parallel, n, [&](std::size_t i) { return keys[i]; }, threads,
                                            detail::parallel_tuning{round, 1, 333});
      ASSERT_EQ(words_of(parallel), words_of(sequential)) << threads << " threads, rounds of " << round;
      ASSERT_EQ(parallel.inserted(), n);
    }
  }
}

// Prehashed input is scanned in place; chunks of 1, 999 and more than the
// input reach the chunk boundaries (a chunk keeping nothing, one key, all).
TYPED_TEST(concurrent_build, tuned_in_place_scan_is_bit_identical) {
  const std::size_t n = test::scaled(30000, 6);
  const auto keys = random_hashes(n, 27);
  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_many(keys);
  for (const unsigned threads : {2u, 3u, 8u}) {
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{999}, n + 5}) {
      TypeParam parallel = make_filter<TypeParam>(n);
      detail::parallel_build_access::insert_hashes(parallel, keys.data(), n, threads,
                                                   detail::parallel_tuning{1000, 1, chunk});
      ASSERT_EQ(words_of(parallel), words_of(sequential)) << threads << " threads, chunks of " << chunk;
      ASSERT_EQ(parallel.inserted(), n);
    }
  }
}

// The public calls with their default tuning, enough keys for two threads.
TYPED_TEST(concurrent_build, public_calls_are_bit_identical) {
  const std::size_t n = 2 * detail::parallel_min_keys_per_thread + 123;
  const auto keys = random_hashes(n, 22);
  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_many(keys);

  TypeParam parallel = make_filter<TypeParam>(n);
  insert_parallel(parallel, std::span<const std::uint64_t>(keys), 2);
  EXPECT_EQ(words_of(parallel), words_of(sequential));
  EXPECT_EQ(parallel.inserted(), n);

  const TypeParam built = build_parallel<TypeParam>(sequential.params(), std::span<const std::uint64_t>(keys), 3);
  EXPECT_EQ(words_of(built), words_of(sequential));
  EXPECT_EQ(built.inserted(), n);
  EXPECT_EQ(built.params(), sequential.params());
}

// Keys are hashed by the build threads with the filter's hash_spec.
TYPED_TEST(concurrent_build, keys_are_hashed_in_parallel_identically) {
  const std::size_t n = 2 * detail::parallel_min_keys_per_thread + 7;
  std::vector<std::string> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) keys.push_back("key-" + std::to_string(i * 7919));
  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_keys(keys);
  const TypeParam built = build_keys_parallel<TypeParam>(sequential.params(), std::span<const std::string>(keys), 2);
  EXPECT_EQ(words_of(built), words_of(sequential));
  EXPECT_EQ(built.inserted(), n);
  for (std::size_t i = 0; i < n; i += 97) ASSERT_TRUE(built.may_contain(keys[i]));
}

// Inserting into a filter that already holds keys keeps them (OR, not overwrite).
TYPED_TEST(concurrent_build, adds_to_existing_bits) {
  const std::size_t n = test::scaled(20000, 4);
  const auto first = random_hashes(n, 23), second = random_hashes(n, 24);
  TypeParam sequential = make_filter<TypeParam>(2 * n);
  sequential.insert_many(first);
  sequential.insert_many(second);
  TypeParam parallel = make_filter<TypeParam>(2 * n);
  parallel.insert_many(first);
  detail::parallel_build_access::insert(parallel, n, [&](std::size_t i) { return second[i]; }, 2,
                                        detail::parallel_tuning{777, 1});
  EXPECT_EQ(words_of(parallel), words_of(sequential));
  EXPECT_EQ(parallel.inserted(), 2 * n);
}

// Filters smaller than the thread count (one block / one word): every unit
// has exactly one owner, the rest of the threads get nothing.
TEST(concurrent_build_edges, tiny_filters_and_empty_input) {
  const auto keys = random_hashes(5000, 25);
  blocked_bloom one_block(block_filter_params{1, 8, 100, 0.5, blocked_bloom::policy::default_hash});
  blocked_bloom one_block_seq(one_block.params());
  detail::parallel_build_access::insert(one_block, keys.size(), [&](std::size_t i) { return keys[i]; }, 4,
                                        detail::parallel_tuning{100, 1});
  one_block_seq.insert_many(keys);
  EXPECT_EQ(words_of(one_block), words_of(one_block_seq));

  standard_bloom one_word = standard_bloom::with_bits(50, 3);
  standard_bloom one_word_seq = standard_bloom::with_bits(50, 3);
  detail::parallel_build_access::insert(one_word, keys.size(), [&](std::size_t i) { return keys[i]; }, 4,
                                        detail::parallel_tuning{100, 1});
  one_word_seq.insert_many(keys);
  EXPECT_EQ(words_of(one_word), words_of(one_word_seq));

  split_block_bloom empty_input(1000, 0.01);
  insert_parallel(empty_input, std::span<const std::uint64_t>(), 4);
  EXPECT_EQ(empty_input.inserted(), 0u);
  EXPECT_EQ(empty_input.set_bit_count(), 0u);
}

TEST(concurrent_build_edges, zero_threads_is_invalid_argument) {
  split_block_bloom f(1000, 0.01);
  const auto keys = random_hashes(10, 26);
  try {
    insert_parallel(f, std::span<const std::uint64_t>(keys), 0);
    FAIL() << "expected bloomkit::error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
  EXPECT_EQ(f.inserted(), 0u);
}

// The ranges partition the units: part 0 starts at unit 0, each part starts
// where the previous one ended, the last one ends at `units`, and none is
// empty when there are no more parts than units.
TEST(concurrent_build_edges, unit_ranges_partition_contiguously) {
  for (const std::uint64_t units : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{1000},
                                    std::uint64_t{1} << 32, (std::uint64_t{1} << 57) + 3, ~std::uint64_t{0}}) {
    for (const unsigned parts : {1u, 2u, 3u, 7u, 64u}) {
      if (parts > units) continue;  // parallel_parts never asks for more parts than units
      EXPECT_EQ(detail::unit_range_begin(units, parts, 0), 0u);
      EXPECT_EQ(detail::unit_range_begin(units, parts, parts), units) << units << " units, " << parts << " parts";
      for (unsigned p = 0; p < parts; ++p) {
        ASSERT_LT(detail::unit_range_begin(units, parts, p), detail::unit_range_begin(units, parts, p + 1))
            << units << " units, part " << p << " of " << parts;
      }
    }
  }
}

}  // namespace
