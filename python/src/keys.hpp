// python/src/keys.hpp - how Python values become bloomkit keys and hashes.
//
// A filter's key type (hash_spec::keys, docs/KEYS.md) decides how a value
// becomes the bytes it hashes, the same way as in C++ and the CLI, so that a
// filter built in Python, in C++ or by the CLI from the same values is the
// same filter, byte for byte:
//   bytes         str (UTF-8), bytes, bytearray, memoryview and other buffers; Arrow string/binary
//   int64         int, bool, NumPy integer and bool, Arrow integer and bool: widened to 8 bytes
//   float64       float, NumPy and Arrow floats: widened to the 8-byte IEEE-754 double
//   int32 float32 (Parquet column filters) the values that convert exactly
//   timestamp_us  datetime, pandas Timestamp, NumPy datetime64, Arrow timestamp: microseconds
//   date32        date, NumPy datetime64[D], Arrow date32/date64: days
// A value converts when that is exact and is refused otherwise
// (bloomkit.MismatchError naming both types), a batch as a whole before its
// first key is hashed. A filter of key type `unspecified` (files written
// before format version 5) hashes every value's own canonical bytes, as
// bloomkit always did: int 8 bytes, float its double, bool one byte, NumPy
// and Arrow values at their own width. An empty untyped filter takes the
// type of its first typed insert (the callers: fast_calls.hpp,
// filter_class.hpp).
//
// A batch (key_batch) is a description of where the keys' bytes lie (NumPy
// data, Arrow buffers, or hashes computed from a Python iterable) and how
// each converts, made and checked with the GIL held; hashing it
// (for_each_hash_chunk) needs no Python object and runs with the GIL
// released. Missing values (Arrow nulls, None, NaN in object and pandas
// columns, pd.NA, NaT) are skipped in every batch: they answer False.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"

namespace bloomkit::python {

namespace nb = nanobind;

/// What the values of a key or a column are, for docs/KEYS.md's conversions:
/// the class decides the key type the values give an untyped filter and the
/// key types they can convert into at all (whether each value does is a
/// question for the value: an int64 into int32 only if it fits).
enum class value_class : std::uint8_t {
  none,       ///< no values (an Arrow null array): converts into every type, gives none
  bytes,      ///< byte strings and text
  integer,    ///< integers of every width and signedness
  boolean,    ///< booleans (0 or 1)
  floating,   ///< floating point of every width
  timestamp,  ///< instants: datetime, datetime64 (not unit D), Arrow timestamp
  date,       ///< calendar dates: date, datetime64[D], Arrow date32/date64
  other,      ///< values with no key type (timedelta, decimal, time of day): untyped filters only
};

/// The key type values of class `c` give an untyped filter (docs/KEYS.md,
/// "Where each source type goes"); unspecified for none and other.
key_type key_type_of(value_class c) noexcept;

/// The key type one Python key gives an untyped filter (its class's, see
/// key_type_of(value_class)); unspecified for a missing value or a non-key.
key_type key_type_of(nb::handle key);

/// The class of one Python key (a value that is not missing): str and
/// byte buffers bytes, bool boolean, int integer, float floating, datetime
/// (pandas Timestamp too) timestamp, date date, NumPy scalars by their dtype
/// (datetime64[D] a date), anything else other.
value_class class_of(nb::handle key);

/// Whether `key` is a missing value: None, pandas' NA and NaT, a NumPy NaT;
/// with `nan_missing` a float NaN too (pandas' spelling of a missing value
/// in object and string columns).
bool is_missing(nb::handle key, bool nan_missing);

/// The name of x's type for messages: "str", "int", "numpy.int32", "pandas.Timestamp".
std::string python_type_name(nb::handle x);

/// The numpy module, imported once and kept for the process.
nb::handle numpy_module();

/// A NumPy datetime64 unit as a conversion: days (`date`, unit D: the value
/// times mul days) or microseconds (value * mul / div, mul / div in lowest
/// terms); `linear` is false for units of no fixed length (Y, M, generic),
/// which the caller converts with NumPy first.
struct time_scale {
  bool linear = true;
  bool date = false;
  std::int64_t mul = 1;
  std::int64_t div = 1;
};
time_scale numpy_time_scale(std::string_view unit, std::int64_t count);

/// v * mul / div when that is exact (v a multiple of div) and fits in 64 bits.
std::optional<std::int64_t> scale_exact(std::int64_t v, std::int64_t mul, std::int64_t div) noexcept;

/// Throws bloomkit::error(errc::mismatch, "this filter holds <held> keys;
/// got <what>") unless values of class `c` can convert into `held`
/// (docs/KEYS.md, "What converts", read by class; every class converts into
/// unspecified, whose keys hash as they are).
void require_class(value_class c, key_type held, std::string_view what);

/// The hash of one Python key under `spec`: converted into spec.keys when
/// that is exact (docs/KEYS.md), its own canonical bytes when spec.keys is
/// unspecified. Throws bloomkit::error(errc::mismatch) naming both types for
/// a value that does not convert, nb::type_error for a value that is not a
/// key (None and the other missing values included) and an overflow error
/// (bloomkit.KeyOverflowError) for an int outside [-2^63, 2^64).
std::uint64_t hash_object(nb::handle key, hash_spec spec);

/// Where the keys of one batch are. Built with the GIL held by make_batch();
/// read without it. `keepalive` holds the Python objects owning the memory.
struct key_batch {
  enum class layout {
    hashes,      ///< precomputed 64-bit hashes (uint64 array): used as they are
    fixed,       ///< n keys of `width` bytes each, back to back at `data`
    varlen32,    ///< Arrow string/binary: int32 offsets[n + 1] into `data`
    varlen64,    ///< Arrow large_string/large_binary: int64 offsets
    bits,        ///< Arrow bool: bit i of `data` (from bit `bit_offset`) is key i
    dictionary,  ///< Arrow dictionary: `width`-byte indices at `data` into dict_hashes (hashed once)
  };
  /// What each key of a fixed-width segment is in memory (native byte order).
  enum class element : std::uint8_t {
    raw,      ///< bytes hashed as they are: fixed_size_binary, and what untyped filters read at its width
    i8, i16, i32, i64, u8, u16, u32, u64,
    boolean,  ///< one byte, any non-zero byte true (NumPy bool arrays may hold other bytes than 0 and 1)
    f32, f64,
    scaled,   ///< signed integers of `width` bytes, each key value * scale_mul / scale_div (exact,
              ///< checked by make_batch), hashed as out_width bytes: temporal values to µs or days
  };
  struct segment {
    layout kind = layout::fixed;
    element elem = element::raw;
    value_class values = value_class::other;  ///< the class of the keys (for checks and adoption)
    const std::byte* data = nullptr;
    std::size_t data_size = 0;          ///< bytes readable at data (varlen bounds checks)
    const void* offsets = nullptr;      ///< varlen only
    std::size_t width = 0;              ///< fixed only
    std::size_t bit_offset = 0;         ///< bits only: the array's offset in bits
    std::size_t count = 0;              ///< keys in this segment (nulls included)
    const std::uint8_t* validity = nullptr;  ///< validity bitmap (LSB first, as Arrow's) or nullptr (no nulls)
    std::size_t validity_offset = 0;    ///< bit offset into validity
    std::int64_t scale_mul = 1;         ///< scaled only
    std::int64_t scale_div = 1;         ///< scaled only
    std::size_t out_width = 8;          ///< scaled only: 8 (int64, µs) or 4 (int32, days)
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
  /// vectors keeps the inner buffers where they are), and validity bitmaps
  /// made here (the iterable path's missing values).
  std::vector<std::vector<std::uint64_t>> owned_dictionary_hashes;
  std::vector<std::vector<std::uint8_t>> owned_dictionary_valid;
  std::vector<std::vector<std::uint8_t>> owned_bitmaps;
  std::vector<nb::object> keepalive;
  std::size_t total = 0;                    ///< keys over all segments, nulls included
  /// The spec the keys were checked against and are hashed with: the
  /// filter's, or with the key type an empty untyped filter adopts (`adopts`).
  hash_spec spec{};
  /// The key type the filter must take before this batch goes in
  /// (unspecified: none; see make_batch's `may_adopt`).
  key_type adopts = key_type::unspecified;
  /// What the batch is, for messages ("a NumPy int32 array").
  std::string what;

  [[nodiscard]] bool has_nulls() const noexcept {
    for (const auto& s : segments) {
      if (s.validity != nullptr || s.dict_valid != nullptr) return true;
    }
    return false;
  }
};

/// Describes `x` as a batch of keys for a filter hashing with `spec`: a
/// NumPy array (numeric, bool or datetime64, any byte order, made
/// contiguous), a pyarrow Array or ChunkedArray (strings, binaries,
/// integers, floats, bools, timestamps, dates, fixed-size binary;
/// dictionaries of these: each dictionary value hashed once, each key its
/// index's hash), a pandas Series or Index of any dtype (through the NumPy or
/// Arrow path: no Python object per key), or any other iterable of keys
/// (hashed here, with the GIL held). `as_hashes` says that the array holds
/// hashes already (add_hashes): it must then be integer, and no key type
/// applies. With `may_adopt` (an add to an empty filter whose spec.keys is
/// unspecified) the batch takes the key type its values give (batch.adopts,
/// batch.spec.keys) and is converted into it. Every key is checked against
/// batch.spec here: a value that does not convert raises MismatchError.
/// Throws nb::type_error for unsupported inputs; nothing is hashed into a
/// filter by this call, so a failure leaves every filter unchanged.
key_batch make_batch(nb::handle x, hash_spec spec, bool as_hashes = false, bool may_adopt = false);

/// Calls fn(std::span<const std::uint64_t> hashes, std::size_t first,
/// const bool* valid) for consecutive chunks of the batch's hashes (under
/// batch.spec), in key order; `first` is the index of the chunk's first key
/// and `valid` is nullptr when the chunk has no nulls, else one flag per key
/// (a null key's hash is meaningless). Needs no GIL.
template <class Fn>
void for_each_hash_chunk(const key_batch& batch, Fn&& fn);

/// Adds every non-null key of `batch` to filter `f`, in key order: the same
/// filter as one insert per key. f.hash() must be batch.spec (see
/// adopt_for_batch). insert_hashes(std::span<const std::uint64_t>) adds
/// hashes (chunks, or precomputed hashes in place). With `keyed_calls`,
/// aligned 4- and 8-byte keys without nulls go to the library's keyed batch
/// call (f.insert_keys) whole instead; pass false where insert_hashes must
/// see every key (a kind whose batch insert can stop part way). Needs no GIL.
template <class Filter, class InsertHashes>
void insert_batch(Filter& f, const key_batch& batch, InsertHashes&& insert_hashes, bool keyed_calls);

/// out[i] = f.may_contain(key i) for every key of `batch` (false for a
/// missing value), by the same routes as insert_batch. `out` holds
/// batch.total flags. Needs no GIL.
template <class Filter>
void query_batch_into(const Filter& f, const key_batch& batch, bool* out);

/// Throws errc::mismatch, changing nothing, unless `batch` can go into `f`
/// (with the lock held): f's hash_spec is the one the batch was made for, or
/// becomes it by adopting the batch's key type (f still untyped and empty).
/// Fails when another call gave f a type or keys in between.
template <class Filter>
void require_batch_fits(const Filter& f, const key_batch& batch) {
  if (f.hash() == batch.spec) return;
  if (batch.adopts != key_type::unspecified && f.hash().keys == key_type::unspecified && f.inserted() == 0) {
    hash_spec adopted = f.hash();
    adopted.keys = batch.adopts;
    if (adopted == batch.spec) return;
  }
  throw bloomkit::error(errc::mismatch, "this filter holds " + std::string(to_string(f.hash().keys)) +
                                            " keys; the batch was made for " +
                                            std::string(to_string(batch.spec.keys)) +
                                            " keys (another call changed the filter meanwhile); nothing was added");
}

/// Before `batch` goes into `f` (with the lock held): require_batch_fits,
/// then f's key type becomes the batch's where it adopts one. A caller that
/// has a step which can still fail (reserving a growing filter's stages)
/// calls require_batch_fits first and this after that step, so that a failed
/// batch leaves even the key type as it was.
template <class Filter>
void adopt_for_batch(Filter& f, const key_batch& batch) {
  require_batch_fits(f, batch);
  if (f.hash() != batch.spec) f.adopt_key_type(batch.adopts);
}

/// The key type named by a Python argument (None: unspecified; "int64",
/// "bytes", ...: docs/KEYS.md's names); InvalidArgumentError otherwise.
key_type key_type_argument(const std::optional<std::string>& name);

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
