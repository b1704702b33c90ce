// bloomkit/format/split_block_bloom.hpp - the file codec of
// split_block_bloom (kind 3; docs/FORMAT.md): blocks u64, k u32 (always 8),
// then 32-byte blocks of eight u32 words, little-endian. The payload is byte
// for byte the Parquet bitset of the same filter (to_parquet_bitset).
#pragma once

#include "bloomkit/format/block_filter.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit {

template <>
struct format_codec<split_block_bloom>
    : detail::format::block_filter_codec<detail::split_block_policy, filter_kind::split_block_bloom> {};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<split_block_bloom_view> : format_codec<split_block_bloom> {};

}  // namespace bloomkit
