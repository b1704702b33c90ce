// tests/key_type_test.cpp - a filter knows what its keys are (docs/KEYS.md,
// issue 36): the writer x reader matrix over C++ source types and the CLI's
// --format, with zero false negatives counted and asserted and every refused
// pair an errc::mismatch naming both types; adopt_key_type; merge refusal;
// typed batches; and the round trip of every kind with every key type
// through save / load / view / inspect.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/hash_batch.hpp"
#include "bloomkit/sharding.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;
using bytes_t = std::vector<std::byte>;

/// The logical keys of the numeric rows: 0..100 fit every C++ integer width
/// and are exact in float and double.
constexpr int key_count = 101;

// ---- the sources: one logical value, many C++ types --------------------------------

/// What a row of the matrix is, for the expectations: keys of one family
/// convert into each other's filters (the values used are exact in all of
/// them); across families every pair is refused.
enum class family { integer, floating, bytes };

struct source {
  std::string name;        ///< the C++ type, for messages
  family fam;              ///< its family
  key_type gives;          ///< the type it gives an untyped filter (docs/KEYS.md, "Where each source type goes")
  std::string refused_as;  ///< how hash_key's mismatch message names it
  /// Inserts logical key i into f (through f.insert with the C++ type).
  std::function<void(split_block_bloom&, int)> insert;
  /// f.may_contain of logical key i through the C++ type.
  std::function<bool(const split_block_bloom&, int)> query;
  /// The same over a whole batch: may_contain_keys of keys 0..n-1.
  std::function<void(const split_block_bloom&, std::span<bool>)> query_batch;
};

template <class T>
T numeric_key(int i) {
  return static_cast<T>(i);
}

template <class T>
source numeric_source(std::string name, family fam, key_type gives, std::string refused_as) {
  source s;
  s.name = std::move(name);
  s.fam = fam;
  s.gives = gives;
  s.refused_as = std::move(refused_as);
  s.insert = [](split_block_bloom& f, int i) { f.insert(numeric_key<T>(i)); };
  s.query = [](const split_block_bloom& f, int i) { return f.may_contain(numeric_key<T>(i)); };
  s.query_batch = [](const split_block_bloom& f, std::span<bool> out) {
    std::vector<T> keys;
    for (int i = 0; i < static_cast<int>(out.size()); ++i) keys.push_back(numeric_key<T>(i));
    f.may_contain_keys(keys, out);
  };
  return s;
}

std::string text_key(int i) { return "key-" + std::to_string(i); }

bytes_t byte_key(int i) {
  const std::string t = text_key(i);
  bytes_t b(t.size());
  std::memcpy(b.data(), t.data(), t.size());
  return b;
}

std::vector<source> sources() {
  std::vector<source> out;
  out.push_back(numeric_source<std::int8_t>("int8_t", family::integer, key_type::int64, "got int8"));
  out.push_back(numeric_source<std::int16_t>("int16_t", family::integer, key_type::int64, "got int16"));
  out.push_back(numeric_source<std::int32_t>("int32_t", family::integer, key_type::int64, "got int32"));
  out.push_back(numeric_source<std::int64_t>("int64_t", family::integer, key_type::int64, "got int64"));
  out.push_back(numeric_source<std::uint8_t>("uint8_t", family::integer, key_type::int64, "got uint8"));
  out.push_back(numeric_source<std::uint16_t>("uint16_t", family::integer, key_type::int64, "got uint16"));
  out.push_back(numeric_source<std::uint32_t>("uint32_t", family::integer, key_type::int64, "got uint32"));
  out.push_back(numeric_source<std::uint64_t>("uint64_t", family::integer, key_type::int64, "got uint64"));
  out.push_back(numeric_source<float>("float", family::floating, key_type::float64, "got float32"));
  out.push_back(numeric_source<double>("double", family::floating, key_type::float64, "got float64"));
  {
    source s;
    s.name = "std::string";
    s.fam = family::bytes;
    s.gives = key_type::bytes;
    s.refused_as = "got bytes";
    s.insert = [](split_block_bloom& f, int i) { f.insert(text_key(i)); };
    s.query = [](const split_block_bloom& f, int i) { return f.may_contain(text_key(i)); };
    s.query_batch = [](const split_block_bloom& f, std::span<bool> out) {
      std::vector<std::string> keys;
      for (int i = 0; i < static_cast<int>(out.size()); ++i) keys.push_back(text_key(i));
      f.may_contain_keys(keys, out);
    };
    out.push_back(std::move(s));
  }
  {
    source s;
    s.name = "std::vector<std::byte>";
    s.fam = family::bytes;
    s.gives = key_type::bytes;
    s.refused_as = "got bytes";
    s.insert = [](split_block_bloom& f, int i) { f.insert(byte_key(i)); };
    s.query = [](const split_block_bloom& f, int i) { return f.may_contain(byte_key(i)); };
    s.query_batch = [](const split_block_bloom& f, std::span<bool> out) {
      std::vector<std::string_view> keys;
      std::vector<std::string> texts;
      for (int i = 0; i < static_cast<int>(out.size()); ++i) texts.push_back(text_key(i));
      for (const auto& t : texts) keys.push_back(t);
      f.may_contain_keys(keys, out);
    };
    out.push_back(std::move(s));
  }
  return out;
}

// ---- the CLI's formats as writers and readers ----------------------------------------

struct cli_format {
  std::string name;
  family fam;
  key_type gives;
  /// The line of logical key i in this format.
  std::function<std::string(int)> line;
};

std::string hex_of(const std::string& s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (const char c : s) {
    out += digits[static_cast<unsigned char>(c) >> 4];
    out += digits[static_cast<unsigned char>(c) & 15];
  }
  return out;
}

std::vector<cli_format> cli_formats() {
  return {
      {"text", family::bytes, key_type::bytes, [](int i) { return text_key(i); }},
      {"hex", family::bytes, key_type::bytes, [](int i) { return hex_of(text_key(i)); }},
      {"u64", family::integer, key_type::int64, [](int i) { return std::to_string(i); }},
      {"i64", family::integer, key_type::int64, [](int i) { return std::to_string(i); }},
  };
}

std::string lines_of_keys(const cli_format& f) {
  std::string out;
  for (int i = 0; i < key_count; ++i) out += f.line(i) + "\n";
  return out;
}

/// A family's key type as a filter records it (the type the CLI and an
/// untyped filter's first insert give it).
bool same_family(family a, family b) { return a == b || (a != family::bytes && b != family::bytes); }

/// The tally the matrix asserts on.
struct tally {
  int pairs = 0;
  int found_pairs = 0;
  int refused_pairs = 0;
  long keys_found = 0;
  long false_negatives = 0;
};

/// Reads every key of the filter `f` (written by `writer`, type f.hash().keys)
/// through `reader`: either every key is found, single and batched, or every
/// query is refused with errc::mismatch naming both types.
void read_through(const split_block_bloom& f, const std::string& writer, const source& reader, family writer_family,
                  tally& t) {
  SCOPED_TRACE(writer + " -> " + reader.name);
  ++t.pairs;
  const bool expect_found = same_family(writer_family, reader.fam);
  bool refused = false;
  try {
    for (int i = 0; i < key_count; ++i) {
      if (reader.query(f, i)) {
        ++t.keys_found;
      } else {
        ++t.false_negatives;
        ADD_FAILURE() << "false negative: key " << i;
      }
    }
    std::array<bool, key_count> batch{};
    reader.query_batch(f, batch);
    for (int i = 0; i < key_count; ++i) {
      if (!batch[static_cast<std::size_t>(i)]) {
        ++t.false_negatives;
        ADD_FAILURE() << "false negative in the batch: key " << i;
      }
    }
  } catch (const bloomkit::error& e) {
    refused = true;
    EXPECT_EQ(e.code(), errc::mismatch) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("holds " + std::string(to_string(f.hash().keys)) + " keys"), std::string::npos) << message;
    EXPECT_NE(message.find(reader.refused_as), std::string::npos) << message;
    // A refused single query refuses the batch too, before any answer.
    std::array<bool, key_count> batch{};
    try {
      reader.query_batch(f, batch);
      ADD_FAILURE() << "the batch was not refused";
    } catch (const bloomkit::error& b) {
      EXPECT_EQ(b.code(), errc::mismatch);
    }
  }
  EXPECT_EQ(refused, !expect_found) << "writer family and reader family decide";
  ++(refused ? t.refused_pairs : t.found_pairs);
}

/// A filter written by C++ inserts of `writer`: untyped, it takes the
/// writer's type first (adopt_key_type), as every typed insert path does.
split_block_bloom written_by(const source& writer) {
  split_block_bloom f(key_count, 0.01);
  f.adopt_key_type(writer.gives);
  for (int i = 0; i < key_count; ++i) writer.insert(f, i);
  return f;
}

TEST(KeyTypeMatrix, CppWritersByCppReadersHaveNoFalseNegatives) {
  tally t;
  for (const auto& writer : sources()) {
    const split_block_bloom f = written_by(writer);
    EXPECT_EQ(f.hash().keys, writer.gives);
    for (const auto& reader : sources()) read_through(f, writer.name, reader, writer.fam, t);
  }
  const int n = static_cast<int>(sources().size());
  EXPECT_EQ(t.pairs, n * n);
  EXPECT_EQ(t.false_negatives, 0) << "zero pairs give a false negative";
  // 10 numeric sources (8 integer widths, float, double) read each other;
  // 2 byte sources read each other; numeric x bytes pairs are refused.
  EXPECT_EQ(t.found_pairs, 10 * 10 + 2 * 2);
  EXPECT_EQ(t.refused_pairs, 2 * 10 * 2);
  EXPECT_EQ(t.keys_found, static_cast<long>(t.found_pairs) * key_count);
}

TEST(KeyTypeMatrix, TheSameFilterFromEveryIntegerWidthHasTheSameBytes) {
  // One value, one hash, whatever its source type: every integer writer
  // (and every float writer of integral values, widened into int64 keys)
  // gives the int64 writer's filter bit for bit.
  split_block_bloom reference(key_count, 0.01);
  reference.adopt_key_type(key_type::int64);
  for (int i = 0; i < key_count; ++i) reference.insert(static_cast<std::int64_t>(i));
  const bytes_t want = save_to_bytes(reference);
  for (const auto& writer : sources()) {
    if (writer.fam != family::integer) continue;
    SCOPED_TRACE(writer.name);
    EXPECT_EQ(save_to_bytes(written_by(writer)), want);
  }
  split_block_bloom from_doubles(key_count, 0.01);
  from_doubles.adopt_key_type(key_type::int64);
  for (int i = 0; i < key_count; ++i) from_doubles.insert(static_cast<double>(i));
  EXPECT_EQ(save_to_bytes(from_doubles), want);
}

class KeyTypeCli : public ::testing::Test {
 protected:
  bloomkit::test::scratch_dir dir_;
};

TEST_F(KeyTypeCli, CliWritersByCppAndCliReadersHaveNoFalseNegatives) {
  tally t;
  int cli_pairs = 0, cli_refused = 0;
  for (const auto& writer : cli_formats()) {
    SCOPED_TRACE("bloomkit build --format " + writer.name);
    const std::string file = "by-" + writer.name + ".bkf";
    const auto built = bloomkit::test::run_cli(
        {"build", "--format", writer.name, "--kind", "split-block", "-o", file, "-q"}, lines_of_keys(writer), dir_);
    ASSERT_EQ(built.rc, 0) << built.err;
    const auto f = load_as<split_block_bloom>(dir_ / file);
    EXPECT_EQ(f.hash().keys, writer.gives);
    for (const auto& reader : sources()) read_through(f, "cli " + writer.name, reader, writer.fam, t);
    // The CLI as reader: the file's own type without --format, and each
    // explicit format: all keys maybe, or exit 1 naming the file's type.
    for (const auto& reader : cli_formats()) {
      SCOPED_TRACE("bloomkit query --format " + reader.name);
      ++cli_pairs;
      const auto q = bloomkit::test::run_cli({"query", file, "--format", reader.name, "--count"}, lines_of_keys(reader),
                                             dir_);
      if (same_family(writer.fam, reader.fam)) {
        EXPECT_EQ(q.rc, 0) << q.err;
        EXPECT_EQ(q.out, std::to_string(key_count) + "\n") << "every key answers maybe";
      } else {
        ++cli_refused;
        EXPECT_EQ(q.rc, 1) << q.err;
        EXPECT_EQ(q.out, "");
        EXPECT_NE(q.err.find("holds " + std::string(to_string(writer.gives)) + " keys"), std::string::npos) << q.err;
        EXPECT_NE(q.err.find("--format " + reader.name + " gives " + std::string(to_string(reader.gives))),
                  std::string::npos)
            << q.err;
      }
    }
    // (A bytes file's own format is text: the hex writer's keys are read as their text.)
    const auto own = bloomkit::test::run_cli({"query", file, "--count"},
                                             lines_of_keys(writer.fam == family::bytes ? cli_formats()[0] : writer), dir_);
    EXPECT_EQ(own.rc, 0) << own.err;
    EXPECT_EQ(own.out, std::to_string(key_count) + "\n") << "without --format the file's type reads its keys";
  }
  EXPECT_EQ(t.false_negatives, 0) << "zero pairs give a false negative";
  EXPECT_EQ(t.pairs, 4 * 12);
  EXPECT_EQ(t.refused_pairs, 2 * 10 + 2 * 2);
  EXPECT_EQ(cli_pairs, 16);
  EXPECT_EQ(cli_refused, 8);
}

TEST_F(KeyTypeCli, CppWritersByCliReaders) {
  // A file written by C++ inserts of each source, read by the CLI with no
  // --format (the file's type decides) and with each explicit format.
  long false_negatives = 0;
  int refused = 0, answered = 0;
  for (const auto& writer : sources()) {
    if (writer.fam == family::floating) continue;  // the CLI's f64 format has no row in the matrix
    SCOPED_TRACE(writer.name);
    save(written_by(writer), std::filesystem::path(dir_ / "w.bkf"));
    for (const auto& reader : cli_formats()) {
      const auto q = bloomkit::test::run_cli({"query", "w.bkf", "--format", reader.name, "--count"},
                                             lines_of_keys(reader), dir_);
      if (q.rc == 0) {
        ++answered;
        false_negatives += key_count - std::stol(q.out);
      } else {
        ++refused;
        EXPECT_EQ(q.rc, 1);
        EXPECT_NE(q.err.find("holds " + std::string(to_string(writer.gives)) + " keys"), std::string::npos) << q.err;
      }
      EXPECT_EQ(q.rc == 0, same_family(writer.fam, reader.fam)) << reader.name;
    }
  }
  EXPECT_EQ(false_negatives, 0);
  EXPECT_EQ(answered, 8 * 2 + 2 * 2);
  EXPECT_EQ(refused, 8 * 2 + 2 * 2);
}

// ---- conversions, one rule at a time (docs/KEYS.md, "What converts") ---------------------

template <class K>
std::optional<errc> refusal(const K& k, key_type t) {
  try {
    (void)hash_key(k, hash_spec{hash_algorithm::xxh3_64, 0, t});
    return std::nullopt;
  } catch (const bloomkit::error& e) {
    return e.code();
  }
}

std::uint64_t h64(std::uint64_t v) { return hash_key(v, hash_spec{}); }
std::uint64_t h32(std::uint32_t v) { return hash_key(v, hash_spec{}); }

TEST(KeyTypeConversions, UnspecifiedHashesEveryKeyAsBefore) {
  // A C++ integer keeps its own width without a key type (the golden
  // tests of hash_test.cpp pin these bytes).
  const std::array<std::byte, 4> four{std::byte{5}, std::byte{0}, std::byte{0}, std::byte{0}};
  EXPECT_EQ(hash_key(std::int32_t{5}, hash_spec{}), hash_bytes(four, hash_spec{}));
  EXPECT_NE(hash_key(std::int32_t{5}, hash_spec{}), hash_key(std::int64_t{5}, hash_spec{}));
  EXPECT_EQ(hash_key(true, hash_spec{}), hash_key(std::uint8_t{1}, hash_spec{}));  // one byte, as before
}

TEST(KeyTypeConversions, Int64WidensEveryIntegerAndRefusesTheRest) {
  const hash_spec s{hash_algorithm::xxh3_64, 0, key_type::int64};
  EXPECT_EQ(hash_key(std::int8_t{-1}, s), h64(~std::uint64_t{0}));
  EXPECT_EQ(hash_key(std::uint8_t{255}, s), h64(255));
  EXPECT_EQ(hash_key(std::uint64_t{1} << 63, s), h64(std::uint64_t{1} << 63));  // keeps its bit pattern
  EXPECT_EQ(hash_key(true, s), h64(1));
  EXPECT_EQ(hash_key(-3.0, s), h64(static_cast<std::uint64_t>(std::int64_t{-3})));
  EXPECT_EQ(refusal(2.5, s.keys), errc::mismatch);
  EXPECT_EQ(refusal(9223372036854775808.0, s.keys), errc::mismatch);  // 2^63 is out of range
  EXPECT_EQ(refusal(std::numeric_limits<double>::quiet_NaN(), s.keys), errc::mismatch);
  EXPECT_EQ(refusal(std::string("1"), s.keys), errc::mismatch);  // text is never parsed
}

TEST(KeyTypeConversions, Int32TakesIntegersThatFitIn32Bits) {
  const key_type t = key_type::int32;
  const hash_spec s{hash_algorithm::xxh3_64, 0, t};
  EXPECT_EQ(hash_key(std::int64_t{-5}, s), h32(static_cast<std::uint32_t>(-5)));
  EXPECT_EQ(hash_key(std::uint64_t{4294967295U}, s), h32(4294967295U));
  EXPECT_EQ(hash_key(std::int16_t{7}, s), h32(7));
  EXPECT_EQ(hash_key(7.0F, s), h32(7));
  EXPECT_EQ(refusal(std::int64_t{1} << 32, t), errc::mismatch);
  EXPECT_EQ(refusal(std::int64_t{-2147483649LL}, t), errc::mismatch);
  EXPECT_EQ(refusal(2147483648.0, t), errc::mismatch);
}

TEST(KeyTypeConversions, FloatTypesKeepBitsAndTakeExactIntegers) {
  const hash_spec f64{hash_algorithm::xxh3_64, 0, key_type::float64};
  const hash_spec f32{hash_algorithm::xxh3_64, 0, key_type::float32};
  const auto bits64 = [](double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  };
  const auto bits32 = [](float d) {
    std::uint32_t b;
    std::memcpy(&b, &d, 4);
    return b;
  };
  EXPECT_EQ(hash_key(0.1F, f64), h64(bits64(static_cast<double>(0.1F))));
  EXPECT_EQ(hash_key(std::int64_t{1} << 53, f64), h64(bits64(9007199254740992.0)));
  EXPECT_EQ(refusal((std::int64_t{1} << 53) + 1, key_type::float64), errc::mismatch);
  EXPECT_NE(hash_key(0.0, f64), hash_key(-0.0, f64));  // +0.0 and -0.0 are different keys
  EXPECT_EQ(hash_key(0.5, f32), h32(bits32(0.5F)));
  EXPECT_EQ(refusal(0.1, key_type::float32), errc::mismatch);  // not exactly a float32
  EXPECT_EQ(hash_key(std::int32_t{1} << 24, f32), h32(bits32(16777216.0F)));
  EXPECT_EQ(refusal((std::int32_t{1} << 24) + 1, key_type::float32), errc::mismatch);
  EXPECT_EQ(refusal(true, key_type::float64), errc::mismatch);
}

TEST(KeyTypeConversions, TimeTypesRefuseEveryCppKeyAndBytesTakeOnlyBytes) {
  for (const key_type t : {key_type::timestamp_us, key_type::date32}) {
    EXPECT_EQ(refusal(std::int64_t{1}, t), errc::mismatch);
    EXPECT_EQ(refusal(1.0, t), errc::mismatch);
    EXPECT_EQ(refusal(std::string("x"), t), errc::mismatch);
  }
  EXPECT_EQ(hash_key(std::string("abc"), hash_spec{hash_algorithm::xxh3_64, 0, key_type::bytes}),
            hash_key(std::string("abc"), hash_spec{}));
  EXPECT_EQ(refusal(std::uint8_t{1}, key_type::bytes), errc::mismatch);
}

TEST(KeyTypeConversions, NamesRoundTrip) {
  for (std::uint8_t v = 0; v <= max_key_type; ++v) {
    const auto t = static_cast<key_type>(v);
    EXPECT_EQ(parse_key_type(to_string(t)), t);
  }
  EXPECT_EQ(parse_key_type("uint64"), std::nullopt);
  EXPECT_EQ(to_string(static_cast<key_type>(8)), "unknown");
}

// ---- batches --------------------------------------------------------------------------

TEST(KeyTypeBatches, BatchHashesEqualSingleHashesForEveryConversion) {
  std::vector<std::int16_t> small;
  std::vector<std::uint64_t> wide;
  std::vector<float> reals;
  for (int i = -2000; i < 2000; ++i) {
    small.push_back(static_cast<std::int16_t>(i));
    wide.push_back(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL);
    reals.push_back(static_cast<float>(i) * 0.25F);
  }
  for (const auto algorithm : {hash_algorithm::xxh64, hash_algorithm::xxh3_64}) {
    for (const key_type t : {key_type::unspecified, key_type::int64, key_type::int32, key_type::float64}) {
      const hash_spec s{algorithm, 3, t};
      std::vector<std::uint64_t> out(small.size());
      batch_hash_into(small.data(), small.size(), s, out.data());
      for (std::size_t i = 0; i < small.size(); ++i) ASSERT_EQ(out[i], hash_key(small[i], s)) << i;
      if (t == key_type::unspecified || t == key_type::int64) {
        batch_hash_into(wide.data(), wide.size(), s, out.data());
        for (std::size_t i = 0; i < wide.size(); ++i) ASSERT_EQ(out[i], hash_key(wide[i], s)) << i;
      }
      if (t != key_type::int64 && t != key_type::int32) {
        batch_hash_into(reals.data(), reals.size(), s, out.data());
        for (std::size_t i = 0; i < reals.size(); ++i) ASSERT_EQ(out[i], hash_key(reals[i], s)) << i;
      }
    }
  }
  // 8-byte integers into int64 take the untyped lanes: the same hashes.
  std::vector<std::uint64_t> typed(wide.size()), untyped(wide.size());
  batch_hash_into(wide.data(), wide.size(), hash_spec{hash_algorithm::xxh64, 0, key_type::int64}, typed.data());
  batch_hash_into(wide.data(), wide.size(), hash_spec{hash_algorithm::xxh64, 0}, untyped.data());
  EXPECT_EQ(typed, untyped);
}

TEST(KeyTypeBatches, ARefusedBatchChangesNothing) {
  split_block_bloom f(10000, 0.01);
  f.adopt_key_type(key_type::int32);
  std::vector<std::int64_t> keys;
  for (std::int64_t i = 0; i < 5000; ++i) keys.push_back(i);
  keys.push_back(std::int64_t{1} << 40);  // the last key does not fit: checked before the first insert
  const bytes_t before = save_to_bytes(f);
  try {
    f.insert_keys(keys);
    ADD_FAILURE() << "the batch was accepted";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::mismatch);
    EXPECT_NE(std::string(e.what()).find("1099511627776"), std::string::npos) << e.what();
  }
  EXPECT_EQ(save_to_bytes(f), before);
  EXPECT_EQ(f.inserted(), 0U);
  std::vector<std::string> text{"a", "b"};
  EXPECT_THROW(f.insert_keys(text), bloomkit::error);
  EXPECT_EQ(save_to_bytes(f), before);
  keys.pop_back();
  f.insert_keys(keys);
  for (std::int64_t i = 0; i < 5000; ++i) ASSERT_TRUE(f.may_contain(static_cast<std::uint16_t>(i))) << i;
}

// ---- adopt_key_type and set algebra ------------------------------------------------------

template <class F>
F sample() {
  if constexpr (std::is_same_v<F, binary_fuse>) {
    std::vector<std::uint64_t> hashes;
    for (std::uint64_t i = 0; i < 50; ++i) hashes.push_back(hash_key(i, hash_spec{}));
    return binary_fuse(hashes, 8);
  } else if constexpr (std::is_same_v<F, ribbon>) {
    std::vector<std::uint64_t> hashes;
    for (std::uint64_t i = 0; i < 50; ++i) hashes.push_back(hash_key(i, hash_spec{}));
    return ribbon(hashes);
  } else {
    return F(200, 0.01);
  }
}

template <class F>
class KeyTypeKinds : public ::testing::Test {};
template <class Variant>
struct types_of;
template <class... Ts>
struct types_of<std::variant<Ts...>> {
  using type = ::testing::Types<Ts...>;
};
TYPED_TEST_SUITE(KeyTypeKinds, types_of<any_filter>::type);

TYPED_TEST(KeyTypeKinds, AdoptSetsOnceAndRefusesAnother) {
  TypeParam f = sample<TypeParam>();
  EXPECT_EQ(f.hash().keys, key_type::unspecified);
  f.adopt_key_type(key_type::unspecified);
  EXPECT_EQ(f.hash().keys, key_type::unspecified);
  f.adopt_key_type(key_type::int64);
  EXPECT_EQ(f.hash().keys, key_type::int64);
  f.adopt_key_type(key_type::int64);  // the same: nothing changes
  try {
    f.adopt_key_type(key_type::bytes);
    ADD_FAILURE() << "another key type was adopted";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::mismatch);
    const std::string m = e.what();
    EXPECT_NE(m.find("int64"), std::string::npos) << m;
    EXPECT_NE(m.find("bytes"), std::string::npos) << m;
  }
  EXPECT_EQ(f.hash().keys, key_type::int64);
  EXPECT_THROW(f.adopt_key_type(static_cast<key_type>(8)), bloomkit::error);
}

/// Calls a.merge(b) or a.intersect(b) where the kind has it.
template <class F>
std::vector<std::function<void(F&, const F&)>> set_operations() {
  std::vector<std::function<void(F&, const F&)>> ops;
  if constexpr (requires(F& a, const F& b) { a.merge(b); }) ops.emplace_back([](F& a, const F& b) { a.merge(b); });
  if constexpr (requires(F& a, const F& b) { a.intersect(b); }) {
    ops.emplace_back([](F& a, const F& b) { a.intersect(b); });
  }
  return ops;
}

TYPED_TEST(KeyTypeKinds, MergeAndIntersectRefuseAnotherKeyTypeNamingBoth) {
  for (const auto& op : set_operations<TypeParam>()) {
    TypeParam a = sample<TypeParam>();
    TypeParam b = sample<TypeParam>();
    a.adopt_key_type(key_type::int64);
    b.adopt_key_type(key_type::bytes);
    const bytes_t before = save_to_bytes(a);
    try {
      op(a, b);
      ADD_FAILURE() << "filters of two key types were combined";
    } catch (const bloomkit::error& e) {
      EXPECT_EQ(e.code(), errc::mismatch);
      const std::string m = e.what();
      EXPECT_NE(m.find("key types differ (int64 and bytes)"), std::string::npos) << m;
    }
    EXPECT_EQ(save_to_bytes(a), before) << "a refused merge changes nothing";
    TypeParam c = sample<TypeParam>();  // unspecified against int64: refused too
    EXPECT_THROW(op(c, a), bloomkit::error);
    TypeParam d = sample<TypeParam>();
    d.adopt_key_type(key_type::int64);
    EXPECT_NO_THROW(op(a, d));
  }
}

TEST(KeyTypeKindsSharded, ShardMergeRefusesAnotherKeyType) {
  const auto whole = split_block_bloom::plan_params(1000, 0.01);
  block_filter_params typed = whole;
  typed.hash.keys = key_type::int64;
  const shard_layout layout(whole.blocks, 2);
  split_block_shard a(whole, layout, 0);
  const split_block_shard b(typed, layout, 0);
  EXPECT_THROW(a.merge(b.view()), bloomkit::error);
}

TEST(KeyTypeKindsSharded, ATypedShardedFilterKeepsItsTypeThroughItsManifest) {
  bloomkit::test::scratch_dir dir;
  split_block_bloom whole(5000, 0.01);
  whole.adopt_key_type(key_type::int64);
  std::vector<std::int32_t> keys;
  for (std::int32_t i = 0; i < 5000; ++i) keys.push_back(i * 7919);
  std::vector<std::uint64_t> hashes(keys.size());
  batch_hash_into(keys.data(), keys.size(), whole.hash(), hashes.data());
  const shard_layout layout(whole.num_blocks(), 3);
  const auto routed = route(layout, hashes);
  std::vector<shard_entry> entries;
  for (std::uint32_t s = 0; s < 3; ++s) {
    split_block_shard shard(whole.params(), layout, s);
    shard.insert_many(routed.hashes_of(s));
    entries.push_back(save_shard(shard, dir.path() / shard_file_name(s, 3)));
  }
  const auto manifest = make_manifest<split_block_bloom::policy>(whole.params(), layout, entries);
  const std::string text = manifest_to_json(manifest);
  EXPECT_NE(text.find("\"key_type\": \"int64\""), std::string::npos) << text;
  EXPECT_EQ(manifest_from_json(text), manifest);
  write_manifest(manifest, dir.path() / "filter.manifest.json");
  const sharded_split_block_bloom sharded(dir.path() / "filter.manifest.json");
  EXPECT_EQ(sharded.manifest().whole.hash.keys, key_type::int64);
  std::vector<std::uint64_t> probe(keys.size());
  batch_hash_into(keys.data(), keys.size(), sharded.manifest().whole.hash, probe.data());
  std::unique_ptr<bool[]> answers(new bool[keys.size()]);
  sharded.may_contain_many(probe, std::span<bool>(answers.get(), keys.size()));
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(answers[i]) << i;
  // A manifest that claims another key type than its shards is refused.
  shard_manifest other = manifest;
  other.whole.hash.keys = key_type::bytes;
  write_manifest(other, dir.path() / "other.manifest.json");
  EXPECT_THROW((void)sharded_split_block_bloom(dir.path() / "other.manifest.json"), bloomkit::error);
  // An untyped manifest is the text it was before key types: no key_type field.
  shard_manifest untyped = manifest;
  untyped.whole.hash.keys = key_type::unspecified;
  EXPECT_EQ(manifest_to_json(untyped).find("key_type"), std::string::npos);
}

// ---- the round trip of every kind with every key type ----------------------------------

using bloomkit::test::aligned_copy;

/// Inserts (or, for a static kind, builds with) logical keys 0..49 in the
/// C++ type of key type t; time types have no C++ key, so their hashes go in.
template <class F>
F filled_with(key_type t) {
  const hash_spec s{kind_traits<F>::default_hash.algorithm, kind_traits<F>::default_hash.seed, t};
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < 50; ++i) {
    switch (t) {
      case key_type::bytes: hashes.push_back(hash_key(text_key(i), s)); break;
      case key_type::int64:
      case key_type::int32: hashes.push_back(hash_key(static_cast<std::int16_t>(i), s)); break;
      case key_type::float64:
      case key_type::float32: hashes.push_back(hash_key(static_cast<float>(i) + 0.5F, s)); break;
      default:  // no C++ key is a time: precomputed hashes, which never look at the key type
        hashes.push_back(hash_key(static_cast<std::uint64_t>(i), hash_spec{s.algorithm, s.seed}));
        break;
    }
  }
  if constexpr (std::is_same_v<F, binary_fuse>) {
    binary_fuse_options options;
    options.hash = s;
    return binary_fuse(hashes, 8, options);
  } else if constexpr (std::is_same_v<F, ribbon>) {
    ribbon_options options;
    options.hash = s;
    return ribbon(hashes, options);
  } else {
    F f(200, 0.01, s);
    for (const auto h : hashes) f.insert_hash(h);
    return f;
  }
}

template <class View>
void expect_keys_of_type(const View& v, key_type t) {
  for (int i = 0; i < 50; ++i) {
    switch (t) {
      case key_type::bytes: ASSERT_TRUE(v.may_contain(text_key(i))) << i; break;
      case key_type::int64:
      case key_type::int32:
        ASSERT_TRUE(v.may_contain(static_cast<std::uint8_t>(i))) << i;
        ASSERT_TRUE(v.may_contain(static_cast<double>(i))) << i;
        break;
      case key_type::float64:
      case key_type::float32: ASSERT_TRUE(v.may_contain(static_cast<double>(i) + 0.5)) << i; break;
      default: ASSERT_THROW((void)v.may_contain(i), bloomkit::error); break;
    }
  }
}

TYPED_TEST(KeyTypeKinds, EveryKeyTypeRoundTripsThroughSaveLoadViewAndInspect) {
  for (std::uint8_t v = 0; v <= max_key_type; ++v) {
    const auto t = static_cast<key_type>(v);
    SCOPED_TRACE(std::string(to_string(t)));
    const TypeParam f = filled_with<TypeParam>(t);
    EXPECT_EQ(f.hash().keys, t);
    const bytes_t bytes = save_to_bytes(f);
    EXPECT_EQ(bytes[15], std::byte{v});
    const file_info info = inspect(bytes);
    EXPECT_EQ(info.key_type, t);
    EXPECT_EQ(info.hash.keys, t);
    if (t == key_type::unspecified) {
      EXPECT_LT(info.version, 5U) << "an untyped filter is written as before key types";
    } else {
      EXPECT_EQ(info.version, 5U);
    }
    const auto loaded = load_as<TypeParam>(bytes);
    EXPECT_EQ(loaded.hash().keys, t);
    EXPECT_EQ(save_to_bytes(loaded), bytes) << "the encoding is canonical";
    const aligned_copy copy(bytes);
    const any_filter_view viewed = view(copy.bytes());
    std::visit(
        [&](const auto& view_of) {
          EXPECT_EQ(view_of.hash().keys, t);
          if (t != key_type::unspecified) expect_keys_of_type(view_of, t);
        },
        viewed);
    if (t != key_type::unspecified) expect_keys_of_type(loaded, t);
  }
}

}  // namespace
