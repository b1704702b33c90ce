"""Property tests (hypothesis): for any keys, sizes and operations, no false negatives, set
algebra is what it claims, and every round trip is exact."""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bloomkit

KEYS = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=20),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.booleans(),
)
INCREMENTAL = st.sampled_from([bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom,
                               bloomkit.CountingBloom, bloomkit.ScalableBloom])
FPRS = st.floats(min_value=1e-6, max_value=0.5)
#: Lists of keys of one key type (a filter holds one, docs/KEYS.md): byte strings and text
#: (bytes), integers and booleans (int64), floats (float64).
def key_lists(max_size):
    return st.one_of(
        st.lists(st.one_of(st.binary(max_size=40), st.text(max_size=20)), max_size=max_size),
        st.lists(st.one_of(st.integers(min_value=-(2**63), max_value=2**64 - 1), st.booleans()), max_size=max_size),
        st.lists(st.floats(allow_nan=False), max_size=max_size),
    )


SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cls=INCREMENTAL, keys=key_lists(300), capacity=st.integers(1, 500), fpr=FPRS)
def test_no_false_negatives_any_keys(cls, keys, capacity, fpr):
    f = cls(capacity, fpr)
    half = len(keys) // 2
    for k in keys[:half]:
        f.add(k)
    f.add_many(keys[half:])
    assert all(k in f for k in keys)
    assert f.may_contain_many(keys).all()
    assert f.inserted == len(keys)


@SETTINGS
@given(kind=st.sampled_from([bloomkit.BinaryFuse, bloomkit.Ribbon]), keys=key_lists(300),
       bits=st.sampled_from([8, 16]))
def test_static_no_false_negatives(kind, keys, bits):
    f = kind(keys, bits=bits)
    assert f.may_contain_many(keys).all()
    assert f.keys == len(set(bloomkit.hash_keys(keys, kind).tolist()))


@SETTINGS
@given(cls=st.sampled_from([bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom,
                            bloomkit.CountingBloom]),
       a=st.lists(st.integers(0, 10**6), max_size=200), b=st.lists(st.integers(0, 10**6), max_size=200))
def test_union_is_the_filter_of_the_union(cls, a, b):
    fa, fb, fab = (cls(500, 0.01, key_type="int64") for _ in range(3))
    fa.add_many(a)
    fb.add_many(b)
    fab.add_many(a + b)
    u = fa | fb
    assert u.to_bytes() == fab.to_bytes()
    i = fa & fb
    assert i.may_contain_many(sorted(set(a) & set(b))).all()


@SETTINGS
@given(cls=INCREMENTAL, keys=key_lists(100), protocol=st.integers(0, 5))
def test_round_trips_are_exact(cls, keys, protocol):
    f = cls(100, 0.01)
    f.add_many(keys)
    data = f.to_bytes()
    assert bloomkit.from_bytes(data).to_bytes() == data
    assert pickle.loads(pickle.dumps(f, protocol=protocol)).to_bytes() == data


@SETTINGS
@given(values=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=200),  # an empty batch types f, not g
       dtype=st.sampled_from(["int64", "int32", "int16", "int8", "uint8", "uint64"]))
def test_numpy_equals_key_by_key(values, dtype):
    arr = np.array(values, dtype=np.int64).astype(dtype)
    f, g = bloomkit.BlockedBloom(300), bloomkit.BlockedBloom(300)
    f.add_many(arr)
    for x in arr:
        g.add(x)  # NumPy scalars hash at their width, like the array's elements
    assert f.to_bytes() == g.to_bytes()


@SETTINGS
@given(keys=st.lists(st.binary(max_size=20), min_size=1, max_size=200, unique=True))
def test_counting_remove_restores(keys):
    f = bloomkit.CountingBloom(400, 0.01, key_type="bytes")
    empty = f.to_bytes()
    f.add_many(keys)
    for k in keys:
        assert f.remove(k)
    assert f.inserted == 0
    assert f.to_bytes() == empty
