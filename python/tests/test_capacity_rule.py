"""One capacity rule everywhere (docs/KEYS.md "Capacity"): a build without a capacity sizes
for the input's distinct keys, exactly below 4096 and by the KMV estimate plus two standard
errors above, in the CLI and in Python's builders alike; repeats never raise the capacity."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pyarrow as pa
import pytest

import bloomkit
from bloomkit import sharding
from bloomkit._engines import capacity_from_estimate, hashes_of, kmv_capacity, kmv_estimate, kmv_sketch, kmv_sketch_counted


def _cli_capacity(cli, tmp_path, name, lines, kind, *inputs_twice):
    src = tmp_path / f"{name}.txt"
    src.write_bytes(b"".join(line + b"\n" for line in lines))
    out = tmp_path / f"{name}-{kind}.bkf"
    inputs = [str(src)] * (2 if inputs_twice else 1)
    subprocess.run([cli, "build", *inputs, "-o", str(out), "--kind", kind, "-q"], check=True, capture_output=True)
    info = json.loads(subprocess.run([cli, "info", str(out), "--json"], check=True, capture_output=True,
                                     text=True).stdout)
    return info["capacity"], info["inserted"]


def _hashes(cls, lines):
    return next(iter(hashes_of([pa.array(lines, pa.binary())], cls, "keys", "bytes")))


def _python_rule(cls, lines):
    hashes = _hashes(cls, lines)
    return kmv_capacity(kmv_sketch([hashes]), len(hashes))


@pytest.mark.parametrize("kind,cls", [("blocked", bloomkit.BlockedBloom), ("split-block", bloomkit.SplitBlockBloom)])
def test_cli_and_python_size_for_the_same_distinct_count(cli, tmp_path, kind, cls):
    # 20,000 distinct keys, each three times, shuffled: past the sketch's exact range.
    rng = np.random.default_rng(37)
    distinct = [b"key-%d" % i for i in range(20_000)]
    lines = [distinct[i] for i in rng.permutation(np.repeat(np.arange(20_000), 3))]
    expected = _python_rule(cls, lines)
    assert expected != 20_000 and abs(expected / 20_000 - 1) < 0.1  # an estimate, near the truth
    assert _cli_capacity(cli, tmp_path, "repeated", lines, kind) == (expected, 60_000)
    assert _cli_capacity(cli, tmp_path, "once", distinct, kind) == (_python_rule(cls, distinct), 20_000)
    assert _cli_capacity(cli, tmp_path, "twice", distinct, kind, True) == (_python_rule(cls, distinct * 2), 40_000)


def test_the_capacity_is_never_above_the_keys_read(cli, tmp_path):
    # `seq 1 100000`: every key distinct, and the estimate lands above the 100000 keys read.
    lines = [b"%d" % i for i in range(1, 100_001)]
    hashes = _hashes(bloomkit.BlockedBloom, lines)
    sketch = kmv_sketch([hashes])
    estimate, exact = kmv_estimate(sketch)
    assert not exact and estimate > 100_000  # the case the bound is for
    assert capacity_from_estimate(estimate, exact) > 100_000
    assert kmv_estimate(sketch, inserts=100_000) == (100_000.0, False)
    assert capacity_from_estimate(estimate, exact, inserts=100_000) == 100_000
    assert kmv_capacity(sketch, 100_000) == 100_000
    assert kmv_sketch_counted([hashes[:60_000], hashes[60_000:]])[1] == 100_000
    assert _cli_capacity(cli, tmp_path, "seq", lines, "blocked") == (100_000, 100_000)
    manifest = sharding.build_local(pa.array(lines, pa.binary()), str(tmp_path / "s"), shards=2, kind="blocked")
    manifest = json.loads(open(manifest).read())
    assert (manifest["capacity"], manifest["inserted"]) == (100_000, 100_000)


def test_small_inputs_are_counted_exactly(cli, tmp_path):
    lines = [b"a", b"b", b"c"] * 1000
    assert _cli_capacity(cli, tmp_path, "abc", lines, "blocked") == (3, 3000)
    assert _python_rule(bloomkit.BlockedBloom, lines) == 3


def test_cuckoo_counts_every_insert(cli, tmp_path):
    # A repeated key takes another cuckoo slot, so the cuckoo filter is sized by inserts
    # (repeats crowd a key's two buckets, so only some keys repeat here).
    lines = [b"k%d" % i for i in range(1000)] + [b"k%d" % i for i in range(100)]
    assert _cli_capacity(cli, tmp_path, "cuckoo", lines, "cuckoo") == (1100, 1100)


def test_build_local_sizes_for_distinct_keys(tmp_path):
    keys = pa.array([f"k{i % 500}" for i in range(5000)])
    manifest = sharding.build_local(keys, str(tmp_path / "s"), shards=2)
    manifest = json.loads(open(manifest).read())
    assert (manifest["capacity"], manifest["inserted"]) == (500, 5000)


def test_repr_tells_inserts_from_distinct_keys():
    f = bloomkit.BlockedBloom(3, 0.01)
    for _ in range(1000):
        f.add_many(["a", "b", "c"])
    assert "inserted 3000 (about 3 distinct) of capacity 3" in repr(f)
    assert not f.saturated
    c = bloomkit.CuckooFilter(10, 0.01)
    c.add("a")
    assert "inserted 1 of capacity" in repr(c)  # a cuckoo filter stores each insert
