// tools/bloomkit/kinds.cpp - the kind table (see kinds.hpp).
#include "kinds.hpp"

#include <array>

#include "commands.hpp"

namespace bloomkit::cli {

namespace {

// The spellings and help lines only. Split-block filters hash with XXH64,
// seed 0 by default (kind_traits<split_block_bloom>::default_hash): that is
// what a Parquet reader expects (docs/PARQUET.md), so a CLI-built filter can
// be copied into a Parquet file. The others default to XXH3-64.
const std::array<kind_entry, 9> table = {{
    {"standard", filter_kind::standard_bloom,
     "classic Bloom filter: fewest bits per key for a given FPR, k random probes"},
    {"blocked", filter_kind::blocked_bloom, "all k probes in one 64-byte cache line: one cache miss per lookup"},
    {"split-block", filter_kind::split_block_bloom,
     "Apache Parquet's split-block filter (256-bit blocks, k = 8, XXH64)"},
    {"binary-fuse", filter_kind::binary_fuse,
     "static: binary fuse filter, 8- or 16-bit fingerprints (FPR 2^-8 / 2^-16), ~9 / ~18 bits per key"},
    {"ribbon", filter_kind::ribbon, "static: standard Ribbon filter, FPR 2^-r for r = 1..16, ~1.05 r bits per key"},
    {"counting", filter_kind::counting_bloom,
     "4-bit counters in place of bits: supports `bloomkit remove`, 4x the standard filter's size"},
    {"scalable", filter_kind::scalable_bloom,
     "grows by blocked stages (x2 keys, x0.85 FPR each): stays under --fpr past --capacity"},
    {"cuckoo", filter_kind::cuckoo_filter,
     "cuckoo filter: supports `bloomkit remove` at ~log2(1/p) + 3 bits per key (not 4x); no merge"},
    {"window", filter_kind::age_partitioned_bloom,
     "age-partitioned Bloom filter: remembers only the last --window N keys, FPR bound at every moment"},
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
