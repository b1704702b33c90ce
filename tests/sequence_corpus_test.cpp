// tests/sequence_corpus_test.cpp - replays the FASTA/FASTQ fuzz corpus
// (fuzz/corpus/sequence) and every truncation of each file through the fuzz
// target's checks (fuzz/sequence_fuzz.cpp) as an ordinary test.
#include <gtest/gtest.h>

#include <filesystem>

#include "../fuzz/sequence_fuzz.cpp"
#include "test_support.hpp"

namespace {

TEST(SequenceCorpus, ReplayEveryFileAndItsTruncations) {
  const auto dir = std::filesystem::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "sequence";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    SCOPED_TRACE(entry.path().filename().string());
    const auto bytes = bloomkit::test::read_file_bytes(entry.path());
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    for (std::size_t len = 0; len <= bytes.size(); ++len) bloomkit_sequence_fuzz::check_input(data, len);
    ++files;
  }
  EXPECT_GE(files, 4u);
}

}  // namespace
