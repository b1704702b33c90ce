// web/views.hpp - the playground's cuckoo and window views: a real
// bloomkit::cuckoo_filter and a real bloomkit::age_partitioned_bloom, driven
// by the page's buttons, and everything the page draws of them.
//
// As with playground::driver (web/playground.hpp), the page only draws: every
// fingerprint, slot, kick, slice bit and answer comes from the library's own
// code (insert_hash_traced gives the kick-out chain, answering_run_hash the
// slices that answered a lookup), and every figure from its own statistics.
//
// Keys are the driver's stream (member_key(seed, i), absent_key(seed, j)): the
// views insert member keys 0, 1, 2, ... in order, so key #i is the i-th key
// inserted, and an absent key is never a member. Every action is appended to
// an operation log ("i", "q5", "a3", "d2", "t10": insert the next key, look
// up member #5, look up absent #3, delete member #2, advance the clock by 10),
// which web/expected_views.cpp replays with the library alone to check what
// the view shows (web/tests/views.test.mjs).
//
// No emscripten dependency: this header also compiles natively.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "playground.hpp"

namespace bloomkit::playground {

/// Bounds the views accept, so every slot and slice bit is drawable.
struct view_limits {
  /// Cuckoo capacity: at most 264 buckets (1,056 slots) on the page.
  static constexpr std::uint64_t max_cuckoo_capacity = 1000;
  /// Window: keys (count window) or time units (time window).
  static constexpr std::uint64_t max_window = 5000;
  /// Bits of all k + l slices together (a 256 x 256 grid at most).
  static constexpr std::uint64_t max_window_bits = 65536;
  /// Keys one "insert many" adds.
  static constexpr std::uint64_t max_batch = 1000;
  /// Member keys whose current answer the window view lists (the newest).
  static constexpr std::uint64_t max_listed_keys = 4000;
};

/// 16 hex digits (keys cross to JavaScript as text: 53-bit numbers).
inline std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}
/// A double as JSON (17 significant digits: the native program's figures
/// compare exactly; infinity, which JSON lacks, as null).
inline std::string json_number(double value) {
  if (!(value == value) || value > 1e308 || value < -1e308) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// The sentence for a lookup of member key #i before it was inserted.
inline std::string not_yet(std::uint64_t i, std::uint64_t next) {
  if (next == 0) return "key #" + std::to_string(i) + " has not been inserted yet: no key has";
  return "key #" + std::to_string(i) + " has not been inserted yet (keys #0 to #" + std::to_string(next - 1) + " have)";
}

/// What the last action of a view did, for the page's "last" line.
struct view_action {
  std::string op;          ///< "", "insert", "lookup", "remove" or "advance"
  std::uint64_t index = 0; ///< member (or absent) key number
  bool absent = false;     ///< an absent key (lookups only)
  std::uint64_t key = 0;
  std::string result;      ///< the library's answer, as the page prints it
};

/// The cuckoo view: one bloomkit::cuckoo_filter planned for (capacity, FPR).
class cuckoo_view {
 public:
  /// Plans with cuckoo_filter::plan_params (the library's checks and
  /// messages) after the view's own capacity bound. Throws bloomkit::error.
  cuckoo_view(std::uint64_t capacity, double target_fpr, std::uint64_t seed)
      : seed_(seed), filter_(plan(capacity, target_fpr)) {}

  /// Inserts the next member key. Returns the library's result ("inserted",
  /// or "full": the victim slot is taken and nothing changed, not even the
  /// next key number).
  std::string insert_next() {
    const std::uint64_t key = member_key(seed_, next_);
    const key_address a = address(key);
    const insert_result r = filter_.insert_hash_traced(hash_key(key, filter_.hash()), moves_);
    last_ = {"insert", next_, false, key, std::string(to_string(r))};
    last_address_ = a;
    if (r == insert_result::inserted) {
      live_.push_back(true);
      ++next_;
    }
    log("i");
    return last_.result;
  }
  /// Looks member key #i (or absent key #i) up: "maybe" or "no". A member
  /// key not inserted yet is refused with a sentence, changing nothing.
  std::string lookup(std::uint64_t i, bool absent) {
    if (!absent && i >= next_) return not_yet(i, next_);
    const std::uint64_t key = absent ? absent_key(seed_, i) : member_key(seed_, i);
    last_ = {"lookup", i, absent, key, filter_.may_contain_hash(hash_key(key, filter_.hash())) ? "maybe" : "no"};
    last_address_ = address(key);
    moves_.clear();
    log((absent ? "a" : "q") + std::to_string(i));
    return last_.result;
  }
  /// Deletes member key #i, which must be in (removing a key never inserted
  /// may delete another key's colliding fingerprint: the library's
  /// contract). Returns the library's result ("removed") or, changing
  /// nothing, the sentence saying why the view refused.
  std::string remove(std::uint64_t i) {
    if (i >= next_ || !live_[i]) {
      return "key #" + std::to_string(i) +
             " is not in the filter: delete only keys you inserted (deleting one that was never inserted can "
             "take out another key's fingerprint, a false negative)";
    }
    const std::uint64_t key = member_key(seed_, i);
    const remove_result r = filter_.remove_hash(hash_key(key, filter_.hash()));
    last_ = {"remove", i, false, key, r == remove_result::removed ? "removed" : "absent"};
    last_address_ = address(key);
    moves_.clear();
    live_[i] = false;
    log("d" + std::to_string(i));
    return last_.result;
  }

  [[nodiscard]] const cuckoo_filter& filter() const noexcept { return filter_; }
  [[nodiscard]] std::uint64_t next_key() const noexcept { return next_; }
  [[nodiscard]] const std::string& ops() const noexcept { return ops_; }

  /// Everything the page draws, as one JSON object (field names as
  /// web/expected_views.cpp prints them).
  [[nodiscard]] std::string state_json() const {
    const auto& p = filter_.params();
    std::string out = "{\"view\":\"cuckoo\",\"capacity\":" + std::to_string(p.capacity) +
                      ",\"target_fpr\":" + json_number(p.target_fpr) + ",\"buckets\":" + std::to_string(p.buckets) +
                      ",\"fingerprint_bits\":" + std::to_string(p.fingerprint_bits) +
                      ",\"stored\":" + std::to_string(filter_.inserted()) +
                      ",\"slots\":" + std::to_string(filter_.slots()) +
                      ",\"load_factor\":" + json_number(filter_.load_factor()) +
                      ",\"estimated_fpr\":" + json_number(filter_.estimated_fpr()) +
                      ",\"design_fpr\":" + json_number(filter_.design_fpr()) +
                      ",\"full_load_fpr\":" + json_number(filter_.full_load_fpr()) +
                      ",\"bits_per_key\":" + json_number(filter_.bits_per_key()) +
                      ",\"full\":" + (filter_.full() ? "true" : "false") +
                      ",\"victim\":[" + std::to_string(filter_.victim().bucket) + "," +
                      std::to_string(filter_.victim().fingerprint) + "],\"next_key\":" + std::to_string(next_) +
                      ",\"table\":[";
    for (std::uint64_t b = 0; b < p.buckets; ++b) {
      for (std::uint32_t j = 0; j < cuckoo_filter::slots_per_bucket; ++j) {
        if (b + j > 0) out += ",";
        out += std::to_string(filter_.slot_fingerprint(b, j));
      }
    }
    out += "],\"members\":\"";
    for (std::uint64_t i = 0; i < next_; ++i) {
      out += !live_[i] ? '-' : filter_.may_contain_hash(hash_key(member_key(seed_, i), filter_.hash())) ? '1' : '0';
    }
    out += "\",\"last\":{\"op\":\"" + last_.op + "\",\"index\":" + std::to_string(last_.index) +
           ",\"absent\":" + (last_.absent ? "true" : "false") + ",\"key\":\"" + hex64(last_.key) +
           "\",\"result\":\"" + last_.result + "\",\"fingerprint\":" + std::to_string(last_address_.fingerprint) +
           ",\"first\":" + std::to_string(last_address_.first) + ",\"second\":" + std::to_string(last_address_.second) +
           ",\"moves\":[";
    for (std::size_t m = 0; m < moves_.size(); ++m) {
      out += (m ? ",[" : "[") + std::to_string(moves_[m].bucket) + "," + std::to_string(moves_[m].slot) + "," +
             std::to_string(moves_[m].fingerprint) + "," + std::to_string(moves_[m].evicted) + "]";
    }
    out += "]}}";
    return out;
  }

 private:
  static cuckoo_filter_params plan(std::uint64_t capacity, double target_fpr) {
    if (capacity > view_limits::max_cuckoo_capacity) {
      throw error(errc::invalid_argument, "the page draws a cuckoo filter of at most " +
                                              std::to_string(view_limits::max_cuckoo_capacity) + " keys, got " +
                                              std::to_string(capacity));
    }
    return cuckoo_filter::plan_params(capacity, target_fpr);
  }
  /// Where a key lives: its two buckets (the library's probe_positions) and its fingerprint.
  struct key_address {
    std::uint64_t first = 0, second = 0;
    std::uint32_t fingerprint = 0;
  };
  [[nodiscard]] key_address address(std::uint64_t key) const {
    const std::uint64_t h = hash_key(key, filter_.hash());
    std::vector<std::uint64_t> buckets;
    filter_.probe_positions(h, buckets);
    return {buckets[0], buckets[1], filter_.fingerprint_of_hash(h)};
  }
  void log(const std::string& op) {
    if (!ops_.empty()) ops_ += ",";
    ops_ += op;
  }

  std::uint64_t seed_;
  cuckoo_filter filter_;
  std::uint64_t next_ = 0;
  std::vector<bool> live_;
  std::vector<cuckoo_move> moves_;
  view_action last_;
  key_address last_address_{};
  std::string ops_;
};

/// What the window view is planned for: a count window (the last `window`
/// keys) or, with max_keys > 0, a time window of `window` time units for up
/// to max_keys keys in any window.
struct window_settings {
  std::uint64_t window = 60;
  std::uint64_t max_keys = 0;
  double target_fpr = 0.05;
  std::uint64_t seed = 1;
};

/// The library's plan for those settings (plan_params or plan_time_params,
/// with their checks and messages) after the view's window bound. Throws
/// bloomkit::error.
inline age_partitioned_bloom_params plan_window(const window_settings& s) {
  if (s.window > view_limits::max_window) {
    throw error(errc::invalid_argument, "the page's window is at most " + std::to_string(view_limits::max_window) +
                                            ", got " + std::to_string(s.window));
  }
  if (s.max_keys > view_limits::max_window) {
    throw error(errc::invalid_argument, "the page's keys per window are at most " +
                                            std::to_string(view_limits::max_window) + ", got " +
                                            std::to_string(s.max_keys));
  }
  return s.max_keys == 0 ? age_partitioned_bloom::plan_params(s.window, s.target_fpr)
                         : age_partitioned_bloom::plan_time_params(s.window, s.max_keys, s.target_fpr);
}

/// The plan as JSON: k, l, m, g, tau, the FPR bound and the window's
/// guarantees, and whether the page can draw it (all k + l slices).
inline std::string plan_json(const age_partitioned_bloom& f) {
  const auto& p = f.params();
  const std::uint64_t bits = static_cast<std::uint64_t>(p.k + p.l) * p.slice_bits;
  return "{\"k\":" + std::to_string(p.k) + ",\"l\":" + std::to_string(p.l) + ",\"m\":" + std::to_string(p.slice_bits) +
         ",\"g\":" + std::to_string(p.generation_keys) + ",\"tau\":" + std::to_string(p.generation_time) +
         ",\"window\":" + std::to_string(p.window) + ",\"target_fpr\":" + json_number(p.target_fpr) +
         ",\"design_fpr\":" + json_number(f.design_fpr()) +
         ",\"expected_design_fpr\":" + json_number(f.expected_design_fpr()) +
         ",\"total_bits\":" + std::to_string(bits) + ",\"guaranteed_window\":" + std::to_string(f.guaranteed_window()) +
         ",\"expired_after\":" + std::to_string(f.expired_after()) +
         ",\"forgotten_after\":" + std::to_string(f.forgotten_after()) +
         ",\"guaranteed_time\":" + std::to_string(f.guaranteed_time()) +
         ",\"expired_time\":" + std::to_string(f.expired_time()) +
         ",\"forgotten_time\":" + std::to_string(f.forgotten_time()) +
         ",\"drawable\":" + (bits <= view_limits::max_window_bits ? "true" : "false") + "}";
}

/// The window view: one bloomkit::age_partitioned_bloom.
class window_view {
 public:
  /// plan_window, then the view's drawing bound ((k + l) m bits). Throws
  /// bloomkit::error.
  explicit window_view(const window_settings& s) : seed_(s.seed), filter_(plan_window(s)) {
    const auto& p = filter_.params();
    const std::uint64_t bits = static_cast<std::uint64_t>(p.k + p.l) * p.slice_bits;
    if (bits > view_limits::max_window_bits) {
      throw error(errc::invalid_argument, "the plan needs (k + l) m = " + std::to_string(bits) +
                                              " bits; the page draws at most " +
                                              std::to_string(view_limits::max_window_bits) +
                                              ": choose a smaller window or a larger FPR");
    }
  }

  /// Inserts the next `count` member keys (at most view_limits::max_batch),
  /// at the latest time seen for a time window.
  void insert(std::uint64_t count) {
    count = std::min(count, view_limits::max_batch);
    for (std::uint64_t c = 0; c < count; ++c) {
      const std::uint64_t key = member_key(seed_, next_);
      const std::uint64_t h = hash_key(key, filter_.hash());
      filter_.insert_hash(h);
      last_ = {"insert", next_, false, key, "inserted"};
      last_hash_ = h;
      times_.push_back(filter_.state().now);
      ++next_;
      log("i");
    }
  }
  /// Looks member key #i (or absent key #i) up: "maybe" or "no". A member
  /// key not inserted yet is refused with a sentence, changing nothing.
  std::string lookup(std::uint64_t i, bool absent) {
    if (!absent && i >= next_) return not_yet(i, next_);
    const std::uint64_t key = absent ? absent_key(seed_, i) : member_key(seed_, i);
    const std::uint64_t h = hash_key(key, filter_.hash());
    last_ = {"lookup", i, absent, key, filter_.may_contain_hash(h) ? "maybe" : "no"};
    last_hash_ = h;
    log((absent ? "a" : "q") + std::to_string(i));
    return last_.result;
  }
  /// Time windows: moves the clock on by `dt` (the library's advance_to,
  /// which clears the slices of every generation that ended). Returns "" or
  /// the library's sentence (a count window has no clock), changing nothing.
  std::string advance(std::uint64_t dt) {
    try {
      filter_.advance_to(filter_.state().now + dt);
    } catch (const error& e) {
      return e.what();
    }
    last_ = {"advance", dt, false, 0, ""};
    log("t" + std::to_string(dt));
    return "";
  }

  [[nodiscard]] const age_partitioned_bloom& filter() const noexcept { return filter_; }
  [[nodiscard]] std::uint64_t next_key() const noexcept { return next_; }
  [[nodiscard]] const std::string& ops() const noexcept { return ops_; }

  /// Everything the page draws, as one JSON object (field names as
  /// web/expected_views.cpp prints them).
  [[nodiscard]] std::string state_json() const {
    const auto& st = filter_.state();
    const std::uint32_t n = filter_.slices();
    std::string out = "{\"view\":\"window\",\"plan\":" + plan_json(filter_) + ",\"inserted\":" +
                      std::to_string(filter_.inserted()) + ",\"now\":" + std::to_string(st.now) +
                      ",\"newest\":" + std::to_string(st.newest) +
                      ",\"generation_count\":" + std::to_string(st.generation_count) +
                      ",\"overflowed\":" + std::to_string(filter_.overflowed_generations()) +
                      ",\"estimated_fpr\":" + json_number(filter_.estimated_fpr()) +
                      ",\"fill_ratio\":" + json_number(filter_.fill_ratio()) + ",\"slices\":[";
    for (std::uint32_t j = 0; j < n; ++j) {
      out += (j ? ",{\"set\":" : "{\"set\":") + std::to_string(filter_.slice_popcount(j)) + ",\"words\":\"";
      for (const std::uint64_t w : filter_.slice_words(j)) out += hex64(w);
      out += "\"}";
    }
    const std::uint64_t from = next_ > view_limits::max_listed_keys ? next_ - view_limits::max_listed_keys : 0;
    out += "],\"members_from\":" + std::to_string(from) + ",\"members\":\"";
    for (std::uint64_t i = from; i < next_; ++i) {
      out += filter_.may_contain_hash(hash_key(member_key(seed_, i), filter_.hash())) ? '1' : '0';
    }
    out += "\",\"member_times\":[";
    for (std::uint64_t i = from; i < next_; ++i) out += (i > from ? "," : "") + std::to_string(times_[i]);
    out += "],\"last\":{\"op\":\"" + last_.op + "\",\"index\":" + std::to_string(last_.index) +
           ",\"absent\":" + (last_.absent ? "true" : "false") + ",\"key\":\"" + hex64(last_.key) +
           "\",\"result\":\"" + last_.result + "\"";
    if (last_.op == "insert" || last_.op == "lookup") {
      std::vector<std::uint64_t> positions;
      filter_.slice_positions(last_hash_, positions);
      out += ",\"positions\":[";
      std::string hits;
      for (std::uint32_t j = 0; j < n; ++j) {
        out += (j ? "," : "") + std::to_string(positions[j]);
        hits += (filter_.slice_words(j)[positions[j] / 64] >> (positions[j] % 64)) & 1 ? '1' : '0';
      }
      const std::uint32_t run = filter_.answering_run_hash(last_hash_);
      out += "],\"hits\":\"" + hits + "\",\"run\":" + (run < n ? std::to_string(run) : std::string("-1"));
    }
    out += "}}";
    return out;
  }

 private:
  void log(const std::string& op) {
    if (!ops_.empty()) ops_ += ",";
    ops_ += op;
  }

  std::uint64_t seed_;
  age_partitioned_bloom filter_;
  std::uint64_t next_ = 0;
  std::vector<std::uint64_t> times_;  ///< the clock at each member key's insert
  view_action last_;
  std::uint64_t last_hash_ = 0;
  std::string ops_;
};

}  // namespace bloomkit::playground
