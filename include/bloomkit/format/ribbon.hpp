// bloomkit/format/ribbon.hpp - the file codec of ribbon
// (docs/FORMAT.md, "Kind 7: ribbon").
//
//   parameters (32 bytes): result_bits u32 (1..16) | reserved u32 (zero)
//                          | slots u64 | seed u64 | keys u64
//   payload: (slots / 64 + 1) * result_bits words u64 little-endian: block b
//            (64 slots) holds result_bits words, word j = result bit j of its
//            slots (bit i of the word = slot 64 b + i); the last block is zero
//            padding. keys = 0 (an empty filter) has slots = 0 and no payload.
//   header: inserted = keys, capacity = max(keys, 1), target_fpr = 2^-result_bits.
#pragma once

#include "bloomkit/format/core.hpp"
#include "bloomkit/ribbon.hpp"

namespace bloomkit {

template <>
struct format_codec<ribbon> : detail::format::word_payload<ribbon_view> {
  using filter_type = ribbon;
  using view_type = ribbon_view;
  using source_type = ribbon_view;
  using params_type = ribbon_params;
  static constexpr filter_kind kind = filter_kind::ribbon;

  // ---- writing ----
  static std::uint32_t params_bytes(const source_type&) noexcept { return 32; }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    const ribbon_params& p = f.params();
    out.u32(p.result_bits);
    out.zeros(4);
    out.u64(p.slots);
    out.u64(p.seed);
    out.u64(p.keys);
  }

  // ---- reading ----
  /// Decodes the parameters and checks them against each other, the header
  /// and its payload length. Throws errc::corrupt naming the field.
  static params_type read_params(const detail::format::header& h, detail::format::params_reader& in) {
    const std::string_view name = in.kind();
    params_type p;
    p.result_bits = in.u32("result_bits");
    in.zeros(4, "reserved");
    p.slots = in.u64("slots");
    p.seed = in.u64("seed");
    p.keys = in.u64("keys");
    in.finish();
    p.hash = h.hash;
    detail::validate(p, {name, errc::corrupt});
    detail::format::check_static_keys(h, name, p.keys);
    detail::format::check_payload_bytes(h, name, p.word_count() * 8, "the parameters");
    return p;
  }
  static filter_type load(const params_type& p, const detail::format::header&, std::span<const std::byte> payload) {
    auto words = detail::format::read_items<std::uint64_t>(payload);
    check_padding(p, words);
    return filter_type(p, std::move(words));
  }
  static view_type view(const params_type& p, const detail::format::header&, std::span<const std::byte> payload) {
    const auto words = detail::format::items_in_place<std::uint64_t>(payload);
    check_padding(p, words);
    return view_type(p, words);
  }
  static void describe(const params_type& p, std::vector<file_param>& out) {
    out.push_back({"result_bits", std::uint64_t{p.result_bits}});
    out.push_back({"slots", p.slots});
    out.push_back({"seed", p.seed});
    out.push_back({"keys", p.keys});
  }

 private:
  /// The padding block (the last r words) is written as zero; anything else
  /// is not a file this format produces.
  static void check_padding(const params_type& p, std::span<const std::uint64_t> words) {
    const std::size_t pad = words.size() >= p.result_bits ? words.size() - p.result_bits : 0;
    bool zero = true;
    for (std::size_t i = pad; i < words.size(); ++i) zero = zero && words[i] == 0;
    detail::format::check_field(zero, "ribbon", "payload", "has a nonzero padding block (its last result_bits words)");
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<ribbon_view> : format_codec<ribbon> {};

}  // namespace bloomkit
