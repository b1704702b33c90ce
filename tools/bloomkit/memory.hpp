// tools/bloomkit/memory.hpp - what the CLI knows about a failed allocation.
#pragma once

#include <cstddef>

namespace bloomkit::cli {

/// The size the most recent failed operator new asked for (0 if none
/// failed). Set just before std::bad_alloc is thrown (tools/bloomkit/memory.cpp).
std::size_t failed_allocation_bytes() noexcept;

}  // namespace bloomkit::cli
