// bloomkit/kmer.hpp - k-mers of DNA sequences as filter keys, and FASTA /
// FASTQ readers that feed them.
//
// A k-mer (1 <= k <= 32) is packed 2 bits per base, A=0 C=1 G=2 T=3, the
// first base in the highest bits, into a std::uint64_t; that integer is the
// key (hashed as 8 little-endian bytes, like any std::uint64_t, so a k-mer
// filter is queried from C++, the CLI or Python alike). The *canonical*
// k-mer is the smaller of the k-mer and its reverse complement, so a read
// and its reverse-complement strand give the same keys (the usual choice in
// de Bruijn graph assemblers and k-mer counters: Jellyfish, KMC, BCALM).
//
// Rolling encoding, O(1) per base:
//   forward  <- ((forward << 2) | code) & mask            mask = 4^k - 1
//   reverse  <- (reverse >> 2) | ((3 - code) << 2 (k - 1))
// A base that is not A, C, G or T (either case: N, IUPAC codes, '-', ...)
// breaks the sequence: the next k-mer starts after it. Lower case (soft
// masking) is read as upper case. Nothing else is skipped: callers hand in
// a sequence without line breaks; the readers below join FASTA lines.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <iterator>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"

namespace bloomkit {

namespace detail {

/// 0..3 for A C G T (either case), 4 for anything else.
inline constexpr std::array<std::uint8_t, 256> base_codes = [] {
  std::array<std::uint8_t, 256> t{};
  for (auto& c : t) c = 4;
  t['A'] = t['a'] = 0;
  t['C'] = t['c'] = 1;
  t['G'] = t['g'] = 2;
  t['T'] = t['t'] = 3;
  return t;
}();

inline void check_kmer_length(unsigned k) {
  require(k >= 1 && k <= 32, errc::invalid_argument, "kmer: k must be in [1, 32], got " + std::to_string(k));
}

}  // namespace detail

/// The mask of a k-mer's 2 k bits.
constexpr std::uint64_t kmer_mask(unsigned k) noexcept {
  return k >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * k)) - 1;
}

/// The reverse complement of a packed k-mer (O(log k) bit tricks: complement
/// every base, reverse the 2-bit groups, shift down to 2 k bits).
constexpr std::uint64_t reverse_complement(std::uint64_t kmer, unsigned k) noexcept {
  std::uint64_t x = ~kmer;  // complement: A<->T (0<->3), C<->G (1<->2)
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
  x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
  x = (x >> 32) | (x << 32);
  return x >> (64 - 2 * k);
}

/// The smaller of a packed k-mer and its reverse complement.
constexpr std::uint64_t canonical_kmer(std::uint64_t kmer, unsigned k) noexcept {
  const std::uint64_t rc = reverse_complement(kmer, k);
  return rc < kmer ? rc : kmer;
}

/// Packs the k bases of `bases` (A/C/G/T, either case). Throws
/// errc::invalid_argument for another letter or a length outside [1, 32].
inline std::uint64_t encode_kmer(std::string_view bases) {
  detail::check_kmer_length(static_cast<unsigned>(bases.size()));
  std::uint64_t x = 0;
  for (const char c : bases) {
    const std::uint8_t code = detail::base_codes[static_cast<unsigned char>(c)];
    detail::require(code < 4, errc::invalid_argument, std::string("kmer: not a base: '") + c + "'");
    x = (x << 2) | code;
  }
  return x;
}

/// The k bases of a packed k-mer, upper case.
inline std::string decode_kmer(std::uint64_t kmer, unsigned k) {
  std::string out(k, 'A');
  for (unsigned i = 0; i < k; ++i) out[k - 1 - i] = "ACGT"[(kmer >> (2 * i)) & 3];
  return out;
}

/// Calls f(kmer) for every k-mer of `sequence` in order (canonical when
/// `canonical`), skipping every k-mer that covers a non-ACGT letter.
/// Returns how many k-mers it produced. O(1) per base, no allocation.
/// Throws errc::invalid_argument for k outside [1, 32].
template <class F>
std::uint64_t for_each_kmer(std::string_view sequence, unsigned k, bool canonical, F&& f) {
  detail::check_kmer_length(k);
  const std::uint64_t mask = kmer_mask(k);
  const unsigned top = 2 * (k - 1);
  std::uint64_t forward = 0, reverse = 0, count = 0;
  unsigned valid = 0;  // bases since the last break, capped at k
  for (const char c : sequence) {
    const std::uint64_t code = detail::base_codes[static_cast<unsigned char>(c)];
    if (code > 3) {
      valid = 0;
      continue;
    }
    forward = ((forward << 2) | code) & mask;
    reverse = (reverse >> 2) | ((3 - code) << top);
    if (valid < k) ++valid;
    if (valid == k) {
      f(canonical && reverse < forward ? reverse : forward);
      ++count;
    }
  }
  return count;
}

/// The k-mers of a sequence as an input range (for range-for and
/// algorithms); each step costs O(1) per base, like for_each_kmer. The
/// sequence must outlive the range.
class kmer_range {
 public:
  /// Throws errc::invalid_argument for k outside [1, 32].
  kmer_range(std::string_view sequence, unsigned k, bool canonical = true)
      : sequence_(sequence), k_(k), canonical_(canonical) {
    detail::check_kmer_length(k);
  }

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::uint64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::uint64_t*;
    using reference = std::uint64_t;

    iterator() = default;
    reference operator*() const noexcept { return canonical_ && reverse_ < forward_ ? reverse_ : forward_; }
    iterator& operator++() noexcept {
      advance();
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      advance();
      return old;
    }
    /// Equal when both are at the end, or at the same position.
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.pos_ == b.pos_; }

   private:
    friend class kmer_range;
    iterator(std::string_view s, unsigned k, bool canonical) noexcept
        : s_(s), k_(k), canonical_(canonical), mask_(kmer_mask(k)), pos_(0) {
      advance();
    }
    /// Moves to the next k-mer, or to the end (pos_ = size + 1).
    void advance() noexcept {
      while (pos_ < s_.size()) {
        const std::uint64_t code = detail::base_codes[static_cast<unsigned char>(s_[pos_++])];
        if (code > 3) {
          valid_ = 0;
          continue;
        }
        forward_ = ((forward_ << 2) | code) & mask_;
        reverse_ = (reverse_ >> 2) | ((3 - code) << (2 * (k_ - 1)));
        if (valid_ < k_) ++valid_;
        if (valid_ == k_) return;
      }
      pos_ = s_.size() + 1;
    }

    std::string_view s_{};
    unsigned k_ = 1;
    bool canonical_ = true;
    std::uint64_t mask_ = 0, forward_ = 0, reverse_ = 0;
    std::size_t pos_ = 0;  // index of the next base to read; size + 1 at the end
    unsigned valid_ = 0;
  };

  [[nodiscard]] iterator begin() const noexcept { return iterator(sequence_, k_, canonical_); }
  [[nodiscard]] iterator end() const noexcept {
    iterator it;
    it.pos_ = sequence_.size() + 1;
    return it;
  }

 private:
  std::string_view sequence_;
  unsigned k_;
  bool canonical_;
};

/// Sequence file formats the reader understands.
enum class sequence_format : std::uint8_t {
  fasta = 0,  ///< '>' header lines, then sequence lines (joined; any line length)
  fastq = 1,  ///< four-line records: '@' header, sequence, '+' line, qualities
};

/// One record of a FASTA or FASTQ file: the header line without its '>' or
/// '@', and the sequence with line breaks removed.
struct sequence_record {
  std::string name;
  std::string sequence;
};

/// Streams records from a FASTA or FASTQ input (a file, a pipe, stdin), one
/// at a time: memory is one record, so inputs of any size work. A trailing
/// '\r' on each line is dropped (CRLF files). Blank lines are ignored in
/// FASTA. Malformed input is a bloomkit::error (errc::corrupt) naming the
/// line: text before the first '>' / '@', a FASTQ record cut short, a
/// missing '+', or qualities whose length differs from the sequence's.
class sequence_reader {
 public:
  sequence_reader(std::istream& in, sequence_format format) : in_(in), format_(format) {}

  /// Reads the next record into `out`; false at the end of the input.
  bool next(sequence_record& out) {
    return format_ == sequence_format::fasta ? next_fasta(out) : next_fastq(out);
  }
  /// The number of the last line read (1-based), for messages.
  [[nodiscard]] std::uint64_t line() const noexcept { return line_; }

 private:
  bool read_line(std::string& s) {
    if (!std::getline(in_, s)) return false;
    ++line_;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw error(errc::corrupt, "line " + std::to_string(line_) + ": " + what);
  }

  bool next_fasta(sequence_record& out) {
    if (!have_header_) {
      while (read_line(pending_)) {
        if (pending_.empty()) continue;
        if (pending_[0] != '>') fail("FASTA input must start with a '>' header line");
        have_header_ = true;
        break;
      }
      if (!have_header_) return false;
    }
    out.name.assign(pending_, 1);
    out.sequence.clear();
    have_header_ = false;
    while (read_line(pending_)) {
      if (!pending_.empty() && pending_[0] == '>') {
        have_header_ = true;
        break;
      }
      out.sequence += pending_;
    }
    return true;
  }

  bool next_fastq(sequence_record& out) {
    do {
      if (!read_line(pending_)) return false;
    } while (pending_.empty());
    if (pending_[0] != '@') fail("a FASTQ record must start with '@'");
    out.name.assign(pending_, 1);
    if (!read_line(out.sequence)) fail("FASTQ record cut short (no sequence line)");
    if (!read_line(pending_)) fail("FASTQ record cut short (no '+' line)");
    if (pending_.empty() || pending_[0] != '+') fail("expected the FASTQ '+' line");
    if (!read_line(pending_)) fail("FASTQ record cut short (no quality line)");
    if (pending_.size() != out.sequence.size()) {
      fail("FASTQ quality length " + std::to_string(pending_.size()) + " differs from sequence length " +
           std::to_string(out.sequence.size()));
    }
    return true;
  }

  std::istream& in_;
  sequence_format format_;
  std::string pending_;
  bool have_header_ = false;
  std::uint64_t line_ = 0;
};

}  // namespace bloomkit
