// tests/faults_library_test.cpp - the library's own file calls under the
// fault shim (tests/faults/fault_shim.cpp, linked into this test, so its
// open/read/write/... stand in for libc's in this whole process), and files
// that change under a reader (docs/RELIABILITY.md).
//
// For save(path), load(path), load_as(path), inspect(path), mapped_file and
// open_mapped(path): fail the Nth call of each family with EIO, ENOSPC,
// EACCES and EINTR for N = 1, 2, ... until the call is no longer reached.
// Each must end in success identical to the fault-free result (always so
// for EINTR, and for short reads and writes) or in bloomkit::error with
// errc::io, with the previous file intact and no temporary file left.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "test_support.hpp"

// ---- an operator new that fails the Nth allocation, when armed ----------------------------------
namespace {
std::atomic<long> g_fail_at{0};  // 0: never
std::atomic<long> g_allocations{0};
void* counted_new(std::size_t n) {
  const long at = g_fail_at.load(std::memory_order_relaxed);
  if (at != 0 && g_allocations.fetch_add(1, std::memory_order_relaxed) + 1 == at) throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t n) { return counted_new(n); }
void* operator new[](std::size_t n) { return counted_new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

extern "C" {
bool bloomkit_fault_arm(const char* spec);
void bloomkit_fault_disarm();
bool bloomkit_fault_fired();
}

namespace {

namespace fs = std::filesystem;
using namespace bloomkit;
using bloomkit::test::read_file_bytes;

const std::vector<std::string> calls = {"open", "read", "write", "fsync", "rename", "mmap", "close", "ftruncate"};
const std::vector<std::string> errors = {"EIO", "ENOSPC", "EACCES", "EINTR", "SHORT"};

class scratch {
 public:
  scratch() {
    std::string templ = (fs::temp_directory_path() / "bloomkit-faults-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    path_ = templ;
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

blocked_bloom sample(std::uint64_t first, std::uint64_t n) {
  blocked_bloom f(1000, 0.01);
  for (std::uint64_t i = first; i < first + n; ++i) f.insert(i);
  return f;
}

struct counts {
  std::uint64_t cases = 0, errors = 0;
};

/// Runs op() under every (call, errno, N); `check` judges each ending
/// (threw: the errc, or errc{} for success).
counts loop(const std::string& what, const std::function<void()>& reset, const std::function<void()>& op,
            const std::function<void(const std::string& where, bool threw, errc code)>& check) {
  counts c;
  for (const auto& call : calls) {
    for (const auto& err : errors) {
      if (err == "SHORT" && call != "read" && call != "write") continue;  // only I/O can be short
      for (int n = 1; n < 1000; ++n) {
        reset();
        const std::string spec = call + ":" + std::to_string(n) + ":" + err;
        if (!bloomkit_fault_arm(spec.c_str())) {
          ADD_FAILURE() << "cannot arm " << spec;
          return c;
        }
        bool threw = false;
        errc code{};
        try {
          op();
        } catch (const bloomkit::error& e) {
          threw = true;
          code = e.code();
        } catch (const std::exception& e) {
          bloomkit_fault_disarm();
          ADD_FAILURE() << what << " with " << spec << ": not a bloomkit::error: " << e.what();
          continue;
        }
        const bool fired = bloomkit_fault_fired();
        bloomkit_fault_disarm();
        if (!fired) {
          EXPECT_FALSE(threw) << what << " with " << spec << " (not reached) threw";
          break;
        }
        ++c.cases;
        if (threw) {
          ++c.errors;
          EXPECT_NE(err, "EINTR") << what << " with " << spec << ": EINTR must be retried";
          EXPECT_NE(err, "SHORT") << what << " with " << spec << ": a short read/write must be finished";
        }
        check(what + " with " + spec, threw, code);
      }
    }
  }
  std::printf("[ faults   ] %-12s %4llu (call, errno, N) cases, %llu ended in bloomkit::error\n", what.c_str(),
              static_cast<unsigned long long>(c.cases), static_cast<unsigned long long>(c.errors));
  return c;
}

TEST(LibraryFaults, SaveEndsInTheNewFileOrTheOldOneAndNoTemporaryFile) {
  scratch dir;
  const fs::path out = dir.path() / "f.bkf";
  const blocked_bloom old_filter = sample(0, 100), new_filter = sample(1000, 300);
  const auto old_bytes = save_to_bytes(old_filter), new_bytes = save_to_bytes(new_filter);
  const counts c = loop(
      "save",
      [&] {
        for (const auto& name : dir.names()) fs::remove(dir.path() / name);
        std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(old_bytes.data()),
                                                   static_cast<std::streamsize>(old_bytes.size()));
      },
      [&] { save(new_filter, out); },
      [&](const std::string& where, bool threw, errc code) {
        EXPECT_EQ(dir.names(), std::vector<std::string>{"f.bkf"}) << where << ": a temporary file was left";
        if (threw) {
          EXPECT_EQ(code, errc::io) << where;
          EXPECT_EQ(read_file_bytes(out), old_bytes) << where << ": failed, but the previous file changed";
        } else {
          EXPECT_EQ(read_file_bytes(out), new_bytes) << where << ": succeeded with other bytes";
        }
      });
  EXPECT_GT(c.errors, 5U) << "save's open, write, fsync and rename can all fail";
}

TEST(LibraryFaults, LoadViewAndInspectReturnTheFilterOrATypedError) {
  scratch dir;
  const fs::path in = dir.path() / "f.bkf";
  const blocked_bloom filter = sample(0, 500);
  save(filter, in);
  const auto bytes = save_to_bytes(filter);
  const auto names = dir.names();
  auto reset = [] {};
  auto check = [&](const std::string& where, bool threw, errc code) {
    if (threw) {
      EXPECT_EQ(code, errc::io) << where << ": " << to_string(code);
    }
    EXPECT_EQ(dir.names(), names) << where;
    EXPECT_EQ(read_file_bytes(in), bytes) << where << ": a reader changed the file";
  };
  std::uint64_t total = 0;
  total += loop("load", reset, [&] {
             const auto f = load(in);
             ASSERT_EQ(save_to_bytes(f), bytes);
           }, check).cases;
  total += loop("load_as", reset, [&] {
             const auto f = load_as<blocked_bloom>(in);
             ASSERT_EQ(save_to_bytes(f), bytes);
           }, check).cases;
  total += loop("inspect", reset, [&] { ASSERT_TRUE(inspect(in).checksum_ok); }, check).cases;
  total += loop("open_mapped", reset, [&] {
             const auto m = open_mapped(in);
             ASSERT_EQ(save_to_bytes(m.filter), bytes);
           }, check).cases;
  EXPECT_GT(total, 20U);
}

// ---- files that change under a reader ---------------------------------------------------------

TEST(ChangingFiles, ReplacingAMappedFileByRenameNeverMatters) {
  scratch dir;
  const fs::path path = dir.path() / "f.bkf";
  const blocked_bloom a = sample(0, 400), b = sample(5000, 400);
  save(a, path);
  const mapped_filter mapped = open_mapped(path);
  const auto bytes_a = save_to_bytes(a);
  for (int round = 0; round < 5; ++round) {
    save(round % 2 == 0 ? b : a, path);  // rename over the mapped name
    const fs::path other = dir.path() / "other.bkf";
    save(b, other);
    fs::rename(other, path);  // and a plain rename too
    ASSERT_EQ(save_to_bytes(mapped.filter), bytes_a) << "the view must keep the file it mapped";
    for (std::uint64_t i = 0; i < 400; ++i) ASSERT_TRUE(std::get<blocked_bloom_view>(mapped.filter).may_contain(i));
  }
  EXPECT_EQ(save_to_bytes(load(path)), save_to_bytes(b)) << "new readers see the new file";
}

TEST(ChangingFiles, LoadOfATruncatedOrRewrittenFileIsATypedErrorNeverASignal) {
  scratch dir;
  const fs::path path = dir.path() / "f.bkf";
  const blocked_bloom a = sample(0, 400);
  save(a, path);
  const auto bytes = read_file_bytes(path);
  // Every length a truncation can leave, and an in-place rewrite of one
  // payload byte: load reads (never maps), so each is an error it returns.
  for (std::size_t size = 0; size < bytes.size(); size += (size < 200 ? 1 : 61)) {
    fs::resize_file(path, size);
    const errc code = bloomkit::test::error_code_of([&] { (void)load(path); });
    EXPECT_TRUE(code == errc::truncated || code == errc::corrupt) << size << ": " << to_string(code);
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(bytes.size() - 5));
    f.put('\x5a');
  }
  EXPECT_EQ(bloomkit::test::error_code_of([&] { (void)load(path); }), errc::checksum);
}

TEST(ChangingFiles, TruncatingAMappedFileIsTheDocumentedSigbus) {
  // The contract (mapped_file): a truncated mapping raises SIGBUS on the
  // next touch of a lost page; a library cannot catch it. This proves the
  // contract as documented (so a change in it is noticed) in a child.
  scratch dir;
  const fs::path path = dir.path() / "f.bkf";
  save(blocked_bloom(100000, 0.01), path);  // ~120 KiB: pages to lose
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGBUS, SIG_DFL);  // not a sanitizer's report: the signal itself
    const mapped_filter mapped = open_mapped(path);
    if (::truncate(path.c_str(), 0) != 0) _exit(3);
    std::uint64_t sum = 0;
    const auto bytes = mapped.file.bytes();
    for (std::size_t i = 0; i < bytes.size(); i += 4096) sum += static_cast<std::uint8_t>(bytes[i]);
    _exit(sum == 12345 ? 4 : 0);  // reached only if no SIGBUS came
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status) << ": the documented SIGBUS did not come";
  EXPECT_EQ(WTERMSIG(status), SIGBUS);
}

// ---- memory running out ------------------------------------------------------------------------

TEST(LibraryMemory, ConstructorsTooLargeToAllocateNameTheBytes) {
  struct attempt {
    const char* what;
    std::function<void()> make;
  };
  std::vector<attempt> attempts = {
      // 2^63 bits = 2^60 bytes: more than any address space.
      {"standard_bloom", [] {
         (void)standard_bloom(standard_bloom_params{.bits = std::uint64_t{1} << 63, .k = 7, .capacity = 1,
                                                    .target_fpr = 0.01});
       }},
  };
#ifndef BLOOMKIT_SANITIZED
  // The largest block filters (128-256 GiB) and counting filters (512 GiB)
  // fail for sure only under a limit (with overcommit they might be
  // granted): 8 GiB of address space, as `ulimit -v` would set.
  attempts.push_back({"blocked_bloom", [] {
                        (void)blocked_bloom(block_filter_params{.blocks = std::uint64_t{1} << 32, .k = 6,
                                                                .capacity = 1, .target_fpr = 0.01});
                      }});
  attempts.push_back({"split_block_bloom", [] {
                        (void)split_block_bloom(block_filter_params{.blocks = std::uint64_t{1} << 32, .k = 8,
                                                                    .capacity = 1, .target_fpr = 0.01});
                      }});
  attempts.push_back({"counting_bloom", [] {
                        (void)counting_bloom(counting_bloom_params{.counters = std::uint64_t{1} << 40, .k = 7,
                                                                   .capacity = 1, .target_fpr = 0.01});
                      }});
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &old), 0);
  rlimit tight = old;
  tight.rlim_cur = std::min<rlim_t>(old.rlim_max, rlim_t{8} << 30);
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &tight), 0);
#endif
  for (const auto& a : attempts) {
    try {
      a.make();
      ADD_FAILURE() << a.what << ": a filter larger than the address space was allocated?";
    } catch (const bloomkit::error& e) {
      EXPECT_EQ(e.code(), errc::out_of_memory) << a.what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(" bytes ("), std::string::npos) << a.what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(a.what), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << a.what << ": not a bloomkit::error: " << e.what();
    }
  }
#ifndef BLOOMKIT_SANITIZED
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &old), 0);
#endif
}

TEST(LibraryMemory, LargeFiltersOnReusedHeapMemoryHoldExactlyTheirBits) {
  // Filters of 8 MiB and more drop the pages of their fresh allocation
  // before advising huge pages (detail/memory.hpp, advise_huge_pages). Here
  // that memory is reused heap memory full of 0xAB: glibc serves it after a
  // mapped block of 32 MiB was freed (which raises its mmap threshold). A
  // filter made there, and a copy of one, must still hold exactly the bits
  // of the same filter made on fresh memory; a large vector_or_fail exactly
  // its value (which it would not if the pages were dropped after the write).
  auto dirty_heap = [] {
    { std::vector<unsigned char> mapped(std::size_t{32} << 20, 0xAB); }
    std::vector<unsigned char> reused(std::size_t{30} << 20, 0xAB);
    ASSERT_EQ(reused[reused.size() / 2], 0xAB);
  };
  const block_filter_params params{.blocks = (std::size_t{20} << 20) / 64, .k = 7, .capacity = 1,
                                   .target_fpr = 0.01};
  const std::uint64_t keys = 200000;
  blocked_bloom fresh(params);
  for (std::uint64_t i = 0; i < keys; ++i) fresh.insert(i);
  const auto fresh_bytes = save_to_bytes(fresh);

  dirty_heap();
  blocked_bloom reused(params);
  EXPECT_EQ(reused.fill_ratio(), 0.0);
  for (std::uint64_t i = 0; i < keys; ++i) reused.insert(i);
  EXPECT_EQ(save_to_bytes(reused), fresh_bytes);

  dirty_heap();
  const blocked_bloom copy = fresh;
  EXPECT_EQ(save_to_bytes(copy), fresh_bytes);
  blocked_bloom assigned(1000, 0.01);
  dirty_heap();
  assigned = fresh;
  assigned.insert(keys + 1);  // the copy has its own blocks
  EXPECT_EQ(save_to_bytes(fresh), fresh_bytes);
  EXPECT_TRUE(assigned.may_contain(keys + 1));

  dirty_heap();
  standard_bloom words(standard_bloom_params{.bits = std::uint64_t{160} << 20, .k = 7, .capacity = 1,
                                             .target_fpr = 0.01});
  EXPECT_EQ(words.fill_ratio(), 0.0);
  for (std::uint64_t i = 0; i < keys; ++i) words.insert(i);
  dirty_heap();
  const standard_bloom words_copy = words;
  EXPECT_EQ(save_to_bytes(words_copy), save_to_bytes(words));

  dirty_heap();
  const std::uint64_t value = 0x0123456789abcdefULL;
  const auto filled = bloomkit::detail::vector_or_fail<std::uint64_t>((std::size_t{24} << 20) / 8, value, "a test");
  EXPECT_EQ(std::count(filled.begin(), filled.end(), value), static_cast<std::ptrdiff_t>(filled.size()));
}

TEST(LibraryMemory, TheNthAllocationFailingLeavesEverythingAsItWas) {
  // Every allocation of each operation fails in turn. Each ends in success,
  // bloomkit::error or std::bad_alloc; the filter merged into and the files
  // are unchanged on failure (the debug suite's LeakSanitizer checks that
  // nothing leaks).
  scratch dir;
  const fs::path path = dir.path() / "f.bkf";
  const blocked_bloom a = sample(0, 300), b = sample(200, 300);
  save(a, path);
  const auto a_bytes = save_to_bytes(a);
  blocked_bloom merged = a;
  merged.merge(b);
  const auto merged_bytes = save_to_bytes(merged);
  struct op {
    const char* name;
    std::function<void()> run;
    std::function<void()> check_after_failure;
  };
  blocked_bloom target = a;
  const std::vector<op> ops = {
      {"construct", [] { (void)blocked_bloom(1000, 0.01); }, [] {}},
      {"construct ribbon", [] {
         std::vector<std::uint64_t> keys(200);
         for (std::uint64_t i = 0; i < keys.size(); ++i) keys[i] = i;
         (void)ribbon(std::span<const std::uint64_t>(keys));
       }, [] {}},
      {"save_to_bytes", [&] { (void)save_to_bytes(a); }, [] {}},
      {"load(bytes)", [&] { (void)load(std::span<const std::byte>(a_bytes)); }, [] {}},
      {"load(path)", [&] { (void)load(path); }, [] {}},
      {"save(path)", [&] { save(b, path); },
       [&] {
         EXPECT_EQ(read_file_bytes(path), a_bytes);
         EXPECT_EQ(dir.names(), std::vector<std::string>{"f.bkf"});
       }},
      {"merge", [&] {
         target = a;
         target.merge(b);
         EXPECT_EQ(save_to_bytes(target), merged_bytes);
       }, [] {}},
  };
  for (const auto& o : ops) {
    std::uint64_t cases = 0, failed = 0;
    for (long n = 1; n < 100000; ++n) {
      save(a, path);
      g_allocations.store(0);
      g_fail_at.store(n);
      bool threw = false;
      try {
        o.run();
      } catch (const bloomkit::error&) {
        threw = true;
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      const long made = g_allocations.load();
      g_fail_at.store(0);
      if (made < n) break;  // the Nth allocation was not reached: all were covered
      ++cases;
      if (threw) {
        ++failed;
        o.check_after_failure();
      }
    }
    std::printf("[ memory   ] %-16s %4llu allocations failed in turn, %llu ended in an exception\n", o.name,
                static_cast<unsigned long long>(cases), static_cast<unsigned long long>(failed));
    EXPECT_GT(cases, 0U) << o.name;
  }
}

}  // namespace
