"""Parquet Bloom filter bytes and measured FPP, by writer, and add-filters against a DuckDB rewrite.

    build/venv/bin/python python/bench/parquet_filter_sizes.py [--scale 1.0] [--out DIR] [--arrow-rs BIN]

For each file shape (row groups x rows per chunk; a high-cardinality string, a low-cardinality
string, a unique int64 and a date column) it writes the same table four ways and reports, per
column, the filter bytes summed over row groups and the FPP measured on values absent from the
table, 20,000 per column (bloomkit's reader answers exactly as each writer's bitset does):

  pyarrow-default  pyarrow 26 with bloom_filter_options={} on every column (NDV 1,048,576, FPP 0.05;
                   Arrow C++ 26 caps the NDV at the chunk's distinct count)
  pyarrow@0.01     the same with {"fpp": 0.01}
  arrow-rs@P       the Rust parquet crate (60.1.0, tests/interop/arrow_rs `bench`) with its defaults
                   but the FPP: NDV 1,048,576, the filter folded down once the chunk's values are in
                   (P 0.05, its default, and 0.01); with --arrow-rs BIN only
  duckdb           DuckDB COPY ... (FORMAT parquet) with its defaults (FPP 0.01; filters only on
                   dictionary-encoded chunks, sized by the dictionary)
  bloomkit@0.05    bloomkit.parquet.add_filters(fpp=0.05) on the file written without filters
  bloomkit@0.01    the same at fpp=0.01

and the time of add_filters (fpp 0.01, every column) against DuckDB rewriting the same file with
filters (COPY (SELECT * FROM file) TO ... (FORMAT parquet)), one run each.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import platform
import subprocess
import tempfile
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bloomkit import parquet

ABSENT = 20000


def make_table(rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(rows).astype(np.int64) * 2  # even ids: odd ones are absent
    users = np.char.add("user-", (rng.integers(0, 2**40, rows) * 2).astype(str))
    countries = np.array(["de", "fr", "us", "jp", "br", "in", "cn", "uk", "es", "it"] * 20)[rng.integers(0, 200, rows)]
    countries = np.char.add(countries, (rng.integers(0, 20, rows) * 2).astype(str))  # 400 distinct
    days = (np.datetime64("2015-01-01") + rng.integers(0, 3650, rows) * 2).astype("datetime64[D]")
    return pa.table({"user": users, "country": countries, "id": ids, "day": days})


def absent_values(column: str, rng: np.random.Generator) -> list[str]:
    if column == "user":
        return [f"user-{v}" for v in rng.integers(0, 2**40, ABSENT) * 2 + 1]
    if column == "country":
        return [f"de{v}" for v in rng.integers(0, 10**6, ABSENT) * 2 + 1]
    if column == "id":
        return [str(v) for v in rng.integers(0, 2**40, ABSENT) * 2 + 1]
    # Present days are 2015-01-01 plus an even count up to 7,300 days; these are all before 2015.
    return [str(np.datetime64("1900-01-01") + int(v)) for v in rng.integers(0, 41000, ABSENT)]


def filter_stats(path: pathlib.Path, column: str, absent: list[str]) -> tuple[int, int, float]:
    """(filter bytes summed over row groups, row groups with a filter, measured FPP over them)."""
    rows = [r for r in parquet.row_groups(path) if r["column"] == column]
    size = sum(r["num_bytes"] or 0 for r in rows)
    with_filter = [r["row_group"] for r in rows if r["has_filter"]]
    if not with_filter:
        return 0, 0, float("nan")
    hits = total = 0
    for r in parquet.probe(path, column, absent):
        if r["has_filter"]:
            hits += sum(r["may_contain"])
            total += len(r["may_contain"])
    return size, len(with_filter), hits / total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every row count")
    parser.add_argument("--out", default=None)
    parser.add_argument("--arrow-rs", default=None,
                        help="the built tests/interop/arrow_rs generator (cargo build --release there)")
    args = parser.parse_args()
    shapes = [("10 x 1,000", 10, 1000), ("4 x 100,000", 4, 100_000), ("2 x 1,000,000", 2, 1_000_000),
              ("1 x 10,000,000", 1, 10_000_000)]
    work = pathlib.Path(args.out or tempfile.mkdtemp(prefix="bloomkit-parquet-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"# {platform.processor() or platform.machine()}, pyarrow {pa.__version__}, duckdb {duckdb.__version__}, "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    rs = ["arrow-rs@0.05 (default)", "arrow-rs@0.01"] if args.arrow_rs else []
    header = ["pyarrow default (FPP 0.05)", *rs[:1], "bloomkit@0.05", "pyarrow, FPP 0.01", *rs[1:],
              "duckdb default (0.01)", "bloomkit@0.01"]
    print("| file | column | " + " | ".join(header) + " |")
    print("|---|---|" + "---|" * len(header))
    timings = []
    for label, groups, per in shapes:
        per = max(1, int(per * args.scale))
        t = make_table(groups * per, seed=per)
        plain = work / f"plain_{per}.parquet"
        pq.write_table(t, plain, row_group_size=per, compression="snappy")
        pa_default = work / f"pyarrow_{per}.parquet"
        pq.write_table(t, pa_default, row_group_size=per, compression="snappy",
                       bloom_filter_options={c: {} for c in t.column_names})
        pa_01 = work / f"pyarrow01_{per}.parquet"
        pq.write_table(t, pa_01, row_group_size=per, compression="snappy",
                       bloom_filter_options={c: {"fpp": 0.01} for c in t.column_names})
        duck = work / f"duckdb_{per}.parquet"
        con = duckdb.connect()
        con.register("t", t)
        con.execute(f"COPY (SELECT * FROM t) TO '{duck}' (FORMAT parquet, ROW_GROUP_SIZE {per})")
        con.close()
        arrow_rs = {}
        if args.arrow_rs:
            columns = work / f"columns_{per}"
            columns.mkdir(exist_ok=True)
            for name in ("user", "country"):
                (columns / f"{name}.txt").write_text("\n".join(t.column(name).to_pylist()) + "\n")
            (columns / "id.i64").write_bytes(t.column("id").to_numpy().astype("<i8").tobytes())
            (columns / "day.i32").write_bytes(t.column("day").cast(pa.int32()).to_numpy().astype("<i4").tobytes())
            for fpp in (0.05, 0.01):
                arrow_rs[fpp] = work / f"arrow_rs_{fpp}_{per}.parquet"
                subprocess.run([args.arrow_rs, "bench", str(columns), str(arrow_rs[fpp]), str(per), str(fpp)], check=True)
        ours = {}
        for fpp in (0.05, 0.01):
            ours[fpp] = work / f"bloomkit_{fpp}_{per}.parquet"
            start = time.perf_counter()
            parquet.add_filters(plain, ours[fpp], fpp=fpp)
            elapsed = time.perf_counter() - start
            if fpp == 0.01:
                rewrite = work / f"duckdb_rewrite_{per}.parquet"
                start = time.perf_counter()
                duckdb.execute(f"COPY (SELECT * FROM '{plain}') TO '{rewrite}' (FORMAT parquet, ROW_GROUP_SIZE {per})")
                timings.append((label, plain.stat().st_size, elapsed, time.perf_counter() - start))
        rng = np.random.default_rng(7)
        for column in t.column_names:
            absent = absent_values(column, rng)
            cells = []
            writers = [pa_default, *([arrow_rs[0.05]] if arrow_rs else []), ours[0.05], pa_01,
                       *([arrow_rs[0.01]] if arrow_rs else []), duck, ours[0.01]]
            for path in writers:
                size, n, fpp = filter_stats(path, column, absent)
                cells.append("none" if n == 0 else f"{size:,} ({fpp:.4f})" + ("" if n == groups else f" [{n}/{groups} groups]"))
            print(f"| {label} | {column} | " + " | ".join(cells) + " |")
    print()
    print("| file | bytes | add_filters, 4 columns, fpp 0.01 (s) | DuckDB COPY rewrite with filters (s) |")
    print("|---|---|---|---|")
    for label, size, ours_s, duck_s in timings:
        print(f"| {label} | {size:,} | {ours_s:.2f} | {duck_s:.2f} |")


if __name__ == "__main__":
    main()
