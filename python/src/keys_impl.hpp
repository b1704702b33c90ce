// python/src/keys_impl.hpp - for_each_hash_chunk (see keys.hpp). Included by keys.hpp.
#pragma once

#include <algorithm>
#include <array>

namespace bloomkit::python {

namespace batch_detail {

/// Keys hashed per chunk: 2048 hashes (16 KiB) and flags stay in L1 while the
/// filter's batch call runs over them.
inline constexpr std::size_t chunk_keys = 2048;

inline bool bit_at(const std::uint8_t* bitmap, std::size_t i) noexcept { return ((bitmap[i >> 3] >> (i & 7)) & 1U) != 0; }

/// Hashes `m` fixed-width keys; W is a compile-time width so hash_bytes
/// inlines XXH3/XXH64's short-input path (a width of 0 means `width`).
template <std::size_t W>
void hash_fixed(const std::byte* data, std::size_t width, std::size_t m, hash_spec spec, std::uint64_t* out) {
  const std::size_t w = W != 0 ? W : width;
  for (std::size_t j = 0; j < m; ++j) out[j] = hash_bytes(data + j * w, w, spec);
}

template <class Offset>
void hash_varlen(const std::byte* data, const Offset* offsets, std::size_t m, hash_spec spec, std::uint64_t* out) {
  for (std::size_t j = 0; j < m; ++j) {
    const auto begin = static_cast<std::size_t>(offsets[j]);
    const auto end = static_cast<std::size_t>(offsets[j + 1]);
    out[j] = hash_bytes(data + begin, end - begin, spec);
  }
}

}  // namespace batch_detail

template <class Fn>
void for_each_hash_chunk(const key_batch& batch, hash_spec spec, Fn&& fn) {
  using namespace batch_detail;
  std::array<std::uint64_t, chunk_keys> hashes;
  std::array<bool, chunk_keys> valid;
  std::size_t first = 0;
  for (const auto& s : batch.segments) {
    for (std::size_t at = 0; at < s.count; at += chunk_keys) {
      const std::size_t m = std::min(chunk_keys, s.count - at);
      bool any_null = false;
      if (s.validity != nullptr) {
        for (std::size_t j = 0; j < m; ++j) {
          valid[j] = bit_at(s.validity, s.validity_offset + at + j);
          any_null |= !valid[j];
        }
      }
      const bool* flags = any_null ? valid.data() : nullptr;
      switch (s.kind) {
        case key_batch::layout::hashes: {
          const auto* h = reinterpret_cast<const std::uint64_t*>(s.data) + at;
          fn(std::span<const std::uint64_t>(h, m), first + at, flags);
          continue;
        }
        case key_batch::layout::fixed: {
          const std::byte* d = s.data + at * s.width;
          switch (s.width) {
            case 1: hash_fixed<1>(d, 1, m, spec, hashes.data()); break;
            case 2: hash_fixed<2>(d, 2, m, spec, hashes.data()); break;
            case 4: hash_fixed<4>(d, 4, m, spec, hashes.data()); break;
            case 8: hash_fixed<8>(d, 8, m, spec, hashes.data()); break;
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
      fn(std::span<const std::uint64_t>(hashes.data(), m), first + at, flags);
    }
    first += s.count;
  }
}

}  // namespace bloomkit::python
