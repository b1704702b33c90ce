// tests/concurrent_stress_test.cpp - concurrent inserts and queries from 1 to
// 16 threads (more threads than this machine's cores), 10^7 operations in
// all, checked for no false negatives. Run under ThreadSanitizer by
// ./bloomkit.sh test (tsan preset, ctest -L concurrent), where a data race
// fails the run; tests/tsan/planted_race.cpp proves that TSan step reports
// races at all.
//
// Each thread owns a slice of keys. Its operations alternate: insert its
// next key (insert_hash_concurrent, and every 64th a batch through
// insert_many_concurrent), publish how far it got (release), then query a
// key some thread published (acquire): that key must be found. A third of
// the queries ask for keys nobody inserts (any answer is fine; they race
// with the writers on purpose). At the end every key is found by the plain
// query and inserted() counts every insert.
//
// BLOOMKIT_STRESS_OPS overrides the total (default 10^7, split evenly over
// the thread counts and the three kinds).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "concurrent_support.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;
using bloomkit::test::make_filter;
using bloomkit::test::random_hashes;

const std::vector<unsigned> thread_counts = {1, 2, 3, 4, 8, 16};
constexpr unsigned kinds = 3;

std::uint64_t total_ops() {
  if (const char* env = std::getenv("BLOOMKIT_STRESS_OPS"); env != nullptr && *env != '\0') {
    return std::strtoull(env, nullptr, 10);
  }
  return 10'000'000;
}

struct stress_result {
  std::uint64_t ops = 0;
  std::uint64_t published_checks = 0;
  std::uint64_t misses = 0;
};

template <class F>
stress_result stress(unsigned threads, std::uint64_t ops) {
  const std::uint64_t per_thread_ops = ops / threads;
  const std::uint64_t per_thread_keys = per_thread_ops / 2 + 64;  // half the operations insert
  const auto keys = random_hashes(per_thread_keys * threads, 1000 + threads);
  const auto absent = random_hashes(4096, 2000 + threads);
  F shared = make_filter<F>(keys.size());
  std::vector<std::atomic<std::uint64_t>> progress(threads);
  for (auto& p : progress) p.store(0);
  std::atomic<std::uint64_t> misses{0}, checks{0}, done_ops{0}, inserts{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        detail::splitmix64 rng(77 + t);
        const std::uint64_t* mine = keys.data() + t * per_thread_keys;
        std::uint64_t next = 0, local_checks = 0, local_misses = 0, local_inserts = 0, op = 0;
        while (op < per_thread_ops) {
          // An insert (every 64th a batch of 8).
          if (next < per_thread_keys) {
            const std::uint64_t batch = (op % 128 == 0 && next + 8 <= per_thread_keys) ? 8 : 1;
            if (batch == 1) {
              shared.insert_hash_concurrent(mine[next]);
            } else {
              shared.insert_many_concurrent(std::span<const std::uint64_t>(mine + next, batch));
            }
            next += batch;
            local_inserts += batch;
            progress[t].store(next, std::memory_order_release);
            op += batch;
          }
          // A query.
          if (rng() % 3 == 0) {
            (void)shared.may_contain_hash_concurrent(absent[rng() % absent.size()]);
          } else {
            const unsigned w = static_cast<unsigned>(rng() % threads);
            const std::uint64_t seen = progress[w].load(std::memory_order_acquire);
            if (seen > 0) {
              const std::uint64_t key = keys[w * per_thread_keys + rng() % seen];
              if (!shared.may_contain_hash_concurrent(key)) ++local_misses;
              ++local_checks;
            }
          }
          ++op;
        }
        checks.fetch_add(local_checks);
        misses.fetch_add(local_misses);
        inserts.fetch_add(local_inserts);
        done_ops.fetch_add(op);
        progress[t].store(next, std::memory_order_release);
      });
    }
  }
  // After the join: every inserted key, by the plain query.
  for (unsigned t = 0; t < threads; ++t) {
    const std::uint64_t n = progress[t].load();
    for (std::uint64_t i = 0; i < n; ++i) {
      if (!shared.may_contain_hash(keys[t * per_thread_keys + i])) misses.fetch_add(1);
    }
  }
  EXPECT_EQ(shared.inserted(), inserts.load()) << "inserted() must count every concurrent insert";
  return {done_ops.load(), checks.load(), misses.load()};
}

template <class F>
class concurrent_stress : public ::testing::Test {};
using filter_types = ::testing::Types<standard_bloom, blocked_bloom, split_block_bloom>;
TYPED_TEST_SUITE(concurrent_stress, filter_types);

TYPED_TEST(concurrent_stress, one_to_sixteen_threads_lose_no_key) {
  const std::uint64_t per_config = total_ops() / (thread_counts.size() * kinds);
  for (const unsigned threads : thread_counts) {
    const stress_result r = stress<TypeParam>(threads, per_config);
    EXPECT_EQ(r.misses, 0U) << threads << " threads: false negatives";
    EXPECT_GT(r.published_checks, r.ops / 10) << threads << " threads: too few checked queries to prove anything";
    std::printf("[ stress   ] %2u threads: %llu operations, %llu published keys checked, %llu missed\n", threads,
                static_cast<unsigned long long>(r.ops), static_cast<unsigned long long>(r.published_checks),
                static_cast<unsigned long long>(r.misses));
  }
}

}  // namespace
