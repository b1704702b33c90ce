// python/src/static_filters.cpp - bind_static: BinaryFuse and Ribbon, the
// static kinds built once from the whole key set.
#include <cmath>

#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/ribbon.hpp"
#include "kinds.hpp"

namespace bloomkit::python {

namespace {

// The CLI's rule (tools/bloomkit/kinds.cpp): the fingerprint width fixes the
// FPR at 2^-f, so an fpr picks the narrowest width whose 2^-f is at or below it.
void require_static_fpr(double fpr, const char* kind) {
  if (!(fpr > 0.0 && fpr < 1.0)) throw_invalid(std::string(kind) + ": fpr must be in (0, 1)");
  if (fpr < std::ldexp(1.0, -16)) {
    throw_invalid(std::string(kind) + " reaches FPR 2**-16 at best; fpr " + bloomkit::format_number(fpr) +
                  " is below that: use StandardBloom, which reaches any rate");
  }
}

std::uint32_t fuse_bits(std::optional<std::uint32_t> bits, std::optional<double> fpr) {
  if (bits && fpr) throw_invalid("BinaryFuse: give bits or fpr, not both");
  if (fpr) {
    require_static_fpr(*fpr, "BinaryFuse");
    return *fpr >= 1.0 / 256 ? 8 : 16;
  }
  return bits.value_or(8);
}

std::uint32_t ribbon_bits(std::optional<std::uint32_t> bits, std::optional<double> fpr) {
  if (bits && fpr) throw_invalid("Ribbon: give bits or fpr, not both");
  if (fpr) {
    require_static_fpr(*fpr, "Ribbon");
    // The smallest r with 2^-r <= fpr (the epsilon keeps 2^-7 at r = 7).
    return static_cast<std::uint32_t>(std::clamp(std::ceil(-std::log2(*fpr) - 1e-9), 1.0, 16.0));
  }
  return bits.value_or(8);
}

/// Hashes of the keys (or the hashes themselves) for a static construction,
/// and the spec the filter records: `spec`, or with the key type the keys
/// give when spec has none (a static filter is built from one batch, its
/// first and only insert).
std::pair<std::vector<std::uint64_t>, hash_spec> hashes_of(nb::handle keys, hash_spec spec, bool as_hashes) {
  const key_batch batch = make_batch(keys, spec, as_hashes, spec.keys == key_type::unspecified && !as_hashes);
  nb::gil_scoped_release release;
  return {collect_hashes(batch), batch.spec};
}

binary_fuse make_fuse(const std::vector<std::uint64_t>& hashes, std::uint32_t bits, std::uint32_t arity, hash_spec spec) {
  binary_fuse_options options;
  options.hash = spec;
  options.arity = arity;
  nb::gil_scoped_release release;
  return binary_fuse(hashes, bits, options);
}

/// "standard" or "bumped" (the CLI's --layout names); anything else is InvalidArgumentError.
ribbon_layout ribbon_layout_of(std::string_view name) {
  if (name == "standard") return ribbon_layout::standard;
  if (name == "bumped") return ribbon_layout::bumped;
  throw_invalid("Ribbon: layout must be 'standard' or 'bumped', got '" + std::string(name) + "'");
}

ribbon make_ribbon(const std::vector<std::uint64_t>& hashes, std::uint32_t bits, ribbon_layout layout, hash_spec spec) {
  ribbon_options options;
  options.hash = spec;
  options.result_bits = bits;
  options.layout = layout;
  nb::gil_scoped_release release;
  return ribbon(hashes, options);
}

constexpr const char* fuse_doc =
    "BinaryFuse(keys, *, bits=None, fpr=None, arity=3, hash='xxh3_64', hash_seed=0)\n\n"
    "A static binary fuse filter (Graf and Lemire 2022) of every key in `keys` (any batch input; duplicates\n"
    "are fine), built once: no add. 8-bit fingerprints give FPR 2**-8 at about 9 bits/key, 16-bit ones\n"
    "2**-16 at about 18. `bits` is 8 or 16 (default 8), or `fpr` picks it as the CLI does.\n"
    "BinaryFuse.from_hashes(hashes) builds from precomputed hashes.";

constexpr const char* ribbon_doc =
    "Ribbon(keys, *, bits=None, fpr=None, layout='standard', hash='xxh3_64', hash_seed=0)\n\n"
    "A static Ribbon filter (Dillinger and Walzer 2021) of every key in `keys`, built once: FPR exactly\n"
    "2**-r, r = `bits` from 1 to 16 (default 8), or `fpr` picks r as the CLI does. layout='standard' takes\n"
    "about 1.05 r bits/key; layout='bumped' (Bumped Ribbon Retrieval) about 1.005 r from some 20,000 keys\n"
    "on, for a build about 4-5x slower (the CLI's --layout; file format version 4).\n"
    "Ribbon.from_hashes(hashes) builds from precomputed hashes.";

}  // namespace

void bind_static(nb::module_& m) {
  {
    using F = binary_fuse;
    using W = py_filter<F>;
    auto cls = bind_kind<F>(m, fuse_doc);
    cls.def(
        "__init__",
        [](W* self, keys_arg keys, std::optional<std::uint32_t> bits, std::optional<double> fpr, std::uint32_t arity,
           std::string_view hash, std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
          const std::uint32_t b = fuse_bits(bits, fpr);
          const auto [hashes, spec] = hashes_of(keys, make_hash_spec(hash, hash_seed, key_type), false);
          new (self) W(make_fuse(hashes, b, arity, spec));
        },
        "keys"_a, nb::kw_only(), "bits"_a = nb::none(), "fpr"_a = nb::none(), "arity"_a = 3, "hash"_a = "xxh3_64",
        "hash_seed"_a = 0, "key_type"_a = nb::none(),
        "The filter of every key in `keys` (missing values skipped), of key type `key_type` (default: the\n"
        "type the keys give, docs/KEYS.md).");
    cls.def_static(
        "from_hashes",
        [](hashes_arg hashes, std::optional<std::uint32_t> bits, std::optional<double> fpr, std::uint32_t arity,
           std::string_view hash, std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
          const hash_spec spec = make_hash_spec(hash, hash_seed, key_type);
          const std::uint32_t b = fuse_bits(bits, fpr);
          return W(make_fuse(hashes_of(hashes, spec, true).first, b, arity, spec));
        },
        "hashes"_a, nb::kw_only(), "bits"_a = nb::none(), "fpr"_a = nb::none(), "arity"_a = 3, "hash"_a = "xxh3_64",
        "hash_seed"_a = 0, "key_type"_a = nb::none(),
        "The filter of precomputed uint64 hashes; `hash`/`hash_seed`/`key_type` record how they were computed.");
    def_state(cls, "fingerprint_bits", [](const auto& f) { return f.fingerprint_bits(); },
              "Fingerprint width: 8 or 16.");
  }
  {
    using F = ribbon;
    using W = py_filter<F>;
    auto cls = bind_kind<F>(m, ribbon_doc);
    cls.def(
        "__init__",
        [](W* self, keys_arg keys, std::optional<std::uint32_t> bits, std::optional<double> fpr,
           std::string_view layout, std::string_view hash, std::uint64_t hash_seed,
           const std::optional<std::string>& key_type) {
          const std::uint32_t r = ribbon_bits(bits, fpr);
          const ribbon_layout l = ribbon_layout_of(layout);
          const auto [hashes, spec] = hashes_of(keys, make_hash_spec(hash, hash_seed, key_type), false);
          new (self) W(make_ribbon(hashes, r, l, spec));
        },
        "keys"_a, nb::kw_only(), "bits"_a = nb::none(), "fpr"_a = nb::none(), "layout"_a = "standard",
        "hash"_a = "xxh3_64", "hash_seed"_a = 0, "key_type"_a = nb::none(),
        "The filter of every key in `keys` (missing values skipped), of key type `key_type` (default: the\n"
        "type the keys give, docs/KEYS.md).");
    cls.def_static(
        "from_hashes",
        [](hashes_arg hashes, std::optional<std::uint32_t> bits, std::optional<double> fpr, std::string_view layout,
           std::string_view hash, std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
          const hash_spec spec = make_hash_spec(hash, hash_seed, key_type);
          const std::uint32_t r = ribbon_bits(bits, fpr);
          const ribbon_layout l = ribbon_layout_of(layout);
          return W(make_ribbon(hashes_of(hashes, spec, true).first, r, l, spec));
        },
        "hashes"_a, nb::kw_only(), "bits"_a = nb::none(), "fpr"_a = nb::none(), "layout"_a = "standard",
        "hash"_a = "xxh3_64", "hash_seed"_a = 0, "key_type"_a = nb::none(),
        "The filter of precomputed uint64 hashes; `key_type` records what the keys were.");
    def_state(cls, "result_bits", [](const auto& f) { return f.result_bits(); }, "r: the FPR is 2**-r.");
    def_state(cls, "layout", [](const auto& f) { return f.layout() == ribbon_layout::bumped ? "bumped" : "standard"; },
              "'standard' or 'bumped' (Bumped Ribbon Retrieval).");
  }
}

}  // namespace bloomkit::python
