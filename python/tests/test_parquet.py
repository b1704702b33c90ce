"""bloomkit.parquet against real Parquet files (DuckDB and parquet-testing fixtures)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import numpy as np
import pytest

import bloomkit
from bloomkit import parquet

DUCKDB_FILES = ["pub_numeric", "pub_strings", "pub_big_ndv", "pub_fpp20", "pub_tiny"]


def fixture(shared, name):
    base = shared / "fixtures" / "parquet"
    return base / f"{name}.parquet", json.loads((base / f"{name}.json").read_text())


@pytest.mark.parametrize("name", DUCKDB_FILES)
def test_row_groups_report_every_filter(shared, name):
    path, meta = fixture(shared, name)
    rows = parquet.row_groups(path)
    by_key = {(r["row_group"], r["column"]): r for r in rows}
    for rg in meta["row_groups"]:
        for col in rg["columns"]:
            r = by_key[(rg["row_group"], col["column"])]
            assert r["has_filter"] == (col.get("bloom_filter_offset") is not None)
            if r["has_filter"]:
                assert r["offset"] == col["bloom_filter_offset"]
                assert r["num_bytes"] == col["header"]["numBytes"]
                assert 0 < r["fill_ratio"] < 1


@pytest.mark.parametrize("name", DUCKDB_FILES)
def test_filters_answer_as_the_file_and_probe_skips(shared, name):
    path, meta = fixture(shared, name)
    for rg in meta["row_groups"]:
        for col in rg["columns"]:
            if col.get("bloom_filter_offset") is None:
                continue
            f = parquet.read_filter(path, col["column"], rg["row_group"])
            assert isinstance(f, bloomkit.SplitBlockBloom) and f.hash_spec == ("xxh64", 0)
            samples = col["present"] + col["absent"]
            values = [bytes.fromhex(s["hex"]) for s in samples]
            # The filter carries the column's physical type: the plain-encoded values read as it.
            assert f.key_type == parquet.column_key_type(path, col["column"])
            as_type = {"int64": "<i8", "int32": "<i4", "float32": "<f4", "float64": "<f8"}.get(f.key_type)
            typed = values if as_type is None else np.frombuffer(b"".join(values), dtype=as_type)
            assert list(f.may_contain_many(typed)) == [s["sbbf_contains"] for s in samples]
            answers = parquet.probe(path, col["column"], values)[rg["row_group"]]
            assert answers["may_contain"] == [s["sbbf_contains"] for s in samples]
            absent = [bytes.fromhex(s["hex"]) for s in col["absent"] if not s["sbbf_contains"]]
            if absent:
                assert rg["row_group"] in parquet.skippable_row_groups(path, col["column"], absent[:3])
            present = [bytes.fromhex(col["present"][0]["hex"])]
            assert rg["row_group"] not in parquet.skippable_row_groups(path, col["column"], present)


@pytest.mark.parametrize("name", DUCKDB_FILES)
def test_filter_for_column_equals_the_writers_bytes(shared, name):
    path, meta = fixture(shared, name)
    fpp = meta["bloom_filter_false_positive_ratio"]
    pf = pq.ParquetFile(path)
    checked = 0
    for rg in meta["row_groups"]:
        table = pf.read_row_group(rg["row_group"])
        for col in rg["columns"]:
            if col.get("bloom_filter_offset") is None:
                continue
            stored = parquet.read_filter(path, col["column"], rg["row_group"])
            built = parquet.filter_for_column(table.column(col["column"]), fpp=fpp, writer="duckdb")
            assert built.to_parquet_bitset() == stored.to_parquet_bitset(), (name, rg["row_group"], col["column"])
            checked += 1
    assert checked > 0


def test_values_as_text_and_numbers(shared):
    path, meta = fixture(shared, "pub_numeric")
    rg = meta["row_groups"][0]
    for col in rg["columns"]:
        if col.get("bloom_filter_offset") is None:
            continue
        sample = col["present"][0]
        assert parquet.plain_encode(path, col["column"], sample["v"]).hex() == sample["hex"]
        assert parquet.probe(path, col["column"], [sample["v"]])[0]["may_contain"] == [True]
    assert parquet.plain_encode(path, "i64", 5) == (5).to_bytes(8, "little")
    assert parquet.plain_encode(path, "i32", -1) == b"\xff\xff\xff\xff"


def test_files_without_filter_length_and_bare_bitsets(shared):
    base = shared / "fixtures" / "parquet" / "parquet-testing"
    for name in ("data_index_bloom_encoding_stats", "data_index_bloom_encoding_with_length"):
        meta = json.loads((base / f"{name}.json").read_text())
        path = base / f"{name}.parquet"
        strings = pq.read_table(path).column("String")
        for rg in meta["row_groups"]:
            for col in rg["columns"]:
                f = parquet.read_filter(path, col["column"], rg["row_group"])
                assert f is not None and f.size_in_bytes == col["header"]["numBytes"]
                assert f.may_contain_many(strings).all()  # every stored value is found
                samples = col.get("present", []) + col.get("absent", [])
                want = [s["sbbf_contains"] for s in samples]
                assert list(f.may_contain_many([bytes.fromhex(s["hex"]) for s in samples])) == want
    raw = (base / "bloom_filter.xxhash.bin").read_bytes()
    bitset = raw[-1024:]
    f = parquet.filter_from_bitset(bitset)
    for word in ("hello", "parquet", "bloom", "filter"):
        assert word in f
    with pytest.raises(bloomkit.CorruptError):
        parquet.filter_from_bitset(b"\x00" * 33)


def test_bad_files_and_columns(shared, tmp_path):
    path, _ = fixture(shared, "pub_tiny")
    with pytest.raises(bloomkit.InvalidArgumentError):
        parquet.read_filter(path, "no_such_column", 0)
    with pytest.raises(bloomkit.InvalidArgumentError):
        parquet.read_filter(path, 0, 99)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\x00" * 10)
    with pytest.raises(bloomkit.FormatError):
        parquet.row_groups(bad)
    truncated = tmp_path / "t.parquet"
    truncated.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(bloomkit.Error):
        parquet.row_groups(truncated)
    with pytest.raises(bloomkit.FileError):
        parquet.row_groups(tmp_path / "missing.parquet")
    with pytest.raises(bloomkit.UnsupportedError):
        parquet.filter_for_column(pa.array([True, False]))


def _dotted_twins(tmp_path):
    """A file with a top-level column literally named "x.y" beside a struct x with a child y;
    their values are disjoint, and pyarrow gives both a filter (its option names them alike)."""
    t = pa.table({"x.y": pa.array(list(range(0, 100)), pa.int64()),
                  "x": pa.array([{"y": v} for v in range(1000, 1100)], pa.struct([("y", pa.int64())]))})
    path = tmp_path / "twins.parquet"
    pq.write_table(t, path, bloom_filter_options={"x.y": {"ndv": 100, "fpp": 0.01}}, write_statistics=False)
    assert all(r["has_filter"] for r in parquet.row_groups(path))
    return path


def test_a_dotted_path_that_names_two_columns_is_refused(tmp_path, cli):
    # Issue 37 item 6: "x.y" names both columns; answering from the first match called a value of
    # the second "definitely absent". Each column has a spelling of its own, in listings and probes.
    import subprocess

    path = _dotted_twins(tmp_path)
    names = sorted({r["column"] for r in parquet.row_groups(path)})
    assert names == ["`x.y`", "`x`.`y`"]
    with pytest.raises(bloomkit.InvalidArgumentError, match=r"ambiguous.*`x\.y`.*`x`\.`y`"):
        parquet.probe(path, "x.y", [1050])
    top, child = parquet.probe(path, "`x.y`", [50, 1050]), parquet.probe(path, "`x`.`y`", [50, 1050])
    assert [r["may_contain"][0] for r in top] == [True] and [r["may_contain"][1] for r in child] == [True]
    assert parquet.probe(path, "y", [1050])[0]["may_contain"] == [True]  # the bare name is the child's alone

    refused = subprocess.run([cli, "parquet", "probe", str(path), "x.y", "1050"], capture_output=True, text=True)
    assert refused.returncode != 0 and "ambiguous" in refused.stderr and "excluded" not in refused.stdout
    found = subprocess.run([cli, "parquet", "probe", str(path), "`x`.`y`", "1050"], capture_output=True, text=True)
    assert found.returncode == 0 and "excluded" not in found.stdout, found.stdout
    listed = subprocess.run([cli, "parquet", "list", str(path)], capture_output=True, text=True, check=True)
    assert "`x.y`" in listed.stdout and "`x`.`y`" in listed.stdout


def test_a_column_name_that_is_not_utf8_is_a_corrupt_file(tmp_path):
    # Issue 37 item 6: a footer whose column name is not UTF-8 raised UnicodeDecodeError.
    path = tmp_path / "name.parquet"
    pq.write_table(pa.table({"colname_zz": pa.array([1, 2, 3], pa.int64())}), path, store_schema=False)
    data = path.read_bytes()
    assert data.count(b"colname_zz") >= 1
    bad = tmp_path / "bad_name.parquet"
    bad.write_bytes(data.replace(b"colname_zz", b"colname_\xff\xfe"))
    with pytest.raises(bloomkit.CorruptError, match="UTF-8"):
        parquet.row_groups(bad)
