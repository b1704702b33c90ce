#!/usr/bin/env python3
"""ns per key of add_many and may_contain_many over pandas columns, against the same keys as an
Arrow array (pa.array(s)) and as a NumPy array, in one process.

    build/venv/bin/python python/bench/pandas_inputs.py [--n 1000000] [--repeats 5]

Every figure is the median over --repeats of the calling thread's CPU time (time.thread_time_ns)
per key, for a SplitBlockBloom sized for n keys at 1 % FPR, a new filter per add_many. Columns:
object str (dtype object), pandas 3's default string dtype ("str"), "string[python]",
"string[pyarrow]", nullable Int64 (with 1 % missing), numpy int64, float64 with NaN, datetime64[ns].
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd
import pyarrow as pa

import bloomkit


def timed(fn, repeats: int, n: int) -> float:
    runs = []
    for _ in range(repeats):
        t = time.thread_time_ns()
        fn()
        runs.append((time.thread_time_ns() - t) / n)
    return statistics.median(runs)


def columns(n: int) -> dict[str, pd.Series]:
    rng = np.random.default_rng(7)
    ints = rng.integers(0, 2**40, size=n)
    words = [f"user-{i}" for i in ints]
    missing = rng.random(n) < 0.01
    nullable = pd.array(ints, dtype="Int64")
    nullable[missing] = pd.NA
    floats = ints.astype(np.float64)
    floats[missing] = np.nan
    return {
        "object str": pd.Series(np.array(words, dtype=object), dtype=object),
        "str (pandas 3 default)": pd.Series(words),
        "string[python]": pd.Series(words, dtype="string[python]"),
        "string[pyarrow]": pd.Series(words, dtype="string[pyarrow]"),
        "Int64 (1% NA)": pd.Series(nullable),
        "int64 numpy": pd.Series(ints),
        "float64 (1% NaN)": pd.Series(floats),
        "datetime64[ns]": pd.Series(pd.to_datetime(ints % 2**31, unit="s")),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    print(f"bloomkit {bloomkit.__version__}, pandas {pd.__version__}, pyarrow {pa.__version__}, n = {n}")
    print(f"{'column':26} {'add_many':>10} {'may_contain_many':>17} {'pa.array(s) itself':>19}")
    for name, s in columns(n).items():
        def add():
            f = bloomkit.SplitBlockBloom(n, 0.01)
            f.add_many(s)

        f = bloomkit.SplitBlockBloom(n, 0.01)
        try:
            f.add_many(s)
            add_ns = timed(add, args.repeats, n)
            query_ns = timed(lambda: f.may_contain_many(s), args.repeats, n)
        except Exception as e:  # the column is not a batch input in this build
            print(f"{name:26} {'failed':>10}: {type(e).__name__}: {str(e)[:60]}")
            continue
        arrow_ns = timed(lambda: pa.array(s), args.repeats, n)
        print(f"{name:26} {add_ns:10.1f} {query_ns:17.1f} {arrow_ns:19.1f}")


if __name__ == "__main__":
    main()
