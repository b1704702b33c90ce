// tools/bloomkit/memory.cpp - the CLI's operator new: the global one, made
// to remember how many bytes the allocation that failed asked for, so
// main() can say "out of memory: N bytes" instead of "std::bad_alloc"
// (docs/RELIABILITY.md, "Memory running out"). Otherwise exactly the
// standard behaviour: malloc, the new-handler loop, std::bad_alloc.
#include <atomic>
#include <cstddef>
#include <cstdlib>
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
