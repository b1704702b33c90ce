// tools/bloomkit/kinds.cpp - the kind table (see kinds.hpp).
#include "kinds.hpp"

#include <array>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "commands.hpp"

namespace bloomkit::cli {

namespace {

template <class Filter>
any_filter make_sized(std::uint64_t capacity, double target_fpr, hash_spec hash) {
  return any_filter(std::in_place_type<Filter>, capacity, target_fpr, hash);
}

// Split-block filters hash with XXH64, seed 0 by default: that is what a
// Parquet reader expects (PARQUET.md), so a CLI-built filter can be copied
// into a Parquet file. The others default to XXH3-64, faster on short keys.
const std::array<kind_entry, 3> table = {{
    {"standard", filter_kind::standard_bloom, hash_spec{hash_algorithm::xxh3_64, 0}, &make_sized<standard_bloom>, nullptr,
     "classic Bloom filter: fewest bits per key for a given FPR, k random probes"},
    {"blocked", filter_kind::blocked_bloom, hash_spec{hash_algorithm::xxh3_64, 0}, &make_sized<blocked_bloom>, nullptr,
     "all k probes in one 64-byte cache line: one cache miss per lookup"},
    {"split-block", filter_kind::split_block_bloom, parquet_hash_spec, &make_sized<split_block_bloom>, nullptr,
     "Apache Parquet's split-block filter (256-bit blocks, k = 8, XXH64)"},
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
