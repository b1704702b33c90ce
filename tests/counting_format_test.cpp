// counting_bloom and scalable_bloom in the file format (kinds 4 and 5):
// round trips through save/load/view, the pinned parameter bytes, and every
// field check (resealed, so the checks behind the checksums are reached).
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "../fuzz/file_format_fuzz.cpp"  // check_input: the fuzz target's invariants, replayed here
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/scalable_bloom.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;
namespace fmt = bloomkit::detail::format;
using bloomkit::detail::splitmix64;
using bytes_t = std::vector<std::byte>;

using bloomkit::test::aligned_copy;

template <class F>
errc code_of(F&& f) {
  try {
    f();
  } catch (const bloomkit::error& e) {
    return e.code();
  }
  return errc{};
}

std::vector<std::uint64_t> random_hashes(std::uint64_t n, std::uint64_t seed) {
  splitmix64 rng(seed);
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = rng();
  return out;
}

/// Parameter section offset and header length of a file.
std::size_t params_at() { return fmt::offset::params; }
std::size_t header_of(const bytes_t& b) { return detail::load_le<std::uint32_t>(b.data() + fmt::offset::header_bytes); }

/// `bytes` with `value` written at byte `at` (little-endian) and the
/// checksums recomputed; the load error code it then gives.
template <class T>
errc code_after_patch(bytes_t bytes, std::size_t at, T value) {
  detail::store_le(bytes.data() + at, value);
  EXPECT_TRUE(fmt::reseal(bytes));
  const errc loaded = code_of([&] { (void)load(bytes); });
  aligned_copy copy(bytes);
  EXPECT_EQ(code_of([&] { (void)view(copy.bytes()); }), loaded);
  return loaded;
}

// ---- counting_bloom (kind 4) ------------------------------------------------------------

counting_bloom sample_counting() {
  counting_bloom f(3000, 0.01, hash_spec{hash_algorithm::xxh64, 77});
  f.insert_many(random_hashes(3000, 1));
  for (int i = 0; i < 20; ++i) f.insert(std::string("hot"));  // some counters at 15
  for (auto h : random_hashes(500, 1)) (void)f.remove_hash(h);
  return f;
}

TEST(CountingFormat, RoundTripThroughLoadViewAndStreams) {
  const counting_bloom f = sample_counting();
  ASSERT_GT(f.saturated_counters(), 0u);
  const bytes_t bytes = save_to_bytes(f);
  EXPECT_EQ(bytes.size(), saved_size(f));
  EXPECT_EQ(inspect(bytes).kind, filter_kind::counting_bloom);

  const any_filter any = load(bytes);
  ASSERT_TRUE(std::holds_alternative<counting_bloom>(any));
  const auto& back = std::get<counting_bloom>(any);
  EXPECT_EQ(back.params(), f.params());
  EXPECT_EQ(back.inserted(), f.inserted());
  EXPECT_TRUE(std::equal(back.words().begin(), back.words().end(), f.words().begin(), f.words().end()));
  EXPECT_EQ(save_to_bytes(back), bytes);

  const counting_bloom typed = load_as<counting_bloom>(bytes, f.hash());
  EXPECT_EQ(typed.count_estimate(std::string("hot")), 15u);
  EXPECT_EQ(code_of([&] { (void)load_as<counting_bloom>(bytes, hash_spec{}); }), errc::hash_mismatch);
  EXPECT_EQ(code_of([&] { (void)load_as<standard_bloom>(bytes); }), errc::mismatch);

  aligned_copy copy(bytes);
  const counting_bloom_view v = view_as<counting_bloom>(copy.bytes());
  EXPECT_EQ(v.words().data(), reinterpret_cast<const std::uint64_t*>(copy.bytes().data() + header_of(bytes)));
  for (auto h : random_hashes(10'000, 2)) ASSERT_EQ(v.may_contain_hash(h), f.may_contain_hash(h));
  EXPECT_EQ(v.saturated_counters(), f.saturated_counters());
  EXPECT_EQ(save_to_bytes(v), bytes);  // a view saves to the same bytes
  const any_filter_view any_view = view(copy.bytes());
  EXPECT_TRUE(std::holds_alternative<counting_bloom_view>(any_view));

  std::stringstream stream;
  save(f, stream);
  EXPECT_EQ(std::get<counting_bloom>(load(stream)).params(), f.params());

  // A loaded filter keeps working: removes of its keys are accepted.
  counting_bloom again = typed;
  for (auto h : random_hashes(3000, 1)) {
    if (again.count_estimate_hash(h) > 0) (void)again.remove_hash(h);
  }
  EXPECT_TRUE(again.may_contain(std::string("hot")));
}

TEST(CountingFormat, ParameterBytesArePinned) {
  counting_bloom f(counting_bloom_params{100, 3, 10, 0.1, {}});
  f.insert_hash(0x0123456789abcdefULL);
  const bytes_t bytes = save_to_bytes(f);
  const std::byte* p = bytes.data() + params_at();
  EXPECT_EQ(detail::load_le<std::uint64_t>(p), 100u);     // counters
  EXPECT_EQ(detail::load_le<std::uint32_t>(p + 8), 3u);   // k
  EXPECT_EQ(detail::load_le<std::uint32_t>(p + 12), 4u);  // counter_bits
  EXPECT_EQ(detail::load_le<std::uint32_t>(bytes.data() + fmt::offset::params_bytes), 16u);
  EXPECT_EQ(bytes[fmt::offset::kind], std::byte{4});
  EXPECT_EQ(header_of(bytes), 128u);
  ASSERT_EQ(bytes.size(), 128u + 7 * 8);  // ceil(100 / 16) words
  // Counter i is nibble i % 2 of payload byte i / 2.
  for (std::uint64_t i = 0; i < 100; ++i) {
    const auto byte = std::to_integer<std::uint32_t>(bytes[128 + i / 2]);
    ASSERT_EQ(i % 2 == 0 ? byte & 0xF : byte >> 4, f.counter(i)) << i;
  }
}

TEST(CountingFormat, EveryFieldIsChecked) {
  counting_bloom f(counting_bloom_params{100, 3, 10, 0.1, {}});
  f.insert_many(random_hashes(10, 3));
  const bytes_t bytes = save_to_bytes(f);
  const std::size_t p = params_at();
  EXPECT_EQ(code_after_patch(bytes, p, std::uint64_t{0}), errc::corrupt);           // counters 0
  EXPECT_EQ(code_after_patch(bytes, p, std::uint64_t{113}), errc::corrupt);         // payload too short
  EXPECT_EQ(code_after_patch(bytes, p, std::uint64_t{1} << 41), errc::corrupt);     // too many counters
  EXPECT_EQ(code_after_patch(bytes, p + 8, std::uint32_t{0}), errc::corrupt);       // k 0
  EXPECT_EQ(code_after_patch(bytes, p + 8, std::uint32_t{65}), errc::corrupt);      // k 65
  EXPECT_EQ(code_after_patch(bytes, p + 12, std::uint32_t{8}), errc::corrupt);      // counter_bits 8
  EXPECT_EQ(code_after_patch(bytes, p + 12, std::uint32_t{4}), errc{});             // unchanged: fine
  // A non-zero counter past the end (counter 100 = low nibble of byte 50).
  EXPECT_EQ(code_after_patch(bytes, header_of(bytes) + 50, std::uint8_t{1}), errc::corrupt);
  // A changed counter without reseal: the payload checksum catches it.
  bytes_t altered = bytes;
  altered[header_of(bytes)] ^= std::byte{1};
  EXPECT_EQ(code_of([&] { (void)load(altered); }), errc::checksum);
}

// ---- scalable_bloom (kind 5) ------------------------------------------------------------

scalable_bloom sample_scalable() {
  scalable_bloom f(500, 0.01, hash_spec{hash_algorithm::xxh3_64, 5}, 2.0, 0.85);
  f.insert_many(random_hashes(4000, 4));  // 500 + 1000 + 2000 + 4000: four stages
  return f;
}

TEST(ScalableFormat, RoundTripThroughLoadViewAndStreams) {
  const scalable_bloom f = sample_scalable();
  ASSERT_EQ(f.stages(), 4u);
  const bytes_t bytes = save_to_bytes(f);
  EXPECT_EQ(bytes.size(), saved_size(f));
  const file_info info = inspect(bytes);
  EXPECT_EQ(info.kind, filter_kind::scalable_bloom);
  EXPECT_EQ(info.capacity, 500u);
  EXPECT_EQ(info.inserted, 4000u);
  EXPECT_EQ(info.payload_bytes, f.size_in_bytes());

  const any_filter any = load(bytes);
  ASSERT_TRUE(std::holds_alternative<scalable_bloom>(any));
  const auto& back = std::get<scalable_bloom>(any);
  EXPECT_EQ(back.params(), f.params());
  ASSERT_EQ(back.stages(), f.stages());
  for (std::size_t i = 0; i < f.stages(); ++i) {
    EXPECT_EQ(back.stage(i).params(), f.stage(i).params());
    EXPECT_EQ(back.stage(i).inserted(), f.stage(i).inserted());
    EXPECT_TRUE(std::equal(back.stage(i).blocks().begin(), back.stage(i).blocks().end(), f.stage(i).blocks().begin()));
  }
  EXPECT_EQ(save_to_bytes(back), bytes);
  for (auto h : random_hashes(4000, 4)) ASSERT_TRUE(back.may_contain_hash(h));

  aligned_copy copy(bytes);
  const scalable_bloom_view v = view_as<scalable_bloom>(copy.bytes(), f.hash());
  EXPECT_EQ(v.stages(), 4u);
  EXPECT_EQ(reinterpret_cast<const std::byte*>(v.stage(0).blocks().data()), copy.bytes().data() + header_of(bytes));
  for (auto h : random_hashes(10'000, 5)) ASSERT_EQ(v.may_contain_hash(h), f.may_contain_hash(h));
  EXPECT_EQ(save_to_bytes(v), bytes);
  EXPECT_TRUE(std::holds_alternative<scalable_bloom_view>(view(copy.bytes())));
  EXPECT_EQ(code_of([&] { (void)load_as<scalable_bloom>(bytes, hash_spec{}); }), errc::hash_mismatch);
  EXPECT_EQ(code_of([&] { (void)load_as<blocked_bloom>(bytes); }), errc::mismatch);

  // A loaded filter keeps growing along the same plan.
  scalable_bloom grown = std::get<scalable_bloom>(load(bytes));
  grown.insert_many(random_hashes(4000, 6));  // 8000 keys > 7500 in four stages
  EXPECT_EQ(grown.stages(), 5u);
  EXPECT_EQ(grown.stage(4).params(), scalable_bloom::stage_params(f.params(), 4));

  std::stringstream stream;
  save(f, stream);
  EXPECT_EQ(std::get<scalable_bloom>(load(stream)).stages(), 4u);
}

TEST(ScalableFormat, ParameterBytesArePinned) {
  const scalable_bloom f = sample_scalable();
  const bytes_t bytes = save_to_bytes(f);
  const std::byte* p = bytes.data() + params_at();
  EXPECT_EQ(bytes[fmt::offset::kind], std::byte{5});
  EXPECT_EQ(detail::load_le<std::uint32_t>(bytes.data() + fmt::offset::params_bytes), 24u + 4 * 24u);
  EXPECT_EQ(fmt::double_from_bits(detail::load_le<std::uint64_t>(p)), 2.0);
  EXPECT_EQ(fmt::double_from_bits(detail::load_le<std::uint64_t>(p + 8)), 0.85);
  EXPECT_EQ(detail::load_le<std::uint32_t>(p + 16), 4u);
  EXPECT_EQ(detail::load_le<std::uint32_t>(p + 20), 0u);
  std::uint64_t offset = header_of(bytes);
  for (std::uint32_t i = 0; i < 4; ++i) {
    const std::byte* s = p + 24 + 24 * i;
    EXPECT_EQ(detail::load_le<std::uint64_t>(s), f.stage(i).num_blocks());
    EXPECT_EQ(detail::load_le<std::uint64_t>(s + 8), f.stage(i).inserted());
    EXPECT_EQ(detail::load_le<std::uint32_t>(s + 16), f.stage(i).num_hashes());
    EXPECT_EQ(detail::load_le<std::uint32_t>(s + 20), 0u);
    // Stage i's blocks follow stage i-1's, as eight little-endian words each.
    EXPECT_EQ(detail::load_le<std::uint64_t>(bytes.data() + offset), f.stage(i).blocks()[0].words[0]);
    offset += f.stage(i).num_blocks() * 64;
  }
  EXPECT_EQ(offset, bytes.size());
}

TEST(ScalableFormat, EveryFieldIsChecked) {
  const scalable_bloom f = sample_scalable();
  const bytes_t bytes = save_to_bytes(f);
  const std::size_t p = params_at();
  auto f64 = [](double d) { return fmt::double_bits(d); };
  EXPECT_EQ(code_after_patch(bytes, p, f64(0.5)), errc::corrupt);                     // growth < 1
  EXPECT_EQ(code_after_patch(bytes, p, f64(17.0)), errc::corrupt);                    // growth > 16
  EXPECT_EQ(code_after_patch(bytes, p, f64(std::nan(""))), errc::corrupt);            // growth NaN
  EXPECT_EQ(code_after_patch(bytes, p + 8, f64(1.0)), errc::corrupt);                 // tightening 1
  EXPECT_EQ(code_after_patch(bytes, p + 16, std::uint32_t{0}), errc::corrupt);        // no stages
  EXPECT_EQ(code_after_patch(bytes, p + 16, std::uint32_t{3}), errc::corrupt);        // params longer than 3 stages
  EXPECT_EQ(code_after_patch(bytes, p + 16, std::uint32_t{65}), errc::corrupt);       // too many stages
  EXPECT_EQ(code_after_patch(bytes, p + 20, std::uint32_t{1}), errc::corrupt);        // reserved
  const std::size_t s1 = p + 24 + 24;                                                   // stage 1
  EXPECT_EQ(code_after_patch(bytes, s1, std::uint64_t{0}), errc::corrupt);            // blocks 0
  EXPECT_EQ(code_after_patch(bytes, s1, f.stage(1).num_blocks() + 1), errc::corrupt); // payload length
  EXPECT_EQ(code_after_patch(bytes, s1 + 8, std::uint64_t{7}), errc::corrupt);        // inserted sum
  EXPECT_EQ(code_after_patch(bytes, s1 + 8, ~std::uint64_t{0}), errc::corrupt);       // inserted overflow
  EXPECT_EQ(code_after_patch(bytes, s1 + 16, std::uint32_t{0}), errc::corrupt);       // k 0
  EXPECT_EQ(code_after_patch(bytes, s1 + 16, std::uint32_t{17}), errc::corrupt);      // k 17
  EXPECT_EQ(code_after_patch(bytes, s1 + 20, std::uint32_t{1}), errc::corrupt);       // stage reserved
  EXPECT_EQ(code_after_patch(bytes, s1 + 16, f.stage(1).num_hashes()), errc{});       // unchanged: fine
  // Growth, tightening and the initial capacity define the stage plan; the
  // stage capacities and FPRs are derived, not stored, so other values in
  // range give a different but valid filter (only the checksum guards them).
  EXPECT_EQ(code_after_patch(bytes, p, f64(3.0)), errc{});
  EXPECT_EQ(code_after_patch(bytes, p + 8, f64(0.5)), errc{});
  EXPECT_EQ(code_after_patch(bytes, fmt::offset::capacity, std::uint64_t{501}), errc{});
  // Initial capacity (header) past 2^40, with stage capacities then wrong.
  EXPECT_EQ(code_after_patch(bytes, fmt::offset::capacity, std::uint64_t{1} << 41), errc::corrupt);
  // Growth so large that a stage would exceed 2^40 keys.
  bytes_t huge = bytes;
  detail::store_le(huge.data() + fmt::offset::capacity, std::uint64_t{1} << 39);
  EXPECT_EQ(code_after_patch(huge, p, f64(16.0)), errc::corrupt);
}

TEST(ScalableFormat, MergedFilterWithAnOverfullStageRoundTrips) {
  scalable_bloom a = sample_scalable(), b(500, 0.01, hash_spec{hash_algorithm::xxh3_64, 5});
  b.insert_many(random_hashes(4000, 9));  // other keys: stage 0 then holds ~1000 distinct keys
  a.merge(b);
  ASSERT_TRUE(a.saturated());
  const bytes_t bytes = save_to_bytes(a);
  const auto back = load_as<scalable_bloom>(bytes);
  EXPECT_EQ(back.inserted(), a.inserted());
  EXPECT_TRUE(back.saturated());
  EXPECT_EQ(save_to_bytes(back), bytes);
}

// ---- damage: seeded mutations through the fuzz target's checks ------------------------
//
// Both kinds, small files, thousands of mutations (a byte set, a bit flipped,
// a little-endian u32 or u64 overwritten, a length cut), each tried as is and
// resealed so the field checks behind the checksums are reached. The fuzz
// target's check_input aborts on any broken invariant (an accepted file that
// does not re-encode to itself, load and view disagreeing, an answer that
// differs between batch and single queries); under ASan/UBSan this also
// catches any out-of-bounds read.
TEST(CountingScalableFormat, SeededMutationsKeepTheReaderInvariants) {
  counting_bloom c(counting_bloom_params{100, 3, 10, 0.1, hash_spec{}});
  c.insert_many(random_hashes(12, 7));
  scalable_bloom s(20, 0.05);
  s.insert_many(random_hashes(100, 8));  // 20 + 40 + 80: three stages
  ASSERT_EQ(s.stages(), 3u);
  const std::uint64_t rounds = bloomkit::test::scaled(4000, 8);
  for (const bytes_t& original : {save_to_bytes(c), save_to_bytes(s)}) {
    bloomkit_fuzz::check_input(reinterpret_cast<const std::uint8_t*>(original.data()), original.size());
    splitmix64 rng(original.size());
    for (std::uint64_t round = 0; round < rounds; ++round) {
      bytes_t b = original;
      // Aim at the header and parameters most of the time: that is where the checks are.
      const std::size_t limit = rng() % 4 != 0 ? std::min<std::size_t>(b.size(), 256) : b.size();
      const std::size_t at = rng() % limit;
      switch (rng() % 5) {
        case 0: b[at] = static_cast<std::byte>(rng()); break;
        case 1: b[at] ^= static_cast<std::byte>(1u << (rng() % 8)); break;
        case 2:
          if (at + 4 <= b.size()) detail::store_le(b.data() + at, static_cast<std::uint32_t>(rng() % 70));
          break;
        case 3:
          if (at + 8 <= b.size()) detail::store_le(b.data() + at, rng() >> (rng() % 64));
          break;
        default: b.resize(at); break;
      }
      bloomkit_fuzz::check_input(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
    }
  }
}

}  // namespace
