// The CLI on Spark's and Guava's own streams: `query` with the libraries' key
// semantics answers every probe as their mightContain did, `info` describes
// them, `merge` writes their format back, and bad files exit 2 with nothing
// written. Material: tests/fixtures/jvm or $BLOOMKIT_JVM_DIR (see
// jvm_formats_test.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using bloomkit::test::cli_result;
using bloomkit::test::lines_of;
using bloomkit::test::read_file;
using bloomkit::test::run_cli;
using bloomkit::test::scratch_dir;

fs::path material_dir() {
  if (const char* env = std::getenv("BLOOMKIT_JVM_DIR"); env && *env) return fs::absolute(env);
  return fs::path(bloomkit::test::paths::source_dir) / "tests" / "fixtures" / "jvm";
}

std::string unhex(const std::string& text) {
  std::string out;
  if (text == "-") return out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) out += static_cast<char>(std::stoul(text.substr(i, 2), nullptr, 16));
  return out;
}

std::map<std::string, std::string> read_meta(const fs::path& path) {
  std::map<std::string, std::string> meta;
  for (const std::string& line : lines_of(read_file(path))) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) meta[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return meta;
}

TEST(CliJvm, QueryAnswersAsTheLibrary) {
  scratch_dir dir;
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(material_dir())) {
    if (entry.path().extension() != ".meta") continue;
    const std::string name = entry.path().stem().string();
    SCOPED_TRACE(name);
    const auto meta = read_meta(entry.path());
    const std::string type = meta.at("key");
    // The CLI spelling of each key type: longs as i64, ints as i32, strings
    // as their UTF-8 text (no harness string holds '\n' or '\r'), byte
    // arrays as hex.
    const std::string format = type == "long" ? "i64" : type == "int" ? "i32" : type == "string" ? "text" : "hex";
    std::string input, expected;
    for (const std::string& line : lines_of(read_file(material_dir() / (name + ".probes")))) {
      if (line.size() < 2) continue;
      const std::string field = line.substr(2);
      const std::string key = type == "string" ? unhex(field) : type == "binary" && field == "-" ? "" : field;
      input += key + "\n";
      expected += key + (line[0] == '1' ? "\tmaybe\n" : "\tabsent\n");
    }
    const cli_result r =
        run_cli({"query", (material_dir() / (name + ".bin")).string(), "--format", format}, input, dir);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(r.out == expected) << "the CLI's answers differ from the library's";
    ++cases;
  }
  EXPECT_GE(cases, 17);
}

TEST(CliJvm, InfoAndMergeKeepTheFormat) {
  scratch_dir dir;
  const std::string spark = (material_dir() / "spark_v2_long.bin").string();
  const cli_result info = run_cli({"info", spark, "--json"}, std::nullopt, dir);
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_NE(info.out.find("\"kind\":\"spark_bloom\""), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("\"version\":2"), std::string::npos) << info.out;
  const cli_result guava = run_cli({"info", (material_dir() / "guava_mitz32_long.bin").string()}, std::nullopt, dir);
  ASSERT_EQ(guava.rc, 0) << guava.err;
  EXPECT_NE(guava.out.find("MURMUR128_MITZ_32"), std::string::npos) << guava.out;

  // A filter merged with itself is itself, in Spark's own bytes.
  const cli_result merged = run_cli({"merge", spark, spark, "-o", dir / "m.bin"}, std::nullopt, dir);
  ASSERT_EQ(merged.rc, 0) << merged.err;
  EXPECT_EQ(read_file(dir / "m.bin"), read_file(spark));
  // Merging the empty v1 filter into a v1 filter of other keys: same shape only.
  const cli_result mismatch =
      run_cli({"merge", spark, (material_dir() / "spark_v1_long.bin").string(), "-o", dir / "x.bin"}, std::nullopt, dir);
  EXPECT_EQ(mismatch.rc, 2);
  EXPECT_NE(mismatch.err.find("versions differ"), std::string::npos) << mismatch.err;
  EXPECT_FALSE(fs::exists(dir / "x.bin"));
}

TEST(CliJvm, BadStreamsAndKeysExitTwoAndWriteNothing) {
  scratch_dir dir;
  const std::string bytes = read_file(material_dir() / "guava_mitz64_long.bin");
  bloomkit::test::write_file(dir / "short.bin", bytes.substr(0, bytes.size() - 3));
  const cli_result truncated = run_cli({"query", dir / "short.bin", "--format", "i64", "1"}, std::nullopt, dir);
  EXPECT_EQ(truncated.rc, 2);
  EXPECT_NE(truncated.err.find("bytes follow"), std::string::npos) << truncated.err;
  bloomkit::test::write_file(dir / "v9.bin", std::string("\0\0\0\x09\0\0\0\x03\0\0\0\x01", 12) + std::string(8, '\0'));
  const cli_result version = run_cli({"info", dir / "v9.bin"}, std::nullopt, dir);
  EXPECT_EQ(version.rc, 2);
  EXPECT_NE(version.err.find("unknown version 9"), std::string::npos) << version.err;
  const cli_result merge = run_cli({"merge", dir / "short.bin", dir / "short.bin", "-o", dir / "out.bin"}, std::nullopt, dir);
  EXPECT_EQ(merge.rc, 2);
  EXPECT_FALSE(fs::exists(dir / "out.bin"));
  // A key that is not an i32, and an unknown format.
  const std::string guava_int = (material_dir() / "guava_mitz64_int.bin").string();
  EXPECT_EQ(run_cli({"query", guava_int, "--format", "i32", "2147483648"}, std::nullopt, dir).rc, 2);
  EXPECT_EQ(run_cli({"query", guava_int, "--format", "f64", "1"}, std::nullopt, dir).rc, 1);
}

}  // namespace
