// tools/bloomkit/key_input.cpp - the line reader and key parsers (see key_input.hpp).
#include "key_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "commands.hpp"

namespace bloomkit::cli {

std::string_view to_string(key_format format) noexcept {
  switch (format) {
    case key_format::text: return "text";
    case key_format::hex: return "hex";
    case key_format::u64: return "u64";
    case key_format::i64: return "i64";
    case key_format::integer: return "int";
    case key_format::f64: return "f64";
  }
  return "unknown";
}

key_format parse_key_format(std::string_view name) {
  if (name == "text") return key_format::text;
  if (name == "hex") return key_format::hex;
  if (name == "u64") return key_format::u64;
  if (name == "i64") return key_format::i64;
  if (name == "int") return key_format::integer;
  if (name == "f64") return key_format::f64;
  throw usage_error("--format must be text, hex, u64, i64, int or f64, got \"" + std::string(name) + "\"");
}

key_type key_type_of(key_format format) noexcept {
  switch (format) {
    case key_format::text:
    case key_format::hex: return key_type::bytes;
    case key_format::u64:
    case key_format::i64:
    case key_format::integer: return key_type::int64;
    case key_format::f64: return key_type::float64;
  }
  return key_type::unspecified;
}

key_format format_for(key_type type, std::string_view file) {
  switch (type) {
    case key_type::unspecified:
    case key_type::bytes: return key_format::text;
    case key_type::int64:
    case key_type::int32: return key_format::integer;
    case key_type::float64:
    case key_type::float32: return key_format::f64;
    case key_type::timestamp_us:
    case key_type::date32: break;
  }
  throw usage_error(std::string(file) + " holds " + std::string(to_string(type)) +
                    " keys, which no --format of the CLI reads; query it from Python or C++");
}

void require_format_fits(key_format format, key_type type, std::string_view file) {
  // The C++ key each format hashes: its type decides the conversion.
  const bool converts = [&] {
    switch (format) {
      case key_format::text:
      case key_format::hex: return converts_into<std::string_view>(type);
      case key_format::u64: return converts_into<std::uint64_t>(type);
      case key_format::i64:
      case key_format::integer: return converts_into<std::int64_t>(type);
      case key_format::f64: return converts_into<double>(type);
    }
    return false;
  }();
  if (!converts) {
    throw usage_error(std::string(file) + " holds " + std::string(to_string(type)) + " keys; --format " +
                      std::string(to_string(format)) + " gives " + std::string(to_string(key_type_of(format))) +
                      " keys, which do not convert into " + std::string(to_string(type)) +
                      " (leave --format out to read the file's own type)");
  }
}

key_format format_against(const std::optional<std::string>& given, key_type type, std::string_view file) {
  if (!given) return format_for(type, file);
  const key_format format = parse_key_format(*given);
  require_format_fits(format, type, file);
  return format;
}

namespace {

std::string os_error(const std::string& what, const std::string& name) {
  return what + " " + name + ": " + std::strerror(errno);
}

}  // namespace

line_reader::line_reader(std::string path, std::size_t buffer_bytes) {
  if (path == "-") {
    name_ = "<stdin>";
    fd_ = STDIN_FILENO;
    if (::isatty(fd_) == 1) {
      // A user who typed `bloomkit query f.bkf` and sees nothing would think
      // it hung: say what it waits for.
      std::fprintf(stderr, "bloomkit: reading keys from the terminal, one per line; end with Ctrl-D "
                           "(or give keys as arguments, --input FILE, or a pipe)\n");
    }
  } else {
    name_ = std::move(path);
    do {  // EINTR: a signal came before the open did anything; open again
      fd_ = ::open(name_.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) throw error(errc::io, os_error("cannot open", name_));
    owns_fd_ = true;
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0) {
    device_ = static_cast<std::uint64_t>(st.st_dev);
    inode_ = static_cast<std::uint64_t>(st.st_ino);
    if (S_ISDIR(st.st_mode)) {
      if (owns_fd_) ::close(fd_);
      throw error(errc::io, "cannot read " + name_ + ": it is a directory");
    }
    if (S_ISREG(st.st_mode)) {
      // Stdin may be a file some earlier reader has partly consumed: start,
      // and rewind to, where it stands now.
      const off_t at = ::lseek(fd_, 0, SEEK_CUR);
      start_offset_ = at > 0 ? static_cast<std::uint64_t>(at) : 0;
      size_hint_ = static_cast<std::uint64_t>(st.st_size) > start_offset_
                       ? static_cast<std::uint64_t>(st.st_size) - start_offset_
                       : 0;
      regular_ = true;
      // Tell the kernel we read front to back, so it reads ahead further.
      (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  buffer_.resize(std::clamp<std::size_t>(buffer_bytes, 16, max_line_bytes));
}

line_reader::~line_reader() {
  if (owns_fd_) ::close(fd_);
}

void line_reader::rewind() {
  if (!regular_) throw error(errc::io, "cannot read " + name_ + " twice: it is not a regular file");
  if (::lseek(fd_, static_cast<off_t>(start_offset_), SEEK_SET) < 0) throw error(errc::io, os_error("cannot rewind", name_));
  eof_ = false;
  begin_ = 0;
  end_ = 0;
  bytes_read_ = 0;
}

std::string_view line_reader::next_chunk() {
  // Invariant: buffer_[begin_, end_) is the start of a line not yet handed
  // out; it holds no '\n' (a chunk always ends at the last '\n' seen).
  for (;;) {
    if (begin_ != 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (eof_) {
      if (end_ == 0) return {};
      // The last line, without its '\n'.
      const std::string_view chunk(buffer_.data(), end_);
      begin_ = end_;
      bytes_read_ += chunk.size();
      return chunk;
    }
    if (end_ == buffer_.size()) {
      if (end_ > max_line_bytes) {
        throw error(errc::invalid_argument,
                    name_ + ": a line is longer than " + std::to_string(max_line_bytes >> 20) + " MiB");
      }
      buffer_.resize(std::min(buffer_.size() * 2, max_line_bytes + 2));
    }
    const ssize_t got = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw error(errc::io, os_error("cannot read", name_));
    }
    if (got == 0) {
      eof_ = true;
      continue;
    }
    const std::size_t old_end = end_;
    end_ += static_cast<std::size_t>(got);
    const void* last = ::memrchr(buffer_.data() + old_end, '\n', end_ - old_end);
    if (last == nullptr) continue;
    const std::size_t stop = static_cast<std::size_t>(static_cast<const char*>(last) - buffer_.data()) + 1;
    const std::string_view chunk(buffer_.data(), stop);
    begin_ = stop;
    bytes_read_ += chunk.size();
    return chunk;
  }
}

bool parse_u64(std::string_view line, std::uint64_t& value) noexcept {
  if (line.empty()) return false;
  std::uint64_t v = 0;
  for (const char c : line) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;  // v * 10 + digit would overflow
    v = v * 10 + digit;
  }
  value = v;
  return true;
}

bool parse_i64(std::string_view line, std::int64_t& value) noexcept {
  const bool negative = !line.empty() && line[0] == '-';
  std::uint64_t magnitude = 0;
  if (!parse_u64(negative ? line.substr(1) : line, magnitude)) return false;
  constexpr std::uint64_t limit = std::uint64_t{1} << 63;  // |INT64_MIN|
  if (negative ? magnitude > limit : magnitude >= limit) return false;
  // Two's complement: 0 - magnitude in unsigned arithmetic is the bit pattern.
  value = static_cast<std::int64_t>(negative ? std::uint64_t{0} - magnitude : magnitude);
  return true;
}

bool parse_f64(std::string_view line, double& value) noexcept {
  if (line.empty()) return false;
  const char* begin = line.data();
  if (*begin == '+') return false;  // from_chars refuses it too; say so plainly
  const auto result = std::from_chars(begin, begin + line.size(), value);
  return result.ec == std::errc() && result.ptr == begin + line.size();
}

void append_integer_key(std::string& out, key_format format, std::string_view line) {
  char buffer[24];
  std::to_chars_result result{};
  if (format == key_format::i64 || (format == key_format::integer && !line.empty() && line[0] == '-')) {
    std::int64_t v = 0;
    (void)parse_i64(line, v);
    result = std::to_chars(buffer, buffer + sizeof buffer, v);
  } else {
    std::uint64_t v = 0;
    (void)parse_u64(line, v);
    result = std::to_chars(buffer, buffer + sizeof buffer, v);
  }
  out.append(buffer, result.ptr);
}

namespace {

/// Hex digit values; 0xff marks a non-digit.
constexpr std::array<unsigned char, 256> hex_table = [] {
  std::array<unsigned char, 256> t{};
  for (auto& x : t) x = 0xff;
  for (int i = 0; i < 10; ++i) t[static_cast<unsigned char>('0' + i)] = static_cast<unsigned char>(i);
  for (int i = 0; i < 6; ++i) {
    t[static_cast<unsigned char>('a' + i)] = static_cast<unsigned char>(10 + i);
    t[static_cast<unsigned char>('A' + i)] = static_cast<unsigned char>(10 + i);
  }
  return t;
}();

}  // namespace

bool parse_hex(std::string_view line, std::string& out) {
  out.clear();
  if (line.size() % 2 != 0) return false;
  out.resize(line.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const unsigned char hi = hex_table[static_cast<unsigned char>(line[2 * i])];
    const unsigned char lo = hex_table[static_cast<unsigned char>(line[2 * i + 1])];
    if (hi > 15 || lo > 15) return false;
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  return true;
}

bool key_hasher::hash_other(std::string_view line, std::uint64_t& out) {
  switch (format_) {
    case key_format::text:
      out = hash_bytes(line.data(), line.size(), spec_);
      return true;
    case key_format::hex:
      if (!parse_hex(line, scratch_)) {
        why_ = line.size() % 2 != 0 ? "odd number of hex digits" : "not a hex digit";
        return false;
      }
      out = hash_bytes(scratch_.data(), scratch_.size(), spec_);
      return true;
    case key_format::u64: {
      std::uint64_t value = 0;
      if (!parse_u64(line, value)) {
        why_ = line.empty() ? "empty line where a decimal u64 was expected"
                            : "not a decimal integer in [0, 18446744073709551615]";
        return false;
      }
      return hash_converted(value, out);
    }
    case key_format::i64: {
      std::int64_t value = 0;
      if (!parse_i64(line, value)) {
        why_ = line.empty() ? "empty line where a decimal i64 was expected"
                            : "not a decimal integer in [-9223372036854775808, 9223372036854775807]";
        return false;
      }
      return hash_converted(value, out);
    }
    case key_format::integer: {
      std::int64_t negative = 0;
      std::uint64_t value = 0;
      if (!line.empty() && line[0] == '-' && parse_i64(line, negative)) return hash_converted(negative, out);
      if (!line.empty() && line[0] != '-' && parse_u64(line, value)) return hash_converted(value, out);
      why_ = line.empty() ? "empty line where a decimal integer was expected"
                          : "not a decimal integer in [-9223372036854775808, 18446744073709551615]";
      return false;
    }
    case key_format::f64: {
      double value = 0;
      if (!parse_f64(line, value)) {
        why_ = line.empty() ? "empty line where a number was expected" : "not a decimal number (a double)";
        return false;
      }
      return hash_converted(value, out);
    }
  }
  why_ = "unknown key format";
  return false;
}

std::string quote_for_message(std::string_view line) {
  constexpr std::size_t shown = 40;
  std::string quoted = "\"";
  for (std::size_t i = 0; i < line.size() && i < shown; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      quoted += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      quoted += escaped;
    }
  }
  if (line.size() > shown) quoted += "...";
  return quoted + "\"";
}

std::string describe_bad_key(std::string_view source, std::uint64_t line_number, std::string_view what,
                             std::string_view line) {
  return std::string(source) + ":" + std::to_string(line_number) + ": " + std::string(what) + " (got " +
         quote_for_message(line) + ")";
}

}  // namespace bloomkit::cli
