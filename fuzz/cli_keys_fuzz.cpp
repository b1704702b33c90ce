// fuzz/cli_keys_fuzz.cpp - the CLI's parsers of untrusted bytes: the key
// file reader (lines, CRLF, the text/hex/u64/i64 formats) and the JSON string
// escaper used by `query --json`.
//
// Properties checked on every input, besides "no crash, no sanitizer report":
//   * the reader yields one line per '\n' (plus an unterminated last one),
//     none holding a '\n',
//     and the lines joined back with '\n' give the input (minus the one '\r'
//     per line the CRLF rule drops);
//   * a key that parses hashes the same as its canonical form (hex: the
//     decoded bytes; u64: the number's 8 little-endian bytes);
//   * hex and u64 parsing round-trip;
//   * the JSON escaper always produces valid UTF-8 with no raw control byte.
// The CLI sources are compiled in directly (the fuzz preset builds no CLI).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "../tools/bloomkit/json_out.hpp"
#include "../tools/bloomkit/key_input.cpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void check_reader(const std::string& path, std::string_view input, bloomkit::cli::key_format format,
                  std::size_t buffer_bytes) {
  using namespace bloomkit::cli;
  // The oracle: one line per '\n', plus an unterminated last line.
  const std::uint64_t expected_lines = static_cast<std::uint64_t>(std::count(input.begin(), input.end(), '\n')) +
                                       (!input.empty() && input.back() != '\n' ? 1 : 0);
  line_reader reader(path, buffer_bytes);
  const bloomkit::hash_spec spec{bloomkit::hash_algorithm::xxh3_64, 7};
  key_hasher hasher(format, spec);
  std::string rebuilt;
  std::uint64_t lines = 0;
  try {
    const std::uint64_t keys = for_each_key_batch(
        reader, hasher,
        [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view> batch) {
          for (std::size_t i = 0; i < batch.size(); ++i) {
            const std::string_view line = batch[i];
            check(line.find('\n') == std::string_view::npos);
            rebuilt.append(line);
            rebuilt += '\n';
            ++lines;
            std::string bytes;
            std::uint64_t value = 0;
            switch (format) {
              case key_format::text:
                check(hashes[i] == bloomkit::hash_bytes(line.data(), line.size(), spec));
                break;
              case key_format::hex:
                check(parse_hex(line, bytes));
                check(hashes[i] == bloomkit::hash_bytes(bytes.data(), bytes.size(), spec));
                {
                  static constexpr char digits[] = "0123456789abcdef";
                  std::string again;
                  for (const char c : bytes) {
                    again += digits[static_cast<unsigned char>(c) >> 4];
                    again += digits[static_cast<unsigned char>(c) & 15];
                  }
                  check(again == lower(line));
                }
                break;
              case key_format::u64:
                check(parse_u64(line, value));
                check(hashes[i] == bloomkit::hash_key(value, spec));
                {
                  const auto first = line.find_first_not_of('0');
                  const std::string_view digits = first == std::string_view::npos ? "0" : line.substr(first);
                  check(std::to_string(value) == digits);
                }
                break;
              case key_format::i64: {
                std::int64_t signed_value = 0;
                check(parse_i64(line, signed_value));
                check(hashes[i] == bloomkit::hash_key(signed_value, spec));
                // Canonical form: optional '-', no leading zeros ("-0" is 0).
                const bool negative = !line.empty() && line[0] == '-';
                const std::string_view body = negative ? line.substr(1) : line;
                const auto first = body.find_first_not_of('0');
                const std::string digits = first == std::string_view::npos ? "0" : std::string(body.substr(first));
                const std::string expected = (negative && digits != "0" ? "-" : "") + digits;
                check(std::to_string(signed_value) == expected);
                break;
              }
              case key_format::integer: {
                // Either sign: an i64 when it fits, else the u64 bit pattern (docs/KEYS.md).
                std::int64_t signed_value = 0;
                if (parse_i64(line, signed_value)) {
                  check(hashes[i] == bloomkit::hash_key(signed_value, spec));
                } else {
                  check(parse_u64(line, value));
                  check(hashes[i] == bloomkit::hash_key(value, spec));
                }
                break;
              }
              case key_format::f64: {
                double real = 0;
                check(parse_f64(line, real));
                check(hashes[i] == bloomkit::hash_key(real, spec));
                break;
              }
            }
          }
        },
        [](std::uint64_t, std::uint64_t) {});
    check(keys == lines);
    check(lines == expected_lines);
    // The lines joined with '\n' are the input with a final '\n' added if it
    // lacked one, and one '\r' dropped before each '\n'.
    std::string terminated(input);
    if (!terminated.empty() && terminated.back() != '\n') terminated += '\n';
    std::string normalised;
    for (std::size_t i = 0; i < terminated.size(); ++i) {
      if (terminated[i] == '\r' && terminated[i + 1] == '\n') continue;  // i + 1 exists: it ends in '\n'
      normalised += terminated[i];
    }
    check(rebuilt == normalised);
  } catch (const bloomkit::error& e) {
    // Bad keys are reported, with the line, as invalid_argument.
    check(format != key_format::text);
    check(e.code() == bloomkit::errc::invalid_argument);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  // The JSON escaper: valid UTF-8 out, whatever comes in.
  std::string json;
  bloomkit::cli::append_json_string(json, input);
  check(bloomkit::cli::is_valid_utf8(json));
  for (const char c : json) check(static_cast<unsigned char>(c) >= 0x20);

  // The reader, through a memory file (no disk), in each format.
  const int fd = ::memfd_create("keys", 0);
  if (fd < 0) return 0;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t put = ::write(fd, data + done, size - done);
    if (put <= 0) break;
    done += static_cast<std::size_t>(put);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  for (const auto format : {bloomkit::cli::key_format::text, bloomkit::cli::key_format::hex,
                            bloomkit::cli::key_format::u64, bloomkit::cli::key_format::i64,
                            bloomkit::cli::key_format::integer, bloomkit::cli::key_format::f64}) {
    // A tiny buffer makes lines straddle reads and the buffer grow; the
    // first input byte picks its size so both paths get fuzzed.
    check_reader(path, input, format, size > 0 ? 16 + (data[0] & 63) : 16);
  }
  ::close(fd);
  return 0;
}
