// python/src/keys.cpp - Python keys to hashes (keys.hpp) and bind_keys:
// _hash_key / _hash_keys, the hashing the public bloomkit.hash_key(s) wrap.
#include "keys.hpp"

#include <nanobind/stl/string_view.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "errors.hpp"

using namespace nanobind::literals;

namespace bloomkit::python {

void throw_invalid(const std::string& message) { throw bloomkit::error(errc::invalid_argument, message); }

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

namespace {

std::string key_type_name(nb::handle x) { return str_of(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr()))).attr("__name__")); }

std::uint64_t hash_int(PyObject* key, hash_spec spec) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(key, &overflow);
  std::uint64_t bits;
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) throw nb::python_error();
    bits = static_cast<std::uint64_t>(value);
  } else if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(key);
    if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw py_error{binding_error::key_overflow,
                     "int key does not fit in 64 bits (keys are 8-byte integers in [-2**63, 2**64))"};
    }
    bits = u;
  } else {
    throw py_error{binding_error::key_overflow,
                   "int key does not fit in 64 bits (keys are 8-byte integers in [-2**63, 2**64))"};
  }
  return hash_key(bits, spec);  // 8 bytes little-endian, as C++ hashes std::uint64_t / std::int64_t
}

}  // namespace

std::uint64_t hash_object(nb::handle key, hash_spec spec) {
  PyObject* o = key.ptr();
#if !defined(Py_LIMITED_API)
  // The common keys first, by exact type: an ASCII str's bytes are its UTF-8
  // (read in place, no conversion call), then int and bytes.
  if (PyUnicode_CheckExact(o) && PyUnicode_IS_COMPACT_ASCII(o)) {
    return hash_bytes(PyUnicode_DATA(o), static_cast<std::size_t>(PyUnicode_GET_LENGTH(o)), spec);
  }
#endif
  if (PyLong_CheckExact(o)) return hash_int(o, spec);
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);
    if (data == nullptr) throw nb::python_error();  // lone surrogates have no UTF-8
    return hash_bytes(data, static_cast<std::size_t>(size), spec);
  }
  if (PyBytes_Check(o)) return hash_bytes(PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o)), spec);
  if (PyBool_Check(o)) return hash_key(o == Py_True, spec);
  if (PyLong_Check(o)) return hash_int(o, spec);
  if (PyFloat_Check(o)) return hash_key(PyFloat_AS_DOUBLE(o), spec);
  if (PyByteArray_Check(o)) {
    return hash_bytes(PyByteArray_AS_STRING(o), static_cast<std::size_t>(PyByteArray_GET_SIZE(o)), spec);
  }
  if (PyObject_CheckBuffer(o)) {
    // memoryview, NumPy scalars and arrays, array.array, ...: the bytes of a
    // C-contiguous buffer (a NumPy int32 scalar is its 4 bytes, as in an array).
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
    const std::uint64_t h = hash_bytes(view.buf, static_cast<std::size_t>(view.len), spec);
    PyBuffer_Release(&view);
    return h;
  }
  throw nb::type_error(("a bloomkit key is bytes, bytearray, memoryview, str, int, float, bool or a buffer; got " +
                        key_type_name(key))
                           .c_str());
}

namespace {

// Looked up once and kept for the process: a static nb::object would be
// destroyed after the interpreter has finalised (a crash at exit).
nb::handle numpy() {
  static PyObject* np = nb::module_::import_("numpy").release().ptr();
  return np;
}

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

void add_numpy(key_batch& batch, nb::handle x, bool as_hashes) {
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
    return;  // caller falls back to iterating
  }
  // Contiguous, native byte order (keys hash as little-endian bytes; on a
  // little-endian host that is the memory itself), aligned for hashes.
  nb::object native = dtype.attr("newbyteorder")("=");
  arr = numpy().attr("ascontiguousarray")(arr, native);
  // Read as raw bytes (every dtype, datetime64 included, has a uint8 view).
  nb::object raw = arr.attr("view")("uint8");
  key_batch::segment s;
  s.kind = as_hashes ? key_batch::layout::hashes : key_batch::layout::fixed;
  s.data = buffer_bytes(raw, false).data();
  s.width = nb::cast<std::size_t>(dtype.attr("itemsize"));
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
}

void add_arrow_array(key_batch& batch, nb::handle x, hash_spec spec, bool as_hashes);

/// A pyarrow DictionaryArray as one dictionary segment: its dictionary is
/// described like any Arrow array and hashed once here (GIL released), and
/// each key is then its index's hash (keys_impl.hpp, gather_dictionary).
/// Why not pyarrow's dictionary_decode: it copies every key's value, and
/// pyarrow 26.0.1 lets a std::bad_alloc from its kernel escape through its
/// GIL-free section (the process ends; python/tests/fault_driver.py found
/// it). A null index, or a valid index naming a null value, is a null key,
/// as in the decoded array. Every valid index is checked to lie in the
/// dictionary before anything is hashed into a filter.
void add_arrow_dictionary(key_batch& batch, const nb::object& arr, hash_spec spec, bool as_hashes) {
  nb::object indices = arr.attr("indices");
  key_batch index_batch;
  add_arrow_array(index_batch, indices, spec, false);
  const std::string index_type = str_of(indices.attr("type"));
  const bool index_signed = index_type.rfind("int", 0) == 0;
  if ((!index_signed && index_type.rfind("uint", 0) != 0) || index_batch.segments.size() != 1 ||
      index_batch.segments[0].kind != key_batch::layout::fixed) {
    throw nb::type_error(("Arrow dictionary indices must be integers; got " + index_type).c_str());
  }
  key_batch dictionary;
  add_arrow_array(dictionary, arr.attr("dictionary"), spec, as_hashes);
  std::vector<std::uint64_t> hashes(dictionary.total);
  std::vector<std::uint8_t> valid;
  if (dictionary.has_nulls()) valid.assign(dictionary.total, 1);
  key_batch::segment s = index_batch.segments[0];
  s.kind = key_batch::layout::dictionary;
  s.index_signed = index_signed;
  s.dict_size = dictionary.total;
  std::size_t bad = s.count;  // the first valid key whose index lies outside the dictionary
  {
    nb::gil_scoped_release release;
    for_each_hash_chunk(dictionary, spec, [&](std::span<const std::uint64_t> h, std::size_t first, const bool* v) {
      std::copy(h.begin(), h.end(), hashes.begin() + static_cast<std::ptrdiff_t>(first));
      if (v != nullptr) {
        for (std::size_t j = 0; j < h.size(); ++j) valid[first + j] = v[j] ? 1 : 0;
      }
    });
    auto check = [&](auto type_tag) {
      using I = decltype(type_tag);
      for (std::size_t i = 0; i < s.count; ++i) {
        if (s.validity != nullptr && !batch_paths::bit_at(s.validity, s.validity_offset + i)) continue;
        I index;
        std::memcpy(&index, s.data + i * sizeof(I), sizeof index);
        bool outside = static_cast<std::uint64_t>(index) >= s.dict_size;
        if constexpr (std::is_signed_v<I>) outside = outside || index < 0;
        if (outside) {
          bad = i;
          return;
        }
      }
    };
    switch (s.width) {
      case 1: index_signed ? check(std::int8_t{}) : check(std::uint8_t{}); break;
      case 2: index_signed ? check(std::int16_t{}) : check(std::uint16_t{}); break;
      case 4: index_signed ? check(std::int32_t{}) : check(std::uint32_t{}); break;
      default: index_signed ? check(std::int64_t{}) : check(std::uint64_t{}); break;
    }
  }
  if (bad != s.count) {
    throw_invalid("Arrow dictionary array: the index of key " + std::to_string(bad) + " lies outside its dictionary of " +
                  std::to_string(s.dict_size) + " values");
  }
  s.dict_hashes = hashes.data();
  s.dict_valid = valid.empty() ? nullptr : valid.data();
  batch.owned_dictionary_hashes.push_back(std::move(hashes));
  batch.owned_dictionary_valid.push_back(std::move(valid));
  batch.segments.push_back(s);
  for (auto& o : index_batch.keepalive) batch.keepalive.push_back(std::move(o));
  batch.keepalive.push_back(arr);
  batch.total += s.count;
}

/// One pyarrow.Array (not chunked) into batch segments, reading its buffers
/// in place: validity bitmap, offsets and data, with every offset checked
/// against the data buffer's size before anything is hashed.
void add_arrow_array(key_batch& batch, nb::handle x, hash_spec spec, bool as_hashes) {
  nb::object arr = nb::borrow(x);
  nb::object type = arr.attr("type");
  std::string name = str_of(type);
  if (name.rfind("dictionary<", 0) == 0) {
    add_arrow_dictionary(batch, arr, spec, as_hashes);
    return;
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
                            " as keys (strings, binaries, integers, floats, bools, temporal, decimal and "
                            "fixed-size binary types are read)")
                               .c_str());
    }
    s.kind = as_hashes ? key_batch::layout::hashes : key_batch::layout::fixed;
    s.width = static_cast<std::size_t>(bit_width / 8);
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

}  // namespace

key_batch make_batch(nb::handle x, hash_spec spec, bool as_hashes) {
  key_batch batch;
  if (PyUnicode_Check(x.ptr()) || PyBytes_Check(x.ptr()) || PyByteArray_Check(x.ptr()) ||
      PyMemoryView_Check(x.ptr())) {
    throw nb::type_error(
        "a batch call takes a collection of keys (array, Arrow array, list, iterable); for one key use add / in");
  }
  if (is_numpy_array(x)) {
    add_numpy(batch, x, as_hashes);
    if (!batch.segments.empty()) return batch;
  } else if (from_pyarrow(x) && has_attribute(x, "chunks") && has_attribute(x, "num_chunks")) {
    for (nb::handle chunk : x.attr("chunks")) add_arrow_array(batch, chunk, spec, as_hashes);
    return batch;
  } else if (from_pyarrow(x) && has_attribute(x, "buffers") && has_attribute(x, "offset")) {
    add_arrow_array(batch, x, spec, as_hashes);
    return batch;
  }
  // Any other iterable: hash every key first, so a bad key fails before the
  // filter changes.
  if (as_hashes) {
    for (nb::handle item : nb::iter(x)) {
      if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) {
        throw nb::type_error(("hashes are ints in [0, 2**64); got " + key_type_name(item)).c_str());
      }
      const unsigned long long h = PyLong_AsUnsignedLongLong(item.ptr());
      if (h == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        throw py_error{binding_error::key_overflow, "hashes are ints in [0, 2**64)"};
      }
      batch.owned_hashes.push_back(h);
    }
  } else if (PyList_Check(x.ptr()) || PyTuple_Check(x.ptr())) {
    // Items read in place, not through an iterator. The length is read again
    // at every step and each item is held while it is hashed: a key's buffer
    // export may run Python code that changes the list.
    PyObject* seq = x.ptr();
    const bool list = PyList_Check(seq);
    batch.owned_hashes.reserve(static_cast<std::size_t>(list ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq)));
    for (Py_ssize_t i = 0; i < (list ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq)); ++i) {
      const nb::object item = nb::borrow(list ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i));
      batch.owned_hashes.push_back(hash_object(item, spec));
    }
  } else {
    for (nb::handle item : nb::iter(x)) batch.owned_hashes.push_back(hash_object(item, spec));
  }
  key_batch::segment s;
  s.kind = key_batch::layout::hashes;
  s.data = reinterpret_cast<const std::byte*>(batch.owned_hashes.data());
  s.count = batch.owned_hashes.size();
  s.width = 8;
  s.data_size = s.count * 8;
  batch.segments.push_back(s);
  batch.total = s.count;
  return batch;
}

hash_spec make_hash_spec(std::string_view algorithm, std::uint64_t seed) {
  if (algorithm == "xxh3_64" || algorithm == "xxh3") return hash_spec{hash_algorithm::xxh3_64, seed};
  if (algorithm == "xxh64") return hash_spec{hash_algorithm::xxh64, seed};
  throw_invalid("hash must be \"xxh3_64\" or \"xxh64\", got \"" + std::string(algorithm) + "\"");
}

void bind_keys(nb::module_& m) {
  m.def(
      "_hash_key", [](nb::handle key, std::string_view algorithm, std::uint64_t seed) {
        return hash_object(key, make_hash_spec(algorithm, seed));
      },
      "key"_a, "algorithm"_a, "seed"_a, "The 64-bit hash of one key under (algorithm, seed).");
  m.def(
      "_hash_keys",
      [](nb::handle x, std::string_view algorithm, std::uint64_t seed) {
        const hash_spec spec = make_hash_spec(algorithm, seed);
        key_batch batch = make_batch(x, spec);
        if (batch.has_nulls()) {
          throw_invalid("hash_keys: the Arrow array has nulls, which are not keys; drop them first (arr.drop_null())");
        }
        array_output result(batch.total, "uint64");
        auto* out = reinterpret_cast<std::uint64_t*>(result.data);
        {
          nb::gil_scoped_release release;
          for_each_hash_chunk(batch, spec, [&](std::span<const std::uint64_t> h, std::size_t first, const bool*) {
            std::memcpy(out + first, h.data(), h.size() * sizeof(std::uint64_t));
          });
        }
        return result.array;
      },
      "keys"_a, "algorithm"_a, "seed"_a, "The 64-bit hashes of a batch of keys under (algorithm, seed), as uint64.");
}

}  // namespace bloomkit::python
