"""Engine benchmark: bloomkit filters built in Spark and Dask clusters on this
machine, against the single-process Python build; the sharded filter's probe
throughput against the unsharded one; a join pre-filtered by a semi join.

    build/venv/bin/python python/bench/bench_engines.py --sizes 10000000,100000000 --workers 1,2 --json out.json

Keys are int64 (0 .. n-1 scrambled by a multiply, generated where the
partition is computed: Spark's range on the executors, a Dask task per
partition), the filter split-block at 1 % with capacity n. For each run:
wall time, keys per second, the time of the partition builds alone (the
same stage, with its results reduced to their sizes) and hence the share of
the shuffle-and-merge, and the peak resident memory of each worker (its
process tree: the executor JVM with its Python workers, or the Dask worker)
and of the driver (this process and, for Spark, the driver JVM), sampled
every 50 ms. Every engine result is checked byte for byte against the
single-process filter.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time

import numpy as np
import psutil

import bloomkit
import bloomkit.dask as bkd
import bloomkit.spark as bks
from bloomkit import sharding

MULT = np.int64(0x9E3779B97F4A7C15 - 2**64)  # odd: a bijection on int64, so keys stay distinct


def keys_range(lo: int, hi: int) -> np.ndarray:
    return np.arange(lo, hi, dtype=np.int64) * MULT


class Sampler:
    """Peak RSS of process trees, sampled in a thread (``roots``: a dict of
    name to pids, or a callable giving one at each sample). A root named in
    ``alone`` counts only itself, not its children: the Spark driver JVM of a
    local-cluster is the parent of the executor JVMs, which are measured as
    the workers."""

    def __init__(self, roots, alone: frozenset[int] = frozenset()):
        self.roots = roots
        self.alone = alone
        self.peak: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _tree_rss(self, pids):
        total = 0
        for pid in pids:
            try:
                p = psutil.Process(pid)
                procs = [p] if pid in self.alone else [p] + p.children(recursive=True)
            except psutil.NoSuchProcess:
                continue
            for q in procs:
                try:
                    total += q.memory_info().rss
                except psutil.NoSuchProcess:
                    pass
        return total

    def _run(self):
        while not self._stop.is_set():
            roots = self.roots() if callable(self.roots) else self.roots
            for name, pids in roots.items():
                self.peak.setdefault(name, 0)
                self.peak[name] = max(self.peak[name], self._tree_rss(pids))
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def single_process(n: int, chunk: int = 1 << 22):
    t = time.perf_counter()
    f = bloomkit.SplitBlockBloom(n, 0.01)
    for lo in range(0, n, chunk):
        f.add_many(keys_range(lo, min(n, lo + chunk)))
    return f, time.perf_counter() - t


def _mib(b):
    return round(b / 2**20, 1)


# ---- Spark ---------------------------------------------------------------------------

def spark_session(workers: int, memory_mb: int):
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    s = (SparkSession.builder.master(f"local-cluster[{workers},1,{memory_mb}]")
         .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
         .config("spark.ui.enabled", "false").config("spark.executor.memory", f"{memory_mb // 2}m")
         .config("spark.driver.memory", "2g").config("spark.driver.maxResultSize", "4g")
         .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
         .config("spark.sql.execution.arrow.maxRecordsPerBatch", "1000000")
         .config("spark.sql.ansi.enabled", "false")  # the key scramble wraps around int64 on purpose
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    return s


def spark_keys(spark, n, parts):
    from pyspark.sql import functions as F

    return spark.range(0, n, numPartitions=parts).select((F.col("id") * F.lit(int(MULT))).alias("key"))


def spark_roots(spark):
    """The driver JVM's pid and its executor JVMs' pids (zombies of executors
    that already exited are skipped)."""
    driver_jvm = spark.sparkContext._gateway.proc.pid
    executors = []
    for p in psutil.Process(driver_jvm).children(recursive=True):
        try:
            if "CoarseGrainedExecutorBackend" in " ".join(p.cmdline()):
                executors.append(p.pid)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            pass
    return driver_jvm, sorted(executors)


def bench_spark(n, workers, parts, reference):
    import pyarrow as pa

    spark = spark_session(workers, 3072)
    try:
        df = spark_keys(spark, n, parts)
        df.limit(1).collect()  # executors up, Python workers started
        driver_jvm, _ = spark_roots(spark)

        def roots():  # executors are looked up at each sample: Spark may replace one
            execs = spark_roots(spark)[1]
            return {"driver": [os.getpid(), driver_jvm], **{f"worker{i}": [pid] for i, pid in enumerate(execs)}}
        # The partition builds alone: the same stage, results reduced to their sizes.
        cls, cap = bloomkit.SplitBlockBloom, n
        schema = pa.schema([("filter", pa.binary())])

        def part(batches):
            from bloomkit import _engines as e
            f = e.partition_filter(cls, cap, 0.01, (b.column(0) for b in batches), "key")
            yield pa.RecordBatch.from_pydict({"filter": [f.to_bytes()]}, schema=schema)

        t = time.perf_counter()
        df.mapInArrow(part, "filter binary").rdd.map(lambda r: len(r[0])).sum()
        build_only = time.perf_counter() - t
        with Sampler(roots, alone=frozenset({os.getpid(), driver_jvm})) as s:
            t = time.perf_counter()
            f = bks.build(df, "key", capacity=n, fpr=0.01)
            total = time.perf_counter() - t
        assert f.to_bytes() == reference.to_bytes(), "spark result differs from the single-process filter"
        sharded = sharded_build(lambda out: bks.build_sharded(df, "key", out, shards=8, capacity=n), reference)
        return {"engine": "spark", "sharded_build_8_s": sharded, "n": n, "workers": workers, "partitions": parts, "seconds": round(total, 2),
                "keys_per_s": round(n / total), "partition_builds_s": round(build_only, 2),
                "shuffle_merge_share": round(max(0.0, total - build_only) / total, 3),
                "peak_rss_mib": {k: _mib(v) for k, v in s.peak.items()}}
    finally:
        spark.stop()


# ---- Dask ----------------------------------------------------------------------------

def dask_keys(n, parts):
    import dask.dataframe as dd
    import pandas as pd

    bounds = [(i * n // parts, (i + 1) * n // parts) for i in range(parts)]
    return dd.from_map(lambda b: pd.DataFrame({"key": keys_range(*b)}), bounds,
                       meta=pd.DataFrame({"key": np.empty(0, dtype=np.int64)}))


def bench_dask(n, workers, parts, reference):
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, memory_limit="6GiB")
    client = Client(cluster)
    try:
        ddf = dask_keys(n, parts)
        pids = list(client.run(os.getpid).values())
        roots = {"driver": [os.getpid()]}
        roots.update({f"worker{i}": [pid] for i, pid in enumerate(pids)})
        import dask

        from bloomkit.dask import _build_part, _parts

        t = time.perf_counter()
        sizes = [dask.delayed(len)(dask.delayed(_build_part)(p, "key", False, bloomkit.SplitBlockBloom, n, 0.01))
                 for p in _parts(ddf, "key")]
        dask.compute(*sizes)
        build_only = time.perf_counter() - t
        with Sampler(roots, alone=frozenset({os.getpid()})) as s:
            t = time.perf_counter()
            f = bkd.build(ddf, "key", capacity=n, fpr=0.01)
            total = time.perf_counter() - t
        assert f.to_bytes() == reference.to_bytes(), "dask result differs from the single-process filter"
        sharded = sharded_build(lambda out: bkd.build_sharded(ddf, "key", out, shards=8, capacity=n), reference)
        return {"engine": "dask", "sharded_build_8_s": sharded, "n": n, "workers": workers, "partitions": parts, "seconds": round(total, 2),
                "keys_per_s": round(n / total), "partition_builds_s": round(build_only, 2),
                "shuffle_merge_share": round(max(0.0, total - build_only) / total, 3),
                "peak_rss_mib": {k: _mib(v) for k, v in s.peak.items()}}
    finally:
        client.close()
        cluster.close()


def sharded_build(run, reference):
    """Seconds of a sharded build (8 shards); checks it gathers to the reference."""
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        manifest = run(os.path.join(tmp, "s"))
        seconds = time.perf_counter() - t
        assert sharding.ShardedFilter(manifest).gather().to_bytes() == reference.to_bytes()
    return round(seconds, 2)


# ---- merge cost, sharded probes, the join ---------------------------------------------

def merge_cost(n):
    """Seconds per merge of two n-capacity filters as the tree does it
    (from_bytes both, merge, to_bytes)."""
    from bloomkit._engines import merge_bytes

    a = bloomkit.SplitBlockBloom(n, 0.01)
    a.add_many(keys_range(0, 1000))
    b = a.to_bytes()
    t = time.perf_counter()
    reps = 3
    for _ in range(reps):
        merge_bytes(b, b)
    return {"filter_mib": _mib(len(b)), "merge_s": round((time.perf_counter() - t) / reps, 4)}


def sharded_probe(n, shards, probes):
    with tempfile.TemporaryDirectory() as tmp:
        keys = keys_range(0, n)
        manifest = sharding.build_local(keys, os.path.join(tmp, "s"), shards=shards, capacity=n)
        f = sharding.ShardedFilter(manifest)
        whole = f.gather()
        q = bloomkit.hash_keys(keys_range(n, n + probes // 2), whole)
        q = np.concatenate([q, bloomkit.hash_keys(keys[: probes // 2], whole)])
        np.random.default_rng(1).shuffle(q)
        out = {}
        for name, fn in [("unsharded", whole.may_contain_hashes), (f"sharded_{shards}", f.may_contain_hashes)]:
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                r = fn(q)
                best = min(best, time.perf_counter() - t)
            out[name] = {"probes_per_s": round(len(q) / best), "seconds": round(best, 3)}
        assert (whole.may_contain_hashes(q) == f.may_contain_hashes(q)).all()
        return {"n": n, "probes": len(q), **out}


def join_prefilter(big, small, workers=2):
    """A join of `big` rows against `small` keys (1 in 20 of the big keys
    join), with and without a semi-join pre-filter, in Spark."""
    from pyspark.sql import functions as F

    spark = spark_session(workers, 2048)
    try:
        facts = spark.range(0, big, numPartitions=8).select(
            (F.col("id") * F.lit(int(MULT))).alias("key"), (F.col("id") % 97).alias("v"))
        dim = spark.range(0, small, numPartitions=2).select(
            ((F.col("id") * 20) * F.lit(int(MULT))).alias("key"), F.lit(1).alias("w"))
        facts.cache().count()
        dim.cache().count()
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")  # a shuffle join, where pre-filtering pays

        def run(df):
            t = time.perf_counter()
            rows = df.join(dim, "key").agg(F.sum("v")).collect()[0][0]
            return time.perf_counter() - t, rows

        plain_s, plain = run(facts)
        t = time.perf_counter()
        f = bks.build(dim, "key", capacity=small, fpr=0.01)
        filter_build_s = time.perf_counter() - t
        pre = bks.semi_join_filter(facts, "key", f)
        kept = pre.count()
        pre_s, pre_rows = run(pre)
        assert plain == pre_rows
        return {"big_rows": big, "small_keys": small, "joining_rows": min(small, -(-big // 20)), "rows_after_prefilter": kept,
                "join_s": round(plain_s, 2), "prefiltered_join_s": round(pre_s, 2),
                "filter_build_s": round(filter_build_s, 2)}
    finally:
        spark.stop()


def join_prefilter_dask(big, small, workers=2, parts=8):
    """The same join as `join_prefilter`, in Dask: a hash (shuffle) join of
    `big` rows against `small` keys, with and without a semi-join pre-filter."""
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    def facts_part(b):
        ids = np.arange(*b, dtype=np.int64)
        return pd.DataFrame({"key": ids * MULT, "v": ids % 97})

    def dim_part(b):
        ids = np.arange(*b, dtype=np.int64)
        return pd.DataFrame({"key": (ids * 20) * MULT, "w": np.ones(len(ids), dtype=np.int64)})

    def bounds(n, p):
        return [(i * n // p, (i + 1) * n // p) for i in range(p)]

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, memory_limit="6GiB")
    client = Client(cluster)
    try:
        facts = dd.from_map(facts_part, bounds(big, parts)).persist()
        dim = dd.from_map(dim_part, bounds(small, 2)).persist()
        facts.key.count().compute()
        dim.key.count().compute()

        def run(df):
            t = time.perf_counter()
            rows = int(df.merge(dim, on="key", broadcast=False, shuffle_method="tasks").v.sum().compute())
            return time.perf_counter() - t, rows

        plain_s, plain = run(facts)
        t = time.perf_counter()
        f = bkd.build(dim, "key", capacity=small, fpr=0.01)
        filter_build_s = time.perf_counter() - t
        pre = bkd.semi_join_filter(facts, "key", f)
        kept = int(pre.key.count().compute())
        pre_s, pre_rows = run(pre)
        assert plain == pre_rows
        return {"engine": "dask", "big_rows": big, "small_keys": small, "joining_rows": min(small, -(-big // 20)),
                "rows_after_prefilter": kept, "join_s": round(plain_s, 2),
                "prefiltered_join_s": round(pre_s, 2), "filter_build_s": round(filter_build_s, 2)}
    finally:
        client.close()
        cluster.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000000,100000000")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--engines", default="spark,dask")
    ap.add_argument("--join", default="10000000,200000", help="big,small for the join pre-filter ('' to skip)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    results = {"machine": {"cpus": os.cpu_count(), "load_at_start": os.getloadavg()}, "runs": []}

    def emit(r):
        print(json.dumps(r), flush=True)

    for n in [int(x) for x in args.sizes.split(",") if x]:
        ref, single_s = single_process(n)
        r = {"engine": "single-process", "n": n, "seconds": round(single_s, 2), "keys_per_s": round(n / single_s)}
        results["runs"].append(r)
        emit(r)
        results.setdefault("merge", []).append(m := {"n": n, **merge_cost(n)})
        emit(m)
        for engine in args.engines.split(","):
            for w in [int(x) for x in args.workers.split(",")]:
                fn = bench_spark if engine == "spark" else bench_dask
                r = fn(n, w, args.partitions, ref)
                # The tree does partitions - 1 merges; at the measured cost of one
                # merge, their share of the CPU-seconds the workers had.
                r["merge_cpu_share_derived"] = round((args.partitions - 1) * m["merge_s"] / (r["seconds"] * w), 3)
                results["runs"].append(r)
                emit(r)
        del ref
    results["sharded_probe"] = sharded_probe(10_000_000, 8, 10_000_000)
    emit(results["sharded_probe"])
    if args.join:
        big, small = (int(x) for x in args.join.split(","))
        engines = args.engines.split(",")
        if "spark" in engines:
            results["join"] = join_prefilter(big, small)
            emit(results["join"])
        if "dask" in engines:
            results["join_dask"] = join_prefilter_dask(big, small)
            emit(results["join_dask"])
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
