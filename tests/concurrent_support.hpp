// tests/concurrent_support.hpp - shared by the concurrent suites: one filter
// of each mutable Bloom kind, and its raw words for bit-for-bit comparison.
#pragma once

#include <cstdint>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace bloomkit::test {

/// A filter of kind F for `capacity` keys at 1 %.
template <class F>
F make_filter(std::uint64_t capacity) {
  return F(capacity, 0.01);
}

/// A copy of the filter's words (standard_bloom) or blocks (block filters).
template <class F>
auto words_of(const F& f) {
  if constexpr (requires { f.words(); }) {
    return std::vector<std::uint64_t>(f.words().begin(), f.words().end());
  } else {
    using block = typename F::block_type;
    return std::vector<block>(f.blocks().begin(), f.blocks().end());
  }
}

}  // namespace bloomkit::test
