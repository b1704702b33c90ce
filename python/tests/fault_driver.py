"""The Python package's fault loop (docs/RELIABILITY.md, "Python: save, load, open, bytes, pickle").

Run by test_faults.py in a child process with the fault shim preloaded (LD_PRELOAD=
libbloomkit_fault_shim.so, tests/faults/fault_shim.cpp), never directly by pytest:

    python fault_driver.py WORKDIR [--plant] [--shared SHARED]

For every operation below, every call family the shim knows and each errno that family can
return, it fails the Nth call for N = 1, 2, ... until a run in which the fault did not fire
(the operation then made fewer than N such calls, so every one of them has been failed once).
The shim is armed in-process (bloomkit_fault_arm) just before the operation and disarmed just
after it, so the interpreter's start-up and the checks are never failed; whatever the
interpreter itself allocates or reads during the operation is (a real failure would hit it too).

Each run must end in one of two ways:
  * success, with exactly the fault-free result (the same bytes), or
  * an exception that is a bloomkit.Error, an OSError or a MemoryError;
and in both cases the destination of a save holds the previous file or the complete new one
(never a part; after an exception, the previous one), and no other file (temporary) is left in
its folder. EINTR must always end in
success: it is retried, not reported. Any other outcome is a violation.

The string operations (Parquet, sharding, the JVM formats, error messages) pass the extension
text longer than a short-string buffer, so that copying it into a std::string allocates: nanobind's
string caster is noexcept, and a failed allocation inside it ended the process (std::terminate)
before those calls converted their text themselves. They are failed on malloc only. An operation
whose fault-free outcome is an exception (Raises) must raise that exception or MemoryError.
--shared names the shared fixtures folder (fixtures/parquet/pub_strings.parquet) for the Parquet ones.

--plant replaces save() by a naive one (open the destination, write) that breaks the promise,
so test_faults.py can check that this loop does catch a half-written file.

Prints one JSON object on stdout: {"cases": [...], "violations": [...]}; exit status 1 if any
violation, 0 otherwise. Before each run a line "run OP FAMILY ERRNO N" goes to stderr, so a
crash names the run that crashed.
"""

from __future__ import annotations

import ctypes
import json
import os
import pathlib
import pickle
import sys
from typing import Any, Callable

import numpy as np

import bloomkit

# The shim's in-process controls: a preloaded library's symbols are global.
_libc = ctypes.CDLL(None)
try:
    _arm = _libc.bloomkit_fault_arm
    _disarm = _libc.bloomkit_fault_disarm
    _fired = _libc.bloomkit_fault_fired
except AttributeError:
    sys.exit("fault_driver.py: the fault shim is not preloaded (LD_PRELOAD=libbloomkit_fault_shim.so)")
_arm.argtypes = [ctypes.c_char_p]
_arm.restype = ctypes.c_bool
_disarm.restype = None
_fired.restype = ctypes.c_bool

#: The errno each call family is failed with (EINTR must be retried: always success).
FAMILIES: dict[str, list[str]] = {
    "open": ["EIO", "EACCES", "EINTR"],
    "read": ["EIO", "EINTR"],
    "write": ["EIO", "ENOSPC", "EINTR"],
    "fsync": ["EIO", "EINTR"],
    "rename": ["EIO", "EINTR"],
    "mmap": ["ENOMEM", "EINTR"],
    "close": ["EIO", "EINTR"],
    "malloc": ["ENOMEM"],
}
ALLOWED = (bloomkit.Error, OSError, MemoryError)
MAX_N = 100_000  # a loop that never ends is a failure too


def disarm() -> None:
    # The ctypes call may itself allocate before reaching the shim; a fault
    # fires once, so the second attempt gets through.
    # Nothing here may allocate before the call (no range(), no f-string).
    while True:
        try:
            _disarm()
            return
        except MemoryError:
            pass


def attempt(op: Callable[[], Any], spec: str) -> tuple[Any, BaseException | None, bool]:
    """Runs op() with `spec` armed: (result, exception or None, whether the fault fired)."""
    result: Any = None
    error: BaseException | None = None
    try:
        if not _arm(spec.encode()):
            raise SystemExit(f"fault_driver.py: the shim refused {spec}")
        result = op()
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - every outcome is judged below
        error = e
    finally:
        disarm()
    return result, error, bool(_fired())


class Save:
    """f.save(dest), over a previous file (replace=True) or into an empty folder."""

    def __init__(self, f: Any, folder: pathlib.Path, replace: bool, plant: bool) -> None:
        self.f, self.folder, self.replace, self.plant = f, folder, replace, plant
        self.dest = folder / "filter.bkf"
        self.new = f.to_bytes()
        self.old = type(f)(50, 0.1).to_bytes() if replace else None
        self.name = ("save (replace)" if replace else "save (new file)") + (" [planted]" if plant else "")
        folder.mkdir(parents=True, exist_ok=True)

    def reset(self) -> None:
        for p in self.folder.iterdir():
            p.unlink()
        if self.old is not None:
            self.dest.write_bytes(self.old)

    def __call__(self) -> Any:
        if self.plant:
            with open(self.dest, "wb") as out:  # not atomic: what the loop must catch
                out.write(self.new)
            return None
        return self.f.save(self.dest)

    def check(self, ok: bool) -> str | None:
        left = sorted(p.name for p in self.folder.iterdir())
        if left not in ([], [self.dest.name]):
            return f"files left in the folder: {left}"
        now = self.dest.read_bytes() if self.dest.exists() else None
        if ok:
            return None if now == self.new else "success, but the destination is not the new filter"
        if now == self.old:
            return None
        if now == self.new:
            return "raised, yet the destination was replaced (an error must mean nothing changed)"
        return "raised, and the destination is not the previous file" if self.old is not None else \
            "raised, and left a destination file"


class Read:
    """An operation that produces a filter (or bytes) that must equal the original."""

    def __init__(self, name: str, op: Callable[[], Any], want: bytes, as_bytes: Callable[[Any], bytes]) -> None:
        self.name, self.op, self.want, self.as_bytes = name, op, want, as_bytes

    def reset(self) -> None:
        pass

    def __call__(self) -> Any:
        return self.op()

    def check_result(self, result: Any) -> str | None:
        try:
            got = self.as_bytes(result)
        finally:
            if getattr(result, "read_only", False):
                result.close()
        return None if got == self.want else "success, but the result differs from the original"


class Raises:
    """An operation whose fault-free outcome is the exception `expected` (an error path)."""

    families = ("malloc",)

    def __init__(self, name: str, op: Callable[[], Any], expected: type[BaseException]) -> None:
        self.name, self.op, self.expected = name, op, expected

    def reset(self) -> None:
        pass

    def __call__(self) -> Any:
        return self.op()


def _cpython_lost(error: BaseException) -> bool:
    """CPython's own SystemError when an allocation fails while an exception propagates (its
    traceback or chaining): the control operation, pure Python (int() of a bad str), gets it at
    the same calls as the extension's error paths, so it says nothing about the extension."""
    text = str(error)
    return isinstance(error, SystemError) and (text == "error return without exception set" or
                                               text.endswith("returned NULL without setting an exception"))


class Text(Read):
    """A Read over the extension's string arguments: failed on malloc only."""

    families = ("malloc",)


#: Longer than libstdc++'s 15-byte short-string buffer: a std::string copy of it allocates.
LONG = "-a-name-longer-than-a-short-string-buffer"


def string_operations(workdir: pathlib.Path, shared: pathlib.Path | None) -> list[Any]:
    from bloomkit import _bloomkit as ext
    from bloomkit import parquet, sharding

    ops: list[Any] = []
    folder = workdir / ("strings" + LONG)
    folder.mkdir(parents=True, exist_ok=True)
    # Sharding: kind names and shard paths through the extension's text, and the manifest calls.
    # The manifest JSON is read by nlohmann's SAX parser and written without its DOM
    # (include/bloomkit/sharding.hpp, detail::manifest_sax): the DOM's noexcept destructor
    # allocates, so a failed allocation there ended the process (std::terminate).
    params = sharding.plan("split-block", 1000, 0.01)
    layout = ext.ShardLayout(params["blocks"], 2)
    kind = sharding._shardable("split-block")
    shard = ext.BlockShard(kind, params, layout, 0)
    shard_path = folder / ("shard" + LONG + ".bkf")
    entry = shard.save(shard_path)
    ops.append(Text("sharding BlockShard.save", lambda: shard.save(shard_path), _json(entry), _json))
    ops.append(Raises("sharding shard_plan (unknown kind)", lambda: ext.shard_plan("no-such-kind" + LONG, 1000, 0.01),
                      bloomkit.Error))
    shard1 = ext.BlockShard(kind, params, layout, 1)
    entries = [entry, shard1.save(folder / ("shard1" + LONG + ".bkf"))]
    text = ext.make_manifest_json(kind, params, layout, entries)
    manifest = str(folder / ("filter" + LONG + ".manifest.json"))
    ext.write_manifest_json(text, manifest)
    whole = ext.ShardedFilter(manifest).gather_bytes()
    ops.append(Text("sharding make_manifest_json", lambda: ext.make_manifest_json(kind, params, layout, entries),
                    text.encode(), str.encode))
    ops.append(Text("sharding read_manifest_json", lambda: ext.read_manifest_json(manifest), text.encode(), str.encode))
    # A str path, and the file read back after the run (outside the armed window): pathlib's own
    # __fspath__ / read_bytes lose a MemoryError under a failing malloc (CPython, not the extension).
    copy = str(folder / ("copy" + LONG + ".manifest.json"))

    def write_copy() -> str:
        ext.write_manifest_json(text, copy)
        return copy

    ops.append(Text("sharding write_manifest_json", write_copy, text.encode(),
                    lambda p: pathlib.Path(p).read_bytes()))
    ops.append(Text("sharding ShardedFilter", lambda: ext.ShardedFilter(manifest), whole + text.encode(),
                    lambda g: g.gather_bytes() + g.manifest_json.encode()))
    # The sharding calls' arrays in and out and _hash_keys' result: read
    # through the buffer protocol (converted by NumPy when the dtype differs) and made by
    # numpy.empty, not nb::ndarray, whose import and export end the process on a failed
    # allocation (nanobind 3.1.0; python/src/keys.hpp, array_argument / array_output).
    # (AgePartitionedBloom.add_many_at's times take the same route but are left out: its int64
    # check calls numpy's min(), which under a failed malloc returns NULL without an exception,
    # NumPy's SystemError, not ours, and its ~43,000 allocations would make the loop 6 minutes.)
    hashes = np.arange(1, 200, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    signed = hashes.view(np.int64)  # converted by the argument (astype), as nb::ndarray did
    sharded = ext.ShardedFilter(manifest)
    one = ext.BlockShard(kind, params, ext.ShardLayout(params["blocks"], 1), 0)  # every hash routes to it
    one.add_hashes(hashes[::3].copy())
    grouped, positions, _ = ext.route(layout, hashes)
    arrays = lambda r: b"".join(np.ascontiguousarray(a).tobytes() for a in (r if isinstance(r, tuple) else (r,)))  # noqa: E731
    for label, h in (("uint64", hashes), ("int64, converted", signed)):
        ops.append(Text(f"sharding ShardLayout.shard_of_hashes ({label})", lambda h=h: layout.shard_of_hashes(h),
                        arrays(layout.shard_of_hashes(hashes)), arrays))
        ops.append(Text(f"sharding route ({label})", lambda h=h: ext.route(layout, h), arrays(ext.route(layout, hashes)),
                        arrays))
        ops.append(Text(f"sharding ShardedFilter.may_contain_hashes ({label})", lambda h=h: sharded.may_contain_hashes(h),
                        arrays(sharded.may_contain_hashes(hashes)), arrays))
        ops.append(Text(f"sharding BlockShard.may_contain_hashes ({label})", lambda h=h: one.may_contain_hashes(h),
                        arrays(one.may_contain_hashes(hashes)), arrays))

        def shard_add(h=h):
            s = ext.BlockShard(kind, params, ext.ShardLayout(params["blocks"], 1), 0)
            s.add_hashes(h)
            return s

        want_shard = shard_add(hashes).may_contain_hashes(hashes)
        ops.append(Text(f"sharding BlockShard.add_hashes ({label})", shard_add, arrays(want_shard),
                        lambda s: arrays(s.may_contain_hashes(hashes))))
    answers = one.may_contain_hashes(grouped)
    ops.append(Text("sharding reassemble", lambda: ext.reassemble(positions, answers),
                    arrays(ext.reassemble(positions, answers)), arrays))
    ops.append(Text("sharding reassemble (int32 positions, uint8 answers, converted)",
                    lambda: ext.reassemble(positions.astype(np.int32), answers.astype(np.uint8)),
                    arrays(ext.reassemble(positions, answers)), arrays))
    keys = [f"key {i}" + LONG for i in range(50)]
    ops.append(Text("_hash_keys", lambda: ext._hash_keys(keys, "xxh3_64", 0), arrays(ext._hash_keys(keys, "xxh3_64", 0)),
                    arrays))
    ops.append(Raises("sharding write_manifest_json (corrupt)",
                      lambda: ext.write_manifest_json(text.replace('"k": 8', '"k": 7' + " " * 40), copy), bloomkit.Error))
    # The JVM formats: load_jvm's path.
    spark = bloomkit.SparkBloom(1000, 0.01)
    spark.add("k")
    jvm = folder / ("spark" + LONG + ".bin")
    spark.save(jvm)
    ops.append(Text("load_jvm", lambda: bloomkit.load_jvm(jvm), spark.to_bytes(), lambda r: r.to_bytes()))
    # The control: pure Python, the same error-path shape (see _cpython_lost).
    ops.append(Raises("control: int() of a bad str", lambda: int("not-a-number" + LONG), ValueError))
    # Error paths: the messages name a type whose name is long.
    f = bloomkit.SplitBlockBloom(1000, 0.01)
    odd = type("AKeyTypeWhoseNameIsLong" + LONG.replace("-", "_"), (), {})()
    ops.append(Raises("merge with a long-named type", lambda: f.merge(odd), bloomkit.MismatchError))
    ops.append(Raises("add a key of a long-named type", lambda: f.add(odd), TypeError))
    ops.append(Raises("add_hashes of a long-named type", lambda: f.add_hashes([odd]), TypeError))
    # Arrow dictionary arrays (their type names are long): the dictionary is hashed once and each
    # key gathered through its index (python/src/keys.cpp, add_arrow_dictionary), not decoded by
    # pyarrow's dictionary_decode, which let a std::bad_alloc escape without the GIL (pyarrow 26.0.1).
    import pyarrow as pa

    strings = pa.array([f"value {i} " + LONG for i in range(40)] * 3).dictionary_encode()
    ints = pa.chunked_array([pa.array([5, None, 7, 5] * 10, type=pa.int64()).dictionary_encode()] * 2)
    for label, arr in (("string", strings), ("int, chunked, nulls", ints)):
        g = bloomkit.BlockedBloom(1000, 0.01)
        g.add_many(arr)

        def add(arr=arr):
            h = bloomkit.BlockedBloom(1000, 0.01)
            h.add_many(arr)
            return h

        ops.append(Text(f"add_many over an Arrow dictionary array ({label})", add, g.to_bytes(), lambda r: r.to_bytes()))
        ops.append(Text(f"may_contain_many over an Arrow dictionary array ({label})",
                        lambda g=g, arr=arr: g.may_contain_many(arr), g.may_contain_many(arr).tobytes(),
                        lambda r: r.tobytes()))
    if shared is not None:
        path = shared / "fixtures" / "parquet" / "pub_strings.parquet"
        values = ["a value longer than sixteen bytes" + LONG, b"bytes", 12345678901234567, 1.5]
        want = json.dumps(parquet.probe(path, "s", values)).encode()
        ops.append(Text("parquet probe (long str values)", lambda: parquet.probe(path, "s", values), want,
                        lambda r: json.dumps(r).encode()))
        ops.append(Raises("parquet read_filter (unknown long column name)",
                          lambda: parquet.read_filter(path, "no-such-column" + LONG, 0), bloomkit.Error))
    return ops


def _json(d: Any) -> bytes:
    return json.dumps(d, sort_keys=True).encode()


def operations(workdir: pathlib.Path, plant: bool) -> list[Any]:
    ops: list[Any] = []
    for cls in (bloomkit.SplitBlockBloom, bloomkit.ScalableBloom):
        # SplitBlockBloom: one buffer (protocol 5 sends it out of band); ScalableBloom: several stages.
        f = cls(1000, 0.01)
        f.add_many([f"key{i}" for i in range(700)])
        label = cls.__name__
        folder = workdir / label
        first = len(ops)
        if plant:
            ops.append(Save(f, folder / "planted", replace=True, plant=True))
            continue
        ops.append(Save(f, folder / "replace", replace=True, plant=False))
        ops.append(Save(f, folder / "new", replace=False, plant=False))
        src = folder / "source.bkf"
        f.save(src)
        data = f.to_bytes()
        same = lambda g: g.to_bytes()  # noqa: E731
        ops += [
            Read("bloomkit.load", lambda src=src: bloomkit.load(src), data, same),
            Read(f"{label}.load", lambda src=src, cls=cls: cls.load(src), data, same),
            Read("bloomkit.open (mapped)", lambda src=src: bloomkit.open(src), data, same),
            Read("to_bytes", lambda f=f: f.to_bytes(), data, bytes),
            Read("bloomkit.from_bytes", lambda data=data: bloomkit.from_bytes(data), data, same),
            Read(f"{label}.from_bytes", lambda data=data, cls=cls: cls.from_bytes(data), data, same),
            Read("pickle protocol 5", lambda f=f: pickle.loads(pickle.dumps(f, protocol=5)), data, same),
            Read("pickle protocol 2", lambda f=f: pickle.loads(pickle.dumps(f, protocol=2)), data, same),
        ]
        for op in ops[first:]:
            if not op.name.startswith(label):
                op.name = f"{label} {op.name}"
    return ops


def main() -> int:
    workdir = pathlib.Path(sys.argv[1])
    plant = "--plant" in sys.argv[2:]
    shared = pathlib.Path(sys.argv[sys.argv.index("--shared") + 1]) if "--shared" in sys.argv else None
    cases: list[dict[str, Any]] = []
    violations: list[str] = []
    ops = operations(workdir, plant)
    if not plant:
        ops += string_operations(workdir, shared)
    for op in ops:
        for family, errnos in FAMILIES.items():
            if family not in getattr(op, "families", FAMILIES):
                continue
            for errno_name in errnos:
                fired = ok = failed = 0
                n = 0
                while True:
                    n += 1
                    if n > MAX_N:
                        violations.append(f"{op.name} {family}:{errno_name}: still firing at N = {MAX_N}")
                        break
                    op.reset()
                    print(f"run {op.name} {family} {errno_name} {n}", file=sys.stderr, flush=True)
                    result, error, did_fire = attempt(op, f"{family}:{n}:{errno_name}")
                    where = f"{op.name}, {family} call {n} fails with {errno_name}"
                    problem = None
                    if isinstance(op, Raises):
                        if error is None:
                            problem = f"succeeded, but the fault-free call raises {op.expected.__name__}"
                        elif not isinstance(error, (op.expected, MemoryError)) and not _cpython_lost(error):
                            problem = f"raised {type(error).__name__}: {error} (want {op.expected.__name__})"
                    elif error is not None and not isinstance(error, ALLOWED):
                        problem = f"raised {type(error).__name__}: {error}"
                    elif error is not None and errno_name == "EINTR":
                        problem = f"EINTR was reported, not retried: {type(error).__name__}: {error}"
                    elif isinstance(op, Save):
                        problem = op.check(error is None)
                    elif error is None:
                        problem = op.check_result(result)
                    if problem is not None:
                        violations.append(f"{where}: {problem}")
                    if not did_fire:
                        if isinstance(op, Raises):
                            if not isinstance(error, op.expected):
                                violations.append(f"{where}: the fault did not fire, yet it raised {error!r}")
                            break
                        if error is not None:
                            violations.append(f"{where}: the fault did not fire, yet it raised {error!r}")
                        break
                    fired += 1
                    ok += error is None
                    failed += error is not None
                cases.append({"op": op.name, "call": family, "errno": errno_name,
                              "fired": fired, "error": failed, "success": ok})
    json.dump({"cases": cases, "violations": violations}, sys.stdout)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
