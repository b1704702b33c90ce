"""bloomkit.sizing: the math behind every filter's size and FPR (C++ bloomkit/sizing.hpp,
derivations in docs/MATH.md). n = keys, p = false-positive rate, m = bits, k = probes."""

from ._bloomkit._sizing import (
    bits_per_key_for,
    bits_for,
    bits_for_k,
    standard_plan_for,
    optimal_k,
    optimal_k_for,
    classic_fpr,
    exact_fpr,
    blocked_fpr,
    split_block_fpr,
    split_block_blocks_for,
    blocked_blocks_for,
    fpr_for,
    capacity_for,
    cardinality_from_bits,
    fpr_from_fill,
    parquet_writer_bytes,
)

__all__ = [
    "bits_per_key_for", "bits_for", "bits_for_k", "standard_plan_for", "optimal_k", "optimal_k_for",
    "classic_fpr", "exact_fpr", "blocked_fpr", "split_block_fpr", "split_block_blocks_for",
    "blocked_blocks_for", "fpr_for", "capacity_for", "cardinality_from_bits", "fpr_from_fill",
    "parquet_writer_bytes",
]
