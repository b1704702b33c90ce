// bloomkit/format/ribbon.hpp - the file codec of ribbon
// (docs/FORMAT.md, "Kind 7: ribbon").
//
//   parameters (32 bytes): result_bits u32 (1..16) | layout u32 (0 standard;
//                          reserved, zero, before version 4)
//                          | slots u64 | seed u64 | keys u64
//   bumped (layout 1, format version 4): 16 + 8 L more bytes:
//                          layers L u32 (1..4; 0 when keys = 0) | reserved u32
//                          | last_seed u64 | layer_slots u64 x L (sum = slots)
//   payload: (slots / 64 + 1) * result_bits words u64 little-endian: block b
//            (64 slots) holds result_bits words, word j = result bit j of its
//            slots (bit i of the word = slot 64 b + i); the last block is zero
//            padding. keys = 0 (an empty filter) has slots = 0 and no payload.
//            Bumped: each layer's solution words in that form, then each
//            bumping layer's (all but the last) 2-bit bucket codes, 32 to a
//            word (bucket c at bits 2(c % 32)), for layer_slots / 64 - 1
//            buckets; bits past the last bucket are zero.
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
  static std::uint32_t params_bytes(const source_type& f) noexcept {
    return f.params().layout == ribbon_layout::bumped ? 48 + 8 * f.params().layers : 32;
  }
  /// A standard Ribbon is what version 1 always meant; bumped needs version 4.
  static std::uint32_t min_version(const source_type& f) noexcept {
    return f.params().layout == ribbon_layout::bumped ? detail::format::ribbon_layout_version : 1;
  }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    const ribbon_params& p = f.params();
    out.u32(p.result_bits);
    out.u32(static_cast<std::uint32_t>(p.layout));
    out.u64(p.slots);
    out.u64(p.seed);
    out.u64(p.keys);
    if (p.layout != ribbon_layout::bumped) return;
    out.u32(p.layers);
    out.zeros(4);
    out.u64(p.last_seed);
    for (std::uint32_t i = 0; i < p.layers; ++i) out.u64(p.layer_slots[i]);
  }

  // ---- reading ----
  /// Decodes the parameters and checks them against each other, the header
  /// and its payload length. Throws errc::corrupt naming the field.
  static params_type read_params(const detail::format::header& h, detail::format::params_reader& in) {
    const std::string_view name = in.kind();
    params_type p;
    p.result_bits = in.u32("result_bits");
    const std::uint32_t layout = in.u32("layout");
    detail::format::check_field(layout == 0 || h.version >= detail::format::ribbon_layout_version, name, "layout",
                                "= " + std::to_string(layout) + " in a version " + std::to_string(h.version) +
                                    " file; it exists from format version 4 on (before, this field is reserved, zero)");
    detail::format::check_field(layout <= 1, name, "layout", "= " + std::to_string(layout) + " is not 0 or 1");
    p.layout = static_cast<ribbon_layout>(layout);
    p.slots = in.u64("slots");
    p.seed = in.u64("seed");
    p.keys = in.u64("keys");
    if (p.layout == ribbon_layout::bumped) {
      p.layers = in.u32("layers");
      detail::format::check_field(p.layers <= ribbon_max_layers, name, "layers",
                                  "= " + std::to_string(p.layers) + " is above " + std::to_string(ribbon_max_layers));
      in.zeros(4, "reserved");
      p.last_seed = in.u64("last_seed");
      for (std::uint32_t i = 0; i < p.layers; ++i) p.layer_slots[i] = in.u64("layer_slots");
    }
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
    if (p.layout == ribbon_layout::bumped) {
      out.push_back({"layout", std::uint64_t{1}});  // 1 = bumped; standard files list no layout
      out.push_back({"layers", std::uint64_t{p.layers}});
      for (std::uint32_t i = 0; i < p.layers; ++i) {
        out.push_back({"layer_" + std::to_string(i) + "_slots", p.layer_slots[i]});
      }
      out.push_back({"last_seed", p.last_seed});
    }
    out.push_back({"slots", p.slots});
    out.push_back({"seed", p.seed});
    out.push_back({"keys", p.keys});
  }

 private:
  /// The padding block of each layer (its last r words) and the code bits
  /// past each bumping layer's last bucket are written as zero; anything
  /// else is not a file this format produces.
  static void check_padding(const params_type& p, std::span<const std::uint64_t> words) {
    const auto zero_words = [&](std::uint64_t from, std::uint64_t count) {
      bool zero = true;
      for (std::uint64_t i = from; i < from + count && i < words.size(); ++i) zero = zero && words[i] == 0;
      return zero;
    };
    if (p.layout != ribbon_layout::bumped) {
      const std::size_t pad = words.size() >= p.result_bits ? words.size() - p.result_bits : 0;
      detail::format::check_field(zero_words(pad, words.size() - pad), "ribbon", "payload",
                                  "has a nonzero padding block (its last result_bits words)");
      return;
    }
    const detail::ribbon_layer_map map = detail::ribbon_map_of(p);
    for (std::uint32_t i = 0; i < map.layers; ++i) {
      detail::format::check_field(zero_words(map.words[i] + map.slots[i] / 64 * p.result_bits, p.result_bits),
                                  "ribbon", "payload",
                                  "has a nonzero padding block in layer " + std::to_string(i));
      if (i + 1 == map.layers) continue;
      const std::uint64_t buckets = map.slots[i] / 64 - 1;
      const std::uint64_t last = map.codes[i] + (buckets - 1) / 32;
      const unsigned used = static_cast<unsigned>(2 * ((buckets - 1) % 32 + 1));
      detail::format::check_field(used == 64 || last >= words.size() || (words[last] >> used) == 0, "ribbon",
                                  "payload", "has bucket code bits past layer " + std::to_string(i) + "'s last bucket");
    }
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<ribbon_view> : format_codec<ribbon> {};

}  // namespace bloomkit
