"""The type stubs (.pyi) are accepted by a type checker (mypy, pinned), and they carry real types."""

from __future__ import annotations

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null", *args],
                          capture_output=True, text=True, cwd=HERE)


def test_stubs_accept_ordinary_use():
    run = mypy("--strict", str(HERE / "typing_sample.py"))
    assert run.returncode == 0, run.stdout + run.stderr


def test_stubs_reject_misuse(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import bloomkit\n"
        "f = bloomkit.SplitBlockBloom(10)\n"
        "x: str = f.inserted\n"                  # int, not str
        "f.add_many(3)\n"                        # not a batch
        "bloomkit.BinaryFuse(['a']).add('b')\n"  # static filters have no add
    )
    run = mypy(str(bad))
    assert run.returncode == 1
    assert run.stdout.count("error:") == 3, run.stdout


def test_stubs_cover_the_runtime():
    # Every public name of the package is declared in the stubs (mypy's stubtest would be the full
    # check, but nanobind methods expose no inspect.signature for it to compare).
    import bloomkit
    import bloomkit._bloomkit as ext

    stub = (pathlib.Path(bloomkit.__file__).parent / "_bloomkit" / "__init__.pyi").read_text()
    for name in dir(ext):
        if name.startswith("__"):
            continue
        assert f"{name}" in stub, name
    for cls in bloomkit.KINDS.values():
        for member in dir(cls):
            if not member.startswith("_"):
                assert f"def {member}(" in stub or f"{member}:" in stub, f"{cls.__name__}.{member}"


def test_runtime_signatures_name_their_types():
    """help() and __doc__ show what each filter method takes and gives, not a bare `object`
    (python/src/annotated.hpp). Only copy.deepcopy's memo, which is any object, stays `object`."""
    import re

    import bloomkit

    bare = re.compile(r"(?<![\w.])object(?![\w.])")
    vague = []
    for cls in (bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom, bloomkit.CountingBloom,
                bloomkit.ScalableBloom, bloomkit.BinaryFuse, bloomkit.Ribbon, bloomkit.CuckooFilter,
                bloomkit.AgePartitionedBloom):
        for name, member in vars(cls).items():
            if name.startswith("__") and name not in {"__or__", "__and__", "__ior__", "__iand__", "__copy__",
                                                      "__enter__", "__init__"}:
                continue
            first = ((getattr(member, "__doc__", None) or "").splitlines() or [""])[0]
            if "(" in first and bare.search(first.replace("memo: object", "")):
                vague.append(f"{cls.__name__}.{first}")
    for fn in (bloomkit.load, bloomkit.open, bloomkit.from_bytes, bloomkit.inspect):
        first = (fn.__doc__ or "").splitlines()[0]
        if bare.search(first):
            vague.append(first)
    assert vague == []
