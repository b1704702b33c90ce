// bloomkit/detail/unreachable.hpp - the end of a switch that names every
// value of its enum.
//
// A switch over one of bloomkit's enums names every enumerator and has no
// `default:`, so -Wswitch reports the switch a new enumerator forgot. What
// follows such a switch runs only for a value outside the enum (a corrupt
// cast); functions that validate their input earlier mark that point with
// detail::unreachable().
#pragma once

#include <cstdlib>

namespace bloomkit::detail {

/// Marks a point no valid input reaches (after a switch that returns for
/// every enumerator). Debug builds (NDEBUG undefined) abort there, so a
/// broken precondition shows in the sanitizer suites; release builds tell
/// the optimiser the point cannot be reached.
[[noreturn]] inline void unreachable() noexcept {
#if !defined(NDEBUG)
  std::abort();
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_unreachable();
#elif defined(_MSC_VER)
  __assume(false);
#else
  std::abort();
#endif
}

}  // namespace bloomkit::detail
