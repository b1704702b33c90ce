// fuzz/manifest_fuzz.cpp - libFuzzer target over the sharded filter's
// manifest reader (bloomkit/sharding.hpp, manifest_from_json): the manifest
// is JSON that engines write and read on shared storage, so it is untrusted.
//
// Beyond "no crash, no sanitizer report, only bloomkit::error", it checks
// that an accepted manifest is canonical after one round: writing it and
// reading it back gives the same manifest and the same text, and that its
// layout covers every block exactly once.
// tests/sharding_test.cpp replays fuzz/corpus/manifest through the same
// function as an ordinary test.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bloomkit/sharding.hpp"

namespace bloomkit_fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "manifest_fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

/// Parses `text`; returns true if it was accepted. Aborts on a broken invariant.
inline bool check_manifest(std::string_view text) {
  bloomkit::shard_manifest m;
  try {
    m = bloomkit::manifest_from_json(text, "(fuzz)");
  } catch (const bloomkit::error&) {
    return false;
  }
  const std::string once = bloomkit::manifest_to_json(m);
  const bloomkit::shard_manifest again = bloomkit::manifest_from_json(once, "(fuzz, written back)");
  require(again == m, "a written manifest reads back differently");
  require(bloomkit::manifest_to_json(again) == once, "writing is not canonical");
  const auto layout = m.layout();
  std::uint64_t next = 0;
  for (std::uint32_t s = 0; s < m.shards; ++s) {
    require(m.entries[s].first_block == next, "shard ranges leave a gap or overlap");
    next += m.entries[s].blocks;
  }
  require(next == layout.blocks(), "shard ranges do not cover the filter");
  return true;
}

}  // namespace bloomkit_fuzz

#ifndef BLOOMKIT_FUZZ_NO_MAIN
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)bloomkit_fuzz::check_manifest(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
