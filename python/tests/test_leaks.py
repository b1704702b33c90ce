"""The extension frees what it allocates: every call path, the error paths included, run a few
thousand times, leaves the process's allocated bytes where they were.

LeakSanitizer cannot check a Python extension (CPython frees little at exit by design, and every
allocation's stack runs through the interpreter, so no suppression tells its leaks from ours), so
this counts the allocator's live bytes instead: glibc's mallinfo2, or under the ASan run
(python/venv.sh asan) the sanitizer's own count."""

from __future__ import annotations

import ctypes
import gc
import pickle

import numpy as np
import pyarrow as pa
import pytest

import bloomkit

_libc = ctypes.CDLL(None)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def allocated_bytes() -> int:
    gc.collect()
    if hasattr(_libc, "__sanitizer_get_current_allocated_bytes"):
        f = _libc.__sanitizer_get_current_allocated_bytes
        f.restype = ctypes.c_size_t
        return int(f())
    f = _libc.mallinfo2
    f.restype = _Mallinfo2
    info = f()
    return int(info.uordblks + info.hblkhd)


def exercise(tmp_path, i: int) -> None:
    ints = np.arange(i, i + 500, dtype=np.int64)
    words = pa.array([f"w{j}" for j in range(100)])
    for cls in (bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom, bloomkit.CountingBloom,
                bloomkit.ScalableBloom):
        f = cls(1000, 0.01)
        f.add("a")
        f.add(str(i))  # one key type a filter: bytes (str and bytes)
        f.add_many(ints.astype(str))
        f.add_many(words)
        f.add_many(["x", b"y", "3"])
        assert "a" in f and f.may_contain(str(i))
        f.may_contain_many(ints[::2].astype(str))
        f.may_contain_many(pa.chunked_array([words, words]))
        g = bloomkit.from_bytes(f.to_bytes())
        g = pickle.loads(pickle.dumps(g, protocol=5))
        g = pickle.loads(pickle.dumps(g, protocol=2))
        g |= f
        _ = f | g
        f.copy()
        repr(f)
        for bad in (object(), 2**70, [1]):
            with pytest.raises((TypeError, OverflowError, bloomkit.MismatchError)):
                f.add(bad)
            with pytest.raises((TypeError, OverflowError, bloomkit.MismatchError)):
                _ = bad in f
        with pytest.raises(TypeError):
            f.add_many(["1", object()])
        with pytest.raises(bloomkit.MismatchError):
            f.merge(cls(5000, 0.01))
    static = bloomkit.BinaryFuse(ints)
    assert static.may_contain_many(ints).all()
    with pytest.raises(bloomkit.FormatError):
        bloomkit.from_bytes(b"not a filter at all, not at all")
    path = tmp_path / "f.bkf"
    f.save(path)
    bloomkit.load(path)
    with bloomkit.open(path) as m:
        assert "a" in m
        with pytest.raises(bloomkit.ReadOnlyError):
            m.add("b")
    with pytest.raises(bloomkit.FileError):
        bloomkit.load(tmp_path / "missing.bkf")


def test_no_allocation_outlives_its_filter(tmp_path):
    for i in range(50):  # warm up: caches, interned strings, the exception types' first use
        exercise(tmp_path, i)
    before = allocated_bytes()
    rounds = 400
    for i in range(rounds):
        exercise(tmp_path, i)
    grown = allocated_bytes() - before
    # One leaked filter per round (the smallest here is over 1 KiB) would be more than 400 KiB;
    # a leaked exception message or key buffer per call, far more.
    assert grown < 128 * 1024, f"{grown} bytes more allocated after {rounds} rounds"
