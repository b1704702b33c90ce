// bloomkit/detail/memory.hpp - filter-sized allocations that fail with a
// message naming the bytes (docs/RELIABILITY.md, "Memory running out").
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

/// errc::out_of_memory: "<what> needs N bytes (X MiB)".
[[noreturn]] inline void fail_allocation(std::string_view what, std::uint64_t count, std::size_t element_bytes) {
  const long double bytes = static_cast<long double>(count) * static_cast<long double>(element_bytes);
  std::string text = "bloomkit: out of memory: ";
  text += what;
  text += " needs ";
  text += std::to_string(static_cast<unsigned long long>(bytes));
  text += " bytes (";
  text += std::to_string(static_cast<unsigned long long>((bytes + 1048575.0L) / 1048576.0L));
  text += " MiB)";
  throw error(errc::out_of_memory, text);
}

/// vec.assign(count, value), or errc::out_of_memory naming the bytes `what`
/// needed (std::bad_alloc and a count past max_size() alike). On failure
/// `vec` is unchanged (assign into a fresh vector, then swap).
template <class T>
void assign_or_fail(std::vector<T>& vec, std::uint64_t count, const T& value, std::string_view what) {
  try {
    if (count > std::vector<T>().max_size()) throw std::length_error("too many elements");
    std::vector<T> fresh(static_cast<std::size_t>(count), value);
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

}  // namespace bloomkit::detail
