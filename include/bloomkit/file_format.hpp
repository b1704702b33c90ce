// bloomkit/file_format.hpp - save, load, view and inspect every filter kind in
// one portable, versioned, checksummed file format (docs/FORMAT.md).
//
//   bloomkit::save(filter, "keys.bkf");                 // temp file + fsync + rename
//   auto any   = bloomkit::load("keys.bkf");            // std::variant of every kind
//   auto bloom = bloomkit::load_as<blocked_bloom>(bytes, my_hash_spec);
//   bloomkit::mapped_file file("keys.bkf");             // read-only mmap
//   auto v     = bloomkit::view(file.bytes());          // queries in place, no copy
//   auto info  = bloomkit::inspect(file.bytes());       // header facts, checksum_ok
//
// A file is: a 72-byte fixed header (magic, version, kind, hash_spec, lengths,
// counters, payload checksum), the kind's parameters, zero padding, an XXH3-64
// checksum of all that, then the payload (the filter's words, little-endian)
// starting at a multiple of 64 bytes. Readers check every field before they
// trust it, so bad bytes give a bloomkit::error naming the field, never a huge
// allocation or a read past the end.
//
// ---- Adding a filter kind (the recipe) ------------------------------------
// Everything one kind needs is its codec, a specialisation of
// format_codec<Filter> in include/bloomkit/detail/format_<kind>.hpp that
// includes detail/format_core.hpp and the filter's header. Copy
// detail/format_standard_bloom.hpp; it provides:
//
//   filter_type, view_type, source_type (what writing reads: usually the view),
//   params_type, kind (your reserved filter_kind id), payload_alignment;
//   common(src)                  -> hash, inserted, capacity, target_fpr
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
// header, checksums, atomic saving, mapping and inspect need no change.
// Document your parameters and payload in docs/FORMAT.md (its section for
// your kind is a placeholder) and add your kind to tests/file_format_test.cpp's
// round-trip list. Changing an existing kind's bytes needs a new format
// version (docs/FORMAT.md, "Versions").
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/detail/format_core.hpp"
// One line per kind:
#include "bloomkit/detail/format_standard_bloom.hpp"
#include "bloomkit/detail/format_blocked_bloom.hpp"
#include "bloomkit/detail/format_split_block_bloom.hpp"
#include "bloomkit/detail/format_binary_fuse.hpp"
#include "bloomkit/detail/format_ribbon.hpp"
#include "bloomkit/detail/format_counting.hpp"
#include "bloomkit/detail/format_scalable.hpp"
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
    throw error(errc::invalid_argument, "bloomkit file: the " + std::string(to_string(codec::kind)) +
                                            " codec wrote " + std::to_string(counted) + " payload bytes but declared " +
                                            std::to_string(payload_bytes));
  }
  header_builder builder(codec::kind, codec::common(f), params_bytes, payload_bytes, XXH3_64bits_digest(&state));
  params_writer params(builder.params());
  codec::write_params(f, params);
  if (params.written() != params_bytes) {
    throw error(errc::invalid_argument, "bloomkit file: the " + std::string(to_string(codec::kind)) +
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
/// if `expected` is given and differs from the file's hash_spec.
template <class Codec>
void require_kind_and_hash(const header& head, std::optional<hash_spec> expected) {
  if (head.kind_id != static_cast<std::uint8_t>(Codec::kind)) {
    (void)with_codec<int>(head.kind_id, [](auto) { return 0; });  // unknown kinds: errc::unknown_kind
    fail(errc::mismatch, "the file holds a " + std::string(to_string(head.kind())) + ", not a " +
                             std::string(to_string(Codec::kind)));
  }
  if (expected && !(*expected == head.hash)) {
    fail(errc::hash_mismatch, "the filter was built with hash " + std::string(to_string(head.hash.algorithm)) +
                                  " seed " + std::to_string(head.hash.seed) + ", but the caller expects " +
                                  std::string(to_string(expected->algorithm)) + " seed " +
                                  std::to_string(expected->seed));
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
  const common_fields c = Codec::common(source_of<Codec>(decoded));
  const std::string kind(to_string(Codec::kind));
  const std::string prefix = kind + " field '";
  if (!(c.hash == head.hash)) fail(errc::corrupt, prefix + "hash_seed' or 'hash_algorithm' disagrees with the filter");
  if (c.inserted != head.inserted) {
    fail(errc::corrupt, prefix + "inserted' = " + std::to_string(head.inserted) + ", but this " + kind + " holds " +
                            std::to_string(c.inserted));
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

inline std::string errno_text(int code) { return std::generic_category().message(code); }

/// Prefixes errors from `fn` with the file's path, keeping their code.
template <class Fn>
decltype(auto) naming_path(const std::filesystem::path& path, Fn&& fn) {
  try {
    return fn();
  } catch (const error& e) {
    throw error(e.code(), "'" + path.string() + "': " + e.what());
  }
}

/// All bytes of `path` by read() calls, for files that cannot be mapped
/// (pipes, character devices). Grows only as data arrives.
inline std::vector<std::byte> read_whole_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw error(errc::io, "bloomkit: cannot open '" + path.string() + "': " + errno_text(errno));
  std::vector<std::byte> bytes;
  std::byte chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int code = errno;
      ::close(fd);
      throw error(errc::io, "bloomkit: cannot read '" + path.string() + "': " + errno_text(code));
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  ::close(fd);
  return bytes;
}

/// Writes a file under a temporary name in the target's folder and renames
/// it over the target only in commit(), after fsync: readers and crashes see
/// the old file or the complete new one, never a part (POSIX rename is
/// atomic within a file system). Without commit() the temporary file is
/// removed.
class atomic_file_writer {
 public:
  explicit atomic_file_writer(const std::filesystem::path& target) : target_(target) {
    const std::filesystem::path name = target.filename();
    if (name.empty() || name == "." || name == "..") fail_io("it does not name a file", 0);
    const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      const auto stamp = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
      // Appended piece by piece: GCC 12's -Wrestrict misfires on "." + string&& (GCC bug 105651).
      std::string temp_name(".");
      temp_name += name.string();
      temp_name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
                   std::to_string(stamp % 1000000007ULL);
      temp_ = folder / temp_name;
      // 0666 minus the umask, as for any new file; O_EXCL never reuses a name.
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ >= 0) return;
      if (errno != EEXIST) break;
    }
    const int code = errno;
    fail_io("cannot create a temporary file in '" + folder.string() + "'", code);
  }
  atomic_file_writer(const atomic_file_writer&) = delete;
  atomic_file_writer& operator=(const atomic_file_writer&) = delete;
  ~atomic_file_writer() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  }

  /// Appends `bytes`; errc::io (naming the target) when the system refuses.
  void write(std::span<const std::byte> bytes) {
    const std::byte* at = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
      const ssize_t put = ::write(fd_, at, left);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) fail_io("writing failed", put < 0 ? errno : EIO);
      at += put;
      left -= static_cast<std::size_t>(put);
    }
  }

  /// fsync, close, rename over the target, then fsync the folder so the
  /// rename itself survives a crash (best effort: some file systems refuse
  /// fsync on a folder, and the file is already complete either way).
  void commit() {
    if (::fsync(fd_) != 0) fail_io("fsync failed", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_io("closing the temporary file failed", errno);
    if (::rename(temp_.c_str(), target_.c_str()) != 0) fail_io("renaming the temporary file over it failed", errno);
    committed_ = true;
    const std::filesystem::path folder = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      (void)::fsync(dir);
      ::close(dir);
    }
  }

 private:
  [[noreturn]] void fail_io(const std::string& what, int code) const {
    throw error(errc::io, "bloomkit: cannot save '" + target_.string() + "': " + what +
                              (code != 0 ? ": " + errno_text(code) : std::string()));
  }
  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace detail::format

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
    if (!out) throw error(errc::io, "bloomkit: writing the filter to the output stream failed");
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

/// Saves `filter` to `path`: writes a temporary file in the same folder,
/// fsyncs it and renames it over `path`, so `path` never holds a partial
/// filter, even after a crash; readers that mapped the old file keep it.
/// Throws errc::io naming `path` (missing or read-only folder, full disk,
/// `path` a folder), leaving no temporary file behind.
template <serializable_filter Filter>
void save(const Filter& filter, const std::filesystem::path& path) {
  detail::format::atomic_file_writer file(path);
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

// ---- mapping ------------------------------------------------------------------

/// A read-only memory map of a whole regular file (POSIX mmap, MAP_PRIVATE).
/// Movable, not copyable; unmaps in its destructor. The mapping starts
/// page-aligned, so view() can use the payload in place. Pages are read on
/// first touch: mapping a large file costs nothing until it is queried.
/// The file must not be truncated while mapped (the OS would raise SIGBUS on
/// access); save() never does that, it replaces files by rename.
class mapped_file {
 public:
  /// An empty map (bytes() is empty).
  mapped_file() noexcept = default;

  /// Maps `path`. Throws errc::io naming the path if it cannot be opened or
  /// mapped or is not a regular file. An empty file maps to empty bytes().
  explicit mapped_file(const std::filesystem::path& path) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open it", errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int code = errno;
      ::close(fd);
      fail("cannot stat it", code);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      fail("it is not a regular file", 0);
    }
    if (static_cast<std::uintmax_t>(st.st_size) > static_cast<std::uintmax_t>(SIZE_MAX)) {
      ::close(fd);
      fail("it is larger than this process can map", 0);
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > 0) {
      void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data == MAP_FAILED) {
        const int code = errno;
        ::close(fd);
        fail("mmap failed", code);
      }
      data_ = data;
      size_ = size;
    }
    ::close(fd);  // the mapping keeps the file alive
  }

  mapped_file(mapped_file&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), path_(std::move(other.path_)) {}
  mapped_file& operator=(mapped_file&& other) noexcept {
    if (this != &other) {
      unmap();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      path_ = std::move(other.path_);
    }
    return *this;
  }
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file() { unmap(); }

  /// The file's bytes; valid while this object (or one it was moved into) lives.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {static_cast<const std::byte*>(data_), size_};
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  void unmap() noexcept {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }
  [[noreturn]] void fail(const std::string& what, int code) const {
    throw error(errc::io, "bloomkit: cannot map '" + path_.string() + "': " + what +
                              (code != 0 ? ": " + detail::format::errno_text(code) : std::string()));
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::filesystem::path path_;
};

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

/// load() of the file at `path` (mapped, or read if it is a pipe or
/// device). Errors name the path; errc::io when it cannot be read.
inline any_filter load(const std::filesystem::path& path) {
  return detail::format::naming_path(path, [&]() -> any_filter {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      const mapped_file file(path);
      return load(file.bytes());
    }
    const auto bytes = detail::format::read_whole_file(path);
    return load(std::span<const std::byte>(bytes));
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
  if (in.bad()) throw error(errc::io, "bloomkit: reading the filter from the input stream failed");
  return load(std::span<const std::byte>(bytes));
}

/// The Filter stored in `bytes` (an owning filter type). Throws
/// errc::mismatch if the file holds another kind, errc::hash_mismatch if
/// `expected_hash` is given and differs from the stored hash_spec, and
/// whatever load() throws for bad bytes.
template <serializable_filter Filter>
Filter load_as(std::span<const std::byte> bytes, std::optional<hash_spec> expected_hash = {}) {
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
Filter load_as(const std::filesystem::path& path, std::optional<hash_spec> expected_hash = {}) {
  return detail::format::naming_path(path, [&]() -> Filter {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      const mapped_file file(path);
      return load_as<Filter>(file.bytes(), expected_hash);
    }
    const auto bytes = detail::format::read_whole_file(path);
    return load_as<Filter>(std::span<const std::byte>(bytes), expected_hash);
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
                                                 std::optional<hash_spec> expected_hash = {},
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
  info.inserted = file.head.inserted;
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

/// inspect() of the file at `path` (mapped); errors name the path.
inline file_info inspect(const std::filesystem::path& path) {
  return detail::format::naming_path(path, [&]() -> file_info {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      const mapped_file file(path);
      return inspect(file.bytes());
    }
    const auto bytes = detail::format::read_whole_file(path);
    return inspect(std::span<const std::byte>(bytes));
  });
}

}  // namespace bloomkit
