// python/src/filters.cpp - bind_filters: the incremental Bloom kinds
// (SplitBlockBloom, BlockedBloom, StandardBloom, CountingBloom, ScalableBloom):
// bind_kind<F> (kinds.hpp) makes each class; here only what is each kind's own.
#include <algorithm>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/scalable_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "counts.hpp"
#include "kinds.hpp"

namespace bloomkit::python {

namespace {

/// The design capacity for exact-parameter constructors that were not given
/// one: what `bits` hold at `fpr` by the classic formula (at least 1).
std::uint64_t design_capacity(std::optional<std::uint64_t> capacity, std::uint64_t bits, double fpr) {
  if (capacity) return *capacity;
  if (!(fpr > 0.0 && fpr < 1.0)) throw_invalid("fpr must be in (0, 1)");
  return std::max<std::uint64_t>(1, sizing::capacity_for(bits, fpr));
}

sizing::parquet_writer parse_writer(std::string_view name) {
  if (name == "duckdb") return sizing::parquet_writer::duckdb;
  if (name == "arrow" || name == "arrow_cpp" || name == "pyarrow") return sizing::parquet_writer::arrow_cpp;
  if (name == "arrow_rs" || name == "arrow-rs" || name == "parquet-rs") return sizing::parquet_writer::arrow_rs;
  throw_invalid("writer must be \"duckdb\", \"arrow_cpp\" or \"arrow_rs\", got \"" + std::string(name) + "\"");
}

fold_estimate parse_estimate(std::string_view name) {
  if (name == "per_block") return fold_estimate::per_block;
  if (name == "mean_fill" || name == "arrow_rs") return fold_estimate::mean_fill;
  throw_invalid("estimate must be \"per_block\" or \"mean_fill\" (arrow-rs's rule), got \"" + std::string(name) + "\"");
}

/// folded(fpp) and fold() for the block layouts (block_filter::fold_to, fold).
template <class F, class Class>
void bind_fold(Class& cls) {
  using W = py_filter<F>;
  cls.def(
         "folded",
         [](nb::handle py_self, double fpp, std::string_view estimate) {
           const fold_estimate rule = parse_estimate(estimate);
           nb::object copy = py_self.attr("copy")();
           W& w = nb::cast<W&>(copy);
           {
             const auto lock = w.write_lock();
             w.writable().fold_to(fpp, rule);
           }
           return same_class_result<W>{copy};
         },
         "fpp"_a, nb::kw_only(), "estimate"_a = "per_block",
         "A copy halved (block 2i ORed with 2i+1, exactly the filter of half the blocks) as often as its\n"
         "estimated FPR stays at or under `fpp`: the smallest filter reached by halving that meets it. Stops\n"
         "at an odd block count. estimate='per_block' (default) uses the folded bits' own FPR;\n"
         "'mean_fill' is arrow-rs's rule (for its exact bytes). ValueError for fpp outside (0, 1).")
      .def(
          "fold",
          [](nb::handle py_self) {
            W& w = nb::cast<W&>(py_self);
            {
              const auto lock = w.write_lock();
              w.writable().fold();
            }
            return same_class_result<W>{nb::borrow(py_self)};
          },
          "Halve this filter in place (block 2i ORed with 2i+1); returns it. ValueError (and no change)\n"
          "for an odd block count, where halving would lose keys.")
      .def_prop_ro(
          "folded_fpr",
          [](const W& self) {
            const auto lock = self.read_lock();
            return self.read([](const auto& f) { return f.folded_fpr(); });
          },
          "estimated_fpr of the filter fold() would make (ValueError for an odd block count).");
}

constexpr const char* split_block_doc =
    "SplitBlockBloom(capacity, fpr=0.01, *, hash='xxh64', hash_seed=0)\n\n"
    "Apache Parquet's split-block Bloom filter, bit for bit: 256-bit blocks of eight 32-bit words, one bit\n"
    "per word (k = 8), block = ((h >> 32) * blocks) >> 32, XXH64 seed 0 by default, so its bitset can be\n"
    "stored in or read from a Parquet file. One cache miss per lookup; the fastest kind here.\n\n"
    "Sized with the true split-block FPR (about 10.5 bits/key at 1 %). For exact parameters use\n"
    "with_blocks(num_blocks); to match a Parquet writer's bytes, parquet_sized(ndv, fpp, writer).\n\n"
    "    >>> f = bloomkit.SplitBlockBloom(1_000_000, 0.01)\n"
    "    >>> f.add('apple'); 'apple' in f\n"
    "    True";

constexpr const char* blocked_doc =
    "BlockedBloom(capacity, fpr=0.01, *, hash='xxh3_64', hash_seed=0)\n\n"
    "A blocked Bloom filter: all k probes of a key in one 512-bit (cache-line) block, so one cache miss per\n"
    "lookup; about 9.9 bits/key at 1 % (k = 6). Exact parameters: with_blocks(num_blocks, k).";

constexpr const char* standard_doc =
    "StandardBloom(capacity, fpr=0.01, *, hash='xxh3_64', hash_seed=0)\n\n"
    "The classic Bloom filter: k probes anywhere in m bits (enhanced double hashing). Fewest bits per key\n"
    "for a given FPR (9.59 bits/key at 1 %), k cache misses per lookup. Exact parameters: with_bits(m, k).";

constexpr const char* counting_doc =
    "CountingBloom(capacity, fpr=0.01, *, hash='xxh3_64', hash_seed=0)\n\n"
    "A Bloom filter with 4-bit saturating counters in place of bits: supports remove(key). Four times the\n"
    "size of StandardBloom. A saturated counter (15) is never decremented, so removals never cause false\n"
    "negatives for other keys; remove only keys you added. to_standard() gives the exact StandardBloom.";

constexpr const char* scalable_doc =
    "ScalableBloom(initial_capacity, fpr=0.01, *, growth=2.0, tightening=0.85, hash='xxh3_64', hash_seed=0)\n\n"
    "A filter that grows (Almeida et al. 2007): when a stage is full, a new blocked stage holding `growth`\n"
    "times the keys at `tightening` times the FPR is added, so the compound FPR stays under `fpr` for any\n"
    "number of keys. Use it when the number of keys is unknown.";

/// The most blocks a split-block or blocked filter has (both kinds' limit, 2^32).
constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;

/// num_blocks * bits_per_block (the design capacity's bits), after refusing
/// a block count outside [1, max_blocks] by name: past it the product can
/// pass 2^64 and read as 0 bits.
std::uint64_t checked_block_bits(std::uint64_t num_blocks, std::uint64_t max_blocks, std::uint64_t bits_per_block,
                                 const char* cls) {
  if (num_blocks == 0 || num_blocks > max_blocks) {
    throw_invalid(std::string(cls) + ".with_blocks: num_blocks must be in [1, " + std::to_string(max_blocks) +
                  "], got " + std::to_string(num_blocks));
  }
  return num_blocks * bits_per_block;
}

}  // namespace

void bind_filters(nb::module_& m) {
  {
    using W = py_filter<split_block_bloom>;
    auto cls = bind_kind<split_block_bloom>(m, split_block_doc);
    bind_fold<split_block_bloom>(cls);
    cls.def_static(
            "with_blocks",
            [](count_arg num_blocks_arg, std::optional<count_arg> capacity, double fpr, std::string_view hash,
               std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
              const std::uint64_t num_blocks = num_blocks_arg.get("num_blocks");
              return W(split_block_bloom(block_filter_params{num_blocks, 8,
                                                             design_capacity(count_of(capacity, "capacity"), checked_block_bits(num_blocks, max_blocks, 256, "SplitBlockBloom"), fpr), fpr,
                                                             make_hash_spec(hash, hash_seed, key_type)}));
            },
            "num_blocks"_a, nb::kw_only(), "capacity"_a = nb::none(), "fpr"_a = 0.01, "hash"_a = "xxh64",
            "hash_seed"_a = 0, "key_type"_a = nb::none(),
            "A filter of exactly `num_blocks` 32-byte blocks (1 to 2**32). `capacity` and `fpr` are only the\n"
            "design point (for saturated); capacity defaults to what the bits hold at fpr.")
        .def_static(
            "parquet_sized",
            [](count_arg ndv, double fpp, std::string_view writer, const std::optional<std::string>& key_type) {
              split_block_bloom f = parquet_sized_split_block(ndv.get("ndv"), fpp, parse_writer(writer));
              f.adopt_key_type(key_type_argument(key_type));
              return W(std::move(f));
            },
            "ndv"_a, "fpp"_a = 0.01, "writer"_a = "duckdb", nb::kw_only(), "key_type"_a = nb::none(),
            "A filter sized exactly as a Parquet writer ('duckdb', 'arrow_cpp' or 'arrow_rs') sizes its\n"
            "filter for `ndv` distinct values at `fpp`, so adding the column's plain-encoded values gives the\n"
            "writer's bytes (see bloomkit.parquet.filter_for_column). Hash: XXH64 seed 0. `key_type`: the\n"
            "column's physical type as a key type (INT32 'int32', INT64 'int64', FLOAT 'float32', DOUBLE\n"
            "'float64', byte arrays 'bytes').")
        .def(
            "to_parquet_bitset",
            [](const W& self) {
              std::vector<std::byte> bits;
              {
                const auto lock = self.read_lock();
                bits = self.read([](const auto& f) {
                  if constexpr (requires { f.view(); }) {
                    return to_parquet_bitset(f.view());
                  } else {
                    return to_parquet_bitset(f);
                  }
                });
              }
              return nb::bytes(reinterpret_cast<const char*>(bits.data()), bits.size());
            },
            "The bitset as a Parquet file stores it (32 bytes a block, words little-endian).");
  }
  auto blocked_cls = bind_kind<blocked_bloom>(m, blocked_doc);
  bind_fold<blocked_bloom>(blocked_cls);
  blocked_cls.def_static(
          "with_blocks",
          [](count_arg num_blocks_arg, std::uint32_t k, std::optional<count_arg> capacity, double fpr,
             std::string_view hash, std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
            const std::uint64_t num_blocks = num_blocks_arg.get("num_blocks");
            const std::uint64_t design = design_capacity(count_of(capacity, "capacity"), checked_block_bits(num_blocks, max_blocks, 512, "BlockedBloom"), fpr);
            return py_filter<blocked_bloom>(blocked_bloom(
                block_filter_params{num_blocks, k, design, fpr, make_hash_spec(hash, hash_seed, key_type)}));
          },
          "num_blocks"_a, "k"_a, nb::kw_only(), "capacity"_a = nb::none(), "fpr"_a = 0.01, "hash"_a = "xxh3_64",
          "hash_seed"_a = 0, "key_type"_a = nb::none(),
          "A filter of exactly `num_blocks` 64-byte blocks with k bits per key (1 to 16). `capacity` and `fpr`\n"
          "are the design point only.");
  bind_kind<standard_bloom>(m, standard_doc)
      .def_static(
          "with_bits",
          [](count_arg bits, std::uint32_t k, std::string_view hash, std::uint64_t hash_seed,
             const std::optional<std::string>& key_type) {
            return py_filter<standard_bloom>(
                standard_bloom::with_bits(bits.get("bits"), k, make_hash_spec(hash, hash_seed, key_type)));
          },
          "bits"_a, "k"_a, nb::kw_only(), "hash"_a = "xxh3_64", "hash_seed"_a = 0, "key_type"_a = nb::none(),
          "A filter of exactly `bits` bits (1 to 2**63) and k probes (1 to 64); the design point is the\n"
          "capacity at which k is optimal.");
  {
    using W = py_filter<counting_bloom>;
    auto cls = bind_kind<counting_bloom>(m, counting_doc);
    cls.def_static(
           "with_counters",
           [](count_arg counters_arg, std::uint32_t k, std::optional<count_arg> capacity, double fpr,
              std::string_view hash, std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
             const std::uint64_t counters = counters_arg.get("counters");
             return W(counting_bloom(counting_bloom_params{counters, k, design_capacity(count_of(capacity, "capacity"), counters, fpr), fpr,
                                                           make_hash_spec(hash, hash_seed, key_type)}));
           },
           "counters"_a, "k"_a, nb::kw_only(), "capacity"_a = nb::none(), "fpr"_a = 0.01, "hash"_a = "xxh3_64",
           "hash_seed"_a = 0, "key_type"_a = nb::none(), "A counting filter of exactly `counters` 4-bit counters and k probes.")
        .def(
            "to_standard",
            [](const W& self) {
              const auto lock = self.read_lock();
              return py_filter<standard_bloom>(self.read([](const auto& f) { return f.to_standard_bloom(); }));
            },
            "The StandardBloom with a bit set where a counter is non-zero: the same answers, a quarter the size.");
    def_state(cls, "saturated_counters", [](const auto& f) { return f.saturated_counters(); }, "Counters stuck at 15.");
  }
  {
    using W = py_filter<scalable_bloom>;
    auto cls = bind_kind<scalable_bloom>(m, scalable_doc);
    cls.def(
        "__init__",
        [](W* self, count_arg initial_capacity, double fpr, double growth, double tightening, std::string_view hash,
           std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
          new (self) W(scalable_bloom(initial_capacity.get("initial_capacity"), fpr, make_hash_spec(hash, hash_seed, key_type), growth,
                                      tightening));
        },
        "initial_capacity"_a, "fpr"_a = 0.01, nb::kw_only(), "growth"_a = 2.0, "tightening"_a = 0.85,
        "hash"_a = "xxh3_64", "hash_seed"_a = 0, "key_type"_a = nb::none(), "A scalable filter whose first stage holds `initial_capacity` keys.");
    def_state(cls, "stages", [](const auto& f) { return f.stages(); }, "Number of stages (grows as keys are added).");
    def_state(cls, "fpr_bound", [](const auto& f) { return f.fpr_bound(); },
              "The compound FPR bound over every stage, were each filled to its capacity.");
  }
}

}  // namespace bloomkit::python
