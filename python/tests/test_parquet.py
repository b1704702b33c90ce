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
