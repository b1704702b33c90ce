// bloomkit/sharding.hpp - one logical block filter (blocked_bloom or
// split_block_bloom) split by block range into S shards, each a normal filter
// file, plus a JSON manifest; routing of hashes to shards and of answers back.
//
//   shard_layout layout(whole.num_blocks(), 8);          // 8 contiguous block ranges
//   auto shard = block_shard<split_block_policy>::empty(params, layout, s);
//   shard.insert_many(hashes_routed_to_s);               // on the worker holding s
//   auto entry = save_shard(shard, folder / shard_file_name(s));
//   write_manifest(folder / "filter.manifest.json", manifest_for(params, layout, entries));
//   auto sharded = open_sharded<split_block_policy>(folder / "filter.manifest.json");
//   sharded.may_contain_many(hashes, out);               // route, answer per shard, reassemble
//
// Why sharding is exact. A block filter answers a hash h from exactly one
// block, b(h) = ((h >> 32) * B) >> 32 (detail::block_index), and an insert of
// h writes only that block. Shard s holds the blocks [first(s), first(s+1))
// with first(s) = floor(s * B / S). The shard of a hash is the shard of its
// block, so it is a function of the hash alone: a shard built from the hashes
// routed to it holds exactly the bits that the unsharded filter holds in that
// block range (OR is commutative and idempotent: order, duplicates and
// retried tasks do not matter), and a probe routed to it reads the same block
// with the same bits, so it gives the same answer. Nothing is approximated.
// tests/sharding_test.cpp checks both claims bit for bit.
//
// Shard files are ordinary bloomkit files of the same kind (docs/FORMAT.md)
// whose block count is the shard's range length; inside them a block is
// chosen with the *global* block count and the range offset, which only the
// manifest knows. So a shard file is loadable and inspectable by every tool,
// but it answers correctly only through open_shard/open_sharded, which refuse
// a shard whose kind, k, hash, block count, size or XXH3-64 file checksum
// disagrees with the manifest, and a manifest whose shard files are missing.
//
// The manifest is JSON (nlohmann/json) so that engines in any language can
// read it: every number is an integer below 2^53 except the checksums, which
// are 16 hex digits. docs/SCALE.md documents its fields.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/file_io.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit {

// ---- layout -------------------------------------------------------------------

/// How B blocks split into S contiguous shards: shard s holds the blocks
/// [first_block(s), first_block(s) + block_count(s)), first_block(s) =
/// floor(s * B / S), so range lengths differ by at most one block and every
/// shard holds at least one block.
class shard_layout {
 public:
  /// At most 65,536 shards: keeps (b + 1) * S below 2^48, so shard_of_block
  /// needs no 128-bit arithmetic, and is far more shards than one logical
  /// filter needs (10^10 keys at 1 % are 12 GiB; 65,536 shards of it are 190 KiB each).
  static constexpr std::uint32_t max_shards = std::uint32_t{1} << 16;
  /// Block indices come from 32 bits of the hash, so B <= 2^32.
  static constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;

  /// S shards over B blocks. Throws errc::invalid_argument unless
  /// 1 <= B <= 2^32 and 1 <= S <= min(B, max_shards).
  shard_layout(std::uint64_t blocks, std::uint32_t shards) : blocks_(blocks), shards_(shards) {
    detail::require(blocks >= 1 && blocks <= max_blocks, errc::invalid_argument,
                    "shard_layout: blocks must be in [1, 2^32], got " + std::to_string(blocks));
    detail::require(shards >= 1 && shards <= max_shards, errc::invalid_argument,
                    "shard_layout: shards must be in [1, " + std::to_string(max_shards) + "], got " +
                        std::to_string(shards));
    detail::require(shards <= blocks, errc::invalid_argument,
                    "shard_layout: " + std::to_string(shards) + " shards need at least as many blocks, got " +
                        std::to_string(blocks));
  }

  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] std::uint32_t shards() const noexcept { return shards_; }

  /// The first block of shard s (s <= shards(); first_block(shards()) == blocks()).
  [[nodiscard]] std::uint64_t first_block(std::uint32_t s) const noexcept {
    return static_cast<std::uint64_t>(s) * blocks_ / shards_;  // < 2^48: no overflow
  }
  /// The number of blocks of shard s (s < shards()), at least 1.
  [[nodiscard]] std::uint64_t block_count(std::uint32_t s) const noexcept {
    return first_block(s + 1) - first_block(s);
  }

  /// The shard holding block b (b < blocks()): the largest s with
  /// first_block(s) <= b, which is floor(((b + 1) * S - 1) / B) because
  /// first_block(s) <= b  <=>  s * B < (b + 1) * S.
  [[nodiscard]] std::uint32_t shard_of_block(std::uint64_t b) const noexcept {
    return static_cast<std::uint32_t>(((b + 1) * shards_ - 1) / blocks_);
  }

  /// The shard that answers and stores hash h: the shard of its block.
  [[nodiscard]] std::uint32_t shard_of_hash(std::uint64_t h) const noexcept {
    return shard_of_block(detail::block_index(h, blocks_));
  }

  /// out[i] = shard_of_hash(hashes[i]). Throws errc::invalid_argument if the sizes differ.
  void shards_of(std::span<const std::uint64_t> hashes, std::span<std::uint32_t> out) const {
    detail::require(hashes.size() == out.size(), errc::invalid_argument,
                    "shard_layout::shards_of needs as many outputs as hashes");
    for (std::size_t i = 0; i < hashes.size(); ++i) out[i] = shard_of_hash(hashes[i]);
  }

  friend bool operator==(const shard_layout&, const shard_layout&) = default;

 private:
  std::uint64_t blocks_;
  std::uint32_t shards_;
};

// ---- routing ------------------------------------------------------------------

/// A batch of hashes grouped by shard (a stable counting sort), with the way
/// back: shard s's hashes are hashes[offsets[s] .. offsets[s + 1]), in their
/// input order, and the j-th grouped hash came from input position
/// positions[j]. Memory: 16 bytes per hash plus 8 per shard.
struct shard_routing {
  std::vector<std::size_t> offsets;     ///< shards() + 1 entries, offsets[0] = 0
  std::vector<std::uint64_t> hashes;    ///< grouped by shard
  std::vector<std::size_t> positions;   ///< input position of each grouped hash

  /// The hashes routed to shard s.
  [[nodiscard]] std::span<const std::uint64_t> hashes_of(std::uint32_t s) const {
    return std::span<const std::uint64_t>(hashes).subspan(offsets[s], offsets[s + 1] - offsets[s]);
  }
};

/// Groups `hashes` by layout.shard_of_hash (two passes: count, then place).
inline shard_routing route(const shard_layout& layout, std::span<const std::uint64_t> hashes) {
  shard_routing r;
  const std::uint32_t shards = layout.shards();
  std::vector<std::uint32_t> shard(hashes.size());
  layout.shards_of(hashes, shard);
  r.offsets.assign(static_cast<std::size_t>(shards) + 1, 0);
  for (const std::uint32_t s : shard) ++r.offsets[s + 1];
  for (std::uint32_t s = 0; s < shards; ++s) r.offsets[s + 1] += r.offsets[s];
  std::vector<std::size_t> next(r.offsets.begin(), r.offsets.end() - 1);
  r.hashes.resize(hashes.size());
  r.positions.resize(hashes.size());
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    const std::size_t j = next[shard[i]]++;
    r.hashes[j] = hashes[i];
    r.positions[j] = i;
  }
  return r;
}

/// Puts the grouped answers back in input order: out[positions[j]] =
/// grouped[j]. Throws errc::invalid_argument unless both spans have as many
/// entries as the routing has hashes.
inline void reassemble(const shard_routing& routing, std::span<const bool> grouped, std::span<bool> out) {
  detail::require(grouped.size() == routing.hashes.size() && out.size() == routing.hashes.size(),
                  errc::invalid_argument, "reassemble: answers and outputs must match the routed hashes in number");
  for (std::size_t j = 0; j < grouped.size(); ++j) out[routing.positions[j]] = grouped[j];
}

// ---- one shard ----------------------------------------------------------------

/// The kind name files and manifests use for policy P ("blocked_bloom", "split_block_bloom").
template <detail::block_policy P>
constexpr std::string_view shard_kind_name() noexcept {
  return to_string(kind_traits<block_filter<P>>::kind);
}

namespace detail {

/// The parameters of shard s's own file: its range length as the block
/// count and its share of the capacity (at least 1), the rest as the whole.
template <block_policy P>
block_filter_params shard_file_params(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s) {
  block_filter_params p = whole;
  p.blocks = layout.block_count(s);
  const long double share = static_cast<long double>(whole.capacity) * static_cast<long double>(p.blocks) /
                            static_cast<long double>(whole.blocks);
  p.capacity = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(share + 0.5L));
  return p;
}

/// Throws errc::invalid_argument naming both shards unless every hash routes to `s`.
inline void require_routed_to(const shard_layout& layout, std::uint32_t s, std::span<const std::uint64_t> hashes,
                              std::string_view operation) {
  for (const std::uint64_t h : hashes) {
    const std::uint32_t owner = layout.shard_of_hash(h);
    if (owner != s) {
      throw error(errc::invalid_argument, "shard " + std::to_string(s) + " " + std::string(operation) +
                                              ": a hash routes to shard " + std::to_string(owner) +
                                              " (route the batch with bloomkit::route first)");
    }
  }
}

/// Tests `hashes` against blocks [first, first + count) of a B-block filter:
/// the same kernel and prefetch pipeline as block_filter_view, with the
/// global block index shifted into the shard's range.
template <block_policy P>
void shard_test_many(const typename P::block_type* blocks, std::uint64_t global_blocks, std::uint64_t first,
                     std::uint32_t k, std::span<const std::uint64_t> hashes, bool* out) {
  prefetch_pipeline<batch_window>(
      hashes.size(), hashes_in_memory{hashes.data()},
      [&](std::uint64_t h) { prefetch(blocks + (block_index(h, global_blocks) - first)); },
      [&](std::size_t i, std::uint64_t h) {
        out[i] = block_test<P>(blocks[block_index(h, global_blocks) - first], h, k);
      });
}

}  // namespace detail

/// A read-only shard: blocks [first_block(s), ...) of a logical filter with
/// parameters `whole`, over borrowed blocks (a mapped shard file). Answers
/// only hashes that route to it; the blocks must outlive it.
template <detail::block_policy P>
class block_shard_view {
 public:
  using block_type = typename P::block_type;

  /// Views `blocks` as shard `s` of `layout` for the logical filter `whole`.
  /// Throws errc::invalid_argument for a bad s or a layout whose block count
  /// differs from whole.blocks, errc::mismatch if blocks.size() is not the
  /// shard's range length.
  block_shard_view(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s,
                   std::span<const block_type> blocks, std::uint64_t inserted)
      : whole_(whole), layout_(layout), index_(s), blocks_(blocks), inserted_(inserted) {
    detail::validate_params<P>(whole_);
    detail::require(layout_.blocks() == whole_.blocks, errc::invalid_argument,
                    "block shard: the layout has " + std::to_string(layout_.blocks()) + " blocks, the filter " +
                        std::to_string(whole_.blocks));
    detail::require(s < layout_.shards(), errc::invalid_argument,
                    "block shard: index " + std::to_string(s) + " is not below " + std::to_string(layout_.shards()));
    detail::require(blocks_.size() == layout_.block_count(s), errc::mismatch,
                    "block shard " + std::to_string(s) + ": expected " + std::to_string(layout_.block_count(s)) +
                        " blocks, got " + std::to_string(blocks_.size()));
  }

  /// True if h may be in the logical filter; h must route here (else errc::invalid_argument).
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const {
    detail::require_routed_to(layout_, index_, std::span<const std::uint64_t>(&h, 1), "may_contain_hash");
    return detail::block_test<P>(blocks_[detail::block_index(h, whole_.blocks) - first_block()], h, whole_.k);
  }

  /// out[i] = may_contain_hash(hashes[i]), pipelined. Every hash must route
  /// here (checked first: errc::invalid_argument, `out` unchanged); sizes must match.
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    detail::require(hashes.size() == out.size(), errc::invalid_argument,
                    "block shard: may_contain_many needs as many outputs as hashes");
    detail::require_routed_to(layout_, index_, hashes, "may_contain_many");
    detail::shard_test_many<P>(blocks_.data(), whole_.blocks, first_block(), whole_.k, hashes, out.data());
  }

  [[nodiscard]] const block_filter_params& whole_params() const noexcept { return whole_; }
  [[nodiscard]] const shard_layout& layout() const noexcept { return layout_; }
  [[nodiscard]] std::uint32_t index() const noexcept { return index_; }
  [[nodiscard]] std::uint64_t first_block() const noexcept { return layout_.first_block(index_); }
  [[nodiscard]] std::span<const block_type> blocks() const noexcept { return blocks_; }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return inserted_; }

  /// The shard as the normal filter its file holds (blocks = range length;
  /// see the header comment: its own may_contain is not the logical filter's).
  [[nodiscard]] block_filter_view<P> file_view() const {
    return block_filter_view<P>(detail::shard_file_params<P>(whole_, layout_, index_), blocks_, inserted_);
  }

 private:
  block_filter_params whole_;
  shard_layout layout_;
  std::uint32_t index_;
  std::span<const block_type> blocks_;
  std::uint64_t inserted_;
};

/// An owning shard being built: zero blocks for shard s's range, filled with
/// the hashes routed to s. After the same hashes (in any order, with any
/// repeats), its blocks equal blocks [first_block(s), ...) of the unsharded
/// block_filter<P>(whole) -- see the header comment.
template <detail::block_policy P>
class block_shard {
 public:
  using block_type = typename P::block_type;
  using view_type = block_shard_view<P>;

  /// An empty shard s of `layout` for the logical filter `whole`; the same
  /// checks as block_shard_view.
  block_shard(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s)
      : whole_(whole), layout_(layout), index_(s) {
    detail::validate_params<P>(whole_);
    detail::require(layout_.blocks() == whole_.blocks, errc::invalid_argument,
                    "block shard: the layout has " + std::to_string(layout_.blocks()) + " blocks, the filter " +
                        std::to_string(whole_.blocks));
    detail::require(s < layout_.shards(), errc::invalid_argument,
                    "block shard: index " + std::to_string(s) + " is not below " + std::to_string(layout_.shards()));
    blocks_.assign(layout_.block_count(s), block_type{});
  }

  /// Shard s cut out of a whole filter (copies its block range and counts
  /// its share of inserted() as zero: a whole filter does not know it).
  static block_shard slice(const block_filter_view<P>& whole, const shard_layout& layout, std::uint32_t s) {
    block_shard shard(whole.params(), layout, s);
    const auto from = whole.blocks().subspan(layout.first_block(s), layout.block_count(s));
    std::copy(from.begin(), from.end(), shard.blocks_.begin());
    return shard;
  }

  /// Adds every hash (all must route here: checked before any bit is set,
  /// errc::invalid_argument naming the shards otherwise). inserted() grows by hashes.size().
  void insert_many(std::span<const std::uint64_t> hashes) {
    detail::require_routed_to(layout_, index_, hashes, "insert_many");
    block_type* blocks = blocks_.data();
    const std::uint64_t global = whole_.blocks;
    const std::uint64_t first = layout_.first_block(index_);
    const std::uint32_t k = whole_.k;
    detail::prefetch_pipeline<detail::batch_window>(
        hashes.size(), detail::hashes_in_memory{hashes.data()},
        [&](std::uint64_t h) { detail::prefetch_for_write(blocks + (detail::block_index(h, global) - first)); },
        [&](std::size_t, std::uint64_t h) { detail::block_set<P>(blocks[detail::block_index(h, global) - first], h, k); });
    inserted_ += hashes.size();
  }

  /// insert_many of one hash.
  void insert_hash(std::uint64_t h) { insert_many(std::span<const std::uint64_t>(&h, 1)); }

  /// OR of another build of the same shard (a retried or split task).
  /// errc::mismatch unless it is the same shard of the same logical filter.
  block_shard& merge(const view_type& other) {
    detail::require_same_shape<P>(whole_, other.whole_params(), "shard merge");
    detail::require(layout_ == other.layout() && index_ == other.index(), errc::mismatch,
                    "block shard merge: shard " + std::to_string(index_) + " of " +
                        std::to_string(layout_.shards()) + " vs shard " + std::to_string(other.index()) + " of " +
                        std::to_string(other.layout().shards()));
    const auto theirs = other.blocks();
    for (std::size_t i = 0; i < blocks_.size(); ++i) P::merge(blocks_[i], theirs[i]);
    inserted_ += other.inserted();
    return *this;
  }

  [[nodiscard]] view_type view() const { return view_type(whole_, layout_, index_, blocks_, inserted_); }
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const { return view().may_contain_hash(h); }
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    view().may_contain_many(hashes, out);
  }

  [[nodiscard]] const block_filter_params& whole_params() const noexcept { return whole_; }
  [[nodiscard]] const shard_layout& layout() const noexcept { return layout_; }
  [[nodiscard]] std::uint32_t index() const noexcept { return index_; }
  [[nodiscard]] std::uint64_t first_block() const noexcept { return layout_.first_block(index_); }
  [[nodiscard]] std::span<const block_type> blocks() const noexcept { return blocks_; }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return inserted_; }

 private:
  block_filter_params whole_;
  shard_layout layout_;
  std::uint32_t index_;
  std::vector<block_type> blocks_;
  std::uint64_t inserted_ = 0;
};

// ---- files and the manifest ---------------------------------------------------

/// XXH3-64 (seed 0) of a shard file's bytes, as the manifest records it.
inline std::uint64_t shard_file_checksum(std::span<const std::byte> bytes) {
  return hash_bytes(bytes, hash_spec{hash_algorithm::xxh3_64, 0});
}

/// What the manifest records about one shard file.
struct shard_entry {
  std::uint32_t index = 0;        ///< shard number, 0 .. shards - 1
  std::string file;               ///< file name, relative to the manifest's folder (no '/')
  std::uint64_t first_block = 0;  ///< first global block of the range
  std::uint64_t blocks = 0;       ///< range length
  std::uint64_t inserted = 0;     ///< hashes inserted into this shard
  std::uint64_t file_bytes = 0;   ///< size of the file
  std::uint64_t checksum = 0;     ///< shard_file_checksum of the file
  friend bool operator==(const shard_entry&, const shard_entry&) = default;
};

/// The manifest of a sharded filter: the logical filter's kind and
/// parameters, the layout and one entry per shard (in index order).
struct shard_manifest {
  std::string kind;              ///< "blocked_bloom" or "split_block_bloom"
  block_filter_params whole{};   ///< the logical (unsharded) filter's parameters
  std::uint32_t shards = 0;
  std::vector<shard_entry> entries;

  [[nodiscard]] shard_layout layout() const { return shard_layout(whole.blocks, shards); }
  /// Sum of the shards' inserted counts.
  [[nodiscard]] std::uint64_t inserted() const noexcept {
    std::uint64_t total = 0;
    for (const auto& e : entries) total += e.inserted;
    return total;
  }
  friend bool operator==(const shard_manifest&, const shard_manifest&) = default;
};

/// The file name a shard gets by default: "shard-00003-of-00008.bkf".
inline std::string shard_file_name(std::uint32_t s, std::uint32_t shards) {
  char name[48];
  std::snprintf(name, sizeof name, "shard-%05u-of-%05u.bkf", s, shards);
  return name;
}

/// Saves shard `shard` to `path` (atomically, as bloomkit::save) and
/// returns its manifest entry (file = path's file name, size, checksum).
template <detail::block_policy P>
shard_entry save_shard(const block_shard_view<P>& shard, const std::filesystem::path& path) {
  const std::vector<std::byte> bytes = save_to_bytes(shard.file_view());
  {
    atomic_file_writer out(path);
    out.write(bytes);
    out.commit();
  }
  shard_entry e;
  e.index = shard.index();
  e.file = path.filename().string();
  e.first_block = shard.first_block();
  e.blocks = shard.blocks().size();
  e.inserted = shard.inserted();
  e.file_bytes = bytes.size();
  e.checksum = shard_file_checksum(bytes);
  return e;
}
template <detail::block_policy P>
shard_entry save_shard(const block_shard<P>& shard, const std::filesystem::path& path) {
  return save_shard(shard.view(), path);
}

namespace detail {

inline std::string hex16(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

[[noreturn]] inline void manifest_fail(errc code, const std::string& where, const std::string& what) {
  throw error::from_library(code, "manifest " + where + ": " + what);
}

/// Checks everything a manifest says against itself: kind, parameters,
/// layout, one entry per shard in order, each range and file name.
inline void validate_manifest(const shard_manifest& m, const std::string& where) {
  if (m.kind != shard_kind_name<split_block_policy>() && m.kind != shard_kind_name<cache_line_policy>()) {
    manifest_fail(errc::unsupported, where, "kind '" + m.kind + "' cannot be sharded (blocked_bloom and split_block_bloom can)");
  }
  try {
    if (m.kind == shard_kind_name<split_block_policy>()) {
      validate_params<split_block_policy>(m.whole);
    } else {
      validate_params<cache_line_policy>(m.whole);
    }
    (void)m.layout();
  } catch (const error& e) {
    throw error::in_context(errc::corrupt, error_origin::library, "manifest " + where + ": ", e);
  }
  if (m.entries.size() != m.shards) {
    manifest_fail(errc::corrupt, where, "it lists " + std::to_string(m.entries.size()) + " shards, expected " +
                                            std::to_string(m.shards));
  }
  const shard_layout layout = m.layout();
  for (std::uint32_t s = 0; s < m.shards; ++s) {
    const shard_entry& e = m.entries[s];
    const std::string at = "shard " + std::to_string(s);
    if (e.index != s) manifest_fail(errc::corrupt, where, at + ": index field is " + std::to_string(e.index));
    if (e.first_block != layout.first_block(s) || e.blocks != layout.block_count(s)) {
      manifest_fail(errc::corrupt, where, at + ": block range [" + std::to_string(e.first_block) + ", +" +
                                              std::to_string(e.blocks) + ") is not the layout's [" +
                                              std::to_string(layout.first_block(s)) + ", +" +
                                              std::to_string(layout.block_count(s)) + ")");
    }
    if (e.file.empty() || e.file == "." || e.file == ".." || e.file.find('/') != std::string::npos ||
        e.file.find('\0') != std::string::npos) {
      manifest_fail(errc::corrupt, where, at + ": file '" + e.file + "' must be a plain name in the manifest's folder");
    }
  }
}

}  // namespace detail

/// The manifest of a sharded filter of policy P with `whole` parameters,
/// from the entries save_shard returned (in any order; one per shard).
/// Throws errc::invalid_argument if an entry is missing, repeated or does
/// not match the layout.
template <detail::block_policy P>
shard_manifest make_manifest(const block_filter_params& whole, const shard_layout& layout,
                             std::vector<shard_entry> entries) {
  shard_manifest m;
  m.kind = std::string(shard_kind_name<P>());
  m.whole = whole;
  m.shards = layout.shards();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  m.entries = std::move(entries);
  try {
    detail::validate_manifest(m, "(being made)");
  } catch (const error& e) {
    throw error::in_context(errc::invalid_argument, "", e);
  }
  return m;
}

namespace detail {

// ---- the manifest's JSON, without nlohmann's DOM -------------------------------
// Why not nlohmann::json's DOM (json::parse, ordered_json::dump): its
// destructor frees a non-empty array or object by first moving the children
// onto a heap-allocated std::vector (nlohmann/json 3.11, json_value::destroy,
// to avoid deep recursion), inside a noexcept destructor. A failed allocation
// there calls std::terminate: the process ends instead of an error reaching
// the caller (the Python fault loop, python/tests/fault_driver.py, found it).
// So the reader keeps nlohmann's lexer and parser, through its SAX interface,
// and stores only the fields it knows in plain structs; the writer prints the
// fixed layout itself, with nlohmann's serializer for each string and double
// (a scalar json holds no container, so it frees nothing that allocates).
// The text is byte for byte what ordered_json::dump(1) gave
// (tests/sharding_test.cpp, ManifestTextIsNlohmannDump).

/// One JSON value at a known place in the manifest, as the SAX events gave it.
struct manifest_value {
  enum class type : std::uint8_t { missing, null, boolean, integer, unsigned_integer, floating, string, object, array };
  type t = type::missing;
  std::uint64_t u = 0;  ///< unsigned_integer
  double d = 0.0;       ///< any number, as json::get<double>() gives it
  std::string s;        ///< string
  [[nodiscard]] bool present() const noexcept { return t != type::missing; }
  [[nodiscard]] bool is_number() const noexcept {
    return t == type::integer || t == type::unsigned_integer || t == type::floating;
  }
};

/// The fields of one object the reader looks at, by name (names are few and
/// short, so a linear list; a repeated name keeps its last value, as the DOM).
struct manifest_object {
  std::vector<std::pair<std::string, manifest_value>> fields;
  bool is_object = true;  ///< false: a "files" entry that is not an object
  [[nodiscard]] const manifest_value* find(std::string_view name) const noexcept {
    for (const auto& f : fields) {
      if (f.first == name) return &f.second;
    }
    return nullptr;
  }
  manifest_value& slot(std::string_view name) {
    for (auto& f : fields) {
      if (f.first == name) {
        f.second = manifest_value{};
        return f.second;
      }
    }
    fields.emplace_back(std::string(name), manifest_value{});
    return fields.back().second;
  }
};

/// nlohmann's SAX handler for the manifest: root object fields, the "hash"
/// object's fields and each "files" entry's fields are kept; anything else
/// (unknown keys, deeper values) is skipped by counting its nesting, so no
/// input makes this recurse or hold more than the known fields.
class manifest_sax {
 public:
  using json = nlohmann::json;
  manifest_object root;
  manifest_object hash;
  std::vector<manifest_object> files;
  bool root_is_object = false;

  bool null() { return scalar(manifest_value::type::null); }
  bool boolean(bool) { return scalar(manifest_value::type::boolean); }
  bool number_integer(json::number_integer_t v) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::integer;
      at->d = static_cast<double>(v);
    }
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::unsigned_integer;
      at->u = v;
      at->d = static_cast<double>(v);
    }
    return true;
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::floating;
      at->d = v;
    }
    return true;
  }
  bool string(json::string_t& v) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::string;
      at->s = std::move(v);
    }
    return true;
  }
  bool binary(json::binary_t&) { return scalar(manifest_value::type::null); }  // not produced by the JSON parser
  bool start_object(std::size_t) {
    if (skip_ > 0) return ++skip_, true;
    const place_kind where = here();
    if (where == place_kind::top) {
      root_is_object = true;
      stack_.push_back(level::root);
    } else if (where == place_kind::root_field && key_ == "hash") {
      hash = manifest_object{};
      root.slot("hash").t = manifest_value::type::object;
      stack_.push_back(level::hash);
    } else if (where == place_kind::files_item) {
      files.emplace_back();
      stack_.push_back(level::entry);
    } else {
      if (manifest_value* at = place()) at->t = manifest_value::type::object;
      skip_ = 1;
    }
    return true;
  }
  bool end_object() {
    if (skip_ > 0) return --skip_, true;
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    if (skip_ > 0) return ++skip_, true;
    const place_kind where = here();
    if (where == place_kind::root_field && key_ == "files") {
      files.clear();
      root.slot("files").t = manifest_value::type::array;
      stack_.push_back(level::files);
    } else {
      if (manifest_value* at = place()) at->t = manifest_value::type::array;
      skip_ = 1;
    }
    return true;
  }
  bool end_array() {
    if (skip_ > 0) return --skip_, true;
    stack_.pop_back();
    return true;
  }
  bool key(json::string_t& k) {
    if (skip_ == 0) key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  enum class level : std::uint8_t { root, hash, files, entry };
  enum class place_kind : std::uint8_t { top, root_field, hash_field, files_item, entry_field };
  std::vector<level> stack_;
  std::string key_;
  std::size_t skip_ = 0;  ///< > 0: inside a skipped container, this deep

  [[nodiscard]] place_kind here() const noexcept {
    if (stack_.empty()) return place_kind::top;
    switch (stack_.back()) {
      case level::root: return place_kind::root_field;
      case level::hash: return place_kind::hash_field;
      case level::files: return place_kind::files_item;
      case level::entry: break;
    }
    return place_kind::entry_field;
  }
  /// Where the value that starts now is kept (nullptr: it is skipped).
  manifest_value* place() {
    if (skip_ > 0) return nullptr;
    switch (here()) {
      case place_kind::top: return nullptr;  // a root that is not an object
      case place_kind::root_field: return known(root_names) ? &root.slot(key_) : nullptr;
      case place_kind::hash_field: return known(hash_names) ? &hash.slot(key_) : nullptr;
      case place_kind::files_item: files.emplace_back().is_object = false; return nullptr;
      case place_kind::entry_field: return known(entry_names) ? &files.back().slot(key_) : nullptr;
    }
    return nullptr;
  }
  /// Only the names the reader asks for are kept, so an object with many
  /// other keys costs no more than skipping them.
  static constexpr std::string_view root_names[] = {"format", "version", "kind",       "hash",   "blocks", "k",
                                                    "capacity", "target_fpr", "shards", "files", "inserted"};
  static constexpr std::string_view hash_names[] = {"algorithm", "seed", "key_type"};
  static constexpr std::string_view entry_names[] = {"index", "file", "first_block", "blocks", "inserted", "bytes", "xxh3"};
  template <std::size_t N>
  [[nodiscard]] bool known(const std::string_view (&names)[N]) const noexcept {
    return std::find(std::begin(names), std::end(names), key_) != std::end(names);
  }
  bool scalar(manifest_value::type t) {
    if (manifest_value* at = place()) at->t = t;
    return true;
  }
};

/// nlohmann's text for one string or double (its escaping and its shortest
/// round-trip number format, as dump() writes them inside an object).
template <class T>
std::string json_scalar(const T& v) {
  return nlohmann::json(v).dump();
}

}  // namespace detail

/// The manifest as JSON text (one object; keys in a fixed order, one space
/// of indent per level: the text ordered_json::dump(1) gives).
inline std::string manifest_to_json(const shard_manifest& m) {
  using detail::json_scalar;
  const auto u = [](std::uint64_t v) { return std::to_string(v); };
  std::string out;
  out += "{\n \"format\": \"bloomkit-sharded\",\n \"version\": 1,\n \"kind\": " + json_scalar(m.kind) + ",\n";
  // "key_type" only for a typed filter, so an untyped manifest is the text it always was.
  out += " \"hash\": {\n  \"algorithm\": " + json_scalar(std::string(to_string(m.whole.hash.algorithm))) +
         ",\n  \"seed\": " + u(m.whole.hash.seed) +
         (m.whole.hash.keys == key_type::unspecified
              ? std::string()
              : ",\n  \"key_type\": " + json_scalar(std::string(to_string(m.whole.hash.keys)))) +
         "\n },\n";
  out += " \"blocks\": " + u(m.whole.blocks) + ",\n \"k\": " + u(m.whole.k) + ",\n \"capacity\": " +
         u(m.whole.capacity) + ",\n \"target_fpr\": " + json_scalar(m.whole.target_fpr) + ",\n \"shards\": " +
         u(m.shards) + ",\n \"inserted\": " + u(m.inserted()) + ",\n \"files\": ";
  if (m.entries.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    for (std::size_t i = 0; i < m.entries.size(); ++i) {
      const shard_entry& e = m.entries[i];
      out += "  {\n   \"index\": " + u(e.index) + ",\n   \"file\": " + json_scalar(e.file) + ",\n   \"first_block\": " +
             u(e.first_block) + ",\n   \"blocks\": " + u(e.blocks) + ",\n   \"inserted\": " + u(e.inserted) +
             ",\n   \"bytes\": " + u(e.file_bytes) + ",\n   \"xxh3\": \"" + detail::hex16(e.checksum) + "\"\n  }";
      out += i + 1 < m.entries.size() ? ",\n" : "\n";
    }
    out += " ]";
  }
  out += "\n}\n";
  return out;
}

/// Parses manifest JSON. `where` names the source in errors. Throws
/// errc::corrupt for text that is not a valid manifest (naming the field),
/// errc::unsupported_version for a newer version, errc::unsupported for a
/// kind that cannot be sharded; std::bad_alloc where memory runs out (never
/// std::terminate: see detail::manifest_sax).
inline shard_manifest manifest_from_json(std::string_view text, const std::string& where = "(text)") {
  using value = detail::manifest_value;
  detail::manifest_sax sax;
  const bool parsed = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  if (!parsed || !sax.root_is_object) detail::manifest_fail(errc::corrupt, where, "it is not a JSON object");
  auto field = [&](const detail::manifest_object& obj, const char* name) -> const value& {
    const value* v = obj.find(name);
    if (v == nullptr) detail::manifest_fail(errc::corrupt, where, std::string("field '") + name + "' is missing");
    return *v;
  };
  auto unsigned_field = [&](const detail::manifest_object& obj, const char* name, std::uint64_t max) -> std::uint64_t {
    const value& v = field(obj, name);
    if (v.t != value::type::unsigned_integer || v.u > max) {
      detail::manifest_fail(errc::corrupt, where, std::string("field '") + name + "' must be an integer in [0, " +
                                                      std::to_string(max) + "]");
    }
    return v.u;
  };
  auto string_field = [&](const detail::manifest_object& obj, const char* name) -> std::string {
    const value& v = field(obj, name);
    if (v.t != value::type::string) detail::manifest_fail(errc::corrupt, where, std::string("field '") + name + "' must be a string");
    return v.s;
  };
  const detail::manifest_object& j = sax.root;
  if (string_field(j, "format") != "bloomkit-sharded") {
    detail::manifest_fail(errc::corrupt, where, "field 'format' is not \"bloomkit-sharded\"");
  }
  const std::uint64_t version = unsigned_field(j, "version", UINT32_MAX);
  if (version != 1) {
    detail::manifest_fail(errc::unsupported_version, where, "version " + std::to_string(version) +
                                                                " is newer than this reader (1)");
  }
  shard_manifest m;
  m.kind = string_field(j, "kind");
  if (field(j, "hash").t != value::type::object) detail::manifest_fail(errc::corrupt, where, "field 'hash' must be an object");
  const std::string algorithm = string_field(sax.hash, "algorithm");
  const auto named = hash_algorithm_named(algorithm);
  if (!named) detail::manifest_fail(errc::corrupt, where, "unknown hash algorithm '" + algorithm + "'");
  m.whole.hash.algorithm = *named;
  m.whole.hash.seed = unsigned_field(sax.hash, "seed", UINT64_MAX);
  if (sax.hash.find("key_type") != nullptr) {  // absent: an untyped filter (every manifest before key types)
    const auto keys = parse_key_type(string_field(sax.hash, "key_type"));
    if (!keys || *keys == key_type::unspecified) {
      detail::manifest_fail(errc::corrupt, where, "field 'key_type' names no key type (docs/KEYS.md)");
    }
    m.whole.hash.keys = *keys;
  }
  m.whole.blocks = unsigned_field(j, "blocks", UINT64_MAX);
  m.whole.k = static_cast<std::uint32_t>(unsigned_field(j, "k", 64));
  m.whole.capacity = unsigned_field(j, "capacity", UINT64_MAX);
  const value& fpr = field(j, "target_fpr");
  if (!fpr.is_number()) detail::manifest_fail(errc::corrupt, where, "field 'target_fpr' must be a number");
  m.whole.target_fpr = fpr.d;
  m.shards = static_cast<std::uint32_t>(unsigned_field(j, "shards", shard_layout::max_shards));
  if (field(j, "files").t != value::type::array) detail::manifest_fail(errc::corrupt, where, "field 'files' must be an array");
  for (const auto& f : sax.files) {
    if (!f.is_object) detail::manifest_fail(errc::corrupt, where, "every entry of 'files' must be an object");
    shard_entry e;
    e.index = static_cast<std::uint32_t>(unsigned_field(f, "index", UINT32_MAX));
    e.file = string_field(f, "file");
    e.first_block = unsigned_field(f, "first_block", UINT64_MAX);
    e.blocks = unsigned_field(f, "blocks", UINT64_MAX);
    e.inserted = unsigned_field(f, "inserted", UINT64_MAX);
    e.file_bytes = unsigned_field(f, "bytes", UINT64_MAX);
    const std::string sum = string_field(f, "xxh3");
    if (sum.size() != 16 || sum.find_first_not_of("0123456789abcdef") != std::string::npos) {
      detail::manifest_fail(errc::corrupt, where, "shard " + std::to_string(e.index) + ": 'xxh3' must be 16 hex digits");
    }
    e.checksum = std::stoull(sum, nullptr, 16);
    m.entries.push_back(std::move(e));
  }
  detail::validate_manifest(m, where);
  if (const value* total = j.find("inserted");
      total != nullptr && (total->t != value::type::unsigned_integer || total->u != m.inserted())) {
    detail::manifest_fail(errc::corrupt, where, "field 'inserted' is not the sum of the shards' counts");
  }
  return m;
}

/// Writes the manifest to `path` atomically (temporary file + rename).
inline void write_manifest(const shard_manifest& m, const std::filesystem::path& path) {
  const std::string text = manifest_to_json(m);
  atomic_file_writer out(path);
  out.write(std::as_bytes(std::span<const char>(text.data(), text.size())));
  out.commit();
}

/// Reads and validates the manifest at `path` (errc::io if unreadable,
/// otherwise as manifest_from_json, naming the path).
inline shard_manifest read_manifest(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error::from_library(errc::io, "cannot read manifest", path.string(), "");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw error::from_library(errc::io, "reading manifest", path.string(), " failed");
  return manifest_from_json(text.str(), "'" + path.string() + "'");
}

/// A shard file mapped and checked against its manifest entry, with its view.
template <detail::block_policy P>
struct mapped_shard {
  mapped_file file;
  block_shard_view<P> shard;
};

/// Maps shard s of manifest `m`, whose files live in `folder`, and checks
/// it: errc::io if the file is missing ("shard s of S: file ... is
/// missing"), errc::mismatch if the manifest is of another kind than P, or
/// the file's size or XXH3-64 differ from the manifest's (a file from
/// another build, or altered), or its kind, k, hash or block count do.
template <detail::block_policy P>
mapped_shard<P> open_shard(const shard_manifest& m, const std::filesystem::path& folder, std::uint32_t s) {
  if (m.kind != shard_kind_name<P>()) {
    throw error::from_library(errc::mismatch,
                              "the manifest holds a " + m.kind + ", not a " + std::string(shard_kind_name<P>()));
  }
  if (s >= m.shards) {
    throw error::from_library(errc::invalid_argument,
                              "shard " + std::to_string(s) + " is not below " + std::to_string(m.shards));
  }
  const shard_entry& e = m.entries[s];
  const std::filesystem::path path = folder / e.file;
  const std::string at = "shard " + std::to_string(s) + " of " + std::to_string(m.shards) + " ('" +
                         path.string() + "')";
  // "bloomkit: shard s of S ('PATH'): <what>" unless `ok`.
  const auto require_shard = [&](bool ok, errc code, const std::string& what) {
    if (!ok) [[unlikely]] throw error::from_library(code, at + ": " + what);
  };
  std::error_code ec;
  require_shard(std::filesystem::exists(path, ec), errc::io, "the file is missing");
  mapped_file file(path);
  const auto bytes = file.bytes();
  require_shard(bytes.size() == e.file_bytes, errc::mismatch,
                  std::to_string(bytes.size()) + " bytes, the manifest says " + std::to_string(e.file_bytes) +
                      " (a file from another build?)");
  const std::uint64_t sum = shard_file_checksum(bytes);
  require_shard(sum == e.checksum, errc::mismatch,
                  "XXH3-64 " + detail::hex16(sum) + ", the manifest says " + detail::hex16(e.checksum) +
                      " (a file from another build, or altered)");
  // The whole-file checksum matched, so the payload need not be hashed again.
  const auto local = detail::format::naming_path(path, [&] {
    return view_as<block_filter<P>>(bytes, m.whole.hash, payload_check::skip);
  });
  const block_filter_params& lp = local.params();
  require_shard(lp.k == m.whole.k && lp.blocks == e.blocks, errc::mismatch,
                  "the file holds k = " + std::to_string(lp.k) + " and " + std::to_string(lp.blocks) +
                      " blocks, the manifest k = " + std::to_string(m.whole.k) + " and " + std::to_string(e.blocks));
  require_shard(lp.hash.keys == m.whole.hash.keys, errc::mismatch,
                  "the file holds " + std::string(to_string(lp.hash.keys)) + " keys, the manifest " +
                      std::string(to_string(m.whole.hash.keys)) + " keys");
  require_shard(local.inserted() == e.inserted, errc::mismatch,
                  "the file counts " + std::to_string(local.inserted()) + " inserts, the manifest " +
                      std::to_string(e.inserted));
  block_shard_view<P> view(m.whole, m.layout(), s, local.blocks(), local.inserted());
  return mapped_shard<P>{std::move(file), view};
}

/// Every shard of a manifest, mapped and checked (open_shard on each), with
/// probe routing: a batch is grouped by shard, answered per shard and
/// reassembled in input order. Answers exactly as the unsharded filter.
template <detail::block_policy P>
class sharded_filter {
 public:
  /// Opens the manifest at `manifest_path` and every shard file beside it.
  /// Throws what read_manifest and open_shard throw; nothing is half-open.
  explicit sharded_filter(const std::filesystem::path& manifest_path)
      : sharded_filter(read_manifest(manifest_path),
                       manifest_path.has_parent_path() ? manifest_path.parent_path() : std::filesystem::path(".")) {}

  /// Opens the shards of `m` from `folder`.
  sharded_filter(shard_manifest m, const std::filesystem::path& folder) : manifest_(std::move(m)), layout_(manifest_.layout()) {
    shards_.reserve(manifest_.shards);
    for (std::uint32_t s = 0; s < manifest_.shards; ++s) shards_.push_back(open_shard<P>(manifest_, folder, s));
  }

  // Movable, not copyable: it holds the shards' mappings.
  sharded_filter(sharded_filter&&) noexcept = default;
  sharded_filter& operator=(sharded_filter&&) noexcept = default;
  sharded_filter(const sharded_filter&) = delete;
  sharded_filter& operator=(const sharded_filter&) = delete;
  ~sharded_filter() = default;

  /// The hash_spec keys are hashed with: the unsharded filter's
  /// (manifest().whole.hash), as every kind's hash().
  [[nodiscard]] hash_spec hash() const noexcept { return manifest_.whole.hash; }

  /// True if `k` (hashed with hash()) may be in the set; false means
  /// certainly not. The unsharded filter's may_contain(k), answered by the
  /// shard its hash routes to.
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const {
    return may_contain_hash(hash_key(k, hash()));
  }

  /// out[i] = may_contain(keys[i]): the keys hashed with hash(), then routed
  /// and answered as one may_contain_many batch. Throws errc::invalid_argument
  /// if the sizes differ, errc::mismatch (before hashing any key) if the keys
  /// do not convert into the filter's key type. Memory: one hash per key.
  template <key K>
  void may_contain_keys(std::span<const K> keys, std::span<bool> out) const {
    detail::require(keys.size() == out.size(), errc::invalid_argument,
                    "sharded filter: may_contain_keys needs as many outputs as keys");
    const hash_spec spec = hash();
    require_keys_convert(keys.data(), keys.size(), spec);
    std::vector<std::uint64_t> hashes(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = hash_key(keys[i], spec);
    may_contain_many(hashes, out);
  }
  /// may_contain_keys over a vector (spans do not deduce from containers).
  template <key K, class Alloc>
  void may_contain_keys(const std::vector<K, Alloc>& keys, std::span<bool> out) const {
    may_contain_keys(std::span<const K>(keys), out);
  }

  /// out[i] = the unsharded filter's may_contain_hash(hashes[i]): a batch of
  /// precomputed hashes (the C++ `_many` rule; may_contain_keys takes keys).
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    detail::require(hashes.size() == out.size(), errc::invalid_argument,
                    "sharded filter: may_contain_many needs as many outputs as hashes");
    const shard_routing r = route(layout_, hashes);
    const std::size_t n = r.hashes.size();
    const auto grouped = std::make_unique<bool[]>(n);  // owned here, freed on return
    bool* answers = grouped.get();
    for (std::uint32_t s = 0; s < manifest_.shards; ++s) {
      const auto part = r.hashes_of(s);
      shards_[s].shard.may_contain_many(part, std::span<bool>(answers + r.offsets[s], part.size()));
    }
    reassemble(r, std::span<const bool>(answers, n), out);
  }

  /// One hash, answered by its shard.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const {
    return shards_[layout_.shard_of_hash(h)].shard.may_contain_hash(h);
  }

  /// The unsharded filter, assembled from the shards' block ranges in
  /// order (for a filter that does fit in this process): bit-identical to a
  /// block_filter<P>(manifest().whole) that took every shard's hashes, with
  /// inserted() the sum. Memory: the whole filter, once.
  [[nodiscard]] block_filter<P> gather() const {
    std::vector<typename P::block_type> blocks;
    blocks.reserve(manifest_.whole.blocks);
    for (const auto& s : shards_) blocks.insert(blocks.end(), s.shard.blocks().begin(), s.shard.blocks().end());
    return block_filter<P>(manifest_.whole, std::move(blocks), manifest_.inserted());
  }

  [[nodiscard]] const shard_manifest& manifest() const noexcept { return manifest_; }
  [[nodiscard]] const shard_layout& layout() const noexcept { return layout_; }
  [[nodiscard]] const block_shard_view<P>& shard(std::uint32_t s) const { return shards_.at(s).shard; }

 private:
  shard_manifest manifest_;
  shard_layout layout_;
  std::vector<mapped_shard<P>> shards_;
};

/// The sharded forms of the two block layouts, by their filters' names.
using split_block_shard = block_shard<split_block_bloom::policy>;
using blocked_shard = block_shard<blocked_bloom::policy>;
using sharded_split_block_bloom = sharded_filter<split_block_bloom::policy>;
using sharded_blocked_bloom = sharded_filter<blocked_bloom::policy>;

}  // namespace bloomkit
