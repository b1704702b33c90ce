// python/src/filter_class.hpp - the one Python class template behind every
// filter kind.
//
// A Python filter object holds a py_filter<F>: either an owning F (built,
// loaded, copied, unpickled) or a read-only F::view_type over a mapped file
// (bloomkit.open), with the mapping kept alive beside it. Every query goes
// through read(), which hands the owning filter or the view to the same
// generic code: owners and views share the library's query API.
//
// Locking: each object has a std::shared_mutex. Calls that release the GIL
// (batches, statistics, files, merges) take it, shared to read and exclusive
// to change, AFTER releasing the GIL and release it BEFORE taking the GIL
// back, so a lock holder never waits for the GIL; batch calls from many
// threads on one filter are safe and run in parallel where they only read.
// Calls that keep the GIL (one key, properties) take the mutex only while a
// GIL-free section is under way (released_section, read_lock): otherwise the
// GIL already excludes everyone, and a per-key call pays no lock. When they
// must wait for it (a batch holds it), they wait with the GIL released, so
// every other Python thread runs meanwhile; such a call then takes the GIL
// back holding the mutex, which cannot deadlock because nobody waits for
// the mutex while holding the GIL.
//
// bind_filter_common<F>() adds what every kind has (queries over keys,
// hashes and batches, state, files, pickling, the buffer protocol, repr);
// bind_insertable<F>() adds what the incremental kinds add (add, add_many,
// merge, ...). A new kind is a new call in its own bind_<kind>() area.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/optional.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <sstream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "bloomkit/file_format.hpp"
#include "errors.hpp"
#include "annotated.hpp"
#include "fast_calls.hpp"
#include "keys.hpp"

namespace bloomkit::python {

namespace nb = nanobind;
using namespace nb::literals;

/// (algorithm, seed) from the Python spelling; errc::invalid_argument otherwise.
hash_spec make_hash_spec(std::string_view algorithm, std::uint64_t seed);
/// (algorithm, seed, key type) from the Python spelling (key_type None:
/// unspecified, the filter takes the type of its first typed insert).
hash_spec make_hash_spec(std::string_view algorithm, std::uint64_t seed, const std::optional<std::string>& key_type);

/// The Python state of one filter object (see the file comment).
template <class F>
struct py_filter {
  using filter_type = F;
  using view_type = typename F::view_type;

  std::optional<F> owned;
  std::optional<view_type> view;
  std::shared_ptr<mapped_file> mapping;
  /// The lock, and how many sections that run without the GIL are under way
  /// (see released_section). Behind a pointer: neither is movable.
  struct sync_state {
    std::shared_mutex mutex;
    std::atomic<int> released{0};
  };
  std::unique_ptr<sync_state> sync = std::make_unique<sync_state>();
  std::size_t exports = 0;  ///< live buffer-protocol exports (changed with the GIL held)
  /// Per-key adds not yet written (fast_calls.hpp, "deferred per-key adds").
  /// Mutable: settle() runs in const calls (a query writes the adds that
  /// logically came before it). Changed only with the GIL held while no
  /// GIL-free section is under way.
  mutable deferred_adds<F> deferred;

  /// The lock for a call that keeps the GIL (per-key calls, properties). While
  /// no GIL-free section is under way on this filter none can start (starting
  /// one takes the GIL), so the GIL alone excludes every other user and the
  /// mutex is skipped: a per-key call costs one atomic load, not a lock.
  /// Otherwise the mutex, waited for without the GIL (see the file's comment).
  [[nodiscard]] std::shared_lock<std::shared_mutex> read_lock() const {
    if (sync->released.load(std::memory_order_acquire) == 0) return {sync->mutex, std::defer_lock};
    return lock_releasing_gil<std::shared_lock<std::shared_mutex>>();
  }
  [[nodiscard]] std::unique_lock<std::shared_mutex> write_lock() const {
    if (sync->released.load(std::memory_order_acquire) == 0) return {sync->mutex, std::defer_lock};
    return lock_releasing_gil<std::unique_lock<std::shared_mutex>>();
  }
  /// The mutex taken at once when it is free; otherwise waited for with the
  /// GIL released (called with the GIL held, returns with it held).
  template <class Lock>
  [[nodiscard]] Lock lock_releasing_gil() const {
    Lock lock(sync->mutex, std::try_to_lock);
    if (!lock.owns_lock()) {
      nb::gil_scoped_release release;
      lock.lock();
    }
    return lock;
  }

  /// Whether f.add may park its hash (fast_calls.hpp): an owner, no GIL-free
  /// section under way (so the GIL alone guards this object), no buffer exported.
  [[nodiscard]] bool may_defer_add() const noexcept {
    return owned && exports == 0 && sync->released.load(std::memory_order_acquire) == 0;
  }
  /// Writes the parked per-key adds into the filter. Called with the GIL held
  /// before any other use; a no-op when none are parked (always so inside a
  /// GIL-free section: its start settled, and adds during it do not park).
  void settle() const noexcept {
    if constexpr (defers_adds<F>) {
      if (deferred.adds == 0) return;
      // Parked hashes exist only on an owner; the object itself is never const.
      F& f = const_cast<F&>(*owned);
      const auto parked = static_cast<std::size_t>(std::min<std::uint64_t>(deferred.adds, deferred_capacity));
      f.insert_many(std::span<const std::uint64_t>(deferred.hashes.data(), parked));
      deferred.adds = 0;
    }
  }

  explicit py_filter(F f) : owned(std::move(f)) {}
  py_filter(view_type v, std::shared_ptr<mapped_file> m) : view(std::move(v)), mapping(std::move(m)) {}

  /// fn(owned filter or view). The caller holds the lock (shared or unique).
  template <class Fn>
  decltype(auto) read(Fn&& fn) const {
    settle();
    if (owned) return fn(*owned);
    if (!view) throw py_error{binding_error::closed, "this mapped filter was closed"};
    return fn(*view);
  }
  /// The owning filter for a change; ReadOnlyError for a mapped view.
  F& writable() {
    settle();
    if (owned) return *owned;
    if (!view) throw py_error{binding_error::closed, "this mapped filter was closed"};
    throw py_error{binding_error::read_only,
                   "this filter is a read-only view of a mapped file (bloomkit.open); use copy() for a writable one"};
  }
};

/// Marks a section of a call on `filter` that will run without the GIL:
/// made with the GIL held BEFORE releasing it (so read_lock() in any thread
/// that holds the GIL sees it and takes the mutex), destroyed after taking
/// the GIL back. Inside, the section takes the mutex itself.
class released_section {
 public:
  template <class W>
  explicit released_section(const W& filter) : count_(filter.sync->released) {
    filter.settle();
    count_.fetch_add(1, std::memory_order_acq_rel);
  }
  released_section(const released_section&) = delete;
  released_section& operator=(const released_section&) = delete;
  ~released_section() { count_.fetch_sub(1, std::memory_order_acq_rel); }

 private:
  std::atomic<int>& count_;
};

/// The docstrings of the accessors whose meaning varies by kind, as most
/// kinds mean them; a kind's kind_info (kinds.hpp) derives from this and
/// states its own where it means something else.
struct kind_docs {
  /// num_hashes: what k counts.
  static constexpr const char* k_doc = "Probes per key (k).";
  /// capacity: what the design capacity counts.
  static constexpr const char* capacity_doc = "The design number of keys.";
  /// design_fpr: the rate the parameters give (a bound with a confidence for some kinds).
  static constexpr const char* design_fpr_doc =
      "The false-positive rate the parameters give at the design capacity (the kind's own model, as in estimated_fpr).";
  /// fill_ratio: what the fill is.
  static constexpr const char* fill_doc = "Fraction of bits (counters) set, in [0, 1]. O(size).";
};

/// What only the Python class says about kind F (kinds.hpp); every other
/// fact is the library's kind_traits<F>.
template <class F>
struct kind_info;

// ---- helpers shared by every kind ------------------------------------------------

/// The filter's words as bytes (what the buffer protocol and protocol-5
/// pickling expose), or an empty span for a kind with several buffers.
template <class X>
std::span<const std::byte> raw_bytes(const X& f) {
  if constexpr (requires { f.blocks(); }) {
    return std::as_bytes(f.blocks());
  } else if constexpr (requires { f.words(); }) {
    return std::as_bytes(f.words());
  } else if constexpr (requires { f.typed(); }) {
    return std::visit([](const auto& t) { return std::as_bytes(t.fingerprints()); }, f.typed());
  } else {
    return {};
  }
}

/// Kinds whose state is one array (the buffer protocol exports it); a kind
/// made of stages has several and exports none.
template <class F>
constexpr bool has_single_buffer = !requires(const F& f) { f.stages(); };


/// may_contain over a batch: out[i] for each key, false for a missing
/// value. The keys are converted into the filter's key type (MismatchError
/// for keys that do not convert). `probe(f, batch, out)` answers the whole
/// batch without the GIL (default: query_batch_into, the kind's batch
/// calls; a time window asks as of a time).
template <class F, class Probe>
nb::object query_batch(const py_filter<F>& self, nb::handle keys, bool as_hashes, Probe probe) {
  hash_spec spec{};
  {
    const auto lock = self.read_lock();
    spec = self.read([](const auto& f) { return f.hash(); });
  }
  const key_batch batch = make_batch(keys, spec, as_hashes);
  bool_output out(batch.total);
  {
    const released_section section(self);
    nb::gil_scoped_release release;
    std::shared_lock lock(self.sync->mutex);
    self.read([&](const auto& f) {
      probe(f, batch, out.data);
      return 0;
    });
  }
  return out.array;
}
template <class F>
nb::object query_batch(const py_filter<F>& self, nb::handle keys, bool as_hashes) {
  return query_batch(self, keys, as_hashes, [](const auto& f, const key_batch& b, bool* out) {
    query_batch_into(f, b, out);
  });
}

/// Every non-null hash of the batch, in order (static construction, iterables).
inline std::vector<std::uint64_t> collect_hashes(const key_batch& batch) {
  std::vector<std::uint64_t> out;
  out.reserve(batch.total);
  for_each_hash_chunk(batch, [&](std::span<const std::uint64_t> h, std::size_t, const bool* valid) {
    for (std::size_t j = 0; j < h.size(); ++j) {
      if (valid == nullptr || valid[j]) out.push_back(h[j]);
    }
  });
  return out;
}

inline std::string algorithm_name(hash_spec spec) { return std::string(to_string(spec.algorithm)); }

inline nb::tuple hash_tuple(hash_spec spec) { return nb::make_tuple(algorithm_name(spec), spec.seed); }

/// "1.25 MiB" for reprs.
inline std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

/// An output stream buffer that keeps the first `limit` bytes written and
/// counts (discards) the rest: the file header of a filter without copying
/// its payload (protocol-5 pickling sends the payload out of band).
class prefix_buffer : public std::streambuf {
 public:
  explicit prefix_buffer(std::size_t limit) : limit_(limit) { kept_.reserve(limit); }
  [[nodiscard]] const std::string& kept() const noexcept { return kept_; }
  [[nodiscard]] std::size_t seen() const noexcept { return seen_; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto count = static_cast<std::size_t>(n);
    if (seen_ < limit_) kept_.append(s, std::min(count, limit_ - seen_));
    seen_ += count;
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) {
      const char ch = traits_type::to_char_type(c);
      xsputn(&ch, 1);
    }
    return traits_type::not_eof(c);
  }

 private:
  std::size_t limit_;
  std::size_t seen_ = 0;
  std::string kept_;
};

/// The spec a batch written into `self` is made for (make_batch), and
/// whether the batch may give the filter its key type: an owning filter
/// that is untyped and empty (its first typed insert decides its type).
/// Read with the GIL held; adopt_for_batch checks it again under the lock.
template <class F>
std::pair<hash_spec, bool> batch_write_spec(py_filter<F>& self) {
  const auto lock = self.read_lock();
  F& f = self.writable();
  return {f.hash(), f.hash().keys == key_type::unspecified && f.inserted() == 0};
}

/// The encoded file (docs/FORMAT.md) of the filter, as Python bytes.
template <class F>
nb::bytes encode_bytes(const py_filter<F>& self) {
  std::vector<std::byte> bytes;
  {
    const released_section section(self);
    nb::gil_scoped_release release;
    std::shared_lock lock(self.sync->mutex);
    bytes = self.read([](const auto& f) { return save_to_bytes(f); });
  }
  return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

template <class F>
int get_buffer(PyObject* self, Py_buffer* view, int flags) {
  view->obj = nullptr;
  if (!nb::inst_ready(self)) {
    PyErr_SetString(PyExc_BufferError, "the filter is not initialised");
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) != 0) {
    PyErr_SetString(PyExc_BufferError, "a filter's buffer is read-only");
    return -1;
  }
  auto* w = nb::inst_ptr<py_filter<F>>(self);
  w->settle();  // the exported words show every add made so far
  std::span<const std::byte> raw;
  if (w->owned) {
    raw = raw_bytes(*w->owned);
  } else if (w->view) {
    raw = raw_bytes(*w->view);
  } else {
    PyErr_SetString(exception_type(binding_error::closed), "this mapped filter was closed");
    return -1;
  }
  if (PyBuffer_FillInfo(view, self, const_cast<std::byte*>(raw.data()), static_cast<Py_ssize_t>(raw.size()), 1, flags) != 0) {
    return -1;
  }
  ++w->exports;
  return 0;
}

template <class F>
void release_buffer(PyObject* self, Py_buffer*) {
  if (nb::inst_ready(self)) --nb::inst_ptr<py_filter<F>>(self)->exports;
}

/// A read-only property `name` whose value is fn(filter or view), read with
/// the GIL held: for O(1) state (counters, parameters).
template <class F, class Fn>
void def_state(nb::class_<py_filter<F>>& cls, const char* name, Fn fn, const char* doc) {
  cls.def_prop_ro(
      name,
      [fn](const py_filter<F>& self) {
        const auto lock = self.read_lock();
        return self.read(fn);
      },
      doc);
}

/// def_state for O(size) state (fill, estimates): the GIL is released while
/// fn scans the words, so other threads run meanwhile.
template <class F, class Fn>
void def_scan(nb::class_<py_filter<F>>& cls, const char* name, Fn fn, const char* doc) {
  cls.def_prop_ro(
      name,
      [fn](const py_filter<F>& self) {
        const released_section section(self);
        nb::gil_scoped_release release;
        std::shared_lock lock(self.sync->mutex);
        return self.read(fn);
      },
      doc);
}

/// The kind's parameters as a dict: its own fields (kind_info<F>::fields),
/// then the design point (incremental kinds) and the hash.
template <class F, class X>
nb::dict params_dict(const X& f) {
  nb::dict d = new_dict();
  kind_info<F>::fields(d, f);
  if constexpr (!kind_traits<F>::is_static) {
    d["capacity"] = f.capacity();
    d["target_fpr"] = f.target_fpr();
  }
  d["hash"] = algorithm_name(f.hash());
  d["hash_seed"] = f.hash().seed;
  d["key_type"] = std::string(to_string(f.hash().keys));
  return d;
}

/// The pickle reduction (see __reduce_ex__ below).
template <class F>
nb::object reduce_ex(nb::handle py_self, int protocol) {
  const py_filter<F>& self = *fast_impl::ready<F>(py_self.ptr());
  nb::module_ package = nb::module_::import_("bloomkit");
  if constexpr (has_single_buffer<F>) {
    if (protocol >= 5) {
      // The header in band, the words out of band (PickleBuffer over
      // this object's buffer): Dask/Ray send them without a copy.
      std::string header;
      std::size_t payload = 0;
      {
        const released_section section(self);
        nb::gil_scoped_release release;
        std::shared_lock lock(self.sync->mutex);
        self.read([&](const auto& f) {
          payload = raw_bytes(f).size();
          const std::uint64_t total = saved_size(f);
          prefix_buffer buf(static_cast<std::size_t>(total - payload));
          std::ostream out(&buf);
          save(f, out);
          header = buf.kept();
          return 0;
        });
      }
      nb::object pickle_buffer(nb::steal(PyPickleBuffer_FromObject(py_self.ptr())));
      if (!pickle_buffer.is_valid()) throw nb::python_error();
      return nb::make_tuple(package.attr("_unpickle"),
                            nb::make_tuple(nb::bytes(header.data(), header.size()), pickle_buffer));
    }
  }
  return nb::make_tuple(package.attr("from_bytes"), nb::make_tuple(encode_bytes(self)));
}

/// __reduce_ex__ as METH_O. Not a nanobind method: pickle reads it with
/// getattr, and nanobind's method __get__ does not check that its bound
/// method was allocated (a segfault when that allocation fails; found by
/// python/tests/test_faults.py). CPython's method descriptor checks.
template <class F>
PyObject* reduce_ex_method(PyObject* self, PyObject* protocol) noexcept {
  try {
    const long p = PyLong_AsLong(protocol);
    if (p == -1 && PyErr_Occurred() != nullptr) return nullptr;
    return reduce_ex<F>(nb::handle(self), static_cast<int>(p)).release().ptr();
  } catch (...) {
    set_error_from_current_exception();
    return nullptr;
  }
}

/// The class with everything every kind has. `doc` is the class docstring.
template <class F>
nb::class_<py_filter<F>> bind_filter_common(nb::module_& m, const char* name, const char* doc) {
  using W = py_filter<F>;
  static PyType_Slot buffer_slots[] = {
      {Py_sq_contains, reinterpret_cast<void*>(&contains_slot<F>)},
      {Py_bf_getbuffer, reinterpret_cast<void*>(&get_buffer<F>)},
      {Py_bf_releasebuffer, reinterpret_cast<void*>(&release_buffer<F>)},
      {0, nullptr},
  };
  static PyType_Slot no_slots[] = {{Py_sq_contains, reinterpret_cast<void*>(&contains_slot<F>)}, {0, nullptr}};
  nb::class_<W> cls(m, name, doc, nb::type_slots(has_single_buffer<F> ? buffer_slots : no_slots));

  // `key in f` is the sq_contains slot (fast_calls.hpp; no __contains__ method:
  // defining one would replace the slot with a slower method call), and
  // may_contain a METH_O method for the same reason.
  def_meth_o(cls, "may_contain", reinterpret_cast<PyCFunction>(&may_contain_method<F>),
             "may_contain($self, key, /)\n--\n\n"
             "True if `key` may have been added; False means it certainly was not (no false negatives).\n\n"
             "The key converts into the filter's key_type when that is exact (an int or a NumPy int32 into\n"
             "int64, a datetime into timestamp_us, ...; docs/KEYS.md); a key that does not raises\n"
             "MismatchError naming both types. An int outside [-2**63, 2**64) raises KeyOverflowError. An\n"
             "untyped filter (key_type 'unspecified') hashes the key's own bytes: bytes-like as they are, str\n"
             "as UTF-8, int as 8 little-endian bytes, float as its IEEE-754 double bits, bool as one byte.");
  def_meth_o(cls, "__reduce_ex__", reinterpret_cast<PyCFunction>(&reduce_ex_method<F>),
             "__reduce_ex__($self, protocol, /)\n--\n\n"
             "Pickling: protocol 5 sends the words as an out-of-band PickleBuffer (no copy); older protocols\n"
             "send to_bytes().");
  cls.def(
          "may_contain_hash",
          [](const W& self, std::uint64_t h) {
            const auto lock = self.read_lock();
            return self.read([&](const auto& f) { return f.may_contain_hash(h); });
          },
          "hash"_a, "may_contain for a precomputed 64-bit hash (see bloomkit.hash_keys).")
      .def(
          "may_contain_many", [](const W& self, keys_arg keys) { return bool_array_result{query_batch(self, keys, false)}; }, "keys"_a,
          "may_contain for every key of a batch, as a NumPy bool array (one entry per key). Takes keys;\n"
          "may_contain_hashes takes precomputed hashes. (In C++ the names differ: there may_contain_many\n"
          "takes hashes and may_contain_keys takes keys.)\n\n"
          "`keys`: a 1-D NumPy array (numbers, bools, datetime64), a pyarrow Array or ChunkedArray\n"
          "(strings, binaries, integers, floats, timestamps, dates, dictionaries; read in place), a pandas\n"
          "Series or Index of any dtype (through NumPy or Arrow, no Python object per key), or any iterable\n"
          "of keys. The batch is converted into the filter's key_type and checked whole first (MismatchError\n"
          "naming both types if it does not convert). Missing values (nulls, None, pd.NA, NaT, NaN in pandas\n"
          "and object columns) answer False. The GIL is released while hashing and probing.")
      .def(
          "may_contain_hashes", [](const W& self, hashes_arg hashes) { return bool_array_result{query_batch(self, hashes, true)}; },
          "hashes"_a,
          "may_contain_many over precomputed uint64 hashes (a NumPy uint64 array or an iterable of ints); C++\n"
          "spells this batch may_contain_many.");
  def_state(cls, "inserted", [](const auto& f) { return f.inserted(); },
            "Insert calls counted (duplicates included; a merge adds the other's count). A static filter: its keys.\n"
            "See inserted_accuracy: after an intersection it is only an upper bound.");
  def_state(
      cls, "inserted_accuracy",
      [](const auto& f) {
        if constexpr (requires { f.inserted_accuracy(); }) {
          return std::string(bloomkit::to_string(f.inserted_accuracy()));
        } else {
          return std::string("exact");
        }
      },
      "What `inserted` is: \"exact\" (a count), \"at_most\" (an upper bound: an intersection keeps the\n"
      "smaller input's count) or \"estimated\" (from the bits set, e.g. a filter taken from Parquet).");
  def_state(cls, "capacity", [](const auto& f) { return f.capacity(); }, kind_info<F>::capacity_doc);
  def_state(cls, "target_fpr", [](const auto& f) { return f.target_fpr(); }, "The design false-positive rate.");
  def_scan(cls, "estimated_cardinality", [](const auto& f) { return f.estimated_cardinality(); },
           "Distinct keys estimated from the bits set (a static filter knows its key count). O(size).");
  def_scan(cls, "estimated_fpr", [](const auto& f) { return f.estimated_fpr(); },
           "The false-positive rate for the bits set now (exact for these bits under a uniform hash). O(size).");
  def_state(cls, "design_fpr", [](const auto& f) { return f.design_fpr(); }, kind_info<F>::design_fpr_doc);
  def_scan(cls, "saturated", [](const auto& f) { return f.saturated(); },
           "True once more distinct keys than the capacity went in (beyond the estimate's noise).");
  def_state(cls, "size_in_bytes", [](const auto& f) { return f.size_in_bytes(); },
            "Bytes of the filter's words (the file adds a header).");
  def_state(cls, "hash_spec", [](const auto& f) { return hash_tuple(f.hash()); },
            "(algorithm, seed): the hash keys go through, 'xxh64' or 'xxh3_64'.");
  def_state(cls, "key_type", [](const auto& f) { return std::string(to_string(f.hash().keys)); },
            "What the filter's keys are (docs/KEYS.md), recorded in its file: 'bytes' (str as UTF-8, bytes),\n"
            "'int64' (every integer and bool, widened), 'float64', 'int32' and 'float32' (Parquet columns),\n"
            "'timestamp_us' (datetimes, in microseconds), 'date32' (dates, in days), or 'unspecified' (files\n"
            "written before key types, filters used only with hashes: every value hashes its own bytes). An\n"
            "unspecified filter takes the type of its first typed insert; values convert into the type when\n"
            "that is exact, anything else raises MismatchError naming both types.");
  cls.def(
      "adopt_key_type",
      [](W& self, const std::string& name) {
        const key_type t = key_type_argument(name);
        const auto lock = self.write_lock();
        F& f = self.writable();
        if constexpr (requires { f.adopt_key_type(t); }) {
          f.adopt_key_type(t);
        } else {
          throw bloomkit::error(errc::unsupported, std::string(kind_traits<F>::python_class) + " has no key type to adopt");
        }
      },
      "key_type"_a,
      "Give an untyped filter (key_type 'unspecified') the key type `key_type` ('int64', 'bytes', ...); a\n"
      "no-op when it has that type already; MismatchError, changing nothing, when it has another. Keys\n"
      "added before hashed their own bytes: an int, a float and a str hash the same under their type, a\n"
      "NumPy or Arrow integer narrower than 8 bytes does not. A new filter takes its type from its first\n"
      "typed insert, or from the constructors' key_type argument.");
  def_state(cls, "params", [](const auto& f) { return params_dict<F>(f); },
            "The parameters that fix the filter's layout and design point, as a dict.");
  cls.def_prop_ro(
          "kind", [](const W&) { return std::string(kind_traits<F>::cli_name); },
          "The kind's name as the CLI spells it (bloomkit.kind(name) maps it back to this class).")
      .def_prop_ro(
          "read_only", [](const W& self) { return !self.owned.has_value(); },
          "True for a view of a mapped file (bloomkit.open).")
      .def_prop_ro(
          "closed", [](const W& self) { return !self.owned && !self.view; }, "True after close() of a mapped filter.")
      .def(
          "close",
          [](W& self) {
            if (self.owned) return;
            if (self.exports != 0) {
              throw nb::buffer_error("cannot close a mapped filter while its buffer is exported (memoryview alive)");
            }
            const released_section section(self);
            nb::gil_scoped_release release;
            std::unique_lock lock(self.sync->mutex);
            self.view.reset();
            self.mapping.reset();
          },
          "Unmap a filter opened with bloomkit.open (no-op for an owning filter); later use raises ClosedError.")
      .def(
          "__enter__", [](nb::handle self) { return same_class_result<W>{nb::borrow(self)}; },
          "`with bloomkit.open(path) as f:` closes the mapping at the end of the block.")
      .def(
          "__exit__", [](nb::handle self, nb::args) { self.attr("close")(); }, "Close a mapped filter.")
      .def("to_bytes", [](const W& self) { return encode_bytes(self); },
           "The filter in bloomkit's file format (docs/FORMAT.md), as bytes; bloomkit.from_bytes reads it back.")
      .def(
          "save",
          [](const W& self, path_arg path) {
            const std::string p = fs_path(path);
            const released_section section(self);
            nb::gil_scoped_release release;
            std::shared_lock lock(self.sync->mutex);
            self.read([&](const auto& f) {
              save(f, std::filesystem::path(p));
              return 0;
            });
          },
          "path"_a,
          "Write the filter to `path` atomically (temporary file, fsync, rename): the file is the old one or the\n"
          "complete new one, never half-written. Same bytes as to_bytes() and as the CLI writes.")
      .def(
          "copy",
          [](const W& self) {
            const released_section section(self);
            nb::gil_scoped_release release;
            std::shared_lock lock(self.sync->mutex);
            if (self.owned) return W(F(*self.owned));
            const auto bytes = self.read([](const auto& f) { return save_to_bytes(f); });
            return W(load_as<F>(std::span<const std::byte>(bytes)));
          },
          "An independent, writable copy (also of a mapped, read-only filter).")
      .def_static(
          "from_bytes",
          [](bytes_arg data) {
            Py_buffer view;
            if (PyObject_GetBuffer(data.value.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
            const std::span<const std::byte> bytes(static_cast<const std::byte*>(view.buf),
                                                   static_cast<std::size_t>(view.len));
            std::optional<F> f;
            try {
              nb::gil_scoped_release release;
              f.emplace(load_as<F>(bytes));
            } catch (...) {
              PyBuffer_Release(&view);
              throw;
            }
            PyBuffer_Release(&view);
            return W(std::move(*f));
          },
          "data"_a,
          "The filter in `data` (bloomkit's file format), which must hold this kind: MismatchError if it\n"
          "holds another (bloomkit.from_bytes takes any kind).")
      .def_static(
          "load",
          [](path_arg path) {
            const std::string p = fs_path(path);
            nb::gil_scoped_release release;
            return W(load_as<F>(std::filesystem::path(p)));
          },
          "path"_a, "The filter in the file at `path`, which must hold this kind (MismatchError otherwise).")
      .def(
          "__copy__", [](nb::handle self) { return same_class_result<W>{self.attr("copy")()}; }, "copy.copy(f): same as f.copy().")
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return same_class_result<W>{self.attr("copy")()}; }, "memo"_a,
          "copy.deepcopy(f): same as f.copy().")
      // Value equality, as SparkBloom and GuavaBloom have: two filters are
      // equal when their files would be (the file holds the kind, the
      // parameters, the hash spec with the key type, the bits or slots, and
      // the counts), so f == f.copy() and a mapped filter equals the owner it
      // was saved from. Each side is read under its own lock in turn, never
      // both at once (two threads comparing a == b and b == a cannot
      // deadlock).
      .def(
          "__eq__",
          [](nb::handle self, nb::handle other) -> nb::object {
            if (!nb::isinstance<W>(other)) return nb::borrow(Py_NotImplemented);
            if (self.is(other)) return nb::bool_(true);
            const nb::bytes a = encode_bytes(nb::cast<const W&>(self));
            const nb::bytes b = encode_bytes(nb::cast<const W&>(other));
            return nb::bool_(a.equal(b));
          },
          "other"_a.none(),
          "Value equality: the same kind, parameters, hash spec (key type included), bits and counts, as\n"
          "to_bytes() would show; another class compares unequal.");
  // Mutable (and, when mapped, closable) containers compare by value, so
  // they are not hashable: a hash would change with every add. Static kinds
  // follow, so that no kind's filters are set members or dict keys
  // (to_bytes() is one, where that is what is wanted).
  cls.attr("__hash__") = nb::none();
  cls
      .def("__repr__", [name](const W& self) {
        const auto lock = self.read_lock();
        if (!self.owned && !self.view) return std::string("<") + name + " (closed)>";
        return self.read([&](const auto& f) {
          std::string out = std::string("<") + name + " " + human_bytes(static_cast<double>(f.size_in_bytes())) +
                            ", " + std::string(to_string(f.hash().keys)) + " keys";
          char buf[160];
          if constexpr (requires { f.fill_ratio(); }) {
            std::snprintf(buf, sizeof buf, ", fill %.1f%%", 100.0 * f.fill_ratio());
            out += buf;
          }
          if constexpr (requires { kind_info<F>::repr_state(f); }) {
            out += kind_info<F>::repr_state(f);
          } else {
            // inserted counts insert calls, repeats included; the capacity is
            // in distinct keys (docs/KEYS.md "Capacity"), so the bits' own
            // estimate of the distinct keys stands beside the count.
            std::snprintf(buf, sizeof buf, ", inserted %llu", static_cast<unsigned long long>(f.inserted()));
            out += buf;
            if constexpr (!bloomkit::stores_repeats_v<F> && requires { f.estimated_cardinality(); }) {
              const double distinct = f.estimated_cardinality();
              if (std::isfinite(distinct)) {
                std::snprintf(buf, sizeof buf, " (about %.0f distinct)", distinct);
              } else {
                std::snprintf(buf, sizeof buf, " (too full to estimate the distinct keys)");
              }
              out += buf;
            }
            std::snprintf(buf, sizeof buf, " of capacity %llu", static_cast<unsigned long long>(f.capacity()));
            out += buf;
          }
          std::snprintf(buf, sizeof buf, ", fpr %.3g now (target %.3g)", f.estimated_fpr(), f.target_fpr());
          out += buf;
          if (!self.owned) out += ", read-only mapped";
          return out + ">";
        });
      });

  if constexpr (has_fill_ratio<F>) {
    def_scan(cls, "fill_ratio", [](const auto& f) { return f.fill_ratio(); }, kind_info<F>::fill_doc);
  }
  return cls;
}

// ---- inserting: the kinds that can fill up (fallible_insert) --------------------

/// bloomkit.FullError for a kind that filled up: says what is full and that nothing changed.
template <class F>
py_error full_error(const F& f, std::string_view what) {
  char figures[160];
  std::snprintf(figures, sizeof figures, " (load %.4f of %llu slots, victim slot taken)", f.load_factor(),
                static_cast<unsigned long long>(f.slots()));
  return py_error{binding_error::full, std::string(to_string(kind_traits<F>::kind)) + ": the filter is full" + figures +
                                           "; " + std::string(what) +
                                           ". remove() keys, or build a larger filter (a key added more than 8 "
                                           "times also fills its two buckets)"};
}

/// insert_hash, raising FullError (nothing changed) where the kind can fill up.
template <class F>
void insert_one(F& f, std::uint64_t h) {
  if constexpr (fallible_insert<F>) {
    if (f.try_insert_hash(h) == insert_result::full) throw full_error(f, "the key was not added");
  } else {
    f.insert_hash(h);
  }
}

/// What a batch insert needs to undo itself: for kinds that can fill up, a
/// copy of the filter taken before the batch (O(size) memory and time per
/// batch call), so a batch that fills the table is rolled back whole; nothing
/// for the others, whose batches cannot fail once the keys are hashed.
template <class F>
struct batch_undo {
  explicit batch_undo(const F& f) {
    if constexpr (fallible_insert<F>) before.emplace(f);
  }
  std::optional<F> before;
};

/// Plans a batch of at most `n` inserts before the first one where the
/// kind's insert can fail (scalable_bloom::reserve_inserts builds the stages
/// it needs): such a batch is refused whole, the filter unchanged.
template <class F>
void reserve_batch(F& f, std::size_t n) {
  if constexpr (requires { f.reserve_inserts(std::uint64_t{}); }) {
    f.reserve_inserts(n);
  } else {
    (void)f, (void)n;
  }
}

/// insert_many, or for a kind that can fill up: try_insert_many up to the key that
/// found the table full, then the filter restored from `undo` and FullError.
template <class F>
void insert_hashes(F& f, std::span<const std::uint64_t> hashes, const batch_undo<F>& undo) {
  if constexpr (fallible_insert<F>) {
    if (f.try_insert_many(hashes) < hashes.size()) {
      const py_error full = full_error(f, "the batch was not added (the filter is as it was before the call)");
      f = *undo.before;
      throw full;
    }
  } else {
    (void)undo;
    f.insert_many(hashes);
  }
}

// ---- test-and-add -------------------------------------------------------------------

/// Kinds with a one-pass test-and-add (insert_if_absent_hash).
template <class F>
concept tests_and_adds = requires(F& f, std::uint64_t h) { f.insert_if_absent_hash(h); };

/// insert_if_absent_hash as a bool: true when the key was certainly absent and
/// is now stored. A fallible_insert kind's `full` (absent, no room) raises FullError.
template <class F>
bool insert_if_absent_one(F& f, std::uint64_t h) {
  if constexpr (fallible_insert<F>) {
    const insert_result r = f.try_insert_if_absent_hash(h);
    if (r == insert_result::full) throw full_error(f, "the key is absent and was not added");
    return r == insert_result::inserted;
  } else {
    return f.insert_if_absent_hash(h);
  }
}

template <class F>
void bind_test_and_add(nb::class_<py_filter<F>>& cls);
template <class F>
  requires mergeable_with<F, F>
void bind_merge(nb::class_<py_filter<F>>& cls);
template <class F>
void bind_no_merge(nb::class_<py_filter<F>>& cls);

/// Adds the calls of incremental kinds (everything but the static filters).
template <class F>
void bind_insertable(nb::class_<py_filter<F>>& cls) {
  using W = py_filter<F>;
  auto add_batch = [](W& self, nb::handle keys, bool as_hashes) {
    const auto [spec, may_adopt] = batch_write_spec(self);
    const key_batch batch = make_batch(keys, spec, as_hashes, may_adopt);
    const released_section section(self);
    nb::gil_scoped_release release;
    std::unique_lock lock(self.sync->mutex);
    F& f = self.writable();
    if (!as_hashes) require_batch_fits(f, batch);
    reserve_batch(f, batch.total);  // may refuse the batch: before anything changes, the key type included
    if (!as_hashes) adopt_for_batch(f, batch);
    const batch_undo<F> undo(f);
    insert_batch(f, batch, [&](std::span<const std::uint64_t> h) { insert_hashes(f, h, undo); },
                 !fallible_insert<F>);  // a kind that can fill up must see every key (undo)
  };
  // add / insert: METH_O methods (fast_calls.hpp), the per-key path without nanobind's dispatch.
  def_meth_o(cls, "add", reinterpret_cast<PyCFunction>(&add_method<F>),
             "add($self, key, /)\n--\n\n"
             "Add one key (hashed with this filter's hash_spec; see may_contain for key types).");
  def_meth_o(cls, "insert", reinterpret_cast<PyCFunction>(&add_method<F>), "insert($self, key, /)\n--\n\nSame as add.");
  cls.def(
          "add_hash",
          [](W& self, std::uint64_t h) {
            const auto lock = self.write_lock();
            insert_one(self.writable(), h);
          },
          "hash"_a, "Add a precomputed 64-bit hash.")
      .def(
          "add_many", [add_batch](W& self, keys_arg keys) { add_batch(self, keys, false); }, "keys"_a,
          "Add every key of a batch. Takes keys; add_hashes takes precomputed hashes. (In C++ the names\n"
          "differ: there insert_keys takes keys and insert_many takes hashes.)\n\n"
          "See may_contain_many for the inputs; missing values are skipped. The\n"
          "keys are all read, converted into the filter's key_type and checked first, so a bad key raises\n"
          "with the filter unchanged; an untyped, empty filter takes the batch's key type. Releases the GIL.")
      .def(
          "add_hashes", [add_batch](W& self, hashes_arg hashes) { add_batch(self, hashes, true); }, "hashes"_a,
          "Add precomputed uint64 hashes (e.g. from bloomkit.hash_keys). Releases the GIL.")
      .def(
          "clear",
          [](W& self) {
            const auto lock = self.write_lock();
            self.writable().clear();
          },
          "Remove every key: all bits zero, inserted zero.");
  bind_test_and_add<F>(cls);
  if constexpr (mergeable_with<F, F>) {
    bind_merge<F>(cls);
  } else {
    bind_no_merge<F>(cls);
  }
}

/// merge, intersect and their operators, for the kinds that combine by OR/AND.
template <class F>
  requires mergeable_with<F, F>
void bind_merge(nb::class_<py_filter<F>>& cls) {
  using W = py_filter<F>;
  // merge / intersect: both locks taken in address order (two threads doing
  // a |= b and b |= a cannot deadlock); the other may be a mapped view.
  auto combine = [](W& self, nb::handle other_handle, bool intersect) {
    W* other_ptr = nullptr;
    if (!nb::try_cast<W*>(other_handle, other_ptr) || other_ptr == nullptr) {
      const std::string theirs = str_of(other_handle.type().attr("__name__"));
      throw bloomkit::error(errc::mismatch, std::string(intersect ? "intersect" : "merge") + ": a " +
                                                std::string(kind_traits<F>::python_class) + " combines only with a " +
                                                std::string(kind_traits<F>::python_class) + ", not a " + theirs);
    }
    const W& other = *other_ptr;
    const released_section mine_section(self);
    const released_section their_section(other);
    nb::gil_scoped_release release;
    auto apply = [intersect](F& f, const auto& o) {
      if (intersect) {
        if constexpr (requires { f.intersect(o); }) f.intersect(o);
      } else {
        f.merge(o);
      }
    };
    if (&self == &other) {
      std::unique_lock lock(self.sync->mutex);
      F& f = self.writable();
      const F copy = f;
      apply(f, copy);
      return;
    }
    std::unique_lock<std::shared_mutex> mine(self.sync->mutex, std::defer_lock);
    std::shared_lock<std::shared_mutex> theirs(other.sync->mutex, std::defer_lock);
    if (&self.sync->mutex < &other.sync->mutex) {
      mine.lock();
      theirs.lock();
    } else {
      theirs.lock();
      mine.lock();
    }
    F& f = self.writable();
    other.read([&](const auto& o) {
      apply(f, o);
      return 0;
    });
  };
  auto copy_of = [](const W& self) {
    const auto lock = self.read_lock();
    self.settle();
    if (self.owned) return W(F(*self.owned));
    const auto bytes = self.read([](const auto& f) { return save_to_bytes(f); });
    return W(load_as<F>(std::span<const std::byte>(bytes)));
  };
  cls.def(
         "merge",
         [combine](nb::handle py_self, same_class_arg<W> other) {
           combine(nb::cast<W&>(py_self), other, false);
           return same_class_result<W>{nb::borrow(py_self)};
         },
         "other"_a,
         "Union in place (self |= other): a key of either may be in the result. Raises MismatchError, with\n"
         "self unchanged, unless both have the same kind, parameters and hash_spec. Returns self.")
      .def(
          "__ior__",
          [combine](nb::handle py_self, same_class_arg<W> other) {
            combine(nb::cast<W&>(py_self), other, false);
            return same_class_result<W>{nb::borrow(py_self)};
          },
          "other"_a, "`f |= other`: merge in place.")
      .def(
          "__or__",
          [combine, copy_of](const W& self, same_class_arg<W> other) {
            W out = copy_of(self);
            combine(out, other, false);
            return out;
          },
          "other"_a, "`f | other`: a new filter, the union of both (same checks as merge).");
  if constexpr (requires(F& f, const F& g) { f.intersect(g); }) {
    cls.def(
           "intersect",
           [combine](nb::handle py_self, same_class_arg<W> other) {
             combine(nb::cast<W&>(py_self), other, true);
             return same_class_result<W>{nb::borrow(py_self)};
           },
           "other"_a,
           "Intersection in place (self &= other): a key in both stays 'maybe'. Same checks as merge.\n"
           "Returns self.")
        .def(
            "__iand__",
            [combine](nb::handle py_self, same_class_arg<W> other) {
              combine(nb::cast<W&>(py_self), other, true);
              return same_class_result<W>{nb::borrow(py_self)};
            },
            "other"_a, "`f &= other`: intersect in place.")
        .def(
            "__and__",
            [combine, copy_of](const W& self, same_class_arg<W> other) {
              W out = copy_of(self);
              combine(out, other, true);
              return out;
            },
            "other"_a, "`f & other`: a new filter, the intersection of both (same checks as intersect).");
  }
}

/// insert_if_absent over a batch: out[i] true where key i was certainly
/// absent (earlier keys of the batch included) and is now stored; false for
/// keys that may have been present and for Arrow nulls (skipped). The keys
/// are hashed and checked first (a bad key changes nothing); a fallible_insert filter
/// that fills up is restored to its state before the call (FullError).
template <class F>
nb::object test_and_add_batch(py_filter<F>& self, nb::handle keys, bool as_hashes) {
  const auto [spec, may_adopt] = batch_write_spec(self);
  const key_batch batch = make_batch(keys, spec, as_hashes, may_adopt);
  bool_output out(batch.total);
  {
    const released_section section(self);
    nb::gil_scoped_release release;
    std::unique_lock lock(self.sync->mutex);
    F& f = self.writable();
    if (!as_hashes) require_batch_fits(f, batch);
    reserve_batch(f, batch.total);  // every key may be new; may refuse the batch before anything changes
    if (!as_hashes) adopt_for_batch(f, batch);
    const batch_undo<F> undo(f);
    for_each_hash_chunk(batch, [&](std::span<const std::uint64_t> h, std::size_t first, const bool* valid) {
      for (std::size_t j = 0; j < h.size(); ++j) {
        bool added = false;
        if (valid == nullptr || valid[j]) {
          if constexpr (fallible_insert<F>) {
            const insert_result r = f.try_insert_if_absent_hash(h[j]);
            if (r == insert_result::full) {
              const py_error full = full_error(f, "the batch was not added (the filter is as it was before the call)");
              f = *undo.before;
              throw full;
            }
            added = r == insert_result::inserted;
          } else {
            added = f.insert_if_absent_hash(h[j]);
          }
        }
        out.data[first + j] = added;
      }
    });
  }
  return out.array;
}

/// insert_if_absent, its batch forms, and add_if_absent (the same), where the kind has them.
template <class F>
void bind_test_and_add(nb::class_<py_filter<F>>& cls) {
  if constexpr (tests_and_adds<F>) {
    using W = py_filter<F>;
    auto one = [](W& self, key_arg key) {
      const auto lock = self.write_lock();
      F& f = self.writable();
      return insert_if_absent_one(f, hash_for_write(self, f, key));
    };
    cls.def("insert_if_absent", one, "key"_a,
            "Test-and-add: adds `key` only if it is certainly absent, in one pass over its probes. Returns\n"
            "True when it was absent (and is now added), False when it may already have been present (then\n"
            "nothing changed). A false positive of the filter is therefore reported as present and not\n"
            "added, at the filter's FPR.")
        .def("add_if_absent", one, "key"_a, "Same as insert_if_absent.")
        .def(
            "insert_if_absent_hash",
            [](W& self, std::uint64_t h) {
              const auto lock = self.write_lock();
              return insert_if_absent_one(self.writable(), h);
            },
            "hash"_a, "insert_if_absent for a precomputed 64-bit hash.")
        .def(
            "insert_if_absent_many", [](W& self, keys_arg keys) { return bool_array_result{test_and_add_batch(self, keys, false)}; },
            "keys"_a,
            "insert_if_absent for every key of a batch, in order, as a NumPy bool array (the batch's bitmap):\n"
            "True where the key was certainly absent, earlier keys of the batch included, and was added, so\n"
            "a key repeated in the batch is True at most once; False for keys that may have been present and\n"
            "for Arrow nulls (skipped). Inputs as add_many; the keys are checked first, and the GIL is released.")
        .def(
            "insert_if_absent_hashes",
            [](W& self, hashes_arg hashes) { return bool_array_result{test_and_add_batch(self, hashes, true)}; }, "hashes"_a,
            "insert_if_absent_many over precomputed uint64 hashes.");
  } else {
    (void)cls;
  }
}

/// merge, intersect and their operators for a kind that does not combine:
/// each raises UnsupportedError with the library's reason (kind_traits<F>::
/// no_merge_reason), changing nothing; the methods exist so the reason is
/// what a user reads, not an AttributeError.
template <class F>
void bind_no_merge(nb::class_<py_filter<F>>& cls) {
  auto refuse = [](nb::handle, same_class_arg<py_filter<F>>) -> same_class_result<py_filter<F>> {
    throw bloomkit::error(errc::unsupported, std::string(kind_traits<F>::no_merge_reason));
  };
  const char* doc = "Not supported by this kind: raises UnsupportedError with the reason (the filter is unchanged).";
  for (const char* name : {"merge", "intersect", "__or__", "__ior__", "__and__", "__iand__"}) {
    cls.def(name, refuse, "other"_a, doc);
  }
}

}  // namespace bloomkit::python
