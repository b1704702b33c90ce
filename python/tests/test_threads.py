"""Batch calls release the GIL and are safe from many threads at once on one filter."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

import bloomkit
from conftest import INCREMENTAL

THREADS = 4


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_concurrent_writers_and_readers(cls):
    n = 400_000
    keys = np.random.default_rng(11).integers(0, 2**63, n, dtype=np.uint64)
    parts = np.array_split(keys, THREADS)
    f = cls(n, 0.01)
    seen_false_negative = []
    errors = []
    base = keys[:1000]
    f.add_many(base)

    def writer(part):
        try:
            for chunk in np.array_split(part, 10):
                f.add_many(chunk)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    def reader():
        try:
            for _ in range(20):
                if not f.may_contain_many(base).all():
                    seen_false_negative.append(True)
                f.may_contain_hashes(bloomkit.hash_keys(keys[:5000], f))
                _ = f.fill_ratio, f.estimated_fpr
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(p,)) for p in parts]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not seen_false_negative
    assert f.may_contain_many(keys).all()
    assert f.inserted == n + 1000
    if cls is not bloomkit.ScalableBloom:  # an OR of bits (or a sum of counters) does not depend on order
        g = cls(n, 0.01)
        g.add_many(base)
        g.add_many(keys)
        assert g.to_bytes() == f.to_bytes()


def test_merges_in_both_directions_do_not_deadlock():
    a, b = bloomkit.BlockedBloom(100_000), bloomkit.BlockedBloom(100_000)
    a.add_many(np.arange(1000))
    b.add_many(np.arange(1000, 2000))

    def run(x, y):
        for _ in range(200):
            x.merge(y)

    t1 = threading.Thread(target=run, args=(a, b))
    t2 = threading.Thread(target=run, args=(b, a))
    t1.start(), t2.start()
    t1.join(timeout=60), t2.join(timeout=60)
    assert not t1.is_alive() and not t2.is_alive()
    assert a.may_contain_many(np.arange(2000)).all()
    a.merge(a)  # self-merge takes the lock once


def test_batch_calls_release_the_gil():
    f = bloomkit.SplitBlockBloom(1_000_000)
    big = np.arange(20_000_000, dtype=np.uint64)
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        f.may_contain_many(big)
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.2)  # a thread holding the GIL keeps it for 0.2 s, longer than spins need
    try:
        t = threading.Thread(target=work)
        t.start()
        started.wait()
        spins = 0
        while not done.is_set():
            spins += 1
        t.join()
    finally:
        sys.setswitchinterval(old)
    # With the GIL held through the call this thread could not run until it returned.
    assert spins > 1000


@pytest.mark.parametrize("call", ["contains", "inserted", "add"])
def test_a_call_waiting_for_the_filters_lock_lets_other_threads_run(call):
    # One thread's batch holds the filter's lock without the GIL; another thread's per-key call
    # on the same filter must wait for that lock without the GIL too, or every Python thread
    # stalls for the rest of the batch. This thread counts while both run; the longest pause
    # between its steps must stay far below the batch's length.
    f = bloomkit.StandardBloom(4_000_000, 1e-9)
    rng = np.random.default_rng(3)
    n = 1_000_000
    while True:  # a batch of at least 0.6 s on this machine
        hashes = rng.integers(0, 2**64, n, dtype=np.uint64)
        t0 = time.perf_counter()
        f.add_hashes(hashes)
        took = time.perf_counter() - t0
        if took >= 0.6 or n >= 32_000_000:
            break
        n *= 2
    assert took >= 0.3, f"the batch took only {took:.3f} s; the check needs a longer one"
    one = {"contains": lambda: 42 in f, "inserted": lambda: f.inserted, "add": lambda: f.add(1)}[call]
    started, done = threading.Event(), threading.Event()

    def batch():
        started.set()
        f.add_hashes(hashes)
        done.set()

    def waiter():
        started.wait()
        time.sleep(0.05)  # the batch has the lock by now
        one()

    threads = [threading.Thread(target=batch), threading.Thread(target=waiter)]
    steps, pause, last = 0, 0.0, time.perf_counter()
    for t in threads:
        t.start()
    while not done.is_set():
        now = time.perf_counter()
        pause, last, steps = max(pause, now - last), now, steps + 1
    for t in threads:
        t.join()
    assert steps > 1000
    # Waiting with the GIL stops this thread for nearly the whole batch; half of it leaves room
    # for a loaded machine descheduling it now and then.
    assert pause < took / 2, f"this thread stopped for {pause:.3f} s of a {took:.3f} s batch"
