// python/src/sharding.cpp - bindings of bloomkit/sharding.hpp: the shard
// layout, routing of hashes to shards and of answers back, one shard being
// built on a worker, the manifest, and a sharded filter opened for probing.
// The Python module bloomkit.sharding wraps these with keys (hash_keys) and
// the engine helpers (bloomkit.spark, bloomkit.dask) drive them.
//
// Everything here works on 64-bit hashes (NumPy uint64 arrays): hashing keys
// is the key binding's job, and a shard answers exactly as the unsharded
// filter of the same parameters, so the Python filter classes and these
// shards agree bit for bit (tested in python/tests/test_sharding.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/sharding.hpp"
#include "keys.hpp"

namespace nb = nanobind;

namespace bloomkit::python {
namespace {

using split_policy = split_block_bloom::policy;
using blocked_policy = blocked_bloom::policy;

/// The uint64 hashes of an argument (keys.hpp, uint64_argument: what
/// nb::ndarray<const std::uint64_t, ...> took, without its aborting import).
u64_array hashes_in(nb::handle h) { return uint64_argument(h, "hashes"); }

/// A new NumPy array (numpy.empty, not nb::ndarray's aborting export) holding `values`.
template <class T>
nb::object to_numpy(const std::vector<T>& values, const char* dtype) {
  array_output out(values.size(), dtype);
  if (!values.empty()) std::memcpy(out.data, values.data(), values.size() * sizeof(T));
  return out.array;
}

/// A NumPy bool array of n answers filled by fill(bool*), the GIL released.
template <class Fill>
nb::object answers(std::size_t n, Fill&& fill) {
  bool_output out(n);
  {
    nb::gil_scoped_release unlocked;
    fill(out.data);
  }
  return out.array;
}

/// "split-block" / "split_block_bloom" -> split; "blocked" / "blocked_bloom" -> blocked.
bool is_split_kind(std::string_view kind) {
  if (kind == "split-block" || kind == "split_block" || kind == "split_block_bloom") return true;
  if (kind == "blocked" || kind == "blocked_bloom") return false;
  using part = error_part;
  throw error(errc::unsupported,
              {part::from(error_origin::library), part::words("kind '"), part::of_kind(std::string(kind)),
               part::words("' cannot be sharded (split-block and blocked filters can: a key touches one block, so a "
                           "block range is a shard)")});
}

/// The parameters (capacity, fpr) sizing chooses, with the kind's default hash.
block_filter_params plan(std::string_view kind, std::uint64_t capacity, double fpr) {
  return is_split_kind(kind) ? block_filter<split_policy>::plan_params(capacity, fpr)
                             : block_filter<blocked_policy>::plan_params(capacity, fpr);
}

/// The parameters as the manifest's JSON spells them (one format for both directions).
nb::dict params_dict(const block_filter_params& p) {
  nb::dict d = new_dict();
  d["blocks"] = p.blocks;
  d["k"] = p.k;
  d["capacity"] = p.capacity;
  d["target_fpr"] = p.target_fpr;
  d["hash_algorithm"] = std::string(to_string(p.hash.algorithm));
  d["hash_seed"] = p.hash.seed;
  return d;
}

block_filter_params params_from(const nb::dict& d) {
  block_filter_params p;
  p.blocks = nb::cast<std::uint64_t>(d["blocks"]);
  p.k = nb::cast<std::uint32_t>(d["k"]);
  p.capacity = nb::cast<std::uint64_t>(d["capacity"]);
  p.target_fpr = nb::cast<double>(d["target_fpr"]);
  const auto algorithm = utf8_string(d["hash_algorithm"], "hash_algorithm as a str");
  const auto named = hash_algorithm_named(algorithm);
  if (!named) throw error::from_library(errc::invalid_argument, "unknown hash algorithm '" + algorithm + "'");
  p.hash.algorithm = *named;
  p.hash.seed = nb::cast<std::uint64_t>(d["hash_seed"]);
  return p;
}

/// One shard of either block layout, being built.
class any_shard {
 public:
  any_shard(std::string_view kind, const nb::dict& whole, const shard_layout& layout, std::uint32_t s)
      : shard_(make(kind, params_from(whole), layout, s)) {}

  void add_hashes(nb::handle h) {
    const u64_array in = hashes_in(h);
    const auto hashes = in.values;
    nb::gil_scoped_release unlocked;
    std::visit([&](auto& shard) { shard.insert_many(hashes); }, shard_);
  }
  [[nodiscard]] nb::object may_contain_hashes(nb::handle h) const {
    const u64_array in = hashes_in(h);
    const auto hashes = in.values;
    return answers(hashes.size(), [&](bool* out) {
      std::visit([&](const auto& shard) { shard.may_contain_many(hashes, std::span<bool>(out, hashes.size())); },
                 shard_);
    });
  }
  void merge(const any_shard& other) {
    std::visit(
        [](auto& mine, const auto& theirs) {
          if constexpr (std::is_same_v<std::decay_t<decltype(mine)>, std::decay_t<decltype(theirs)>>) {
            mine.merge(theirs.view());
          } else {
            throw error::from_library(errc::mismatch, "shard merge: the shards are of different kinds");
          }
        },
        shard_, other.shard_);
  }
  /// Saves to `path` and returns the manifest entry as a dict.
  nb::dict save(nb::handle path_arg) const {
    const std::string path = fs_path(path_arg);
    const shard_entry e = std::visit([&](const auto& shard) { return save_shard(shard, path); }, shard_);
    return entry_dict(e);
  }
  [[nodiscard]] std::uint64_t inserted() const {
    return std::visit([](const auto& s) { return s.inserted(); }, shard_);
  }
  [[nodiscard]] std::uint32_t index() const {
    return std::visit([](const auto& s) { return s.index(); }, shard_);
  }

  static nb::dict entry_dict(const shard_entry& e) {
    nb::dict d = new_dict();
    d["index"] = e.index;
    d["file"] = e.file;
    d["first_block"] = e.first_block;
    d["blocks"] = e.blocks;
    d["inserted"] = e.inserted;
    d["bytes"] = e.file_bytes;
    d["xxh3"] = e.checksum;
    return d;
  }

 private:
  using variant = std::variant<block_shard<split_policy>, block_shard<blocked_policy>>;
  static variant make(std::string_view kind, const block_filter_params& p, const shard_layout& layout,
                      std::uint32_t s) {
    if (is_split_kind(kind)) return variant(std::in_place_index<0>, p, layout, s);
    return variant(std::in_place_index<1>, p, layout, s);
  }
  variant shard_;
};

shard_entry entry_from(const nb::dict& d) {
  shard_entry e;
  e.index = nb::cast<std::uint32_t>(d["index"]);
  e.file = utf8_string(d["file"], "the entry's file as a str");
  e.first_block = nb::cast<std::uint64_t>(d["first_block"]);
  e.blocks = nb::cast<std::uint64_t>(d["blocks"]);
  e.inserted = nb::cast<std::uint64_t>(d["inserted"]);
  e.file_bytes = nb::cast<std::uint64_t>(d["bytes"]);
  e.checksum = nb::cast<std::uint64_t>(d["xxh3"]);
  return e;
}

/// A sharded filter (every shard mapped) of either layout, for probing.
class any_sharded {
 public:
  explicit any_sharded(const std::string& manifest_path) : filter_(open(manifest_path)) {}

  [[nodiscard]] nb::object may_contain_hashes(nb::handle h) const {
    const u64_array in = hashes_in(h);
    const auto hashes = in.values;
    return answers(hashes.size(), [&](bool* out) {
      std::visit([&](const auto& f) { f.may_contain_many(hashes, std::span<bool>(out, hashes.size())); }, filter_);
    });
  }
  /// The unsharded filter's file bytes (bloomkit.from_bytes reads them).
  nb::bytes gather_bytes() const {
    const auto bytes = std::visit([](const auto& f) { return save_to_bytes(f.gather()); }, filter_);
    return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  [[nodiscard]] std::string manifest_json() const {
    return std::visit([](const auto& f) { return manifest_to_json(f.manifest()); }, filter_);
  }
  [[nodiscard]] shard_layout layout() const {
    return std::visit([](const auto& f) { return f.layout(); }, filter_);
  }

 private:
  using variant = std::variant<sharded_filter<split_policy>, sharded_filter<blocked_policy>>;
  static variant open(const std::string& path) {
    const std::filesystem::path p(path);
    shard_manifest m = read_manifest(p);
    const auto folder = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    if (m.kind == shard_kind_name<split_policy>()) {
      return variant(std::in_place_index<0>, std::move(m), folder);
    }
    return variant(std::in_place_index<1>, std::move(m), folder);
  }
  variant filter_;
};

}  // namespace

/// Registers ShardLayout, route, reassemble, shard_plan, BlockShard,
/// make_manifest_json, write_manifest_json, read_manifest_json and
/// ShardedFilter on `m` (all under the names bloomkit.sharding re-exports).
void bind_sharding(nb::module_& m) {

  nb::class_<shard_layout>(m, "ShardLayout", "S contiguous block ranges of a B-block filter (sharding.hpp).")
      .def(nb::init<std::uint64_t, std::uint32_t>(), nb::arg("blocks"), nb::arg("shards"))
      .def_prop_ro("blocks", &shard_layout::blocks)
      .def_prop_ro("shards", &shard_layout::shards)
      .def("first_block", &shard_layout::first_block, nb::arg("shard"))
      .def("block_count", &shard_layout::block_count, nb::arg("shard"))
      .def(
          "shard_of_hashes",
          [](const shard_layout& layout, nb::handle h) {
            const u64_array in = hashes_in(h);
            array_output out(in.values.size(), "uint32");
            {
              nb::gil_scoped_release unlocked;
              layout.shards_of(in.values,
                               std::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(out.data), in.values.size()));
            }
            return out.array;
          },
          nb::arg("hashes"), "The shard of each hash (uint64 array -> uint32 array).")
      .def("__eq__", [](const shard_layout& a, const shard_layout& b) { return a == b; })
      .def("__repr__", [](const shard_layout& l) {
        return "ShardLayout(blocks=" + std::to_string(l.blocks()) + ", shards=" + std::to_string(l.shards()) + ")";
      });

  m.def(
      "route",
      [](const shard_layout& layout, nb::handle h) {
        const u64_array in = hashes_in(h);
        shard_routing r;
        {
          nb::gil_scoped_release unlocked;
          r = route(layout, in.values);
        }
        std::vector<std::int64_t> offsets(r.offsets.begin(), r.offsets.end());
        std::vector<std::int64_t> positions(r.positions.begin(), r.positions.end());
        return nb::make_tuple(to_numpy(r.hashes, "uint64"), to_numpy(positions, "int64"),
                              to_numpy(offsets, "int64"));
      },
      nb::arg("layout"), nb::arg("hashes"),
      "Groups hashes by shard: (grouped uint64, positions int64, offsets int64 of length shards + 1);\n"
      "shard s's hashes are grouped[offsets[s]:offsets[s + 1]], in input order.");

  m.def(
      "reassemble",
      [](nb::handle positions_arg, nb::handle grouped_arg) {
        const i64_array positions = int64_argument(positions_arg, "positions");
        const bool_array grouped = bool_argument(grouped_arg, "grouped");
        const std::size_t n = positions.values.size();
        if (grouped.values.size() != n) {
          throw error(errc::invalid_argument, "reassemble: as many answers as positions are needed");
        }
        const std::int64_t* pos = positions.values.data();
        const bool* g = grouped.values.data();
        for (std::size_t j = 0; j < n; ++j) {
          if (pos[j] < 0 || static_cast<std::size_t>(pos[j]) >= n) {
            throw error(errc::invalid_argument, "reassemble: a position is out of range");
          }
        }
        return answers(n, [&](bool* out) {
          for (std::size_t j = 0; j < n; ++j) out[pos[j]] = g[j];
        });
      },
      nb::arg("positions"), nb::arg("grouped"), "out[positions[j]] = grouped[j]: answers back in input order.");

  m.def(
      "shard_plan",
      [](nb::handle kind, std::uint64_t capacity, double fpr) {
        return params_dict(plan(utf8_string(kind, "a kind name (str)"), capacity, fpr));
      },
      nb::arg("kind"), nb::arg("capacity"), nb::arg("fpr"),
      "The logical filter's parameters for (capacity, fpr): the same as the kind's class(capacity, fpr).");

  nb::class_<any_shard>(m, "BlockShard", "One shard of a sharded blocked or split-block filter, being built.")
      .def(nb::init<std::string_view, const nb::dict&, const shard_layout&, std::uint32_t>(), nb::arg("kind"),
           nb::arg("params"), nb::arg("layout"), nb::arg("index"))
      .def("add_hashes", &any_shard::add_hashes, nb::arg("hashes"),
           "Adds hashes that route to this shard (others: ValueError, nothing added).")
      .def("may_contain_hashes", &any_shard::may_contain_hashes, nb::arg("hashes"))
      .def("merge", &any_shard::merge, nb::arg("other"))
      .def("save", &any_shard::save, nb::arg("path"), "Saves atomically; returns the manifest entry (a dict).")
      .def_prop_ro("inserted", &any_shard::inserted)
      .def_prop_ro("index", &any_shard::index);

  m.def(
      "make_manifest_json",
      [](nb::handle kind_arg, const nb::dict& params, const shard_layout& layout, const nb::list& entries) {
        const std::string kind = utf8_string(kind_arg, "a kind name (str)");
        std::vector<shard_entry> list;
        for (nb::handle e : entries) list.push_back(entry_from(nb::cast<nb::dict>(e)));
        const block_filter_params p = params_from(params);
        const shard_manifest m = is_split_kind(kind) ? make_manifest<split_policy>(p, layout, std::move(list))
                                                     : make_manifest<blocked_policy>(p, layout, std::move(list));
        return manifest_to_json(m);
      },
      nb::arg("kind"), nb::arg("params"), nb::arg("layout"), nb::arg("entries"),
      "The manifest JSON for the shards' entries (one per shard, any order).");
  m.def(
      "write_manifest_json",
      [](nb::handle text, nb::handle path) {
        write_manifest(manifest_from_json(utf8_string(text, "the manifest JSON (str)")), fs_path(path));
      },
      nb::arg("text"), nb::arg("path"), "Validates the manifest and writes it atomically.");
  m.def(
      "read_manifest_json", [](nb::handle path) { return manifest_to_json(read_manifest(fs_path(path))); },
      nb::arg("path"), "Reads and validates a manifest; returns its JSON.");

  nb::class_<any_sharded>(m, "ShardedFilter",
                          "Every shard of a manifest, mapped and checked; probes are routed, answered per shard "
                          "and reassembled in order.")
      .def(
          "__init__", [](any_sharded* self, nb::handle path) { new (self) any_sharded(fs_path(path)); },
          nb::arg("manifest_path"))
      .def("may_contain_hashes", &any_sharded::may_contain_hashes, nb::arg("hashes"))
      .def("gather_bytes", &any_sharded::gather_bytes, "The unsharded filter as bloomkit file bytes.")
      .def_prop_ro("manifest_json", &any_sharded::manifest_json)
      .def_prop_ro("layout", &any_sharded::layout);
}

}  // namespace bloomkit::python
