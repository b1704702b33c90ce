// bloomkit/format/counting_bloom.hpp - the file codec of counting_bloom
// (docs/FORMAT.md, "Kind 4: counting_bloom").
//
//   parameters (16 bytes): counters u64 | k u32 | counter_bits u32 (must be 4)
//   payload: ceil(counters / 16) words u64 little-endian; counter i is bits
//            4 (i % 16) .. 4 (i % 16) + 3 of word i / 16 (so byte i / 2, low
//            nibble for even i); the nibbles past `counters` are zero.
//   header: inserted = the net insert count (inserts minus accepted removes).
#pragma once

#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/format/core.hpp"

namespace bloomkit {

template <>
struct format_codec<counting_bloom> : detail::format::word_payload<counting_bloom_view> {
  using filter_type = counting_bloom;
  using view_type = counting_bloom_view;
  using source_type = counting_bloom_view;
  using params_type = counting_bloom_params;
  static constexpr filter_kind kind = filter_kind::counting_bloom;
  /// The only counter width this version stores; the field exists so a later
  /// width is a new value, not a new kind.
  static constexpr std::uint32_t counter_bits = 4;

  // ---- writing ----
  static std::uint32_t params_bytes(const source_type&) noexcept { return 16; }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    out.u64(f.counters());
    out.u32(f.num_hashes());
    out.u32(counter_bits);
  }

  // ---- reading ----
  /// Decodes and checks counters, k and counter_bits against their ranges
  /// and the payload length. Throws errc::corrupt naming the field.
  static params_type read_params(const detail::format::header& h, detail::format::params_reader& in) {
    using detail::format::check_field;
    const std::string_view name = in.kind();
    params_type p;
    p.counters = in.u64("counters");
    p.k = in.u32("k");
    const std::uint32_t bits = in.u32("counter_bits");
    in.finish();
    detail::format::adopt_design(h, p);
    detail::validate(p, {name, errc::corrupt});
    check_field(bits == counter_bits, name, "counter_bits",
                "= " + std::to_string(bits) + ", but this version stores 4-bit counters only");
    detail::format::check_payload_bytes(h, name, detail::words_for_counters(p.counters) * 8,
                                        "counters = " + std::to_string(p.counters));
    return p;
  }
  static filter_type load(const params_type& p, const detail::format::header& h, std::span<const std::byte> payload) {
    auto words = detail::format::read_items<std::uint64_t>(payload);
    check_tail(p, words.back());
    return filter_type(p, std::move(words), h.inserted);
  }
  static view_type view(const params_type& p, const detail::format::header& h, std::span<const std::byte> payload) {
    const auto words = detail::format::items_in_place<std::uint64_t>(payload);
    check_tail(p, words.back());
    return view_type(p, words, h.inserted);
  }
  static void describe(const params_type& p, std::vector<file_param>& out) {
    out.push_back({"counters", p.counters});
    out.push_back({"k", std::uint64_t{p.k}});
    out.push_back({"counter_bits", std::uint64_t{counter_bits}});
  }

 private:
  static void check_tail(const params_type& p, std::uint64_t last_word) {
    const unsigned tail = static_cast<unsigned>(p.counters % 16);
    detail::format::check_field(tail == 0 || (last_word >> (4 * tail)) == 0, "counting_bloom", "payload",
                                "has non-zero counters past counter " + std::to_string(p.counters) +
                                    " (the filter's end)");
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<counting_bloom_view> : format_codec<counting_bloom> {};

}  // namespace bloomkit
