// tests/test_support.hpp - helpers shared by the GoogleTest suites.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/simd.hpp"
#include "bloomkit/error.hpp"
#include "test_paths.hpp"

namespace bloomkit::test {

/// The shared fixtures folder: $BLOOMKIT_SHARED if set, else ../shared beside
/// the source tree (where CI puts it).
inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("BLOOMKIT_SHARED"); env != nullptr && *env != '\0') return env;
  return bloomkit::test::paths::shared_dir;
}

/// Every byte of the file at `path`; throws std::runtime_error naming the
/// path when it cannot be opened (a missing fixture must fail loudly).
inline std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  const std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

/// Every kernel bloomkit defines, portable first, then by width.
inline constexpr kernel every_kernel[] = {kernel::scalar, kernel::sse41, kernel::avx2, kernel::avx512};

/// The kernels this CPU runs, scalar first: the tests that pin every SIMD
/// path to the scalar one loop over these.
inline std::vector<kernel> supported_kernels() {
  std::vector<kernel> out;
  for (kernel k : every_kernel)
    if (kernel_supported(k)) out.push_back(k);
  return out;
}

/// Restores the CPU's own kernel choice when a test that forces kernels
/// (set_kernel) ends, however it ends.
struct kernel_guard {
  kernel_guard() = default;
  kernel_guard(const kernel_guard&) = delete;
  kernel_guard& operator=(const kernel_guard&) = delete;
  ~kernel_guard() { bloomkit::reset_kernel(); }
};

/// n pseudo-random 64-bit hashes from a fixed seed (SplitMix64).
inline std::vector<std::uint64_t> random_hashes(std::uint64_t n, std::uint64_t seed) {
  bloomkit::detail::splitmix64 rng(seed);
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = rng();
  return out;
}

/// The errc of the bloomkit::error that f() throws, or errc{} if it throws none.
template <class F>
bloomkit::errc error_code_of(F&& f) {
  try {
    f();
  } catch (const bloomkit::error& e) {
    return e.code();
  }
  return bloomkit::errc{};
}

/// True in the sanitizer builds, where statistical tests use smaller samples.
constexpr bool sanitized() {
#ifdef BLOOMKIT_SANITIZED
  return true;
#else
  return false;
#endif
}

/// n, divided by `factor` under sanitizers (they run 3-20x slower).
constexpr std::uint64_t scaled(std::uint64_t n, std::uint64_t factor = 10) {
  return sanitized() ? (n / factor > 0 ? n / factor : 1) : n;
}

/// Half-width of the acceptance band for a measured rate: a measured count of
/// false positives among `trials` negatives is Binomial(trials, p); we accept
/// |measured - p| <= z * sqrt(p (1 - p) / trials) + slack. z = 5 gives a
/// two-sided false alarm rate below 6e-7 per check, and the seeds are fixed,
/// so a passing test stays passing.
inline double binomial_tolerance(double p, double trials, double z = 5.0) {
  return z * std::sqrt(p * (1.0 - p) / trials);
}

/// A copy of some bytes starting at a 64-byte aligned address plus `shift`,
/// as a mapped file's bytes are: view() needs the payload aligned, and a
/// shift that is not a multiple of 64 checks that it refuses otherwise.
/// Owns its storage; bytes() stays valid while the copy lives.
class aligned_copy {
 public:
  explicit aligned_copy(std::span<const std::byte> bytes, std::size_t shift = 0)
      : storage_(bytes.size() + shift + 64), size_(bytes.size()) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    offset_ = (64 - address % 64) % 64 + shift;
    if (!bytes.empty()) std::memcpy(storage_.data() + offset_, bytes.data(), bytes.size());
  }
  [[nodiscard]] std::span<std::byte> bytes() noexcept { return {storage_.data() + offset_, size_}; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {storage_.data() + offset_, size_}; }

 private:
  std::vector<std::byte> storage_;
  std::size_t size_;
  std::size_t offset_ = 0;
};

/// A bool buffer for may_contain_many (std::vector<bool> has no span).
struct bool_buffer {
  explicit bool_buffer(std::size_t n) : data(std::make_unique<bool[]>(n)), size(n) {}
  std::span<bool> span() { return {data.get(), size}; }
  std::unique_ptr<bool[]> data;
  std::size_t size;
};

}  // namespace bloomkit::test
