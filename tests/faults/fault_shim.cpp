// tests/faults/fault_shim.cpp - fails the Nth call of one system call, the
// way SQLite's I/O-error and out-of-memory tests do, so a loop over N proves
// every failure point an operation reaches (docs/RELIABILITY.md).
//
// Two ways in:
//  * LD_PRELOAD=libbloomkit_fault_shim.so with
//      BLOOMKIT_FAULT=CALL:N:ACTION        e.g. write:3:ENOSPC, read:1:EINTR
//      BLOOMKIT_FAULT_FIRED=PATH           created when the fault fires
//    for a whole process (the CLI, Python). A loop runs N = 1, 2, ... until
//    a run in which the fault did not fire: then every call was covered.
//  * Linked into a test executable (its definitions then interpose on libc
//    for the whole process, libstdc++ included), driven in-process through
//    bloomkit_fault_arm / bloomkit_fault_disarm / bloomkit_fault_fired.
//
// CALL names a family: open (open, open64, openat, openat64, creat, fopen,
// fopen64), read (read, pread, pread64), write (write, pwrite, pwrite64),
// fsync (fsync, fdatasync), rename (rename, renameat, renameat2), mmap
// (mmap, mmap64), close, ftruncate (ftruncate, ftruncate64) and malloc
// (malloc, calloc, realloc, aligned_alloc, posix_memalign, memalign; only
// with LD_PRELOAD, through glibc's __libc_* entry points).
// malloc:BYTES:BIG fails every allocation of BYTES or more (a process
// whose large allocations all fail, as under a tight ulimit -v).
// BLOOMKIT_FAULT_COUNTS=PATH: at a normal exit, the calls of each family.
// ACTION: an errno name (EIO, ENOSPC, EACCES, EINTR, ENOMEM, EPERM, EROFS,
// EDQUOT, EFBIG) returned with -1 / MAP_FAILED / NULL without doing the call
// (close still closes: Linux frees the descriptor whatever close returns);
// SHORT (read/write do half the bytes, at least one); TRUNCATE (truncate
// the file BLOOMKIT_FAULT_VICTIM names to 0 bytes, then do the call: another
// program shrinking a file this one reads or maps); REPLACE (rename
// BLOOMKIT_FAULT_REPLACEMENT over BLOOMKIT_FAULT_VICTIM, then do the call);
// or a signal name
// (SIGINT, SIGTERM, SIGKILL, SIGBUS) raised at that call, as a Ctrl-C or
// `kill` arriving mid-operation would.
//
// Only the Nth call fails (one shot); the calls before and after it work.
// The shim's own bookkeeping uses raw syscalls, so it never counts itself.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
}

namespace {

enum family : int { f_none = -1, f_open, f_read, f_write, f_fsync, f_rename, f_mmap, f_close, f_ftruncate, f_malloc, f_count };
constexpr const char* family_names[f_count] = {"open",  "read",  "write",     "fsync", "rename",
                                               "mmap",  "close", "ftruncate", "malloc"};

enum class action_kind { error, short_io, signal, truncate, replace, big };

struct plan {
  std::atomic<int> family{f_none};
  std::atomic<long> target{0};
  std::atomic<long> calls{0};
  std::atomic<bool> fired{false};
  action_kind kind = action_kind::error;
  int value = 0;  // errno or signal number
  char fired_path[512] = {0};
  char counts_path[512] = {0};       // BLOOMKIT_FAULT_COUNTS
  char victim_path[512] = {0};       // BLOOMKIT_FAULT_VICTIM
  char replacement_path[512] = {0};  // BLOOMKIT_FAULT_REPLACEMENT
};

plan g_plan;
std::atomic<long> g_calls[f_count];

struct name_value {
  const char* name;
  int value;
};
constexpr name_value errno_names[] = {{"EIO", EIO},     {"ENOSPC", ENOSPC}, {"EACCES", EACCES}, {"EINTR", EINTR},
                                      {"ENOMEM", ENOMEM}, {"EPERM", EPERM}, {"EROFS", EROFS},   {"EDQUOT", EDQUOT},
                                      {"EFBIG", EFBIG},   {"EAGAIN", EAGAIN}};
constexpr name_value signal_names[] = {{"SIGINT", SIGINT}, {"SIGTERM", SIGTERM}, {"SIGKILL", SIGKILL},
                                       {"SIGBUS", SIGBUS}, {"SIGHUP", SIGHUP}};

void raw_write_err(const char* text) { (void)syscall(SYS_write, 2, text, std::strlen(text)); }

/// Parses "CALL:N:ACTION" without allocating (this may run inside malloc).
bool configure(const char* spec) {
  if (spec == nullptr || *spec == '\0') return false;
  const char* colon1 = std::strchr(spec, ':');
  if (colon1 == nullptr) return false;
  const char* colon2 = std::strchr(colon1 + 1, ':');
  if (colon2 == nullptr) return false;
  int fam = f_none;
  for (int i = 0; i < f_count; ++i) {
    const std::size_t len = std::strlen(family_names[i]);
    if (static_cast<std::size_t>(colon1 - spec) == len && std::strncmp(spec, family_names[i], len) == 0) fam = i;
  }
  long n = 0;
  for (const char* p = colon1 + 1; p < colon2; ++p) {
    if (*p < '0' || *p > '9') return false;
    n = n * 10 + (*p - '0');
  }
  const char* act = colon2 + 1;
  action_kind kind = action_kind::error;
  int value = 0;
  bool known = false;
  if (std::strcmp(act, "SHORT") == 0) {
    kind = action_kind::short_io;
    known = true;
  }
  if (std::strcmp(act, "TRUNCATE") == 0) {
    kind = action_kind::truncate;
    known = true;
  }
  if (std::strcmp(act, "REPLACE") == 0) {
    kind = action_kind::replace;
    known = true;
  }
  if (std::strcmp(act, "BIG") == 0) {  // malloc only: every request of N bytes or more fails
    kind = action_kind::big;
    known = true;
  }
  for (const auto& e : errno_names) {
    if (std::strcmp(act, e.name) == 0) kind = action_kind::error, value = e.value, known = true;
  }
  for (const auto& s : signal_names) {
    if (std::strcmp(act, s.name) == 0) kind = action_kind::signal, value = s.value, known = true;
  }
  if (fam == f_none || n <= 0 || !known) return false;
  if (kind == action_kind::short_io && fam != f_read && fam != f_write) return false;  // only I/O can be short
  if (kind == action_kind::big && fam != f_malloc) return false;
  g_plan.kind = kind;
  g_plan.value = value;
  g_plan.calls.store(0);
  g_plan.fired.store(false);
  g_plan.target.store(n);
  g_plan.family.store(fam);
  return true;
}

struct env_loader {
  env_loader() {
    const char* spec = std::getenv("BLOOMKIT_FAULT");
    if (const char* fired = std::getenv("BLOOMKIT_FAULT_FIRED"); fired != nullptr) {
      std::strncpy(g_plan.fired_path, fired, sizeof g_plan.fired_path - 1);
    }
    if (const char* counts = std::getenv("BLOOMKIT_FAULT_COUNTS"); counts != nullptr) {
      std::strncpy(g_plan.counts_path, counts, sizeof g_plan.counts_path - 1);
    }
    if (const char* victim = std::getenv("BLOOMKIT_FAULT_VICTIM"); victim != nullptr) {
      std::strncpy(g_plan.victim_path, victim, sizeof g_plan.victim_path - 1);
    }
    if (const char* replacement = std::getenv("BLOOMKIT_FAULT_REPLACEMENT"); replacement != nullptr) {
      std::strncpy(g_plan.replacement_path, replacement, sizeof g_plan.replacement_path - 1);
    }
    if (spec != nullptr && *spec != '\0' && !configure(spec)) {
      raw_write_err("fault_shim: cannot parse BLOOMKIT_FAULT (want CALL:N:ACTION)\n");
      _exit(99);
    }
  }
  /// At a normal exit: "CALL COUNT" per family into BLOOMKIT_FAULT_COUNTS,
  /// so a loop knows how many calls there are to fail (raw syscalls only).
  ~env_loader() {
    if (g_plan.counts_path[0] == '\0') return;
    const long fd = syscall(SYS_openat, AT_FDCWD, g_plan.counts_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    for (int i = 0; i < f_count; ++i) {
      char line[64];
      const int n = snprintf(line, sizeof line, "%s %ld\n", family_names[i], g_calls[i].load());
      if (n > 0) (void)syscall(SYS_write, fd, line, static_cast<size_t>(n));
    }
    syscall(SYS_close, fd);
  }
};
// Runs before main (and before most of libstdc++'s users): a constructor
// with the highest priority an application may take.
__attribute__((init_priority(101))) env_loader g_env_loader;

enum class verdict { pass, fail_error, fail_short };

/// Counts one call of `fam`; says whether this one is the planned failure.
/// A signal action is raised here and, if the process survives it (a
/// handler returned), the call then proceeds normally.
verdict count(int fam) {
  g_calls[fam].fetch_add(1, std::memory_order_relaxed);
  if (g_plan.family.load(std::memory_order_acquire) != fam) return verdict::pass;
  const long n = g_plan.calls.fetch_add(1) + 1;
  if (n != g_plan.target.load()) return verdict::pass;
  g_plan.fired.store(true);
  if (g_plan.fired_path[0] != '\0') {
    const long fd = syscall(SYS_openat, AT_FDCWD, g_plan.fired_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) syscall(SYS_close, fd);
  }
  switch (g_plan.kind) {
    case action_kind::error:
      return verdict::fail_error;
    case action_kind::short_io:
      return verdict::fail_short;
    case action_kind::signal:
      (void)syscall(SYS_kill, syscall(SYS_getpid), g_plan.value);
      return verdict::pass;
    case action_kind::truncate:
      // Another program truncating a file this one reads or has mapped.
      (void)syscall(SYS_truncate, g_plan.victim_path, 0L);
      return verdict::pass;
    case action_kind::big:
      return verdict::pass;  // decided by size in malloc_fails
    case action_kind::replace:
      // Another program replacing it by rename (as save() does).
      (void)syscall(SYS_rename, g_plan.replacement_path, g_plan.victim_path);
      return verdict::pass;
  }
  return verdict::pass;
}

template <class Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

#define BLOOMKIT_REAL(name, type)                 \
  static const auto real = next<type>(#name);     \
  if (real == nullptr) {                          \
    raw_write_err("fault_shim: no next " #name "\n"); \
    _exit(98);                                    \
  }

}  // namespace

extern "C" {

// ---- control, for tests that link the shim in -------------------------------------------

/// Arms the fault "CALL:N:ACTION" (see the top of this file); returns false
/// if the text does not parse. Counting starts at zero.
__attribute__((visibility("default"))) bool bloomkit_fault_arm(const char* spec) { return configure(spec); }
/// Disarms; later calls all pass.
__attribute__((visibility("default"))) void bloomkit_fault_disarm() { g_plan.family.store(f_none); }
/// True if the armed fault has fired since it was armed.
__attribute__((visibility("default"))) bool bloomkit_fault_fired() { return g_plan.fired.load(); }
/// Calls of family `name` seen since the process started.
__attribute__((visibility("default"))) long bloomkit_fault_calls(const char* name) {
  for (int i = 0; i < f_count; ++i) {
    if (std::strcmp(name, family_names[i]) == 0) return g_calls[i].load();
  }
  return -1;
}

// ---- open ---------------------------------------------------------------------------------
#define BLOOMKIT_FAIL_INT(fam)                           \
  do {                                                   \
    if (count(fam) != verdict::pass) {                   \
      errno = g_plan.value != 0 ? g_plan.value : EIO;    \
      return -1;                                         \
    }                                                    \
  } while (0)

static mode_t mode_arg(int flags, va_list ap) {
  return (flags & (O_CREAT | __O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

int open(const char* path, int flags, ...) {
  BLOOMKIT_REAL(open, int (*)(const char*, int, ...));
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  BLOOMKIT_FAIL_INT(f_open);
  return real(path, flags, mode);
}
int open64(const char* path, int flags, ...) {
  BLOOMKIT_REAL(open64, int (*)(const char*, int, ...));
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  BLOOMKIT_FAIL_INT(f_open);
  return real(path, flags, mode);
}
int openat(int dir, const char* path, int flags, ...) {
  BLOOMKIT_REAL(openat, int (*)(int, const char*, int, ...));
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  BLOOMKIT_FAIL_INT(f_open);
  return real(dir, path, flags, mode);
}
int openat64(int dir, const char* path, int flags, ...) {
  BLOOMKIT_REAL(openat64, int (*)(int, const char*, int, ...));
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  BLOOMKIT_FAIL_INT(f_open);
  return real(dir, path, flags, mode);
}
int creat(const char* path, mode_t mode) {
  BLOOMKIT_REAL(creat, int (*)(const char*, mode_t));
  BLOOMKIT_FAIL_INT(f_open);
  return real(path, mode);
}
FILE* fopen(const char* path, const char* mode) {
  BLOOMKIT_REAL(fopen, FILE* (*)(const char*, const char*));
  if (count(f_open) != verdict::pass) {
    errno = g_plan.value != 0 ? g_plan.value : EIO;
    return nullptr;
  }
  return real(path, mode);
}
FILE* fopen64(const char* path, const char* mode) {
  BLOOMKIT_REAL(fopen64, FILE* (*)(const char*, const char*));
  if (count(f_open) != verdict::pass) {
    errno = g_plan.value != 0 ? g_plan.value : EIO;
    return nullptr;
  }
  return real(path, mode);
}

// ---- read / write -------------------------------------------------------------------------
#define BLOOMKIT_IO(fam, call_with_count)                \
  do {                                                   \
    switch (count(fam)) {                                \
      case verdict::pass:                                \
        break;                                           \
      case verdict::fail_error:                          \
        errno = g_plan.value;                            \
        return -1;                                       \
      case verdict::fail_short:                          \
        if (n > 1) n /= 2;                               \
        break;                                           \
    }                                                    \
    return call_with_count;                              \
  } while (0)

ssize_t read(int fd, void* buf, size_t n) {
  BLOOMKIT_REAL(read, ssize_t (*)(int, void*, size_t));
  BLOOMKIT_IO(f_read, real(fd, buf, n));
}
ssize_t pread(int fd, void* buf, size_t n, off_t at) {
  BLOOMKIT_REAL(pread, ssize_t (*)(int, void*, size_t, off_t));
  BLOOMKIT_IO(f_read, real(fd, buf, n, at));
}
ssize_t pread64(int fd, void* buf, size_t n, off64_t at) {
  BLOOMKIT_REAL(pread64, ssize_t (*)(int, void*, size_t, off64_t));
  BLOOMKIT_IO(f_read, real(fd, buf, n, at));
}
ssize_t write(int fd, const void* buf, size_t n) {
  BLOOMKIT_REAL(write, ssize_t (*)(int, const void*, size_t));
  BLOOMKIT_IO(f_write, real(fd, buf, n));
}
ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  BLOOMKIT_REAL(pwrite, ssize_t (*)(int, const void*, size_t, off_t));
  BLOOMKIT_IO(f_write, real(fd, buf, n, at));
}
ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t at) {
  BLOOMKIT_REAL(pwrite64, ssize_t (*)(int, const void*, size_t, off64_t));
  BLOOMKIT_IO(f_write, real(fd, buf, n, at));
}

// ---- fsync, rename, close, ftruncate ------------------------------------------------------
int fsync(int fd) {
  BLOOMKIT_REAL(fsync, int (*)(int));
  BLOOMKIT_FAIL_INT(f_fsync);
  return real(fd);
}
int fdatasync(int fd) {
  BLOOMKIT_REAL(fdatasync, int (*)(int));
  BLOOMKIT_FAIL_INT(f_fsync);
  return real(fd);
}
int rename(const char* from, const char* to) {
  BLOOMKIT_REAL(rename, int (*)(const char*, const char*));
  BLOOMKIT_FAIL_INT(f_rename);
  return real(from, to);
}
int renameat(int fd1, const char* from, int fd2, const char* to) {
  BLOOMKIT_REAL(renameat, int (*)(int, const char*, int, const char*));
  BLOOMKIT_FAIL_INT(f_rename);
  return real(fd1, from, fd2, to);
}
int renameat2(int fd1, const char* from, int fd2, const char* to, unsigned flags) {
  BLOOMKIT_REAL(renameat2, int (*)(int, const char*, int, const char*, unsigned));
  BLOOMKIT_FAIL_INT(f_rename);
  return real(fd1, from, fd2, to, flags);
}
int close(int fd) {
  BLOOMKIT_REAL(close, int (*)(int));
  if (count(f_close) != verdict::pass) {
    // Linux releases the descriptor even when close reports an error, so
    // retrying close would close someone else's descriptor.
    (void)real(fd);
    errno = g_plan.value;
    return -1;
  }
  return real(fd);
}
int ftruncate(int fd, off_t length) {
  BLOOMKIT_REAL(ftruncate, int (*)(int, off_t));
  BLOOMKIT_FAIL_INT(f_ftruncate);
  return real(fd, length);
}
int ftruncate64(int fd, off64_t length) {
  BLOOMKIT_REAL(ftruncate64, int (*)(int, off64_t));
  BLOOMKIT_FAIL_INT(f_ftruncate);
  return real(fd, length);
}

// ---- mmap ---------------------------------------------------------------------------------
void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  BLOOMKIT_REAL(mmap, void* (*)(void*, size_t, int, int, int, off_t));
  if (count(f_mmap) != verdict::pass) {
    errno = g_plan.value != 0 ? g_plan.value : ENOMEM;
    return MAP_FAILED;
  }
  return real(addr, len, prot, flags, fd, off);
}
void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off64_t off) {
  BLOOMKIT_REAL(mmap64, void* (*)(void*, size_t, int, int, int, off64_t));
  if (count(f_mmap) != verdict::pass) {
    errno = g_plan.value != 0 ? g_plan.value : ENOMEM;
    return MAP_FAILED;
  }
  return real(addr, len, prot, flags, fd, off);
}

// ---- malloc (LD_PRELOAD only: a test that links the shim in keeps its own allocator) ------
#ifdef BLOOMKIT_FAULT_SHIM_MALLOC
static bool malloc_fails(size_t bytes) {
  if (g_plan.family.load(std::memory_order_relaxed) != f_malloc) {
    g_calls[f_malloc].fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (g_plan.kind == action_kind::big) {
    g_calls[f_malloc].fetch_add(1, std::memory_order_relaxed);
    if (bytes < static_cast<size_t>(g_plan.target.load())) return false;
    if (!g_plan.fired.exchange(true) && g_plan.fired_path[0] != '\0') {
      const long fd = syscall(SYS_openat, AT_FDCWD, g_plan.fired_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd >= 0) syscall(SYS_close, fd);
    }
    errno = ENOMEM;
    return true;
  }
  if (count(f_malloc) == verdict::pass) return false;
  errno = ENOMEM;
  return true;
}
void* malloc(size_t n) { return malloc_fails(n) ? nullptr : __libc_malloc(n); }
void* calloc(size_t count_, size_t n) { return malloc_fails(count_ * n) ? nullptr : __libc_calloc(count_, n); }
void* realloc(void* p, size_t n) { return malloc_fails(n) ? nullptr : __libc_realloc(p, n); }
void* memalign(size_t align, size_t n) { return malloc_fails(n) ? nullptr : __libc_memalign(align, n); }
void* aligned_alloc(size_t align, size_t n) { return malloc_fails(n) ? nullptr : __libc_memalign(align, n); }
int posix_memalign(void** out, size_t align, size_t n) {
  if (align < sizeof(void*) || (align & (align - 1)) != 0) return EINVAL;
  if (malloc_fails(n)) return ENOMEM;
  void* p = __libc_memalign(align, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
#endif

}  // extern "C"
