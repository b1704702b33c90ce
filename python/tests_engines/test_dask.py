"""bloomkit.dask on a real distributed.LocalCluster (two worker processes).

Every build is compared byte for byte with a single-process build of the
same keys; the fault test kills a worker process in the middle of a build."""

from __future__ import annotations

import os
import threading
import time

import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import bloomkit
import bloomkit.dask as bkd
from bloomkit import sharding
from bloomkit._engines import KMV_K, EngineError

from engines_fixtures import dask_client, dask_worker_pids, kill, wait_until  # noqa: F401  (fixture)

N = 20000


@pytest.fixture(scope="module")
def frames(dask_client):
    rng = np.random.default_rng(7)
    ints = rng.integers(-(2**62), 2**62, size=N, dtype=np.int64)
    ints[: N // 10] = ints[N // 10 : 2 * (N // 10)]
    words = [f"user-{i % (N // 2)}" for i in range(N)]
    pdf = pd.DataFrame({"id": ints, "name": pd.array(words, dtype="string[pyarrow]"), "n": np.arange(N)})
    return dd.from_pandas(pdf, npartitions=8), ints, words


@pytest.mark.parametrize("kind", ["split-block", "blocked", "standard", "counting", bloomkit.StandardBloom])
def test_build_is_bit_identical_to_a_single_process_build(frames, kind):
    ddf, ints, _ = frames
    cls = bloomkit.kind(kind) if isinstance(kind, str) else kind
    f = bkd.build(ddf, "id", kind=kind, capacity=N, split_every=3)
    single = cls(N, 0.01)
    single.add_many(ints)
    assert type(f) is cls
    assert f.to_bytes() == single.to_bytes()


def test_string_column_series_and_file_output(frames, tmp_path):
    ddf, _, words = frames
    single = bloomkit.SplitBlockBloom(N, 0.01)
    single.add_many(pa.array(words))
    out = tmp_path / "names.bkf"
    assert bkd.build(ddf, "name", capacity=N, path=str(out)).to_bytes() == single.to_bytes()
    assert bloomkit.load(str(out)).to_bytes() == single.to_bytes()
    assert bkd.build(ddf["name"], "name", capacity=N).to_bytes() == single.to_bytes()


def test_bags_of_keys_and_of_records(dask_client):
    keys = list(range(3000)) + list(range(100))  # fewer distinct keys than KMV_K: counted exactly
    single = bloomkit.SplitBlockBloom(3000, 0.01)
    single.add_many(keys)
    bag = db.from_sequence(keys, npartitions=5)
    assert bkd.build(bag, None, capacity=3000).to_bytes() == single.to_bytes()
    assert bkd.build(bag, None).to_bytes() == single.to_bytes()  # capacity from the exact count
    records = db.from_sequence([{"k": k, "other": "x"} for k in keys], npartitions=4)
    assert bkd.build(records, "k", capacity=3000).to_bytes() == single.to_bytes()
    est, exact = bkd.count_distinct(bag, None)
    assert exact and est == 3000


def test_capacity_from_an_approximate_distinct_count(frames):
    ddf, ints, _ = frames
    distinct = len(np.unique(ints))
    assert distinct > KMV_K
    estimate, exact = bkd.count_distinct(ddf, "id")
    assert not exact
    assert abs(estimate - distinct) < 5 * distinct / np.sqrt(KMV_K - 2)
    f = bkd.build(ddf, "id")
    single = type(f)(f.capacity, 0.01)
    single.add_many(ints)
    assert f.to_bytes() == single.to_bytes()


@pytest.mark.parametrize("kind", ["binary-fuse", "ribbon", "scalable", bloomkit.BinaryFuse])
def test_unmergeable_kinds_are_refused(frames, kind):
    ddf, _, _ = frames
    with pytest.raises(ValueError, match="cannot be built partition by partition"):
        bkd.build(ddf, "id", kind=kind, capacity=10)


def test_null_key_fails_naming_the_column(dask_client, tmp_path):
    pdf = pd.DataFrame({"key": pd.array([1, None, 3] * 100, dtype="Int64")})
    ddf = dd.from_pandas(pdf, npartitions=3)
    with pytest.raises(EngineError, match=r"column 'key'.*null key"):
        bkd.build(ddf, "key", capacity=300, path=str(tmp_path / "never.bkf"))
    assert os.listdir(tmp_path) == []


def test_wrong_type_fails_naming_the_column(dask_client, tmp_path):
    bag = db.from_sequence([{"k": 1}, {"k": {"nested": 2}}, {"k": 3}], npartitions=1)
    with pytest.raises(EngineError, match=r"column 'k'.*cannot use its values as keys"):
        bkd.build(bag, "k", capacity=10, path=str(tmp_path / "never.bkf"))
    missing = db.from_sequence([{"k": 1}, {"j": 2}], npartitions=1)
    with pytest.raises(EngineError, match=r"column 'k'.*no such field"):
        bkd.build(missing, "k", capacity=10)
    assert os.listdir(tmp_path) == []


def test_semi_join_filter_keeps_every_joining_row(frames):
    ddf, ints, _ = frames
    wanted = ints[::50]
    f = bloomkit.SplitBlockBloom(len(wanted), 0.01)
    f.add_many(wanted)
    kept = bkd.semi_join_filter(ddf, "id", f).compute()
    assert list(kept.columns) == list(ddf.columns)
    assert set(ints[np.isin(ints, wanted)]) <= set(kept["id"].tolist())
    assert len(kept) == int(f.may_contain_many(ints).sum())
    with_null = dd.from_pandas(pd.DataFrame({"id": pd.array([int(wanted[0]), None], dtype="Int64")}), npartitions=1)
    assert len(bkd.semi_join_filter(with_null, "id", f).compute()) == 1


def test_sharded_build_and_probe(frames, tmp_path):
    ddf, ints, _ = frames
    out = tmp_path / "sharded"
    manifest = bkd.build_sharded(ddf, "id", str(out), shards=3, kind="blocked", capacity=N)
    reference = sharding.build_local(ints, str(tmp_path / "ref"), shards=3, kind="blocked", capacity=N)
    single = bloomkit.BlockedBloom(N, 0.01)
    single.add_many(ints)
    f = sharding.ShardedFilter(manifest)
    assert f.gather().to_bytes() == single.to_bytes()
    for s in range(3):
        name = sharding.shard_file_name(s, 3)
        assert (out / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()
    assert f.manifest["files"] == sharding.ShardedFilter(reference).manifest["files"]
    kept = bkd.sharded_semi_join(ddf, "id", manifest).compute()
    assert len(kept) == int(single.may_contain_many(ints).sum())


def test_sharded_build_with_bad_keys_leaves_nothing(dask_client, tmp_path):
    ddf = dd.from_pandas(pd.DataFrame({"key": pd.array([1, None] * 50, dtype="Int64")}), npartitions=2)
    with pytest.raises(EngineError, match=r"column 'key'.*null key"):
        bkd.build_sharded(ddf, "key", str(tmp_path / "s"), shards=2, capacity=100)
    assert os.listdir(tmp_path) == []


def _slow(part):
    time.sleep(0.4)
    return part


def test_killing_a_worker_mid_build_still_gives_the_same_filter(dask_client):
    n, parts = 200_000, 24
    pdf = pd.DataFrame({"key": np.arange(n, dtype=np.int64)})
    ddf = dd.from_pandas(pdf, npartitions=parts).map_partitions(_slow)
    before = dask_worker_pids(dask_client)
    assert len(before) == 2
    killed = []

    def killer():
        def started():
            # Some partition tasks finished and others are still to run.
            counts = dask_client.run_on_scheduler(
                lambda dask_scheduler: sum(1 for ts in dask_scheduler.tasks.values()
                                           if ts.state == "memory" and "build_part" in str(ts.key)))
            return counts >= 2

        wait_until(started, 300, "the build's first tasks", interval=0.1)
        killed.append(before[0])
        kill(before[0])

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    f = bkd.build(ddf, "key", kind="split-block", capacity=n, split_every=4)
    t.join(5)
    assert killed, "the worker was not killed during the build"
    single = bloomkit.SplitBlockBloom(n, 0.01)
    single.add_many(np.arange(n, dtype=np.int64))
    assert f.to_bytes() == single.to_bytes()
    wait_until(lambda: len(dask_client.scheduler_info()["workers"]) == 2, 120, "the nanny to restart the worker")
    assert before[0] not in dask_worker_pids(dask_client)


# ---- key types (docs/KEYS.md): recorded by builds, checked on the driver by probes ----------


def test_every_integer_dtype_builds_the_same_int64_filter(dask_client):
    values = np.arange(2000)
    built = []
    for dtype in ("int64", "int32", "uint16", "Int64", "Int32", "int64[pyarrow]"):
        ddf = dd.from_pandas(pd.DataFrame({"k": pd.array(values, dtype=dtype)}), npartitions=3)
        f = bkd.build(ddf, "k", capacity=2000)
        assert f.key_type == "int64", dtype
        built.append(f.to_bytes())
    assert len(set(built)) == 1


def test_an_int32_column_probes_an_int64_filter_exactly(dask_client):
    n = 30_000
    small = dd.from_pandas(pd.DataFrame({"k": np.arange(0, n, 3, dtype=np.int64)}), npartitions=2)
    f = bkd.build(small, "k", capacity=n // 3 + 1)
    probe = dd.from_pandas(pd.DataFrame({"k": np.arange(n, dtype=np.int32)}), npartitions=4)
    kept = bkd.semi_join_filter(probe, "k", f).compute()["k"].to_numpy()
    assert set(range(0, n, 3)) <= set(kept.tolist())
    assert len(kept) == int(f.may_contain_many(np.arange(n)).sum())


def test_probes_of_another_type_are_refused_before_any_task(dask_client):
    f = bloomkit.SplitBlockBloom(100, 0.01)
    f.add_many(np.arange(100))
    for col in (pd.Series(["a"]), pd.Series([1.5]), pd.Series(pd.to_datetime(["2024-01-01"]))):
        ddf = dd.from_pandas(pd.DataFrame({"k": col}), npartitions=1)
        with pytest.raises(bloomkit.MismatchError, match="int64"):
            bkd.semi_join_filter(ddf, "k", f)
    with pytest.raises(bloomkit.MismatchError, match="bloomkit filter"):
        bkd.semi_join_filter(dd.from_pandas(pd.DataFrame({"k": [1]}), npartitions=1), "k", bloomkit.SparkBloom(10, 0.01))
