// bloomkit/format/registry.hpp - the kinds a bloomkit file can hold and the
// machinery every codec shares: encode (header, checksums, payload), parse,
// dispatch by kind id, and the checks that a decoded filter agrees with its
// header. The public save/load/view/inspect API is file_format.hpp; the
// layout is docs/FORMAT.md.
//
// ---- Adding a filter kind (the recipe) ------------------------------------
// Everything one kind needs is its codec, a specialisation of
// format_codec<Filter> in include/bloomkit/format/<kind>.hpp that
// includes format/core.hpp and the filter's header. Copy
// format/standard_bloom.hpp; it provides:
//
//   filter_type, view_type, source_type (what writing reads: usually the view),
//   params_type, kind (your reserved filter_kind id), payload_alignment;
//   common(src) [only if the header differs from the filter concept's
//       hash(), inserted(), capacity(), target_fpr(): scalable]
//   params_bytes(src)            -> size of your parameter section (<= 64 KiB)
//   write_params(src, params_writer&)   little-endian, reserved bytes zero
//   payload_bytes(src), write_payload(src, sink)   sink(span<const byte>)
//   read_params(header, params_reader&) -> params_type; check EVERY field,
//       against each other and against header.payload_bytes (errc::corrupt
//       via check_field, naming the field); call in.finish()
//   load(params, header, payload)  -> filter_type (copies the payload)
//   view(params, header, payload)  -> view_type (payload in place; omit it if
//       the kind has no zero-copy view: view() then throws errc::unsupported)
//   describe(params, vector<file_param>&)   for `bloomkit info`
// plus `template <> struct format_codec<your_view> : format_codec<your_filter> {};`
// Then, here: one #include line below, and append your type to any_filter
// (and your view type to any_filter_view). The dispatch by kind id, the
// header, checksums, atomic saving, mapping and inspect need no change, and
// neither do the shells: the CLI's --kind table, Python's kind tables and the
// playground read your kind_traits (filter.hpp lists its facts) through
// all_kinds below. docs/ARCHITECTURE.md has the whole recipe.
// Document your parameters and payload in docs/FORMAT.md (its section for
// your kind is a placeholder) and add your kind to tests/file_format_test.cpp's
// round-trip list. Changing an existing kind's bytes needs a new format
// version (docs/FORMAT.md, "Versions").
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/format/core.hpp"
// One line per kind:
#include "bloomkit/format/standard_bloom.hpp"
#include "bloomkit/format/blocked_bloom.hpp"
#include "bloomkit/format/split_block_bloom.hpp"
#include "bloomkit/format/binary_fuse.hpp"
#include "bloomkit/format/ribbon.hpp"
#include "bloomkit/format/counting_bloom.hpp"
#include "bloomkit/format/scalable_bloom.hpp"
#include "bloomkit/format/cuckoo_filter.hpp"
#include "bloomkit/format/age_partitioned_bloom.hpp"

namespace bloomkit {

/// Any filter a file can hold. Later kinds are appended (never reordered).
using any_filter =
    std::variant<standard_bloom, blocked_bloom, split_block_bloom, binary_fuse, ribbon, counting_bloom, scalable_bloom,
                 cuckoo_filter, age_partitioned_bloom>;
/// A zero-copy view of any filter with one. Later kinds are appended.
using any_filter_view =
    std::variant<standard_bloom_view, blocked_bloom_view, split_block_bloom_view, binary_fuse_view, ribbon_view,
                 counting_bloom_view, scalable_bloom_view, cuckoo_filter_view, age_partitioned_bloom_view>;

/// Calls fn(std::type_identity<F>{}) for every owning type F of any_filter,
/// in the list's order: the one walk over the kinds that tables (the
/// CLI's, the Python package's, the playground's) are built from.
template <class Fn>
constexpr void for_each_kind(Fn&& fn) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (fn(std::type_identity<std::variant_alternative_t<I, any_filter>>{}), ...);
  }(std::make_index_sequence<std::variant_size_v<any_filter>>{});
}

/// The number of kinds a file can hold.
inline constexpr std::size_t kind_count = std::variant_size_v<any_filter>;

/// Every kind's facts (kind_traits) as values, in the order of any_filter.
inline constexpr std::array<kind_info, kind_count> all_kinds = [] {
  std::array<kind_info, kind_count> out{};
  std::size_t i = 0;
  for_each_kind([&](auto tag) { out[i++] = info_of<typename decltype(tag)::type>(); });
  return out;
}();

/// The kind named `name` (kind_traits<F>::name, as to_string spells it), or nullopt.
constexpr std::optional<filter_kind> parse_filter_kind(std::string_view name) noexcept {
  for (const kind_info& k : all_kinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

namespace detail::format {
/// The traits' capability flags agree with what the types can do.
template <class F>
constexpr bool capabilities_agree() noexcept {
  using T = kind_traits<F>;
  static_assert(T::name == to_string(T::kind));
  static_assert(T::removes == removable_filter<F>, "kind_traits<F>::removes disagrees with removable_filter<F>");
  static_assert(T::merges == mergeable_with<F, F>, "kind_traits<F>::merges disagrees with F::merge");
  static_assert(T::is_static == !incremental_filter<F>, "kind_traits<F>::is_static disagrees with incremental_filter<F>");
  return true;
}
static_assert([] {
  bool ok = true;
  for_each_kind([&](auto tag) { ok = ok && capabilities_agree<typename decltype(tag)::type>(); });
  return ok;
}());
}  // namespace detail::format

/// The kind id files store for Filter (a filter or its view).
template <serializable_filter Filter>
constexpr filter_kind kind_of() noexcept {
  return format_codec<Filter>::kind;
}

/// The kind of the filter `f` holds.
inline filter_kind kind_of(const any_filter& f) noexcept {
  return std::visit([](const auto& x) { return format_codec<std::decay_t<decltype(x)>>::kind; }, f);
}
/// The kind of the filter `f` views.
inline filter_kind kind_of(const any_filter_view& f) noexcept {
  return std::visit([](const auto& x) { return format_codec<std::decay_t<decltype(x)>>::kind; }, f);
}

namespace detail::format {
template <class Result, class Fn, std::size_t... I>
Result with_kind_impl(filter_kind kind, Fn& fn, std::index_sequence<I...>) {
  Result out{};
  bool found = false;
  (void)((kind_traits<std::variant_alternative_t<I, any_filter>>::kind == kind
              ? (out = fn(std::type_identity<std::variant_alternative_t<I, any_filter>>{}), found = true)
              : false) ||
         ...);
  if (!found) throw error::from_library(errc::unknown_kind, "unknown filter kind id " + std::to_string(static_cast<int>(kind)));
  return out;
}
/// fn(std::type_identity<Filter>{}) for the owning type of `kind`.
template <class Result, class Fn>
Result with_kind(filter_kind kind, Fn&& fn) {
  return with_kind_impl<Result>(kind, fn, std::make_index_sequence<std::variant_size_v<any_filter>>{});
}
}  // namespace detail::format

/// kind_traits of `kind` as a value (name, default hash, static, grows), for
/// code that picks the kind at run time. errc::unknown_kind for other ids.
inline kind_info info_of(filter_kind kind) {
  return detail::format::with_kind<kind_info>(kind, [](auto tag) { return info_of<typename decltype(tag)::type>(); });
}

/// The smallest target FPR a static kind's parameters reach (0 for the
/// incremental kinds, which reach any FPR in (0, 1)).
inline double min_fpr_of(filter_kind kind) {
  return detail::format::with_kind<double>(kind, [](auto tag) {
    using traits = kind_traits<typename decltype(tag)::type>;
    if constexpr (traits::is_static) {
      return traits::min_fpr;
    } else {
      return 0.0;
    }
  });
}

/// A new, empty filter of an incremental `kind` for `capacity` keys at
/// `target_fpr` (the kind's (capacity, fpr, hash) constructor); errc::unsupported
/// for a static kind, which is built whole (build_static_filter).
inline any_filter make_filter(filter_kind kind, std::uint64_t capacity, double target_fpr, hash_spec hash) {
  return detail::format::with_kind<std::optional<any_filter>>(kind, [&](auto tag) -> std::optional<any_filter> {
           using F = typename decltype(tag)::type;
           if constexpr (kind_traits<F>::is_static) {
             throw error(errc::unsupported, std::string(to_string(kind_traits<F>::kind)) +
                                                " is static: build it from all keys at once");
           } else {
             return any_filter(std::in_place_type<F>, capacity, target_fpr, hash);
           }
         })
      .value();
}

/// A static `kind`'s filter of every hash in `hashes` (duplicates allowed)
/// whose FPR is at or below `target_fpr` (kind_traits<F>::build: the FPR
/// picks the fingerprint or result width). errc::unsupported for an
/// incremental kind.
inline any_filter build_static_filter(filter_kind kind, std::span<const std::uint64_t> hashes, double target_fpr,
                                      hash_spec hash) {
  return detail::format::with_kind<std::optional<any_filter>>(kind, [&](auto tag) -> std::optional<any_filter> {
           using F = typename decltype(tag)::type;
           if constexpr (kind_traits<F>::is_static) {
             return any_filter(std::in_place_type<F>, kind_traits<F>::build(hashes, target_fpr, hash));
           } else {
             throw error(errc::unsupported, std::string(to_string(kind_traits<F>::kind)) + " is not a static kind");
           }
         })
      .value();
}

namespace detail::format {

template <class Variant, class T>
struct variant_has;
template <class... Ts, class T>
struct variant_has<std::variant<Ts...>, T> : std::bool_constant<(std::is_same_v<Ts, T> || ...)> {};

/// What a codec's writing functions read for `f`: `f` itself or f.view().
template <class Codec, class Filter>
decltype(auto) source_of(const Filter& f) {
  if constexpr (std::is_same_v<Filter, typename Codec::source_type>) {
    return (f);
  } else {
    return f.view();
  }
}

/// The header's shared fields for `f`, derived generically from the filter
/// concept's accessors (hash, inserted, capacity, target_fpr); a codec whose
/// header stores something else (scalable: the initial capacity) says so
/// with its own static common(src).
template <class Codec, class Source>
common_fields common_of(const Source& f) {
  if constexpr (requires { Codec::common(f); }) {
    return Codec::common(f);
  } else {
    common_fields c{f.hash(), f.inserted(), f.capacity(), f.target_fpr()};
    // Kinds whose count can stop being exact (set algebra) say so.
    if constexpr (requires { f.inserted_accuracy(); }) c.accuracy = f.inserted_accuracy();
    // Kinds whose section can need a later version say which.
    if constexpr (requires { Codec::min_version(f); }) c.min_version = Codec::min_version(f);
    return c;
  }
}

/// The size in bytes of the file save() writes for `f`.
template <serializable_filter Filter>
std::uint64_t encoded_size(const Filter& filter) {
  using codec = format_codec<Filter>;
  const auto& f = source_of<codec>(filter);
  return header_bytes_for(codec::params_bytes(f)) + codec::payload_bytes(f);
}

/// Writes the file for `filter` through `sink(std::span<const std::byte>)`:
/// the header (after one pass over the payload for its checksum), then the
/// payload. The header is built in memory; the payload is never copied on a
/// little-endian host.
template <serializable_filter Filter, class Sink>
void encode(const Filter& filter, Sink&& sink) {
  using codec = format_codec<Filter>;
  const auto& f = source_of<codec>(filter);
  const std::uint32_t params_bytes = codec::params_bytes(f);
  const std::uint64_t payload_bytes = codec::payload_bytes(f);

  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  std::uint64_t counted = 0;
  auto checksum_sink = [&](std::span<const std::byte> chunk) {
    XXH3_64bits_update(&state, chunk.data(), chunk.size());
    counted += chunk.size();
  };
  codec::write_payload(f, checksum_sink);
  if (counted != payload_bytes) {
    throw error::from_file_format(errc::invalid_argument, "the " + std::string(to_string(codec::kind)) +
                                            " codec wrote " + std::to_string(counted) + " payload bytes but declared " +
                                            std::to_string(payload_bytes));
  }
  header_builder builder(codec::kind, common_of<codec>(f), params_bytes, payload_bytes, XXH3_64bits_digest(&state));
  params_writer params(builder.params());
  codec::write_params(f, params);
  if (params.written() != params_bytes) {
    throw error::from_file_format(errc::invalid_argument, "the " + std::string(to_string(codec::kind)) +
                                            " codec wrote fewer parameter bytes than it declared");
  }
  sink(builder.seal());
  codec::write_payload(f, sink);
}

/// A file split into its parts after parse_header (and, if asked, the
/// payload checksum) passed.
struct parsed_file {
  header head;
  std::span<const std::byte> params;
  std::span<const std::byte> payload;
  bool payload_checksum_ok = true;
};

inline parsed_file parse(std::span<const std::byte> bytes, checksum_mode mode, bool verify_payload) {
  parsed_file file;
  file.head = parse_header(bytes, mode);
  file.params = bytes.subspan(offset::params, file.head.params_bytes);
  file.payload = bytes.subspan(file.head.header_bytes, file.head.payload_bytes);
  if (verify_payload) {
    file.payload_checksum_ok = checksum(file.payload) == file.head.payload_checksum;
    if (!file.payload_checksum_ok && mode == checksum_mode::enforce) {
      fail(errc::checksum, "the payload checksum does not match: the filter's bits were altered after they were written");
    }
  }
  return file;
}

[[noreturn]] inline void fail_unknown_kind(std::uint8_t id) {
  const auto kind = static_cast<filter_kind>(id);
  if (to_string(kind) != "unknown") {
    fail(errc::unknown_kind, "filter kind " + std::to_string(id) + " (" + std::string(to_string(kind)) +
                                 ") is not supported by this build of bloomkit");
  }
  fail(errc::unknown_kind, "field 'kind' = " + std::to_string(id) +
                               " names no filter kind this reader knows (a file from a newer bloomkit?)");
}

template <class Result, class Fn, std::size_t... I>
Result with_codec_impl(std::uint8_t id, Fn& fn, std::index_sequence<I...>) {
  std::optional<Result> result;
  (void)((static_cast<std::uint8_t>(format_codec<std::variant_alternative_t<I, any_filter>>::kind) == id
              ? (result.emplace(fn(std::type_identity<format_codec<std::variant_alternative_t<I, any_filter>>>{})), true)
              : false) ||
         ...);
  if (!result) fail_unknown_kind(id);
  return std::move(*result);
}

/// Calls fn(std::type_identity<Codec>{}) with the codec of kind `id` (one of
/// any_filter's kinds) and returns its result; errc::unknown_kind otherwise.
template <class Result, class Fn>
Result with_codec(std::uint8_t id, Fn&& fn) {
  return with_codec_impl<Result>(id, fn, std::make_index_sequence<std::variant_size_v<any_filter>>{});
}

template <class Codec>
typename Codec::params_type read_params(const parsed_file& file) {
  params_reader in(file.params, to_string(Codec::kind));
  return Codec::read_params(file.head, in);
}

/// errc::mismatch unless the file holds Codec's kind; errc::hash_mismatch
/// if `expected` is given and names another algorithm or seed than the
/// file's; errc::mismatch if `expected` names a key type and the file holds
/// another (an expected unspecified key type accepts every file).
template <class Codec>
void require_kind_and_hash(const header& head, const std::optional<hash_spec>& expected) {
  if (head.kind_id != static_cast<std::uint8_t>(Codec::kind)) {
    (void)with_codec<int>(head.kind_id, [](auto) { return 0; });  // unknown kinds: errc::unknown_kind
    fail(errc::mismatch, "the file holds a " + std::string(to_string(head.kind())) + ", not a " +
                             std::string(to_string(Codec::kind)));
  }
  if (expected && !same_hash_function(*expected, head.hash)) {
    fail(errc::hash_mismatch, "the filter was built with hash " + std::string(to_string(head.hash.algorithm)) +
                                  " seed " + std::to_string(head.hash.seed) + ", but the caller expects " +
                                  std::string(to_string(expected->algorithm)) + " seed " +
                                  std::to_string(expected->seed));
  }
  if (expected && expected->keys != key_type::unspecified && expected->keys != head.hash.keys) {
    fail(errc::mismatch, "the file holds " + std::string(to_string(head.hash.keys)) + " keys, but the caller expects " +
                             std::string(to_string(expected->keys)) + " keys");
  }
}

/// Checks that `payload` can be viewed in place as Codec's words.
template <class Codec>
void require_in_place(std::span<const std::byte> payload) {
  if constexpr (std::endian::native != std::endian::little) {
    fail(errc::unsupported, "zero-copy views need a little-endian host (the payload is little-endian); use load()");
  }
  const auto address = reinterpret_cast<std::uintptr_t>(payload.data());
  if (address % Codec::payload_alignment != 0) {
    fail(errc::invalid_argument,
         "view() needs the payload " + std::to_string(Codec::payload_alignment) +
             "-byte aligned, but this buffer puts it at an address that is " +
             std::to_string(address % payload_alignment) +
             " mod 64; pass a buffer that starts 64-byte aligned (a mapped_file does), or use load()");
  }
}

/// Throws errc::corrupt unless the decoded filter reports the header's
/// shared fields (hash, inserted, capacity, target_fpr) exactly. A codec may
/// derive some of them from its parameters (a static filter's capacity is its
/// key count); a header that disagrees would be silently rewritten on the
/// next save, so it is rejected here, for every kind, and every accepted file
/// is exactly what save() writes for the filter it holds.
template <class Codec, class Decoded>
Decoded&& require_header_agrees(const header& head, Decoded&& decoded) {
  const common_fields c = common_of<Codec>(source_of<Codec>(decoded));
  const std::string kind(to_string(Codec::kind));
  const std::string prefix = kind + " field '";
  if (!(c.hash == head.hash)) fail(errc::corrupt, prefix + "hash_seed' or 'hash_algorithm' disagrees with the filter");
  if (c.inserted != head.inserted) {
    fail(errc::corrupt, prefix + "inserted' = " + std::to_string(head.inserted) + ", but this " + kind + " holds " +
                            std::to_string(c.inserted));
  }
  if (c.accuracy != head.accuracy) {
    // Only kinds with set algebra keep a count that is not exact.
    fail(errc::corrupt, prefix + "inserted_accuracy' = " + std::string(to_string(head.accuracy)) + ", but a " + kind +
                            " records its count as " + std::string(to_string(c.accuracy)));
  }
  if (written_version(c) != head.version) {
    // The oldest version that expresses the filter, so the encoding stays
    // canonical (a later version for a filter that needs none is refused).
    fail(errc::corrupt, prefix + "version' = " + std::to_string(head.version) + ", but this " + kind +
                            " is written as version " + std::to_string(written_version(c)));
  }
  if (c.capacity != head.capacity) {
    fail(errc::corrupt, prefix + "capacity' = " + std::to_string(head.capacity) + ", but this " + kind + " implies " +
                            std::to_string(c.capacity));
  }
  if (double_bits(c.target_fpr) != double_bits(head.target_fpr)) {
    fail(errc::corrupt, prefix + "target_fpr' = " + exact_decimal(head.target_fpr) + ", but this " + kind +
                            " implies " + exact_decimal(c.target_fpr));
  }
  return std::forward<Decoded>(decoded);
}

template <class Codec>
typename Codec::view_type view_with(const parsed_file& file) {
  require_in_place<Codec>(file.payload);
  return require_header_agrees<Codec>(file.head, Codec::view(read_params<Codec>(file), file.head, file.payload));
}

/// Prefixes errors from `fn` with the file's path, keeping their code.
template <class Fn>
decltype(auto) naming_path(const std::filesystem::path& path, Fn&& fn) {
  try {
    return fn();
  } catch (const error& e) {
    throw error::about_file(path.string(), e);
  }
}

}  // namespace detail::format

}  // namespace bloomkit
