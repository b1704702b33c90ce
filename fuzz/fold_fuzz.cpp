// fuzz/fold_fuzz.cpp - libFuzzer target over folding block filters
// (block_filter::fold, fold_to, folded_fpr; bloomkit/block_filter.hpp).
//
// Input: byte 0 picks the layout (bit 0: split_block_bloom or blocked_bloom)
// and, in bits 1-3, k for blocked_bloom; byte 1 the block count (low 4 bits:
// log2 of a power of two up to 2^15; bit 4 set: the even count 2 * (byte 2 + 1)
// instead); byte 3 the fold target (byte / 256, at least 1/256); the rest,
// 8 bytes at a time, the hashes inserted. It checks:
//   * fold() of a 2m-block filter equals the filter built at m blocks,
//     and folded_fpr() predicted its estimated_fpr();
//   * fold_to (both estimates) equals the filter built at the final size and
//     loses no inserted hash; by the per-block estimate, a filter it folded
//     meets the target and one more fold would not;
//   * odd block counts are refused with errc::invalid_argument and no change.
// tests run fuzz/corpus/fold through it (fold_fuzz_replay).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit_fold_fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fold_fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

template <class F>
F build(std::uint64_t blocks, std::uint32_t k, const std::vector<std::uint64_t>& hashes) {
  F f(bloomkit::block_filter_params{blocks, k, 100, 0.01, F::policy::default_hash});
  for (auto h : hashes) f.insert_hash(h);
  return f;
}

template <class F>
bool same(const F& a, const F& b) {
  return a.num_blocks() == b.num_blocks() && std::equal(a.blocks().begin(), a.blocks().end(), b.blocks().begin());
}

template <class F>
void check(std::uint64_t blocks, std::uint32_t k, double target, const std::vector<std::uint64_t>& hashes) {
  F once = build<F>(blocks, k, hashes);
  if (blocks % 2 != 0) {
    const F before = once;
    try {
      once.fold();
      require(false, "an odd block count folded");
    } catch (const bloomkit::error& e) {
      require(e.code() == bloomkit::errc::invalid_argument, "odd fold: errc::invalid_argument");
    }
    require(same(once, before), "a refused fold changed nothing");
    return;
  }
  const double predicted = once.folded_fpr();
  once.fold();
  require(same(once, build<F>(blocks / 2, k, hashes)), "fold == built at half the blocks");
  require(predicted == once.estimated_fpr(), "folded_fpr predicts the folded estimate");
  for (const auto estimate : {bloomkit::fold_estimate::per_block, bloomkit::fold_estimate::mean_fill}) {
    F f = build<F>(blocks, k, hashes);
    const std::uint32_t levels = f.fold_to(target, estimate);
    require(f.num_blocks() == blocks >> levels, "fold_to halves once per level");
    require(same(f, build<F>(blocks >> levels, k, hashes)), "fold_to == built at the final size");
    if (estimate == bloomkit::fold_estimate::per_block && levels > 0) {
      require(f.estimated_fpr() <= target, "a filter fold_to folded meets its target");
    }
    if (estimate == bloomkit::fold_estimate::per_block && f.num_blocks() % 2 == 0) {
      require(f.folded_fpr() > target, "fold_to stops only where one more fold misses the target");
    }
    for (auto h : hashes) require(f.may_contain_hash(h), "no false negative after folding");
  }
}

inline void check_input(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return;
  const bool split = (data[0] & 1) == 0;
  const std::uint32_t k = 1 + ((data[0] >> 1) & 7);
  const std::uint64_t blocks =
      (data[1] & 0x10) ? 2 * (std::uint64_t{data[2]} + 1) - ((data[1] & 0x20) ? 1 : 0) : std::uint64_t{1} << (data[1] & 15);
  const double target = std::max(1, int{data[3]}) / 256.0;
  std::vector<std::uint64_t> hashes;
  for (std::size_t at = 4; at + 8 <= size && hashes.size() < 4096; at += 8) {
    std::uint64_t h;
    std::memcpy(&h, data + at, 8);
    hashes.push_back(h);
  }
  if (split) {
    check<bloomkit::split_block_bloom>(blocks, 8, target, hashes);
  } else {
    check<bloomkit::blocked_bloom>(blocks, k, target, hashes);
  }
}

}  // namespace bloomkit_fold_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_fold_fuzz::check_input(data, size);
  return 0;
}
