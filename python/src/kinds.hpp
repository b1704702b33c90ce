// python/src/kinds.hpp - kind_info<F> for every kind (what only the Python
// class says about it: its parameter fields and docstrings) and bind_kind<F>,
// the one template that makes a kind's Python class. The class name, the CLI
// spelling, the default hash and the capabilities are the library's
// kind_traits<F> (bloomkit/filter.hpp).
//
// bind_kind<F> derives everything from the library's concepts and traits
// (bloomkit/filter.hpp): the common surface (bind_filter_common), the
// (capacity, fpr) constructor where kind_info says the kind has the plain
// one, the accessors of the capabilities the kind has (has_blocks,
// has_probe_count, has_bit_array, the static facade), the incremental calls
// (incremental_filter: add, batches, test-and-add, merge or its refusal),
// and remove / count where the kind removes. A kind's own .cpp adds only
// what is its own (exact-parameter constructors, kind-specific state).
#pragma once

#include "counts.hpp"
#include "filter_class.hpp"

namespace bloomkit::python {

// ---- kind_info: the per-kind facts ---------------------------------------------
//
//   fields(d, f) the kind's own entries of `params` (params_dict adds the
//                design point and the hash)
//   plain_init   [opt] the kind is built as Class(capacity, fpr=0.01, *, hash, hash_seed)
//   k_doc, capacity_doc, fill_doc, design_fpr_doc   [opt] docstrings where the
//                the kind means something other than kind_docs (filter_class.hpp) says
//   repr_state(f) [opt] see filter_class.hpp

template <>
struct kind_info<split_block_bloom> : kind_docs {
  static constexpr bool plain_init = true;
  static constexpr const char* k_doc = "Bits set per key (k).";
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    d["num_blocks"] = f.num_blocks();
    d["k"] = f.num_hashes();
  }
};

template <>
struct kind_info<blocked_bloom> : kind_docs {
  static constexpr bool plain_init = true;
  static constexpr const char* k_doc = "Bits set per key (k).";
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    kind_info<split_block_bloom>::fields(d, f);
  }
};

template <>
struct kind_info<standard_bloom> : kind_docs {
  static constexpr bool plain_init = true;
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    d["bits"] = f.bit_count();
    d["k"] = f.num_hashes();
  }
};

template <>
struct kind_info<counting_bloom> : kind_docs {
  static constexpr bool plain_init = true;
  static constexpr const char* k_doc = "Counters per key (k).";
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    d["counters"] = f.counters();
    d["k"] = f.num_hashes();
  }
};

template <>
struct kind_info<scalable_bloom> : kind_docs {
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    const auto& p = f.params();
    d["initial_capacity"] = p.initial_capacity;
    d["growth"] = p.growth;
    d["tightening"] = p.tightening;
    d["stages"] = f.stages();
  }
};

template <>
struct kind_info<binary_fuse> : kind_docs {
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    const auto& p = f.params();
    d["fingerprint_bits"] = p.fingerprint_bits;
    d["arity"] = p.arity;
    d["segment_length"] = p.segment_length;
    d["segment_count"] = p.segment_count;
    d["seed"] = p.seed;
    d["keys"] = p.keys;
  }
};

template <>
struct kind_info<ribbon> : kind_docs {
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    const auto& p = f.params();
    d["result_bits"] = p.result_bits;
    d["layout"] = p.layout == ribbon_layout::bumped ? "bumped" : "standard";
    d["slots"] = p.slots;
    d["seed"] = p.seed;
    d["keys"] = p.keys;
  }
};

template <>
struct kind_info<cuckoo_filter> : kind_docs {
  static constexpr const char* fill_doc =
      "The load factor: stored fingerprints over table slots, in [0, 1] (the victim slot counts as a key).";
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    d["buckets"] = f.buckets();
    d["fingerprint_bits"] = f.fingerprint_bits();
    d["slots_per_bucket"] = 4;
  }
};

template <>
struct kind_info<age_partitioned_bloom> : kind_docs {
  static constexpr const char* k_doc = "Slices each key is written to (k); a query looks for k consecutive hits.";
  static constexpr const char* capacity_doc =
      "The window asked for: keys for a count window, time units (the caller's clock) for a time window.";
  static constexpr const char* design_fpr_doc =
      "The FPR bound: for any one generation, with probability at least 1 - 10^-9 over the hash function,\n"
      "the FPR of the bits present stays at most this at every moment of that generation (the run-of-k DP\n"
      "over an upper bound on every slice's fill; docs/MATH.md). The planner sizes m so that it is at most\n"
      "target_fpr; a file written before the bound (sized on the mean fill) reports its own parameters'\n"
      "bound, a little above its target.";
  template <class X>
  static void fields(nb::dict& d, const X& f) {
    const auto& p = f.params();
    d["k"] = p.k;
    d["l"] = p.l;
    d["slice_bits"] = p.slice_bits;
    d["generation_keys"] = p.generation_keys;
    d["generation_time"] = p.generation_time;
    d["window"] = p.window;
    // How each slice's bit is derived: "independent" (filters from format
    // version 3 on) or "double_hashing" (older files, kept so they answer
    // exactly as before).
    d["probes"] = p.probes == apbf_probes::double_hashing ? "double_hashing" : "independent";
    // The clock a time window records: "seconds" (time_window(unit="seconds"),
    // `bloomkit build --window-seconds`) or "" (not recorded).
    d["time_unit"] = p.time_unit == apbf_time_unit::seconds ? "seconds" : "";
  }
  /// ", last 1000 keys (2500 inserted)" or ", last 3600 time units (now 7200, 2500 inserted)".
  template <class X>
  static std::string repr_state(const X& f) {
    char buf[160];
    if (f.params().generation_time == 0) {
      std::snprintf(buf, sizeof buf, ", last %llu keys (%llu inserted)",
                    static_cast<unsigned long long>(f.params().window), static_cast<unsigned long long>(f.inserted()));
    } else {
      std::snprintf(buf, sizeof buf, ", last %llu time units (now %llu, %llu inserted)",
                    static_cast<unsigned long long>(f.params().window),
                    static_cast<unsigned long long>(f.state().now), static_cast<unsigned long long>(f.inserted()));
    }
    return buf;
  }
};

// ---- bind_kind --------------------------------------------------------------------

/// The Python class of kind F, named kind_traits<F>::python_class, with class
/// docstring `doc` (see the file comment for what it derives).
template <class F>
nb::class_<py_filter<F>> bind_kind(nb::module_& m, const char* doc) {
  using K = kind_info<F>;
  using W = py_filter<F>;
  auto cls = bind_filter_common<F>(m, kind_traits<F>::python_class.data(), doc);

  if constexpr (requires { K::plain_init; }) {
    cls.def(
        "__init__",
        [](W* self, count_arg capacity, double fpr, std::string_view hash, std::uint64_t hash_seed,
           const std::optional<std::string>& key_type) {
          new (self) W(F(capacity.get("capacity"), fpr, make_hash_spec(hash, hash_seed, key_type)));
        },
        "capacity"_a, "fpr"_a = 0.01, nb::kw_only(), "hash"_a = algorithm_name(kind_traits<F>::default_hash),
        "hash_seed"_a = kind_traits<F>::default_hash.seed, "key_type"_a = nb::none(),
        "A filter for `capacity` keys at false-positive rate `fpr` (InvalidArgumentError for capacity 0 or\n"
        "fpr outside (0, 1)). `capacity` is an int or a whole float (1e6); 1.5 is a TypeError. `key_type` ('int64', 'bytes', ...; docs/KEYS.md) fixes what its keys are;\n"
        "by default the first typed insert decides.");
  }
  if constexpr (has_blocks<F>) {
    def_state(cls, "num_blocks", [](const auto& f) { return f.num_blocks(); }, "Number of blocks.");
  }
  if constexpr (has_probe_count<F>) {
    def_state(cls, "num_hashes", [](const auto& f) { return f.num_hashes(); }, kind_info<F>::k_doc);
  }
  if constexpr (has_bit_array<F>) {
    def_state(cls, "bit_count", [](const auto& f) { return f.bit_count(); }, "Bits in the filter (m).");
  }
  if constexpr (kind_traits<F>::is_static) {
    def_state(cls, "bits_per_key", [](const auto& f) { return f.bits_per_key(); },
              "Bits of the filter per stored key.");
    def_state(cls, "keys", [](const auto& f) { return f.keys(); },
              "Distinct keys stored (duplicates are stored once).");
  }
  if constexpr (incremental_filter<F>) {
    bind_insertable<F>(cls);
  }
  if constexpr (removable_filter<F>) {
    cls.def(
           "remove",
           [](W& self, key_arg key) {
             const auto lock = self.write_lock();
             F& f = self.writable();
             return f.remove_hash(hash_object(key, f.hash())) == remove_result::removed;
           },
           "key"_a,
           "Remove one occurrence of `key`. Returns False, changing nothing, if the key is certainly absent.\n"
           "Remove only keys you added: removing a false positive would take away another key.")
        .def(
            "count",
            [](const W& self, key_arg key) {
              const auto lock = self.read_lock();
              return self.read([&](const auto& f) { return f.count_estimate_hash(hash_object(key, f.hash())); });
            },
            "key"_a, "An upper bound on how often `key` was added (colliding keys add to it).");
  }
  return cls;
}

}  // namespace bloomkit::python
