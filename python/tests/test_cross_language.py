"""A filter built in Python and one built by the CLI from the same keys are the same file, byte
for byte, for every kind; and each reads the other's files."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import bloomkit

# (CLI kind, Python factory for (keys, n, fpr, hash, seed)).
KINDS = {
    "standard": lambda keys, n, p, **h: _incremental(bloomkit.StandardBloom, keys, n, p, **h),
    "blocked": lambda keys, n, p, **h: _incremental(bloomkit.BlockedBloom, keys, n, p, **h),
    "split-block": lambda keys, n, p, **h: _incremental(bloomkit.SplitBlockBloom, keys, n, p, **h),
    "counting": lambda keys, n, p, **h: _incremental(bloomkit.CountingBloom, keys, n, p, **h),
    "scalable": lambda keys, n, p, **h: _incremental(bloomkit.ScalableBloom, keys, n, p, **h),
    "binary-fuse": lambda keys, n, p, **h: bloomkit.BinaryFuse(keys, fpr=p, **h),
    "ribbon": lambda keys, n, p, **h: bloomkit.Ribbon(keys, fpr=p, **h),
    "ribbon-bumped": lambda keys, n, p, **h: bloomkit.Ribbon(keys, fpr=p, layout="bumped", **h),
}


def _incremental(cls, keys, n, p, **h):
    f = cls(n, p, **h)
    f.add_many(keys)
    return f


def cli_build(cli, tmp_path, lines, kind, fmt, capacity, fpr, extra=()):
    src = tmp_path / f"keys-{kind}-{fmt}.txt"
    src.write_bytes(b"".join(line + b"\n" for line in lines))
    out = tmp_path / f"cli-{kind}-{fmt}.bkf"
    cmd = [cli, "build", str(src), "-o", str(out), "--kind", kind, "--fpr", repr(fpr),
           "--format", fmt, "--capacity", str(capacity), "-q", *extra]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("fmt", ["text", "u64", "hex"])
def test_python_and_cli_write_the_same_bytes(cli, tmp_path, kind, fmt, rng):
    n = 20_000
    if fmt == "text":
        keys = [f"user-{i}-{v}" for i, v in enumerate(rng.integers(0, 2**40, n))]
        keys += ["", "héllo wörld", "tab\tinside"]
        lines = [k.encode() for k in keys]
    elif fmt == "u64":
        keys = [int(v) for v in rng.integers(0, 2**63, n, dtype=np.uint64)] + [0, 2**64 - 1]
        lines = [str(k).encode() for k in keys]
    else:
        keys = [bytes(rng.integers(0, 256, int(m), dtype=np.uint8)) for m in rng.integers(1, 20, n)]
        lines = [k.hex().encode() for k in keys]
    # Scalable: a capacity below the key count, so it grows past its first stage.
    capacity = n // 8 if kind == "scalable" else n
    fpr = 0.01 if not kind.startswith("ribbon") else 0.003
    # "ribbon-bumped" is the CLI's ribbon kind with --layout bumped.
    cli_kind, extra = ("ribbon", ["--layout", "bumped"]) if kind == "ribbon-bumped" else (kind, [])
    cli_file = cli_build(cli, tmp_path, lines, cli_kind, fmt, capacity, fpr, extra)
    py = KINDS[kind](keys, capacity, fpr)
    assert py.to_bytes() == cli_file.read_bytes()
    py_file = tmp_path / "py.bkf"
    py.save(py_file)
    assert py_file.read_bytes() == cli_file.read_bytes()
    # The CLI answers as the Python filter for keys in and out of the set.
    loaded = bloomkit.load(cli_file)
    assert type(loaded) is type(py)
    assert loaded.may_contain_many(keys).all()


@pytest.mark.parametrize("hash_name,seed", [("xxh3_64", 7), ("xxh64", 99)])
def test_hash_options_match_the_cli(cli, tmp_path, hash_name, seed):
    keys = [f"k{i}" for i in range(5000)]
    cli_file = cli_build(cli, tmp_path, [k.encode() for k in keys], "split-block", "text", 5000, 0.01,
                         ["--hash", hash_name, "--seed", str(seed)])
    f = bloomkit.SplitBlockBloom(5000, 0.01, hash=hash_name, hash_seed=seed)
    f.add_many(keys)
    assert f.to_bytes() == cli_file.read_bytes()
    assert f.hash_spec == (hash_name, seed)


def test_cli_queries_a_python_file(cli, tmp_path):
    f = bloomkit.BlockedBloom(1000, 0.01)
    f.add_many([f"in-{i}" for i in range(1000)])
    path = tmp_path / "py.bkf"
    f.save(path)
    queries = [f"in-{i}" for i in range(0, 1000, 7)] + [f"out-{i}" for i in range(500)]
    qfile = tmp_path / "q.txt"
    qfile.write_text("\n".join(queries) + "\n")
    run = subprocess.run([cli, "query", str(path), "--input", str(qfile), "--json"], check=True,
                         capture_output=True, text=True)
    answers = {rec["key"]: rec["maybe"] for rec in map(json.loads, run.stdout.splitlines())}
    assert answers == {q: (q in f) for q in queries}
    info = json.loads(subprocess.run([cli, "info", str(path), "--json"], check=True, capture_output=True,
                                     text=True).stdout.splitlines()[0])
    assert info["inserted"] == 1000
