// tools/bloomkit/kinds.hpp - the filter kinds the CLI can build, by CLI name.
//
// One row per kind: its --kind name, its file_format kind, the hash it uses
// unless --hash/--seed say otherwise, and how to construct it for (capacity,
// target FPR, hash). Adding a kind to the CLI is adding a row in kinds.cpp
// (an incremental kind sets `make`; a static kind, built from all keys at
// once, sets `make_static` instead).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/file_format.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::cli {

struct kind_entry {
  std::string_view name;  ///< the --kind value, e.g. "split-block"
  filter_kind kind;       ///< what the file records
  hash_spec default_hash; ///< used unless --hash / --seed are given
  /// A new, empty filter for `capacity` keys at `target_fpr`, filled by
  /// insert_many batches (nullptr for a static kind).
  any_filter (*make)(std::uint64_t capacity, double target_fpr, hash_spec hash);
  /// For a static kind (binary fuse, ribbon: built from the whole set at
  /// once): the filter of every hash in `hashes` (duplicates allowed) at
  /// about `target_fpr`. `build` then keeps all hashes in memory (8 bytes a
  /// key) and ignores --capacity. nullptr for incremental kinds.
  any_filter (*make_static)(std::span<const std::uint64_t> hashes, double target_fpr, hash_spec hash);
  std::string_view summary;  ///< one line for --help
};

/// Every kind the CLI builds, in the order --help lists them.
std::span<const kind_entry> kind_table();

/// The row named `name`; throws usage_error listing the names otherwise.
const kind_entry& find_kind(std::string_view name);

/// "standard, blocked, split-block" (for help texts and messages).
std::string kind_names();

/// Parses --hash: "xxh3_64" (also "xxh3") or "xxh64"; throws usage_error.
hash_algorithm parse_hash_algorithm(std::string_view name);

}  // namespace bloomkit::cli
