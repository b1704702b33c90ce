// bloomkit/format/standard_bloom.hpp - the file codec of standard_bloom
// (docs/FORMAT.md, "Kind 1: standard_bloom").
//
//   parameters (16 bytes): bits u64 | k u32 | reserved u32 (zero)
//   payload: ceil(bits / 64) words u64 little-endian; bit i of the filter is
//            bit i % 64 of word i / 64; the bits past `bits` are zero.
#pragma once

#include "bloomkit/format/core.hpp"
#include "bloomkit/standard_bloom.hpp"

namespace bloomkit {

template <>
struct format_codec<standard_bloom> : detail::format::word_payload<standard_bloom_view> {
  using filter_type = standard_bloom;
  using view_type = standard_bloom_view;
  /// What the writing functions take (owning filters are saved via view()).
  using source_type = standard_bloom_view;
  using params_type = standard_bloom_params;
  static constexpr filter_kind kind = filter_kind::standard_bloom;

  // ---- writing ----
  static std::uint32_t params_bytes(const source_type&) noexcept { return 16; }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    out.u64(f.bit_count());
    out.u32(f.num_hashes());
    out.zeros(4);
  }

  // ---- reading ----
  /// Decodes and checks the parameters against each other and against the
  /// header's payload length. Throws errc::corrupt naming the field.
  static params_type read_params(const detail::format::header& h, detail::format::params_reader& in) {
    const std::string_view name = in.kind();
    params_type p;
    p.bits = in.u64("bits");
    p.k = in.u32("k");
    in.zeros(4, "reserved");
    in.finish();
    detail::format::adopt_design(h, p);
    detail::validate(p, {name, errc::corrupt});
    detail::format::check_payload_bytes(h, name, detail::words_for_bits(p.bits) * 8, "bits = " + std::to_string(p.bits));
    return p;
  }
  /// An owning filter holding a copy of `payload` (already length-checked).
  static filter_type load(const params_type& p, const detail::format::header& h, std::span<const std::byte> payload) {
    auto words = detail::format::read_items<std::uint64_t>(payload);
    check_tail(p, words.back());
    return filter_type(p, std::move(words), h.inserted);
  }
  /// A view whose words are `payload` itself (little-endian host, aligned).
  static view_type view(const params_type& p, const detail::format::header& h, std::span<const std::byte> payload) {
    const auto words = detail::format::items_in_place<std::uint64_t>(payload);
    check_tail(p, words.back());
    return view_type(p, words, h.inserted);
  }
  static void describe(const params_type& p, std::vector<file_param>& out) {
    out.push_back({"bits", p.bits});
    out.push_back({"k", std::uint64_t{p.k}});
  }

 private:
  static void check_tail(const params_type& p, std::uint64_t last_word) {
    const unsigned tail = static_cast<unsigned>(p.bits % 64);
    detail::format::check_field(tail == 0 || (last_word >> tail) == 0, "standard_bloom", "payload",
                                "has bits set past bit " + std::to_string(p.bits) + " (the filter's end)");
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<standard_bloom_view> : format_codec<standard_bloom> {};

}  // namespace bloomkit
