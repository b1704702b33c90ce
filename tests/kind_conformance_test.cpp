// The shared contract (bloomkit/filter.hpp) checked on all nine kinds and
// their views, through one typed suite: no false negatives (owner and view
// answer alike, single and batched), merge / intersect and their refusals,
// clear, the estimates, the save / load / view round trip, and hash
// mismatches. Kind-specific behaviour stays in each kind's own test file.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;

// How the suite makes a filter of n keys for kind F: incremental kinds are
// sized for n and filled; static kinds are built from the keys.
template <class F>
F make_with(const std::vector<std::uint64_t>& hashes, std::uint64_t capacity, hash_spec hash = kind_traits<F>::default_hash) {
  if constexpr (kind_traits<F>::is_static) {
    return kind_traits<F>::build(hashes, 0.004, hash);
  } else {
    F f(capacity, 0.01, hash);
    f.insert_many(hashes);
    return f;
  }
}

using bloomkit::test::aligned_copy;

std::vector<std::uint64_t> hashes_of(std::uint64_t n, std::uint64_t seed) {
  splitmix64 g(seed);
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = g();
  return out;
}

template <class F>
class KindConformance : public ::testing::Test {};

using Kinds = ::testing::Types<standard_bloom, blocked_bloom, split_block_bloom, counting_bloom, scalable_bloom,
                               binary_fuse, ribbon, cuckoo_filter, age_partitioned_bloom>;
TYPED_TEST_SUITE(KindConformance, Kinds);

// The contract, as types: every kind and its view satisfy the concept, and
// the traits agree with the runtime registry and the file ids.
TYPED_TEST(KindConformance, TraitsAndConceptsAgree) {
  using F = TypeParam;
  static_assert(owning_filter<F>);
  static_assert(filter<typename F::view_type>);
  static_assert(kind_traits<F>::kind == kind_traits<typename F::view_type>::kind);
  static_assert(incremental_filter<F> == !kind_traits<F>::is_static);
  const kind_info info = info_of(kind_traits<F>::kind);
  EXPECT_EQ(info.name, to_string(kind_traits<F>::kind));
  EXPECT_EQ(info.is_static, kind_traits<F>::is_static);
  EXPECT_EQ(info.grows, kind_traits<F>::grows);
  EXPECT_EQ(info.default_hash, kind_traits<F>::default_hash);
  EXPECT_EQ(kind_of<F>(), kind_traits<F>::kind);
  EXPECT_EQ(parse_filter_kind(info.name), kind_traits<F>::kind);
  EXPECT_EQ(info.cli_name, kind_traits<F>::cli_name);
  EXPECT_EQ(info.python_class, kind_traits<F>::python_class);
  EXPECT_FALSE(info.summary.empty());
  EXPECT_EQ(info.removes, removable_filter<F>);
  EXPECT_EQ(info.merges, (mergeable_with<F, F>));
  EXPECT_EQ(info.windows, windowed_filter<F>);
  EXPECT_EQ(info.inserts(), incremental_filter<F>);
}

// The list of kinds holds each kind once, and its names are all distinct.
TEST(KindList, EveryKindOnceWithDistinctNames) {
  EXPECT_EQ(all_kinds.size(), std::size_t{9});  // the Kinds above
  std::set<std::string_view> names, cli_names, classes;
  std::set<filter_kind> ids;
  for (const kind_info& k : all_kinds) {
    ids.insert(k.kind);
    names.insert(k.name);
    cli_names.insert(k.cli_name);
    classes.insert(k.python_class);
    EXPECT_EQ(info_of(k.kind).name, k.name);
  }
  EXPECT_EQ(ids.size(), all_kinds.size());
  EXPECT_EQ(names.size(), all_kinds.size());
  EXPECT_EQ(cli_names.size(), all_kinds.size());
  EXPECT_EQ(classes.size(), all_kinds.size());
  EXPECT_EQ(parse_filter_kind("bloom"), std::nullopt);
}

TYPED_TEST(KindConformance, NoFalseNegativesOwnerAndViewAlike) {
  using F = TypeParam;
  for (std::uint64_t n : {1ULL, 7ULL, 1000ULL, 20'000ULL}) {
    const auto hashes = hashes_of(n, 11 + n);
    const F f = make_with<F>(hashes, n);
    const auto v = f.view();
    std::vector<char> out_storage(n);
    std::span<bool> out(reinterpret_cast<bool*>(out_storage.data()), n);
    f.may_contain_many(hashes, out);
    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(f.may_contain_hash(hashes[i])) << "n=" << n << " i=" << i;
      ASSERT_TRUE(v.may_contain_hash(hashes[i]));
      ASSERT_TRUE(out[i]);
    }
    // Absent keys: owner, view and batch give the same answers.
    const auto absent = hashes_of(2000, 99 + n);
    std::vector<char> absent_storage(absent.size());
    std::span<bool> absent_out(reinterpret_cast<bool*>(absent_storage.data()), absent.size());
    v.may_contain_many(absent, absent_out);
    for (std::size_t i = 0; i < absent.size(); ++i) {
      ASSERT_EQ(f.may_contain_hash(absent[i]), v.may_contain_hash(absent[i]));
      ASSERT_EQ(absent_out[i], v.may_contain_hash(absent[i]));
    }
  }
}

TYPED_TEST(KindConformance, KeysHashWithTheFiltersSpec) {
  using F = TypeParam;
  const std::vector<std::string> keys = {"alpha", "beta", "", "gamma"};
  std::vector<std::uint64_t> hashes;
  for (const auto& k : keys) hashes.push_back(hash_key(k, kind_traits<F>::default_hash));
  const F f = make_with<F>(hashes, 100);
  bool out[4];
  f.may_contain_keys(keys, std::span<bool>(out, 4));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(f.may_contain(keys[i]));
    EXPECT_TRUE(f.view().may_contain(keys[i]));
    EXPECT_TRUE(out[i]);
  }
  EXPECT_EQ(f.hash(), kind_traits<F>::default_hash);
  bool few[3];
  EXPECT_EQ(test::error_code_of([&] { f.may_contain_keys(keys, std::span<bool>(few, 3)); }), errc::invalid_argument);
  EXPECT_EQ(test::error_code_of([&] { f.may_contain_many(hashes, std::span<bool>(few, 3)); }), errc::invalid_argument);
}

TYPED_TEST(KindConformance, EstimatesAreSane) {
  using F = TypeParam;
  const std::uint64_t n = 10'000;
  const F f = make_with<F>(hashes_of(n, 5), n);
  EXPECT_EQ(f.inserted(), n);
  EXPECT_GE(f.capacity(), 1U);
  EXPECT_GT(f.size_in_bytes(), 0U);
  EXPECT_GT(f.target_fpr(), 0.0);
  EXPECT_LT(f.target_fpr(), 1.0);
  EXPECT_GT(f.design_fpr(), 0.0);
  EXPECT_LT(f.design_fpr(), 1.0);
  EXPECT_GT(f.estimated_fpr(), 0.0);
  EXPECT_LT(f.estimated_fpr(), 0.05);
  // Distinct random keys: the Bloom family's estimate is within 5 % (its
  // standard error at this fill is well under 1 %); static kinds know n.
  EXPECT_NEAR(f.estimated_cardinality(), static_cast<double>(n), 0.05 * n);
  EXPECT_FALSE(f.saturated());
  const auto v = f.view();
  EXPECT_EQ(v.inserted(), f.inserted());
  EXPECT_EQ(v.capacity(), f.capacity());
  EXPECT_EQ(v.size_in_bytes(), f.size_in_bytes());
  EXPECT_EQ(v.estimated_fpr(), f.estimated_fpr());
  EXPECT_EQ(v.estimated_cardinality(), f.estimated_cardinality());
  EXPECT_EQ(v.design_fpr(), f.design_fpr());
}

TYPED_TEST(KindConformance, SaveLoadViewRoundTrip) {
  using F = TypeParam;
  const auto hashes = hashes_of(3000, 21);
  const F f = make_with<F>(hashes, 3000);
  const auto bytes = save_to_bytes(f);
  EXPECT_EQ(bytes, save_to_bytes(f.view())) << "owner and view save the same bytes";
  EXPECT_EQ(bytes.size(), saved_size(f));
  const F back = load_as<F>(std::span<const std::byte>(bytes));
  EXPECT_EQ(save_to_bytes(back), bytes);
  const aligned_copy buffer(bytes);
  const auto viewed = view_as<F>(buffer.bytes());
  const auto info = inspect(std::span<const std::byte>(bytes));
  EXPECT_EQ(info.kind, kind_traits<F>::kind);
  EXPECT_EQ(info.capacity, f.capacity());
  EXPECT_EQ(info.inserted, f.inserted());
  EXPECT_EQ(info.hash, f.hash());
  for (auto h : hashes) ASSERT_TRUE(back.may_contain_hash(h) && viewed.may_contain_hash(h));
  for (auto h : hashes_of(1000, 77)) ASSERT_EQ(back.may_contain_hash(h), f.may_contain_hash(h));
}

TYPED_TEST(KindConformance, HashMismatchIsRefused) {
  using F = TypeParam;
  const hash_spec other{hash_algorithm::xxh3_64, 12345};
  const F f = make_with<F>(hashes_of(500, 3), 500);
  const auto bytes = save_to_bytes(f);
  EXPECT_EQ(test::error_code_of([&] { (void)load_as<F>(std::span<const std::byte>(bytes), other); }),
            errc::hash_mismatch);
  EXPECT_EQ(test::error_code_of([&] { (void)load_as<F>(std::span<const std::byte>(bytes), f.hash()); }),
            errc{});
  if constexpr (mergeable_with<F, F>) {
    F a = make_with<F>(hashes_of(500, 3), 500);
    const F b = make_with<F>(hashes_of(500, 4), 500, other);
    EXPECT_EQ(test::error_code_of([&] { a.merge(b); }), errc::mismatch);
  }
}

TYPED_TEST(KindConformance, MergeIntersectAndRefusals) {
  using F = TypeParam;
  if constexpr (!mergeable_with<F, F>) {
    if constexpr (requires { kind_traits<F>::no_merge_reason; }) {
      // Kinds that cannot combine by OR say why (cuckoo, window); tools print it.
      EXPECT_FALSE(kind_traits<F>::no_merge_reason.empty());
    } else {
      static_assert(kind_traits<F>::is_static, "only the static kinds and those with a no_merge_reason have no set algebra");
      SUCCEED() << "static kind: built whole, no merge";
    }
  } else {
    const auto left = hashes_of(400, 31), right = hashes_of(400, 32);
    F a = make_with<F>(left, 1000);
    const F b = make_with<F>(right, 1000);
    F merged = a;
    merged.merge(b.view());
    for (auto h : left) ASSERT_TRUE(merged.may_contain_hash(h));
    for (auto h : right) ASSERT_TRUE(merged.may_contain_hash(h));
    EXPECT_EQ(merged.inserted(), a.inserted() + b.inserted());
    if constexpr (intersectable_with<F, F>) {
      F both = make_with<F>(left, 1000);
      F again = make_with<F>(left, 1000);
      both.intersect(again);
      for (auto h : left) ASSERT_TRUE(both.may_contain_hash(h)) << "a key in both stays";
    }
    // A filter of another shape is refused, naming the field; nothing changes.
    F small = make_with<F>(left, 10);
    const auto before = save_to_bytes(a);
    EXPECT_EQ(test::error_code_of([&] { a.merge(small); }), errc::mismatch);
    EXPECT_EQ(save_to_bytes(a), before);
  }
}

TYPED_TEST(KindConformance, ClearEmptiesIncrementalKinds) {
  using F = TypeParam;
  if constexpr (incremental_filter<F>) {
    const auto hashes = hashes_of(1000, 41);
    F f = make_with<F>(hashes, 1000);
    f.clear();
    EXPECT_EQ(f.inserted(), 0U);
    EXPECT_EQ(f.estimated_cardinality(), 0.0);
    EXPECT_EQ(f.estimated_fpr(), 0.0);
    for (auto h : hashes) ASSERT_FALSE(f.may_contain_hash(h));
    f.insert_many(hashes);
    for (auto h : hashes) ASSERT_TRUE(f.may_contain_hash(h));
  } else {
    SUCCEED() << "static kind: no clear";
  }
}

// The decision of issue 13: an empty static filter's design capacity is 1,
// and the filter, its codec (the header) and inspect() all say so.
TYPED_TEST(KindConformance, EmptyFilterCapacityAgreesEverywhere) {
  using F = TypeParam;
  const F f = make_with<F>({}, 1);
  EXPECT_EQ(f.capacity(), 1U);
  EXPECT_EQ(f.view().capacity(), 1U);
  EXPECT_EQ(f.inserted(), 0U);
  const auto bytes = save_to_bytes(f);
  EXPECT_EQ(inspect(std::span<const std::byte>(bytes)).capacity, 1U);
  const F back = load_as<F>(std::span<const std::byte>(bytes));
  EXPECT_EQ(back.capacity(), 1U);
  const any_filter any = load(std::span<const std::byte>(bytes));
  EXPECT_EQ(std::visit([](const auto& g) { return g.capacity(); }, any), 1U);
  for (auto h : hashes_of(1000, 8)) ASSERT_FALSE(back.may_contain_hash(h));
}

}  // namespace
