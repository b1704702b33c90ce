// python/src/errors.cpp - bind_errors: the exception hierarchy (see errors.hpp).
//
//   bloomkit.Error(Exception)                    every failure; .code names the errc; a library
//                                                error's .kind, .field and .path name its context
//     InvalidArgumentError(Error, ValueError)    a parameter out of its domain
//     MismatchError(Error, ValueError)           filters disagree on kind, parameters or hash
//       HashMismatchError(MismatchError)         the stored hash_spec is not the expected one
//     FileError(Error, OSError)                  the OS refused a read, write, open, rename or map
//     FormatError(Error, ValueError)             bytes that are not a valid filter
//       TruncatedError, CorruptError, ChecksumError, UnsupportedVersionError, UnknownKindError
//     ConstructionError(Error, RuntimeError)     a static filter could not be built
//     UnsupportedError(Error, NotImplementedError)
//     OutOfMemoryError(Error, MemoryError)       an allocation failed (the message names the bytes)
//     ReadOnlyError(Error, TypeError)            a write to a filter mapped from a file
//     ClosedError(Error, ValueError)             a use of a mapped filter after close()
//     KeyOverflowError(Error, OverflowError)     an int key outside [-2^63, 2^64)
//     FullError(Error, RuntimeError)             a cuckoo filter has no room (nothing was added)
#include <nanobind/nanobind.h>

#include <array>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>
#include <utility>

#include "errors.hpp"

namespace nb = nanobind;

namespace bloomkit::python {

namespace {

struct error_class {
  const char* name;
  const char* doc;
  PyObject* type = nullptr;
};

// Indexed by errc value (0 unused: bloomkit.Error itself).
std::array<error_class, 13> library_errors = {{
    {"Error", "Every bloomkit failure. `code` is the library's error code name."},
    {"InvalidArgumentError", "A parameter is out of its domain (fpr outside (0, 1), capacity 0, k 0, ...)."},
    {"MismatchError", "Two filters, or a filter and a caller, disagree on kind, parameters or hash."},
    {"FileError", "The operating system refused a read, write, open, rename or map."},
    {"TruncatedError", "Input ended before a length field said it would."},
    {"CorruptError", "A field holds a value that no valid writer produces."},
    {"ChecksumError", "Bytes were altered after they were written."},
    {"UnsupportedVersionError", "A format version newer than this reader understands."},
    {"UnknownKindError", "A filter kind this reader does not know."},
    {"HashMismatchError", "The stored hash_spec differs from the one the caller expects."},
    {"ConstructionError", "A static filter could not be built (for example, retries exhausted)."},
    {"UnsupportedError", "Valid input that this build does not implement."},
    {"OutOfMemoryError", "An allocation failed; the message names the bytes it needed."},
}};

std::array<error_class, 4> binding_errors = {{
    {"ReadOnlyError", "A change to a filter mapped read-only from a file (bloomkit.open); copy() it first."},
    {"ClosedError", "A use of a mapped filter after close()."},
    {"KeyOverflowError", "An int key outside [-2**63, 2**64): keys are 8-byte integers."},
    {"FullError", "A cuckoo filter has no room for another key (its victim slot is taken); nothing was added."},
}};

PyObject* format_error = nullptr;

/// A str, or None for an empty view (new reference).
PyObject* str_or_none(std::string_view text) {
  if (text.empty()) Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
}

/// Raises the Python class for e's code. The message is the library's
/// sentence, what() joined from e's parts (a Python caller is a library
/// caller); the context the parts hold becomes attributes: .kind (the filter
/// kind at fault), .field (the parameter or file field at fault) and .path
/// (the file the message is about), each None where the error names none.
/// .path rather than OSError's .filename, which would rewrite str(e) as
/// "[Errno None] None: 'FILE'".
void raise_library_error(const bloomkit::error& e) noexcept {
  PyObject* type = exception_type(e.code());
  PyObject* message = PyUnicode_DecodeUTF8(e.what(), static_cast<Py_ssize_t>(std::strlen(e.what())), "replace");
  PyObject* value = message != nullptr ? PyObject_CallOneArg(type, message) : nullptr;
  Py_XDECREF(message);
  if (value == nullptr) return;  // the failure to make it is the error set now
  const std::pair<const char*, std::string_view> context[] = {
      {"kind", e.kind()}, {"field", e.field()}, {"path", e.file()}};
  for (const auto& [name, text] : context) {
    PyObject* attribute = str_or_none(text);
    const int rc = attribute != nullptr ? PyObject_SetAttrString(value, name, attribute) : -1;
    Py_XDECREF(attribute);
    if (rc != 0) {
      Py_DECREF(value);
      return;
    }
  }
  PyErr_SetObject(type, value);
  Py_DECREF(value);
}

PyObject* make_class(nb::module_& m, const char* name, const char* doc, nb::handle bases, const char* code) {
  const std::string qualified = std::string("bloomkit.") + name;
  nb::dict attrs;
  attrs["code"] = nb::str(code);
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), attrs.ptr());
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;  // the module holds a reference; the interpreter keeps it for the process
}

}  // namespace

PyObject* exception_type(errc code) {
  const auto i = static_cast<std::size_t>(code);
  return i < library_errors.size() && library_errors[i].type != nullptr ? library_errors[i].type : library_errors[0].type;
}

PyObject* exception_type(binding_error code) { return binding_errors[static_cast<std::size_t>(code)].type; }

void set_error_from_current_exception() noexcept {
  try {
    throw;
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.type()) {
      case nb::exception_type::type_error: type = PyExc_TypeError; break;
      case nb::exception_type::value_error: type = PyExc_ValueError; break;
      case nb::exception_type::buffer_error: type = PyExc_BufferError; break;
      case nb::exception_type::index_error: type = PyExc_IndexError; break;
      case nb::exception_type::key_error: type = PyExc_KeyError; break;
      case nb::exception_type::attribute_error: type = PyExc_AttributeError; break;
      default: break;
    }
    PyErr_SetString(type, e.what());
  } catch (const py_error& e) {
    PyErr_SetString(exception_type(e.what), e.message.c_str());
  } catch (const bloomkit::error& e) {
    raise_library_error(e);
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_SystemError, "bloomkit: an unknown C++ exception");
  }
}

void bind_errors(nb::module_& m) {
  auto& base = library_errors[0];
  base.type = make_class(m, base.name, base.doc, nb::handle(PyExc_Exception), "error");
  const nb::handle error(base.type);
  for (const char* context : {"kind", "field", "path"}) error.attr(context) = nb::none();  // None unless raised with one
  auto with = [&](nb::handle b, PyObject* builtin) { return nb::make_tuple(b, nb::handle(builtin)); };

  format_error = make_class(m, "FormatError", "Bytes that are not a valid bloomkit filter (or Parquet structure).",
                            with(error, PyExc_ValueError), "format");
  const nb::handle format(format_error);
  auto define = [&](errc code, nb::handle bases) {
    auto& e = library_errors[static_cast<std::size_t>(code)];
    e.type = make_class(m, e.name, e.doc, bases, std::string(to_string(code)).c_str());
  };
  define(errc::invalid_argument, with(error, PyExc_ValueError));
  define(errc::mismatch, with(error, PyExc_ValueError));
  define(errc::hash_mismatch, nb::make_tuple(nb::handle(exception_type(errc::mismatch))));
  define(errc::io, with(error, PyExc_OSError));
  define(errc::truncated, nb::make_tuple(format));
  define(errc::corrupt, nb::make_tuple(format));
  define(errc::checksum, nb::make_tuple(format));
  define(errc::unsupported_version, nb::make_tuple(format));
  define(errc::unknown_kind, nb::make_tuple(format));
  define(errc::construction_failed, with(error, PyExc_RuntimeError));
  define(errc::unsupported, with(error, PyExc_NotImplementedError));
  define(errc::out_of_memory, with(error, PyExc_MemoryError));

  binding_errors[0].type = make_class(m, binding_errors[0].name, binding_errors[0].doc, with(error, PyExc_TypeError), "read_only");
  binding_errors[1].type = make_class(m, binding_errors[1].name, binding_errors[1].doc, with(error, PyExc_ValueError), "closed");
  binding_errors[2].type =
      make_class(m, binding_errors[2].name, binding_errors[2].doc, with(error, PyExc_OverflowError), "key_overflow");
  binding_errors[3].type =
      make_class(m, binding_errors[3].name, binding_errors[3].doc, with(error, PyExc_RuntimeError), "full");

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const bloomkit::error& e) {
      raise_library_error(e);
    } catch (const py_error& e) {
      PyErr_SetString(exception_type(e.what), e.message.c_str());
    }
  });
}

}  // namespace bloomkit::python
