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
