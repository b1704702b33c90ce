// bloomkit/detail/facade.hpp - the one facade every filter and view shares.
//
// A kind writes only its core; the facade derives the rest, once, for every
// kind and for both the owning type and its view (the model is Boost.Bloom's
// filter, which re-exports its core's members instead of restating them):
//
//   core (written per kind)                  derived here
//   -----------------------                  ----------------------------------
//   hash()                                   may_contain(key)
//   may_contain_hash(h)                      may_contain_many(hashes, out)
//   test_pipelined(n, hash_at, out)  [opt]   may_contain_keys(keys | vector, out)
//   may_contain_hash_concurrent(h)   [opt]   may_contain_concurrent(key)
//   insert_hash(h)                   [owner] insert(key), insert_many(hashes),
//   insert_pipelined(n, hash_at)     [opt]   insert_keys(keys | vector)
//   insert_hash_concurrent(h)        [opt]   insert_concurrent(key)
//   insert_pipelined_concurrent(n, hash_at) [opt]  insert_many_concurrent(hashes)
//   insert_if_absent_hash(h)         [opt]   insert_if_absent(key),
//                                            insert_if_absent_many(hashes) -> bitmap
//   insert_if_absent_hash_concurrent(h) [opt] insert_if_absent_concurrent(key)
//
// Batch names (the rule, README "One contract for every kind"): `_many`
// takes precomputed 64-bit hashes, `_keys` takes keys. The Python bindings
// spell the same calls `_hashes` and `_many` (their `may_contain_many` takes
// keys). An insert returns nothing: it adds the key or throws bloomkit::error;
// a kind whose insert can fail names its answering form `try_` (cuckoo).
//
// `hash_at(i)` yields the i-th hash; the pipelined cores prefetch a window
// ahead (detail/simd_batch.hpp). A kind without a pipeline gets the plain
// loop below, which answers exactly as the single-key calls. The kind's
// query and statistics code lives in one CRTP reader per kind that both the
// owner and the view derive from, reading the owner's or view's params(),
// payload words and inserted(); there is no "return view().x()" anywhere.
//
// This header is private: it includes only the standard library,
// detail/bits.hpp (prefetch), detail/simd_batch.hpp (hashes_in_memory) and
// error.hpp. Keys are hashed by the unqualified, ADL-found `hash_key(k,
// spec)` of hash.hpp (found through the bloomkit::hash_spec argument). The
// constraints name D through a defaulted parameter (DD = D) so they are
// checked when a member is called, with D complete (clang checks a
// non-dependent constraint when the class is instantiated).
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::detail {

/// Tag for the constructors of views (and filters) whose parameters and
/// payload are already known to be valid: an owning filter making its own
/// view, a codec after it has checked every field. The one trusted tag of
/// the library.
struct trusted_t {
  explicit trusted_t() = default;
};
inline constexpr trusted_t trusted{};

/// K can be hashed under Spec by the library's key rules (hash.hpp's `key`).
template <class K, class Spec>
concept hashable_with = requires(const K& k, const Spec& s) {
  { hash_key(k, s) } -> std::convertible_to<std::uint64_t>;
};

template <class D>
using spec_of = std::remove_cvref_t<decltype(std::declval<const D&>().hash())>;

/// A kind whose keyed batches hash a tile of keys at a time (the
/// ADL-found `batch_hash_into(keys, n, spec, out)` of bloomkit/hash_batch.hpp:
/// eight 8-byte keys per AVX-512 step) and pass the tile's hashes to
/// may_contain_many / insert_many (block, standard and static filters);
/// other kinds hash key by key inside their batch.
template <class D>
concept hashes_keys_in_tiles = requires { requires D::keyed_batches_in_tiles; };

/// A kind whose batch insert hashes numeric keys itself, one key as it
/// locates it, while keys of other types still go in tiles. Why: the
/// standard filter's insert rounds wait on k probes per key, and the few
/// multiplies of an integer's or float's hash fit in that wait, where a
/// tile is a pass of its own (standard_bloom, 10^6 keys: about 2 ns per key
/// less); a string's hash is longer, and a tile's SIMD lanes compute it
/// faster. Keyed lookups hash in tiles even so: a negative leaves the
/// rounds after about two probes, too soon to hide its hash (standard_bloom,
/// 10^6 keys: keyed batched lookups 6-18 % faster in tiles).
template <class D, class K>
concept hashes_numbers_in_walk = requires { requires D::numeric_keys_in_walk; } && std::is_arithmetic_v<K>;

/// The keyed batch inserts of D over keys of type K hash in tiles.
template <class D, class K>
concept keyed_tiles_for = hashes_keys_in_tiles<D> && !hashes_numbers_in_walk<D, K>;

/// Keys hashed per tile by a keyed batch: 8 KiB of hashes, which stay in L1.
/// Why tiles rather than hashing inside the prefetch pipeline: a chunked
/// hasher as the pipeline's hash_at puts its per-key refill test and buffer
/// in the loop that waits on memory, which made batched keyed calls slower
/// (split_block_bloom, 10^6 keys: 2.2 ns per insert in tiles, about 2.7
/// chunked). A tile restarts the pipeline, so its first keys' blocks are not
/// prefetched ahead: one memory latency per 1024 keys.
inline constexpr std::size_t keyed_batch_tile = 1024;

/// Keys stored in place in the caller's array (integers, floats, fixed-size
/// byte arrays): a tile of them is at most 16 KiB of contiguous memory, so
/// for_each_hashed_tile prefetches the next tile's keys.
template <class K>
concept keys_in_place = std::is_trivially_copyable_v<K> && sizeof(K) <= 16;

/// Prefetches the `count` keys at `keys` (their bytes, line by line).
template <class K>
void prefetch_keys(const K* keys, std::size_t count) noexcept {
  const auto* bytes = reinterpret_cast<const char*>(keys);
  for (std::size_t at = 0; at < count * sizeof(K); at += 64) prefetch(bytes + at);
}

/// f(at, m, hashes): the hashes of keys [at, at + m), tile by tile, in order.
/// Keys stored in place have the next tile's keys prefetched before f runs
/// over this tile's hashes. Why: the hash of a tile reads 8 KiB of keys in
/// about 0.4 us, faster than the hardware prefetcher, which lost the stream
/// while f's random probes ran, brings them back from DRAM; so each tile began
/// with its keys' misses. Prefetched while f runs, they wait in L1, and a
/// keyed lookup costs about 0.6 ns a key more than a prehashed one
/// (split_block_bloom, 10^6 keys).
template <class K, class Spec, class F>
void for_each_hashed_tile(const K* keys, std::size_t n, const Spec& spec, F&& f) {
  std::uint64_t hashes[keyed_batch_tile];
  for (std::size_t at = 0; at < n; at += keyed_batch_tile) {
    const std::size_t m = std::min(keyed_batch_tile, n - at);
    batch_hash_into(keys + at, m, spec, hashes);
    if constexpr (keys_in_place<K>) prefetch_keys(keys + at + m, std::min(keyed_batch_tile, n - at - m));
    f(at, m, static_cast<const std::uint64_t*>(hashes));
  }
}

template <class D>
concept has_concurrent_query = requires(const D& d) { d.may_contain_hash_concurrent(std::uint64_t{}); };

/// The query side: every filter and view derives from it.
template <class D>
class query_facade {
 public:
  /// True if `k` (hashed with this filter's hash_spec) may be in the set;
  /// false means certainly not.
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>>
  [[nodiscard]] bool may_contain(const K& k) const {
    return self().may_contain_hash(hash_key(k, self().hash()));
  }

  /// out[i] = may_contain_hash(hashes[i]), pipelined where the kind has a
  /// pipeline. Takes hashes, not keys (may_contain_keys takes keys; Python's
  /// may_contain_many is this library's may_contain_keys). Throws
  /// errc::invalid_argument if the sizes differ.
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    require(hashes.size() == out.size(), errc::invalid_argument,
            [] { return std::string(D::kind_name) + ": may_contain_many needs as many outputs as hashes"; });
    self().test_pipelined(hashes.size(), hashes_in_memory{hashes.data()}, out.data());
  }

  /// out[i] = may_contain(keys[i]): the keys' hashes go through the same
  /// batch core as may_contain_many (tile by tile where the kind hashes in
  /// tiles). Throws errc::invalid_argument if the sizes differ.
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>>
  void may_contain_keys(std::span<const K> keys, std::span<bool> out) const {
    require(keys.size() == out.size(), errc::invalid_argument,
            [] { return std::string(D::kind_name) + ": may_contain_keys needs as many outputs as keys"; });
    const K* data = keys.data();
    const auto spec = self().hash();
    require_keys_convert(data, keys.size(), spec);
    if constexpr (hashes_keys_in_tiles<DD>) {
      for_each_hashed_tile(data, keys.size(), spec, [&](std::size_t at, std::size_t m, const std::uint64_t* hashes) {
        may_contain_many(std::span<const std::uint64_t>(hashes, m), out.subspan(at, m));
      });
    } else {
      self().test_pipelined(keys.size(), [data, spec](std::size_t i) { return hash_key(data[i], spec); }, out.data());
    }
  }
  /// may_contain_keys over a vector (spans do not deduce from containers).
  template <class K, class Alloc, class DD = D>
    requires hashable_with<K, spec_of<DD>>
  void may_contain_keys(const std::vector<K, Alloc>& keys, std::span<bool> out) const {
    may_contain_keys(std::span<const K>(keys), out);
  }

  /// may_contain_hash_concurrent of the key's hash (kinds with concurrent
  /// queries only): data-race free beside *_concurrent inserts.
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>> && has_concurrent_query<DD>
  [[nodiscard]] bool may_contain_concurrent(const K& k) const {
    return self().may_contain_hash_concurrent(hash_key(k, self().hash()));
  }

 protected:
  /// The default batch: the single-key test in order (kinds whose lookups
  /// gain nothing from prefetching, or compute-bound ones).
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    for (std::size_t i = 0; i < n; ++i) out[i] = self().may_contain_hash(hash_at(i));
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

template <class D>
concept has_concurrent_insert = requires(D& d) { d.insert_hash_concurrent(std::uint64_t{}); };

template <class D>
concept has_insert_if_absent = requires(D& d) {
  { d.insert_if_absent_hash(std::uint64_t{}) } -> std::same_as<bool>;
};
template <class D>
concept has_insert_if_absent_concurrent = requires(D& d) {
  { d.insert_if_absent_hash_concurrent(std::uint64_t{}) } -> std::same_as<bool>;
};

/// The insert side: every owning filter that takes keys one by one derives
/// from it (static filters are built whole and do not).
template <class D>
class insert_facade {
 public:
  /// Adds `k`, hashed with this filter's hash_spec; throws what the kind's
  /// insert_hash throws when it cannot (a full cuckoo filter).
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>>
  void insert(const K& k) {
    self().insert_hash(hash_key(k, self().hash()));
  }

  /// Adds every hash, in order; identical to insert_hash on each (pipelined
  /// where the kind has a pipeline). Takes hashes, not keys (insert_keys
  /// takes keys; Python's add_many is insert_keys).
  void insert_many(std::span<const std::uint64_t> hashes) {
    self().insert_pipelined(hashes.size(), hashes_in_memory{hashes.data()});
  }

  /// Adds every key (hashed with this filter's hash_spec, tile by tile
  /// where the kind hashes in tiles); identical to insert(k) on each, in order.
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>>
  void insert_keys(std::span<const K> keys) {
    const K* data = keys.data();
    const auto spec = self().hash();
    require_keys_convert(data, keys.size(), spec);  // before the first insert: a refused batch changes nothing
    // A kind whose insert can fail (a growing one) plans the whole batch
    // first, so a failure in a later tile cannot leave the earlier ones in.
    if constexpr (requires(DD& d) { d.reserve_inserts(std::uint64_t{}); }) self().reserve_inserts(keys.size());
    if constexpr (keyed_tiles_for<DD, K>) {
      for_each_hashed_tile(data, keys.size(), spec, [&](std::size_t, std::size_t m, const std::uint64_t* hashes) {
        insert_many(std::span<const std::uint64_t>(hashes, m));
      });
    } else {
      self().insert_pipelined(keys.size(), [data, spec](std::size_t i) { return hash_key(data[i], spec); });
    }
  }
  /// insert_keys over a vector (spans do not deduce from containers).
  template <class K, class Alloc, class DD = D>
    requires hashable_with<K, spec_of<DD>>
  void insert_keys(const std::vector<K, Alloc>& keys) {
    insert_keys(std::span<const K>(keys));
  }

  /// insert_hash_concurrent of `k` (kinds with concurrent inserts only).
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>> && has_concurrent_insert<DD>
  void insert_concurrent(const K& k) {
    self().insert_hash_concurrent(hash_key(k, self().hash()));
  }

  /// insert_hash_concurrent on every hash, pipelined like insert_many; the
  /// same contract as insert_hash_concurrent (kinds with concurrent inserts).
  template <class DD = D>
    requires has_concurrent_insert<DD>
  void insert_many_concurrent(std::span<const std::uint64_t> hashes) noexcept {
    self().insert_pipelined_concurrent(hashes.size(), hashes_in_memory{hashes.data()});
  }

  /// Test-and-add of `k` (hashed with this filter's hash_spec): true when
  /// the key was certainly absent and is now inserted, false when it may
  /// already have been present (then nothing changed). See the kind's
  /// insert_if_absent_hash for its exact semantics.
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>> && has_insert_if_absent<DD>
  bool insert_if_absent(const K& k) {
    return self().insert_if_absent_hash(hash_key(k, self().hash()));
  }

  /// insert_if_absent_hash on every hash, in order (a key repeated within
  /// the batch is inserted once). Bit i of the result (word i / 64, bit
  /// i % 64) is set iff key i was inserted, i.e. certainly absent before it:
  /// the lines `bloomkit dedupe` prints.
  template <class DD = D>
    requires has_insert_if_absent<DD>
  std::vector<std::uint64_t> insert_if_absent_many(std::span<const std::uint64_t> hashes) {
    std::vector<std::uint64_t> bits(hashes.size() / 64 + (hashes.size() % 64 != 0), 0);
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      if (self().insert_if_absent_hash(hashes[i])) bits[i / 64] |= std::uint64_t{1} << (i % 64);
    }
    return bits;
  }

  /// insert_if_absent_hash_concurrent of `k` (kinds with concurrent inserts).
  template <class K, class DD = D>
    requires hashable_with<K, spec_of<DD>> && has_insert_if_absent_concurrent<DD>
  bool insert_if_absent_concurrent(const K& k) {
    return self().insert_if_absent_hash_concurrent(hash_key(k, self().hash()));
  }

 protected:
  /// The default batch insert: insert_hash on each, in order.
  template <class HashAt>
  void insert_pipelined(std::size_t n, HashAt hash_at) {
    for (std::size_t i = 0; i < n; ++i) self().insert_hash(hash_at(i));
  }

 private:
  [[nodiscard]] D& self() noexcept { return static_cast<D&>(*this); }
};

/// The state every static filter (binary fuse, ribbon) reports, derived from
/// its key count and FPR exponent. A static filter knows its set exactly:
/// inserted and the cardinality are the stored key count, the FPR is fixed
/// by the fingerprint (result) width, and it is never saturated. Its design
/// capacity is max(keys, 1): every filter's capacity is at least 1 (the file
/// header stores it so), an empty filter included. D provides params()
/// (with .keys), size_in_bytes() and fpr_bits().
template <class D>
class static_facade : public query_facade<D> {
 public:
  /// Distinct keys stored.
  [[nodiscard]] std::uint64_t keys() const noexcept { return self().params().keys; }
  /// max(keys(), 1): the empty filter's design capacity is 1, as stored.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return std::max<std::uint64_t>(keys(), 1); }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return keys(); }
  [[nodiscard]] double estimated_cardinality() const noexcept { return static_cast<double>(keys()); }
  /// 2^-fpr_bits(), the FPR the layout is built for (also for an empty filter).
  [[nodiscard]] double target_fpr() const noexcept { return std::ldexp(1.0, -static_cast<int>(self().fpr_bits())); }
  /// The false-positive rate for keys not in the set: 2^-fpr_bits() (0 when empty).
  [[nodiscard]] double design_fpr() const noexcept { return keys() == 0 ? 0.0 : target_fpr(); }
  [[nodiscard]] double estimated_fpr() const noexcept { return design_fpr(); }
  [[nodiscard]] bool saturated() const noexcept { return false; }
  /// Payload bits per stored key (0 for an empty filter).
  [[nodiscard]] double bits_per_key() const noexcept {
    return keys() == 0 ? 0.0 : 8.0 * static_cast<double>(self().size_in_bytes()) / static_cast<double>(keys());
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

}  // namespace bloomkit::detail
