// bloomkit/error.hpp - the one exception type every bloomkit failure throws.
//
// Failures carry a machine-readable code (errc) beside the message so callers
// can branch on the kind of failure without parsing text, and a CLI can map
// them to exit codes (usage error vs data error). The message is kept in
// parts (who speaks, the file it is about, the files it names, the filter
// kind and the field at fault, the context an outer layer added), so each
// shell formats its own line from them.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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

/// Who speaks in a message, which is how what() introduces it: the library
/// ("bloomkit: ..."), the file-format reader ("bloomkit file: ...").
enum class error_origin : unsigned char { library, file_format };

/// One part of an error's message. what() joins the parts into the text a
/// library caller reads; a shell formats its own line from the same parts
/// (tools/bloomkit/main.cpp), so no one edits message text.
struct error_part {
  enum class role_t : unsigned char {
    text,     ///< words, as they are
    origin,   ///< who speaks from here on: "bloomkit: " or "bloomkit file: " in what()
    mention,  ///< a file named inside a sentence: " 'FILE'" in what()
    subject,  ///< the file the rest is about: "'FILE': " in what()
    kind,     ///< the filter kind at fault ("standard_bloom"), as it is in what()
    field,    ///< the parameter or file field at fault ("k"), as it is in what()
  };
  role_t role = role_t::text;
  std::string value;  ///< the words, or the file's path; empty for origin
  error_origin origin = error_origin::library;  ///< for role::origin

  [[nodiscard]] static error_part words(std::string text) { return {role_t::text, std::move(text)}; }
  [[nodiscard]] static error_part from(error_origin o) { return {role_t::origin, {}, o}; }
  [[nodiscard]] static error_part mentioning(std::string path) { return {role_t::mention, std::move(path)}; }
  [[nodiscard]] static error_part about(std::string path) { return {role_t::subject, std::move(path)}; }
  [[nodiscard]] static error_part of_kind(std::string name) { return {role_t::kind, std::move(name)}; }
  [[nodiscard]] static error_part naming_field(std::string name) { return {role_t::field, std::move(name)}; }
};

/// The exception bloomkit throws. `what()` is a complete sentence naming the
/// parameter, field or file at fault; `code()` says which kind of failure;
/// `parts()` holds the same message in parts: who speaks, the file it is
/// about, the files it names and the words between, with any context an
/// outer layer put around an inner error.
class error : public std::runtime_error {
 public:
  using part = error_part;

  /// An error whose what() is `message`, as given.
  error(errc code, const std::string& message) : error(code, std::vector<part>{part::words(message)}) {}
  /// An error of these parts.
  error(errc code, std::vector<part> parts)
      : std::runtime_error(joined(parts)), code_(code), parts_(std::make_shared<const std::vector<part>>(std::move(parts))) {}

  /// "bloomkit: <sentence>": the library speaking.
  [[nodiscard]] static error from_library(errc code, std::string sentence) {
    return error(code, {part::from(error_origin::library), part::words(std::move(sentence))});
  }
  /// "bloomkit: <lead> 'PATH'<rest>": the library speaking of a file.
  [[nodiscard]] static error from_library(errc code, std::string lead, std::string path, std::string rest) {
    return error(code, {part::from(error_origin::library), part::words(std::move(lead)),
                        part::mentioning(std::move(path)), part::words(std::move(rest))});
  }
  /// "bloomkit file: <sentence>": the file-format reader speaking.
  [[nodiscard]] static error from_file_format(errc code, std::string sentence) {
    return error(code, {part::from(error_origin::file_format), part::words(std::move(sentence))});
  }
  /// `inner` about the file `path`: "'PATH': <inner>", same code.
  [[nodiscard]] static error about_file(const std::string& path, const error& inner) {
    return inner.within({part::about(path)});
  }
  /// `inner` behind `context` (and before `after`), same code:
  /// "<context><inner><after>".
  [[nodiscard]] static error in_context(const std::string& context, const error& inner, const std::string& after = {}) {
    return inner.within({part::words(context)}, after);
  }
  /// As in_context, with the code `code`.
  [[nodiscard]] static error in_context(errc code, const std::string& context, const error& inner) {
    return inner.within({part::words(context)}, {}, code);
  }
  /// As in_context with a code, the context spoken by `origin` ("bloomkit: <context><inner>").
  [[nodiscard]] static error in_context(errc code, error_origin origin, const std::string& context, const error& inner) {
    return inner.within({part::from(origin), part::words(context)}, {}, code);
  }

  [[nodiscard]] errc code() const noexcept { return code_; }
  [[nodiscard]] const std::vector<part>& parts() const noexcept { return *parts_; }

  /// The filter kind the message is about, or "" when it names none.
  [[nodiscard]] std::string_view kind() const noexcept { return first(part::role_t::kind); }
  /// The parameter or file field at fault, or "" when it names none.
  [[nodiscard]] std::string_view field() const noexcept { return first(part::role_t::field); }
  /// The file the message is about, else the first file it names, or "".
  [[nodiscard]] std::string_view file() const noexcept {
    const std::string_view subject = first(part::role_t::subject);
    return subject.empty() ? first(part::role_t::mention) : subject;
  }

 private:
  /// This error's parts behind `before` and before `after`.
  [[nodiscard]] error within(std::vector<part> before, const std::string& after = {}) const {
    return within(std::move(before), after, code_);
  }
  [[nodiscard]] error within(std::vector<part> before, const std::string& after, errc code) const {
    before.insert(before.end(), parts_->begin(), parts_->end());
    if (!after.empty()) before.push_back(part::words(after));
    return error(code, std::move(before));
  }
  [[nodiscard]] std::string_view first(part::role_t role) const noexcept {
    for (const part& p : *parts_) {
      if (p.role == role) return p.value;
    }
    return {};
  }
  static std::string joined(const std::vector<part>& parts) {
    std::string out;
    for (const part& p : parts) {
      switch (p.role) {
        case part::role_t::text: out += p.value; break;
        case part::role_t::origin: out += p.origin == error_origin::library ? "bloomkit: " : "bloomkit file: "; break;
        case part::role_t::mention: out += " '" + p.value + "'"; break;
        case part::role_t::subject: out += "'" + p.value + "': "; break;
        case part::role_t::kind:
        case part::role_t::field: out += p.value; break;
      }
    }
    return out;
  }

  errc code_;
  std::shared_ptr<const std::vector<part>> parts_;  // shared: copying an exception must not throw
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
/// filter and its codec can never disagree about what is valid. The kind and
/// the field travel as parts of their own (error::kind(), error::field()).
struct param_check {
  std::string_view kind;
  errc code = errc::invalid_argument;

  /// Throws unless `ok`; `detail` continues the sentence after the field name.
  void operator()(bool ok, std::string_view field, const std::string& detail) const {
    if (ok) return;
    using part = error_part;
    if (code == errc::corrupt) {
      throw error(code, {part::from(error_origin::file_format), part::of_kind(std::string(kind)),
                         part::words(" field '"), part::naming_field(std::string(field)), part::words("' " + detail)});
    }
    throw error(code, {part::of_kind(std::string(kind)), part::words(": "), part::naming_field(std::string(field)),
                       part::words(" " + detail)});
  }
};
}  // namespace detail

}  // namespace bloomkit
