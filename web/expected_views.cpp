// web/expected_views.cpp - what the playground's cuckoo and window views must
// show, computed natively from the library alone.
//
// It does not include web/views.hpp: it replays the view's operation log
// with bloomkit::cuckoo_filter / bloomkit::age_partitioned_bloom directly,
// walking the key stream in order with bloomkit::splitmix64 (member key i is
// output 2i, absent key j output 2j + 1), so a slip in the view (its key
// numbering, its log, a state it forgets to update) or in the wasm build
// shows up as a mismatch in web/tests/views.test.mjs.
//
//   expected_views --view cuckoo --capacity N --fpr P --seed S [--ops OPS]
//   expected_views --view window --window N [--max-keys K] --fpr P --seed S [--ops OPS]
//
// OPS: comma-separated "i" (insert the next member key), "qI" / "aJ" (look
// up member key I / absent key J), "dI" (cuckoo: delete member key I), "tD"
// (window: advance the clock by D). Prints one JSON object (the view's
// state_json fields); a library error (bad parameters) prints
// {"error": the library's message}. Bad arguments: a message on stderr and
// exit status 2.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "expected_views: %s\nusage: expected_views --view cuckoo|window [--capacity N | --window N "
               "[--max-keys K]] --fpr P --seed S [--ops OPS]\n",
               why.c_str());
  std::exit(2);
}

struct options {
  std::string view, ops;
  std::uint64_t capacity = 0, window = 0, max_keys = 0, seed = 1;
  double fpr = 0.05;
};

std::uint64_t parse_u64(const std::string& name, const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) {
    usage(name + " needs a non-negative integer, got \"" + text + "\"");
  }
  return std::stoull(text);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage("missing value after " + arg);
    const std::string value = argv[++i];
    if (arg == "--view") o.view = value;
    else if (arg == "--capacity") o.capacity = parse_u64(arg, value);
    else if (arg == "--window") o.window = parse_u64(arg, value);
    else if (arg == "--max-keys") o.max_keys = parse_u64(arg, value);
    else if (arg == "--seed") o.seed = parse_u64(arg, value);
    else if (arg == "--fpr") o.fpr = std::strtod(value.c_str(), nullptr);
    else if (arg == "--ops") o.ops = value;
    else usage("unknown option " + arg);
  }
  if (o.view != "cuckoo" && o.view != "window") usage("--view must be cuckoo or window");
  return o;
}

/// One operation of the log: its letter and number.
struct op {
  char code;
  std::uint64_t value;
};
std::vector<op> parse_ops(const std::string& text) {
  std::vector<op> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, end - at);
    if (part.empty() || std::string("iqadt").find(part[0]) == std::string::npos) usage("bad op \"" + part + "\"");
    out.push_back({part[0], part.size() > 1 ? parse_u64("an op", part.substr(1)) : 0});
    at = end + 1;
  }
  return out;
}

/// The seed's SplitMix64 stream, walked in order and kept.
class stream {
 public:
  explicit stream(std::uint64_t seed) : gen_(seed) {}
  std::uint64_t member(std::uint64_t i) { return output(2 * i); }
  std::uint64_t absent(std::uint64_t j) { return output(2 * j + 1); }

 private:
  std::uint64_t output(std::uint64_t c) {
    while (outputs_.size() <= c) outputs_.push_back(gen_());
    return outputs_[c];
  }
  bloomkit::splitmix64 gen_;
  std::vector<std::uint64_t> outputs_;
};

std::string num(double value) {
  if (!(value == value) || value > 1e308 || value < -1e308) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}
std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int cuckoo(const options& o) {
  bloomkit::cuckoo_filter filter(o.capacity, o.fpr);
  const auto& p = filter.params();
  stream keys(o.seed);
  std::uint64_t next = 0, last_index = 0, last_key = 0;
  std::vector<bool> live;
  std::vector<bloomkit::cuckoo_move> moves;
  std::string last_op, result;
  bool last_absent = false;
  for (const op& x : parse_ops(o.ops)) {
    moves.clear();
    last_absent = x.code == 'a';
    last_index = x.code == 'i' ? next : x.value;
    last_key = last_absent ? keys.absent(x.value) : keys.member(last_index);
    const std::uint64_t h = bloomkit::hash_key(last_key, p.hash);
    if (x.code == 'i') {
      last_op = "insert";
      const auto r = filter.insert_hash_traced(h, moves);
      result = std::string(bloomkit::to_string(r));
      if (r == bloomkit::insert_result::inserted) {
        live.push_back(true);
        ++next;
      }
    } else if (x.code == 'q' || x.code == 'a') {
      if (x.code == 'q' && x.value >= next) usage("the log looks up a key not inserted yet");
      last_op = "lookup";
      result = filter.may_contain_hash(h) ? "maybe" : "no";
    } else if (x.code == 'd') {
      if (x.value >= next || !live[x.value]) usage("the log deletes a key that is not in");
      last_op = "remove";
      result = filter.remove_hash(h) == bloomkit::remove_result::removed ? "removed" : "absent";
      live[x.value] = false;
    } else {
      usage("a cuckoo log has no clock");
    }
  }
  // Before any action the view shows no address (all zero).
  struct {
    std::uint64_t first = 0, second = 0;
    std::uint32_t fingerprint = 0;
  } a;
  if (!last_op.empty()) {
    const std::uint64_t h = bloomkit::hash_key(last_key, p.hash);
    std::vector<std::uint64_t> buckets;
    filter.probe_positions(h, buckets);
    a = {buckets[0], buckets[1], filter.fingerprint_of_hash(h)};
  }
  std::string out = "{\"view\":\"cuckoo\",\"capacity\":" + std::to_string(p.capacity) + ",\"target_fpr\":" +
                    num(p.target_fpr) + ",\"buckets\":" + std::to_string(p.buckets) +
                    ",\"fingerprint_bits\":" + std::to_string(p.fingerprint_bits) +
                    ",\"stored\":" + std::to_string(filter.inserted()) + ",\"slots\":" + std::to_string(filter.slots()) +
                    ",\"load_factor\":" + num(filter.load_factor()) + ",\"estimated_fpr\":" + num(filter.estimated_fpr()) +
                    ",\"design_fpr\":" + num(filter.design_fpr()) + ",\"full_load_fpr\":" + num(filter.full_load_fpr()) +
                    ",\"bits_per_key\":" + num(filter.bits_per_key()) + ",\"full\":" + (filter.full() ? "true" : "false") +
                    ",\"victim\":[" + std::to_string(filter.victim().bucket) + "," +
                    std::to_string(filter.victim().fingerprint) + "],\"next_key\":" + std::to_string(next) + ",\"table\":[";
  for (std::uint64_t b = 0; b < p.buckets; ++b) {
    for (std::uint32_t j = 0; j < 4; ++j) out += (b + j > 0 ? "," : "") + std::to_string(filter.slot_fingerprint(b, j));
  }
  out += "],\"members\":\"";
  for (std::uint64_t i = 0; i < next; ++i) out += !live[i] ? '-' : filter.may_contain(keys.member(i)) ? '1' : '0';
  out += "\",\"last\":{\"op\":\"" + last_op + "\",\"index\":" + std::to_string(last_index) +
         ",\"absent\":" + (last_absent ? "true" : "false") + ",\"key\":\"" + hex(last_key) + "\",\"result\":\"" +
         result + "\",\"fingerprint\":" + std::to_string(a.fingerprint) + ",\"first\":" + std::to_string(a.first) +
         ",\"second\":" + std::to_string(a.second) + ",\"moves\":[";
  for (std::size_t m = 0; m < moves.size(); ++m) {
    out += (m ? ",[" : "[") + std::to_string(moves[m].bucket) + "," + std::to_string(moves[m].slot) + "," +
           std::to_string(moves[m].fingerprint) + "," + std::to_string(moves[m].evicted) + "]";
  }
  std::printf("%s]}}\n", out.c_str());
  return 0;
}

int window(const options& o) {
  bloomkit::age_partitioned_bloom filter(o.max_keys == 0
                                             ? bloomkit::age_partitioned_bloom::plan_params(o.window, o.fpr)
                                             : bloomkit::age_partitioned_bloom::plan_time_params(o.window, o.max_keys,
                                                                                                 o.fpr));
  const auto& p = filter.params();
  const std::uint32_t n = p.k + p.l;
  stream keys(o.seed);
  std::uint64_t next = 0, last_index = 0, last_key = 0;
  std::vector<std::uint64_t> times;
  std::string last_op, result;
  bool last_absent = false;
  for (const op& x : parse_ops(o.ops)) {
    if (x.code == 't') {
      filter.advance_to(filter.state().now + x.value);
      last_op = "advance";
      last_index = x.value;
      last_absent = false;
      last_key = 0;
      result.clear();
      continue;
    }
    last_absent = x.code == 'a';
    last_index = x.code == 'i' ? next : x.value;
    last_key = last_absent ? keys.absent(x.value) : keys.member(last_index);
    if (x.code == 'i') {
      filter.insert(last_key);
      times.push_back(filter.state().now);
      ++next;
      last_op = "insert";
      result = "inserted";
    } else if (x.code == 'q' || x.code == 'a') {
      if (x.code == 'q' && x.value >= next) usage("the log looks up a key not inserted yet");
      last_op = "lookup";
      result = filter.may_contain(last_key) ? "maybe" : "no";
    } else {
      usage("a window log has no deletes");
    }
  }
  const std::uint64_t bits = std::uint64_t{n} * p.slice_bits;
  std::string out = "{\"view\":\"window\",\"plan\":{\"k\":" + std::to_string(p.k) + ",\"l\":" + std::to_string(p.l) +
                    ",\"m\":" + std::to_string(p.slice_bits) + ",\"g\":" + std::to_string(p.generation_keys) +
                    ",\"tau\":" + std::to_string(p.generation_time) + ",\"window\":" + std::to_string(p.window) +
                    ",\"target_fpr\":" + num(p.target_fpr) + ",\"design_fpr\":" + num(filter.design_fpr()) +
                    ",\"expected_design_fpr\":" + num(filter.expected_design_fpr()) +
                    ",\"total_bits\":" + std::to_string(bits) +
                    ",\"guaranteed_window\":" + std::to_string(filter.guaranteed_window()) +
                    ",\"expired_after\":" + std::to_string(filter.expired_after()) +
                    ",\"forgotten_after\":" + std::to_string(filter.forgotten_after()) +
                    ",\"guaranteed_time\":" + std::to_string(filter.guaranteed_time()) +
                    ",\"expired_time\":" + std::to_string(filter.expired_time()) +
                    ",\"forgotten_time\":" + std::to_string(filter.forgotten_time()) +
                    ",\"drawable\":" + (bits <= 65536 ? "true" : "false") + "},\"inserted\":" +
                    std::to_string(filter.inserted()) + ",\"now\":" + std::to_string(filter.state().now) +
                    ",\"newest\":" + std::to_string(filter.state().newest) +
                    ",\"generation_count\":" + std::to_string(filter.state().generation_count) +
                    ",\"overflowed\":" + std::to_string(filter.overflowed_generations()) +
                    ",\"estimated_fpr\":" + num(filter.estimated_fpr()) + ",\"fill_ratio\":" + num(filter.fill_ratio()) +
                    ",\"slices\":[";
  for (std::uint32_t j = 0; j < n; ++j) {
    out += (j ? ",{\"set\":" : "{\"set\":") + std::to_string(filter.slice_popcount(j)) + ",\"words\":\"";
    for (const std::uint64_t w : filter.slice_words(j)) out += hex(w);
    out += "\"}";
  }
  const std::uint64_t from = next > 4000 ? next - 4000 : 0;
  out += "],\"members_from\":" + std::to_string(from) + ",\"members\":\"";
  for (std::uint64_t i = from; i < next; ++i) out += filter.may_contain(keys.member(i)) ? '1' : '0';
  out += "\",\"member_times\":[";
  for (std::uint64_t i = from; i < next; ++i) out += (i > from ? "," : "") + std::to_string(times[i]);
  out += "],\"last\":{\"op\":\"" + last_op + "\",\"index\":" + std::to_string(last_index) +
         ",\"absent\":" + (last_absent ? "true" : "false") + ",\"key\":\"" + hex(last_key) + "\",\"result\":\"" +
         result + "\"";
  if (last_op == "insert" || last_op == "lookup") {
    const std::uint64_t h = bloomkit::hash_key(last_key, p.hash);
    std::vector<std::uint64_t> positions;
    filter.slice_positions(h, positions);
    std::string hits;
    out += ",\"positions\":[";
    for (std::uint32_t j = 0; j < n; ++j) {
      out += (j ? "," : "") + std::to_string(positions[j]);
      hits += (filter.slice_words(j)[positions[j] / 64] >> (positions[j] % 64)) & 1 ? '1' : '0';
    }
    const std::uint32_t run = filter.answering_run_hash(h);
    out += "],\"hits\":\"" + hits + "\",\"run\":" + (run < n ? std::to_string(run) : std::string("-1"));
  }
  std::printf("%s}}\n", out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    return o.view == "cuckoo" ? cuckoo(o) : window(o);
  } catch (const bloomkit::error& e) {
    std::printf("{\"error\":%s}\n", quoted(e.what()).c_str());
    return 0;
  }
}
