// tools/bloomkit/time_window_input.hpp - time windows on the command line:
// `build --kind window --window N --window-seconds T` and `dedupe --kind
// window --window N --window-seconds T` check their options, plan their
// filter and read their TIME<TAB>KEY lines with these, so both commands
// accept and refuse exactly the same things.
//
// Every input line is TIME<TAB>KEY: TIME a whole number of seconds on the
// caller's clock (Unix time, or any integer clock in the unit of
// --window-seconds), never decreasing over the inputs in order; KEY in
// --format. A line without a TAB, a TIME that is not a whole number in
// [0, 2^64 - 1] (a '-' included), a TIME before the one above it, or a KEY
// that does not parse is an error naming the file and line (exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file_format.hpp"
#include "commands.hpp"
#include "key_input.hpp"

namespace bloomkit::cli {

/// Usage errors (exit 1) for --window-seconds T: only with --kind window,
/// T >= 1 (a signed option, so "-5" is refused here instead of wrapping),
/// not with k-mer input. Nothing to check when T is absent.
inline void check_window_seconds(filter_kind kind, const std::optional<std::int64_t>& window_seconds, bool sequences) {
  if (!window_seconds) return;
  if (kind != filter_kind::age_partitioned_bloom) {
    throw usage_error("--window-seconds applies to --kind window only (with --window N, the most keys in any "
                      "window of that many seconds)");
  }
  if (*window_seconds <= 0) {
    throw usage_error("--window-seconds must be at least 1, got " + std::to_string(*window_seconds));
  }
  if (sequences) throw usage_error("--window-seconds reads TIME<TAB>KEY lines; it does not combine with --kmer");
}

/// Walks the TIME<TAB>KEY lines of `reader`, calling
/// `on_line(time, hash, line)` for each (line without '\n' and a trailing
/// '\r', valid during the call). `latest` is the clock so far (the filter's
/// state().now before the first input) and is advanced to each TIME; a
/// line that breaks the rules above throws errc::invalid_argument naming
/// `reader.name()` and the line. `on_chunk()` runs after each chunk read.
template <class Reader, class OnLine, class OnChunk>
void for_each_timed_line(Reader& reader, key_hasher& hasher, std::uint64_t& latest, OnLine&& on_line,
                         OnChunk&& on_chunk) {
  std::uint64_t line_number = 0;
  for (std::string_view chunk = reader.next_chunk(); !chunk.empty(); chunk = reader.next_chunk()) {
    lines::split_lines(chunk, [&](const char* begin, const char* end) {
      const std::string_view line = strip_cr(std::string_view(begin, static_cast<std::size_t>(end - begin)));
      ++line_number;
      const auto bad = [&](const std::string& why) {
        return error(errc::invalid_argument, describe_bad_key(reader.name(), line_number, why, line));
      };
      const std::size_t tab = line.find('\t');
      if (tab == std::string_view::npos) throw bad("no TAB: --window-seconds reads TIME<TAB>KEY lines");
      std::uint64_t time = 0;
      if (!parse_u64(line.substr(0, tab), time)) {
        throw bad("the TIME before the TAB is not a whole number of seconds in [0, 2^64 - 1]");
      }
      if (time < latest) {
        throw bad("TIME " + std::to_string(time) + " is before the line above it (" + std::to_string(latest) +
                  "): the times must never decrease (sort -n the input)");
      }
      std::uint64_t h = 0;
      if (!hasher.hash(line.substr(tab + 1), h)) throw bad(hasher.why());
      latest = time;
      on_line(time, h, line);
    });
    on_chunk();
  }
}

}  // namespace bloomkit::cli
