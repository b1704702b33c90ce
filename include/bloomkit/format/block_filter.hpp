// bloomkit/format/block_filter.hpp - the file codec shared by the
// block-shaped filters (blocked_bloom, split_block_bloom; docs/FORMAT.md,
// "Kinds 2 and 3").
//
//   parameters (16 bytes): blocks u64 | k u32 | reserved u32 (zero)
//   payload: `blocks` blocks in order, each the policy's words little-endian
//            (blocked_bloom: 8 x u64; split_block_bloom: 8 x u32, which is
//            exactly the Parquet bitset).
#pragma once

#include "bloomkit/block_filter.hpp"
#include "bloomkit/format/core.hpp"

namespace bloomkit::detail::format {

/// The codec of block_filter<P>, stored under kind id `Kind`. A kind's
/// format_codec specialisation derives from it.
template <block_policy P, filter_kind Kind>
struct block_filter_codec {
  using filter_type = block_filter<P>;
  using view_type = block_filter_view<P>;
  using source_type = block_filter_view<P>;
  using params_type = block_filter_params;
  using block_type = typename P::block_type;
  static_assert(word_block<block_type>, "a block must be an array of words and nothing else");
  static_assert(sizeof(block_type) * 8 == P::block_bits);
  static constexpr filter_kind kind = Kind;
  static constexpr std::size_t payload_alignment = alignof(block_type);

  static std::uint32_t params_bytes(const source_type&) noexcept { return 16; }
  static void write_params(const source_type& f, params_writer& out) {
    out.u64(f.num_blocks());
    out.u32(f.num_hashes());
    out.zeros(4);
  }
  static std::uint64_t payload_bytes(const source_type& f) noexcept { return f.blocks().size_bytes(); }
  template <class Sink>
  static void write_payload(const source_type& f, Sink& sink) {
    write_items(f.blocks(), sink);
  }

  /// Decodes and checks blocks and k against the policy's ranges and the
  /// payload length (blocks * block size). Throws errc::corrupt naming the field.
  static params_type read_params(const header& h, params_reader& in) {
    const std::string_view name = in.kind();
    params_type p;
    p.blocks = in.u64("blocks");
    p.k = in.u32("k");
    in.zeros(4, "reserved");
    in.finish();
    adopt_design(h, p);
    detail::validate_params<P>(p, {name, errc::corrupt});
    // blocks <= 2^32 and a block <= 64 bytes: the product cannot overflow.
    check_payload_bytes(h, name, p.blocks * sizeof(block_type), "blocks = " + std::to_string(p.blocks));
    return p;
  }
  static filter_type load(const params_type& p, const header& h, std::span<const std::byte> payload) {
    return filter_type(p, read_items<block_type>(payload), h.inserted);
  }
  static view_type view(const params_type& p, const header& h, std::span<const std::byte> payload) {
    return view_type(p, items_in_place<block_type>(payload), h.inserted);
  }
  static void describe(const params_type& p, std::vector<file_param>& out) {
    out.push_back({"blocks", p.blocks});
    out.push_back({"k", std::uint64_t{p.k}});
    out.push_back({"block_bits", std::uint64_t{P::block_bits}});
  }
};

}  // namespace bloomkit::detail::format
