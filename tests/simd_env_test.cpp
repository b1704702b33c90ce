// tests/simd_env_test.cpp - BLOOMKIT_FORCE_SCALAR read from the environment
// of a fresh process (its own executable, so no earlier test has made the
// choice). CMakeLists.txt runs it twice:
//   simd_env_test         BLOOMKIT_FORCE_SCALAR empty, BLOOMKIT_EXPECT_KERNEL=best
//   simd_env_test_forced  BLOOMKIT_FORCE_SCALAR=1,     BLOOMKIT_EXPECT_KERNEL=scalar
// "best" is the widest kernel this CPU supports. Without
// BLOOMKIT_EXPECT_KERNEL the test fails: it must not pass unconfigured.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "bloomkit/bloomkit.hpp"

namespace {

using bloomkit::kernel;

TEST(FreshProcess, TheFirstFilterOperationPicksTheKernelTheEnvironmentAsks) {
  const char* expect = std::getenv("BLOOMKIT_EXPECT_KERNEL");
  ASSERT_NE(expect, nullptr) << "run through ctest (simd_env_test, simd_env_test_forced), which sets the environment";
  ASSERT_EQ(bloomkit::detail::active_kernel_state.load(), bloomkit::detail::kernel_unset)
      << "the process is not fresh: something chose a kernel before the first filter operation";
  // The first operation makes the choice, reading BLOOMKIT_FORCE_SCALAR.
  bloomkit::blocked_bloom filter(1000, 0.01);
  filter.insert(42u);
  EXPECT_TRUE(filter.may_contain(42u));
  kernel best = kernel::scalar;
  if (bloomkit::kernel_supported(kernel::sse41)) best = kernel::sse41;
  if (bloomkit::kernel_supported(kernel::avx2)) best = kernel::avx2;
  if (bloomkit::kernel_supported(kernel::avx512)) best = kernel::avx512;
  const kernel want = std::string(expect) == "scalar" ? kernel::scalar : best;
  EXPECT_EQ(bloomkit::active_kernel(), want) << "BLOOMKIT_FORCE_SCALAR="
                                             << (std::getenv("BLOOMKIT_FORCE_SCALAR") ? std::getenv("BLOOMKIT_FORCE_SCALAR") : "(unset)")
                                             << " gave " << to_string(bloomkit::active_kernel());
}

}  // namespace
