// python/src/cuckoo.cpp - bind_cuckoo: CuckooFilter (bloomkit/cuckoo_filter.hpp).
// bind_kind<cuckoo_filter> gives the common surface, add (FullError when the
// table is full), remove, count, test-and-add and the refused merge; here
// the constructors and the table's own state.
#include <algorithm>
#include <cmath>

#include "bloomkit/cuckoo_filter.hpp"
#include "counts.hpp"
#include "kinds.hpp"

namespace bloomkit::python {

namespace {

cuckoo_widths parse_widths(std::string_view name) {
  if (name == "smallest") return cuckoo_widths::smallest;
  if (name == "paper") return cuckoo_widths::paper;
  throw_invalid("widths must be \"smallest\" (any fingerprint width from 4 to 16 bits) or \"paper\" (8, 12 or 16), "
                "got \"" + std::string(name) + "\"");
}

constexpr const char* cuckoo_doc =
    "CuckooFilter(capacity, fpr=0.01, *, widths='smallest', hash='xxh3_64', hash_seed=0)\n\n"
    "A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, CoNEXT 2014): one f-bit fingerprint per\n"
    "key in one of two buckets of 4 slots (partial-key cuckoo hashing), so keys can be removed at about\n"
    "log2(1/p) + 3 bits per key (10.5 at 1 %) instead of the CountingBloom's four times a Bloom filter.\n"
    "Sized for `capacity` keys at 95 % load; f is the smallest width whose FPR at that load meets `fpr`\n"
    "(widths='paper' restricts f to 8, 12 or 16). The FPR is 1 - (1 - 1/(2**f - 1))**(8 load), reported\n"
    "by estimated_fpr for the load now and full_load_fpr at 100 %.\n\n"
    "The table can fill up: add raises FullError, changing nothing, when the victim slot is taken (an\n"
    "add_many that fills it is rolled back whole, at the cost of one copy of the table per call).\n"
    "A multiset: adding a key twice stores it twice, remove takes one copy away; remove only keys you\n"
    "added. Cuckoo filters do not merge: merge and | raise UnsupportedError with the reason.\n\n"
    "    >>> f = bloomkit.CuckooFilter(100_000, 0.01)\n"
    "    >>> f.add('apple'); 'apple' in f, f.remove('apple'), 'apple' in f\n"
    "    (True, True, False)";

}  // namespace

void bind_cuckoo(nb::module_& m) {
  using F = cuckoo_filter;
  using W = py_filter<F>;
  auto cls = bind_kind<F>(m, cuckoo_doc);
  cls.def(
      "__init__",
      [](W* self, count_arg capacity, double fpr, std::string_view widths, std::string_view hash,
         std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
        new (self) W(F(capacity.get("capacity"), fpr, make_hash_spec(hash, hash_seed, key_type), parse_widths(widths)));
      },
      "capacity"_a, "fpr"_a = 0.01, nb::kw_only(), "widths"_a = "smallest", "hash"_a = "xxh3_64", "hash_seed"_a = 0,
      "key_type"_a = nb::none(),
      "A filter for `capacity` keys at false-positive rate `fpr` (InvalidArgumentError for capacity 0, fpr\n"
      "outside (0, 1), or an fpr below what 16-bit fingerprints reach, about 1.2e-4).");
  cls.def_static(
      "with_buckets",
      [](count_arg buckets_arg, std::uint32_t fingerprint_bits, std::optional<count_arg> capacity_arg,
         std::string_view hash, std::uint64_t hash_seed, const std::optional<std::string>& key_type) {
        const std::uint64_t buckets = buckets_arg.get("buckets");
        const std::optional<std::uint64_t> capacity = count_of(capacity_arg, "capacity");
        // The design point: 95 % of the slots unless given, at the FPR of that
        // load. (The constructor checks buckets before this product matters.)
        const std::uint64_t slots = std::max<std::uint64_t>(buckets * 4, 1);
        const auto planned = static_cast<std::uint64_t>(0.95 * static_cast<double>(slots));
        const std::uint64_t n = capacity.value_or(std::max<std::uint64_t>(1, planned));
        const auto f = static_cast<int>(std::clamp<std::uint32_t>(fingerprint_bits, 4, 16));
        const double per_slot = 1.0 / (std::ldexp(1.0, f) - 1.0);  // as cuckoo_filter's own FPR model
        const double load = std::min(1.0, static_cast<double>(n) / static_cast<double>(slots));
        const double fpr = std::clamp(-std::expm1(8.0 * load * std::log1p(-per_slot)), 1e-300, 0.999999);
        return W(F(cuckoo_filter_params{buckets, fingerprint_bits, n, fpr, make_hash_spec(hash, hash_seed, key_type)}));
      },
      "buckets"_a, "fingerprint_bits"_a, nb::kw_only(), "capacity"_a = nb::none(), "hash"_a = "xxh3_64",
      "hash_seed"_a = 0, "key_type"_a = nb::none(),
      "A filter of exactly `buckets` buckets of 4 slots (1 to 2**44) with `fingerprint_bits`-bit fingerprints\n"
      "(4 to 16). `capacity` (at most 4 buckets; default 95 % of the slots) is the design point only.");
  def_state(cls, "buckets", [](const auto& f) { return f.buckets(); }, "Buckets in the table (m), 4 slots each.");
  def_state(cls, "slots", [](const auto& f) { return f.slots(); }, "Slots in the table (4 m).");
  def_state(cls, "fingerprint_bits", [](const auto& f) { return f.fingerprint_bits(); },
            "Fingerprint width f in bits (4 to 16).");
  def_state(cls, "load_factor", [](const auto& f) { return f.load_factor(); },
            "Stored fingerprints over table slots, in [0, 1] (the same as fill_ratio).");
  def_state(cls, "bits_per_key", [](const auto& f) { return f.bits_per_key(); },
            "Memory per stored key in bits (size_in_bytes * 8 / inserted); infinity when empty.");
  def_state(cls, "full", [](const auto& f) { return f.full(); },
            "True when the victim slot is taken: the next add raises FullError until a remove makes room.");
  def_state(cls, "full_load_fpr", [](const auto& f) { return f.full_load_fpr(); },
            "The FPR at 100 % load, 1 - (1 - 1/(2**f - 1))**8, about 8 / 2**f: the most this table can reach.");
  def_scan(cls, "occupied_slots", [](const auto& f) { return f.occupied_slots(); },
           "Non-empty table slots, counted (the victim slot not included). O(size).");
}

}  // namespace bloomkit::python
