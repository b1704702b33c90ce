"""bloomkit.parquet.add_filters: filters added to Parquet files written without them (pyarrow,
DuckDB) and replaced in parquet-mr's (Spark) and arrow-rs's files; the data is copied byte for
byte, pyarrow and DuckDB read every row as before, DuckDB's parquet_bloom_probe uses the new filters,
and bloomkit's probe agrees with it."""

from __future__ import annotations

import datetime
import decimal
import os
import pathlib
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bloomkit
from bloomkit import parquet

ROOT = pathlib.Path(__file__).resolve().parents[2]
WRITERS = ROOT / "tests" / "fixtures" / "parquet_writers"
ROWS = 6000
GROUP = 1500


def table() -> pa.Table:
    """Several row groups' worth of the column shapes that matter: high- and low-cardinality
    strings, ints of every width, dates, timestamps, decimals (INT32, INT64 and FLBA), doubles,
    fixed-size binary and a dictionary column, with nulls."""
    n = ROWS
    return pa.table({
        "user": pa.array([f"user-{i * 7919 % 100003}" for i in range(n)]),
        "country": pa.array([["de", "fr", "us", "jp", None][i % 5] for i in range(n)]),
        "i8": pa.array([(i % 256) - 128 for i in range(n)], pa.int8()),
        "u16": pa.array([i * 13 % 65536 for i in range(n)], pa.uint16()),
        "u32": pa.array([(i * 2654435761) % 2**32 for i in range(n)], pa.uint32()),
        "i64": pa.array([i * 1_000_003 - 2**40 for i in range(n)], pa.int64()),
        "u64": pa.array([(i * 11400714819323198485) % 2**64 for i in range(n)], pa.uint64()),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 900) for i in range(n)]),
        "ts_ms": pa.array([1_600_000_000_000 + i * 1000 for i in range(n)], pa.timestamp("ms")),
        "ts_us": pa.array([1_600_000_000_000_000 + i * 17 for i in range(n)], pa.timestamp("us", tz="UTC")),
        "price": pa.array([decimal.Decimal(i * 3 - 5000) / 100 for i in range(n)], pa.decimal128(9, 2)),
        "big_price": pa.array([decimal.Decimal(i * 7) / 10000 for i in range(n)], pa.decimal128(18, 4)),
        "huge": pa.array([decimal.Decimal(i) ** 3 / 1000 for i in range(n)], pa.decimal128(30, 3)),
        "x": pa.array([i / 7 for i in range(n)], pa.float64()),
        "f": pa.array([i / 3 for i in range(n)], pa.float32()),
        "key": pa.array([(i * 7).to_bytes(6, "little") for i in range(n)], pa.binary(6)),
        "ok": pa.array([i % 3 == 0 for i in range(n)]),
    })


@pytest.fixture(scope="module")
def pyarrow_file(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("pa") / "plain.parquet"
    pq.write_table(table(), path, row_group_size=GROUP, compression="snappy", write_page_index=True,
                   store_decimal_as_integer=True)
    return path


@pytest.fixture(scope="module")
def duckdb_file(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("duck") / "duck.parquet"
    duckdb.execute(f"""COPY (SELECT i::BIGINT AS id, 'name-' || (i * 31 % 9973) AS name, (i % 40)::INTEGER AS small,
                    DATE '2021-01-01' + (i % 500)::INTEGER AS d, (i / 8.0)::DOUBLE AS v
                    FROM range({ROWS}) t(i))
                   TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 2048, COMPRESSION zstd, WRITE_BLOOM_FILTER false)""")
    return path


def same_prefix(before: pathlib.Path, after: pathlib.Path) -> None:
    a, b = before.read_bytes(), after.read_bytes()
    footer = int.from_bytes(a[-8:-4], "little")
    start = len(a) - 8 - footer
    assert b[:start] == a[:start], "a byte before the footer changed"


def duck_excludes(path: pathlib.Path, column: str, value) -> list[bool]:
    rows = duckdb.execute("SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?) "
                          "ORDER BY row_group_id", [str(path), column, value]).fetchall()
    return [bool(e) for _, e in rows]


def test_pyarrow_file_gets_filters_and_reads_unchanged(pyarrow_file, tmp_path):
    out = tmp_path / "with_filters.parquet"
    assert not any(r["has_filter"] for r in parquet.row_groups(pyarrow_file))
    report = parquet.add_filters(pyarrow_file, out, fpp=0.01)
    columns = [c for c in table().column_names if c != "ok"]
    assert {r["column"] for r in report} == set(columns)
    assert all(r["action"] == "added" and r["estimated_fpr"] <= 0.01 for r in report)
    same_prefix(pyarrow_file, out)
    assert pq.read_table(out).equals(pq.read_table(pyarrow_file))
    assert duckdb.execute(f"SELECT * FROM '{out}' EXCEPT ALL SELECT * FROM '{pyarrow_file}'").fetchall() == []
    assert duckdb.execute(f"SELECT count(*) FROM '{out}'").fetchall()[0][0] == ROWS

    # Every value of every chunk is in its new filter, by bloomkit's probe (the stored bytes
    # hashed as the file's physical type says) and by the filters themselves.
    t = table()
    pf = pq.ParquetFile(out)
    for rg in range(pf.metadata.num_row_groups):
        chunk = pf.read_row_group(rg)
        for c in columns:
            f = parquet.read_filter(out, c, rg)
            # The stored bytes as such: the bitset without the column's key type.
            untyped = parquet.filter_from_bitset(f.to_parquet_bitset())
            raw = parquet.plain_values(chunk.column(c), pf.schema.column(pf.schema.names.index(c)))
            assert all(v in untyped for v in raw.to_pylist()), (rg, c)
    # An absent value: DuckDB's probe now excludes every row group, and bloomkit's agrees.
    for column, absent, duck_value in [("user", "nobody", "nobody"), ("i64", "12345", 12345),
                                       ("day", "1999-01-01", datetime.date(1999, 1, 1))]:
        before = duck_excludes(pyarrow_file, column, duck_value)
        after = duck_excludes(out, column, duck_value)
        assert not any(before)
        ours = [r["skip"] for r in parquet.probe(out, column, [absent])]
        assert after == ours
        assert sum(after) >= len(after) - 1, (column, after)  # 1 % each: at most one false positive here
    # A present value is never excluded from the row group that holds it.
    assert not duck_excludes(out, "user", t.column("user")[0].as_py())[0]
    assert not parquet.probe(out, "i64", [str(t.column("i64")[ROWS - 1].as_py())])[-1]["skip"]


def test_plain_values_hash_as_arrow_cpp_does(tmp_path):
    """pyarrow's own filters (Arrow C++) over the same columns: a filter of the stored size built
    from plain_values equals the stored bitset, for every type add_filters maps."""
    path = tmp_path / "arrow_filters.parquet"
    t = table().drop_columns(["ok"])
    pq.write_table(t, path, row_group_size=GROUP, store_decimal_as_integer=True,
                   bloom_filter_options={c: {"ndv": 2000, "fpp": 0.05} for c in t.column_names})
    pf = pq.ParquetFile(path)
    checked = 0
    for rg in range(pf.metadata.num_row_groups):
        chunk = pf.read_row_group(rg)
        for c in t.column_names:
            stored = parquet.read_filter(path, c, rg)
            assert stored is not None, c
            built = bloomkit.SplitBlockBloom.with_blocks(stored.num_blocks)
            built.add_many(parquet.plain_values(chunk.column(c), pf.schema.column(pf.schema.names.index(c))))
            assert built.to_parquet_bitset() == stored.to_parquet_bitset(), (rg, c)
            checked += 1
    assert checked == 4 * len(t.column_names)


def test_duckdb_file_gets_filters_duckdb_uses_them(duckdb_file, tmp_path):
    out = tmp_path / "duck_filters.parquet"
    parquet.add_filters(duckdb_file, out, columns=["id", "name", "d"], fpp=0.01)
    same_prefix(duckdb_file, out)
    assert pq.read_table(out).equals(pq.read_table(duckdb_file))
    assert duckdb.execute(f"SELECT * FROM '{out}' EXCEPT ALL SELECT * FROM '{duckdb_file}'").fetchall() == []
    for column, value, text in [("id", 10**9, str(10**9)), ("name", "absent-name", "absent-name"),
                                ("d", datetime.date(1990, 5, 5), "1990-05-05")]:
        assert not any(duck_excludes(duckdb_file, column, value))
        after = duck_excludes(out, column, value)
        assert after == [r["skip"] for r in parquet.probe(out, column, [text])]
        assert sum(after) >= len(after) - 1
    # Columns not asked for got none.
    assert not any(r["has_filter"] for r in parquet.row_groups(out) if r["column"] in ("small", "v"))


@pytest.mark.parametrize("name", ["parquet_mr_ndv", "arrow_rs", "arrow_cpp"])
def test_existing_filters_kept_unless_replace(name, tmp_path):
    """parquet-mr's (Spark), arrow-rs's and Arrow C++'s files already have filters: kept by
    default, replaced with --replace; either way the data and every reader's table are unchanged."""
    src = WRITERS / f"{name}.parquet"
    kept = tmp_path / "kept.parquet"
    report = parquet.add_filters(src, kept, columns=[c for c in pq.ParquetFile(src).schema.names
                                                       if pq.ParquetFile(src).schema.column(
                                                           pq.ParquetFile(src).schema.names.index(c)).physical_type
                                                       not in ("BOOLEAN",)][:3])
    before = {(r["row_group"], r["column"]): r for r in parquet.row_groups(src)}
    for r in report:
        if before[(r["row_group"], r["column"])]["has_filter"]:
            assert r["action"] == "kept"
    replaced = tmp_path / "replaced.parquet"
    report = parquet.add_filters(src, replaced, columns=[r["column"] for r in report][:1], replace=True)
    assert all(r["action"] in ("replaced", "added") for r in report)
    for out in (kept, replaced):
        same_prefix(src, out)
        assert pq.read_table(out).equals(pq.read_table(src))
        assert duckdb.execute(f"SELECT count(*) FROM '{out}'").fetchall()[0][0] == pq.ParquetFile(src).metadata.num_rows


def test_refusals_write_nothing(pyarrow_file, tmp_path):
    out = tmp_path / "out.parquet"
    with pytest.raises(bloomkit.InvalidArgumentError):
        parquet.add_filters(pyarrow_file, out, columns=["nope"])
    with pytest.raises(bloomkit.UnsupportedError):
        parquet.add_filters(pyarrow_file, out, columns=["ok"])  # BOOLEAN
    with pytest.raises(ValueError):
        parquet.add_filters(pyarrow_file, out, fpp=1.0)
    data = bytearray(pyarrow_file.read_bytes())
    data[-4:] = b"PARE"
    encrypted = tmp_path / "enc.parquet"
    encrypted.write_bytes(bytes(data))
    with pytest.raises(bloomkit.UnsupportedError):
        parquet.add_filters(encrypted, out)
    # An unknown codec id in the first chunk's metadata: pyarrow refuses to decode it.
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if ".tmp." in p.name] == []


def test_cli_runs_add_filters(cli, pyarrow_file, tmp_path):
    out = tmp_path / "cli.parquet"
    env = dict(os.environ, BLOOMKIT_PYTHON=sys.executable)
    run = subprocess.run([cli, "parquet", "add-filters", str(pyarrow_file), "-o", str(out), "--columns", "user,i64",
                          "--fpp", "0.02", "--json"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 8  # 4 row groups x 2 columns
    probe = subprocess.run([cli, "parquet", "probe", str(out), "user", "nobody", "--json"], capture_output=True,
                           text=True)
    assert probe.returncode == 0, probe.stderr
    assert pq.read_table(out).equals(pq.read_table(pyarrow_file))
    bad = subprocess.run([cli, "parquet", "add-filters", str(pyarrow_file), "-o", str(tmp_path / "x.parquet"),
                          "--columns", "nope"], capture_output=True, text=True, env=env)
    assert bad.returncode == 1 and "no column" in bad.stderr
    assert not (tmp_path / "x.parquet").exists()
    same = subprocess.run([cli, "parquet", "add-filters", str(pyarrow_file), "-o", str(pyarrow_file)],
                          capture_output=True, text=True, env=env)
    assert same.returncode == 1


@pytest.mark.parametrize("name", sorted(p.stem for p in WRITERS.glob("*.parquet")))
def test_plain_values_rebuild_every_writers_filter(name):
    """For the writers' files (pyarrow, parquet-mr/Spark, arrow-rs), every stored filter equals a
    filter of its size built from plain_values of pyarrow's decoded column: the bytes add_filters
    hashes are the bytes every writer hashed, for every type they wrote (INT96, decimals in INT32,
    INT64 and FIXED_LEN_BYTE_ARRAY, unsigned and narrow integers, dates, times, timestamps, UUIDs)."""
    path = WRITERS / f"{name}.parquet"
    pf = pq.ParquetFile(path)
    checked = 0
    for rg in range(pf.metadata.num_row_groups):
        chunk = pf.read_row_group(rg)
        for i in range(len(pf.schema)):
            column = pf.schema.column(i)
            if column.physical_type == "BOOLEAN":
                continue
            stored = parquet.read_filter(path, column.path, rg)
            if stored is None:
                continue
            built = bloomkit.SplitBlockBloom.with_blocks(stored.num_blocks)
            built.add_many(parquet.plain_values(chunk.column(i), column))
            assert built.to_parquet_bitset() == stored.to_parquet_bitset(), (rg, column.path, column.logical_type)
            checked += 1
    assert checked > 0
