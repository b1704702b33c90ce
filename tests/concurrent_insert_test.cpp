// tests/concurrent_insert_test.cpp - insert_*_concurrent and
// may_contain_*_concurrent from many threads at once, for every mutable
// Bloom filter. Run under ThreadSanitizer by ./bloomkit.sh test (tsan
// preset, `ctest -L concurrent`): a data race fails the run there.
//
// What must hold (detail/concurrent.hpp):
//   * after the writers joined, the words equal a sequential insert of the
//     same keys (OR is order-independent), so no false negatives, and
//     inserted() counts every call;
//   * a reader that has seen (acquire) a writer publish "keys < i are in"
//     finds all of them with the concurrent query, while the writer goes on.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "concurrent_support.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::make_filter;
using bloomkit::test::random_hashes;
using bloomkit::test::words_of;

using namespace bloomkit;

constexpr unsigned writer_threads = 4;

template <class F>
class concurrent_insert : public ::testing::Test {};
using filter_types = ::testing::Types<standard_bloom, blocked_bloom, split_block_bloom>;
TYPED_TEST_SUITE(concurrent_insert, filter_types);

// Disjoint keys, one slice per thread, single-key calls: bit-identical to a
// sequential insert and no false negatives.
TYPED_TEST(concurrent_insert, disjoint_single_key_inserts_equal_sequential) {
  const std::size_t n = test::scaled(40000, 8);
  const auto keys = random_hashes(n, 11);
  TypeParam shared = make_filter<TypeParam>(n);
  {
    std::vector<std::jthread> writers;
    for (unsigned t = 0; t < writer_threads; ++t) {
      writers.emplace_back([&, t] {
        for (std::size_t i = t; i < n; i += writer_threads) shared.insert_hash_concurrent(keys[i]);
      });
    }
  }
  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_many(keys);
  EXPECT_EQ(words_of(shared), words_of(sequential));
  EXPECT_EQ(shared.inserted(), n);
  for (const auto h : keys) ASSERT_TRUE(shared.may_contain_hash(h));
}

// Every thread inserts the same keys in batches (maximal overlap: the same
// words ORed by all threads at once): no lost update.
TYPED_TEST(concurrent_insert, overlapping_batches_lose_no_bits) {
  const std::size_t n = test::scaled(40000, 8);
  const auto keys = random_hashes(n, 12);
  TypeParam shared = make_filter<TypeParam>(n);
  {
    std::vector<std::jthread> writers;
    for (unsigned t = 0; t < writer_threads; ++t) {
      writers.emplace_back([&, t] {
        // Different batch sizes per thread, so the threads are not in lockstep.
        const std::size_t batch = 97 + 64 * t;
        for (std::size_t i = 0; i < n; i += batch) {
          shared.insert_many_concurrent(std::span<const std::uint64_t>(keys).subspan(i, std::min(batch, n - i)));
        }
      });
    }
  }
  TypeParam sequential = make_filter<TypeParam>(n);
  sequential.insert_many(keys);
  EXPECT_EQ(words_of(shared), words_of(sequential));
  EXPECT_EQ(shared.inserted(), n * writer_threads);
}

// Keys (not hashes) through insert_concurrent, checked with the plain and the
// concurrent query after the join.
TYPED_TEST(concurrent_insert, keys_are_found_after_join) {
  const std::uint64_t n = test::scaled(20000, 8);
  TypeParam shared = make_filter<TypeParam>(n);
  {
    std::vector<std::jthread> writers;
    for (unsigned t = 0; t < writer_threads; ++t) {
      writers.emplace_back([&, t] {
        for (std::uint64_t key = t; key < n; key += writer_threads) shared.insert_concurrent(key);
      });
    }
  }
  for (std::uint64_t key = 0; key < n; ++key) {
    ASSERT_TRUE(shared.may_contain(key)) << key;
    ASSERT_TRUE(shared.may_contain_concurrent(key)) << key;
  }
  EXPECT_EQ(shared.inserted(), n);
}

// Readers beside writers. Each writer publishes its progress with a release
// store after each key; a reader that acquire-loads progress p must find that
// writer's keys below p (their inserts happened-before), and may query the
// rest freely (any answer is allowed; TSan checks that it is race-free).
TYPED_TEST(concurrent_insert, readers_beside_writers_find_published_keys) {
  constexpr unsigned writers_count = 2, readers_count = 2;
  const std::size_t per_writer = test::scaled(20000, 8);
  const auto keys = random_hashes(per_writer * writers_count, 13);
  const auto absent = random_hashes(per_writer, 14);
  TypeParam shared = make_filter<TypeParam>(keys.size());
  std::atomic<std::size_t> progress[writers_count];
  for (auto& p : progress) p.store(0);
  std::atomic<std::size_t> misses{0}, checked{0};
  {
    std::vector<std::jthread> threads;
    for (unsigned w = 0; w < writers_count; ++w) {
      threads.emplace_back([&, w] {
        for (std::size_t i = 0; i < per_writer; ++i) {
          shared.insert_hash_concurrent(keys[w * per_writer + i]);
          progress[w].store(i + 1, std::memory_order_release);
        }
      });
    }
    for (unsigned r = 0; r < readers_count; ++r) {
      threads.emplace_back([&, r] {
        detail::splitmix64 rng(100 + r);
        std::size_t local_checked = 0;
        bool done = false;
        while (!done) {
          done = true;
          for (unsigned w = 0; w < writers_count; ++w) {
            const std::size_t seen = progress[w].load(std::memory_order_acquire);
            done = done && seen == per_writer;
            if (seen == 0) continue;
            const std::size_t i = rng() % seen;  // an insert that finished before `seen` was published
            if (!shared.may_contain_hash_concurrent(keys[w * per_writer + i])) misses.fetch_add(1);
            ++local_checked;
          }
          // Unordered queries: keys not yet (or never) inserted. Any answer.
          (void)shared.may_contain_hash_concurrent(absent[rng() % absent.size()]);
          (void)shared.may_contain_hash_concurrent(keys[rng() % keys.size()]);
        }
        checked.fetch_add(local_checked);
      });
    }
  }
  EXPECT_EQ(misses.load(), 0u);
  EXPECT_GT(checked.load(), 0u);
  EXPECT_EQ(shared.inserted(), keys.size());
  for (const auto h : keys) ASSERT_TRUE(shared.may_contain_hash(h));
}

// The concurrent query gives the plain query's answers on the same bits,
// positives and negatives alike (under every kernel the plain one may use).
TYPED_TEST(concurrent_insert, concurrent_query_matches_plain_query) {
  const std::size_t n = test::scaled(20000, 8);
  TypeParam f = make_filter<TypeParam>(n);
  f.insert_many(random_hashes(n, 15));
  for (const auto h : random_hashes(n, 15)) ASSERT_TRUE(f.may_contain_hash_concurrent(h));
  std::size_t differ = 0, positives = 0;
  for (const auto h : random_hashes(4 * n, 16)) {
    const bool plain = f.may_contain_hash(h);
    differ += plain != f.may_contain_hash_concurrent(h);
    positives += plain;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(positives, 0u);  // the negatives include false positives, so both branches ran
}

// A view (e.g. of a mapped file) answers concurrent queries the same way.
TYPED_TEST(concurrent_insert, view_concurrent_query_matches) {
  const std::size_t n = test::scaled(5000, 5);
  TypeParam f = make_filter<TypeParam>(n);
  const auto keys = random_hashes(n, 17);
  f.insert_many(keys);
  const auto v = f.view();
  for (const auto h : keys) ASSERT_TRUE(v.may_contain_hash_concurrent(h));
  for (const auto h : random_hashes(n, 18)) ASSERT_EQ(v.may_contain_hash(h), v.may_contain_hash_concurrent(h));
}

}  // namespace
