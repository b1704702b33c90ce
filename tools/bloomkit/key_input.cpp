// tools/bloomkit/key_input.cpp - the line reader and key parsers (see key_input.hpp).
#include "key_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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
  }
  return "unknown";
}

key_format parse_key_format(std::string_view name) {
  if (name == "text") return key_format::text;
  if (name == "hex") return key_format::hex;
  if (name == "u64") return key_format::u64;
  throw usage_error("--format must be text, hex or u64, got \"" + std::string(name) + "\"");
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
    if (S_ISDIR(st.st_mode)) {
      if (owns_fd_) ::close(fd_);
      throw error(errc::io, "cannot read " + name_ + ": it is a directory");
    }
    if (S_ISREG(st.st_mode)) {
      size_hint_ = static_cast<std::uint64_t>(st.st_size);
      // Tell the kernel we read front to back, so it reads ahead further.
      (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  buffer_.resize(std::clamp<std::size_t>(buffer_bytes, 16, max_line_bytes));
}

line_reader::~line_reader() {
  if (owns_fd_) ::close(fd_);
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
      out = hash_key(value, spec_);
      return true;
    }
  }
  why_ = "unknown key format";
  return false;
}

namespace {

/// The number of '\n' bytes in [p, p + n). SSE2: each 16-byte compare gives
/// -1 per match, subtracted into byte counters that psadbw sums every 255
/// steps (before a byte counter could wrap). About wc -l's speed.
std::uint64_t count_newlines(const char* p, std::size_t n) noexcept {
  std::uint64_t total = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= n) {
    __m128i counters = zero;
    const std::size_t steps = std::min<std::size_t>((n - i) / 16, 255);
    for (std::size_t j = 0; j < steps; ++j, i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(bytes, nl));
    }
    const __m128i sums = _mm_sad_epu8(counters, zero);
    total += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < n; ++i) total += p[i] == '\n' ? 1 : 0;
  return total;
}

}  // namespace

std::uint64_t count_lines(line_reader& reader) {
  std::uint64_t lines = 0;
  bool ends_with_newline = true;
  for (std::string_view chunk = reader.next_chunk(); !chunk.empty(); chunk = reader.next_chunk()) {
    lines += count_newlines(chunk.data(), chunk.size());
    ends_with_newline = chunk.back() == '\n';
  }
  return lines + (ends_with_newline ? 0 : 1);
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
