// tools/bloomkit/json_out.hpp - one JSON object per line, without a library.
//
// The CLI's --json output is JSON Lines: each record is one object on one
// line (RFC 8259 text, UTF-8). We print it with this small writer rather than
// pull in a JSON library for a handful of flat objects. Rules it follows:
//   * strings are escaped per RFC 8259 section 7 ('"', '\\' and control
//     characters; "\u00XX" for the controls without a short escape);
//   * a string that is not valid UTF-8 cannot be JSON text, so each invalid
//     byte is replaced by U+FFFD (callers that must keep the bytes, like
//     `query --json`, add a hex field beside it);
//   * doubles print in the shortest form that reads back to the same value
//     (std::to_chars); NaN and infinities, which JSON cannot express, print
//     as null;
//   * integers print exactly, all 64 bits (readers that parse numbers as
//     doubles lose precision above 2^53: that is their limit, not ours).
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace bloomkit::cli {

/// True when `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF).
inline bool is_valid_utf8(std::string_view bytes) noexcept {
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1fU;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0fU;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07U;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t j = 1; j < len; ++j) {
      const auto cc = static_cast<unsigned char>(bytes[i + j]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3fU);
    }
    constexpr std::uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

/// Appends `bytes` to `out` as a quoted JSON string (rules above).
inline void append_json_string(std::string& out, std::string_view bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  const std::size_t n = bytes.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x80) {
      // Copy one whole code point if it is valid, else one U+FFFD per byte.
      std::size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
      if (len != 0 && i + len <= n && is_valid_utf8(bytes.substr(i, len))) {
        out.append(bytes.data() + i, len);
        i += len;
      } else {
        out += "\xef\xbf\xbd";
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

/// Appends `value` in shortest round-trip form, or null when not finite.
inline void append_json_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

/// Appends an integer exactly.
template <std::integral T>
void append_json_integer(std::string& out, T value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

/// Builds one flat JSON object; fields appear in the order they are added.
///
///   json_object o;
///   o.field("kind", "standard_bloom").field("k", 7).field("fpr", 0.01);
///   std::fputs(o.line().c_str(), stdout);   // {"kind":"standard_bloom","k":7,"fpr":0.01}\n
class json_object {
 public:
  json_object() { text_ += '{'; }

  json_object& field(std::string_view name, std::string_view value) {
    key(name);
    append_json_string(text_, value);
    return *this;
  }
  json_object& field(std::string_view name, const char* value) { return field(name, std::string_view(value)); }
  json_object& field(std::string_view name, const std::string& value) { return field(name, std::string_view(value)); }
  json_object& field(std::string_view name, bool value) {
    key(name);
    text_ += value ? "true" : "false";
    return *this;
  }
  template <std::integral T>
    requires(!std::is_same_v<T, bool>)
  json_object& field(std::string_view name, T value) {
    key(name);
    append_json_integer(text_, value);
    return *this;
  }
  json_object& field(std::string_view name, double value) {
    key(name);
    append_json_number(text_, value);
    return *this;
  }
  /// The value, or null when empty.
  template <class T>
  json_object& field(std::string_view name, const std::optional<T>& value) {
    if (value) return field(name, *value);
    return null_field(name);
  }
  json_object& null_field(std::string_view name) {
    key(name);
    text_ += "null";
    return *this;
  }

  /// The object, closed, with a trailing '\n'.
  [[nodiscard]] std::string line() const { return text_ + "}\n"; }

 private:
  void key(std::string_view name) {
    if (text_.size() > 1) text_ += ',';
    append_json_string(text_, name);
    text_ += ':';
  }
  std::string text_;
};

}  // namespace bloomkit::cli
