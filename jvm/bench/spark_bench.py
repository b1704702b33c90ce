#!/usr/bin/env python3
"""Spark build and semi-join timings: Spark's own df.stat.bloomFilter against bloomkit's
JVM path (bloomkit's jar, the default of bloomkit.spark.build) and its Python path
(engine="python"), on cached DataFrames in local[2], best of REPEATS runs each.

    build/venv/bin/python jvm/bench/spark_bench.py [--rows 1000000 10000000] [--repeats 3]

Needs the bloomkit package installed in the venv with its jar (./bloomkit.sh test, step jvm,
then python/venv.sh install) or BLOOMKIT_JVM_JAR naming it. Prints a Markdown table for
BENCHMARKS.md and one JSON line per measurement on stderr. Every build of one column and
size is checked to give the same bytes (the two bloomkit paths) before it is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time


def session():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("bloomkit-spark-bench")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "6g")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[10**6, 10**7])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--fpr", type=float, default=0.01)
    args = ap.parse_args()

    spark = session()
    from pyspark.sql import functions as F

    import bloomkit
    import bloomkit.spark as bks
    from bloomkit import _jvm

    assert _jvm.ensure(spark), "bloomkit's jar did not load"
    jvm = _jvm.entry(spark)
    rows = []

    def record(**kw):
        print(json.dumps(kw), file=sys.stderr)
        rows.append(kw)

    for n in args.rows:
        base = spark.range(0, n, numPartitions=4).select(((F.col("id") * 2654435761) % (2**40)).alias("id"))
        frames = {
            "bigint": base.select(F.col("id").alias("k")).cache(),
            "string": base.select(F.concat(F.lit("user-"), F.col("id").cast("string")).alias("k")).cache(),
        }
        for column, df in frames.items():
            df.count()
            jvm_bytes = bks.build(df, "k", capacity=n, fpr=args.fpr).to_bytes()
            assert jvm_bytes == bks.build(df, "k", capacity=n, fpr=args.fpr, engine="python").to_bytes()
            spark_s = best(lambda: df._jdf.stat().bloomFilter("k", n, args.fpr), args.repeats)
            jvm_s = best(lambda: bks.build(df, "k", capacity=n, fpr=args.fpr), args.repeats)
            jvm_only = best(lambda: jvm.build(df._jdf, "k", n, args.fpr), args.repeats)
            py_s = best(lambda: bks.build(df, "k", capacity=n, fpr=args.fpr, engine="python"), args.repeats)
            record(what="build", rows=n, column=column, spark_bloomFilter=spark_s, bloomkit_jvm=jvm_s,
                   bloomkit_jvm_in_jvm=jvm_only, bloomkit_python=py_s, filter_bytes=len(jvm_bytes))

        # Semi join: the n-row frame against 1 % of its keys, plain and prefiltered both ways.
        big = frames["bigint"]
        small = big.where(F.col("k") % 100 == 7).select("k").cache()
        m = small.count()
        f = bks.build(small, "k", capacity=m, fpr=args.fpr)
        expected = big.join(small, "k", "left_semi").count()
        for engine in ("jvm", "python"):
            assert bks.semi_join_filter(big, "k", f, engine=engine).join(small, "k", "left_semi").count() == expected
        plain = best(lambda: big.join(small, "k", "left_semi").count(), args.repeats)
        pre_jvm = best(lambda: bks.semi_join_filter(big, "k", bks.build(small, "k", capacity=m, fpr=args.fpr))
                       .join(small, "k", "left_semi").count(), args.repeats)
        pre_py = best(lambda: bks.semi_join_filter(big, "k", bks.build(small, "k", capacity=m, fpr=args.fpr,
                                                                          engine="python"), engine="python")
                      .join(small, "k", "left_semi").count(), args.repeats)
        record(what="semi_join", rows=n, small_rows=m, joined=expected, plain_join=plain,
               prefiltered_jvm=pre_jvm, prefiltered_python=pre_py)
        for df in frames.values():
            df.unpersist()
        small.unpersist()

    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), platform.machine())
    print(f"\nMachine: {model}, {os.cpu_count()} CPUs; Spark local[2]; FPR {args.fpr}; best of {args.repeats}.\n")
    print("| rows | column | Spark `bloomFilter` | bloomkit JVM path | (in the JVM only) | bloomkit Python path | JVM / Spark |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if r["what"] == "build":
            print(f"| 10^{len(str(r['rows'])) - 1} | {r['column']} | {r['spark_bloomFilter']:.2f} s | "
                  f"{r['bloomkit_jvm']:.2f} s | {r['bloomkit_jvm_in_jvm']:.2f} s | {r['bloomkit_python']:.2f} s | "
                  f"{r['bloomkit_jvm'] / r['spark_bloomFilter']:.2f} |")
    print("\n| rows | small side | plain left-semi join | prefiltered, JVM path | prefiltered, Python path |")
    print("|---|---|---|---|---|")
    for r in rows:
        if r["what"] == "semi_join":
            print(f"| 10^{len(str(r['rows'])) - 1} | {r['small_rows']} | {r['plain_join']:.2f} s | "
                  f"{r['prefiltered_jvm']:.2f} s | {r['prefiltered_python']:.2f} s |")
    spark.stop()


if __name__ == "__main__":
    main()
