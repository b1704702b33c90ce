// python/src/keys.hpp - how Python values become bloomkit keys and hashes.
//
// The rules are the C++ library's (include/bloomkit/hash.hpp) so that a
// filter built in Python, in C++ or by the CLI from the same keys is the same
// filter, byte for byte:
//   bytes, bytearray, memoryview, any C-contiguous buffer  -> its bytes
//   str    -> its UTF-8 bytes          int   -> 8 bytes little-endian (int64 or uint64 range)
//   float  -> IEEE-754 double bits, LE bool  -> 1 byte (0 or 1), as C++ bool
//   NumPy arrays and scalars, Arrow arrays -> each element's bytes at its type's width
//
// A batch (key_batch) is a description of where the keys' bytes lie (NumPy
// data, Arrow buffers, or hashes computed from a Python iterable), made with
// the GIL held; hashing it (for_each_hash_chunk) needs no Python object and
// runs with the GIL released.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/hash.hpp"

namespace bloomkit::python {

namespace nb = nanobind;

/// The hash of one Python key under `spec`. Throws nb::type_error for a value
/// that is not a key and an overflow error (bloomkit.KeyOverflowError) for an
/// int outside [-2^63, 2^64).
std::uint64_t hash_object(nb::handle key, hash_spec spec);

/// Where the keys of one batch are. Built with the GIL held by make_batch();
/// read without it. `keepalive` holds the Python objects owning the memory.
struct key_batch {
  enum class layout {
    hashes,      ///< precomputed 64-bit hashes (uint64 array): used as they are
    fixed,       ///< n keys of `width` bytes each, back to back at `data`
    varlen32,    ///< Arrow string/binary: int32 offsets[n + 1] into `data`
    varlen64,    ///< Arrow large_string/large_binary: int64 offsets
    bits,        ///< Arrow bool: bit i of `data` (from bit `bit_offset`) is key i, one byte 0/1
    dictionary,  ///< Arrow dictionary: `width`-byte indices at `data` into dict_hashes (hashed once)
  };
  struct segment {
    layout kind = layout::fixed;
    const std::byte* data = nullptr;
    std::size_t data_size = 0;          ///< bytes readable at data (varlen bounds checks)
    const void* offsets = nullptr;      ///< varlen only
    std::size_t width = 0;              ///< fixed only
    std::size_t bit_offset = 0;         ///< bits only: the array's offset in bits
    std::size_t count = 0;              ///< keys in this segment (nulls included)
    const std::uint8_t* validity = nullptr;  ///< Arrow validity bitmap or nullptr (no nulls)
    std::size_t validity_offset = 0;    ///< bit offset into validity
    // dictionary only: the dictionary's values hashed once (make_batch), one
    // flag per value where the dictionary has nulls (else nullptr), and
    // whether the indices are signed. Every valid index is in [0, dict_size)
    // (checked by make_batch); a null slot's index is never read.
    const std::uint64_t* dict_hashes = nullptr;
    const std::uint8_t* dict_valid = nullptr;
    std::size_t dict_size = 0;
    bool index_signed = false;
  };
  std::vector<segment> segments;
  std::vector<std::uint64_t> owned_hashes;  ///< the iterable path hashes here first
  /// Each dictionary segment's dict_hashes / dict_valid (moving the outer
  /// vectors keeps the inner buffers where they are).
  std::vector<std::vector<std::uint64_t>> owned_dictionary_hashes;
  std::vector<std::vector<std::uint8_t>> owned_dictionary_valid;
  std::vector<nb::object> keepalive;
  std::size_t total = 0;                    ///< keys over all segments, nulls included

  [[nodiscard]] bool has_nulls() const noexcept {
    for (const auto& s : segments) {
      if (s.validity != nullptr || s.dict_valid != nullptr) return true;
    }
    return false;
  }
};

/// Describes `x` as a batch of keys for a filter hashing with `spec`:
/// a NumPy array (numeric or bool, any byte order, made contiguous), a
/// pyarrow Array or ChunkedArray (strings, binaries, integers, floats, bools,
/// temporal and fixed-size binary types; dictionaries of any of these: each
/// dictionary value hashed once, each key its index's hash), or any other
/// iterable of keys (hashed here, with the GIL held). `as_hashes` says that
/// the array holds hashes already (add_hashes): it must then be integer.
/// Throws nb::type_error for unsupported inputs; nothing is hashed into a
/// filter by this call, so a failure leaves every filter unchanged.
key_batch make_batch(nb::handle x, hash_spec spec, bool as_hashes = false);

/// Calls fn(std::span<const std::uint64_t> hashes, std::size_t first,
/// const bool* valid) for consecutive chunks of the batch's hashes, in key
/// order; `first` is the index of the chunk's first key and `valid` is
/// nullptr when the chunk has no nulls, else one flag per key (a null key's
/// hash is meaningless). Needs no GIL.
template <class Fn>
void for_each_hash_chunk(const key_batch& batch, hash_spec spec, Fn&& fn);

/// Adds every non-null key of `batch` to filter `f`, in key order, hashed
/// with `spec` (which must be f.hash()): the same filter as one insert per
/// key. insert_hashes(std::span<const std::uint64_t>) adds hashes (chunks,
/// or precomputed hashes in place). With `keyed_calls`, aligned 4- and
/// 8-byte keys without nulls go to the library's keyed batch call
/// (f.insert_keys) whole instead; pass false where insert_hashes must see
/// every key (a kind whose batch insert can stop part way). Needs no GIL.
template <class Filter, class InsertHashes>
void insert_batch(Filter& f, const key_batch& batch, hash_spec spec, InsertHashes&& insert_hashes, bool keyed_calls);

/// out[i] = f.may_contain(key i) for every key of `batch` (false for an
/// Arrow null), hashed with `spec` (= f.hash()), by the same routes as
/// insert_batch. `out` holds batch.total flags. Needs no GIL.
template <class Filter>
void query_batch_into(const Filter& f, const key_batch& batch, hash_spec spec, bool* out);

/// A path argument (str, bytes or os.PathLike) as the bytes the OS takes:
/// os.fsencode's rules (PyUnicode_FSConverter), so any name os.listdir
/// returns works. Not nb::cast<std::string>: nanobind's string caster is
/// noexcept, so a failed allocation inside it would end the process.
/// Throws nb::python_error (TypeError, ValueError for a NUL, MemoryError)
/// or std::bad_alloc.
std::string fs_path(nb::handle path);

/// A str as its UTF-8 bytes; anything else is TypeError naming `what`. Not
/// nb::cast<std::string>, for fs_path's reason: that caster is noexcept, so
/// a failed allocation of the copy would end the process. Here it is
/// std::bad_alloc (MemoryError in Python), and a failed UTF-8 encoding (a
/// lone surrogate, no memory for the cache) is the Python error it raised.
std::string utf8_string(nb::handle text, const char* what = "a str");

/// utf8_string(str(x)): the text of any object (for messages and type names).
std::string str_of(nb::handle x);

/// A new empty dict / list. Not nb::dict() / nb::list(): nanobind (3.1.0)
/// does not check PyDict_New / PyList_New there, so a failed allocation gave
/// a null object that the next item assignment dereferenced (a segfault the
/// fault loop found in parquet.probe). Throws nb::python_error (MemoryError).
inline nb::dict new_dict() {
  PyObject* d = PyDict_New();
  if (d == nullptr) throw nb::python_error();
  return nb::steal<nb::dict>(d);
}
inline nb::list new_list() {
  PyObject* l = PyList_New(0);
  if (l == nullptr) throw nb::python_error();
  return nb::steal<nb::list>(l);
}

/// The bytes of a C-contiguous buffer object (a NumPy array), read through
/// the buffer protocol; `writable` asks for a writable one. Not
/// nb::cast<nb::ndarray>: nanobind 3.1.0's array import allocates with its
/// scoped_pymalloc, which ends the process on a failed allocation
/// ("Critical nanobind error"; the fault loop found it). The span stays
/// valid while `obj` lives (a NumPy array cannot be resized while referenced
/// elsewhere, and the batch keeps it). Throws nb::python_error.
std::span<std::byte> buffer_bytes(nb::handle obj, bool writable);

/// A new NumPy bool array of n elements (numpy.empty) and its data, for a
/// batch's answers that C++ fills, possibly without the GIL. Made with
/// NumPy's own call, not nb::ndarray (whose export allocates with
/// scoped_pymalloc, see buffer_bytes): a failed allocation is MemoryError.
struct bool_output {
  nb::object array;
  bool* data;
  explicit bool_output(std::size_t n);
};

/// A new 1-D NumPy array of n elements of `dtype` (numpy.empty) and its
/// data, for results C++ fills (bool_output's reason: not nb::ndarray).
struct array_output {
  nb::object array;
  std::byte* data;
  array_output(std::size_t n, const char* dtype);
};

/// The bytes of a 1-D array argument of one element type, with the object
/// that keeps them alive and in place (a memoryview holding the buffer
/// export, so nothing can resize or free them while the GIL is released).
/// Accepts what nanobind's nb::ndarray<const T, ndim<1>, c_contig> caster
/// accepted (python/tests/test_array_args.py pins it), without its
/// allocations that end the process (buffer_bytes' reason):
///   - a NumPy array (a type of the numpy package) of one dimension and a
///     bool, integer or real dtype (float16/32/64) in native byte order,
///     converted as arr.astype(dtype, order="C") when its dtype or layout
///     differs;
///   - any other buffer of one dimension, C-contiguous, whose format is one
///     of `formats` ("QL" for uint64) and whose items are `itemsize` bytes;
///   - any other DLPack exporter (pyarrow) whose array has exactly `dtype`.
/// Anything else is TypeError naming `what`; a failed allocation is
/// MemoryError. Needs the GIL.
struct array_input {
  nb::object owner;
  std::span<const std::byte> bytes;
};
array_input array_argument(nb::handle obj, const char* dtype, const char* formats, std::size_t itemsize,
                           const char* what);

/// An array argument of element type T: array_argument's bytes as a span
/// of T, with the object that keeps them in place.
template <class T>
struct array_of {
  nb::object owner;
  std::span<const T> values;
};
using u64_array = array_of<std::uint64_t>;
using i64_array = array_of<std::int64_t>;
using bool_array = array_of<bool>;

/// array_argument read as T (its itemsize is sizeof(T)).
template <class T>
array_of<T> typed_argument(nb::handle obj, const char* dtype, const char* formats, const char* what) {
  array_input a = array_argument(obj, dtype, formats, sizeof(T), what);
  return {std::move(a.owner), {reinterpret_cast<const T*>(a.bytes.data()), a.bytes.size() / sizeof(T)}};
}

/// array_argument for uint64 hashes, int64 positions and bool answers.
inline u64_array uint64_argument(nb::handle obj, const char* what) {
  return typed_argument<std::uint64_t>(obj, "uint64", "QL", what);
}
inline i64_array int64_argument(nb::handle obj, const char* what) {
  return typed_argument<std::int64_t>(obj, "int64", "ql", what);
}
inline bool_array bool_argument(nb::handle obj, const char* what) {
  static_assert(sizeof(bool) == 1);
  return typed_argument<bool>(obj, "bool", "?", what);
}

/// The error for a validity problem etc. (bloomkit.InvalidArgumentError).
[[noreturn]] void throw_invalid(const std::string& message);

}  // namespace bloomkit::python

#include "keys_impl.hpp"
