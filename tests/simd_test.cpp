// Every SIMD kernel against the portable scalar kernel, bit for bit: the same
// blocks after the same inserts, the same answers to the same queries, over
// many block counts, k and seeds; plus the kernel choice itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::kernel_guard;
using bloomkit::kernel;
using bloomkit::detail::splitmix64;

std::vector<kernel> available_kernels() { return bloomkit::test::supported_kernels(); }

/// The filter built and queried entirely under kernel `k`: blocks after
/// single inserts, blocks after batched inserts, and both answer vectors.
template <class Filter>
struct run_result {
  std::vector<typename Filter::block_type> single_blocks, batch_blocks;
  std::vector<char> single_answers, batch_answers;
};

template <class Filter>
run_result<Filter> run_under(kernel k, const bloomkit::block_filter_params& params, std::uint64_t seed,
                             std::size_t inserts, std::size_t queries) {
  bloomkit::set_kernel(k);
  splitmix64 rng(seed);
  std::vector<std::uint64_t> keys(inserts), probes(queries);
  for (auto& h : keys) h = rng();
  for (std::size_t i = 0; i < queries; ++i) probes[i] = (i % 2 == 0 && !keys.empty()) ? keys[i % keys.size()] : rng();

  run_result<Filter> r;
  Filter single(params), batch(params);
  for (auto h : keys) single.insert_hash(h);
  batch.insert_many(keys);
  r.single_blocks.assign(single.blocks().begin(), single.blocks().end());
  r.batch_blocks.assign(batch.blocks().begin(), batch.blocks().end());
  for (auto h : probes) r.single_answers.push_back(single.may_contain_hash(h) ? 1 : 0);
  std::unique_ptr<bool[]> out(new bool[queries + 1]);
  single.may_contain_many(probes, std::span<bool>(out.get(), queries));
  r.batch_answers.assign(out.get(), out.get() + queries);
  return r;
}

template <class Filter>
void expect_all_kernels_identical(const bloomkit::block_filter_params& params, std::uint64_t seed, std::size_t inserts,
                                  std::size_t queries) {
  kernel_guard guard;
  const auto reference = run_under<Filter>(kernel::scalar, params, seed, inserts, queries);
  ASSERT_EQ(reference.single_blocks, reference.batch_blocks) << "scalar insert_many differs from insert_hash";
  ASSERT_EQ(reference.single_answers, reference.batch_answers) << "scalar may_contain_many differs";
  for (kernel k : available_kernels()) {
    const auto got = run_under<Filter>(k, params, seed, inserts, queries);
    const std::string where = std::string(to_string(k)) + " blocks=" + std::to_string(params.blocks) +
                              " k=" + std::to_string(params.k) + " seed=" + std::to_string(seed);
    ASSERT_EQ(got.single_blocks, reference.single_blocks) << where << " (insert_hash)";
    ASSERT_EQ(got.batch_blocks, reference.single_blocks) << where << " (insert_many)";
    ASSERT_EQ(got.single_answers, reference.single_answers) << where << " (may_contain_hash)";
    ASSERT_EQ(got.batch_answers, reference.single_answers) << where << " (may_contain_many)";
  }
}

TEST(Simd, BlockedBloomEveryKernelMatchesScalarForEveryK) {
  for (std::uint32_t k = 1; k <= 16; ++k) {
    for (std::uint64_t blocks : {1ULL, 3ULL, 64ULL, 1000ULL}) {
      for (std::uint64_t seed : {1ULL, 7ULL}) {
        const bloomkit::block_filter_params params{blocks, k, 1000, 0.01, bloomkit::hash_spec{}};
        // 12 keys per block: from sparse to well past design fill.
        expect_all_kernels_identical<bloomkit::blocked_bloom>(params, seed * 131 + k, blocks * 12,
                                                              bloomkit::test::scaled(4000, 4));
      }
    }
  }
}

TEST(Simd, SplitBlockBloomEveryKernelMatchesScalar) {
  for (std::uint64_t blocks : {1ULL, 2ULL, 17ULL, 1000ULL, 4096ULL}) {
    for (std::uint64_t seed : {3ULL, 11ULL, 12345ULL}) {
      const bloomkit::block_filter_params params{blocks, 8, 1000, 0.01, bloomkit::parquet_hash_spec};
      expect_all_kernels_identical<bloomkit::split_block_bloom>(params, seed, blocks * 24,
                                                                bloomkit::test::scaled(4000, 4));
    }
  }
}

TEST(Simd, KernelMasksMatchTheScalarMaskBitForBit) {
  // The masks themselves, for hashes that stress every lane and shift
  // (all-zero, all-one and random low halves).
  kernel_guard guard;
  splitmix64 rng(2024);
  std::vector<std::uint64_t> hashes = {0, 1, 0xffffffffULL, 0x80000000ULL, ~0ULL};
  for (int i = 0; i < 2000; ++i) hashes.push_back(rng());
  for (kernel kern : available_kernels()) {
    bloomkit::set_kernel(kern);
    for (std::uint32_t k = 1; k <= 16; ++k) {
      for (auto h : hashes) {
        bloomkit::detail::block512 got{}, want{};
        bloomkit::detail::cache_line_policy::set(want, h, k);
        bloomkit::detail::block_set<bloomkit::detail::cache_line_policy>(got, h, k);
        ASSERT_EQ(got, want) << to_string(kern) << " k=" << k << " h=" << h;
        ASSERT_EQ(got, bloomkit::detail::cache_line_policy::mask(h, k));
      }
    }
    for (auto h : hashes) {
      bloomkit::detail::block256 got{}, want{};
      bloomkit::detail::split_block_policy::set(want, h, 8);
      bloomkit::detail::block_set<bloomkit::detail::split_block_policy>(got, h, 8);
      ASSERT_EQ(got, want) << to_string(kern) << " h=" << h;
      ASSERT_EQ(got, bloomkit::detail::split_block_policy::mask(h, 8));
    }
  }
}

TEST(Simd, KeyBatchesMatchUnderEveryKernel) {
  // insert_keys / may_contain_keys (hash inside the pipeline) against
  // insert / may_contain, for string keys, under every kernel.
  kernel_guard guard;
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back("key-" + std::to_string(i * 7919));
  std::vector<std::string> probes;
  for (int i = 0; i < 3000; ++i) probes.push_back("key-" + std::to_string(i * 13));
  bloomkit::set_kernel(kernel::scalar);
  bloomkit::blocked_bloom want(2000, 0.01);
  for (const auto& key : keys) want.insert(key);
  for (kernel kern : available_kernels()) {
    bloomkit::set_kernel(kern);
    bloomkit::blocked_bloom got(2000, 0.01);
    got.insert_keys(keys);
    ASSERT_TRUE(std::equal(got.blocks().begin(), got.blocks().end(), want.blocks().begin())) << to_string(kern);
    std::unique_ptr<bool[]> out(new bool[probes.size()]);
    got.may_contain_keys(probes, std::span<bool>(out.get(), probes.size()));
    for (std::size_t i = 0; i < probes.size(); ++i) ASSERT_EQ(out[i], want.may_contain(probes[i])) << probes[i];
  }
}

TEST(Simd, ChoiceFollowsCpuAndForceScalar) {
  using bloomkit::detail::choose_kernel;
  using bloomkit::detail::cpu_features;
  EXPECT_EQ(choose_kernel(cpu_features{true, true}, nullptr), kernel::avx512);
  EXPECT_EQ(choose_kernel(cpu_features{true, true, true}, nullptr), kernel::avx512);
  EXPECT_EQ(choose_kernel(cpu_features{true, false}, nullptr), kernel::avx2);
  EXPECT_EQ(choose_kernel(cpu_features{true, false, true}, nullptr), kernel::avx2);
  EXPECT_EQ(choose_kernel(cpu_features{false, false, true}, nullptr), kernel::sse41);
  EXPECT_EQ(choose_kernel(cpu_features{false, false}, nullptr), kernel::scalar);
  EXPECT_EQ(choose_kernel(cpu_features{true, true}, "1"), kernel::scalar);
  EXPECT_EQ(choose_kernel(cpu_features{false, false, true}, "1"), kernel::scalar);
  EXPECT_EQ(choose_kernel(cpu_features{true, true}, "yes"), kernel::scalar);
  EXPECT_EQ(choose_kernel(cpu_features{true, true}, "0"), kernel::avx512);  // "0" means do not force
  EXPECT_EQ(choose_kernel(cpu_features{true, true}, ""), kernel::avx512);
}

TEST(Simd, SetKernelRefusesWhatTheCpuLacksAndResetRestoresTheChoice) {
  kernel_guard guard;
  EXPECT_TRUE(bloomkit::kernel_supported(kernel::scalar));
  for (kernel k : bloomkit::test::every_kernel) {
    if (!bloomkit::kernel_supported(k)) {
      try {
        bloomkit::set_kernel(k);
        ADD_FAILURE() << "set_kernel accepted an unsupported kernel";
      } catch (const bloomkit::error& e) {
        EXPECT_EQ(e.code(), bloomkit::errc::unsupported);
      }
    }
  }
  bloomkit::set_kernel(kernel::scalar);
  EXPECT_EQ(bloomkit::active_kernel(), kernel::scalar);
  bloomkit::reset_kernel();
  const char* env = std::getenv("BLOOMKIT_FORCE_SCALAR");
  EXPECT_EQ(bloomkit::active_kernel(),
            bloomkit::detail::choose_kernel(bloomkit::detail::detect_cpu_features(), env));
  EXPECT_EQ(to_string(kernel::avx2), "avx2");
}

TEST(Simd, KernelsKeepTheirValuesAndNames) {
  // The values are stable (a new kernel is appended); the names are what
  // the CLI, Python and bench print.
  EXPECT_EQ(static_cast<int>(kernel::scalar), 0);
  EXPECT_EQ(static_cast<int>(kernel::avx2), 1);
  EXPECT_EQ(static_cast<int>(kernel::avx512), 2);
  EXPECT_EQ(static_cast<int>(kernel::sse41), 3);
  EXPECT_EQ(to_string(kernel::scalar), "scalar");
  EXPECT_EQ(to_string(kernel::sse41), "sse4.1");
  EXPECT_EQ(to_string(kernel::avx2), "avx2");
  EXPECT_EQ(to_string(kernel::avx512), "avx512");
}

TEST(Simd, WithKernelPassesTheTagOfItsKernel) {
  for (kernel k : bloomkit::test::every_kernel) {
    const kernel seen = bloomkit::with_kernel(k, [](auto tag) { return decltype(tag)::value; });
#if BLOOMKIT_X86_KERNELS
    EXPECT_EQ(seen, k) << to_string(k);
#else
    EXPECT_EQ(seen, kernel::scalar) << to_string(k);  // only the portable kernel exists here
#endif
  }
  kernel_guard guard;
  bloomkit::set_kernel(kernel::scalar);
  EXPECT_EQ(bloomkit::with_active_kernel([](auto tag) { return decltype(tag)::value; }), kernel::scalar);
}

TEST(Simd, ScalarRunsThePortableKernelAndSse41ItsOwn) {
  // Under kernel::scalar the dispatch picks the portable loop for every
  // policy; under kernel::sse41 a policy's SSE4.1 kernel where the caller's
  // target has one (the release preset), else the portable loop too.
  using bloomkit::detail::block_loop_kernel;
  using bloomkit::detail::cache_line_policy;
  using bloomkit::detail::split_block_policy;
  static_assert(block_loop_kernel<cache_line_policy, kernel::scalar>() == kernel::scalar);
  static_assert(block_loop_kernel<split_block_policy, kernel::scalar>() == kernel::scalar);
#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
  static_assert(block_loop_kernel<cache_line_policy, kernel::sse41>() == kernel::sse41);
  static_assert(block_loop_kernel<split_block_policy, kernel::sse41>() == kernel::sse41);
#else
  static_assert(block_loop_kernel<cache_line_policy, kernel::sse41>() == kernel::scalar);
#endif
#if BLOOMKIT_X86_KERNELS
  static_assert(block_loop_kernel<cache_line_policy, kernel::avx512>() == kernel::avx512);
  static_assert(block_loop_kernel<split_block_policy, kernel::avx512>() == kernel::avx2);  // no AVX-512 kernel of its own
#endif
  SUCCEED();
}

}  // namespace
