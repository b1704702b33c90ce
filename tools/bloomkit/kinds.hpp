// tools/bloomkit/kinds.hpp - the filter kinds the CLI can build, by CLI name.
//
// One row per kind: its --kind spelling, the library kind it stands for and
// one line of help. Everything else about a kind (default hash, static or
// not, whether it grows, how --fpr picks its parameters, how it is built)
// is the library's kind_traits (bloomkit/filter.hpp), reached through
// info_of / make_filter / build_static_filter (bloomkit/format/registry.hpp).
// Adding a kind to the CLI is adding a row in kinds.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "bloomkit/file_format.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::cli {

struct kind_entry {
  std::string_view name;     ///< the --kind value, e.g. "split-block"
  filter_kind kind;          ///< the library's kind (and what the file records)
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
