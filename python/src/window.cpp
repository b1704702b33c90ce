// python/src/window.cpp - bind_window: AgePartitionedBloom
// (bloomkit/age_partitioned_bloom.hpp), "seen among the last N keys" or "seen
// in the last T time units" of the caller's clock. bind_kind gives the common
// surface (add slides a count window; test-and-add; merge refused); here the
// time-window constructor, the calls that take a time, and the window's state.
#include "bloomkit/age_partitioned_bloom.hpp"
#include "counts.hpp"
#include "kinds.hpp"

namespace bloomkit::python {

namespace {

using F = age_partitioned_bloom;
using W = py_filter<F>;

constexpr const char* window_doc =
    "AgePartitionedBloom(window, fpr=0.01, *, hash='xxh3_64', hash_seed=0)\n"
    "AgePartitionedBloom.time_window(window_time, max_keys, fpr=0.01, *, hash='xxh3_64', hash_seed=0)\n\n"
    "An age-partitioned Bloom filter (Shtul, Baquero and Almeida, 2020): remembers only recent keys, with\n"
    "an FPR bound (design_fpr) that holds at every moment of a stream, not only after a fill: for any one\n"
    "generation, with probability at least 1 - 10^-9 over the hash function, the FPR of the bits present\n"
    "stays at most design_fpr at every moment of it (over G generations, all hold but with probability at\n"
    "most G * 10^-9; docs/MATH.md). The planner sizes m on this bound, so design_fpr <= fpr.\n"
    "k + l slices of m bits form a ring; a key sets one bit in each of the k newest; every g inserts (a\n"
    "generation) the oldest slice is cleared and becomes the newest; a query looks for k consecutive hits.\n\n"
    "Count window (the constructor): the last `window` keys are always reported. Exactly, for a key with\n"
    "j keys inserted after it: reported for certain while j < guaranteed_window (= l g + 1 >= window);\n"
    "no longer reported for certain once j >= expired_after ((l + 1) g), though it still answers 'maybe'\n"
    "more often than the FPR for k - 1 more generations; answers like a never-seen key once\n"
    "j >= forgotten_after ((k + l) g).\n\n"
    "Time window (time_window): keys added within the last `window_time` units of the caller's clock\n"
    "(any non-negative integers that never decrease: seconds, milliseconds, ...) are reported, for up to\n"
    "`max_keys` keys per window at a steady rate. A key added at time t is reported until at least\n"
    "t + guaranteed_time, expires by t + expired_time, is forgotten by t + forgotten_time, provided no\n"
    "generation after its own filled up (more than generation_keys keys within generation_time): a full\n"
    "generation ends early to keep the FPR bound, and overflowed_generations counts those. In every case\n"
    "the l generations after a key's own end by count or by time, so a key added at t_key with j keys\n"
    "after it is reported at time t while\n"
    "    j // generation_keys + (t - t_key) // generation_time < extra_slices\n"
    "(keys and time share one budget; under bursts neither guaranteed_window nor guaranteed_time holds\n"
    "alone). Times go in with add_at / add_many_at / advance_to and queries with\n"
    "may_contain_at / may_contain_many_at; add and `in` use the latest time seen (now).\n\n"
    "The ring's position and the clock are saved in the file. Window filters do not merge (merge and |\n"
    "raise UnsupportedError with the reason).\n\n"
    "    >>> f = bloomkit.AgePartitionedBloom(1000, 0.01)\n"
    "    >>> f.add_many(range(10_000)); 9_999 in f\n"
    "    True";

/// Refuses a call that takes a time on a count window (InvalidArgumentError).
template <class X>
void require_time_window(const X& f, const char* call) {
  if (f.params().generation_time == 0) {
    throw_invalid(std::string("AgePartitionedBloom.") + call +
                  " needs a time window (AgePartitionedBloom.time_window); this is a count window");
  }
}

/// The times of add_many_at as uint64 values: an int (one time for every
/// key) or a 1-D array-like of non-negative integers, one per key.
struct batch_times {
  std::optional<std::uint64_t> single;
  u64_array many;

  batch_times(nb::handle times, std::size_t keys) {
    if (PyLong_Check(times.ptr())) {
      if (PyObject_RichCompareBool(times.ptr(), nb::int_(0).ptr(), Py_LT) == 1) {
        throw_invalid("add_many_at: times must be non-negative");
      }
      if (PyObject_RichCompareBool(times.ptr(), nb::int_(~std::uint64_t{0}).ptr(), Py_GT) == 1) {
        PyErr_SetString(PyExc_OverflowError, "add_many_at: times must be at most 2**64 - 1");
        throw nb::python_error();
      }
      single = nb::cast<std::uint64_t>(times);
      return;
    }
    nb::module_ np = nb::module_::import_("numpy");
    nb::object array = np.attr("asarray")(times);
    const std::string kind = utf8_string(array.attr("dtype").attr("kind"));
    const auto size = nb::cast<std::size_t>(array.attr("size"));
    if (nb::cast<std::size_t>(array.attr("ndim")) != 1 || (size != 0 && kind != "i" && kind != "u")) {
      throw nb::type_error("times must be an int or a 1-D array of non-negative integers (one per key)");
    }
    if (size != keys) {
      throw_invalid("add_many_at: " + std::to_string(size) + " times for " + std::to_string(keys) + " keys");
    }
    if (kind == "i" && size != 0 && nb::cast<long long>(nb::int_(array.attr("min")())) < 0) {
      throw_invalid("add_many_at: times must be non-negative");
    }
    many = uint64_argument(np.attr("ascontiguousarray")(array, "dtype"_a = "uint64"), "times");
  }
  [[nodiscard]] std::uint64_t at(std::size_t i) const { return single ? *single : many.values[i]; }
};

/// may_contain_at over a batch (Arrow nulls answer False), the GIL released.
nb::object query_batch_at(const W& self, nb::handle keys, std::uint64_t now) {
  {
    const auto lock = self.read_lock();
    self.read([](const auto& f) {
      require_time_window(f, "may_contain_many_at");
      return 0;
    });
  }
  return query_batch(self, keys, false, [now](const auto& f, const key_batch& batch, bool* out) {
    for_each_hash_chunk(batch, [&](std::span<const std::uint64_t> h, std::size_t first, const bool* valid) {
      for (std::size_t j = 0; j < h.size(); ++j) {
        out[first + j] = (valid == nullptr || valid[j]) && f.may_contain_hash_at(h[j], now);
      }
    });
  });
}

}  // namespace

void bind_window(nb::module_& m) {
  auto cls = bind_kind<F>(m, window_doc);
  cls.def(
      "__init__",
      [](W* self, count_arg window, double fpr, std::string_view hash, std::uint64_t hash_seed,
         const std::optional<std::string>& key_type) {
        new (self) W(F(window.get("window"), fpr, make_hash_spec(hash, hash_seed, key_type)));
      },
      "window"_a, "fpr"_a = 0.01, nb::kw_only(), "hash"_a = "xxh3_64", "hash_seed"_a = 0, "key_type"_a = nb::none(),
      "A count window: the last `window` keys are always reported, at an FPR of at most `fpr` at every\n"
      "moment (design_fpr <= fpr; within each generation with probability at least 1 - 10^-9 over the\n"
      "hash). The design with the fewest bits over k in [1, 20], l in [1, 32]. InvalidArgumentError for\n"
      "window 0 or fpr outside (0, 1).");
  cls.def_static(
      "time_window",
      [](std::uint64_t window_time, std::uint64_t max_keys, double fpr, std::string_view hash,
         std::uint64_t hash_seed, std::string_view unit, const std::optional<std::string>& key_type) {
        // The file records the unit only when it is known (format version 3,
        // `info` then says "seconds"): the same bytes as `bloomkit build
        // --window-seconds`, which always records seconds.
        if (unit != "seconds" && !unit.empty()) {
          throw_invalid("AgePartitionedBloom.time_window: unit must be \"seconds\" or \"\" (not recorded), got \"" +
                        std::string(unit) + "\"");
        }
        return W(F(F::plan_time_params(window_time, max_keys, fpr, make_hash_spec(hash, hash_seed, key_type),
                                       unit.empty() ? apbf_time_unit::unspecified : apbf_time_unit::seconds)));
      },
      "window_time"_a, "max_keys"_a, "fpr"_a = 0.01, nb::kw_only(), "hash"_a = "xxh3_64", "hash_seed"_a = 0,
      "unit"_a = "", "key_type"_a = nb::none(),
      "A time window of `window_time` units of the caller's clock, for up to `max_keys` keys per window at\n"
      "a steady rate, at an FPR of at most `fpr` at every moment (design_fpr <= fpr; within each\n"
      "generation with probability at least 1 - 10^-9 over the hash). The clock starts at 0. unit=\"seconds\"\n"
      "records that the clock counts seconds (the file then equals `bloomkit build --window-seconds`'s and\n"
      "`bloomkit info` says seconds); by default the unit is not recorded.");
  cls.def(
         "add_at",
         [](W& self, key_arg key, std::uint64_t now) {
           const auto lock = self.write_lock();
           F& f = self.writable();
           require_time_window(f, "add_at");
           f.insert_hash_at(hash_for_write(self, f, key), now);
         },
         "key"_a, "time"_a,
         "Advance the clock to `time` (expiring the generations that ended), then add `key`. InvalidArgumentError,\n"
         "changing nothing, when `time` is before `now` or this is a count window.")
      .def(
          "add_many_at",
          [](W& self, keys_arg keys, times_arg times) {
            std::uint64_t now = 0;
            {
              const auto lock = self.read_lock();
              F& f = self.writable();
              require_time_window(f, "add_many_at");
              now = f.state().now;
            }
            const auto [spec, may_adopt] = batch_write_spec(self);
            const key_batch batch = make_batch(keys, spec, false, may_adopt);
            const batch_times t(times, batch.total);
            // Every time is checked before anything changes: never before `now`, never decreasing.
            for (std::size_t i = 0; i < batch.total; ++i) {
              const std::uint64_t ti = t.at(i);
              if (ti < now) {
                throw_invalid("add_many_at: time " + std::to_string(ti) + " of key " + std::to_string(i) +
                              " is before the time before it (" + std::to_string(now) + "); times must never decrease");
              }
              now = ti;
            }
            const released_section section(self);
            nb::gil_scoped_release release;
            std::unique_lock lock(self.sync->mutex);
            F& f = self.writable();
            if (batch.total != 0 && t.at(0) < f.state().now) {
              throw_invalid("add_many_at: another call moved the clock past this batch's first time");
            }
            adopt_for_batch(f, batch);
            auto insert = [&](std::span<const std::uint64_t> h, std::size_t first, const bool* valid) {
              for (std::size_t j = 0; j < h.size(); ++j) {
                if (valid == nullptr || valid[j]) f.insert_hash_at(h[j], t.at(first + j));
              }
            };
            for_each_hash_chunk(batch, insert);
          },
          "keys"_a, "times"_a,
          "add_at for every key of a batch, in order: `times` is one int for all of them or one non-negative\n"
          "integer per key, never decreasing and not before `now` (checked first: a bad time or key changes\n"
          "nothing). Arrow nulls are skipped. Releases the GIL.")
      .def(
          "advance_to",
          [](W& self, std::uint64_t now) {
            const auto lock = self.write_lock();
            F& f = self.writable();
            require_time_window(f, "advance_to");
            f.advance_to(now);
          },
          "time"_a,
          "Move the clock to `time`, clearing the slices of every generation that ended (InvalidArgumentError,\n"
          "changing nothing, for a time before `now` or a count window).")
      .def(
          "may_contain_at",
          [](const W& self, key_arg key, std::uint64_t now) {
            const auto lock = self.read_lock();
            return self.read([&](const auto& f) {
              require_time_window(f, "may_contain_at");
              return f.may_contain_hash_at(hash_object(key, f.hash()), now);
            });
          },
          "key"_a, "time"_a,
          "may_contain as of `time`: generations that would have ended by then are ignored, as if the clock\n"
          "had advanced (nothing changes). A `time` before `now` answers as of `now`.")
      .def(
          "may_contain_many_at",
          [](const W& self, keys_arg keys, std::uint64_t now) { return bool_array_result{query_batch_at(self, keys, now)}; },
          "keys"_a, "time"_a, "may_contain_at for every key of a batch, as a NumPy bool array. Releases the GIL.");
  def_state(cls, "is_time_window", [](const auto& f) { return f.params().generation_time != 0; },
            "True for a time window (time_window), False for a count window.");
  def_state(cls, "now", [](const auto& f) { return f.state().now; }, "The latest time seen (0 for a count window).");
  def_state(cls, "slices", [](const auto& f) { return f.slices(); }, "Slices in the ring (k + l).");
  def_state(cls, "extra_slices", [](const auto& f) { return f.params().l; },
            "l: the slices beyond k, the window's length in generations.");
  def_state(cls, "slice_bits", [](const auto& f) { return f.params().slice_bits; }, "Bits per slice (m).");
  def_state(cls, "generation_keys", [](const auto& f) { return f.params().generation_keys; },
            "g: inserts per generation (a time window also ends one after generation_time).");
  def_state(cls, "generation_time", [](const auto& f) { return f.params().generation_time; },
            "Time units per generation (0 for a count window).");
  def_state(cls, "generation_count", [](const auto& f) { return f.state().generation_count; },
            "Keys inserted in the current generation, 0 to generation_keys.");
  def_state(cls, "guaranteed_window", [](const auto& f) { return f.guaranteed_window(); },
            "The last l g + 1 keys are always reported (a key is, while fewer keys than this followed it).");
  def_state(cls, "expired_after", [](const auto& f) { return f.expired_after(); },
            "A key is no longer reported for certain once this many keys followed it: (l + 1) g.");
  def_state(cls, "forgotten_after", [](const auto& f) { return f.forgotten_after(); },
            "A key answers like a never-seen one once this many keys followed it: (k + l) g.");
  def_state(cls, "guaranteed_time", [](const auto& f) { return f.guaranteed_time(); },
            "Time windows: a key added at t is reported until at least t + this (l tau), unless a generation\n"
            "after its own overflowed (then keys and time share the l generations; see the class docstring).");
  def_state(cls, "expired_time", [](const auto& f) { return f.expired_time(); },
            "Time windows: a key added at t is no longer reported for certain from t + this ((l + 1) tau).");
  def_state(cls, "forgotten_time", [](const auto& f) { return f.forgotten_time(); },
            "Time windows: a key added at t answers like a never-seen one from t + this ((k + l) tau).");
  def_state(cls, "overflowed_generations", [](const auto& f) { return f.overflowed_generations(); },
            "Time windows: generations that filled up before their time ended (the time guarantee was bent\n"
            "for the keys before them: keys and time then share the l generations, see the class docstring;\n"
            "the FPR bound still holds).");
}

}  // namespace bloomkit::python
