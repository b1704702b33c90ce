// python/src/fast_calls.hpp - the per-key calls as plain CPython entry
// points: `key in f` (the sq_contains slot), f.add(key) / f.insert(key) and
// f.may_contain(key) (METH_O method descriptors). Included by filter_class.hpp.
//
// Why: a per-key call is a hash and one or a few memory accesses (10-30
// ns); nanobind's generic dispatch (argument vector, overload loop, casts of
// self and key, the result cast) costs as much again. A METH_O method
// descriptor is what CPython's own methods (list.append) are: the
// interpreter's specialised CALL for it hands the one argument straight to
// the C function. The descriptor checks that self is an instance of the
// class (or a subclass) before the call; inst_ready() refuses an object
// whose __init__ never ran. Errors become the same Python exceptions as on
// nanobind's path (set_error_from_current_exception).
#pragma once

#include <nanobind/nanobind.h>

#include <array>
#include <cstdint>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit_internal/kernels.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "keys.hpp"

namespace bloomkit::python {

template <class F>
struct py_filter;  // filter_class.hpp
/// insert_hash, raising FullError where the kind can fill up (filter_class.hpp).
template <class F>
void insert_one(F& f, std::uint64_t h);

/// The C++ exception being handled, as the Python error nanobind would
/// raise for it (bloomkit.Error subclasses, MemoryError, TypeError, ...).
/// Call only inside a catch block.
void set_error_from_current_exception() noexcept;

// ---- deferred per-key adds -------------------------------------------------------
// From Python, the next key is a few hundred instructions away, so an add
// whose line is not in cache waits out the whole miss (L3 or DRAM) before the
// interpreter moves on (a SplitBlockBloom add out of cache costs about three
// times one in cache).
// So f.add(key) of the kinds below hashes the key, prefetches its line(s) for
// writing and parks the hash; the hash parked deferred_capacity adds earlier,
// whose line has had those adds' time to arrive, is written instead. The
// parked hashes are written (py_filter::settle) before anything else reads or
// changes the filter: read(), writable(), the start of every GIL-free section
// (released_section), the buffer export and copies. Adds are deferred only
// while the GIL alone guards the filter (no GIL-free section under way, so
// nobody else can look) and no buffer is exported (a memoryview must show each
// add at once); otherwise they are written at once, as before.
//
// Only kinds whose insert cannot fail and whose result does not depend on the
// order of inserts (an OR of bits and a count) defer: the bits after any
// sequence of calls are the ones the immediate adds would have given.

/// Kinds whose per-key add is deferred (see above): one fixed bit array
/// (has_bit_array, not a growing kind's stages), so an insert is an OR of
/// bits plus a count.
template <class F>
inline constexpr bool defers_adds = incremental_filter<F> && has_bit_array<F> && !kind_traits<F>::grows;

/// Hashes parked by deferred adds: enough adds of a Python loop (40-60 ns
/// each) to cover a DRAM miss.
inline constexpr std::uint32_t deferred_capacity = 8;

/// The parked hashes of one filter (none for kinds that do not defer): a
/// ring; add number i since the last settle parks in slot i % capacity.
template <class F>
struct deferred_adds {
  std::array<std::uint64_t, defers_adds<F> ? deferred_capacity : 0> hashes{};
  std::uint64_t adds = 0;  ///< adds parked since the last settle (the ring holds min(adds, capacity))
};

/// Prefetches, for writing, the line(s) that insert_hash(h) will change.
template <class F>
void prefetch_insert(const F& f, std::uint64_t h) noexcept {
  if constexpr (has_blocks<F>) {
    kernels::prefetch_for_write(f.blocks().data() + kernels::block_index(h, f.num_blocks()));
  } else {
    kernels::prefetch_standard_probes(f.words().data(), h, f.bit_count(), f.num_hashes(), true);
  }
}

/// The hash of `key` for a write into the owning filter `f` (`w` its
/// object; the GIL held): under f's spec, or, when f is untyped and empty
/// (no key inserted or parked), under the key type `key` gives (keys.hpp,
/// key_type_of), which f then takes (adopt_key_type): an untyped filter's
/// first typed insert decides its type. The type is taken only after the key
/// was hashed, so a key that fails changes nothing.
template <class F>
std::uint64_t hash_for_write(const py_filter<F>& w, F& f, nb::handle key) {
  hash_spec spec = f.hash();
  if (spec.keys != key_type::unspecified || w.deferred.adds != 0 || f.inserted() != 0) [[likely]] {
    return hash_object(key, spec);
  }
  spec.keys = key_type_of(key);
  const std::uint64_t h = hash_object(key, spec);
  if (spec.keys != key_type::unspecified) f.adopt_key_type(spec.keys);
  return h;
}

namespace fast_impl {

template <class F>
py_filter<F>* ready(PyObject* self) {
  if (!nb::inst_ready(self)) throw nb::type_error("the filter is not initialised (its __init__ did not run)");
  return nb::inst_ptr<py_filter<F>>(self);
}

/// may_contain_hash for a per-key call: StandardBloom's reads its k words
/// without a branch (the library's may_contain_hash_branch_free, the same
/// answer; python/tests/test_fast_paths.py checks it against the batch path).
template <class X>
bool query_one(const X& f, std::uint64_t h) {
  if constexpr (requires { f.may_contain_hash_branch_free(h); }) {
    return f.may_contain_hash_branch_free(h);
  } else {
    return f.may_contain_hash(h);
  }
}

template <class F>
bool contains(PyObject* self, PyObject* key) {
  const auto& w = *ready<F>(self);
  const auto lock = w.read_lock();
  return w.read([&](const auto& f) { return query_one(f, hash_object(nb::handle(key), f.hash())); });
}

}  // namespace fast_impl

/// `key in f`: the type's sq_contains slot (1, 0, or -1 with an exception set).
template <class F>
int contains_slot(PyObject* self, PyObject* key) noexcept {
  try {
    return fast_impl::contains<F>(self, key) ? 1 : 0;
  } catch (...) {
    set_error_from_current_exception();
    return -1;
  }
}

/// f.may_contain(key) as METH_O.
template <class F>
PyObject* may_contain_method(PyObject* self, PyObject* key) noexcept {
  try {
    return PyBool_FromLong(fast_impl::contains<F>(self, key) ? 1 : 0);
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

/// f.add(key) / f.insert(key) as METH_O (incremental kinds).
template <class F>
PyObject* add_method(PyObject* self, PyObject* key) noexcept {
  try {
    auto& w = *fast_impl::ready<F>(self);
    if constexpr (defers_adds<F>) {
      if (w.may_defer_add()) {
        F& f = *w.owned;
        const std::uint64_t h = hash_for_write(w, f, nb::handle(key));
        prefetch_insert(f, h);
        auto& parked = w.deferred;
        std::uint64_t& slot = parked.hashes[parked.adds % deferred_capacity];
        if (parked.adds++ >= deferred_capacity) f.insert_hash(slot);  // the add parked a ring ago
        slot = h;
        Py_RETURN_NONE;
      }
    }
    const auto lock = w.write_lock();
    F& f = w.writable();
    insert_one(f, hash_for_write(w, f, nb::handle(key)));
    Py_RETURN_NONE;
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

/// Defines method `name` of class `cls` as a METH_O descriptor calling `fn`.
/// `doc` starts with the text signature ("add($self, key, /)\n--\n\n..."),
/// so help() and inspect.signature show the parameter.
inline void def_meth_o(nb::handle cls, const char* name, PyCFunction fn, const char* doc) {
  // The type keeps a pointer to the definition for its lifetime (the process).
  auto* def = new PyMethodDef{name, fn, METH_O, doc};
  nb::object descr = nb::steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def));
  if (!descr.is_valid()) throw nb::python_error();
  if (PyObject_SetAttrString(cls.ptr(), name, descr.ptr()) != 0) throw nb::python_error();
}

}  // namespace bloomkit::python
