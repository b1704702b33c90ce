// tests/kinds_format_test.cpp - cuckoo_filter (kind 8) and
// age_partitioned_bloom (kind 9) in the file format: round trips through
// save/load/view, the ring position and clock surviving a save, every
// truncation and bit flip caught, every field check (resealed, so the checks
// behind the checksums are reached), and golden files.
//
// Golden files: fuzz/corpus/file_format/{cuckoo_filter,age_partitioned_bloom}.bkf.
// To regenerate after an intended format change (a new format version):
//   BLOOMKIT_UPDATE_GOLDEN=1 build/<dir>/kinds_format_test --gtest_filter='*Golden*'
// then update the pinned checksums below.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../fuzz/file_format_fuzz.cpp"  // check_input: the fuzz target's invariants, replayed here
#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/file_format.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;
namespace fmt = bloomkit::detail::format;
namespace fs = std::filesystem;
using bytes_t = std::vector<std::byte>;
using bloomkit::test::error_code_of;
using bloomkit::test::random_hashes;

/// A 64-byte aligned copy of some bytes, as a mapping would be (view() needs it).
class aligned_copy {
 public:
  explicit aligned_copy(std::span<const std::byte> bytes) : storage_((bytes.size() + 63) / 64 + 1), size_(bytes.size()) {
    if (!bytes.empty()) std::memcpy(storage_.data(), bytes.data(), bytes.size());
  }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(storage_.data()), size_};
  }

 private:
  std::vector<detail::block512> storage_;
  std::size_t size_;
};

std::size_t params_at() { return fmt::offset::params; }

template <class T>
errc code_after_patch(bytes_t bytes, std::size_t at, T value) {
  detail::store_le(bytes.data() + at, value);
  EXPECT_TRUE(fmt::reseal(bytes));
  const errc loaded = error_code_of([&] { (void)load(bytes); });
  aligned_copy copy(bytes);
  EXPECT_EQ(error_code_of([&] { (void)view(copy.bytes()); }), loaded);
  return loaded;
}

cuckoo_filter sample_cuckoo(bool full) {
  cuckoo_filter f(cuckoo_filter_params{50, 10, 190, 0.01, hash_spec{hash_algorithm::xxh3_64, 5}});
  detail::splitmix64 rng(1);
  if (full) {
    while (f.try_insert_hash(rng()) == insert_result::inserted) {
    }
  } else {
    for (int i = 0; i < 150; ++i) f.insert_hash(rng());
  }
  return f;
}

fs::path corpus_dir() { return fs::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "file_format"; }

// What the planner chose for these windows before the FPR bound (sized on
// the mean fill, double-hashed probes): the filters in files written then.
age_partitioned_bloom_params old_window_params(bool timed) {
  return timed ? age_partitioned_bloom_params{8, 24, 380, 25, 3, 60, 0.01, {}, apbf_probes::double_hashing}
               : age_partitioned_bloom_params{9, 23, 190, 13, 0, 300, 0.01, {}, apbf_probes::double_hashing};
}

// old_file: the parameters and probes of a file written before format
// version 3 (its golden file must stay byte for byte what it was).
age_partitioned_bloom sample_window(bool timed, bool old_file = false) {
  age_partitioned_bloom f(old_file ? old_window_params(timed)
                          : timed  ? age_partitioned_bloom::plan_time_params(60, 500, 0.01)
                                   : age_partitioned_bloom::plan_params(300, 0.01));
  detail::splitmix64 rng(2);
  for (std::uint64_t i = 0; i < 1234; ++i) {
    if (timed) {
      f.insert_hash_at(rng(), i / 7);
    } else {
      f.insert_hash(rng());
    }
  }
  return f;
}

TEST(CuckooFormat, RoundTripsThroughLoadViewAndFiles) {
  for (const bool full : {false, true}) {
    const cuckoo_filter f = sample_cuckoo(full);
    ASSERT_EQ(f.full(), full);
    const bytes_t bytes = save_to_bytes(f);
    const auto back = load_as<cuckoo_filter>(bytes, f.hash());
    EXPECT_EQ(back.params(), f.params());
    EXPECT_EQ(back.victim(), f.victim());
    EXPECT_EQ(back.inserted(), f.inserted());
    EXPECT_TRUE(std::equal(back.words().begin(), back.words().end(), f.words().begin()));
    aligned_copy copy(bytes);
    const auto v = std::get<cuckoo_filter_view>(view(copy.bytes()));
    for (const auto h : random_hashes(2000, 3)) ASSERT_EQ(v.may_contain_hash(h), f.may_contain_hash(h));
    EXPECT_EQ(save_to_bytes(v), bytes) << "a view re-encodes to the same bytes";
    const fs::path path = fs::temp_directory_path() / ("bloomkit_cuckoo_" + std::to_string(full) + ".bkf");
    save(f, path);
    const auto from_file = std::get<cuckoo_filter>(load(path));
    EXPECT_EQ(save_to_bytes(from_file), bytes);
    fs::remove(path);
    const auto info = inspect(bytes);
    EXPECT_EQ(info.kind, filter_kind::cuckoo_filter);
  }
  EXPECT_EQ(parse_filter_kind("cuckoo_filter"), filter_kind::cuckoo_filter);
  EXPECT_EQ(error_code_of([&] { (void)load_as<cuckoo_filter>(save_to_bytes(sample_cuckoo(false)), hash_spec{}); }),
            errc::hash_mismatch);
}

TEST(CuckooFormat, FieldChecks) {
  const bytes_t bytes = save_to_bytes(sample_cuckoo(false));
  const std::size_t p = params_at();
  EXPECT_EQ(code_after_patch(bytes, p + 0, std::uint64_t{0}), errc::corrupt) << "buckets 0";
  EXPECT_EQ(code_after_patch(bytes, p + 0, std::uint64_t{60}), errc::corrupt) << "buckets vs payload";
  EXPECT_EQ(code_after_patch(bytes, p + 8, std::uint32_t{3}), errc::corrupt) << "fingerprint_bits";
  EXPECT_EQ(code_after_patch(bytes, p + 8, std::uint32_t{17}), errc::corrupt);
  EXPECT_EQ(code_after_patch(bytes, p + 8, std::uint32_t{11}), errc::corrupt) << "f vs payload / tail";
  EXPECT_EQ(code_after_patch(bytes, p + 12, std::uint32_t{8}), errc::corrupt) << "slots_per_bucket";
  EXPECT_EQ(code_after_patch(bytes, p + 16, std::uint64_t{3}), errc::corrupt) << "bucket of an empty victim";
  EXPECT_EQ(code_after_patch(bytes, p + 24, std::uint32_t{5}), errc::corrupt) << "victim vs inserted";
  EXPECT_EQ(code_after_patch(bytes, p + 24, std::uint32_t{1u << 10}), errc::corrupt) << "victim width";
  EXPECT_EQ(code_after_patch(bytes, p + 28, std::uint32_t{1}), errc::corrupt) << "reserved";
  EXPECT_EQ(code_after_patch(bytes, fmt::offset::inserted, std::uint64_t{149}), errc::corrupt) << "inserted";
  EXPECT_EQ(code_after_patch(bytes, fmt::offset::capacity, std::uint64_t{201}), errc::corrupt) << "capacity > 4 m";
  // A slot bit past the table: the word after the table's last bit.
  bytes_t tail = bytes;
  tail[tail.size() - 1] = std::byte{1};
  EXPECT_TRUE(fmt::reseal(tail));
  EXPECT_EQ(error_code_of([&] { (void)load(tail); }), errc::corrupt);
}

TEST(WindowFormat, RoundTripsAndContinuesTheStreamExactly) {
  for (const auto& [timed, old_file] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true},
                                       std::pair{true, true}}) {
    age_partitioned_bloom f = sample_window(timed, old_file);
    const bytes_t bytes = save_to_bytes(f);
    auto back = std::get<age_partitioned_bloom>(load(bytes));
    EXPECT_EQ(back.params(), f.params());
    EXPECT_EQ(back.state(), f.state()) << "the window's position is saved";
    aligned_copy copy(bytes);
    const auto v = std::get<age_partitioned_bloom_view>(view(copy.bytes()));
    for (const auto h : random_hashes(2000, 4)) ASSERT_EQ(v.may_contain_hash(h), f.may_contain_hash(h));
    // Both continue the same stream identically.
    detail::splitmix64 rng(5);
    for (std::uint64_t i = 0; i < 700; ++i) {
      const std::uint64_t h = rng();
      if (timed) {
        const std::uint64_t now = f.state().now + i / 5;
        f.insert_hash_at(h, now);
        back.insert_hash_at(h, now);
      } else {
        f.insert_hash(h);
        back.insert_hash(h);
      }
    }
    EXPECT_EQ(save_to_bytes(back), save_to_bytes(f));
    EXPECT_EQ(inspect(bytes).kind, filter_kind::age_partitioned_bloom);
  }
}

TEST(WindowFormat, FieldChecks) {
  const bytes_t count = save_to_bytes(sample_window(false));
  const bytes_t timed = save_to_bytes(sample_window(true));
  const std::size_t p = params_at();
  EXPECT_EQ(code_after_patch(count, p + 0, std::uint32_t{0}), errc::corrupt) << "k";
  EXPECT_EQ(code_after_patch(count, p + 4, std::uint32_t{65}), errc::corrupt) << "l";
  EXPECT_EQ(code_after_patch(count, p + 8, std::uint64_t{0}), errc::corrupt) << "slice_bits";
  EXPECT_EQ(code_after_patch(count, p + 16, std::uint64_t{0}), errc::corrupt) << "generation_keys";
  EXPECT_EQ(code_after_patch(count, p + 32, std::uint32_t{200}), errc::corrupt) << "newest";
  EXPECT_EQ(code_after_patch(count, p + 36, std::uint32_t{2}), errc::corrupt) << "probes";
  EXPECT_EQ(code_after_patch(count, p + 36, std::uint32_t{0}), errc::corrupt)
      << "double hashing is written as version 1, so a version 3 file with it is not canonical";
  const bytes_t old_count = save_to_bytes(sample_window(false, true));
  EXPECT_EQ(code_after_patch(old_count, p + 36, std::uint32_t{1}), errc::corrupt)
      << "independent probes in a version 1 file (the field was reserved)";
  EXPECT_EQ(code_after_patch(count, p + 40, std::uint64_t{1} << 40), errc::corrupt) << "generation_count";
  EXPECT_EQ(code_after_patch(count, p + 56, std::uint64_t{3}), errc::corrupt) << "now in a count window";
  EXPECT_EQ(code_after_patch(count, p + 72, std::uint64_t{1}), errc::corrupt) << "a time unit in a count window";
  EXPECT_EQ(code_after_patch(timed, p + 72, std::uint64_t{2}), errc::corrupt) << "time_unit";
  EXPECT_EQ(code_after_patch(timed, p + 72, std::uint64_t{1}), errc{}) << "seconds, in a version 3 time window";
  EXPECT_EQ(code_after_patch(save_to_bytes(sample_window(true, true)), p + 72, std::uint64_t{1}), errc::corrupt)
      << "a time unit in a version 1 file (the field was reserved)";
  EXPECT_EQ(code_after_patch(timed, p + 48, std::uint64_t{1} << 50), errc::corrupt) << "start after now";
  EXPECT_EQ(code_after_patch(timed, p + 48, std::uint64_t{0}), errc::corrupt) << "start a generation before now";
}

// Format version 3 exists for independent probes only: a new window file
// is version 3, an old one stays version 1, and a version 1 reader meets
// the new one as "newer than this reader understands".
TEST(WindowFormat, VersionThreeOnlyForIndependentProbes) {
  const bytes_t fresh = save_to_bytes(sample_window(true));
  const bytes_t old = save_to_bytes(sample_window(true, true));
  EXPECT_EQ(inspect(fresh).version, fmt::probe_scheme_version);
  EXPECT_EQ(inspect(old).version, 1u);
  EXPECT_EQ(code_after_patch(fresh, fmt::offset::version, std::uint32_t{1}), errc::corrupt);
  EXPECT_EQ(code_after_patch(fresh, fmt::offset::version, std::uint32_t{2}), errc::corrupt);
  EXPECT_EQ(code_after_patch(old, fmt::offset::version, std::uint32_t{3}), errc::corrupt) << "not the oldest version";
  // A later version this reader knows (4: bumped Ribbon) is not the oldest that expresses a window
  // file; one past the newest it knows is "newer than this reader understands".
  EXPECT_EQ(code_after_patch(fresh, fmt::offset::version, fmt::ribbon_layout_version), errc::corrupt);
  EXPECT_EQ(code_after_patch(fresh, fmt::offset::version, fmt::current_version + 1), errc::unsupported_version);
  // Other kinds stay version 1 and refuse a version 3 header.
  const bytes_t cuckoo = save_to_bytes(sample_cuckoo(false));
  EXPECT_EQ(inspect(cuckoo).version, 1u);
  EXPECT_EQ(code_after_patch(cuckoo, fmt::offset::version, std::uint32_t{3}), errc::corrupt);
}

// A file written before the bound (the golden file, byte for byte what the
// old code wrote) loads with its double-hashed probes and answers exactly as
// the old code did: the digest of 100,000 answers was computed by the code
// before this change (same parameters, same inserts, probes from seed 77).
TEST(WindowFormat, OldFilesAnswerAsBefore) {
  for (const auto& [timed, positives, digest] : {std::tuple{false, 1090ull, 0x0aca6fd75677a44bULL},
                                                std::tuple{true, 383ull, 0x70af7f3398cd0f81ULL}}) {
    const auto f = std::get<age_partitioned_bloom>(load(save_to_bytes(sample_window(timed, true))));
    EXPECT_EQ(f.params().probes, apbf_probes::double_hashing);
    detail::splitmix64 probe(77);
    std::uint64_t got = 0, count = 0;
    for (int i = 0; i < 100000; ++i) {
      const bool b = f.may_contain_hash(probe());
      count += b;
      got = detail::mix64(got ^ (b ? 0x5bd1e995ULL : 0x1b873593ULL));
    }
    EXPECT_EQ(count, positives);
    EXPECT_EQ(got, digest);
  }
  const auto golden = std::get<age_partitioned_bloom>(load(corpus_dir() / "age_partitioned_bloom.bkf"));
  EXPECT_EQ(golden.params(), old_window_params(true));
  EXPECT_GT(golden.design_fpr(), golden.target_fpr()) << "sized on the mean: its bound is above its target";
}

TEST(KindsFormat, EveryTruncationAndEveryBitFlipIsCaught) {
  for (const bytes_t& bytes : {save_to_bytes(sample_cuckoo(true)), save_to_bytes(sample_window(true))}) {
    for (std::size_t len = 0; len < bytes.size(); len += (len < 300 ? 1 : 37)) {
      const bytes_t cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
      ASSERT_NE(error_code_of([&] { (void)load(cut); }), errc{}) << "truncated to " << len;
    }
    for (std::size_t bit = 0; bit < bytes.size() * 8; bit += (bit < 4096 ? 1 : 61)) {
      bytes_t flipped = bytes;
      flipped[bit / 8] ^= std::byte{static_cast<unsigned char>(1u << (bit % 8))};
      ASSERT_NE(error_code_of([&] { (void)load(flipped); }), errc{}) << "bit " << bit;
    }
  }
}

TEST(KindsFormat, FuzzInvariantsHoldOnBothKinds) {
  for (const bytes_t& bytes : {save_to_bytes(sample_cuckoo(false)), save_to_bytes(sample_cuckoo(true)),
                               save_to_bytes(sample_window(false)), save_to_bytes(sample_window(true))}) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    for (std::size_t len = 0; len <= bytes.size(); len += 7) bloomkit_fuzz::check_input(data, len);
    bloomkit_fuzz::check_input(data, bytes.size());
  }
}


TEST(KindsFormat, GoldenFilesMatchWhatThisBuildWrites) {
  const std::map<std::string, bytes_t> files = {
      {"cuckoo_filter.bkf", save_to_bytes(sample_cuckoo(true))},
      {"age_partitioned_bloom.bkf", save_to_bytes(sample_window(true, true))},
      {"age_partitioned_bloom_v3.bkf", save_to_bytes(sample_window(true))},
  };
  const std::map<std::string, std::uint64_t> pinned = {
      {"cuckoo_filter.bkf", 0xf81a8361b5aa5ff1ULL},
      {"age_partitioned_bloom.bkf", 0xfd25db0350412feaULL},
      {"age_partitioned_bloom_v3.bkf", 0x2843cfd3237012beULL},
  };
  if (const char* update = std::getenv("BLOOMKIT_UPDATE_GOLDEN"); update != nullptr && *update != '\0') {
    for (const auto& [name, bytes] : files) {
      std::ofstream out(corpus_dir() / name, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      std::printf("wrote %s: %zu bytes, xxh3 0x%016llxULL\n", name.c_str(), bytes.size(),
                  static_cast<unsigned long long>(XXH3_64bits(bytes.data(), bytes.size())));
    }
  }
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(fs::exists(corpus_dir() / name)) << "missing golden file; see the top of this test";
    EXPECT_TRUE(bloomkit::test::read_file_bytes(corpus_dir() / name) == bytes);
    EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), pinned.at(name));
  }
  // The golden files answer as the filters they hold.
  const auto cuckoo = load_as<cuckoo_filter>(corpus_dir() / "cuckoo_filter.bkf", hash_spec{hash_algorithm::xxh3_64, 5});
  EXPECT_TRUE(cuckoo.full());
  detail::splitmix64 rng(1);
  for (std::uint64_t i = 0; i < cuckoo.inserted(); ++i) ASSERT_TRUE(cuckoo.may_contain_hash(rng()));
}

}  // namespace
