// binary_fuse.hpp: no false negatives from n = 0 to 10^7, measured FPR
// against 2^-f with binomial bounds, duplicates, construction failure, views,
// loading validation, space goal, and golden bytes. Typed over 8/16-bit
// fingerprints and 3/4-wise layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/file_format.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::bool_buffer;
using bloomkit::test::random_hashes;

using bloomkit::binary_fuse16;
using bloomkit::binary_fuse8;
using bloomkit::binary_fuse_options;
using bloomkit::errc;
using bloomkit::error;

template <class Filter, std::uint32_t Arity>
struct config {
  using filter = Filter;
  static constexpr std::uint32_t arity = Arity;
  static binary_fuse_options options() {
    binary_fuse_options o;
    o.arity = Arity;
    return o;
  }
};

template <class C>
class BinaryFuse : public ::testing::Test {};

using configs = ::testing::Types<config<binary_fuse8, 3>, config<binary_fuse8, 4>, config<binary_fuse16, 3>,
                                 config<binary_fuse16, 4>>;
TYPED_TEST_SUITE(BinaryFuse, configs);

template <class Filter>
void expect_no_false_negatives(const Filter& filter, const std::vector<std::uint64_t>& hashes) {
  std::size_t misses = 0;
  for (const auto h : hashes) misses += !filter.may_contain_hash(h);
  EXPECT_EQ(misses, 0u) << "n = " << hashes.size();
}

TYPED_TEST(BinaryFuse, EmptyRejectsEverything) {
  using F = typename TypeParam::filter;
  const F filter(std::vector<std::uint64_t>{}, TypeParam::options());
  EXPECT_EQ(filter.keys(), 0u);
  EXPECT_EQ(filter.size_in_bytes(), 0u);
  EXPECT_EQ(filter.bits_per_key(), 0.0);
  for (const auto h : random_hashes(10'000, 1)) ASSERT_FALSE(filter.may_contain_hash(h));
  std::vector<std::uint64_t> probe = random_hashes(100, 2);
  bool_buffer buffer(probe.size());
  const std::span<bool> out = buffer.span();
  std::fill(out.begin(), out.end(), true);
  filter.may_contain_many(probe, out);
  EXPECT_TRUE(std::none_of(out.begin(), out.end(), [](bool b) { return b; }));
  const F default_constructed;
  EXPECT_FALSE(default_constructed.may_contain(std::string("x")));
}

TYPED_TEST(BinaryFuse, EverySmallSizeBuildsWithoutFalseNegatives) {
  using F = typename TypeParam::filter;
  for (std::uint64_t n = 1; n <= 300; ++n) {
    const auto hashes = random_hashes(n, 1000 + n);
    const F filter(hashes, TypeParam::options());
    ASSERT_EQ(filter.keys(), n);
    expect_no_false_negatives(filter, hashes);
  }
}

TYPED_TEST(BinaryFuse, NoFalseNegativesUpToTenMillion) {
  using F = typename TypeParam::filter;
  // 10^7 only in release (and only for one layout per fingerprint width, to
  // keep the suite to seconds); sanitizers stop at 10^5.
  const std::uint64_t largest = TypeParam::arity == 3 ? bloomkit::test::scaled(10'000'000, 100) : 1'000'000;
  for (std::uint64_t n = 10; n <= largest; n *= 10) {
    const auto hashes = random_hashes(n, 77 + n);
    const F filter(hashes, TypeParam::options());
    expect_no_false_negatives(filter, hashes);
  }
}

TYPED_TEST(BinaryFuse, FalsePositiveRateIsTwoToMinusF) {
  using F = typename TypeParam::filter;
  const std::uint64_t n = bloomkit::test::scaled(200'000);
  const auto hashes = random_hashes(n, 5);
  const F filter(hashes, TypeParam::options());
  // Negatives from another generator: distinct from the keys with
  // probability 1 - n t 2^-64.
  const std::uint64_t trials = bloomkit::test::scaled(sizeof(typename F::fingerprint_type) == 1 ? 2'000'000 : 8'000'000);
  bloomkit::detail::splitmix64 g(0xfeedULL);
  std::uint64_t positives = 0;
  for (std::uint64_t i = 0; i < trials; ++i) positives += filter.may_contain_hash(g());
  const double p = filter.design_fpr();
  const double measured = static_cast<double>(positives) / static_cast<double>(trials);
  EXPECT_NEAR(measured, p, bloomkit::test::binomial_tolerance(p, static_cast<double>(trials)))
      << positives << " false positives in " << trials;
}

TYPED_TEST(BinaryFuse, DuplicatesAreTolerated) {
  using F = typename TypeParam::filter;
  const auto distinct = random_hashes(20'000, 9);
  std::vector<std::uint64_t> with_duplicates;
  for (int copy = 0; copy < 3; ++copy) with_duplicates.insert(with_duplicates.end(), distinct.begin(), distinct.end());
  std::rotate(with_duplicates.begin(), with_duplicates.begin() + 12'345, with_duplicates.end());
  const F filter(with_duplicates, TypeParam::options());
  EXPECT_EQ(filter.keys(), distinct.size());
  EXPECT_GE(filter.attempts(), 2u);  // duplicates make the first attempt fail, then they are removed
  expect_no_false_negatives(filter, distinct);
  const F plain(distinct, TypeParam::options());
  EXPECT_EQ(filter.size_in_bytes(), plain.size_in_bytes());

  const std::vector<std::uint64_t> same(1000, 0x1234);
  const F one(same, TypeParam::options());
  EXPECT_EQ(one.keys(), 1u);
  EXPECT_TRUE(one.may_contain_hash(0x1234));
}

TYPED_TEST(BinaryFuse, ConstructionFailureIsReported) {
  using F = typename TypeParam::filter;
  const auto hashes = random_hashes(5000, 11);
  auto options = TypeParam::options();
  options.size_factor = 0.8;  // fewer slots than keys: peeling cannot succeed
  options.max_attempts = 3;
  try {
    const F filter(hashes, options);
    FAIL() << "expected construction_failed";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::construction_failed);
    EXPECT_NE(std::string(e.what()).find("3 seeds"), std::string::npos) << e.what();
  }
  options = TypeParam::options();
  options.max_attempts = 0;
  EXPECT_THROW({ const F f(hashes, options); }, error);
  options = TypeParam::options();
  options.arity = 5;
  try {
    const F filter(hashes, options);
    FAIL() << "expected invalid_argument";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

TYPED_TEST(BinaryFuse, ViewAndReloadedFilterAnswerAsTheOwner) {
  using F = typename TypeParam::filter;
  const auto hashes = random_hashes(30'000, 13);
  const F filter(hashes, TypeParam::options());
  const auto view = filter.view();
  const auto payload = std::vector<typename F::fingerprint_type>(filter.fingerprints().begin(), filter.fingerprints().end());
  const typename F::view_type borrowed(filter.params(), payload);
  const F reloaded(filter.params(), payload);
  const auto probes = random_hashes(200'000, 14);
  bool_buffer buffer(probes.size());
  const std::span<bool> batch = buffer.span();
  borrowed.may_contain_many(probes, batch);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const bool expected = filter.may_contain_hash(probes[i]);
    ASSERT_EQ(view.may_contain_hash(probes[i]), expected);
    ASSERT_EQ(borrowed.may_contain_hash(probes[i]), expected);
    ASSERT_EQ(reloaded.may_contain_hash(probes[i]), expected);
    ASSERT_EQ(batch[i], expected);
  }
  EXPECT_EQ(reloaded.params(), filter.params());
  EXPECT_EQ(borrowed.bits_per_key(), filter.bits_per_key());
  bool_buffer small(3);
  EXPECT_THROW(filter.may_contain_many(probes, small.span()), error);
}

TYPED_TEST(BinaryFuse, LoadingValidatesParametersAndLength) {
  using F = typename TypeParam::filter;
  const F filter(random_hashes(1000, 15), TypeParam::options());
  std::vector<typename F::fingerprint_type> payload(filter.fingerprints().begin(), filter.fingerprints().end());
  const auto code_of = [](auto&& make) {
    try {
      make();
    } catch (const error& e) {
      return e.code();
    }
    return errc{};
  };
  auto shorter = payload;
  shorter.pop_back();
  EXPECT_EQ(code_of([&] { F f(filter.params(), shorter); }), errc::corrupt);
  auto p = filter.params();
  p.segment_length = 3;
  EXPECT_EQ(code_of([&] { F f(p, payload); }), errc::invalid_argument);
  p = filter.params();
  p.arity = 2;
  EXPECT_EQ(code_of([&] { F f(p, payload); }), errc::invalid_argument);
  p = filter.params();
  p.fingerprint_bits = 12;
  EXPECT_EQ(code_of([&] { F f(p, payload); }), errc::invalid_argument);
  p = filter.params();
  p.segment_count = 0;
  EXPECT_EQ(code_of([&] { F f(p, payload); }), errc::invalid_argument);
  p = filter.params();
  p.segment_count = 0xffffffffU;  // would need ~2^50 slots
  EXPECT_EQ(code_of([&] { F f(p, payload); }), errc::invalid_argument);
  p = filter.params();
  p.keys = 0;  // an empty filter must have no segments
  EXPECT_EQ(code_of([&] { F f(p, payload); }), errc::invalid_argument);
}

TYPED_TEST(BinaryFuse, KeysHashWithTheFiltersHashSpec) {
  using F = typename TypeParam::filter;
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back("key-" + std::to_string(i));
  auto options = TypeParam::options();
  options.hash = bloomkit::hash_spec{bloomkit::hash_algorithm::xxh64, 7};
  const F filter = F::from_keys(std::span<const std::string>(keys), options);
  EXPECT_EQ(filter.hash(), options.hash);
  for (const auto& k : keys) ASSERT_TRUE(filter.may_contain(k)) << k;
  EXPECT_TRUE(filter.may_contain_hash(bloomkit::hash_key(keys[0], options.hash)));
}

TYPED_TEST(BinaryFuse, SameInputSameBytes) {
  using F = typename TypeParam::filter;
  const auto hashes = random_hashes(10'000, 16);
  const F a(hashes, TypeParam::options());
  const F b(hashes, TypeParam::options());
  EXPECT_EQ(a.params(), b.params());
  EXPECT_TRUE(std::equal(a.fingerprints().begin(), a.fingerprints().end(), b.fingerprints().begin(),
                         b.fingerprints().end()));
}

// The space goal of issue 8: binary fuse 8 (3-wise) at most 9.1 bits/key for
// n >= 10^6, 4-wise below that.
TEST(BinaryFuseSpace, EightBitFuseStaysUnderNinePointOneBitsPerKey) {
  if (bloomkit::test::sanitized()) GTEST_SKIP() << "a 10^6-key build is slow under sanitizers";
  const auto hashes = random_hashes(1'000'000, 17);
  const binary_fuse8 three(hashes);
  EXPECT_LE(three.bits_per_key(), 9.1);
  binary_fuse_options four_wise;
  four_wise.arity = 4;
  const binary_fuse8 four(hashes, four_wise);
  EXPECT_LE(four.bits_per_key(), 8.7);
  EXPECT_LT(four.bits_per_key(), three.bits_per_key());
}

// Pins the layout: the parameters and a checksum of the fingerprints for a
// fixed key set. A change here changes every stored filter: bump the file
// format instead of editing these numbers.
TEST(BinaryFuseGolden, LayoutIsPinned) {
  const auto hashes = random_hashes(1000, 42);
  const binary_fuse8 filter(hashes);
  EXPECT_EQ(filter.params().segment_length, 128u);
  EXPECT_EQ(filter.params().segment_count, 9u);
  EXPECT_EQ(filter.params().seed, bloomkit::detail::default_static_seed);
  const auto bytes = std::span<const std::uint8_t>(filter.fingerprints());
  EXPECT_EQ(XXH64(bytes.data(), bytes.size(), 0), 0x68b35cda97559cfeULL);
}

// ---- the runtime-width type and the file format (kind 6) ----------------------

TEST(BinaryFuseAnyWidth, WrapsTheTypedFilters) {
  const auto hashes = random_hashes(5000, 21);
  for (std::uint32_t bits : {8u, 16u}) {
    const bloomkit::binary_fuse filter(hashes, bits);
    EXPECT_EQ(filter.fingerprint_bits(), bits);
    EXPECT_EQ(filter.keys(), hashes.size());
    EXPECT_EQ(filter.capacity(), hashes.size());
    EXPECT_FALSE(filter.saturated());
    EXPECT_EQ(filter.target_fpr(), std::ldexp(1.0, -static_cast<int>(bits)));
    for (const auto h : hashes) ASSERT_TRUE(filter.may_contain_hash(h));
  }
  try {
    const bloomkit::binary_fuse filter(hashes, 12);
    FAIL() << "expected invalid_argument";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

TEST(BinaryFuseFormat, RoundTripsThroughLoadViewAndInspect) {
  for (std::uint32_t bits : {8u, 16u}) {
    for (std::uint32_t arity : {3u, 4u}) {
      for (std::uint64_t n : {0u, 1u, 1000u}) {
        binary_fuse_options options;
        options.arity = arity;
        options.hash = bloomkit::hash_spec{bloomkit::hash_algorithm::xxh64, 99};
        const auto hashes = random_hashes(n, 31 + n);
        const bloomkit::binary_fuse filter(hashes, bits, options);
        const auto bytes = bloomkit::save_to_bytes(filter);
        const std::string where = std::to_string(bits) + "-bit " + std::to_string(arity) + "-wise n=" + std::to_string(n);

        const auto any = bloomkit::load(bytes);
        ASSERT_TRUE(std::holds_alternative<bloomkit::binary_fuse>(any)) << where;
        const auto& loaded = std::get<bloomkit::binary_fuse>(any);
        EXPECT_EQ(loaded.params(), filter.params()) << where;
        EXPECT_EQ(bloomkit::save_to_bytes(loaded), bytes) << where;  // byte-identical re-save

        const auto typed = bloomkit::load_as<bloomkit::binary_fuse>(bytes, options.hash);
        const auto viewed = bloomkit::view(bytes);
        ASSERT_TRUE(std::holds_alternative<bloomkit::binary_fuse_view>(viewed)) << where;
        const auto& in_place = std::get<bloomkit::binary_fuse_view>(viewed);
        for (const auto h : random_hashes(20'000, 32)) {
          const bool expected = filter.may_contain_hash(h);
          ASSERT_EQ(loaded.may_contain_hash(h), expected) << where;
          ASSERT_EQ(typed.may_contain_hash(h), expected) << where;
          ASSERT_EQ(in_place.may_contain_hash(h), expected) << where;
        }
        for (const auto h : hashes) ASSERT_TRUE(in_place.may_contain_hash(h)) << where;

        const auto info = bloomkit::inspect(bytes);
        EXPECT_EQ(info.kind, bloomkit::filter_kind::binary_fuse);
        EXPECT_TRUE(info.checksum_ok);
        EXPECT_EQ(info.inserted, n);
        ASSERT_FALSE(info.params.empty());
        EXPECT_EQ(info.params[0], (bloomkit::file_param{"fingerprint_bits", std::uint64_t{bits}}));
        EXPECT_THROW((void)bloomkit::load_as<bloomkit::binary_fuse>(bytes, bloomkit::hash_spec{}), error);
      }
    }
  }
}

// Field checks of the kind-6 parameter section, fed straight to the codec
// (a bit flip in a saved file trips the header checksum first).
TEST(BinaryFuseFormat, ParameterSectionIsChecked) {
  using codec = bloomkit::format_codec<bloomkit::binary_fuse>;
  const bloomkit::binary_fuse filter(random_hashes(1000, 33), 8);
  const auto params_of = [](const bloomkit::binary_fuse_params& p) {
    std::vector<std::byte> out(32);
    bloomkit::detail::store_le(out.data(), p.fingerprint_bits);
    bloomkit::detail::store_le(out.data() + 4, p.arity);
    bloomkit::detail::store_le(out.data() + 8, p.segment_length);
    bloomkit::detail::store_le(out.data() + 12, p.segment_count);
    bloomkit::detail::store_le(out.data() + 16, p.seed);
    bloomkit::detail::store_le(out.data() + 24, p.keys);
    return out;
  };
  bloomkit::detail::format::header head;
  head.inserted = filter.keys();
  head.payload_bytes = filter.size_in_bytes();
  const auto read = [&](const bloomkit::binary_fuse_params& p, std::size_t cut = 0) {
    auto bytes = params_of(p);
    bytes.resize(bytes.size() - cut);
    bloomkit::detail::format::params_reader in(bytes, "binary_fuse");
    return codec::read_params(head, in);
  };
  EXPECT_EQ(read(filter.params()).segment_count, filter.params().segment_count);
  const auto code_of = [&](auto mutate, std::size_t cut = 0) {
    auto p = filter.params();
    mutate(p);
    try {
      (void)read(p, cut);
    } catch (const error& e) {
      return e.code();
    }
    return errc{};
  };
  EXPECT_EQ(code_of([](auto&) {}, 4), errc::corrupt);
  EXPECT_EQ(code_of([](auto& p) { p.fingerprint_bits = 32; }), errc::corrupt);
  EXPECT_EQ(code_of([](auto& p) { p.arity = 5; }), errc::corrupt);
  EXPECT_EQ(code_of([](auto& p) { p.segment_length = 100; }), errc::corrupt);
  EXPECT_EQ(code_of([](auto& p) { p.segment_length = 1U << 20; }), errc::corrupt);
  EXPECT_EQ(code_of([](auto& p) { p.segment_count = 0; }), errc::corrupt);
  EXPECT_EQ(code_of([](auto& p) { p.segment_count += 1; }), errc::corrupt);  // payload length disagrees
  EXPECT_EQ(code_of([](auto& p) { p.keys += 1; }), errc::corrupt);           // header's inserted disagrees
  EXPECT_EQ(code_of([](auto& p) { p.fingerprint_bits = 16; }), errc::corrupt);
}

}  // namespace
