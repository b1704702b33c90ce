"""The Python package's fault loop (docs/RELIABILITY.md, "Python: save, load, open, bytes, pickle").

Run by test_faults.py in a child process with the fault shim preloaded (LD_PRELOAD=
libbloomkit_fault_shim.so, tests/faults/fault_shim.cpp), never directly by pytest:

    python fault_driver.py WORKDIR [--plant]

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
    cases: list[dict[str, Any]] = []
    violations: list[str] = []
    for op in operations(workdir, plant):
        for family, errnos in FAMILIES.items():
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
                    if error is not None and not isinstance(error, ALLOWED):
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
