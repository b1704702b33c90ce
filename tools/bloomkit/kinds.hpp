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
  /// For --bits M / --hashes K: a new, empty filter with exactly M bits
  /// (counters, for counting; rounded up to whole blocks for block kinds) and
  /// K probes (0: the best K for M bits and `capacity` keys; M = 0: the
  /// fewest bits meeting `target_fpr` with this K), its design point
  /// `capacity` keys at the FPR the formula gives there. nullptr where the
  /// kind has no such parameters (scalable, static kinds).
  any_filter (*make_exact)(std::uint64_t bits, std::uint32_t k, std::uint64_t capacity, double target_fpr,
                           hash_spec hash) = nullptr;
};

/// Throws usage_error when `entry` cannot reach `target_fpr` for `capacity`
/// keys without far more memory than the math needs: a block filter's FPR
/// has a floor (every probe of a key falls in one block), so below about
/// 1e-6 it needs several times the bits of a standard filter (3,347 bits per
/// key at 1e-12 for split-block, against 57.5). The message gives both
/// figures and the kind to use instead. Refused when the kind needs more
/// than twice the standard filter's bits (plus two blocks, so that a few
/// keys in a block or two are never refused).
void check_fpr_reachable(const kind_entry& entry, std::uint64_t capacity, double target_fpr);

/// Every kind the CLI builds, in the order --help lists them.
std::span<const kind_entry> kind_table();

/// The row named `name`: its --kind name ("split-block") or the name files
/// and `info` use ("split_block_bloom"), in either case, with '-' and '_'
/// interchangeable. Throws usage_error listing the names otherwise (and
/// pointing a number, `-k 7`, to --hashes).
const kind_entry& find_kind(std::string_view name);

/// "standard, blocked, split-block" (for help texts and messages).
std::string kind_names();

/// Parses --hash: "xxh3_64" (also "xxh3") or "xxh64"; throws usage_error.
hash_algorithm parse_hash_algorithm(std::string_view name);

}  // namespace bloomkit::cli
