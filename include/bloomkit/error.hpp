// bloomkit/error.hpp - the one exception type every bloomkit failure throws.
//
// Failures carry a machine-readable code (errc) beside the message so callers
// can branch on the kind of failure without parsing text, and a CLI can map
// them to exit codes (usage error vs data error).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace bloomkit {

/// What went wrong, coarsely. Stable: values may be added, never renumbered.
enum class errc : int {
  invalid_argument = 1,  ///< a parameter is out of its domain (p <= 0, n = 0, k = 0, NaN, ...)
  mismatch = 2,          ///< two filters (or a filter and a caller) disagree on kind, parameters or hash
  io = 3,                ///< the operating system refused a read, write, open, rename or map
  truncated = 4,         ///< input ended before a length field said it would
  corrupt = 5,           ///< a field holds a value that no valid writer produces
  checksum = 6,          ///< bytes were altered after they were written
  unsupported_version = 7,  ///< a format version newer than this reader understands
  unknown_kind = 8,      ///< a filter kind this reader does not know
  hash_mismatch = 9,     ///< the stored hash_spec differs from the one the caller expects
  construction_failed = 10,  ///< a static filter could not be built (e.g. retries exhausted)
  unsupported = 11,      ///< valid input that this build does not implement
  out_of_memory = 12,    ///< an allocation failed; the message names the bytes it needed
};

/// A short, stable name for a code ("invalid_argument", "checksum", ...).
constexpr std::string_view to_string(errc code) noexcept {
  switch (code) {
    case errc::invalid_argument: return "invalid_argument";
    case errc::mismatch: return "mismatch";
    case errc::io: return "io";
    case errc::truncated: return "truncated";
    case errc::corrupt: return "corrupt";
    case errc::checksum: return "checksum";
    case errc::unsupported_version: return "unsupported_version";
    case errc::unknown_kind: return "unknown_kind";
    case errc::hash_mismatch: return "hash_mismatch";
    case errc::construction_failed: return "construction_failed";
    case errc::unsupported: return "unsupported";
    case errc::out_of_memory: return "out_of_memory";
  }
  return "unknown";
}

/// The exception bloomkit throws. `what()` is a complete sentence naming the
/// parameter, field or file at fault; `code()` says which kind of failure.
class error : public std::runtime_error {
 public:
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] errc code() const noexcept { return code_; }

 private:
  errc code_;
};

/// A double for a message: the shortest %g form (6 to 17 significant
/// digits) that reads back as the same value, so 1e-17 prints as "1e-17",
/// never as std::to_string's "0.000000", and 0.1 as "0.1". NaN and the
/// infinities print as "nan", "inf", "-inf".
inline std::string format_number(double x) {
  char buffer[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
    if (x != x || std::strtod(buffer, nullptr) == x) break;
  }
  return buffer;
}

namespace detail {
/// Throws bloomkit::error(code, message) unless `condition` holds. The
/// message is a view so that a literal costs nothing when the check passes
/// (a std::string parameter would allocate one per call for messages past
/// the small-string buffer).
inline void require(bool condition, errc code, std::string_view message) {
  if (!condition) [[unlikely]] throw error(code, std::string(message));
}

/// require with the message built only when the check fails: for checks on
/// every call of a hot path (batch calls) whose message is assembled from
/// parts.
template <class MakeMessage>
  requires std::is_invocable_r_v<std::string, MakeMessage&>
inline void require(bool condition, errc code, MakeMessage&& make_message) {
  if (!condition) [[unlikely]] throw error(code, make_message());
}

using bloomkit::format_number;

/// How a parameter-domain check reports a violation. Each parameter set has
/// one validate(params, check): constructors pass {kind} (errc::invalid_argument,
/// "<kind>: <field> <detail>"), codecs pass {kind, errc::corrupt} (the file
/// format's wording, "bloomkit file: <kind> field '<field>' <detail>"), so a
/// filter and its codec can never disagree about what is valid.
struct param_check {
  std::string_view kind;
  errc code = errc::invalid_argument;

  /// Throws unless `ok`; `detail` continues the sentence after the field name.
  void operator()(bool ok, std::string_view field, const std::string& detail) const {
    if (ok) return;
    if (code == errc::corrupt) {
      throw error(code, "bloomkit file: " + std::string(kind) + " field '" + std::string(field) + "' " + detail);
    }
    throw error(code, std::string(kind) + ": " + std::string(field) + " " + detail);
  }
};
}  // namespace detail

}  // namespace bloomkit
