// python/src/key_values.cpp - one Python value as a key (keys.hpp): its
// class and key type, missing values, dates and instants, and hash_object,
// the per-key hash of every single-key call.
//
// docs/KEYS.md is the rule book: a typed filter converts each value into its
// key type when that is exact (integers and floats through the library's own
// conversion, hash_key with the typed spec; instants into microseconds and
// dates into days here, since no C++ key is a date) and refuses it otherwise
// with errc::mismatch naming both types; an untyped filter hashes each
// value's own canonical bytes, as bloomkit always did.
#include "keys.hpp"

#include <datetime.h>  // after Python.h (keys.hpp, nanobind)

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>

#include "errors.hpp"
#include "key_sources.hpp"

namespace bloomkit::python {

key_type key_type_of(value_class c) noexcept {
  switch (c) {
    case value_class::bytes: return key_type::bytes;
    case value_class::integer:
    case value_class::boolean: return key_type::int64;
    case value_class::floating: return key_type::float64;
    case value_class::timestamp: return key_type::timestamp_us;
    case value_class::date: return key_type::date32;
    case value_class::none:
    case value_class::other: return key_type::unspecified;
  }
  return key_type::unspecified;
}

namespace {

/// Whether values of class c can convert into t at all: docs/KEYS.md's
/// "What converts" table read by row class (the cells that are not
/// "refused"; whether each value does is decided per value).
bool class_converts(value_class c, key_type t) noexcept {
  if (t == key_type::unspecified || c == value_class::none) return true;
  switch (t) {
    case key_type::bytes: return c == value_class::bytes;
    case key_type::int64: return c == value_class::integer || c == value_class::boolean || c == value_class::floating;
    case key_type::int32:
      return c == value_class::integer || c == value_class::boolean || c == value_class::floating ||
             c == value_class::date;
    case key_type::float64:
    case key_type::float32: return c == value_class::integer || c == value_class::floating;
    case key_type::timestamp_us: return c == value_class::timestamp;
    case key_type::date32: return c == value_class::date;
    case key_type::unspecified: return true;
  }
  return false;
}

}  // namespace

void require_class(value_class c, key_type held, std::string_view what) {
  if (class_converts(c, held)) return;
  throw bloomkit::error(errc::mismatch,
                        "this filter holds " + std::string(to_string(held)) + " keys; got " + std::string(what));
}

std::string python_type_name(nb::handle x) {
  const nb::handle type(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
  std::string name = str_of(type.attr("__name__"));
  PyObject* module = PyObject_GetAttrString(type.ptr(), "__module__");
  if (module == nullptr) {
    PyErr_Clear();
    return name;
  }
  const nb::object owner = nb::steal(module);
  if (!PyUnicode_Check(module)) return name;
  const std::string m = utf8_string(owner);
  if (m.rfind("numpy", 0) == 0) return "numpy." + name;
  if (m.rfind("pandas", 0) == 0) return "pandas." + name;
  return name;
}

namespace {

// NumPy's scalar types, looked up once and kept for the process (see numpy_module).
PyTypeObject* numpy_type(const char* name) {
  return reinterpret_cast<PyTypeObject*>(nb::object(numpy_module().attr(name)).release().ptr());
}
PyTypeObject* numpy_generic() {
  static PyTypeObject* t = numpy_type("generic");
  return t;
}
PyTypeObject* numpy_datetime64() {
  static PyTypeObject* t = numpy_type("datetime64");
  return t;
}
PyTypeObject* numpy_timedelta64() {
  static PyTypeObject* t = numpy_type("timedelta64");
  return t;
}

bool is_numpy_scalar(PyObject* o) { return PyObject_TypeCheck(o, numpy_generic()) != 0; }

/// pandas' NA and NaT, by their types' names (pandas need not be imported).
bool is_pandas_missing(PyObject* o) noexcept {
  std::string_view name = Py_TYPE(o)->tp_name;
  if (const auto dot = name.rfind('.'); dot != std::string_view::npos) name.remove_prefix(dot + 1);
  return name == "NAType" || name == "NaTType";
}

/// The int64 value of a NumPy datetime64 / timedelta64 scalar (NaT: INT64_MIN).
std::int64_t numpy_time_value(nb::handle o) { return nb::cast<std::int64_t>(nb::int_(o.attr("view")("int64"))); }

void ensure_datetime_api() {
  if (PyDateTimeAPI == nullptr) {
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == nullptr) throw nb::python_error();
  }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr std::int64_t us_per_day = 86'400'000'000;

[[noreturn]] void refuse_value(nb::handle key, key_type held, const std::string& why) {
  throw bloomkit::error(errc::mismatch, "this filter holds " + std::string(to_string(held)) + " keys; got " +
                                            python_type_name(key) + " " + str_of(nb::repr(key)) + ", " + why);
}

[[noreturn]] void refuse_not_exact(nb::handle key, key_type held) {
  refuse_value(key, held, "which does not convert exactly into " + std::string(to_string(held)));
}

/// Microseconds since the epoch (UTC) of a datetime (a naive one taken as
/// UTC); errc::mismatch for a pandas Timestamp with nanoseconds.
std::int64_t datetime_micros(nb::handle key, key_type held) {
  PyObject* o = key.ptr();
  if (!PyDateTime_CheckExact(o)) {
    // pandas.Timestamp keeps nanoseconds beyond the datetime's microseconds.
    PyObject* ns = PyObject_GetAttrString(o, "nanosecond");
    if (ns == nullptr) {
      if (PyErr_ExceptionMatches(PyExc_AttributeError) == 0) throw nb::python_error();
      PyErr_Clear();
    } else {
      const nb::object owner = nb::steal(ns);
      if (PyObject_IsTrue(ns) == 1) refuse_value(key, held, "which has a nanosecond remainder (not a whole microsecond)");
    }
  }
  const std::int64_t days =
      days_from_civil(PyDateTime_GET_YEAR(o), static_cast<unsigned>(PyDateTime_GET_MONTH(o)),
                      static_cast<unsigned>(PyDateTime_GET_DAY(o)));
  std::int64_t us = days * us_per_day +
                    ((PyDateTime_DATE_GET_HOUR(o) * 60LL + PyDateTime_DATE_GET_MINUTE(o)) * 60LL +
                     PyDateTime_DATE_GET_SECOND(o)) *
                        1'000'000LL +
                    PyDateTime_DATE_GET_MICROSECOND(o);
  if (PyDateTime_DATE_GET_TZINFO(o) != Py_None) {
    nb::object offset = key.attr("utcoffset")();
    if (!offset.is_none()) {
      PyObject* d = offset.ptr();
      if (!PyDelta_Check(d)) throw nb::type_error("utcoffset() must return a timedelta");
      us -= (PyDateTime_DELTA_GET_DAYS(d) * 86'400LL + PyDateTime_DELTA_GET_SECONDS(d)) * 1'000'000LL +
            PyDateTime_DELTA_GET_MICROSECONDS(d);
    }
  }
  return us;
}

std::int64_t date_days(PyObject* o) noexcept {
  return days_from_civil(PyDateTime_GET_YEAR(o), static_cast<unsigned>(PyDateTime_GET_MONTH(o)),
                         static_cast<unsigned>(PyDateTime_GET_DAY(o)));
}

}  // namespace

time_scale numpy_time_scale(std::string_view unit, std::int64_t count) {
  time_scale s;
  std::int64_t num = 1;
  std::int64_t den = 1;
  if (unit == "D") {
    s.date = true;
  } else if (unit == "W") {
    num = 7 * us_per_day;
  } else if (unit == "h") {
    num = 3'600'000'000;
  } else if (unit == "m") {
    num = 60'000'000;
  } else if (unit == "s") {
    num = 1'000'000;
  } else if (unit == "ms") {
    num = 1'000;
  } else if (unit == "us" || unit == "\u03bcs") {
    num = 1;
  } else if (unit == "ns") {
    den = 1'000;
  } else if (unit == "ps") {
    den = 1'000'000;
  } else if (unit == "fs") {
    den = 1'000'000'000;
  } else if (unit == "as") {
    den = 1'000'000'000'000;
  } else {
    s.linear = false;  // Y, M and generic: months have no fixed length
    return s;
  }
  if (count <= 0 || num > std::numeric_limits<std::int64_t>::max() / count) {
    s.linear = false;
    return s;
  }
  num *= count;
  const std::int64_t g = std::gcd(num, den);
  s.mul = num / g;
  s.div = den / g;
  return s;
}

std::optional<std::int64_t> scale_exact(std::int64_t v, std::int64_t mul, std::int64_t div) noexcept {
  if (v % div != 0) return std::nullopt;
  const std::int64_t q = v / div;
  if (mul != 1 && (q > std::numeric_limits<std::int64_t>::max() / mul || q < std::numeric_limits<std::int64_t>::min() / mul)) {
    return std::nullopt;
  }
  return q * mul;
}

bool is_missing(nb::handle key, bool nan_missing) {
  PyObject* o = key.ptr();
  if (o == Py_None) return true;
  if (PyUnicode_CheckExact(o) || PyLong_CheckExact(o) || PyBytes_CheckExact(o)) return false;
  if (PyFloat_Check(o)) return nan_missing && std::isnan(PyFloat_AS_DOUBLE(o));
  if (is_pandas_missing(o)) return true;
  if (is_numpy_scalar(o)) {
    if (PyObject_TypeCheck(o, numpy_datetime64()) != 0 || PyObject_TypeCheck(o, numpy_timedelta64()) != 0) {
      return numpy_time_value(key) == std::numeric_limits<std::int64_t>::min();
    }
    if (nan_missing && utf8_string(key.attr("dtype").attr("kind")) == "f") {
      return std::isnan(nb::cast<double>(nb::float_(key)));
    }
  }
  return false;
}

value_class class_of(nb::handle key) {
  PyObject* o = key.ptr();
  if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o)) return value_class::bytes;
  if (PyBool_Check(o)) return value_class::boolean;
  if (PyLong_Check(o)) return value_class::integer;
  if (PyFloat_Check(o)) return value_class::floating;
  ensure_datetime_api();
  if (PyDateTime_Check(o)) return value_class::timestamp;
  if (PyDate_Check(o)) return value_class::date;
  if (is_numpy_scalar(o)) {
    const nb::object dtype = key.attr("dtype");
    const std::string kind = utf8_string(dtype.attr("kind"));
    if (kind == "S" || kind == "U") return value_class::bytes;  // a text scalar is one key's bytes
    return numpy_kind_class(kind, dtype);
  }
  if (PyObject_CheckBuffer(o)) return value_class::bytes;
  return value_class::other;
}

key_type key_type_of(nb::handle key) {
  if (is_missing(key, false)) return key_type::unspecified;
  return key_type_of(class_of(key));
}

namespace {

[[noreturn]] void refuse_non_key(nb::handle key) {
  if (is_missing(key, false)) {
    throw nb::type_error(("a missing value (" + python_type_name(key) +
                          ") is not a key; batch calls skip missing values, single-key calls refuse them")
                             .c_str());
  }
  throw nb::type_error(
      ("a bloomkit key is bytes, bytearray, memoryview, str, int, float, bool, a date, a datetime or a buffer; got " +
       python_type_name(key))
          .c_str());
}

/// The int64 or uint64 of a Python int (KeyOverflowError outside [-2^63, 2^64)).
struct int_value {
  bool is_unsigned = false;
  std::int64_t s = 0;
  std::uint64_t u = 0;
};
int_value int_of(PyObject* key) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(key, &overflow);
  int_value v;
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) throw nb::python_error();
    v.s = value;
    return v;
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(key);
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
      v.is_unsigned = true;
      v.u = u;
      return v;
    }
    PyErr_Clear();
  }
  throw py_error{binding_error::key_overflow,
                 "int key does not fit in 64 bits (keys are 8-byte integers in [-2**63, 2**64))"};
}

/// hash_key of a number under a typed spec: the library converts it
/// (docs/KEYS.md); a value that does not convert exactly is refused naming
/// the Python value.
template <class T>
std::uint64_t hash_number(T v, nb::handle key, value_class c, hash_spec spec) {
  require_class(c, spec.keys, python_type_name(key));
  try {
    return hash_key(v, spec);
  } catch (const bloomkit::error& e) {
    if (e.code() != errc::mismatch) throw;
    refuse_not_exact(key, spec.keys);
  }
}

std::uint64_t hash_int_typed(PyObject* o, nb::handle key, hash_spec spec) {
  const int_value v = int_of(o);
  return v.is_unsigned ? hash_number(v.u, key, value_class::integer, spec)
                       : hash_number(v.s, key, value_class::integer, spec);
}

/// A NumPy numeric or bool scalar through its buffer (format and width).
std::uint64_t hash_numpy_number(nb::handle key, hash_spec spec) {
  Py_buffer view;
  if (PyObject_GetBuffer(key.ptr(), &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    refuse_non_key(key);
  }
  std::string_view format = view.format != nullptr ? view.format : "B";
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<')) format.remove_prefix(1);
  const std::size_t size = static_cast<std::size_t>(view.itemsize);
  unsigned char raw[16] = {};
  const bool fits = static_cast<std::size_t>(view.len) <= sizeof raw && static_cast<std::size_t>(view.len) == size;
  if (fits) std::memcpy(raw, view.buf, size);
  PyBuffer_Release(&view);
  if (!fits || format.size() != 1) refuse_non_key(key);
  auto as = [&](auto type_tag) {
    decltype(type_tag) v;
    std::memcpy(&v, raw, sizeof v);
    return v;
  };
  const char f = format[0];
  const bool is_signed = std::string_view("bhilq").find(f) != std::string_view::npos;
  const bool is_unsigned = std::string_view("BHILQ").find(f) != std::string_view::npos;
  if (f == '?') return hash_number(raw[0] != 0, key, value_class::boolean, spec);
  if (is_signed || is_unsigned) {
    switch (size * 2 + (is_signed ? 1 : 0)) {
      case 3: return hash_number(as(std::int8_t{}), key, value_class::integer, spec);
      case 2: return hash_number(as(std::uint8_t{}), key, value_class::integer, spec);
      case 5: return hash_number(as(std::int16_t{}), key, value_class::integer, spec);
      case 4: return hash_number(as(std::uint16_t{}), key, value_class::integer, spec);
      case 9: return hash_number(as(std::int32_t{}), key, value_class::integer, spec);
      case 8: return hash_number(as(std::uint32_t{}), key, value_class::integer, spec);
      case 17: return hash_number(as(std::int64_t{}), key, value_class::integer, spec);
      case 16: return hash_number(as(std::uint64_t{}), key, value_class::integer, spec);
      default: break;
    }
  }
  if (f == 'f' && size == 4) return hash_number(as(float{}), key, value_class::floating, spec);
  if (f == 'd' && size == 8) return hash_number(as(double{}), key, value_class::floating, spec);
  if (f == 'e') {
    // float16: exactly a float, so its double converts exactly where it does.
    return hash_number(nb::cast<double>(nb::float_(key)), key, value_class::floating, spec);
  }
  require_class(value_class::other, spec.keys, python_type_name(key));
  refuse_non_key(key);
}

/// A datetime64 scalar's key bytes' value: µs (timestamp) or days (date);
/// `c` receives its class. Refuses values that are not exact.
std::int64_t numpy_time_key(nb::handle key, hash_spec spec, value_class& c) {
  nb::object value = nb::borrow(key);
  nb::tuple data = nb::cast<nb::tuple>(numpy_module().attr("datetime_data")(value.attr("dtype")));
  time_scale scale = numpy_time_scale(utf8_string(data[0]), nb::cast<std::int64_t>(data[1]));
  if (!scale.linear) {
    value = value.attr("astype")("datetime64[us]");
    scale = numpy_time_scale("us", 1);
  }
  c = scale.date ? value_class::date : value_class::timestamp;
  require_class(c, spec.keys, python_type_name(key));
  const std::optional<std::int64_t> v = scale_exact(numpy_time_value(value), scale.mul, scale.div);
  if (!v || (scale.date && (*v < std::numeric_limits<std::int32_t>::min() || *v > std::numeric_limits<std::int32_t>::max()))) {
    refuse_not_exact(key, spec.keys);
  }
  return *v;
}

/// A day count as a key: 4 bytes little-endian (date32, or int32 for a Parquet DATE column).
std::uint64_t hash_days(std::int64_t days, hash_spec spec) {
  return hash_key(static_cast<std::uint32_t>(static_cast<std::int32_t>(days)), batch_paths::untyped(spec));
}

/// hash_object for a typed spec whose key type is not bytes.
std::uint64_t hash_typed_number(nb::handle key, hash_spec spec) {
  PyObject* o = key.ptr();
  if (PyLong_CheckExact(o)) return hash_int_typed(o, key, spec);
  if (PyFloat_CheckExact(o)) return hash_number(PyFloat_AS_DOUBLE(o), key, value_class::floating, spec);
  if (PyBool_Check(o)) return hash_number(o == Py_True, key, value_class::boolean, spec);
  if (PyLong_Check(o)) return hash_int_typed(o, key, spec);
  if (PyFloat_Check(o)) return hash_number(PyFloat_AS_DOUBLE(o), key, value_class::floating, spec);
  if (is_missing(key, false)) refuse_non_key(key);
  ensure_datetime_api();
  if (PyDateTime_Check(o)) {
    require_class(value_class::timestamp, spec.keys, python_type_name(key));
    return hash_key(static_cast<std::uint64_t>(datetime_micros(key, spec.keys)), batch_paths::untyped(spec));
  }
  if (PyDate_Check(o)) {
    require_class(value_class::date, spec.keys, python_type_name(key));
    return hash_days(date_days(o), spec);
  }
  if (is_numpy_scalar(o)) {
    if (PyObject_TypeCheck(o, numpy_datetime64()) != 0) {
      value_class c = value_class::other;
      const std::int64_t v = numpy_time_key(key, spec, c);
      return c == value_class::date ? hash_days(v, spec) : hash_key(static_cast<std::uint64_t>(v), batch_paths::untyped(spec));
    }
    if (class_of(key) != value_class::bytes) return hash_numpy_number(key, spec);
  }
  const value_class c = class_of(key);
  if (c == value_class::other) refuse_non_key(key);
  require_class(c, spec.keys, python_type_name(key));
  refuse_non_key(key);  // not reached: no other class converts into a number, date or instant
}

/// hash_object for a filter of key type bytes.
std::uint64_t hash_typed_bytes(nb::handle key, hash_spec spec) {
  PyObject* o = key.ptr();
  const hash_spec raw = batch_paths::untyped(spec);
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);
    if (data == nullptr) throw nb::python_error();  // lone surrogates have no UTF-8
    return hash_bytes(data, static_cast<std::size_t>(size), raw);
  }
  if (PyBytes_Check(o)) return hash_bytes(PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o)), raw);
  if (PyByteArray_Check(o)) {
    return hash_bytes(PyByteArray_AS_STRING(o), static_cast<std::size_t>(PyByteArray_GET_SIZE(o)), raw);
  }
  if (is_missing(key, false)) refuse_non_key(key);
  const value_class c = class_of(key);
  if (c == value_class::other) refuse_non_key(key);
  require_class(c, spec.keys, python_type_name(key));
  // A byte buffer (memoryview, array.array): its bytes.
  Py_buffer view;
  if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  const std::uint64_t h = hash_bytes(view.buf, static_cast<std::size_t>(view.len), raw);
  PyBuffer_Release(&view);
  return h;
}

/// hash_object for an untyped spec: every value's own canonical bytes.
std::uint64_t hash_untyped(nb::handle key, hash_spec spec) {
  PyObject* o = key.ptr();
  if (PyLong_CheckExact(o)) {
    const int_value v = int_of(o);
    return v.is_unsigned ? hash_key(v.u, spec) : hash_key(v.s, spec);  // 8 bytes little-endian
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);
    if (data == nullptr) throw nb::python_error();  // lone surrogates have no UTF-8
    return hash_bytes(data, static_cast<std::size_t>(size), spec);
  }
  if (PyBytes_Check(o)) return hash_bytes(PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o)), spec);
  if (PyBool_Check(o)) return hash_key(o == Py_True, spec);
  if (PyLong_Check(o)) {
    const int_value v = int_of(o);
    return v.is_unsigned ? hash_key(v.u, spec) : hash_key(v.s, spec);
  }
  if (PyFloat_Check(o)) return hash_key(PyFloat_AS_DOUBLE(o), spec);
  if (PyByteArray_Check(o)) {
    return hash_bytes(PyByteArray_AS_STRING(o), static_cast<std::size_t>(PyByteArray_GET_SIZE(o)), spec);
  }
  if (is_missing(key, false)) refuse_non_key(key);
  ensure_datetime_api();
  if (PyDateTime_Check(o)) return hash_key(static_cast<std::uint64_t>(datetime_micros(key, key_type::unspecified)), spec);
  if (PyDate_Check(o)) return hash_days(date_days(o), spec);
  if (PyObject_TypeCheck(o, numpy_datetime64()) != 0 || PyObject_TypeCheck(o, numpy_timedelta64()) != 0) {
    return hash_key(static_cast<std::uint64_t>(numpy_time_value(key)), spec);  // its 8 bytes, as in an array
  }
  if (PyObject_CheckBuffer(o)) {
    // memoryview, NumPy scalars and arrays, array.array, ...: the bytes of a
    // C-contiguous buffer (a NumPy int32 scalar is its 4 bytes, as in an array).
    if (PyObject_TypeCheck(o, numpy_generic()) != 0 && class_of(key) == value_class::boolean) {
      return hash_key(PyObject_IsTrue(o) == 1, spec);  // one byte, 0 or 1
    }
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
    const std::uint64_t h = hash_bytes(view.buf, static_cast<std::size_t>(view.len), spec);
    PyBuffer_Release(&view);
    return h;
  }
  refuse_non_key(key);
}

}  // namespace

std::uint64_t hash_object(nb::handle key, hash_spec spec) {
#if !defined(Py_LIMITED_API)
  // The commonest key first, by exact type: an ASCII str's bytes are its
  // UTF-8 (read in place, no conversion call).
  PyObject* o = key.ptr();
  if (PyUnicode_CheckExact(o) && PyUnicode_IS_COMPACT_ASCII(o) &&
      (spec.keys == key_type::bytes || spec.keys == key_type::unspecified)) {
    return hash_bytes(PyUnicode_DATA(o), static_cast<std::size_t>(PyUnicode_GET_LENGTH(o)), batch_paths::untyped(spec));
  }
#endif
  switch (spec.keys) {
    case key_type::unspecified: return hash_untyped(key, spec);
    case key_type::bytes: return hash_typed_bytes(key, spec);
    default: return hash_typed_number(key, spec);
  }
}

}  // namespace bloomkit::python
