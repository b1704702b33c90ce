// python/src/interop.cpp - bind_interop: Spark's and Guava's Bloom filters
// (bloomkit/spark_bloom.hpp, guava_bloom.hpp, format/jvm_streams.hpp) as
// bloomkit.SparkBloom and bloomkit.GuavaBloom, plus load_jvm / from_jvm_bytes.
//
// Keys follow the JVM libraries, not bloomkit's own canonical bytes:
//   SparkBloom: int -> a long (putLong; any int in [-2^63, 2^64) as its 64 bits),
//               str -> putString (UTF-8), bytes-like -> putBinary
//   GuavaBloom: int -> Funnels.longFunnel(); add_int/may_contain_int -> integerFunnel();
//               str -> stringFunnel(UTF_8); bytes-like -> byteArrayFunnel()
// add_many / may_contain_many take an iterable of such keys (or a NumPy
// integer array of longs) and answer exactly as the single-key calls.
// to_bytes() is the library's own writeTo stream; from_bytes reads it back.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/format/jvm_streams.hpp"
#include "bloomkit/guava_bloom.hpp"
#include "bloomkit/spark_bloom.hpp"
#include "keys.hpp"

namespace bloomkit::python {

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// A key as the JVM libraries see it: a long, or bytes.
struct jvm_key {
  bool is_long = false;
  std::int64_t value = 0;
  std::string bytes;
};

jvm_key key_of(nb::handle key) {
  jvm_key k;
  if (PyBool_Check(key.ptr())) throw nb::type_error("bool is not a Spark/Guava key (use an int)");
  if (PyLong_Check(key.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(key.ptr(), &overflow);
    k.is_long = true;
    if (overflow == 0) {
      k.value = static_cast<std::int64_t>(v);
    } else {
      const unsigned long long u = PyLong_AsUnsignedLongLong(key.ptr());
      if (PyErr_Occurred()) throw nb::python_error();
      k.value = static_cast<std::int64_t>(static_cast<std::uint64_t>(u));  // the same 64 bits
    }
    return k;
  }
  if (PyUnicode_Check(key.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(key.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
    k.bytes.assign(data, static_cast<std::size_t>(size));
    return k;
  }
  Py_buffer view{};
  if (PyObject_GetBuffer(key.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    throw nb::type_error("a Spark/Guava key is an int, a str or a bytes-like object");
  }
  k.bytes.assign(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
  PyBuffer_Release(&view);
  return k;
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

bool spark_contains_key(const spark_bloom& f, const jvm_key& k) {
  return k.is_long ? f.may_contain_long(k.value) : f.may_contain_bytes(as_bytes(k.bytes));
}
bool spark_add_key(spark_bloom& f, const jvm_key& k) {
  return k.is_long ? f.insert_long(k.value) : f.insert_bytes(as_bytes(k.bytes));
}
bool guava_contains_key(const guava_bloom& f, const jvm_key& k) {
  return k.is_long ? f.may_contain(k.value) : f.may_contain_bytes(as_bytes(k.bytes));
}
bool guava_add_key(guava_bloom& f, const jvm_key& k) {
  return k.is_long ? f.insert(k.value) : f.insert_bytes(as_bytes(k.bytes));
}
bool spark_contains(const spark_bloom& f, nb::handle key) { return spark_contains_key(f, key_of(key)); }
bool spark_add(spark_bloom& f, nb::handle key) { return spark_add_key(f, key_of(key)); }
bool guava_contains(const guava_bloom& f, nb::handle key) { return guava_contains_key(f, key_of(key)); }
bool guava_add(guava_bloom& f, nb::handle key) { return guava_add_key(f, key_of(key)); }

/// The keys of a batch call, converted before the filter is touched so that
/// a bad key (wrong type, an int outside [-2^63, 2^64)) leaves it unchanged.
/// A NumPy integer array is read as int64 (every width widened, uint64 by its
/// 64 bits, as the single-key calls read a Python int) without a Python
/// object a key; anything else is iterated, each element converted as
/// `add` converts it. One str or bytes object is refused: iterating it would
/// give its characters, never what the caller meant.
std::vector<jvm_key> jvm_keys(nb::handle keys) {
  if (PyUnicode_Check(keys.ptr()) || PyBytes_Check(keys.ptr()) || PyByteArray_Check(keys.ptr())) {
    throw nb::type_error("add_many / may_contain_many take an iterable of keys, not one str or bytes key");
  }
  std::vector<jvm_key> out;
  if (nb::cast<std::string>(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(keys.ptr()))).attr("__module__")) == "numpy" &&
      nb::hasattr(keys, "dtype")) {
    const std::string kind = nb::cast<std::string>(keys.attr("dtype").attr("kind"));
    if (kind == "i" || kind == "u") {
      const i64_array v = int64_argument(keys, "keys");
      out.resize(v.values.size());
      for (std::size_t i = 0; i < v.values.size(); ++i) {
        out[i].is_long = true;
        out[i].value = v.values[i];
      }
      return out;
    }
  }
  for (nb::handle key : nb::iter(keys)) out.push_back(key_of(key));
  return out;
}

/// may_contain_many's loop: one answer a key, in order, as a NumPy bool array.
template <class Filter, class Contains>
nb::object answers_for(const Filter& f, nb::handle keys, Contains contains) {
  const std::vector<jvm_key> k = jvm_keys(keys);
  bool_output out(k.size());
  for (std::size_t i = 0; i < k.size(); ++i) out.data[i] = contains(f, k[i]);
  return out.array;
}

nb::bytes to_py_bytes(const std::vector<std::byte>& b) { return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size()); }

std::span<const std::byte> bytes_of(const nb::bytes& b) {
  return {reinterpret_cast<const std::byte*>(b.c_str()), b.size()};
}

nb::object to_python(jvm_filter&& f) {
  if (auto* s = std::get_if<spark_bloom>(&f)) return nb::cast(std::move(*s));
  return nb::cast(std::move(std::get<guava_bloom>(f)));
}

}  // namespace

void bind_interop(nb::module_& m) {
  nb::enum_<spark_bloom_version>(m, "SparkBloomVersion", "Spark's BloomFilter.Version")
      .value("V1", spark_bloom_version::v1)
      .value("V2", spark_bloom_version::v2);
  nb::enum_<guava_strategy>(m, "GuavaStrategy", "Guava's BloomFilterStrategies, by ordinal")
      .value("MURMUR128_MITZ_32", guava_strategy::murmur128_mitz_32)
      .value("MURMUR128_MITZ_64", guava_strategy::murmur128_mitz_64);

  nb::class_<spark_bloom>(m, "SparkBloom",
                          "Spark's org.apache.spark.util.sketch.BloomFilter, bit for bit: answers as its mightContain.\n"
                          "Keys: int as a long (putLong), str as UTF-8 (putString), bytes-like as putBinary.")
      .def(nb::new_([](std::uint64_t expected_items, double fpp) { return spark_bloom::create(expected_items, fpp); }),
           "expected_items"_a, "fpp"_a, "Spark's BloomFilter.create(expectedNumItems, fpp): version 2, seed 0.")
      .def_static(
          "create",
          [](spark_bloom_version version, std::uint64_t expected_items, std::uint64_t num_bits, std::int32_t seed) {
            return spark_bloom::create(version, expected_items, num_bits, seed);
          },
          "version"_a, "expected_items"_a, "num_bits"_a, "seed"_a = 0,
          "Spark's BloomFilter.create(version, expectedNumItems, numBits, seed).")
      .def_static(
          "from_bytes", [](const nb::bytes& data) { return read_spark_stream(bytes_of(data)); }, "data"_a,
          "Reads Spark's writeTo bytes (TruncatedError, CorruptError, UnsupportedVersionError otherwise).")
      .def("to_bytes", [](const spark_bloom& f) { return to_py_bytes(write_spark_stream(f)); },
           "Spark's writeTo bytes: BloomFilter.readFrom reads them into an equal filter.")
      .def("save", [](const spark_bloom& f, nb::handle path) { save_jvm_filter(jvm_filter(f), fs_path(path)); }, "path"_a,
           "Writes to_bytes() to `path` atomically.")
      .def("add", &spark_add, "key"_a, "Spark's put: True if any bit changed.")
      .def("may_contain", &spark_contains, "key"_a, "Spark's mightContain.")
      .def(
          "add_many",
          [](spark_bloom& f, nb::handle keys) {
            for (const jvm_key& k : jvm_keys(keys)) spark_add_key(f, k);
          },
          "keys"_a,
          "put for every key of an iterable (or a NumPy integer array, each value a long), in order. Every key\n"
          "is converted before the first is added: a bad one raises and leaves the filter unchanged.")
      .def(
          "may_contain_many",
          [](const spark_bloom& f, nb::handle keys) { return answers_for(f, keys, spark_contains_key); }, "keys"_a,
          "mightContain for every key of an iterable (or a NumPy integer array), as a NumPy bool array.")
      .def(
          "may_contain_longs",
          [](const spark_bloom& f, nb::handle values) {
            const i64_array v = int64_argument(values, "values");
            bool_output out(v.values.size());
            {
              nb::gil_scoped_release release;
              for (std::size_t i = 0; i < v.values.size(); ++i) out.data[i] = f.may_contain_long(v.values[i]);
            }
            return out.array;
          },
          "values"_a,
          "mightContainLong for every value of a 1-D integer array (NumPy integers are widened to int64, as\n"
          "Spark widens every integral type to a long), as a NumPy bool array.")
      .def("__contains__", &spark_contains, "key"_a)
      .def("merge", [](spark_bloom& a, const spark_bloom& b) { a.merge(b); }, "other"_a, "Spark's mergeInPlace (MismatchError for another shape).")
      .def("intersect", [](spark_bloom& a, const spark_bloom& b) { a.intersect(b); }, "other"_a, "Spark's intersectInPlace.")
      .def_prop_ro("version", [](const spark_bloom& f) { return f.version(); })
      .def_prop_ro("k", [](const spark_bloom& f) { return f.k(); })
      .def_prop_ro("seed", [](const spark_bloom& f) { return f.seed(); })
      .def_prop_ro("bit_count", [](const spark_bloom& f) { return f.bit_count(); }, "Spark's bitSize(): 64 * words.")
      .def_prop_ro("popcount", [](const spark_bloom& f) { return f.popcount(); }, "Spark's cardinality(): bits set.")
      .def_prop_ro("fill_ratio", [](const spark_bloom& f) { return f.fill_ratio(); })
      .def_prop_ro("estimated_fpr", [](const spark_bloom& f) { return f.estimated_fpr(); }, "Spark's expectedFpp(): fill^k.")
      .def("__eq__", [](const spark_bloom& a, const spark_bloom& b) { return a == b; }, nb::is_operator(),
           "Value equality (the same bits, k, seed and version or strategy); another class compares unequal.");
  // Mutable and compared by value, so not hashable (as bloomkit's own kinds).
  m.attr("SparkBloom").attr("__hash__") = nb::none();

  nb::class_<guava_bloom>(m, "GuavaBloom",
                          "Guava's com.google.common.hash.BloomFilter, bit for bit: answers as its mightContain.\n"
                          "Keys: int as Funnels.longFunnel(), str as stringFunnel(UTF_8), bytes-like as\n"
                          "byteArrayFunnel(); add_int/may_contain_int for integerFunnel().")
      .def(nb::new_([](std::uint64_t expected_insertions, double fpp) { return guava_bloom::create(expected_insertions, fpp); }),
           "expected_insertions"_a, "fpp"_a, "Guava's BloomFilter.create(funnel, expectedInsertions, fpp) (MURMUR128_MITZ_64).")
      .def_static(
          "from_bytes", [](const nb::bytes& data) { return read_guava_stream(bytes_of(data)); }, "data"_a,
          "Reads Guava's writeTo bytes (TruncatedError, CorruptError, UnsupportedError otherwise).")
      .def("to_bytes", [](const guava_bloom& f) { return to_py_bytes(write_guava_stream(f)); },
           "Guava's writeTo bytes: BloomFilter.readFrom(in, funnel) reads them into an equal filter.")
      .def("save", [](const guava_bloom& f, nb::handle path) { save_jvm_filter(jvm_filter(f), fs_path(path)); }, "path"_a,
           "Writes to_bytes() to `path` atomically.")
      .def("add", &guava_add, "key"_a, "Guava's put: True if any bit changed.")
      .def("may_contain", &guava_contains, "key"_a, "Guava's mightContain.")
      .def(
          "add_many",
          [](guava_bloom& f, nb::handle keys) {
            for (const jvm_key& k : jvm_keys(keys)) guava_add_key(f, k);
          },
          "keys"_a,
          "put for every key of an iterable, in order, each as `add` takes it (a NumPy integer array: every\n"
          "value through longFunnel). Every key is converted before the first is added: a bad one raises and\n"
          "leaves the filter unchanged.")
      .def(
          "may_contain_many",
          [](const guava_bloom& f, nb::handle keys) { return answers_for(f, keys, guava_contains_key); }, "keys"_a,
          "mightContain for every key of an iterable (or a NumPy integer array, longFunnel), as a NumPy bool array.")
      .def("__contains__", &guava_contains, "key"_a)
      .def("add_int", [](guava_bloom& f, std::int32_t v) { return f.insert(v); }, "value"_a, "put through Funnels.integerFunnel().")
      .def("may_contain_int", [](const guava_bloom& f, std::int32_t v) { return f.may_contain(v); }, "value"_a,
           "mightContain through Funnels.integerFunnel().")
      .def("merge", [](guava_bloom& a, const guava_bloom& b) { a.merge(b); }, "other"_a, "Guava's putAll (MismatchError for another shape).")
      .def("intersect", [](guava_bloom& a, const guava_bloom& b) { a.intersect(b); }, "other"_a)
      .def_prop_ro("strategy", [](const guava_bloom& f) { return f.strategy(); })
      .def_prop_ro("k", [](const guava_bloom& f) { return f.k(); })
      .def_prop_ro("bit_count", [](const guava_bloom& f) { return f.bit_count(); })
      .def_prop_ro("popcount", [](const guava_bloom& f) { return f.popcount(); })
      .def_prop_ro("fill_ratio", [](const guava_bloom& f) { return f.fill_ratio(); })
      .def_prop_ro("estimated_fpr", [](const guava_bloom& f) { return f.estimated_fpr(); }, "Guava's expectedFpp(): fill^k.")
      .def("__eq__", [](const guava_bloom& a, const guava_bloom& b) { return a == b; }, nb::is_operator(),
           "Value equality (the same bits, k, seed and version or strategy); another class compares unequal.");
  // Mutable and compared by value, so not hashable (as bloomkit's own kinds).
  m.attr("GuavaBloom").attr("__hash__") = nb::none();

  m.def(
      "from_jvm_bytes", [](const nb::bytes& data) { return to_python(read_jvm_filter(bytes_of(data))); }, "data"_a,
      "A SparkBloom or GuavaBloom from its library's writeTo bytes, told apart by the header.");
  m.def(
      "load_jvm", [](nb::handle path) { return to_python(load_jvm_filter(fs_path(path))); }, "path"_a,
      "A SparkBloom or GuavaBloom from a file holding its library's writeTo bytes.");
}

}  // namespace bloomkit::python
