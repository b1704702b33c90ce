#!/usr/bin/env python3
"""bloomkit against the Python Bloom filter libraries people install (rbloom, pybloom-live,
pyprobables), a Python set, and the C++ library's own batched calls on the same keys, in one run.

    python/venv.sh bench                      # 10^6 and 10^7 keys, 3 repeats
    python/venv.sh bench --sizes 100000 --repeats 1 --json out.json

Every figure is ns per key: the median over --repeats of the calling thread's CPU time
(time.thread_time_ns; the C++ reference uses CLOCK_THREAD_CPUTIME_ID), so other processes on a
shared machine do not inflate it. Filters are sized for n keys at 1 % FPR. Per-key calls use the
same Python list of str keys for every library (pyprobables takes only str/bytes); "absent"
lookups use n other keys. The pure-Python libraries (pybloom-live, pyprobables) run once, and
in full only up to --slow-max keys (default 10^6): at 10^7 each of their operations takes minutes.
Past it, --slow-sample S times them on S keys of a filter sized for n: add and present lookups
only (run_sampled says why no absent lookups). The row "loop floor: empty frozenset" times the
same lookup loop over `k in frozenset()`: the interpreter's own share of every per-key figure.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

import numpy as np
import pyarrow as pa

import bloomkit

ROOT = pathlib.Path(__file__).resolve().parents[2]
FPR = 0.01


def ns_per_key(fn: Callable[..., Any], n: int, repeats: int, setup: Callable[[], Any] | None = None) -> float:
    """Median ns/key of fn() (or fn(setup()): the filter is made outside the timed part)."""
    times = []
    for _ in range(repeats):
        arg = setup() if setup is not None else None
        start = time.thread_time_ns()
        fn() if setup is None else fn(arg)
        times.append((time.thread_time_ns() - start) / n)
    return statistics.median(times)


def make_keys(n: int, seed: int = 2026) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    # Even numbers are added, odd ones are the absent queries: the two sets never meet.
    ints = rng.integers(0, 2**61, 2 * n, dtype=np.int64) * 2
    ints[n:] += 1
    strings = pa.array(ints).cast(pa.large_string())
    return {
        "ints": ints[:n], "absent_ints": ints[n:],
        "arrow": strings.slice(0, n), "absent_arrow": strings.slice(n),
        "str": strings.slice(0, n).to_pylist(), "absent_str": strings.slice(n).to_pylist(),
        "all_ints": ints, "all_arrow": strings,
    }


def per_key_libraries(slow_max: int, n: int, slow_sample: int = 0) -> dict[str, dict[str, Any]]:
    libs: dict[str, dict[str, Any]] = {
        "bloomkit SplitBlockBloom": {"make": lambda n: bloomkit.SplitBlockBloom(n, FPR),
                                     "bits": lambda f: f.size_in_bytes * 8},
        "bloomkit BlockedBloom": {"make": lambda n: bloomkit.BlockedBloom(n, FPR), "bits": lambda f: f.size_in_bytes * 8},
        "bloomkit StandardBloom": {"make": lambda n: bloomkit.StandardBloom(n, FPR), "bits": lambda f: f.bit_count},
    }
    try:
        import rbloom
        libs["rbloom"] = {"make": lambda n: rbloom.Bloom(n, FPR), "bits": lambda f: f.size_in_bits}
    except ImportError:
        print("compare.py: rbloom is not installed (python/requirements/bench.txt)", file=sys.stderr)
    if n <= slow_max or slow_sample > 0:
        # Past --slow-max, with --slow-sample S: a filter sized for n, S keys added and looked up.
        sample = {"sample": slow_sample} if n > slow_max else {}
        try:
            import pybloom_live
            libs["pybloom-live"] = {"make": lambda n: pybloom_live.BloomFilter(capacity=n, error_rate=FPR),
                                    "bits": lambda f: f.num_bits, "slow": True, **sample}
        except ImportError:
            print("compare.py: pybloom-live is not installed", file=sys.stderr)
        try:
            import probables
            libs["pyprobables"] = {"make": lambda n: probables.BloomFilter(est_elements=n, false_positive_rate=FPR),
                                   "bits": lambda f: f.number_bits, "slow": True, "contains": "check", **sample}
        except ImportError:
            print("compare.py: pyprobables is not installed", file=sys.stderr)
    libs["set"] = {"make": lambda n: set(), "bits": None}
    # The loop's own cost: `k in frozenset()` reads the str's cached hash and no table, so a
    # library's per-key `in` figure minus this row is what its call adds to the interpreter's loop.
    libs["loop floor: empty frozenset"] = {"make": lambda n: frozenset(), "bits": None, "floor": True}
    return libs


def count_in(f: Any, keys: list) -> int:
    """Keys of `keys` that `in f` finds: the per-key lookup loop every library is timed with."""
    found = 0
    for k in keys:
        if k in f:
            found += 1
    return found


def run_per_key(name: str, lib: dict[str, Any], keys: dict[str, Any], n: int, repeats: int) -> list[dict[str, Any]]:
    rows = []
    present, absent = keys["str"], keys["absent_str"]
    reps = 1 if lib.get("slow") else repeats
    method = lib.get("contains")
    if lib.get("sample"):
        return run_sampled(name, lib, present, n, lib["sample"])
    if lib.get("floor"):
        empty = lib["make"](n)
        return [{"lib": name, "op": "in (per key, absent)", "ns": ns_per_key(lambda: count_in(empty, absent), n, reps)}]

    def fill(f):
        add = f.add
        for k in present:
            add(k)
        return f

    rows.append({"lib": name, "op": "add (per key, str)", "ns": ns_per_key(fill, n, reps, lambda: lib["make"](n))})
    f = fill(lib["make"](n))
    if method:
        check = getattr(f, method)

        def hits(keys):
            found = 0
            for k in keys:
                if check(k):
                    found += 1
            return found
    else:
        def hits(keys):
            return count_in(f, keys)

    rows.append({"lib": name, "op": "in (per key, present)", "ns": ns_per_key(lambda: hits(present), n, reps)})
    rows.append({"lib": name, "op": "in (per key, absent)", "ns": ns_per_key(lambda: hits(absent), n, reps)})
    false_positives = hits(absent)
    assert hits(present) == n, f"{name} has false negatives"
    extra = {"fpr": false_positives / n}
    if lib["bits"] is not None:
        extra["bits_per_key"] = lib["bits"](f) / n
    for r in rows:
        r.update(extra)
    return rows


def run_sampled(name: str, lib: dict[str, Any], present: list, n: int, sample: int) -> list[dict[str, Any]]:
    """A pure-Python library past --slow-max: its filter is sized for n keys, the first `sample`
    keys are added (one add each, timed) and looked up again (timed). A present key's lookup tests
    all k bits whatever the fill, so that row is the full filter's; an absent key's lookup stops at
    its first zero bit, which comes sooner in a filter holding sample < n keys, so no absent row
    (nor an FPR) is reported."""
    keys = present[:sample]
    f = lib["make"](n)
    add = f.add
    start = time.thread_time_ns()
    for k in keys:
        add(k)
    add_ns = (time.thread_time_ns() - start) / len(keys)
    check = getattr(f, lib["contains"]) if lib.get("contains") else f.__contains__
    start = time.thread_time_ns()
    found = 0
    for k in keys:
        if check(k):
            found += 1
    in_ns = (time.thread_time_ns() - start) / len(keys)
    assert found == len(keys), f"{name} has false negatives"
    label = f"first {sample:.0e} keys"
    extra = {"bits_per_key": lib["bits"](f) / n}
    return [{"lib": name, "op": f"add (per key, str; {label})", "ns": add_ns, **extra},
            {"lib": name, "op": f"in (per key, present; {label})", "ns": in_ns, **extra}]


def run_batches(keys: dict[str, Any], n: int, repeats: int) -> list[dict[str, Any]]:
    rows = []
    for cls in (bloomkit.SplitBlockBloom, bloomkit.BlockedBloom):
        name = f"bloomkit {cls.__name__}"
        for label, add_src, absent_src in (("numpy int64", keys["ints"], keys["absent_ints"]),
                                           ("arrow string", keys["arrow"], keys["absent_arrow"])):
            def fill(f, src=add_src):
                f.add_many(src)
                return f

            rows.append({"lib": name, "op": f"add_many {label}",
                         "ns": ns_per_key(fill, n, repeats, lambda: cls(n, FPR))})
            f = fill(cls(n, FPR))
            rows.append({"lib": name, "op": f"may_contain_many {label} (absent)",
                         "ns": ns_per_key(lambda: f.may_contain_many(absent_src), n, repeats),
                         "fpr": float(f.may_contain_many(absent_src).mean())})
        h = bloomkit.hash_keys(keys["ints"], cls)
        rows.append({"lib": name, "op": "add_hashes uint64",
                     "ns": ns_per_key(lambda f: f.add_hashes(h), n, repeats, lambda: cls(n, FPR))})
        rows.append({"lib": name, "op": "add_many list of str",
                     "ns": ns_per_key(lambda f: f.add_many(keys["str"]), n, repeats, lambda: cls(n, FPR))})
    try:
        import rbloom

        rows.append({"lib": "rbloom", "op": "update(list of str)",
                     "ns": ns_per_key(lambda f: f.update(keys["str"]), n, repeats, lambda: rbloom.Bloom(n, FPR))})
    except ImportError:
        pass
    rows.append({"lib": "set", "op": "update(list of str)", "ns": ns_per_key(lambda s: s.update(keys["str"]), n, repeats, set)})
    return rows


def cpp_reference(sizes: list[int], all_keys: dict[int, dict[str, Any]], repeats: int) -> list[dict[str, Any]]:
    out_dir = ROOT / "build" / "bench-python"
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / "cpp_reference"
    src = pathlib.Path(__file__).with_name("cpp_reference.cpp")
    # Rebuilt when the program or any library header is newer than it (a stale binary would time old code).
    newest = max([src.stat().st_mtime] + [h.stat().st_mtime for h in (ROOT / "include").rglob("*.hpp")])
    if not exe.exists() or exe.stat().st_mtime < newest:
        subprocess.run([os.environ.get("CXX", "g++"), "-std=c++20", "-O3", "-march=x86-64-v2", "-DNDEBUG",
                        f"-I{ROOT / 'include'}", str(src), "-o", str(exe), "-pthread"], check=True)
    for n in sizes:
        k = all_keys[n]
        k["all_ints"].astype("<i8").tofile(out_dir / f"ints-{n}.bin")
        s = k["all_arrow"]
        offsets = np.frombuffer(s.buffers()[1], dtype="<i8")[s.offset : s.offset + len(s) + 1]
        (offsets - offsets[0]).tofile(out_dir / f"strs-{n}.off")
        data = s.buffers()[2]
        (out_dir / f"strs-{n}.dat").write_bytes(memoryview(data)[offsets[0] : offsets[-1]])
    run = subprocess.run([str(exe), str(out_dir), str(repeats), *map(str, sizes)], check=True, capture_output=True, text=True)
    rows = []
    for line in run.stdout.splitlines():
        r = json.loads(line)
        rows.append({"n": r["n"], "lib": f"C++ {r['kind']}", "op": r["op"], "ns": r["ns_per_key"]})
    for n in sizes:
        for suffix in ("bin", "off", "dat"):
            (out_dir / f"{'ints' if suffix == 'bin' else 'strs'}-{n}.{suffix}").unlink()
    return rows


def table(rows: list[dict[str, Any]], sizes: list[int]) -> str:
    keys: list[tuple[str, str]] = []
    for r in rows:
        if (r["lib"], r["op"]) not in keys:
            keys.append((r["lib"], r["op"]))
    head = "| library | operation | " + " | ".join(f"n = {n:.0e} ns/key" for n in sizes) + " | bits/key | FPR |"
    lines = [head, "|" + "---|" * (len(sizes) + 4)]
    for lib, op in keys:
        cells, bits, fpr = [], "", ""
        for n in sizes:
            match = [r for r in rows if r["lib"] == lib and r["op"] == op and r["n"] == n]
            cells.append(f"{match[0]['ns']:.1f}" if match else "—")
            if match and "bits_per_key" in match[0]:
                bits = f"{match[0]['bits_per_key']:.2f}"
            if match and "fpr" in match[0]:
                fpr = f"{100 * match[0]['fpr']:.3f} %"
        lines.append(f"| {lib} | {op} | " + " | ".join(cells) + f" | {bits} | {fpr} |")
    return "\n".join(lines)


def ratios(rows: list[dict[str, Any]], sizes: list[int]) -> str:
    def ns(n, lib, op):
        m = [r["ns"] for r in rows if r["n"] == n and r["lib"] == lib and r["op"] == op]
        return m[0] if m else float("nan")

    out = []
    for n in sizes:
        rb_add, rb_in = ns(n, "rbloom", "add (per key, str)"), ns(n, "rbloom", "in (per key, absent)")
        rb_hit = ns(n, "rbloom", "in (per key, present)")
        std = "bloomkit StandardBloom"
        out.append(f"n = {n:.0e}, StandardBloom: per-key add {rb_add / ns(n, std, 'add (per key, str)'):.2f}x rbloom, "
                   f"per-key in (absent) {rb_in / ns(n, std, 'in (per key, absent)'):.2f}x, "
                   f"in (present) {rb_hit / ns(n, std, 'in (per key, present)'):.2f}x")
        for cls in ("SplitBlockBloom", "BlockedBloom"):
            lib = f"bloomkit {cls}"
            out.append(
                f"n = {n:.0e}, {cls}: per-key add {rb_add / ns(n, lib, 'add (per key, str)'):.2f}x rbloom, "
                f"per-key in (absent) {rb_in / ns(n, lib, 'in (per key, absent)'):.2f}x; "
                f"add_many numpy {rb_add / ns(n, lib, 'add_many numpy int64'):.1f}x rbloom per-key add, "
                f"may_contain_many numpy {rb_in / ns(n, lib, 'may_contain_many numpy int64 (absent)'):.1f}x rbloom per-key in; "
                f"arrow add {rb_add / ns(n, lib, 'add_many arrow string'):.1f}x, "
                f"arrow query {rb_in / ns(n, lib, 'may_contain_many arrow string (absent)'):.1f}x; "
                f"Python / C++: add numpy {ns(n, lib, 'add_many numpy int64') / ns(n, f'C++ {cls}', 'add_many numpy int64'):.2f}, "
                f"query numpy {ns(n, lib, 'may_contain_many numpy int64 (absent)') / ns(n, f'C++ {cls}', 'may_contain_many numpy int64 (absent)'):.2f}, "
                f"add arrow {ns(n, lib, 'add_many arrow string') / ns(n, f'C++ {cls}', 'add_many arrow string'):.2f}, "
                f"query arrow {ns(n, lib, 'may_contain_many arrow string (absent)') / ns(n, f'C++ {cls}', 'may_contain_many arrow string (absent)'):.2f}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000,10000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--slow-max", type=int, default=1_000_000, help="largest n for the pure-Python libraries")
    parser.add_argument("--slow-sample", type=int, default=0,
                        help="past --slow-max, time the pure-Python libraries on this many keys of a filter sized "
                             "for n (add and present lookups only; see run_sampled)")
    parser.add_argument("--json", help="also write every figure to this file")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    # The machine may be shared: its load average at the start and the end go with the figures.
    load_start = os.getloadavg()
    rows: list[dict[str, Any]] = []
    all_keys = {}
    for n in sizes:
        keys = make_keys(n)
        all_keys[n] = keys
        for name, lib in per_key_libraries(args.slow_max, n, args.slow_sample).items():
            for r in run_per_key(name, lib, keys, n, args.repeats):
                rows.append({"n": n, **r})
            print(f"  n={n}: {name} done", file=sys.stderr)
        for r in run_batches(keys, n, args.repeats):
            rows.append({"n": n, **r})
    rows += cpp_reference(sizes, all_keys, args.repeats)
    load_end = os.getloadavg()
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"numpy {np.__version__}, pyarrow {pa.__version__}")
    import importlib.metadata as md

    versions = []
    for dist in ("bloomkit", "rbloom", "pybloom-live", "pyprobables"):
        try:
            versions.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            versions.append(f"{dist} not installed")
    print("Libraries: " + ", ".join(versions))
    print("Load average (1, 5, 15 min): at the start " + ", ".join(f"{x:.2f}" for x in load_start) +
          "; at the end " + ", ".join(f"{x:.2f}" for x in load_end))
    skipped = [n for n in sizes if n > args.slow_max]
    if skipped and args.slow_sample > 0:
        print(f"pybloom-live and pyprobables at n = {', '.join(f'{n:.0e}' for n in skipped)} (past --slow-max "
              f"{args.slow_max}): a filter sized for n, the first {args.slow_sample} keys added and looked up "
              f"(--slow-sample; no absent lookups or FPR: those depend on the fill)")
    elif skipped:
        print(f"pybloom-live and pyprobables were not run at n = {', '.join(f'{n:.0e}' for n in skipped)} "
              f"(--slow-max {args.slow_max})")
    print(table(rows, sizes))
    print()
    print(ratios(rows, sizes))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
