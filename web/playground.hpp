// web/playground.hpp - the playground's driver: one bloomkit filter, a
// deterministic key schedule and the figures the page shows.
//
// The page (web/app.js) only draws. Every bit it shows is set by bloomkit's
// own filter code compiled to WebAssembly (web/bindings.cpp wraps this class
// with embind); every figure it prints is computed here or by the library.
//
// A run is a pure function of its settings and a tick counter:
//
//   ticks 1 .. N           insert member key i = tick - 1
//   ticks N+1 .. N+Q       query absent key j = tick - N - 1   (Q = query_ticks)
//
// N is the design n, or more after saturate() (which keeps n as the filter's
// capacity: the page then shows "Inserted 2,326 / 200", past capacity). The
// counting kind can also remove keys: each removal takes out the oldest key
// still in the filter, and is recorded with the tick it happened at, so
// (kind, m, k, n, seed, saturated, removal ticks, tick) reproduces a state
// exactly (the page's link and address bar).
//
// Keys come from one SplitMix64 stream (Steele, Lea and Flood 2014):
// key(c) = mix(seed + (c + 1) * gamma), the c-th output of a generator seeded
// with `seed`. The state seed + (c + 1) * gamma is injective in c (gamma is
// odd) and SplitMix64's output function is a bijection, so different c give
// different keys. Member keys use even c, absent keys odd c: a query key is
// never a member, so every "maybe" it gets is a false positive.
//
// The counting kind (counters in place of bits) is compiled in when
// bloomkit/counting_bloom.hpp is present (BLOOMKIT_PLAYGROUND_COUNTING).
//
// This header has no emscripten dependency, so it also compiles natively.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#if __has_include("bloomkit/counting_bloom.hpp")
#include "bloomkit/counting_bloom.hpp"
#define BLOOMKIT_PLAYGROUND_COUNTING 1
#endif

namespace bloomkit::playground {

/// The library's kinds (bloomkit/filter.hpp) the page can show, spelled as
/// the CLI spells them (kind_traits<F>::cli_name): "standard",
/// "split-block", "counting", which is also how the page's link spells them.
using bloomkit::filter_kind;

/// One kind of the page's menu: the library kind and the page's spelling.
struct page_kind {
  filter_kind kind;
  const char* name;
};

/// The menu entry of kind F.
template <class F>
constexpr page_kind page_kind_of() noexcept {
  return {kind_traits<F>::kind, kind_traits<F>::cli_name.data()};
}

/// The page's menu, in order (the counting kind only when compiled in).
inline constexpr page_kind page_kinds[] = {
    page_kind_of<standard_bloom>(),
    page_kind_of<split_block_bloom>(),
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
    page_kind_of<counting_bloom>(),
#endif
};

/// The page's spelling of `kind` ("standard" for a kind it does not show).
inline const char* page_name(filter_kind kind) noexcept {
  for (const auto& k : page_kinds) {
    if (k.kind == kind) return k.name;
  }
  return "standard";
}

/// The kinds this build supports, comma-separated, in menu order.
inline std::string supported_kinds() {
  std::string out;
  for (const auto& k : page_kinds) {
    if (!out.empty()) out += ",";
    out += k.name;
  }
  return out;
}

/// Parses a kind name; nullopt for an unknown one or one this build lacks.
inline std::optional<filter_kind> parse_kind(const std::string& name) {
  for (const auto& k : page_kinds) {
    if (name == k.name) return k.kind;
  }
  return std::nullopt;
}

/// Bounds the page accepts. They keep every bit drawable (65,536 bits is a
/// 256 x 256 grid) and a full replay (the link) well under a second.
struct limits {
  static constexpr std::uint64_t min_bits = 16;
  static constexpr std::uint64_t max_bits = 65536;
  static constexpr std::uint32_t max_k = 16;
  static constexpr std::uint64_t max_n = 2'000'000;
  /// Absent-key queries after the inserts (n = 200 gives 1,200 ticks).
  static constexpr std::uint64_t query_ticks = 1000;
  /// Absent keys tested at each chart point (the "measured" curve).
  static constexpr std::uint32_t probe_keys = 2000;
  /// Chart points per run, at most (plus the origin).
  static constexpr std::uint64_t chart_points = 400;
  /// Absent keys tested for each k of the FPR-against-k chart: enough that a
  /// rate of 1 % is measured to about +-0.1 % (one standard deviation).
  static constexpr std::uint32_t k_chart_probe_keys = 10000;
  /// Removals a run records (each is one tick number in the link).
  static constexpr std::uint64_t max_removals = 4096;
};

/// What the user chose. For split-block, bits are rounded up to whole
/// 256-bit blocks and k is 8 (Parquet fixes it): see normalised().
struct settings {
  filter_kind kind = filter_kind::standard_bloom;
  std::uint64_t bits = 1024;
  std::uint32_t k = 3;
  std::uint64_t n = 200;
  std::uint64_t seed = 1;
};

/// The settings a filter of that kind actually uses. Does not validate.
inline settings normalised(settings s) {
  if (s.kind == filter_kind::split_block_bloom) {
    s.bits = std::max<std::uint64_t>(256, (s.bits + 255) / 256 * 256);
    s.k = 8;
  }
  return s;
}

/// Throws bloomkit::error(invalid_argument) with a sentence naming the first
/// setting outside limits.
inline void validate(const settings& s) {
  const auto require = [](bool ok, errc code, const std::string& message) {
    if (!ok) throw error(code, message);
  };
  require(s.bits >= limits::min_bits && s.bits <= limits::max_bits, errc::invalid_argument,
          "m (bits) must be between " + std::to_string(limits::min_bits) + " and " +
              std::to_string(limits::max_bits) + ", got " + std::to_string(s.bits));
  require(s.k >= 1 && s.k <= limits::max_k, errc::invalid_argument,
          "k (hash functions) must be between 1 and " + std::to_string(limits::max_k) + ", got " +
              std::to_string(s.k));
  require(s.n >= 1 && s.n <= limits::max_n, errc::invalid_argument,
          "n (keys to insert) must be between 1 and " + std::to_string(limits::max_n) + ", got " +
              std::to_string(s.n));
}

/// Parses a decimal seed in [0, 2^64); throws bloomkit::error(invalid_argument)
/// for anything else (JavaScript numbers cannot carry 64 bits, so the page
/// passes seeds as text).
inline std::uint64_t parse_seed(const std::string& text) {
  const auto require = [](bool ok, errc code, const std::string& message) {
    if (!ok) throw error(code, message);
  };
  require(!text.empty() && text.size() <= 20, errc::invalid_argument,
                  "seed must be a decimal integer in [0, 2^64), got \"" + text + "\"");
  std::uint64_t value = 0;
  for (char c : text) {
    require(c >= '0' && c <= '9', errc::invalid_argument,
                    "seed must be a decimal integer in [0, 2^64), got \"" + text + "\"");
    const auto digit = static_cast<std::uint64_t>(c - '0');
    require(value <= (UINT64_MAX - digit) / 10, errc::invalid_argument,
                    "seed must be below 2^64, got \"" + text + "\"");
    value = value * 10 + digit;
  }
  return value;
}

/// The c-th key of the seed's stream (see the header comment).
constexpr std::uint64_t stream_key(std::uint64_t seed, std::uint64_t c) noexcept {
  // SplitMix64's increment (the golden ratio in 0.64 fixed point).
  constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15ULL;
  return splitmix64(seed + c * gamma)();
}
/// The i-th key inserted (i counts from 0).
constexpr std::uint64_t member_key(std::uint64_t seed, std::uint64_t i) noexcept { return stream_key(seed, 2 * i); }
/// The j-th absent key: never equal to any member key.
constexpr std::uint64_t absent_key(std::uint64_t seed, std::uint64_t j) noexcept {
  return stream_key(seed, 2 * j + 1);
}
/// Absent keys from this index on are the chart's probe keys, so they never
/// coincide with the keys queried tick by tick.
inline constexpr std::uint64_t probe_offset = std::uint64_t{1} << 40;

/// One chart point: keys inserted, FPR measured on the probe keys, FPR the
/// library predicts for the bits set then, and the model FPR for that many keys.
struct chart_point {
  double inserted, measured, predicted, model;
};

/// One point of the FPR-against-k chart: for k hash functions, the FPR
/// measured with a filter of m bits holding the design n keys (on
/// limits::k_chart_probe_keys absent keys) and the formula's FPR.
struct k_point {
  std::uint32_t k;
  double measured, model;
};

/// The FPR-against-k chart for m bits and n keys of the seed's stream: one
/// point per k in [1, limits::max_k], each from a real standard_bloom (the
/// counting kind answers exactly as a standard filter with the same m and k,
/// so it has the same curve), and the classic formula (1 - e^{-kn/m})^k.
/// For split-block, whose k is fixed at 8, the curve is the standard
/// filter's with the same m and n, for comparison; see split_block_point().
/// Costs max_k * n inserts: the bindings cache it per (m, n, seed).
inline std::vector<k_point> fpr_by_k(std::uint64_t bits, std::uint64_t n, std::uint64_t seed) {
  const hash_spec spec{};
  std::vector<std::uint64_t> members(n), probes(limits::k_chart_probe_keys);
  for (std::uint64_t i = 0; i < n; ++i) members[i] = hash_key(member_key(seed, i), spec);
  for (std::uint32_t p = 0; p < limits::k_chart_probe_keys; ++p) {
    probes[p] = hash_key(absent_key(seed, probe_offset + p), spec);
  }
  std::vector<k_point> out;
  for (std::uint32_t k = 1; k <= limits::max_k; ++k) {
    auto filter = standard_bloom::with_bits(bits, k, spec);
    // Once every bit is set, further inserts change nothing: stop there (a
    // large n on a small m would otherwise cost max_k * n for a full array).
    for (std::uint64_t i = 0; i < n; ++i) {
      filter.insert_hash(members[i]);
      if (i % 4096 == 4095 && filter.set_bit_count() == bits) break;
    }
    std::uint64_t positives = 0;
    for (const auto h : probes) positives += filter.may_contain_hash(h) ? 1 : 0;
    out.push_back(k_point{k, static_cast<double>(positives) / static_cast<double>(probes.size()),
                          sizing::classic_fpr(static_cast<double>(bits), static_cast<double>(n), k)});
  }
  return out;
}

/// The split-block filter's own point for that chart: k = 8, measured with a
/// split_block_bloom of bits / 256 blocks holding the n keys, and its model
/// (the Poisson mixture over block loads).
inline k_point split_block_point(std::uint64_t bits, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t blocks = std::max<std::uint64_t>(1, bits / 256);
  split_block_bloom filter(block_filter_params{blocks, 8, n, 0.01, parquet_hash_spec});
  for (std::uint64_t i = 0; i < n; ++i) filter.insert_hash(hash_key(member_key(seed, i), parquet_hash_spec));
  std::uint64_t positives = 0;
  for (std::uint32_t p = 0; p < limits::k_chart_probe_keys; ++p) {
    positives += filter.may_contain_hash(hash_key(absent_key(seed, probe_offset + p), parquet_hash_spec)) ? 1 : 0;
  }
  return k_point{8, static_cast<double>(positives) / limits::k_chart_probe_keys,
                 sizing::split_block_fpr(static_cast<double>(blocks), static_cast<double>(n))};
}

/// The answer to the last query: none yet, "no" (certainly absent) or "maybe"
/// (a false positive, since query keys are absent).
enum class answer : int { none = -1, no = 0, maybe = 1 };

/// One playground run: owns the filter and replays the schedule.
class driver {
 public:
  /// A run at tick 0. Throws bloomkit::error(invalid_argument) for settings
  /// outside limits (after normalisation).
  explicit driver(const settings& chosen) : settings_(normalised(chosen)), filter_(make_filter(settings_)) {
    hash_spec spec{};
    std::visit([&](const auto& f) { spec = f.hash(); }, filter_);
    probe_hashes_.resize(limits::probe_keys);
    for (std::uint32_t p = 0; p < limits::probe_keys; ++p) {
      probe_hashes_[p] = hash_key(absent_key(settings_.seed, probe_offset + p), spec);
    }
    restart();
  }

  [[nodiscard]] const settings& current() const noexcept { return settings_; }
  [[nodiscard]] std::uint64_t tick() const noexcept { return tick_; }
  /// Member keys the run inserts before it queries: n, or more once saturated.
  [[nodiscard]] std::uint64_t inserts() const noexcept { return inserts_; }
  /// Whether saturate() raised the inserts past n.
  [[nodiscard]] bool saturating() const noexcept { return inserts_ > settings_.n; }
  /// The inserts plus the query ticks.
  [[nodiscard]] std::uint64_t total_ticks() const noexcept { return inserts_ + limits::query_ticks; }

  /// Advances up to `count` ticks (stops at total_ticks()). Removals recorded
  /// for a tick are applied when the run reaches it, before that tick's key.
  void step(std::uint64_t count) {
    for (;;) {
      apply_due_removals();
      if (count == 0 || tick_ >= total_ticks()) break;
      advance();
      --count;
    }
  }

  /// Replays from tick 0 to min(tick, total_ticks()), with the removals
  /// recorded so far (those at later ticks happen when the run gets there).
  void seek(std::uint64_t tick) {
    restart();
    step(tick);
  }

  /// Keeps n (the filter's capacity, so it reports "past capacity") and
  /// raises the keys inserted to the number of member keys after which every
  /// bit is set (never lowers it), keeps the ticks already spent inserting
  /// and replays, so the run goes on inserting until the array is solid and
  /// then queries. Returns the keys it will insert.
  std::uint64_t saturate() {
    const std::uint64_t keep = std::min(tick_, inserts_);
    inserts_ = std::max(inserts_, keys_to_fill());
    seek(keep);
    return inserts_;
  }

  /// The counting kind only: removes the oldest member key still in the
  /// filter (its counters go down by one, except saturated ones), and records
  /// the removal at this tick. Returns false, changing nothing, for another
  /// kind, when no inserted key is left, or past limits::max_removals.
  bool remove_oldest() {
    if (!can_remove()) return false;
    // Removals recorded for later ticks (a link's, replayed to an earlier
    // tick) are the future this action rewrites.
    removal_ticks_.resize(removed_);
    removal_ticks_.push_back(tick_);
    apply_due_removals();
    return true;
  }
  /// Whether remove_oldest() would remove a key now.
  [[nodiscard]] bool can_remove() const noexcept {
    return settings_.kind == filter_kind::counting_bloom && removed_ < std::min(tick_, inserts_) &&
           removed_ < limits::max_removals;
  }
  /// Sets the removals of a run from a link: the tick of each, in order (not
  /// decreasing) and replays to the current tick. Throws
  /// bloomkit::error(invalid_argument), changing nothing, unless the kind is
  /// counting (or the list is empty) and each removal takes out a key that
  /// was inserted by then.
  void set_removals(std::vector<std::uint64_t> ticks) {
    if (!ticks.empty() && settings_.kind != filter_kind::counting_bloom) {
      throw error(errc::invalid_argument, "removals apply to the counting kind only");
    }
    if (ticks.size() > limits::max_removals) {
      throw error(errc::invalid_argument, "at most " + std::to_string(limits::max_removals) + " removals, got " +
                                              std::to_string(ticks.size()));
    }
    for (std::size_t r = 0; r < ticks.size(); ++r) {
      if (r > 0 && ticks[r] < ticks[r - 1]) {
        throw error(errc::invalid_argument, "removal ticks must not decrease");
      }
      // Removal r (0-based) at tick t takes out key r, which must be in.
      if (ticks[r] > total_ticks() || r >= std::min(ticks[r], inserts_)) {
        throw error(errc::invalid_argument, "removal " + std::to_string(r + 1) + " at tick " +
                                                std::to_string(ticks[r]) + " has no inserted key left to remove");
      }
    }
    const std::uint64_t at = tick_;
    removal_ticks_ = std::move(ticks);
    seek(at);
  }
  /// Back to tick 0 with no removals (the page's Reset); saturation stays.
  void reset() {
    removal_ticks_.clear();
    seek(0);
  }
  /// The ticks of the removals recorded, in order.
  [[nodiscard]] const std::vector<std::uint64_t>& removal_ticks() const noexcept { return removal_ticks_; }
  /// Removals applied so far.
  [[nodiscard]] std::uint64_t removed() const noexcept { return removed_; }
  /// Member keys inserted so far (insert calls; inserted() is that minus removals).
  [[nodiscard]] std::uint64_t insert_calls() const noexcept { return std::min(tick_, inserts_); }
  [[nodiscard]] const std::vector<std::uint32_t>& last_removed_bits() const noexcept { return last_removed_bits_; }
  [[nodiscard]] std::uint64_t last_removed_key() const noexcept { return last_removed_key_; }

  /// Member keys (from the start of the stream) that set every bit, capped at
  /// limits::max_n.
  [[nodiscard]] std::uint64_t keys_to_fill() const {
    return std::visit(
        [&](const auto& f) {
          auto copy = f;
          copy.clear();
          const std::uint64_t bits = size_of(copy);
          std::uint64_t set = 0, i = 0;
          std::vector<std::uint64_t> positions;
          while (set < bits && i < limits::max_n) {
            const std::uint64_t h = hash_key(member_key(settings_.seed, i++), copy.hash());
            positions.clear();
            bit_positions(copy, h, positions);
            // Count the bits this key turns on (its positions may repeat).
            std::sort(positions.begin(), positions.end());
            positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
            for (auto bit : positions) set += is_set(copy, bit) ? 0 : 1;
            copy.insert_hash(h);
          }
          return i;
        },
        filter_);
  }

  [[nodiscard]] std::uint64_t inserted() const {
    return std::visit([](const auto& f) { return f.inserted(); }, filter_);
  }
  /// m: bits, or counters for the counting kind.
  [[nodiscard]] std::uint64_t bit_count() const {
    return std::visit([](const auto& f) { return size_of(f); }, filter_);
  }
  /// Bits set, or non-zero counters for the counting kind.
  [[nodiscard]] std::uint64_t set_bit_count() const {
    return std::visit([](const auto& f) { return set_of(f); }, filter_);
  }
  /// The library's FPR for the bits set now (standard: (X/m)^k; split-block:
  /// the mean over blocks of the chance a random key passes the block).
  [[nodiscard]] double predicted_fpr() const {
    return std::visit([](const auto& f) { return f.estimated_fpr(); }, filter_);
  }
  /// The sizing model's FPR for inserted() keys: classic (1 - e^{-kn/m})^k, or
  /// the split-block Poisson mixture.
  [[nodiscard]] double model_fpr() const { return model_fpr_for(static_cast<double>(inserted())); }
  /// Distinct keys the bits suggest (Swamidass-Baldi); +infinity when full.
  [[nodiscard]] double estimated_keys() const {
    return std::visit([](const auto& f) { return f.estimated_cardinality(); }, filter_);
  }
  /// Past n keys and the bits confirm it (the library's saturated()).
  [[nodiscard]] bool saturated() const {
    return std::visit([](const auto& f) { return f.saturated(); }, filter_);
  }
  /// Fraction of the fixed probe keys (all absent) the filter answers "maybe" to.
  [[nodiscard]] double probe_fpr() const {
    return std::visit(
        [&](const auto& f) {
          std::uint64_t positives = 0;
          for (auto h : probe_hashes_) positives += f.may_contain_hash(h) ? 1 : 0;
          return static_cast<double>(positives) / static_cast<double>(probe_hashes_.size());
        },
        filter_);
  }

  [[nodiscard]] std::uint64_t queries() const noexcept { return queries_; }
  [[nodiscard]] std::uint64_t false_positives() const noexcept { return false_positives_; }

  /// Bit positions of the last key inserted / queried (bit i of the array is
  /// bit i % 32 of 32-bit word i / 32, for both kinds; see words32()).
  [[nodiscard]] const std::vector<std::uint32_t>& last_insert_bits() const noexcept { return last_insert_bits_; }
  [[nodiscard]] const std::vector<std::uint32_t>& last_query_bits() const noexcept { return last_query_bits_; }
  [[nodiscard]] std::uint64_t last_insert_key() const noexcept { return last_insert_key_; }
  [[nodiscard]] std::uint64_t last_query_key() const noexcept { return last_query_key_; }
  [[nodiscard]] answer last_answer() const noexcept { return last_answer_; }
  [[nodiscard]] const std::vector<chart_point>& chart() const noexcept { return chart_; }

  /// A copy of the filter's bits as 32-bit words (bit i of the array is bit
  /// i % 32 of word i / 32): the standard filter's 64-bit words split into
  /// halves, low half first; the split-block filter's words in block order.
  /// For the counting kind, bit i is "counter i is not zero" (the library's
  /// to_standard_bloom(), exact by construction).
  [[nodiscard]] std::vector<std::uint32_t> words32() const {
    std::vector<std::uint32_t> out;
    const auto split_standard = [&](const standard_bloom& f) {
      for (auto w : f.words()) {
        out.push_back(static_cast<std::uint32_t>(w));
        out.push_back(static_cast<std::uint32_t>(w >> 32));
      }
    };
    if (const auto* f = std::get_if<standard_bloom>(&filter_)) {
      split_standard(*f);
    } else if (const auto* b = std::get_if<split_block_bloom>(&filter_)) {
      for (const auto& block : b->blocks()) out.insert(out.end(), std::begin(block.words), std::end(block.words));
    }
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
    else if (const auto* c = std::get_if<counting_bloom>(&filter_)) {
      split_standard(c->to_standard_bloom());
    }
#endif
    return out;
  }

  /// The counting kind's counters, one byte each (0..15); empty for the
  /// other kinds.
  [[nodiscard]] std::vector<std::uint8_t> counters() const {
    std::vector<std::uint8_t> out;
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
    if (const auto* c = std::get_if<counting_bloom>(&filter_)) {
      out.resize(c->counters());
      for (std::uint64_t i = 0; i < c->counters(); ++i) out[i] = static_cast<std::uint8_t>(c->counter(i));
    }
#endif
    return out;
  }

 private:
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
  using filter_type = std::variant<standard_bloom, split_block_bloom, counting_bloom>;
#else
  using filter_type = std::variant<standard_bloom, split_block_bloom>;
#endif

  static filter_type make_filter(const settings& s) {
    validate(s);
    if (s.kind != filter_kind::split_block_bloom) {
      // The design point is n keys; its classic FPR is the target (clamped
      // into (0, 1) as the parameters require), so saturated() means "past n".
      const double fpr = std::clamp(sizing::classic_fpr(static_cast<double>(s.bits), static_cast<double>(s.n), s.k),
                                    1e-300, 0.999999);
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
      if (s.kind == filter_kind::counting_bloom) {
        return counting_bloom(counting_bloom_params{s.bits, s.k, s.n, fpr, hash_spec{}});
      }
#endif
      return standard_bloom(standard_bloom_params{s.bits, s.k, s.n, fpr, hash_spec{}});
    }
    const std::uint64_t blocks = s.bits / 256;
    const double fpr =
        std::clamp(sizing::split_block_fpr(static_cast<double>(blocks), static_cast<double>(s.n)), 1e-300, 0.999999);
    return split_block_bloom(block_filter_params{blocks, 8, s.n, fpr, parquet_hash_spec});
  }

  /// Where a key's bits (counters) go, from the library's own probe code
  /// (probe_positions, the has_probe_positions capability of filter.hpp).
  template <has_probe_positions F>
  static void bit_positions(const F& f, std::uint64_t h, std::vector<std::uint64_t>& out) {
    f.probe_positions(h, out);
  }
  static bool is_set(const standard_bloom& f, std::uint64_t bit) {
    return (f.words()[bit / 64] >> (bit % 64)) & 1U;
  }
  static bool is_set(const split_block_bloom& f, std::uint64_t bit) {
    return (f.blocks()[bit / 256].words[(bit % 256) / 32] >> (bit % 32)) & 1U;
  }
  template <class F>
  static std::uint64_t size_of(const F& f) {
    return f.bit_count();
  }
  template <class F>
  static std::uint64_t set_of(const F& f) {
    return f.set_bit_count();
  }
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
  static bool is_set(const counting_bloom& f, std::uint64_t i) { return f.counter(i) != 0; }
  static std::uint64_t size_of(const counting_bloom& f) { return f.counters(); }
  static std::uint64_t set_of(const counting_bloom& f) { return f.nonzero_counters(); }
#endif

  double model_fpr_for(double keys) const {
    if (settings_.kind != filter_kind::split_block_bloom) {
      return sizing::classic_fpr(static_cast<double>(settings_.bits), keys, settings_.k);
    }
    return sizing::split_block_fpr(static_cast<double>(settings_.bits / 256), keys);
  }

  std::uint64_t chart_stride() const {
    return std::max<std::uint64_t>(1, (inserts_ + limits::chart_points - 1) / limits::chart_points);
  }

  /// Applies the removals recorded for the current tick that have not been
  /// applied yet: each takes out the oldest key still in (key removed_).
  void apply_due_removals() {
#ifdef BLOOMKIT_PLAYGROUND_COUNTING
    auto* c = std::get_if<counting_bloom>(&filter_);
    while (c != nullptr && removed_ < removal_ticks_.size() && removal_ticks_[removed_] == tick_) {
      last_removed_key_ = member_key(settings_.seed, removed_);
      const std::uint64_t h = hash_key(last_removed_key_, c->hash());
      std::vector<std::uint64_t> positions;
      bit_positions(*c, h, positions);
      last_removed_bits_.assign(positions.begin(), positions.end());
      // A key that is in always passes, so remove_hash() always removes.
      (void)c->remove_hash(h);
      ++removed_;
    }
#endif
  }

  void restart() {
    std::visit([](auto& f) { f.clear(); }, filter_);
    tick_ = queries_ = false_positives_ = removed_ = 0;
    last_insert_bits_.clear();
    last_removed_bits_.clear();
    last_removed_key_ = 0;
    last_query_bits_.clear();
    last_insert_key_ = last_query_key_ = 0;
    last_answer_ = answer::none;
    chart_.assign(1, chart_point{0, 0, 0, 0});
  }

  void advance() {
    std::vector<std::uint64_t> positions;
    std::visit(
        [&](auto& f) {
          if (tick_ < inserts_) {
            last_insert_key_ = member_key(settings_.seed, tick_);
            const std::uint64_t h = hash_key(last_insert_key_, f.hash());
            bit_positions(f, h, positions);
            f.insert_hash(h);
            last_insert_bits_.assign(positions.begin(), positions.end());
            // x is the keys inserted so far; the formula is for the keys in
            // the filter now (fewer after removals).
            const std::uint64_t done = tick_ + 1;
            if (done == inserts_ || done % chart_stride() == 0) {
              chart_.push_back(chart_point{static_cast<double>(done), probe_fpr(), f.estimated_fpr(),
                                           model_fpr_for(static_cast<double>(f.inserted()))});
            }
          } else {
            last_query_key_ = absent_key(settings_.seed, tick_ - inserts_);
            const std::uint64_t h = hash_key(last_query_key_, f.hash());
            bit_positions(f, h, positions);
            last_query_bits_.assign(positions.begin(), positions.end());
            const bool maybe = f.may_contain_hash(h);
            last_answer_ = maybe ? answer::maybe : answer::no;
            ++queries_;
            false_positives_ += maybe ? 1 : 0;
          }
        },
        filter_);
    ++tick_;
  }

  settings settings_;
  std::uint64_t inserts_ = settings_.n;
  filter_type filter_;
  std::vector<std::uint64_t> probe_hashes_;
  std::uint64_t tick_ = 0, queries_ = 0, false_positives_ = 0;
  std::vector<std::uint32_t> last_insert_bits_, last_query_bits_;
  std::uint64_t last_insert_key_ = 0, last_query_key_ = 0;
  answer last_answer_ = answer::none;
  std::vector<chart_point> chart_;
  std::vector<std::uint64_t> removal_ticks_;
  std::uint64_t removed_ = 0;
  std::vector<std::uint32_t> last_removed_bits_;
  std::uint64_t last_removed_key_ = 0;
};

}  // namespace bloomkit::playground
