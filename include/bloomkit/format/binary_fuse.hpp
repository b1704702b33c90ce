// bloomkit/format/binary_fuse.hpp - the file codec of binary_fuse
// (docs/FORMAT.md, "Kind 6: binary_fuse"). Both fingerprint widths share the
// kind; the parameters say which.
//
//   parameters (32 bytes): fingerprint_bits u32 (8 or 16) | arity u32 (3 or 4)
//                          | segment_length u32 | segment_count u32 | seed u64 | keys u64
//   payload: array_length = (segment_count + arity - 1) * segment_length
//            fingerprints, slot 0 first, each fingerprint_bits / 8 bytes
//            little-endian. keys = 0 (an empty filter) has no segments and no payload.
//   header: inserted = keys, capacity = max(keys, 1), target_fpr = 2^-fingerprint_bits.
#pragma once

#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/format/core.hpp"

namespace bloomkit {

template <>
struct format_codec<binary_fuse> {
  using filter_type = binary_fuse;
  using view_type = binary_fuse_view;
  using source_type = binary_fuse_view;
  using params_type = binary_fuse_params;
  static constexpr filter_kind kind = filter_kind::binary_fuse;
  /// view() needs the payload aligned for 16-bit fingerprints.
  static constexpr std::size_t payload_alignment = alignof(std::uint16_t);

  // ---- writing ----
  static std::uint32_t params_bytes(const source_type&) noexcept { return 32; }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    const binary_fuse_params& p = f.params();
    out.u32(p.fingerprint_bits);
    out.u32(p.arity);
    out.u32(p.segment_length);
    out.u32(p.segment_count);
    out.u64(p.seed);
    out.u64(p.keys);
  }
  static std::uint64_t payload_bytes(const source_type& f) noexcept { return f.size_in_bytes(); }
  template <class Sink>
  static void write_payload(const source_type& f, Sink& sink) {
    std::visit([&](const auto& v) { detail::format::write_items(v.fingerprints(), sink); }, f.typed());
  }

  // ---- reading ----
  /// Decodes the parameters and checks them against each other, the header
  /// and its payload length. Throws errc::corrupt naming the field.
  static params_type read_params(const detail::format::header& h, detail::format::params_reader& in) {
    const std::string_view name = in.kind();
    params_type p;
    p.fingerprint_bits = in.u32("fingerprint_bits");
    p.arity = in.u32("arity");
    p.segment_length = in.u32("segment_length");
    p.segment_count = in.u32("segment_count");
    p.seed = in.u64("seed");
    p.keys = in.u64("keys");
    in.finish();
    p.hash = h.hash;
    detail::validate(p, {name, errc::corrupt});
    detail::format::check_static_keys(h, name, p.keys);
    detail::format::check_payload_bytes(h, name, p.array_length() * (p.fingerprint_bits / 8), "the parameters");
    return p;
  }
  /// An owning filter holding a copy of `payload` (already length-checked).
  static filter_type load(const params_type& p, const detail::format::header&, std::span<const std::byte> payload) {
    if (p.fingerprint_bits == 8) return binary_fuse8(p, detail::format::read_items<std::uint8_t>(payload));
    return binary_fuse16(p, detail::format::read_items<std::uint16_t>(payload));
  }
  /// A view whose fingerprints are `payload` itself (little-endian host, aligned).
  static view_type view(const params_type& p, const detail::format::header&, std::span<const std::byte> payload) {
    if (p.fingerprint_bits == 8) return binary_fuse8_view(p, detail::format::items_in_place<std::uint8_t>(payload));
    return binary_fuse16_view(p, detail::format::items_in_place<std::uint16_t>(payload));
  }
  static void describe(const params_type& p, std::vector<file_param>& out) {
    out.push_back({"fingerprint_bits", std::uint64_t{p.fingerprint_bits}});
    out.push_back({"arity", std::uint64_t{p.arity}});
    out.push_back({"segment_length", std::uint64_t{p.segment_length}});
    out.push_back({"segment_count", std::uint64_t{p.segment_count}});
    out.push_back({"seed", p.seed});
    out.push_back({"keys", p.keys});
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<binary_fuse_view> : format_codec<binary_fuse> {};

}  // namespace bloomkit
