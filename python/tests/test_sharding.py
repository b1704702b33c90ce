"""Sharded filters from Python (bloomkit.sharding over bloomkit/sharding.hpp):
exactness against the unsharded filter class, byte for byte, and refusal
of missing or mismatched shard files. No engine here: the engines' own
sharded builds are checked against build_local in test_spark/test_dask."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pytest

import bloomkit
from bloomkit import sharding
from bloomkit._engines import EngineError


def keys(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**63, size=n, dtype=np.int64)


@pytest.mark.parametrize("kind,cls", [("split-block", bloomkit.SplitBlockBloom), ("blocked", bloomkit.BlockedBloom)])
@pytest.mark.parametrize("shards", [1, 3, 8])
def test_sharded_filter_is_the_unsharded_filter(tmp_path, kind, cls, shards):
    k = keys(20000, shards)
    manifest = sharding.build_local(k, str(tmp_path / "f"), shards=shards, kind=kind, capacity=20000, fpr=0.01)
    single = cls(20000, 0.01)
    single.add_many(k)
    f = sharding.ShardedFilter(manifest)
    assert f.manifest["shards"] == shards
    assert f.manifest["inserted"] == 20000
    assert f.gather().to_bytes() == single.to_bytes()
    probes = np.concatenate([k, keys(100000, 1000 + shards)])
    expected = single.may_contain_many(probes)
    np.testing.assert_array_equal(f.may_contain_many(probes), expected)
    assert expected[:20000].all()
    assert expected[20000:].sum() > 0  # false positives are compared too
    # The plan equals the class's own sizing.
    p = sharding.plan(kind, 20000, 0.01)
    assert p["capacity"] == 20000
    assert os.path.exists(os.path.join(os.path.dirname(manifest), sharding.shard_file_name(0, shards)))


def test_string_keys_and_arrow_input(tmp_path):
    words = pa.array([f"key-{i}" for i in range(5000)])
    manifest = sharding.build_local(words, str(tmp_path / "s"), shards=4, capacity=5000)
    single = bloomkit.SplitBlockBloom(5000, 0.01)
    single.add_many(words)
    f = sharding.ShardedFilter(manifest)
    assert f.gather().to_bytes() == single.to_bytes()
    assert f.may_contain_many(words).all()


def test_routing_and_reassembly_round_trip():
    layout = sharding.ShardLayout(1000, 7)
    h = bloomkit.hash_keys(keys(10000, 3), bloomkit.SplitBlockBloom)
    grouped, positions, offsets = sharding.route(layout, h)
    assert offsets[0] == 0 and offsets[-1] == len(h) and len(offsets) == 8
    shard = layout.shard_of_hashes(h)
    for s in range(7):
        assert (layout.shard_of_hashes(grouped[offsets[s]:offsets[s + 1]]) == s).all()
        assert (np.diff(positions[offsets[s]:offsets[s + 1]]) > 0).all()
    np.testing.assert_array_equal(h[positions], grouped)
    answers = sharding.reassemble(positions, (shard[positions] % 2 == 1))
    np.testing.assert_array_equal(answers, shard % 2 == 1)
    with pytest.raises(bloomkit.Error):
        sharding.ShardLayout(10, 11)


def test_a_shard_refuses_hashes_of_another_shard():
    p = sharding.plan("split-block", 10000, 0.01)
    layout = sharding.ShardLayout(p["blocks"], 4)
    shard = sharding.BlockShard("split-block", p, layout, 0)
    h = bloomkit.hash_keys(keys(1000, 4), bloomkit.SplitBlockBloom)
    with pytest.raises(bloomkit.Error, match="routes to shard"):
        shard.add_hashes(h)
    assert shard.inserted == 0


def test_missing_shard_is_refused(tmp_path):
    manifest = sharding.build_local(keys(3000, 5), str(tmp_path / "f"), shards=4)
    os.remove(tmp_path / "f" / sharding.shard_file_name(2, 4))
    with pytest.raises(bloomkit.Error, match=r"shard 2 of 4.*missing"):
        sharding.ShardedFilter(manifest)


def test_shard_from_another_build_is_refused(tmp_path):
    manifest = sharding.build_local(keys(3000, 6), str(tmp_path / "a"), shards=4, capacity=3000)
    sharding.build_local(keys(3000, 7), str(tmp_path / "b"), shards=4, capacity=3000)
    name = sharding.shard_file_name(1, 4)
    shutil.copy(tmp_path / "b" / name, tmp_path / "a" / name)
    with pytest.raises(bloomkit.Error, match=r"shard 1 of 4.*XXH3"):
        sharding.ShardedFilter(manifest)


def test_manifest_that_disagrees_is_refused(tmp_path):
    manifest = sharding.build_local(keys(3000, 8), str(tmp_path / "f"), shards=3)
    good = json.loads(open(manifest).read())
    for edit in [lambda m: m.update(shards=4), lambda m: m.update(blocks=m["blocks"] + 1),
                 lambda m: m["files"][0].update(file="../x.bkf"), lambda m: m.update(version=2),
                 lambda m: m["files"].pop()]:
        m = json.loads(json.dumps(good))
        edit(m)
        with open(manifest, "w") as out:
            json.dump(m, out)
        with pytest.raises(bloomkit.Error, match="manifest"):
            sharding.ShardedFilter(manifest)


def test_kinds_that_cannot_be_sharded_are_refused(tmp_path):
    for kind in ["standard", "counting", "ribbon", bloomkit.StandardBloom]:
        with pytest.raises(ValueError, match="cannot be sharded"):
            sharding.build_local(keys(10, 1), str(tmp_path / "x"), shards=2, kind=kind)
    assert not (tmp_path / "x").exists()


def test_bad_keys_leave_no_output(tmp_path):
    with pytest.raises(EngineError, match="null key"):
        sharding.build_local(pa.array([1, None, 3]), str(tmp_path / "n"), shards=1)
    assert os.listdir(tmp_path) == []


def test_output_folder_must_be_new(tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    with pytest.raises(FileExistsError):
        sharding.build_local(keys(10, 1), str(tmp_path / "busy"), shards=1)
