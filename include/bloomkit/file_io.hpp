// bloomkit/file_io.hpp - the POSIX file plumbing under save/load: a
// read-only memory map of a whole file, an atomic (temp file + fsync +
// rename) writer, and with_file_bytes, the one place that tells a regular
// file (mapped) from a pipe or device (read to its end).
//
// Nothing here knows the file format; the CLI uses it for every output it
// writes (filters, Parquet files) so that a failed command changes nothing.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit {

namespace detail {
inline std::string errno_text(int code) { return std::generic_category().message(code); }
}  // namespace detail

/// All bytes of `path` by read() calls, for files that cannot be mapped
/// (pipes, character devices). Grows only as data arrives.
inline std::vector<std::byte> read_whole_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw error(errc::io, "bloomkit: cannot open '" + path.string() + "': " + detail::errno_text(errno));
  std::vector<std::byte> bytes;
  std::byte chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int code = errno;
      ::close(fd);
      throw error(errc::io, "bloomkit: cannot read '" + path.string() + "': " + detail::errno_text(code));
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
                              (code != 0 ? ": " + detail::errno_text(code) : std::string()));
  }
  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
};

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
                              (code != 0 ? ": " + detail::errno_text(code) : std::string()));
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::filesystem::path path_;
};

/// Calls fn(std::span<const std::byte>) with all bytes of `path` and returns
/// its result: a regular file is mapped (mapped_file), anything else (a pipe,
/// /dev/stdin, a character device) is read to its end (read_whole_file).
/// The bytes are valid only during the call. Throws errc::io naming the path.
template <class Fn>
decltype(auto) with_file_bytes(const std::filesystem::path& path, Fn&& fn) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    const mapped_file file(path);
    return fn(file.bytes());
  }
  const auto bytes = read_whole_file(path);
  return fn(std::span<const std::byte>(bytes));
}

}  // namespace bloomkit
