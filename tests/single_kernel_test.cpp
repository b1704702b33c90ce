// Single-key block calls run a kernel fixed at compile time
// (detail::single_kernel_of): the SSE4.1 split-block and blocked kernels it
// picks at the release preset's x86-64-v2 must give the portable kernel's
// bits and answers, and the run-time dispatch that other policies fall back to must
// too, under every kernel this CPU runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::kernel_guard;
using bloomkit::kernel;
using bloomkit::detail::block256;
using bloomkit::detail::block512;
using bloomkit::detail::split_block_policy;
using bloomkit::detail::splitmix64;

std::vector<std::uint64_t> test_hashes() {
  std::vector<std::uint64_t> out = {0, 1, 0xffffffffULL, 0x80000000ULL, 0x7fffffffULL, ~0ULL};
  splitmix64 rng(77);
  while (out.size() < 20000) out.push_back(rng());
  return out;
}

block256 random_block(splitmix64& rng, int density) {
  block256 b{};
  for (auto& w : b.words) {
    w = static_cast<std::uint32_t>(rng());
    for (int i = 0; i < density; ++i) w |= static_cast<std::uint32_t>(rng());  // denser blocks pass more tests
  }
  return b;
}

#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
TEST(SingleKernel, Sse41SplitBlockMatchesPortableBitForBit) {
  splitmix64 rng(3);
  for (auto h : test_hashes()) {
    block256 want{}, got{};
    split_block_policy::set(want, h, 8);
    split_block_policy::set_sse41(got, h, 8);
    ASSERT_EQ(got, want) << h;  // every shift 0..31 in every word, 1 << 31 included
    for (int density : {0, 2, 4}) {
      const block256 b = random_block(rng, density);
      ASSERT_EQ(split_block_policy::test_sse41(b, h, 8), split_block_policy::test(b, h, 8)) << h;
    }
    ASSERT_TRUE(split_block_policy::test_sse41(want, h, 8));
  }
}

block512 random_block512(splitmix64& rng, int density) {
  block512 b{};
  for (auto& w : b.words) {
    w = rng();
    for (int i = 0; i < density; ++i) w |= rng();
  }
  return b;
}

TEST(SingleKernel, Sse41BlockedMatchesPortableBitForBit) {
  // Every k (both forms: k <= 8 and the 16-lane one), blocks empty, sparse,
  // dense and full, and each key's own bits (which must test present).
  using bloomkit::detail::cache_line_policy;
  splitmix64 rng(11);
  const auto hashes = test_hashes();
  for (std::size_t n = 0; n < 6000; ++n) {
    const std::uint64_t h = hashes[n];
    for (std::uint32_t k = 1; k <= 16; ++k) {
      block512 want{}, got{};
      cache_line_policy::set(want, h, k);
      cache_line_policy::set_sse41(got, h, k);
      ASSERT_EQ(got, want) << h << " k=" << k;
      ASSERT_TRUE(cache_line_policy::test_sse41(want, h, k)) << h << " k=" << k;
      ASSERT_FALSE(cache_line_policy::test_sse41(block512{}, h, k)) << h << " k=" << k;
      for (int density : {0, 1, 3}) {
        const block512 b = random_block512(rng, density);
        ASSERT_EQ(cache_line_policy::test_sse41(b, h, k), cache_line_policy::test(b, h, k)) << h << " k=" << k;
        // One bit of the key's own mask cleared: the key must test absent.
        block512 holed = b;
        for (int w = 0; w < 8; ++w) holed.words[w] |= want.words[w];
        const int w = static_cast<int>(rng() % 8);
        if (want.words[w] != 0) {
          holed.words[w] &= ~(want.words[w] & (~want.words[w] + 1));  // the lowest set bit of the mask word
          ASSERT_FALSE(cache_line_policy::test_sse41(holed, h, k)) << h << " k=" << k;
        }
      }
    }
  }
}

TEST(SingleKernel, BlockedKeepsTheDispatchAtSse41AndRunsSse41UnderSse41) {
  // At x86-64-v2 blocked single calls keep the run-time dispatch (the SSE4.1
  // kernel measured slower than the dispatched AVX-512 call); under
  // kernel::sse41 the dispatch runs the SSE4.1 kernel, under kernel::scalar
  // the portable one, both with the portable kernel's answers.
#if !defined(__AVX2__)
  EXPECT_EQ(bloomkit::detail::single_kernel_of<bloomkit::detail::cache_line_policy>(),
            bloomkit::detail::single_kernel_kind::dispatched);
#endif
  struct guard {
    ~guard() { bloomkit::reset_kernel(); }
  } restore;
  for (kernel chosen : {kernel::scalar, kernel::sse41}) {
    if (!bloomkit::kernel_supported(chosen)) continue;
    bloomkit::set_kernel(chosen);
    splitmix64 rng(13);
    for (auto h : test_hashes()) {
      const block512 b = random_block512(rng, 1);
      for (std::uint32_t k : {1U, 6U, 9U, 16U}) {
        ASSERT_EQ(bloomkit::detail::block_test_dispatched<bloomkit::detail::cache_line_policy>(b, h, k),
                  bloomkit::detail::cache_line_policy::test(b, h, k))
            << to_string(chosen);
      }
    }
  }
}

TEST(SingleKernel, ReleaseTargetInlinesAKernelForSplitBlock) {
  // At x86-64-v2 or above single split-block calls never go through the
  // run-time dispatch (that is the point of the SSE4.1 kernel).
  EXPECT_NE(bloomkit::detail::single_kernel_of<split_block_policy>(), bloomkit::detail::single_kernel_kind::dispatched);
}
#endif

TEST(SingleKernel, DispatchedSingleCallsMatchPortableUnderEveryKernel) {
  kernel_guard guard;
  const auto hashes = test_hashes();
  for (kernel k : bloomkit::test::every_kernel) {
    if (!bloomkit::kernel_supported(k)) continue;
    bloomkit::set_kernel(k);
    splitmix64 rng(5);
    for (std::size_t i = 0; i < 4000; ++i) {
      const std::uint64_t h = hashes[i];
      block256 s_want{}, s_got{};
      split_block_policy::set(s_want, h, 8);
      bloomkit::detail::block_set_dispatched<split_block_policy>(s_got, h, 8);
      ASSERT_EQ(s_got, s_want) << to_string(k);
      const block256 b = random_block(rng, 3);
      ASSERT_EQ(bloomkit::detail::block_test_dispatched<split_block_policy>(b, h, 8), split_block_policy::test(b, h, 8));
      for (std::uint32_t kk : {1U, 6U, 16U}) {
        block512 want{}, got{};
        bloomkit::detail::cache_line_policy::set(want, h, kk);
        bloomkit::detail::block_set_dispatched<bloomkit::detail::cache_line_policy>(got, h, kk);
        ASSERT_EQ(got, want) << to_string(k) << " k=" << kk;
      }
    }
  }
}

TEST(SingleKernel, FiltersAnswerAsThePortableKernel) {
  // Whole filters through the public single calls (whatever kernel they
  // inline) against filters filled and queried with the portable kernel.
  const auto hashes = test_hashes();
  bloomkit::split_block_bloom f(5000, 0.01);
  std::vector<block256> want(f.num_blocks());
  for (std::size_t i = 0; i < 5000; ++i) {
    f.insert_hash(hashes[i]);
    split_block_policy::set(want[bloomkit::detail::block_index(hashes[i], f.num_blocks())], hashes[i], 8);
  }
  ASSERT_TRUE(std::equal(want.begin(), want.end(), f.blocks().begin()));
  for (auto h : hashes) {
    ASSERT_EQ(f.may_contain_hash(h), split_block_policy::test(want[bloomkit::detail::block_index(h, f.num_blocks())], h, 8));
  }
}

}  // namespace
