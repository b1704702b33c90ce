"""CuckooFilter: no false negatives, remove, the full table (FullError, nothing changed), the
refused merge, sizing against the paper's bound, measured FPR against the reported one, files
and pickles, and byte-identical files with the CLI (build and remove)."""

from __future__ import annotations

import math
import pickle
import subprocess

import numpy as np
import pytest

import bloomkit
from test_fpr import QUERIES, absent_keys, binomial_bound, present_keys


def full_tiny_filter():
    """One bucket of 4 slots: every key's two buckets are bucket 0, so the 5th key takes the
    victim slot and the filter is full."""
    f = bloomkit.CuckooFilter.with_buckets(1, 8)
    for i in range(5):
        f.add(f"k{i}")
    assert f.full and f.inserted == 5
    return f


def absent_from(f, prefix="absent"):
    """A key `f` certainly does not hold (so insert_if_absent must try to insert it)."""
    if f.key_type == "int64":
        return next(k for k in range(10**12, 10**12 + 10_000) if k not in f)
    return next(k for k in (f"{prefix}-{i}" for i in range(10_000)) if k not in f)


def test_no_false_negatives_at_capacity():
    n = 200_000
    f = bloomkit.CuckooFilter(n, 0.01)
    keys = present_keys(n, 21)
    f.add_many(keys)
    assert not f.full and f.inserted == n
    assert f.may_contain_many(keys).all()
    assert f.load_factor == pytest.approx(n / f.slots)
    assert f.fill_ratio == f.load_factor
    assert f.occupied_slots == n  # no victim at 95 % load
    assert f.estimated_cardinality == n


@pytest.mark.parametrize("p", [0.01, 0.001])
def test_bits_per_key_within_5_percent_of_the_paper_bound(p):
    # Fan et al. section 5.1: about (log2(1/p) + 3) / alpha bits per key at load alpha = 0.95.
    f = bloomkit.CuckooFilter(1_000_000, p)
    bound = (math.log2(1 / p) + 3) / 0.95
    assert f.size_in_bytes * 8 / f.capacity <= 1.05 * bound
    assert f.params["fingerprint_bits"] == f.fingerprint_bits
    paper = bloomkit.CuckooFilter(1_000_000, p, widths="paper")
    assert paper.fingerprint_bits in (8, 12, 16) and paper.fingerprint_bits >= f.fingerprint_bits


@pytest.mark.parametrize("n,p", [(100_000, 0.01), (100_000, 0.001)])
def test_measured_fpr_matches_the_reported_one(n, p):
    f = bloomkit.CuckooFilter(n, p)
    f.add_many(present_keys(n, 22))
    measured = f.may_contain_many(absent_keys(QUERIES, 23)).mean()
    assert abs(measured - f.estimated_fpr) <= binomial_bound(f.estimated_fpr, QUERIES)
    assert f.estimated_fpr <= p and f.design_fpr <= p
    assert f.estimated_fpr <= f.full_load_fpr <= 8 / 2**f.fingerprint_bits * 1.01


def test_remove():
    f = bloomkit.CuckooFilter(10_000, 0.001)
    keys = [f"k{i}" for i in range(10_000)]
    f.add_many(keys)
    assert all(f.remove(k) for k in keys[::2])
    assert f.inserted == 5_000
    assert f.may_contain_many(keys[1::2]).all()  # the others are still found
    assert f.may_contain_many(keys[::2]).mean() < 0.01  # removed ones answer at about the FPR
    assert f.count(keys[1]) >= 1


def test_multiset_add_twice_remove_once():
    f = bloomkit.CuckooFilter(100, 0.01)
    f.add("a")
    f.add("a")
    assert f.count("a") == 2 and f.inserted == 2
    assert f.remove("a") and "a" in f
    assert f.remove("a") and "a" not in f
    assert f.remove("a") is False


def test_remove_of_an_absent_key_changes_nothing():
    f = bloomkit.CuckooFilter(1000, 0.01)
    f.add_many(range(500))
    before = f.to_bytes()
    assert f.remove(absent_from(f)) is False
    assert f.to_bytes() == before


def test_a_full_filter_refuses_and_changes_nothing():
    f = full_tiny_filter()
    assert f.may_contain_many([f"k{i}" for i in range(5)]).all()  # the victim is still found
    before = f.to_bytes()
    with pytest.raises(bloomkit.FullError, match="full"):
        f.add("one more")
    with pytest.raises(RuntimeError):  # FullError is a RuntimeError
        f.add_hash(12345)
    with pytest.raises(bloomkit.FullError):
        f.insert_if_absent(absent_from(f))
    assert f.insert_if_absent("k0") is False  # present keys are answered, not refused
    assert f.to_bytes() == before


def test_a_batch_that_fills_the_filter_is_rolled_back_whole():
    f = bloomkit.CuckooFilter.with_buckets(2, 8)
    f.add_many(["a", "b"])
    before = f.to_bytes()
    with pytest.raises(bloomkit.FullError, match="as it was before"):
        f.add_many([f"x{i}" for i in range(50)])
    assert f.to_bytes() == before and not f.full
    with pytest.raises(bloomkit.FullError):
        f.insert_if_absent_many([f"y{i}" for i in range(50)])
    assert f.to_bytes() == before
    f.add_many(["c"])  # still usable
    assert f.inserted == 3


def test_remove_makes_room_again():
    f = full_tiny_filter()
    assert f.remove("k0") and not f.full
    assert all(f"k{i}" in f for i in range(1, 5))
    f.add("again")
    assert "again" in f


def test_merge_is_refused_with_the_reason():
    a, b = bloomkit.CuckooFilter(100), bloomkit.CuckooFilter(100)
    a.add("x")
    before = a.to_bytes()
    for op in (lambda: a.merge(b), lambda: a.intersect(b), lambda: a | b, lambda: a & b):
        with pytest.raises(bloomkit.UnsupportedError, match="do not merge"):
            op()
    with pytest.raises(NotImplementedError):
        a |= b
    assert a.to_bytes() == before


def test_bad_parameters():
    for bad in (lambda: bloomkit.CuckooFilter(0), lambda: bloomkit.CuckooFilter(10, 0.0),
                lambda: bloomkit.CuckooFilter(10, 1e-5), lambda: bloomkit.CuckooFilter(10, widths="big"),
                lambda: bloomkit.CuckooFilter.with_buckets(0, 8), lambda: bloomkit.CuckooFilter.with_buckets(10, 3),
                lambda: bloomkit.CuckooFilter.with_buckets(10, 17),
                lambda: bloomkit.CuckooFilter.with_buckets(10, 8, capacity=41)):
        with pytest.raises(bloomkit.InvalidArgumentError):
            bad()


def test_state_repr_and_params():
    f = bloomkit.CuckooFilter(1000, 0.01)
    f.add_many(range(100))
    assert f.kind == "cuckoo" and bloomkit.kind("cuckoo") is bloomkit.CuckooFilter
    assert bloomkit.kind("cuckoo_filter") is bloomkit.CuckooFilter
    assert f.params == {"buckets": f.buckets, "fingerprint_bits": f.fingerprint_bits, "slots_per_bucket": 4,
                        "capacity": 1000, "target_fpr": 0.01, "hash": "xxh3_64", "hash_seed": 0,
                        "key_type": "int64"}
    assert f.slots == 4 * f.buckets and f.saturated is False
    assert f.bits_per_key == pytest.approx(f.size_in_bytes * 8 / 100)
    assert "CuckooFilter" in repr(f) and "fill" in repr(f) and "fpr" in repr(f)
    assert math.isinf(bloomkit.CuckooFilter(10).bits_per_key)


def test_files_pickles_buffer_and_mapping(tmp_path):
    f = bloomkit.CuckooFilter(5000, 0.01)
    f.add_many([f"k{i}" for i in range(5000)])
    data = f.to_bytes()
    assert type(bloomkit.from_bytes(data)) is bloomkit.CuckooFilter
    assert bloomkit.CuckooFilter.from_bytes(data).to_bytes() == data
    path = tmp_path / "c.bkf"
    f.save(path)
    assert path.read_bytes() == data and bloomkit.load(path).to_bytes() == data
    assert bloomkit.inspect(path)["kind"] == "cuckoo_filter"
    assert data.endswith(memoryview(f).tobytes())
    buffers: list[pickle.PickleBuffer] = []
    stream = pickle.dumps(f, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(stream) < 1024
    assert pickle.loads(stream, buffers=buffers).to_bytes() == data
    with bloomkit.open(path) as m:
        assert type(m) is bloomkit.CuckooFilter and m.read_only
        assert m.may_contain_many([f"k{i}" for i in range(5000)]).all()
        for change in (lambda: m.add("x"), lambda: m.remove("k1"), lambda: m.insert_if_absent("x"), m.clear):
            with pytest.raises(bloomkit.ReadOnlyError):
                change()
    assert path.read_bytes() == data
    with pytest.raises(bloomkit.MismatchError):
        bloomkit.CuckooFilter.from_bytes(bloomkit.BlockedBloom(10).to_bytes())
    bad = bytearray(data)
    bad[-1] ^= 1
    with pytest.raises(bloomkit.ChecksumError):
        bloomkit.from_bytes(bytes(bad))


def cli_build(cli, tmp_path, keys, *args):
    src = tmp_path / "keys.txt"
    src.write_text("".join(k + "\n" for k in keys))
    out = tmp_path / "cli.bkf"
    subprocess.run([cli, "build", str(src), "-o", str(out), "-q", *args], check=True, capture_output=True)
    return out


@pytest.mark.parametrize("p", [0.01, 0.0005])
def test_cli_build_and_remove_give_the_same_bytes(cli, tmp_path, rng, p):
    keys = [f"user-{int(v)}" for v in rng.integers(0, 2**40, 20_000)] + ["", "dup", "dup"]
    out = cli_build(cli, tmp_path, keys, "--kind", "cuckoo", "--capacity", "20003", "--fpr", repr(p))
    f = bloomkit.CuckooFilter(20_003, p)
    f.add_many(keys)
    assert f.to_bytes() == out.read_bytes()
    gone = keys[:100] + ["dup"]
    subprocess.run([cli, "remove", str(out), *gone], check=True, capture_output=True)
    for k in gone:
        assert f.remove(k)
    assert f.to_bytes() == out.read_bytes()
    assert bloomkit.load(out).may_contain_many(keys[100:]).all()


def test_cli_reads_a_full_python_filter(cli, tmp_path):
    # A file Python wrote (full, victim taken) reads back in the CLI with the same facts.
    f = full_tiny_filter()
    path = tmp_path / "full.bkf"
    f.save(path)
    info = subprocess.run([cli, "info", str(path), "--json"], check=True, capture_output=True, text=True).stdout
    assert '"kind":"cuckoo_filter"' in info.replace(" ", "") and '"inserted":5' in info.replace(" ", "")
    answers = subprocess.run([cli, "query", str(path), "k0", "k4"], check=True, capture_output=True, text=True)
    assert answers.stdout == "k0\tmaybe\nk4\tmaybe\n"


def test_numpy_keys_hash_as_in_cpp():
    f, g = bloomkit.CuckooFilter(1000), bloomkit.CuckooFilter(1000)
    f.add_many(np.arange(500, dtype=np.int64))
    for i in range(500):
        g.add(i)
    assert f.to_bytes() == g.to_bytes()
