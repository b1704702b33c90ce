// tests/codegen/prefetch_paths.cpp - one batch path per CASE, compiled by
// prefetch.cmake, whose object must hold at least one prefetch instruction.
// Why: GCC 12 deleted every call to a function whose body was only
// prefetches (detail/bits.hpp), and no result changes when a prefetch is
// gone, so only the generated code shows it.
#include <cstdint>
#include <span>

#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit_internal/kernels.hpp"
#include "bloomkit/ribbon.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"

using hashes = std::span<const std::uint64_t>;
using answers = std::span<bool>;

#if CASE == 1
void path(bloomkit::standard_bloom& f, hashes h) { f.insert_many(h); }
#elif CASE == 2
void path(const bloomkit::standard_bloom& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 3
void path(bloomkit::standard_bloom& f, hashes h) { f.insert_many_concurrent(h); }
#elif CASE == 4
// The Python package's deferred per-key adds call it alone.
void path(const std::uint64_t* words, std::uint64_t h, std::uint64_t bits, std::uint32_t k) {
  bloomkit::kernels::prefetch_standard_probes(words, h, bits, k, true);
}
#elif CASE == 5
void path(bloomkit::split_block_bloom& f, hashes h) { f.insert_many(h); }
#elif CASE == 6
void path(const bloomkit::split_block_bloom& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 7
void path(bloomkit::blocked_bloom& f, hashes h) { f.insert_many(h); }
#elif CASE == 8
void path(const bloomkit::blocked_bloom& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 9
void path(bloomkit::counting_bloom& f, hashes h) { f.insert_many(h); }
#elif CASE == 10
void path(const bloomkit::counting_bloom& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 11
void path(const bloomkit::cuckoo_filter& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 12
void path(const bloomkit::binary_fuse8& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 13
void path(const bloomkit::binary_fuse16& f, hashes h, answers out) { f.may_contain_many(h, out); }
#elif CASE == 14
void path(const bloomkit::ribbon& f, hashes h, answers out) { f.may_contain_many(h, out); }
#else
#error "CASE must be 1-14"
#endif
