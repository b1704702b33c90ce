// python/src/keys_impl.hpp - for_each_hash_chunk, insert_batch and
// query_batch_into (see keys.hpp). Included by keys.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>

#include "bloomkit/hash_batch.hpp"

namespace bloomkit::python {

namespace batch_paths {

/// Keys hashed per chunk: 2048 hashes (16 KiB) and flags stay in L1 while the
/// filter's batch call runs over them.
inline constexpr std::size_t chunk_keys = 2048;

inline bool bit_at(const std::uint8_t* bitmap, std::size_t i) noexcept { return ((bitmap[i >> 3] >> (i & 7)) & 1U) != 0; }

/// `p` as a U array when it is aligned for U (NumPy and Arrow buffers nearly
/// always are), else nullptr: reading a misaligned U* is undefined.
template <class U>
const U* aligned_as(const std::byte* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(U) == 0 ? reinterpret_cast<const U*>(p) : nullptr;
}

/// Hashes `m` fixed-width keys of U (std::uint32_t or std::uint64_t): each
/// key is the native integer at its place, hashed by value (hash_key(U),
/// the same hash as its little-endian bytes; detail/fixed_hash.hpp). An
/// aligned run goes through the library's batch hasher (eight 8-byte keys
/// per AVX-512 step, hash_batch.hpp); a misaligned one loads by memcpy.
template <class U>
void hash_values(const std::byte* data, std::size_t m, hash_spec spec, std::uint64_t* out) {
  if constexpr (sizeof(U) == 8) {
    if (const U* keys = aligned_as<U>(data)) {
      batch_hash_into(keys, m, spec, out);
      return;
    }
  }
  for (std::size_t j = 0; j < m; ++j) {
    U v;
    std::memcpy(&v, data + j * sizeof(U), sizeof v);
    out[j] = hash_key(v, spec);
  }
}

/// Hashes `m` keys of `width` bytes each by their bytes (widths other than 4 and 8).
template <std::size_t W>
void hash_fixed(const std::byte* data, std::size_t width, std::size_t m, hash_spec spec, std::uint64_t* out) {
  const std::size_t w = W != 0 ? W : width;
  for (std::size_t j = 0; j < m; ++j) out[j] = hash_bytes(data + j * w, w, spec);
}

/// Hashes `m` Arrow strings/binaries (offsets[0..m] into data, checked by
/// add_arrow_array): the library's hash_strings, in SIMD lanes where the
/// CPU has them (XXH64 under AVX2 and AVX-512, XXH3 of 0-64-byte strings
/// under AVX-512; hash_batch.hpp).
template <class Offset>
void hash_varlen(const std::byte* data, const Offset* offsets, std::size_t m, hash_spec spec, std::uint64_t* out) {
  hash_strings(data, std::span<const Offset>(offsets, m + 1), spec, std::span<std::uint64_t>(out, m));
}

/// Dictionary keys [at, at + m) of `s`: hashes[j] is the hash of the
/// dictionary value that key at + j's index names (I: the index type);
/// valid[j] is cleared where that value is null. A null key's index is not
/// read (it may be anything). Returns whether any dictionary value was null.
template <class I>
bool gather_dictionary(const key_batch::segment& s, std::size_t at, std::size_t m, bool has_valid,
                       std::uint64_t* hashes, bool* valid) noexcept {
  bool any_null = false;
  for (std::size_t j = 0; j < m; ++j) {
    if (has_valid && !valid[j]) {
      hashes[j] = 0;
      continue;
    }
    I index;
    std::memcpy(&index, s.data + (at + j) * sizeof(I), sizeof index);
    const auto i = static_cast<std::size_t>(index);
    hashes[j] = s.dict_hashes[i];
    if (s.dict_valid != nullptr && s.dict_valid[i] == 0) {
      valid[j] = false;
      any_null = true;
    }
  }
  return any_null;
}

/// for_each_hash_chunk over one segment whose first key is key `first` of the batch.
template <class Fn>
void for_each_segment_chunk(const key_batch::segment& s, std::size_t first, hash_spec spec, Fn&& fn) {
  std::array<std::uint64_t, chunk_keys> hashes;
  std::array<bool, chunk_keys> valid;
  for (std::size_t at = 0; at < s.count; at += chunk_keys) {
    const std::size_t m = std::min(chunk_keys, s.count - at);
    bool any_null = false;
    if (s.validity != nullptr) {
      for (std::size_t j = 0; j < m; ++j) {
        valid[j] = bit_at(s.validity, s.validity_offset + at + j);
        any_null |= !valid[j];
      }
    }
    switch (s.kind) {
      case key_batch::layout::hashes: {
        const auto* h = reinterpret_cast<const std::uint64_t*>(s.data) + at;
        fn(std::span<const std::uint64_t>(h, m), first + at, any_null ? valid.data() : nullptr);
        continue;
      }
      case key_batch::layout::dictionary: {
        const bool has_valid = s.validity != nullptr;
        if (!has_valid && s.dict_valid != nullptr) std::fill_n(valid.data(), m, true);
        bool dict_null = false;
        switch (s.width * 2 + (s.index_signed ? 1 : 0)) {
          case 2: dict_null = gather_dictionary<std::uint8_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          case 3: dict_null = gather_dictionary<std::int8_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          case 4: dict_null = gather_dictionary<std::uint16_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          case 5: dict_null = gather_dictionary<std::int16_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          case 8: dict_null = gather_dictionary<std::uint32_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          case 9: dict_null = gather_dictionary<std::int32_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          case 16: dict_null = gather_dictionary<std::uint64_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
          default: dict_null = gather_dictionary<std::int64_t>(s, at, m, has_valid, hashes.data(), valid.data()); break;
        }
        any_null |= dict_null;
        break;
      }
      case key_batch::layout::fixed: {
        const std::byte* d = s.data + at * s.width;
        switch (s.width) {
          case 1: hash_fixed<1>(d, 1, m, spec, hashes.data()); break;
          case 2: hash_fixed<2>(d, 2, m, spec, hashes.data()); break;
          case 4: hash_values<std::uint32_t>(d, m, spec, hashes.data()); break;
          case 8: hash_values<std::uint64_t>(d, m, spec, hashes.data()); break;
          case 16: hash_fixed<16>(d, 16, m, spec, hashes.data()); break;
          default: hash_fixed<0>(d, s.width, m, spec, hashes.data()); break;
        }
        break;
      }
      case key_batch::layout::varlen32:
        hash_varlen(s.data, static_cast<const std::int32_t*>(s.offsets) + at, m, spec, hashes.data());
        break;
      case key_batch::layout::varlen64:
        hash_varlen(s.data, static_cast<const std::int64_t*>(s.offsets) + at, m, spec, hashes.data());
        break;
      case key_batch::layout::bits:
        for (std::size_t j = 0; j < m; ++j) {
          const auto byte = static_cast<unsigned char>(
              bit_at(reinterpret_cast<const std::uint8_t*>(s.data), s.bit_offset + at + j) ? 1 : 0);
          hashes[j] = hash_bytes(&byte, 1, spec);
        }
        break;
    }
    fn(std::span<const std::uint64_t>(hashes.data(), m), first + at, any_null ? valid.data() : nullptr);
  }
}

/// Calls fn(std::span<const U>) with a segment that the library's keyed
/// batch calls can take whole: no nulls, 4- or 8-byte keys, aligned. Those
/// calls (insert_keys / may_contain_keys) hash inside the filter's prefetch
/// pipeline, eight keys per AVX-512 step where the CPU has it: the C++
/// batched call itself, with no hash buffer between. False if not taken.
template <class Fn>
bool with_whole_fixed(const key_batch::segment& s, Fn&& fn) {
  if (s.validity != nullptr || s.kind != key_batch::layout::fixed || s.count == 0) return false;
  if (s.width == 8) {
    if (const auto* k = aligned_as<std::uint64_t>(s.data)) return fn(std::span<const std::uint64_t>(k, s.count));
  } else if (s.width == 4) {
    if (const auto* k = aligned_as<std::uint32_t>(s.data)) return fn(std::span<const std::uint32_t>(k, s.count));
  }
  return false;
}

}  // namespace batch_paths

template <class Fn>
void for_each_hash_chunk(const key_batch& batch, hash_spec spec, Fn&& fn) {
  std::size_t first = 0;
  for (const auto& s : batch.segments) {
    batch_paths::for_each_segment_chunk(s, first, spec, fn);
    first += s.count;
  }
}

template <class Filter, class InsertHashes>
void insert_batch(Filter& f, const key_batch& batch, hash_spec spec, InsertHashes&& insert_hashes, bool keyed_calls) {
  std::vector<std::uint64_t> compact;
  for (const auto& s : batch.segments) {
    if (s.kind == key_batch::layout::hashes && s.validity == nullptr) {
      // Precomputed hashes, no nulls: the batch call over them in place.
      insert_hashes(std::span<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(s.data), s.count));
      continue;
    }
    const bool whole = keyed_calls && batch_paths::with_whole_fixed(s, [&](auto keys) {
      if constexpr (requires { f.insert_keys(keys); }) {
        f.insert_keys(keys);
        return true;
      } else {
        return false;
      }
    });
    if (whole) continue;
    batch_paths::for_each_segment_chunk(s, 0, spec, [&](std::span<const std::uint64_t> h, std::size_t, const bool* valid) {
      if (valid == nullptr) {
        insert_hashes(h);
        return;
      }
      compact.clear();
      for (std::size_t j = 0; j < h.size(); ++j) {
        if (valid[j]) compact.push_back(h[j]);
      }
      insert_hashes(std::span<const std::uint64_t>(compact));
    });
  }
}

template <class Filter>
void query_batch_into(const Filter& f, const key_batch& batch, hash_spec spec, bool* out) {
  std::size_t first = 0;
  for (const auto& s : batch.segments) {
    bool* o = out + first;
    first += s.count;
    if (s.kind == key_batch::layout::hashes && s.validity == nullptr) {
      f.may_contain_many(std::span<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(s.data), s.count),
                         std::span<bool>(o, s.count));
      continue;
    }
    const bool whole = batch_paths::with_whole_fixed(s, [&](auto keys) {
      if constexpr (requires { f.may_contain_keys(keys, std::span<bool>(o, s.count)); }) {
        f.may_contain_keys(keys, std::span<bool>(o, s.count));
        return true;
      } else {
        return false;
      }
    });
    if (whole) continue;
    batch_paths::for_each_segment_chunk(s, 0, spec, [&](std::span<const std::uint64_t> h, std::size_t at, const bool* valid) {
      f.may_contain_many(h, std::span<bool>(o + at, h.size()));
      if (valid != nullptr) {
        for (std::size_t j = 0; j < h.size(); ++j) o[at + j] = o[at + j] && valid[j];
      }
    });
  }
}

}  // namespace bloomkit::python
