// bloomkit/detail/simd.hpp - the one place where a SIMD kernel is chosen.
//
// Placeholder for the speed work: today every filter uses its portable
// kernel. Kernels plug in behind the policies' set/test functions.
#pragma once
