// bloomkit/shard_manifest_json.hpp - a sharded filter's manifest as JSON text, and back.
//
// JSON so that engines in any language can read it: every number is an
// integer below 2^53 except the checksums, which are 16 hex digits.
// docs/SCALE.md documents its fields. Reading uses nlohmann/json (its SAX
// parser), which the installed package declares for its `sharding`
// component (find_package(bloomkit COMPONENTS sharding), target
// bloomkit::sharding); nothing else in the library needs it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bloomkit/error.hpp"
#include "bloomkit/file_io.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/key_type.hpp"
#include "bloomkit/shard_layout.hpp"
#include "bloomkit/shard_manifest.hpp"

namespace bloomkit {

namespace detail {

// ---- the manifest's JSON, without nlohmann's DOM -------------------------------
// Why not nlohmann::json's DOM (json::parse, ordered_json::dump): its
// destructor frees a non-empty array or object by first moving the children
// onto a heap-allocated std::vector (nlohmann/json 3.11, json_value::destroy,
// to avoid deep recursion), inside a noexcept destructor. A failed allocation
// there calls std::terminate: the process ends instead of an error reaching
// the caller (the Python fault loop, python/tests/fault_driver.py, found it).
// So the reader keeps nlohmann's lexer and parser, through its SAX interface,
// and stores only the fields it knows in plain structs; the writer prints the
// fixed layout itself, with nlohmann's serializer for each string and double
// (a scalar json holds no container, so it frees nothing that allocates).
// The text is byte for byte what ordered_json::dump(1) gave
// (tests/sharding_test.cpp, ManifestTextIsNlohmannDump).

/// One JSON value at a known place in the manifest, as the SAX events gave it.
struct manifest_value {
  enum class type : std::uint8_t { missing, null, boolean, integer, unsigned_integer, floating, string, object, array };
  type t = type::missing;
  std::uint64_t u = 0;  ///< unsigned_integer
  double d = 0.0;       ///< any number, as json::get<double>() gives it
  std::string s;        ///< string
  [[nodiscard]] bool present() const noexcept { return t != type::missing; }
  [[nodiscard]] bool is_number() const noexcept {
    return t == type::integer || t == type::unsigned_integer || t == type::floating;
  }
};

/// The fields of one object the reader looks at, by name (names are few and
/// short, so a linear list; a repeated name keeps its last value, as the DOM).
struct manifest_object {
  std::vector<std::pair<std::string, manifest_value>> fields;
  bool is_object = true;  ///< false: a "files" entry that is not an object
  [[nodiscard]] const manifest_value* find(std::string_view name) const noexcept {
    for (const auto& f : fields) {
      if (f.first == name) return &f.second;
    }
    return nullptr;
  }
  manifest_value& slot(std::string_view name) {
    for (auto& f : fields) {
      if (f.first == name) {
        f.second = manifest_value{};
        return f.second;
      }
    }
    fields.emplace_back(std::string(name), manifest_value{});
    return fields.back().second;
  }
};

/// nlohmann's SAX handler for the manifest: root object fields, the "hash"
/// object's fields and each "files" entry's fields are kept; anything else
/// (unknown keys, deeper values) is skipped by counting its nesting, so no
/// input makes this recurse or hold more than the known fields.
class manifest_sax {
 public:
  using json = nlohmann::json;
  manifest_object root;
  manifest_object hash;
  std::vector<manifest_object> files;
  bool root_is_object = false;

  bool null() { return scalar(manifest_value::type::null); }
  bool boolean(bool) { return scalar(manifest_value::type::boolean); }
  bool number_integer(json::number_integer_t v) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::integer;
      at->d = static_cast<double>(v);
    }
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::unsigned_integer;
      at->u = v;
      at->d = static_cast<double>(v);
    }
    return true;
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::floating;
      at->d = v;
    }
    return true;
  }
  bool string(json::string_t& v) {
    manifest_value* at = place();
    if (at != nullptr) {
      at->t = manifest_value::type::string;
      at->s = std::move(v);
    }
    return true;
  }
  bool binary(json::binary_t&) { return scalar(manifest_value::type::null); }  // not produced by the JSON parser
  bool start_object(std::size_t) {
    if (skip_ > 0) return ++skip_, true;
    const place_kind where = here();
    if (where == place_kind::top) {
      root_is_object = true;
      stack_.push_back(level::root);
    } else if (where == place_kind::root_field && key_ == "hash") {
      hash = manifest_object{};
      root.slot("hash").t = manifest_value::type::object;
      stack_.push_back(level::hash);
    } else if (where == place_kind::files_item) {
      files.emplace_back();
      stack_.push_back(level::entry);
    } else {
      skip_container(manifest_value::type::object);
    }
    return true;
  }
  bool end_object() { return close_container(); }
  bool start_array(std::size_t) {
    if (skip_ > 0) return ++skip_, true;
    const place_kind where = here();
    if (where == place_kind::root_field && key_ == "files") {
      files.clear();
      root.slot("files").t = manifest_value::type::array;
      stack_.push_back(level::files);
    } else {
      skip_container(manifest_value::type::array);
    }
    return true;
  }
  bool end_array() { return close_container(); }
  bool key(json::string_t& k) {
    if (skip_ == 0) key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  enum class level : std::uint8_t { root, hash, files, entry };
  enum class place_kind : std::uint8_t { top, root_field, hash_field, files_item, entry_field };
  std::vector<level> stack_;
  std::string key_;
  std::size_t skip_ = 0;  ///< > 0: inside a skipped container, this deep

  [[nodiscard]] place_kind here() const noexcept {
    if (stack_.empty()) return place_kind::top;
    switch (stack_.back()) {
      case level::root: return place_kind::root_field;
      case level::hash: return place_kind::hash_field;
      case level::files: return place_kind::files_item;
      case level::entry: break;
    }
    return place_kind::entry_field;
  }
  /// A container the reader does not look into: its place (if known) records
  /// its type, and its contents are skipped.
  void skip_container(manifest_value::type t) {
    if (manifest_value* at = place()) at->t = t;
    skip_ = 1;
  }
  /// The end of an object or array: one level up, or out of a skipped one.
  bool close_container() {
    if (skip_ > 0) return --skip_, true;
    stack_.pop_back();
    return true;
  }
  /// Where the value that starts now is kept (nullptr: it is skipped).
  manifest_value* place() {
    if (skip_ > 0) return nullptr;
    switch (here()) {
      case place_kind::top: return nullptr;  // a root that is not an object
      case place_kind::root_field: return known(root_names) ? &root.slot(key_) : nullptr;
      case place_kind::hash_field: return known(hash_names) ? &hash.slot(key_) : nullptr;
      case place_kind::files_item: files.emplace_back().is_object = false; return nullptr;
      case place_kind::entry_field: return known(entry_names) ? &files.back().slot(key_) : nullptr;
    }
    return nullptr;
  }
  /// Only the names the reader asks for are kept, so an object with many
  /// other keys costs no more than skipping them.
  static constexpr std::string_view root_names[] = {"format", "version", "kind",       "hash",   "blocks", "k",
                                                    "capacity", "target_fpr", "shards", "files", "inserted"};
  static constexpr std::string_view hash_names[] = {"algorithm", "seed", "key_type"};
  static constexpr std::string_view entry_names[] = {"index", "file", "first_block", "blocks", "inserted", "bytes", "xxh3"};
  template <std::size_t N>
  [[nodiscard]] bool known(const std::string_view (&names)[N]) const noexcept {
    return std::find(std::begin(names), std::end(names), key_) != std::end(names);
  }
  bool scalar(manifest_value::type t) {
    if (manifest_value* at = place()) at->t = t;
    return true;
  }
};

/// nlohmann's text for one string or double (its escaping and its shortest
/// round-trip number format, as dump() writes them inside an object).
template <class T>
std::string json_scalar(const T& v) {
  return nlohmann::json(v).dump();
}

}  // namespace detail

/// The manifest as JSON text (one object; keys in a fixed order, one space
/// of indent per level: the text ordered_json::dump(1) gives).
inline std::string manifest_to_json(const shard_manifest& m) {
  using detail::json_scalar;
  const auto u = [](std::uint64_t v) { return std::to_string(v); };
  std::string out;
  out += "{\n \"format\": \"bloomkit-sharded\",\n \"version\": 1,\n \"kind\": " + json_scalar(m.kind) + ",\n";
  // "key_type" only for a typed filter, so an untyped manifest is the text it always was.
  out += " \"hash\": {\n  \"algorithm\": " + json_scalar(std::string(to_string(m.whole.hash.algorithm))) +
         ",\n  \"seed\": " + u(m.whole.hash.seed) +
         (m.whole.hash.keys == key_type::unspecified
              ? std::string()
              : ",\n  \"key_type\": " + json_scalar(std::string(to_string(m.whole.hash.keys)))) +
         "\n },\n";
  out += " \"blocks\": " + u(m.whole.blocks) + ",\n \"k\": " + u(m.whole.k) + ",\n \"capacity\": " +
         u(m.whole.capacity) + ",\n \"target_fpr\": " + json_scalar(m.whole.target_fpr) + ",\n \"shards\": " +
         u(m.shards) + ",\n \"inserted\": " + u(m.inserted()) + ",\n \"files\": ";
  if (m.entries.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    for (std::size_t i = 0; i < m.entries.size(); ++i) {
      const shard_entry& e = m.entries[i];
      out += "  {\n   \"index\": " + u(e.index) + ",\n   \"file\": " + json_scalar(e.file) + ",\n   \"first_block\": " +
             u(e.first_block) + ",\n   \"blocks\": " + u(e.blocks) + ",\n   \"inserted\": " + u(e.inserted) +
             ",\n   \"bytes\": " + u(e.file_bytes) + ",\n   \"xxh3\": \"" + detail::hex16(e.checksum) + "\"\n  }";
      out += i + 1 < m.entries.size() ? ",\n" : "\n";
    }
    out += " ]";
  }
  out += "\n}\n";
  return out;
}

/// Parses manifest JSON. `where` names the source in errors. Throws
/// errc::corrupt for text that is not a valid manifest (naming the field),
/// errc::unsupported_version for a newer version, errc::unsupported for a
/// kind that cannot be sharded; std::bad_alloc where memory runs out (never
/// std::terminate: see detail::manifest_sax).
inline shard_manifest manifest_from_json(std::string_view text, const std::string& where = "(text)") {
  using value = detail::manifest_value;
  detail::manifest_sax sax;
  const bool parsed = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  if (!parsed || !sax.root_is_object) detail::manifest_fail(errc::corrupt, where, "it is not a JSON object");
  auto field = [&](const detail::manifest_object& obj, const char* name) -> const value& {
    const value* v = obj.find(name);
    if (v == nullptr) detail::manifest_fail(errc::corrupt, where, std::string("field '") + name + "' is missing");
    return *v;
  };
  auto unsigned_field = [&](const detail::manifest_object& obj, const char* name, std::uint64_t max) -> std::uint64_t {
    const value& v = field(obj, name);
    if (v.t != value::type::unsigned_integer || v.u > max) {
      detail::manifest_fail(errc::corrupt, where, std::string("field '") + name + "' must be an integer in [0, " +
                                                      std::to_string(max) + "]");
    }
    return v.u;
  };
  auto string_field = [&](const detail::manifest_object& obj, const char* name) -> std::string {
    const value& v = field(obj, name);
    if (v.t != value::type::string) detail::manifest_fail(errc::corrupt, where, std::string("field '") + name + "' must be a string");
    return v.s;
  };
  const detail::manifest_object& j = sax.root;
  if (string_field(j, "format") != "bloomkit-sharded") {
    detail::manifest_fail(errc::corrupt, where, "field 'format' is not \"bloomkit-sharded\"");
  }
  const std::uint64_t version = unsigned_field(j, "version", UINT32_MAX);
  if (version != 1) {
    detail::manifest_fail(errc::unsupported_version, where, "version " + std::to_string(version) +
                                                                " is newer than this reader (1)");
  }
  shard_manifest m;
  m.kind = string_field(j, "kind");
  if (field(j, "hash").t != value::type::object) detail::manifest_fail(errc::corrupt, where, "field 'hash' must be an object");
  const std::string algorithm = string_field(sax.hash, "algorithm");
  const auto named = hash_algorithm_named(algorithm);
  if (!named) detail::manifest_fail(errc::corrupt, where, "unknown hash algorithm '" + algorithm + "'");
  m.whole.hash.algorithm = *named;
  m.whole.hash.seed = unsigned_field(sax.hash, "seed", UINT64_MAX);
  if (sax.hash.find("key_type") != nullptr) {  // absent: an untyped filter (every manifest before key types)
    const auto keys = parse_key_type(string_field(sax.hash, "key_type"));
    if (!keys || *keys == key_type::unspecified) {
      detail::manifest_fail(errc::corrupt, where, "field 'key_type' names no key type (docs/KEYS.md)");
    }
    m.whole.hash.keys = *keys;
  }
  m.whole.blocks = unsigned_field(j, "blocks", UINT64_MAX);
  m.whole.k = static_cast<std::uint32_t>(unsigned_field(j, "k", 64));
  m.whole.capacity = unsigned_field(j, "capacity", UINT64_MAX);
  const value& fpr = field(j, "target_fpr");
  if (!fpr.is_number()) detail::manifest_fail(errc::corrupt, where, "field 'target_fpr' must be a number");
  m.whole.target_fpr = fpr.d;
  m.shards = static_cast<std::uint32_t>(unsigned_field(j, "shards", shard_layout::max_shards));
  if (field(j, "files").t != value::type::array) detail::manifest_fail(errc::corrupt, where, "field 'files' must be an array");
  for (const auto& f : sax.files) {
    if (!f.is_object) detail::manifest_fail(errc::corrupt, where, "every entry of 'files' must be an object");
    shard_entry e;
    e.index = static_cast<std::uint32_t>(unsigned_field(f, "index", UINT32_MAX));
    e.file = string_field(f, "file");
    e.first_block = unsigned_field(f, "first_block", UINT64_MAX);
    e.blocks = unsigned_field(f, "blocks", UINT64_MAX);
    e.inserted = unsigned_field(f, "inserted", UINT64_MAX);
    e.file_bytes = unsigned_field(f, "bytes", UINT64_MAX);
    const std::string sum = string_field(f, "xxh3");
    if (sum.size() != 16 || sum.find_first_not_of("0123456789abcdef") != std::string::npos) {
      detail::manifest_fail(errc::corrupt, where, "shard " + std::to_string(e.index) + ": 'xxh3' must be 16 hex digits");
    }
    e.checksum = std::stoull(sum, nullptr, 16);
    m.entries.push_back(std::move(e));
  }
  detail::validate_manifest(m, where);
  if (const value* total = j.find("inserted");
      total != nullptr && (total->t != value::type::unsigned_integer || total->u != m.inserted())) {
    detail::manifest_fail(errc::corrupt, where, "field 'inserted' is not the sum of the shards' counts");
  }
  return m;
}

/// Writes the manifest to `path` atomically (temporary file + rename).
inline void write_manifest(const shard_manifest& m, const std::filesystem::path& path) {
  const std::string text = manifest_to_json(m);
  atomic_file_writer out(path);
  out.write(std::as_bytes(std::span<const char>(text.data(), text.size())));
  out.commit();
}

/// Reads and validates the manifest at `path` (errc::io if unreadable,
/// otherwise as manifest_from_json, naming the path).
inline shard_manifest read_manifest(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error::from_library(errc::io, "cannot read manifest", path.string(), "");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw error::from_library(errc::io, "reading manifest", path.string(), " failed");
  return manifest_from_json(text.str(), "'" + path.string() + "'");
}

}  // namespace bloomkit
