// python/src/sizing.cpp - bind_sizing: bloomkit/sizing.hpp's math, exposed
// as bloomkit.sizing (python/bloomkit/sizing.py re-exports these with docs).
#include <nanobind/nanobind.h>

#include "bloomkit/sizing.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace bloomkit::python {

void bind_sizing(nb::module_& m) {
  nb::module_ s = m.def_submodule("_sizing", "bloomkit/sizing.hpp: the math of sizes, FPRs and cardinality.");
  s.def("bits_per_key_for", &sizing::bits_per_key_for, "p"_a,
        "Bits per key a classic Bloom filter needs for FPR p at the optimal k: -log2(p) / ln 2.");
  s.def("bits_for", &sizing::bits_for, "n"_a, "p"_a, "Bits m for n keys at FPR p (classic formula, optimal k).");
  s.def("bits_for_k", &sizing::bits_for_k, "n"_a, "p"_a, "k"_a, "Bits m for n keys at FPR p with k probes.");
  s.def(
      "standard_plan_for",
      [](std::uint64_t n, double p) {
        const auto plan = sizing::standard_plan_for(n, p);
        return nb::make_tuple(plan.bits, plan.k);
      },
      "n"_a, "p"_a, "(bits, k) StandardBloom(n, p) chooses: the fewest bits over the two integer k near log2(1/p).");
  s.def("optimal_k", &sizing::optimal_k, "m"_a, "n"_a, "The k minimising the FPR of m bits holding n keys.");
  s.def("optimal_k_for", &sizing::optimal_k_for, "p"_a, "The optimal k for FPR p: round(log2(1/p)).");
  s.def("classic_fpr", &sizing::classic_fpr, "m"_a, "n"_a, "k"_a, "(1 - e^(-kn/m))^k.");
  s.def("exact_fpr", &sizing::exact_fpr, "m"_a, "n"_a, "k"_a, "The exact FPR of a finite m-bit filter (docs/MATH.md).");
  s.def("blocked_fpr", &sizing::blocked_fpr, "m"_a, "n"_a, "k"_a, "block_bits"_a = 512,
        "FPR of a blocked filter (Poisson mixture over block loads, exact per-block term).");
  s.def("split_block_fpr", &sizing::split_block_fpr, "blocks"_a, "n"_a,
        "FPR of a split-block filter of `blocks` 256-bit blocks holding n keys.");
  s.def("split_block_blocks_for", &sizing::split_block_blocks_for, "n"_a, "p"_a,
        "Blocks SplitBlockBloom(n, p) allocates.");
  s.def(
      "blocked_blocks_for",
      [](std::uint64_t n, double p, std::uint32_t block_bits, std::uint32_t max_k) {
        const auto plan = sizing::blocked_blocks_for(n, p, block_bits, max_k);
        return nb::make_tuple(plan.blocks, plan.k);
      },
      "n"_a, "p"_a, "block_bits"_a = 512, "max_k"_a = 16, "(blocks, k) a blocked filter for n keys at FPR p uses.");
  s.def("fpr_for", &sizing::fpr_for, "bits_per_key"_a, "k"_a, "Classic FPR at this many bits per key and k.");
  s.def("capacity_for", &sizing::capacity_for, "m"_a, "p"_a, "Keys m bits hold at FPR p (classic, optimal k).");
  s.def("cardinality_from_bits", &sizing::cardinality_from_bits, "m"_a, "k"_a, "set_bits"_a,
        "Swamidass-Baldi estimate of distinct keys from the bits set: -(m/k) ln(1 - set/m).");
  s.def("fpr_from_fill", &sizing::fpr_from_fill, "fill"_a, "k"_a, "FPR of a filter with this fill ratio: fill^k.");
  s.def(
      "parquet_writer_bytes",
      [](std::uint64_t ndv, double fpp, std::string_view writer) {
        sizing::parquet_writer w = sizing::parquet_writer::duckdb;
        if (writer == "arrow_cpp" || writer == "arrow" || writer == "pyarrow") {
          w = sizing::parquet_writer::arrow_cpp;
        } else if (writer == "arrow_rs") {
          w = sizing::parquet_writer::arrow_rs;
        } else if (writer != "duckdb") {
          throw bloomkit::error(errc::invalid_argument, "writer must be \"duckdb\", \"arrow_cpp\" or \"arrow_rs\"");
        }
        return sizing::parquet_writer_bytes(ndv, fpp, w);
      },
      "ndv"_a, "fpp"_a, "writer"_a = "duckdb", "Bitset bytes a Parquet writer allocates for ndv values at fpp.");
}

}  // namespace bloomkit::python
