// fuzz/parquet_fuzz.cpp - the Parquet footer walker, BloomFilterHeader reader
// and text-to-value conversion on untrusted bytes (bloomkit/parquet.hpp).
//
// Each input is used three ways:
//   1. as a whole Parquet file: the footer is decoded and every row group's
//      and column's filter is read; a filter that reads must re-encode to a
//      header that decodes to the same numBytes, and its bitset must
//      round-trip through to_parquet_bitset / filter_from_bitset;
//   2. as a BloomFilterHeader: one that decodes must have a header length
//      within the input, and the canonical encoding must decode the same;
//   3. as the text of a value for columns of several logical types: a value
//      that converts has exactly the width its physical type takes.
// Any failure must be a bloomkit::error; anything else (a crash, a sanitizer
// report, another exception, a broken property) aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "bloomkit/parquet.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

namespace pq = bloomkit::parquet;

void as_file(std::span<const std::byte> bytes) {
  try {
    pq::reader file(std::vector<std::byte>(bytes.begin(), bytes.end()), "fuzz");
    const auto& md = file.metadata();
    for (std::size_t g = 0; g < md.row_groups.size(); ++g) {
      check(md.row_groups[g].columns.size() == md.columns.size());
      for (std::size_t c = 0; c < md.columns.size(); ++c) {
        try {
          const auto f = file.bloom_filter(g, c);
          if (!f) continue;
          check(f->offset + f->header.header_length + static_cast<std::uint64_t>(f->header.num_bytes) <= bytes.size());
          const auto encoded = pq::encode_bloom_filter(f->filter.view());
          const auto again = pq::decode_bloom_filter_header(encoded);
          check(again.num_bytes == f->header.num_bytes);
          const auto round = pq::filter_from_bitset(std::span<const std::byte>(encoded).subspan(again.header_length));
          check(bloomkit::to_parquet_bitset(round.view()) == bloomkit::to_parquet_bitset(f->filter.view()));
        } catch (const bloomkit::error&) {
        }
      }
    }
  } catch (const bloomkit::error&) {
  }
}

void as_header(std::span<const std::byte> bytes) {
  try {
    const auto h = pq::decode_bloom_filter_header(bytes);
    check(h.header_length <= bytes.size());
    check(h.num_bytes > 0 && h.num_bytes % 32 == 0);
    const auto canonical = pq::encode_bloom_filter_header(static_cast<std::uint64_t>(h.num_bytes));
    check(pq::decode_bloom_filter_header(canonical).num_bytes == h.num_bytes);
  } catch (const bloomkit::error&) {
  }
}

pq::column_descriptor column(pq::physical_type t, pq::logical_type::kind k, std::int32_t length = 0) {
  pq::logical_type lt;
  lt.id = k;
  lt.precision = 30;
  lt.scale = 3;
  lt.unit = pq::time_unit::micros;
  lt.adjusted_to_utc = true;
  lt.bit_width = 16;
  return pq::column_descriptor{{"c"}, t, length, lt, "c"};
}

void as_value(std::string_view text) {
  using pt = pq::physical_type;
  using lk = pq::logical_type::kind;
  static const pq::column_descriptor columns[] = {
      column(pt::int32, lk::none),       column(pt::int32, lk::integer),  column(pt::int32, lk::date),
      column(pt::int64, lk::timestamp),  column(pt::int64, lk::time),     column(pt::int96, lk::none),
      column(pt::float_, lk::none),      column(pt::double_, lk::none),   column(pt::byte_array, lk::string),
      column(pt::byte_array, lk::decimal), column(pt::fixed_len_byte_array, lk::decimal, 16),
      column(pt::fixed_len_byte_array, lk::uuid, 16), column(pt::fixed_len_byte_array, lk::float16, 2),
      column(pt::boolean, lk::none),
  };
  for (const auto& c : columns) {
    try {
      const auto v = pq::encode_value(c, text);
      switch (c.type) {
        case pt::int32:
        case pt::float_: check(v.size() == 4); break;
        case pt::int64:
        case pt::double_: check(v.size() == 8); break;
        case pt::int96: check(v.size() == 12); break;
        case pt::fixed_len_byte_array: check(v.size() == static_cast<std::size_t>(c.type_length)); break;
        case pt::boolean: check(v.size() == 1); break;
        case pt::byte_array: break;
      }
    } catch (const bloomkit::error&) {
    }
    try {
      (void)pq::encode_hex(c, text);
    } catch (const bloomkit::error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  as_file(bytes);
  as_header(bytes);
  if (size <= 256) as_value(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
