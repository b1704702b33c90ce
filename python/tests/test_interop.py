"""SparkBloom and GuavaBloom against the material the real spark-sketch 4.3.0 and Guava 33.8.0 jars
made (tests/fixtures/jvm, or $BLOOMKIT_JVM_DIR): every probe answers as the library did, and the
library's stream reads and writes back byte for byte."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import bloomkit

ROOT = pathlib.Path(__file__).resolve().parents[2]
MATERIAL = pathlib.Path(os.environ.get("BLOOMKIT_JVM_DIR") or ROOT / "tests" / "fixtures" / "jvm")


def cases():
    return sorted(p.stem for p in MATERIAL.glob("*.meta"))


def meta(name):
    return dict(line.split("=", 1) for line in (MATERIAL / f"{name}.meta").read_text().splitlines() if "=" in line)


def key(kind, text):
    if kind in ("long", "int"):
        return int(text)
    raw = b"" if text == "-" else bytes.fromhex(text)
    return raw.decode("utf-8") if kind == "string" else raw


@pytest.mark.parametrize("name", cases())
def test_answers_as_the_library(name):
    m = meta(name)
    data = (MATERIAL / f"{name}.bin").read_bytes()
    f = bloomkit.from_jvm_bytes(data)
    assert isinstance(f, bloomkit.SparkBloom if m["library"] == "spark" else bloomkit.GuavaBloom)
    assert f.to_bytes() == data
    probe = f.may_contain_int if m["key"] == "int" else f.may_contain
    wrong = 0
    for line in (MATERIAL / f"{name}.probes").read_text().splitlines():
        wrong += probe(key(m["key"], line[2:])) != (line[0] == "1")
    assert wrong == 0


def test_build_like_the_library():
    # Rebuild one Spark and one Guava case from their keys: the same bytes.
    for name, make in [("spark_v2_string", lambda m: bloomkit.SparkBloom(int(m["n"]), float(m["fpp"]))),
                       ("guava_mitz64_int", lambda m: bloomkit.GuavaBloom(int(m["n"]), float(m["fpp"])))]:
        m = meta(name)
        f = make(m)
        for line in (MATERIAL / f"{name}.keys").read_text().splitlines():
            f.add_int(int(line)) if m["key"] == "int" else f.add(key(m["key"], line))
        assert f.to_bytes() == (MATERIAL / f"{name}.bin").read_bytes(), name


def test_semantics_and_errors(tmp_path):
    s = bloomkit.SparkBloom.create(bloomkit.SparkBloomVersion.V1, 100, 1000)
    assert s.version == bloomkit.SparkBloomVersion.V1 and s.seed == 0
    assert s.add(2**64 - 1) and -1 in s  # the same 64 bits as a long
    s.add("é")
    assert "é" in s and "é".encode() in s  # putString is putBinary of the UTF-8 bytes
    path = tmp_path / "s.bin"
    s.save(str(path))
    assert bloomkit.load_jvm(str(path)) == s
    with pytest.raises(bloomkit.TruncatedError):
        bloomkit.from_jvm_bytes(s.to_bytes()[:-1])
    with pytest.raises(bloomkit.UnsupportedVersionError):
        bloomkit.SparkBloom.from_bytes(b"\0\0\0\x03" + s.to_bytes()[4:])
    with pytest.raises(bloomkit.UnsupportedError):
        bloomkit.GuavaBloom.from_bytes(b"\x05\x01\0\0\0\x01" + bytes(8))
    with pytest.raises(bloomkit.MismatchError):
        s.merge(bloomkit.SparkBloom(100, 0.01))
    with pytest.raises(TypeError):
        s.add(1.5)
    g = bloomkit.GuavaBloom(10, 0.01)
    g.add_int(7)
    assert g.may_contain_int(7) and g.strategy == bloomkit.GuavaStrategy.MURMUR128_MITZ_64


def test_load_reads_every_format(tmp_path):
    # bloomkit.load takes bloomkit files and both JVM streams (C++ load(path, any_format)).
    spark = bloomkit.load(MATERIAL / "spark_v2_long.bin")
    guava = bloomkit.load(str(MATERIAL / "guava_mitz32_long.bin"))
    assert isinstance(spark, bloomkit.SparkBloom) and isinstance(guava, bloomkit.GuavaBloom)
    assert spark.to_bytes() == (MATERIAL / "spark_v2_long.bin").read_bytes()
    assert spark == bloomkit.load_jvm(str(MATERIAL / "spark_v2_long.bin"))
    own = bloomkit.SplitBlockBloom(100)
    own.save(tmp_path / "own.bkf")
    assert isinstance(bloomkit.load(tmp_path / "own.bkf"), bloomkit.SplitBlockBloom)
    (tmp_path / "other.bin").write_bytes(b"PAR1 not a filter")
    with pytest.raises(bloomkit.Error, match="nor a Spark or Guava"):
        bloomkit.load(tmp_path / "other.bin")


@pytest.mark.parametrize("name", [n for n in cases() if meta(n)["key"] != "int"])
def test_batch_calls_match_single_keys(name):
    # add_many / may_contain_many answer exactly as add / may_contain key by key,
    # on the library's own material: the rebuilt bytes and every probe.
    m = meta(name)
    keys = [key(m["key"], line) for line in (MATERIAL / f"{name}.keys").read_text().splitlines()]
    data = (MATERIAL / f"{name}.bin").read_bytes()
    library = bloomkit.from_jvm_bytes(data)
    one, many = bloomkit.from_jvm_bytes(data), bloomkit.from_jvm_bytes(data)
    for k in keys:
        one.add(k)
    many.add_many(iter(keys))
    assert many.to_bytes() == one.to_bytes()
    probes = [key(m["key"], line[2:]) for line in (MATERIAL / f"{name}.probes").read_text().splitlines()]
    answers = library.may_contain_many(probes)
    assert answers.dtype == np.bool_ and len(answers) == len(probes)
    assert answers.tolist() == [library.may_contain(p) for p in probes]


@pytest.mark.parametrize("make", [lambda: bloomkit.SparkBloom(1000, 0.01), lambda: bloomkit.GuavaBloom(1000, 0.01)])
def test_batch_calls_take_numpy_and_refuse_whole(make):
    ints = np.array([-5, 0, 7, 2**40], dtype=np.int64)
    one, many = make(), make()
    for v in ints.tolist():
        one.add(v)
    many.add_many(ints)
    assert many.to_bytes() == one.to_bytes()
    small = make()
    small.add_many(np.array([1, 2, 3], dtype=np.int8))  # every width widened to a long, as add(int)
    assert small.may_contain_many(np.array([1, 2, 3], dtype=np.uint16)).all()
    assert small.may_contain_many([1, 2, 3]).tolist() == [small.may_contain(v) for v in (1, 2, 3)]
    wide = make()
    wide.add_many(np.array([2**64 - 1], dtype=np.uint64))  # the same 64 bits as the long -1
    assert -1 in wide
    before = many.to_bytes()
    for bad in (["ok", 1.5], [1, 2**64], "abc", b"abc", [None]):
        with pytest.raises((TypeError, OverflowError)):
            many.add_many(bad)
        assert many.to_bytes() == before  # nothing of the batch went in
    with pytest.raises(TypeError):
        many.may_contain_many("abc")
    assert many.may_contain_many([]).tolist() == []
