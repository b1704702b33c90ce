// bloomkit/block_filter.hpp - the one core behind every block-shaped
// filter (blocked_bloom, split_block_bloom).
//
// A block filter is an array of fixed-size blocks. A key's 64-bit hash picks
// one block with its high 32 bits (multiply-shift: ((h >> 32) * z) >> 32, as
// Parquet fixes it) and sets or tests bits inside that block from its low 32
// bits. Where inside the block is the *policy*: a type satisfying
// block_policy. A new block shape is a new policy, not a new filter.
//
// One query touches one block, so one cache miss per lookup; batched calls
// compute all block addresses of a window first and prefetch them.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/concurrent.hpp"
#include "bloomkit/hash_batch.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/detail/simd.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

/// The parameters that fix a block filter's layout and meaning. `blocks` and
/// `k` and `hash` decide the bits; `capacity` and `target_fpr` are the design
/// point, used for saturation and reported by tools.
struct block_filter_params {
  std::uint64_t blocks = 0;    ///< number of blocks, 1 <= blocks <= max_blocks
  std::uint32_t k = 0;         ///< bits set per key (fixed by some policies)
  std::uint64_t capacity = 0;  ///< design number of keys (>= 1)
  double target_fpr = 0.0;     ///< design false-positive rate, in (0, 1)
  hash_spec hash{};            ///< hash used for keys

  friend bool operator==(const block_filter_params&, const block_filter_params&) = default;
};

/// How block_filter::fold_to() estimates the false-positive rate of a folded
/// filter before it folds (docs/MATH.md, "Folding a block filter").
enum class fold_estimate {
  /// The folded bits' own FPR: the mean over the folded blocks of each
  /// block's pass probability (estimated_fpr() of the result, computed
  /// without building it). Exact for those bits under a uniform hash.
  per_block,
  /// arrow-rs's rule (parquet crate 60, Sbbf::fold_to_target_fpp): from the
  /// set-bit fraction f of the unfolded filter, j folds give fill
  /// 1 - (1 - f)^(2^j) and FPR fill^k. It predicts from one global fraction
  /// and ignores uneven block loads, so it usually estimates lower than
  /// per_block and folds as far or further; use it to fold exactly as
  /// arrow-rs does.
  mean_fill,
};

namespace detail {

/// What a block layout must provide. `set` / `test` see only the hash's low
/// 32 bits' worth of entropy they need; the block was already chosen.
template <class P>
concept block_policy = requires(typename P::block_type& block, const typename P::block_type& cblock,
                                std::uint64_t h, std::uint32_t k) {
  typename P::block_type;
  { P::name } -> std::convertible_to<std::string_view>;
  { P::block_bits } -> std::convertible_to<std::uint32_t>;
  { P::min_k } -> std::convertible_to<std::uint32_t>;
  { P::max_k } -> std::convertible_to<std::uint32_t>;
  { P::max_blocks } -> std::convertible_to<std::uint64_t>;
  { P::default_hash } -> std::convertible_to<hash_spec>;
  { P::set(block, h, k) } noexcept;
  { P::test(cblock, h, k) } noexcept -> std::same_as<bool>;
  { P::block_fpr(cblock, k) } -> std::same_as<double>;          // P(random key passes | this block)
  { P::block_cardinality(cblock, k) } -> std::same_as<double>;  // keys estimated in this block; +inf when full
  { P::model_fpr(std::uint64_t{}, double{}, k) } -> std::same_as<double>;  // formula for (blocks, n, k)
  { P::plan(std::uint64_t{}, double{}) } -> std::same_as<sizing::blocked_plan>;
  { P::popcount(cblock) } noexcept -> std::same_as<std::uint32_t>;
  { P::merge(block, cblock) } noexcept;      // block |= other
  { P::intersect(block, cblock) } noexcept;  // block &= other
};

/// The block a hash selects among `blocks` (< 2^32 blocks).
constexpr std::uint64_t block_index(std::uint64_t h, std::uint64_t blocks) noexcept {
  return reduce32(static_cast<std::uint32_t>(h >> 32), blocks);
}

/// The locate step of every block layout (as RocksDB's PrepareHash): the
/// block that hash h selects among the `count` blocks of a whole filter
/// stored at `blocks`. Single calls probe it at once; block_pipeline
/// prefetches it a window ahead and probes it when its turn comes.
template <class Block>
struct whole_blocks {
  Block* blocks;
  std::uint64_t count;
  constexpr Block& operator()(std::uint64_t h) const noexcept { return blocks[block_index(h, count)]; }
};

/// The locate step of one shard (bloomkit/block_shard.hpp): blocks
/// [first, ...) of a `count`-block filter, stored from `blocks` on. A hash
/// must select a block of the shard (the shard checks routing first).
template <class Block>
struct shard_blocks {
  Block* blocks;
  std::uint64_t count;
  std::uint64_t first;
  constexpr Block& operator()(std::uint64_t h) const noexcept { return blocks[block_index(h, count) - first]; }
};

/// whole_blocks{blocks, count}(h): a single call's locate step.
template <class Block>
constexpr Block& locate_block(Block* blocks, std::uint64_t count, std::uint64_t h) noexcept {
  return whole_blocks<Block>{blocks, count}(h);
}

/// The word-wise operations every block layout shares (a block is an array
/// `words` of unsigned words); the policies inherit them.
template <class Block>
struct block_word_ops {
  /// Bits set in the block.
  static std::uint32_t popcount(const Block& block) noexcept {
    std::uint32_t c = 0;
    for (auto w : block.words) c += static_cast<std::uint32_t>(std::popcount(w));
    return c;
  }
  /// block |= other.
  static void merge(Block& block, const Block& other) noexcept {
    for (std::size_t w = 0; w < std::size(block.words); ++w) block.words[w] |= other.words[w];
  }
  /// block &= other.
  static void intersect(Block& block, const Block& other) noexcept {
    for (std::size_t w = 0; w < std::size(block.words); ++w) block.words[w] &= other.words[w];
  }
};

// ---- kernels ----------------------------------------------------------------
// A policy's set/test are its portable kernel (and the reference). A policy
// may add x86 kernels with the same contract: set_avx2/test_avx2 and
// set_avx512/test_avx512, compiled for their targets (see detail/simd.hpp).
// A policy without them runs its portable kernel under every kernel choice.
//
// Every kernel splits "compute the key's mask" from "apply it to the block",
// so an atomic variant of set (concurrent inserts) is one more function
// beside set: P::mask(h, k) gives the mask as a block, to be ORed word by
// word with std::atomic_ref.

template <class P>
concept has_avx2_kernel = requires(typename P::block_type& b, const typename P::block_type& cb, std::uint64_t h,
                                   std::uint32_t k) {
  P::set_avx2(b, h, k);
  { P::test_avx2(cb, h, k) } -> std::same_as<bool>;
};

template <class P>
concept has_sse41_kernel = requires(typename P::block_type& b, const typename P::block_type& cb, std::uint64_t h,
                                    std::uint32_t k) {
  P::set_sse41(b, h, k);
  { P::test_sse41(cb, h, k) } -> std::same_as<bool>;
};

template <class P>
concept has_avx512_kernel = requires(typename P::block_type& b, const typename P::block_type& cb, std::uint64_t h,
                                     std::uint32_t k) {
  P::set_avx512(b, h, k);
  { P::test_avx512(cb, h, k) } -> std::same_as<bool>;
};

/// The set/test of policy P under kernel K, falling back to the next
/// narrower kernel the policy has (avx512 -> avx2 -> sse41 -> portable).
/// Only called from code compiled for K's target (the batch loops below) or
/// after checking the CPU (block_set / block_test). P's SSE4.1 kernel exists
/// only where the caller's target guarantees SSE4.1 (the release preset's
/// x86-64-v2); elsewhere kernel::sse41 runs the portable kernel.
/// kernel::scalar always runs the portable kernel.
template <class P, kernel K>
struct block_kernel {
  using block_type = typename P::block_type;
  static void set(block_type& b, std::uint64_t h, std::uint32_t k) noexcept {
#if BLOOMKIT_X86_KERNELS
    if constexpr (K == kernel::avx512 && has_avx512_kernel<P>) {
      P::set_avx512(b, h, k);
      return;
    } else if constexpr ((K == kernel::avx512 || K == kernel::avx2) && has_avx2_kernel<P>) {
      P::set_avx2(b, h, k);
      return;
    }
#endif
#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
    if constexpr (K != kernel::scalar && has_sse41_kernel<P>) {
      P::set_sse41(b, h, k);
      return;
    }
#endif
    P::set(b, h, k);
  }
  static bool test(const block_type& b, std::uint64_t h, std::uint32_t k) noexcept {
#if BLOOMKIT_X86_KERNELS
    if constexpr (K == kernel::avx512 && has_avx512_kernel<P>) {
      return P::test_avx512(b, h, k);
    } else if constexpr ((K == kernel::avx512 || K == kernel::avx2) && has_avx2_kernel<P>) {
      return P::test_avx2(b, h, k);
    }
#endif
#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
    if constexpr (K != kernel::scalar && has_sse41_kernel<P>) return P::test_sse41(b, h, k);
#endif
    return P::test(b, h, k);
  }
};

// ---- single-key calls ---------------------------------------------------------
// Single-key calls (insert_hash / may_contain_hash and the keyed calls on
// them) run a kernel fixed when the calling code is compiled, not the
// run-time choice. Why: a kernel compiled for a wider target than its caller
// cannot be inlined into it, so a dispatched single call is a real call, and
// the kernel byte is reloaded around every call (the atomic load and the
// call keep the compiler from hoisting the filter's fields). Out of cache
// that matters: fewer lookups fit in the out-of-order window, so fewer cache
// misses overlap (split_block_bloom at 10^8 keys: about 1.6x the time of the
// inlined kernel; even a "scalar forced?" check in front of it costs).
// Batched calls keep the run-time choice: they pay it once per batch.
//
// So single calls use the widest kernel the translation unit's target
// guarantees, inlined, with no run-time check:
//   AVX-512 (F, BW, VL, DQ + AVX2, BMI, BMI2, POPCNT) -> P::*_avx512 if P has it
//   AVX2 + BMI + BMI2 + POPCNT                         -> P::*_avx2 if P has it
//   SSE4.1 (x86-64-v2, the release preset)             -> P::*_sse41 if P has it
// and otherwise the run-time dispatch (block_test_dispatched), where a policy
// with no kernel for the caller's target still gets its widest one. Every
// kernel gives identical bits and answers (tests/single_kernel_test.cpp,
// tests/simd_test.cpp), so which one runs never shows in results.
// set_kernel() and BLOOMKIT_FORCE_SCALAR govern the run-time choice only.
//
// The SSE4.1 rule applies only to a policy whose SSE4.1 kernel is about as
// short as its AVX2 one (P::sse41_inlines = true: split_block_bloom, whose
// mask is a float-exponent trick of a dozen instructions). Where SSE4.1
// lacks what the layout needs (blocked_bloom: no variable shift or
// permute, so byte gathers from four quarters: 55 instructions per keyed
// lookup inlined, against 66 through the dispatch to the AVX2 kernel,
// counted with callgrind), the inlined kernel is slower than the
// dispatched call out of cache (bench/micro BM_blocked_v2): fewer lookups
// fit in the out-of-order window, so fewer misses overlap. Such a policy
// keeps the dispatch, where kernel::sse41 (CPUs with SSE4.1 and without
// AVX2) runs its SSE4.1 kernel when the caller's target has SSE4.1.

/// P's SSE4.1 kernel is the one its single calls inline at SSE4.1 targets
/// (see above); otherwise they keep the dispatch.
template <class P>
concept inlines_sse41_kernel = has_sse41_kernel<P> && requires { requires P::sse41_inlines; };

/// Single-key test under the active (run-time) kernel: one branch on a byte
/// in L1 and a direct call. The fallback of block_test.
template <class P>
inline bool block_test_dispatched(const typename P::block_type& b, std::uint64_t h, std::uint32_t k) noexcept {
  return with_active_kernel([&](auto tag) { return block_kernel<P, decltype(tag)::value>::test(b, h, k); });
}

/// Single-key set under the active (run-time) kernel. The fallback of block_set.
template <class P>
inline void block_set_dispatched(typename P::block_type& b, std::uint64_t h, std::uint32_t k) noexcept {
  with_active_kernel([&](auto tag) { block_kernel<P, decltype(tag)::value>::set(b, h, k); });
}

#if BLOOMKIT_X86_KERNELS && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__) && defined(__AVX2__) && defined(__BMI__) && defined(__BMI2__) && defined(__POPCNT__)
#define BLOOMKIT_TARGET_HAS_AVX512 1
#else
#define BLOOMKIT_TARGET_HAS_AVX512 0
#endif
#if BLOOMKIT_X86_KERNELS && defined(__AVX2__) && defined(__BMI__) && defined(__BMI2__) && defined(__POPCNT__)
#define BLOOMKIT_TARGET_HAS_AVX2 1
#else
#define BLOOMKIT_TARGET_HAS_AVX2 0
#endif
#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
#define BLOOMKIT_TARGET_HAS_SSE41 1
#else
#define BLOOMKIT_TARGET_HAS_SSE41 0
#endif

/// Which inlined kernel single calls of policy P run in this translation
/// unit; `dispatched` when they fall back to the run-time dispatch.
enum class single_kernel_kind { dispatched, sse41, avx2, avx512 };

template <class P>
constexpr single_kernel_kind single_kernel_of() noexcept {
#if BLOOMKIT_TARGET_HAS_AVX512
  if constexpr (has_avx512_kernel<P>) return single_kernel_kind::avx512;
#endif
#if BLOOMKIT_TARGET_HAS_AVX2
  if constexpr (has_avx2_kernel<P>) return single_kernel_kind::avx2;
#endif
#if BLOOMKIT_TARGET_HAS_SSE41
  if constexpr (inlines_sse41_kernel<P>) return single_kernel_kind::sse41;
#endif
  return single_kernel_kind::dispatched;
}

/// Single-key test: the inlined kernel of single_kernel_of<P>(), or the
/// run-time dispatch. (Branches not taken are never instantiated, so a
/// kernel the target lacks is never named.)
template <class P>
inline bool block_test(const typename P::block_type& b, std::uint64_t h, std::uint32_t k) noexcept {
  constexpr single_kernel_kind which = single_kernel_of<P>();
  if constexpr (which == single_kernel_kind::avx512) {
    return P::test_avx512(b, h, k);
  } else if constexpr (which == single_kernel_kind::avx2) {
    return P::test_avx2(b, h, k);
  } else if constexpr (which == single_kernel_kind::sse41) {
    return P::test_sse41(b, h, k);
  } else {
    return block_test_dispatched<P>(b, h, k);
  }
}

/// Single-key set, chosen as block_test.
template <class P>
inline void block_set(typename P::block_type& b, std::uint64_t h, std::uint32_t k) noexcept {
  constexpr single_kernel_kind which = single_kernel_of<P>();
  if constexpr (which == single_kernel_kind::avx512) {
    P::set_avx512(b, h, k);
  } else if constexpr (which == single_kernel_kind::avx2) {
    P::set_avx2(b, h, k);
  } else if constexpr (which == single_kernel_kind::sse41) {
    P::set_sse41(b, h, k);
  } else {
    block_set_dispatched<P>(b, h, k);
  }
}

/// The batch walk of every block layout, whole filter or shard:
/// prefetch_pipeline with each key located by `locate` (whole_blocks or
/// shard_blocks), its block prefetched a window ahead (for writing when the
/// block is mutable) and visit(i, block, h) run on it in order. The block is
/// located again for the visit: one multiply costs less than carrying its
/// address through the pipeline's ring.
template <class Locate, class HashAt, class Visit>
inline void block_pipeline(Locate locate, std::size_t n, HashAt& hash_at, Visit&& visit) {
  prefetch_pipeline<batch_window>(
      n, hash_at,
      [&](std::uint64_t h) {
        if constexpr (std::is_const_v<std::remove_reference_t<decltype(locate(h))>>) {
          prefetch(&locate(h));
        } else {
          prefetch_for_write(&locate(h));
        }
      },
      [&](std::size_t i, std::uint64_t h) { visit(i, locate(h), h); });
}

/// The batched test loop of kernel K: out[i] = test(hash_at(i)), pipelined.
template <class P, kernel K, class Locate, class HashAt>
inline void block_test_loop(Locate locate, std::uint32_t k, std::size_t n, HashAt& hash_at, bool* out) {
  block_pipeline(locate, n, hash_at, [&](std::size_t i, const typename P::block_type& block, std::uint64_t h) {
    out[i] = block_kernel<P, K>::test(block, h, k);
  });
}

/// A policy whose SIMD set kernels build the mask with steps unrolled for
/// each k, behind a switch on k (blocked_bloom: P::set_unrolled_by_k).
template <class P>
concept unrolls_set_by_k = requires { requires P::set_unrolled_by_k; };

/// f(std::integral_constant<std::uint32_t, k>{}) for k in [Lo, Hi]; a k
/// outside the range (validate_params rejects it) takes Hi, as the kernels'
/// own switches do.
template <std::uint32_t Lo, std::uint32_t Hi, class F>
inline void with_constant_k(std::uint32_t k, F&& f) {
  if constexpr (Lo == Hi) {
    f(std::integral_constant<std::uint32_t, Lo>{});
  } else if (k == Lo) {
    f(std::integral_constant<std::uint32_t, Lo>{});
  } else {
    with_constant_k<Lo + 1, Hi>(k, std::forward<F>(f));
  }
}

/// The batched insert loop of kernel K, pipelined.
///
/// For a policy that unrolls its SIMD set per k, the loop is instantiated
/// once per k and k is a constant inside it, so the kernel's own switch on k
/// folds away. Why: that switch is an indirect jump per key, which costs a
/// batch in cache about a third more time per insert. Single inserts keep
/// the switch: it is one branch per call there, and a loop per k only pays
/// off per batch.
template <class P, kernel K, class Locate, class HashAt>
inline void block_set_loop(Locate locate, std::uint32_t k, std::size_t n, HashAt& hash_at) {
  const auto run = [&](auto fixed_k) {
    block_pipeline(locate, n, hash_at, [&](std::size_t, typename P::block_type& block, std::uint64_t h) {
      block_kernel<P, K>::set(block, h, static_cast<std::uint32_t>(fixed_k));
    });
  };
  if constexpr ((K == kernel::avx2 || K == kernel::avx512) && unrolls_set_by_k<P>) {
    with_constant_k<P::min_k, P::max_k>(k, run);
  } else {
    run(k);
  }
}

// One instance of each loop per target. `flatten` pulls the kernels (which
// cannot be always_inline into generic code) and hash_at into the loop,
// compiled for the loop's target. The portable and SSE4.1 loops are compiled
// for the including code's own target (SSE4.1 kernels exist only where it
// guarantees SSE4.1).
template <class P, kernel K, class Locate, class HashAt>
BLOOMKIT_FLATTEN void block_test_generic(Locate locate, std::uint32_t k, std::size_t n, HashAt& hash_at,
                                         bool* out) {
  block_test_loop<P, K>(locate, k, n, hash_at, out);
}
template <class P, kernel K, class Locate, class HashAt>
BLOOMKIT_FLATTEN void block_set_generic(Locate locate, std::uint32_t k, std::size_t n, HashAt& hash_at) {
  block_set_loop<P, K>(locate, k, n, hash_at);
}
#if BLOOMKIT_X86_KERNELS
template <class P, class Locate, class HashAt>
BLOOMKIT_TARGET_AVX2 BLOOMKIT_FLATTEN void block_test_avx2(Locate locate, std::uint32_t k, std::size_t n,
                                                           HashAt& hash_at, bool* out) {
  block_test_loop<P, kernel::avx2>(locate, k, n, hash_at, out);
}
template <class P, class Locate, class HashAt>
BLOOMKIT_TARGET_AVX2 BLOOMKIT_FLATTEN void block_set_avx2(Locate locate, std::uint32_t k, std::size_t n,
                                                          HashAt& hash_at) {
  block_set_loop<P, kernel::avx2>(locate, k, n, hash_at);
}
template <class P, class Locate, class HashAt>
BLOOMKIT_TARGET_AVX512 BLOOMKIT_FLATTEN void block_test_avx512(Locate locate, std::uint32_t k, std::size_t n,
                                                               HashAt& hash_at, bool* out) {
  block_test_loop<P, kernel::avx512>(locate, k, n, hash_at, out);
}
template <class P, class Locate, class HashAt>
BLOOMKIT_TARGET_AVX512 BLOOMKIT_FLATTEN void block_set_avx512(Locate locate, std::uint32_t k, std::size_t n,
                                                              HashAt& hash_at) {
  block_set_loop<P, kernel::avx512>(locate, k, n, hash_at);
}
#endif

/// The widest kernel at most K for which policy P has code of its own (the
/// loop that runs for K): avx512 -> avx2 -> sse41 -> scalar. Kernels that
/// would run the same code share one loop instance.
template <class P, kernel K>
constexpr kernel block_loop_kernel() noexcept {
#if BLOOMKIT_X86_KERNELS
  if constexpr (K == kernel::avx512 && has_avx512_kernel<P>) return kernel::avx512;
  if constexpr ((K == kernel::avx512 || K == kernel::avx2) && has_avx2_kernel<P>) return kernel::avx2;
#endif
#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
  if constexpr (K != kernel::scalar && has_sse41_kernel<P>) return kernel::sse41;
#endif
  return kernel::scalar;
}

/// Batched test under the active kernel, one branch per call: out[i] =
/// test(hash_at(i)) on the block locate(hash_at(i)) (whole_blocks or
/// shard_blocks).
template <class P, class Locate, class HashAt>
void block_test_many(Locate locate, std::uint32_t k, std::size_t n, HashAt hash_at, bool* out) {
  with_active_kernel([&](auto tag) {
    constexpr kernel run = block_loop_kernel<P, decltype(tag)::value>();
#if BLOOMKIT_X86_KERNELS
    if constexpr (run == kernel::avx512) {
      block_test_avx512<P>(locate, k, n, hash_at, out);
      return;
    } else if constexpr (run == kernel::avx2) {
      block_test_avx2<P>(locate, k, n, hash_at, out);
      return;
    }
#endif
    block_test_generic<P, run>(locate, k, n, hash_at, out);
  });
}

/// Batched insert under the active kernel, one branch per call: each
/// hash_at(i) set in the block locate(hash_at(i)), in order.
template <class P, class Locate, class HashAt>
void block_set_many(Locate locate, std::uint32_t k, std::size_t n, HashAt hash_at) {
  with_active_kernel([&](auto tag) {
    constexpr kernel run = block_loop_kernel<P, decltype(tag)::value>();
#if BLOOMKIT_X86_KERNELS
    if constexpr (run == kernel::avx512) {
      block_set_avx512<P>(locate, k, n, hash_at);
      return;
    } else if constexpr (run == kernel::avx2) {
      block_set_avx2<P>(locate, k, n, hash_at);
      return;
    }
#endif
    block_set_generic<P, run>(locate, k, n, hash_at);
  });
}

/// The one domain check of block_filter_params under policy P
/// (constructors, views and the codecs; see param_check).
template <block_policy P>
void validate_params(const block_filter_params& p, const param_check& check = {P::name}) {
  check(p.blocks >= 1 && p.blocks <= P::max_blocks, "blocks",
        "= " + std::to_string(p.blocks) + " is not in [1, " + std::to_string(P::max_blocks) + "]");
  check(p.k >= P::min_k && p.k <= P::max_k, "k",
        "= " + std::to_string(p.k) + " is not in [" + std::to_string(P::min_k) + ", " + std::to_string(P::max_k) + "]");
  check(p.capacity >= 1, "capacity", "is 0; a filter's design capacity is at least 1");
  check(p.target_fpr > 0.0 && p.target_fpr < 1.0, "target_fpr", "= " + detail::format_number(p.target_fpr) + " is not in (0, 1)");
  check(is_known(p.hash.algorithm), "hash_algorithm", "is not a known hash algorithm");
  check(is_known(p.hash.keys), "key_type", "is not a known key type");
}

/// Throws errc::mismatch naming the first field where two filters differ.
template <block_policy P>
void require_same_shape(const block_filter_params& a, const block_filter_params& b, std::string_view operation) {
  const std::string prefix = std::string(P::name) + " " + std::string(operation) + ": ";
  require(a.blocks == b.blocks, errc::mismatch,
          prefix + "block counts differ (" + std::to_string(a.blocks) + " vs " + std::to_string(b.blocks) + ")");
  require(a.k == b.k, errc::mismatch, prefix + "k differs (" + std::to_string(a.k) + " vs " + std::to_string(b.k) + ")");
  require_same_hash(a.hash, b.hash, prefix);
}

}  // namespace detail

namespace detail {

/// x^k by binary exponentiation: for k = 8, ((x^2)^2)^2, the same three
/// roundings as arrow-rs's f64::powi(8), so mean_fill folds at the same
/// boundary to the last bit (std::pow rounds once, differently).
inline double power_by_squaring(double x, std::uint32_t k) noexcept {
  double result = 1.0;
  while (k > 0) {
    if (k & 1U) result *= x;
    x *= x;
    k >>= 1;
  }
  return result;
}

/// Throws errc::invalid_argument unless a filter of `blocks` blocks can be
/// folded to blocks / 2. The block index is ((h >> 32) * n) >> 32
/// (block_index). For even n = 2m, floor(x * 2m / 2^32) >> 1 equals
/// floor(x * m / 2^32) for every x, so a key in block i of the n-block filter
/// is in block i >> 1 of the m-block one, and the in-block bits come from the
/// hash's low half alone: OR-ing block 2i with 2i+1 gives exactly the m-block
/// filter of the same keys. For odd n no such pairing exists (n = 3: x just
/// above 2^32 / 2 is in block 1 of 3 but block 1 of 2, not 1 >> 1 = 0), so
/// folding would lose keys; it is refused.
inline void require_foldable(std::string_view name, std::uint64_t blocks) {
  require(blocks >= 2 && blocks % 2 == 0, errc::invalid_argument,
          std::string(name) + ": cannot fold " + std::to_string(blocks) + " block" + (blocks == 1 ? "" : "s") +
              " to half: folding needs an even block count (the block index ((h >> 32) * n) >> 32 halves "
              "exactly only for even n)");
}

/// Throws `code` unless `blocks` holds exactly params.blocks blocks (views,
/// loading constructors and codecs all call it).
template <block_policy P>
void require_block_payload(const block_filter_params& params, std::size_t blocks, errc code) {
  require(blocks == params.blocks, code,
          std::string(P::name) + ": expected " + std::to_string(params.blocks) + " blocks, got " +
              std::to_string(blocks));
}

/// The query and statistics code of a block filter, shared by block_filter
/// and block_filter_view (detail/facade.hpp). D provides params(), blocks()
/// and inserted().
template <class D, block_policy P>
class block_filter_reader : public query_facade<D> {
 public:
  static constexpr std::string_view kind_name = P::name;
  /// Keyed batches hash a tile of keys together, then run the prehashed
  /// batch core over it (detail/facade.hpp, hashes_keys_in_tiles).
  static constexpr bool keyed_batches_in_tiles = true;

  /// True if the key with hash `h` may be in the set; false means certainly not.
  /// Runs the active kernel (detail/simd.hpp); every kernel answers alike.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    return block_test<P>(locate_block(self().blocks().data(), self().params().blocks, h), h, self().params().k);
  }

  /// may_contain_hash for use while other threads may be inserting with the
  /// *_concurrent calls: reads the block with relaxed atomic loads
  /// (detail/concurrent.hpp), so it is data-race free. Same answer as
  /// may_contain_hash on the same bits; a key whose concurrent insert has not
  /// finished (happened-before this call) may be missed. Use plain
  /// may_contain_hash when no writer runs: it takes the SIMD kernel. Reads
  /// only the blocks (never inserted(), which concurrent inserts write).
  [[nodiscard]] bool may_contain_hash_concurrent(std::uint64_t h) const noexcept {
    return block_test_atomic<P>(locate_block(self().blocks().data(), self().params().blocks, h), h,
                                self().params().k);
  }

  /// The batch core: the blocks of the next batch_window hashes are
  /// prefetched while the current one is tested, so their misses overlap.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    block_test_many<P>(whole_blocks<const typename P::block_type>{self().blocks().data(), self().params().blocks},
                       self().params().k, n, hash_at, out);
  }

  /// Appends the bit positions (in [0, bit_count()), block-major) that the
  /// key with hash `h` sets and tests, in increasing order: the policy sets
  /// the key's bits in an empty block and they are read off.
  void probe_positions(std::uint64_t h, std::vector<std::uint64_t>& out) const {
    const std::uint64_t block = block_index(h, self().params().blocks);
    typename P::block_type scratch{};
    P::set(scratch, h, self().params().k);
    constexpr std::size_t word_bits = sizeof(scratch.words[0]) * 8;
    constexpr std::size_t words = sizeof(scratch.words) / sizeof(scratch.words[0]);
    for (std::size_t w = 0; w < words; ++w) {
      for (std::size_t b = 0; b < word_bits; ++b) {
        if ((scratch.words[w] >> b) & 1U) out.push_back(block * P::block_bits + w * word_bits + b);
      }
    }
  }

  [[nodiscard]] std::uint64_t num_blocks() const noexcept { return self().params().blocks; }
  [[nodiscard]] std::uint64_t bit_count() const noexcept { return self().params().blocks * P::block_bits; }
  [[nodiscard]] std::uint32_t num_hashes() const noexcept { return self().params().k; }
  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return self().params().capacity; }
  [[nodiscard]] double target_fpr() const noexcept { return self().params().target_fpr; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept {
    return self().params().blocks * sizeof(typename P::block_type);
  }

  /// Number of bits set. O(size).
  [[nodiscard]] std::uint64_t set_bit_count() const noexcept {
    std::uint64_t total = 0;
    for (const auto& block : self().blocks()) total += P::popcount(block);
    return total;
  }

  /// Fraction of bits set, in [0, 1]. O(size).
  [[nodiscard]] double fill_ratio() const noexcept {
    return static_cast<double>(set_bit_count()) / static_cast<double>(bit_count());
  }

  /// Distinct keys estimated from the bits of each block (the per-block
  /// Swamidass-Baldi estimate, summed). +infinity when any block has every
  /// bit set: such a block may hold any number of keys (a full filter
  /// reports no finite estimate, as standard_bloom's does). O(size).
  [[nodiscard]] double estimated_cardinality() const noexcept {
    double total = 0.0;
    for (const auto& block : self().blocks()) total += P::block_cardinality(block, self().params().k);
    return total;
  }

  /// The false-positive rate for the bits set now: the mean over blocks of the
  /// probability that a random key passes that block's test. Exact for these
  /// bits under a uniform hash; follows the fill past capacity. O(size).
  [[nodiscard]] double estimated_fpr() const noexcept {
    double total = 0.0;
    for (const auto& block : self().blocks()) total += P::block_fpr(block, self().params().k);
    return total / static_cast<double>(self().params().blocks);
  }

  /// estimated_fpr() of the filter fold() would make (pairs of blocks ORed),
  /// computed without building it. errc::invalid_argument unless the block
  /// count is even (see block_filter::fold). O(size).
  [[nodiscard]] double folded_fpr() const {
    const std::uint64_t blocks = self().params().blocks;
    detail::require_foldable(P::name, blocks);
    const auto all = self().blocks();
    double total = 0.0;
    for (std::uint64_t i = 0; i < blocks; i += 2) {
      typename P::block_type pair = all[i];
      P::merge(pair, all[i + 1]);
      total += P::block_fpr(pair, self().params().k);
    }
    return total / static_cast<double>(blocks / 2);
  }

  /// The model FPR for the design point (capacity keys), from sizing.
  [[nodiscard]] double design_fpr() const {
    return P::model_fpr(self().params().blocks, static_cast<double>(self().params().capacity), self().params().k);
  }

  /// True once the filter is past its design capacity: more insert calls than
  /// capacity, and the bits confirm more distinct keys than capacity beyond
  /// the estimate's noise (sizing::past_capacity), so re-inserting the same
  /// keys does not count.
  [[nodiscard]] bool saturated() const noexcept {
    return self().inserted() > self().params().capacity &&
           sizing::past_capacity(estimated_cardinality(), self().params().capacity);
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

}  // namespace detail

/// A read-only block filter over borrowed blocks (for example a memory-mapped
/// file). It owns nothing: the blocks must outlive it. Queries and
/// statistics are detail::block_filter_reader's, shared with block_filter.
template <detail::block_policy P>
class block_filter_view
    : public detail::block_filter_reader<block_filter_view<P>, P>,
      public detail::view_state<block_filter_params, typename P::block_type, count_accuracy> {
  using state = detail::view_state<block_filter_params, typename P::block_type, count_accuracy>;

 public:
  using policy = P;
  using block_type = typename P::block_type;

  /// Views `blocks` as a filter with `params`. Validates the parameters and
  /// that blocks.size() == params.blocks; throws bloomkit::error otherwise.
  block_filter_view(const block_filter_params& params, std::span<const block_type> blocks, std::uint64_t inserted,
                    count_accuracy accuracy = count_accuracy::exact)
      : state(detail::trusted, params, blocks, inserted, accuracy) {
    detail::validate_params<P>(params);
    detail::require_block_payload<P>(params, blocks.size(), errc::corrupt);
  }
  using state::state;  // (trusted_t, params, blocks, inserted, accuracy): no validation

  using state::params;
  [[nodiscard]] std::span<const block_type> blocks() const noexcept { return this->elements(); }
};

/// An owning block filter. Construct from (capacity, target FPR), which sizes
/// it with the policy's own formula, or from exact parameters. Queries and
/// statistics come from detail::block_filter_reader, the key and batch
/// overloads from the facade; this class adds inserts, set algebra, clear.
template <detail::block_policy P>
class block_filter
    : public detail::block_filter_reader<block_filter<P>, P>,
      public detail::insert_facade<block_filter<P>>,
      public detail::owner_state<block_filter_view<P>, block_filter_params, typename P::block_type, count_accuracy> {
  using state = detail::owner_state<block_filter_view<P>, block_filter_params, typename P::block_type, count_accuracy>;
  using state::params_;
  using state::elements_;
  using state::count_;

 public:
  using policy = P;
  using block_type = typename P::block_type;
  using view_type = block_filter_view<P>;

  /// A filter for `capacity` keys at false-positive rate `target_fpr`, sized
  /// with the layout's true FPR formula (not the classic one). Throws
  /// errc::invalid_argument for capacity 0 or target_fpr outside (0, 1).
  block_filter(std::uint64_t capacity, double target_fpr, hash_spec hash = P::default_hash)
      : block_filter(plan_params(capacity, target_fpr, hash)) {}

  /// A zeroed filter with exactly these parameters (validated).
  explicit block_filter(const block_filter_params& params) : state(params) {
    detail::validate_params<P>(params_);
    detail::assign_or_fail(elements_, params_.blocks, block_type{},
                           "a " + std::string(P::name) + " of " + std::to_string(params_.blocks) + " blocks");
  }

  /// A filter from existing blocks (loading). Validates parameters and that
  /// blocks.size() == params.blocks.
  /// `accuracy` says what `inserted` is (a count unless told otherwise).
  block_filter(const block_filter_params& params, std::vector<block_type> blocks, std::uint64_t inserted,
               count_accuracy accuracy = count_accuracy::exact)
      : state(params, std::move(blocks), inserted, accuracy) {
    detail::validate_params<P>(params_);
    detail::require_block_payload<P>(params_, elements_.size(), errc::corrupt);
  }

  /// The parameters a (capacity, target_fpr) construction would choose.
  static block_filter_params plan_params(std::uint64_t capacity, double target_fpr, hash_spec hash = P::default_hash) {
    const sizing::blocked_plan plan = P::plan(capacity, target_fpr);
    return block_filter_params{plan.blocks, plan.k, capacity, target_fpr, hash};
  }

  /// Adds the key with hash `h` (active kernel; every kernel sets the same bits).
  void insert_hash(std::uint64_t h) noexcept {
    detail::block_set<P>(locate(h), h, params_.k);
    ++count_.value;
  }

  /// Test-and-add: ORs the key's bits into its block in one pass over the
  /// block's words and returns true iff some bit was missing (the key was
  /// certainly absent and is now inserted; inserted() grows by one). False:
  /// every bit was already set (the key may have been present, a false
  /// positive at the filter's FPR); nothing changed.
  bool insert_if_absent_hash(std::uint64_t h) noexcept {
    const bool present = detail::block_test_and_set<P>(locate(h), h, params_.k);
    count_.value += present ? 0 : 1;
    return !present;
  }

  /// insert_if_absent_hash that may run beside other *_concurrent calls,
  /// with the contract of insert_hash_concurrent. Each word of the key's
  /// mask gets an atomic test-and-set (relaxed fetch_or, skipped when a load
  /// already sees the bits). Exact semantics: it returns false only if every
  /// bit of the key was set before its own ORs, by inserts that finished or
  /// ran at the same time; so when threads add the same new key at once, at
  /// least one of them returns true (the first OR on a missing bit sees it
  /// missing), and several may (each saw a different bit missing). The bits
  /// afterwards are those of a sequential run in any order.
  bool insert_if_absent_hash_concurrent(std::uint64_t h) noexcept {
    const bool present =
        detail::block_test_and_set_atomic<P>(locate(h), h, params_.k);
    if (!present) detail::atomic_add_relaxed(count_.value, 1);
    return !present;
  }

  /// insert_hash that may run in many threads at once on the same filter,
  /// and beside *_concurrent queries: each touched word gets an atomic
  /// relaxed OR (detail/concurrent.hpp explains why relaxed suffices) and
  /// inserted() an atomic add. The bits end up identical to insert_hash's.
  /// Contract: while any concurrent insert runs, the only other calls on this
  /// filter are *_concurrent ones; plain queries, inserted() and the
  /// statistics are for after the writers are joined (or otherwise ordered
  /// before). Plain insert_hash stays free of atomics.
  void insert_hash_concurrent(std::uint64_t h) noexcept {
    detail::block_set_atomic<P>(locate(h), h, params_.k);
    detail::atomic_add_relaxed(count_.value, 1);
  }

  /// The batch insert core: blocks prefetched for writing a window ahead;
  /// identical to insert_hash on each, in order.
  template <class HashAt>
  void insert_pipelined(std::size_t n, HashAt hash_at) {
    detail::block_set_many<P>(detail::whole_blocks<block_type>{elements_.data(), params_.blocks}, params_.k, n, hash_at);
    count_.value += n;
  }

  /// insert_pipelined with insert_hash_concurrent's atomic OR; inserted()
  /// grows by one atomic add of n.
  template <class HashAt>
  void insert_pipelined_concurrent(std::size_t n, HashAt hash_at) noexcept {
    const std::uint32_t k = params_.k;
    detail::block_pipeline(detail::whole_blocks<block_type>{elements_.data(), params_.blocks}, n, hash_at,
                           [k](std::size_t, block_type& block, std::uint64_t h) {
                             detail::block_set_atomic<P>(block, h, k);
                           });
    detail::atomic_add_relaxed(count_.value, n);
  }

  /// Union: this |= other. Throws errc::mismatch (naming the field) unless
  /// blocks, k and hash_spec are equal. inserted() becomes the sum (exact
  /// when both were: combine_sum).
  block_filter& merge(const view_type& other) {
    detail::require_same_shape<P>(params_, other.params(), "merge");
    this->merge_elements(other, other.blocks(),
                         [](block_type& mine, const block_type& theirs) { P::merge(mine, theirs); });
    return *this;
  }
  block_filter& merge(const block_filter& other) { return merge(other.view()); }

  /// Intersection: this &= other (a key in both sets stays "maybe"). Same
  /// checks as merge. inserted() becomes the smaller of the two, which only
  /// bounds the keys both hold: inserted_accuracy() becomes at_most.
  block_filter& intersect(const view_type& other) {
    detail::require_same_shape<P>(params_, other.params(), "intersect");
    this->intersect_elements(other, other.blocks(),
                             [](block_type& mine, const block_type& theirs) { P::intersect(mine, theirs); });
    return *this;
  }
  block_filter& intersect(const block_filter& other) { return intersect(other.view()); }

  /// Removes every key: all bits zero, inserted() zero.
  void clear() noexcept { this->clear_elements(); }

  /// Halves the filter: block i becomes the OR of blocks 2i and 2i + 1. The
  /// result is bit for bit the filter of blocks() / 2 blocks built from the
  /// same keys (detail::require_foldable gives the proof), so no key is lost
  /// and every reader of the layout reads it as an ordinary filter.
  /// capacity, target_fpr and inserted() are kept. errc::invalid_argument
  /// (and nothing changes) unless the block count is even.
  block_filter& fold() {
    detail::require_foldable(P::name, params_.blocks);
    fold_levels(1);
    return *this;
  }

  /// Folds as often as the estimated FPR of the result stays at or below
  /// `target_fpr` (the smallest filter reached by repeated halving that
  /// meets it) and returns the number of folds made. Stops at an odd block
  /// count (one block for a power of two). `estimate` picks the rule:
  /// fold_estimate::per_block (the folded bits' own FPR, docs/MATH.md) or
  /// fold_estimate::mean_fill (arrow-rs's, for byte-identity with it). After
  /// at least one fold, target_fpr() becomes `target_fpr`. Throws
  /// errc::invalid_argument (nothing changes) unless target_fpr is in (0, 1).
  std::uint32_t fold_to(double target_fpr, fold_estimate estimate = fold_estimate::per_block) {
    detail::require(target_fpr > 0.0 && target_fpr < 1.0, errc::invalid_argument,
                    std::string(P::name) + ": fold target FPR " + bloomkit::detail::format_number(target_fpr) + " is not in (0, 1)");
    std::uint32_t levels = 0;
    if (estimate == fold_estimate::mean_fill) {
      const double fill = this->fill_ratio();
      double clear_fraction = 1.0 - fill;  // (1 - f)^(2^levels)
      for (std::uint64_t blocks = params_.blocks; blocks >= 2 && blocks % 2 == 0; blocks /= 2) {
        clear_fraction *= clear_fraction;
        if (detail::power_by_squaring(1.0 - clear_fraction, params_.k) > target_fpr) break;
        ++levels;
      }
      if (levels > 0) fold_levels(levels);
    } else {
      // One level at a time in place: each step's estimate needs the bits of
      // the previous fold. The storage shrinks once, at the end.
      std::uint64_t blocks = params_.blocks;
      while (blocks >= 2 && blocks % 2 == 0) {
        double total = 0.0;
        for (std::uint64_t i = 0; i < blocks; i += 2) {
          block_type pair = elements_[i];
          P::merge(pair, elements_[i + 1]);
          total += P::block_fpr(pair, params_.k);
        }
        if (total / static_cast<double>(blocks / 2) > target_fpr) break;
        for (std::uint64_t i = 0; i < blocks / 2; ++i) {  // writes i only after reading 2i, 2i + 1 >= i
          block_type pair = elements_[2 * i];
          P::merge(pair, elements_[2 * i + 1]);
          elements_[i] = pair;
        }
        blocks /= 2;
        ++levels;
      }
      if (levels > 0) shrink_to(blocks);
    }
    if (levels > 0) params_.target_fpr = target_fpr;
    return levels;
  }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, P::name);
  }
  using state::params;
  [[nodiscard]] std::span<const block_type> blocks() const noexcept { return elements_; }
  using state::inserted;
  using state::inserted_accuracy;

 private:
  // build_parallel (parallel_build.hpp) writes the blocks directly, each
  // thread its own block range, and adds to the count after joining them.
  friend struct detail::parallel_build_access;

  block_type& locate(std::uint64_t h) noexcept { return detail::locate_block(elements_.data(), params_.blocks, h); }

  // Folds `levels` times in one pass (groups of 2^levels adjacent blocks
  // ORed; the caller checked every level's block count is even).
  void fold_levels(std::uint32_t levels) {
    const std::uint64_t group = std::uint64_t{1} << levels;
    const std::uint64_t target = params_.blocks / group;
    for (std::uint64_t i = 0; i < target; ++i) {
      block_type merged = elements_[i * group];
      for (std::uint64_t j = 1; j < group; ++j) P::merge(merged, elements_[i * group + j]);
      elements_[i] = merged;  // i <= i * group: the group was read before
    }
    shrink_to(target);
  }
  // Keeps the first `blocks` blocks in storage of that size (allocated as a
  // new filter's is) and records the count.
  void shrink_to(std::uint64_t blocks) {
    std::vector<block_type> smaller;
    detail::assign_or_fail(smaller, blocks, block_type{}, "a folded " + std::string(P::name));
    std::copy(elements_.begin(), elements_.begin() + static_cast<std::ptrdiff_t>(blocks), smaller.begin());
    elements_ = std::move(smaller);
    params_.blocks = blocks;
  }

};

}  // namespace bloomkit
