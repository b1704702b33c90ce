"""bloomkit.spark's JVM path (bloomkit's jar, jvm/) on a Spark local-cluster[2,1,1024]:
filters built in the executors' JVMs against the C++ CLI's files and the Python path, byte
for byte, for every column type docs/KEYS.md gives Spark; the SQL functions bloomkit_agg and
bloomkit_might_contain against the CLI's answers; nulls skipped; wrong types refused on the
driver, before any job.

The jar must load (it ships in bloomkit/jars/, built by ./bloomkit.sh): these tests fail,
never skip, without it."""

from __future__ import annotations

import datetime
import os
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import bloomkit
import bloomkit.spark as bks
from bloomkit import _engines as _e
from bloomkit import _jvm
from bloomkit._engines import EngineError

from engines_fixtures import spark  # noqa: F401  (fixture)

CLI = os.environ.get("BLOOMKIT_CLI") or str(Path(__file__).resolve().parents[2] / "build" / "release" / "bloomkit")
N = 6000
FPR = 0.01
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
# Key type ids (docs/KEYS.md) of each column's Catalyst type.
KEY_ID = {"b": 2, "i": 2, "s": 1, "bin": 1, "d": 3, "ts": 6, "dt": 7}
CLI_FORMAT = {"b": "i64", "i": "i64", "s": "text", "bin": "hex", "d": "f64"}


@pytest.fixture(scope="module")
def jvm(spark):
    assert _jvm.ensure(spark), f"bloomkit's jar did not load into the session (jar: {_jvm.jar_path()})"
    _jvm.functions(spark).register(spark._jsparkSession)
    return _jvm.entry(spark)


@pytest.fixture(scope="module")
def table(spark, jvm):
    """N rows, every 17th value of every column null; columns of every Spark key type."""
    rng = np.random.default_rng(36)
    b = rng.integers(-(2**63), 2**63 - 1, size=N, dtype=np.int64)
    b[:3] = [0, -(2**63), 2**63 - 1]
    i = rng.integers(-(2**31), 2**31 - 1, size=N).astype(np.int32)
    d = rng.normal(size=N) * 10.0 ** rng.integers(-30, 30, size=N)
    d[:2] = [0.0, -0.0]  # two keys: the bits are hashed
    words = ["alice", "bob", "Grüße", "日本語", "emoji 🎉", "x" * 100]
    s = [f"{words[k % len(words)]}-{k}" for k in range(N)]
    bins = [bytes(rng.integers(0, 256, size=k % 23, dtype=np.uint8)) for k in range(N)]
    us = rng.integers(-(2**50), 2**50, size=N, dtype=np.int64)
    days = rng.integers(-100000, 100000, size=N).astype(np.int32)
    null = np.arange(N) % 17 == 5
    rows = []
    for k in range(N):
        if null[k]:
            rows.append((None,) * 7)
            continue
        ts = EPOCH + datetime.timedelta(microseconds=int(us[k]))
        dt = datetime.date(1970, 1, 1) + datetime.timedelta(days=int(days[k]))
        rows.append((int(b[k]), int(i[k]), s[k], bins[k], float(d[k]), ts, dt))
    schema = "b bigint, i int, s string, bin binary, d double, ts timestamp, dt date"
    df = spark.createDataFrame(rows, schema).repartition(5).cache()
    assert df.count() == N
    keep = ~null
    values = {"b": b[keep], "i": i[keep], "s": [x for x, n in zip(s, null) if not n],
              "bin": [x for x, n in zip(bins, null) if not n], "d": d[keep], "ts": us[keep], "dt": days[keep]}
    df.createOrReplaceTempView("bk_keys")
    return df, values


def python_reference(column: str, values) -> bytes:
    """Python's single-process filter over the column's keys, as the bytes docs/KEYS.md gives them."""
    f = bloomkit.SplitBlockBloom(N, FPR)
    if column in ("b", "i"):
        f.add_many(np.asarray(values, dtype=np.int64))
    elif column == "d":
        f.add_many(np.asarray(values, dtype=np.float64))
    elif column == "ts":
        f.add_many(np.asarray(values, dtype=np.int64).astype("datetime64[us]"))
    elif column == "dt":
        f.add_many(np.asarray(values, dtype=np.int32).astype("datetime64[D]"))
    elif column == "s":
        f.add_many(pa.array(values, pa.string()))
    else:
        f.add_many(list(values))
    return f.to_bytes()


def cli_file(tmp_path, column: str, values, capacity=N, fpr=FPR) -> bytes:
    fmt = CLI_FORMAT[column]
    if fmt == "hex":
        lines = [v.hex() for v in values]
    elif fmt == "f64":
        lines = [repr(float(v)) for v in values]
    else:
        lines = [str(v) for v in values]
    keys = tmp_path / f"{column}.keys"
    keys.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / f"{column}.bkf"
    subprocess.run([CLI, "build", str(keys), "-o", str(out), "--kind", "split-block", "--format", fmt,
                    "--capacity", str(capacity), "--fpr", repr(fpr), "--quiet"], check=True)
    return out.read_bytes()


def assert_same_filter(got: bytes, ref: bytes, key_id: int):
    """got == ref byte for byte, both typed with the column's key type."""
    assert got[15] == key_id and ref[15] == key_id
    assert got == ref


@pytest.mark.parametrize("column", list(KEY_ID))
def test_jvm_build_equals_cli_and_python_bytes(spark, jvm, table, tmp_path, column):
    df, every = table
    values = every[column]
    blocks = bloomkit.sizing.split_block_blocks_for(N, FPR)
    typed = bytes(jvm.buildBytes(df._jdf, column, blocks, N, FPR, 3, True))
    assert typed[8] == 5 and typed[15] == KEY_ID[column]
    assert int.from_bytes(typed[32:40], "little") == len(values)  # nulls skipped
    # The CLI's file of the same keys (every type it has a --format for).
    if column in CLI_FORMAT:
        assert typed == cli_file(tmp_path, column, values)
    # The SQL aggregate gives the same file.
    (agg,) = spark.sql(f"SELECT bloomkit_agg({column}, {N}, {FPR}) FROM bk_keys").collect()[0]
    assert bytes(agg) == typed
    # Python's single-process filter of the same key bytes, and bks.build's JVM path.
    reference = python_reference(column, values)
    assert_same_filter(typed, reference, KEY_ID[column])
    built = bks.build(df, column, capacity=N, fpr=FPR).to_bytes()
    assert_same_filter(built, reference, KEY_ID[column])
    loaded = bloomkit.from_bytes(typed)  # the C++ reader takes the JVM's file
    if column == "b":
        assert loaded.may_contain_many(np.asarray(values, dtype=np.int64)).all()
    if column == "s":
        assert loaded.may_contain_many(pa.array(values, pa.string())).all()


def test_jvm_and_python_paths_give_the_same_bytes(spark, jvm, table):
    df, _ = table
    for column in ["b", "s", "bin", "d", "ts"]:  # the columns the Python path hashes by docs/KEYS.md today
        clean = df.where(F.col(column).isNotNull())
        by_jvm = bks.build(clean, column, capacity=N, engine="jvm").to_bytes()
        by_python = bks.build(clean, column, capacity=N, engine="python").to_bytes()
        assert by_jvm[:16] == by_python[:16] and by_jvm[128:] == by_python[128:], column
        assert by_jvm == by_python, column
    # Without a capacity both paths count distinct keys with the same sketch: exact below
    # 4096 distinct keys, estimated above.
    clean = df.where(F.col("s").isNotNull())
    few = clean.where(F.col("b") % 3 == 0)
    for frame, exact in ((clean, False), (few, True)):
        assert bks.build(frame, "s", engine="jvm").to_bytes() == bks.build(frame, "s", engine="python").to_bytes()
        est, was_exact = bks.count_distinct(frame, "s")
        assert was_exact == exact
        keys = frame.count()
        assert est <= keys  # never more distinct keys than keys
        assert bks.build(frame, "s").capacity == _e.capacity_from_estimate(est, was_exact, inserts=keys)


def test_estimated_capacity_matches_the_python_sketch(spark, jvm):
    df = spark.range(0, 60000, numPartitions=4).select((F.col("id") * 7919 % 50000).alias("k"))
    est, exact = bks.count_distinct(df, "k")
    assert not exact
    sketch = np.frombuffer(bytes(jvm.countDistinctSketch(df._jdf, "k")), dtype="<u8")
    assert _e.kmv_estimate(sketch, inserts=60000) == (est, exact)
    counted = np.frombuffer(bytes(jvm.countedDistinctSketch(df._jdf, "k")), dtype="<u8")
    assert counted[0] == 60000 and (counted[1:] == sketch).all()
    assert bks.build(df, "k").capacity == _e.kmv_capacity(sketch, 60000)
    assert bks.build(df, "k", engine="python").capacity == _e.kmv_capacity(sketch, 60000)


@pytest.mark.parametrize("column", ["b", "s"])
def test_cli_filter_answers_might_contain_as_the_cli(spark, jvm, table, tmp_path, column):
    df, every = table
    values = every[column]
    members = values[::3]
    blob = cli_file(tmp_path, column, members, capacity=len(members), fpr=0.05)
    probe_keys = tmp_path / "probe.keys"
    probe_keys.write_text("\n".join(str(v) for v in values) + "\n", encoding="utf-8")
    out = subprocess.run([CLI, "query", str(tmp_path / f"{column}.bkf"), "--input", str(probe_keys),
                          "--format", CLI_FORMAT[column]], check=True, capture_output=True, text=True).stdout
    cli = {}
    for line in out.splitlines():
        key, answer = line.rsplit("\t", 1)
        cli[key] = answer == "maybe"
    assert sum(cli.values()) > len(set(map(str, members)))  # some false positives to agree on
    constant = df.select(F.col(column).cast("string").alias("k"),
                         F.call_function("bloomkit_might_contain", F.lit(blob), F.col(column)).alias("m")).collect()
    got = {r.k: r.m for r in constant if r.k is not None}
    assert got == cli
    assert all(r.m is False for r in constant if r.k is None)  # a null key matches nothing
    # The filter as a column (not a constant): read per distinct value on the executors.
    holder = spark.createDataFrame([(bytearray(blob),)], "f binary")
    dynamic = df.crossJoin(holder).select(F.col(column).cast("string").alias("k"),
                                          F.expr(f"bloomkit_might_contain(f, {column})").alias("m")).collect()
    assert {r.k: r.m for r in dynamic if r.k is not None} == cli
    # semi_join_filter's JVM path keeps exactly the rows the CLI answers maybe for.
    kept = bks.semi_join_filter(df, column, bloomkit.from_bytes(blob))
    assert kept.count() == sum(cli[str(v)] for v in values)


def test_wrong_types_are_refused_on_the_driver(spark, jvm, table, tmp_path):
    df, _ = table
    blocks = bloomkit.sizing.split_block_blocks_for(N, FPR)
    int64_filter = bytes(jvm.buildBytes(df._jdf, "b", blocks, N, FPR, 2, True))
    tracker = spark.sparkContext.statusTracker()
    jobs = set(tracker.getJobIdsForGroup(None))
    arrays = df.select(F.array("b").alias("tags"))
    with pytest.raises(EngineError, match=r"column 'tags'.*cannot use its values as keys.*array<bigint>"):
        bks.build(arrays, "tags", capacity=10, path=str(tmp_path / "never.bkf"))
    with pytest.raises(Exception, match=r"cannot use its values as keys"):
        spark.sql("SELECT bloomkit_agg(array(b), 10, 0.01) FROM bk_keys").collect()
    with pytest.raises(Exception, match=r"holds int64 keys"):
        df.where(F.call_function("bloomkit_might_contain", F.lit(int64_filter), F.col("s"))).collect()
    with pytest.raises(bloomkit.MismatchError, match=r"column 's'.*holds int64 keys"):  # as the Python path
        bks.semi_join_filter(df, "s", bloomkit.from_bytes(int64_filter))
    assert set(tracker.getJobIdsForGroup(None)) == jobs  # refused before any job ran
    assert not (tmp_path / "never.bkf").exists()


def test_jar_ships_in_the_package():
    path = _jvm.jar_path()
    assert path is not None and os.path.basename(path) == _jvm.JAR_NAME
    assert Path(path).stat().st_size > 10_000
