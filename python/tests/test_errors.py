"""Every error path raises the right exception, with the library's message, and leaves the
filter unchanged."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bloomkit
from conftest import ALL_KINDS, INCREMENTAL, build


def test_hierarchy():
    assert issubclass(bloomkit.MismatchError, bloomkit.Error) and issubclass(bloomkit.MismatchError, ValueError)
    assert issubclass(bloomkit.HashMismatchError, bloomkit.MismatchError)
    assert issubclass(bloomkit.InvalidArgumentError, ValueError)
    assert issubclass(bloomkit.FileError, OSError)
    for e in (bloomkit.TruncatedError, bloomkit.CorruptError, bloomkit.ChecksumError,
              bloomkit.UnsupportedVersionError, bloomkit.UnknownKindError):
        assert issubclass(e, bloomkit.FormatError) and issubclass(e, ValueError)
    assert issubclass(bloomkit.ReadOnlyError, TypeError)
    assert issubclass(bloomkit.ClosedError, ValueError)
    assert issubclass(bloomkit.KeyOverflowError, OverflowError)
    assert bloomkit.MismatchError.code == "mismatch" and bloomkit.ChecksumError.code == "checksum"


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
@pytest.mark.parametrize("fpr", [0.0, 1.0, -0.5, 1.5, math.nan, math.inf])
def test_fpr_out_of_range(cls, fpr):
    with pytest.raises(bloomkit.InvalidArgumentError):
        cls(100, fpr)


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_capacity_zero_and_negative(cls):
    with pytest.raises(bloomkit.InvalidArgumentError):
        cls(0, 0.01)
    with pytest.raises(TypeError):
        cls(-1, 0.01)


def test_exact_parameters_out_of_range():
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.SplitBlockBloom.with_blocks(0)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.SplitBlockBloom.with_blocks(2**32 + 1)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.BlockedBloom.with_blocks(10, 17)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.StandardBloom.with_bits(100, 0)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.StandardBloom.with_bits(100, 65)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.CountingBloom.with_counters(0, 3)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.ScalableBloom(10, 0.01, growth=0.5)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.BinaryFuse([1, 2], bits=12)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.BinaryFuse([1, 2], arity=5)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.Ribbon([1, 2], bits=17)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.Ribbon([1, 2], fpr=1e-9)
    with pytest.raises(bloomkit.InvalidArgumentError, match="layout must be 'standard' or 'bumped'"):
        bloomkit.Ribbon([1, 2], layout="homogeneous")
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.Ribbon.from_hashes([1, 2], layout="")
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.SplitBlockBloom(10, hash="md5")


def test_huge_sizes_fail_cleanly():
    # 2^63 bits is the largest StandardBloom: asking for it must raise, not crash or half-allocate.
    with pytest.raises((MemoryError, bloomkit.Error)):
        bloomkit.StandardBloom.with_bits(2**63, 3)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.StandardBloom.with_bits(2**63 + 1, 3)


def test_sizing_rejects_zero_block_bits_and_max_k():
    # block_bits = 0 used to divide by zero inside the planner (a crash, not an error).
    with pytest.raises(bloomkit.InvalidArgumentError, match="block_bits"):
        bloomkit.sizing.blocked_blocks_for(1000, 0.01, 0)
    with pytest.raises(bloomkit.InvalidArgumentError, match="max_k"):
        bloomkit.sizing.blocked_blocks_for(1000, 0.01, 512, 0)
    assert bloomkit.sizing.blocked_blocks_for(1000, 0.01) == bloomkit.sizing.blocked_blocks_for(1000, 0.01, 512, 16)


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_mismatched_merge_leaves_the_filter_unchanged(cls):
    a = cls(1000, 0.01)
    a.add_many(range(100))
    before = a.to_bytes()
    others = [cls(5000, 0.01), cls(1000, 0.01, hash_seed=1), cls(1000, 0.01, hash="xxh64" if a.hash_spec[0] != "xxh64" else "xxh3_64")]
    others.append(bloomkit.BlockedBloom(1000) if cls is not bloomkit.BlockedBloom else bloomkit.StandardBloom(1000))
    for other in others:
        with pytest.raises(bloomkit.MismatchError):
            a.merge(other)
        with pytest.raises(ValueError):
            a | other
        with pytest.raises(bloomkit.MismatchError):
            a |= other
        if hasattr(a, "intersect"):
            with pytest.raises(bloomkit.MismatchError):
                a.intersect(other)
        assert a.to_bytes() == before
    with pytest.raises(bloomkit.MismatchError):
        a.merge("not a filter")
    assert a.to_bytes() == before


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_bad_batches_leave_the_filter_unchanged(cls):
    f = cls(1000, 0.01)
    f.add_many(range(10))
    before = f.to_bytes()
    for bad in ([1, 2, object()], iter([b"a", object()]), [2**70], np.zeros((3, 3)), 5):
        with pytest.raises((TypeError, ValueError, OverflowError)):
            f.add_many(bad)
        assert f.to_bytes() == before
    for bad in (np.array([1.5, 2.5]), ["x"], [-1]):
        with pytest.raises((TypeError, OverflowError)):
            f.add_hashes(bad)
        assert f.to_bytes() == before


def test_a_batch_that_needs_an_impossible_stage_changes_nothing():
    # A ScalableBloom stage that cannot be opened (its FPR P (1 - r) r^i beyond any layout with
    # r = 1e-300; the 65th stage with one key per stage) fails every batch call that would
    # need it before any key goes in, also after a save and a load of the same filter.
    import pyarrow as pa

    makers = (lambda: bloomkit.ScalableBloom(1000, 0.01, tightening=1e-300),
              lambda: bloomkit.ScalableBloom(1, 0.01, growth=1.0))
    for make in makers:
        for before in (0, 1):
            fresh = make()
            fresh.add_many(range(before))
            for f in (fresh, bloomkit.from_bytes(fresh.to_bytes())):
                was = f.to_bytes()
                batches = [lambda: f.add_many(range(5000)), lambda: f.add_many(np.arange(5000)),
                           lambda: f.add_many(pa.array(np.arange(5000))),
                           lambda: f.add_hashes(np.arange(5000, dtype=np.uint64)),
                           lambda: f.insert_if_absent_many(range(5000)),
                           lambda: f.insert_if_absent_hashes(np.arange(5000, dtype=np.uint64))]
                if before == 0:  # an untyped filter takes text too (a typed one refuses it, rightly)
                    batches.append(lambda: f.add_many(pa.array([str(i) for i in range(5000)])))
                for bad in batches:
                    with pytest.raises(bloomkit.Error) as refused:
                        bad()
                    assert not isinstance(refused.value, bloomkit.MismatchError)  # the stage, not the keys
                    assert f.inserted == before and f.to_bytes() == was
                f.add(10**6)
                assert 10**6 in f


def corrupt_variants(data: bytes):
    yield "truncated-header", data[:40], bloomkit.TruncatedError
    yield "truncated-payload", data[:-1], bloomkit.TruncatedError
    flipped = bytearray(data)
    flipped[-1] ^= 0x01
    yield "payload-bit", bytes(flipped), bloomkit.ChecksumError
    bad_magic = bytearray(data)
    bad_magic[0] ^= 0xFF
    yield "magic", bytes(bad_magic), bloomkit.FormatError
    yield "empty", b"", bloomkit.TruncatedError
    yield "garbage", b"\x00" * 200, bloomkit.FormatError


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_corrupt_bytes_raise_format_errors(cls, tmp_path):
    data = build(cls, [f"k{i}" for i in range(2000)]).to_bytes()
    for name, bad, error in corrupt_variants(data):
        with pytest.raises(error):
            bloomkit.from_bytes(bad)
        path = tmp_path / f"{name}.bkf"
        path.write_bytes(bad)
        with pytest.raises(error):
            bloomkit.load(path)
        with pytest.raises(error):
            bloomkit.open(path)


def test_wrong_kind_is_a_mismatch(tmp_path):
    data = bloomkit.SplitBlockBloom(100).to_bytes()
    with pytest.raises(bloomkit.MismatchError):
        bloomkit.BlockedBloom.from_bytes(data)
    path = tmp_path / "s.bkf"
    path.write_bytes(data)
    with pytest.raises(bloomkit.MismatchError):
        bloomkit.StandardBloom.load(path)


def test_messages_are_the_librarys():
    with pytest.raises(bloomkit.MismatchError, match="differ"):
        bloomkit.SplitBlockBloom(100).merge(bloomkit.SplitBlockBloom(100000))
    with pytest.raises(bloomkit.InvalidArgumentError, match="p"):
        bloomkit.BlockedBloom(10, 2.0)


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_counting_remove_of_absent_key_changes_nothing(cls):
    if cls is not bloomkit.CountingBloom:
        assert not hasattr(cls, "remove")
        return
    f = bloomkit.CountingBloom(100, 0.01)
    f.add_many(range(50))
    before = f.to_bytes()
    assert f.remove(10**15 + 3) is False
    assert f.to_bytes() == before
    assert f.remove(7) is True and 7 not in f or f.count(7) >= 0


def test_messages_name_the_real_problem():
    # A time past 2^64 - 1 is an OverflowError saying so (not std::bad_cast), a block count whose
    # bits pass 2^64 names num_blocks (not "m (bits) must be at least 1, got 0.000000"), numbers
    # print as %g does (0.5, not 0.500000), and a compound FPR below 1e-16 does not round to 0.
    t = bloomkit.AgePartitionedBloom.time_window(100, 100)
    before = t.to_bytes()
    with pytest.raises(OverflowError, match=r"2\*\*64 - 1"):
        t.add_many_at(["a"], 2**64)
    assert t.to_bytes() == before
    for make in (lambda: bloomkit.SplitBlockBloom.with_blocks(2**58),
                 lambda: bloomkit.BlockedBloom.with_blocks(2**58, 8)):
        with pytest.raises(bloomkit.InvalidArgumentError, match="num_blocks") as e:
            make()
        assert "0.000000" not in str(e.value)
    with pytest.raises(bloomkit.InvalidArgumentError, match=r"growth = 0\.5 is not in \[1, 16\]"):
        bloomkit.ScalableBloom(1000, 0.01, growth=0.5)
    assert 0 < bloomkit.ScalableBloom(1000, 1e-17).design_fpr <= 1e-17


def test_unreachable_rates_are_refused_before_any_allocation():
    # BlockedBloom(1000, 1e-30) tried to allocate 44.9 GB and SplitBlockBloom(1000, 1e-17) 2.9 GB:
    # a block layout past 64x the standard filter's size says so, naming the kind that reaches any
    # rate and how to give a size explicitly (issue 37 item 8).
    for make in (lambda: bloomkit.BlockedBloom(1000, 1e-30), lambda: bloomkit.SplitBlockBloom(1000, 1e-17),
                 lambda: bloomkit.ScalableBloom(1000, 1e-30)):
        with pytest.raises(bloomkit.InvalidArgumentError, match=r"cannot reach false-positive rate .* efficiently") as e:
            make()
        assert "StandardBloom" in str(e.value) and "with_blocks" in str(e.value)
        assert "0.000000" not in str(e.value)
    assert 0 < bloomkit.StandardBloom(1000, 1e-30).design_fpr <= 1e-30
    # Asked for explicitly, a size is not refused.
    assert bloomkit.BlockedBloom.with_blocks(4, 16, capacity=1000, fpr=1e-30).num_blocks == 4
    for make in (lambda: bloomkit.Ribbon(["a"], fpr=1e-30), lambda: bloomkit.BinaryFuse(["a"], fpr=1e-30)):
        with pytest.raises(bloomkit.InvalidArgumentError, match=r"fpr 1e-30 is below that: use StandardBloom"):
            make()


def test_counts_take_whole_floats():
    # SplitBlockBloom(1e6) was a nanobind signature error; a whole float is a count, 1.5 is not
    # (issue 37 item 9).
    assert bloomkit.SplitBlockBloom(1e6).capacity == 10**6
    assert bloomkit.StandardBloom(2.5e3, 0.01).capacity == 2500
    assert bloomkit.ScalableBloom(1e3).capacity == 1000
    assert bloomkit.CuckooFilter(1e4).capacity == 10**4
    assert bloomkit.AgePartitionedBloom(1e3).to_bytes() == bloomkit.AgePartitionedBloom(1000).to_bytes()
    assert bloomkit.BlockedBloom.with_blocks(8.0, 7, capacity=100.0).num_blocks == 8
    assert bloomkit.StandardBloom.with_bits(1024.0, 3).bit_count == 1024
    assert bloomkit.SplitBlockBloom(np.float64(1e3)).capacity == 1000
    assert bloomkit.SplitBlockBloom(np.int64(1000)).capacity == 1000
    with pytest.raises(TypeError, match=r"capacity must be a whole number, got 1\.5"):
        bloomkit.SplitBlockBloom(1.5)
    with pytest.raises(TypeError, match=r"num_blocks must be a whole number, got 2\.5"):
        bloomkit.BlockedBloom.with_blocks(2.5, 7)
    for bad in (-1.0, 2.0**64, math.inf, math.nan):
        with pytest.raises(bloomkit.InvalidArgumentError, match="capacity must be a whole number"):
            bloomkit.BlockedBloom(bad)
    with pytest.raises(TypeError):
        bloomkit.BlockedBloom(-1)  # a negative int stays a signature error, as before
    with pytest.raises(TypeError):
        bloomkit.BlockedBloom("1000")


def test_errors_name_their_context(tmp_path):
    # The library error's context as attributes: the kind and the field a parameter check names,
    # the file a load names; None where it names none. The message is the library's sentence.
    with pytest.raises(bloomkit.InvalidArgumentError) as e:
        bloomkit.StandardBloom.with_bits(2**63 + 1, 3)
    assert (e.value.kind, e.value.field, e.value.path) == ("standard_bloom", "bits", None)
    assert str(e.value).startswith("standard_bloom: bits = ")
    missing = tmp_path / "missing.bkf"
    with pytest.raises(bloomkit.FileError) as e:
        bloomkit.load(missing)
    assert (e.value.kind, e.value.field, e.value.path) == (None, None, str(missing))
    assert str(e.value).startswith(f"'{missing}': bloomkit: cannot open '{missing}': ")
    assert bloomkit.FullError("x").kind is None
