"""Per-key adds that are parked (fast_calls.hpp, "deferred per-key adds") are seen by every later use.

SplitBlockBloom, BlockedBloom and StandardBloom park the hash of f.add(key) for a few adds while its
line is prefetched, and write it before anything else looks at the filter. Each test below adds
fewer keys than the parking capacity (8) or a number that leaves some parked, then uses the filter
one way and checks that the use saw every add: the answer equals that of a filter built with
add_many from the same keys (which never parks). A reader that forgot to write the parked adds
would miss up to 7 of them."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest

import bloomkit

KINDS = [bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom]
# Below, at and past the parking capacity (8), and a multiple of it plus a rest.
COUNTS = [1, 5, 8, 9, 8 * 37 + 3]


def made(cls, n_keys: int, start: int = 0):
    """A filter given n_keys per-key adds, and the same keys added as a batch (the reference)."""
    keys = [f"key-{i}" for i in range(start, start + n_keys)]
    f, ref = cls(1000, 0.01), cls(1000, 0.01)
    for k in keys:
        f.add(k)
    ref.add_many(keys)
    return f, ref, keys


def words(f) -> bytes:
    return bytes(memoryview(f))


USES = {
    "to_bytes": lambda f: f.to_bytes(),
    "memoryview": words,
    "inserted": lambda f: f.inserted,
    "fill_ratio": lambda f: f.fill_ratio,
    "estimated_cardinality": lambda f: f.estimated_cardinality,
    "estimated_fpr": lambda f: f.estimated_fpr,
    "saturated": lambda f: f.saturated,
    "repr": repr,
    "pickle5": lambda f: pickle.loads(pickle.dumps(f, protocol=5)).to_bytes(),
    "pickle2": lambda f: pickle.loads(pickle.dumps(f, protocol=2)).to_bytes(),
    "copy": lambda f: f.copy().to_bytes(),
    "copy.copy": lambda f: copy.copy(f).to_bytes(),
    "copy.deepcopy": lambda f: copy.deepcopy(f).to_bytes(),
    "hash_in": lambda f: [f.may_contain_hash(h) for h in bloomkit.hash_keys([f"key-{i}" for i in range(12)], f)],
    "many": lambda f: f.may_contain_many([f"key-{i}" for i in range(400)]).tolist(),
    "hashes": lambda f: f.may_contain_hashes(bloomkit.hash_keys([f"key-{i}" for i in range(400)], f)).tolist(),
}


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("n_keys", COUNTS)
@pytest.mark.parametrize("use", sorted(USES))
def test_every_reader_sees_parked_adds(cls, n_keys: int, use: str) -> None:
    f, ref, _ = made(cls, n_keys)
    assert USES[use](f) == USES[use](ref)
    assert f.to_bytes() == ref.to_bytes()


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("n_keys", COUNTS)
def test_each_key_is_found_right_after_its_add(cls, n_keys: int) -> None:
    f = cls(1000, 0.01)
    for i in range(n_keys):
        f.add(i)
        assert i in f and f.may_contain(i)


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.__name__)
def test_changes_after_parked_adds(cls, tmp_path) -> None:
    """Calls that change or combine the filter first write the parked adds."""
    # add_if_absent: the parked key is present, so it reports False and changes nothing.
    f, ref, keys = made(cls, 5)
    assert f.add_if_absent(keys[-1]) is False
    assert f.to_bytes() == ref.to_bytes()
    # add_many / add_hash after parked adds: both sets of keys end up in.
    f, _, keys = made(cls, 5)
    f.add_many(["batch-a", "batch-b"])
    f.add_hash(12345)
    ref = cls(1000, 0.01)
    ref.add_many(keys + ["batch-a", "batch-b"])
    ref.add_hash(12345)
    assert f.to_bytes() == ref.to_bytes()
    # clear: the parked adds must not come back afterwards.
    f, _, _ = made(cls, 5)
    f.clear()
    assert f.to_bytes() == cls(1000, 0.01, key_type=f.key_type).to_bytes()  # clear keeps the key type
    f.add("after")
    assert "after" in f and f.inserted == 1
    # merge and |: as self and as other, each with parked adds.
    a, ref_a, _ = made(cls, 5)
    b, ref_b, _ = made(cls, 3, start=100)
    assert (a | b).to_bytes() == (ref_a | ref_b).to_bytes()
    a.merge(b)
    ref_a.merge(ref_b)
    assert a.to_bytes() == ref_a.to_bytes()
    a, ref_a, _ = made(cls, 6)
    b, ref_b, _ = made(cls, 2, start=100)
    b |= a
    ref_b |= ref_a
    assert b.to_bytes() == ref_b.to_bytes()
    # save, then load.
    f, ref, _ = made(cls, 7)
    f.save(tmp_path / "f.bk")
    assert bloomkit.load(tmp_path / "f.bk").to_bytes() == ref.to_bytes()


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.__name__)
def test_exported_buffer_shows_each_add_at_once(cls) -> None:
    """While a memoryview of the words is alive, adds are not parked: the view shows each one."""
    f = cls(1000, 0.01)
    view = memoryview(f)
    ref = cls(1000, 0.01)
    for i in range(20):
        f.add(i)
        ref.add_many([i])
        assert bytes(view) == words(ref)
    view.release()


@pytest.mark.parametrize("cls", KINDS, ids=lambda c: c.__name__)
def test_another_thread_sees_adds_made_before_it_was_told(cls) -> None:
    """Keys added per key by one thread are all found by a batch call in another thread that starts
    after them (the batch's GIL-free section writes the parked adds first): no false negatives."""
    rng = np.random.default_rng(7)
    f = cls(200_000, 0.01)
    rounds = [rng.integers(0, 2**62, 5 + 8 * r, dtype=np.int64) for r in range(40)]
    added, done = threading.Event(), threading.Event()
    misses: list[int] = []
    current: list[np.ndarray] = []

    def checker() -> None:
        while True:
            added.wait()
            added.clear()
            if not current:
                return
            misses.append(int((~f.may_contain_many(current[0])).sum()))
            done.set()

    t = threading.Thread(target=checker)
    t.start()
    for keys in rounds:
        for k in keys.tolist():
            f.add(k)
        current[:] = [keys]
        added.set()
        done.wait()
        done.clear()
    current.clear()
    added.set()
    t.join()
    assert misses == [0] * len(rounds)
