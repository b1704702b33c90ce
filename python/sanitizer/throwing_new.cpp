// python/sanitizer/throwing_new.cpp - a standard throwing operator new for the
// ASan build of the extension only (python/venv.sh asan,
// -DBLOOMKIT_PYTHON_THROWING_NEW=ON); never in a wheel.
//
// Why: ASan's own throwing operator new does not throw std::bad_alloc when an
// allocation fails. Even with allocator_may_return_null=1 it reports "out of
// memory" and aborts (the sanitizer runtime cannot throw; google/sanitizers
// issue 295, still so in GCC 12's libasan). The library turns bad_alloc into
// errc::out_of_memory (detail/memory.hpp) and the extension into MemoryError,
// so under plain ASan that path could only be tested by crashing. ASan's
// nothrow operator new does follow allocator_may_return_null=1 and returns
// null; these replacements call it and throw on null, as [new.delete.single]
// requires. The memory is still ASan's (allocated as `new`, freed by ASan's
// operator delete, which is not replaced), so every ASan check on it stays.
//
// The extension is linked with -Bsymbolic-functions in that build, so its own
// calls bind to these definitions and not to the preloaded libasan's (which
// comes first in the global lookup). The C++ debug suite does the same kind of
// thing for the same reason: tests/faults_library_test.cpp replaces operator
// new with a malloc-backed one under allocator_may_return_null=1.
#include <cstddef>
#include <new>

namespace {

/// The nothrow form's result, or the new-handler loop and then std::bad_alloc.
template <class Alloc>
void* or_throw(Alloc alloc) {
  for (;;) {
    if (void* p = alloc()) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(std::size_t n) {
  return or_throw([n] { return ::operator new(n, std::nothrow); });
}
void* operator new[](std::size_t n) {
  return or_throw([n] { return ::operator new[](n, std::nothrow); });
}
void* operator new(std::size_t n, std::align_val_t a) {
  return or_throw([n, a] { return ::operator new(n, a, std::nothrow); });
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return or_throw([n, a] { return ::operator new[](n, a, std::nothrow); });
}
