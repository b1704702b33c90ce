// tests/inserted_accuracy_test.cpp - a filter's count tells the truth
// (issue 17, item 13): an intersection's inserted() is the smaller input's
// count, only an upper bound of the keys both hold, so the filter, its file
// (format version 2, docs/FORMAT.md) and inspect() say "at most"; exact
// counts keep writing version 1, byte for byte as before.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/file_format.hpp"
#include "test_support.hpp"

namespace bloomkit {
namespace {

namespace fmt = detail::format;
using bytes_t = std::vector<std::byte>;

template <class F>
F filled(std::uint64_t from, std::uint64_t to) {
  F f(1000, 0.01);
  for (std::uint64_t key = from; key < to; ++key) f.insert(key);
  return f;
}

std::uint32_t version_of(const bytes_t& bytes) { return detail::load_le<std::uint32_t>(bytes.data() + 8); }

/// The message of the bloomkit::error `fn` throws ("" if it throws none).
template <class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

using bloomkit::test::aligned_copy;

template <class F>
class InsertedAccuracy : public ::testing::Test {};
using intersectable_kinds = ::testing::Types<standard_bloom, blocked_bloom, split_block_bloom, counting_bloom>;
TYPED_TEST_SUITE(InsertedAccuracy, intersectable_kinds);

TYPED_TEST(InsertedAccuracy, AnIntersectionsCountIsAnUpperBoundEverywhere) {
  using F = TypeParam;
  auto a = filled<F>(0, 500), b = filled<F>(250, 900);
  EXPECT_EQ(a.inserted_accuracy(), count_accuracy::exact);
  // Exact counts: version 1, byte 14 zero, exactly as before.
  const bytes_t exact = save_to_bytes(a);
  EXPECT_EQ(version_of(exact), 1u);
  EXPECT_EQ(exact[14], std::byte{0});

  auto both = a;
  both.intersect(b);
  EXPECT_EQ(both.inserted(), 500u);  // min(500, 650): 250 keys are common
  EXPECT_EQ(both.inserted_accuracy(), count_accuracy::at_most);
  EXPECT_EQ(both.view().inserted_accuracy(), count_accuracy::at_most);
  for (std::uint64_t key = 250; key < 500; ++key) EXPECT_TRUE(both.may_contain(key));

  const bytes_t file = save_to_bytes(both);
  EXPECT_EQ(version_of(file), 2u);
  EXPECT_EQ(file[14], std::byte{1});
  const auto loaded = load_as<F>(file);
  EXPECT_EQ(loaded.inserted(), 500u);
  EXPECT_EQ(loaded.inserted_accuracy(), count_accuracy::at_most);
  const file_info info = inspect(file);
  EXPECT_EQ(info.version, 2u);
  EXPECT_EQ(info.inserted_accuracy, count_accuracy::at_most);
  EXPECT_EQ(save_to_bytes(loaded), file) << "canonical: what is read is what is written";
  // A zero-copy view reads it too.
  const aligned_copy aligned(file);
  const auto viewed = view_as<F>(aligned.bytes());
  EXPECT_EQ(viewed.inserted_accuracy(), count_accuracy::at_most);

  // A merge with a bound is a bound; inserts keep it; clear makes it exact.
  auto u = a;
  u.merge(both);
  EXPECT_EQ(u.inserted_accuracy(), count_accuracy::at_most);
  u.insert(std::uint64_t{123456});
  EXPECT_EQ(u.inserted_accuracy(), count_accuracy::at_most);
  auto exact_union = a;
  exact_union.merge(b);
  EXPECT_EQ(exact_union.inserted_accuracy(), count_accuracy::exact);
  u.clear();
  EXPECT_EQ(u.inserted_accuracy(), count_accuracy::exact);
  EXPECT_EQ(version_of(save_to_bytes(u)), 1u);
}

TYPED_TEST(InsertedAccuracy, VersionTwoFieldsAreChecked) {
  using F = TypeParam;
  auto both = filled<F>(0, 100);
  both.intersect(filled<F>(50, 200));
  const bytes_t good = save_to_bytes(both);
  for (const std::uint8_t value : {std::uint8_t{0}, std::uint8_t{3}, std::uint8_t{255}}) {
    bytes_t bad = good;
    bad[14] = std::byte{value};
    ASSERT_TRUE(fmt::reseal(bad));
    EXPECT_EQ(test::error_code_of([&] { (void)load(bad); }), errc::corrupt) << int{value};
    EXPECT_NE(message_of([&] { (void)load(bad); }).find("'inserted_accuracy'"), std::string::npos);
  }
  bytes_t reserved = good;
  reserved[15] = std::byte{1};
  ASSERT_TRUE(fmt::reseal(reserved));
  EXPECT_EQ(test::error_code_of([&] { (void)load(reserved); }), errc::corrupt);
  // "Estimated" is a value too (what `parquet extract` writes).
  bytes_t estimated = good;
  estimated[14] = std::byte{2};
  ASSERT_TRUE(fmt::reseal(estimated));
  EXPECT_EQ(load_as<F>(estimated).inserted_accuracy(), count_accuracy::estimated);
  // A version 1 file with byte 14 set is corrupt, as it always was.
  bytes_t v1 = save_to_bytes(filled<F>(0, 100));
  v1[14] = std::byte{1};
  ASSERT_TRUE(fmt::reseal(v1));
  EXPECT_EQ(test::error_code_of([&] { (void)load(v1); }), errc::corrupt);
}

TEST(InsertedAccuracyOtherKinds, AKindThatOnlyCountsRefusesABound) {
  // A static filter's count is its keys: a header that claims a bound is
  // not what any writer writes.
  std::vector<std::uint64_t> hashes = test::random_hashes(100, 7);
  const binary_fuse fuse(std::span<const std::uint64_t>(hashes), 8);
  bytes_t file = save_to_bytes(fuse);
  detail::store_le(file.data() + 8, std::uint32_t{2});
  file[14] = std::byte{1};
  ASSERT_TRUE(fmt::reseal(file));
  EXPECT_EQ(test::error_code_of([&] { (void)load(file); }), errc::corrupt);
  EXPECT_NE(message_of([&] { (void)load(file); }).find("inserted_accuracy"), std::string::npos);
}

TEST(InsertedAccuracyOtherKinds, AnEstimateStaysAnEstimate) {
  EXPECT_EQ(combine_sum(count_accuracy::estimated, count_accuracy::exact), count_accuracy::estimated);
  EXPECT_EQ(combine_sum(count_accuracy::at_most, count_accuracy::estimated), count_accuracy::estimated);
  EXPECT_EQ(combine_min(count_accuracy::exact, count_accuracy::exact), count_accuracy::at_most);
  EXPECT_EQ(combine_min(count_accuracy::estimated, count_accuracy::exact), count_accuracy::estimated);
  EXPECT_EQ(to_string(count_accuracy::at_most), "at_most");
}

}  // namespace
}  // namespace bloomkit
