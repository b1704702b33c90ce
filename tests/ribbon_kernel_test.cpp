// Ribbon's column-SIMD query kernel (ribbon_evaluate_avx512) gives the
// scalar loop's value for every result width, band position and
// coefficient, and a filter answers alike under every kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bloomkit/ribbon.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::kernel_guard;
using bloomkit::kernel;
using bloomkit::test::supported_kernels;

TEST(RibbonKernel, EveryKernelEvaluatesLikeScalar) {
  bloomkit::detail::splitmix64 rng(11);
  // Four blocks of r words for the largest r, so any start in the first
  // 64 slots plus its 128-slot band stays inside.
  std::vector<std::uint64_t> words(4 * 16 + 16);
  for (auto& w : words) w = rng();
  for (kernel k : supported_kernels()) {
    for (std::uint32_t r = 1; r <= 16; ++r) {
      for (int trial = 0; trial < 2000; ++trial) {
        const std::uint64_t start = rng() % 128;  // every offset e in [0, 64), two blocks
        const std::uint64_t lo = rng() | 1, hi = trial % 7 == 0 ? 0 : rng();
        ASSERT_EQ(bloomkit::detail::ribbon_evaluate(k, words.data(), r, start, lo, hi),
                  bloomkit::detail::ribbon_evaluate(words.data(), r, start, lo, hi))
            << to_string(k) << " r=" << r << " start=" << start;
      }
    }
  }
}

TEST(RibbonKernel, FilterAnswersAlikeUnderEveryKernel) {
  kernel_guard guard;
  bloomkit::detail::splitmix64 rng(5);
  std::vector<std::uint64_t> keys(20000), others(20000);
  for (auto& k : keys) k = rng();
  for (auto& k : others) k = rng();
  for (std::uint32_t r : {1U, 7U, 8U, 9U, 16U}) {
    bloomkit::ribbon_options options;
    options.result_bits = r;
    const auto f = bloomkit::ribbon::from_keys(std::span<const std::uint64_t>(keys), options);
    bloomkit::set_kernel(kernel::scalar);
    std::vector<bool> expected;
    for (auto k : others) expected.push_back(f.may_contain(k));
    for (kernel k : supported_kernels()) {
      bloomkit::set_kernel(k);
      for (auto key : keys) ASSERT_TRUE(f.may_contain(key)) << to_string(k) << " r=" << r;
      for (std::size_t i = 0; i < others.size(); ++i) ASSERT_EQ(f.may_contain(others[i]), expected[i]) << to_string(k);
    }
  }
}

}  // namespace

namespace {

TEST(RibbonKernel, BatchedQueriesMatchSingleUnderEveryKernel) {
  kernel_guard guard;
  bloomkit::detail::splitmix64 rng(9);
  std::vector<std::uint64_t> hashes(5000);
  for (auto& h : hashes) h = rng();
  const std::span<const std::uint64_t> built(hashes.data(), 3000);  // the rest are (mostly) absent
  for (std::uint32_t r : {3U, 8U, 13U}) {
    bloomkit::ribbon_options options;
    options.result_bits = r;
    const bloomkit::ribbon f(built, options);
    for (kernel k : supported_kernels()) {
      bloomkit::set_kernel(k);
      std::unique_ptr<bool[]> out(new bool[hashes.size()]);
      f.may_contain_many(hashes, std::span<bool>(out.get(), hashes.size()));
      for (std::size_t i = 0; i < hashes.size(); ++i) {
        ASSERT_EQ(out[i], f.may_contain_hash(hashes[i])) << to_string(k) << " r=" << r << " i=" << i;
        if (i < built.size()) {
          ASSERT_TRUE(out[i]);
        }
      }
    }
  }
}

}  // namespace
