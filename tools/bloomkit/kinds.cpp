// tools/bloomkit/kinds.cpp - the kind table (see kinds.hpp).
#include "kinds.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/ribbon.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/scalable_bloom.hpp"
#include "commands.hpp"

namespace bloomkit::cli {

namespace {

template <class Filter>
any_filter make_sized(std::uint64_t capacity, double target_fpr, hash_spec hash) {
  return any_filter(std::in_place_type<Filter>, capacity, target_fpr, hash);
}

// Static kinds: the width of the stored fingerprint fixes the FPR at 2^-f,
// so --fpr picks the narrowest width whose 2^-f is at or below it.
void require_static_fpr(double target_fpr, std::string_view kind) {
  if (target_fpr < std::ldexp(1.0, -16)) {
    throw usage_error("--kind " + std::string(kind) + " reaches FPR 2^-16 (0.0000153) at best; --fpr " +
                      std::to_string(target_fpr) + " is below that");
  }
}

any_filter make_binary_fuse(std::span<const std::uint64_t> hashes, double target_fpr, hash_spec hash) {
  require_static_fpr(target_fpr, "binary-fuse");
  binary_fuse_options options;
  options.hash = hash;
  const std::uint32_t bits = target_fpr >= 1.0 / 256 ? 8 : 16;
  return any_filter(std::in_place_type<binary_fuse>, binary_fuse(hashes, bits, options));
}

any_filter make_ribbon(std::span<const std::uint64_t> hashes, double target_fpr, hash_spec hash) {
  require_static_fpr(target_fpr, "ribbon");
  ribbon_options options;
  options.hash = hash;
  // The smallest r with 2^-r <= target_fpr (the epsilon keeps 2^-7 at r = 7).
  options.result_bits = static_cast<std::uint32_t>(std::clamp(std::ceil(-std::log2(target_fpr) - 1e-9), 1.0, 16.0));
  return any_filter(std::in_place_type<ribbon>, ribbon(hashes, options));
}

// Split-block filters hash with XXH64, seed 0 by default: that is what a
// Parquet reader expects (PARQUET.md), so a CLI-built filter can be copied
// into a Parquet file. The others default to XXH3-64, faster on short keys.
const std::array<kind_entry, 7> table = {{
    {"standard", filter_kind::standard_bloom, hash_spec{hash_algorithm::xxh3_64, 0}, &make_sized<standard_bloom>, nullptr,
     "classic Bloom filter: fewest bits per key for a given FPR, k random probes"},
    {"blocked", filter_kind::blocked_bloom, hash_spec{hash_algorithm::xxh3_64, 0}, &make_sized<blocked_bloom>, nullptr,
     "all k probes in one 64-byte cache line: one cache miss per lookup"},
    {"split-block", filter_kind::split_block_bloom, parquet_hash_spec, &make_sized<split_block_bloom>, nullptr,
     "Apache Parquet's split-block filter (256-bit blocks, k = 8, XXH64)"},
    {"binary-fuse", filter_kind::binary_fuse, hash_spec{hash_algorithm::xxh3_64, 0}, nullptr, &make_binary_fuse,
     "static: binary fuse filter, 8- or 16-bit fingerprints (FPR 2^-8 / 2^-16), ~9 / ~18 bits per key"},
    {"ribbon", filter_kind::ribbon, hash_spec{hash_algorithm::xxh3_64, 0}, nullptr, &make_ribbon,
     "static: standard Ribbon filter, FPR 2^-r for r = 1..16, ~1.05 r bits per key"},
    {"counting", filter_kind::counting_bloom, hash_spec{hash_algorithm::xxh3_64, 0}, &make_sized<counting_bloom>,
     nullptr, "4-bit counters in place of bits: supports `bloomkit remove`, 4x the standard filter's size"},
    {"scalable", filter_kind::scalable_bloom, hash_spec{hash_algorithm::xxh3_64, 0}, &make_sized<scalable_bloom>,
     nullptr, "grows by blocked stages (x2 keys, x0.85 FPR each): stays under --fpr past --capacity"},
}};

}  // namespace

std::span<const kind_entry> kind_table() { return table; }

std::string kind_names() {
  std::string names;
  for (const auto& entry : table) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

const kind_entry& find_kind(std::string_view name) {
  for (const auto& entry : table) {
    if (entry.name == name) return entry;
  }
  throw usage_error("unknown --kind \"" + std::string(name) + "\"; choose one of: " + kind_names());
}

hash_algorithm parse_hash_algorithm(std::string_view name) {
  if (name == "xxh3_64" || name == "xxh3") return hash_algorithm::xxh3_64;
  if (name == "xxh64") return hash_algorithm::xxh64;
  throw usage_error("--hash must be xxh3_64 or xxh64, got \"" + std::string(name) + "\"");
}

}  // namespace bloomkit::cli
