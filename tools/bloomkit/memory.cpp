// tools/bloomkit/memory.cpp - the CLI's operator new: the global one, made
// to remember how many bytes the allocation that failed asked for, so
// main() can say "out of memory: N bytes" instead of "std::bad_alloc"
// (docs/RELIABILITY.md, "Memory running out"). Otherwise exactly the
// standard behaviour: malloc, the new-handler loop, std::bad_alloc.
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "memory.hpp"

namespace bloomkit::cli {

namespace {
std::atomic<std::size_t> last_failed_bytes{0};

void* allocate(std::size_t bytes, std::size_t alignment) {
  const std::size_t asked = bytes == 0 ? 1 : bytes;
  for (;;) {
    void* p = nullptr;
    if (alignment <= alignof(std::max_align_t)) {
      p = std::malloc(asked);
    } else if (asked <= SIZE_MAX - alignment) {
      // aligned_alloc wants a multiple of the alignment.
      p = std::aligned_alloc(alignment, (asked + alignment - 1) / alignment * alignment);
    }
    if (p != nullptr) return p;
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      last_failed_bytes.store(bytes, std::memory_order_relaxed);
      throw std::bad_alloc();
    }
    handler();
  }
}
}  // namespace

std::size_t failed_allocation_bytes() noexcept { return last_failed_bytes.load(std::memory_order_relaxed); }

namespace {

/// What std::terminate does in the CLI: one "bloomkit: ..." line and exit 2
/// instead of abort(). main() catches everything it runs; this is for what
/// it cannot: a std::bad_alloc thrown while CLI11's global validators are
/// built before main(), or an exception leaving a noexcept function.
[[noreturn]] void on_terminate() noexcept {
  char line[200];
  int n = 0;
  const std::exception_ptr current = std::current_exception();
  try {
    if (current) std::rethrow_exception(current);
    n = std::snprintf(line, sizeof line, "bloomkit: internal error: std::terminate without an exception\n");
  } catch (const std::bad_alloc&) {
    n = std::snprintf(line, sizeof line,
                      "bloomkit: out of memory: an allocation of %zu bytes failed before the command could start\n",
                      failed_allocation_bytes());
  } catch (const std::exception& e) {
    n = std::snprintf(line, sizeof line, "bloomkit: internal error: %s\n", e.what());
  } catch (...) {
    n = std::snprintf(line, sizeof line, "bloomkit: internal error: an unknown exception\n");
  }
  if (n > 0) (void)!::write(STDERR_FILENO, line, static_cast<std::size_t>(n) < sizeof line ? n : sizeof line - 1);
  ::_exit(2);
}

// Installed before every other static constructor of the program (101 is
// the first priority an application may use), so it covers theirs too.
struct terminate_installer {
  terminate_installer() noexcept { std::set_terminate(on_terminate); }
};
__attribute__((init_priority(101))) const terminate_installer install_terminate;

}  // namespace

}  // namespace bloomkit::cli

void* operator new(std::size_t bytes) { return bloomkit::cli::allocate(bytes, 0); }
void* operator new[](std::size_t bytes) { return bloomkit::cli::allocate(bytes, 0); }
void* operator new(std::size_t bytes, std::align_val_t a) {
  return bloomkit::cli::allocate(bytes, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t bytes, std::align_val_t a) {
  return bloomkit::cli::allocate(bytes, static_cast<std::size_t>(a));
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return bloomkit::cli::allocate(bytes, 0);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return bloomkit::cli::allocate(bytes, 0);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
