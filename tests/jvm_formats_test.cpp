// Spark's and Guava's Bloom filters: hashes, probes, streams and bad input,
// all against material the real spark-sketch 4.3.0 and Guava 33.8.0 jars
// produced (tests/jvm/Harness.java).
//
// Material comes from tests/fixtures/jvm (committed; regenerate with
// tests/fixtures/jvm/generate.sh), or from the folder in BLOOMKIT_JVM_DIR,
// which the `interop` test step fills with freshly made material on every
// run. With BLOOMKIT_JVM_WRITE=1 this test also writes NAME.bloomkit.bin
// (bloomkit's rebuild) and NAME.bloomkit.probes (bloomkit's answers) there
// for the harness's `check`, which reads them with Spark's and Guava's
// readFrom.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "bloomkit/format/jvm_streams.hpp"
#include "bloomkit/guava_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/murmur3.hpp"
#include "bloomkit/spark_bloom.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using bloomkit::errc;
using bloomkit::test::error_code_of;

fs::path material_dir() {
  if (const char* env = std::getenv("BLOOMKIT_JVM_DIR"); env && *env) return env;
  return fs::path(bloomkit::test::paths::source_dir) / "tests" / "fixtures" / "jvm";
}

bool write_back() {
  const char* env = std::getenv("BLOOMKIT_JVM_WRITE");
  return env && std::string(env) == "1";
}

std::vector<std::byte> unhex(const std::string& text) {
  std::vector<std::byte> out;
  if (text == "-") return out;
  if (text.size() % 2 != 0) throw std::runtime_error("odd hex: " + text);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoul(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string hex128(bloomkit::murmur3_128_result h) {
  std::string out;
  char buf[3];
  for (int lane = 0; lane < 2; ++lane) {
    const std::uint64_t v = lane == 0 ? h.h1 : h.h2;
    for (int i = 0; i < 8; ++i) {
      std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>((v >> (8 * i)) & 0xff));
      out += buf;
    }
  }
  return out;
}

std::vector<std::byte> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// ---- golden hashes ---------------------------------------------------------------------

TEST(JvmGolden, MurmurMatchesSparkAndGuava) {
  const fs::path golden = material_dir() / "golden.txt";
  ASSERT_TRUE(fs::exists(golden)) << golden;
  int spark = 0, guava = 0;
  for (const std::string& line : read_lines(golden)) {
    std::istringstream in(line);
    std::string what;
    in >> what;
    if (what == "spark_bytes") {
      std::int64_t seed = 0, expected = 0;
      std::string input;
      in >> seed >> input >> expected;
      const auto bytes = unhex(input);
      EXPECT_EQ(static_cast<std::int32_t>(bloomkit::spark_murmur3_x86_32(bytes.data(), bytes.size(),
                                                                          static_cast<std::uint32_t>(seed))),
                expected)
          << line;
      ++spark;
    } else if (what == "spark_long") {
      std::int64_t seed = 0, value = 0, expected = 0;
      in >> seed >> value >> expected;
      EXPECT_EQ(static_cast<std::int32_t>(bloomkit::spark_murmur3_hash_long(static_cast<std::uint64_t>(value),
                                                                             static_cast<std::uint32_t>(seed))),
                expected)
          << line;
      ++spark;
    } else if (what == "guava128") {
      std::string input, expected;
      in >> input >> expected;
      EXPECT_EQ(hex128(bloomkit::murmur3_x64_128(unhex(input))), expected) << line;
      ++guava;
    } else if (what == "guava128_long") {
      std::int64_t value = 0;
      std::string expected;
      in >> value >> expected;
      EXPECT_EQ(hex128(bloomkit::guava_bloom::hash(value)), expected) << line;
      ++guava;
    } else if (what == "guava128_int") {
      std::int64_t value = 0;
      std::string expected;
      in >> value >> expected;
      EXPECT_EQ(hex128(bloomkit::guava_bloom::hash(static_cast<std::int32_t>(value))), expected) << line;
      ++guava;
    }
  }
  EXPECT_GT(spark, 150);
  EXPECT_GT(guava, 50);
}

TEST(JvmGolden, PublishedMurmur3Vectors) {
  // SMHasher's standard MurmurHash3: x86_32 agrees with Spark's on whole
  // 4-byte blocks; x64_128("hello") as published with the reference code.
  EXPECT_EQ(bloomkit::spark_murmur3_x86_32("", 0, 0), 0u);
  EXPECT_EQ(bloomkit::spark_murmur3_x86_32("", 0, 1), 0x514e28b7u);
  EXPECT_EQ(bloomkit::spark_murmur3_x86_32("test", 4, 0), 0xba6bd213u);
  const auto h = bloomkit::murmur3_x64_128("hello", 5, 0);
  EXPECT_EQ(h.h1, 0xcbd8a7b341bd9b02ULL);
  EXPECT_EQ(h.h2, 0x5b1e906a48ae1d19ULL);
}

// ---- the cases the harness made ----------------------------------------------------------

struct jvm_case {
  std::string name;
  std::map<std::string, std::string> meta;
};

std::vector<jvm_case> cases() {
  std::vector<jvm_case> out;
  const fs::path dir = material_dir();
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path p = entry.path();
    if (p.extension() != ".meta") continue;
    jvm_case c{p.stem().string(), {}};
    for (const std::string& line : read_lines(p)) {
      const auto eq = line.find('=');
      if (eq != std::string::npos) c.meta[line.substr(0, eq)] = line.substr(eq + 1);
    }
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const jvm_case& a, const jvm_case& b) { return a.name < b.name; });
  return out;
}

/// Calls fn(key) with the key in the C++ type whose canonical bytes are the
/// library's for that key type.
template <class Fn>
decltype(auto) with_key(const std::string& type, const std::string& text, Fn&& fn) {
  if (type == "long") return fn(static_cast<std::int64_t>(std::stoll(text)));
  if (type == "int") return fn(static_cast<std::int32_t>(std::stol(text)));
  const std::vector<std::byte> bytes = unhex(text);
  return fn(std::span<const std::byte>(bytes));
}

bloomkit::jvm_filter rebuild(const jvm_case& c) {
  const auto& m = c.meta;
  const std::uint64_t n = std::stoull(m.at("n"));
  if (m.at("library") == "spark") {
    const auto version = m.at("version") == "1" ? bloomkit::spark_bloom_version::v1 : bloomkit::spark_bloom_version::v2;
    if (m.count("fpp")) {
      EXPECT_EQ(version, bloomkit::spark_bloom_version::v2);
      return bloomkit::spark_bloom::create(n, std::stod(m.at("fpp")));
    }
    const std::int32_t seed = m.count("seed") ? static_cast<std::int32_t>(std::stol(m.at("seed"))) : 0;
    return bloomkit::spark_bloom::create(version, n, std::stoull(m.at("bits")), seed);
  }
  auto g = bloomkit::guava_bloom::create(n, std::stod(m.at("fpp")));
  if (m.at("strategy") == "0") {
    auto p = g.params();
    p.strategy = bloomkit::guava_strategy::murmur128_mitz_32;
    g = bloomkit::guava_bloom(p);
  }
  return g;
}

TEST(JvmCases, AnswersRebuildsAndStreams) {
  const auto all = cases();
  ASSERT_GE(all.size(), 17u) << "no harness material in " << material_dir();
  const fs::path dir = material_dir();
  std::uint64_t probes_checked = 0;
  for (const jvm_case& c : all) {
    SCOPED_TRACE(c.name);
    const std::string type = c.meta.at("key");
    const std::vector<std::byte> library_bytes = read_bytes(dir / (c.name + ".bin"));

    // 1. Read the library's own stream; writing it back gives the same bytes.
    const bloomkit::jvm_filter read = bloomkit::read_jvm_filter(library_bytes);
    ASSERT_EQ(read.index(), c.meta.at("library") == "spark" ? 0u : 1u);
    EXPECT_TRUE(bloomkit::write_jvm_filter(read) == library_bytes) << "read + write is not the identity";
    // 1b. The same stream viewed where it lies (no copy; here one byte off
    //     any alignment) and through the any-format loader.
    std::vector<std::byte> shifted(library_bytes.size() + 1);
    std::copy(library_bytes.begin(), library_bytes.end(), shifted.begin() + 1);
    const std::span<const std::byte> unaligned(shifted.data() + 1, library_bytes.size());
    const bloomkit::jvm_filter_view viewed = bloomkit::view_jvm_filter(unaligned);
    ASSERT_EQ(viewed.index(), read.index());
    std::visit([&](const auto& v) { EXPECT_EQ(v.bytes().data(), unaligned.data() + (read.index() == 0 ? (c.meta.at("version") == "1" ? 12 : 16) : 6)); },
               viewed);
    const bloomkit::any_format_filter any = bloomkit::load(library_bytes, bloomkit::any_format);
    EXPECT_EQ(any.index(), std::variant_size_v<bloomkit::any_filter> + read.index());

    // 2. Rebuild from the keys with bloomkit's own sizing: the same bytes.
    bloomkit::jvm_filter built = rebuild(c);
    for (const std::string& key : read_lines(dir / (c.name + ".keys"))) {
      std::visit([&](auto& f) { with_key(type, key, [&](const auto& k) { f.insert(k); }); }, built);
    }
    const std::vector<std::byte> ours = bloomkit::write_jvm_filter(built);
    EXPECT_EQ(ours.size(), library_bytes.size());
    EXPECT_TRUE(ours == library_bytes) << "the rebuild differs from the library's filter";

    // 3. Every probe answers as the library's mightContain, on both the read
    //    filter and the rebuild.
    std::string answers;
    std::uint64_t mismatches = 0, lines = 0;
    for (const std::string& line : read_lines(dir / (c.name + ".probes"))) {
      if (line.size() < 2) continue;
      const bool expected = line[0] == '1';
      const std::string key = line.substr(2);
      const bool from_read =
          std::visit([&](const auto& f) { return with_key(type, key, [&](const auto& k) { return f.may_contain(k); }); }, read);
      const bool from_built = std::visit(
          [&](const auto& f) { return with_key(type, key, [&](const auto& k) { return f.may_contain(k); }); }, built);
      const bool from_view = std::visit(
          [&](const auto& f) { return with_key(type, key, [&](const auto& k) { return f.may_contain(k); }); }, viewed);
      mismatches += (from_read != expected) + (from_built != expected) + (from_view != expected);
      ++lines;
      answers += from_built ? "1 " : "0 ";
      answers += key;
      answers += '\n';
    }
    EXPECT_EQ(mismatches, 0u);
    EXPECT_GT(lines, 0u);
    probes_checked += lines;

    if (write_back()) {
      const auto path = dir / (c.name + ".bloomkit.bin");
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(ours.data()), static_cast<std::streamsize>(ours.size()));
      ASSERT_TRUE(out.good()) << path;
      write_file(dir / (c.name + ".bloomkit.probes"), answers);
    }
  }
  std::printf("checked %llu probes over %zu filters in %s\n", static_cast<unsigned long long>(probes_checked),
              all.size(), dir.c_str());
}

// ---- semantics a user meets --------------------------------------------------------------

TEST(SparkBloom, IntegersWidenToLongAsSparkDoes) {
  auto f = bloomkit::spark_bloom::create(100, 0.01);
  f.insert(std::int32_t{-5});
  EXPECT_TRUE(f.may_contain_long(-5));
  EXPECT_TRUE(f.may_contain(std::int16_t{-5}));
  EXPECT_TRUE(f.may_contain(std::int64_t{-5}));
  // The same key twice changes nothing the second time (Spark's put result).
  EXPECT_FALSE(f.insert(std::int64_t{-5}));
  EXPECT_TRUE(f.insert(std::string_view("x")));
  EXPECT_TRUE(f.may_contain(std::string("x")));
}

TEST(SparkBloom, SizingMatchesSparkAndRefusesWhatSparkRefuses) {
  const auto f = bloomkit::spark_bloom::create(1000000, 0.03);
  // Spark: (long)(-1e6 ln 0.03 / ln^2 2) = 7298440 bits -> 114039 words, k = 5.
  EXPECT_EQ(f.params().words, 114039u);
  EXPECT_EQ(f.k(), 5u);
  EXPECT_EQ(f.version(), bloomkit::spark_bloom_version::v2);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::spark_bloom::create(0, 0.03); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::spark_bloom::create(10, 0.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::spark_bloom::create(10, 1.0); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] {
              (void)bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v2, 10, std::uint64_t{1} << 40);
            }),
            errc::invalid_argument);
}

TEST(SparkBloom, MergeNeedsTheSameShape) {
  auto a = bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v2, 100, 1024, 1);
  auto b = bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v2, 100, 1024, 2);
  auto c = bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v1, 100, 1024);
  auto d = bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v2, 100, 1024, 1);
  a.insert(std::int64_t{1});
  d.insert(std::int64_t{2});
  EXPECT_EQ(error_code_of([&] { a.merge(b); }), errc::mismatch);
  EXPECT_EQ(error_code_of([&] { a.merge(c); }), errc::mismatch);
  a.merge(d);
  EXPECT_TRUE(a.may_contain(std::int64_t{1}));
  EXPECT_TRUE(a.may_contain(std::int64_t{2}));
  a.intersect(d);
  EXPECT_TRUE(a.may_contain(std::int64_t{2}));
}

TEST(SparkBloom, Version2UsesBitsPast2To31) {
  // A (2^31 + 2^28)-bit filter (288 MiB): version 2 sets bits above 2^31
  // (about 1/9 of its probes land there), version 1 cannot (its combined
  // hash is a non-negative 32-bit int). One filter at a time, to bound memory.
  const std::uint64_t words = ((std::uint64_t{1} << 31) + (std::uint64_t{1} << 28)) / 64;
  const auto high = [](const bloomkit::spark_bloom& f) {
    std::uint64_t count = 0;
    for (std::size_t i = (std::size_t{1} << 31) / 64; i < f.word_count(); ++i) {
      count += static_cast<std::uint64_t>(std::popcount(f.word(i)));
    }
    return count;
  };
  for (const auto version : {bloomkit::spark_bloom_version::v1, bloomkit::spark_bloom_version::v2}) {
    bloomkit::spark_bloom f(bloomkit::spark_bloom_params{version, 7, words, 0});
    for (std::int64_t i = 0; i < 1000; ++i) f.insert_long(i);
    for (std::int64_t i = 0; i < 1000; ++i) ASSERT_TRUE(f.may_contain_long(i));
    if (version == bloomkit::spark_bloom_version::v1) {
      EXPECT_EQ(high(f), 0u);
    } else {
      EXPECT_GT(high(f), 500u);
    }
  }
}

TEST(GuavaBloom, FunnelsAndSizing) {
  auto g = bloomkit::guava_bloom::create(1000, 0.01);
  // Guava: (long)(-1000 ln 0.01 / ln^2 2) = 9585 bits -> 150 words, k = round(6.64) = 7.
  EXPECT_EQ(g.params().words, 150u);
  EXPECT_EQ(g.k(), 7u);
  g.insert(std::int32_t{7});
  EXPECT_TRUE(g.may_contain(std::int32_t{7}));
  EXPECT_TRUE(g.may_contain(std::uint32_t{7}));  // the same four bytes
  // n = 0 is sized as 1, as Guava does.
  const auto tiny = bloomkit::guava_bloom::create(0, 0.5);
  EXPECT_EQ(tiny.params().words, 1u);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::guava_bloom::create(10, -0.1); }), errc::invalid_argument);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::guava_bloom::create(10, 1e-300); }), errc::invalid_argument);  // k > 255
  auto other = bloomkit::guava_bloom::create(2000, 0.01);
  EXPECT_EQ(error_code_of([&] { g.merge(other); }), errc::mismatch);
}

// ---- bad input ------------------------------------------------------------------------------

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (const int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

TEST(JvmStreams, EveryTruncationIsRefused) {
  auto spark = bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v2, 10, 256, 3);
  spark.insert_long(1);
  auto guava = bloomkit::guava_bloom::create(10, 0.1);
  guava.insert(std::int64_t{1});
  for (const auto& full : {bloomkit::write_spark_stream(spark), bloomkit::write_guava_stream(guava),
                           bloomkit::write_spark_stream(bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v1, 10, 64))}) {
    for (std::size_t n = 0; n < full.size(); ++n) {
      const std::span<const std::byte> prefix(full.data(), n);
      const errc code = error_code_of([&] { (void)bloomkit::read_jvm_filter(prefix); });
      EXPECT_TRUE(code == errc::truncated || code == errc::unknown_kind) << n << " bytes: " << bloomkit::to_string(code);
    }
    auto longer = full;
    longer.push_back(std::byte{0});
    EXPECT_EQ(error_code_of([&] { (void)bloomkit::read_jvm_filter(longer); }), errc::corrupt);
    EXPECT_NO_THROW((void)bloomkit::read_jvm_filter(full));
  }
}

TEST(JvmStreams, LyingHeadersAreRefusedWithoutAllocating) {
  // Word counts of 2^31 - 1 with no words behind them: refused as truncated
  // before any allocation (ASan would report a 16 GiB allocation otherwise).
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_spark_stream(bytes_of({0, 0, 0, 1, 0, 0, 0, 3, 0x7f, 0xff, 0xff, 0xff})); }),
            errc::truncated);
  EXPECT_EQ(error_code_of([] {
              (void)bloomkit::read_spark_stream(bytes_of({0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff}));
            }),
            errc::truncated);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_guava_stream(bytes_of({1, 5, 0x7f, 0xff, 0xff, 0xff})); }), errc::truncated);
  // Negative and zero word counts.
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_spark_stream(bytes_of({0, 0, 0, 1, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff})); }),
            errc::corrupt);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_guava_stream(bytes_of({1, 5, 0x80, 0, 0, 0})); }), errc::corrupt);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_guava_stream(bytes_of({1, 5, 0, 0, 0, 0})); }), errc::corrupt);
  // Unknown version and strategy; k out of range.
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_spark_stream(bytes_of({0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 1})); }),
            errc::unsupported_version);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_jvm_filter(bytes_of({0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1})); }),
            errc::unsupported_version);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_guava_stream(bytes_of({2, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})); }),
            errc::unsupported);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_guava_stream(bytes_of({0xff, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})); }),
            errc::unsupported);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_guava_stream(bytes_of({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})); }),
            errc::corrupt);
  EXPECT_EQ(error_code_of([] {
              (void)bloomkit::read_spark_stream(bytes_of({0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
            }),
            errc::corrupt);
  EXPECT_EQ(error_code_of([] {
              (void)bloomkit::read_spark_stream(bytes_of({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
            }),
            errc::corrupt);
  // Neither format.
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_jvm_filter(bytes_of({0x89, 'B', 'L', 'M'})); }), errc::unknown_kind);
  EXPECT_EQ(error_code_of([] { (void)bloomkit::read_jvm_filter(bytes_of({})); }), errc::unknown_kind);
}

TEST(JvmStreams, LoadFromAFileNamesThePath) {
  const fs::path path = fs::temp_directory_path() / "bloomkit_jvm_streams_test.bin";
  auto g = bloomkit::guava_bloom::create(100, 0.01);
  g.insert(std::string_view("alice"));
  const auto bytes = bloomkit::write_guava_stream(g);
  write_file(path, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  const auto loaded = bloomkit::load_jvm_filter(path);
  ASSERT_EQ(loaded.index(), 1u);
  EXPECT_TRUE(std::get<bloomkit::guava_bloom>(loaded) == g);
  write_file(path, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size() - 1));
  try {
    (void)bloomkit::load_jvm_filter(path);
    ADD_FAILURE() << "a truncated file loaded";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::truncated);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);
  }
  fs::remove(path);
}

// ---- one bit array, owned or viewed; the any-format loader ----------------------------------

TEST(JvmBitArray, WordsStayBigEndianAsInTheStream) {
  // Word 0 = 1 (bit 0), word 1 = 2^63 (bit 127): the stream writes each word
  // most significant byte first, and the filter keeps exactly those bytes.
  const std::uint64_t words[] = {1, std::uint64_t{1} << 63};
  const bloomkit::spark_bloom f(bloomkit::spark_bloom_params{bloomkit::spark_bloom_version::v1, 3, 2, 0}, words);
  ASSERT_EQ(f.bytes().size(), 16u);
  EXPECT_EQ(f.bytes()[7], std::byte{1});
  EXPECT_EQ(f.bytes()[8], std::byte{0x80});
  EXPECT_EQ(std::count(f.bytes().begin(), f.bytes().end(), std::byte{0}), 14);
  EXPECT_EQ(f.word(0), 1u);
  EXPECT_EQ(f.word(1), std::uint64_t{1} << 63);
  EXPECT_EQ(f.popcount(), 2u);
  const auto stream = bloomkit::write_spark_stream(f);
  EXPECT_TRUE(std::equal(f.bytes().begin(), f.bytes().end(), stream.begin() + 12));
  // The owner, its view and a view of its stream are one filter.
  EXPECT_TRUE(f.view() == f);
  EXPECT_TRUE(bloomkit::view_spark_stream(stream) == f);
  EXPECT_EQ(bloomkit::view_spark_stream(stream).bytes().data(), stream.data() + 12);  // in place
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::spark_bloom_view(f.params(), f.bytes().first(8)); }), errc::invalid_argument);
}

TEST(JvmBitArray, OwnersMergeViewsAndCopyThem) {
  auto a = bloomkit::guava_bloom::create(500, 0.01);
  auto b = bloomkit::guava_bloom::create(500, 0.01);
  for (std::int64_t i = 0; i < 200; ++i) a.insert(i);
  for (std::int64_t i = 200; i < 400; ++i) b.insert(i);
  const auto b_stream = bloomkit::write_guava_stream(b);
  const bloomkit::guava_bloom_view b_view = bloomkit::view_guava_stream(b_stream);
  auto merged = a;
  merged.merge(b_view);
  for (std::int64_t i = 0; i < 400; ++i) ASSERT_TRUE(merged.may_contain(i)) << i;
  auto by_owner = a;
  by_owner.merge(b);
  EXPECT_TRUE(by_owner == merged);
  EXPECT_EQ(merged.popcount(), [&] {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < merged.word_count(); ++i) n += static_cast<std::uint64_t>(std::popcount(a.word(i) | b.word(i)));
    return n;
  }());
  const bloomkit::guava_bloom copy(b_view);
  EXPECT_TRUE(copy == b);
  EXPECT_NE(copy.bytes().data(), b_view.bytes().data());
  auto other_k = bloomkit::guava_bloom::create(500, 0.001);
  EXPECT_EQ(error_code_of([&] { other_k.merge(b_view); }), errc::mismatch);
  // intersect with a view: AND of the words.
  auto both = merged;
  both.intersect(b_view);
  EXPECT_TRUE(both == b);
}

TEST(JvmAnyFormat, LoadAndMapEveryFormatOnce) {
  const fs::path dir = fs::temp_directory_path() / "bloomkit_jvm_any_format_test";
  fs::create_directories(dir);
  auto spark = bloomkit::spark_bloom::create(1000, 0.01);
  auto guava = bloomkit::guava_bloom::create(1000, 0.01);
  bloomkit::split_block_bloom ours(1000, 0.01);
  for (std::int64_t i = 0; i < 300; ++i) {
    spark.insert(i);
    guava.insert(i);
    ours.insert(static_cast<std::uint64_t>(i));
  }
  bloomkit::save_jvm_filter(spark, dir / "spark.bin");
  bloomkit::save_jvm_filter(guava, dir / "guava.bin");
  bloomkit::save(ours, dir / "ours.bkf");
  write_file(dir / "other.bin", "PAR1 not a filter");

  // load(path, any_format): each format's own kind, equal to what was saved.
  const auto s = bloomkit::load(dir / "spark.bin", bloomkit::any_format);
  const auto g = bloomkit::load(dir / "guava.bin", bloomkit::any_format);
  const auto o = bloomkit::load(dir / "ours.bkf", bloomkit::any_format);
  ASSERT_TRUE(std::holds_alternative<bloomkit::spark_bloom>(s));
  ASSERT_TRUE(std::holds_alternative<bloomkit::guava_bloom>(g));
  ASSERT_TRUE(std::holds_alternative<bloomkit::split_block_bloom>(o));
  EXPECT_TRUE(std::get<bloomkit::spark_bloom>(s) == spark);
  EXPECT_TRUE(std::get<bloomkit::guava_bloom>(g) == guava);
  EXPECT_TRUE(std::get<bloomkit::split_block_bloom>(o).may_contain(std::uint64_t{5}));

  // open_mapped(path, any_format): views into the mapping, answering as the owners.
  const auto ms = bloomkit::open_mapped(dir / "spark.bin", bloomkit::any_format);
  const auto mg = bloomkit::open_mapped(dir / "guava.bin", bloomkit::any_format);
  const auto mo = bloomkit::open_mapped(dir / "ours.bkf", bloomkit::any_format);
  const auto& vs = std::get<bloomkit::spark_bloom_view>(ms.filter);
  const auto& vg = std::get<bloomkit::guava_bloom_view>(mg.filter);
  ASSERT_TRUE(std::holds_alternative<bloomkit::split_block_bloom_view>(mo.filter));
  EXPECT_EQ(vs.bytes().data(), ms.file.bytes().data() + 16);  // zero copy: the file's own bytes
  EXPECT_EQ(vg.bytes().data(), mg.file.bytes().data() + 6);
  for (std::int64_t i = -500; i < 1500; ++i) {
    ASSERT_EQ(vs.may_contain(i), spark.may_contain(i)) << i;
    ASSERT_EQ(vg.may_contain(i), guava.may_contain(i)) << i;
  }

  // Typed loading of one JVM kind, and the wrong kind refused.
  EXPECT_TRUE(bloomkit::load_as<bloomkit::spark_bloom>(dir / "spark.bin") == spark);
  EXPECT_TRUE(bloomkit::view_as<bloomkit::guava_bloom>(mg.file.bytes()) == guava);
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::load_as<bloomkit::spark_bloom>(dir / "guava.bin"); }), errc::mismatch);
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::load_as<bloomkit::guava_bloom>(dir / "ours.bkf"); }), errc::mismatch);
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::view_as<bloomkit::spark_bloom>(mo.file.bytes()); }), errc::mismatch);
  // bloomkit's own load() still refuses JVM streams (it returns any_filter only).
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::load(dir / "spark.bin"); }), errc::corrupt);

  // Neither format: one clear error naming the path; a broken JVM stream
  // keeps its own reader's error.
  try {
    (void)bloomkit::load(dir / "other.bin", bloomkit::any_format);
    ADD_FAILURE() << "other.bin loaded";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::corrupt);
    EXPECT_NE(std::string(e.what()).find("nor a Spark or Guava"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("other.bin"), std::string::npos) << e.what();
  }
  const auto stream = bloomkit::write_guava_stream(guava);
  write_file(dir / "short.bin", std::string(reinterpret_cast<const char*>(stream.data()), stream.size() - 1));
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::open_mapped(dir / "short.bin", bloomkit::any_format); }), errc::truncated);
  EXPECT_EQ(error_code_of([&] { (void)bloomkit::load(std::span<const std::byte>(), bloomkit::any_format); }), errc::truncated);
  fs::remove_all(dir);
}

}  // namespace
