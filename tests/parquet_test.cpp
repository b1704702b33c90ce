// tests/parquet_test.cpp - the Thrift compact codec, BloomFilterHeader codec,
// footer walker on damaged input, value conversion by logical type, and the
// minimal writer read back by the reader.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "bloomkit/parquet.hpp"
#include "test_support.hpp"

namespace pq = bloomkit::parquet;
namespace thrift = bloomkit::detail::thrift;
using bloomkit::errc;

namespace {

std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::string hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4];
    out += digits[std::to_integer<unsigned>(b) & 15];
  }
  return out;
}

template <class Fn>
errc code_of(Fn&& fn) {
  try {
    fn();
  } catch (const bloomkit::error& e) {
    return e.code();
  }
  ADD_FAILURE() << "expected a bloomkit::error";
  return errc::invalid_argument;
}

template <class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const bloomkit::error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a bloomkit::error";
  return {};
}

// ---- Thrift compact protocol ----------------------------------------------------

TEST(ThriftCompact, VarintsRoundTripAndRefuseOverlongOrOverwide) {
  for (std::int64_t v : std::initializer_list<std::int64_t>{0, 1, -1, 63, -64, 64, 8191, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN}) {
    std::vector<std::byte> out;
    thrift::compact_writer w(out);
    w.write_varint(thrift::compact_writer::zigzag(v));
    thrift::compact_reader r(out, "test");
    EXPECT_EQ(r.read_i64(), v);
    EXPECT_EQ(r.remaining(), 0U);
  }
  // 11 continuation bytes
  auto eleven = bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01});
  EXPECT_EQ(code_of([&] { thrift::compact_reader(eleven, "t").read_i64(); }), errc::corrupt);
  // a 10th byte with bits beyond 64
  auto wide = bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f});
  EXPECT_EQ(code_of([&] { thrift::compact_reader(wide, "t").read_varint(); }), errc::corrupt);
  // zigzag(2^32) in an i32 field: the "4 GiB" case
  std::vector<std::byte> big;
  thrift::compact_writer(big).write_varint(thrift::compact_writer::zigzag(std::int64_t{1} << 32));
  EXPECT_EQ(code_of([&] { thrift::compact_reader(big, "t").read_i32(); }), errc::corrupt);
  auto cut = bytes_of({0x80, 0x80});
  EXPECT_EQ(code_of([&] { thrift::compact_reader(cut, "t").read_i64(); }), errc::truncated);
}

TEST(ThriftCompact, SkipsUnknownFieldsOfEveryType) {
  // A struct holding every type, then field 20 (long-form header) = i32 7.
  std::vector<std::byte> out;
  thrift::compact_writer w(out);
  w.field_bool(1, true);
  w.field_bool(2, false);
  w.field(3, thrift::ctype::i8);
  w.write_byte(0x7f);
  w.field(4, thrift::ctype::i16);
  w.write_varint(thrift::compact_writer::zigzag(-300));
  w.field_i32(5, 123456);
  w.field_i64(6, -1);
  w.field(7, thrift::ctype::double_);
  for (int i = 0; i < 8; ++i) w.write_byte(0x11);
  w.field_string(8, "unknown");
  w.field_list(9, thrift::ctype::struct_, 16);  // long list form
  for (int i = 0; i < 16; ++i) {
    w.begin_struct();
    w.field_list(1, thrift::ctype::bool_true, 2);
    w.write_byte(1);
    w.write_byte(0);
    w.end_struct();
  }
  w.field(10, thrift::ctype::set);
  w.list(thrift::ctype::binary, 1);
  w.write_binary("x");
  w.field(11, thrift::ctype::map);
  w.write_varint(2);
  w.write_byte(0x85);  // (key binary << 4) | value i32
  w.write_binary("a");
  w.write_i32(1);
  w.write_binary("b");
  w.write_i32(2);
  w.field(12, thrift::ctype::map);
  w.write_varint(0);  // empty map: no type byte
  w.field_struct(13);
  w.field_struct(1);
  w.end_struct();
  w.end_struct();
  w.field_i32(20, 7);
  w.end_struct();

  thrift::compact_reader r(out, "test");
  std::int16_t last = 0;
  std::int32_t found = 0;
  int fields = 0;
  for (;;) {
    const auto f = r.read_field_header(last);
    if (f.type == thrift::ctype::stop) break;
    ++fields;
    if (f.id == 20) {
      found = r.read_i32();
    } else {
      r.skip(f.type);
    }
  }
  EXPECT_EQ(fields, 14);
  EXPECT_EQ(found, 7);
  EXPECT_EQ(r.remaining(), 0U);
}

TEST(ThriftCompact, RefusesDeepNestingAndImpossibleCounts) {
  std::vector<std::byte> deep;
  for (int i = 0; i < 1000; ++i) deep.push_back(std::byte{0x1C});  // field 1, struct, nested
  thrift::compact_reader r(deep, "test");
  EXPECT_EQ(code_of([&] { r.skip(thrift::ctype::struct_); }), errc::corrupt);
  // a list claiming 2^31 elements in 6 bytes
  auto huge = bytes_of({0xF5, 0xff, 0xff, 0xff, 0xff, 0x07});
  EXPECT_EQ(code_of([&] { thrift::compact_reader(huge, "t").read_list_header(); }), errc::corrupt);
  auto long_string = bytes_of({0x88, 0x01, 'a'});  // 136 bytes claimed, 1 present
  EXPECT_EQ(code_of([&] { thrift::compact_reader(long_string, "t").read_binary(); }), errc::truncated);
  auto bad_type = bytes_of({0x1D});  // type 13 does not exist
  std::int16_t last = 0;
  EXPECT_EQ(code_of([&] { thrift::compact_reader(bad_type, "t").read_field_header(last); }), errc::corrupt);
}

// ---- BloomFilterHeader -------------------------------------------------------------

TEST(BloomFilterHeader, CanonicalBytesMatchEveryWriter) {
  EXPECT_EQ(hex(pq::encode_bloom_filter_header(32)), "15401c1c00001c1c00001c1c000000");
  EXPECT_EQ(hex(pq::encode_bloom_filter_header(4096)), "1580401c1c00001c1c00001c1c000000");
  EXPECT_EQ(hex(pq::encode_bloom_filter_header(32768)), "158080041c1c00001c1c00001c1c000000");
  for (std::uint64_t n : {32ULL, 64ULL, 8192ULL, 1ULL << 20, 128ULL << 20}) {
    const auto bytes = pq::encode_bloom_filter_header(n);
    const auto h = pq::decode_bloom_filter_header(bytes);
    EXPECT_EQ(static_cast<std::uint64_t>(h.num_bytes), n);
    EXPECT_EQ(h.header_length, bytes.size());
    EXPECT_TRUE(h.algorithm_block && h.hash_xxhash && h.compression_none);
  }
  EXPECT_EQ(pq::encode_bloom_filter_header(128ULL << 20).size(), 19U);
  EXPECT_EQ(code_of([] { pq::encode_bloom_filter_header(33); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { pq::encode_bloom_filter_header(0); }), errc::invalid_argument);
}

TEST(BloomFilterHeader, RejectsWhatReadersReject) {
  auto header_with = [](std::int64_t num_bytes, int algorithm, int hash, int compression) {
    std::vector<std::byte> out;
    thrift::compact_writer w(out);
    w.field_i64(1, num_bytes);  // written as i64 so out-of-range values can be encoded
    for (int id : {2, 3, 4}) {
      const int member = id == 2 ? algorithm : id == 3 ? hash : compression;
      w.field_struct(static_cast<std::int16_t>(id));
      if (member > 0) {
        w.field_struct(static_cast<std::int16_t>(member));
        w.end_struct();
      }
      w.end_struct();
    }
    w.end_struct();
    // patch the type nibble of field 1 from i64 (6) to i32 (5)
    out[0] = std::byte{0x15};
    return out;
  };
  EXPECT_NO_THROW(pq::decode_bloom_filter_header(header_with(64, 1, 1, 1)));
  // 4 GiB does not fit numBytes (an i32): corrupt, before anything is allocated
  const std::string four_gib = message_of([&] { pq::decode_bloom_filter_header(header_with(std::int64_t{1} << 32, 1, 1, 1)); });
  EXPECT_NE(four_gib.find("BloomFilterHeader"), std::string::npos) << four_gib;
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(std::int64_t{1} << 32, 1, 1, 1)); }), errc::corrupt);
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(0, 1, 1, 1)); }), errc::corrupt);
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(-32, 1, 1, 1)); }), errc::corrupt);
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(48, 1, 1, 1)); }), errc::corrupt);
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(64, 2, 1, 1)); }), errc::unsupported);
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(64, 1, 0, 1)); }), errc::unsupported);
  EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(header_with(64, 1, 1, 3)); }), errc::unsupported);
  const auto good = pq::encode_bloom_filter_header(64);
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_EQ(code_of([&] { pq::decode_bloom_filter_header(std::span(good).first(cut)); }), errc::truncated) << cut;
  }
}

// ---- values ---------------------------------------------------------------------------

pq::column_descriptor column(pq::physical_type t, pq::logical_type lt = {}, std::int32_t length = 0) {
  return pq::column_descriptor{{"c"}, t, length, lt, "c"};
}
pq::logical_type logical(pq::logical_type::kind id) {
  pq::logical_type t;
  t.id = id;
  return t;
}
pq::logical_type integer(int bits, bool is_signed) {
  auto t = logical(pq::logical_type::kind::integer);
  t.bit_width = bits;
  t.is_signed = is_signed;
  return t;
}
pq::logical_type decimal(int precision, int scale) {
  auto t = logical(pq::logical_type::kind::decimal);
  t.precision = precision;
  t.scale = scale;
  return t;
}
pq::logical_type timed(pq::logical_type::kind id, pq::time_unit unit, bool utc) {
  auto t = logical(id);
  t.unit = unit;
  t.adjusted_to_utc = utc;
  return t;
}

using pt = pq::physical_type;
using lk = pq::logical_type::kind;

std::string enc(const pq::column_descriptor& c, std::string_view text) { return hex(pq::encode_value(c, text)); }

TEST(ParquetValues, IntegersOfEveryWidth) {
  EXPECT_EQ(enc(column(pt::int32), "-1"), "ffffffff");
  EXPECT_EQ(enc(column(pt::int32), "+5"), "05000000");
  EXPECT_EQ(enc(column(pt::int32, integer(8, true)), "-128"), "80ffffff");  // sign-extended
  EXPECT_EQ(enc(column(pt::int32, integer(8, false)), "255"), "ff000000");   // zero-extended
  EXPECT_EQ(enc(column(pt::int32, integer(16, true)), "-2"), "feffffff");
  EXPECT_EQ(enc(column(pt::int32, integer(32, false)), "4294967295"), "ffffffff");
  EXPECT_EQ(enc(column(pt::int64, integer(64, false)), "18446744073709551615"), "ffffffffffffffff");
  EXPECT_EQ(enc(column(pt::int64), "-9223372036854775808"), "0000000000000080");
  for (auto [c, text] : std::vector<std::pair<pq::column_descriptor, std::string>>{
           {column(pt::int32, integer(8, true)), "128"},
           {column(pt::int32, integer(8, false)), "-1"},
           {column(pt::int32, integer(16, false)), "65536"},
           {column(pt::int32), "2147483648"},
           {column(pt::int64), "9223372036854775808"},
           {column(pt::int64), "12x"},
           {column(pt::int32), ""},
           {column(pt::int32), " 1"}}) {
    const std::string msg = message_of([&] { pq::encode_value(c, text); });
    EXPECT_NE(msg.find("'" + text + "'"), std::string::npos) << msg;  // names the value
    EXPECT_NE(msg.find("INT"), std::string::npos) << msg;             // and the type
  }
}

TEST(ParquetValues, DatesTimesAndTimestamps) {
  const auto date = column(pt::int32, logical(lk::date));
  EXPECT_EQ(enc(date, "1970-01-02"), "01000000");
  EXPECT_EQ(enc(date, "1969-12-31"), "ffffffff");
  EXPECT_EQ(enc(date, "2024-02-29"), hex(pq::encode_value(column(pt::int32), "19782")));
  EXPECT_EQ(enc(date, "19782"), enc(date, "2024-02-29"));
  EXPECT_EQ(enc(date, "2000-03-01"), hex(pq::encode_value(column(pt::int32), "11017")));
  EXPECT_EQ(code_of([&] { pq::encode_value(date, "2023-02-29"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { pq::encode_value(date, "2023-13-01"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { pq::encode_value(date, "2023-01-01x"); }), errc::invalid_argument);

  const auto ts_us = column(pt::int64, timed(lk::timestamp, pq::time_unit::micros, true));
  const std::string jan2024 = hex(pq::encode_value(column(pt::int64), "1704067200000000"));
  EXPECT_EQ(enc(ts_us, "2024-01-01T00:00:00Z"), jan2024);
  EXPECT_EQ(enc(ts_us, "2024-01-01 00:00:00"), jan2024);
  EXPECT_EQ(enc(ts_us, "2024-01-01T01:30:00+01:30"), jan2024);
  EXPECT_EQ(enc(ts_us, "2024-01-01"), jan2024);
  EXPECT_EQ(enc(ts_us, "2024-01-01 02:00:00+02"), jan2024);
  EXPECT_EQ(enc(ts_us, "1704067200000000"), jan2024);
  EXPECT_EQ(enc(ts_us, "1970-01-01T00:00:00.000001"), "0100000000000000");
  EXPECT_EQ(code_of([&] { pq::encode_value(ts_us, "1970-01-01T00:00:00.0000001"); }), errc::invalid_argument);
  const auto ts_ms_local = column(pt::int64, timed(lk::timestamp, pq::time_unit::millis, false));
  EXPECT_EQ(enc(ts_ms_local, "1970-01-01T00:00:01.5"), "dc05000000000000");
  EXPECT_EQ(code_of([&] { pq::encode_value(ts_ms_local, "1970-01-01T00:00:01Z"); }), errc::invalid_argument);
  const auto ts_ns = column(pt::int64, timed(lk::timestamp, pq::time_unit::nanos, true));
  EXPECT_EQ(enc(ts_ns, "1970-01-01T00:00:00.123456789Z"), hex(pq::encode_value(column(pt::int64), "123456789")));

  const auto time_ms = column(pt::int32, timed(lk::time, pq::time_unit::millis, true));
  EXPECT_EQ(enc(time_ms, "00:00:01.250"), "e2040000");
  EXPECT_EQ(enc(time_ms, "1250"), "e2040000");
  EXPECT_EQ(code_of([&] { pq::encode_value(time_ms, "24:00:00"); }), errc::invalid_argument);
  const auto time_us = column(pt::int64, timed(lk::time, pq::time_unit::micros, true));
  EXPECT_EQ(enc(time_us, "23:59:59.999999"), hex(pq::encode_value(column(pt::int64), "86399999999")));

  // INT96: nanoseconds of the day (8 bytes LE), Julian day (4 bytes LE)
  EXPECT_EQ(enc(column(pt::int96), "1970-01-01T00:00:00"), "00000000000000008c3d2500");
  EXPECT_EQ(enc(column(pt::int96), "1969-12-31T23:59:59.999999999"), "ffff4e91944e00008b3d2500");
}

TEST(ParquetValues, DecimalsUuidsFloatsAndStrings) {
  EXPECT_EQ(enc(column(pt::int32, decimal(9, 2)), "123.45"), hex(pq::encode_value(column(pt::int32), "12345")));
  EXPECT_EQ(enc(column(pt::int32, decimal(9, 2)), "-1.5"), hex(pq::encode_value(column(pt::int32), "-150")));
  EXPECT_EQ(enc(column(pt::int32, decimal(9, 2)), "7"), hex(pq::encode_value(column(pt::int32), "700")));
  EXPECT_EQ(enc(column(pt::int32, decimal(9, 2)), "1.500"), enc(column(pt::int32, decimal(9, 2)), "1.5"));
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::int32, decimal(9, 2)), "1.555"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::int32, decimal(4, 2)), "123.4"); }), errc::invalid_argument);
  EXPECT_EQ(enc(column(pt::int64, decimal(18, 4)), "-0.0001"), "ffffffffffffffff");
  // FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY decimals: big-endian two's complement
  EXPECT_EQ(enc(column(pt::fixed_len_byte_array, decimal(38, 0), 16), "-1"), "ffffffffffffffffffffffffffffffff");
  EXPECT_EQ(enc(column(pt::fixed_len_byte_array, decimal(38, 10), 16), "1"), "000000000000000000000002540be400");
  EXPECT_EQ(enc(column(pt::fixed_len_byte_array, decimal(38, 0), 16), "99999999999999999999999999999999999999"),
            "4b3b4ca85a86c47a098a223fffffffff");
  EXPECT_EQ(enc(column(pt::byte_array, decimal(20, 0)), "128"), "0080");
  EXPECT_EQ(enc(column(pt::byte_array, decimal(20, 0)), "-128"), "80");
  EXPECT_EQ(enc(column(pt::byte_array, decimal(20, 0)), "0"), "00");
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::fixed_len_byte_array, decimal(5, 0), 2), "40000"); }),
            errc::invalid_argument);

  const auto uuid = column(pt::fixed_len_byte_array, logical(lk::uuid), 16);
  EXPECT_EQ(enc(uuid, "123e4567-E89B-12d3-a456-426614174000"), "123e4567e89b12d3a456426614174000");
  EXPECT_EQ(enc(uuid, "123e4567e89b12d3a456426614174000"), "123e4567e89b12d3a456426614174000");
  EXPECT_EQ(code_of([&] { pq::encode_value(uuid, "123e4567-e89b-12d3-a456-42661417400"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { pq::encode_value(uuid, "123e4567_e89b-12d3-a456-426614174000"); }), errc::invalid_argument);

  EXPECT_EQ(enc(column(pt::float_), "-0.0"), "00000080");
  EXPECT_EQ(enc(column(pt::float_), "1.5"), "0000c03f");
  EXPECT_EQ(enc(column(pt::double_), "0.5"), "000000000000e03f");
  EXPECT_EQ(enc(column(pt::double_), "inf"), "000000000000f07f");
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::double_), "1e999"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::float_), "1.5x"); }), errc::invalid_argument);
  const auto half = column(pt::fixed_len_byte_array, logical(lk::float16), 2);
  EXPECT_EQ(enc(half, "1.5"), "003e");
  EXPECT_EQ(enc(half, "-2"), "00c0");
  EXPECT_EQ(enc(half, "65504"), "ff7b");
  EXPECT_EQ(enc(half, "5.960464477539063e-08"), "0100");  // smallest subnormal
  EXPECT_EQ(enc(half, "1.00048828125"), "003c");          // a tie rounds to even

  const auto str = column(pt::byte_array, logical(lk::string));
  EXPECT_EQ(enc(str, ""), "");
  EXPECT_EQ(enc(str, "h\xc3\xa9"), "68c3a9");
  EXPECT_EQ(code_of([&] { pq::encode_value(str, "\xc3"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { pq::encode_value(str, "\xed\xa0\x80"); }), errc::invalid_argument);  // a surrogate
  EXPECT_EQ(enc(column(pt::byte_array), "\xff"), "ff");  // plain binary: any bytes
  EXPECT_EQ(enc(column(pt::fixed_len_byte_array, {}, 3), "abc"), "616263");
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::fixed_len_byte_array, {}, 3), "ab"); }), errc::invalid_argument);
  EXPECT_EQ(enc(column(pt::boolean), "true"), "01");
  EXPECT_EQ(code_of([] { pq::encode_value(column(pt::boolean), "yes"); }), errc::invalid_argument);
}

TEST(ParquetValues, HexInputIsCheckedAgainstTheWidth) {
  EXPECT_EQ(hex(pq::encode_hex(column(pt::int32), "0x01020304")), "01020304");
  EXPECT_EQ(hex(pq::encode_hex(column(pt::byte_array), "")), "");
  EXPECT_EQ(code_of([] { pq::encode_hex(column(pt::int32), "010203"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { pq::encode_hex(column(pt::int64), "0g"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { pq::encode_hex(column(pt::byte_array), "abc"); }), errc::invalid_argument);
  EXPECT_EQ(hex(pq::encode_hex(column(pt::fixed_len_byte_array, {}, 2), "ABcd")), "abcd");
}

// ---- footer walker on damaged files -----------------------------------------------------

std::vector<std::byte> small_file(std::uint64_t rows = 100) {
  std::vector<std::vector<std::byte>> values;
  const auto col = pq::column_for_type("string", "s");
  for (std::uint64_t i = 0; i < rows; ++i) {
    std::string key = std::to_string(i);  // appended, not "k" + string&&: GCC 12 -Wrestrict misfires (bug 105651)
    key += 'k';
    values.push_back(pq::encode_value(col.descriptor(), key));
  }
  pq::write_options o;
  o.row_group_rows = 40;
  return pq::write_file(col, values, o);
}

/// A file whose footer is hand-made: one INT64 column, one row group, and
/// the given bloom_filter_offset / length, with `data` between the magics.
std::vector<std::byte> file_with_filter_at(std::int64_t offset, std::optional<std::int32_t> length,
                                           const std::vector<std::byte>& data) {
  std::vector<std::byte> footer;
  thrift::compact_writer w(footer);
  w.field_i32(1, 1);
  w.field_list(2, thrift::ctype::struct_, 2);
  w.begin_struct();
  w.field_string(4, "schema");
  w.field_i32(5, 1);
  w.end_struct();
  w.begin_struct();
  w.field_i32(1, 2);
  w.field_string(4, "x");
  w.end_struct();
  w.field_i64(3, 1);
  w.field_list(4, thrift::ctype::struct_, 1);
  w.begin_struct();
  w.field_list(1, thrift::ctype::struct_, 1);
  w.begin_struct();
  w.field_struct(3);
  w.field_i32(1, 2);
  w.field_i64(14, offset);
  if (length) w.field_i32(15, *length);
  w.field_i32(16, 99);  // a field from the future
  w.end_struct();
  w.end_struct();
  w.field_i64(3, 1);
  w.end_struct();
  w.end_struct();
  std::vector<std::byte> out = bytes_of({'P', 'A', 'R', '1'});
  out.insert(out.end(), data.begin(), data.end());
  out.insert(out.end(), footer.begin(), footer.end());
  std::array<std::byte, 4> len{};
  bloomkit::detail::store_le(len.data(), static_cast<std::uint32_t>(footer.size()));
  out.insert(out.end(), len.begin(), len.end());
  for (char c : std::string("PAR1")) out.push_back(static_cast<std::byte>(c));
  return out;
}

TEST(ParquetFooter, OffsetsAndLengthsOutsideTheFileAreClearErrors) {
  auto filter = pq::encode_bloom_filter_header(32);
  filter.resize(filter.size() + 32);
  const auto good = file_with_filter_at(4, static_cast<std::int32_t>(filter.size()), filter);
  pq::reader ok(good);
  ASSERT_TRUE(ok.bloom_filter(0, 0).has_value());
  {
    pq::reader no_length(file_with_filter_at(4, std::nullopt, filter));
    EXPECT_EQ(no_length.bloom_filter(0, 0)->header.num_bytes, 32);
  }
  pq::reader past_end(file_with_filter_at(1'000'000, 47, filter));
  const std::string msg = message_of([&] { (void)past_end.bloom_filter(0, 0); });
  EXPECT_NE(msg.find("past the end"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { (void)past_end.bloom_filter(0, 0); }), errc::corrupt);
  pq::reader negative(file_with_filter_at(-5, 47, filter));
  EXPECT_EQ(code_of([&] { (void)negative.bloom_filter(0, 0); }), errc::corrupt);
  pq::reader too_long(file_with_filter_at(4, 1 << 30, filter));
  EXPECT_EQ(code_of([&] { (void)too_long.bloom_filter(0, 0); }), errc::corrupt);
  pq::reader wrong_length(file_with_filter_at(4, 40, filter));
  EXPECT_EQ(code_of([&] { (void)wrong_length.bloom_filter(0, 0); }), errc::corrupt);

  // A header claiming ~2 GiB in a small file, with and without a length:
  // refused from the file size, never allocated.
  std::vector<std::byte> greedy;
  thrift::compact_writer gw(greedy);
  gw.field_i32(1, INT32_MAX - 31);
  for (std::int16_t id = 2; id <= 4; ++id) {
    gw.field_struct(id);
    gw.field_struct(1);
    gw.end_struct();
    gw.end_struct();
  }
  gw.end_struct();
  greedy.resize(greedy.size() + 64);
  pq::reader huge(file_with_filter_at(4, std::nullopt, greedy));
  EXPECT_EQ(code_of([&] { (void)huge.bloom_filter(0, 0); }), errc::truncated);
  pq::reader huge_len(file_with_filter_at(4, static_cast<std::int32_t>(greedy.size()), greedy));
  EXPECT_EQ(code_of([&] { (void)huge_len.bloom_filter(0, 0); }), errc::corrupt);
}

TEST(ParquetFooter, BadMagicLengthAndEncryptedFooters) {
  const auto good = small_file();
  EXPECT_NO_THROW(pq::reader{good});
  EXPECT_EQ(code_of([] { pq::reader{bytes_of({'P', 'A', 'R', '1'})}; }), errc::truncated);
  auto bad_tail = good;
  bad_tail.back() = std::byte{'X'};
  EXPECT_EQ(code_of([&] { pq::reader{bad_tail}; }), errc::corrupt);
  auto encrypted = good;
  encrypted[encrypted.size() - 1] = std::byte{'E'};
  EXPECT_EQ(code_of([&] { pq::reader{encrypted}; }), errc::unsupported);
  auto long_footer = good;
  bloomkit::detail::store_le(long_footer.data() + long_footer.size() - 8, std::uint32_t{0xFFFFFFF0});
  const std::string msg = message_of([&] { pq::reader{long_footer}; });
  EXPECT_NE(msg.find("footer length"), std::string::npos) << msg;
  EXPECT_EQ(code_of([] { pq::reader{std::filesystem::path("/nonexistent/x.parquet")}; }), errc::io);
}

TEST(ParquetFooter, EveryTruncationAndByteFlipIsAnErrorOrAValidParse) {
  const auto good = small_file(60);
  // Cut the footer short (keeping a valid tail): a clear error each time.
  pq::reader base(good);
  const std::uint32_t footer_len = bloomkit::detail::load_le<std::uint32_t>(good.data() + good.size() - 8);
  const std::size_t footer_start = good.size() - 8 - footer_len;
  for (std::uint32_t keep = 0; keep < footer_len; ++keep) {
    std::vector<std::byte> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(footer_start + keep));
    std::array<std::byte, 4> len{};
    bloomkit::detail::store_le(len.data(), keep);
    cut.insert(cut.end(), len.begin(), len.end());
    for (char c : std::string("PAR1")) cut.push_back(static_cast<std::byte>(c));
    try {
      pq::reader r(cut);
      ADD_FAILURE() << "a footer cut to " << keep << " of " << footer_len << " bytes parsed";
    } catch (const bloomkit::error& e) {
      EXPECT_TRUE(e.code() == errc::truncated || e.code() == errc::corrupt) << e.what();
    }
  }
  // Flip bytes anywhere: parse or a bloomkit::error, never a crash.
  std::mt19937_64 rng(6);
  const int trials = static_cast<int>(bloomkit::test::scaled(3000, 5));
  for (int t = 0; t < trials; ++t) {
    auto bad = good;
    const std::size_t at = footer_start + rng() % (good.size() - footer_start);
    bad[at] ^= static_cast<std::byte>(1 + rng() % 255);
    try {
      pq::reader r(bad);
      for (std::size_t g = 0; g < r.metadata().row_groups.size(); ++g) {
        for (std::size_t c = 0; c < r.metadata().columns.size(); ++c) (void)r.bloom_filter(g, c);
      }
    } catch (const bloomkit::error&) {
    }
  }
}

// ---- writer ---------------------------------------------------------------------------

TEST(ParquetWriter, WrittenFilesReadBackWithEveryValueFound) {
  struct typed {
    std::string type;
    std::vector<std::string> values;
  };
  const std::vector<typed> cases = {
      {"int64", {"1", "-5", "9223372036854775807", "1"}},
      {"int32", {"7", "-2147483648"}},
      {"uint8", {"0", "255"}},
      {"uint64", {"18446744073709551615"}},
      {"double", {"0.5", "-0.0", "nan"}},
      {"float", {"1.25"}},
      {"string", {"", "h\xc3\xa9llo", "x"}},
      {"binary", {"\x01\x02"}},
      {"date", {"2024-02-29", "1900-01-01"}},
      {"timestamp_us", {"2024-01-01T12:00:00Z"}},
      {"time_ms", {"12:34:56.789"}},
      {"uuid", {"123e4567-e89b-12d3-a456-426614174000"}},
      {"decimal(9,2)", {"1.23", "-4"}},
      {"decimal(18,4)", {"12345678901234.5678"}},
      {"decimal(30,5)", {"-123456789012345678901234.5"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type);
    const auto spec = pq::column_for_type(c.type, "v");
    std::vector<std::vector<std::byte>> values;
    for (const auto& v : c.values) values.push_back(pq::encode_value(spec.descriptor(), v));
    pq::write_options o;
    o.row_group_rows = 2;
    pq::reader r(pq::write_file(spec, values, o));
    const auto& md = r.metadata();
    ASSERT_EQ(md.columns.size(), 1U);
    EXPECT_EQ(pq::detail::describe(md.columns[0]), pq::detail::describe(spec.descriptor()));
    EXPECT_EQ(md.num_rows, static_cast<std::int64_t>(values.size()));
    ASSERT_EQ(md.row_groups.size(), (values.size() + 1) / 2);
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto f = r.bloom_filter(i / 2, 0);
      ASSERT_TRUE(f.has_value());
      EXPECT_EQ(f->declared_length, static_cast<std::int32_t>(f->header.header_length) + f->header.num_bytes);
      EXPECT_TRUE(f->filter.may_contain(values[i])) << c.values[i];
      // the text converts the same way through the file's own schema
      EXPECT_EQ(pq::encode_value(md.columns[0], c.values[i]), values[i]);
    }
  }
  EXPECT_EQ(code_of([] { pq::column_for_type("boolean"); }), errc::unsupported);
  EXPECT_EQ(code_of([] { pq::column_for_type("int128"); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { pq::column_for_type("decimal(39,2)"); }), errc::invalid_argument);
}

TEST(ParquetWriter, FiltersAreSizedAsTheChosenWriterSizesThem) {
  const auto spec = pq::column_for_type("int64");
  std::vector<std::vector<std::byte>> values;
  for (int i = 0; i < 5000; ++i) values.push_back(pq::encode_value(spec.descriptor(), std::to_string(i % 1000)));
  for (auto writer : {bloomkit::sizing::parquet_writer::duckdb, bloomkit::sizing::parquet_writer::arrow_cpp}) {
    pq::write_options o;
    o.sizing = writer;
    o.fpp = 0.05;
    pq::reader r(pq::write_file(spec, values, o));
    auto f = r.bloom_filter(0, 0);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(static_cast<std::uint64_t>(f->header.num_bytes), bloomkit::sizing::parquet_writer_bytes(1000, 0.05, writer));
    // and the bitset equals a filter built directly from the distinct values
    auto direct = bloomkit::parquet_sized_split_block(1000, 0.05, writer);
    for (int i = 0; i < 1000; ++i) direct.insert(pq::encode_value(spec.descriptor(), std::to_string(i)));
    EXPECT_EQ(bloomkit::to_parquet_bitset(direct.view()), bloomkit::to_parquet_bitset(f->filter.view()));
  }
}

TEST(ParquetWriter, EncodeRefusesOtherHashes) {
  bloomkit::split_block_bloom other(1000, 0.01, bloomkit::hash_spec{bloomkit::hash_algorithm::xxh3_64, 0});
  EXPECT_EQ(code_of([&] { pq::encode_bloom_filter(other.view()); }), errc::mismatch);
  bloomkit::split_block_bloom ok(1000, 0.01);
  ok.insert(std::string_view("x"));
  const auto bytes = pq::encode_bloom_filter(ok.view());
  const auto h = pq::decode_bloom_filter_header(bytes);
  const auto back = pq::filter_from_bitset(std::span<const std::byte>(bytes).subspan(h.header_length));
  EXPECT_TRUE(back.may_contain(std::string_view("x")));
  EXPECT_EQ(back.size_in_bytes(), ok.size_in_bytes());
}

}  // namespace
