// bloomkit/kernels.hpp - deprecated: the building blocks under the filters
// (prefetch, range reductions, block layouts, probe loops) are private to
// the library and no longer published. Code that still names
// bloomkit::kernels::X keeps compiling, with a deprecation warning at each
// use; the filters' own calls (insert, may_contain and their batch forms)
// are the supported way to the same kernels. This header will be removed.
#pragma once

#include "bloomkit/block_filter.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"

namespace bloomkit {

/// Every name the building blocks had here (and the rest of the private
/// namespace with them), each use warned as deprecated.
namespace [[deprecated("bloomkit::kernels is private to the library; use the filters' calls")]] kernels {
using namespace bloomkit::detail;
}  // namespace kernels

}  // namespace bloomkit
