"""bloomkit.spark on a real Spark local-cluster[2,1,1024] (two executor JVMs).

Every build is compared byte for byte with a single-process build of the
same keys; the fault test kills an executor JVM in the middle of a build."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import bloomkit
import bloomkit.spark as bks
from bloomkit import sharding
from bloomkit._engines import KMV_K, EngineError

from engines_fixtures import kill, spark, spark_executor_pids, wait_until  # noqa: F401  (fixture)

N = 20000


@pytest.fixture(scope="module")
def frames(spark):
    rng = np.random.default_rng(42)
    ints = rng.integers(-(2**62), 2**62, size=N, dtype=np.int64)
    ints[: N // 10] = ints[N // 10 : 2 * (N // 10)]  # duplicates across partitions
    words = np.array([f"user-{i % (N // 2)}" for i in range(N)], dtype=object)
    pdf = pa.table({"id": ints, "name": words.tolist(), "n": np.arange(N)}).to_pandas()
    df = spark.createDataFrame(pdf).repartition(8).cache()
    df.count()
    return df, ints, words


@pytest.mark.parametrize("kind", ["split-block", "blocked", "standard", "counting", bloomkit.BlockedBloom])
def test_build_is_bit_identical_to_a_single_process_build(frames, kind):
    df, ints, words = frames
    cls = bloomkit.kind(kind) if isinstance(kind, str) else kind
    f = bks.build(df, "id", kind=kind, fpr=0.01, capacity=N)
    single = cls(N, 0.01)
    single.add_many(ints)
    assert type(f) is cls
    assert f.to_bytes() == single.to_bytes()


def test_string_column_and_file_output(frames, tmp_path):
    df, ints, words = frames
    out = tmp_path / "names.bkf"
    f = bks.build(df, "name", kind="split-block", capacity=N, path=str(out), depth=3)
    single = bloomkit.SplitBlockBloom(N, 0.01)
    single.add_many(pa.array(words.tolist()))
    assert f.to_bytes() == single.to_bytes() == bloomkit.load(str(out)).to_bytes()


def test_capacity_from_an_approximate_distinct_count(frames):
    df, ints, words = frames
    distinct = len(np.unique(ints))
    assert distinct > KMV_K  # the estimated (not exact) path
    estimate, exact = bks.count_distinct(df, "id")
    assert not exact
    # KMV with K = 4096: relative standard error 1.6 %; 5 sigma bound (fixed data, deterministic).
    assert abs(estimate - distinct) < 5 * distinct / np.sqrt(KMV_K - 2)
    f = bks.build(df, "id")
    assert f.capacity >= distinct * 0.95
    single = type(f)(f.capacity, 0.01)
    single.add_many(ints)
    assert f.to_bytes() == single.to_bytes()
    # Few distinct keys: the sketch holds them all and the count is exact.
    small = df.where("n < 1000")
    est, exact = bks.count_distinct(small, "name")
    assert exact and est == len(set(words[:1000]))


def test_empty_frame(spark):
    empty = spark.createDataFrame([], "id long")
    f = bks.build(empty, "id", capacity=10)
    assert f.to_bytes() == bloomkit.SplitBlockBloom(10, 0.01, key_type="int64").to_bytes()  # a long column
    assert bks.build(empty, "id").capacity == 1


@pytest.mark.parametrize("kind", ["binary-fuse", "ribbon", "scalable", bloomkit.Ribbon])
def test_unmergeable_kinds_are_refused(frames, kind):
    df, _, _ = frames
    with pytest.raises(ValueError, match="cannot be built partition by partition"):
        bks.build(df, "id", kind=kind, capacity=10)


def test_null_key_fails_the_job_naming_the_column(spark, tmp_path):
    df = spark.createDataFrame([(1,), (None,), (3,)] * 100, "key long").repartition(3)
    out = tmp_path / "never.bkf"
    with pytest.raises(EngineError, match=r"column 'key'.*null key"):
        bks.build(df, "key", capacity=300, path=str(out), engine="python")
    assert os.listdir(tmp_path) == []
    # The JVM path (the default for split-block) skips nulls, as docs/KEYS.md says.
    single = bloomkit.SplitBlockBloom(300, 0.01)
    single.add_many(np.array([1, 3] * 100, dtype=np.int64))
    assert bks.build(df, "key", capacity=300).to_bytes() == single.to_bytes()


def test_wrong_type_fails_the_job_naming_the_column(spark, tmp_path):
    df = spark.createDataFrame([([1, 2],), ([3],)], "tags array<long>")
    with pytest.raises(EngineError, match=r"column 'tags'.*cannot use its values as keys"):
        bks.build(df, "tags", capacity=10, path=str(tmp_path / "never.bkf"))
    assert os.listdir(tmp_path) == []


def test_semi_join_filter_keeps_every_joining_row(spark, frames):
    df, ints, _ = frames
    wanted = ints[::50]
    small = spark.createDataFrame(pa.table({"id": wanted}).to_pandas())
    f = bks.build(small, "id", capacity=len(wanted), fpr=0.01)
    kept = bks.semi_join_filter(df, "id", f)
    assert kept.columns == df.columns
    kept_ids = np.array(sorted(r[0] for r in kept.select("id").collect()))
    expected = np.isin(ints, wanted)
    # Every row that joins is kept; the rest only as the filter's false positives.
    assert set(ints[expected]) <= set(kept_ids.tolist())
    single = bloomkit.SplitBlockBloom(len(wanted), 0.01)
    single.add_many(wanted)
    assert len(kept_ids) == int(single.may_contain_many(ints).sum())
    joined = kept.join(small, "id", "left_semi").count()
    assert joined == int(expected.sum())
    # Null keys match nothing.
    with_null = spark.createDataFrame([(int(wanted[0]),), (None,)], "id long")
    assert bks.semi_join_filter(with_null, "id", f).count() == 1


def test_sharded_build_and_probe(spark, frames, tmp_path):
    df, ints, _ = frames
    out = tmp_path / "sharded"
    manifest = bks.build_sharded(df, "id", str(out), shards=4, capacity=N)
    reference = sharding.build_local(ints, str(tmp_path / "ref"), shards=4, capacity=N)
    f = sharding.ShardedFilter(manifest)
    single = bloomkit.SplitBlockBloom(N, 0.01)
    single.add_many(ints)
    assert f.gather().to_bytes() == single.to_bytes()
    ref = sharding.ShardedFilter(reference)
    for s in range(4):
        name = sharding.shard_file_name(s, 4)
        assert (out / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()
    assert f.manifest["files"] == ref.manifest["files"]
    kept = bks.sharded_semi_join(df, "id", manifest)
    assert kept.count() == int(single.may_contain_many(ints).sum())
    # A broken shard is refused before any job.
    os.remove(out / sharding.shard_file_name(3, 4))
    with pytest.raises(bloomkit.Error, match="shard 3 of 4"):
        bks.sharded_semi_join(df, "id", manifest)


def test_sharded_build_with_bad_keys_leaves_nothing(spark, tmp_path):
    df = spark.createDataFrame([(1,), (None,)] * 50, "key long").repartition(2)
    with pytest.raises(EngineError, match=r"column 'key'.*null key"):
        bks.build_sharded(df, "key", str(tmp_path / "s"), shards=2, capacity=100)
    assert os.listdir(tmp_path) == []


def test_killing_an_executor_mid_build_still_gives_the_same_filter(spark):
    n, parts = 200_000, 24

    def _slow(batches):  # input that takes a while per partition, so the kill lands mid-build
        for b in batches:  # (nested: pickled by value, the executors cannot import this module)
            time.sleep(0.4)
            yield b

    df = spark.range(0, n, numPartitions=parts).withColumnRenamed("id", "key").mapInArrow(_slow, "key long")
    status = spark.sparkContext.statusTracker()
    before = spark_executor_pids(spark)
    assert len(before) == 2
    killed = []

    def killer():
        def started():
            for stage in status.getActiveStageIds():
                info = status.getStageInfo(stage)
                if info is not None and info.numCompletedTasks >= 2 and info.numTasks == parts:
                    return True
            return False

        wait_until(started, 300, "the build's first tasks")
        killed.append(before[0])
        kill(before[0])

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    f = bks.build(df, "key", kind="blocked", capacity=n)
    t.join(5)
    assert killed, "the executor was not killed during the build"
    single = bloomkit.BlockedBloom(n, 0.01)
    single.add_many(np.arange(n, dtype=np.int64))
    assert f.to_bytes() == single.to_bytes()
    assert before[0] not in spark_executor_pids(spark)


# ---- key types (docs/KEYS.md): recorded by builds, checked on the driver by probes ----------


def test_int_and_bigint_columns_build_the_same_int64_filter(spark):
    n = 3000
    ints = spark.range(0, n, numPartitions=3).selectExpr("cast(id as int) as k")
    longs = spark.range(0, n, numPartitions=4).selectExpr("id as k")
    a = bks.build(ints, "k", capacity=n)
    b = bks.build(longs, "k", capacity=n)
    assert a.key_type == b.key_type == "int64"
    assert a.to_bytes() == b.to_bytes()
    empty = spark.createDataFrame([], "k string")
    assert bks.build(empty, "k", capacity=10).key_type == "bytes"


def test_an_int_column_probes_a_bigint_filter_exactly(spark):
    # The case: a filter built from a bigint column, probed with an int column.
    n = 100_000
    probe = spark.range(0, n, numPartitions=4).selectExpr("cast(id as int) as k")
    small = spark.range(0, n, 3, numPartitions=2).selectExpr("id as k")  # bigint
    f = bks.build(small, "k", capacity=n // 3 + 1)
    kept = bks.semi_join_filter(probe, "k", f)
    kept_keys = np.array(sorted(r[0] for r in kept.collect()))
    joining = np.arange(0, n, 3)
    assert set(joining.tolist()) <= set(kept_keys.tolist())  # every joining row is kept
    assert len(kept_keys) == int(f.may_contain_many(np.arange(n)).sum())
    assert probe.join(small, "k", "left_semi").count() == len(joining)


def test_probes_of_another_type_are_refused_on_the_driver(spark):
    f = bloomkit.SplitBlockBloom(100, 0.01)
    f.add_many(np.arange(100))
    for ddl in ("k string", "k double", "k timestamp", "k decimal(10,2)"):
        df = spark.createDataFrame([], ddl)
        with pytest.raises(bloomkit.MismatchError, match="int64"):
            bks.semi_join_filter(df, "k", f)  # raised by the call itself: no job ran
    g = bloomkit.SplitBlockBloom(100, 0.01, key_type="int32")
    with pytest.raises(bloomkit.MismatchError, match="int32.*bigint"):
        bks.semi_join_filter(spark.createDataFrame([], "k long"), "k", g)


def test_spark_bloom_filters_probe_integral_and_string_columns(spark):
    sb = bloomkit.SparkBloom(1000, 0.01)
    for v in range(0, 1000, 7):
        sb.add(v)
    df = spark.range(0, 1000, numPartitions=3).selectExpr("cast(id as int) as k", "cast(id as string) as s")
    kept = sorted(r[0] for r in bks.semi_join_filter(df, "k", sb).select("k").collect())
    assert set(range(0, 1000, 7)) <= set(kept)
    assert len(kept) == sum(sb.may_contain(v) for v in range(1000))
    words = bloomkit.SparkBloom(1000, 0.01)
    for v in range(0, 1000, 7):
        words.add(str(v))
    kept_s = sorted(int(r[0]) for r in bks.semi_join_filter(df, "s", words).select("s").collect())
    assert set(range(0, 1000, 7)) <= set(kept_s)
    with pytest.raises(bloomkit.MismatchError, match="SparkBloom"):
        bks.semi_join_filter(spark.createDataFrame([], "k double"), "k", sb)


def test_sharded_filters_record_and_check_their_key_type(spark, tmp_path):
    n = 5000
    ints = spark.range(0, n, numPartitions=2).selectExpr("cast(id as int) as k")
    manifest = bks.build_sharded(ints, "k", str(tmp_path / "s"), shards=2, capacity=n)
    f = sharding.ShardedFilter(manifest)
    assert f.key_type == "int64" and f.gather().key_type == "int64"
    longs = spark.range(0, n, numPartitions=2).selectExpr("id as k")
    assert bks.sharded_semi_join(longs, "k", manifest).count() == n
    with pytest.raises(bloomkit.MismatchError, match="int64"):
        bks.sharded_semi_join(spark.createDataFrame([], "k string"), "k", manifest)


def test_no_pandas_3_warning_from_bloomkits_own_jobs(spark):
    # PySpark 4.3 warns about pandas >= 3 wherever mapInArrow is called; bloomkit's jobs pass
    # Arrow batches only, so its own calls do not raise it (bloomkit/spark.py says why), while
    # the user's own pandas paths still would.
    import warnings

    import pandas as pd

    assert int(pd.__version__.split(".")[0]) >= 3, "the pinned pandas is the case this test is about"
    df = spark.range(0, 100).withColumnRenamed("id", "k")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = bks.build(df, "k", kind="blocked", capacity=100, engine="python")
        kept = bks.semi_join_filter(df, "k", f).count()
    assert kept == 100
    assert not [w for w in caught if "does not yet fully support pandas" in str(w.message)]
