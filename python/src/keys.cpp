// python/src/keys.cpp - batches of Python keys (keys.hpp: NumPy arrays,
// Arrow arrays, pandas columns, iterables) described, converted into the
// filter's key type and checked; and bind_keys: _hash_key / _hash_keys, the
// hashing the public bloomkit.hash_key(s) wrap. One key: key_values.cpp;
// paths and text: paths.cpp; Arrow dictionary arrays: arrow_dictionary.cpp.
#include "keys.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "errors.hpp"
#include "key_sources.hpp"

using namespace nanobind::literals;

namespace bloomkit::python {

void throw_invalid(const std::string& message) { throw bloomkit::error(errc::invalid_argument, message); }

// Looked up once and kept for the process: a static nb::object would be
// destroyed after the interpreter has finalised (a crash at exit).
nb::handle numpy_module() {
  static PyObject* np = nb::module_::import_("numpy").release().ptr();
  return np;
}

namespace {

nb::handle numpy() { return numpy_module(); }

bool is_numpy_array(nb::handle x) {
  static PyObject* ndarray = nb::object(numpy().attr("ndarray")).release().ptr();
  return PyObject_IsInstance(x.ptr(), ndarray) == 1;
}

/// hasattr(x, name), but an error other than AttributeError (MemoryError) is
/// raised, not taken for "no": nb::hasattr (PyObject_HasAttr, CPython
/// 3.11) swallows every error, so a failed allocation sent a pyarrow array
/// down the iterable path, whose TypeError misreported it (the fault loop
/// found it). Throws nb::python_error.
bool has_attribute(nb::handle x, const char* name) {
  PyObject* v = PyObject_GetAttrString(x.ptr(), name);
  if (v != nullptr) {
    Py_DECREF(v);
    return true;
  }
  if (PyErr_ExceptionMatches(PyExc_AttributeError) == 0) throw nb::python_error();
  PyErr_Clear();
  return false;
}

bool from_pyarrow(nb::handle x) {
  const nb::handle type(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
  if (!has_attribute(type, "__module__")) return false;
  const auto module = str_of(type.attr("__module__"));
  return module.rfind("pyarrow", 0) == 0;
}

std::uintptr_t address_of(nb::handle buffer) { return nb::cast<std::uintptr_t>(buffer.attr("address")); }
std::size_t size_of(nb::handle buffer) { return nb::cast<std::size_t>(buffer.attr("size")); }

}  // namespace

std::span<std::byte> buffer_bytes(nb::handle obj, bool writable) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0) {
    throw nb::python_error();
  }
  const std::span<std::byte> bytes(static_cast<std::byte*>(view.buf), static_cast<std::size_t>(view.len));
  PyBuffer_Release(&view);
  return bytes;
}

bool_output::bool_output(std::size_t n) : array(numpy().attr("empty")(n, "bool")) {
  data = reinterpret_cast<bool*>(buffer_bytes(array, true).data());
}

array_output::array_output(std::size_t n, const char* dtype) : array(numpy().attr("empty")(n, dtype)) {
  data = buffer_bytes(array, true).data();
}

namespace {

/// Py_TYPE(x) is NumPy's own (its __module__ starts with "numpy"), the
/// arrays nanobind's caster converted (nb_ndarray.cpp, detect_framework).
bool numpy_framework(nb::handle x) {
  const nb::handle type(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
  if (!has_attribute(type, "__module__")) return false;
  return str_of(type.attr("__module__")).rfind("numpy", 0) == 0;
}

[[noreturn]] void refuse_array(const char* what, const char* dtype) {
  throw nb::type_error((std::string(what) + " must be a 1-D array of " + dtype +
                        " (a NumPy array of bool, integers or reals is converted)")
                           .c_str());
}

}  // namespace

array_input array_argument(nb::handle obj, const char* dtype, const char* formats, std::size_t itemsize,
                           const char* what) {
  nb::object source = nb::borrow(obj);
  const bool numpy_array = is_numpy_array(obj);
  if (numpy_array && numpy_framework(obj)) {
    if (nb::cast<int>(source.attr("ndim")) != 1) refuse_array(what, dtype);
    nb::object have = source.attr("dtype");
    const std::string kind = utf8_string(have.attr("kind"));
    const auto size = nb::cast<std::size_t>(have.attr("itemsize"));
    const std::string order = utf8_string(have.attr("byteorder"));
    // What DLPack or the buffer protocol export, and so what nanobind could
    // read and then convert: no byte-swapped, complex, object, text, time or
    // long double arrays.
    const bool readable = (kind == "b" || kind == "i" || kind == "u" || (kind == "f" && size <= 8)) && order != ">";
    if (!readable) refuse_array(what, dtype);
    const bool exact = utf8_string(have.attr("name")) == dtype;
    if (!exact || !nb::cast<bool>(source.attr("flags").attr("c_contiguous"))) {
      source = source.attr("astype")(dtype, "C");
    }
  } else if (!numpy_array && PyObject_CheckBuffer(obj.ptr()) == 0) {
    if (!has_attribute(obj, "__dlpack__")) refuse_array(what, dtype);
    try {
      source = numpy().attr("from_dlpack")(obj);
    } catch (nb::python_error& e) {
      if (e.matches(PyExc_MemoryError)) throw;
      refuse_array(what, dtype);
    }
    if (utf8_string(source.attr("dtype").attr("name")) != dtype) refuse_array(what, dtype);
  }
  // A memoryview holds the export for as long as it lives: the bytes stay.
  PyObject* view = PyMemoryView_FromObject(source.ptr());
  if (view == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_MemoryError) != 0) throw nb::python_error();
    PyErr_Clear();
    refuse_array(what, dtype);
  }
  nb::object owner = nb::steal(view);
  const Py_buffer* b = PyMemoryView_GET_BUFFER(view);
  std::string_view format = b->format != nullptr ? b->format : "B";
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<')) format.remove_prefix(1);
  const bool format_ok = format.size() == 1 && std::string_view(formats).find(format[0]) != std::string_view::npos;
  if (b->ndim != 1 || !format_ok || static_cast<std::size_t>(b->itemsize) != itemsize ||
      PyBuffer_IsContiguous(b, 'C') == 0) {
    refuse_array(what, dtype);
  }
  return {std::move(owner),
          {static_cast<const std::byte*>(b->buf), static_cast<std::size_t>(b->len)}};
}

namespace {

using element = key_batch::element;

/// The module of x's type ("" when it has none).
std::string module_of(nb::handle x) {
  const nb::handle type(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
  if (!has_attribute(type, "__module__")) return "";
  nb::object module = type.attr("__module__");
  return PyUnicode_Check(module.ptr()) ? utf8_string(module) : std::string();
}

/// The key type values of class c give the batch, when the batch may adopt one.
void adopt_class(key_batch& batch, value_class c, bool may_adopt) {
  if (!may_adopt || batch.spec.keys != key_type::unspecified) return;
  const key_type t = key_type_of(c);
  if (t == key_type::unspecified) return;
  batch.spec.keys = t;
  batch.adopts = t;
}

}  // namespace

value_class numpy_kind_class(const std::string& kind, nb::handle dtype) {
  if (kind == "b") return value_class::boolean;
  if (kind == "i" || kind == "u") return value_class::integer;
  if (kind == "f") return nb::cast<int>(dtype.attr("itemsize")) <= 8 ? value_class::floating : value_class::other;
  if (kind == "M") {
    const nb::tuple data = nb::cast<nb::tuple>(numpy_module().attr("datetime_data")(dtype));
    return utf8_string(data[0]) == "D" ? value_class::date : value_class::timestamp;
  }
  return value_class::other;
}

namespace {

// ---- NumPy ------------------------------------------------------------------------

/// The class of a NumPy dtype's values (object and text dtypes: `other`,
/// their elements are classed one by one).
value_class numpy_class(nb::handle dtype) { return numpy_kind_class(utf8_string(dtype.attr("kind")), dtype); }

/// A validity bitmap (Arrow's layout) of `arr` where `missing` (a NumPy bool
/// array) is false, kept alive by the batch; nullptr when nothing is missing.
const std::uint8_t* bitmap_of_present(key_batch& batch, nb::handle missing) {
  const int any = PyObject_IsTrue(nb::object(missing.attr("any")()).ptr());  // a NumPy bool, not a Python one
  if (any < 0) throw nb::python_error();
  if (any == 0) return nullptr;
  nb::object present = numpy().attr("logical_not")(missing);
  nb::object bits = numpy().attr("packbits")(present, "bitorder"_a = "little");
  batch.keepalive.push_back(bits);
  return reinterpret_cast<const std::uint8_t*>(buffer_bytes(bits, false).data());
}

/// A 1-D NumPy array of numbers, booleans or datetimes as one segment (false
/// for object and text arrays, whose elements the caller takes one by one).
/// `pandas_missing`: the array is a pandas column's, so NaN is a missing value.
bool add_numpy(key_batch& batch, nb::handle x, bool as_hashes, bool pandas_missing) {
  nb::object arr = nb::borrow(x);
  nb::object dtype = arr.attr("dtype");
  const auto kind = utf8_string(dtype.attr("kind"));
  if (nb::cast<int>(arr.attr("ndim")) != 1) {
    throw nb::value_error("bloomkit batches are one-dimensional arrays; use arr.ravel() for a flat view");
  }
  if (as_hashes) {
    if (kind != "u" && kind != "i") throw nb::type_error("hashes must be an integer array (dtype uint64)");
    if (nb::cast<int>(dtype.attr("itemsize")) != 8) throw nb::type_error("hashes must be 64-bit integers (dtype uint64)");
  } else if (kind != "u" && kind != "i" && kind != "f" && kind != "b" && kind != "m" && kind != "M") {
    // 'O' (objects), 'U' and 'S' (fixed-width text): each element is a Python key.
    return false;
  }
  if (batch.what.empty()) batch.what = "a NumPy " + str_of(dtype) + " array";
  const bool typed = batch.spec.keys != key_type::unspecified;
  key_batch::segment s;
  s.values = numpy_class(dtype);
  auto itemsize = nb::cast<std::size_t>(dtype.attr("itemsize"));
  if (kind == "b") {
    s.elem = element::boolean;
  } else if (kind == "i" || kind == "u") {
    const bool sign = kind == "i";
    switch (itemsize) {
      case 1: s.elem = sign ? element::i8 : element::u8; break;
      case 2: s.elem = sign ? element::i16 : element::u16; break;
      case 4: s.elem = sign ? element::i32 : element::u32; break;
      default: s.elem = sign ? element::i64 : element::u64; break;
    }
  } else if (kind == "f") {
    if (itemsize == 2 && typed) {
      arr = arr.attr("astype")("float32");  // float16 widens exactly
      dtype = arr.attr("dtype");
      itemsize = 4;
    }
    s.elem = itemsize == 4 ? element::f32 : itemsize == 8 ? element::f64 : element::raw;
  } else if (kind == "M" && typed) {
    const nb::tuple data = nb::cast<nb::tuple>(numpy().attr("datetime_data")(dtype));
    time_scale scale = numpy_time_scale(utf8_string(data[0]), nb::cast<std::int64_t>(data[1]));
    if (!scale.linear) {  // Y and M: NumPy knows the months' lengths
      arr = arr.attr("astype")("datetime64[us]");
      dtype = arr.attr("dtype");
      scale = numpy_time_scale("us", 1);
    }
    s.elem = element::scaled;
    s.scale_mul = scale.mul;
    s.scale_div = scale.div;
    s.out_width = scale.date ? 4 : 8;
  }
  // Contiguous, native byte order (keys hash as little-endian bytes; on a
  // little-endian host that is the memory itself), aligned for hashes.
  nb::object native = dtype.attr("newbyteorder")("=");
  arr = numpy().attr("ascontiguousarray")(arr, native);
  // Missing values: NaT always (NumPy's own missing time), NaN in a pandas column.
  if (!as_hashes && (kind == "M" || kind == "m")) {
    s.validity = bitmap_of_present(batch, numpy().attr("isnat")(arr));
  } else if (!as_hashes && kind == "f" && pandas_missing) {
    s.validity = bitmap_of_present(batch, numpy().attr("isnan")(arr));
  }
  // Read as raw bytes (every dtype, datetime64 included, has a uint8 view).
  nb::object raw = arr.attr("view")("uint8");
  s.kind = as_hashes ? key_batch::layout::hashes : key_batch::layout::fixed;
  s.data = buffer_bytes(raw, false).data();
  s.width = itemsize;
  s.count = nb::len(arr);
  s.data_size = s.count * s.width;
  if (as_hashes && reinterpret_cast<std::uintptr_t>(s.data) % alignof(std::uint64_t) != 0) {
    arr = numpy().attr("array")(arr, "uint64");  // an unaligned view (e.g. a slice of bytes): copy once
    raw = arr.attr("view")("uint8");
    s.data = buffer_bytes(raw, false).data();
  }
  batch.segments.push_back(s);
  batch.keepalive.push_back(arr);
  batch.keepalive.push_back(raw);
  batch.total += s.count;
  return true;
}

// ---- Arrow ------------------------------------------------------------------------

/// An Arrow type's name ("int32", "timestamp[ns, tz=UTC]", "dictionary<values=string, ...>").
std::string arrow_name(nb::handle type) { return str_of(type); }

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

value_class arrow_class(nb::handle type) {
  const std::string name = arrow_name(type);
  if (starts_with(name, "dictionary<")) return arrow_class(type.attr("value_type"));
  if (name == "null") return value_class::none;
  if (name == "string" || name == "binary" || name == "utf8" || name == "large_string" || name == "large_binary" ||
      name == "large_utf8" || name == "string_view" || name == "binary_view" || starts_with(name, "fixed_size_binary")) {
    return value_class::bytes;
  }
  if (name == "bool") return value_class::boolean;
  if (starts_with(name, "int") || starts_with(name, "uint")) return value_class::integer;
  if (name == "halffloat" || name == "float" || name == "double") return value_class::floating;
  if (starts_with(name, "timestamp[")) return value_class::timestamp;
  if (starts_with(name, "date32") || starts_with(name, "date64")) return value_class::date;
  return value_class::other;
}

namespace {

/// The class of one Arrow array or chunked array.
value_class arrow_input_class(nb::handle x) { return arrow_class(x.attr("type")); }

/// `arr` cast to the Arrow type `to` (pyarrow's cast; a copy, no Python object per key).
nb::object arrow_cast(const nb::object& arr, const char* to) {
  nb::module_ pa = nb::module_::import_("pyarrow");
  return arr.attr("cast")(pa.attr(to)());
}

/// The fixed-width element, class and scale of an Arrow type (name, type).
void describe_fixed(key_batch::segment& s, const std::string& name, nb::handle type) {
  s.values = arrow_class(type);
  static constexpr std::pair<std::string_view, element> integers[] = {
      {"int8", element::i8},   {"int16", element::i16},   {"int32", element::i32},   {"int64", element::i64},
      {"uint8", element::u8},  {"uint16", element::u16},  {"uint32", element::u32},  {"uint64", element::u64},
      {"float", element::f32}, {"double", element::f64},
  };
  for (const auto& [n, e] : integers) {
    if (name == n) {
      s.elem = e;
      return;
    }
  }
  s.elem = element::raw;
  if (starts_with(name, "timestamp[")) {
    const std::string unit = utf8_string(type.attr("unit"));
    const time_scale scale = numpy_time_scale(unit, 1);  // s, ms, us, ns: the same units as NumPy's
    s.elem = element::scaled;
    s.scale_mul = scale.mul;
    s.scale_div = scale.div;
    s.out_width = 8;
  } else if (starts_with(name, "date32")) {
    s.elem = element::scaled;  // days, as they are
    s.out_width = 4;
  } else if (starts_with(name, "date64")) {
    s.elem = element::scaled;  // milliseconds, whole days by the format
    s.scale_div = 86'400'000;
    s.out_width = 4;
  }
}

}  // namespace

void add_arrow_array(key_batch& batch, nb::handle x, bool as_hashes) {
  nb::object arr = nb::borrow(x);
  nb::object type = arr.attr("type");
  std::string name = arrow_name(type);
  if (batch.what.empty()) batch.what = "an Arrow " + name + " array";
  if (starts_with(name, "dictionary<")) {
    add_arrow_dictionary(batch, arr, as_hashes);
    return;
  }
  if (!as_hashes) {
    // Layouts read by a cast (a copy): string and binary views as their
    // large forms; float16 as float32 for a typed filter (exact widening).
    if (name == "string_view") {
      add_arrow_array(batch, arrow_cast(arr, "large_string"), false);
      return;
    }
    if (name == "binary_view") {
      add_arrow_array(batch, arrow_cast(arr, "large_binary"), false);
      return;
    }
    if (name == "halffloat" && batch.spec.keys != key_type::unspecified) {
      add_arrow_array(batch, arrow_cast(arr, "float32"), false);
      return;
    }
  }
  const std::size_t length = nb::len(arr);
  const auto offset = nb::cast<std::size_t>(arr.attr("offset"));
  const auto null_count = nb::cast<std::size_t>(arr.attr("null_count"));
  nb::list buffers = nb::cast<nb::list>(arr.attr("buffers")());
  key_batch::segment s;
  s.count = length;
  if (name == "null") {
    // Every key null: a zero validity bitmap; the keys read as one zero byte
    // each (and then dropped as nulls), so the buffer holds a byte per key.
    nb::object zeros = numpy().attr("zeros")(length + 8, "uint8");
    const std::byte* v = buffer_bytes(zeros, false).data();
    s.kind = key_batch::layout::fixed;
    s.values = value_class::none;
    s.width = 1;
    s.data = v;
    s.validity = reinterpret_cast<const std::uint8_t*>(v);
    batch.segments.push_back(s);
    batch.keepalive.push_back(zeros);
    batch.total += length;
    return;
  }
  if (!buffers[0].is_none() && null_count > 0) {
    const nb::handle validity = buffers[0];
    if (size_of(validity) * 8 < offset + length) throw_invalid("Arrow array: validity bitmap shorter than the array");
    s.validity = reinterpret_cast<const std::uint8_t*>(address_of(validity));
    s.validity_offset = offset;
  }
  const bool string_like = name == "string" || name == "binary" || name == "utf8";
  const bool large_string_like = name == "large_string" || name == "large_binary" || name == "large_utf8";
  if (as_hashes && name != "uint64" && name != "int64") {
    throw nb::type_error(("hashes must be a uint64 array; got Arrow type " + name).c_str());
  }
  if (string_like || large_string_like) {
    s.values = value_class::bytes;
    const std::size_t w = string_like ? 4 : 8;
    if (length > 0) {
      const nb::handle offsets = buffers[1];
      const nb::handle data = buffers[2];
      if (offsets.is_none() || size_of(offsets) < (offset + length + 1) * w) {
        throw_invalid("Arrow array: offsets buffer shorter than the array");
      }
      s.offsets = reinterpret_cast<const std::byte*>(address_of(offsets)) + offset * w;
      s.data = data.is_none() ? nullptr : reinterpret_cast<const std::byte*>(address_of(data));
      s.data_size = data.is_none() ? 0 : size_of(data);
      // Every key's [begin, end) must lie inside the data buffer.
      auto check = [&](const auto* o) {
        for (std::size_t i = 0; i < length; ++i) {
          if (o[i] < 0 || o[i + 1] < o[i] || static_cast<std::size_t>(o[i + 1]) > s.data_size) {
            throw_invalid("Arrow array: offset " + std::to_string(i) + " lies outside the data buffer");
          }
        }
      };
      if (w == 4) {
        check(static_cast<const std::int32_t*>(s.offsets));
      } else {
        check(static_cast<const std::int64_t*>(s.offsets));
      }
      if (s.data == nullptr) {
        static const std::byte nothing{};
        s.data = &nothing;  // all keys empty
      }
    }
    s.kind = w == 4 ? key_batch::layout::varlen32 : key_batch::layout::varlen64;
  } else if (name == "bool") {
    s.kind = key_batch::layout::bits;
    s.values = value_class::boolean;
    if (length > 0) {
      if (size_of(buffers[1]) * 8 < offset + length) throw_invalid("Arrow array: bool buffer shorter than the array");
      s.data = reinterpret_cast<const std::byte*>(address_of(buffers[1]));
    }
    s.bit_offset = offset;
  } else {
    // Fixed-width: integers, floats, dates, times, timestamps, durations,
    // decimals, fixed_size_binary. Nested types have child arrays, not a
    // flat data buffer: refused.
    int bit_width = 0;
    try {
      bit_width = nb::cast<int>(type.attr("bit_width"));
    } catch (const std::exception&) {
      bit_width = 0;
    }
    if (bit_width <= 0 || bit_width % 8 != 0 || nb::len(buffers) != 2) {
      throw nb::type_error(("bloomkit cannot read Arrow arrays of type " + name +
                            " as keys (strings, binaries, integers, floats, bools, timestamps, dates and "
                            "fixed-size binary types are read; pass one column, not a table or a list column)")
                               .c_str());
    }
    s.kind = as_hashes ? key_batch::layout::hashes : key_batch::layout::fixed;
    s.width = static_cast<std::size_t>(bit_width / 8);
    describe_fixed(s, name, type);
    if (length > 0) {
      if (size_of(buffers[1]) < (offset + length) * s.width) throw_invalid("Arrow array: data buffer shorter than the array");
      s.data = reinterpret_cast<const std::byte*>(address_of(buffers[1])) + offset * s.width;
      if (as_hashes && reinterpret_cast<std::uintptr_t>(s.data) % alignof(std::uint64_t) != 0) {
        throw_invalid("Arrow array of hashes is not 8-byte aligned");
      }
    }
    s.data_size = length * s.width;
  }
  batch.segments.push_back(s);
  batch.keepalive.push_back(arr);
  batch.total += length;
}

namespace {

bool is_arrow_array(nb::handle x) { return has_attribute(x, "buffers") && has_attribute(x, "offset"); }
bool is_arrow_chunked(nb::handle x) { return has_attribute(x, "chunks") && has_attribute(x, "num_chunks"); }

// ---- pandas -----------------------------------------------------------------------

/// Whether x is a pandas Series, Index, DataFrame or extension array (of
/// pandas' classes or their subclasses). pandas is not imported here: an
/// object of it exists only once it is.
bool is_pandas(nb::handle x) {
  static PyObject* name = nullptr;  // interned once, kept for the process (a failed allocation: MemoryError)
  if (name == nullptr && (name = PyUnicode_InternFromString("pandas")) == nullptr) throw nb::python_error();
  PyObject* pd = PyImport_GetModule(name);
  if (pd == nullptr) {
    if (PyErr_Occurred() != nullptr) throw nb::python_error();
    return false;
  }
  const nb::object module = nb::steal(pd);
  for (const char* name : {"Series", "Index", "DataFrame"}) {
    if (!has_attribute(module, name)) continue;
    const int is = PyObject_IsInstance(x.ptr(), nb::object(module.attr(name)).ptr());
    if (is < 0) throw nb::python_error();
    if (is == 1) return true;
  }
  return starts_with(module_of(x), "pandas");  // extension arrays (pd.array(...))
}

/// What a pandas Series, Index or extension array becomes for the batch
/// paths: a NumPy array of its values (NumPy-backed numbers, booleans and
/// datetimes: no copy), a pyarrow array (every other dtype: nullable,
/// Arrow-backed, string, categorical, tz-aware; pyarrow reads the values
/// without a Python object per key and makes the mask a validity bitmap),
/// or, where pyarrow is missing or refuses the values (a column of mixed
/// types), an object array taken key by key. Missing values keep pandas'
/// meaning: NaN is missing in float, object and string columns.
nb::object pandas_values(nb::handle x, std::string& what) {
  const std::string type_name = python_type_name(x);
  if (has_attribute(x, "columns") && has_attribute(x, "iloc")) {
    throw nb::type_error(("a batch is one column of keys; got a pandas DataFrame with columns " +
                          str_of(nb::list(x.attr("columns"))) + ": pass one of them, df[name]")
                             .c_str());
  }
  nb::object dtype = x.attr("dtype");
  what = "a " + type_name + " of dtype " + str_of(dtype);
  if (module_of(dtype) == "numpy") {
    const std::string kind = utf8_string(dtype.attr("kind"));
    if (kind == "b" || kind == "i" || kind == "u" || kind == "f" || kind == "M" || kind == "m") {
      return x.attr("to_numpy")();
    }
  }
  try {
    nb::module_ pa = nb::module_::import_("pyarrow");
    return pa.attr("array")(x, "from_pandas"_a = true);
  } catch (nb::python_error& e) {
    if (e.matches(PyExc_MemoryError)) throw;
    // ImportError, or pyarrow's ArrowInvalid / ArrowTypeError (ValueError,
    // TypeError) for values it cannot hold in one Arrow type: key by key.
    if (!e.matches(PyExc_ImportError) && !e.matches(PyExc_TypeError) && !e.matches(PyExc_ValueError) &&
        !e.matches(PyExc_OverflowError) && !e.matches(PyExc_NotImplementedError)) {
      throw;
    }
  }
  return x.attr("to_numpy")("dtype"_a = "object");
}

// ---- Python objects ---------------------------------------------------------------

/// The iterable path: every key hashed here (with the GIL held), before the
/// filter changes. Missing values are skipped (validity bitmap): None, NA,
/// NaT, and NaN where it is a missing value, not a key: in object and pandas
/// columns (`pandas_missing`), and wherever the key type is not a float one
/// (a NaN in a list of floats is a key). With `may_adopt` the batch takes
/// the key type of its first key that has one.
void add_objects(key_batch& batch, nb::handle x, bool as_hashes, bool pandas_missing, bool may_adopt) {
  if (as_hashes) {
    for (nb::handle item : nb::iter(x)) {
      if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) {
        throw nb::type_error(("hashes are ints in [0, 2**64); got " + python_type_name(item)).c_str());
      }
      const unsigned long long h = PyLong_AsUnsignedLongLong(item.ptr());
      if (h == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        throw py_error{binding_error::key_overflow, "hashes are ints in [0, 2**64)"};
      }
      batch.owned_hashes.push_back(h);
    }
  } else {
    // Lists and tuples are read in place (PySequence_Fast returns them as
    // they are), any other iterable is read into a list first. The length is
    // read again at every step and each item is held while it is hashed: a
    // key's buffer export may run Python code that changes the list.
    PyObject* fast = PySequence_Fast(x.ptr(), "a batch of keys must be an array, an Arrow array or an iterable");
    if (fast == nullptr) throw nb::python_error();
    const nb::object seq = nb::steal(fast);
    auto size = [&] { return static_cast<std::size_t>(PySequence_Fast_GET_SIZE(fast)); };
    if (may_adopt && batch.spec.keys == key_type::unspecified) {
      bool nan_seen = false;
      for (std::size_t i = 0; i < size(); ++i) {
        const nb::object item = nb::borrow(PySequence_Fast_GET_ITEM(fast, static_cast<Py_ssize_t>(i)));
        if (is_missing(item, false)) continue;
        if (PyFloat_Check(item.ptr()) && std::isnan(PyFloat_AS_DOUBLE(item.ptr()))) {
          nan_seen = true;  // a key of a float batch, a missing value of any other: decided by the rest
          continue;
        }
        adopt_class(batch, class_of(item), true);
        break;
      }
      if (batch.adopts == key_type::unspecified && nan_seen && !pandas_missing) adopt_class(batch, value_class::floating, true);
    }
    const key_type t = batch.spec.keys;
    const bool nan_missing =
        pandas_missing || (t != key_type::unspecified && t != key_type::float64 && t != key_type::float32);
    std::vector<std::uint8_t> bits;  // the validity bitmap, made at the first missing key (all present before)
    batch.owned_hashes.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) {
      const nb::object item = nb::borrow(PySequence_Fast_GET_ITEM(fast, static_cast<Py_ssize_t>(i)));
      std::uint64_t h = 0;
      const bool missing =
          !PyUnicode_CheckExact(item.ptr()) && !PyLong_CheckExact(item.ptr()) && is_missing(item, nan_missing);
      if (!missing) {
        try {
          h = hash_object(item, batch.spec);
        } catch (const bloomkit::error& e) {
          if (e.code() != errc::mismatch || batch.adopts == key_type::unspecified) throw;
          throw bloomkit::error(errc::mismatch, std::string(e.what()) + " (key " + std::to_string(i) +
                                                    "; the batch's first key gave it the key type " +
                                                    std::string(to_string(batch.adopts)) + ")");
        }
      }
      if (missing || !bits.empty()) {
        if (bits.size() <= (i >> 3)) bits.resize(std::max(size(), i + 1) / 8 + 1, 0xFF);
        if (missing) bits[i >> 3] &= static_cast<std::uint8_t>(~(1U << (i & 7)));
      }
      batch.owned_hashes.push_back(h);
    }
    if (!bits.empty()) batch.owned_bitmaps.push_back(std::move(bits));
  }
  key_batch::segment s;
  s.kind = key_batch::layout::hashes;
  s.data = reinterpret_cast<const std::byte*>(batch.owned_hashes.data());
  s.count = batch.owned_hashes.size();
  s.width = 8;
  s.data_size = s.count * 8;
  if (!batch.owned_bitmaps.empty()) s.validity = batch.owned_bitmaps.back().data();
  batch.segments.push_back(s);
  batch.total += s.count;
}

// ---- checks -----------------------------------------------------------------------

/// Calls fn(first, count) for each run of present keys of segment s.
template <class Fn>
void for_each_present_run(const key_batch::segment& s, Fn&& fn) {
  if (s.validity == nullptr) {
    if (s.count != 0) fn(std::size_t{0}, s.count);
    return;
  }
  std::size_t i = 0;
  while (i < s.count) {
    while (i < s.count && !batch_paths::bit_at(s.validity, s.validity_offset + i)) ++i;
    const std::size_t begin = i;
    while (i < s.count && batch_paths::bit_at(s.validity, s.validity_offset + i)) ++i;
    if (i > begin) fn(begin, i - begin);
  }
}

/// Throws (the library's errc::mismatch) unless every present key of s, of
/// type T, converts into spec.keys (require_keys_convert, docs/KEYS.md).
template <class T>
void check_converts(const key_batch::segment& s, hash_spec spec) {
  for_each_present_run(s, [&](std::size_t first, std::size_t n) {
    const std::byte* p = s.data + first * sizeof(T);
    if (const T* keys = batch_paths::aligned_as<T>(p)) {
      require_keys_convert(keys, n, spec);
      return;
    }
    for (std::size_t j = 0; j < n; ++j) {
      T v;
      std::memcpy(&v, p + j * sizeof(T), sizeof v);
      require_keys_convert(&v, 1, spec);
    }
  });
}

/// Throws errc::mismatch unless every present scaled key converts exactly
/// (a whole number of µs or days, within range). Returns the message or "".
std::string check_scaled(const key_batch::segment& s) {
  std::string problem;
  for_each_present_run(s, [&](std::size_t first, std::size_t n) {
    for (std::size_t j = first; j < first + n && problem.empty(); ++j) {
      const std::int64_t v = batch_paths::signed_at(s.data + j * s.width, s.width);
      const std::optional<std::int64_t> r = scale_exact(v, s.scale_mul, s.scale_div);
      const bool fits = r && (s.out_width == 8 || (*r >= std::numeric_limits<std::int32_t>::min() &&
                                                   *r <= std::numeric_limits<std::int32_t>::max()));
      if (!fits) {
        problem = "key " + std::to_string(j) + " (stored value " + std::to_string(v) + ") is not a whole number of " +
                  (s.out_width == 8 ? "microseconds" : "days") + " in range";
      }
    }
  });
  return problem;
}

}  // namespace

void check_batch(key_batch& batch) {
  const hash_spec spec = batch.spec;
  if (spec.keys == key_type::unspecified) return;
  for (const auto& s : batch.segments) {
    if (s.kind == key_batch::layout::hashes) continue;  // hashed already, each key checked (add_objects)
    require_class(s.values, spec.keys, batch.what);
    if (s.kind != key_batch::layout::fixed) continue;  // strings, bits and dictionaries convert by class alone
    std::string problem;
    try {
      nb::gil_scoped_release release;
      switch (s.elem) {
        case element::i8: check_converts<std::int8_t>(s, spec); break;
        case element::i16: check_converts<std::int16_t>(s, spec); break;
        case element::i32: check_converts<std::int32_t>(s, spec); break;
        case element::i64: check_converts<std::int64_t>(s, spec); break;
        case element::u8: check_converts<std::uint8_t>(s, spec); break;
        case element::u16: check_converts<std::uint16_t>(s, spec); break;
        case element::u32: check_converts<std::uint32_t>(s, spec); break;
        case element::u64: check_converts<std::uint64_t>(s, spec); break;
        case element::f32: check_converts<float>(s, spec); break;
        case element::f64: check_converts<double>(s, spec); break;
        case element::scaled: problem = check_scaled(s); break;
        case element::raw:
        case element::boolean: break;  // raw bytes are the type's (fixed_size_binary into bytes); bools widen
      }
    } catch (const bloomkit::error& e) {
      if (e.code() != errc::mismatch) throw;
      problem = e.what();
    }
    if (!problem.empty()) {
      throw bloomkit::error(errc::mismatch, "this filter holds " + std::string(to_string(spec.keys)) + " keys; got " +
                                                batch.what + ": " + problem);
    }
  }
}

key_batch make_batch(nb::handle x, hash_spec spec, bool as_hashes, bool may_adopt) {
  key_batch batch;
  batch.spec = spec;
  may_adopt = may_adopt && !as_hashes;
  if (PyUnicode_Check(x.ptr()) || PyBytes_Check(x.ptr()) || PyByteArray_Check(x.ptr()) ||
      PyMemoryView_Check(x.ptr())) {
    throw nb::type_error(
        "a batch call takes a collection of keys (array, Arrow array, pandas Series, list, iterable); for one key use "
        "add / in");
  }
  nb::object input = nb::borrow(x);
  bool pandas_missing = false;
  if (!is_numpy_array(x) && is_pandas(x)) {
    input = pandas_values(x, batch.what);
    pandas_missing = true;
  }
  if (is_numpy_array(input)) {
    adopt_class(batch, numpy_class(input.attr("dtype")), may_adopt);
    if (add_numpy(batch, input, as_hashes, pandas_missing)) {
      check_batch(batch);
      return batch;
    }
    // Object and text arrays: key by key, NaN in an object array is pandas' missing value.
    if (utf8_string(input.attr("dtype").attr("kind")) == "O") pandas_missing = true;
  } else if (from_pyarrow(input)) {
    if (is_arrow_chunked(input) || is_arrow_array(input)) {
      adopt_class(batch, arrow_input_class(input), may_adopt);
      if (is_arrow_chunked(input)) {
        if (batch.what.empty()) batch.what = "an Arrow " + arrow_name(input.attr("type")) + " chunked array";
        for (nb::handle chunk : input.attr("chunks")) add_arrow_array(batch, chunk, as_hashes);
      } else {
        add_arrow_array(batch, input, as_hashes);
      }
      check_batch(batch);
      return batch;
    }
    if (has_attribute(input, "column_names")) {
      throw nb::type_error(("a batch is one column of keys; got a pyarrow " + python_type_name(input) +
                            " with columns " + str_of(input.attr("column_names")) +
                            ": pass one of them, table.column(name)")
                               .c_str());
    }
  }
  add_objects(batch, input, as_hashes, pandas_missing, may_adopt);
  return batch;
}

key_type key_type_argument(const std::optional<std::string>& name) {
  if (!name) return key_type::unspecified;
  if (const auto t = parse_key_type(*name)) return *t;
  std::string names;
  for (unsigned v = 0; v < 256 && to_string(static_cast<key_type>(v)) != "unknown"; ++v) {
    names += (v == 0 ? "" : ", ") + std::string(to_string(static_cast<key_type>(v)));
  }
  throw_invalid("key_type must be one of " + names + "; got \"" + *name + "\"");
}

hash_spec make_hash_spec(std::string_view algorithm, std::uint64_t seed) {
  if (const auto parsed = parse_hash_algorithm(algorithm)) return hash_spec{*parsed, seed};
  throw_invalid("hash must be \"xxh3_64\" or \"xxh64\", got \"" + std::string(algorithm) + "\"");
}

hash_spec make_hash_spec(std::string_view algorithm, std::uint64_t seed, const std::optional<std::string>& key_type) {
  hash_spec spec = make_hash_spec(algorithm, seed);
  spec.keys = key_type_argument(key_type);
  return spec;
}

void bind_keys(nb::module_& m) {
  m.def(
      "_hash_key",
      [](nb::handle key, std::string_view algorithm, std::uint64_t seed, std::optional<std::string> key_type) {
        hash_spec spec = make_hash_spec(algorithm, seed);
        spec.keys = key_type_argument(key_type);
        return hash_object(key, spec);
      },
      "key"_a, "algorithm"_a, "seed"_a, "key_type"_a = nb::none(),
      "The 64-bit hash of one key under (algorithm, seed) and key type (None: the key's own bytes).");
  m.def(
      "_hash_keys",
      [](nb::handle x, std::string_view algorithm, std::uint64_t seed, std::optional<std::string> key_type) {
        hash_spec spec = make_hash_spec(algorithm, seed);
        spec.keys = key_type_argument(key_type);
        key_batch batch = make_batch(x, spec);
        if (batch.has_nulls()) {
          throw_invalid(
              "hash_keys: the batch has missing values (nulls, None, NaN in a pandas column, NaT), which are not "
              "keys; drop them first (arr.drop_null(), s.dropna())");
        }
        array_output result(batch.total, "uint64");
        auto* out = reinterpret_cast<std::uint64_t*>(result.data);
        {
          nb::gil_scoped_release release;
          for_each_hash_chunk(batch, [&](std::span<const std::uint64_t> h, std::size_t first, const bool*) {
            std::memcpy(out + first, h.data(), h.size() * sizeof(std::uint64_t));
          });
        }
        return result.array;
      },
      "keys"_a, "algorithm"_a, "seed"_a, "key_type"_a = nb::none(),
      "The 64-bit hashes of a batch of keys under (algorithm, seed) and key type, as uint64.");
  m.def(
      "_batch_key_type",
      [](nb::handle x) -> std::optional<std::string> {
        const key_batch batch = make_batch(x, hash_spec{}, false, true);
        if (batch.adopts == key_type::unspecified) return std::nullopt;
        return std::string(to_string(batch.adopts));
      },
      "keys"_a, "The key type a batch gives an empty untyped filter (None: none), as add_many would take it.");
}

}  // namespace bloomkit::python
