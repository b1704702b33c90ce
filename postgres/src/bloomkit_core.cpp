// postgres/src/bloomkit_core.cpp - the library side of the PostgreSQL
// extension: values in, filters and answers out, exceptions never out
// (bloomkit_core.h states the contract; docs/POSTGRES.md the behaviour).
//
// Invariants:
//   * every extern "C" function is noexcept in effect: its body runs inside
//     guarded(), which turns each exception into a bk_status;
//   * keys are converted by docs/KEYS.md before they are hashed, and the
//     bytes hashed are exactly the ones the CLI and Python hash for the same
//     logical key (8 bytes little-endian for every integer, the IEEE bits of a
//     double, text as its UTF-8 bytes, ...);
//   * a filter past PostgreSQL's value limit is refused from its planned
//     parameters, before its words are allocated.
#include "bloomkit_core.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
// The one list of `bloomkit info --json` fields (the CLI's header-only summary).
#include "../../tools/bloomkit/filter_summary.hpp"
#include "../../tools/bloomkit/json_out.hpp"

// A named namespace, not an anonymous one: fuzz/postgres_input_fuzz.cpp includes this file,
// and bk_reader (global, for the C interface) holds these types.
namespace bloomkit_pg {

using namespace bloomkit;

// ---- errors -------------------------------------------------------------------

void set_status(bk_status* status, int code, const char* message) noexcept {
  if (status == nullptr) return;
  status->code = code;
  std::snprintf(status->message, sizeof status->message, "%s", message);
}

int code_of(errc code) noexcept {
  switch (code) {
    case errc::invalid_argument: return BK_E_INVALID;
    case errc::mismatch:
    case errc::hash_mismatch: return BK_E_MISMATCH;
    case errc::truncated:
    case errc::corrupt:
    case errc::checksum:
    case errc::unsupported_version:
    case errc::unknown_kind: return BK_E_CORRUPT;
    case errc::out_of_memory: return BK_E_MEMORY;
    case errc::io:
    case errc::construction_failed:
    case errc::unsupported: break;
  }
  return BK_E_INTERNAL;
}

/// A failure of this file's own checks (not the library's).
struct pg_error {
  int code;
  std::string message;
};

/// Runs fn(), turning every exception into `status` (and -1); 0 on success.
template <class Fn>
int guarded(bk_status* status, Fn&& fn) noexcept {
  try {
    fn();
    if (status != nullptr) status->code = BK_OK;
    return 0;
  } catch (const pg_error& e) {
    set_status(status, e.code, e.message.c_str());
  } catch (const bloomkit::error& e) {
    set_status(status, code_of(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    set_status(status, BK_E_MEMORY, "bloomkit: out of memory");
  } catch (const std::exception& e) {
    set_status(status, BK_E_INTERNAL, e.what());
  } catch (...) {
    set_status(status, BK_E_INTERNAL, "bloomkit: unknown failure");
  }
  return -1;
}

// ---- bytes --------------------------------------------------------------------

/// Little-endian stores and loads (docs/FORMAT.md's byte order, whatever the host's).
template <std::unsigned_integral T>
void put_le(std::byte* out, T value) noexcept {
  for (std::size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<std::byte>(value >> (8 * i));
}
template <std::unsigned_integral T>
T get_le(const std::byte* in) noexcept {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(static_cast<T>(in[i]) << (8 * i));
  return value;
}

std::span<const std::byte> as_bytes(const void* data, std::size_t size) {
  return {static_cast<const std::byte*>(data), size};
}

/// 64-byte aligned bytes (the alignment of a blocked filter's words, the
/// largest any kind needs), freed with the aligned operator delete.
struct aligned_delete {
  void operator()(std::byte* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
};
using aligned_bytes = std::unique_ptr<std::byte[], aligned_delete>;

aligned_bytes aligned_copy(std::span<const std::byte> bytes) {
  aligned_bytes out(static_cast<std::byte*>(::operator new[](std::max<std::size_t>(bytes.size(), 1), std::align_val_t{64})));
  if (!bytes.empty()) std::memcpy(out.get(), bytes.data(), bytes.size());
  return out;
}

/// The file's header length (docs/FORMAT.md: u32 at offset 24); only for
/// bytes that passed validation.
std::size_t header_length(std::span<const std::byte> bytes) {
  return bytes.size() >= 28 ? get_le<std::uint32_t>(bytes.data() + 24) : bytes.size();
}

/// Calls fn(view) with a zero-copy view of the filter in `bytes`, in place
/// when they are 64-byte aligned, else over one aligned copy.
template <class Fn>
decltype(auto) with_view(std::span<const std::byte> bytes, Fn&& fn) {
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 64 == 0) return fn(view(bytes));
  const aligned_bytes copy = aligned_copy(bytes);
  return fn(view(std::span<const std::byte>(copy.get(), bytes.size())));
}

/// A std::streambuf writing into a fixed buffer (save() into memory the
/// caller allocated, without a second copy). Writing past the end fails the stream.
class fixed_buffer : public std::streambuf {
 public:
  fixed_buffer(void* out, std::size_t size) {
    char* first = static_cast<char*>(out);
    setp(first, first + size);
  }
  [[nodiscard]] std::size_t written() const noexcept { return static_cast<std::size_t>(pptr() - pbase()); }
};

// ---- keys ---------------------------------------------------------------------

const char* value_words(int tag) noexcept {
  switch (tag) {
    case BK_VALUE_INT: return "an integer";
    case BK_VALUE_FLOAT: return "a floating-point number";
    case BK_VALUE_BYTES: return "text or bytes";
    case BK_VALUE_TIMESTAMP: return "a timestamp";
    case BK_VALUE_DATE: return "a date";
    default: return "an unknown value";
  }
}

key_type natural_type(int tag) {
  switch (tag) {
    case BK_VALUE_INT: return key_type::int64;
    case BK_VALUE_FLOAT: return key_type::float64;
    case BK_VALUE_BYTES: return key_type::bytes;
    case BK_VALUE_TIMESTAMP: return key_type::timestamp_us;
    case BK_VALUE_DATE: return key_type::date32;
    default: break;
  }
  throw pg_error{BK_E_INTERNAL, "bloomkit: unknown value tag " + std::to_string(tag)};
}

/// The bytes a key hashes as in a filter of type `target` (docs/KEYS.md's
/// conversion table), or errc::mismatch naming both types.
struct key_bytes {
  std::byte buffer[8];
  const void* data = nullptr;
  std::size_t size = 0;

  template <std::unsigned_integral T>
  void fixed(T value) {
    put_le(buffer, value);
    data = buffer;
    size = sizeof(T);
  }
};

/// errc::mismatch for a value that does not go into a `target` filter: of
/// another family (text into int64), or a number that is not exactly one of
/// the target's (42.5 into int64, 2^60 into float64).
[[noreturn]] void refuse(key_type target, const bk_value& v) {
  const bool numeric_target = target == key_type::int64 || target == key_type::float64 ||
                              target == key_type::int32 || target == key_type::float32;
  const bool numeric_value = v.tag == BK_VALUE_INT || v.tag == BK_VALUE_FLOAT ||
                             (v.tag == BK_VALUE_DATE && target == key_type::int32);
  const bool same_family = (numeric_target && numeric_value) || natural_type(v.tag) == target;
  throw error(errc::mismatch, "bloomkit: the filter holds " + std::string(to_string(target)) + " keys; got " +
                                  value_words(v.tag) +
                                  (same_family ? " that is not exactly one of them"
                                               : ", which never converts into them (docs/KEYS.md)"));
}

key_bytes encode(const bk_value& v, key_type target) {
  key_bytes out;
  if (target == key_type::unspecified) target = natural_type(v.tag);
  constexpr double two53 = 9007199254740992.0;
  constexpr double two63 = 9223372036854775808.0;
  const bool integral_float = v.tag == BK_VALUE_FLOAT && std::isfinite(v.f) && std::trunc(v.f) == v.f;
  switch (target) {
    case key_type::bytes:
      if (v.tag != BK_VALUE_BYTES) refuse(target, v);
      out.data = v.data;
      out.size = v.size;
      return out;
    case key_type::int64:
      if (v.tag == BK_VALUE_INT) {
        out.fixed(static_cast<std::uint64_t>(v.i));
      } else if (integral_float && v.f >= -two63 && v.f < two63) {
        out.fixed(static_cast<std::uint64_t>(static_cast<std::int64_t>(v.f)));
      } else {
        refuse(target, v);
      }
      return out;
    case key_type::float64:
      if (v.tag == BK_VALUE_FLOAT) {
        out.fixed(std::bit_cast<std::uint64_t>(v.f));
      } else if (v.tag == BK_VALUE_INT && v.i >= -static_cast<std::int64_t>(two53) &&
                 v.i <= static_cast<std::int64_t>(two53)) {
        out.fixed(std::bit_cast<std::uint64_t>(static_cast<double>(v.i)));
      } else {
        refuse(target, v);
      }
      return out;
    case key_type::int32:
      if (v.tag == BK_VALUE_INT || v.tag == BK_VALUE_DATE) {
        if (v.i < std::numeric_limits<std::int32_t>::min() || v.i > std::numeric_limits<std::int32_t>::max()) {
          refuse(target, v);
        }
        out.fixed(static_cast<std::uint32_t>(static_cast<std::int32_t>(v.i)));
      } else if (integral_float && v.f >= -2147483648.0 && v.f <= 2147483647.0) {
        out.fixed(static_cast<std::uint32_t>(static_cast<std::int32_t>(v.f)));
      } else {
        refuse(target, v);
      }
      return out;
    case key_type::float32:
      if (v.tag == BK_VALUE_FLOAT) {
        const auto narrow = static_cast<float>(v.f);
        // Exactly a float32: the same number (NaN: the same bits once widened back).
        const bool exact = std::isnan(v.f) ? std::bit_cast<std::uint64_t>(static_cast<double>(narrow)) ==
                                                 std::bit_cast<std::uint64_t>(v.f)
                                           : static_cast<double>(narrow) == v.f;
        if (!exact) refuse(target, v);
        out.fixed(std::bit_cast<std::uint32_t>(narrow));
      } else if (v.tag == BK_VALUE_INT && v.i >= -(1 << 24) && v.i <= (1 << 24)) {
        out.fixed(std::bit_cast<std::uint32_t>(static_cast<float>(v.i)));
      } else {
        refuse(target, v);
      }
      return out;
    case key_type::timestamp_us:
      if (v.tag != BK_VALUE_TIMESTAMP) refuse(target, v);
      out.fixed(static_cast<std::uint64_t>(v.i));
      return out;
    case key_type::date32:
      if (v.tag != BK_VALUE_DATE || v.i < std::numeric_limits<std::int32_t>::min() ||
          v.i > std::numeric_limits<std::int32_t>::max()) {
        refuse(target, v);
      }
      out.fixed(static_cast<std::uint32_t>(static_cast<std::int32_t>(v.i)));
      return out;
    case key_type::unspecified: break;
  }
  throw pg_error{BK_E_INTERNAL, "bloomkit: unknown key type"};
}

std::uint64_t hash_value(const bk_value& v, hash_spec spec) {
  const key_bytes k = encode(v, spec.keys);
  return hash_bytes(k.data, k.size, spec);
}

// ---- kinds --------------------------------------------------------------------

/// "split-block", "split_block_bloom", "Split-Block" all read the same.
std::string normalized(std::string_view name) {
  std::string out;
  for (const char c : name) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The kinds bloom_agg builds: the incremental ones that merge by OR, so that
/// partial filters of parallel workers combine into the serial result.
constexpr filter_kind aggregate_kinds[] = {filter_kind::blocked_bloom, filter_kind::standard_bloom,
                                           filter_kind::split_block_bloom, filter_kind::counting_bloom};

/// The CLI's name of a kind ("split-block" for split_block_bloom).
std::string cli_name(filter_kind kind) {
  switch (kind) {
    case filter_kind::standard_bloom: return "standard";
    case filter_kind::blocked_bloom: return "blocked";
    case filter_kind::split_block_bloom: return "split-block";
    case filter_kind::counting_bloom: return "counting";
    default: break;
  }
  return normalized(to_string(kind));
}

filter_kind parse_kind(const char* name) {
  if (name == nullptr) return filter_kind::blocked_bloom;
  const std::string wanted = normalized(name);
  std::string names;
  for (const filter_kind k : aggregate_kinds) {
    if (wanted == cli_name(k) || wanted == normalized(to_string(k))) return k;
    names += (names.empty() ? "" : ", ") + cli_name(k);
  }
  throw pg_error{BK_E_INVALID, "bloomkit: bloom_agg cannot build kind \"" + std::string(name) +
                                   "\"; it builds the kinds that merge: " + names};
}

std::uint64_t words_bytes(std::uint64_t bits) { return (bits + 63) / 64 * 8; }

/// The file size a (kind, capacity, fpr) filter will have, from its planned
/// parameters alone (nothing allocated). The header is at most a few hundred
/// bytes; 4096 bounds it.
std::uint64_t planned_file_bytes(filter_kind kind, std::uint64_t capacity, double fpr, hash_spec spec) {
  std::uint64_t payload = 0;
  switch (kind) {
    case filter_kind::standard_bloom: payload = words_bytes(standard_bloom::plan_params(capacity, fpr, spec).bits); break;
    case filter_kind::counting_bloom: payload = words_bytes(counting_bloom::plan_params(capacity, fpr, spec).counters * 4); break;
    case filter_kind::blocked_bloom: payload = blocked_bloom::plan_params(capacity, fpr, spec).blocks * 64; break;
    case filter_kind::split_block_bloom: payload = split_block_bloom::plan_params(capacity, fpr, spec).blocks * 32; break;
    default: throw pg_error{BK_E_INTERNAL, "bloomkit: not an aggregate kind"};
  }
  return payload + 4096;
}

void require_fits(filter_kind kind, std::uint64_t capacity, double fpr, hash_spec spec) {
  const std::uint64_t bytes = planned_file_bytes(kind, capacity, fpr, spec);
  if (bytes > BK_MAX_FILE_BYTES) {
    char message[512];
    std::snprintf(message, sizeof message,
                  "bloomkit: a %s filter for %llu keys at FPR %g needs about %.4g bytes, past PostgreSQL's 1 GB "
                  "limit on one value; give a smaller capacity or a larger fpr, or build it outside the database "
                  "(bloomkit build)",
                  cli_name(kind).c_str(), static_cast<unsigned long long>(capacity), fpr, static_cast<double>(bytes));
    throw pg_error{BK_E_LIMIT, message};
  }
}

void require_fpr(double fpr) {
  if (!(fpr > 0.0 && fpr < 1.0)) {
    throw pg_error{BK_E_INVALID, "bloomkit: fpr must be in (0, 1), got " + std::to_string(fpr)};
  }
}

}  // namespace bloomkit_pg

using namespace bloomkit;
using namespace bloomkit_pg;

// ---- the objects --------------------------------------------------------------

struct bk_reader {
  aligned_bytes copy;  // the bytes the view reads, 64-byte aligned
  any_filter_view view;
  std::size_t header_bytes = 0;
};

/// bloom_agg's state, or a filter being changed (bloom_add, bloom_merge, the
/// set aggregates). Exactly one of: `filter` (a filter exists), or
/// `distinct` mode (no capacity given: the distinct hashes are kept, in
/// `hashes`, and the filter is sized for their count at finish).
struct bk_builder {
  filter_kind kind = filter_kind::blocked_bloom;
  double fpr = 0.01;
  hash_spec spec{};
  std::optional<any_filter> filter;
  bool distinct = false;
  std::vector<std::uint64_t> hashes;  // distinct mode only
  std::size_t sorted = 0;             // hashes[0, sorted) is sorted and unique
};

namespace bloomkit_pg {

/// Without a capacity, 8 bytes per distinct key are kept; past this many the
/// state itself would pass PostgreSQL's value limit when it is serialized.
constexpr std::size_t max_distinct_hashes = (BK_MAX_FILE_BYTES - 64) / 8;

void compact(bk_builder& b) {
  std::sort(b.hashes.begin(), b.hashes.end());
  b.hashes.erase(std::unique(b.hashes.begin(), b.hashes.end()), b.hashes.end());
  b.sorted = b.hashes.size();
  if (b.hashes.size() > max_distinct_hashes) {
    throw pg_error{BK_E_LIMIT, "bloomkit: bloom_agg without a capacity keeps 8 bytes per distinct key and stops at " +
                                   std::to_string(max_distinct_hashes) +
                                   " distinct keys (PostgreSQL's 1 GB value limit); give a capacity"};
  }
}

void add_hash(bk_builder& b, std::uint64_t h) {
  if (b.distinct) {
    b.hashes.push_back(h);
    // Amortised: sort and deduplicate when the unsorted tail doubles the set.
    if (b.hashes.size() >= 2 * std::max<std::size_t>(b.sorted, std::size_t{1} << 16)) compact(b);
    return;
  }
  std::visit(
      [&](auto& f) {
        using F = std::decay_t<decltype(f)>;
        if constexpr (incremental_filter<F>) {
          if constexpr (fallible_insert<F>) {
            if (f.try_insert_hash(h) == insert_result::full) {
              throw error(errc::construction_failed, "bloomkit: the " + std::string(kind_traits<F>::cli_name) + " filter is full");
            }
          } else {
            f.insert_hash(h);
          }
        } else {
          throw error(errc::unsupported, "bloomkit: " + std::string(to_string(kind_traits<F>::kind)) +
                                             " is static: it is built from all keys at once and takes no inserts");
        }
      },
      *b.filter);
}

/// builder's filter op= the filter viewed by `other` (union or intersection).
void combine_view(any_filter& into, const any_filter_view& other, int op) {
  std::visit(
      [&](auto& f, const auto& o) {
        using F = std::decay_t<decltype(f)>;
        using O = std::decay_t<decltype(o)>;
        if constexpr (!std::is_same_v<typename F::view_type, O>) {
          throw error(errc::mismatch, "bloomkit: cannot combine a " + std::string(to_string(kind_traits<F>::kind)) +
                                          " with a " + std::string(to_string(kind_traits<O>::kind)));
        } else if (op == 0) {
          if constexpr (mergeable_with<F, O>) {
            f.merge(o);
          } else {
            throw error(errc::unsupported,
                        "bloomkit: " + std::string(to_string(kind_traits<F>::kind)) + " filters do not merge");
          }
        } else {
          if constexpr (intersectable_with<F, O>) {
            f.intersect(o);
          } else {
            throw error(errc::unsupported,
                        "bloomkit: " + std::string(to_string(kind_traits<F>::kind)) + " filters do not intersect");
          }
        }
      },
      into, other);
}

any_filter_view view_of(const any_filter& f) {
  return std::visit([](const auto& x) { return any_filter_view(x.view()); }, f);
}

void require_same_plan(const bk_builder& a, const bk_builder& b) {
  if (a.kind != b.kind || a.fpr != b.fpr || !(a.spec == b.spec)) {
    throw pg_error{BK_E_MISMATCH, "bloomkit: bloom_agg states of different kinds, FPRs or key types cannot combine "
                                  "(give every row the same capacity, fpr and kind)"};
  }
}

/// Serialized state layout (little-endian): u8 mode (1 = a filter file
/// follows; 2 = distinct hashes), then for mode 2: u8 kind, u8 hash
/// algorithm, u8 key type, u32 zero, u64 seed, f64 fpr, u64 count, count x u64.
constexpr std::size_t distinct_header = 1 + 3 + 4 + 8 + 8 + 8;

}  // namespace bloomkit_pg

// ---- the C interface ------------------------------------------------------------

extern "C" {

int bk_natural_key_type(int tag) {
  try {
    return static_cast<int>(natural_type(tag));
  } catch (...) {
    return 0;
  }
}

int bk_validate(const void* data, std::size_t size, bk_status* status) {
  return guarded(status, [&] { (void)load(as_bytes(data, size)); });
}

bk_reader* bk_reader_open(const void* data, std::size_t size, bk_status* status) {
  bk_reader* out = nullptr;
  guarded(status, [&] {
    aligned_bytes copy = aligned_copy(as_bytes(data, size));
    const std::span<const std::byte> bytes(copy.get(), size);
    auto checked = view(bytes);
    out = new bk_reader{std::move(copy), std::move(checked), header_length(bytes)};
  });
  return out;
}

void bk_reader_free(bk_reader* reader) { delete reader; }

std::size_t bk_reader_header_bytes(const bk_reader* reader) { return reader->header_bytes; }

int bk_reader_contains(const bk_reader* reader, const bk_value* key, bk_status* status) {
  int answer = -1;
  if (guarded(status, [&] {
        answer = std::visit([&](const auto& f) { return f.may_contain_hash(hash_value(*key, f.hash())) ? 1 : 0; },
                            reader->view);
      }) != 0) {
    return -1;
  }
  return answer;
}

long bk_info_json(const void* data, std::size_t size, char* out, std::size_t capacity, bk_status* status) {
  long length = -1;
  guarded(status, [&] {
    const auto bytes = as_bytes(data, size);
    const file_info info = inspect(bytes);
    if (!info.checksum_ok) {
      throw error(errc::checksum, std::string("bloomkit: checksum mismatch in the ") +
                                      (!info.header_checksum_ok ? "header" : "payload") +
                                      ": the value was damaged or altered after it was written");
    }
    std::string text = with_view(bytes, [&](const any_filter_view& v) {
      cli::json_object line = cli::summary_json(cli::summarize(v));
      line.field("format_version", info.version).field("file_bytes", info.file_bytes).field("checksum_ok", true);
      return line.line();
    });
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    length = static_cast<long>(text.size());
    if (text.size() < capacity) std::memcpy(out, text.c_str(), text.size() + 1);
  });
  return length;
}

int bk_estimates(const void* data, std::size_t size, double* cardinality, double* fpr, bk_status* status) {
  return guarded(status, [&] {
    with_view(as_bytes(data, size), [&](const any_filter_view& v) {
      std::visit(
          [&](const auto& f) {
            *cardinality = f.estimated_cardinality();
            *fpr = f.estimated_fpr();
          },
          v);
      return 0;
    });
  });
}

bk_builder* bk_builder_new(const char* kind, std::int64_t capacity, double fpr, int key_type_id, bk_status* status) {
  bk_builder* out = nullptr;
  guarded(status, [&] {
    auto b = std::make_unique<bk_builder>();
    b->kind = parse_kind(kind);
    b->fpr = fpr < 0 ? 0.01 : fpr;
    require_fpr(b->fpr);
    b->spec = info_of(b->kind).default_hash;
    b->spec.keys = static_cast<key_type>(key_type_id);
    if (capacity < 0) {
      b->distinct = true;
    } else {
      const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(capacity, 1));
      require_fits(b->kind, n, b->fpr, b->spec);
      b->filter.emplace(make_filter(b->kind, n, b->fpr, b->spec));
    }
    out = b.release();
  });
  return out;
}

bk_builder* bk_builder_from_file(const void* data, std::size_t size, bk_status* status) {
  bk_builder* out = nullptr;
  guarded(status, [&] {
    auto b = std::make_unique<bk_builder>();
    b->filter.emplace(load(as_bytes(data, size)));
    b->kind = kind_of(*b->filter);
    std::visit(
        [&](const auto& f) {
          b->spec = f.hash();
          b->fpr = f.target_fpr();
        },
        *b->filter);
    out = b.release();
  });
  return out;
}

void bk_builder_free(bk_builder* builder) { delete builder; }

int bk_builder_add(bk_builder* builder, const bk_value* key, bk_status* status) {
  return guarded(status, [&] {
    if (builder->filter && builder->spec.keys == key_type::unspecified) {
      // An untyped filter takes its type from its first typed insert (docs/KEYS.md).
      const key_type t = natural_type(key->tag);
      std::visit([&](auto& f) { f.adopt_key_type(t); }, *builder->filter);
      builder->spec.keys = t;
    }
    add_hash(*builder, hash_value(*key, builder->spec));
  });
}

int bk_builder_combine(bk_builder* builder, const bk_builder* other, int op, bk_status* status) {
  return guarded(status, [&] {
    if (builder->distinct || other->distinct) {
      require_same_plan(*builder, *other);
      if (!builder->distinct || !other->distinct || op != 0) {
        throw pg_error{BK_E_INTERNAL, "bloomkit: a state without a capacity combines only with its like"};
      }
      builder->hashes.insert(builder->hashes.end(), other->hashes.begin(), other->hashes.end());
      compact(*builder);
      return;
    }
    combine_view(*builder->filter, view_of(*other->filter), op);
  });
}

int bk_builder_combine_file(bk_builder* builder, const void* data, std::size_t size, int op, bk_status* status) {
  return guarded(status, [&] {
    if (!builder->filter) throw pg_error{BK_E_INTERNAL, "bloomkit: no filter to combine into"};
    with_view(as_bytes(data, size), [&](const any_filter_view& v) {
      combine_view(*builder->filter, v, op);
      return 0;
    });
  });
}

std::size_t bk_builder_state_bytes(bk_builder* builder, bk_status* status) {
  std::size_t bytes = 0;
  guarded(status, [&] {
    if (builder->distinct) {
      compact(*builder);
      bytes = distinct_header + 8 * builder->hashes.size();
    } else {
      const std::uint64_t file = saved_size(*builder->filter);
      if (file > BK_MAX_FILE_BYTES - 1) throw pg_error{BK_E_LIMIT, "bloomkit: the state is past the 1 GB value limit"};
      bytes = 1 + static_cast<std::size_t>(file);
    }
  });
  return bytes;
}

int bk_builder_serialize(const bk_builder* builder, void* out, std::size_t size, bk_status* status) {
  return guarded(status, [&] {
    auto* p = static_cast<std::byte*>(out);
    if (builder->distinct) {
      p[0] = std::byte{2};
      p[1] = static_cast<std::byte>(builder->kind);
      p[2] = static_cast<std::byte>(builder->spec.algorithm);
      p[3] = static_cast<std::byte>(builder->spec.keys);
      put_le(p + 4, std::uint32_t{0});
      put_le(p + 8, builder->spec.seed);
      put_le(p + 16, std::bit_cast<std::uint64_t>(builder->fpr));
      put_le(p + 24, static_cast<std::uint64_t>(builder->hashes.size()));
      for (std::size_t i = 0; i < builder->hashes.size(); ++i) put_le(p + distinct_header + 8 * i, builder->hashes[i]);
      return;
    }
    p[0] = std::byte{1};
    fixed_buffer buffer(p + 1, size - 1);
    std::ostream stream(&buffer);
    save(*builder->filter, stream);
    if (buffer.written() != size - 1) throw pg_error{BK_E_INTERNAL, "bloomkit: the state's size changed"};
  });
}

bk_builder* bk_builder_deserialize(const void* data, std::size_t size, bk_status* status) {
  bk_builder* out = nullptr;
  guarded(status, [&] {
    const auto* p = static_cast<const std::byte*>(data);
    if (size >= 1 && p[0] == std::byte{1}) {
      out = bk_builder_from_file(p + 1, size - 1, status);
      if (out == nullptr) throw pg_error{status->code, status->message};
      return;
    }
    if (size < distinct_header || p[0] != std::byte{2}) throw pg_error{BK_E_CORRUPT, "bloomkit: not a bloom_agg state"};
    const std::uint64_t count = get_le<std::uint64_t>(p + 24);
    if (count != (size - distinct_header) / 8 || (size - distinct_header) % 8 != 0) {
      throw pg_error{BK_E_CORRUPT, "bloomkit: a bloom_agg state of the wrong length"};
    }
    auto b = std::make_unique<bk_builder>();
    b->kind = static_cast<filter_kind>(p[1]);
    b->spec.algorithm = static_cast<hash_algorithm>(p[2]);
    b->spec.keys = static_cast<key_type>(p[3]);
    b->spec.seed = get_le<std::uint64_t>(p + 8);
    b->fpr = std::bit_cast<double>(get_le<std::uint64_t>(p + 16));
    const bool known_kind = std::find(std::begin(aggregate_kinds), std::end(aggregate_kinds), b->kind) !=
                            std::end(aggregate_kinds);
    if (!known_kind || !is_known(b->spec.algorithm) || p[3] > std::byte{7} || !(b->fpr > 0.0 && b->fpr < 1.0)) {
      throw pg_error{BK_E_CORRUPT, "bloomkit: a bloom_agg state with an unknown kind, hash, key type or fpr"};
    }
    b->distinct = true;
    b->hashes.resize(count);
    for (std::size_t i = 0; i < count; ++i) b->hashes[i] = get_le<std::uint64_t>(p + distinct_header + 8 * i);
    b->sorted = 0;
    out = b.release();
  });
  return out;
}

long bk_builder_finish_step(bk_builder* builder, std::size_t max_keys, bk_status* status) {
  long left = -1;
  guarded(status, [&] {
    if (builder->distinct) {
      compact(*builder);
      const std::uint64_t n = std::max<std::uint64_t>(builder->hashes.size(), 1);
      require_fits(builder->kind, n, builder->fpr, builder->spec);
      builder->filter.emplace(make_filter(builder->kind, n, builder->fpr, builder->spec));
      builder->distinct = false;
      builder->sorted = 0;  // from here: hashes[0, sorted) are inserted
    }
    const std::size_t end = std::min(builder->hashes.size(), builder->sorted + max_keys);
    for (std::size_t i = builder->sorted; i < end; ++i) add_hash(*builder, builder->hashes[i]);
    builder->sorted = end;
    if (end == builder->hashes.size()) std::vector<std::uint64_t>().swap(builder->hashes);
    left = static_cast<long>(builder->hashes.size() - std::min(builder->hashes.size(), end));
  });
  return left;
}

std::size_t bk_builder_file_bytes(const bk_builder* builder, bk_status* status) {
  std::size_t bytes = 0;
  guarded(status, [&] {
    if (builder->distinct || !builder->hashes.empty()) {
      throw pg_error{BK_E_INTERNAL, "bloomkit: the builder is not finished"};
    }
    const std::uint64_t file = saved_size(*builder->filter);
    if (file > BK_MAX_FILE_BYTES) {
      throw pg_error{BK_E_LIMIT, "bloomkit: the filter is " + std::to_string(file) +
                                     " bytes, past PostgreSQL's 1 GB limit on one value"};
    }
    bytes = static_cast<std::size_t>(file);
  });
  return bytes;
}

int bk_builder_write_file(const bk_builder* builder, void* out, std::size_t size, bk_status* status) {
  return guarded(status, [&] {
    fixed_buffer buffer(out, size);
    std::ostream stream(&buffer);
    save(*builder->filter, stream);
    if (buffer.written() != size) throw pg_error{BK_E_INTERNAL, "bloomkit: the file's size changed"};
  });
}

}  // extern "C"
