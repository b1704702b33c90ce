// web/bindings.cpp - the WebAssembly face of the playground (embind).
//
// A thin shell over playground::driver (web/playground.hpp), which drives a
// real bloomkit filter. JavaScript gets plain numbers, strings and typed-array
// views of buffers owned here; it draws them and computes nothing about the
// filter. 64-bit values (seeds, keys) cross as decimal or hex text because a
// JavaScript number holds only 53 bits; counts cross as doubles (exact below
// 2^53, and every count here is below 2^32).
#include <emscripten/bind.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "file_view.hpp"
#include "playground.hpp"
#include "views.hpp"

namespace {

using bloomkit::playground::driver;
using bloomkit::playground::limits;
using bloomkit::playground::settings;

using bloomkit::playground::hex64;

/// The object the page holds: a driver plus the buffers whose memory views JavaScript reads.
class web_playground {
 public:
  /// Starts with the page's defaults (standard, m = 1024, k = 3, n = 200,
  /// seed 1), so every method is usable before the first configure().
  web_playground() : driver_(std::make_unique<driver>(settings{})) {}

  /// Starts a new run at tick 0. Returns "" on success, else the library's
  /// sentence saying which setting is wrong (the previous run is kept).
  /// Never throws into JavaScript.
  std::string configure(const std::string& kind, double bits, double k, double n, const std::string& seed) {
    try {
      const auto parsed_kind = bloomkit::playground::parse_kind(kind);
      if (!parsed_kind) {
        return std::string("kind must be one of ") + bloomkit::playground::supported_kinds() + ", got \"" + kind + "\"";
      }
      settings s;
      s.kind = *parsed_kind;
      s.bits = to_count(bits, "m (bits)");
      s.k = static_cast<std::uint32_t>(std::min<std::uint64_t>(to_count(k, "k (hash functions)"), 1u << 30));
      s.n = to_count(n, "n (keys to insert)");
      s.seed = bloomkit::playground::parse_seed(seed);
      auto next = std::make_unique<driver>(s);
      driver_ = std::move(next);
      return "";
    } catch (const bloomkit::error& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("could not start the filter: ") + e.what();
    }
  }

  void step(double count) { driver_->step(count > 0 ? static_cast<std::uint64_t>(count) : 0); }
  void seek(double tick) { driver_->seek(tick > 0 ? static_cast<std::uint64_t>(tick) : 0); }
  /// Back to tick 0, removals forgotten (the page's Reset).
  void reset() { driver_->reset(); }
  /// Keeps n; returns the keys the run now inserts (driver::saturate).
  double saturate() { return static_cast<double>(driver_->saturate()); }
  bool saturating() const { return driver_->saturating(); }
  double inserts() const { return static_cast<double>(driver_->inserts()); }

  /// Counting only: removes the oldest key still in; false if none (driver::remove_oldest).
  bool remove_oldest() { return driver_->remove_oldest(); }
  bool can_remove() const { return driver_->can_remove(); }
  double removed() const { return static_cast<double>(driver_->removed()); }
  double insert_calls() const { return static_cast<double>(driver_->insert_calls()); }
  /// The removals' ticks as the link spells them: decimal, joined by ".".
  std::string removals() const {
    std::string out;
    for (const auto t : driver_->removal_ticks()) {
      if (!out.empty()) out += ".";
      out += std::to_string(t);
    }
    return out;
  }
  /// Sets the removals from the link's spelling (see removals()) and replays
  /// to the current tick. Returns "" or the sentence saying what is wrong
  /// (nothing changed then).
  std::string set_removals(const std::string& text) {
    try {
      std::vector<std::uint64_t> ticks;
      std::size_t at = 0;
      while (at < text.size()) {
        const std::size_t end = std::min(text.find('.', at), text.size());
        const std::string part = text.substr(at, end - at);
        if (part.empty() || part.size() > 15 || part.find_first_not_of("0123456789") != std::string::npos) {
          return "removals must be tick numbers joined by \".\", got \"" + text + "\"";
        }
        ticks.push_back(std::stoull(part));
        at = end + 1;
        if (end + 1 == text.size()) return "removals must not end with \".\"";
      }
      driver_->set_removals(std::move(ticks));
      return "";
    } catch (const bloomkit::error& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("could not apply the removals: ") + e.what();
    }
  }
  std::string last_removed_key() const { return hex64(driver_->last_removed_key()); }
  emscripten::val last_removed_bits() const {
    const auto& bits = driver_->last_removed_bits();
    return emscripten::val(emscripten::typed_memory_view(bits.size(), bits.data()));
  }

  /// The FPR-against-k chart for the current m, n and seed, flattened: k,
  /// measured, model, repeated for k = 1 .. maxK; for split-block one more
  /// triple, the split-block filter's own point (k = 8). Computed once per
  /// (kind family, m, n, seed): it costs maxK * n inserts.
  emscripten::val k_chart() {
    const auto& s = driver_->current();
    const bool split = s.kind == bloomkit::filter_kind::split_block_bloom;
    if (!k_chart_key_ || k_chart_key_->bits != s.bits || k_chart_key_->n != s.n || k_chart_key_->seed != s.seed ||
        k_chart_split_ != split) {
      k_chart_.clear();
      for (const auto& p : bloomkit::playground::fpr_by_k(s.bits, s.n, s.seed)) {
        k_chart_.insert(k_chart_.end(), {static_cast<double>(p.k), p.measured, p.model});
      }
      if (split) {
        const auto p = bloomkit::playground::split_block_point(s.bits, s.n, s.seed);
        k_chart_.insert(k_chart_.end(), {static_cast<double>(p.k), p.measured, p.model});
      }
      k_chart_key_ = s;
      k_chart_split_ = split;
    }
    return emscripten::val(emscripten::typed_memory_view(k_chart_.size(), k_chart_.data()));
  }

  std::string kind() const { return bloomkit::playground::page_name(driver_->current().kind); }
  double bits() const { return static_cast<double>(driver_->current().bits); }
  double k() const { return driver_->current().k; }
  double n() const { return static_cast<double>(driver_->current().n); }
  std::string seed() const { return std::to_string(driver_->current().seed); }
  double tick() const { return static_cast<double>(driver_->tick()); }
  double total_ticks() const { return static_cast<double>(driver_->total_ticks()); }
  double inserted() const { return static_cast<double>(driver_->inserted()); }
  double set_bits() const { return static_cast<double>(driver_->set_bit_count()); }
  double queries() const { return static_cast<double>(driver_->queries()); }
  double false_positives() const { return static_cast<double>(driver_->false_positives()); }
  double predicted_fpr() const { return driver_->predicted_fpr(); }
  double model_fpr() const { return driver_->model_fpr(); }
  double probe_fpr() const { return driver_->probe_fpr(); }
  double estimated_keys() const { return driver_->estimated_keys(); }
  bool saturated() const { return driver_->saturated(); }
  int last_answer() const { return static_cast<int>(driver_->last_answer()); }
  std::string last_insert_key() const { return hex64(driver_->last_insert_key()); }
  std::string last_query_key() const { return hex64(driver_->last_query_key()); }

  /// The bit array as 32-bit words (bit i = bit i % 32 of word i / 32). The
  /// view stays valid until the next call into this object.
  emscripten::val words() {
    words_ = driver_->words32();
    return emscripten::val(emscripten::typed_memory_view(words_.size(), words_.data()));
  }
  emscripten::val last_insert_bits() const {
    const auto& bits = driver_->last_insert_bits();
    return emscripten::val(emscripten::typed_memory_view(bits.size(), bits.data()));
  }
  emscripten::val last_query_bits() const {
    const auto& bits = driver_->last_query_bits();
    return emscripten::val(emscripten::typed_memory_view(bits.size(), bits.data()));
  }
  /// The counting kind's counters (0..15), one byte each; empty otherwise.
  emscripten::val counters() {
    counters_ = driver_->counters();
    return emscripten::val(emscripten::typed_memory_view(counters_.size(), counters_.data()));
  }
  /// Chart points flattened: inserted, measured, predicted, model, repeated.
  emscripten::val chart() {
    chart_.clear();
    for (const auto& p : driver_->chart()) chart_.insert(chart_.end(), {p.inserted, p.measured, p.predicted, p.model});
    return emscripten::val(emscripten::typed_memory_view(chart_.size(), chart_.data()));
  }

 private:
  /// A whole, non-negative number from JavaScript (NaN, fractions, negatives
  /// and values past 2^53 are refused with a sentence naming the setting).
  static std::uint64_t to_count(double value, const char* name) {
    if (!(value >= 0.0 && value <= 9007199254740992.0) || value != static_cast<double>(static_cast<std::uint64_t>(value))) {
      throw bloomkit::error(bloomkit::errc::invalid_argument, std::string(name) + " must be a whole number");
    }
    return static_cast<std::uint64_t>(value);
  }

  std::unique_ptr<driver> driver_;
  std::optional<settings> k_chart_key_;
  bool k_chart_split_ = false;
  std::vector<double> k_chart_;
  std::vector<std::uint32_t> words_;
  std::vector<std::uint8_t> counters_;
  std::vector<double> chart_;
};

/// A whole, non-negative number from JavaScript (see web_playground::to_count).
std::uint64_t count_of(double value, const char* name) {
  if (!(value >= 0.0 && value <= 9007199254740992.0) || value != static_cast<double>(static_cast<std::uint64_t>(value))) {
    throw bloomkit::error(bloomkit::errc::invalid_argument, std::string(name) + " must be a whole number");
  }
  return static_cast<std::uint64_t>(value);
}

/// The cuckoo view (web/views.hpp) for the page: every call returns a
/// sentence or a JSON text and never throws into JavaScript.
class web_cuckoo {
 public:
  /// Starts with the page's defaults (capacity 24 at 5 %, seed 1).
  web_cuckoo() : view_(std::make_unique<bloomkit::playground::cuckoo_view>(24, 0.05, 1)) {}
  /// A new, empty filter planned by the library for (capacity, FPR). Returns
  /// "" or the library's (or the page's) sentence; the old filter stays then.
  std::string configure(double capacity, double fpr, const std::string& seed) {
    try {
      auto next = std::make_unique<bloomkit::playground::cuckoo_view>(count_of(capacity, "capacity"), fpr,
                                                                      bloomkit::playground::parse_seed(seed));
      view_ = std::move(next);
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string insert_next() { return view_->insert_next(); }
  std::string lookup(double index, bool absent) {
    try {
      return view_->lookup(count_of(index, "key number"), absent);
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string remove(double index) {
    try {
      return view_->remove(count_of(index, "key number"));
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string state() const { return view_->state_json(); }
  std::string ops() const { return view_->ops(); }

 private:
  std::unique_ptr<bloomkit::playground::cuckoo_view> view_;
};

/// The window view (web/views.hpp) for the page; as web_cuckoo.
class web_window {
 public:
  /// Starts with the page's defaults (the last 60 keys at 5 %, seed 1).
  web_window() : view_(std::make_unique<bloomkit::playground::window_view>(bloomkit::playground::window_settings{})) {}
  /// The library's plan for a window (max_keys 0: a count window of
  /// `window` keys; else a time window of `window` time units for up to
  /// max_keys keys), as JSON, or {"error": sentence}. Changes nothing.
  std::string plan(double window, double max_keys, double fpr) const {
    try {
      const bloomkit::age_partitioned_bloom filter(bloomkit::playground::plan_window(settings_of(window, max_keys, fpr, "1")));
      return bloomkit::playground::plan_json(filter);
    } catch (const std::exception& e) {
      std::string quoted;
      for (const char c : std::string(e.what())) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
      }
      return "{\"error\":\"" + quoted + "\"}";
    }
  }
  /// A new, empty filter with that plan. Returns "" or the sentence; the
  /// old filter stays then.
  std::string configure(double window, double max_keys, double fpr, const std::string& seed) {
    try {
      auto next = std::make_unique<bloomkit::playground::window_view>(settings_of(window, max_keys, fpr, seed));
      view_ = std::move(next);
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string insert(double count) {
    try {
      view_->insert(count_of(count, "keys to insert"));
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string lookup(double index, bool absent) {
    try {
      return view_->lookup(count_of(index, "key number"), absent);
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string advance(double dt) {
    try {
      return view_->advance(count_of(dt, "time step"));
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  std::string state() const { return view_->state_json(); }
  std::string ops() const { return view_->ops(); }

 private:
  static bloomkit::playground::window_settings settings_of(double window, double max_keys, double fpr,
                                                           const std::string& seed) {
    bloomkit::playground::window_settings s;
    s.window = count_of(window, "window");
    s.max_keys = count_of(max_keys, "keys per window");
    s.target_fpr = fpr;
    s.seed = bloomkit::playground::parse_seed(seed);
    return s;
  }
  std::unique_ptr<bloomkit::playground::window_view> view_;
};

/// The file view (web/file_view.hpp) for the page: a .bkf file's bytes in,
/// sentences and JSON out; never throws into JavaScript.
class web_file {
 public:
  /// Opens the file whose bytes JavaScript read (a Uint8Array crosses as a
  /// std::string of those bytes). Returns "" or the library's sentence for a
  /// file it refuses; the previous file is dropped either way, so a refused
  /// file never leaves another file's figures on the page.
  std::string open(const std::string& bytes) {
    view_.reset();
    try {
      const auto* first = reinterpret_cast<const std::byte*>(bytes.data());
      view_ = std::make_unique<bloomkit::playground::file_view>(std::span<const std::byte>(first, bytes.size()));
      return "";
    } catch (const std::bad_alloc&) {
      return "the file does not fit in the page's memory (" + std::to_string(bytes.size()) + " bytes)";
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  bool loaded() const { return view_ != nullptr; }
  /// file_view::summary_json(), or "null" with no file open.
  std::string summary() const { return view_ ? view_->summary_json() : "null"; }
  /// {"answer": "maybe" or "no"}, or {"error": the library's sentence} for
  /// a key the file's key type refuses (or no file open).
  std::string probe(const std::string& key) const {
    if (!view_) return "{\"error\":\"no file is open\"}";
    try {
      return std::string("{\"answer\":\"") + (view_->may_contain(key) ? "maybe" : "no") + "\"}";
    } catch (const std::exception& e) {
      return "{\"error\":" + bloomkit::playground::json_string(e.what()) + "}";
    }
  }

 private:
  std::unique_ptr<bloomkit::playground::file_view> view_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(bloomkit_playground) {
  using namespace emscripten;
  class_<web_playground>("Playground")
      .constructor<>()
      .function("configure", &web_playground::configure)
      .function("step", &web_playground::step)
      .function("seek", &web_playground::seek)
      .function("reset", &web_playground::reset)
      .function("saturate", &web_playground::saturate)
      .function("saturating", &web_playground::saturating)
      .function("inserts", &web_playground::inserts)
      .function("removeOldest", &web_playground::remove_oldest)
      .function("canRemove", &web_playground::can_remove)
      .function("removed", &web_playground::removed)
      .function("insertCalls", &web_playground::insert_calls)
      .function("removals", &web_playground::removals)
      .function("setRemovals", &web_playground::set_removals)
      .function("lastRemovedKey", &web_playground::last_removed_key)
      .function("lastRemovedBits", &web_playground::last_removed_bits)
      .function("kChart", &web_playground::k_chart)
      .function("kind", &web_playground::kind)
      .function("bits", &web_playground::bits)
      .function("k", &web_playground::k)
      .function("n", &web_playground::n)
      .function("seed", &web_playground::seed)
      .function("tick", &web_playground::tick)
      .function("totalTicks", &web_playground::total_ticks)
      .function("inserted", &web_playground::inserted)
      .function("setBits", &web_playground::set_bits)
      .function("queries", &web_playground::queries)
      .function("falsePositives", &web_playground::false_positives)
      .function("predictedFpr", &web_playground::predicted_fpr)
      .function("modelFpr", &web_playground::model_fpr)
      .function("probeFpr", &web_playground::probe_fpr)
      .function("estimatedKeys", &web_playground::estimated_keys)
      .function("saturated", &web_playground::saturated)
      .function("lastAnswer", &web_playground::last_answer)
      .function("lastInsertKey", &web_playground::last_insert_key)
      .function("lastQueryKey", &web_playground::last_query_key)
      .function("words", &web_playground::words)
      .function("lastInsertBits", &web_playground::last_insert_bits)
      .function("lastQueryBits", &web_playground::last_query_bits)
      .function("counters", &web_playground::counters)
      .function("chart", &web_playground::chart);
  class_<web_cuckoo>("CuckooView")
      .constructor<>()
      .function("configure", &web_cuckoo::configure)
      .function("insertNext", &web_cuckoo::insert_next)
      .function("lookup", &web_cuckoo::lookup)
      .function("remove", &web_cuckoo::remove)
      .function("state", &web_cuckoo::state)
      .function("ops", &web_cuckoo::ops);
  class_<web_window>("WindowView")
      .constructor<>()
      .function("plan", &web_window::plan)
      .function("configure", &web_window::configure)
      .function("insert", &web_window::insert)
      .function("lookup", &web_window::lookup)
      .function("advance", &web_window::advance)
      .function("state", &web_window::state)
      .function("ops", &web_window::ops);
  class_<web_file>("FileView")
      .constructor<>()
      .function("open", &web_file::open)
      .function("loaded", &web_file::loaded)
      .function("summary", &web_file::summary)
      .function("probe", &web_file::probe);
  constant("kinds", bloomkit::playground::supported_kinds());
  constant("maxBits", static_cast<double>(limits::max_bits));
  constant("minBits", static_cast<double>(limits::min_bits));
  constant("maxK", static_cast<double>(limits::max_k));
  constant("maxN", static_cast<double>(limits::max_n));
  constant("queryTicks", static_cast<double>(limits::query_ticks));
  constant("probeKeys", static_cast<double>(limits::probe_keys));
  constant("kChartProbeKeys", static_cast<double>(limits::k_chart_probe_keys));
}
