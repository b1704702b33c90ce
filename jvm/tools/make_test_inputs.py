#!/usr/bin/env python3
"""Test inputs for the JVM library's JUnit tests (jvm/src/test), made fresh every run.

    make_test_inputs.py CLI DIR

DIR/hashes.tsv: libxxhash's XXH64 and XXH3-64 (through ctypes, the C library bloomkit's C++
code calls) of a fixed byte pattern at every length 0..300 and several seeds:
ALGO<TAB>SEED<TAB>LENGTH<TAB>HASH, numbers in decimal (unsigned).

DIR/cases.tsv: split-block filters written by the C++ CLI (`bloomkit build --kind
split-block`), one per line: NAME<TAB>FORMAT<TAB>CAPACITY<TAB>FPR with DIR/NAME.keys (the
keys, one per line) and DIR/NAME.bkf (the CLI's file). FPR is printed with repr, so the
test reads back the exact double the CLI parsed.
"""

import ctypes
import ctypes.util
import os
import random
import subprocess
import sys


def libxxhash():
    for name in ("libxxhash.so.0", ctypes.util.find_library("xxhash")):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    sys.exit("make_test_inputs.py: libxxhash not found (apt-get install libxxhash-dev)")


def write_hashes(out):
    lib = libxxhash()
    lib.XXH64.restype = ctypes.c_uint64
    lib.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
    lib.XXH3_64bits_withSeed.restype = ctypes.c_uint64
    lib.XXH3_64bits_withSeed.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
    data = bytes((i * 131 + 7) & 0xFF for i in range(300))
    seeds = [0, 1, 7, 0x9E3779B97F4A7C15, 2**64 - 1]
    with open(out, "w") as f:
        for seed in seeds:
            for n in range(301):
                f.write(f"xxh64\t{seed}\t{n}\t{lib.XXH64(data, n, seed)}\n")
                f.write(f"xxh3\t{seed}\t{n}\t{lib.XXH3_64bits_withSeed(data, n, seed)}\n")


def keys_for(fmt, count, rng):
    if fmt == "i64":
        pool = [0, 1, -1, 2**63 - 1, -(2**63)] + [rng.randrange(-(2**63), 2**63) for _ in range(count)]
        return [str(v) for v in pool[:count]]
    if fmt == "u64":
        return [str(rng.randrange(0, 2**64)) for _ in range(count)]
    if fmt == "hex":
        return [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).hex() for _ in range(count)]
    words = ["alice", "bob", "carol", "Grüße", "日本語", "emoji 🎉", "tab\tinside", "x" * 200]
    return [rng.choice(words) + "-" + str(rng.randrange(10**9)) for _ in range(count)]


def main():
    cli, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    write_hashes(os.path.join(out, "hashes.tsv"))
    rng = random.Random(20261204)
    cases = []
    # Sizing grid (block counts chosen by the CLI's search) with a few keys each.
    for capacity in [1, 2, 3, 10, 100, 999, 12345, 100000, 1000000]:
        for fpr in [0.2, 0.1, 0.01, 0.0123, 0.001, 1e-4]:
            cases.append((f"size_{capacity}_{fpr}", "i64", capacity, fpr, min(capacity, 50)))
    # Fuller filters of every key format.
    for fmt in ["i64", "u64", "text", "hex"]:
        cases.append((f"full_{fmt}", fmt, 20000, 0.01, 20000))
        cases.append((f"over_{fmt}", fmt, 2500, 0.05, 5000))  # twice its capacity: most bits set
    with open(os.path.join(out, "cases.tsv"), "w") as index:
        for name, fmt, capacity, fpr, count in cases:
            keys = keys_for(fmt, count, rng)
            kpath = os.path.join(out, name + ".keys")
            with open(kpath, "w", encoding="utf-8", newline="\n") as f:
                f.write("\n".join(keys) + "\n")
            subprocess.run([cli, "build", kpath, "-o", os.path.join(out, name + ".bkf"), "--kind", "split-block",
                            "--format", fmt, "--capacity", str(capacity), "--fpr", repr(fpr), "--quiet"], check=True)
            index.write(f"{name}\t{fmt}\t{capacity}\t{fpr!r}\n")


if __name__ == "__main__":
    main()
