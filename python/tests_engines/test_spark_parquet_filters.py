"""Spark reads files that bloomkit.parquet.add_filters gave filters (issue 39, item 3).

For a file pyarrow wrote without filters and one Spark itself (parquet-mr) wrote without
filters: after add_filters, Spark reads every row unchanged, and Spark's own reader uses the new
filters. Shown two ways with Spark's own machinery: parquet-mr's row-group filter (the
ParquetFileReader Spark reads with, only its Bloom filter level on) keeps exactly the row groups
bloomkit.parquet.probe says may hold the value; and a Spark query for an absent value reads no
row at all from the file with filters (the scan's "number of output rows" metric) where it reads
every row of the file without them. The absent values lie inside every row group's min/max and
the columns are not dictionary-encoded, so nothing but a Bloom filter can skip a row group."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bloomkit import parquet

from engines_fixtures import spark  # noqa: F401  (fixture)

ROWS = 8000
GROUP = 2000  # four row groups


def _table() -> pa.Table:
    # Consecutive rows step through the even numbers 0..9998 by 5838 (mod 10000), so every
    # row group's min/max spans the middle of that range: statistics cannot rule out an odd
    # value there ("user-4567"), only a Bloom filter can.
    users = [f"user-{(i * 2 * 7919) % 10000:04d}" for i in range(ROWS)]
    ids = [((i * 2 * 7919) % 20000) for i in range(ROWS)]
    return pa.table({"user": pa.array(users), "id": pa.array(ids, pa.int64())})


ABSENT_USERS = ["user-0001", "user-4567", "user-9997"]  # odd: never written


def _spark_rows(spark, path):
    return sorted((r["user"], r["id"]) for r in spark.read.parquet(str(path)).collect())


def _parquet_mr_row_groups(spark, path, user: str) -> list[int]:
    """The indexes of the row groups parquet-mr (the reader Spark uses) keeps for
    user == `user`, with only its Bloom filter level on. A row group is named by its
    place among all the file's row groups (matched by its starting offset): pyarrow
    writes no RowGroup.ordinal, so parquet-mr's getOrdinal() is 0 for every group."""
    jvm = spark._jvm
    conf = spark._jsc.hadoopConfiguration()
    FilterApi = jvm.org.apache.parquet.filter2.predicate.FilterApi
    source = jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(jvm.org.apache.hadoop.fs.Path(str(path)),
                                                                           conf)

    def starts(options) -> list[int]:
        reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(source, options)
        try:
            groups = reader.getRowGroups()
            return [groups.get(i).getStartingPos() for i in range(groups.size())]
        finally:
            reader.close()

    everything = starts(jvm.org.apache.parquet.HadoopReadOptions.builder(conf).build())
    predicate = FilterApi.eq(FilterApi.binaryColumn("user"), jvm.org.apache.parquet.io.api.Binary.fromString(user))
    options = (jvm.org.apache.parquet.HadoopReadOptions.builder(conf)
               .useStatsFilter(False).useDictionaryFilter(False).useColumnIndexFilter(False)
               .useBloomFilter(True)
               .withRecordFilter(jvm.org.apache.parquet.filter2.compat.FilterCompat.get(predicate))
               .build())
    return sorted(everything.index(start) for start in starts(options))


def _rows_scanned(spark, path, user: str) -> int:
    """Spark's "number of output rows" of the Parquet scan for WHERE user = `user`."""
    df = spark.read.parquet(str(path)).filter(f"user = '{user}'")
    assert df.count() == 0
    df.collect()
    plan = df._jdf.queryExecution().executedPlan()
    leaves = plan.collectLeaves()
    for i in range(leaves.size()):
        node = leaves.apply(i)
        if "Scan" in node.nodeName():
            return int(node.metrics().apply("numOutputRows").value())
    raise AssertionError(f"no scan in {plan.toString()}")


@pytest.fixture(scope="module")
def no_adaptive(spark):
    # The executed plan's leaves are the scan only without adaptive execution's wrapper.
    old = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    yield spark
    spark.conf.set("spark.sql.adaptive.enabled", old)


@pytest.fixture(scope="module", params=["pyarrow", "spark"])
def unfiltered(request, spark, tmp_path_factory):
    """A file without Bloom filters, written by pyarrow or by Spark (parquet-mr)."""
    folder = tmp_path_factory.mktemp(request.param)
    t = _table()
    if request.param == "pyarrow":
        path = folder / "plain.parquet"
        pq.write_table(t, path, row_group_size=GROUP, use_dictionary=False, compression="snappy")
        return path
    out = folder / "spark"
    (spark.createDataFrame(t.to_pandas()).coalesce(1)
     .write.option("parquet.enable.dictionary", "false").option("parquet.block.size", 16 * 1024)
     .parquet(str(out)))
    files = sorted(out.glob("part-*.parquet"))
    assert len(files) == 1
    assert len(parquet.row_groups(files[0])) // 2 >= 2, "Spark wrote one row group: the test proves nothing"
    return files[0]


def test_spark_reads_and_skips_with_added_filters(spark, no_adaptive, unfiltered, tmp_path):
    before = parquet.row_groups(unfiltered)
    assert not any(r["has_filter"] for r in before)
    out = tmp_path / "with_filters.parquet"
    report = parquet.add_filters(unfiltered, out, columns=["user", "id"], fpp=0.01)
    assert {r["action"] for r in report} == {"added"}
    groups = sorted({r["row_group"] for r in parquet.row_groups(out)})

    # Every row and value as before.
    assert _spark_rows(spark, out) == _spark_rows(spark, unfiltered)

    for user in ABSENT_USERS + ["user-0000"]:
        # Without filters, parquet-mr keeps every row group; with them, exactly those bloomkit's
        # probe cannot rule out.
        assert _parquet_mr_row_groups(spark, unfiltered, user) == groups
        kept_by_spark = _parquet_mr_row_groups(spark, out, user)
        kept_by_bloomkit = [r["row_group"] for r in parquet.probe(out, "user", [user]) if not r["skip"]]
        assert kept_by_spark == kept_by_bloomkit, user
    # No false negative: a value of each row group keeps that row group.
    written = pq.ParquetFile(out)
    assert written.num_row_groups == len(groups)
    for g in groups:
        present = written.read_row_group(g, columns=["user"]).column("user")[0].as_py()
        assert g in _parquet_mr_row_groups(spark, out, present), (g, present)
    skipped = sum(len(groups) - len(_parquet_mr_row_groups(spark, out, u)) for u in ABSENT_USERS)
    assert skipped >= len(ABSENT_USERS) * len(groups) - 1  # FPR 0.01: at most one false positive

    # A Spark query: the file without filters is read whole; with them, row groups are skipped.
    middle = ABSENT_USERS[1]
    assert _rows_scanned(spark, unfiltered, middle) == ROWS
    kept = _parquet_mr_row_groups(spark, out, middle)
    scanned = _rows_scanned(spark, out, middle)
    assert scanned < ROWS
    if not kept:
        assert scanned == 0
