"""Arrow dictionary arrays as keys: each dictionary value is hashed once and each key is its
index's hash (python/src/keys.cpp, add_arrow_dictionary), never through pyarrow's
dictionary_decode. The answers and the filter's bytes must equal those of the decoded array,
for string and integer dictionaries, every index type, nulls in the indices and in the
dictionary, chunks with different dictionaries, and slices."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import bloomkit

INDEX_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
KINDS = [bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom]


def decoded(x):
    """The same keys without a dictionary (pyarrow's own decoding, as the reference)."""
    if isinstance(x, pa.ChunkedArray):
        return pa.chunked_array([c.dictionary_decode() for c in x.chunks], type=x.type.value_type)
    return x.dictionary_decode()


def dictionary_array(values, index_type, rng, n=300, null_every=0):
    """n keys drawn from `values` (a pyarrow Array, nulls allowed), every null_every-th index null."""
    idx = rng.integers(0, len(values), n)
    mask = None if null_every == 0 else (np.arange(n) % null_every == 1)
    indices = pa.array(idx, type=index_type, mask=mask)
    return pa.DictionaryArray.from_arrays(indices, values)


def check_same_as_decoded(cls, x, probes):
    ref = decoded(x)
    f, g = cls(1000, 0.01), cls(1000, 0.01)
    f.add_many(x)
    g.add_many(ref)
    assert f.to_bytes() == g.to_bytes()
    assert f.inserted == g.inserted == len(ref) - ref.null_count
    for p in (x, probes):
        want = g.may_contain_many(decoded(p) if pa.types.is_dictionary(p.type) else p)
        assert np.array_equal(f.may_contain_many(p), want)
    assert np.array_equal(f.may_contain_many(x), g.may_contain_many(ref))
    # Nulls are no keys: the decoded array's nulls answer False here too.
    answers = f.may_contain_many(x)
    ref_nulls = np.asarray(ref.is_null().to_pylist() if isinstance(ref, pa.ChunkedArray) else ref.is_null())
    assert not answers[ref_nulls].any()
    assert answers[~ref_nulls].all()  # no false negatives


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=str)
@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.__name__)
def test_string_dictionaries_equal_the_decoded_array(cls, index_type):
    rng = np.random.default_rng(11)
    values = pa.array([f"value-{i}-" + "x" * (i % 40) for i in range(100)])
    x = dictionary_array(values, index_type, rng, null_every=7)
    probes = pa.array([f"value-{i}-" + "x" * (i % 40) for i in range(50, 200)])
    check_same_as_decoded(cls, x, probes)
    check_same_as_decoded(cls, x.slice(13, 200), probes)


@pytest.mark.parametrize("value_type", [pa.int64(), pa.int32(), pa.uint64(), pa.float64(), pa.large_string(),
                                        pa.binary(), pa.int16()], ids=str)
def test_other_value_types_and_nulls_in_the_dictionary(value_type):
    rng = np.random.default_rng(12)
    raw = list(range(-20, 40)) if value_type in (pa.int64(), pa.int32(), pa.int16()) else list(range(60))
    if value_type == pa.float64():
        raw = [v * 0.5 for v in raw]
    elif value_type in (pa.large_string(), pa.binary()):
        raw = [str(v).encode() if value_type == pa.binary() else str(v) for v in raw]
    values = pa.array([None if i % 9 == 4 else v for i, v in enumerate(raw)], type=value_type)
    x = dictionary_array(values, pa.int32(), rng, n=500, null_every=11)
    check_same_as_decoded(bloomkit.SplitBlockBloom, x, x.dictionary)


def test_chunks_with_different_dictionaries_and_sliced_chunked_arrays():
    rng = np.random.default_rng(13)
    a = dictionary_array(pa.array([f"a{i}" for i in range(30)]), pa.int8(), rng, null_every=5)
    b = dictionary_array(pa.array([f"b{i}" for i in range(70)]), pa.int8(), rng)
    c = dictionary_array(pa.array(["a1", None, "b2"]), pa.int8(), rng, n=40)
    chunked = pa.chunked_array([a, b.slice(100), c])
    probes = pa.array([f"a{i}" for i in range(40)] + [f"b{i}" for i in range(80)])
    check_same_as_decoded(bloomkit.BlockedBloom, chunked, probes)
    check_same_as_decoded(bloomkit.BlockedBloom, chunked.slice(250, 200), probes)


def test_empty_and_all_null_dictionary_arrays():
    f = bloomkit.SplitBlockBloom(100, 0.01)
    empty = pa.DictionaryArray.from_arrays(pa.array([], type=pa.int32()), pa.array([], type=pa.string()))
    f.add_many(empty)
    assert f.inserted == 0 and len(f.may_contain_many(empty)) == 0
    nulls = pa.DictionaryArray.from_arrays(pa.array([None, None], type=pa.int32()), pa.array([], type=pa.string()))
    f.add_many(nulls)
    assert f.inserted == 0 and not f.may_contain_many(nulls).any()


def test_hash_keys_and_add_hashes_over_dictionaries():
    x = pa.array(["x", "y", "x", "z"]).dictionary_encode()
    assert list(bloomkit.hash_keys(x, ("xxh64", 0))) == list(bloomkit.hash_keys(decoded(x), ("xxh64", 0)))
    hashes = pa.DictionaryArray.from_arrays(pa.array([1, 0, 1], type=pa.int8()),
                                            pa.array([2**64 - 1, 5], type=pa.uint64()))
    f, g = bloomkit.SplitBlockBloom(100, 0.01), bloomkit.SplitBlockBloom(100, 0.01)
    f.add_hashes(hashes)
    g.add_hashes(np.array([5, 2**64 - 1, 5], dtype=np.uint64))
    assert f.to_bytes() == g.to_bytes()


def test_an_index_outside_the_dictionary_is_refused_and_changes_nothing():
    values = pa.array(["a", "b"])
    for index_type, bad in ((pa.int8(), 2), (pa.int8(), -1), (pa.uint16(), 7), (pa.int64(), 2**40)):
        x = pa.DictionaryArray.from_arrays(pa.array([0, 1, bad, 0], type=index_type), values, safe=False)
        f = bloomkit.SplitBlockBloom(100, 0.01)
        before = f.to_bytes()
        with pytest.raises(bloomkit.InvalidArgumentError, match="index of key 2 lies outside"):
            f.add_many(x)
        with pytest.raises(bloomkit.InvalidArgumentError):
            f.may_contain_many(x)
        assert f.to_bytes() == before
    # A bad index under a null slot is never read: that key is null.
    x = pa.DictionaryArray.from_arrays(pa.array([0, 99, 1], type=pa.int8(), mask=np.array([False, True, False])),
                                       values, safe=False)
    f = bloomkit.SplitBlockBloom(100, 0.01)
    f.add_many(x)
    assert f.inserted == 2 and list(f.may_contain_many(x)) == [True, False, True]
