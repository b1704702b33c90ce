// tools/bloomkit/kmer_input.hpp - FASTA / FASTQ input for `build` and
// `query` with --kmer K: every canonical k-mer of every record (the
// library's sequence_reader and for_each_kmer, bloomkit/kmer.hpp), hashed as
// its 2-bit packed std::uint64_t (8 little-endian bytes, like --format u64),
// in batches.
#pragma once

#include <cstdint>
#include <fstream>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/kmer.hpp"
#include "commands.hpp"
#include "key_input.hpp"

namespace bloomkit::cli {

/// True for the --format values that read sequences ("fasta", "fastq").
inline bool is_sequence_format(std::string_view format) noexcept { return format == "fasta" || format == "fastq"; }

/// The sequence format of `path`: --format fasta|fastq when given, else by
/// the file name (.fa .fasta .fna .fa.gz-less; .fq .fastq). Throws
/// usage_error when neither says (stdin needs --format).
inline sequence_format sequence_format_for(std::string_view format, std::string_view path) {
  if (format == "fasta") return sequence_format::fasta;
  if (format == "fastq") return sequence_format::fastq;
  auto ends = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
  };
  if (ends(".fa") || ends(".fasta") || ends(".fna")) return sequence_format::fasta;
  if (ends(".fq") || ends(".fastq")) return sequence_format::fastq;
  throw usage_error("cannot tell whether '" + std::string(path) +
                    "' is FASTA or FASTQ from its name; give --format fasta or --format fastq");
}

/// Checks --kmer against --format: K in [1, 32] with fasta, fastq or the
/// default format (then each file's name decides); --format fasta|fastq
/// without --kmer is a usage error.
inline void check_kmer_options(std::string_view format, unsigned kmer) {
  if (kmer != 0) {
    if (kmer > 32) throw usage_error("--kmer must be in [1, 32], got " + std::to_string(kmer));
    if (!is_sequence_format(format) && format != "text") {
      throw usage_error("--kmer reads --format fasta or fastq, not " + std::string(format));
    }
  } else if (is_sequence_format(format)) {
    throw usage_error("--format " + std::string(format) + " needs --kmer K with K in [1, 32]");
  }
}

/// Calls on_record(name, hashes) for every record of `path` ("-" is stdin;
/// its format from --format or the name, sequence_format_for)
/// with the hashes of its canonical k-mers, and on_batch(hashes) for every
/// key_batch_size of them across records (either may be a no-op). Returns
/// the k-mers read. Errors name the file and line: errc::io when it cannot
/// be opened or read, errc::corrupt for malformed records.
template <class OnRecord, class OnBatch>
std::uint64_t for_each_kmer_record(const std::string& path, std::string_view format_option, unsigned k,
                                   hash_spec spec, OnRecord&& on_record, OnBatch&& on_batch) {
  const sequence_format format = sequence_format_for(format_option, path);
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) throw error(errc::io, "cannot open '" + path + "'");
    in = &file;
  }
  sequence_reader reader(*in, format);
  sequence_record record;
  std::vector<std::uint64_t> hashes, batch;
  batch.reserve(key_batch_size);
  std::uint64_t total = 0;
  try {
    while (reader.next(record)) {
      hashes.clear();
      for_each_kmer(record.sequence, k, true, [&](std::uint64_t kmer) {
        const std::uint64_t h = hash_key(kmer, spec);
        hashes.push_back(h);
        batch.push_back(h);
        if (batch.size() == key_batch_size) {
          on_batch(std::span<const std::uint64_t>(batch));
          batch.clear();
        }
      });
      total += hashes.size();
      on_record(std::string_view(record.name), std::span<const std::uint64_t>(hashes));
    }
  } catch (const error& e) {
    throw error::in_context((path == "-" ? std::string("stdin") : path) + ": ", e);
  }
  if (in->bad()) throw error(errc::io, "cannot read '" + path + "'");
  if (!batch.empty()) on_batch(std::span<const std::uint64_t>(batch));
  return total;
}

}  // namespace bloomkit::cli
