"""The extension against the CLI and Python (byte identity both ways), in
parallel plans, and under damaged input (docs/POSTGRES.md)."""
import datetime
import json
import os
import pathlib
import re
import subprocess
import uuid

import bloomkit
import psycopg
import pytest

from conftest import ROOT, run_cli

# (SQL type, the CLI's --format, keys as SQL values, the same keys as CLI input lines)
INT_KEYS = [-(2**63), -1, 0, 1, 42, 2**31, 2**63 - 1] + list(range(1000, 3000, 7))
TEXT_KEYS = ["", "apple", "kiwi", "ünïcödé", "line with spaces"] + [f"key-{i}" for i in range(500)]
UUID_KEYS = [uuid.UUID(int=i * 0x9E3779B97F4A7C15 % 2**128) for i in range(300)]
BYTEA_KEYS = [bytes([i % 256, (i * 7) % 256, 0]) for i in range(300)] + [b""]


def build_cli(cli, tmp_path, lines, fmt, capacity, fpr, kind):
    out = tmp_path / "cli.bkf"
    keys = tmp_path / "keys.txt"
    keys.write_bytes(b"".join(line + b"\n" for line in lines))
    r = run_cli(cli, "build", str(keys), "--format", fmt, "--capacity", str(capacity), "--fpr", str(fpr),
                "--kind", kind, "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr.decode()
    return out.read_bytes()


def build_pg(db, sql_type, values, capacity, fpr, kind):
    db.execute(f"CREATE TEMP TABLE keys (k {sql_type})")
    with db.cursor().copy(f"COPY keys (k) FROM STDIN") as copy:
        for v in values:
            copy.write_row((v,))
    row = db.execute("SELECT bloom_agg(k, %s, %s, %s)::bytea FROM keys", (capacity, fpr, kind)).fetchone()
    db.execute("DROP TABLE keys")
    return bytes(row[0])


FLOAT_KEYS = [0.0, -0.0, 0.5, -1.25, 3.0, 1e300, -2.5e-300, 123456.75] + [i / 8 for i in range(1, 400)]
REAL_KEYS = [0.5, -1.25, 3.0, 1024.0] + [i / 4 for i in range(1, 300)]  # exact in float32

CASES = [
    ("double precision", "f64", FLOAT_KEYS, [repr(k).encode() for k in FLOAT_KEYS]),
    ("real", "f64", REAL_KEYS, [repr(k).encode() for k in REAL_KEYS]),
    ("bigint", "i64", INT_KEYS, [str(k).encode() for k in INT_KEYS]),
    ("integer", "i64", [k for k in INT_KEYS if -(2**31) <= k < 2**31], [str(k).encode() for k in INT_KEYS if -(2**31) <= k < 2**31]),
    ("text", "text", TEXT_KEYS, [k.encode() for k in TEXT_KEYS]),
    ("bytea", "hex", BYTEA_KEYS, [k.hex().encode() for k in BYTEA_KEYS]),
    ("uuid", "hex", UUID_KEYS, [k.hex.encode() for k in UUID_KEYS]),
]


@pytest.mark.parametrize("kind", ["blocked", "standard", "split-block", "counting"])
@pytest.mark.parametrize("sql_type,fmt,values,lines", CASES, ids=[c[0] for c in CASES])
def test_bloom_agg_equals_cli_build(db, cli, tmp_path, kind, sql_type, fmt, values, lines):
    """bloom_agg over a column is the file `bloomkit build` writes from the same keys."""
    want = build_cli(cli, tmp_path, lines, fmt, 5000, 0.005, kind)
    got = build_pg(db, sql_type, values, 5000, 0.005, kind)
    assert got == want


def test_bloom_agg_without_capacity_equals_cli_build(db, cli, tmp_path):
    """Without a capacity both size for the keys they saw: distinct keys in,
    the same file out (the CLI counts lines, bloom_agg distinct hashes)."""
    lines = [str(k).encode() for k in INT_KEYS]
    keys = tmp_path / "keys.txt"
    keys.write_bytes(b"".join(line + b"\n" for line in lines))
    r = run_cli(cli, "build", str(keys), "--format", "i64", "-o", str(tmp_path / "cli.bkf"), "-q")
    assert r.returncode == 0, r.stderr.decode()
    db.execute("CREATE TEMP TABLE keys AS SELECT unnest(%s::bigint[]) AS k", (INT_KEYS,))
    # Every key twice: the distinct count, not the row count, sizes the filter.
    got = db.execute("SELECT bloom_agg(k)::bytea FROM (SELECT k FROM keys UNION ALL SELECT k FROM keys) d").fetchone()[0]
    assert bytes(got) == (tmp_path / "cli.bkf").read_bytes()


def test_cli_filter_answers_as_cli_query(db, cli, tmp_path):
    """A CLI-made filter loaded as bytea answers bloom_contains exactly as
    `bloomkit query` does, false positives included."""
    present = [f"k{i}".encode() for i in range(2000)]
    data = build_cli(cli, tmp_path, present, "text", 2000, 0.05, "blocked")
    probes = [f"k{i}" for i in range(0, 20000, 3)]
    (tmp_path / "probes.txt").write_text("".join(p + "\n" for p in probes))
    r = run_cli(cli, "query", str(tmp_path / "cli.bkf"), "--input", str(tmp_path / "probes.txt"), "--json")
    assert r.returncode == 0, r.stderr.decode()
    cli_answers = {}
    for line in r.stdout.decode().splitlines():
        obj = json.loads(line)
        cli_answers[obj["key"]] = obj["maybe"]
    assert len(cli_answers) == len(probes)
    db.execute("CREATE TEMP TABLE f AS SELECT %s::bytea::bloomfilter AS f", (data,))
    rows = db.execute("SELECT k, bloom_contains(f, k) FROM f, unnest(%s::text[]) k", (probes,)).fetchall()
    pg_answers = dict(rows)
    assert pg_answers == cli_answers
    assert sum(cli_answers.values()) > len([p for p in probes if p.encode() in set(present)])  # some false positives


def test_python_filters_move_both_ways(db):
    """A filter made in Python answers in PostgreSQL as in Python, and a
    filter from bloom_agg loads in Python to the same bytes and answers."""
    f = bloomkit.BlockedBloom(1000, 0.02)
    f.add_many([f"p{i}" for i in range(800)])
    data = f.to_bytes()
    probes = [f"p{i}" for i in range(0, 4000, 3)]
    want = [bool(x) for x in f.may_contain_many(probes)]
    got = [r[0] for r in db.execute(
        "SELECT bloom_contains(%s::bytea::bloomfilter, k) FROM unnest(%s::text[]) WITH ORDINALITY u(k, i) ORDER BY i",
        (data, probes)).fetchall()]
    assert got == want
    pg = bytes(db.execute("SELECT bloom_agg('p' || g, 1000, 0.02)::bytea FROM generate_series(0, 799) g").fetchone()[0])
    g = bloomkit.from_bytes(pg)
    assert g.to_bytes() == pg
    assert [bool(x) for x in g.may_contain_many(probes)] == want


def test_dates_and_timestamps_hash_as_unix_epoch_keys(db, cli, tmp_path):
    """date is days since 1970 (4 bytes), timestamp microseconds since 1970
    (8 bytes): the int64/date32 bytes docs/KEYS.md defines, not PostgreSQL's
    2000-based values. Checked through bloom_add on a filter whose keys the
    CLI wrote as the same integers' bytes."""
    ts = [datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=v) for v in (0, 1, 1_700_000_000_123_456)]
    micros = [0, 1, 1_700_000_000_123_456]
    # A timestamp key is the 8-byte little-endian microseconds: the bytes of --format i64's keys.
    data = build_cli(cli, tmp_path, [str(m).encode() for m in micros], "i64", 100, 0.001, "blocked")
    raw = db.execute("SELECT bloom_agg(t, 100, 0.001)::bytea FROM unnest(%s::timestamp[]) t", (ts,)).fetchone()[0]
    # The key type byte (offset 15) and the checksums differ; the payload is the same bits.
    header = int.from_bytes(data[24:28], "little")
    assert bytes(raw)[header:] == data[header:]
    days = [0, 1, 19000, -5]
    dates = [datetime.date(1970, 1, 1) + datetime.timedelta(days=d) for d in days]
    le32 = [(d % 2**32).to_bytes(4, "little").hex().encode() for d in days]
    data = build_cli(cli, tmp_path, le32, "hex", 100, 0.001, "blocked")
    raw = db.execute("SELECT bloom_agg(d, 100, 0.001)::bytea FROM unnest(%s::date[]) d", (dates,)).fetchone()[0]
    header = int.from_bytes(data[24:28], "little")
    assert bytes(raw)[header:] == data[header:]


PARALLEL = ("SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; "
            "SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off")
SERIAL = "SET max_parallel_workers_per_gather = 0"


@pytest.mark.parametrize("query", [
    "SELECT bloom_agg(i, 300000)::bytea FROM big",
    "SELECT bloom_agg(t, 300000, 0.001, 'split-block')::bytea FROM big",
    "SELECT bloom_agg(i % 70000)::bytea FROM big",
    "SELECT bloom_union_agg(f)::bytea FROM parts",
    "SELECT bloom_intersect_agg(f)::bytea FROM parts",
])
def test_parallel_aggregate_equals_serial(db, query):
    """With parallel workers forced, the plan has a Partial Aggregate and the
    filter is byte for byte the serial plan's."""
    db.execute("CREATE TABLE big AS SELECT g::bigint AS i, 'key-' || g AS t FROM generate_series(1, 200000) g")
    # Filters stored in line (1408 bytes each), so the table has pages to share between workers.
    db.execute("CREATE TABLE parts AS SELECT g % 3000 AS p, bloom_agg(g, 1000) AS f FROM generate_series(1, 300000) g "
               "GROUP BY 1")
    db.execute("ANALYZE big; ANALYZE parts")
    db.execute(SERIAL)
    plan = "\n".join(r[0] for r in db.execute("EXPLAIN " + query).fetchall())
    assert "Partial" not in plan
    serial = bytes(db.execute(query).fetchone()[0])
    db.execute(PARALLEL)
    plan = "\n".join(r[0] for r in db.execute("EXPLAIN (ANALYZE, COSTS OFF) " + query).fetchall())
    assert "Partial Aggregate" in plan and "Workers Launched: 2" in plan, plan
    parallel = bytes(db.execute(query).fetchone()[0])
    assert parallel == serial


def test_prefilter_semijoin_in_parallel(db):
    """bloom_contains is parallel safe: a prefiltered join runs in workers
    and returns exactly the plain join's rows (no false negatives)."""
    db.execute("CREATE TABLE facts AS SELECT g AS id FROM generate_series(1, 100000) g")
    db.execute("CREATE TABLE dims AS SELECT g * 10 AS id FROM generate_series(1, 500) g")
    db.execute("ANALYZE facts; ANALYZE dims")
    db.execute(PARALLEL)
    q = ("SELECT count(*) FROM facts f WHERE bloom_contains((SELECT bloom_agg(id, 500) FROM dims), f.id) "
         "AND f.id IN (SELECT id FROM dims)")
    plan = "\n".join(r[0] for r in db.execute("EXPLAIN (COSTS OFF) " + q).fetchall())
    assert "Gather" in plan, plan
    assert db.execute(q).fetchone()[0] == 500


# ---- faults --------------------------------------------------------------------

# A literal of each key type's natural SQL type, for probing any valid file.
PROBE_FOR_KEY_TYPE = {
    "unspecified": "'x'::bytea", "bytes": "'x'::bytea", "int64": "1::bigint", "int32": "1::integer",
    "float64": "1.5::double precision", "float32": "1.5::real",
    "timestamp_us": "'2026-01-01 00:00:00'::timestamp", "date32": "'2026-01-01'::date",
}


def corpus_files():
    folders = [ROOT / "fuzz" / "corpus" / "file_format", ROOT / "fuzz" / "regressions" / "file_format"]
    return sorted(p for d in folders if d.is_dir() for p in d.iterdir() if p.is_file())


def test_damaged_files_give_clean_errors(db, cli):
    """Every file of the file-format fuzz corpus and regressions (valid,
    truncated, lying, resealed) is accepted exactly when `bloomkit info`
    accepts it, and refused with an ERROR, never a crash; probing,
    describing and merging an accepted one works."""
    files = corpus_files()
    assert len(files) > 20
    refused = 0
    for path in files:
        data = path.read_bytes()
        cli_ok = run_cli(cli, "info", str(path), "--json").returncode == 0
        try:
            db.execute("SELECT %s::bytea::bloomfilter", (data,))
            pg_ok = True
        except psycopg.errors.DataCorrupted as e:
            pg_ok = False
            assert "bloomkit" in str(e)
            refused += 1
        except psycopg.Error as e:
            pytest.fail(f"{path.name}: not a clean data error: {type(e).__name__}: {e}")
        if pg_ok and cli_ok:
            # Probe with a key of the file's own type: any other is refused
            # (docs/KEYS.md), which test_key_types covers.
            info = db.execute("SELECT bloom_info(%s::bytea::bloomfilter)", (data,)).fetchone()[0]
            probe = PROBE_FOR_KEY_TYPE[info["key_type"]]
            db.execute(f"SELECT bloom_contains(f, {probe}) FROM (SELECT %s::bytea::bloomfilter f) v", (data,))
        assert pg_ok == cli_ok, path.name
    assert refused > 0
    assert db.execute("SELECT 1").fetchone()[0] == 1  # the server is alive


def test_lying_state_and_values_do_not_crash(db):
    """Values that are not files, in every function that takes one."""
    for bad in [b"", b"\x89BLM", os.urandom(4096)]:
        for sql in ["SELECT bloom_info(%s::bytea::bloomfilter)", "SELECT bloom_contains(%s::bytea::bloomfilter, 1)",
                    "SELECT bloom_merge(%s::bytea::bloomfilter, %s::bytea::bloomfilter)"]:
            with pytest.raises(psycopg.errors.DataCorrupted):
                db.execute(sql, (bad,) * sql.count("%s"))


def test_statement_timeout_cancels_aggregate(db):
    db.execute("SET statement_timeout = '300ms'")
    with pytest.raises(psycopg.errors.QueryCanceled):
        db.execute("SELECT bloom_agg(g) FROM generate_series(1, 2000000000) g")
    with pytest.raises(psycopg.errors.QueryCanceled):
        db.execute("SELECT bloom_agg(g, 1000) FROM generate_series(1, 2000000000) g")
    db.execute("RESET statement_timeout")
    assert db.execute("SELECT 1").fetchone()[0] == 1


def test_too_large_refused_before_allocating(db):
    with pytest.raises(psycopg.errors.ProgramLimitExceeded, match="1 GB"):
        db.execute("SELECT bloom_agg(g, 2000000000, 0.001) FROM generate_series(1, 3) g")


# ---- the README's example ----------------------------------------------------------

def readme_sql() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## PostgreSQL\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sql\n(.*?)```", section, re.S)
    assert blocks, "README.md's PostgreSQL section has no ```sql example"
    return "\n".join(blocks)


def psql_text(v) -> str:
    """A value as psql prints it (booleans t/f, bytea as \\x hex)."""
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, (bytes, memoryview)):
        return "\\x" + bytes(v).hex()
    return str(v)


def test_readme_example_runs(db):
    """Each statement of README.md's example runs; a statement followed by a
    `-- → a | b` comment returns that row."""
    db.execute("DROP EXTENSION bloomkit")
    checked = 0
    for statement, expect in re.findall(r"(.*?;)[ \t]*(?:--\s*→\s*([^\n]*))?\n", readme_sql(), re.S):
        statement = "\n".join(l for l in statement.splitlines() if not l.strip().startswith("--")).strip()
        if not statement:
            continue
        cur = db.execute(statement)
        if expect:
            row = cur.fetchone()
            assert " | ".join(psql_text(v) for v in row) == expect.strip(), statement
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("kind,cls", [("blocked", "BlockedBloom"), ("split-block", "SplitBlockBloom"),
                                      ("standard", "StandardBloom")])
def test_bloom_agg_equals_python(db, kind, cls):
    """bloom_agg and Python's filter of the same keys and parameters are the
    same file; only the header's record of the key type may differ, where
    the Python package writes untyped files (format version 1, key_type 0):
    every other byte, the payload included, is equal."""
    import numpy as np
    ints = np.array(INT_KEYS, dtype=np.int64)
    for values, sql in [(ints, "SELECT bloom_agg(k, 4000, 0.003, %s)::bytea FROM unnest(%s::bigint[]) k"),
                        (TEXT_KEYS, "SELECT bloom_agg(k, 4000, 0.003, %s)::bytea FROM unnest(%s::text[]) k")]:
        f = getattr(bloomkit, cls)(4000, 0.003)
        f.add_many(values)
        py = f.to_bytes()
        pg = bytes(db.execute(sql, (kind, list(values) if sql.find("text") > 0 else [int(v) for v in values])).fetchone()[0])
        assert len(py) == len(pg)
        header = int.from_bytes(pg[24:28], "little")
        assert py[15] in (0, pg[15]) and pg[15] != 0
        same = lambda b: b[:8] + b[12:15] + b[16:header - 8] + b[header:]  # all but version, key type, header checksum
        assert same(py) == same(pg)
        if py[15] == pg[15]:
            assert py == pg
