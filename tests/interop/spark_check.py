#!/usr/bin/env python3
"""bloomkit against the real Spark (PySpark 4.3.0, pinned in python/requirements/interop.txt).

    spark_check.py BLOOMKIT_CLI WORKDIR [--big] [--parquet | --parquet-only]

Spark builds filters with ``df.stat.bloomFilter`` (over longs, ints and strings; with --big a
2^31 + 2^20-bit filter too) and writes them with its own ``writeTo``; ``bloomkit query`` must
answer every probe exactly as Spark's ``mightContain``. Spark builds two halves of one filter,
``bloomkit merge`` joins them, and Spark's ``readFrom`` reads the result, which must equal Spark's
own ``mergeInPlace`` and answer identically. With --parquet it then runs parquet_writers.py's
checks in the same Spark session (Parquet written by parquet-mr and by Arrow C++, probed by
parquet-mr's reader and by bloomkit).

Prints one line per check and exits 1 if any disagreed (and 2 if Spark could not start).
"""
import os
import random
import subprocess
import sys
import time


def spark_session(memory="3g"):
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("bloomkit-interop")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", memory)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )


def cli_answers(cli, path, fmt, keys):
    """bloomkit query's answers (True = maybe) for keys, in order."""
    text = "".join(k + "\n" for k in keys).encode("utf-8", "surrogatepass")
    out = subprocess.run([cli, "query", path, "--format", fmt], input=text, capture_output=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"bloomkit query {path} failed ({out.returncode}): {out.stderr.decode()}")
    answers = []
    for line in out.stdout.decode("utf-8", "surrogateescape").splitlines():
        answers.append(line.rsplit("\t", 1)[1] == "maybe")
    if len(answers) != len(keys):
        raise RuntimeError(f"bloomkit query answered {len(answers)} of {len(keys)} keys")
    return answers


def write_filter(jvm, bloom, path):
    out = jvm.java.io.FileOutputStream(path)
    try:
        bloom.writeTo(out)
    finally:
        out.close()


def read_filter(jvm, path):
    stream = jvm.java.io.FileInputStream(path)
    try:
        return jvm.org.apache.spark.util.sketch.BloomFilter.readFrom(stream)
    finally:
        stream.close()


class Report:
    def __init__(self):
        self.failures = []

    def check(self, name, ok, detail):
        print(f"{name}: {detail}: {'ok' if ok else 'FAILED'}", flush=True)
        if not ok:
            self.failures.append(name)


def spark_filters(spark, cli, work, big, report):
    from pyspark.sql import functions as F

    jvm = spark._jvm
    rng = random.Random(20261201)

    # Longs: 40,000 values spread over negative and positive, absent probes from elsewhere.
    longs = spark.range(0, 40000).select((F.col("id") * 7919 - 150_000_000).alias("x"))
    present = [r.x for r in longs.sample(fraction=0.05, seed=1).collect()][:2000]
    absent = [rng.randrange(-(2**63), 2**63) for _ in range(10000)]
    cases = [("spark_df_long", longs, "x", 40000, 0.03, present + absent, "i64", "mightContainLong")]

    # Ints: Spark hashes an IntegerType value as a long; bloomkit's i32 keys do the same.
    ints = spark.range(0, 20000).select((F.col("id") * 104729 - 1_000_000_000).cast("int").alias("i"))
    present = [r.i for r in ints.sample(fraction=0.1, seed=2).collect()][:1000]
    absent = [rng.randrange(-(2**31), 2**31) for _ in range(5000)]
    cases.append(("spark_df_int", ints, "i", 20000, 0.01, present + absent, "i32", "mightContainLong"))

    # Strings with 2-, 3- and 4-byte UTF-8 (Spark hashes the UTF-8 bytes).
    strings = spark.range(0, 30000).select(
        F.concat(F.lit("k-"), F.col("id").cast("string"), F.lit("-é✓😀")).alias("s"))
    present = [r.s for r in strings.sample(fraction=0.05, seed=3).collect()][:1500]
    absent = [f"k-{rng.randrange(30000, 10**9)}-é✓😀" for _ in range(5000)] + ["", "k-", "é"]
    cases.append(("spark_df_string", strings, "s", 30000, 0.03, present + absent, "text", "mightContainString"))

    for name, df, column, n, fpp, probes, fmt, method in cases:
        bloom = df._jdf.stat().bloomFilter(column, n, fpp)
        path = os.path.join(work, name + ".bin")
        write_filter(jvm, bloom, path)
        spark_says = [getattr(bloom, method)(p) for p in probes]
        ours = cli_answers(cli, path, fmt, [str(p) for p in probes])
        disagree = sum(a != b for a, b in zip(spark_says, ours))
        report.check(name, disagree == 0,
                     f"df.stat.bloomFilter({column}, {n}, {fpp}): {bloom.bitSize()} bits, {len(probes)} probes, "
                     f"{sum(spark_says)} maybe, {disagree} disagreements")

    # Two halves built by Spark, merged by bloomkit, read back by Spark.
    half_a = longs.where(F.col("x") < 0)._jdf.stat().bloomFilter("x", 40000, 0.03)
    half_b = longs.where(F.col("x") >= 0)._jdf.stat().bloomFilter("x", 40000, 0.03)
    pa, pb, merged = (os.path.join(work, f) for f in ("half_a.bin", "half_b.bin", "merged.bin"))
    write_filter(jvm, half_a, pa)
    write_filter(jvm, half_b, pb)
    out = subprocess.run([cli, "merge", pa, pb, "-o", merged, "--quiet"], capture_output=True, check=False)
    if out.returncode != 0:
        report.check("spark_merge", False, out.stderr.decode())
    else:
        ours = read_filter(jvm, merged)
        half_a.mergeInPlace(half_b)
        probes = cases[0][5]
        disagree = sum(ours.mightContainLong(p) != half_a.mightContainLong(p) for p in probes[:3000])
        report.check("spark_merge", bool(ours.equals(half_a)) and disagree == 0,
                     f"bloomkit merge of two Spark halves, read by Spark's readFrom: equal to mergeInPlace "
                     f"{bool(ours.equals(half_a))}, {disagree} disagreements on 3000 probes")

    if big:
        # Past 2^31 bits: version 2 indexes every bit. df.stat.bloomFilter caps a filter at
        # spark.sql.optimizer.runtime.bloomFilter.maxNumBits (default 2^26 bits) and its items at
        # ...maxNumItems (default 4e6): raise both, and claim 2e8 items so k stays small (7).
        bits = (1 << 31) + (1 << 20)
        spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.maxNumBits", str(bits))
        spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.maxNumItems", "200000000")
        started = time.time()
        # One partition: one 268 MB aggregation buffer, no partial buffers to serialise and merge.
        rows = spark.range(0, 1_000_000, 1, 1).select((F.col("id") * 2654435761).alias("x"))
        bloom = rows._jdf.stat().bloomFilter("x", 200_000_000, bits)
        path = os.path.join(work, "spark_df_big.bin")
        write_filter(jvm, bloom, path)
        present = [r.x for r in rows.sample(fraction=0.002, seed=4).collect()]
        absent = [rng.randrange(-(2**63), 2**63) for _ in range(3000)]
        probes = present + absent
        spark_says = [bloom.mightContainLong(p) for p in probes]
        ours = cli_answers(cli, path, "i64", [str(p) for p in probes])
        disagree = sum(a != b for a, b in zip(spark_says, ours))
        report.check("spark_df_big", disagree == 0 and bloom.bitSize() > (1 << 31),
                     f"df.stat.bloomFilter(x, 2e8, {bits}): {bloom.bitSize()} bits, {len(probes)} probes, "
                     f"{disagree} disagreements ({time.time() - started:.0f} s)")
        os.remove(path)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, work = os.path.abspath(argv[1]), argv[2]
    os.makedirs(work, exist_ok=True)
    try:
        spark = spark_session()
    except Exception as e:  # noqa: BLE001 - report why Spark did not start
        print(f"spark_check: Spark did not start: {e}", file=sys.stderr)
        return 2
    report = Report()
    try:
        if "--parquet-only" not in argv:
            spark_filters(spark, cli, work, "--big" in argv, report)
        if "--parquet" in argv or "--parquet-only" in argv:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import parquet_writers

            parquet_writers.run(spark, cli, os.path.join(work, "parquet"), report)
    finally:
        spark.stop()
    if report.failures:
        print(f"spark_check: {len(report.failures)} checks FAILED: {', '.join(report.failures)}")
        return 1
    print("spark_check: every check agreed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
