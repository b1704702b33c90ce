// fuzz/file_format_fuzz.cpp - libFuzzer target over the file format's
// readers: load, view (both payload checks), load_as, inspect.
//
// Each input is tried twice: as given, and "resealed" (both checksums
// recomputed), because random bytes almost never pass an XXH3 checksum and
// the field checks behind it are what most needs fuzzing.
//
// Beyond "no crash, no sanitizer report, only bloomkit::error", it checks
// invariants and aborts when one breaks:
//   * load accepts exactly when view accepts (same buffer, 64-byte aligned);
//   * an accepted file re-encodes to exactly its own bytes (the encoding is
//     canonical: every byte is determined by the filter);
//   * inspect accepts every file load accepts, and reports checksum_ok;
//   * a typed file (format version 5) answers keys of its key type and
//     refuses keys of another type with errc::mismatch.
// tests/file_format_corpus_test.cpp replays fuzz/corpus/file_format through
// this same function as an ordinary test.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "bloomkit/file_format.hpp"

namespace bloomkit_fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "file_format_fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

/// A keyed query in the file's key type (header offset 15, format
/// version 5), and the invariant that a key of another type is refused with
/// errc::mismatch: a typed file never hashes a key it cannot convert.
template <class View>
std::uint64_t query_by_key_type(const View& v) {
  using bloomkit::key_type;
  const auto refused = [&](const auto& key) {
    try {
      (void)v.may_contain(key);
    } catch (const bloomkit::error& e) {
      return e.code() == bloomkit::errc::mismatch;
    }
    return false;
  };
  const key_type keys = v.hash().keys;
  switch (keys) {
    case key_type::unspecified:
      return v.may_contain(std::string_view("key")) + v.may_contain(std::uint32_t{7});
    case key_type::bytes:
      require(refused(std::int64_t{7}), "a bytes file refuses an integer key");
      return v.may_contain(std::string_view("key"));
    case key_type::int64:
    case key_type::int32:
      require(refused(std::string_view("7")), "an integer file refuses a string key");
      return v.may_contain(std::int16_t{7}) + v.may_contain(7.0);
    case key_type::float64:
    case key_type::float32:
      require(refused(std::string_view("7")), "a float file refuses a string key");
      return v.may_contain(0.5F) + v.may_contain(std::int8_t{7});
    case key_type::timestamp_us:
    case key_type::date32:
      require(refused(std::int64_t{7}), "a time file refuses a C++ integer");
      return 0;
  }
  require(false, "the header check lets only known key types through");
  return 0;
}

/// Queries every part of a view, so a bad length would touch bad memory.
inline std::uint64_t exercise(const bloomkit::any_filter_view& any) {
  return std::visit(
      [](const auto& v) {
        std::uint64_t sum = v.inserted() + v.size_in_bytes();
        bloomkit::detail::splitmix64 rng(v.inserted());
        std::uint64_t hashes[64];
        bool answers[64];
        for (auto& h : hashes) h = rng();
        v.may_contain_many(hashes, answers);
        for (std::size_t i = 0; i < 64; ++i) {
          require(answers[i] == v.may_contain_hash(hashes[i]), "may_contain_many == may_contain_hash");
          sum += answers[i];
        }
        sum += query_by_key_type(v);
        // Only what every kind has (static filters have no fill or bit count).
        const double fpr = v.estimated_fpr();
        require(fpr >= 0.0 && fpr <= 1.0, "estimated_fpr in [0, 1]");
        (void)v.saturated();
        if constexpr (requires { v.set_bit_count(); }) sum += v.set_bit_count();
        // design_fpr() runs sizing's formulas on the file's capacity, which
        // may be anything legal (this target once found a capacity of 2^62
        // hanging the Poisson sum; sizing now bounds its cost).
        if constexpr (requires { v.design_fpr(); }) {
          const double design = v.design_fpr();
          require(design >= 0.0 && design <= 1.0, "design_fpr in [0, 1]");
        }
        return sum;
      },
      any);
}

/// Runs every reader over `bytes` (which starts 64-byte aligned).
inline void check_bytes(std::span<const std::byte> bytes) {
  bool loaded = false;
  try {
    const bloomkit::any_filter filter = bloomkit::load(bytes);
    loaded = true;
    const auto again = bloomkit::save_to_bytes(filter);
    require(again.size() == bytes.size() && std::memcmp(again.data(), bytes.data(), bytes.size()) == 0,
            "an accepted file re-encodes to its own bytes");
  } catch (const bloomkit::error&) {
  }
  bool viewed = false;
  try {
    const bloomkit::any_filter_view view = bloomkit::view(bytes);
    viewed = true;
    (void)exercise(view);
  } catch (const bloomkit::error&) {
  }
  require(loaded == viewed, "load accepts exactly when view accepts");
  try {
    // Skipping the payload checksum may accept a damaged payload, but it
    // must still be safe to query.
    (void)exercise(bloomkit::view(bytes, bloomkit::payload_check::skip));
  } catch (const bloomkit::error&) {
  }
  try {
    const bloomkit::file_info info = bloomkit::inspect(bytes);
    if (loaded) require(info.checksum_ok && info.file_bytes == bytes.size(), "inspect agrees with load");
  } catch (const bloomkit::error&) {
    require(!loaded, "inspect accepts what load accepts");
  }
  try {
    (void)bloomkit::load_as<bloomkit::blocked_bloom>(bytes, bloomkit::hash_spec{});
  } catch (const bloomkit::error&) {
  }
}

/// The whole check for one input: copied to a 64-byte aligned buffer (as a
/// mapped file is), then as given and resealed.
inline void check_input(const std::uint8_t* data, std::size_t size) {
  std::vector<std::byte> storage(size + 64);
  const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
  const std::span<std::byte> bytes(storage.data() + (64 - address % 64) % 64, size);
  if (size > 0) std::memcpy(bytes.data(), data, size);
  check_bytes(bytes);
  if (bloomkit::detail::format::reseal(bytes)) check_bytes(bytes);
}

}  // namespace bloomkit_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_fuzz::check_input(data, size);
  return 0;
}
