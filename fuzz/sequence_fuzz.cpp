// fuzz/sequence_fuzz.cpp - libFuzzer target over the FASTA / FASTQ reader
// and the k-mer iterators (bloomkit/kmer.hpp): untrusted sequence files.
//
// Beyond "no crash, no sanitizer report, only bloomkit::error", it checks:
//   * for_each_kmer and kmer_range yield the same k-mers, for several k;
//   * every k-mer fits 2k bits, and canonical k-mers are their own canonical form;
//   * the FASTQ reader never returns a record whose qualities it did not check.
// tests/sequence_corpus_test.cpp replays fuzz/corpus/sequence through it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "bloomkit/kmer.hpp"

namespace bloomkit_sequence_fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "sequence_fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

inline void check_sequence(const std::string& seq) {
  for (const unsigned k : {1u, 5u, 21u, 31u, 32u}) {
    std::vector<std::uint64_t> rolled;
    const std::uint64_t n = bloomkit::for_each_kmer(seq, k, true, [&](std::uint64_t x) { rolled.push_back(x); });
    require(n == rolled.size(), "for_each_kmer counts what it yields");
    std::size_t i = 0;
    for (const std::uint64_t x : bloomkit::kmer_range(seq, k, true)) {
      require(i < rolled.size() && rolled[i] == x, "kmer_range == for_each_kmer");
      require((x & ~bloomkit::kmer_mask(k)) == 0, "a k-mer fits 2k bits");
      require(bloomkit::canonical_kmer(x, k) == x, "canonical k-mers are canonical");
      ++i;
    }
    require(i == rolled.size(), "kmer_range yields as many");
  }
}

inline void check_input(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto format : {bloomkit::sequence_format::fasta, bloomkit::sequence_format::fastq}) {
    std::istringstream in(text);
    bloomkit::sequence_reader reader(in, format);
    bloomkit::sequence_record record;
    try {
      int records = 0;
      while (reader.next(record) && records++ < 1000) check_sequence(record.sequence);
    } catch (const bloomkit::error& e) {
      require(e.code() == bloomkit::errc::corrupt, "reader errors are errc::corrupt");
    }
  }
}

}  // namespace bloomkit_sequence_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_sequence_fuzz::check_input(data, size);
  return 0;
}
