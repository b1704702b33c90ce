# Checked by mypy --strict in test_typing.py: the stubs must accept ordinary use.
from __future__ import annotations

import numpy as np
import numpy.typing as npt

import bloomkit
from bloomkit import parquet, sizing


def build(keys: list[str]) -> bloomkit.SplitBlockBloom:
    f = bloomkit.SplitBlockBloom(len(keys), 0.01)
    f.add("x")
    f.add_many(keys)
    f.add_many(np.arange(10))
    f.add_hashes(bloomkit.hash_keys(keys, f))
    g = f | f.copy()
    g &= f
    g.merge(f).intersect(f)
    return g


def query(f: bloomkit.SplitBlockBloom) -> npt.NDArray[np.bool_]:
    ok: bool = "x" in f and f.may_contain(b"y")
    fill: float = f.fill_ratio + f.estimated_fpr + f.target_fpr
    n: int = f.inserted + f.size_in_bytes + f.num_blocks
    spec: tuple[str, int] = f.hash_spec
    del ok, fill, n, spec
    return f.may_contain_many(["a", "b"])


def files(path: str) -> None:
    f = build(["a"])
    f.save(path)
    data: bytes = f.to_bytes()
    g = bloomkit.from_bytes(data)
    h = bloomkit.SplitBlockBloom.from_bytes(data)
    with bloomkit.open(path) as m:
        m.may_contain_many(np.arange(3))
    print(g.kind, h.num_blocks, bloomkit.kind("split-block"), bloomkit.inspect(path)["kind"])


def others() -> None:
    c = bloomkit.CountingBloom(10)
    c.add(1)
    removed: bool = c.remove(1)
    s: bloomkit.StandardBloom = c.to_standard()
    fuse = bloomkit.BinaryFuse(["a", "b"], bits=16)
    r = bloomkit.Ribbon.from_hashes(np.arange(5, dtype=np.uint64), fpr=0.01)
    sc = bloomkit.ScalableBloom(100, growth=4.0)
    print(removed, s.bit_count, fuse.bits_per_key, r.result_bits, sc.stages)
    print(sizing.bits_for(1000, 0.01), parquet.skippable_row_groups("x.parquet", "c", [1, 2]))
    try:
        c.merge(c)
    except bloomkit.MismatchError as e:
        print(e.code)


def new_kinds() -> None:
    c = bloomkit.CuckooFilter(100, 0.01, widths="paper")
    c.add("a")
    removed: bool = c.remove("a")
    new: bool = c.insert_if_absent("b")
    bits: npt.NDArray[np.bool_] = c.insert_if_absent_many(["c", "d"])
    load: float = c.load_factor + c.full_load_fpr
    w = bloomkit.AgePartitionedBloom(1000)
    w.add_many(range(10))
    t = bloomkit.AgePartitionedBloom.time_window(3600, 1000)
    t.add_at("x", 5)
    t.add_many_at(["y", "z"], np.array([6, 7], dtype=np.uint64))
    t.add_many_at(["y", "z"], 8)
    seen: bool = t.may_contain_at("x", 100) and bool(t.may_contain_many_at(["y"], 100).all())
    window: int = w.guaranteed_window + t.guaranteed_time + t.now
    print(removed, new, bits, load, seen, window, bloomkit.SplitBlockBloom(10).insert_if_absent("k"))
    try:
        c.add("b")
    except bloomkit.FullError as e:
        print(e.code)
