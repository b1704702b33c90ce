// python/src/errors.hpp - bloomkit.Error and its subclasses, one per
// bloomkit::errc, plus the binding's own (read-only, closed, key overflow).
// bind_errors() creates them and registers the translator that turns a
// bloomkit::error into the subclass for its code, with the library's message.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::python {

/// Errors of the binding itself (not codes of the C++ library).
enum class binding_error { read_only, closed, key_overflow, full };

/// Thrown by binding code; translated like bloomkit::error.
struct py_error {
  binding_error what;
  std::string message;
};

/// The Python class for a library code (borrowed reference, valid after bind_errors).
PyObject* exception_type(errc code);
/// The Python class for a binding error (borrowed reference).
PyObject* exception_type(binding_error code);

}  // namespace bloomkit::python
