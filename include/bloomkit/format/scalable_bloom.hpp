// bloomkit/format/scalable_bloom.hpp - the file codec of scalable_bloom
// (docs/FORMAT.md, "Kind 5: scalable_bloom").
//
//   header: capacity = initial capacity n_0, target_fpr = the compound
//           target P, inserted = the sum of the stages' insert counts
//   parameters (24 + 24 S bytes):
//     growth f64 | tightening f64 | stages u32 (S, 1..64) | reserved u32 (zero)
//     then per stage i < S: blocks u64 | inserted u64 | k u32 | reserved u32
//   payload: stage 0's blocks, then stage 1's, ...: 64-byte blocks of eight
//            u64 words little-endian, exactly as kind 2 (blocked_bloom).
// A stage's capacity and design FPR are not stored: they follow from n_0,
// P, growth and tightening (scalable_bloom::stage_capacity / stage_fpr,
// computed step by step with IEEE multiplications, the same on every host).
// Its blocks and k are stored, because the blocked sizing that chose them
// is floating-point search whose last bit a reader should not have to repeat.
#pragma once

#include <vector>

#include "bloomkit/format/core.hpp"
#include "bloomkit/scalable_bloom.hpp"

namespace bloomkit {

namespace detail {

/// What the parameter section of a scalable_bloom file decodes to.
struct scalable_file_params {
  struct stage {
    std::uint64_t blocks = 0;
    std::uint64_t inserted = 0;
    std::uint32_t k = 0;
  };
  scalable_bloom_params params;
  std::vector<stage> stages;
};

}  // namespace detail

template <>
struct format_codec<scalable_bloom> {
  using filter_type = scalable_bloom;
  using view_type = scalable_bloom_view;
  using source_type = scalable_bloom_view;
  using params_type = detail::scalable_file_params;
  static constexpr filter_kind kind = filter_kind::scalable_bloom;
  static constexpr std::size_t payload_alignment = alignof(detail::block512);
  static constexpr std::uint32_t fixed_params_bytes = 24;
  static constexpr std::uint32_t stage_params_bytes = 24;

  // ---- writing ----
  static detail::format::common_fields common(const source_type& f) {
    return {f.hash(), f.inserted(), f.params().initial_capacity, f.target_fpr()};
  }
  static std::uint32_t params_bytes(const source_type& f) noexcept {
    return fixed_params_bytes + stage_params_bytes * static_cast<std::uint32_t>(f.stages());
  }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    out.f64(f.params().growth);
    out.f64(f.params().tightening);
    out.u32(static_cast<std::uint32_t>(f.stages()));
    out.zeros(4);
    for (const blocked_bloom_view& s : f.stage_views()) {
      out.u64(s.num_blocks());
      out.u64(s.inserted());
      out.u32(s.num_hashes());
      out.zeros(4);
    }
  }
  static std::uint64_t payload_bytes(const source_type& f) noexcept { return f.size_in_bytes(); }
  template <class Sink>
  static void write_payload(const source_type& f, Sink& sink) {
    for (const blocked_bloom_view& s : f.stage_views()) detail::format::write_items(s.blocks(), sink);
  }

  // ---- reading ----
  /// Decodes and checks every field: growth and tightening in their domains,
  /// 1 to 64 stages, each stage's blocks and k in blocked_bloom's ranges and
  /// its capacity and design FPR computable, the stage insert counts summing
  /// to the header's, and the blocks filling payload_bytes exactly. Throws
  /// errc::corrupt naming the field.
  static params_type read_params(const detail::format::header& h, detail::format::params_reader& in) {
    using detail::format::check_field;
    using policy = detail::cache_line_policy;
    const std::string_view name = in.kind();
    params_type p;
    p.params.initial_capacity = h.capacity;
    p.params.target_fpr = h.target_fpr;
    p.params.hash = h.hash;
    p.params.growth = in.f64("growth");
    p.params.tightening = in.f64("tightening");
    const std::uint32_t count = in.u32("stages");
    in.zeros(4, "reserved");
    detail::validate(p.params, {name, errc::corrupt});
    check_field(count >= 1 && count <= detail::scalable_max_stages, name, "stages",
                "= " + std::to_string(count) + " is not in [1, 64]");
    std::uint64_t inserted = 0, blocks = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::string stage = "stage " + std::to_string(i) + " ";
      detail::scalable_file_params::stage s;
      s.blocks = in.u64("stage blocks");
      s.inserted = in.u64("stage inserted");
      s.k = in.u32("stage k");
      in.zeros(4, "stage reserved");
      check_field(s.blocks >= 1 && s.blocks <= policy::max_blocks, name, stage + "blocks",
                  "= " + std::to_string(s.blocks) + " is not in [1, 2^32]");
      check_field(s.k >= policy::min_k && s.k <= policy::max_k, name, stage + "k",
                  "= " + std::to_string(s.k) + " is not in [1, 16]");
      check_field(s.inserted <= h.inserted - inserted, name, stage + "inserted",
                  "makes the stages hold more than the header's " + std::to_string(h.inserted) + " inserts");
      inserted += s.inserted;
      blocks += s.blocks;  // at most 64 * 2^32: no overflow
      try {
        (void)detail::scalable_stage_capacity(p.params, i);
      } catch (const error&) {
        check_field(false, name, stage + "capacity", "(from growth) is above 2^40 keys");
      }
      check_field(detail::scalable_stage_fpr(p.params, i) > 0.0, name, stage + "design FPR",
                  "(from tightening) underflows to zero");
      p.stages.push_back(s);
    }
    in.finish();
    check_field(inserted == h.inserted, name, "inserted",
                "= " + std::to_string(h.inserted) + ", but the stages hold " + std::to_string(inserted));
    detail::format::check_payload_bytes(h, name, blocks * sizeof(detail::block512),
                                        "the stages' " + std::to_string(blocks) + " blocks");
    return p;
  }

  /// An owning filter holding copies of the stages' blocks.
  static filter_type load(const params_type& p, const detail::format::header&, std::span<const std::byte> payload) {
    std::vector<blocked_bloom> stages;
    stages.reserve(p.stages.size());
    each_stage(p, payload, [&](const block_filter_params& bp, std::span<const std::byte> bytes, std::uint64_t n) {
      stages.emplace_back(bp, detail::format::read_items<detail::block512>(bytes), n);
    });
    return filter_type(p.params, std::move(stages));
  }
  /// A view whose stages view `payload` in place.
  static view_type view(const params_type& p, const detail::format::header&, std::span<const std::byte> payload) {
    std::vector<blocked_bloom_view> stages;
    stages.reserve(p.stages.size());
    each_stage(p, payload, [&](const block_filter_params& bp, std::span<const std::byte> bytes, std::uint64_t n) {
      stages.emplace_back(bp, detail::format::items_in_place<detail::block512>(bytes), n);
    });
    return view_type(p.params, std::move(stages));
  }
  static void describe(const params_type& p, std::vector<file_param>& out) {
    out.push_back({"growth", p.params.growth});
    out.push_back({"tightening", p.params.tightening});
    out.push_back({"stages", std::uint64_t{p.stages.size()}});
    std::uint64_t blocks = 0;
    for (const auto& s : p.stages) blocks += s.blocks;
    out.push_back({"total_blocks", blocks});
  }

 private:
  /// Calls fn(stage parameters, the stage's payload bytes, its insert count)
  /// for each stage in order. The lengths were checked by read_params.
  template <class Fn>
  static void each_stage(const params_type& p, std::span<const std::byte> payload, Fn&& fn) {
    std::size_t at = 0;
    for (std::uint32_t i = 0; i < p.stages.size(); ++i) {
      const auto& s = p.stages[i];
      const block_filter_params bp{s.blocks, s.k, detail::scalable_stage_capacity(p.params, i),
                                   detail::scalable_stage_fpr(p.params, i), p.params.hash};
      const std::size_t bytes = static_cast<std::size_t>(s.blocks) * sizeof(detail::block512);
      fn(bp, payload.subspan(at, bytes), s.inserted);
      at += bytes;
    }
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<scalable_bloom_view> : format_codec<scalable_bloom> {};

}  // namespace bloomkit
