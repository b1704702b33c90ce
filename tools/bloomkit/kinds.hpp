// tools/bloomkit/kinds.hpp - the filter kinds the CLI can build, by CLI name.
//
// The table is the library's list of kinds (bloomkit::all_kinds, the facts
// each kind's kind_traits states: its --kind spelling, its help line,
// default hash, static or not, whether it grows, removes or merges),
// reached through info_of / make_filter / build_static_filter
// (bloomkit/format/registry.hpp). A new kind needs no line here; this file
// keeps only what is the CLI's own: how --fpr is refused, --bits/--hashes.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "bloomkit/file_format.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::cli {

/// One row of the kind table: a kind's facts (cli_name is the --kind value,
/// kind what the file records, summary the line for --help).
using kind_entry = kind_info;

/// Throws usage_error when `entry` cannot reach `target_fpr` for `capacity`
/// keys without far more memory than the math needs: a block filter's FPR
/// has a floor (every probe of a key falls in one block), so below about
/// 1e-6 it needs several times the bits of a standard filter (3,347 bits per
/// key at 1e-12 for split-block, against 57.5). The message gives both
/// figures and the kind to use instead. Refused when the kind needs more
/// than twice the standard filter's bits (plus two blocks, so that a few
/// keys in a block or two are never refused).
/// Fingerprint kinds are refused below what their widest fingerprints reach, and
/// scalable ones where their first (blocked) stage is past what the library
/// plans (sizing::max_size_over_classic).
void check_fpr_reachable(const kind_entry& entry, std::uint64_t capacity, double target_fpr);

/// The one form of every "this kind cannot reach --fpr" refusal (usage
/// error, exit 1): "--kind K cannot reach --fpr P: WHY. Use
/// --kind standard, which reaches any FPR (B bits per key here)ALSO, or a
/// larger --fpr (...)", B for `capacity` keys.
[[noreturn]] void refuse_fpr_target(const kind_entry& entry, std::uint64_t capacity, double target_fpr,
                                    const std::string& why, const std::string& also);

/// True for the kinds that take exact parameters (--bits, --hashes):
/// standard, blocked, split-block, counting (the kinds make_exact_filter builds).
bool has_exact_parameters(filter_kind kind) noexcept;

/// For --bits M / --hashes K: a new, empty filter of `kind` with exactly M
/// bits (counters, for counting; rounded up to whole blocks for block kinds)
/// and K probes (0: the best K for M bits and `capacity` keys; M = 0: the
/// fewest bits meeting `target_fpr` with this K), its design point
/// `capacity` keys at the FPR the formula gives there. usage_error for
/// other kinds and out-of-range K.
any_filter make_exact_filter(filter_kind kind, std::uint64_t bits, std::uint32_t k, std::uint64_t capacity,
                             double target_fpr, hash_spec hash);

/// Every kind the CLI builds, in the order --help lists them.
std::span<const kind_entry> kind_table();

/// The row named `name`: its --kind name ("split-block") or the name files
/// and `info` use ("split_block_bloom"), in either case, with '-' and '_'
/// interchangeable. Throws usage_error listing the names otherwise (and
/// pointing a number, `-k 7`, to --hashes).
const kind_entry& find_kind(std::string_view name);

/// "standard, blocked, split-block" (for help texts and messages).
std::string kind_names();

/// The algorithm --hash names (bloomkit::parse_hash_algorithm: "xxh3_64",
/// "xxh3" or "xxh64"); throws usage_error naming the accepted spellings.
hash_algorithm hash_algorithm_argument(std::string_view name);

}  // namespace bloomkit::cli
