// bloomkit/detail/memory.hpp - filter-sized allocations that fail with a
// message naming the bytes (docs/RELIABILITY.md, "Memory running out"), and
// that ask Linux for transparent huge pages when they are large.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace bloomkit::detail {

/// errc::out_of_memory: "<what> needs N bytes (X MiB)".
[[noreturn]] inline void fail_allocation(std::string_view what, std::uint64_t count, std::size_t element_bytes) {
  const long double bytes = static_cast<long double>(count) * static_cast<long double>(element_bytes);
  std::string text = "out of memory: ";
  text += what;
  text += " needs ";
  text += std::to_string(static_cast<unsigned long long>(bytes));
  text += " bytes (";
  text += std::to_string(static_cast<unsigned long long>((bytes + 1048575.0L) / 1048576.0L));
  text += " MiB)";
  throw error::from_library(errc::out_of_memory, text);
}

/// Allocations at least this large are advised for huge pages: past the
/// reach of a 4 KiB-page TLB (1536-2048 entries, 6-8 MiB on current x86
/// cores), where each random probe would also miss the TLB.
inline constexpr std::size_t huge_page_min_bytes = std::size_t{8} << 20;

/// Asks Linux to back the 2 MiB-aligned part of [p, p + bytes) with
/// transparent huge pages (madvise MADV_HUGEPAGE), and first drops whatever
/// pages that part already has (MADV_DONTNEED), so the bytes there are
/// discarded: call it only on memory that is allocated but not yet written.
/// Why huge pages: a filter probes random cache lines, and past the TLB's
/// reach every probe of a 4 KiB-page filter also pays a page walk; with 2 MiB
/// pages a 128 MiB filter needs 64 TLB entries, and batched lookups at 10^8
/// keys take about a quarter less time.
/// Why drop the pages: the advice only shapes pages faulted in after it.
/// glibc serves requests below its mmap threshold, which rises to the size
/// of the largest mapped block freed so far (up to 32 MiB), from its heap,
/// whose memory an earlier allocation may have faulted in with 4 KiB pages;
/// a second filter of 8-32 MiB made after the first was freed would get no
/// huge page at all. Dropped, the range reads as zeros and its first writes
/// fault in huge pages. Only a hint: it changes no byte the caller keeps, it is
/// ignored where THP is off ("never") or unavailable, and elsewhere (not
/// Linux) it does nothing.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_page_min_bytes) return;
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (at + bytes) & ~(huge - 1);
  if (end <= begin) return;
  void* const range = reinterpret_cast<void*>(begin);
  (void)::madvise(range, end - begin, MADV_DONTNEED);
  (void)::madvise(range, end - begin, MADV_HUGEPAGE);
#endif
}

/// vec.assign(count, value), or errc::out_of_memory naming the bytes `what`
/// needed (std::bad_alloc and a count past max_size() alike). On failure
/// `vec` is unchanged (assign into a fresh vector, then swap). A large
/// vector is advised for huge pages between its allocation and its first
/// write (advise_huge_pages).
template <class T>
void assign_or_fail(std::vector<T>& vec, std::uint64_t count, const T& value, std::string_view what) {
  try {
    if (count > std::vector<T>().max_size()) throw std::length_error("too many elements");
    std::vector<T> fresh;
    fresh.reserve(static_cast<std::size_t>(count));  // allocated, not yet touched
    advise_huge_pages(fresh.data(), static_cast<std::size_t>(count) * sizeof(T));
    fresh.assign(static_cast<std::size_t>(count), value);
    vec.swap(fresh);
  } catch (const std::bad_alloc&) {
    fail_allocation(what, count, sizeof(T));
  } catch (const std::length_error&) {
    fail_allocation(what, count, sizeof(T));
  }
}

/// A vector of `count` copies of `value`; see assign_or_fail.
template <class T>
std::vector<T> vector_or_fail(std::uint64_t count, const T& value, std::string_view what) {
  std::vector<T> out;
  assign_or_fail(out, count, value, what);
  return out;
}

/// A copy of `from`, allocated and advised as assign_or_fail does (a copy
/// through std::vector's own copy constructor gets neither huge pages nor the
/// typed out-of-memory error); errc::out_of_memory names `what`.
template <class T>
std::vector<T> copy_or_fail(const std::vector<T>& from, std::string_view what) {
  std::vector<T> out;
  try {
    out.reserve(from.size());
    advise_huge_pages(out.data(), from.size() * sizeof(T));
    out.assign(from.begin(), from.end());
  } catch (const std::bad_alloc&) {
    fail_allocation(what, from.size(), sizeof(T));
  }
  return out;
}

}  // namespace bloomkit::detail
