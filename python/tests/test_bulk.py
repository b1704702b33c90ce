"""No false negatives over millions of keys, for every kind and every input type, and every input
type of the same keys gives the same hashes (so the same filter)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import bloomkit
from conftest import ALL_KINDS, STATIC

N = 2_000_000  # keys per filter
SEED = 7


def inputs():
    """The same N integer keys as every input type, and N string keys likewise."""
    rng = np.random.default_rng(SEED)
    ints = rng.integers(-(2**62), 2**62, N, dtype=np.int64)
    strings = pa.array(ints).cast(pa.string())
    return {
        "numpy-int64": ints,
        "arrow-int64": pa.array(ints),
        "arrow-chunked-int64": pa.chunked_array([pa.array(ints[: N // 3]), pa.array(ints[N // 3 :])]),
        "hashes": None,  # filled per filter: bloomkit.hash_keys(ints, f)
        "arrow-string": strings,
        "arrow-large-string": strings.cast(pa.large_string()),
        "arrow-binary": strings.cast(pa.binary()),
    }


@pytest.fixture(scope="module")
def keys():
    return inputs()


def make(cls, source, spec_source):
    if cls in STATIC:
        if source is None:
            return cls.from_hashes(bloomkit.hash_keys(spec_source, cls))
        return cls(source)
    f = cls(N // 2 if cls is bloomkit.ScalableBloom else N, 0.01)
    if source is None:
        f.add_hashes(bloomkit.hash_keys(spec_source, f))
    else:
        f.add_many(source)
    return f


@pytest.mark.slow
@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("input_type", list(inputs().keys()))
def test_no_false_negatives(cls, input_type, keys):
    source = keys[input_type]
    spec_source = keys["numpy-int64"]
    f = make(cls, source, spec_source)
    if source is None:
        source_hashes = bloomkit.hash_keys(spec_source, f)
        assert f.may_contain_hashes(source_hashes).all()
        assert f.may_contain_many(spec_source).all()
    else:
        assert f.may_contain_many(source).all()
    assert f.inserted == (f.keys if cls in STATIC else N)


@pytest.mark.slow
def test_input_types_agree(keys):
    ints = keys["numpy-int64"]
    want = bloomkit.hash_keys(ints, "blocked")
    for name in ("arrow-int64", "arrow-chunked-int64"):
        assert (bloomkit.hash_keys(keys[name], "blocked") == want).all(), name
    assert (bloomkit.hash_keys(ints[:100_000].tolist(), "blocked") == want[:100_000]).all()
    s = bloomkit.hash_keys(keys["arrow-string"], "blocked")
    for name in ("arrow-large-string", "arrow-binary"):
        assert (bloomkit.hash_keys(keys[name], "blocked") == s).all(), name
    sample = keys["arrow-string"].slice(0, 100_000)
    assert (bloomkit.hash_keys(sample.to_pylist(), "blocked") == s[:100_000]).all()
    assert (bloomkit.hash_keys(np.array(sample.to_pylist(), dtype=object), "blocked") == s[:100_000]).all()


@pytest.mark.slow
@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_per_key_and_iterable_paths(cls):
    """The slow paths (one key per call, a Python iterable) over a million keys."""
    words = [f"w{i}" for i in range(1_000_000)]
    if cls in STATIC:
        f = cls(iter(words))
    else:
        f = cls(len(words), 0.01)
        for w in words[:200_000]:
            f.add(w)
        f.add_many(iter(words[200_000:]))
    assert all(w in f for w in words[::10])
    assert f.may_contain_many(words).all()
