"""AgePartitionedBloom: the window guarantees of age_partitioned_bloom.hpp (never forgotten
before the window ends, forgotten by (k + l) g keys or (k + l) tau time units), the FPR bound at
every moment of a stream 10x the window (statistical, fixed seeds, bounds from the sample size),
the time window's clock and its errors (nothing changes), files that continue the stream, and
byte-identical files with the CLI (count and time windows)."""

from __future__ import annotations

import pickle
import subprocess

import numpy as np
import pytest

import bloomkit
from conftest import ROOT
from test_fpr import absent_keys, binomial_bound, present_keys

W = bloomkit.AgePartitionedBloom


def chunks(rng, n, most):
    """Consecutive (start, stop) ranges covering [0, n), of random sizes 1..most, so checks fall
    at every phase of a generation."""
    start = 0
    while start < n:
        stop = min(n, start + int(rng.integers(1, most + 1)))
        yield start, stop
        start = stop


@pytest.mark.parametrize("window,p", [(1, 0.1), (100, 0.01), (1000, 0.001), (5000, 0.01)])
def test_count_window_shape(window, p):
    f = W(window, p)
    g, l, k = f.generation_keys, f.extra_slices, f.num_hashes
    assert f.slices == k + l and f.capacity == window and f.params["window"] == window
    assert f.guaranteed_window == l * g + 1 >= window
    assert f.expired_after == (l + 1) * g and f.forgotten_after == (k + l) * g
    assert f.design_fpr <= p and not f.is_time_window and f.now == 0
    assert f.kind == "window" and bloomkit.kind("window") is W and bloomkit.kind("age_partitioned_bloom") is W


@pytest.mark.parametrize("window,p", [(1, 0.1), (37, 0.05), (500, 0.01)])
def test_the_last_keys_are_always_reported(window, p, rng):
    # "Never forgotten before": after every insert (checked at random phases), each of the last
    # guaranteed_window keys answers maybe. A stream of 10x the window and more.
    f = W(window, p)
    n = 10 * window + f.forgotten_after
    keys = np.arange(n, dtype=np.uint64) * 2
    for start, stop in chunks(rng, n, max(1, f.generation_keys)):
        f.add_many(keys[start:stop])
        recent = keys[max(0, stop - f.guaranteed_window):stop]
        assert f.may_contain_many(recent).all(), (start, stop)
    assert f.inserted == n


@pytest.mark.parametrize("window,p,before", [(100, 0.01, 0), (100, 0.01, 17), (1000, 0.001, 3)])
def test_forgotten_after_k_plus_l_generations(window, p, before):
    # "Forgotten by": once forgotten_after keys followed x, nothing of x is left: the filter is
    # byte for byte the filter that had another key in x's place. `before` keys precede x, so x
    # sits at another phase of its generation.
    a, b = W(window, p), W(window, p)
    lead = [f"lead-{i}" for i in range(before)]
    a.add_many(lead)
    b.add_many(lead)
    a.add("x")
    b.add("y")
    follow = [f"f-{i}" for i in range(a.forgotten_after)]
    a.add_many(follow[:a.guaranteed_window - 1])
    b.add_many(follow[:a.guaranteed_window - 1])
    assert "x" in a and a.to_bytes() != b.to_bytes()  # still reported: the window has not ended
    a.add_many(follow[a.guaranteed_window - 1:])
    b.add_many(follow[a.guaranteed_window - 1:])
    assert a.to_bytes() == b.to_bytes()


def test_fpr_bound_holds_at_every_moment_of_a_long_stream():
    # 10x the window, measured every half window: the FPR never exceeds design_fpr (beyond the
    # sampling bound of 5 sigma), tracks estimated_fpr, and keys older than forgotten_after
    # answer like absent keys.
    window, p, queries = 2000, 0.01, 200_000
    f = W(window, p)
    stream = present_keys(10 * window, 31)
    for i, stop in enumerate(range(window // 2, len(stream) + 1, window // 2)):
        f.add_many(stream[stop - window // 2:stop])
        measured = f.may_contain_many(absent_keys(queries, 1000 + i)).mean()
        assert measured <= f.design_fpr + binomial_bound(f.design_fpr, queries), stop
        assert abs(measured - f.estimated_fpr) <= binomial_bound(f.estimated_fpr, queries) + 0.02 * f.estimated_fpr
        assert f.may_contain_many(stream[max(0, stop - window):stop]).all()
    old = stream[:len(stream) - f.forgotten_after]
    assert len(old) > 0
    assert f.may_contain_many(old).mean() <= f.design_fpr + binomial_bound(f.design_fpr, len(old))


def test_time_window_guarantee_and_forgetting():
    f = W.time_window(1000, 500, 0.01)
    tau, l, k = f.generation_time, f.extra_slices, f.num_hashes
    assert f.is_time_window and f.capacity == 1000 and tau * l >= 1000
    assert (f.guaranteed_time, f.expired_time, f.forgotten_time) == (l * tau, (l + 1) * tau, (k + l) * tau)
    t0 = 123
    f.add_at("x", t0)
    assert f.now == t0
    # Other keys at a quarter of the planned rate (no generation fills up), up to the end of x's
    # guaranteed time: x is still reported then.
    times = np.arange(t0, t0 + f.guaranteed_time + 1, 4, dtype=np.uint64)
    f.add_many_at([f"bg-{i}" for i in range(len(times))], times)
    assert f.overflowed_generations == 0 and f.now <= t0 + f.guaranteed_time
    assert "x" in f
    g = W.time_window(1000, 500, 0.01)
    g.add_at("x", t0)
    for t in range(t0, t0 + f.guaranteed_time + 1, 7):
        assert g.may_contain_at("x", t), t
    assert g.may_contain_at("x", t0 + f.guaranteed_time)
    assert not g.may_contain_at("x", t0 + f.forgotten_time)  # every slice would have expired
    # What add and `in` see is the latest time.
    g.advance_to(t0 + f.forgotten_time)
    assert "x" not in g and g.now == t0 + f.forgotten_time
    h = W.time_window(1000, 500, 0.01)
    h.add_at("other", t0)
    h.advance_to(t0 + f.forgotten_time)
    assert g.to_bytes() == h.to_bytes()  # nothing of x is left


def test_time_window_at_calls_agree_with_each_other():
    f = W.time_window(100, 1000, 0.01)
    keys = [f"k{i}" for i in range(2000)]
    times = np.repeat(np.arange(200, dtype=np.uint64), 10)
    f.add_many_at(keys, times)
    g = W.time_window(100, 1000, 0.01)
    for key, t in zip(keys, times):
        g.add_at(key, int(t))
    assert f.to_bytes() == g.to_bytes()
    for at in (199, 250, 10**6):
        batch = f.may_contain_many_at(keys, at)
        assert batch.tolist() == [f.may_contain_at(k, at) for k in keys]
    assert f.may_contain_many_at(keys[-500:], 199).all()
    assert not f.may_contain_many_at(keys, 10**6).any()
    assert f.may_contain_many_at(keys, 0).tolist() == f.may_contain_many(keys).tolist()  # before now: as of now


def test_a_generation_that_fills_up_ends_early_and_is_counted():
    f = W.time_window(1000, 100, 0.01)
    n = 5 * f.generation_keys
    f.add_many_at([f"k{i}" for i in range(n)], 7)  # all at one time: more than g within tau
    assert f.overflowed_generations >= 4
    keys = [f"k{i}" for i in range(n)]
    assert f.may_contain_many(keys[-f.guaranteed_window:]).all()  # the count guarantee still holds


def test_time_errors_change_nothing():
    f = W.time_window(100, 100, 0.01)
    f.add_many_at(["a", "b"], [5, 9])
    before = f.to_bytes()
    for bad, error in [
        (lambda: f.add_at("c", 8), bloomkit.InvalidArgumentError),
        (lambda: f.add_many_at(["c", "d"], [10, 9]), bloomkit.InvalidArgumentError),
        (lambda: f.add_many_at(["c", "d"], [8, 10]), bloomkit.InvalidArgumentError),
        (lambda: f.add_many_at(["c", "d"], [10]), bloomkit.InvalidArgumentError),
        (lambda: f.add_many_at(["c"], [-1]), bloomkit.InvalidArgumentError),
        (lambda: f.add_many_at(["c"], np.array([10.5])), TypeError),
        (lambda: f.add_many_at(["c", object()], 10), TypeError),
        (lambda: f.add_at("c", -1), TypeError),
        (lambda: f.advance_to(3), bloomkit.InvalidArgumentError),
    ]:
        with pytest.raises(error):
            bad()
        assert f.to_bytes() == before
    c = W(100, 0.01)
    c.add("a")
    before = c.to_bytes()
    for bad in (lambda: c.add_at("b", 1), lambda: c.advance_to(5), lambda: c.may_contain_at("a", 1),
                lambda: c.add_many_at(["b"], 1), lambda: c.may_contain_many_at(["a"], 1)):
        with pytest.raises(bloomkit.InvalidArgumentError, match="time window"):
            bad()
    assert c.to_bytes() == before
    for bad in (lambda: W(0), lambda: W(10, 1.0), lambda: W.time_window(0, 10), lambda: W.time_window(10, 0)):
        with pytest.raises(bloomkit.InvalidArgumentError):
            bad()


def test_sizes_and_times_near_two_to_the_64_are_exact_or_refused():
    # Each computation of the plan is exact or the plan is refused with the reason: never a
    # window that wrapped around 2^64 into a tiny one, a time window read as a count window, or
    # a huge max_keys read as a zero window.
    top = 2**64 - 1
    for window in (top, top - 1, 2**63, 32 * 2**56 + 2):
        with pytest.raises(bloomkit.InvalidArgumentError, match="window"):
            W(window, 0.01)
    with pytest.raises(bloomkit.InvalidArgumentError, match="window_time .* too long"):
        W.time_window(top, 100)
    for keys in (top, top - 1, 2**63):
        with pytest.raises(bloomkit.InvalidArgumentError, match="max_keys"):
            W.time_window(100, keys)
    # The longest windows that plan are exact: l tau >= T, tau <= 2^56.
    f = W.time_window(2**56, 100, 0.01)
    assert f.is_time_window and f.guaranteed_time >= 2**56 and f.generation_time <= 2**56


def test_merge_is_refused_with_the_reason():
    a, b = W(100), W(100)
    a.add("x")
    before = a.to_bytes()
    with pytest.raises(bloomkit.UnsupportedError, match="do not merge"):
        a.merge(b)
    with pytest.raises(bloomkit.UnsupportedError):
        a | b
    assert a.to_bytes() == before


@pytest.mark.parametrize("make", [lambda: W(300, 0.01), lambda: W.time_window(60, 300, 0.01)])
def test_saved_filters_continue_the_stream(make, tmp_path):
    a = make()
    keys = [f"k{i}" for i in range(2000)]
    timed = a.is_time_window
    add = (lambda f, ks, t0: f.add_many_at(ks, np.arange(t0, t0 + len(ks), dtype=np.uint64))) if timed else \
        (lambda f, ks, t0: f.add_many(ks))
    add(a, keys[:1234], 0)
    path = tmp_path / "w.bkf"
    a.save(path)
    for b in (bloomkit.load(path), pickle.loads(pickle.dumps(a, protocol=5)), a.copy()):
        assert type(b) is W and b.to_bytes() == a.to_bytes()
        assert b.generation_count == a.generation_count and b.now == a.now
        add(b, keys[1234:], 1234)
        c = make()
        add(c, keys[:1234], 0)
        add(c, keys[1234:], 1234)
        assert b.to_bytes() == c.to_bytes()
    with bloomkit.open(path) as m:
        assert m.read_only and m.may_contain_many(keys[1234 - 50:1234]).all()
        with pytest.raises(bloomkit.ReadOnlyError):
            m.add("z")
        if timed:
            assert m.may_contain_at("k1233", 1233) and not m.may_contain_at("k1233", 10**9)
            with pytest.raises(bloomkit.ReadOnlyError):
                m.advance_to(10**9)
    assert bloomkit.inspect(path)["kind"] == "age_partitioned_bloom"


def test_repr_and_params():
    f = W(1000, 0.01)
    f.add_many(range(50))
    assert "AgePartitionedBloom" in repr(f) and "last 1000 keys" in repr(f)
    t = W.time_window(3600, 1000, 0.01)
    t.add_at("a", 42)
    assert "last 3600 time units (now 42" in repr(t)
    assert set(t.params) == {"k", "l", "slice_bits", "generation_keys", "generation_time", "window", "probes",
                             "time_unit", "capacity", "target_fpr", "hash", "hash_seed", "key_type"}
    assert t.params["generation_time"] == t.generation_time > 0
    assert t.params["k"] == t.num_hashes and t.params["l"] == t.extra_slices
    assert not f.saturated


def test_params_name_the_probe_scheme_and_the_clock_unit():
    # New filters derive each slice's bit independently; a time window records its unit only when told.
    assert W(1000, 0.01).params["probes"] == "independent"
    assert W(1000, 0.01).params["time_unit"] == ""
    assert W.time_window(3600, 1000, 0.01).params["time_unit"] == ""
    seconds = W.time_window(3600, 1000, 0.01, unit="seconds")
    assert seconds.params["time_unit"] == "seconds"
    assert bloomkit.AgePartitionedBloom.from_bytes(seconds.to_bytes()).params == seconds.params
    # A file written before format version 3 (double-hashed probes, no unit) says so.
    old = bloomkit.load(ROOT / "fuzz" / "corpus" / "file_format" / "age_partitioned_bloom.bkf")
    assert (old.params["probes"], old.params["time_unit"], old.params["k"]) == ("double_hashing", "", 8)
    assert old.params["k"] == old.num_hashes


def test_docstrings_state_the_bound_and_its_confidence():
    # design_fpr is a bound held with probability at least 1 - 10^-9 per generation, not a mean.
    for doc in (W.__doc__, W.design_fpr.__doc__, W.__init__.__doc__, W.time_window.__doc__):
        assert "1 - 10^-9" in doc, doc
    assert "sizing" not in W.design_fpr.__doc__


def test_a_bursty_clock_keeps_the_stated_guarantee():
    # Under bursts neither the count nor the time guarantee holds alone; the docstrings state the
    # one that does (keys and time share the l generations), and a bursty stream keeps it.
    for doc in (W.__doc__, W.overflowed_generations.__doc__, W.guaranteed_time.__doc__):
        assert "count guarantee above still holds" not in doc and "still hold" not in doc.replace(
            "FPR bound still holds", ""), doc
    assert "j // generation_keys + (t - t_key) // generation_time < extra_slices" in W.__doc__
    f = W.time_window(1000, 2000, 0.01)
    g, tau, l = f.generation_keys, f.generation_time, f.extra_slices
    rng = np.random.default_rng(7)
    n = 20_000
    gaps = np.where(rng.random(n) < 1 / (g + 1), rng.integers(0, 2 * tau + 1, n), 0)
    times = np.cumsum(gaps).astype(np.uint64)
    keys = np.arange(n, dtype=np.uint64)
    young_lost, done = 0, 0
    for stop in range(500, n + 1, 500):
        f.add_many_at(keys[done:stop], times[done:stop])
        done = stop
        present = f.may_contain_many(keys[:stop])
        j = stop - 1 - np.arange(stop)
        d = times[stop - 1] - times[:stop]
        kept = j // g + d // tau < l
        assert present[kept].all()
        young_lost += int((~present & (j < f.guaranteed_window) & (d < f.guaranteed_time)).sum())
    assert f.overflowed_generations > 0 and young_lost > 0


def cli_build(cli, tmp_path, lines, *args):
    src = tmp_path / "in.txt"
    src.write_bytes(b"".join(line + b"\n" for line in lines))
    out = tmp_path / "cli.bkf"
    subprocess.run([cli, "build", str(src), "-o", str(out), "-q", "--kind", "window", *args], check=True,
                   capture_output=True)
    return out


@pytest.mark.parametrize("window,p", [(1000, 0.01), (77, 0.001)])
def test_cli_count_window_gives_the_same_bytes(cli, tmp_path, rng, window, p):
    keys = [f"e-{int(v)}" for v in rng.integers(0, 5000, 12 * window)]
    out = cli_build(cli, tmp_path, [k.encode() for k in keys], "--window", str(window), "--fpr", repr(p))
    f = W(window, p)
    f.add_many(keys)
    assert f.to_bytes() == out.read_bytes()


def test_cli_time_window_gives_the_same_bytes_and_answers_at_a_time(cli, tmp_path, rng):
    n = 20_000
    times = np.sort(rng.integers(1_700_000_000, 1_700_000_000 + 7200, n)).astype(np.uint64)
    keys = [f"ip-{int(v)}" for v in rng.integers(0, 3000, n)]
    lines = [f"{int(t)}\t{k}".encode() for t, k in zip(times, keys)]
    out = cli_build(cli, tmp_path, lines, "--window", "5000", "--window-seconds", "600", "--fpr", "0.01")
    f = W.time_window(600, 5000, 0.01, unit="seconds")
    f.add_many_at(keys, times)
    assert f.to_bytes() == out.read_bytes()
    # Without the unit the file differs only in not recording it.
    u = W.time_window(600, 5000, 0.01)
    u.add_many_at(keys, times)
    assert u.to_bytes() != out.read_bytes() and u.may_contain_many(keys[-50:]).all()
    with pytest.raises(bloomkit.InvalidArgumentError):
        W.time_window(600, 5000, 0.01, unit="hours")
    g = bloomkit.load(out)
    assert g.is_time_window and g.now == int(times[-1])
    probe = keys[-200:] + [f"never-{i}" for i in range(200)]
    for at in (int(times[-1]), int(times[-1]) + 300, int(times[-1]) + 10**6):
        run = subprocess.run([cli, "query", str(out), "--at", str(at), *probe], check=True, capture_output=True,
                             text=True)
        answers = [line.split("\t")[1] == "maybe" for line in run.stdout.splitlines()]
        assert answers == f.may_contain_many_at(probe, at).tolist()
    # Without --at: as of the latest time in the file.
    run = subprocess.run([cli, "query", str(out), *probe], check=True, capture_output=True, text=True)
    assert [line.endswith("maybe") for line in run.stdout.splitlines()] == f.may_contain_many(probe).tolist()
