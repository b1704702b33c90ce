// bloomkit/shard_layout.hpp - how the blocks of one logical block filter split into S
// contiguous shards, and the routing of a batch of hashes to them and of
// the answers back (bloomkit/sharding.hpp says why the split is exact).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit {

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

}  // namespace bloomkit
