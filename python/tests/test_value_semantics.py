"""Equality, hashing, len() and truth of filters: the same rules for every kind (python/README.md,
"Comparing filters")."""

from __future__ import annotations

import copy
import pickle

import pytest

import bloomkit
from conftest import STATIC

KEYS = [f"key-{i}" for i in range(200)]


def make(cls, keys=KEYS, **kwargs):
    """A filter of `cls` holding `keys` (static kinds are built from them)."""
    if cls in STATIC:
        return cls(keys, **kwargs)
    f = cls(1000, 0.01, **kwargs)
    f.add_many(keys)
    return f


EVERY_KIND = [bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom, bloomkit.CountingBloom,
              bloomkit.ScalableBloom, bloomkit.CuckooFilter, bloomkit.AgePartitionedBloom, bloomkit.BinaryFuse,
              bloomkit.Ribbon]


@pytest.mark.parametrize("cls", EVERY_KIND, ids=lambda c: c.__name__)
def test_equality_is_by_value(cls, tmp_path):
    f = make(cls)
    assert f == f.copy() and not (f != f.copy())
    assert f == copy.deepcopy(f) and f == pickle.loads(pickle.dumps(f))
    assert f == cls.from_bytes(f.to_bytes())
    path = tmp_path / "f.bkf"
    f.save(path)
    with bloomkit.open(path) as mapped:  # read-only, mapped: equal to the owner it was saved from
        assert mapped == f and f == mapped
    # Other keys, another seed or another class: unequal (not an error).
    assert f != make(cls, KEYS[:-1])
    assert f != make(cls, hash_seed=7)
    assert f != 5 and f != None and f != f.to_bytes()  # noqa: E711
    other = bloomkit.StandardBloom if cls is not bloomkit.StandardBloom else bloomkit.BlockedBloom
    assert f != make(other)


@pytest.mark.parametrize("cls", [c for c in EVERY_KIND if c not in STATIC], ids=lambda c: c.__name__)
def test_equality_sees_the_counts_and_the_key_type(cls):
    f, g = make(cls, []), make(cls, [])
    assert f == g
    f.add("x")
    assert f != g
    g.add("x")
    assert f == g
    # The same bits and counts, but another key type: what the keys mean differs.
    assert make(cls, [], key_type="bytes") != make(cls, [], key_type="int64")
    assert make(cls, [], key_type="bytes") == make(cls, [], key_type="bytes")


@pytest.mark.parametrize("cls", EVERY_KIND + [bloomkit.SparkBloom, bloomkit.GuavaBloom], ids=lambda c: c.__name__)
def test_filters_are_not_hashable(cls):
    # Compared by value and mutable (or closable): a hash would change under a dict's feet.
    assert cls.__hash__ is None
    f = cls(1000, 0.01) if cls in (bloomkit.SparkBloom, bloomkit.GuavaBloom) else make(cls)
    with pytest.raises(TypeError, match="unhashable"):
        hash(f)


def test_jvm_filters_compare_unequal_to_other_types():
    s = bloomkit.SparkBloom(1000, 0.01)
    g = bloomkit.GuavaBloom(1000, 0.01)
    assert s != 5 and g != "x" and s != g
    assert s == bloomkit.SparkBloom.from_bytes(s.to_bytes())


@pytest.mark.parametrize("cls", EVERY_KIND, ids=lambda c: c.__name__)
def test_no_len_and_always_true(cls):
    # A Bloom filter cannot count its keys exactly (duplicates, estimates), so it has no len();
    # `inserted` and `estimated_cardinality` say what it knows. Truth is an object's: an empty
    # filter is still a filter, so `if f:` never means "is f empty".
    f = make(cls, [] if cls not in STATIC else ["only"])
    with pytest.raises(TypeError):
        len(f)
    assert bool(f) is True
