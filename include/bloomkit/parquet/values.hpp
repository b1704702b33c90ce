// bloomkit/parquet/values.hpp - a value given as text turned into the
// bytes a Parquet writer hashes for it: the PLAIN encoding of its physical
// type, without BYTE_ARRAY's 4-byte length prefix (docs/PARQUET.md §4).
// Included by bloomkit/parquet.hpp; use the names from there.
//
// The text is read as the column's logical (or converted) type says
// (apache/parquet-format LogicalTypes.md):
//   INTEGER(8|16|32, signed|unsigned) on INT32  range-checked, widened to 4 bytes LE
//                                              (sign- or zero-extended; UINT_32 keeps its bits)
//   INTEGER(64, ...) on INT64                  8 bytes LE (UINT_64 keeps its bits)
//   DATE                                       ISO "YYYY-MM-DD" (proleptic Gregorian) or days
//   TIME(unit) / TIMESTAMP(unit)               an integer in the unit, or ISO
//                                              "HH:MM:SS[.f]" / "YYYY-MM-DD[T ]HH:MM:SS[.f][Z|±HH:MM]"
//   DECIMAL(p, s)                              "-123.45": unscaled integer, 4/8 bytes LE on
//                                              INT32/INT64, big-endian two's complement on
//                                              FIXED_LEN_BYTE_ARRAY (its width) and BYTE_ARRAY
//                                              (fewest bytes, as Java's BigInteger writes it)
//   UUID                                       "8-4-4-4-12" hex (or 32 hex digits), 16 bytes in order
//   FLOAT16                                    a number, rounded to nearest-even half, 2 bytes LE
//   STRING / ENUM / JSON                       the text, which must be valid UTF-8
//   no annotation: INT32/INT64 signed decimal, FLOAT/DOUBLE decimal or hex float ("nan", "inf",
//   "-0.0" kept as typed: Parquet hashes the bit pattern), BYTE_ARRAY the text's bytes,
//   FIXED_LEN_BYTE_ARRAY the text's bytes if exactly type_length long, INT96 an ISO timestamp
//   (8-byte LE nanoseconds of the day, then 4-byte LE Julian day), BOOLEAN "true"/"false".
// BOOLEAN: no writer but arrow-rs writes a filter for it, and arrow-rs hashes one byte 0/1, so
// that is what a probe hashes; bloomkit refuses to write BOOLEAN filters (docs/PARQUET.md §4).
// Raw bytes: encode_hex() takes hex digits, checked against the type's width.
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "bloomkit/parquet/metadata.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::parquet {

namespace detail {

/// "INT32", or "INT32 DATE", "FIXED_LEN_BYTE_ARRAY(16) UUID": the type in messages.
inline std::string describe(const column_descriptor& col) {
  std::string out = to_string(col.type);
  if (col.type == physical_type::fixed_len_byte_array) out += "(" + std::to_string(col.type_length) + ")";
  const std::string logical = to_string(col.logical);
  if (!logical.empty()) out += " " + logical;
  return out;
}

[[noreturn]] inline void bad_value(std::string_view text, const column_descriptor& col, const std::string& why) {
  throw error(errc::invalid_argument,
              "cannot convert '" + std::string(text) + "' to " + describe(col) + ": " + why);
}

inline void append_le(std::vector<std::byte>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(static_cast<unsigned char>(v >> (8 * i))));
}

/// Parses an optionally signed decimal integer (the whole text).
inline bool parse_integer(std::string_view s, bool& negative, std::uint64_t& magnitude) {
  negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), magnitude);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// A signed integer in [lo, hi], as int64. Fails with the value and type named.
inline std::int64_t signed_in_range(std::string_view text, const column_descriptor& col, std::int64_t lo,
                                    std::int64_t hi) {
  bool negative;
  std::uint64_t magnitude;
  if (!parse_integer(text, negative, magnitude)) bad_value(text, col, "not an integer");
  const std::uint64_t limit = negative ? static_cast<std::uint64_t>(-(lo + 1)) + 1 : static_cast<std::uint64_t>(hi);
  if (magnitude > limit) {
    bad_value(text, col, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

inline std::uint64_t unsigned_in_range(std::string_view text, const column_descriptor& col, std::uint64_t hi) {
  bool negative;
  std::uint64_t magnitude;
  if (!parse_integer(text, negative, magnitude)) bad_value(text, col, "not an integer");
  if ((negative && magnitude != 0) || magnitude > hi) {
    bad_value(text, col, "out of range [0, " + std::to_string(hi) + "]");
  }
  return magnitude;
}

/// Days since 1970-01-01 of a proleptic Gregorian date: the civil-from-days
/// inversion via 400-year eras (each era is 146097 days), shifted so the year
/// starts in March and the leap day is the era's last day.
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);                  // [0, 399]
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;   // [0, 365]
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;             // [0, 146096]
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

constexpr bool is_leap(std::int64_t y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/// Reads exactly `n` digits at `s[pos]`.
inline bool take_digits(std::string_view s, std::size_t& pos, std::size_t n, std::uint32_t& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint32_t>(c - '0');
  }
  pos += n;
  return true;
}

/// Parses "[-]YYYY-MM-DD" (4 or more year digits) at the start of `s`; sets
/// `pos` past it. Returns days since the epoch; fails with a reason.
inline bool parse_iso_date(std::string_view s, std::size_t& pos, std::int64_t& days, std::string& why) {
  bool negative = false;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) negative = s[pos++] == '-';
  std::size_t digits = 0;
  while (pos + digits < s.size() && s[pos + digits] >= '0' && s[pos + digits] <= '9') ++digits;
  if (digits < 4 || digits > 9) return why = "expected an ISO date YYYY-MM-DD", false;
  std::uint32_t year = 0, month = 0, day = 0;
  (void)take_digits(s, pos, digits, year);
  if (pos >= s.size() || s[pos] != '-' || !take_digits(s, ++pos, 2, month) || pos >= s.size() || s[pos] != '-' ||
      !take_digits(s, ++pos, 2, day)) {
    return why = "expected an ISO date YYYY-MM-DD", false;
  }
  const std::int64_t y = negative ? -static_cast<std::int64_t>(year) : year;
  static constexpr unsigned month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return why = "month " + std::to_string(month) + " is not 1-12", false;
  const unsigned last = month_days[month - 1] + (month == 2 && is_leap(y) ? 1 : 0);
  if (day < 1 || day > last) return why = "day " + std::to_string(day) + " is not in that month", false;
  days = days_from_civil(y, month, day);
  return true;
}

/// Parses "HH:MM[:SS[.fraction]]" at `pos` into nanoseconds of the day.
inline bool parse_iso_time(std::string_view s, std::size_t& pos, std::int64_t& nanos, std::string& why) {
  std::uint32_t h = 0, m = 0, sec = 0;
  if (!take_digits(s, pos, 2, h) || pos >= s.size() || s[pos] != ':' || !take_digits(s, ++pos, 2, m)) {
    return why = "expected a time HH:MM:SS[.fraction]", false;
  }
  if (pos < s.size() && s[pos] == ':') {
    if (!take_digits(s, ++pos, 2, sec)) return why = "expected seconds after HH:MM:", false;
  }
  if (h > 23 || m > 59 || sec > 59) return why = "time of day out of range", false;
  std::int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t n = 0;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++n) {
      if (n < 9) {
        frac = frac * 10 + (s[pos] - '0');
      } else if (s[pos] != '0') {
        return why = "more than nanosecond precision", false;
      }
    }
    if (n == 0) return why = "expected digits after the decimal point", false;
    for (; n < 9; ++n) frac *= 10;
  }
  nanos = ((static_cast<std::int64_t>(h) * 60 + m) * 60 + sec) * 1'000'000'000LL + frac;
  return true;
}

/// Parses an ISO timestamp into nanoseconds since the epoch (UTC if an offset
/// is given, else the wall clock read as UTC, as Parquet stores local
/// timestamps). `allow_offset` false refuses "Z" and "+HH:MM".
inline bool parse_iso_timestamp(std::string_view s, std::int64_t& nanos, bool allow_offset, std::string& why) {
  std::size_t pos = 0;
  std::int64_t days = 0;
  if (!parse_iso_date(s, pos, days, why)) return false;
  std::int64_t tod = 0;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    if (!parse_iso_time(s, ++pos, tod, why)) return false;
  }
  std::int64_t offset_minutes = 0;
  if (pos < s.size()) {
    if (!allow_offset) return why = "a time zone offset on a timestamp that is not adjusted to UTC", false;
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      const bool neg = s[pos++] == '-';
      std::uint32_t oh = 0, om = 0;
      if (!take_digits(s, pos, 2, oh)) return why = "expected a time zone offset +HH:MM", false;
      if (pos < s.size()) {  // minutes are optional: "+05", "+05:30", "+0530"
        if (s[pos] == ':') ++pos;
        if (!take_digits(s, pos, 2, om)) return why = "expected a time zone offset +HH:MM", false;
      }
      if (oh > 23 || om > 59) return why = "time zone offset out of range", false;
      offset_minutes = (neg ? -1 : 1) * static_cast<std::int64_t>(oh * 60 + om);
    }
  }
  if (pos != s.size()) return why = "unexpected text after the timestamp", false;
  // |days| < 10^9 * 366, so nanoseconds can overflow: check before multiplying.
  constexpr std::int64_t ns_per_day = 86'400'000'000'000LL;
  if (days > INT64_MAX / ns_per_day - 1 || days < INT64_MIN / ns_per_day + 1) {
    return why = "outside the range of 64-bit nanoseconds", false;
  }
  nanos = days * ns_per_day + tod - offset_minutes * 60'000'000'000LL;
  return true;
}

inline std::int64_t nanos_per_unit(time_unit u) {
  return u == time_unit::millis ? 1'000'000 : u == time_unit::micros ? 1'000 : 1;
}

inline std::string unit_name(time_unit u) {
  return u == time_unit::millis ? "milliseconds" : u == time_unit::micros ? "microseconds" : "nanoseconds";
}

/// Converts nanoseconds to `unit`, refusing to drop nonzero digits.
inline std::int64_t to_unit(std::string_view text, const column_descriptor& col, std::int64_t nanos, time_unit unit) {
  const std::int64_t per = nanos_per_unit(unit);
  if (nanos % per != 0) bad_value(text, col, "has digits finer than " + unit_name(unit));
  return nanos / per;
}

inline bool looks_like_integer(std::string_view s) {
  bool negative;
  std::uint64_t magnitude;
  return parse_integer(s, negative, magnitude);
}

/// DECIMAL: the unscaled value's two's complement, big-endian, in `width`
/// bytes (0 = as few as hold it). Magnitude arithmetic in base 256 so any
/// precision works without 128-bit integers.
inline std::vector<std::uint8_t> decimal_big_endian(std::string_view text, const column_descriptor& col,
                                                    std::size_t width) {
  const std::int32_t scale = col.logical.scale;
  const std::int32_t precision = col.logical.precision;
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if ((whole.empty() && frac.empty()) || (dot != std::string_view::npos && frac.empty() && whole.empty())) {
    bad_value(text, col, "not a decimal number");
  }
  auto all_digits = [](std::string_view d) {
    for (char c : d) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  };
  if (!all_digits(whole) || !all_digits(frac)) bad_value(text, col, "not a decimal number");
  while (frac.size() > static_cast<std::size_t>(std::max(scale, 0))) {
    if (frac.back() != '0') bad_value(text, col, "has more than " + std::to_string(scale) + " digits after the point");
    frac.remove_suffix(1);
  }
  std::string digits(whole);
  digits += frac;
  digits.append(static_cast<std::size_t>(std::max(scale, 0)) - frac.size(), '0');
  const std::size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? std::string("0") : digits.substr(first);
  if (precision > 0 && digits != "0" && digits.size() > static_cast<std::size_t>(precision)) {
    bad_value(text, col, "needs more than " + std::to_string(precision) + " digits");
  }
  // magnitude, little-endian base 256
  std::vector<std::uint8_t> mag{0};
  for (char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (auto& b : mag) {
      const unsigned v = b * 10U + carry;
      b = static_cast<std::uint8_t>(v & 0xFFU);
      carry = v >> 8;
    }
    if (carry != 0) mag.push_back(static_cast<std::uint8_t>(carry));
  }
  // bytes needed for two's complement: the magnitude plus a sign bit
  // (a negative power of two like -128 fits exactly).
  auto fits = [&](std::size_t w) {
    if (w >= mag.size() + 1) return true;
    if (w < mag.size()) return false;
    // w == mag.size(): top bit must be clear, or the value is exactly -2^(8w-1)
    if ((mag.back() & 0x80U) == 0) return true;
    if (!negative || mag.back() != 0x80U) return false;
    for (std::size_t i = 0; i + 1 < mag.size(); ++i) {
      if (mag[i] != 0) return false;
    }
    return true;
  };
  if (width == 0) {
    width = 1;
    while (!fits(width)) ++width;
  } else if (!fits(width)) {
    bad_value(text, col, "does not fit in " + std::to_string(width) + " bytes");
  }
  std::vector<std::uint8_t> le(width, 0);
  for (std::size_t i = 0; i < mag.size() && i < width; ++i) le[i] = mag[i];
  if (negative) {
    unsigned carry = 1;
    for (auto& b : le) {
      const unsigned v = static_cast<unsigned>(static_cast<std::uint8_t>(~b)) + carry;
      b = static_cast<std::uint8_t>(v & 0xFFU);
      carry = v >> 8;
    }
  }
  return {le.rbegin(), le.rend()};
}

inline int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool decode_hex_digits(std::string_view s, std::vector<std::byte>& out) {
  if (s.size() % 2 != 0) return false;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<std::byte>(hi * 16 + lo));
  }
  return true;
}


/// IEEE binary16 bits of `x`, rounded to nearest, ties to even.
inline std::uint16_t to_half(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000U);
  const double a = std::fabs(x);
  if (std::isnan(x)) return static_cast<std::uint16_t>(sign | 0x7E00U);
  if (std::isinf(x)) return static_cast<std::uint16_t>(sign | 0x7C00U);
  // Scale so the half's unit in the last place is 1, round to even with
  // nearbyint (the default rounding mode), then assemble.
  int exp;
  (void)std::frexp(a, &exp);  // a = f * 2^exp, f in [0.5, 1)
  const int e = std::max(exp - 1, -14);   // unbiased exponent, subnormals share -14
  const double scaled = std::ldexp(a, 10 - e);  // the 11-bit significand (or less)
  double q = std::nearbyint(scaled);
  int ee = e;
  if (q >= 2048.0) {  // rounding carried into the next binade
    q /= 2.0;
    ++ee;
  }
  if (ee > 15) return static_cast<std::uint16_t>(sign | 0x7C00U);  // overflow to infinity
  const auto mant = static_cast<std::uint32_t>(q);
  if (mant < 1024) return static_cast<std::uint16_t>(sign | mant);  // subnormal (or zero)
  return static_cast<std::uint16_t>(sign | ((ee + 15) << 10) | (mant & 0x3FFU));
}

/// Parses a float or double: decimal or hex-float syntax, "nan", "inf".
template <class F>
F parse_floating(std::string_view text, const column_descriptor& col) {
  if (text.empty() || text.front() == ' ' || text.front() == '\t' || text.front() == '\n') {
    bad_value(text, col, "not a number");
  }
  const std::string copy(text);
  errno = 0;
  char* end = nullptr;
  F value;
  if constexpr (std::is_same_v<F, float>) {
    value = std::strtof(copy.c_str(), &end);
  } else {
    value = std::strtod(copy.c_str(), &end);
  }
  if (end != copy.c_str() + copy.size()) bad_value(text, col, "not a number");
  if (errno == ERANGE && (value == 0 || std::isinf(value))) bad_value(text, col, "out of range");
  return value;
}

}  // namespace detail

/// The column's physical and logical type in words, as messages and
/// `bloomkit parquet list` print it: "INT32", "INT32 DATE",
/// "FIXED_LEN_BYTE_ARRAY(16) UUID".
using detail::describe;

/// The bytes Parquet hashes for the value written as `text` in column `col`
/// (see the table at the top of this header). Throws bloomkit::error
/// (errc::invalid_argument) naming the text and the column's type when the
/// text is not a value of that type, or errc::unsupported for a type whose
/// text form is not defined here (INTERVAL, MAP/LIST/VARIANT leaves: use
/// encode_hex).
inline std::vector<std::byte> encode_value(const column_descriptor& col, std::string_view text) {
  using k = logical_type::kind;
  using namespace detail;
  std::vector<std::byte> out;
  const logical_type& lt = col.logical;
  auto text_bytes = [&] {
    for (char c : text) out.push_back(static_cast<std::byte>(c));
  };
  switch (col.type) {
    case physical_type::boolean:
      if (text == "true" || text == "1") {
        out.push_back(std::byte{1});
      } else if (text == "false" || text == "0") {
        out.push_back(std::byte{0});
      } else {
        bad_value(text, col, "expected true or false");
      }
      return out;
    case physical_type::int32: {
      std::int64_t v = 0;
      if (lt.id == k::integer) {
        const int bits = lt.bit_width == 8 || lt.bit_width == 16 ? lt.bit_width : 32;
        if (lt.is_signed) {
          v = signed_in_range(text, col, -(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1);
        } else {
          v = static_cast<std::int64_t>(unsigned_in_range(text, col, (std::uint64_t{1} << bits) - 1));
        }
      } else if (lt.id == k::date) {
        if (looks_like_integer(text)) {
          v = signed_in_range(text, col, INT32_MIN, INT32_MAX);
        } else {
          std::size_t pos = 0;
          std::string why;
          if (!parse_iso_date(text, pos, v, why)) bad_value(text, col, why);
          if (pos != text.size()) bad_value(text, col, "unexpected text after the date");
          if (v < INT32_MIN || v > INT32_MAX) bad_value(text, col, "outside the INT32 day range");
        }
      } else if (lt.id == k::time) {
        if (looks_like_integer(text)) {
          v = signed_in_range(text, col, 0, 86'400'000LL * 1'000'000 / nanos_per_unit(lt.unit) - 1);
        } else {
          std::size_t pos = 0;
          std::string why;
          std::int64_t nanos = 0;
          if (!parse_iso_time(text, pos, nanos, why)) bad_value(text, col, why);
          if (pos != text.size()) bad_value(text, col, "unexpected text after the time");
          v = to_unit(text, col, nanos, lt.unit);
        }
      } else if (lt.id == k::decimal) {
        const auto be = decimal_big_endian(text, col, 4);
        v = static_cast<std::int32_t>((std::uint32_t{be[0]} << 24) | (std::uint32_t{be[1]} << 16) |
                                      (std::uint32_t{be[2]} << 8) | be[3]);
      } else {
        v = signed_in_range(text, col, INT32_MIN, INT32_MAX);
      }
      append_le(out, static_cast<std::uint64_t>(v), 4);
      return out;
    }
    case physical_type::int64: {
      std::uint64_t v = 0;
      if (lt.id == k::integer && !lt.is_signed) {
        v = unsigned_in_range(text, col, UINT64_MAX);
      } else if (lt.id == k::timestamp || lt.id == k::time) {
        if (looks_like_integer(text)) {
          v = static_cast<std::uint64_t>(signed_in_range(text, col, INT64_MIN, INT64_MAX));
        } else {
          std::int64_t nanos = 0;
          std::string why;
          if (lt.id == k::timestamp) {
            if (!parse_iso_timestamp(text, nanos, lt.adjusted_to_utc, why)) bad_value(text, col, why);
          } else {
            std::size_t pos = 0;
            if (!parse_iso_time(text, pos, nanos, why)) bad_value(text, col, why);
            if (pos != text.size()) bad_value(text, col, "unexpected text after the time");
          }
          v = static_cast<std::uint64_t>(to_unit(text, col, nanos, lt.unit));
        }
      } else if (lt.id == k::decimal) {
        const auto be = decimal_big_endian(text, col, 8);
        for (auto b : be) v = (v << 8) | b;
      } else {
        v = static_cast<std::uint64_t>(signed_in_range(text, col, INT64_MIN, INT64_MAX));
      }
      append_le(out, v, 8);
      return out;
    }
    case physical_type::int96: {
      std::int64_t nanos = 0;
      std::string why;
      if (looks_like_integer(text)) {
        nanos = signed_in_range(text, col, INT64_MIN, INT64_MAX);
      } else if (!parse_iso_timestamp(text, nanos, true, why)) {
        bad_value(text, col, why + " (INT96 takes an ISO timestamp or nanoseconds since the epoch)");
      }
      // Impala/Spark INT96: nanoseconds of the day, then the Julian day number
      // (1970-01-01 is Julian day 2440588).
      constexpr std::int64_t ns_per_day = 86'400'000'000'000LL;
      std::int64_t day = nanos / ns_per_day;
      std::int64_t tod = nanos % ns_per_day;
      if (tod < 0) {
        tod += ns_per_day;
        --day;
      }
      append_le(out, static_cast<std::uint64_t>(tod), 8);
      append_le(out, static_cast<std::uint64_t>(day + 2440588), 4);
      return out;
    }
    case physical_type::float_: {
      const float f = parse_floating<float>(text, col);
      std::uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      append_le(out, bits, 4);
      return out;
    }
    case physical_type::double_: {
      const double d = parse_floating<double>(text, col);
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      append_le(out, bits, 8);
      return out;
    }
    case physical_type::byte_array:
      if (lt.id == k::decimal) {
        for (auto b : decimal_big_endian(text, col, 0)) out.push_back(static_cast<std::byte>(b));
      } else if (lt.id == k::string || lt.id == k::enum_ || lt.id == k::json) {
        if (!valid_utf8(text)) bad_value(text, col, "not valid UTF-8");
        text_bytes();
      } else {
        text_bytes();
      }
      return out;
    case physical_type::fixed_len_byte_array: {
      const auto width = static_cast<std::size_t>(col.type_length);
      if (lt.id == k::uuid) {
        std::string hex;
        if (text.size() == 36) {
          for (std::size_t i = 0; i < 36; ++i) {
            const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash != (text[i] == '-')) bad_value(text, col, "expected a UUID xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
            if (!dash) hex += text[i];
          }
        } else {
          hex = std::string(text);
        }
        if (hex.size() != 32 || !decode_hex_digits(hex, out)) {
          bad_value(text, col, "expected a UUID xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
        }
      } else if (lt.id == k::decimal) {
        for (auto b : decimal_big_endian(text, col, width)) out.push_back(static_cast<std::byte>(b));
      } else if (lt.id == k::float16) {
        const std::uint16_t h = to_half(parse_floating<double>(text, col));
        append_le(out, h, 2);
      } else if (lt.id == k::interval) {
        throw error(errc::unsupported, "cannot convert '" + std::string(text) + "' to " + describe(col) +
                                           ": give INTERVAL values as their 12 bytes in hex");
      } else {
        if (text.size() != width) {
          bad_value(text, col, "is " + std::to_string(text.size()) + " bytes, the column holds " +
                                   std::to_string(width) + "-byte values (use hex input for raw bytes)");
        }
        text_bytes();
      }
      if (out.size() != width) bad_value(text, col, "the type's width does not match its annotation");
      return out;
    }
  }
  throw error(errc::unsupported, "cannot convert '" + std::string(text) + "': unknown physical type");
}

/// The bytes given in hex (two digits per byte, optional "0x"), checked
/// against the width of the column's physical type (4 for INT32 and FLOAT,
/// 8 for INT64 and DOUBLE, 12 for INT96, type_length for FIXED_LEN_BYTE_ARRAY,
/// 1 for BOOLEAN, any for BYTE_ARRAY). errc::invalid_argument otherwise.
inline std::vector<std::byte> encode_hex(const column_descriptor& col, std::string_view hex) {
  std::vector<std::byte> out;
  std::string_view digits = hex;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  if (!detail::decode_hex_digits(digits, out)) detail::bad_value(hex, col, "not an even number of hex digits");
  std::size_t width = 0;
  switch (col.type) {
    case physical_type::boolean: width = 1; break;
    case physical_type::int32:
    case physical_type::float_: width = 4; break;
    case physical_type::int64:
    case physical_type::double_: width = 8; break;
    case physical_type::int96: width = 12; break;
    case physical_type::fixed_len_byte_array: width = static_cast<std::size_t>(col.type_length); break;
    case physical_type::byte_array: return out;
  }
  if (out.size() != width) {
    detail::bad_value(hex, col, std::to_string(out.size()) + " bytes given, the type takes " + std::to_string(width));
  }
  return out;
}

/// XXH64 with seed 0 of the value's bytes: the hash every Parquet SBBF uses.
inline std::uint64_t hash_value(std::span<const std::byte> bytes) { return hash_bytes(bytes, parquet_hash_spec); }

}  // namespace bloomkit::parquet
