"""The surface every kind shares: construction, add / in, batches, state, set algebra."""

from __future__ import annotations

import numpy as np
import pytest

import bloomkit
from conftest import ALL_KINDS, INCREMENTAL, STATIC, build


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_added_keys_are_found(cls):
    keys = [f"key-{i}" for i in range(1000)]
    f = build(cls, keys)
    assert all(k in f for k in keys)
    assert f.may_contain_many(keys).all()
    assert f.may_contain("key-0")


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_empty_filter_finds_nothing(cls):
    f = cls(100, 0.01)
    assert "x" not in f
    assert f.inserted == 0
    assert not f.may_contain_many(np.arange(100)).any()
    assert f.may_contain_many([]).shape == (0,)


@pytest.mark.parametrize("cls", STATIC, ids=lambda c: c.__name__)
def test_empty_static_filter_finds_nothing(cls):
    f = cls([])
    assert f.inserted == 0
    assert "x" not in f


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_one_key_and_the_same_key_twice(cls):
    f = cls(10, 0.01)
    f.add(b"one")
    f.add(b"one")
    assert b"one" in f
    assert f.inserted == 2
    g = cls(10, 0.01)
    g.add(b"one")
    # Adding a key twice sets no new bits.
    assert f.fill_ratio == g.fill_ratio


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_insert_is_add_and_hash_calls_agree(cls):
    f, g = cls(100, 0.01), cls(100, 0.01, key_type="int64")  # hashes carry no type: g is given f's
    f.insert(42)
    g.add_hash(bloomkit.hash_key(42, f))
    assert f.to_bytes() == g.to_bytes()
    assert g.may_contain_hash(bloomkit.hash_key(42, g))


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_merge_and_intersect(cls):
    a, b = cls(1000, 0.01), cls(1000, 0.01)
    a.add_many(range(0, 500))
    b.add_many(range(250, 750))
    u = a | b
    assert u.may_contain_many(range(750)).all()
    assert u.inserted == 1000
    c = a.copy()
    c |= b
    assert c.to_bytes() == u.to_bytes()
    assert c.merge(b) is c
    if cls is bloomkit.ScalableBloom:
        assert not hasattr(a, "intersect")
        return
    i = a & b
    assert i.may_contain_many(range(250, 500)).all()
    d = a.copy()
    d &= b
    assert d.to_bytes() == i.to_bytes()
    # The intersection's count is the smaller input's: only an upper bound
    # (250 keys are common here), and it says so, also after a round trip.
    assert (a.inserted_accuracy, u.inserted_accuracy) == ("exact", "exact")
    assert i.inserted == 500 and i.inserted_accuracy == "at_most"
    assert type(i).from_bytes(i.to_bytes()).inserted_accuracy == "at_most"
    i.clear()
    assert i.inserted_accuracy == "exact"


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_clear_and_copy_are_independent(cls):
    f = cls(100, 0.01)
    f.add("a")
    g = f.copy()
    f.clear()
    assert "a" not in f and f.inserted == 0
    assert "a" in g


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_state_is_reported(cls):
    f = build(cls, list(range(1000)), capacity=1000)
    assert f.inserted == 1000
    assert f.capacity >= 1
    assert 0 < f.target_fpr < 1
    assert f.size_in_bytes > 0
    assert 0 <= f.estimated_fpr < 1
    assert f.estimated_cardinality > 0
    assert f.saturated is False
    assert isinstance(f.params, dict)
    assert f.hash_spec[0] in ("xxh64", "xxh3_64")
    assert bloomkit.kind(f.kind) is cls
    text = repr(f)
    assert cls.__name__ in text and "fpr" in text
    if cls in INCREMENTAL:
        assert 0 < f.fill_ratio < 1
        assert "fill" in text


def test_kind_names_map_to_classes():
    assert bloomkit.kind("split-block") is bloomkit.SplitBlockBloom
    assert bloomkit.kind("binary-fuse") is bloomkit.BinaryFuse
    assert bloomkit.kind("split_block_bloom") is bloomkit.SplitBlockBloom
    assert bloomkit.kind("Ribbon") is bloomkit.Ribbon
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.kind("cuckoo-ish")


def test_kind_table_comes_from_the_extension():
    # The package's tables are the library's kind_traits, as _bloomkit.kinds() gives them.
    facts = bloomkit._bloomkit.kinds()
    assert [k["cli_name"] for k in facts] == list(bloomkit.KINDS)
    assert list(bloomkit.KINDS) == ["standard", "blocked", "split-block", "binary-fuse", "ribbon", "counting",
                                    "scalable", "cuckoo", "window"]
    for k in facts:
        cls = bloomkit.KINDS[k["cli_name"]]
        assert cls.__name__ == k["class_name"]
        assert bloomkit.kind(k["name"]) is cls and bloomkit.kind(k["class_name"]) is cls
        assert bloomkit._hash_spec_of(cls) == k["default_hash"]
        assert k["inserts"] is not k["static"]
        if k["cli_name"] in ("standard", "blocked", "split-block", "counting"):
            assert cls(100, 0.01).hash_spec == k["default_hash"]
    assert bloomkit._hash_spec_of("split-block") == ("xxh64", 0)
    assert {k["cli_name"] for k in facts if k["removes"]} == {"counting", "cuckoo"}


def test_exact_parameter_constructors():
    f = bloomkit.SplitBlockBloom.with_blocks(100)
    assert f.num_blocks == 100 and f.size_in_bytes == 3200
    g = bloomkit.StandardBloom.with_bits(1000, 7)
    assert g.bit_count == 1000 and g.num_hashes == 7
    h = bloomkit.BlockedBloom.with_blocks(10, 6)
    assert h.num_blocks == 10 and h.num_hashes == 6
    c = bloomkit.CountingBloom.with_counters(1000, 5)
    assert c.params["counters"] == 1000


def test_hash_keys_matches_what_the_filter_uses():
    f = bloomkit.SplitBlockBloom(1000, 0.01)
    keys = np.arange(1000, dtype=np.int64)
    h = bloomkit.hash_keys(keys, f)
    assert h.dtype == np.uint64 and h.shape == (1000,)
    g = bloomkit.SplitBlockBloom(1000, 0.01, key_type="int64")
    f.add_many(keys)
    g.add_hashes(h)
    assert f.to_bytes() == g.to_bytes()
    assert (bloomkit.hash_keys(keys, "split-block") == h).all()
    assert (bloomkit.hash_keys(keys, bloomkit.SplitBlockBloom) == h).all()
    assert (bloomkit.hash_keys(keys, ("xxh64", 0)) == h).all()
    assert f.may_contain_hashes(h).all()


def test_ribbon_bumped_layout_holds_every_key_in_fewer_bits():
    # The bumped layout (BuRR) takes about 1.005 r bits per key from some 20,000 keys on, the
    # standard one about 1.05 r: same FPR 2**-r, same answers for the keys, fewer bytes.
    keys = [f"key-{i}" for i in range(50_000)]
    standard = bloomkit.Ribbon(keys, bits=8)
    bumped = bloomkit.Ribbon(keys, bits=8, layout="bumped")
    assert standard.layout == "standard" and bumped.layout == "bumped"
    assert bumped.params["layout"] == "bumped" and standard.params["layout"] == "standard"
    assert bumped.may_contain_many(keys).all()
    assert all(k in bumped for k in keys[:1000])
    assert bumped.size_in_bytes < standard.size_in_bytes
    assert 8 * bumped.size_in_bytes / len(keys) < 1.02 * 8 + 0.2  # payload plus a small header
    again = bloomkit.from_bytes(bumped.to_bytes())
    assert again.layout == "bumped" and again.to_bytes() == bumped.to_bytes()
    hashed = bloomkit.Ribbon.from_hashes(np.arange(1, 30_001, dtype=np.uint64), layout="bumped")
    assert hashed.layout == "bumped" and hashed.may_contain_hashes(np.arange(1, 30_001, dtype=np.uint64)).all()
