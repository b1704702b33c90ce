"""Folding block filters: folded from 2^j blocks equals built directly at 2^(j-1) blocks."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bloomkit
from bloomkit import parquet

# Keys of one type per filter (a filter takes one key type, docs/KEYS.md): byte strings or integers.
keys = st.one_of(st.lists(st.binary(max_size=24), max_size=600),
                 st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=600))


def built(cls, blocks, items, **kw):
    f = cls.with_blocks(blocks, **kw) if cls is bloomkit.SplitBlockBloom else cls.with_blocks(blocks, 6, **kw)
    for k in items:
        f.add(k)
    return f


@settings(max_examples=60, deadline=None)
@given(items=keys, j=st.integers(min_value=1, max_value=10))
@pytest.mark.parametrize("cls", [bloomkit.SplitBlockBloom, bloomkit.BlockedBloom])
def test_fold_equals_built_at_half_the_blocks(cls, items, j):
    big = built(cls, 2**j, items)
    predicted = big.folded_fpr
    big.fold()
    direct = built(cls, 2 ** (j - 1), items)
    assert big.num_blocks == direct.num_blocks
    assert bytes(memoryview(big)) == bytes(memoryview(direct))
    assert predicted == pytest.approx(direct.estimated_fpr, rel=0, abs=0)
    assert all(k in big for k in items)


@settings(max_examples=40, deadline=None)
@given(items=keys, j=st.integers(min_value=1, max_value=12),
       fpp=st.floats(min_value=0.001, max_value=0.3))
def test_folded_meets_its_target_and_equals_built_at_its_size(items, j, fpp):
    big = built(bloomkit.SplitBlockBloom, 2**j, items)
    small = big.folded(fpp)
    assert big.num_blocks == 2**j  # folded() leaves the original alone
    if small.num_blocks < big.num_blocks:
        assert small.estimated_fpr <= fpp
    if small.num_blocks % 2 == 0:
        assert small.folded_fpr > fpp
    assert small.to_parquet_bitset() == built(bloomkit.SplitBlockBloom, small.num_blocks, items).to_parquet_bitset()
    by_fill = big.folded(fpp, estimate="mean_fill")
    assert by_fill.to_parquet_bitset() == built(bloomkit.SplitBlockBloom, by_fill.num_blocks, items).to_parquet_bitset()


def test_odd_block_counts_are_refused():
    f = bloomkit.SplitBlockBloom.with_blocks(3)
    f.add(b"x")
    with pytest.raises(ValueError):
        f.fold()
    with pytest.raises(ValueError):
        _ = f.folded_fpr
    assert f.num_blocks == 3
    assert f.folded(0.5).num_blocks == 3
    with pytest.raises(ValueError):
        f.folded(1.5)
    with pytest.raises(ValueError):
        f.folded(0.01, estimate="guess")


def test_filter_for_column_sizes_by_folding():
    values = pa.array([f"user-{i}" for i in range(5000)])
    f = parquet.filter_for_column(values, fpp=0.01)
    assert f.estimated_fpr <= 0.01
    start = parquet.foldable_filter(5000, 0.01)
    start.add_many(values)
    assert f.to_parquet_bitset() == start.folded(0.01).to_parquet_bitset()
    # With an upper bound on the distinct values (arrow-rs's max NDV), the filter starts large
    # and folds down to the same bits.
    bound = parquet.filter_for_column(values, fpp=0.01, ndv=1 << 20)
    assert bound.to_parquet_bitset() == f.to_parquet_bitset()
    assert bound.size_in_bytes < parquet.foldable_filter(1 << 20, 0.01).size_in_bytes
    assert all(v in f for v in values.to_pylist())
    # The writers' own sizing is still there for their exact bytes.
    duck = parquet.filter_for_column(values, fpp=0.01, writer="duckdb")
    assert duck.num_blocks == bloomkit.SplitBlockBloom.parquet_sized(5000, 0.01, "duckdb").num_blocks
