"""What the extension's array arguments and results outside the key batches accept and refuse
(bloomkit.sharding's hashes, positions and answers; hash_keys; AgePartitionedBloom.add_many_at's
times), pinned so that moving them off nb::ndarray (whose import and export end the process on a
failed allocation, nanobind 3.1.0) changes no behaviour. The table was taken from the nb::ndarray
casters before the change and passes before and after it:

- a 1-D NumPy array of a bool, integer or real dtype in native byte order is converted as
  ``arr.astype(dtype, order="C")`` would (non-contiguous and read-only ones too);
- any other object is taken only with exactly the element type: a buffer (memoryview,
  array.array) of that format, or a DLPack exporter (pyarrow) of that type;
- everything else (complex, object, str or byte-swapped dtypes, 0-D and 2-D arrays, scalars,
  lists, tuples, bytes, None) is TypeError.
"""

from __future__ import annotations

import array

import numpy as np
import pyarrow as pa
import pytest

import bloomkit
from bloomkit import _bloomkit as ext

# nanobind's DLPack import asks pyarrow for an unversioned capsule; np.matrix is deprecated.
pytestmark = [pytest.mark.filterwarnings("ignore:Exporting an unversioned DLPack:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")]

PARAMS = ext.shard_plan("split-block", 1000, 0.01)
LAYOUT = ext.ShardLayout(PARAMS["blocks"], 1)  # one shard: every hash routes to it


def _shard():
    return ext.BlockShard("split-block", PARAMS, LAYOUT, 0)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sharded")
    shard = _shard()
    shard.add_hashes(np.array([1, 3, 2**63 + 7], dtype=np.uint64))
    entry = shard.save(folder / "s0.bkf")
    manifest = folder / "m.json"
    ext.write_manifest_json(ext.make_manifest_json("split-block", PARAMS, LAYOUT, [entry]), manifest)
    return ext.ShardedFilter(manifest)


def _grouped_for(x):
    return np.array([True, False] * 8, dtype=bool)[:len(x)]


def _shard_added(x):
    s = _shard()
    s.add_hashes(x)
    return s.may_contain_hashes(np.arange(8, dtype=np.uint64))


#: call name -> (the element type it takes, the call on one argument x)
CALLS = {
    "ShardLayout.shard_of_hashes": (np.uint64, lambda x, sf: LAYOUT.shard_of_hashes(x)),
    "route": (np.uint64, lambda x, sf: ext.route(LAYOUT, x)),
    "BlockShard.add_hashes": (np.uint64, lambda x, sf: _shard_added(x)),
    "BlockShard.may_contain_hashes": (np.uint64, lambda x, sf: _shard().may_contain_hashes(x)),
    "ShardedFilter.may_contain_hashes": (np.uint64, lambda x, sf: sf.may_contain_hashes(x)),
    "reassemble positions": (np.int64, lambda x, sf: ext.reassemble(x, _grouped_for(x))),
    "reassemble grouped": (np.bool_, lambda x, sf: ext.reassemble(np.arange(len(x))[::-1].copy(), x)),
}

VALUES = [3, 1, 0, 2]  # a permutation (reassemble's positions), representable in every dtype


def _numpy_accepted():
    cases = [(f"numpy {dt}", lambda dt=dt: np.array(VALUES, dtype=dt))
             for dt in ("uint64", "int64", "uint32", "int32", "uint8", "int8", "float64", "float32", "float16", "<u8")]
    cases += [
        ("numpy bool", lambda: np.array([True, False])),
        ("numpy float with fractions", lambda: np.array([3.9, 1.2, 0.5, 2.99])),
        ("numpy strided", lambda: np.array(VALUES * 2, dtype=np.int64)[::2]),
        ("numpy empty", lambda: np.zeros(0, dtype=np.int64)),
        ("numpy empty float", lambda: np.zeros(0, dtype=np.float64)),
    ]
    return cases


def _exact_accepted(dtype):
    cases = [
        ("exact dtype", lambda: np.array(VALUES, dtype=dtype) if dtype != np.bool_ else np.array([True, False])),
        ("read-only", lambda: _read_only(dtype)),
        ("a subclass of ndarray", lambda: np.array(VALUES, dtype=dtype).view(_Sub)),
        ("memoryview of the exact dtype", lambda: memoryview(np.array(VALUES, dtype=dtype))),
    ]
    if dtype == np.uint64:
        cases += [("array.array Q", lambda: array.array("Q", VALUES)), ("array.array L", lambda: array.array("L", VALUES)),
                  ("pyarrow uint64", lambda: pa.array(VALUES, type=pa.uint64()))]
    if dtype == np.int64:
        cases += [("array.array q", lambda: array.array("q", VALUES)), ("array.array l", lambda: array.array("l", VALUES)),
                  ("pyarrow int64", lambda: pa.array(VALUES, type=pa.int64()))]
    return cases


class _Sub(np.ndarray):
    pass


def _read_only(dtype):
    a = np.array(VALUES, dtype=dtype) if dtype != np.bool_ else np.array([True, False])
    a.flags.writeable = False
    return a


def _refused(dtype):
    other_code = {np.uint64: "q", np.int64: "Q", np.bool_: "B"}[dtype]
    cases = [
        ("numpy complex", lambda: np.array(VALUES, dtype=np.complex128)),
        ("numpy big-endian", lambda: np.array(VALUES, dtype=">u8")),
        ("numpy big-endian signed", lambda: np.array(VALUES, dtype=">i8")),
        ("numpy object", lambda: np.array(VALUES, dtype=object)),
        ("numpy str", lambda: np.array(["a", "b"])),
        ("numpy datetime", lambda: np.array(VALUES, dtype="datetime64[s]")),
        ("numpy 2-D", lambda: np.zeros((2, 2), dtype=dtype)),
        ("numpy 0-D", lambda: np.array(1, dtype=dtype)),
        ("numpy scalar", lambda: dtype(1)),
        ("numpy matrix", lambda: np.matrix(np.array(VALUES, dtype=dtype))),
        ("list", lambda: list(VALUES)),
        ("tuple", lambda: tuple(VALUES)),
        ("int", lambda: 3),
        ("None", lambda: None),
        ("bytes", lambda: bytes(32)),
        ("memoryview of bytes", lambda: memoryview(bytes(32))),
        ("array.array of another type", lambda: array.array(other_code, [1, 0])),
        ("array.array b", lambda: array.array("b", [1, 0])),
        ("pyarrow float64", lambda: pa.array([1.0, 0.0])),
        ("pyarrow of another integer type", lambda: pa.array([1, 0], type=pa.int32())),
    ]
    if dtype == np.bool_:
        cases.append(("pyarrow bool", lambda: pa.array([True, False])))
    return cases


def _canonical(x, dtype):
    if isinstance(x, pa.Array):
        x = x.to_numpy()
    return np.asarray(x).astype(dtype)


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.ndim == 1
    assert got.flags.c_contiguous and got.flags.writeable
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("call", list(CALLS))
def test_accepted_arrays_answer_as_their_converted_copy(call, sharded):
    dtype, fn = CALLS[call]
    for label, make in _numpy_accepted() + _exact_accepted(dtype):
        x = make()
        want = fn(_canonical(x, dtype), sharded)
        got = fn(x, sharded)
        if want is None:
            assert got is None, label
        else:
            _same(got, want)


@pytest.mark.parametrize("call", list(CALLS))
def test_refused_arguments_are_type_errors(call, sharded):
    dtype, fn = CALLS[call]
    for label, make in _refused(dtype):
        x = make()
        with pytest.raises(TypeError):
            fn(x, sharded)
            pytest.fail(f"{call} accepted {label}")


def test_results_have_the_documented_dtypes(sharded):
    h = np.array([5, 2**64 - 1, 0, 17], dtype=np.uint64)
    assert LAYOUT.shard_of_hashes(h).dtype == np.uint32
    grouped, positions, offsets = ext.route(ext.ShardLayout(PARAMS["blocks"], 3), h)
    assert (grouped.dtype, positions.dtype, offsets.dtype) == (np.uint64, np.int64, np.int64)
    assert len(offsets) == 4 and offsets[0] == 0 and offsets[-1] == 4
    assert sorted(positions.tolist()) == [0, 1, 2, 3] and sorted(grouped.tolist()) == sorted(h.tolist())
    assert sharded.may_contain_hashes(np.array([1, 3, 2**63 + 7], dtype=np.uint64)).tolist() == [True] * 3
    out = ext.reassemble(np.array([2, 0, 1]), np.array([True, False, True]))
    assert out.dtype == np.bool_ and out.tolist() == [False, True, True]


def test_reassemble_refuses_bad_positions_before_writing():
    with pytest.raises(bloomkit.InvalidArgumentError, match="out of range"):
        ext.reassemble(np.array([0, 3]), np.array([True, True]))
    with pytest.raises(bloomkit.InvalidArgumentError, match="out of range"):
        ext.reassemble(np.array([-1, 0]), np.array([True, True]))
    with pytest.raises(bloomkit.InvalidArgumentError, match="as many answers"):
        ext.reassemble(np.array([0, 1]), np.array([True]))


def test_hash_keys_returns_uint64_hashes_of_each_key():
    keys = ["a", b"b", 7, 2.5]
    got = ext._hash_keys(keys, "xxh64", 0)
    assert got.dtype == np.uint64 and got.ndim == 1 and got.flags.writeable
    assert got.tolist() == [ext._hash_key(k, "xxh64", 0) for k in keys]
    assert ext._hash_keys([], "xxh64", 0).tolist() == []
    assert ext._hash_keys(np.arange(5, dtype=np.int64), "xxh3_64", 3).tolist() == \
        [ext._hash_key(int(i), "xxh3_64", 3) for i in range(5)]


def _window():
    return bloomkit.AgePartitionedBloom.time_window(100, 1000, 0.01)


@pytest.mark.parametrize("times", [
    [5, 9, 9], (5, 9, 9), np.array([5, 9, 9], dtype=np.uint64), np.array([5, 9, 9], dtype=np.int32),
    np.array([5, 9, 9], dtype=np.uint8), np.array([5, 9, 9, 0, 0, 0], dtype=np.int64)[:3],
    np.array([5, 0, 9, 0, 9, 0], dtype=np.uint64)[::2], np.array([5, 9, 9], dtype=">u8"), array.array("q", [5, 9, 9]),
])
def test_add_many_at_times_accepted(times):
    f, g = _window(), _window()
    f.add_many_at(["a", "b", "c"], times)
    for k, t in zip(["a", "b", "c"], [5, 9, 9]):
        g.add_at(k, t)
    assert f.to_bytes() == g.to_bytes()


@pytest.mark.parametrize("times,error", [
    (np.array([5.0, 9.0, 9.0]), TypeError), (np.zeros((3, 1), dtype=np.uint64), TypeError),
    (["a", "b", "c"], TypeError), (np.array([5, -1, 9]), bloomkit.InvalidArgumentError),
    (np.array([5, 9], dtype=np.uint64), bloomkit.InvalidArgumentError), (-1, bloomkit.InvalidArgumentError),
])
def test_add_many_at_times_refused(times, error):
    f = _window()
    before = f.to_bytes()
    with pytest.raises(error):
        f.add_many_at(["a", "b", "c"], times)
    assert f.to_bytes() == before
