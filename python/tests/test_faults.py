"""Fail every system call the Python package's file and memory operations make, one at a time
(issue 18, docs/RELIABILITY.md "Python"): save, load, open, to_bytes/from_bytes and pickling
either succeed with the fault-free result or raise bloomkit.Error / OSError / MemoryError, never
crash, never leave a partial or changed destination or a temporary file. The loop runs in a child
process with the fault shim preloaded (fault_driver.py)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DRIVER = pathlib.Path(__file__).with_name("fault_driver.py")


@pytest.fixture(scope="module")
def shim() -> str:
    """tests/faults/fault_shim.cpp built (BLOOMKIT_FAULT_SHIM or build/release). Missing is a failure."""
    path = os.environ.get("BLOOMKIT_FAULT_SHIM") or str(ROOT / "build" / "release" / "libbloomkit_fault_shim.so")
    if not os.path.isfile(path):
        pytest.fail(f"the fault shim is needed: {path} is missing "
                    "(cmake --build build/release --target bloomkit_fault_shim, or set BLOOMKIT_FAULT_SHIM)")
    return path


def drive(shim: str, workdir: pathlib.Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = dict(os.environ)
    env.pop("BLOOMKIT_FAULT", None)
    # Under the ASan run (python/venv.sh asan) the sanitizer runtimes stay first in the child, so
    # the I/O failure paths run instrumented; ASan's allocator then wins over the shim's malloc,
    # and the malloc loop is left to the release run.
    sanitizers = [p for p in env.get("LD_PRELOAD", "").split(":") if "libasan" in p or "libubsan" in p]
    env["LD_PRELOAD"] = ":".join([*sanitizers, shim])
    # Every Python object through malloc too: the interpreter's own allocations during an
    # operation are failed like the extension's (pymalloc would serve most from its arenas).
    env["PYTHONMALLOC"] = "malloc"
    run = subprocess.run([sys.executable, str(DRIVER), str(workdir), *args], env=env, capture_output=True,
                         text=True, timeout=900)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        last = run.stderr.strip().splitlines()[-3:]
        pytest.fail(f"the fault loop did not finish (exit {run.returncode}); its last lines: {last}")
    return run, report


def test_every_failing_call_ends_in_success_or_a_typed_error(shim, shared, tmp_path):
    run, report = drive(shim, tmp_path, "--shared", str(shared))
    assert report["violations"] == [], "\n".join(report["violations"][:20])
    assert run.returncode == 0, run.stderr[-2000:]
    cases = report["cases"]
    fired = {}
    for c in cases:
        fired[(c["op"], c["call"])] = fired.get((c["op"], c["call"]), 0) + c["fired"]
    # The loop reached the calls each operation is known to make (a shim that never fired, or
    # an operation that silently did nothing, would pass every check above).
    under_asan = bool(os.environ.get("BLOOMKIT_ASAN_RUN"))
    for kind in ("SplitBlockBloom", "ScalableBloom"):
        for call in ("open", "write", "fsync", "rename", "close", "malloc"):
            if call == "malloc" and under_asan:
                continue
            assert fired[(f"{kind} save (replace)", call)] > 0, (kind, call)
            assert fired[(f"{kind} save (new file)", call)] > 0, (kind, call)
        for op in (f"{kind} bloomkit.load", f"{kind}.load"):
            for call in ("open", "read", "close", "malloc")[: 3 if under_asan else 4]:
                assert fired[(op, call)] > 0, (op, call)
        for call in ("open", "mmap", "malloc")[: 2 if under_asan else 3]:
            assert fired[(f"{kind} bloomkit.open (mapped)", call)] > 0, (kind, call)
        for op in ("to_bytes", "bloomkit.from_bytes", ".from_bytes", "pickle protocol 5", "pickle protocol 2"):
            name = f"{kind}{op}" if op.startswith(".") else f"{kind} {op}"
            assert under_asan or fired[(name, "malloc")] > 0, name
    # The string operations (fault_driver.string_operations): each one's allocations were failed in
    # turn, the copy of its long text among them (nanobind's noexcept string caster ended the
    # process there before).
    strings = ("control: int() of a bad str", "sharding BlockShard.save", "sharding shard_plan (unknown kind)", "load_jvm", "merge with a long-named type",
               "add a key of a long-named type", "add_hashes of a long-named type",
               "parquet probe (long str values)", "parquet read_filter (unknown long column name)",
               "sharding make_manifest_json", "sharding read_manifest_json", "sharding write_manifest_json",
               "sharding ShardedFilter", "sharding write_manifest_json (corrupt)",
               "add_many over an Arrow dictionary array (string)",
               "may_contain_many over an Arrow dictionary array (string)",
               "add_many over an Arrow dictionary array (int, chunked, nulls)",
               "may_contain_many over an Arrow dictionary array (int, chunked, nulls)",
               # The array arguments and results off nb::ndarray (python/src/keys.hpp, array_argument).
               *(f"sharding {call} ({label})" for label in ("uint64", "int64, converted")
                 for call in ("ShardLayout.shard_of_hashes", "route", "ShardedFilter.may_contain_hashes",
                              "BlockShard.may_contain_hashes", "BlockShard.add_hashes")),
               "sharding reassemble", "sharding reassemble (int32 positions, uint8 answers, converted)",
               "_hash_keys")
    for name in strings:
        assert (name, "malloc") in fired, name
        assert under_asan or fired[(name, "malloc")] > 0, name
    # Every EINTR ended in success (the driver reports a violation otherwise); errors did occur.
    assert sum(c["error"] for c in cases) > 0
    assert all(c["error"] == 0 for c in cases if c["errno"] == "EINTR")
    print(f"\n{sum(c['fired'] for c in cases)} (operation, call, errno, N) cases fired: "
          f"{sum(c['error'] for c in cases)} typed errors, {sum(c['success'] for c in cases)} successes")


def test_the_loop_catches_a_save_that_is_not_atomic(shim, tmp_path):
    # A planted save() that writes the destination in place: a failing write leaves a part of it.
    run, report = drive(shim, tmp_path, "--plant")
    assert run.returncode == 1
    assert any("destination is not the previous file" in v for v in report["violations"]), report["violations"]


def test_paths_are_the_bytes_the_os_takes(tmp_path):
    # str, bytes and PathLike alike, and a name that is not UTF-8 (os.fsencode's surrogateescape):
    # paths are converted by PyUnicode_FSConverter, never through a C++ string caster that cannot fail.
    import bloomkit

    f = bloomkit.SplitBlockBloom(100, 0.01)
    f.add("a")
    raw = os.fsencode(tmp_path) + b"/odd-\xff-name.bkf"
    for path in (raw, os.fsdecode(raw), pathlib.Path(os.fsdecode(raw))):
        f.save(path)
        assert bloomkit.load(path).to_bytes() == f.to_bytes()
        assert bloomkit.SplitBlockBloom.load(path).to_bytes() == f.to_bytes()
        with bloomkit.open(path) as m:
            assert "a" in m
    assert os.listdir(os.fsencode(tmp_path)) == [b"odd-\xff-name.bkf"]
    import pytest as _pytest

    with _pytest.raises(ValueError):
        f.save(str(tmp_path / "nul\0name"))
    with _pytest.raises(TypeError):
        bloomkit.load(42)
