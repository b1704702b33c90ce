// bloomkit/format/blocked_bloom.hpp - the file codec of blocked_bloom
// (kind 2; docs/FORMAT.md): blocks u64, k u32 in [1, 16], then 64-byte
// blocks of eight u64 words, little-endian.
#pragma once

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/format/block_filter.hpp"

namespace bloomkit {

template <>
struct format_codec<blocked_bloom>
    : detail::format::block_filter_codec<detail::cache_line_policy, filter_kind::blocked_bloom> {};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<blocked_bloom_view> : format_codec<blocked_bloom> {};

}  // namespace bloomkit
