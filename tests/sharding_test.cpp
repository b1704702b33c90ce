// tests/sharding_test.cpp - sharded block filters (bloomkit/sharding.hpp):
// the layout's arithmetic, routing and reassembly, exactness against the
// unsharded filter (same bits per block range, same answers), the manifest
// round trip and every refusal of a missing or mismatched shard.
#include "bloomkit/sharding.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

#define BLOOMKIT_FUZZ_NO_MAIN
#include "../fuzz/manifest_fuzz.cpp"

namespace {

using bloomkit::block_filter;
using bloomkit::block_filter_params;
using bloomkit::block_shard;
using bloomkit::errc;
using bloomkit::shard_layout;
using bloomkit::test::error_code_of;
using bloomkit::test::random_hashes;

// ---- layout -----------------------------------------------------------------

TEST(ShardLayout, RangesCoverEveryBlockOnceAndShardOfBlockInvertsThem) {
  for (std::uint64_t blocks : {1ULL, 2ULL, 3ULL, 7ULL, 64ULL, 1000ULL, 1001ULL}) {
    for (std::uint32_t shards : {1U, 2U, 3U, 5U, 7U, 64U, 1000U}) {
      if (shards > blocks) continue;
      const shard_layout layout(blocks, shards);
      EXPECT_EQ(layout.first_block(0), 0U);
      EXPECT_EQ(layout.first_block(shards), blocks);
      std::uint64_t smallest = blocks, largest = 0;
      for (std::uint32_t s = 0; s < shards; ++s) {
        const std::uint64_t count = layout.block_count(s);
        ASSERT_GE(count, 1U) << blocks << " blocks, " << shards << " shards, shard " << s;
        smallest = std::min(smallest, count);
        largest = std::max(largest, count);
        for (std::uint64_t b = layout.first_block(s); b < layout.first_block(s + 1); ++b) {
          ASSERT_EQ(layout.shard_of_block(b), s) << blocks << " blocks, " << shards << " shards, block " << b;
        }
      }
      EXPECT_LE(largest - smallest, 1U);
    }
  }
}

TEST(ShardLayout, LargestLayoutHasNoOverflow) {
  const shard_layout layout(shard_layout::max_blocks, shard_layout::max_shards);
  const std::uint32_t last = shard_layout::max_shards - 1;
  EXPECT_EQ(layout.block_count(0), std::uint64_t{1} << 16);
  EXPECT_EQ(layout.shard_of_block(0), 0U);
  EXPECT_EQ(layout.shard_of_block(shard_layout::max_blocks - 1), last);
  EXPECT_EQ(layout.shard_of_block(layout.first_block(last)), last);
  EXPECT_EQ(layout.shard_of_block(layout.first_block(last) - 1), last - 1);
  EXPECT_EQ(layout.shard_of_hash(~std::uint64_t{0}), last);
  EXPECT_EQ(layout.shard_of_hash(0), 0U);
}

TEST(ShardLayout, RefusesImpossibleLayouts) {
  EXPECT_EQ(error_code_of([] { shard_layout(0, 1); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { shard_layout(10, 0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { shard_layout(10, 11); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { shard_layout(shard_layout::max_blocks + 1, 2); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { shard_layout(1ULL << 20, shard_layout::max_shards + 1); }), errc::invalid_argument);
}

// ---- routing ----------------------------------------------------------------

TEST(ShardRouting, GroupsByShardStablyAndReassemblesInOrder) {
  const shard_layout layout(1000, 7);
  const auto hashes = random_hashes(5000, 11);
  const auto r = bloomkit::route(layout, hashes);
  ASSERT_EQ(r.offsets.size(), 8U);
  ASSERT_EQ(r.offsets.back(), hashes.size());
  for (std::uint32_t s = 0; s < 7; ++s) {
    std::size_t previous = 0;
    bool first = true;
    for (std::size_t j = r.offsets[s]; j < r.offsets[s + 1]; ++j) {
      EXPECT_EQ(layout.shard_of_hash(r.hashes[j]), s);
      EXPECT_EQ(r.hashes[j], hashes[r.positions[j]]);
      if (!first) {
        EXPECT_LT(previous, r.positions[j]) << "input order kept within a shard";
      }
      previous = r.positions[j];
      first = false;
    }
  }
  // Answer "position is odd" per grouped entry; reassembly must put each back.
  std::vector<char> grouped(hashes.size()), out(hashes.size(), 2);
  for (std::size_t j = 0; j < grouped.size(); ++j) grouped[j] = static_cast<char>(r.positions[j] % 2);
  auto g = std::make_unique<bool[]>(grouped.size());
  auto o = std::make_unique<bool[]>(grouped.size());
  for (std::size_t j = 0; j < grouped.size(); ++j) g[j] = grouped[j] != 0;
  bloomkit::reassemble(r, std::span<const bool>(g.get(), grouped.size()), std::span<bool>(o.get(), grouped.size()));
  for (std::size_t i = 0; i < hashes.size(); ++i) ASSERT_EQ(o[i], i % 2 == 1) << i;
}

TEST(ShardRouting, EmptyBatchAndSizeMismatch) {
  const shard_layout layout(10, 3);
  const auto r = bloomkit::route(layout, {});
  EXPECT_TRUE(r.hashes.empty());
  EXPECT_EQ(r.offsets, (std::vector<std::size_t>{0, 0, 0, 0}));
  bool one = false;
  EXPECT_EQ(error_code_of([&] { bloomkit::reassemble(r, {}, std::span<bool>(&one, 1)); }), errc::invalid_argument);
}

// ---- exactness, for both block layouts ----------------------------------------

template <class Policy>
class ShardExactness : public ::testing::Test {};
using Policies = ::testing::Types<bloomkit::split_block_bloom::policy, bloomkit::blocked_bloom::policy>;
TYPED_TEST_SUITE(ShardExactness, Policies);

/// Builds the unsharded filter and S shards from the same hashes (the
/// shards from a shuffled copy with every tenth hash repeated, as a retried
/// task would) and checks bits per block range and every answer.
template <class P>
void check_exact(std::uint64_t capacity, double fpr, std::uint32_t shards, std::uint64_t seed) {
  block_filter<P> whole(capacity, fpr);
  const auto keys = random_hashes(capacity, seed);
  whole.insert_many(keys);
  const shard_layout layout(whole.num_blocks(), shards);

  std::vector<std::uint64_t> input = keys;
  for (std::size_t i = 0; i < keys.size(); i += 10) input.push_back(keys[i]);
  std::mt19937_64 rng(seed);
  std::shuffle(input.begin(), input.end(), rng);
  const auto routed = bloomkit::route(layout, input);

  std::vector<block_shard<P>> built;
  for (std::uint32_t s = 0; s < shards; ++s) {
    built.emplace_back(whole.params(), layout, s);
    // In two halves and merged, like two attempts of one task.
    const auto part = routed.hashes_of(s);
    block_shard<P> again(whole.params(), layout, s);
    built[s].insert_many(part.first(part.size() / 2));
    again.insert_many(part.subspan(part.size() / 2));
    built[s].merge(again.view());
    const auto expected = whole.blocks().subspan(layout.first_block(s), layout.block_count(s));
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), built[s].blocks().begin(), built[s].blocks().end()))
        << "shard " << s << " of " << shards << " differs from the unsharded filter's block range";
    const auto slice = block_shard<P>::slice(whole.view(), layout, s);
    ASSERT_TRUE(std::equal(slice.blocks().begin(), slice.blocks().end(), built[s].blocks().begin()));
  }

  // Answers: every key, and as many absent hashes (so false positives are compared too).
  std::vector<std::uint64_t> probes = keys;
  const auto absent = random_hashes(capacity * 4, seed + 1000);
  probes.insert(probes.end(), absent.begin(), absent.end());
  const auto pr = bloomkit::route(layout, probes);
  auto grouped = std::make_unique<bool[]>(probes.size());
  for (std::uint32_t s = 0; s < shards; ++s) {
    const auto part = pr.hashes_of(s);
    built[s].may_contain_many(part, std::span<bool>(grouped.get() + pr.offsets[s], part.size()));
  }
  auto answers = std::make_unique<bool[]>(probes.size());
  bloomkit::reassemble(pr, std::span<const bool>(grouped.get(), probes.size()),
                       std::span<bool>(answers.get(), probes.size()));
  std::size_t positives = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(answers[i], whole.may_contain_hash(probes[i])) << "probe " << i;
    ASSERT_EQ(built[layout.shard_of_hash(probes[i])].may_contain_hash(probes[i]), answers[i]);
    positives += answers[i] ? 1 : 0;
  }
  EXPECT_GE(positives, keys.size());  // no false negatives, and some false positives compared
}

TYPED_TEST(ShardExactness, SameBitsAndAnswersForManyShardCounts) {
  for (std::uint32_t shards : {1U, 2U, 3U, 7U, 16U}) check_exact<TypeParam>(20000, 0.01, shards, 7 + shards);
}

// Shards run the block layouts' batch path (block_test_many / block_set_many
// over shard_blocks): every kernel this CPU has builds the same shard bytes
// and answers as the unsharded filter.
TYPED_TEST(ShardExactness, SameBitsAndAnswersUnderEveryKernel) {
  for (const bloomkit::kernel k : bloomkit::test::supported_kernels()) {
    bloomkit::set_kernel(k);
    check_exact<TypeParam>(5000, 0.01, 3, 40);
    bloomkit::reset_kernel();
    if (this->HasFatalFailure()) FAIL() << "under kernel " << to_string(k);
  }
}

TYPED_TEST(ShardExactness, OneBlockPerShard) {
  block_filter<TypeParam> probe_size(300, 0.01);
  const auto blocks = static_cast<std::uint32_t>(probe_size.num_blocks());
  check_exact<TypeParam>(300, 0.01, blocks, 3);
}

TYPED_TEST(ShardExactness, OneKeyAndNoKeys) {
  check_exact<TypeParam>(1, 0.01, 1, 5);
  block_filter<TypeParam> whole(1000, 0.01);
  const shard_layout layout(whole.num_blocks(), 4);
  for (std::uint32_t s = 0; s < 4; ++s) {
    const block_shard<TypeParam> empty(whole.params(), layout, s);
    EXPECT_EQ(empty.inserted(), 0U);
    for (const auto h : random_hashes(100, 9)) {
      if (layout.shard_of_hash(h) == s) {
        EXPECT_FALSE(empty.may_contain_hash(h));
      }
    }
  }
}

TYPED_TEST(ShardExactness, RefusesHashesOfAnotherShardAndChangesNothing) {
  block_filter<TypeParam> whole(1000, 0.01);
  const shard_layout layout(whole.num_blocks(), 4);
  block_shard<TypeParam> shard(whole.params(), layout, 1);
  auto hashes = random_hashes(200, 13);
  std::vector<std::uint64_t> mine, foreign;
  for (const auto h : hashes) (layout.shard_of_hash(h) == 1 ? mine : foreign).push_back(h);
  ASSERT_FALSE(mine.empty());
  ASSERT_FALSE(foreign.empty());
  std::vector<std::uint64_t> mixed = mine;
  mixed.push_back(foreign.front());
  const auto before = std::vector<typename TypeParam::block_type>(shard.blocks().begin(), shard.blocks().end());
  try {
    shard.insert_many(mixed);
    FAIL() << "a foreign hash was inserted";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("routes to shard"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::equal(before.begin(), before.end(), shard.blocks().begin()));
  EXPECT_EQ(shard.inserted(), 0U);
  EXPECT_EQ(error_code_of([&] { (void)shard.may_contain_hash(foreign.front()); }), errc::invalid_argument);
  // Shards of other shapes do not merge.
  const block_shard<TypeParam> other_index(whole.params(), layout, 2);
  EXPECT_EQ(error_code_of([&] { shard.merge(other_index.view()); }), errc::mismatch);
  EXPECT_EQ(error_code_of([&] { block_shard<TypeParam>(whole.params(), layout, 4); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([&] { block_shard<TypeParam>(whole.params(), shard_layout(whole.num_blocks() + 1, 4), 0); }),
            errc::invalid_argument);
}

// ---- files and manifest ------------------------------------------------------

class ShardFiles : public ::testing::Test {
 protected:
  using P = bloomkit::split_block_bloom::policy;
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("bloomkit_sharding_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Builds `shards` shard files of a 5000-key filter under `folder`, writes
  /// the manifest and returns its path; `whole` gets the unsharded filter.
  std::filesystem::path build(const std::filesystem::path& folder, std::uint32_t shards, std::uint64_t seed,
                              block_filter<P>* whole_out = nullptr) {
    return build_from(folder, shards, random_hashes(5000, seed), whole_out);
  }
  /// build, of the filter that took `keys` (hashes).
  std::filesystem::path build_from(const std::filesystem::path& folder, std::uint32_t shards,
                                   const std::vector<std::uint64_t>& keys, block_filter<P>* whole_out = nullptr) {
    std::filesystem::create_directories(folder);
    block_filter<P> whole(5000, 0.01);
    whole.insert_many(keys);
    const shard_layout layout(whole.num_blocks(), shards);
    const auto r = bloomkit::route(layout, keys);
    std::vector<bloomkit::shard_entry> entries;
    for (std::uint32_t s = shards; s-- > 0;) {  // any order
      block_shard<P> shard(whole.params(), layout, s);
      shard.insert_many(r.hashes_of(s));
      entries.push_back(bloomkit::save_shard(shard, folder / bloomkit::shard_file_name(s, shards)));
    }
    const auto manifest = bloomkit::make_manifest<P>(whole.params(), layout, entries);
    const auto path = folder / "filter.manifest.json";
    bloomkit::write_manifest(manifest, path);
    if (whole_out != nullptr) *whole_out = std::move(whole);
    return path;
  }

  static std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  static void write_text(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  }
  static void replace_once(std::string& text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  /// The message of what open_sharded throws, with its code.
  static std::pair<errc, std::string> open_error(const std::filesystem::path& manifest) {
    try {
      bloomkit::sharded_filter<P> f(manifest);
    } catch (const bloomkit::error& e) {
      return {e.code(), e.what()};
    }
    return {errc{}, ""};
  }

  std::filesystem::path dir_;
};

TEST_F(ShardFiles, SavedShardsAnswerExactlyAsTheUnshardedFilter) {
  block_filter<P> whole(1, 0.5);
  const auto manifest_path = build(dir_, 5, 21, &whole);
  const bloomkit::sharded_filter<P> sharded(manifest_path);
  EXPECT_EQ(sharded.manifest().inserted(), 5000U);
  EXPECT_EQ(sharded.manifest().whole, whole.params());
  auto probes = random_hashes(5000, 21);  // the keys
  const auto absent = random_hashes(50000, 99);
  probes.insert(probes.end(), absent.begin(), absent.end());
  auto answers = std::make_unique<bool[]>(probes.size());
  sharded.may_contain_many(probes, std::span<bool>(answers.get(), probes.size()));
  for (std::size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(answers[i], whole.may_contain_hash(probes[i])) << i;
    ASSERT_EQ(sharded.may_contain_hash(probes[i]), answers[i]);
  }
  // Each shard file is a normal filter file holding exactly its block range.
  for (std::uint32_t s = 0; s < 5; ++s) {
    const auto& e = sharded.manifest().entries[s];
    const auto local = bloomkit::load_as<block_filter<P>>(dir_ / e.file);
    const auto expected = whole.blocks().subspan(e.first_block, e.blocks);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), local.blocks().begin(), local.blocks().end()));
  }
  // Gathered, the shards are the unsharded filter, byte for byte in a file.
  EXPECT_EQ(bloomkit::save_to_bytes(sharded.gather()), bloomkit::save_to_bytes(whole));
  // The empty batch.
  sharded.may_contain_many({}, {});
}

// A sharded filter answers keys as every kind does: may_contain(key) and
// may_contain_keys are the unsharded filter's, the keys hashed with hash().
TEST_F(ShardFiles, AnswersKeysAsTheUnshardedFilter) {
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back("user-" + std::to_string(i));
  std::vector<std::uint64_t> hashes;
  for (const auto& k : keys) hashes.push_back(bloomkit::hash_key(k, block_filter<P>(5000, 0.01).hash()));
  block_filter<P> whole(1, 0.5);
  const bloomkit::sharded_filter<P> sharded(build_from(dir_, 4, hashes, &whole));
  EXPECT_EQ(sharded.hash(), whole.hash());
  std::vector<std::string> probes = keys;
  for (int i = 0; i < 20000; ++i) probes.push_back("other-" + std::to_string(i));
  auto answers = std::make_unique<bool[]>(probes.size());
  sharded.may_contain_keys(probes, std::span<bool>(answers.get(), probes.size()));
  std::size_t positives = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(answers[i], whole.may_contain(probes[i])) << probes[i];
    ASSERT_EQ(sharded.may_contain(probes[i]), answers[i]) << probes[i];
    if (i < keys.size()) {
      ASSERT_TRUE(answers[i]) << probes[i];
    }
    positives += answers[i];
  }
  EXPECT_LT(positives, keys.size() + 20000 / 20) << "absent keys answer mostly false";
  EXPECT_TRUE(sharded.may_contain(std::string_view("user-7")));
  EXPECT_EQ(error_code_of([&] { sharded.may_contain_keys(keys, std::span<bool>(answers.get(), 3)); }),
            errc::invalid_argument);
  sharded.may_contain_keys(std::vector<std::string>{}, {});
}

TEST_F(ShardFiles, ManifestRoundTripsThroughJson) {
  const auto m = bloomkit::read_manifest(build(dir_, 3, 1));
  EXPECT_EQ(bloomkit::manifest_from_json(bloomkit::manifest_to_json(m)), m);
  EXPECT_EQ(m.kind, "split_block_bloom");
  EXPECT_EQ(m.entries.size(), 3U);
}

TEST_F(ShardFiles, RefusesAMissingShardFile) {
  const auto manifest = build(dir_, 4, 2);
  std::filesystem::remove(dir_ / bloomkit::shard_file_name(2, 4));
  const auto [code, what] = open_error(manifest);
  EXPECT_EQ(code, errc::io);
  EXPECT_NE(what.find("shard 2 of 4"), std::string::npos) << what;
  EXPECT_NE(what.find("missing"), std::string::npos) << what;
}

TEST_F(ShardFiles, RefusesAShardFromAnotherBuild) {
  const auto manifest = build(dir_, 4, 3);
  build(dir_ / "other", 4, 4);  // same shape, other keys: same sizes, other bits
  std::filesystem::copy_file(dir_ / "other" / bloomkit::shard_file_name(1, 4), dir_ / bloomkit::shard_file_name(1, 4),
                             std::filesystem::copy_options::overwrite_existing);
  const auto [code, what] = open_error(manifest);
  EXPECT_EQ(code, errc::mismatch);
  EXPECT_NE(what.find("shard 1 of 4"), std::string::npos) << what;
  EXPECT_NE(what.find("XXH3"), std::string::npos) << what;
}

TEST_F(ShardFiles, RefusesSwappedShardFiles) {
  const auto manifest = build(dir_, 4, 5);
  const auto a = dir_ / bloomkit::shard_file_name(0, 4), b = dir_ / bloomkit::shard_file_name(3, 4);
  std::filesystem::rename(a, dir_ / "tmp");
  std::filesystem::rename(b, a);
  std::filesystem::rename(dir_ / "tmp", b);
  EXPECT_EQ(open_error(manifest).first, errc::mismatch);
}

TEST_F(ShardFiles, RefusesATruncatedOrAlteredShardFile) {
  const auto manifest = build(dir_, 2, 6);
  const auto file = dir_ / bloomkit::shard_file_name(0, 2);
  auto bytes = bloomkit::test::read_file_bytes(file);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() - 64));
  }
  auto [code, what] = open_error(manifest);
  EXPECT_EQ(code, errc::mismatch);
  EXPECT_NE(what.find("bytes"), std::string::npos) << what;
  bytes[bytes.size() - 1] ^= std::byte{1};  // one payload bit, same size
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  EXPECT_EQ(open_error(manifest).first, errc::mismatch);
}

TEST_F(ShardFiles, RefusesAManifestThatDisagreesWithItsFiles) {
  const auto manifest = build(dir_, 3, 7);
  const std::string good = read_text(manifest);
  struct edit {
    std::string from, to;
    errc code;
  };
  const std::vector<edit> edits = {
      {"\"shards\": 3", "\"shards\": 4", errc::corrupt},                 // entries no longer match
      {"\"index\": 1", "\"index\": 2", errc::corrupt},                   // order/index
      {"\"k\": 8", "\"k\": 7", errc::corrupt},                           // split-block needs k = 8
      {"\"format\": \"bloomkit-sharded\"", "\"format\": \"other\"", errc::corrupt},
      {"\"version\": 1", "\"version\": 2", errc::unsupported_version},
      {"\"kind\": \"split_block_bloom\"", "\"kind\": \"standard_bloom\"", errc::unsupported},
      {"\"kind\": \"split_block_bloom\"", "\"kind\": \"blocked_bloom\"", errc::mismatch},  // valid, wrong policy
      {"\"file\": \"shard-00001-of-00003.bkf\"", "\"file\": \"../shard-00001-of-00003.bkf\"", errc::corrupt},
      {"\"algorithm\": \"xxh64\"", "\"algorithm\": \"xxh3_64\"", errc::hash_mismatch},
      {"\"algorithm\": \"xxh64\"", "\"algorithm\": \"md5\"", errc::corrupt},
      {"\"inserted\": 5000", "\"inserted\": 4999", errc::corrupt},
      {"\"blocks\": ", "\"blocks\": -", errc::corrupt},
  };
  for (const auto& e : edits) {
    std::string text = good;
    replace_once(text, e.from, e.to);
    write_text(manifest, text);
    const auto [code, what] = open_error(manifest);
    EXPECT_EQ(code, e.code) << e.from << " -> " << e.to << ": " << what;
    EXPECT_NE(what.find("bloomkit"), std::string::npos) << what;
  }
  for (const std::string bad : {"", "[]", "{", "{\"format\": \"bloomkit-sharded\"}", "null"}) {
    write_text(manifest, bad);
    EXPECT_EQ(open_error(manifest).first, errc::corrupt) << bad;
  }
  EXPECT_EQ(open_error(dir_ / "no-such.manifest.json").first, errc::io);
  write_text(manifest, good);
  EXPECT_EQ(open_error(manifest).first, errc{});
}

TEST_F(ShardFiles, ShardsOfAnOddLayoutAndTheOneShardCase) {
  block_filter<P> whole(1, 0.5);
  const auto manifest_path = build(dir_, 1, 8, &whole);
  const bloomkit::sharded_filter<P> sharded(manifest_path);
  for (const auto h : random_hashes(10000, 77)) ASSERT_EQ(sharded.may_contain_hash(h), whole.may_contain_hash(h));
}

TEST_F(ShardFiles, MakeManifestRefusesMissingOrRepeatedEntries) {
  block_filter<P> whole(5000, 0.01);
  const shard_layout layout(whole.num_blocks(), 2);
  block_shard<P> s0(whole.params(), layout, 0), s1(whole.params(), layout, 1);
  const auto e0 = bloomkit::save_shard(s0, dir_ / "a.bkf");
  const auto e1 = bloomkit::save_shard(s1, dir_ / "b.bkf");
  EXPECT_EQ(error_code_of([&] { bloomkit::make_manifest<P>(whole.params(), layout, {e0}); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([&] { bloomkit::make_manifest<P>(whole.params(), layout, {e0, e0}); }),
            errc::invalid_argument);
  EXPECT_EQ(error_code_of([&] { bloomkit::make_manifest<P>(whole.params(), layout, {e1, e0}); }), errc{});
}

// ---- the fuzz seed corpus, replayed ------------------------------------------

TEST(ManifestCorpus, EverySeedPassesTheFuzzTargetsChecks) {
  const auto folder = std::filesystem::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "manifest";
  // Every input, the campaigns' merged ones included, passes the target's
  // checks; the hand-written seeds keep their verdicts.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const auto bytes = bloomkit::test::read_file_bytes(entry.path());
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const bool accepted = bloomkit_fuzz::check_manifest(text);
    const std::string name = entry.path().filename().string();
    if (name == "split1.json" || name == "split4.json" || name == "blocked3.json") {
      EXPECT_TRUE(accepted) << name;
    } else if (name == "array.json" || name == "partial.json") {
      EXPECT_FALSE(accepted) << name;
    }
    ++files;
  }
  EXPECT_GE(files, 5U);
}


// ---- the manifest's JSON against nlohmann's DOM --------------------------------
// manifest_from_json / manifest_to_json use nlohmann's SAX parser and print
// the text themselves (sharding.hpp, detail::manifest_sax says why: the DOM's
// destructor calls std::terminate on a failed allocation). The oracle below
// is the DOM reader and writer they replaced: both must agree on every input
// (accepted or not, the error code and message, the manifest, the text).

using SplitP = bloomkit::split_block_bloom::policy;

/// The DOM-based reader (the code manifest_from_json had before the SAX one).
bloomkit::shard_manifest dom_manifest_from_json(std::string_view text, const std::string& where) {
  using bloomkit::detail::manifest_fail;
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) manifest_fail(errc::corrupt, where, "it is not a JSON object");
  auto field = [&](const nlohmann::json& obj, const char* name) -> const nlohmann::json& {
    const auto it = obj.find(name);
    if (it == obj.end()) manifest_fail(errc::corrupt, where, std::string("field '") + name + "' is missing");
    return *it;
  };
  auto unsigned_field = [&](const nlohmann::json& obj, const char* name, std::uint64_t max) -> std::uint64_t {
    const auto& v = field(obj, name);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max) {
      manifest_fail(errc::corrupt, where,
                    std::string("field '") + name + "' must be an integer in [0, " + std::to_string(max) + "]");
    }
    return v.get<std::uint64_t>();
  };
  auto string_field = [&](const nlohmann::json& obj, const char* name) -> std::string {
    const auto& v = field(obj, name);
    if (!v.is_string()) manifest_fail(errc::corrupt, where, std::string("field '") + name + "' must be a string");
    return v.get<std::string>();
  };
  if (string_field(j, "format") != "bloomkit-sharded") {
    manifest_fail(errc::corrupt, where, "field 'format' is not \"bloomkit-sharded\"");
  }
  const std::uint64_t version = unsigned_field(j, "version", UINT32_MAX);
  if (version != 1) {
    manifest_fail(errc::unsupported_version, where, "version " + std::to_string(version) + " is newer than this reader (1)");
  }
  bloomkit::shard_manifest m;
  m.kind = string_field(j, "kind");
  const auto& hash = field(j, "hash");
  if (!hash.is_object()) manifest_fail(errc::corrupt, where, "field 'hash' must be an object");
  const std::string algorithm = string_field(hash, "algorithm");
  if (algorithm == "xxh64") {
    m.whole.hash.algorithm = bloomkit::hash_algorithm::xxh64;
  } else if (algorithm == "xxh3_64") {
    m.whole.hash.algorithm = bloomkit::hash_algorithm::xxh3_64;
  } else {
    manifest_fail(errc::corrupt, where, "unknown hash algorithm '" + algorithm + "'");
  }
  m.whole.hash.seed = unsigned_field(hash, "seed", UINT64_MAX);
  m.whole.blocks = unsigned_field(j, "blocks", UINT64_MAX);
  m.whole.k = static_cast<std::uint32_t>(unsigned_field(j, "k", 64));
  m.whole.capacity = unsigned_field(j, "capacity", UINT64_MAX);
  const auto& fpr = field(j, "target_fpr");
  if (!fpr.is_number()) manifest_fail(errc::corrupt, where, "field 'target_fpr' must be a number");
  m.whole.target_fpr = fpr.get<double>();
  m.shards = static_cast<std::uint32_t>(unsigned_field(j, "shards", shard_layout::max_shards));
  const auto& files = field(j, "files");
  if (!files.is_array()) manifest_fail(errc::corrupt, where, "field 'files' must be an array");
  for (const auto& f : files) {
    if (!f.is_object()) manifest_fail(errc::corrupt, where, "every entry of 'files' must be an object");
    bloomkit::shard_entry e;
    e.index = static_cast<std::uint32_t>(unsigned_field(f, "index", UINT32_MAX));
    e.file = string_field(f, "file");
    e.first_block = unsigned_field(f, "first_block", UINT64_MAX);
    e.blocks = unsigned_field(f, "blocks", UINT64_MAX);
    e.inserted = unsigned_field(f, "inserted", UINT64_MAX);
    e.file_bytes = unsigned_field(f, "bytes", UINT64_MAX);
    const std::string sum = string_field(f, "xxh3");
    if (sum.size() != 16 || sum.find_first_not_of("0123456789abcdef") != std::string::npos) {
      manifest_fail(errc::corrupt, where, "shard " + std::to_string(e.index) + ": 'xxh3' must be 16 hex digits");
    }
    e.checksum = std::stoull(sum, nullptr, 16);
    m.entries.push_back(std::move(e));
  }
  bloomkit::detail::validate_manifest(m, where);
  if (j.contains("inserted") && (!j["inserted"].is_number_unsigned() || j["inserted"].get<std::uint64_t>() != m.inserted())) {
    manifest_fail(errc::corrupt, where, "field 'inserted' is not the sum of the shards' counts");
  }
  return m;
}

/// The DOM-based writer (ordered_json::dump(1)) manifest_to_json replaced.
std::string dom_manifest_to_json(const bloomkit::shard_manifest& m) {
  nlohmann::ordered_json j;
  j["format"] = "bloomkit-sharded";
  j["version"] = 1;
  j["kind"] = m.kind;
  j["hash"] = {{"algorithm", std::string(bloomkit::to_string(m.whole.hash.algorithm))}, {"seed", m.whole.hash.seed}};
  j["blocks"] = m.whole.blocks;
  j["k"] = m.whole.k;
  j["capacity"] = m.whole.capacity;
  j["target_fpr"] = m.whole.target_fpr;
  j["shards"] = m.shards;
  j["inserted"] = m.inserted();
  auto& list = j["files"] = nlohmann::ordered_json::array();
  for (const auto& e : m.entries) {
    list.push_back({{"index", e.index}, {"file", e.file}, {"first_block", e.first_block}, {"blocks", e.blocks},
                    {"inserted", e.inserted}, {"bytes", e.file_bytes}, {"xxh3", bloomkit::detail::hex16(e.checksum)}});
  }
  return j.dump(1) + "\n";
}

/// {accepted, error code, message, the manifest} of one reader on `text`.
template <class Read>
auto read_outcome(Read read, std::string_view text) {
  struct outcome {
    bool accepted = false;
    errc code{};
    std::string what;
    bloomkit::shard_manifest m;
  } o;
  try {
    o.m = read(text);
    o.accepted = true;
  } catch (const bloomkit::error& e) {
    o.code = e.code();
    o.what = e.what();
  }
  return o;
}

void expect_readers_agree(std::string_view text, const std::string& name) {
  const auto sax = read_outcome([](std::string_view t) { return bloomkit::manifest_from_json(t, "(t)"); }, text);
  const auto dom = read_outcome([](std::string_view t) { return dom_manifest_from_json(t, "(t)"); }, text);
  ASSERT_EQ(sax.accepted, dom.accepted) << name << ": " << sax.what << " | " << dom.what;
  EXPECT_EQ(sax.code, dom.code) << name;
  EXPECT_EQ(sax.what, dom.what) << name;
  if (sax.accepted) {
    EXPECT_EQ(sax.m, dom.m) << name;
    EXPECT_EQ(bloomkit::manifest_to_json(sax.m), dom_manifest_to_json(sax.m)) << name;
  }
}

TEST(ManifestJson, ReaderAndWriterAgreeWithNlohmannsDomOnEveryCorpusInput) {
  const auto folder = std::filesystem::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "manifest";
  std::size_t files = 0, accepted = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const auto bytes = bloomkit::test::read_file_bytes(entry.path());
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    expect_readers_agree(text, entry.path().filename().string());
    accepted += read_outcome([](std::string_view t) { return bloomkit::manifest_from_json(t); }, text).accepted;
    ++files;
  }
  EXPECT_GE(files, 5U);
  EXPECT_GE(accepted, 3U);  // the hand-written valid seeds at least: the text comparison ran
}

TEST(ManifestJson, ReaderAgreesOnRepeatedReorderedUnknownAndMistypedFields) {
  block_filter<SplitP> whole(5000, 0.01);
  const shard_layout layout(whole.num_blocks(), 2);
  std::vector<bloomkit::shard_entry> entries(2);
  for (std::uint32_t s = 0; s < 2; ++s) {
    entries[s] = {s, "shard-" + std::to_string(s) + ".bkf", layout.first_block(s), layout.block_count(s), 10 + s, 100, 0xabcdef0123456789ULL};
  }
  const std::string good = bloomkit::manifest_to_json(bloomkit::make_manifest<SplitP>(whole.params(), layout, entries));
  expect_readers_agree(good, "good");
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"{\n \"format\"", "{\"x\": [[{\"a\": [1, {\"b\": null}]}], {}], \"format\""},    // unknown nested field first
      {"{\n \"format\"", "{\"files\": 7, \"format\""},                               // repeated: the last one wins
      {"{\n \"format\"", "{\"hash\": {\"algorithm\": \"md5\"}, \"format\""},
      {"{\n \"format\"", "{\"kind\": \"blocked_bloom\", \"format\""},
      {"\"seed\": 0", "\"seed\": 0, \"seed\": 1"},
      {"\"seed\": 0", "\"seed\": 0, \"extra\": {\"seed\": 5}"},
      {"\"seed\": 0", "\"seed\": -0"},
      {"\"seed\": 0", "\"seed\": 0.0"},
      {"\"seed\": 0", "\"seed\": 18446744073709551616"},
      {"\"index\": 0", "\"index\": 0, \"index\": 0, \"z\": [\"index\", 3]"},
      {"\"index\": 0", "\"index\": [0]"},
      {"\"index\": 1", "\"index\": {\"index\": 1}"},
      {"\"file\": \"shard-0.bkf\"", "\"file\": \"shard-\\u0030.bkf\""},
      {"\"file\": \"shard-0.bkf\"", "\"file\": null"},
      {"\"target_fpr\": 0.01", "\"target_fpr\": 1"},
      {"\"target_fpr\": 0.01", "\"target_fpr\": -1"},
      {"\"target_fpr\": 0.01", "\"target_fpr\": \"0.01\""},
      {"\"target_fpr\": 0.01", "\"target_fpr\": 1e400"},
      {"\"inserted\": 21", "\"inserted\": 22"},
      {"\"inserted\": 21", "\"inserted\": true"},
      {"\"files\": [", "\"files\": [3, "},
      {"\"files\": [", "\"files\": [[], "},
      {"\"files\": [", "\"files\": {\"a\": [], \"b\": 1}, \"files\": ["},
      {"\"hash\": {", "\"hash\": [], \"hash\": {"},
      {"\"hash\": {", "\"hash\": {\"algorithm\": 1}, \"hash\": {"},
      {"\"k\": 8", "\"k\": 8, \"k\": 9"},
      {"\"format\": \"bloomkit-sharded\"", "\"format\": {\"x\": \"bloomkit-sharded\"}"},
  };
  for (const auto& [from, to] : edits) {
    std::string text = good;
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    expect_readers_agree(text, to);
  }
  const std::vector<std::string> bad_texts = {"", " ", "[]", "{", "{}", "null", "1", "\"x\"", "{\"format\": \"bloomkit-sharded\"}",
                                             "{} {}", "{\"a\": [}", good + "x", good.substr(0, good.size() / 2)};
  for (const std::string& bad : bad_texts) {
    expect_readers_agree(bad, bad);
  }
  // A deep nest under an unknown key is skipped by counting, not by recursion.
  const std::string deep = "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + ", " + good.substr(1);
  expect_readers_agree(deep, "deep");
}

TEST(ManifestJson, TextIsNlohmannsDumpForOddNamesAndNumbers) {
  for (const double fpr : {0.01, 0.5, 1e-7, 0.123456789012345678, 0.3}) {
    block_filter<SplitP> whole(3000, fpr);
    const shard_layout layout(whole.num_blocks(), 3);
    std::vector<bloomkit::shard_entry> entries(3);
    const std::string names[] = {"a \"quoted\" name.bkf", "tab\there\\and\x01.bkf", "\xc3\xa9t\xc3\xa9 \xe2\x82\xac.bkf"};
    for (std::uint32_t s = 0; s < 3; ++s) {
      entries[s] = {s, names[s], layout.first_block(s), layout.block_count(s), UINT64_MAX / 4, s, ~std::uint64_t{s}};
    }
    const auto m = bloomkit::make_manifest<SplitP>(whole.params(), layout, entries);
    EXPECT_EQ(bloomkit::manifest_to_json(m), dom_manifest_to_json(m)) << fpr;
    EXPECT_EQ(bloomkit::manifest_from_json(bloomkit::manifest_to_json(m)), m) << fpr;
  }
  bloomkit::shard_manifest empty;  // no entries: "[]", as the DOM's dump
  EXPECT_EQ(bloomkit::manifest_to_json(empty), dom_manifest_to_json(empty));
}
}  // namespace
