// bloomkit/detail/concurrent.hpp - the atomic kernels behind concurrent
// inserts (insert_hash_concurrent, insert_many_concurrent, ...) and the
// queries that may run beside them (may_contain_hash_concurrent, ...).
//
// Why relaxed atomics are enough. A Bloom filter's words only ever gain bits
// while inserts run (clear, merge and intersect are not concurrent calls).
// Setting a bit is an atomic fetch_or on the word holding it, so no update is
// lost when two threads OR into the same word; the final value of every word
// is the OR of all the masks applied to it, which does not depend on the
// order of the ORs. So the filter after all inserts have finished is
// bit-identical to a sequential insert of the same keys, in any order, with
// no ordering constraints between words: memory_order_relaxed. Visibility to
// other threads is the caller's contract: a key is guaranteed found only by a
// query that happens-after the end of its insert (a join, a mutex, a release
// store / acquire load the caller makes). A query racing an insert reads each
// word atomically (relaxed loads, so it is data-race free under the C++
// memory model and TSan) and may see some of that key's bits but not all: it
// can only miss keys whose insert has not finished, never a finished one it
// is ordered after, and never report a bit that no insert set.
//
// Cost. On x86-64 a relaxed load is a plain mov, so concurrent queries cost
// what plain ones do (the words are copied to a local block first). A relaxed
// fetch_or whose result is unused compiles to one `lock or`, about 20 cycles
// when the line is already owned; bench/micro BM_concurrent_* measures the
// overhead against the plain kernels.
// Each word is first loaded, and the RMW is skipped when it already holds
// the key's bits ("test and test-and-set"): a filter near its design fill has
// about half its bits set, so many words need no write, and a word we do not
// write stays shared in the other cores' caches. Block filters go further
// where a 16-byte CAS exists (BLOOMKIT_HAS_CAS128): a split block's eight
// one-bit words are two 16-byte units, each ORed by one lock cmpxchg16b, so
// a key costs at most 2 locked RMWs instead of 8. The CAS is on the same
// memory that queries read as 32-bit atomics; on x86 every such access is
// single-copy atomic and coherent, and bits are still only ever added.
//
// Where std::atomic_ref is missing (libc++ 13, used by the wasm playground),
// the GCC/Clang __atomic builtins give the same operations on plain objects.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bloomkit/detail/simd_batch.hpp"

#if defined(__cpp_lib_atomic_ref) && __cpp_lib_atomic_ref >= 201806L
#define BLOOMKIT_HAS_ATOMIC_REF 1
#else
#define BLOOMKIT_HAS_ATOMIC_REF 0
#if !(defined(__GNUC__) || defined(__clang__))
#error "bloomkit: concurrent inserts need std::atomic_ref (C++20) or the GCC/Clang __atomic builtins"
#endif
#endif

namespace bloomkit::detail {

/// The raw word access of build_parallel (parallel_build.hpp), a friend of
/// the owning filters: it partitions the words between threads so that each
/// writes only its own range, then adds the insert count after the join.
struct parallel_build_access;

/// Word types the atomic kernels operate on: the filters' 32- and 64-bit
/// words. Each must be lock-free and naturally aligned enough for atomic_ref.
template <class T>
inline constexpr bool atomic_word = std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

#if BLOOMKIT_HAS_ATOMIC_REF
static_assert(alignof(std::uint64_t) >= std::atomic_ref<std::uint64_t>::required_alignment,
              "filter words must meet atomic_ref's alignment");
static_assert(alignof(std::uint32_t) >= std::atomic_ref<std::uint32_t>::required_alignment,
              "filter words must meet atomic_ref's alignment");
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free && std::atomic_ref<std::uint32_t>::is_always_lock_free,
              "concurrent inserts assume lock-free word atomics");
#endif

/// word |= mask, atomically, relaxed (see the header comment for why relaxed
/// suffices). `word` must be a live, naturally aligned filter word.
template <class T>
inline void atomic_or_relaxed(T& word, T mask) noexcept {
  static_assert(atomic_word<T>);
#if BLOOMKIT_HAS_ATOMIC_REF
  std::atomic_ref<T>(word).fetch_or(mask, std::memory_order_relaxed);
#else
  __atomic_fetch_or(&word, mask, __ATOMIC_RELAXED);
#endif
}

/// An atomic relaxed read of a word that concurrent writers may OR into.
/// The word is never written through this call (atomic_ref<const T> is not
/// in C++20, hence the const_cast; a lock-free load does not store).
template <class T>
inline T atomic_load_relaxed(const T& word) noexcept {
  static_assert(atomic_word<T>);
#if BLOOMKIT_HAS_ATOMIC_REF
  return std::atomic_ref<T>(const_cast<T&>(word)).load(std::memory_order_relaxed);
#else
  return __atomic_load_n(&word, __ATOMIC_RELAXED);
#endif
}

/// word |= mask, atomically, relaxed; returns the word's value before the
/// OR (the test-and-set of insert_if_absent_hash_concurrent).
template <class T>
inline T atomic_fetch_or_relaxed(T& word, T mask) noexcept {
  static_assert(atomic_word<T>);
#if BLOOMKIT_HAS_ATOMIC_REF
  return std::atomic_ref<T>(word).fetch_or(mask, std::memory_order_relaxed);
#else
  return __atomic_fetch_or(&word, mask, __ATOMIC_RELAXED);
#endif
}

/// Test-and-set of `mask` in `word`: true when every bit of it was already
/// set. Skips the locked RMW when a relaxed load already sees the bits
/// (bits are only ever set, so they stay), like atomic_or_if_missing.
template <class T>
inline bool atomic_test_and_or(T& word, T mask) noexcept {
  if ((atomic_load_relaxed(word) & mask) == mask) return true;
  return (atomic_fetch_or_relaxed(word, mask) & mask) == mask;
}

/// counter += n, atomically (the inserted() count of concurrent inserts).
inline void atomic_add_relaxed(std::uint64_t& counter, std::uint64_t n) noexcept {
#if BLOOMKIT_HAS_ATOMIC_REF
  std::atomic_ref<std::uint64_t>(counter).fetch_add(n, std::memory_order_relaxed);
#else
  __atomic_fetch_add(&counter, n, __ATOMIC_RELAXED);
#endif
}

/// ORs `mask` into `word` unless the word already holds every bit of it.
/// Equivalent to atomic_or_relaxed (bits are only ever set, so a word seen
/// holding the bits keeps them), and skips the locked RMW when it can.
template <class T>
inline void atomic_or_if_missing(T& word, T mask) noexcept {
  if ((atomic_load_relaxed(word) & mask) != mask) atomic_or_relaxed(word, mask);
}

/// A block policy whose mask(h, k) returns the key's bits as a block of
/// words (blocked_bloom, split_block_bloom).
template <class P>
concept has_block_mask = requires(std::uint64_t h, std::uint32_t k) {
  { P::mask(h, k) } -> std::same_as<typename P::block_type>;
};

#if defined(__x86_64__) && defined(__GCC_HAVE_SYNC_COMPARE_AND_SWAP_16) && (defined(__GNUC__) || defined(__clang__))
/// 1 where a 16-byte compare-and-swap is one instruction (x86-64 with
/// cmpxchg16b enabled, as -march=x86-64-v2 does): concurrent block inserts
/// then OR 128 bits per locked RMW instead of 32.
#define BLOOMKIT_HAS_CAS128 1
#else
#define BLOOMKIT_HAS_CAS128 0
#endif

#if BLOOMKIT_HAS_CAS128
/// Four 32-bit words seen as one 128-bit unit for cmpxchg16b. may_alias:
/// the words stay uint32_t objects; this type only carries the atomic RMW.
__extension__ typedef unsigned __int128 __attribute__((may_alias)) atomic_u128;

/// words[0..4) |= mask[0..4), as one atomic 16-byte RMW (lock cmpxchg16b;
/// retried only if another writer changed the unit between our read and
/// our swap). `words` must be 16-byte aligned. Skipped when the words
/// already hold the mask. Little-endian x86: word i is bits 32i..32i+31.
inline void atomic_or_words128(std::uint32_t* words, const std::uint32_t* mask) noexcept {
  const auto pack = [](std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return static_cast<atomic_u128>(a) | (static_cast<atomic_u128>(b) << 32) | (static_cast<atomic_u128>(c) << 64) |
           (static_cast<atomic_u128>(d) << 96);
  };
  const atomic_u128 m = pack(mask[0], mask[1], mask[2], mask[3]);
  // The current value, from relaxed 32-bit loads: a torn read only makes the
  // swap fail once and hand back the true value.
  atomic_u128 seen = pack(atomic_load_relaxed(words[0]), atomic_load_relaxed(words[1]),
                          atomic_load_relaxed(words[2]), atomic_load_relaxed(words[3]));
  auto* unit = reinterpret_cast<atomic_u128*>(words);
  while ((seen & m) != m) {
    const atomic_u128 before = __sync_val_compare_and_swap(unit, seen, seen | m);
    if (before == seen) return;
    seen = before;
  }
}
#endif

/// The concurrent set of block policy P: the key's mask (the policy's own
/// portable mask, so the bits are those of P::set by construction), ORed
/// into the block with atomic RMWs. Where 16-byte CAS exists and the block
/// is made of 32-bit words in 16-byte-aligned groups of four (split_block:
/// 2 groups, blocked: 4), one RMW per group the key touches: at most 2 per
/// key for split_block_bloom instead of 8 locked ORs. Otherwise one locked
/// OR per touched word. Either way words already holding the bits are
/// skipped, and the final bits equal P::set's.
template <class P>
  requires has_block_mask<P>
inline void block_set_atomic(typename P::block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
  const typename P::block_type m = P::mask(h, k);
  constexpr std::size_t words = sizeof(m.words) / sizeof(m.words[0]);
#if BLOOMKIT_HAS_CAS128
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(m.words[0])>, std::uint32_t> && words % 4 == 0 &&
                alignof(typename P::block_type) >= 16) {
    for (std::size_t g = 0; g < words; g += 4) {
      if ((m.words[g] | m.words[g + 1] | m.words[g + 2] | m.words[g + 3]) != 0)
        atomic_or_words128(block.words + g, m.words + g);
    }
    return;
  }
#endif
  for (std::size_t w = 0; w < words; ++w) {
    if (m.words[w] != 0) atomic_or_if_missing(block.words[w], m.words[w]);
  }
}

/// Test-and-set of block policy P's mask, plain: one pass over the block's
/// words ORs the key's bits in and tells whether all were already set.
template <class P>
  requires has_block_mask<P>
inline bool block_test_and_set(typename P::block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
  const typename P::block_type m = P::mask(h, k);
  constexpr std::size_t words = sizeof(m.words) / sizeof(m.words[0]);
  bool present = true;
  for (std::size_t w = 0; w < words; ++w) {
    present &= (block.words[w] & m.words[w]) == m.words[w];
    block.words[w] |= m.words[w];
  }
  return present;
}

/// The same, with atomic test-and-set per word (see
/// insert_if_absent_hash_concurrent for the semantics this gives).
template <class P>
  requires has_block_mask<P>
inline bool block_test_and_set_atomic(typename P::block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
  const typename P::block_type m = P::mask(h, k);
  constexpr std::size_t words = sizeof(m.words) / sizeof(m.words[0]);
  bool present = true;
  for (std::size_t w = 0; w < words; ++w) {
    if (m.words[w] != 0) present &= atomic_test_and_or(block.words[w], m.words[w]);
  }
  return present;
}

/// The concurrent test of block policy P: the block's words are read with
/// relaxed atomic loads into a local copy, which the portable kernel tests.
template <class P>
inline bool block_test_atomic(const typename P::block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
  typename P::block_type copy;
  constexpr std::size_t words = sizeof(copy.words) / sizeof(copy.words[0]);
  for (std::size_t w = 0; w < words; ++w) copy.words[w] = atomic_load_relaxed(block.words[w]);
  return P::test(copy, h, k);
}

}  // namespace bloomkit::detail
