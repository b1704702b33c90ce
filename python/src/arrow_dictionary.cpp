// python/src/arrow_dictionary.cpp - a pyarrow DictionaryArray as one
// dictionary segment of a key batch (key_sources.hpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "key_sources.hpp"
#include "keys.hpp"

namespace bloomkit::python {

void add_arrow_dictionary(key_batch& batch, const nb::object& arr, bool as_hashes) {
  nb::object indices = arr.attr("indices");
  key_batch index_batch;
  index_batch.spec = batch_paths::untyped(batch.spec);
  add_arrow_array(index_batch, indices, false);
  const std::string index_type = str_of(indices.attr("type"));
  const bool index_signed = index_type.rfind("int", 0) == 0;
  if ((!index_signed && index_type.rfind("uint", 0) != 0) || index_batch.segments.size() != 1 ||
      index_batch.segments[0].kind != key_batch::layout::fixed) {
    throw nb::type_error(("Arrow dictionary indices must be integers; got " + index_type).c_str());
  }
  key_batch dictionary;
  dictionary.spec = batch.spec;
  dictionary.what = batch.what;
  add_arrow_array(dictionary, arr.attr("dictionary"), as_hashes);
  check_batch(dictionary);
  std::vector<std::uint64_t> hashes(dictionary.total);
  std::vector<std::uint8_t> valid;
  if (dictionary.has_nulls()) valid.assign(dictionary.total, 1);
  key_batch::segment s = index_batch.segments[0];
  s.kind = key_batch::layout::dictionary;
  s.values = arrow_class(arr.attr("type"));
  s.index_signed = index_signed;
  s.dict_size = dictionary.total;
  std::size_t bad = s.count;  // the first valid key whose index lies outside the dictionary
  {
    nb::gil_scoped_release release;
    for_each_hash_chunk(dictionary, [&](std::span<const std::uint64_t> h, std::size_t first, const bool* v) {
      std::copy(h.begin(), h.end(), hashes.begin() + static_cast<std::ptrdiff_t>(first));
      if (v != nullptr) {
        for (std::size_t j = 0; j < h.size(); ++j) valid[first + j] = v[j] ? 1 : 0;
      }
    });
    auto check = [&](auto type_tag) {
      using I = decltype(type_tag);
      for (std::size_t i = 0; i < s.count; ++i) {
        if (s.validity != nullptr && !batch_paths::bit_at(s.validity, s.validity_offset + i)) continue;
        I index;
        std::memcpy(&index, s.data + i * sizeof(I), sizeof index);
        bool outside = static_cast<std::uint64_t>(index) >= s.dict_size;
        if constexpr (std::is_signed_v<I>) outside = outside || index < 0;
        if (outside) {
          bad = i;
          return;
        }
      }
    };
    switch (s.width) {
      case 1: index_signed ? check(std::int8_t{}) : check(std::uint8_t{}); break;
      case 2: index_signed ? check(std::int16_t{}) : check(std::uint16_t{}); break;
      case 4: index_signed ? check(std::int32_t{}) : check(std::uint32_t{}); break;
      default: index_signed ? check(std::int64_t{}) : check(std::uint64_t{}); break;
    }
  }
  if (bad != s.count) {
    throw_invalid("Arrow dictionary array: the index of key " + std::to_string(bad) + " lies outside its dictionary of " +
                  std::to_string(s.dict_size) + " values");
  }
  s.dict_hashes = hashes.data();
  s.dict_valid = valid.empty() ? nullptr : valid.data();
  batch.owned_dictionary_hashes.push_back(std::move(hashes));
  batch.owned_dictionary_valid.push_back(std::move(valid));
  batch.segments.push_back(s);
  for (auto& o : index_batch.keepalive) batch.keepalive.push_back(std::move(o));
  for (auto& o : dictionary.keepalive) batch.keepalive.push_back(std::move(o));
  batch.keepalive.push_back(arr);
  batch.total += s.count;
}

}  // namespace bloomkit::python
