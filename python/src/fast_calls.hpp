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

#include <type_traits>

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
  if constexpr (std::is_same_v<X, standard_bloom> || std::is_same_v<X, standard_bloom_view>) {
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
    const auto lock = w.write_lock();
    F& f = w.writable();
    insert_one(f, hash_object(nb::handle(key), f.hash()));
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
