// tools/bloomkit/jvm_formats.cpp - the CLI on Spark's and Guava's filter
// streams (see jvm_formats.hpp for the key formats and their semantics).
#include "jvm_formats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "bloomkit/format/jvm_streams.hpp"
#include "commands.hpp"
#include "json_out.hpp"
#include "key_input.hpp"

namespace bloomkit::cli {

namespace {

enum class jvm_key_format { text, hex, i64, u64, i32 };

jvm_key_format parse_jvm_format(const std::string& name) {
  if (name == "text") return jvm_key_format::text;
  if (name == "hex") return jvm_key_format::hex;
  if (name == "i64") return jvm_key_format::i64;
  if (name == "u64") return jvm_key_format::u64;
  if (name == "i32") return jvm_key_format::i32;
  throw usage_error("unknown key format '" + name + "' for a Spark/Guava filter (use text, hex, i64, u64 or i32)");
}

/// Parses an optionally signed decimal in [lo, hi]. False for anything else.
bool parse_signed(std::string_view s, std::int64_t lo, std::int64_t hi, std::int64_t& out) noexcept {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  if (!parse_u64(s, magnitude)) return false;
  if (negative) {
    if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) return false;
    out = static_cast<std::int64_t>(~magnitude + 1);  // two's complement, no signed overflow
  } else {
    if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    out = static_cast<std::int64_t>(magnitude);
  }
  return out >= lo && out <= hi;
}

/// One key, as the library's mightContain would be called.
struct jvm_key {
  enum class type { bytes, long_value, int_value } kind = type::bytes;
  std::int64_t value = 0;
  std::string bytes;
};

/// Parses `line` in `format`; returns false with `why` set for a bad key.
bool parse_jvm_key(jvm_key_format format, std::string_view line, jvm_key& key, const char*& why) {
  switch (format) {
    case jvm_key_format::text:
      key.kind = jvm_key::type::bytes;
      key.bytes.assign(line);
      return true;
    case jvm_key_format::hex:
      key.kind = jvm_key::type::bytes;
      if (!parse_hex(line, key.bytes)) {
        why = "not an even number of hex digits";
        return false;
      }
      return true;
    case jvm_key_format::u64: {
      std::uint64_t v = 0;
      if (!parse_u64(line, v)) {
        why = "not a decimal integer in [0, 18446744073709551615]";
        return false;
      }
      key.kind = jvm_key::type::long_value;
      key.value = static_cast<std::int64_t>(v);  // the same 64 bits
      return true;
    }
    case jvm_key_format::i64:
      key.kind = jvm_key::type::long_value;
      if (!parse_signed(line, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                        key.value)) {
        why = "not a decimal integer in [-2^63, 2^63 - 1]";
        return false;
      }
      return true;
    case jvm_key_format::i32:
      key.kind = jvm_key::type::int_value;
      if (!parse_signed(line, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(),
                        key.value)) {
        why = "not a decimal integer in [-2^31, 2^31 - 1]";
        return false;
      }
      return true;
  }
  return false;
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

bool may_contain(const spark_bloom_view& f, const jvm_key& key) {
  // Spark's put(Object) widens Byte/Short/Integer to a long: i32 is a long.
  if (key.kind == jvm_key::type::bytes) return f.may_contain_bytes(as_bytes(key.bytes));
  return f.may_contain_long(key.value);
}

bool may_contain(const guava_bloom_view& f, const jvm_key& key) {
  switch (key.kind) {
    case jvm_key::type::bytes: return f.may_contain_bytes(as_bytes(key.bytes));
    case jvm_key::type::long_value: return f.may_contain(key.value);                            // longFunnel
    case jvm_key::type::int_value: return f.may_contain(static_cast<std::int32_t>(key.value));  // integerFunnel
  }
  return false;
}

std::string kind_name(const jvm_filter& f) { return f.index() == 0 ? "spark_bloom" : "guava_bloom"; }

std::uint64_t bit_count(const jvm_filter& f) {
  return std::visit([](const auto& x) { return x.bit_count(); }, f);
}

}  // namespace

bool is_jvm_filter_file(const std::string& path) {
  if (path == "-") return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // the ordinary path reports the error
  struct stat st {};
  std::array<std::byte, 4> head{};
  bool result = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const ssize_t got = ::read(fd, head.data(), head.size());
    if (got > 0) result = detect_jvm_stream(std::span<const std::byte>(head.data(), static_cast<std::size_t>(got))).has_value();
  }
  ::close(fd);
  return result;
}

int run_jvm_query(const jvm_filter_view& filter, const std::vector<std::string>& keys,
                  const std::vector<std::string>& inputs, const std::string& format_name, bool count, bool json) {
  const jvm_key_format format = parse_jvm_format(format_name);
  if (count && json) throw usage_error("--count and --json cannot be combined");
  if (!keys.empty() && !inputs.empty()) throw usage_error("give keys as arguments or with --input, not both");
  int stdin_uses = 0;
  for (const auto& path : inputs) stdin_uses += path == "-" ? 1 : 0;
  if (stdin_uses > 1) throw usage_error("stdin (-) can be an input only once");

  std::string out;
  std::uint64_t maybes = 0;
  jvm_key key;
  const bool numeric = format == jvm_key_format::i64 || format == jvm_key_format::u64 || format == jvm_key_format::i32;
  auto flush = [&](bool force) {
    if (out.size() >= (std::size_t{1} << 20) || (force && !out.empty())) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) throw error(errc::io, "cannot write to stdout (the answers)");
      out.clear();
    }
  };
  auto answer = [&](std::string_view line, const std::string& where) {
    const char* why = "";
    if (!parse_jvm_key(format, line, key, why)) {
      throw error(errc::invalid_argument, where + ": " + why + " (got " + quote_for_message(line) + ")");
    }
    const bool maybe = std::visit([&](const auto& f) { return may_contain(f, key); }, filter);
    maybes += maybe ? 1 : 0;
    if (count) return;
    if (json) {
      out += "{\"key\":";
      if (numeric) {
        out.append(line);  // validated decimal: a JSON number as written
      } else {
        append_json_string(out, line);
        if (format == jvm_key_format::text && !is_valid_utf8(line)) {
          out += ",\"key_hex\":\"";
          static constexpr char digits[] = "0123456789abcdef";
          for (const char c : line) {
            out += digits[static_cast<unsigned char>(c) >> 4];
            out += digits[static_cast<unsigned char>(c) & 15];
          }
          out += '"';
        }
      }
      out += maybe ? ",\"maybe\":true}\n" : ",\"maybe\":false}\n";
    } else {
      out.append(line);
      out += maybe ? "\tmaybe\n" : "\tabsent\n";
    }
    flush(false);
  };

  if (!keys.empty()) {
    for (std::size_t i = 0; i < keys.size(); ++i) answer(keys[i], "key " + std::to_string(i + 1) + " on the command line");
  } else {
    const std::vector<std::string> sources = inputs.empty() ? std::vector<std::string>{"-"} : inputs;
    for (const auto& path : sources) {
      line_reader reader(path);
      std::uint64_t line_number = 0;
      for (std::string_view chunk = reader.next_chunk(); !chunk.empty(); chunk = reader.next_chunk()) {
        lines::split_lines(chunk, [&](const char* begin, const char* end) {
          ++line_number;
          const std::string_view line = strip_cr(std::string_view(begin, static_cast<std::size_t>(end - begin)));
          answer(line, reader.name() + ":" + std::to_string(line_number));
        });
      }
    }
  }
  if (count) out += std::to_string(maybes) + "\n";
  flush(true);
  if (std::fflush(stdout) != 0) throw error(errc::io, "cannot write to stdout (the answers)");
  return exit_ok;
}

int run_jvm_info(const std::string& file, bool json) {
  const std::uint64_t file_bytes = std::filesystem::file_size(file);
  const jvm_filter filter = load_jvm_filter(file);
  json_object line;
  std::vector<std::pair<std::string, std::string>> rows;
  auto both = [&](const char* name, const auto& value, std::string words) {
    line.field(name, value);
    rows.emplace_back(name, std::move(words));
  };
  const std::string kind = kind_name(filter);
  both("kind", kind, kind);
  std::visit(
      [&](const auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (std::is_same_v<F, spark_bloom>) {
          const auto v = static_cast<std::uint32_t>(f.version());
          both("format", std::string("spark"), "Spark BloomFilter stream (org.apache.spark.util.sketch), big-endian");
          both("version", v, std::to_string(v) + (v == 1 ? " (32-bit combined hash)" : " (64-bit combined hash)"));
          both("seed", f.seed(), std::to_string(f.seed()));
        } else {
          const auto s = static_cast<std::uint32_t>(f.strategy());
          both("format", std::string("guava"), "Guava BloomFilter stream (com.google.common.hash), big-endian");
          both("strategy", s, std::to_string(s) + (s == 0 ? " (MURMUR128_MITZ_32)" : " (MURMUR128_MITZ_64)"));
        }
        both("k", f.k(), std::to_string(f.k()));
        both("bits", f.bit_count(), std::to_string(f.bit_count()) + " (" + std::to_string(f.word_count()) + " words)");
        both("set_bits", f.popcount(), std::to_string(f.popcount()));
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.4g%% of bits set", 100 * f.fill_ratio());
        both("fill_ratio", f.fill_ratio(), buffer);
        const double cardinality = f.estimated_cardinality();
        if (std::isfinite(cardinality)) {
          std::snprintf(buffer, sizeof buffer, "%.6g distinct keys", cardinality);
          both("estimated_cardinality", cardinality, buffer);
        } else {
          line.null_field("estimated_cardinality");
          rows.emplace_back("estimated_cardinality", "unknown (every bit is set)");
        }
        std::snprintf(buffer, sizeof buffer, "%.4g%% (fill^k, the library's expectedFpp)", 100 * f.estimated_fpr());
        both("estimated_fpr", f.estimated_fpr(), buffer);
      },
      filter);
  both("file", file, file);
  both("file_bytes", file_bytes, std::to_string(file_bytes) + " bytes");
  if (json) {
    std::fputs(line.line().c_str(), stdout);
  } else {
    for (const auto& [name, words] : rows) std::printf("%-22s %s\n", name.c_str(), words.c_str());
  }
  return exit_ok;
}

int run_jvm_set_op(bool merge, const std::vector<std::string>& inputs, const std::string& output, bool json,
                   bool quiet) {
  const char* verb = merge ? "merge" : "intersect";
  if (inputs.size() < 2) throw usage_error(std::string(verb) + " needs at least two filter files");
  jvm_filter result = load_jvm_filter(inputs[0]);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const std::string prefix = std::string("cannot ") + verb + " " + inputs[i] + " with " + inputs[0] + ": ";
    if (!is_jvm_filter_file(inputs[i])) {
      throw error(errc::mismatch, prefix + "kinds differ (" + kind_name(result) + " vs a file that is not a Spark or Guava stream)");
    }
    const jvm_filter other = load_jvm_filter(inputs[i]);
    if (other.index() != result.index()) {
      throw error(errc::mismatch, prefix + "kinds differ (" + kind_name(result) + " vs " + kind_name(other) + ")");
    }
    std::visit(
        [&](auto& a) {
          using F = std::decay_t<decltype(a)>;
          try {
            if (merge) {
              a.merge(std::get<F>(other));
            } else {
              a.intersect(std::get<F>(other));
            }
          } catch (const error& e) {
            throw error::in_context(prefix, e);
          }
        },
        result);
  }
  save_jvm_filter(result, output);
  const double fpr = std::visit([](const auto& f) { return f.estimated_fpr(); }, result);
  if (json) {
    json_object line;
    line.field("kind", kind_name(result)).field("bits", bit_count(result)).field("estimated_fpr", fpr).field("file", output);
    std::fputs(line.line().c_str(), stdout);
  } else if (!quiet) {
    std::fprintf(stderr, "bloomkit: wrote %s: %s of %zu %s filters, estimated FPR %.4g%%\n", output.c_str(),
                 merge ? "union" : "intersection", inputs.size(), kind_name(result).c_str(), 100 * fpr);
  }
  return exit_ok;
}

}  // namespace bloomkit::cli
