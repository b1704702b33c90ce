// python/bench/cpp_reference.cpp - the C++ batched calls on the same keys as
// python/bench/compare.py, so the Python figures can be compared with the
// library's own in one run. Built by compare.py (g++ -O3 -march=x86-64-v2).
//
//   cpp_reference KEYS_DIR REPEATS
// KEYS_DIR holds, for each size n that compare.py made:
//   ints-<n>.bin     n int64 LE keys (added), then n more (absent, queried)
//   strs-<n>.off     2n+1 int64 LE offsets into strs-<n>.dat (Arrow large_string layout)
// Prints one JSON object per (size, kind, operation) with ns per key: the
// median over REPEATS of thread CPU time, as python/bench/compare.py times.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace {

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class T>
std::vector<T> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    std::fprintf(stderr, "cpp_reference: cannot open %s\n", path.c_str());
    std::exit(2);
  }
  const auto size = static_cast<std::size_t>(in.tellg());
  std::vector<T> out(size / sizeof(T));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(T)));
  return out;
}

// fn(setup()): the filter is made outside the timed part, as compare.py does.
template <class Setup, class Fn>
double median_ns_per_key(int repeats, std::size_t n, Setup&& setup, Fn&& fn) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    auto arg = setup();
    const double start = thread_seconds();
    fn(arg);
    t.push_back((thread_seconds() - start) * 1e9 / static_cast<double>(n));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(std::size_t n, const char* kind, const char* op, double ns) {
  std::printf("{\"n\": %zu, \"kind\": \"%s\", \"op\": \"%s\", \"ns_per_key\": %.3f}\n", n, kind, op, ns);
}

template <class Filter>
void run(std::size_t n, const char* kind, int repeats, const std::vector<std::int64_t>& ints,
         const std::vector<std::string_view>& strs) {
  const std::span<const std::int64_t> add_ints(ints.data(), n), absent_ints(ints.data() + n, n);
  const std::span<const std::string_view> add_strs(strs.data(), n), absent_strs(strs.data() + n, n);
  auto out = std::make_unique<bool[]>(n);
  std::size_t sink = 0;
  auto make = [n] { return Filter(n, 0.01); };
  auto none = [] { return 0; };
  report(n, kind, "add_many numpy int64", median_ns_per_key(repeats, n, make, [&](Filter& f) {
           f.insert_keys(add_ints);
           sink += f.inserted();
         }));
  Filter f(n, 0.01);
  f.insert_keys(add_ints);
  report(n, kind, "may_contain_many numpy int64 (absent)", median_ns_per_key(repeats, n, none, [&](int) {
           f.may_contain_keys(absent_ints, std::span<bool>(out.get(), n));
           sink += out[0];
         }));
  report(n, kind, "add_many arrow string", median_ns_per_key(repeats, n, make, [&](Filter& g) {
           g.insert_keys(add_strs);
           sink += g.inserted();
         }));
  Filter g(n, 0.01);
  g.insert_keys(add_strs);
  report(n, kind, "may_contain_many arrow string (absent)", median_ns_per_key(repeats, n, none, [&](int) {
           g.may_contain_keys(absent_strs, std::span<bool>(out.get(), n));
           sink += out[0];
         }));
  if (sink == 42) std::puts("");  // keep the work observable
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: cpp_reference KEYS_DIR REPEATS N...\n");
    return 1;
  }
  const std::string dir = argv[1];
  const int repeats = std::atoi(argv[2]);
  for (int a = 3; a < argc; ++a) {
    const auto n = static_cast<std::size_t>(std::strtoull(argv[a], nullptr, 10));
    const auto ints = read_all<std::int64_t>(dir + "/ints-" + std::to_string(n) + ".bin");
    const auto offsets = read_all<std::int64_t>(dir + "/strs-" + std::to_string(n) + ".off");
    const auto data = read_all<char>(dir + "/strs-" + std::to_string(n) + ".dat");
    std::vector<std::string_view> strs(2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) {
      strs[i] = std::string_view(data.data() + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i]));
    }
    run<bloomkit::split_block_bloom>(n, "SplitBlockBloom", repeats, ints, strs);
    run<bloomkit::blocked_bloom>(n, "BlockedBloom", repeats, ints, strs);
  }
  return 0;
}
