// bloomkit/format/age_partitioned_bloom.hpp - the file codec of
// age_partitioned_bloom (docs/FORMAT.md, "Kind 9: age_partitioned_bloom").
//
//   parameters (80 bytes):
//     k u32 | l u32 | slice_bits u64 | generation_keys u64 | generation_time u64
//     | newest u32 | probes u32 | generation_count u64 | generation_start u64
//     | now u64 | overflowed_generations u64 | time_unit u64
//   payload: k + l slices in physical order, each ceil(slice_bits / 64) words
//            u64 little-endian, bit i of a slice is bit i % 64 of its word
//            i / 64; bits past slice_bits zero.
//   header: capacity = the window asked for (keys; time units when
//           generation_time > 0), inserted = insert calls in total.
//   probes: 0 = double hashing (the only scheme before version 3; the field
//           was reserved, zero), 1 = independent per-slice bits, which needs
//           format version 3 (older readers say "upgrade bloomkit"); the
//           file's version is the oldest that expresses it.
//   time_unit: 0 = not recorded (the caller's clock), 1 = seconds; reserved
//           (zero) before version 3, nonzero only in a time window.
// The ring's position (newest, generation_count) and the clock are saved, so
// a loaded filter continues the stream exactly where the saved one stopped.
#pragma once

#include "bloomkit/age_partitioned_bloom.hpp"
#include <type_traits>

#include "bloomkit/format/core.hpp"

namespace bloomkit {

template <>
struct format_codec<age_partitioned_bloom> : detail::format::word_payload<age_partitioned_bloom_view> {
  using filter_type = age_partitioned_bloom;
  using view_type = age_partitioned_bloom_view;
  using source_type = age_partitioned_bloom_view;
  static constexpr filter_kind kind = filter_kind::age_partitioned_bloom;

  // ---- writing ----
  static std::uint32_t params_bytes(const source_type&) noexcept { return 80; }
  /// Independent probes and a recorded time unit exist from format version
  /// 3 on; double hashing and no unit are what version 1 always meant.
  static std::uint32_t min_version(const source_type& f) noexcept {
    const bool v1 = f.params().probes == apbf_probes::double_hashing && f.params().time_unit == apbf_time_unit::unspecified;
    return v1 ? 1 : detail::format::probe_scheme_version;
  }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    const auto& p = f.params();
    const auto& s = f.state();
    out.u32(p.k);
    out.u32(p.l);
    out.u64(p.slice_bits);
    out.u64(p.generation_keys);
    out.u64(p.generation_time);
    out.u32(s.newest);
    out.u32(static_cast<std::uint32_t>(p.probes));
    out.u64(s.generation_count);
    out.u64(s.generation_start);
    out.u64(s.now);
    out.u64(s.overflowed_generations);
    out.u64(static_cast<std::uint64_t>(p.time_unit));
  }

  // ---- reading ----
  struct decoded {
    age_partitioned_bloom_params params;
    age_partitioned_bloom_state state;
  };
  using params_type = decoded;

  /// Decodes the shape and the ring position, every field checked against
  /// its range, the others and the payload length (errc::corrupt naming the
  /// field).
  static decoded read_params(const detail::format::header& h, detail::format::params_reader& in) {
    using detail::format::check_field;
    const std::string_view name = in.kind();
    decoded d;
    auto& p = d.params;
    auto& s = d.state;
    p.k = in.u32("k");
    p.l = in.u32("l");
    p.slice_bits = in.u64("slice_bits");
    p.generation_keys = in.u64("generation_keys");
    p.generation_time = in.u64("generation_time");
    s.newest = in.u32("newest");
    const std::uint32_t probes = in.u32("probes");
    s.generation_count = in.u64("generation_count");
    s.generation_start = in.u64("generation_start");
    s.now = in.u64("now");
    s.overflowed_generations = in.u64("overflowed_generations");
    const std::uint64_t unit = in.u64("time_unit");
    in.finish();
    check_field(p.k >= 1 && p.k <= 32, name, "k", "= " + std::to_string(p.k) + " is not in [1, 32]");
    check_field(p.l >= 1 && p.l <= 64, name, "l", "= " + std::to_string(p.l) + " is not in [1, 64]");
    check_field(p.slice_bits >= 1 && p.slice_bits <= detail::apbf_max_slice_bits, name, "slice_bits",
                "= " + std::to_string(p.slice_bits) + " is not in [1, 2^40]");
    check_field(p.generation_keys >= 1 && p.generation_keys <= (std::uint64_t{1} << 56), name, "generation_keys",
                "= " + std::to_string(p.generation_keys) + " is not in [1, 2^56]");
    check_field(p.generation_time <= (std::uint64_t{1} << 56), name, "generation_time",
                "= " + std::to_string(p.generation_time) + " is above 2^56");
    check_field(probes <= 1, name, "probes", "= " + std::to_string(probes) + " is not 0 or 1");
    check_field(probes == 0 || h.version >= detail::format::probe_scheme_version, name, "probes",
                "= 1 (independent) in a version " + std::to_string(h.version) +
                    " file; it exists from format version 3 on (in version 1 this field is reserved, zero)");
    p.probes = static_cast<apbf_probes>(probes);
    check_field(unit <= 1, name, "time_unit", "= " + std::to_string(unit) + " is not 0 or 1");
    check_field(unit == 0 || h.version >= detail::format::probe_scheme_version, name, "time_unit",
                "= " + std::to_string(unit) + " in a version " + std::to_string(h.version) +
                    " file; it exists from format version 3 on (reserved, zero, before)");
    check_field(unit == 0 || p.generation_time != 0, name, "time_unit", "is set in a count window");
    p.time_unit = static_cast<apbf_time_unit>(unit);
    check_field(s.newest < p.k + p.l, name, "newest", "= " + std::to_string(s.newest) + " is not below k + l");
    check_field(s.generation_count <= p.generation_keys, name, "generation_count",
                "= " + std::to_string(s.generation_count) + " is above generation_keys");
    check_field(s.generation_start <= s.now, name, "generation_start", "is after 'now'");
    check_field(p.generation_time != 0 || (s.now == 0 && s.generation_start == 0 && s.overflowed_generations == 0),
                name, "now", "must be 0 in a count window (generation_time = 0)");
    check_field(p.generation_time == 0 || s.now - s.generation_start < p.generation_time, name, "generation_start",
                "is a whole generation or more before 'now'");
    detail::format::check_payload_bytes(h, name, detail::apbf_slice_words(p.slice_bits) * (p.k + p.l) * 8,
                                        "the slices");
    p.window = h.capacity;
    p.target_fpr = h.target_fpr;
    p.hash = h.hash;
    s.inserted = h.inserted;
    return d;
  }
  static filter_type load(const decoded& d, const detail::format::header&, std::span<const std::byte> payload) {
    return checked([&] { return filter_type(d.params, detail::format::read_items<std::uint64_t>(payload), d.state); });
  }
  static view_type view(const decoded& d, const detail::format::header&, std::span<const std::byte> payload) {
    return checked([&] { return view_type(d.params, detail::format::items_in_place<std::uint64_t>(payload), d.state); });
  }
  static void describe(const decoded& d, std::vector<file_param>& out) {
    out.push_back({"k", std::uint64_t{d.params.k}});
    out.push_back({"l", std::uint64_t{d.params.l}});
    out.push_back({"slice_bits", d.params.slice_bits});
    out.push_back({"generation_keys", d.params.generation_keys});
    out.push_back({"generation_time", d.params.generation_time});
    out.push_back({"probes", std::uint64_t{static_cast<std::uint32_t>(d.params.probes)}});
    out.push_back({"newest", std::uint64_t{d.state.newest}});
    out.push_back({"generation_count", d.state.generation_count});
    out.push_back({"now", d.state.now});
    out.push_back({"overflowed_generations", d.state.overflowed_generations});
    out.push_back({"time_unit", std::uint64_t{static_cast<std::uint32_t>(d.params.time_unit)}});
  }

 private:
  template <class F>
  static std::invoke_result_t<F> checked(F&& f) {
    try {
      return f();
    } catch (const error& e) {
      throw error::in_context(errc::corrupt, "age_partitioned_bloom: ", e);
    }
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<age_partitioned_bloom_view> : format_codec<age_partitioned_bloom> {};

}  // namespace bloomkit
