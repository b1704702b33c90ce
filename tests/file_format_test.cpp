// tests/file_format_test.cpp - the bloomkit file format (docs/FORMAT.md):
// round trips of every kind, every truncation, every single-bit flip, each
// field check, a file written by hand byte by byte, atomic saving, mapping.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/file_format.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;
namespace fs = std::filesystem;
namespace fmt = bloomkit::detail::format;

using bytes_t = std::vector<std::byte>;

using bloomkit::test::aligned_copy;

/// A fresh folder under the build tree, removed at the end of the test.
class scratch_dir {
 public:
  explicit scratch_dir(const std::string& name)
      : path_(fs::path(bloomkit::test::paths::binary_dir) / "test-scratch" / ("file_format-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  /// Names of everything in the folder (to find stray temporary files).
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    return out;
  }

 private:
  fs::path path_;
};

std::vector<std::uint64_t> make_hashes(std::size_t n, std::uint64_t seed) {
  detail::splitmix64 rng(seed);
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = rng();
  return out;
}

/// The errc a callable throws, or nullopt if it returns.
template <class Fn>
std::optional<errc> code_of(Fn&& fn) {
  try {
    fn();
  } catch (const bloomkit::error& e) {
    return e.code();
  }
  return std::nullopt;
}

/// The message a callable throws ("" if it returns).
template <class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const bloomkit::error& e) {
    return e.what();
  }
  return "";
}

// ---- per-kind test configuration ------------------------------------------------

template <class F>
struct kind_traits;

template <>
struct kind_traits<standard_bloom> {
  static standard_bloom make(std::uint64_t n, double p, hash_spec h) { return standard_bloom(n, p, h); }
  /// Exact shapes covering the edges: one bit, word boundaries, odd sizes, k = 1 and 64.
  static std::vector<standard_bloom_params> shapes() {
    std::vector<standard_bloom_params> out;
    for (std::uint64_t bits : {1ULL, 63ULL, 64ULL, 65ULL, 200ULL, 4096ULL, 100003ULL, 1ULL << 20}) {
      for (std::uint32_t k : {1U, 7U, 64U}) out.push_back({bits, k, std::max<std::uint64_t>(1, bits / 10), 0.01, {}});
    }
    return out;
  }
  /// A small filter: 200 bits (not a multiple of 64, so the tail rule matters).
  static standard_bloom small() { return standard_bloom(standard_bloom_params{200, 3, 20, 0.05, hash_spec{}}); }
  static bool same_bits(const standard_bloom& a, const standard_bloom& b) {
    return std::equal(a.words().begin(), a.words().end(), b.words().begin(), b.words().end());
  }
};
template <>
struct kind_traits<blocked_bloom> {
  static blocked_bloom make(std::uint64_t n, double p, hash_spec h) { return blocked_bloom(n, p, h); }
  static std::vector<block_filter_params> shapes() {
    std::vector<block_filter_params> out;
    for (std::uint64_t blocks : {1ULL, 2ULL, 3ULL, 7ULL, 64ULL, 1000ULL, 20000ULL}) {
      for (std::uint32_t k : {1U, 6U, 16U}) out.push_back({blocks, k, blocks * 20, 0.01, {}});
    }
    return out;
  }
  static blocked_bloom small() { return blocked_bloom(block_filter_params{2, 6, 20, 0.05, hash_spec{}}); }
  static bool same_bits(const blocked_bloom& a, const blocked_bloom& b) {
    return std::equal(a.blocks().begin(), a.blocks().end(), b.blocks().begin(), b.blocks().end());
  }
};
template <>
struct kind_traits<split_block_bloom> {
  static split_block_bloom make(std::uint64_t n, double p, hash_spec h) { return split_block_bloom(n, p, h); }
  static std::vector<block_filter_params> shapes() {
    std::vector<block_filter_params> out;
    for (std::uint64_t blocks : {1ULL, 2ULL, 3ULL, 7ULL, 64ULL, 1000ULL, 20000ULL}) {
      for (std::uint32_t k : {8U}) out.push_back({blocks, k, blocks * 20, 0.01, {}});
    }
    return out;
  }
  static split_block_bloom small() { return split_block_bloom(block_filter_params{3, 8, 20, 0.05, parquet_hash_spec}); }
  static bool same_bits(const split_block_bloom& a, const split_block_bloom& b) {
    return std::equal(a.blocks().begin(), a.blocks().end(), b.blocks().begin(), b.blocks().end());
  }
};

template <class F>
F small_filled() {
  F f = kind_traits<F>::small();
  const auto keys = make_hashes(15, 42);
  f.insert_many(keys);
  return f;
}

template <class F>
class FileFormatTyped : public ::testing::Test {};
using kinds = ::testing::Types<standard_bloom, blocked_bloom, split_block_bloom>;
TYPED_TEST_SUITE(FileFormatTyped, kinds);

// ---- round trips ------------------------------------------------------------------

TYPED_TEST(FileFormatTyped, RoundTripEverySizeBytesAndAnswersEqual) {
  using F = TypeParam;
  using V = typename F::view_type;
  // Exact shapes (edges of every field) plus filters sized from (n, p) the
  // way users make them, each with two hash specs.
  auto shapes = kind_traits<F>::shapes();
  for (const auto& [n, p] : {std::pair{std::uint64_t{1}, 0.5}, std::pair{std::uint64_t{1000}, 0.01},
                             std::pair{test::scaled(100000), 0.0001}}) {
    shapes.push_back(kind_traits<F>::make(n, p, hash_spec{}).params());
  }
  const std::vector<hash_spec> hashes = {hash_spec{hash_algorithm::xxh3_64, 0}, hash_spec{hash_algorithm::xxh64, 987654321}};
  const auto probes = make_hashes(2000, 7);
  for (auto params : shapes) {
    for (const hash_spec h : hashes) {
      params.hash = h;
      F f(params);
      SCOPED_TRACE("size " + std::to_string(f.size_in_bytes()) + " k " + std::to_string(f.num_hashes()) + " seed " +
                   std::to_string(h.seed));
      const std::uint64_t n = std::min<std::uint64_t>(params.capacity, 200000);
      f.insert_many(make_hashes(n, n * 31 + 1));
      const bytes_t bytes = save_to_bytes(f);
      ASSERT_EQ(bytes.size(), saved_size(f));
      ASSERT_EQ(bytes.size() % 64, f.size_in_bytes() % 64);

      const F loaded = load_as<F>(bytes, h);
      EXPECT_EQ(loaded.params(), f.params());
      EXPECT_EQ(loaded.inserted(), f.inserted());
      EXPECT_TRUE(kind_traits<F>::same_bits(loaded, f));
      EXPECT_EQ(save_to_bytes(loaded), bytes);

      const any_filter any = load(bytes);
      ASSERT_TRUE(std::holds_alternative<F>(any));
      EXPECT_EQ(kind_of(any), kind_of<F>());

      aligned_copy buffer(bytes);
      const any_filter_view any_view = view(buffer.bytes());
      ASSERT_TRUE(std::holds_alternative<V>(any_view));
      const V& v = std::get<V>(any_view);
      EXPECT_EQ(v.params(), f.params());
      EXPECT_EQ(v.inserted(), f.inserted());
      EXPECT_EQ(save_to_bytes(v), bytes);
      EXPECT_EQ(save_to_bytes(any_view), bytes);
      for (const auto q : probes) {
        const bool a = f.may_contain_hash(q);
        ASSERT_EQ(loaded.may_contain_hash(q), a);
        ASSERT_EQ(v.may_contain_hash(q), a);
      }
      EXPECT_DOUBLE_EQ(v.estimated_fpr(), f.estimated_fpr());
    }
  }
}

TYPED_TEST(FileFormatTyped, StreamAndPathRoundTrip) {
  using F = TypeParam;
  const F f = small_filled<F>();
  const bytes_t bytes = save_to_bytes(f);

  std::stringstream stream;
  save(f, stream);
  const std::string text = stream.str();
  ASSERT_EQ(text.size(), bytes.size());
  EXPECT_EQ(std::memcmp(text.data(), bytes.data(), bytes.size()), 0);
  std::istringstream in(text);
  EXPECT_EQ(save_to_bytes(load(in)), bytes);

  scratch_dir dir("path");
  const fs::path file = dir.path() / "f.bkf";
  save(f, file);
  EXPECT_EQ(fs::file_size(file), bytes.size());
  EXPECT_EQ(save_to_bytes(load_as<F>(file)), bytes);
  EXPECT_EQ(save_to_bytes(load(file)), bytes);
  save(any_filter(f), dir.path() / "g.bkf");
  EXPECT_EQ(save_to_bytes(load(dir.path() / "g.bkf")), bytes);
  EXPECT_EQ(dir.entries().size(), 2U) << "no temporary files left behind";
}

TYPED_TEST(FileFormatTyped, MappedViewAnswersEqualOwningFilter) {
  using F = TypeParam;
  using V = typename F::view_type;
  F f = kind_traits<F>::make(test::scaled(50000), 0.01, kind_traits<F>::small().hash());
  f.insert_many(make_hashes(test::scaled(50000), 3));
  scratch_dir dir("mapped");
  const fs::path file = dir.path() / "m.bkf";
  save(f, file);

  mapped_file map(file);
  ASSERT_EQ(map.size(), saved_size(f));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(map.bytes().data()) % 64, 0U);
  const V v = view_as<F>(map.bytes(), f.hash());
  const auto probes = make_hashes(20000, 11);
  bool got[256];
  for (std::size_t i = 0; i < probes.size(); ++i) ASSERT_EQ(v.may_contain_hash(probes[i]), f.may_contain_hash(probes[i]));
  for (std::size_t i = 0; i + 256 <= probes.size(); i += 256) {
    const std::span<const std::uint64_t> window(probes.data() + i, 256);
    v.may_contain_many(window, got);
    for (std::size_t j = 0; j < 256; ++j) ASSERT_EQ(got[j], f.may_contain_hash(window[j]));
  }
  EXPECT_EQ(v.set_bit_count(), f.set_bit_count());

  // open_mapped keeps the mapping and the view together, and moves.
  mapped_filter held = open_mapped(file);
  mapped_filter moved = std::move(held);
  EXPECT_TRUE(std::get<V>(moved.filter).may_contain_hash(probes[0]) == f.may_contain_hash(probes[0]));

  // Saving over the file renames a new inode into place: the old mapping
  // keeps answering for the old filter, a new load sees the new one.
  F other = kind_traits<F>::make(10, 0.01, f.hash());
  save(other, file);
  EXPECT_EQ(v.params(), f.params());
  EXPECT_EQ(v.set_bit_count(), f.set_bit_count());
  EXPECT_EQ(load_as<F>(file).params(), other.params());
}

/// `bytes` with `edit` applied and both checksums recomputed.
template <class Edit>
bytes_t edited(bytes_t bytes, Edit&& edit) {
  edit(bytes);
  (void)fmt::reseal(bytes);  // refuses (and leaves the bytes) when the lengths themselves are broken
  return bytes;
}

void put64(bytes_t& b, std::size_t at, std::uint64_t v) { detail::store_le(b.data() + at, v); }
void put32(bytes_t& b, std::size_t at, std::uint32_t v) { detail::store_le(b.data() + at, v); }

// ---- damage: truncation, bit flips (every kind a file can hold) -----------------------

/// A small filter of each kind, holding 15 keys: the exact shapes above for
/// the kinds in kind_traits, else (capacity 20, fpr 0.05) for dynamic kinds,
/// else a static filter built from the keys.
template <class F>
F damage_sample() {
  const auto hashes = make_hashes(15, 42);
  if constexpr (requires { kind_traits<F>::small(); }) {
    return small_filled<F>();
  } else if constexpr (std::is_constructible_v<F, std::uint64_t, double>) {
    F f(20, 0.05);
    for (const auto h : hashes) f.insert_hash(h);
    return f;
  } else if constexpr (std::is_constructible_v<F, std::span<const std::uint64_t>, std::uint32_t>) {
    return F(std::span<const std::uint64_t>(hashes), 8);  // binary_fuse: 8-bit fingerprints
  } else {
    static_assert(std::is_constructible_v<F, std::span<const std::uint64_t>>, "add a small sample of the new kind here");
    return F(std::span<const std::uint64_t>(hashes));
  }
}

template <class F>
class FileFormatDamage : public ::testing::Test {};
template <class Variant>
struct types_of;
template <class... Ts>
struct types_of<std::variant<Ts...>> {
  using type = ::testing::Types<Ts...>;
};
// Every kind any_filter holds, so a kind added by the recipe is covered at once.
TYPED_TEST_SUITE(FileFormatDamage, types_of<any_filter>::type);

TYPED_TEST(FileFormatDamage, EveryTruncationIsRejectedAsTruncated) {
  const bytes_t bytes = save_to_bytes(damage_sample<TypeParam>());
  ASSERT_LT(bytes.size(), 8192U);
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    SCOPED_TRACE("length " + std::to_string(len));
    aligned_copy buffer(std::span<const std::byte>(bytes).first(len));
    EXPECT_EQ(code_of([&] { (void)load(buffer.bytes()); }), errc::truncated);
    EXPECT_EQ(code_of([&] { (void)view(buffer.bytes()); }), errc::truncated);
    EXPECT_EQ(code_of([&] { (void)inspect(buffer.bytes()); }), errc::truncated);
  }
  // One byte too many is not a truncation but trailing garbage.
  bytes_t longer = bytes;
  longer.push_back(std::byte{0});
  EXPECT_EQ(code_of([&] { (void)load(longer); }), errc::corrupt);
}

/// The damage sample with a key type (format version 5: offset 15 holds it).
template <class F>
F typed_damage_sample() {
  F f = damage_sample<F>();
  f.adopt_key_type(key_type::int64);
  return f;
}

/// Every single-bit flip of `bytes` is refused by load and view alike.
void expect_every_bit_flip_detected(const bytes_t& bytes) {
  aligned_copy buffer(bytes);
  const auto b = buffer.bytes();
  std::size_t by_checksum = 0;
  for (std::size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    b[bit / 8] ^= std::byte{static_cast<unsigned char>(1U << (bit % 8))};
    const auto loaded = code_of([&] { (void)load(b); });
    const auto viewed = code_of([&] { (void)view(b); });
    ASSERT_TRUE(loaded.has_value()) << "flip of bit " << bit << " was accepted by load";
    ASSERT_TRUE(viewed.has_value()) << "flip of bit " << bit << " was accepted by view";
    EXPECT_EQ(loaded, viewed) << "bit " << bit;
    by_checksum += *loaded == errc::checksum;
    // inspect either throws (a structural field) or reports the bad checksum.
    try {
      const file_info info = inspect(b);
      EXPECT_FALSE(info.checksum_ok) << "bit " << bit;
    } catch (const bloomkit::error&) {
    }
    b[bit / 8] ^= std::byte{static_cast<unsigned char>(1U << (bit % 8))};
  }
  EXPECT_GT(by_checksum, bytes.size() * 8 / 2) << "most flips land in checksummed bytes";
  EXPECT_NO_THROW((void)load(b)) << "the buffer was restored";
}

TYPED_TEST(FileFormatDamage, EverySingleBitFlipIsDetected) {
  expect_every_bit_flip_detected(save_to_bytes(damage_sample<TypeParam>()));
}

TYPED_TEST(FileFormatDamage, EverySingleBitFlipOfATypedFileIsDetected) {
  const bytes_t bytes = save_to_bytes(typed_damage_sample<TypeParam>());
  ASSERT_EQ(bytes[15], std::byte{2});  // key_type int64
  ASSERT_EQ(detail::load_le<std::uint32_t>(bytes.data() + 8), 5U);
  expect_every_bit_flip_detected(bytes);
}

TYPED_TEST(FileFormatDamage, SharedHeaderFieldsAgreeWithTheFilter) {
  // A kind may derive inserted, capacity or target_fpr from its parameters
  // (a static filter's capacity is its key count). Editing one (checksums
  // recomputed) must be rejected, or be a value the filter keeps: what load
  // accepts, save writes back byte for byte.
  const bytes_t good = save_to_bytes(damage_sample<TypeParam>());
  const std::vector<std::pair<std::string, std::function<void(bytes_t&)>>> edits = {
      {"inserted + 1", [](bytes_t& b) { put64(b, fmt::offset::inserted, detail::load_le<std::uint64_t>(b.data() + fmt::offset::inserted) + 1); }},
      {"capacity + 1", [](bytes_t& b) { put64(b, fmt::offset::capacity, detail::load_le<std::uint64_t>(b.data() + fmt::offset::capacity) + 1); }},
      {"target_fpr nudged", [](bytes_t& b) { put64(b, fmt::offset::target_fpr, detail::load_le<std::uint64_t>(b.data() + fmt::offset::target_fpr) + 1); }},
  };
  for (const auto& [name, edit] : edits) {
    SCOPED_TRACE(name);
    const bytes_t bad = edited(good, edit);
    try {
      EXPECT_EQ(save_to_bytes(load(bad)), bad);
    } catch (const bloomkit::error& e) {
      EXPECT_EQ(e.code(), errc::corrupt) << e.what();
    }
  }
}

TYPED_TEST(FileFormatDamage, AcceptedBytesAreCanonical) {
  // What load accepts, save writes back byte for byte, through every path.
  const auto f = damage_sample<TypeParam>();
  const bytes_t bytes = save_to_bytes(f);
  EXPECT_EQ(bytes.size(), saved_size(f));
  EXPECT_EQ(save_to_bytes(load(bytes)), bytes);
  EXPECT_EQ(save_to_bytes(load_as<TypeParam>(bytes, f.hash())), bytes);
  aligned_copy buffer(bytes);
  EXPECT_EQ(save_to_bytes(view(buffer.bytes())), bytes);
  const file_info info = inspect(bytes);
  EXPECT_EQ(info.kind, kind_of<TypeParam>());
  EXPECT_TRUE(info.checksum_ok);
  EXPECT_FALSE(info.params.empty());
}

TYPED_TEST(FileFormatTyped, SkippingThePayloadChecksumStillChecksTheHeader) {
  using F = TypeParam;
  const bytes_t bytes = save_to_bytes(small_filled<F>());
  aligned_copy buffer(bytes);
  const auto b = buffer.bytes();
  // A payload bit; for standard_bloom one below its 200-bit end (the last
  // word's high bits must stay clear, which even a skipped checksum enforces).
  b[b.size() - (std::is_same_v<F, standard_bloom> ? 9 : 1)] ^= std::byte{0x01};
  EXPECT_EQ(code_of([&] { (void)view(b); }), errc::checksum);
  EXPECT_NO_THROW((void)view(b, payload_check::skip));
  const file_info info = inspect(b);
  EXPECT_TRUE(info.header_checksum_ok);
  EXPECT_FALSE(info.payload_checksum_ok);
  EXPECT_FALSE(info.checksum_ok);
  b[fmt::offset::inserted] ^= std::byte{0x01};
  EXPECT_EQ(code_of([&] { (void)view(b, payload_check::skip); }), errc::checksum);
}

// ---- kind and hash checks -------------------------------------------------------------------

TYPED_TEST(FileFormatTyped, LoadAsChecksKindAndHash) {
  using F = TypeParam;
  const F f = small_filled<F>();
  const bytes_t bytes = save_to_bytes(f);
  aligned_copy buffer(bytes);
  EXPECT_NO_THROW((void)load_as<F>(bytes, f.hash()));
  EXPECT_NO_THROW((void)view_as<F>(buffer.bytes(), f.hash()));

  hash_spec other_seed = f.hash();
  other_seed.seed += 1;
  hash_spec other_algorithm = f.hash();
  other_algorithm.algorithm =
      f.hash().algorithm == hash_algorithm::xxh64 ? hash_algorithm::xxh3_64 : hash_algorithm::xxh64;
  EXPECT_EQ(code_of([&] { (void)load_as<F>(bytes, other_seed); }), errc::hash_mismatch);
  EXPECT_EQ(code_of([&] { (void)load_as<F>(bytes, other_algorithm); }), errc::hash_mismatch);
  EXPECT_EQ(code_of([&] { (void)view_as<F>(buffer.bytes(), other_seed); }), errc::hash_mismatch);
  EXPECT_NE(message_of([&] { (void)load_as<F>(bytes, other_seed); }).find("seed"), std::string::npos);

  if constexpr (!std::is_same_v<F, standard_bloom>) {
    EXPECT_EQ(code_of([&] { (void)load_as<standard_bloom>(bytes); }), errc::mismatch);
    EXPECT_EQ(code_of([&] { (void)view_as<standard_bloom>(buffer.bytes()); }), errc::mismatch);
  } else {
    EXPECT_EQ(code_of([&] { (void)load_as<blocked_bloom>(bytes); }), errc::mismatch);
  }
}

TYPED_TEST(FileFormatTyped, MisalignedViewIsAClearError) {
  using F = TypeParam;
  const bytes_t bytes = save_to_bytes(small_filled<F>());
  aligned_copy shifted(bytes, 4);  // 4 mod 64: no kind's words may sit there
  EXPECT_EQ(code_of([&] { (void)view(shifted.bytes()); }), errc::invalid_argument);
  EXPECT_NE(message_of([&] { (void)view(shifted.bytes()); }).find("aligned"), std::string::npos);
  EXPECT_NO_THROW((void)load(shifted.bytes())) << "load copies, so it takes any address";
}

TYPED_TEST(FileFormatTyped, InspectReportsTheHeader) {
  using F = TypeParam;
  const F f = small_filled<F>();
  const bytes_t bytes = save_to_bytes(f);
  const file_info info = inspect(bytes);
  EXPECT_EQ(info.kind, kind_of<F>());
  EXPECT_EQ(info.version, 1U);
  EXPECT_EQ(info.hash, f.hash());
  EXPECT_EQ(info.inserted, f.inserted());
  EXPECT_EQ(info.capacity, f.capacity());
  EXPECT_EQ(info.target_fpr, f.target_fpr());
  EXPECT_EQ(info.header_bytes % 64, 0U);
  EXPECT_EQ(info.payload_bytes, f.size_in_bytes());
  EXPECT_EQ(info.file_bytes, bytes.size());
  EXPECT_TRUE(info.checksum_ok);
  ASSERT_GE(info.params.size(), 2U);
  EXPECT_EQ(info.params[1], (file_param{"k", std::uint64_t{f.num_hashes()}}));
}

// ---- field checks (resealed, so they get past the checksums) ---------------------------


struct field_case {
  std::string name;
  std::function<void(bytes_t&)> edit;
  errc expected;
  std::string in_message;  // the field the message must name
};

void expect_field_cases(const bytes_t& good, const std::vector<field_case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const bytes_t bad = edited(good, c.edit);
    aligned_copy buffer(bad);
    EXPECT_EQ(code_of([&] { (void)load(bad); }), c.expected);
    EXPECT_EQ(code_of([&] { (void)view(buffer.bytes()); }), c.expected);
    const std::string message = message_of([&] { (void)load(bad); });
    EXPECT_NE(message.find(c.in_message), std::string::npos) << message;
    EXPECT_EQ(message.rfind("bloomkit file: ", 0), 0U) << message;
  }
}

constexpr std::size_t params_at = fmt::offset::params;

TEST(FileFormat, HeaderFieldsAreChecked) {
  const bytes_t good = save_to_bytes(small_filled<blocked_bloom>());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_field_cases(
      good, {
                {"wrong magic", [](bytes_t& b) { b[1] = std::byte{'X'}; }, errc::corrupt, "magic"},
                {"version 0", [](bytes_t& b) { put32(b, 8, 0); }, errc::corrupt, "'version'"},
                {"future version", [](bytes_t& b) { put32(b, 8, 6); }, errc::unsupported_version, "version 6"},
                {"version 2 with an exact count", [](bytes_t& b) { put32(b, 8, 2); }, errc::corrupt, "'inserted_accuracy'"},
                {"unknown kind 0", [](bytes_t& b) { b[12] = std::byte{0}; }, errc::unknown_kind, "'kind' = 0"},
                {"unknown kind 200", [](bytes_t& b) { b[12] = std::byte{200}; }, errc::unknown_kind, "'kind' = 200"},
                {"unknown hash algorithm", [](bytes_t& b) { b[13] = std::byte{9}; }, errc::unsupported, "'hash_algorithm'"},
                {"reserved", [](bytes_t& b) { b[15] = std::byte{1}; }, errc::corrupt, "'reserved'"},
                {"version 5 without a key type", [](bytes_t& b) { put32(b, 8, 5); }, errc::corrupt, "'version' = 5"},
                {"key_type past the last", [](bytes_t& b) { put32(b, 8, 5); b[15] = std::byte{8}; }, errc::corrupt,
                 "'key_type' (offset 15) = 8"},
                {"a key type in version 4", [](bytes_t& b) { put32(b, 8, 4); b[14] = std::byte{0}; b[15] = std::byte{2}; },
                 errc::corrupt, "'reserved' (offset 15)"},
                {"header_bytes", [](bytes_t& b) { put32(b, 24, 192); }, errc::corrupt, "'header_bytes'"},
                {"params_bytes vs header_bytes", [](bytes_t& b) { put32(b, 28, 64); }, errc::corrupt, "'header_bytes'"},
                {"params_bytes vs the kind", [](bytes_t& b) { put32(b, 28, 24); }, errc::corrupt, "'params_bytes'"},
                {"params_bytes huge", [](bytes_t& b) { put32(b, 28, 0xFFFFFFF0U); }, errc::corrupt, "'params_bytes'"},
                {"capacity 0", [](bytes_t& b) { put64(b, 40, 0); }, errc::corrupt, "'capacity'"},
                {"target_fpr 0", [](bytes_t& b) { put64(b, 48, fmt::double_bits(0.0)); }, errc::corrupt, "'target_fpr'"},
                {"target_fpr 1", [](bytes_t& b) { put64(b, 48, fmt::double_bits(1.0)); }, errc::corrupt, "'target_fpr'"},
                {"target_fpr NaN", [=](bytes_t& b) { put64(b, 48, fmt::double_bits(nan)); }, errc::corrupt, "'target_fpr'"},
                {"payload_bytes lies huge",
                 [](bytes_t& b) { put64(b, 56, std::uint64_t{1} << 62); }, errc::truncated, "'payload_bytes'"},
                {"payload_bytes short", [](bytes_t& b) { put64(b, 56, 64); }, errc::corrupt, "unexpected bytes"},
                {"padding", [](bytes_t& b) { b[params_at + 16] = std::byte{1}; }, errc::corrupt, "padding"},
            });
  // The magic and version are checked before the checksum (a newer version
  // may checksum differently), so these need no reseal.
  bytes_t future = good;
  put32(future, 8, 7);
  EXPECT_EQ(code_of([&] { (void)load(future); }), errc::unsupported_version);
  EXPECT_EQ(code_of([&] { (void)inspect(future); }), errc::unsupported_version);
}

TEST(FileFormat, StandardParamsAreChecked) {
  const bytes_t good = save_to_bytes(small_filled<standard_bloom>());  // 200 bits, k = 3, 4 words
  expect_field_cases(
      good, {
                {"bits 0", [](bytes_t& b) { put64(b, params_at, 0); }, errc::corrupt, "'bits'"},
                {"bits over 2^63", [](bytes_t& b) { put64(b, params_at, (std::uint64_t{1} << 63) + 1); }, errc::corrupt, "'bits'"},
                {"bits vs payload", [](bytes_t& b) { put64(b, params_at, 300); }, errc::corrupt, "'payload_bytes'"},
                {"bits vs payload (fewer words)", [](bytes_t& b) { put64(b, params_at, 128); }, errc::corrupt, "'payload_bytes'"},
                {"k 0", [](bytes_t& b) { put32(b, params_at + 8, 0); }, errc::corrupt, "'k'"},
                {"k 65", [](bytes_t& b) { put32(b, params_at + 8, 65); }, errc::corrupt, "'k'"},
                {"reserved", [](bytes_t& b) { b[params_at + 12] = std::byte{1}; }, errc::corrupt, "'reserved'"},
                {"bit past the end", [](bytes_t& b) { b[b.size() - 1] |= std::byte{0x80}; }, errc::corrupt, "past bit 200"},
                {"params_bytes 8",  // header_bytes for 8 is also 128; 'k' then sits in the padding
                 [](bytes_t& b) { put32(b, 28, 8); }, errc::corrupt, "padding"},
            });
  // bits = 193..256 all need 4 words; 256 is consistent, and loads.
  const bytes_t other_bits = edited(good, [](bytes_t& b) { put64(b, params_at, 256); });
  EXPECT_EQ(load_as<standard_bloom>(other_bits).bit_count(), 256U);
}

// A rate in a message keeps its digits: -1e-09, never std::to_string's
// "-0.000000" (issue 37 item 7).
TEST(FileFormat, RatesInMessagesKeepTheirDigits) {
  const auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const error& e) {
      return e.what();
    }
    return "(no error)";
  };
  for (const std::string& m : {message([] { (void)standard_bloom(standard_bloom_params{64, 1, 1, -1e-9, {}}); }),
                               message([] { (void)spark_bloom::create(10, -1e-9); }),
                               message([] {
                                 split_block_bloom f(100, 0.01);
                                 (void)f.fold_to(-1e-9);
                               })}) {
    EXPECT_NE(m.find("-1e-09"), std::string::npos) << m;
    EXPECT_EQ(m.find("0.000000"), std::string::npos) << m;
  }
}

TEST(FileFormat, BlockParamsAreChecked) {
  const bytes_t blocked = save_to_bytes(small_filled<blocked_bloom>());  // 2 blocks, k = 6
  expect_field_cases(
      blocked, {
                   {"blocks 0", [](bytes_t& b) { put64(b, params_at, 0); }, errc::corrupt, "'blocks'"},
                   {"blocks 3", [](bytes_t& b) { put64(b, params_at, 3); }, errc::corrupt, "'payload_bytes'"},
                   {"blocks 2^40", [](bytes_t& b) { put64(b, params_at, std::uint64_t{1} << 40); }, errc::corrupt, "'blocks'"},
                   {"blocks 2^58 (would overflow bytes)",
                    [](bytes_t& b) { put64(b, params_at, std::uint64_t{1} << 58); }, errc::corrupt, "'blocks'"},
                   {"k 0", [](bytes_t& b) { put32(b, params_at + 8, 0); }, errc::corrupt, "'k'"},
                   {"k 17", [](bytes_t& b) { put32(b, params_at + 8, 17); }, errc::corrupt, "'k'"},
                   {"reserved", [](bytes_t& b) { b[params_at + 15] = std::byte{1}; }, errc::corrupt, "'reserved'"},
                   {"kind says split-block", [](bytes_t& b) { b[12] = std::byte{3}; }, errc::corrupt, "'k'"},
               });
  const bytes_t split = save_to_bytes(small_filled<split_block_bloom>());  // 3 blocks of 32 bytes, k = 8
  expect_field_cases(
      split, {
                 {"k 7", [](bytes_t& b) { put32(b, params_at + 8, 7); }, errc::corrupt, "'k'"},
                 {"blocks 2", [](bytes_t& b) { put64(b, params_at, 2); }, errc::corrupt, "'payload_bytes'"},
                 {"kind says blocked", [](bytes_t& b) { b[12] = std::byte{2}; }, errc::corrupt, "'payload_bytes'"},
             });
}

// ---- a file written by hand, byte by byte --------------------------------------------------

/// Appends `v` as `n` little-endian bytes, written out explicitly (the test
/// does not use the library's store_le, so the two are checked against each
/// other, and the file is the same whatever the host's byte order).
void append_le(bytes_t& out, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(std::byte{static_cast<unsigned char>((v >> (8 * i)) & 0xFF)});
}

TEST(FileFormat, HandMadeStandardFileLoads) {
  // The filter: 130 bits, k = 2, with bits 0, 1, 64, 70 and 129 set.
  // Words: w0 = 0b11, w1 = (1 << 0) | (1 << 6), w2 = 1 << 1.
  const std::uint64_t words[3] = {0x3, 0x41, 0x2};
  const std::uint64_t payload_checksum = [&] {
    bytes_t payload;
    for (auto w : words) append_le(payload, w, 8);
    return XXH3_64bits(payload.data(), payload.size());
  }();
  bytes_t file;
  for (int c : {0x89, int{'B'}, int{'L'}, int{'M'}, int{'\r'}, int{'\n'}, 0x1A, int{'\n'}}) file.push_back(std::byte{static_cast<unsigned char>(c)});
  append_le(file, 1, 4);                     // version
  append_le(file, 1, 1);                     // kind: standard_bloom
  append_le(file, 1, 1);                     // hash algorithm: xxh64
  append_le(file, 0, 2);                     // reserved
  append_le(file, 0x0123456789ABCDEFULL, 8); // hash seed
  append_le(file, 128, 4);                   // header_bytes
  append_le(file, 16, 4);                    // params_bytes
  append_le(file, 5, 8);                     // inserted
  append_le(file, 10, 8);                    // capacity
  double fpr = 0.125;
  std::uint64_t fpr_bits;
  std::memcpy(&fpr_bits, &fpr, 8);
  append_le(file, fpr_bits, 8);              // target_fpr
  append_le(file, 24, 8);                    // payload_bytes
  append_le(file, payload_checksum, 8);      // payload checksum
  ASSERT_EQ(file.size(), 72U);
  append_le(file, 130, 8);                   // bits
  append_le(file, 2, 4);                     // k
  append_le(file, 0, 4);                     // reserved
  while (file.size() < 120) file.push_back(std::byte{0});
  append_le(file, XXH3_64bits(file.data(), file.size()), 8);  // header checksum
  for (auto w : words) append_le(file, w, 8);
  ASSERT_EQ(file.size(), 152U);

  const auto f = load_as<standard_bloom>(file, hash_spec{hash_algorithm::xxh64, 0x0123456789ABCDEFULL});
  EXPECT_EQ(f.bit_count(), 130U);
  EXPECT_EQ(f.num_hashes(), 2U);
  EXPECT_EQ(f.inserted(), 5U);
  EXPECT_EQ(f.capacity(), 10U);
  EXPECT_EQ(f.target_fpr(), 0.125);
  ASSERT_EQ(f.words().size(), 3U);
  EXPECT_EQ(f.words()[0], 0x3U);
  EXPECT_EQ(f.words()[1], 0x41U);
  EXPECT_EQ(f.words()[2], 0x2U);
  EXPECT_EQ(f.set_bit_count(), 5U);
  // The writer produces exactly these bytes for this filter.
  EXPECT_EQ(save_to_bytes(f), file);
  aligned_copy buffer(file);
  const auto v = view_as<standard_bloom>(buffer.bytes());
  EXPECT_EQ(v.words()[1], 0x41U);
}

TEST(FileFormat, HandMadeSplitBlockFileMatchesTheParquetBitset) {
  split_block_bloom f = small_filled<split_block_bloom>();
  const bytes_t file = save_to_bytes(f);
  const auto bitset = to_parquet_bitset(f.view());
  ASSERT_EQ(file.size(), 128U + bitset.size());
  EXPECT_TRUE(std::equal(bitset.begin(), bitset.end(), file.begin() + 128));
}

TEST(FileFormat, PortableWordPathsMatchTheFastPaths) {
  // The big-endian code path (store_le / load_le word by word) is compiled
  // everywhere; it must produce and read the same bytes as the fast path.
  auto check = [](const auto& items) {
    using item = typename std::decay_t<decltype(items)>::value_type;
    bytes_t fast, portable;
    auto into = [](bytes_t& out) {
      return [&out](std::span<const std::byte> c) { out.insert(out.end(), c.begin(), c.end()); };
    };
    auto fast_sink = into(fast);
    auto portable_sink = into(portable);
    fmt::write_items(std::span<const item>(items), fast_sink);
    fmt::write_items_portable(std::span<const item>(items), portable_sink);
    EXPECT_EQ(fast, portable);
    std::vector<item> back(items.size());
    fmt::read_items_portable(std::span<const std::byte>(portable), std::span<item>(back));
    EXPECT_TRUE(back == fmt::read_items<item>(fast));
    EXPECT_TRUE(std::equal(back.begin(), back.end(), items.begin(), items.end()));
  };
  check(make_hashes(1000, 5));  // more than one 4 KiB chunk
  const blocked_bloom blocked = [] {
    blocked_bloom f(block_filter_params{100, 8, 100, 0.01, hash_spec{}});
    f.insert_many(make_hashes(300, 6));
    return f;
  }();
  check(std::vector<detail::block512>(blocked.blocks().begin(), blocked.blocks().end()));
  const split_block_bloom split = [] {
    split_block_bloom f(block_filter_params{100, 8, 100, 0.01, parquet_hash_spec});
    f.insert_many(make_hashes(300, 8));
    return f;
  }();
  check(std::vector<detail::block256>(split.blocks().begin(), split.blocks().end()));
}

TEST(FileFormat, KindNames) {
  EXPECT_EQ(to_string(filter_kind::standard_bloom), "standard_bloom");
  EXPECT_EQ(to_string(filter_kind::ribbon), "ribbon");
  EXPECT_EQ(to_string(static_cast<filter_kind>(99)), "unknown");
  for (std::uint8_t id = 1; id <= 7; ++id) {
    const auto kind = static_cast<filter_kind>(id);
    EXPECT_EQ(parse_filter_kind(to_string(kind)), kind);
  }
  EXPECT_EQ(parse_filter_kind("bloom"), std::nullopt);
}

// ---- saving to places that refuse -------------------------------------------------------------

TEST(FileFormat, SaveToAMissingFolderIsAnIoErrorAndLeavesNothing) {
  scratch_dir dir("missing");
  const auto f = small_filled<standard_bloom>();
  const fs::path target = dir.path() / "no-such-folder" / "f.bkf";
  EXPECT_EQ(code_of([&] { save(f, target); }), errc::io);
  EXPECT_NE(message_of([&] { save(f, target); }).find(target.string()), std::string::npos);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(dir.entries().empty());

  // A parent that is a regular file.
  std::ofstream(dir.path() / "plain").put('x');
  EXPECT_EQ(code_of([&] { save(f, dir.path() / "plain" / "f.bkf"); }), errc::io);
  // A target that is a folder: the rename fails and the temporary file goes.
  fs::create_directory(dir.path() / "folder");
  EXPECT_EQ(code_of([&] { save(f, dir.path() / "folder"); }), errc::io);
  EXPECT_EQ(dir.entries().size(), 2U);
  EXPECT_EQ(code_of([&] { save(f, dir.path() / ""); }), errc::io);
}

TEST(FileFormat, SaveToAReadOnlyFolderIsAnIoErrorAndLeavesNothing) {
  const auto f = small_filled<standard_bloom>();
  if (::geteuid() == 0) {
    // root ignores folder permissions; /proc refuses new files even to root.
    ASSERT_TRUE(fs::is_directory("/proc"));
    EXPECT_EQ(code_of([&] { save(f, "/proc/bloomkit-format-test.bkf"); }), errc::io);
    EXPECT_FALSE(fs::exists("/proc/bloomkit-format-test.bkf"));
    return;
  }
  scratch_dir dir("readonly");
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
  const fs::path target = dir.path() / "f.bkf";
  EXPECT_EQ(code_of([&] { save(f, target); }), errc::io);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(FileFormat, SaveReplacesAnExistingFileWhole) {
  scratch_dir dir("replace");
  const fs::path target = dir.path() / "f.bkf";
  save(small_filled<standard_bloom>(), target);
  const auto big = kind_traits<blocked_bloom>::make(5000, 0.01, hash_spec{});
  save(big, target);
  EXPECT_EQ(fs::file_size(target), saved_size(big));
  EXPECT_EQ(kind_of(load(target)), filter_kind::blocked_bloom);
  EXPECT_EQ(dir.entries().size(), 1U);
}

TEST(FileFormat, FailingStreamIsAnIoError) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  EXPECT_EQ(code_of([&] { save(small_filled<standard_bloom>(), out); }), errc::io);
}

TEST(FileFormat, LoadingUnreadablePathsIsClear) {
  scratch_dir dir("load");
  EXPECT_EQ(code_of([&] { (void)load(dir.path() / "absent.bkf"); }), errc::io);
  EXPECT_EQ(code_of([&] { (void)mapped_file(dir.path() / "absent.bkf"); }), errc::io);
  EXPECT_EQ(code_of([&] { (void)mapped_file(dir.path()); }), errc::io) << "a folder is not a regular file";
  std::ofstream(dir.path() / "empty.bkf").flush();
  EXPECT_EQ(code_of([&] { (void)load(dir.path() / "empty.bkf"); }), errc::truncated);
  EXPECT_EQ(mapped_file(dir.path() / "empty.bkf").size(), 0U);
  // /dev/null is not a regular file: read, not mapped, and empty.
  EXPECT_EQ(code_of([&] { (void)load(fs::path("/dev/null")); }), errc::truncated);
  // Errors name the file.
  const std::string text = message_of([&] { (void)load(dir.path() / "empty.bkf"); });
  EXPECT_NE(text.find("empty.bkf"), std::string::npos) << text;
  std::ofstream(dir.path() / "text.bkf") << "hello, I am not a filter\n";
  EXPECT_EQ(code_of([&] { (void)load_as<standard_bloom>(dir.path() / "text.bkf"); }), errc::corrupt);
  EXPECT_EQ(code_of([&] { (void)inspect(dir.path() / "text.bkf"); }), errc::corrupt);
}

}  // namespace
