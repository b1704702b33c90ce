"""The fast routes give the same filters and answers as the plain ones.

Batches of aligned 4- and 8-byte keys without nulls go to the library's keyed batch calls whole
(insert_keys / may_contain_keys: SIMD hashing inside the prefetch pipeline), precomputed hashes
to insert_many in place, misaligned or nullable ones through the chunked path; per-key add / insert /
may_contain are METH_O methods and `in` the sq_contains slot. Each must equal one add_hash per key
of bloomkit.hash_keys (itself checked against the hash of each element's bytes in test_keys.py)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import bloomkit
from conftest import INCREMENTAL, STATIC

DTYPES = ["int64", "uint64", "float64", "datetime64[ns]", "int32", "uint32", "float32", "int16", "uint8", "bool"]
# Around the 8-lane SIMD step, the 256-key hash chunk and the 2048-key Python chunk.
LENGTHS = [0, 1, 7, 9, 257, 2049, 5000]


def keys_of(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("float"):
        return rng.standard_normal(n).astype(dtype)
    if dtype.startswith("datetime"):  # whole microseconds: a timestamp_us key each (docs/KEYS.md)
        return (rng.integers(-(2**40), 2**40, n) * 1000).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def misaligned(arr: np.ndarray) -> np.ndarray:
    """The same values at an address that is not a multiple of their width."""
    raw = np.frombuffer(b"\0" + arr.tobytes(), dtype=np.uint8)
    out = np.frombuffer(raw.data, dtype=arr.dtype, offset=1, count=len(arr))
    assert arr.dtype.itemsize == 1 or out.ctypes.data % arr.dtype.itemsize != 0
    return out


def reference(cls, hashes: np.ndarray, key_type=None):
    """One add_hash per hash, into a filter of `key_type` (the type the keys give a new filter)."""
    f = cls(6000, 0.01, key_type=key_type)
    for h in hashes.tolist():
        f.add_hash(h)
    return f


def key_type_of(keys):
    """The key type a batch gives an untyped filter (None for an empty batch)."""
    return bloomkit._bloomkit._batch_key_type(keys)


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_batches_equal_one_add_per_key(cls, dtype, rng):
    for n in LENGTHS:
        arr = keys_of(dtype, n, rng)
        kt = key_type_of(arr)
        hashes = bloomkit.hash_keys(arr, cls, key_type=kt)
        want = reference(cls, hashes, kt)
        for variant in (arr, misaligned(arr)):
            assert (bloomkit.hash_keys(variant, cls, key_type=kt) == hashes).all(), (dtype, n)
            f = cls(6000, 0.01)
            f.add_many(variant)
            assert f.to_bytes() == want.to_bytes(), (cls.__name__, dtype, n)
            probe = np.concatenate([variant, keys_of(dtype, 300, rng)])
            got = f.may_contain_many(probe)
            expected = [want.may_contain_hash(h) for h in bloomkit.hash_keys(probe, cls, key_type=kt).tolist()]
            assert got.tolist() == expected, (cls.__name__, dtype, n)
            assert f.may_contain_many(misaligned(probe)).tolist() == expected, (cls.__name__, dtype, n)
            assert got[:n].all()


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_hash_batches_in_place_and_arrow_with_nulls(cls, rng):
    ints = keys_of("int64", 3000, rng)
    hashes = bloomkit.hash_keys(ints, cls)
    want = reference(cls, hashes, "int64")
    f = cls(6000, 0.01, key_type="int64")
    f.add_hashes(hashes)
    assert f.to_bytes() == want.to_bytes()
    assert f.may_contain_hashes(hashes).all()
    # Arrow int64 with nulls takes the chunked path and skips the nulls.
    mask = rng.random(3000) < 0.1
    arr = pa.array(ints, mask=mask)
    g = cls(6000, 0.01)
    g.add_many(arr)
    assert g.to_bytes() == reference(cls, hashes[~mask], "int64").to_bytes()
    answers = g.may_contain_many(arr)
    assert not answers[mask].any() and answers[~mask].all()
    # Arrow without nulls is the whole-array route, sliced (offset) and chunked alike.
    h = cls(6000, 0.01)
    h.add_many(pa.chunked_array([pa.array(ints[:1001]), pa.array(ints).slice(1001)]))
    assert h.to_bytes() == want.to_bytes()


@pytest.mark.parametrize("cls", STATIC, ids=lambda c: c.__name__)
def test_static_queries_take_the_same_routes(cls, rng):
    ints = keys_of("int64", 5000, rng)
    f = cls(ints)
    probe = np.concatenate([ints, keys_of("int64", 5000, rng)])
    hashes = bloomkit.hash_keys(probe, f)
    expected = [f.may_contain_hash(h) for h in hashes.tolist()]
    assert f.may_contain_many(probe).tolist() == expected
    assert f.may_contain_many(misaligned(probe)).tolist() == expected
    assert f.may_contain_hashes(hashes).tolist() == expected


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_per_key_methods_equal_the_batch(cls):
    # One list per key type: a filter holds keys of one type (docs/KEYS.md).
    for keys in (["", "a", "héllo", "x" * 300, b"raw", bytearray(b"ba"), memoryview(b"mv")],
                 [0, -1, 2**64 - 1, -(2**63), True, np.int32(7), np.uint8(3), 5.0],
                 [1.5, np.float64(2.5), np.float32(0.25), 7]):
        f = cls(1000, 0.01)
        for k in keys:
            f.add(k)
        g = cls(1000, 0.01)
        for k in keys:
            g.insert(k)
        h = cls(1000, 0.01)
        h.add_many(keys)
        assert f.to_bytes() == g.to_bytes() == h.to_bytes()
        assert all(k in f for k in keys) and all(f.may_contain(k) for k in keys)
        assert f.inserted == len(keys)


def test_per_key_methods_check_their_arguments():
    f = bloomkit.SplitBlockBloom(100, 0.01)
    with pytest.raises(TypeError):
        f.add()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        f.add("a", "b")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        f.may_contain(object())  # type: ignore[arg-type]
    with pytest.raises(bloomkit.KeyOverflowError):
        f.add(2**64)
    with pytest.raises(bloomkit.KeyOverflowError):
        _ = -(2**63) - 1 in f
    with pytest.raises(TypeError):
        bloomkit.SplitBlockBloom.add(bloomkit.BlockedBloom(10, 0.01), "a")  # another class's instance
    assert f.inserted == 0
    # A str that has no UTF-8 (a lone surrogate) is an error, not a key.
    with pytest.raises(UnicodeEncodeError):
        f.add("\ud800")
    assert f.inserted == 0
    # help() and inspect show the parameter.
    assert "add(self, key, /)" in bloomkit.SplitBlockBloom.add.__doc__ or \
        str(__import__("inspect").signature(bloomkit.SplitBlockBloom.add)) == "(self, key, /)"


def test_uninitialised_objects_are_refused_not_crashed():
    for cls in INCREMENTAL:
        try:
            raw = cls.__new__(cls)
        except TypeError:
            continue  # the class refuses to be made without __init__: nothing to check
        with pytest.raises(TypeError):
            raw.add("a")
        with pytest.raises(TypeError):
            _ = "a" in raw
        with pytest.raises(TypeError):
            raw.may_contain("a")


def test_subclasses_keep_the_fast_methods():
    class Mine(bloomkit.BlockedBloom):
        pass

    f = Mine(100, 0.01)
    f.add("a")
    assert "a" in f and f.may_contain("a") and f.inserted == 1


def test_mapped_filters_refuse_add(tmp_path):
    f = bloomkit.SplitBlockBloom(100, 0.01)
    f.add("a")
    f.save(tmp_path / "f.bkf")
    with bloomkit.open(tmp_path / "f.bkf") as m:
        assert "a" in m and m.may_contain("a")
        with pytest.raises(bloomkit.ReadOnlyError):
            m.add("b")
        words = [str(i) for i in range(10)]
        assert m.may_contain_many(words).tolist() == [f.may_contain(w) for w in words]
    with pytest.raises(bloomkit.ClosedError):
        _ = "a" in m
    with pytest.raises(bloomkit.ClosedError):
        m.add("a")


@pytest.mark.parametrize("k", [1, 2, 3, 7, 13, 64])
@pytest.mark.parametrize("fill", [0.3, 1.0, 3.0])
def test_standard_per_key_query_equals_the_batch_path(k, fill, tmp_path):
    # StandardBloom's per-key `in` reads all k words without a branch (python/src/fast_calls.hpp,
    # standard_test_branch_free); the batch path is the library's early-exit standard_test_many.
    # Over a fixed seed set, the inserted keys (every one True) and 20,000 others at under-,
    # design and 3x fill (then many false positives, so both answers occur), owned and mapped alike.
    rng = np.random.default_rng(1000 * k + int(10 * fill))
    n = 2000
    f = bloomkit.StandardBloom.with_bits(int(n * k * 1.44 / fill) + 1, k)
    present = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64)
    absent = rng.integers(-(2**63), 2**63 - 1, 20000, dtype=np.int64)
    f.add_many(present)
    path = tmp_path / "s.bkf"
    f.save(path)
    for g in (f, bloomkit.open(path)):
        for keys in (present, absent):
            batch = g.may_contain_many(keys)
            per_key = np.array([int(x) in g for x in keys])
            assert np.array_equal(per_key, batch)
            assert np.array_equal(np.array([g.may_contain(int(x)) for x in keys]), batch)
        assert g.may_contain_many(present).all()
        answers = g.may_contain_many(absent)
        if fill == 3.0 and k <= 13:  # overfilled: false positives beside true negatives (FPR 0.18-0.88)
            assert answers.any() and not answers.all()
        if g.read_only:
            g.close()
