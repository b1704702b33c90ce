// bloomkit_internal/kernels.hpp - the building blocks under the filters,
// named for the code in this repository that measures or drives them one by
// one (bench/, python/src, tests/codegen): the batch pipeline, prefetch, the
// range reductions, the block selector, the block layouts (policies) and
// the standard filter's probe loop. Not installed and not API: the names
// follow the library from commit to commit, and their contracts are the
// ones documented where they are defined. Users of the installed package
// have the filters, which never need these names.
#pragma once

#include "bloomkit/block_filter.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"

namespace bloomkit::kernels {

/// Keys a batched call looks ahead (measured; detail/simd_batch.hpp).
using detail::batch_window;
/// prefetch_pipeline<Window>(n, hash_at, prefetch(h), visit(i, h)): hash and
/// prefetch the key `Window` ahead while visiting the current one.
using detail::prefetch_pipeline;
/// Cache-line prefetch for reading / for writing.
using detail::prefetch;
using detail::prefetch_for_write;
/// Multiply-shift reductions of a hash to [0, range) (Lemire 2019).
using detail::reduce32;
using detail::reduce64;
/// The block a hash selects among `blocks` (Parquet's rule, block_filter.hpp).
using detail::block_index;
/// A block's single-key test and set through the run-time kernel choice
/// (what single calls did before they inlined their compile-time kernel;
/// block_filter.hpp, "single-key calls"), and the inlined ones they use now.
using detail::block_set;
using detail::block_set_dispatched;
using detail::block_test;
using detail::block_test_dispatched;
/// The two block layouts: 512-bit cache lines (blocked_bloom) and Parquet's
/// 256-bit split blocks (split_block_bloom).
using detail::cache_line_policy;
using detail::split_block_policy;
/// The standard filter's probe loop (standard_bloom.hpp): the k-probe test
/// with early exit, the words it reads, and the prefetch of the first probes.
using detail::prefetch_standard_probes;
using detail::standard_test;
using detail::standard_words_read;

}  // namespace bloomkit::kernels
