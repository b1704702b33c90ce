"""Keys hash exactly as in C++ (bloomkit/hash.hpp): the canonical bytes of each Python type."""

from __future__ import annotations

import array
import struct

import numpy as np
import pyarrow as pa
import pytest

import bloomkit

XXH64 = ("xxh64", 0)
XXH3 = ("xxh3_64", 0)


def h(key, spec=XXH3):
    return bloomkit.hash_key(key, spec)


def test_golden_hashes():
    # XXH64 of the empty input, seed 0 (xxHash's own test vector; also pinned by the C++ golden tests).
    assert h(b"", XXH64) == 0xEF46DB3751D8E999
    assert h(b"", XXH3) == 0x2D06800538D394C2


@pytest.mark.parametrize("spec", [XXH64, XXH3, ("xxh3_64", 12345), ("xxh64", 2**64 - 1)])
def test_canonical_bytes(spec):
    assert h("héllo", spec) == h("héllo".encode(), spec)
    assert h(bytearray(b"abc"), spec) == h(b"abc", spec)
    assert h(memoryview(b"abc"), spec) == h(b"abc", spec)
    assert h(array.array("B", b"abc"), spec) == h(b"abc", spec)
    assert h(5, spec) == h(struct.pack("<q", 5), spec)
    assert h(-1, spec) == h(b"\xff" * 8, spec)
    assert h(-(2**63), spec) == h(struct.pack("<q", -(2**63)), spec)
    assert h(2**64 - 1, spec) == h(b"\xff" * 8, spec)
    assert h(2**63, spec) == h(struct.pack("<Q", 2**63), spec)
    assert h(1.5, spec) == h(struct.pack("<d", 1.5), spec)
    assert h(-0.0, spec) != h(0.0, spec)  # IEEE bits, no canonicalisation (as Parquet)
    assert h(True, spec) == h(b"\x01", spec)
    assert h(False, spec) == h(b"\x00", spec)
    # NumPy scalars hash at their dtype's width, as array elements do.
    assert h(np.int32(7), spec) == h(struct.pack("<i", 7), spec)
    assert h(np.uint16(7), spec) == h(struct.pack("<H", 7), spec)
    assert h(np.float32(1.5), spec) == h(struct.pack("<f", 1.5), spec)
    assert h(np.float64(1.5), spec) == h(1.5, spec)


def test_seed_and_algorithm_change_the_hash():
    assert h(b"x", ("xxh64", 0)) != h(b"x", ("xxh64", 1))
    assert h(b"x", ("xxh64", 0)) != h(b"x", ("xxh3_64", 0))


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, 10**30, -(10**30)])
def test_int_out_of_range_is_an_error(value):
    f = bloomkit.SplitBlockBloom(10, 0.01)
    before = f.to_bytes()
    with pytest.raises(bloomkit.KeyOverflowError):
        f.add(value)
    with pytest.raises(OverflowError):
        value in f
    with pytest.raises(bloomkit.KeyOverflowError):
        f.add_many([1, 2, value])
    assert f.to_bytes() == before


@pytest.mark.parametrize("bad", [None, object(), [1, 2], {"a": 1}, 1 + 2j])
def test_non_keys_are_type_errors(bad):
    f = bloomkit.BlockedBloom(10, 0.01)
    with pytest.raises(TypeError):
        f.add(bad)
    if bad is None:  # in a batch, a missing value is skipped (docs/KEYS.md)
        f.add_many(["fine", bad])
        assert f.inserted == 1
        return
    with pytest.raises(TypeError):
        f.add_many(["fine", bad])
    assert f.inserted == 0


def test_a_string_is_not_a_batch():
    f = bloomkit.BlockedBloom(10, 0.01)
    for single in ("abc", b"abc", bytearray(b"abc"), memoryview(b"abc")):
        with pytest.raises(TypeError):
            f.add_many(single)
        with pytest.raises(TypeError):
            f.may_contain_many(single)


DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "bool", "datetime64[ns]", "timedelta64[s]"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("spec", [XXH64, XXH3])
def test_numpy_arrays_hash_each_element_at_its_width(dtype, spec):
    arr = (np.arange(-50, 50) % 7 == 0) if dtype == "bool" else np.arange(-50, 50).astype(dtype)
    got = bloomkit.hash_keys(arr, spec)
    want = np.array([h(arr[i : i + 1].tobytes(), spec) for i in range(len(arr))], dtype=np.uint64)
    assert (got == want).all()
    # Byte order and layout do not matter: a big-endian or strided copy hashes the same values.
    if arr.dtype.itemsize > 1 and dtype not in ("bool",):
        assert (bloomkit.hash_keys(arr.astype(arr.dtype.newbyteorder(">")), spec) == want).all()
    strided = np.repeat(arr, 2)[::2]
    assert (bloomkit.hash_keys(strided, spec) == want).all()


def test_numpy_object_and_text_arrays_go_key_by_key():
    words = ["a", "bb", "ccc"]
    want = [h(w) for w in words]
    assert list(bloomkit.hash_keys(np.array(words, dtype=object), XXH3)) == want
    assert list(bloomkit.hash_keys(np.array(words), XXH3)) == want  # dtype '<U3': each element a str


def test_multidimensional_arrays_are_refused():
    with pytest.raises(ValueError):
        bloomkit.hash_keys(np.zeros((2, 2), dtype=np.int64), XXH3)


ARROW = [
    (pa.array(["a", "", "héllo", "x" * 100]), lambda v: v.encode()),
    (pa.array(["a", "", "héllo"], type=pa.large_string()), lambda v: v.encode()),
    (pa.array([b"\x00", b"", b"xyz"]), lambda v: v),
    (pa.array([b"\x00", b"", b"xyz"], type=pa.large_binary()), lambda v: v),
    (pa.array([1, -2, 3], type=pa.int64()), lambda v: struct.pack("<q", v)),
    (pa.array([1, -2, 3], type=pa.int32()), lambda v: struct.pack("<i", v)),
    (pa.array([1, 2, 255], type=pa.uint8()), lambda v: struct.pack("<B", v)),
    (pa.array([1.5, -0.0], type=pa.float64()), lambda v: struct.pack("<d", v)),
    (pa.array([1.5, -0.0], type=pa.float32()), lambda v: struct.pack("<f", v)),
    (pa.array([True, False, True]), lambda v: bytes([v])),
    (pa.array([b"abcd", b"efgh"], type=pa.binary(4)), lambda v: v),
]


@pytest.mark.parametrize("arr,encode", ARROW, ids=lambda x: str(getattr(x, "type", "")))
def test_arrow_arrays_hash_in_place(arr, encode):
    want = [h(encode(v), XXH64) for v in arr.to_pylist()]
    assert list(bloomkit.hash_keys(arr, XXH64)) == want
    # Slices (a non-zero offset) and chunked arrays read the same elements.
    assert list(bloomkit.hash_keys(arr.slice(1), XXH64)) == want[1:]
    chunked = pa.chunked_array([arr, arr.slice(1)])
    assert list(bloomkit.hash_keys(chunked, XXH64)) == want + want[1:]


def test_arrow_dictionary_arrays_are_decoded():
    arr = pa.array(["x", "y", "x"]).dictionary_encode()
    assert list(bloomkit.hash_keys(arr, XXH3)) == [h("x"), h("y"), h("x")]


def test_arrow_nulls_are_not_keys():
    arr = pa.array(["a", None, "c"])
    f = bloomkit.SplitBlockBloom(10, 0.01)
    f.add_many(arr)
    assert f.inserted == 2
    assert list(f.may_contain_many(arr)) == [True, False, True]
    g = bloomkit.SplitBlockBloom(10, 0.01)
    g.add_many(["a", "c"])
    assert f.to_bytes() == g.to_bytes()
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.hash_keys(arr, XXH3)
    nulls = pa.nulls(5)
    f.add_many(nulls)
    assert f.inserted == 2
    assert not f.may_contain_many(nulls).any()


def test_unsupported_arrow_types_are_type_errors():
    f = bloomkit.SplitBlockBloom(10, 0.01)
    with pytest.raises(TypeError):
        f.add_many(pa.array([[1, 2], [3]]))
    assert f.inserted == 0


def _every_length(seed: int = 14) -> list[str]:
    """Strings of every length 0..70 in an order that puts each length in each of the 8 (AVX-512)
    or 4 (AVX2) lanes of the string hasher (hash_batch.hpp's hash_strings), then long ones."""
    import random

    rng = random.Random(seed)
    out = []
    for i in range(71 * 8):
        n = (i * 37 + i // 71) % 71
        out.append("".join(chr(rng.randrange(1, 128)) for _ in range(n)))
    return out + ["x" * 1000, "".join(chr(rng.randrange(1, 128)) for _ in range(5000)), "", "a"]


STRING_TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]


@pytest.mark.parametrize("spec", [XXH64, ("xxh64", 2**64 - 1), XXH3], ids=str)
@pytest.mark.parametrize("typ", STRING_TYPES, ids=str)
def test_arrow_strings_of_every_length_hash_as_one_at_a_time(typ, spec):
    # The batch hasher (SIMD lanes for XXH64 under this CPU's kernel) against hash_key per value
    # (one library XXH64/XXH3 call each): every length, slices at odd offsets (the data no
    # longer starts at a string, offsets not at 0), chunked arrays.
    values = _every_length()
    raw = [v.encode() for v in values]
    arr = pa.array(values if typ in (pa.string(), pa.large_string()) else raw, type=typ)
    want = [h(b, spec) for b in raw]
    assert list(bloomkit.hash_keys(arr, spec)) == want
    for start in (1, 3, 7, 13, 570):
        assert list(bloomkit.hash_keys(arr.slice(start), spec)) == want[start:], start
        assert list(bloomkit.hash_keys(arr.slice(start, 9), spec)) == want[start:start + 9], start
    chunked = pa.chunked_array([arr.slice(5, 100), arr.slice(0, 3), arr.slice(200)])
    assert list(bloomkit.hash_keys(chunked, spec)) == want[5:105] + want[:3] + want[200:]


@pytest.mark.parametrize("typ", STRING_TYPES, ids=str)
def test_arrow_strings_with_nulls_fill_the_filter_as_one_at_a_time(typ):
    values = _every_length(15)
    raw = [v.encode() for v in values]
    items = values if typ in (pa.string(), pa.large_string()) else raw
    with_nulls = pa.array([None if i % 7 == 3 else v for i, v in enumerate(items)], type=typ)
    for cls in (bloomkit.SplitBlockBloom, bloomkit.BlockedBloom):
        f = cls(len(values), 0.01)
        f.add_many(with_nulls.slice(2))
        g = cls(len(values), 0.01)
        for i, b in enumerate(raw):
            if i >= 2 and i % 7 != 3:
                g.add(b)
        assert f.to_bytes() == g.to_bytes(), cls
        got = f.may_contain_many(with_nulls.slice(2))
        assert [bool(x) for x in got] == [i % 7 != 3 for i in range(2, len(values))], cls


def test_arrow_string_hashes_are_the_same_under_the_scalar_kernel(tmp_path):
    # BLOOMKIT_FORCE_SCALAR=1 in a fresh process: the portable loop gives the lanes' hashes.
    import subprocess
    import sys

    values = _every_length(16)
    arr = pa.array(values)
    here = bloomkit.hash_keys(arr, XXH64)
    np.save(tmp_path / "values.npy", np.array(values, dtype=object), allow_pickle=True)
    script = (
        "import sys, numpy as np, pyarrow as pa, bloomkit\n"
        "v = np.load(sys.argv[1], allow_pickle=True).tolist()\n"
        "np.save(sys.argv[2], bloomkit.hash_keys(pa.array(v), ('xxh64', 0)))\n"
    )
    env = dict(__import__("os").environ, BLOOMKIT_FORCE_SCALAR="1")
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "values.npy"), str(tmp_path / "scalar.npy")],
                   env=env, check=True, cwd=tmp_path)
    assert np.array_equal(np.load(tmp_path / "scalar.npy"), here)


@pytest.mark.parametrize("spec", [XXH64, ("xxh64", 2**64 - 1), XXH3], ids=str)
@pytest.mark.parametrize("container", [list, tuple], ids=lambda c: c.__name__)
def test_lists_of_str_hash_as_one_at_a_time(container, spec):
    # A list or tuple of str of every length, broken by non-ASCII str, a str subclass, bytes,
    # ints and floats: each key's own hash, and so the filter of one add per key.
    class Word(str):
        pass

    words = _every_length(3)
    items = (words[:300] + ["caf\u00e9", b"bytes", 7, 2.5, Word("sub"), "\u00fcber"] + words[300:]
             + [-1, "tail"] + words[:9])
    keys = container(items)
    want = [bloomkit.hash_key(k, spec) for k in items]
    assert list(bloomkit.hash_keys(keys, spec)) == want
    # A filter holds keys of one type: the byte strings (str and bytes) of the list.
    texts = container(k for k in items if isinstance(k, (str, bytes)))
    for cls in (bloomkit.SplitBlockBloom, bloomkit.BlockedBloom):
        f = cls(len(texts), 0.01)
        f.add_many(texts)
        g = cls(len(texts), 0.01)
        for k in texts:
            g.add(k)
        assert f.key_type == g.key_type == "bytes"
        assert f.to_bytes() == g.to_bytes(), cls
        assert f.may_contain_many(texts).all(), cls
        with pytest.raises(bloomkit.MismatchError, match="bytes.*int"):
            f.add_many(keys)
