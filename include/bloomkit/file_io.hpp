// bloomkit/file_io.hpp - the POSIX file plumbing under save/load: a
// read-only memory map of a whole file, an atomic (temp file + fsync +
// rename) writer, and with_file_bytes, the one way the library reads a
// whole file (read(), never mapped: docs/RELIABILITY.md).
//
// Every system call here retries EINTR except close(); an interrupted or
// killed save leaves no temporary file behind for long: a caught signal can
// remove it at once (remove_unfinished_saves), and the next save to the
// same name removes a dead process's (atomic_file_writer).
//
// Nothing here knows the file format; the CLI uses it for every output it
// writes (filters, Parquet files) so that a failed command changes nothing.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit {

namespace detail {
inline std::string errno_text(int code) { return std::generic_category().message(code); }

/// Calls fn() again while it fails with EINTR: a signal arrived before the
/// call did anything (POSIX, "Signal Effects on Other Functions"), so the
/// same call is still the right one. Never used for close(): Linux frees
/// the descriptor even when close() reports EINTR, and a second close()
/// could close a descriptor another thread has just been given.
template <class Fn>
auto retry_on_eintr(Fn&& fn) {
  for (;;) {
    const auto result = fn();
    if (!(result == decltype(result)(-1) && errno == EINTR)) return result;
  }
}

/// Closes a descriptor that was only read: its close() cannot lose data, so
/// its error (EINTR, EIO on a network file system) changes nothing.
inline void close_read_only(int fd) noexcept { (void)::close(fd); }

/// Bytes read from a file into memory (not zero-filled first, unlike a
/// std::vector; 16-byte aligned, enough for load(), not for view()).
struct file_bytes {
  std::unique_ptr<std::byte[]> data;
  std::size_t size = 0;
  [[nodiscard]] std::span<const std::byte> span() const noexcept { return {data.get(), size}; }
};

/// A buffer of `bytes` bytes, or errc::out_of_memory saying how many bytes
/// `what` needed for `path` ("out of memory: reading 'PATH' needs ...").
inline std::unique_ptr<std::byte[]> allocate_bytes(std::size_t bytes, const std::string& what,
                                                   const std::filesystem::path& path) {
  try {
    return std::unique_ptr<std::byte[]>(new std::byte[bytes]);
  } catch (const std::bad_alloc&) {
    throw error::from_library(errc::out_of_memory, "out of memory: " + what, path.string(),
                              " needs " + std::to_string(bytes) + " bytes (" +
                                  std::to_string((bytes + (1U << 20) - 1) >> 20) + " MiB)");
  }
}

/// Every byte of `path`, by read() calls (files, pipes, devices alike), so
/// the bytes a caller checks are the bytes it keeps: a file truncated or
/// rewritten meanwhile gives a short or altered copy, which the format's
/// lengths and checksums then reject, never SIGBUS (docs/RELIABILITY.md).
/// Regular files are read into one buffer of their size; others grow as
/// data arrives. errc::io naming the path when the system refuses;
/// errc::out_of_memory naming the bytes when the buffer cannot be had.
inline file_bytes read_file_bytes(const std::filesystem::path& path) {
  const int fd = retry_on_eintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); });
  if (fd < 0) throw error::from_library(errc::io, "cannot open", path.string(), ": " + detail::errno_text(errno));
  struct closer {
    int fd;
    ~closer() { close_read_only(fd); }
  } guard{fd};
  struct stat st {};
  std::size_t capacity = 65536;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (static_cast<std::uintmax_t>(st.st_size) >= static_cast<std::uintmax_t>(SIZE_MAX)) {
      throw error::from_library(errc::io, "cannot read", path.string(), ": it is larger than this process can hold");
    }
    capacity = static_cast<std::size_t>(st.st_size) + 1;  // +1: seeing EOF needs no second buffer
  } else if (S_ISDIR(st.st_mode)) {
    throw error::from_library(errc::io, "cannot read", path.string(), ": it is a directory");
  }
  file_bytes out;
  out.data = allocate_bytes(capacity, "reading", path);
  for (;;) {
    if (out.size == capacity) {  // the file grew, or is a pipe: double
      const std::size_t bigger = capacity * 2;
      auto grown = allocate_bytes(bigger, "reading", path);
      std::memcpy(grown.get(), out.data.get(), out.size);
      out.data = std::move(grown);
      capacity = bigger;
    }
    const ssize_t got =
        retry_on_eintr([&] { return ::read(fd, out.data.get() + out.size, capacity - out.size); });
    if (got < 0) throw error::from_library(errc::io, "cannot read", path.string(), ": " + detail::errno_text(errno));
    if (got == 0) break;
    out.size += static_cast<std::size_t>(got);
  }
  return out;
}

// ---- unfinished saves: removed on a signal, or by the next save after a SIGKILL ----

/// The temporary files of saves in progress, in a fixed table a signal
/// handler can walk without allocating or locking (see
/// bloomkit::remove_unfinished_saves). A path longer than a slot, or a 65th
/// concurrent save, is simply not listed: the save still works, only a
/// signal during it would leave its temporary file (which the next save to
/// that name then removes).
struct unfinished_save {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 listed
  char path[4096] = {};
};
inline constexpr std::size_t unfinished_save_slots = 64;
inline unfinished_save unfinished_saves[unfinished_save_slots];

/// Lists `path`; returns its slot, or -1 if it could not be listed.
inline int list_unfinished_save(const char* path) noexcept {
  const std::size_t length = std::strlen(path);
  if (length >= sizeof unfinished_saves[0].path) return -1;
  for (std::size_t i = 0; i < unfinished_save_slots; ++i) {
    int expected = 0;
    if (unfinished_saves[i].state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
      std::memcpy(unfinished_saves[i].path, path, length + 1);
      unfinished_saves[i].state.store(2, std::memory_order_release);
      return static_cast<int>(i);
    }
  }
  return -1;
}

inline void unlist_unfinished_save(int slot) noexcept {
  if (slot >= 0) unfinished_saves[slot].state.store(0, std::memory_order_release);
}

/// True if `name` is "." + target + ".tmp." + PID "." COUNTER "." STAMP
/// (what atomic_file_writer makes); sets `pid`.
inline bool parse_temporary_name(std::string_view name, std::string_view target, long long& pid) noexcept {
  const std::string_view tmp = ".tmp.";
  if (name.size() < 1 + target.size() + tmp.size() || name[0] != '.' || name.substr(1, target.size()) != target ||
      name.substr(1 + target.size(), tmp.size()) != tmp) {
    return false;
  }
  std::string_view rest = name.substr(1 + target.size() + tmp.size());
  long long numbers[3] = {0, 0, 0};
  for (int part = 0; part < 3; ++part) {
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9' && digits < 18) {
      numbers[part] = numbers[part] * 10 + (rest[digits] - '0');
      ++digits;
    }
    if (digits == 0) return false;
    rest.remove_prefix(digits);
    if (part < 2) {
      if (rest.empty() || rest[0] != '.') return false;
      rest.remove_prefix(1);
    }
  }
  if (!rest.empty()) return false;
  pid = numbers[0];
  return true;
}

/// Removes the temporary files that saves to `target` in `folder` left
/// when their process died without cleaning up (SIGKILL, power loss): the
/// name must be exactly save()'s pattern for this target and its process
/// id must name no living process (kill(pid, 0) fails with ESRCH). A file
/// of a living process, or of another target, is never touched. Best
/// effort: an unreadable folder is left as it is. (A process id reused by
/// an unrelated process keeps its leftover until that process ends.)
inline void remove_dead_saves(const std::filesystem::path& folder, const std::string& target) noexcept {
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return;
  const int dir_fd = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    long long pid = 0;
    if (!parse_temporary_name(entry->d_name, target, pid)) continue;
    if (pid <= 0 || pid == static_cast<long long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    (void)::unlinkat(dir_fd, entry->d_name, 0);
  }
  ::closedir(dir);
}

}  // namespace detail

/// All bytes of `path` by read() calls (files, pipes, devices alike); see
/// with_file_bytes for why reading, not mapping. errc::io naming the path;
/// errc::out_of_memory naming the bytes. Deprecated: it copies what
/// with_file_bytes lends without a copy, and nothing in bloomkit calls it.
[[deprecated("copies the file a second time; use with_file_bytes(path, fn), which lends the bytes without a copy")]]
inline std::vector<std::byte> read_whole_file(const std::filesystem::path& path) {
  const detail::file_bytes bytes = detail::read_file_bytes(path);
  return std::vector<std::byte>(bytes.data.get(), bytes.data.get() + bytes.size);
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
    // The rename in commit() would replace a device, pipe or socket with a
    // regular file (-o /dev/full run as root turned the device into a file
    // and reported success): refuse them, so nothing is changed.
    struct ::stat existing {};
    if (::stat(target.c_str(), &existing) == 0 && (S_ISCHR(existing.st_mode) || S_ISBLK(existing.st_mode) ||
                                                   S_ISFIFO(existing.st_mode) || S_ISSOCK(existing.st_mode))) {
      fail_io("it is a device, pipe or socket, not a regular file; a save writes a new file and renames it over "
              "the target, which would replace it",
              0);
    }
    const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    folder_ = folder;
    detail::remove_dead_saves(folder, name.string());
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
      fd_ = detail::retry_on_eintr([&] { return ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); });
      if (fd_ >= 0) {
        slot_ = detail::list_unfinished_save(temp_.c_str());  // no allocation: nothing may throw past the open
        return;
      }
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
    detail::unlist_unfinished_save(slot_);
  }

  /// Appends `bytes`; errc::io (naming the target) when the system refuses.
  void write(std::span<const std::byte> bytes) {
    const std::byte* at = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
      const ssize_t put = detail::retry_on_eintr([&] { return ::write(fd_, at, left); });
      if (put <= 0) fail_io("writing failed", put < 0 ? errno : EIO);
      at += put;
      left -= static_cast<std::size_t>(put);
    }
  }

  /// fsync, close, rename over the target, then fsync the folder so the
  /// rename itself survives a crash (best effort: some file systems refuse
  /// fsync on a folder, and the file is already complete either way).
  ///
  /// An fsync that fails is reported, never retried (after EIO Linux may
  /// mark the pages clean, so a second fsync could succeed with the data
  /// lost); EINTR is retried everywhere except close(), whose EINTR means
  /// the descriptor is closed and, after a good fsync, the data is safe.
  void commit() {
    if (detail::retry_on_eintr([&] { return ::fsync(fd_); }) != 0) fail_io("fsync failed", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && errno != EINTR) fail_io("closing the temporary file failed", errno);
    if (detail::retry_on_eintr([&] { return ::rename(temp_.c_str(), target_.c_str()); }) != 0) {
      fail_io("renaming the temporary file over it failed", errno);
    }
    committed_ = true;
    detail::unlist_unfinished_save(std::exchange(slot_, -1));
    // Nothing after the rename may throw (the file is in place: the caller
    // must see success), so the folder's name was made in the constructor.
    const int dir = detail::retry_on_eintr([&] { return ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    if (dir >= 0) {
      (void)detail::retry_on_eintr([&] { return ::fsync(dir); });
      detail::close_read_only(dir);
    }
  }

 private:
  [[noreturn]] void fail_io(const std::string& what, int code) const {
    throw error::from_library(errc::io, "cannot save", target_.string(),
                              ": " + what + (code != 0 ? ": " + detail::errno_text(code) : std::string()));
  }
  std::filesystem::path target_;
  std::filesystem::path folder_;
  std::filesystem::path temp_;
  int fd_ = -1;
  int slot_ = -1;  // in unfinished_saves
  bool committed_ = false;
};

/// Removes the temporary file of every save() in progress in this process.
/// Async-signal-safe (no allocation, no lock, only unlink()): call it from
/// a SIGINT/SIGTERM handler before the process ends, as the bloomkit CLI
/// does, so an interrupted save leaves nothing behind. The saves themselves
/// then fail (their file is gone) if the process goes on. A process killed
/// by SIGKILL cannot run it; the next save to the same name removes what
/// it left (see save()).
inline void remove_unfinished_saves() noexcept {
  for (auto& slot : detail::unfinished_saves) {
    if (slot.state.load(std::memory_order_acquire) == 2) (void)::unlink(slot.path);
  }
}

// ---- mapping ------------------------------------------------------------------

/// A read-only memory map of a whole regular file (POSIX mmap, MAP_PRIVATE).
/// Movable, not copyable; unmaps in its destructor. The mapping starts
/// page-aligned, so view() can use the payload in place. Pages are read on
/// first touch: mapping a large file costs nothing until it is queried.
///
/// Files that change while mapped (docs/RELIABILITY.md, "Files that change
/// under a reader"):
///  * replaced by rename (what save() does): harmless; the map keeps the
///    old file, which lives until it is unmapped;
///  * truncated: touching a page past the new end raises SIGBUS, which a
///    library cannot turn into an exception. Do not truncate a mapped file;
///    bloomkit never does. A program that must survive it handles SIGBUS
///    (the bloomkit CLI reports it and exits 2) or uses load(path), which
///    reads instead of mapping;
///  * rewritten in place: the map shows the new bytes (MAP_PRIVATE pages
///    not yet copied follow the file), so a view may answer from a mix of
///    old and new words. Write filters with save(), never in place.
class mapped_file {
 public:
  /// An empty map (bytes() is empty).
  mapped_file() noexcept = default;

  /// Maps `path`. Throws errc::io naming the path if it cannot be opened or
  /// mapped or is not a regular file. An empty file maps to empty bytes().
  explicit mapped_file(const std::filesystem::path& path) : path_(path) {
    using detail::close_read_only;
    const int fd = detail::retry_on_eintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); });
    if (fd < 0) fail("cannot open it", errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int code = errno;
      close_read_only(fd);
      fail("cannot stat it", code);
    }
    if (!S_ISREG(st.st_mode)) {
      close_read_only(fd);
      fail("it is not a regular file", 0);
    }
    if (static_cast<std::uintmax_t>(st.st_size) > static_cast<std::uintmax_t>(SIZE_MAX)) {
      close_read_only(fd);
      fail("it is larger than this process can map", 0);
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > 0) {
      void* data = MAP_FAILED;
      for (;;) {  // mmap does not return EINTR on Linux; other systems may
        data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (data != MAP_FAILED || errno != EINTR) break;
      }
      if (data == MAP_FAILED) {
        const int code = errno;
        close_read_only(fd);
        fail("mmap failed", code);
      }
      data_ = data;
      size_ = size;
    }
    close_read_only(fd);  // the mapping keeps the file alive
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
    throw error::from_library(errc::io, "cannot map", path_.string(),
                              ": " + what + (code != 0 ? ": " + detail::errno_text(code) : std::string()));
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::filesystem::path path_;
};

/// Calls fn(std::span<const std::byte>) with all bytes of `path` and returns
/// its result. The bytes are read with read() into memory, for regular
/// files too, never mapped: what fn checks is what it keeps, so a file
/// truncated or rewritten meanwhile gives fn a short or altered copy (which
/// the format's lengths and checksums reject), never SIGBUS or a mix of two
/// versions. Costs the file's size in memory during the call; load() copies
/// the payload anyway. The bytes are valid only during the call. Throws
/// errc::io naming the path, errc::out_of_memory naming the bytes. (For
/// zero-copy access to a large filter use open_mapped and its contract.)
template <class Fn>
decltype(auto) with_file_bytes(const std::filesystem::path& path, Fn&& fn) {
  const detail::file_bytes bytes = detail::read_file_bytes(path);
  return fn(bytes.span());
}

}  // namespace bloomkit
