// bloomkit/file_format.hpp - save, load, view and inspect every filter kind in
// one portable, versioned, checksummed file format (docs/FORMAT.md).
//
//   bloomkit::save(filter, "keys.bkf");                 // temp file + fsync + rename
//   auto any   = bloomkit::load("keys.bkf");            // std::variant of every kind
//   auto bloom = bloomkit::load_as<blocked_bloom>(bytes, my_hash_spec);
//   bloomkit::mapped_file file("keys.bkf");             // read-only mmap
//   auto v     = bloomkit::view(file.bytes());          // queries in place, no copy
//   auto info  = bloomkit::inspect(file.bytes());       // header facts, checksum_ok
//   auto f = bloomkit::load("x.bin", bloomkit::any_format);    // bloomkit's kinds or Spark's/Guava's
//   auto m = bloomkit::open_mapped("x.bin", bloomkit::any_format);  // the same, zero-copy
//   auto s = bloomkit::load_as<bloomkit::spark_bloom>("spark.bin"); // one JVM kind, typed
//
// A file is: a 72-byte fixed header (magic, version, kind, hash_spec, lengths,
// counters, payload checksum), the kind's parameters, zero padding, an XXH3-64
// checksum of all that, then the payload (the filter's words, little-endian)
// starting at a multiple of 64 bytes. Readers check every field before they
// trust it, so bad bytes give a bloomkit::error naming the field, never a huge
// allocation or a read past the end.
//
//
// The codecs and the kind registry are in format/ (format/registry.hpp has
// the recipe for adding a kind); the POSIX plumbing is file_io.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/file_io.hpp"
#include "bloomkit/format/jvm_streams.hpp"
#include "bloomkit/format/registry.hpp"

namespace bloomkit {

// ---- saving -------------------------------------------------------------------

/// The exact size in bytes of the file save() writes for `filter`.
template <serializable_filter Filter>
std::uint64_t saved_size(const Filter& filter) {
  return detail::format::encoded_size(filter);
}

/// Writes `filter` (a filter or a view) to `out` in the bloomkit format.
/// Throws errc::io if the stream fails; `out` may then hold a partial file.
template <serializable_filter Filter>
void save(const Filter& filter, std::ostream& out) {
  detail::format::encode(filter, [&out](std::span<const std::byte> chunk) {
    out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(chunk.size()));
    if (!out) throw error::from_library(errc::io, "writing the filter to the output stream failed");
  });
}

/// The file for `filter` as bytes (exactly saved_size(filter) of them).
template <serializable_filter Filter>
std::vector<std::byte> save_to_bytes(const Filter& filter) {
  std::vector<std::byte> bytes;
  bytes.reserve(detail::format::encoded_size(filter));
  detail::format::encode(filter, [&bytes](std::span<const std::byte> chunk) {
    bytes.insert(bytes.end(), chunk.begin(), chunk.end());
  });
  return bytes;
}

/// Saves `filter` to `path`: writes a temporary file in the same folder
/// (".NAME.tmp.PID.N.STAMP"), fsyncs it and renames it over `path`, so
/// `path` never holds a partial filter, even after a crash; readers that
/// mapped the old file keep it. Throws errc::io naming `path` (missing or
/// read-only folder, full disk, `path` a folder), leaving no temporary file
/// behind and the previous file at `path` as it was. EINTR is retried.
/// Before writing, it removes temporary files of earlier saves to the same
/// name whose process no longer exists (a SIGKILL mid-save); see
/// remove_unfinished_saves() for signals a process can catch.
template <serializable_filter Filter>
void save(const Filter& filter, const std::filesystem::path& path) {
  atomic_file_writer file(path);
  detail::format::encode(filter, [&file](std::span<const std::byte> chunk) { file.write(chunk); });
  file.commit();
}

/// save() for whichever filter `filter` holds.
inline void save(const any_filter& filter, const std::filesystem::path& path) {
  std::visit([&](const auto& f) { save(f, path); }, filter);
}
inline void save(const any_filter& filter, std::ostream& out) {
  std::visit([&](const auto& f) { save(f, out); }, filter);
}
inline std::vector<std::byte> save_to_bytes(const any_filter& filter) {
  return std::visit([](const auto& f) { return save_to_bytes(f); }, filter);
}
inline std::uint64_t saved_size(const any_filter& filter) {
  return std::visit([](const auto& f) { return saved_size(f); }, filter);
}
inline void save(const any_filter_view& filter, const std::filesystem::path& path) {
  std::visit([&](const auto& f) { save(f, path); }, filter);
}
inline void save(const any_filter_view& filter, std::ostream& out) {
  std::visit([&](const auto& f) { save(f, out); }, filter);
}
inline std::vector<std::byte> save_to_bytes(const any_filter_view& filter) {
  return std::visit([](const auto& f) { return save_to_bytes(f); }, filter);
}

// ---- loading ------------------------------------------------------------------

/// The filter stored in `bytes`, copied out of them. Checks everything
/// (magic, version, lengths, both checksums, kind, every parameter) first;
/// throws bloomkit::error with errc truncated, corrupt, checksum,
/// unsupported_version, unknown_kind or unsupported, naming the field.
/// Allocates at most the payload's size, which is bounded by bytes.size().
inline any_filter load(std::span<const std::byte> bytes) {
  const auto file = detail::format::parse(bytes, detail::format::checksum_mode::enforce, true);
  return detail::format::with_codec<any_filter>(file.head.kind_id, [&](auto tag) -> any_filter {
    using codec = typename decltype(tag)::type;
    return any_filter(std::in_place_type<typename codec::filter_type>,
                      detail::format::require_header_agrees<codec>(
                          file.head, codec::load(detail::format::read_params<codec>(file), file.head, file.payload)));
  });
}

/// load() of the file at `path` (a file, pipe or device), read into memory
/// by read() calls, never mapped (with_file_bytes): a file truncated or
/// rewritten while it is loaded gives a typed error (errc::truncated,
/// errc::checksum), never SIGBUS or a filter mixed from two versions
/// (docs/RELIABILITY.md). Errors name the path; errc::io when it cannot be
/// read, errc::out_of_memory naming the bytes it needed.
inline any_filter load(const std::filesystem::path& path) {
  return detail::format::naming_path(path, [&]() -> any_filter {
    return with_file_bytes(path, [&](std::span<const std::byte> bytes) { return load(bytes); });
  });
}

/// load() of everything `in` holds until end of stream. Memory grows only
/// as bytes arrive. Throws errc::io if the stream fails before its end.
inline any_filter load(std::istream& in) {
  std::vector<std::byte> bytes;
  char chunk[65536];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    const auto* first = reinterpret_cast<const std::byte*>(chunk);
    bytes.insert(bytes.end(), first, first + got);
  }
  if (in.bad()) throw error::from_library(errc::io, "reading the filter from the input stream failed");
  return load(std::span<const std::byte>(bytes));
}

/// The Filter stored in `bytes` (an owning filter type). Throws
/// errc::mismatch if the file holds another kind, errc::hash_mismatch if
/// `expected_hash` is given and names another algorithm or seed than the
/// stored hash_spec, errc::mismatch if it names a key type other than the
/// stored one (an unspecified expected key type accepts any), and whatever
/// load() throws for bad bytes.
template <serializable_filter Filter>
Filter load_as(std::span<const std::byte> bytes, const std::optional<hash_spec>& expected_hash = {}) {
  using codec = format_codec<Filter>;
  static_assert(std::is_same_v<Filter, typename codec::filter_type>,
                "load_as takes an owning filter type; use view_as for a view");
  const auto file = detail::format::parse(bytes, detail::format::checksum_mode::enforce, true);
  detail::format::require_kind_and_hash<codec>(file.head, expected_hash);
  return detail::format::require_header_agrees<codec>(
      file.head, codec::load(detail::format::read_params<codec>(file), file.head, file.payload));
}

/// load_as() of the file at `path`; errors name the path.
template <serializable_filter Filter>
Filter load_as(const std::filesystem::path& path, const std::optional<hash_spec>& expected_hash = {}) {
  return detail::format::naming_path(path, [&]() -> Filter {
    return with_file_bytes(path, [&](std::span<const std::byte> bytes) { return load_as<Filter>(bytes, expected_hash); });
  });
}

// ---- viewing in place -----------------------------------------------------------

/// A zero-copy view of the filter in `bytes`: its words are `bytes` itself,
/// which must outlive the view and stay unchanged. Checks the header, its
/// checksum and every parameter; with payload_check::verify (the default)
/// also the payload checksum, which reads the whole payload once. The
/// payload must be aligned for the kind's words: a buffer starting 64-byte
/// aligned always is (a mapped_file starts page-aligned); otherwise
/// errc::invalid_argument. On a big-endian host: errc::unsupported (use load).
inline any_filter_view view(std::span<const std::byte> bytes, payload_check check = payload_check::verify) {
  const auto file = detail::format::parse(bytes, detail::format::checksum_mode::enforce, check == payload_check::verify);
  return detail::format::with_codec<any_filter_view>(file.head.kind_id, [&](auto tag) -> any_filter_view {
    using codec = typename decltype(tag)::type;
    if constexpr (detail::format::variant_has<any_filter_view, typename codec::view_type>::value) {
      return any_filter_view(std::in_place_type<typename codec::view_type>,
                             detail::format::view_with<codec>(file));
    } else {
      detail::format::fail(errc::unsupported, std::string(to_string(codec::kind)) +
                                                  " has no zero-copy view; use load()");
    }
  });
}

/// view() of a Filter kind, with the checks of load_as (errc::mismatch,
/// errc::hash_mismatch). Returns Filter's view type.
template <serializable_filter Filter>
typename format_codec<Filter>::view_type view_as(std::span<const std::byte> bytes,
                                                 const std::optional<hash_spec>& expected_hash = {},
                                                 payload_check check = payload_check::verify) {
  using codec = format_codec<Filter>;
  const auto file = detail::format::parse(bytes, detail::format::checksum_mode::enforce, check == payload_check::verify);
  detail::format::require_kind_and_hash<codec>(file.head, expected_hash);
  return detail::format::view_with<codec>(file);
}

/// A mapped file and the view of the filter in it, kept together so the
/// view cannot outlive its bytes. Movable (the mapping does not move).
struct mapped_filter {
  mapped_file file;
  any_filter_view filter;
};

/// Maps `path` and views the filter in it (see view()). Errors name the path.
inline mapped_filter open_mapped(const std::filesystem::path& path, payload_check check = payload_check::verify) {
  return detail::format::naming_path(path, [&]() -> mapped_filter {
    mapped_file file(path);
    auto filter = view(file.bytes(), check);
    return mapped_filter{std::move(file), std::move(filter)};
  });
}

// ---- inspecting -----------------------------------------------------------------

/// The header facts of the file in `bytes`, for tools such as `bloomkit
/// info`. A checksum that does not match is reported (checksum_ok false),
/// not thrown; everything else load() checks structurally (magic, version,
/// lengths, kind, parameters) still throws. Reads the whole payload once
/// for its checksum.
inline file_info inspect(std::span<const std::byte> bytes) {
  const auto file = detail::format::parse(bytes, detail::format::checksum_mode::report, true);
  file_info info;
  info.kind = file.head.kind();
  info.version = file.head.version;
  info.hash = file.head.hash;
  info.key_type = file.head.hash.keys;
  info.inserted = file.head.inserted;
  info.inserted_accuracy = file.head.accuracy;
  info.capacity = file.head.capacity;
  info.target_fpr = file.head.target_fpr;
  info.header_bytes = file.head.header_bytes;
  info.payload_bytes = file.head.payload_bytes;
  info.file_bytes = bytes.size();
  info.header_checksum_ok = file.head.header_checksum_ok;
  info.payload_checksum_ok = file.payload_checksum_ok;
  info.checksum_ok = info.header_checksum_ok && info.payload_checksum_ok;
  (void)detail::format::with_codec<int>(file.head.kind_id, [&](auto tag) {
    using codec = typename decltype(tag)::type;
    codec::describe(detail::format::read_params<codec>(file), info.params);
    return 0;
  });
  return info;
}

/// inspect() of the file at `path`, read as load(path) reads it; errors
/// name the path.
inline file_info inspect(const std::filesystem::path& path) {
  return detail::format::naming_path(path, [&]() -> file_info {
    return with_file_bytes(path, [&](std::span<const std::byte> bytes) { return inspect(bytes); });
  });
}

// ---- every format bloomkit reads: its own and the JVM's ----------------------------
//
// Spark's and Guava's filters are not kinds of bloomkit's file format: their
// streams are their own (format/jvm_streams.hpp), they hash keys their
// library's way (no hash_spec, no 64-bit hash core: Guava derives its probes
// from a 128-bit murmur3), so they stay outside any_filter and the `filter`
// concept that every visitor of any_filter relies on. Passing `any_format`
// asks load / view / open_mapped for all of them at once: a file is told
// apart by its first bytes (bloomkit's magic starts 0x89; Spark's stream
// 00 00, Guava's 00 or 01 then k >= 1) and read with that format's checks.
// load_as / view_as take spark_bloom or guava_bloom for one JVM kind.

/// The tag that asks load, view and open_mapped for every format bloomkit
/// reads (as std::in_place asks a constructor for in-place construction).
struct any_format_t {
  explicit any_format_t() = default;
};
inline constexpr any_format_t any_format{};

namespace detail::format {
template <class A, class B>
struct variant_cat;
template <class... A, class... B>
struct variant_cat<std::variant<A...>, std::variant<B...>> {
  using type = std::variant<A..., B...>;
};

/// The variant `To` holding what `from` holds (To has every alternative of From).
template <class To, class From>
To widen(From&& from) {
  return std::visit([](auto&& x) { return To(std::in_place_type<std::decay_t<decltype(x)>>, std::forward<decltype(x)>(x)); },
                    std::forward<From>(from));
}
}  // namespace detail::format

/// Any filter bloomkit reads: any_filter's kinds, in order, then
/// spark_bloom and guava_bloom.
using any_format_filter = detail::format::variant_cat<any_filter, jvm_filter>::type;
/// Any zero-copy view bloomkit gives: any_filter_view's, then spark_bloom_view
/// and guava_bloom_view.
using any_format_view = detail::format::variant_cat<any_filter_view, jvm_filter_view>::type;

/// True for the types only any_format reaches (Spark's and Guava's filters and views).
template <class F>
inline constexpr bool is_jvm_kind = std::is_same_v<F, spark_bloom> || std::is_same_v<F, guava_bloom> ||
                                    std::is_same_v<F, spark_bloom_view> || std::is_same_v<F, guava_bloom_view>;

/// The filter in `bytes`, whichever format holds it, copied out of them:
/// a bloomkit file (load(bytes)'s checks and errors), a Spark or Guava
/// stream (read_jvm_filter's). Bytes that are none of them: errc::corrupt.
inline any_format_filter load(std::span<const std::byte> bytes, any_format_t) {
  if (detect_jvm_stream(bytes)) return detail::format::widen<any_format_filter>(read_jvm_filter(bytes));
  if (!bytes.empty() && bytes[0] != detail::format::magic[0]) {
    throw error::from_library(errc::corrupt,
                              "bad magic: not a bloomkit filter file, nor a Spark or Guava BloomFilter stream "
                              "(its first bytes match none of them)");
  }
  return detail::format::widen<any_format_filter>(load(bytes));
}

/// load(bytes, any_format) of the file at `path`, read by read() calls as
/// load(path) reads it (never mapped); errors name the path.
inline any_format_filter load(const std::filesystem::path& path, any_format_t) {
  return detail::format::naming_path(path, [&]() -> any_format_filter {
    return with_file_bytes(path, [&](std::span<const std::byte> bytes) { return load(bytes, any_format); });
  });
}

/// A zero-copy view of the filter in `bytes`, whichever format holds it:
/// view(bytes, check) for a bloomkit file (its alignment rule and errors), a
/// Spark or Guava stream viewed in place (any alignment; its words are
/// queried where they lie, and `check` has nothing to verify: the streams
/// carry no checksum). Bytes that are none of them: errc::corrupt.
inline any_format_view view(std::span<const std::byte> bytes, any_format_t,
                            payload_check check = payload_check::verify) {
  if (detect_jvm_stream(bytes)) return detail::format::widen<any_format_view>(view_jvm_filter(bytes));
  if (!bytes.empty() && bytes[0] != detail::format::magic[0]) {
    throw error::from_library(errc::corrupt,
                              "bad magic: not a bloomkit filter file, nor a Spark or Guava BloomFilter stream "
                              "(its first bytes match none of them)");
  }
  return detail::format::widen<any_format_view>(view(bytes, check));
}

/// A mapped file and the view of the filter in it, of any format.
struct mapped_any_format_filter {
  mapped_file file;
  any_format_view filter;
};

/// Maps `path` once and views the filter in it, whichever format holds it
/// (see view(bytes, any_format)). Errors name the path.
inline mapped_any_format_filter open_mapped(const std::filesystem::path& path, any_format_t,
                                            payload_check check = payload_check::verify) {
  return detail::format::naming_path(path, [&]() -> mapped_any_format_filter {
    mapped_file file(path);
    auto filter = view(file.bytes(), any_format, check);
    return mapped_any_format_filter{std::move(file), std::move(filter)};
  });
}

namespace detail::format {
/// errc::mismatch unless `bytes` start as a stream of Filter's library.
template <class Filter>
void require_jvm_kind(std::span<const std::byte> bytes) {
  constexpr bool spark = std::is_same_v<Filter, spark_bloom> || std::is_same_v<Filter, spark_bloom_view>;
  const auto kind = detect_jvm_stream(bytes);
  if (kind != (spark ? jvm_stream_kind::spark : jvm_stream_kind::guava)) {
    throw error::from_library(errc::mismatch, std::string("the bytes are ") +
                                    (kind ? (spark ? "a Guava stream" : "a Spark stream")
                                          : "not a Spark or Guava stream") +
                                    ", not a " + (spark ? "Spark" : "Guava") + " BloomFilter stream");
  }
}
}  // namespace detail::format

/// The Spark or Guava filter `Filter` stored in `bytes` (a stream of that
/// library), copied. errc::mismatch when the bytes are the other JVM
/// library's stream or a bloomkit file; otherwise read_spark_stream's /
/// read_guava_stream's errors.
template <class Filter>
  requires(std::is_same_v<Filter, spark_bloom> || std::is_same_v<Filter, guava_bloom>)
Filter load_as(std::span<const std::byte> bytes) {
  detail::format::require_jvm_kind<Filter>(bytes);
  if constexpr (std::is_same_v<Filter, spark_bloom>) {
    return read_spark_stream(bytes);
  } else {
    return read_guava_stream(bytes);
  }
}

/// load_as<spark_bloom or guava_bloom>() of the file at `path` (read, not
/// mapped); errors name the path.
template <class Filter>
  requires(std::is_same_v<Filter, spark_bloom> || std::is_same_v<Filter, guava_bloom>)
Filter load_as(const std::filesystem::path& path) {
  return detail::format::naming_path(path, [&]() -> Filter {
    return with_file_bytes(path, [&](std::span<const std::byte> bytes) { return load_as<Filter>(bytes); });
  });
}

/// A zero-copy view (Filter's view_type) of the Spark or Guava stream in
/// `bytes`, with load_as's checks.
template <class Filter>
  requires(std::is_same_v<Filter, spark_bloom> || std::is_same_v<Filter, guava_bloom>)
typename Filter::view_type view_as(std::span<const std::byte> bytes) {
  detail::format::require_jvm_kind<Filter>(bytes);
  if constexpr (std::is_same_v<Filter, spark_bloom>) {
    return view_spark_stream(bytes);
  } else {
    return view_guava_stream(bytes);
  }
}

}  // namespace bloomkit
