// python/src/kinds.hpp - kind_info<F> for the seven kinds: the Python class
// name, the CLI's spelling and the parameters as a dict.
#pragma once

#include "filter_class.hpp"

namespace bloomkit::python {

inline void put_common(nb::dict& d, std::uint64_t capacity, double target_fpr, hash_spec hash) {
  d["capacity"] = capacity;
  d["target_fpr"] = target_fpr;
  d["hash"] = algorithm_name(hash);
  d["hash_seed"] = hash.seed;
}

template <>
struct kind_info<split_block_bloom> {
  static constexpr std::string_view class_name = "SplitBlockBloom";
  static constexpr std::string_view cli_name = "split-block";
  template <class X>
  static nb::dict params(const X& f) {
    nb::dict d;
    d["num_blocks"] = f.num_blocks();
    d["k"] = f.num_hashes();
    put_common(d, f.capacity(), f.target_fpr(), f.hash());
    return d;
  }
};

template <>
struct kind_info<blocked_bloom> {
  static constexpr std::string_view class_name = "BlockedBloom";
  static constexpr std::string_view cli_name = "blocked";
  template <class X>
  static nb::dict params(const X& f) {
    return kind_info<split_block_bloom>::params(f);
  }
};

template <>
struct kind_info<standard_bloom> {
  static constexpr std::string_view class_name = "StandardBloom";
  static constexpr std::string_view cli_name = "standard";
  template <class X>
  static nb::dict params(const X& f) {
    nb::dict d;
    d["bits"] = f.bit_count();
    d["k"] = f.num_hashes();
    put_common(d, f.capacity(), f.target_fpr(), f.hash());
    return d;
  }
};

template <>
struct kind_info<counting_bloom> {
  static constexpr std::string_view class_name = "CountingBloom";
  static constexpr std::string_view cli_name = "counting";
  template <class X>
  static nb::dict params(const X& f) {
    nb::dict d;
    d["counters"] = f.counters();
    d["k"] = f.num_hashes();
    put_common(d, f.capacity(), f.target_fpr(), f.hash());
    return d;
  }
};

template <>
struct kind_info<scalable_bloom> {
  static constexpr std::string_view class_name = "ScalableBloom";
  static constexpr std::string_view cli_name = "scalable";
  template <class X>
  static nb::dict params(const X& f) {
    nb::dict d;
    const auto& p = f.params();
    d["initial_capacity"] = p.initial_capacity;
    d["growth"] = p.growth;
    d["tightening"] = p.tightening;
    d["stages"] = f.stages();
    put_common(d, f.capacity(), f.target_fpr(), f.hash());
    return d;
  }
};

template <>
struct kind_info<binary_fuse> {
  static constexpr std::string_view class_name = "BinaryFuse";
  static constexpr std::string_view cli_name = "binary-fuse";
  template <class X>
  static nb::dict params(const X& f) {
    nb::dict d;
    const auto& p = f.params();
    d["fingerprint_bits"] = p.fingerprint_bits;
    d["arity"] = p.arity;
    d["segment_length"] = p.segment_length;
    d["segment_count"] = p.segment_count;
    d["seed"] = p.seed;
    d["keys"] = p.keys;
    d["hash"] = algorithm_name(p.hash);
    d["hash_seed"] = p.hash.seed;
    return d;
  }
};

template <>
struct kind_info<ribbon> {
  static constexpr std::string_view class_name = "Ribbon";
  static constexpr std::string_view cli_name = "ribbon";
  template <class X>
  static nb::dict params(const X& f) {
    nb::dict d;
    const auto& p = f.params();
    d["result_bits"] = p.result_bits;
    d["slots"] = p.slots;
    d["seed"] = p.seed;
    d["keys"] = p.keys;
    d["hash"] = algorithm_name(p.hash);
    d["hash_seed"] = p.hash.seed;
    return d;
  }
};

}  // namespace bloomkit::python
