"""Files and memory: save / load / open (mapped) / to_bytes / from_bytes / pickling / buffers."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import bloomkit
from conftest import ALL_KINDS, INCREMENTAL, build


def sample(cls, n=5000):
    return build(cls, [f"k{i}" for i in range(n)])


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_bytes_and_file_round_trips(cls, tmp_path):
    f = sample(cls)
    data = f.to_bytes()
    g = bloomkit.from_bytes(data)
    assert type(g) is cls and g.to_bytes() == data
    assert cls.from_bytes(bytearray(data)).to_bytes() == data
    assert bloomkit.from_bytes(memoryview(data)).to_bytes() == data
    path = tmp_path / "f.bkf"
    f.save(path)
    assert path.read_bytes() == data
    assert bloomkit.load(path).to_bytes() == data
    assert bloomkit.load(str(path)).to_bytes() == data
    assert cls.load(path).to_bytes() == data
    info = bloomkit.inspect(path)
    assert info["checksum_ok"] and info["file_bytes"] == len(data) and info["inserted"] == f.inserted
    assert bloomkit.inspect(data)["kind"] == bloomkit.inspect(path)["kind"]


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
def test_open_maps_read_only(cls, tmp_path):
    f = sample(cls)
    path = tmp_path / "f.bkf"
    f.save(path)
    with bloomkit.open(path) as m:
        assert type(m) is cls and m.read_only and not m.closed
        assert m.may_contain_many([f"k{i}" for i in range(5000)]).all()
        assert "k1" in m
        assert m.to_bytes() == f.to_bytes()
        assert m.estimated_fpr == f.estimated_fpr
        w = m.copy()
        assert not w.read_only and w.to_bytes() == f.to_bytes()
        if cls in INCREMENTAL:
            with pytest.raises(bloomkit.ReadOnlyError):
                m.add("x")
            with pytest.raises(TypeError):  # ReadOnlyError is a TypeError
                m.add_many(["x"])
            with pytest.raises(bloomkit.ReadOnlyError):
                m.clear()
            with pytest.raises(bloomkit.ReadOnlyError):
                m.merge(w)
            w.merge(m)  # a mapped filter can be the other side
            assert m.to_bytes() == f.to_bytes()
    assert m.closed
    with pytest.raises(bloomkit.ClosedError):
        "k1" in m
    with pytest.raises(ValueError):  # ClosedError is a ValueError, like a closed file's
        m.may_contain_many(["k1"])
    assert "closed" in repr(m)


def test_close_refuses_while_buffer_is_exported(tmp_path):
    f = sample(bloomkit.SplitBlockBloom)
    path = tmp_path / "f.bkf"
    f.save(path)
    m = bloomkit.open(path)
    view = memoryview(m)
    with pytest.raises(BufferError):
        m.close()
    assert "k1" in m
    view.release()
    m.close()
    m.close()  # twice is fine


@pytest.mark.parametrize("cls", [c for c in ALL_KINDS if c is not bloomkit.ScalableBloom], ids=lambda c: c.__name__)
def test_buffer_protocol_exposes_the_words(cls):
    f = sample(cls)
    view = memoryview(f)
    assert view.readonly and view.nbytes == f.size_in_bytes
    data = f.to_bytes()
    assert data.endswith(view.tobytes())
    if cls is bloomkit.SplitBlockBloom:
        words = np.frombuffer(f, dtype="<u4")
        assert words.size == f.num_blocks * 8
        assert f.to_parquet_bitset() == view.tobytes()
    with pytest.raises(ValueError):  # NumPy cannot make the read-only words writable
        np.frombuffer(f, dtype=np.uint8).setflags(write=True)


def test_scalable_has_no_single_buffer():
    with pytest.raises(TypeError):
        memoryview(bloomkit.ScalableBloom(10))


@pytest.mark.parametrize("cls", ALL_KINDS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trips(cls, protocol):
    f = sample(cls)
    g = pickle.loads(pickle.dumps(f, protocol=protocol))
    assert type(g) is cls and g.to_bytes() == f.to_bytes() and not g.read_only
    assert copy.copy(f).to_bytes() == f.to_bytes()
    assert copy.deepcopy(f).to_bytes() == f.to_bytes()


@pytest.mark.parametrize("cls", [c for c in ALL_KINDS if c is not bloomkit.ScalableBloom], ids=lambda c: c.__name__)
def test_pickle_protocol_5_sends_the_words_out_of_band(cls):
    f = sample(cls)
    buffers: list[pickle.PickleBuffer] = []
    stream = pickle.dumps(f, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1
    assert buffers[0].raw().tobytes() == memoryview(f).tobytes()
    assert len(stream) < 1024 + f.size_in_bytes // 100  # the words are not in the stream
    g = pickle.loads(stream, buffers=buffers)
    assert g.to_bytes() == f.to_bytes()
    del buffers


def test_pickle_of_a_mapped_filter_is_a_writable_filter(tmp_path):
    f = sample(bloomkit.BlockedBloom)
    path = tmp_path / "f.bkf"
    f.save(path)
    with bloomkit.open(path) as m:
        g = pickle.loads(pickle.dumps(m, protocol=5))
    assert not g.read_only and g.to_bytes() == f.to_bytes()
    g.add("new")


def test_save_is_atomic_and_replaces(tmp_path):
    path = tmp_path / "f.bkf"
    a = sample(bloomkit.SplitBlockBloom)
    a.save(path)
    b = bloomkit.SplitBlockBloom(10, 0.01)
    b.save(path)
    assert path.read_bytes() == b.to_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.bkf"]  # no temporary left behind
    with pytest.raises(bloomkit.FileError):
        b.save(tmp_path / "no-such-dir" / "f.bkf")
    with pytest.raises(OSError):  # FileError is an OSError
        bloomkit.load(tmp_path / "missing.bkf")
    with pytest.raises(bloomkit.FileError):
        bloomkit.open(tmp_path / "missing.bkf")
