// tools/bloomkit/build.cpp - `bloomkit build`: keys from files or stdin into
// a filter file.
//
// Every input is opened exactly once, before any work. Passes over it:
//   * with --capacity N: one pass; keys are hashed and inserted in batches.
//   * without, from regular files only: a first pass hashes the keys into a
//     distinct_counter (distinct_count.hpp: exact below 4096 distinct keys,
//     else a KMV estimate plus two standard errors, at most the keys read:
//     the rule the Spark and Dask builds follow), the files are rewound, the
//     filter is sized for that capacity, and a second pass inserts (a file
//     whose key count changed in between is an error: nothing is written).
//   * without, when any input can be read only once (stdin, a pipe, a FIFO,
//     a process substitution such as <(seq 1 100)): the one pass hashes
//     the keys into a spool: in memory up to spool_memory_bytes (64 MiB, 8 Mi
//     keys), then in an unlinked temporary file in $TMPDIR (8 bytes a key,
//     usually far less than the keys' text), and into the distinct_counter.
//     The filter is then sized and filled from the spool. Memory stays the
//     filter plus fixed buffers.
// The output file is written by file_format's save (temporary file, fsync,
// rename), so an interrupted build never leaves a file under the output name.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/distinct_count.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/parallel_build.hpp"
#include "bloomkit/sizing.hpp"
#include "commands.hpp"
#include "filter_summary.hpp"
#include "json_out.hpp"
#include "key_input.hpp"
#include "kinds.hpp"
#include "output_guard.hpp"
#include "kmer_input.hpp"
#include "progress.hpp"
#include "time_window_input.hpp"

namespace bloomkit::cli {

namespace {

struct build_options {
  std::vector<std::string> inputs;
  std::string output;
  std::string kind = "blocked";
  double fpr = 0.01;
  std::optional<std::uint64_t> capacity;  // count_notation refuses "-5" before CLI11 could wrap it
  std::optional<std::uint64_t> bits;
  std::optional<std::uint32_t> hashes;
  std::optional<std::uint64_t> window;
  std::optional<std::int64_t> window_seconds;  // signed, so "-5" is refused, not wrapped
  unsigned kmer = 0;
  std::string format = "text";
  unsigned threads = 1;
  std::optional<std::string> hash;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> layout;  // --kind ribbon: standard or bumped
  bool json = false;
  bool quiet = false;
  bool stats = false;
};

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Where the time went, for --stats (the speed goal compares the whole run
/// with the filter's own insert time, measured here in the same run).
struct phase_times {
  double count = 0;      // first pass (line count), if any
  double construct = 0;  // sizing and allocating the filter (for a static kind: its whole construction)
  double insert = 0;     // inside insert_many only
  double total = 0;
  double save = 0;
};

/// Hashes gathered before one parallel insert with --threads > 1: the reader
/// hands over key_batch_size (2048) at a time, far too few to be worth
/// starting threads for (tens of microseconds each); 1 Mi hashes (8 MiB)
/// take milliseconds to insert.
inline constexpr std::size_t parallel_insert_hashes = std::size_t{1} << 20;

/// Adds one batch of hashes to the filter. THE call site for inserting. With
/// threads > 1, the kinds that support it are filled by insert_parallel
/// (parallel_build.hpp): the words are partitioned between the threads, and
/// the result is bit-identical to the single-threaded insert_many, so
/// --threads never changes the output file. Other kinds (counting,
/// scalable) insert on one thread. Static kinds (binary fuse, ribbon) never
/// get here: kind_traits<F>::is_static sends them to build_static_filter.
template <class Filter>
void insert_batch(Filter& filter, std::span<const std::uint64_t> hashes, unsigned threads) {
  if constexpr (parallel_insertable<Filter>) {
    if (threads > 1) {
      insert_parallel(filter, hashes, threads);
      return;
    }
  }
  if constexpr (fallible_insert<Filter>) {
    // A multiset, as the library's insert: a key read d times is stored d
    // times (d removes take it out). Storing a key only when absent would
    // lose keys that are false positives of others, and a later remove of
    // those others would make them false negatives. A full table is an
    // error, not a silent loss: nothing is written.
    const std::size_t done = filter.try_insert_many(hashes);
    if (done < hashes.size()) {
      throw error(errc::construction_failed,
                  "the " + std::string(kind_traits<Filter>::cli_name) + " filter is full after " + std::to_string(filter.inserted()) + " keys (load " +
                      std::to_string(filter.load_factor()) + " of " + std::to_string(filter.slots()) +
                      " slots; a key repeated more than 8 times also fills its buckets); give a larger --capacity "
                      "or remove duplicates first (sort -u)");
    }
  } else if constexpr (incremental_filter<Filter>) {
    filter.insert_many(hashes);
  } else {
    throw error(errc::unsupported, "this filter kind is built from all keys at once (kind_traits<F>::is_static)");
  }
}

/// Hashes of stdin kept for a second look: memory first, then a temp file.
class hash_spool {
 public:
  static constexpr std::size_t spool_memory_bytes = std::size_t{64} << 20;

  /// $BLOOMKIT_SPOOL_BYTES, if set, lowers the memory part (the tests use it
  /// to reach the temporary file without millions of keys).
  hash_spool() {
    if (const char* env = std::getenv("BLOOMKIT_SPOOL_BYTES"); env != nullptr && *env != '\0') {
      const unsigned long long bytes = std::strtoull(env, nullptr, 10);
      memory_hashes_ = std::clamp<std::size_t>(static_cast<std::size_t>(bytes) / sizeof(std::uint64_t), 1,
                                               spool_memory_bytes / sizeof(std::uint64_t));
    }
  }
  hash_spool(const hash_spool&) = delete;
  hash_spool& operator=(const hash_spool&) = delete;
  ~hash_spool() {
    if (fd_ >= 0) ::close(fd_);
  }

  void push(std::span<const std::uint64_t> hashes) {
    for (;;) {
      const std::size_t room = memory_hashes_ - memory_.size();
      const std::size_t take = std::min(room, hashes.size());
      memory_.insert(memory_.end(), hashes.begin(), hashes.begin() + static_cast<std::ptrdiff_t>(take));
      hashes = hashes.subspan(take);
      count_ += take;
      if (hashes.empty()) return;
      flush_to_file();
    }
  }

  [[nodiscard]] std::uint64_t size() const noexcept { return count_; }

  /// Calls sink(span) for every spooled hash, in batches.
  template <class Sink>
  void replay(Sink&& sink) {
    if (fd_ >= 0) {
      if (::lseek(fd_, 0, SEEK_SET) < 0) throw error(errc::io, "cannot rewind the spool file: " + errno_text());
      std::vector<std::uint64_t> batch(std::size_t{1} << 16);
      for (;;) {
        const ssize_t got = read_full(batch.data(), batch.size() * sizeof(std::uint64_t));
        if (got <= 0) break;
        sink(std::span<const std::uint64_t>(batch.data(), static_cast<std::size_t>(got) / sizeof(std::uint64_t)));
      }
    }
    for (std::size_t i = 0; i < memory_.size(); i += key_batch_size) {
      sink(std::span<const std::uint64_t>(memory_).subspan(i, std::min(key_batch_size, memory_.size() - i)));
    }
  }

 private:
  static std::string errno_text() { return std::strerror(errno); }

  void flush_to_file() {
    if (fd_ < 0) {
      const char* dir = std::getenv("TMPDIR");
      std::string templ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/bloomkit-spool-XXXXXX";
      fd_ = ::mkstemp(templ.data());
      if (fd_ < 0) throw error(errc::io, "cannot create a spool file in " + templ + ": " + errno_text());
      ::unlink(templ.c_str());  // gone from the directory; freed when closed
    }
    const char* p = reinterpret_cast<const char*>(memory_.data());
    std::size_t left = memory_.size() * sizeof(std::uint64_t);
    while (left > 0) {
      const ssize_t put = ::write(fd_, p, left);
      if (put < 0) {
        if (errno == EINTR) continue;
        throw error(errc::io, "cannot write the spool file (stdin keys too many for $TMPDIR?): " + errno_text());
      }
      p += put;
      left -= static_cast<std::size_t>(put);
    }
    memory_.clear();
  }

  ssize_t read_full(void* out, std::size_t bytes) {
    auto* p = static_cast<char*>(out);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t got = ::read(fd_, p + done, bytes - done);
      if (got < 0) {
        if (errno == EINTR) continue;
        throw error(errc::io, "cannot read the spool file: " + errno_text());
      }
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return static_cast<ssize_t>(done);
  }

  std::size_t memory_hashes_ = spool_memory_bytes / sizeof(std::uint64_t);
  std::vector<std::uint64_t> memory_;
  std::uint64_t count_ = 0;
  int fd_ = -1;
};

/// Every input, opened once, in order. A pipe, FIFO or process substitution
/// can be opened and read only once (opening a FIFO a second time waits for
/// a new writer; a pipe read by a counting pass is empty afterwards), so each
/// input is opened here and nowhere else, and a second pass happens only when
/// every input can be rewound.
struct opened_inputs {
  std::vector<std::unique_ptr<line_reader>> readers;
  std::uint64_t total_bytes = 0;  // for the progress bar; 0 when unknown
  bool all_rewindable = true;

  explicit opened_inputs(const std::vector<std::string>& paths) {
    bool sizes_known = true;
    for (const auto& path : paths) {
      readers.push_back(std::make_unique<line_reader>(path));
      const line_reader& r = *readers.back();
      all_rewindable = all_rewindable && r.rewindable();
      sizes_known = sizes_known && r.rewindable();
      total_bytes += r.size_hint();
    }
    if (!sizes_known) total_bytes = 0;
  }
};

/// Reads every input in order, calling sink(hashes, lines) per batch.
template <class Sink>
std::uint64_t read_all(opened_inputs& inputs, key_hasher& hasher, progress_bar& bar, Sink&& sink) {
  std::uint64_t keys = 0;
  std::uint64_t bytes_before = 0;
  for (auto& reader : inputs.readers) {
    keys += for_each_key_batch(
        *reader, hasher, sink, [&](std::uint64_t bytes, std::uint64_t k) { bar.update(bytes_before + bytes, k); },
        keys);
    bytes_before += reader->bytes_read();
  }
  return keys;
}

/// Binary fuse fingerprints are 8 or 16 bits (kind_traits<binary_fuse>::
/// fpr_bits picks the narrower one meeting --fpr): a target between 2^-8
/// and 2^-15 costs the 16-bit width, about 18 bits per key, where Ribbon
/// needs about 1.05 ceil(log2(1/p)) and a standard filter 1.44 log2(1/p).
/// The user asked for this kind, so it is built; a note says what it costs.
void note_static_width(const kind_entry& entry, double fpr) {
  if (entry.kind != filter_kind::binary_fuse || fpr >= 1.0 / 256 || fpr <= std::ldexp(1.0, -15)) return;
  const double r = std::ceil(-std::log2(fpr) - 1e-9);
  std::fprintf(stderr,
               "bloomkit: note: binary fuse fingerprints are 8 or 16 bits; --fpr %g needs 16 (about 18 bits per key, "
               "FPR 0.0015%%). --kind ribbon meets it with about %.1f bits per key, --kind standard with %.1f\n",
               fpr, 1.05 * r, sizing::bits_per_key_for(fpr));
}

/// --kind window --window N --window-seconds T: a time window of T seconds
/// for up to N keys per window (plan_time_params with the unit seconds), over TIME<TAB>KEY
/// lines (time_window_input.hpp: the rules, shared with dedupe). Each key
/// is inserted at its time (insert_hash_at), so the filter's clock ends at
/// the last time read and the file holds it. One pass, no spool: the
/// filter is sized by N and T, not by counting. A bad line is an error
/// naming the file and line (exit 2), with nothing written. Returns the
/// keys read.
std::uint64_t fill_time_window(opened_inputs& inputs, key_hasher& hasher, age_partitioned_bloom& filter,
                               progress_bar& bar) {
  std::uint64_t keys = 0;
  std::uint64_t bytes_before = 0;
  std::uint64_t latest = filter.state().now;
  for (auto& reader : inputs.readers) {
    for_each_timed_line(
        *reader, hasher, latest,
        [&](std::uint64_t time, std::uint64_t h, std::string_view) {
          filter.insert_hash_at(h, time);
          ++keys;
        },
        [&] { bar.update(bytes_before + reader->bytes_read(), keys); });
    bytes_before += reader->bytes_read();
  }
  return keys;
}

/// Refuses (usage error, exit 1) a filter larger than this machine's memory,
/// naming the bytes it would need, instead of letting the allocation fail
/// with a bare std::bad_alloc. The estimate is the standard filter's bits
/// per key (every incremental kind needs about that or more; counting 4x).
void check_fits_in_memory(const kind_entry& entry, std::uint64_t capacity, double fpr) {
  const double per_key = sizing::bits_per_key_for(fpr) * (entry.kind == filter_kind::counting_bloom ? 4.0 : 1.0);
  const double bytes = static_cast<double>(capacity) * per_key / 8.0;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return;
  const double memory = static_cast<double>(pages) * static_cast<double>(page_size);
  if (bytes <= memory) return;
  char message[320];
  std::snprintf(message, sizeof message,
                "--capacity %llu at --fpr %g needs about %.3g bytes (%.3g GiB) for --kind %s; this machine has "
                "%.3g GiB of memory. Use a smaller --capacity (or a larger --fpr), or build per partition and merge.",
                static_cast<unsigned long long>(capacity), fpr, bytes, bytes / 1073741824.0,
                std::string(entry.cli_name).c_str(), memory / 1073741824.0);
  throw usage_error(message);
}

int run_build(const build_options& o) {
  const auto start = clock_type::now();
  const kind_entry& entry = find_kind(o.kind);
  const kind_info info = info_of(entry.kind);
  check_kmer_options(o.format, o.kmer);
  const bool sequences = o.kmer != 0;
  const key_format format = sequences ? key_format::u64 : parse_key_format(o.format);
  if (entry.kind == filter_kind::age_partitioned_bloom) {
    if (!o.window) throw usage_error("--kind window needs --window N (the number of recent keys to remember)");
    if (*o.window == 0) throw usage_error("--window must be at least 1");
    if (o.capacity) throw usage_error("--kind window is sized by --window, not --capacity");
  } else if (o.window) {
    throw usage_error("--window applies to --kind window only");
  }
  check_window_seconds(entry.kind, o.window_seconds, sequences);
  if (!(o.fpr > 0.0 && o.fpr < 1.0)) throw usage_error("--fpr must be in (0, 1)");
  if (o.capacity && *o.capacity == 0) {
    throw usage_error("--capacity must be at least 1, got " + std::to_string(*o.capacity));
  }
  if (o.bits && *o.bits == 0) throw usage_error("--bits must be at least 1");
  if (o.hashes && *o.hashes == 0) throw usage_error("--hashes must be at least 1");
  if ((o.bits || o.hashes) && !has_exact_parameters(entry.kind)) {
    throw usage_error("--bits and --hashes apply to --kind standard, blocked, split-block and counting, not " +
                      std::string(entry.cli_name));
  }
  if (o.threads == 0) throw usage_error("--threads must be at least 1");
  if (o.layout && entry.kind != filter_kind::ribbon) {
    throw usage_error("--layout applies to --kind ribbon only, not " + std::string(entry.cli_name));
  }
  if (o.layout && *o.layout != "standard" && *o.layout != "bumped") {
    throw usage_error("--layout must be standard or bumped, got \"" + *o.layout + "\"");
  }
  const bool bumped = o.layout && *o.layout == "bumped";
  hash_spec spec = info.default_hash;
  if (o.hash) spec.algorithm = hash_algorithm_argument(*o.hash);
  if (o.seed) spec.seed = *o.seed;
  // The file records what its keys are (docs/KEYS.md): text and hex keys are
  // bytes, u64 / i64 / int keys int64, f64 keys float64. K-mers are hashed
  // from their 2-bit packing, a bloomkit encoding of its own: left untyped.
  if (!sequences) spec.keys = key_type_of(format);

  std::vector<std::string> inputs = o.inputs.empty() ? std::vector<std::string>{"-"} : o.inputs;
  int stdin_uses = 0;
  for (const auto& path : inputs) stdin_uses += path == "-" ? 1 : 0;
  if (stdin_uses > 1) throw usage_error("stdin (-) can be an input only once");

  check_output(o.output, inputs);
  opened_inputs opened(inputs);  // opens (and so checks) every input before any work
  const std::uint64_t total_bytes = opened.total_bytes;
  key_hasher hasher(format, spec);
  phase_times times;
  std::uint64_t keys = 0;

  std::optional<any_filter> filter;
  std::optional<std::uint64_t> counted;  // keys found by a counting pass
  distinct_counter distinct;             // of the keys of an incremental kind
  if (o.window_seconds) {
    // ---- a time window: sized by --window and --window-seconds, one pass ---
    const auto t = clock_type::now();
    filter.emplace(std::in_place_type<age_partitioned_bloom>,
                   age_partitioned_bloom::plan_time_params(static_cast<std::uint64_t>(*o.window_seconds), *o.window,
                                                           o.fpr, spec, apbf_time_unit::seconds));
    auto& w = std::get<age_partitioned_bloom>(*filter);
    times.construct = seconds_since(t);
    progress_bar bar("build", total_bytes, !o.quiet);
    const auto t_insert = clock_type::now();
    keys = fill_time_window(opened, hasher, w, bar);
    times.insert = seconds_since(t_insert);
    bar.finish();
  } else if (info.is_static) {
    // Static kinds: the stored width fixes the FPR at 2^-f, so --fpr picks the
    // narrowest width at or below it (kind_traits<F>::fpr_bits).
    if (o.fpr < min_fpr_of(entry.kind)) {
      refuse_fpr_target(entry, o.capacity.value_or(1), o.fpr, "its fingerprints reach FPR 2^-16 (1.53e-05) at best", "");
    }
    note_static_width(entry, o.fpr);
    // ---- a static kind: every hash in memory, then one construction ----------
    std::vector<std::uint64_t> all;
    if (o.capacity) all.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*o.capacity, std::uint64_t{1} << 24)));
    progress_bar bar("read", total_bytes, !o.quiet);
    if (sequences) {
      for (const auto& path : inputs) {
        keys += for_each_kmer_record(
            path, o.format, o.kmer, spec, [](std::string_view, std::span<const std::uint64_t>) {},
            [&](std::span<const std::uint64_t> hashes) { all.insert(all.end(), hashes.begin(), hashes.end()); });
      }
    } else {
      keys = read_all(opened, hasher, bar, [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view>) {
        all.insert(all.end(), hashes.begin(), hashes.end());
      });
    }
    bar.finish();
    const auto t = clock_type::now();
    if (bumped) {
      // The bumped Ribbon (BuRR): the same FPR 2^-r in about 1 % more than
      // r bits per key instead of 5 % (ribbon.hpp).
      ribbon_options options;
      options.hash = spec;
      options.result_bits = kind_traits<ribbon>::fpr_bits(o.fpr);
      options.layout = ribbon_layout::bumped;
      filter.emplace(std::in_place_type<ribbon>, ribbon(all, options));
    } else {
      filter.emplace(build_static_filter(entry.kind, all, o.fpr, spec));
    }
    times.construct = seconds_since(t);
  } else {
    // ---- size the filter -----------------------------------------------------
    // A capacity is a number of distinct keys (distinct_count.hpp), except
    // for a kind that holds every insert (a multiset, stores_repeats) and a count
    // window, which forgets by insert count: those count inserts.
    const auto capacity_of_input = [&](std::uint64_t inserts) {
      return info.stores_repeats ? inserts : distinct.capacity();
    };
    std::optional<hash_spool> spool;
    std::uint64_t capacity = 0;
    if (sequences) {
      // k-mers: one pass over the records into the spool (8 bytes a k-mer),
      // then size and fill; the same path for files and stdin.
      spool.emplace();
      for (const auto& path : inputs) {
        keys += for_each_kmer_record(
            path, o.format, o.kmer, spec, [](std::string_view, std::span<const std::uint64_t>) {},
            [&](std::span<const std::uint64_t> hashes) {
              spool->push(hashes);
              distinct.add(hashes);
            });
      }
      capacity = o.window ? *o.window : o.capacity ? static_cast<std::uint64_t>(*o.capacity) : capacity_of_input(keys);
    } else if (o.window) {
      capacity = *o.window;
    } else if (o.capacity) {
      capacity = static_cast<std::uint64_t>(*o.capacity);
      if (!o.bits) {
        // Before reading anything: a size this machine cannot hold, or a
        // target the kind reaches only with far too many bits, is a usage error.
        check_fits_in_memory(entry, capacity, o.fpr);
        check_fpr_reachable(entry, capacity, o.fpr);
      }
    } else if (opened.all_rewindable) {
      // Regular files only: count the distinct keys, then read them again.
      const auto t = clock_type::now();
      progress_bar bar("count", total_bytes, !o.quiet);
      counted = read_all(opened, hasher, bar, [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view>) {
        distinct.add(hashes);
      });
      for (auto& reader : opened.readers) reader->rewind();
      capacity = capacity_of_input(*counted);
      times.count = seconds_since(t);
    } else {
      // Some input can be read only once (stdin, a pipe, a FIFO): one pass
      // into the spool.
      spool.emplace();
      progress_bar bar("read", total_bytes, !o.quiet);
      keys = read_all(opened, hasher, bar, [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view>) {
        spool->push(hashes);
        distinct.add(hashes);
      });
      capacity = capacity_of_input(keys);
    }

    // The formulas need n >= 1; an empty input gives an empty filter sized for one key.
    capacity = std::max<std::uint64_t>(capacity, 1);
    const auto t_construct = clock_type::now();
    if (o.bits || o.hashes) {
      filter.emplace(make_exact_filter(entry.kind, o.bits.value_or(0), o.hashes.value_or(0), capacity, o.fpr, spec));
    } else {
      if (!o.capacity) {
        check_fits_in_memory(entry, capacity, o.fpr);
        check_fpr_reachable(entry, capacity, o.fpr);
      }
      filter.emplace(make_filter(entry.kind, capacity, o.fpr, spec));
    }
    times.construct = seconds_since(t_construct);

    // ---- fill it -------------------------------------------------------------
    std::visit(
        [&](auto& f) {
          auto insert_now = [&](std::span<const std::uint64_t> hashes) {
            const auto t = clock_type::now();
            insert_batch(f, hashes, o.threads);
            times.insert += seconds_since(t);
          };
          // --threads > 1: gather parallel_insert_hashes before each insert.
          std::vector<std::uint64_t> pending;
          auto insert = [&](std::span<const std::uint64_t> hashes) {
            if (o.threads <= 1) return insert_now(hashes);
            if (pending.capacity() == 0) pending.reserve(parallel_insert_hashes);
            pending.insert(pending.end(), hashes.begin(), hashes.end());
            if (pending.size() >= parallel_insert_hashes) {
              insert_now(pending);
              pending.clear();
            }
          };
          if (spool) {
            spool->replay(insert);
          } else {
            progress_bar bar("build", total_bytes, !o.quiet);
            keys = read_all(opened, hasher, bar,
                            [&](std::span<const std::uint64_t> hashes, std::span<const std::string_view>) {
                              // the warning past --capacity counts distinct keys (else the counting pass did)
                              if (o.capacity && !info.stores_repeats) distinct.add(hashes);
                              insert(hashes);
                            });
          }
          if (!pending.empty()) insert_now(pending);
        },
        *filter);
  }

  // A file that changed between the counting pass and the insert pass (a
  // log still being written) gives a filter sized for other keys: refuse it
  // rather than exit 0 with fewer or more keys than were counted.
  if (counted && keys != *counted) {
    throw error(errc::io, "the input changed while it was read: " + std::to_string(*counted) +
                              " lines when counted, then " + std::to_string(keys) +
                              " keys; nothing was written (copy a growing file first)");
  }

  // ---- report, then write ------------------------------------------------------
  // --json's summary goes to stdout BEFORE the file is committed: if stdout
  // cannot take it (a full disk), the build fails with nothing written, so
  // a non-zero exit always means no output file (main checks stdout).
  const filter_summary summary = summarize(*filter);
  if (o.json) {
    json_object line = summary_json(summary);
    line.field("file", o.output).field("keys_read", keys);
    std::fputs(line.line().c_str(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      throw error(errc::io, "cannot write to stdout (the --json summary); " + o.output + " was not written");
    }
  }
  // Past capacity means more distinct keys than --capacity (a repeat costs
  // nothing); an estimate counts only when it is over by two standard errors.
  // The warning's text is made before the save: nothing allocates once the
  // file is committed, so a failure after it cannot exit non-zero.
  const bool is_static = info.is_static;  // holds exactly its keys: never past capacity
  const double held = info.stores_repeats ? static_cast<double>(keys) : distinct.at_least();
  const bool past_capacity = o.capacity && !is_static && !o.window_seconds && held > static_cast<double>(*o.capacity);
  const std::string read_text =
      info.stores_repeats ? std::to_string(keys) + " keys read"
                          : std::string(distinct.exact() ? "" : "about ") +
                                std::to_string(static_cast<unsigned long long>(std::llround(distinct.count()))) +
                                " distinct keys read (" + std::to_string(keys) + " in all)";
  const auto t_save = clock_type::now();
  save(*filter, o.output);
  times.save = seconds_since(t_save);
  times.total = seconds_since(start);

  if (keys == 0) {
    std::fprintf(stderr, "bloomkit: warning: no keys read; %s is an empty filter (sized for 1 key)\n",
                 o.output.c_str());
  }
  if (o.window_seconds) {
    const auto& w = std::get<age_partitioned_bloom>(*filter);
    if (w.overflowed_generations() != 0) {
      std::fprintf(stderr,
                   "bloomkit: warning: %llu generations of %llu seconds filled up (more than %llu keys each) before "
                   "their time ended: more keys than --window %llu arrived within %lld seconds, so keys before them "
                   "were forgotten early (the last %llu keys are still always reported, and the FPR bound holds)\n",
                   static_cast<unsigned long long>(w.overflowed_generations()),
                   static_cast<unsigned long long>(w.params().generation_time),
                   static_cast<unsigned long long>(w.params().generation_keys),
                   static_cast<unsigned long long>(*o.window), static_cast<long long>(*o.window_seconds),
                   static_cast<unsigned long long>(w.guaranteed_window()));
    }
  }
  if (past_capacity && info.grows && !summary.saturated) {
    // A scalable filter grows instead of saturating: say so, do not warn.
    if (!o.quiet) {
      std::fprintf(stderr,
                   "bloomkit: %s, more than --capacity %llu: the scalable filter grew new stages; "
                   "its estimated FPR is %.4g%% (target %.4g%%)\n",
                   read_text.c_str(), static_cast<unsigned long long>(*o.capacity), 100 * summary.estimated_fpr,
                   100 * o.fpr);
    }
  } else if (past_capacity) {
    std::fprintf(stderr,
                 "bloomkit: warning: %s but --capacity is %llu: the filter is past its design capacity; "
                 "its estimated FPR is now %.4g%% (target %.4g%%)\n",
                 read_text.c_str(), static_cast<unsigned long long>(*o.capacity), 100 * summary.estimated_fpr,
                 100 * o.fpr);
  }
  if (!o.json && !o.quiet) {
    std::fprintf(stderr, "bloomkit: wrote %s: %s, %llu keys, %llu bytes, %.2f bits/key, estimated FPR %.4g%%\n",
                 o.output.c_str(), summary.kind.c_str(), static_cast<unsigned long long>(keys),
                 static_cast<unsigned long long>(summary.size_bytes),
                 keys > 0 ? static_cast<double>(summary.size_bytes) * 8 / static_cast<double>(keys) : 0.0,
                 100 * summary.estimated_fpr);
  }
  if (o.stats) {
    std::fprintf(stderr,
                 "bloomkit: stats: keys %llu, total %.3f s, count pass %.3f s, construct %.3f s, insert_many %.3f s, "
                 "save %.3f s, read+parse+hash %.3f s\n",
                 static_cast<unsigned long long>(keys), times.total, times.count, times.construct, times.insert,
                 times.save, times.total - times.count - times.construct - times.insert - times.save);
  }
  return exit_ok;
}

}  // namespace

void register_build(CLI::App& app, command_table& table) {
  auto o = std::make_shared<build_options>();
  CLI::App* sub = app.add_subcommand("build", "Build a filter file from keys, one per line, in files or stdin");
  sub->footer(
      "Examples:\n"
      "  bloomkit build keys.txt -o keys.bkf --fpr 0.001\n"
      "  seq 1 1000000 | bloomkit build --format u64 --kind split-block -o ids.bkf\n"
      "  bloomkit build a.txt b.txt --capacity 5000000 --kind standard -o ab.bkf --json\n"
      "  bloomkit build genome.fa --format fasta --kmer 31 -o genome.bkf\n"
      "  bloomkit build events.txt --kind window --window 100000 -o recent.bkf\n"
      "  bloomkit build events.tsv --kind window --window 100000 --window-seconds 3600 -o last-hour.bkf\n"
      "  bloomkit build keys.txt --kind cuckoo -o keys.bkf   # then: bloomkit remove keys.bkf old-key\n\n"
      "Keys: text = the line's bytes; hex = bytes as hex digits; u64 = a decimal integer hashed as 8\n"
      "little-endian bytes; i64 = a signed decimal integer, 8 bytes two's complement (Parquet INT64).\n"
      "One trailing \\r is dropped from every line (CRLF files work).\n"
      "Without --capacity the distinct keys are counted first (exact below 4096, else a KMV\n"
      "estimate plus two standard errors, at most the lines read; cuckoo counts every line): a\n"
      "second pass over regular files; stdin, pipes and FIFOs are read once, spooled as 8-byte\n"
      "hashes, in memory up to 64 MiB, then in $TMPDIR. The output may not be one of the inputs.");
  sub->add_option("inputs", o->inputs, "key files; - or nothing reads stdin");
  sub->add_option("-o,--output", o->output, "the filter file to write (appears only when complete)")->required();
  sub->add_option("-k,--kind", o->kind, "filter kind: " + kind_names() + " (default blocked)");
  sub->add_option("-p,--fpr", o->fpr, "target false-positive rate in (0, 1) (default 0.01)");
  sub->add_option("-n,--capacity", o->capacity, "design number of distinct keys, e.g. 5000000 or 5e6 (default: count the input's distinct keys)")
      ->transform(count_notation());
  sub->add_option("--bits", o->bits,
                  "exact size in bits (counters for counting; rounded up to whole blocks); the design point is then "
                  "--capacity or the keys counted, at the FPR the formula gives")
      ->transform(count_notation());
  sub->add_option("--hashes", o->hashes,
                  "exact probes per key (k) for standard, blocked and counting; with --bits, or alone to size for "
                  "--fpr with this k");
  sub->add_option("-f,--format", o->format,
                  "key format: text, hex, u64, i64, int, f64, or fasta / fastq with --kmer K (default text); the file "
                  "records the keys' type (text, hex: bytes; u64, i64, int: int64; f64: float64) and query / remove "
                  "read it");
  sub->add_option("--kmer", o->kmer,
                  "with --format fasta|fastq: the keys are the canonical K-mers (K in 1..32) of every record; "
                  "non-ACGT letters break k-mers, lower case counts")
      ->check(CLI::Range(1u, 32u));  // 0 is no K, not "no --kmer"
  sub->add_option("--window", o->window,
                  "--kind window: remember the last N keys (older ones are forgotten); with --window-seconds, the "
                  "most keys any window of that many seconds holds")
      ->transform(count_notation());
  sub->add_option("--window-seconds", o->window_seconds,
                  "--kind window: a time window of T seconds instead of N keys: every line is TIME<TAB>KEY (TIME in "
                  "whole seconds, e.g. Unix time, never decreasing); keys older than T seconds are forgotten. Query "
                  "it at a time with `bloomkit query --at TIME`");
  sub->add_option("-t,--threads", o->threads, "threads for inserting standard, blocked and split-block filters (default 1); the file is the same for any count");
  sub->add_option("--hash", o->hash, "hash algorithm: xxh3_64 or xxh64 (default: xxh64 for split-block, else xxh3_64)");
  sub->add_option("--seed", o->seed, "hash seed (default 0)");
  sub->add_option("--layout", o->layout,
                  "--kind ribbon: standard (default; about 1.05 r bits per key) or bumped (BuRR: about 1.01 r bits "
                  "per key, the same FPR 2^-r, written as format version 4)");
  sub->add_flag("--json", o->json, "print a summary of the filter as one JSON object on stdout");
  sub->add_flag("-q,--quiet", o->quiet, "no progress bar, no summary line");
  sub->add_flag("--stats", o->stats,
                "print where the time went (count pass, construct, insert_many, save, the rest) on stderr");
  table.emplace_back(sub, [o] { return run_build(*o); });
}

}  // namespace bloomkit::cli
