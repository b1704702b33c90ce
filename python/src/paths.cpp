// python/src/paths.cpp - Python paths and text as C++ strings (keys.hpp:
// fs_path, utf8_string, str_of), raising the Python error itself where
// nanobind's casters would turn it into a TypeError or terminate.
#include "keys.hpp"

#include <string>

namespace bloomkit::python {

std::string fs_path(nb::handle path) {
  nb::object text = nb::borrow(path);
  if (!PyUnicode_Check(path.ptr()) && !PyBytes_Check(path.ptr())) {
    // os.PathLike: __fspath__ called here, not by PyOS_FSPath, which turns
    // any failure of the lookup (MemoryError included) into a TypeError.
    static PyObject* name = nullptr;  // interned once, kept for the process
    if (name == nullptr && (name = PyUnicode_InternFromString("__fspath__")) == nullptr) throw nb::python_error();
    PyObject* args[] = {path.ptr()};
    PyObject* result = PyObject_VectorcallMethod(name, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
    if (result == nullptr) {
      if (PyErr_ExceptionMatches(PyExc_AttributeError) != 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "expected str, bytes or os.PathLike object, not %.200s", Py_TYPE(path.ptr())->tp_name);
      }
      throw nb::python_error();
    }
    text = nb::steal(result);
  }
  PyObject* encoded = nullptr;
  if (PyUnicode_FSConverter(text.ptr(), &encoded) == 0) throw nb::python_error();
  const nb::object owner = nb::steal(encoded);
  return std::string(PyBytes_AS_STRING(encoded), static_cast<std::size_t>(PyBytes_GET_SIZE(encoded)));
}

std::string utf8_string(nb::handle text, const char* what) {
  if (!PyUnicode_Check(text.ptr())) {
    PyErr_Format(PyExc_TypeError, "expected %s, not %.200s", what, Py_TYPE(text.ptr())->tp_name);
    throw nb::python_error();
  }
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (utf8 == nullptr) throw nb::python_error();
  return std::string(utf8, static_cast<std::size_t>(size));
}

std::string str_of(nb::handle x) { return utf8_string(nb::str(x)); }

}  // namespace bloomkit::python
