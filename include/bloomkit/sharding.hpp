// bloomkit/sharding.hpp - one logical block filter (blocked_bloom or
// split_block_bloom) split by block range into S shards, each a normal filter
// file, plus a JSON manifest; routing of hashes to shards and of answers back.
//
//   shard_layout layout(whole.num_blocks(), 8);          // 8 contiguous block ranges
//   auto shard = block_shard<split_block_policy>::empty(params, layout, s);
//   shard.insert_many(hashes_routed_to_s);               // on the worker holding s
//   auto entry = save_shard(shard, folder / shard_file_name(s));
//   write_manifest(folder / "filter.manifest.json", manifest_for(params, layout, entries));
//   sharded_split_block_bloom sharded(folder / "filter.manifest.json");
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
// but it answers correctly only through open_shard/sharded_filter, which refuse
// a shard whose kind, k, hash, block count, size or XXH3-64 file checksum
// disagrees with the manifest, and a manifest whose shard files are missing.
//
// The parts, one job each: shard_layout.hpp (the split and the routing),
// block_shard.hpp (one shard), shard_manifest.hpp (the manifest and the
// shard files), shard_manifest_json.hpp (the manifest's JSON, through
// nlohmann/json: link bloomkit::sharding, see there). This header adds
// opening a shard file against its manifest and the sharded filter that
// answers for all shards, and includes the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/block_shard.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/file_io.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/shard_layout.hpp"
#include "bloomkit/shard_manifest.hpp"
#include "bloomkit/shard_manifest_json.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit {

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
