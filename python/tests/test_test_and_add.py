"""Test-and-add (insert_if_absent and its batch bitmap) on every kind that inserts, and against
`bloomkit dedupe`, which prints exactly the lines the same filter's test-and-add calls new."""

from __future__ import annotations

import subprocess

import numpy as np
import pyarrow as pa
import pytest

import bloomkit
from conftest import INCREMENTAL

#: Every kind that inserts, with a constructor for n keys at fpr p.
ADDING = {cls.__name__: (lambda cls: (lambda n, p: cls(n, p)))(cls) for cls in INCREMENTAL}
ADDING["CuckooFilter"] = lambda n, p: bloomkit.CuckooFilter(n, p)
ADDING["AgePartitionedBloom"] = lambda n, p: bloomkit.AgePartitionedBloom(n, p)


@pytest.mark.parametrize("name", list(ADDING))
def test_one_key_new_then_seen(name):
    f = ADDING[name](1000, 0.01)
    assert f.insert_if_absent("apple") is True
    assert "apple" in f and f.inserted == 1
    before = f.to_bytes()
    assert f.insert_if_absent("apple") is False
    assert f.add_if_absent("apple") is False
    assert f.to_bytes() == before  # "present" changes nothing
    h = bloomkit.hash_key("pear", f)
    assert f.insert_if_absent_hash(h) is True and "pear" in f


@pytest.mark.parametrize("name", list(ADDING))
def test_batch_bitmap_equals_the_per_key_calls(name, rng):
    keys = [f"k{int(v)}" for v in rng.integers(0, 3000, 5000)]  # many repeats inside the batch
    f, g = ADDING[name](4000, 0.01), ADDING[name](4000, 0.01)
    f.add_many(["k1", "k2"])
    g.add_many(["k1", "k2"])
    bits = f.insert_if_absent_many(keys)
    assert bits.dtype == np.bool_ and bits.shape == (len(keys),)
    one_by_one = np.array([g.insert_if_absent(k) for k in keys])
    assert (bits == one_by_one).all()
    assert f.to_bytes() == g.to_bytes()
    # A key repeated in the batch is new at most once, and never when it was there before.
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    for i, k in enumerate(keys):
        if bits[i]:
            assert first[k] == i and k not in ("k1", "k2")
    assert f.may_contain_many(keys).all()  # no false negatives after test-and-add
    assert bits.sum() <= len(set(keys) - {"k1", "k2"})


@pytest.mark.parametrize("name", list(ADDING))
def test_batch_forms_over_numpy_hashes_and_arrow(name):
    f = ADDING[name](1000, 0.01)
    keys = np.arange(100, dtype=np.uint64)
    hashes = bloomkit.hash_keys(keys, f)
    g = f.copy()
    g.adopt_key_type("int64")  # hashes carry no type: g is given the one the keys give f
    assert (f.insert_if_absent_many(keys) == g.insert_if_absent_hashes(hashes)).all()
    assert f.to_bytes() == g.to_bytes()
    arrow = pa.array([10**12, None, 10**12 + 1, 10**12], type=pa.int64())
    bits = f.insert_if_absent_many(arrow)
    assert bits.tolist() == [True, False, True, False]  # the null is skipped
    assert f.insert_if_absent_many([]).shape == (0,)


@pytest.mark.parametrize("name", list(ADDING))
def test_bad_batches_leave_the_filter_unchanged(name):
    f = ADDING[name](1000, 0.01)
    f.add_many(range(10))
    before = f.to_bytes()
    for bad in ([1, 2, object()], [2**70], np.zeros((3, 3)), 5):
        with pytest.raises((TypeError, ValueError, OverflowError)):
            f.insert_if_absent_many(bad)
        assert f.to_bytes() == before


def test_mapped_filters_refuse_test_and_add(tmp_path):
    f = bloomkit.BlockedBloom(100)
    f.add("a")
    path = tmp_path / "f.bkf"
    f.save(path)
    with bloomkit.open(path) as m:
        with pytest.raises(bloomkit.ReadOnlyError):
            m.insert_if_absent("b")
        with pytest.raises(bloomkit.ReadOnlyError):
            m.insert_if_absent_many(["b"])
    assert path.read_bytes() == f.to_bytes()


def test_static_kinds_have_no_test_and_add():
    assert not hasattr(bloomkit.BinaryFuse, "insert_if_absent")
    assert not hasattr(bloomkit.Ribbon, "insert_if_absent_many")


@pytest.mark.parametrize("kind,extra,factory", [
    ("scalable", ["--capacity", "1000"], lambda: bloomkit.ScalableBloom(1000, 0.001)),
    ("blocked", ["--capacity", "5000"], lambda: bloomkit.BlockedBloom(5000, 0.001)),
    ("cuckoo", ["--capacity", "5000"], lambda: bloomkit.CuckooFilter(5000, 0.001)),
    ("window", ["--window", "700"], lambda: bloomkit.AgePartitionedBloom(700, 0.001)),
])
def test_dedupe_prints_what_insert_if_absent_calls_new(cli, tmp_path, rng, kind, extra, factory):
    keys = [f"line-{int(v)}" for v in rng.integers(0, 2500, 6000)]
    src = tmp_path / "lines.txt"
    src.write_text("\n".join(keys) + "\n")
    run = subprocess.run([cli, "dedupe", str(src), "--kind", kind, "--fpr", "0.001", "-q", *extra],
                         check=True, capture_output=True, text=True)
    bits = factory().insert_if_absent_many(keys)
    assert run.stdout.splitlines() == [k for k, new in zip(keys, bits) if new]
