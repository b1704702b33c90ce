// tools/bloomkit/key_input.hpp - reading keys, one per line, fast.
//
// The CLI's keys come from files or stdin, one key per line, in one of three
// formats (--format):
//   text  the line's bytes, without the '\n'
//   hex   the line is an even number of hex digits (either case); the key is
//         the bytes they spell ("" is the empty key)
//   u64   the line is a decimal integer in [0, 2^64 - 1]; the key is that
//         uint64_t, hashed as its 8 little-endian bytes (hash.hpp)
//   i64   the line is a signed decimal integer in [-2^63, 2^63 - 1]; the
//         key is that int64_t, hashed as its 8 little-endian two's-complement
//         bytes: what Parquet INT64 columns hash, so an extracted filter can
//         be queried by value (-1 is the bytes ff ff ff ff ff ff ff ff)
//   int   the line is a decimal integer in [-2^63, 2^64 - 1], read as i64
//         when it starts with '-' and as u64 otherwise (the two agree where
//         both apply): the default for a file of int64 or int32 keys
//   f64   the line is a decimal (or hex-float, inf, nan) number that
//         std::from_chars reads as a double; the key is that double
//
// Key types (docs/KEYS.md): text and hex keys are `bytes`, u64, i64 and int
// keys are integers (`int64`), f64 keys are `float64`. A filter file that
// records a key type converts each key into it by hash_key's rules (an
// integer into an int32 file when it fits, ...); a format whose keys never
// convert into the file's type is refused before any work
// (require_format_fits), and a file's type picks the format when --format
// is not given (format_for).
//
// Line ends: '\n' ends a line. In every format ONE '\r' right before the
// '\n' (or before the end of the input) is removed, so files written with
// CRLF line ends give the same keys as with LF. A key that really ends in
// '\r' therefore cannot be given in text mode; use hex mode for it. A final
// line without '\n' is a key; a '\n' at the very end does not start another.
// Empty lines are keys too (the empty string in text and hex mode; an error
// in u64 mode), so the number of keys is the number of lines.
//
// Speed: input is read with read(2) into one 1 MiB buffer that is reused
// for the whole run (no iostreams, no allocation per key); lines are found
// with memchr and handed out as string_views into that buffer. A line longer
// than the buffer grows it, up to max_line_bytes.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <bit>
#include <cstddef>
#include <optional>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/hash_batch.hpp"

namespace bloomkit::cli {

/// The key formats of --format.
enum class key_format { text, hex, u64, i64, integer, f64 };

/// "text", "hex", "u64", "i64", "int" or "f64".
std::string_view to_string(key_format format) noexcept;

/// Parses a --format value; throws usage_error for anything else.
key_format parse_key_format(std::string_view name);

/// The key type a filter built from keys of `format` records (docs/KEYS.md):
/// bytes for text and hex, int64 for u64, i64 and int, float64 for f64.
key_type key_type_of(key_format format) noexcept;

/// The format that reads keys of a file of key type `type` when --format is
/// not given: text for bytes and for unspecified (files written before key
/// types, read exactly as before), int for int64 and int32, f64 for float64
/// and float32. Throws usage_error naming `file` for the types no format
/// writes (timestamp_us, date32).
key_format format_for(key_type type, std::string_view file);

/// Throws usage_error ("FILE holds int64 keys; --format text gives bytes")
/// unless keys of `format` convert into `type` by docs/KEYS.md's table
/// (every format fits an unspecified file). Values that do not convert
/// (2^40 into int32) are data errors found when each key is hashed.
void require_format_fits(key_format format, key_type type, std::string_view file);

/// The key format of a command that reads keys against `file` of key type
/// `type`: the --format it was given (`given`, after require_format_fits),
/// or format_for(type) when none was.
key_format format_against(const std::optional<std::string>& given, key_type type, std::string_view file);

/// The longest line (key) the reader accepts: 16 MiB.
inline constexpr std::size_t max_line_bytes = std::size_t{16} << 20;

/// Reads one input (a file, or stdin for "-") and hands out runs of whole
/// lines. Not copyable; closes the file when destroyed.
class line_reader {
 public:
  /// Opens `path` ("-" is stdin). Throws bloomkit::error(errc::io) naming
  /// the file when it cannot be opened or is a directory. `buffer_bytes` is
  /// the initial buffer (at least 16; tests and the fuzzer use small ones to
  /// make lines straddle reads).
  explicit line_reader(std::string path, std::size_t buffer_bytes = std::size_t{1} << 20);
  ~line_reader();
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;

  /// The next run of complete lines, each ending in '\n' except possibly the
  /// last line of the input. Empty when the input is exhausted. The view is
  /// valid until the next call. Throws errc::io on a read error and
  /// errc::invalid_argument for a line longer than max_line_bytes.
  std::string_view next_chunk();

  /// The name used in messages: the path, or "<stdin>".
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Bytes consumed so far.
  [[nodiscard]] std::uint64_t bytes_read() const noexcept { return bytes_read_; }
  /// The input's size in bytes if it is a regular file, else 0.
  [[nodiscard]] std::uint64_t size_hint() const noexcept { return size_hint_; }
  /// True when the input is a regular file, which can be read a second time
  /// (rewind()). Pipes, FIFOs, process substitutions (/dev/fd/N), terminals
  /// and character devices can be read only once.
  [[nodiscard]] bool rewindable() const noexcept { return regular_; }
  /// Starts over from the first byte (a regular file only; throws errc::io
  /// otherwise or when the seek fails).
  void rewind();
  /// The file's identity (device, inode), to tell whether an output path
  /// names this input (through any link).
  [[nodiscard]] std::uint64_t device() const noexcept { return device_; }
  [[nodiscard]] std::uint64_t inode() const noexcept { return inode_; }

 private:
  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // start of the bytes not yet handed out
  std::size_t end_ = 0;    // end of the bytes read into buffer_
  std::uint64_t bytes_read_ = 0;
  std::uint64_t size_hint_ = 0;
  bool regular_ = false;
  std::uint64_t start_offset_ = 0;
  std::uint64_t device_ = 0;
  std::uint64_t inode_ = 0;
};

/// Removes one trailing '\r' (see the CRLF rule above).
constexpr std::string_view strip_cr(std::string_view line) noexcept {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

/// Parses `line` (already without '\n' and '\r') as a decimal u64. Returns
/// false for an empty line, a non-digit, or a value above 2^64 - 1.
bool parse_u64(std::string_view line, std::uint64_t& value) noexcept;

/// Parses `line` whole as a double (std::from_chars: decimal or scientific,
/// "inf", "nan"). Returns false for an empty line or anything else.
bool parse_f64(std::string_view line, double& value) noexcept;

/// Parses `line` as a signed decimal i64 (an optional '-', then digits).
/// Returns false for an empty line, a non-digit, or a value out of range.
bool parse_i64(std::string_view line, std::int64_t& value) noexcept;

/// True for the formats whose keys print as JSON numbers (u64, i64, int).
constexpr bool is_integer_format(key_format format) noexcept {
  return format == key_format::u64 || format == key_format::i64 || format == key_format::integer;
}

/// Appends the key `line` of an integer format as a JSON number (the line
/// was validated when it was hashed).
void append_integer_key(std::string& out, key_format format, std::string_view line);

/// Decodes an even-length hex string into `out` (cleared first). Returns
/// false for an odd length or a non-hex digit.
bool parse_hex(std::string_view line, std::string& out);

/// Turns lines into key hashes for one format and hash_spec, reusing one
/// scratch buffer (no allocation per key in steady state).
class key_hasher {
 public:
  /// Throws bloomkit::error(invalid_argument) for a hash algorithm this
  /// build does not know.
  /// Throws usage_error unless keys of `format` convert into spec.keys
  /// (require_format_fits; commands check first, naming the file).
  key_hasher(key_format format, hash_spec spec) : format_(format), spec_(spec) {
    if (!is_known(spec.algorithm)) throw error(errc::invalid_argument, "unknown hash algorithm id");
    require_format_fits(format, spec.keys, "the filter");
  }

  /// Hashes one line (without its '\n', and with strip_cr already applied).
  /// Returns false, and leaves a reason in why(), when the line is not a key
  /// of this format. Text keys take an inlined path (no call, one branch on
  /// the algorithm): they are the common case and the hash is most of
  /// their cost.
  bool hash(std::string_view line, std::uint64_t& out) {
    if (format_ == key_format::text) {
      switch (spec_.algorithm) {
        case hash_algorithm::xxh3_64: out = XXH3_64bits_withSeed(line.data(), line.size(), spec_.seed); return true;
        case hash_algorithm::xxh64: out = XXH64(line.data(), line.size(), spec_.seed); return true;
      }
    }
    // Other formats; and text under an algorithm the constructor would have
    // refused, which hash_bytes refuses too (it throws).
    return hash_other(line, out);
  }

  /// Why the last hash() failed, e.g. "odd number of hex digits".
  [[nodiscard]] const char* why() const noexcept { return why_; }
  [[nodiscard]] key_format format() const noexcept { return format_; }
  [[nodiscard]] hash_spec spec() const noexcept { return spec_; }

 private:
  key_format format_;
  hash_spec spec_;
  bool hash_other(std::string_view line, std::uint64_t& out);

  /// out = hash_key(value, spec_): the value converted into the filter's key
  /// type. False, with hash_key's message (naming both types) in why(), for
  /// a value that does not convert exactly (2^40 into an int32 file).
  template <class V>
  bool hash_converted(V value, std::uint64_t& out) {
    try {
      out = hash_key(value, spec_);
      return true;
    } catch (const error& e) {
      why_text_ = e.what();
      why_ = why_text_.c_str();
      return false;
    }
  }

  std::string scratch_;
  std::string why_text_;  // a conversion's message (hash_key's errc::mismatch), why_ points into it
  const char* why_ = "";
};

/// `line` in double quotes for a message: at most 40 bytes, then "...";
/// quotes, backslashes and non-printable bytes escaped (\xNN).
std::string quote_for_message(std::string_view line);

/// Says "FILE:LINE: what (got "...")" with the offending line shortened and
/// its non-printable bytes escaped, for error messages.
std::string describe_bad_key(std::string_view source, std::uint64_t line_number, std::string_view what,
                             std::string_view line);

/// Walks every key of several inputs in batches: for each batch calls
/// `sink(std::span<const std::uint64_t> hashes, std::span<const std::string_view> lines)`
/// where lines[i] is the key as written (without '\n' and trailing '\r'),
/// valid only during the call. Inputs are read in order; a key that does
/// not parse throws bloomkit::error(errc::invalid_argument) naming the input
/// and its line. `on_progress(bytes_done_in_this_input, keys_so_far)` is
/// called after each batch.
/// True when text keys under `algorithm` are hashed a batch at a time, in
/// the library's string lanes (hash_batch.hpp); false when line by line.
/// XXH64 (split-block's Parquet hash) batches: its per-line path branches
/// on the length's remainder, the lanes do not. XXH3's scalar path is as
/// fast as its lanes on separate keys, so it stays per line.
constexpr bool batched_text_hash(hash_algorithm algorithm) noexcept {
  switch (algorithm) {
    case hash_algorithm::xxh64: return true;
    case hash_algorithm::xxh3_64: return false;
  }
  return false;
}

template <class Sink, class Progress>
std::uint64_t for_each_key_batch(line_reader& reader, key_hasher& hasher, Sink&& sink, Progress&& on_progress,
                                 std::uint64_t keys_before = 0);

/// The batch size of for_each_key_batch: enough keys that insert_many can
/// prefetch well ahead, few enough that the hashes stay in L1.
inline constexpr std::size_t key_batch_size = 2048;

// ---- implementation of the template --------------------------------------------

namespace lines {

/// Bit i set when p[i] == '\n', for the 64 bytes at p. SSE2 (part of every
/// x86-64) compares 16 bytes per instruction; elsewhere a byte loop the
/// compiler vectorises. One mask per 64 bytes, then one tzcnt per line,
/// costs less than a memchr call per line on short keys.
inline std::uint64_t newline_mask(const char* p) noexcept {
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  std::uint64_t mask = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    const auto bits = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, nl)));
    mask |= static_cast<std::uint64_t>(bits) << (16 * i);
  }
  return mask;
#else
  std::uint64_t mask = 0;
  for (int i = 0; i < 64; ++i) mask |= static_cast<std::uint64_t>(p[i] == '\n') << i;
  return mask;
#endif
}

/// Calls on_line(begin, end) for each line of `chunk` (a run of whole lines
/// from line_reader: every line ends in '\n' except perhaps the last).
template <class OnLine>
inline void split_lines(std::string_view chunk, OnLine&& on_line) {
  const char* const data = chunk.data();
  const std::size_t size = chunk.size();
  std::size_t start = 0;
  std::size_t i = 0;
  for (; i + 64 <= size; i += 64) {
    for (std::uint64_t m = newline_mask(data + i); m != 0; m &= m - 1) {
      const std::size_t nl = i + static_cast<std::size_t>(std::countr_zero(m));
      on_line(data + start, data + nl);
      start = nl + 1;
    }
  }
  for (; i < size; ++i) {
    if (data[i] == '\n') {
      on_line(data + start, data + i);
      start = i + 1;
    }
  }
  if (start < size) on_line(data + start, data + size);  // the last line, without '\n'
}

}  // namespace lines

template <class Sink, class Progress>
std::uint64_t for_each_key_batch(line_reader& reader, key_hasher& hasher, Sink&& sink, Progress&& on_progress,
                                 std::uint64_t keys_before) {
  std::uint64_t hashes[key_batch_size];
  std::string_view lines[key_batch_size];
  std::size_t n = 0;
  std::uint64_t line_number = 0;
  std::uint64_t keys = keys_before;
  const bool batch_hashed = hasher.format() == key_format::text && batched_text_hash(hasher.spec().algorithm);
  auto flush = [&] {
    if (batch_hashed) batch_hash_into(lines, n, hasher.spec(), hashes);
    sink(std::span<const std::uint64_t>(hashes, n), std::span<const std::string_view>(lines, n));
    keys += n;
    n = 0;
  };
  for (std::string_view chunk = reader.next_chunk(); !chunk.empty(); chunk = reader.next_chunk()) {
    lines::split_lines(chunk, [&](const char* begin, const char* end) {
      const std::string_view line = strip_cr(std::string_view(begin, static_cast<std::size_t>(end - begin)));
      ++line_number;
      if (!batch_hashed && !hasher.hash(line, hashes[n])) {
        throw error(errc::invalid_argument, describe_bad_key(reader.name(), line_number, hasher.why(), line));
      }
      lines[n] = line;
      if (++n == key_batch_size) {
        flush();
        on_progress(reader.bytes_read(), keys);
      }
    });
    // The views in lines[] point into this chunk: flush before reading on.
    if (n != 0) flush();
    on_progress(reader.bytes_read(), keys);
  }
  return keys - keys_before;
}

}  // namespace bloomkit::cli
