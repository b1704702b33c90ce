// python/src/keys_impl.hpp - for_each_hash_chunk, insert_batch and
// query_batch_into (see keys.hpp). Included by keys.hpp.
//
// How a chunk of keys becomes hashes. Under an untyped spec (key type
// unspecified) every key hashes its own bytes at its width, as bloomkit
// always did (booleans as 0 or 1). Under a typed spec the key's element
// decides: integers and floats go to the library's batch hasher with the
// typed spec (batch_hash_into converts them into the key type, docs/KEYS.md;
// make_batch has checked every value converts); temporal values are scaled
// here into the type's bytes; byte strings and values already in the type's
// bytes are hashed as they are (the spec without its key type). A missing
// key's slot is hashed as a zero of its element, which converts into every
// type, and its answer is dropped.
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

/// `spec` without its key type: for bytes that already are the key type's.
inline hash_spec untyped(hash_spec spec) noexcept {
  spec.keys = key_type::unspecified;
  return spec;
}

/// `p` as a U array when it is aligned for U (NumPy and Arrow buffers nearly
/// always are), else nullptr: reading a misaligned U* is undefined.
template <class U>
const U* aligned_as(const std::byte* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(U) == 0 ? reinterpret_cast<const U*>(p) : nullptr;
}

/// Hashes `m` fixed-width keys of U (std::uint32_t or std::uint64_t): each
/// key is the native integer at its place, hashed by value (hash_key(U),
/// the same hash as its little-endian bytes under an untyped spec;
/// detail/fixed_hash.hpp). An aligned run goes through the library's batch
/// hasher (eight 8-byte keys per AVX-512 step, hash_batch.hpp); a
/// misaligned one loads by memcpy.
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

/// Hashes `m` keys of `width` bytes as they are (spec untyped), the width
/// picking the hasher.
inline void hash_raw(const std::byte* d, std::size_t width, std::size_t m, hash_spec spec, std::uint64_t* out) {
  switch (width) {
    case 1: hash_fixed<1>(d, 1, m, spec, out); break;
    case 2: hash_fixed<2>(d, 2, m, spec, out); break;
    case 4: hash_values<std::uint32_t>(d, m, spec, out); break;
    case 8: hash_values<std::uint64_t>(d, m, spec, out); break;
    case 16: hash_fixed<16>(d, 16, m, spec, out); break;
    default: hash_fixed<0>(d, width, m, spec, out); break;
  }
}

/// Hashes `m` Arrow strings/binaries (offsets[0..m] into data, checked by
/// add_arrow_array): the library's hash_strings, in SIMD lanes where the
/// CPU has them (XXH64 under AVX2 and AVX-512, XXH3 of 0-64-byte strings
/// under AVX-512; hash_batch.hpp).
template <class Offset>
void hash_varlen(const std::byte* data, const Offset* offsets, std::size_t m, hash_spec spec, std::uint64_t* out) {
  hash_strings(data, std::span<const Offset>(offsets, m + 1), spec, std::span<std::uint64_t>(out, m));
}

/// Scratch space of one chunk, for keys that are converted before hashing.
union chunk_scratch {
  std::array<std::uint64_t, chunk_keys> u64;
  std::array<std::uint32_t, chunk_keys> u32;
  std::array<bool, chunk_keys> flags;
};

/// Hashes `m` keys of type T at `d` with `spec` (typed: the library converts
/// them, batch_hash_into). Misaligned keys, and chunks with missing keys
/// (whose slots may hold any value: they become T{0}, which converts into
/// every numeric type), are copied into `scratch` first.
template <class T>
void hash_typed(const std::byte* d, std::size_t m, const bool* valid, hash_spec spec, chunk_scratch& scratch,
                std::uint64_t* out) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t));
  const T* keys = aligned_as<T>(d);
  if (keys == nullptr || valid != nullptr) {
    auto* copy = reinterpret_cast<T*>(scratch.u64.data());
    std::memcpy(copy, d, m * sizeof(T));
    if (valid != nullptr) {
      for (std::size_t j = 0; j < m; ++j) {
        if (!valid[j]) copy[j] = T{};
      }
    }
    keys = copy;
  }
  batch_hash_into(keys, m, spec, out);
}

/// A signed integer of `width` (4 or 8) bytes at `p`.
inline std::int64_t signed_at(const std::byte* p, std::size_t width) noexcept {
  if (width == 4) {
    std::int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Hashes `m` scaled keys (key_batch::element::scaled): value * mul / div,
/// exact (make_batch checked every valid one), as out_width bytes, hashed as
/// they are. A missing key's slot hashes as 0.
inline void hash_scaled(const key_batch::segment& s, const std::byte* d, std::size_t m, const bool* valid,
                        hash_spec spec, chunk_scratch& scratch, std::uint64_t* out) {
  for (std::size_t j = 0; j < m; ++j) {
    std::int64_t v = valid != nullptr && !valid[j] ? 0 : signed_at(d + j * s.width, s.width);
    v = v / s.scale_div * s.scale_mul;  // exact: v is a multiple of scale_div, and the product fits
    if (s.out_width == 8) {
      scratch.u64[j] = static_cast<std::uint64_t>(v);
    } else {
      scratch.u32[j] = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    }
  }
  if (s.out_width == 8) {
    batch_hash_into(scratch.u64.data(), m, untyped(spec), out);
  } else {
    for (std::size_t j = 0; j < m; ++j) out[j] = hash_key(scratch.u32[j], untyped(spec));
  }
}

/// Hashes `m` fixed-width keys of segment `s` starting at `d`.
inline void hash_fixed_segment(const key_batch::segment& s, const std::byte* d, std::size_t m, const bool* valid,
                               hash_spec spec, chunk_scratch& scratch, std::uint64_t* out) {
  using E = key_batch::element;
  if (s.elem == E::boolean) {
    // Any non-zero byte is true: the flag written as a bool, never the byte
    // read as one (a bool object holding 2 is undefined).
    const auto* bytes = reinterpret_cast<const unsigned char*>(d);
    for (std::size_t j = 0; j < m; ++j) scratch.flags[j] = bytes[j] != 0;
    batch_hash_into(scratch.flags.data(), m, spec, out);
    return;
  }
  if (spec.keys == key_type::unspecified || s.elem == E::raw) {
    hash_raw(d, s.width, m, untyped(spec), out);
    return;
  }
  switch (s.elem) {
    case E::i8: hash_typed<std::int8_t>(d, m, valid, spec, scratch, out); break;
    case E::i16: hash_typed<std::int16_t>(d, m, valid, spec, scratch, out); break;
    case E::i32: hash_typed<std::int32_t>(d, m, valid, spec, scratch, out); break;
    case E::i64: hash_typed<std::int64_t>(d, m, valid, spec, scratch, out); break;
    case E::u8: hash_typed<std::uint8_t>(d, m, valid, spec, scratch, out); break;
    case E::u16: hash_typed<std::uint16_t>(d, m, valid, spec, scratch, out); break;
    case E::u32: hash_typed<std::uint32_t>(d, m, valid, spec, scratch, out); break;
    case E::u64: hash_typed<std::uint64_t>(d, m, valid, spec, scratch, out); break;
    case E::f32: hash_typed<float>(d, m, valid, spec, scratch, out); break;
    case E::f64: hash_typed<double>(d, m, valid, spec, scratch, out); break;
    case E::scaled: hash_scaled(s, d, m, valid, spec, scratch, out); break;
    case E::raw:
    case E::boolean: break;  // handled above
  }
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
  chunk_scratch scratch;
  for (std::size_t at = 0; at < s.count; at += chunk_keys) {
    const std::size_t m = std::min(chunk_keys, s.count - at);
    bool any_null = false;
    if (s.validity != nullptr) {
      for (std::size_t j = 0; j < m; ++j) {
        valid[j] = bit_at(s.validity, s.validity_offset + at + j);
        any_null |= !valid[j];
      }
    }
    const bool* chunk_valid = any_null ? valid.data() : nullptr;
    switch (s.kind) {
      case key_batch::layout::hashes: {
        const auto* h = reinterpret_cast<const std::uint64_t*>(s.data) + at;
        fn(std::span<const std::uint64_t>(h, m), first + at, chunk_valid);
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
        chunk_valid = any_null ? valid.data() : nullptr;
        break;
      }
      case key_batch::layout::fixed:
        hash_fixed_segment(s, s.data + at * s.width, m, chunk_valid, spec, scratch, hashes.data());
        break;
      case key_batch::layout::varlen32:
        hash_varlen(s.data, static_cast<const std::int32_t*>(s.offsets) + at, m, untyped(spec), hashes.data());
        break;
      case key_batch::layout::varlen64:
        hash_varlen(s.data, static_cast<const std::int64_t*>(s.offsets) + at, m, untyped(spec), hashes.data());
        break;
      case key_batch::layout::bits:
        for (std::size_t j = 0; j < m; ++j) {
          scratch.flags[j] = bit_at(reinterpret_cast<const std::uint8_t*>(s.data), s.bit_offset + at + j);
        }
        batch_hash_into(scratch.flags.data(), m, spec, hashes.data());
        break;
    }
    fn(std::span<const std::uint64_t>(hashes.data(), m), first + at, chunk_valid);
  }
}

/// Calls fn(std::span<const T>) with a segment that the library's keyed
/// batch calls can take whole: no nulls, 4- or 8-byte keys, aligned, whose
/// C++ element type the filter's key type converts as this binding would
/// (under an untyped spec the bytes as unsigned integers, as always; under
/// a typed one the element's own type). Those calls (insert_keys /
/// may_contain_keys) hash inside the filter's prefetch pipeline, eight keys
/// per AVX-512 step where the CPU has it: the C++ batched call itself, with
/// no hash buffer between. False if not taken.
template <class Fn>
bool with_whole_fixed(const key_batch::segment& s, hash_spec spec, Fn&& fn) {
  using E = key_batch::element;
  if (s.validity != nullptr || s.kind != key_batch::layout::fixed || s.count == 0) return false;
  auto whole = [&](auto type_tag) {
    using T = decltype(type_tag);
    if (s.width != sizeof(T)) return false;
    const T* k = aligned_as<T>(s.data);
    return k != nullptr && fn(std::span<const T>(k, s.count));
  };
  if (spec.keys == key_type::unspecified) {
    if (s.elem == E::boolean || s.elem == E::scaled) return false;
    return s.width == 8 ? whole(std::uint64_t{}) : whole(std::uint32_t{});
  }
  switch (s.elem) {
    case E::i64: return whole(std::int64_t{});
    case E::u64: return whole(std::uint64_t{});
    case E::i32: return whole(std::int32_t{});
    case E::u32: return whole(std::uint32_t{});
    case E::f64: return whole(double{});
    case E::f32: return whole(float{});
    default: return false;
  }
}

}  // namespace batch_paths

template <class Fn>
void for_each_hash_chunk(const key_batch& batch, Fn&& fn) {
  std::size_t first = 0;
  for (const auto& s : batch.segments) {
    batch_paths::for_each_segment_chunk(s, first, batch.spec, fn);
    first += s.count;
  }
}

template <class Filter, class InsertHashes>
void insert_batch(Filter& f, const key_batch& batch, InsertHashes&& insert_hashes, bool keyed_calls) {
  std::vector<std::uint64_t> compact;
  for (const auto& s : batch.segments) {
    if (s.kind == key_batch::layout::hashes && s.validity == nullptr) {
      // Precomputed hashes, no nulls: the batch call over them in place.
      insert_hashes(std::span<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(s.data), s.count));
      continue;
    }
    const bool whole = keyed_calls && batch_paths::with_whole_fixed(s, batch.spec, [&](auto keys) {
      if constexpr (requires { f.insert_keys(keys); }) {
        f.insert_keys(keys);
        return true;
      } else {
        return false;
      }
    });
    if (whole) continue;
    batch_paths::for_each_segment_chunk(s, 0, batch.spec, [&](std::span<const std::uint64_t> h, std::size_t, const bool* valid) {
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
void query_batch_into(const Filter& f, const key_batch& batch, bool* out) {
  std::size_t first = 0;
  for (const auto& s : batch.segments) {
    bool* o = out + first;
    first += s.count;
    if (s.kind == key_batch::layout::hashes && s.validity == nullptr) {
      f.may_contain_many(std::span<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(s.data), s.count),
                         std::span<bool>(o, s.count));
      continue;
    }
    // The keyed call converts by f's own key type, so it is taken only
    // when that is the batch's (a query never changes the filter's type,
    // but a query made for another spec must not reach it).
    const bool whole = f.hash() == batch.spec && batch_paths::with_whole_fixed(s, batch.spec, [&](auto keys) {
      if constexpr (requires { f.may_contain_keys(keys, std::span<bool>(o, s.count)); }) {
        f.may_contain_keys(keys, std::span<bool>(o, s.count));
        return true;
      } else {
        return false;
      }
    });
    if (whole) continue;
    batch_paths::for_each_segment_chunk(s, 0, batch.spec, [&](std::span<const std::uint64_t> h, std::size_t at, const bool* valid) {
      f.may_contain_many(h, std::span<bool>(o + at, h.size()));
      if (valid != nullptr) {
        for (std::size_t j = 0; j < h.size(); ++j) o[at + j] = o[at + j] && valid[j];
      }
    });
  }
}

}  // namespace bloomkit::python
