// bloomkit/shard_manifest.hpp - what a sharded filter's manifest records (the logical
// filter's kind and parameters, one entry per shard file), how a shard is
// saved as an ordinary bloomkit file with its entry, and the checks a
// manifest must pass. Its JSON text: bloomkit/shard_manifest_json.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/block_shard.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/file_io.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/shard_layout.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit {

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

}  // namespace bloomkit
