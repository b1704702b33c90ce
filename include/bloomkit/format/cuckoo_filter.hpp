// bloomkit/format/cuckoo_filter.hpp - the file codec of cuckoo_filter
// (docs/FORMAT.md, "Kind 8: cuckoo_filter").
//
//   parameters (32 bytes): buckets u64 | fingerprint_bits u32 | slots_per_bucket u32 (must be 4)
//                          | victim_bucket u64 | victim_fingerprint u32 | reserved u32 (zero)
//   payload: cuckoo_words_for(buckets, f) words u64 little-endian: bucket i
//            is bits 4 f i .. 4 f (i + 1) - 1 of the table (slot j in its
//            bits j f .. (j + 1) f - 1), every bit past the table zero, the
//            last word (padding) zero.
//   header: inserted = fingerprints held (table slots in use plus the victim).
#pragma once

#include "bloomkit/cuckoo_filter.hpp"
#include <type_traits>

#include "bloomkit/format/core.hpp"

namespace bloomkit {

template <>
struct format_codec<cuckoo_filter> : detail::format::word_payload<cuckoo_filter_view> {
  using filter_type = cuckoo_filter;
  using view_type = cuckoo_filter_view;
  using source_type = cuckoo_filter_view;
  static constexpr filter_kind kind = filter_kind::cuckoo_filter;

  // ---- writing ----
  static std::uint32_t params_bytes(const source_type&) noexcept { return 32; }
  static void write_params(const source_type& f, detail::format::params_writer& out) {
    out.u64(f.buckets());
    out.u32(f.fingerprint_bits());
    out.u32(detail::cuckoo_slots);
    out.u64(f.victim().bucket);
    out.u32(f.victim().fingerprint);
    out.u32(0);
  }

  // ---- reading ----
  /// The parameters and the victim slot, every field checked against its
  /// range, the header and the payload length. Throws errc::corrupt naming
  /// the field. The payload itself (bits past the table, the stored count
  /// against the occupied slots) is checked by the view's constructor.
  struct decoded {
    cuckoo_filter_params params;
    cuckoo_victim victim;
  };
  using params_type = decoded;
  static decoded read_params(const detail::format::header& h, detail::format::params_reader& in) {
    using detail::format::check_field;
    const std::string_view name = in.kind();
    decoded d;
    cuckoo_filter_params& p = d.params;
    p.buckets = in.u64("buckets");
    p.fingerprint_bits = in.u32("fingerprint_bits");
    const std::uint32_t slots = in.u32("slots_per_bucket");
    d.victim.bucket = in.u64("victim_bucket");
    d.victim.fingerprint = in.u32("victim_fingerprint");
    in.zeros(4, "reserved");
    in.finish();
    check_field(p.buckets >= 1 && p.buckets <= detail::cuckoo_max_buckets, name, "buckets",
                "= " + std::to_string(p.buckets) + " is not in [1, 2^44]");
    check_field(p.fingerprint_bits >= 4 && p.fingerprint_bits <= 16, name, "fingerprint_bits",
                "= " + std::to_string(p.fingerprint_bits) + " is not in [4, 16]");
    check_field(slots == detail::cuckoo_slots, name, "slots_per_bucket",
                "= " + std::to_string(slots) + ", but this version stores buckets of 4 only");
    check_field(h.capacity <= p.buckets * detail::cuckoo_slots, name, "capacity",
                "= " + std::to_string(h.capacity) + " exceeds the table's " +
                    std::to_string(p.buckets * detail::cuckoo_slots) + " slots");
    check_field(d.victim.bucket < p.buckets, name, "victim_bucket",
                "= " + std::to_string(d.victim.bucket) + " is not below buckets");
    check_field(d.victim.fingerprint < (std::uint32_t{1} << p.fingerprint_bits), name, "victim_fingerprint",
                "= " + std::to_string(d.victim.fingerprint) + " does not fit fingerprint_bits");
    check_field(d.victim.fingerprint != 0 || d.victim.bucket == 0, name, "victim_bucket",
                "must be 0 when the victim slot is empty");
    check_field(h.inserted <= p.buckets * detail::cuckoo_slots + 1, name, "inserted",
                "= " + std::to_string(h.inserted) + " is more than the table and victim slot hold");
    detail::format::check_payload_bytes(h, name, detail::cuckoo_words_for(p.buckets, p.fingerprint_bits) * 8,
                                        "the table");
    detail::format::adopt_design(h, p);
    return d;
  }
  static filter_type load(const decoded& d, const detail::format::header& h, std::span<const std::byte> payload) {
    return checked([&] {
      return filter_type(d.params, detail::format::read_items<std::uint64_t>(payload), h.inserted, d.victim);
    });
  }
  static view_type view(const decoded& d, const detail::format::header& h, std::span<const std::byte> payload) {
    return checked(
        [&] { return view_type(d.params, detail::format::items_in_place<std::uint64_t>(payload), h.inserted, d.victim); });
  }
  static void describe(const decoded& d, std::vector<file_param>& out) {
    out.push_back({"buckets", d.params.buckets});
    out.push_back({"fingerprint_bits", std::uint64_t{d.params.fingerprint_bits}});
    out.push_back({"slots_per_bucket", std::uint64_t{detail::cuckoo_slots}});
    out.push_back({"victim_bucket", d.victim.bucket});
    out.push_back({"victim_fingerprint", std::uint64_t{d.victim.fingerprint}});
  }

 private:
  /// The filter's own checks report errc::corrupt for payload faults; any
  /// other code from them (they re-validate parameters) is a corrupt file too.
  template <class F>
  static std::invoke_result_t<F> checked(F&& f) {
    try {
      return f();
    } catch (const error& e) {
      throw error::in_context(errc::corrupt, "cuckoo_filter: ", e);
    }
  }
};

/// Views are saved with the owning filter's codec.
template <>
struct format_codec<cuckoo_filter_view> : format_codec<cuckoo_filter> {};

}  // namespace bloomkit
