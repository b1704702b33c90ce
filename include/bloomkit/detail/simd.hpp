// bloomkit/detail/simd.hpp - the one place where a SIMD kernel is chosen.
//
// bloomkit is header-only and must run on any x86-64 (and compile for wasm and
// other CPUs), so it cannot assume AVX2 from compiler flags. Instead each
// kernel is a function compiled for its own target with
// __attribute__((target(...))), and the process picks one kernel ONCE, at its
// first filter operation, from the CPU's features (the simdjson approach):
//
//   kernel::avx512   AVX-512 F+BW+VL+DQ (one zmm per 512-bit block; DQ for the
//                    64-bit lane multiplies of batched key hashing)
//   kernel::avx2     AVX2 (one ymm per 256-bit block, two per 512-bit block)
//   kernel::sse41    SSE4.1: the 128-bit kernels of the block layouts, which
//                    exist where the including code's target guarantees
//                    SSE4.1 (x86-64-v2, the release preset); where it does
//                    not, and for every other job, the portable code
//   kernel::scalar   portable C++ only, on every CPU
//
// BLOOMKIT_FORCE_SCALAR=1 in the environment (read once, at that first pick)
// or bloomkit::set_kernel(kernel::scalar) force the portable kernel; tests
// use set_kernel to run every available kernel against the scalar one.
//
// with_kernel(k, fn) is the one switch over the kernels: it calls fn with a
// kernel_tag<K> whose K is a constant, so the code for each kernel is chosen
// with `if constexpr` and every dispatch in the library goes through it
// (with_active_kernel for the process's choice). A new kernel is one more
// enumerator and one more case here; -Wswitch names the switch it forgot.
//
// Cost of the dispatch. The choice lives in one constant-initialised atomic
// byte (no static-initialisation order problems, no guard variable). Batched
// calls branch once per batch into a loop compiled for the kernel's target
// (see BLOOMKIT_KERNEL_LOOP), where the kernel is inlined. Single-key block
// calls do not consult it at all: they inline the widest kernel their own
// translation unit's target guarantees (detail/block_filter.hpp, "single-key
// calls"), because a per-call dispatch, cheap as the branch is, keeps the
// kernel out of line and costs overlap between cache misses.
//
// Every kernel must give bit-identical blocks and identical answers; the
// layouts themselves are fixed by the filter headers, never by a kernel.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "bloomkit/detail/unreachable.hpp"
#include "bloomkit/error.hpp"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(BLOOMKIT_NO_SIMD)
/// 1 where the x86 kernels are compiled (x86-64 with GCC or Clang); 0
/// elsewhere (wasm, ARM, MSVC), where only the scalar kernel exists.
#define BLOOMKIT_X86_KERNELS 1
#include <immintrin.h>
/// Marks a function compiled for AVX2 (it may only run where avx2 is present).
#define BLOOMKIT_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
/// Marks a function compiled for AVX-512 F+BW+VL+DQ (+ AVX2 for the 256-bit forms).
#define BLOOMKIT_TARGET_AVX512 __attribute__((target("avx2,bmi,bmi2,popcnt,avx512f,avx512bw,avx512vl,avx512dq")))
#else
#define BLOOMKIT_X86_KERNELS 0
#endif

#if defined(__GNUC__) || defined(__clang__)
/// On a kernel loop: inline everything it calls, so the target-specific
/// kernels (which cannot be always_inline into generic code) end up inside
/// the loop compiled for their target.
#define BLOOMKIT_FLATTEN __attribute__((flatten))
#else
#define BLOOMKIT_FLATTEN
#endif

#if defined(__GNUC__) || defined(__clang__)
/// On a dispatch helper: always inlined into its caller, so a dispatch costs
/// what a hand-written switch does.
#define BLOOMKIT_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define BLOOMKIT_ALWAYS_INLINE inline
#endif

namespace bloomkit {

/// The SIMD kernels bloomkit can run. The numeric values are stable (a new
/// kernel takes the next value).
enum class kernel : std::uint8_t {
  scalar = 0,  ///< portable C++, every CPU
  avx2 = 1,    ///< x86-64 with AVX2
  avx512 = 2,  ///< x86-64 with AVX-512 F, BW, VL and DQ
  sse41 = 3,   ///< x86-64 with SSE4.1 (the block layouts' 128-bit kernels)
};

/// "scalar", "sse4.1", "avx2" or "avx512"; "unknown" for a value no release
/// defines.
constexpr std::string_view to_string(kernel k) noexcept {
  switch (k) {
    case kernel::scalar: return "scalar";
    case kernel::sse41: return "sse4.1";
    case kernel::avx2: return "avx2";
    case kernel::avx512: return "avx512";
  }
  return "unknown";
}

/// A kernel as a type: what with_kernel passes to its function, so that the
/// function picks its code with `if constexpr (K == kernel::avx2)` and each
/// instance is compiled for one kernel.
template <kernel K>
struct kernel_tag {
  static constexpr kernel value = K;
};

/// fn(kernel_tag<k>{}) for the kernel k, returning what fn returns (the same
/// type for every tag). The one switch over the kernels: every dispatch in
/// bloomkit goes through it or with_active_kernel. Where the x86 kernels are
/// not compiled (wasm, ARM, MSVC) only kernel::scalar exists and fn is
/// instantiated for it alone. k must be a kernel this CPU supports where fn
/// runs target-specific code for it (set_kernel and the automatic choice
/// guarantee that for the active kernel).
template <class Fn>
BLOOMKIT_ALWAYS_INLINE decltype(auto) with_kernel(kernel k, Fn&& fn) {
#if BLOOMKIT_X86_KERNELS
  switch (k) {
    case kernel::scalar: return fn(kernel_tag<kernel::scalar>{});
    case kernel::sse41: return fn(kernel_tag<kernel::sse41>{});
    case kernel::avx2: return fn(kernel_tag<kernel::avx2>{});
    case kernel::avx512: return fn(kernel_tag<kernel::avx512>{});
  }
  detail::unreachable();
#else
  (void)k;
  return fn(kernel_tag<kernel::scalar>{});
#endif
}

namespace detail {

/// The CPU features the kernels need, as a value so the choice is testable.
struct cpu_features {
  bool avx2 = false;
  bool avx512 = false;  ///< F, BW, VL and DQ together (and the OS saves zmm state)
  bool sse41 = false;
};

/// What this CPU supports. __builtin_cpu_supports also checks that the OS
/// enabled the register state (XCR0), so a true here is safe to execute.
inline cpu_features detect_cpu_features() noexcept {
  cpu_features f;
#if BLOOMKIT_X86_KERNELS
  __builtin_cpu_init();
  f.sse41 = __builtin_cpu_supports("sse4.1");
  f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#endif
  return f;
}

/// True if `env` (the value of BLOOMKIT_FORCE_SCALAR, or null) asks for the
/// scalar kernel: set, non-empty and not "0".
constexpr bool force_scalar_requested(const char* env) noexcept {
  return env != nullptr && env[0] != '\0' && !(env[0] == '0' && env[1] == '\0');
}

/// The kernel a process with these features and this BLOOMKIT_FORCE_SCALAR
/// value runs: the widest the CPU supports (avx512, avx2, sse4.1, scalar),
/// unless scalar is forced.
constexpr kernel choose_kernel(cpu_features f, const char* force_scalar_env) noexcept {
  if (force_scalar_requested(force_scalar_env)) return kernel::scalar;
  if (f.avx512) return kernel::avx512;
  if (f.avx2) return kernel::avx2;
  if (f.sse41) return kernel::sse41;
  return kernel::scalar;
}

inline constexpr std::uint8_t kernel_unset = 0xff;

/// The process-wide choice; kernel_unset until the first filter operation.
/// Constant-initialised, so it is valid even during static initialisation.
inline std::atomic<std::uint8_t> active_kernel_state{kernel_unset};

[[gnu::cold, gnu::noinline]] inline kernel pick_kernel_once() noexcept {
  const kernel chosen = choose_kernel(detect_cpu_features(), std::getenv("BLOOMKIT_FORCE_SCALAR"));
  std::uint8_t expected = kernel_unset;
  // If another thread (or set_kernel) got there first, keep its choice.
  active_kernel_state.compare_exchange_strong(expected, static_cast<std::uint8_t>(chosen), std::memory_order_relaxed);
  return static_cast<kernel>(active_kernel_state.load(std::memory_order_relaxed));
}

}  // namespace detail

/// True if kernel `k` can run on this CPU (scalar always can).
inline bool kernel_supported(kernel k) noexcept {
  const detail::cpu_features f = detail::detect_cpu_features();
  switch (k) {
    case kernel::scalar: return true;
    case kernel::sse41: return f.sse41;
    case kernel::avx2: return f.avx2;
    case kernel::avx512: return f.avx512;
  }
  return false;
}

/// The kernel every filter operation uses now. The first call detects the
/// CPU (and reads BLOOMKIT_FORCE_SCALAR); later calls are one relaxed load.
inline kernel active_kernel() noexcept {
  const std::uint8_t k = detail::active_kernel_state.load(std::memory_order_relaxed);
  if (k == detail::kernel_unset) [[unlikely]]
    return detail::pick_kernel_once();
  return static_cast<kernel>(k);
}

/// fn(kernel_tag<active_kernel()>{}): with_kernel under the kernel every
/// filter operation uses now. Library code reads the active kernel only
/// through this call.
template <class Fn>
BLOOMKIT_ALWAYS_INLINE decltype(auto) with_active_kernel(Fn&& fn) {
  return with_kernel(active_kernel(), std::forward<Fn>(fn));
}

/// Forces kernel `k` for the whole process (tests, benchmarks). Throws
/// bloomkit::error(errc::unsupported) if this CPU cannot run it. Filters are
/// bit-identical under every kernel, so switching between operations is
/// safe; switching while another thread runs a filter operation is a race on
/// the choice only (each operation still runs one whole valid kernel).
inline void set_kernel(kernel k) {
  if (!kernel_supported(k)) {
    throw error::from_library(errc::unsupported,
                              "kernel " + std::string(to_string(k)) + " is not supported by this CPU");
  }
  detail::active_kernel_state.store(static_cast<std::uint8_t>(k), std::memory_order_relaxed);
}

/// Undoes set_kernel: back to the automatic choice (CPU features and
/// BLOOMKIT_FORCE_SCALAR), made again at the next operation.
inline void reset_kernel() noexcept { detail::active_kernel_state.store(detail::kernel_unset, std::memory_order_relaxed); }

}  // namespace bloomkit
