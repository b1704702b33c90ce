"""Key types (docs/KEYS.md): a filter records what its keys are and converts every value into that
type, or refuses it with MismatchError naming both types, before anything changes.

The matrix: every writer (Python scalars and lists, NumPy arrays of every numeric dtype, Arrow
arrays, pandas columns NumPy-backed, nullable and Arrow-backed, files written by the CLI) against
every reader of the same sources. Every pair finds every inserted key or raises MismatchError
naming both types; the pairs whose values convert exactly must find them. False negatives are
counted and must be zero."""

from __future__ import annotations

import datetime as dt
import math
import pickle
import struct
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bloomkit

from conftest import ROOT

INTS = list(range(101))  # every integer width and float16 holds them exactly
BOOLS = [0, 1]
TEXT = [f"k{i}-\u00e9" for i in range(100)]
BASE = dt.datetime(2024, 5, 17, 12, 0, 0)
TIMES = [BASE + dt.timedelta(seconds=37 * i, microseconds=i) for i in range(100)]  # naive: UTC
DATES = [dt.date(2000, 1, 1) + dt.timedelta(days=13 * i) for i in range(100)]
UTC = dt.timezone.utc


def _with_missing(values, missing):
    """values with `missing` put after every 10th (writers skip it; readers answer False for it)."""
    out = []
    for i, v in enumerate(values):
        out.append(v)
        if i % 10 == 9:
            out.append(missing)
    return out


def _np_dt(values, unit):
    return np.array([np.datetime64(v, unit) for v in values])


# name -> (family, make(values) -> batch, or None for a per-key source whose values are the keys).
# Families: "int" (int64 filters), "bool" (int64), "float" (float64), "text" (bytes),
# "time" (timestamp_us), "date" (date32).
SOURCES = {
    "py int": ("int", None),
    "py int list": ("int", list),
    "numpy int scalars": ("int", lambda v: None),
    **{f"numpy {d}": ("int", (lambda d: lambda v: np.array(v, dtype=d))(d))
       for d in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    **{f"arrow {t}": ("int", (lambda t: lambda v: pa.array(v, type=getattr(pa, t)()))(t))
       for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    "pandas int64": ("int", lambda v: pd.Series(v, dtype="int64")),
    "pandas int32": ("int", lambda v: pd.Series(v, dtype="int32")),
    "pandas uint16": ("int", lambda v: pd.Series(v, dtype="uint16")),
    "pandas Int64": ("int", lambda v: pd.Series(_with_missing(v, pd.NA), dtype="Int64")),
    "pandas Int8": ("int", lambda v: pd.Series(_with_missing(v, None), dtype="Int8")),
    "pandas UInt64": ("int", lambda v: pd.Series(_with_missing(v, pd.NA), dtype="UInt64")),
    "pandas int64[pyarrow]": ("int", lambda v: pd.Series(_with_missing(v, None), dtype="int64[pyarrow]")),
    "pandas uint8[pyarrow]": ("int", lambda v: pd.Series(v, dtype="uint8[pyarrow]")),
    "pandas object int": ("int", lambda v: pd.Series(_with_missing(v, None), dtype=object)),
    "pandas category int": ("int", lambda v: pd.Series(v, dtype="category")),
    "py float": ("float", None),
    "py float list": ("float", list),
    **{f"numpy {d}": ("float", (lambda d: lambda v: np.array(v, dtype=d))(d)) for d in ("float16", "float32", "float64")},
    "arrow float32": ("float", lambda v: pa.array(v, type=pa.float32())),
    "arrow float64": ("float", lambda v: pa.array(v, type=pa.float64())),
    "arrow float16": ("float", lambda v: pa.array(np.array(v, dtype=np.float16))),
    "pandas float64 (NaN missing)": ("float", lambda v: pd.Series(_with_missing(v, np.nan), dtype="float64")),
    "pandas float32": ("float", lambda v: pd.Series(v, dtype="float32")),
    "pandas Float64": ("float", lambda v: pd.Series(_with_missing(v, pd.NA), dtype="Float64")),
    "pandas double[pyarrow]": ("float", lambda v: pd.Series(_with_missing(v, None), dtype="double[pyarrow]")),
    "py bool": ("bool", None),
    "numpy bool": ("bool", lambda v: np.array(v, dtype=bool)),
    "numpy bool of bytes 0 and 2": ("bool", lambda v: (np.array(v, dtype=np.uint8) * 2).view(bool)),
    "arrow bool": ("bool", lambda v: pa.array(v, type=pa.bool_())),
    "pandas bool": ("bool", lambda v: pd.Series(v, dtype=bool)),
    "pandas boolean": ("bool", lambda v: pd.Series(_with_missing(v, pd.NA), dtype="boolean")),
    "py str": ("text", None),
    "py str list": ("text", list),
    "py bytes list": ("text", lambda v: [s.encode() for s in v]),
    "numpy object str": ("text", lambda v: np.array(_with_missing(v, None), dtype=object)),
    "numpy U": ("text", lambda v: np.array(v)),
    "arrow string": ("text", lambda v: pa.array(_with_missing(v, None), type=pa.string())),
    "arrow large_string": ("text", lambda v: pa.array(v, type=pa.large_string())),
    "arrow binary": ("text", lambda v: pa.array([s.encode() for s in v], type=pa.binary())),
    "arrow large_binary": ("text", lambda v: pa.array([s.encode() for s in v], type=pa.large_binary())),
    "arrow string_view": ("text", lambda v: pa.array(v, type=pa.string_view())),
    "arrow dictionary": ("text", lambda v: pa.array(v).dictionary_encode()),
    "pandas object str (None, NaN)": ("text", lambda v: pd.Series(_with_missing(_with_missing(v, None), np.nan),
                                                                  dtype=object)),
    "pandas str (default)": ("text", lambda v: pd.Series(_with_missing(v, None))),
    "pandas string[python]": ("text", lambda v: pd.Series(_with_missing(v, pd.NA), dtype="string[python]")),
    "pandas string[pyarrow]": ("text", lambda v: pd.Series(_with_missing(v, None), dtype="string[pyarrow]")),
    "pandas category str": ("text", lambda v: pd.Series(v, dtype="category")),
    "py datetime": ("time", None),
    "py aware datetime": ("time", lambda v: None),
    "pandas Timestamp scalars": ("time", lambda v: None),
    "numpy datetime64[us]": ("time", lambda v: _np_dt(v, "us")),
    "numpy datetime64[ns] (NaT)": ("time", lambda v: np.array(_with_missing(list(_np_dt(v, "ns")), np.datetime64("NaT")))),
    "arrow timestamp[us]": ("time", lambda v: pa.array(v, type=pa.timestamp("us"))),
    "arrow timestamp[ns]": ("time", lambda v: pa.array(v, type=pa.timestamp("ns"))),
    "arrow timestamp[us, UTC]": ("time", lambda v: pa.array([t.replace(tzinfo=UTC) for t in v],
                                                           type=pa.timestamp("us", tz="UTC"))),
    "pandas datetime64[ns] (NaT)": ("time", lambda v: pd.Series(_with_missing(v, pd.NaT), dtype="datetime64[ns]")),
    "pandas datetime64[us, UTC]": ("time", lambda v: pd.Series(pd.to_datetime(v, utc=True)).astype("datetime64[us, UTC]")),
    "pandas timestamp[us][pyarrow]": ("time", lambda v: pd.Series(v, dtype=pd.ArrowDtype(pa.timestamp("us")))),
    "py date": ("date", None),
    "numpy datetime64[D]": ("date", lambda v: _np_dt(v, "D")),
    "arrow date32": ("date", lambda v: pa.array(v, type=pa.date32())),
    "arrow date64": ("date", lambda v: pa.array(v, type=pa.date64())),
    "pandas date32[pyarrow]": ("date", lambda v: pd.Series(_with_missing(v, None), dtype=pd.ArrowDtype(pa.date32()))),
}

FAMILY_KEY_TYPE = {"int": "int64", "bool": "int64", "float": "float64", "text": "bytes", "time": "timestamp_us",
                   "date": "date32"}


def _family_values(family):
    return {"int": INTS, "bool": BOOLS, "float": INTS, "text": TEXT, "time": TIMES, "date": DATES}[family]


def _as_family(family, logical):
    """Logical values (numbers for the numeric families) as the family's own Python values."""
    if family == "float":
        return [float(v) for v in logical]
    if family == "bool":
        return [bool(v) for v in logical]
    return list(logical)


def _scalars(name, values):
    """The per-key form of a source's values."""
    if name == "numpy int scalars":
        return [np.int32(v) for v in values]
    if name == "py aware datetime":
        return [t.replace(tzinfo=UTC).astimezone(dt.timezone(dt.timedelta(hours=-5))) for t in values]
    if name == "pandas Timestamp scalars":
        return [pd.Timestamp(t) for t in values]
    return values


def _present(batch) -> np.ndarray:
    """Which entries of a batch are values (not missing)."""
    if isinstance(batch, (pa.Array, pa.ChunkedArray)):
        return np.asarray(batch.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if isinstance(batch, pd.Series):
        return ~batch.isna().to_numpy()
    if isinstance(batch, np.ndarray) and batch.dtype.kind in "Mm":
        return ~np.isnat(batch)
    if isinstance(batch, np.ndarray) and batch.dtype == object:
        return ~pd.isna(batch)
    return np.ones(len(batch), dtype=bool)


def write(name, values):
    """A SplitBlockBloom holding `values` written through source `name`."""
    f = bloomkit.SplitBlockBloom(1000, 0.01)
    family, make = SOURCES[name]
    if make is None or make(values[:1]) is None:
        for v in _scalars(name, values):
            f.add(v)
    else:
        f.add_many(make(values))
    assert f.inserted == len(values), (name, f.inserted)
    return f


def read(f, name, values) -> list[bool]:
    """f's answers for `values` read through source `name` (missing values dropped from the answer)."""
    family, make = SOURCES[name]
    if make is None or make(values[:1]) is None:
        return [f.may_contain(v) for v in _scalars(name, values)]
    batch = make(values)
    got = np.asarray(f.may_contain_many(batch))
    present = _present(batch)
    assert not got[~present].any(), f"{name}: a missing value answered True"
    got = list(got[present])
    assert len(got) == len(values), (name, len(got), len(values))
    return got


def _shared_values(wfam, rfam):
    """The logical values both families hold (numbers: the smaller set), or None across families."""
    numeric = {"int", "float", "bool"}
    if wfam in numeric and rfam in numeric:
        return BOOLS if "bool" in (wfam, rfam) else INTS
    return _family_values(wfam) if wfam == rfam else None


def _must_convert(wfam, rfam):
    """Pairs whose values convert exactly (docs/KEYS.md): they must be found, never refused."""
    if wfam == rfam:
        return True
    if FAMILY_KEY_TYPE[wfam] == "int64":
        return rfam in ("int", "float", "bool")
    if wfam == "float":
        return rfam == "int"  # bool into float64 is refused
    return False


def _cli_writers(cli, tmp_path):
    """(name, family, filter) for files the CLI writes: --format u64, i64 (int64), text, hex (bytes)."""
    out = []
    for fmt, family, lines in (("u64", "int", [str(v) for v in INTS]), ("i64", "int", [str(v) for v in INTS]),
                               ("text", "text", TEXT), ("hex", "text", [s.encode().hex() for s in TEXT])):
        path = tmp_path / f"{fmt}.bkf"
        subprocess.run([cli, "build", "--format", fmt, "--kind", "split-block", "-n", "1000", "-o", str(path)],
                       input="\n".join(lines) + "\n", text=True, check=True, capture_output=True)
        f = bloomkit.load(str(path))
        assert f.key_type == FAMILY_KEY_TYPE[family], (fmt, f.key_type)
        assert bloomkit.inspect(str(path))["key_type"] == f.key_type
        out.append((f"cli --format {fmt}", family, f))
    return out


def test_every_writer_and_reader_agree(cli, tmp_path):
    writers = []
    for name, (family, _) in SOURCES.items():
        f = write(name, _as_family(family, _family_values(family)))
        assert f.key_type == FAMILY_KEY_TYPE[family], (name, f.key_type)
        writers.append((name, family, f))
    writers += _cli_writers(cli, tmp_path)
    pairs = found = refused = false_negatives = 0
    problems = []
    for wname, wfam, f in writers:
        for rname, (rfam, _) in SOURCES.items():
            pairs += 1
            shared = _shared_values(wfam, rfam)
            values = _as_family(rfam, shared if shared is not None else _family_values(rfam))
            try:
                answers = read(f, rname, values)
            except bloomkit.MismatchError as e:
                refused += 1
                text = str(e)
                if f.key_type not in text or "got" not in text:
                    problems.append(f"{wname} x {rname}: the message does not name both types: {text}")
                if _must_convert(wfam, rfam):
                    problems.append(f"{wname} x {rname}: refused, but the values convert exactly: {text}")
                continue
            if shared is None:
                problems.append(f"{wname} x {rname}: values of another family were not refused")
                continue
            misses = answers.count(False)
            false_negatives += misses
            found += 1
            if misses:
                problems.append(f"{wname} x {rname}: {misses} of {len(values)} inserted keys answered False")
    print(f"\n{len(writers)} writers x {len(SOURCES)} readers: {pairs} pairs, {found} found every key, "
          f"{refused} refused with MismatchError, {false_negatives} false negatives")
    assert not problems, "\n".join(problems[:40])
    assert false_negatives == 0
    assert found + refused == pairs and found > 0 and refused > 0


# ---- the property test --------------------------------------------------------------------

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]


def _holds(dtype, value) -> bool:
    """Whether NumPy dtype `dtype` holds `value` exactly."""
    if dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        return float(value).is_integer() and info.min <= int(value) <= info.max
    with np.errstate(over="ignore"):
        x = np.array([value], dtype=dtype)[0]
    return bool(np.isfinite(x)) and float(x) == value


def _sources_of(value):
    """(name, how to insert, how to query) for every exact source of `value`."""
    out = []
    if isinstance(value, float) and value == 0 and math.copysign(1.0, value) < 0:
        # -0.0 is a float key of its own (docs/KEYS.md: floats keep their bits): no integer is it.
        return [(f"numpy {d}", lambda f, a=np.array([value], dtype=d): f.add_many(a),
                 lambda f, a=np.array([value], dtype=d): bool(f.may_contain_many(a)[0])) for d in FLOAT_DTYPES] + [
            ("float", lambda f: f.add(value), lambda f: f.may_contain(value))]
    if float(value).is_integer() and -(2**63) <= int(value) < 2**64:
        v = int(value)
        out.append(("int", lambda f: f.add(v), lambda f: f.may_contain(v)))
    if isinstance(value, float) or abs(int(value)) <= 2**53:
        x = float(value)
        out.append(("float", lambda f: f.add(x), lambda f: f.may_contain(x)))
    for d in INT_DTYPES + FLOAT_DTYPES:
        if _holds(d, value):
            a = np.array([value], dtype=d)
            out.append((f"numpy {d}", lambda f, a=a: f.add_many(a), lambda f, a=a: bool(f.may_contain_many(a)[0])))
            out.append((f"numpy {d} scalar", lambda f, a=a: f.add(a[0]), lambda f, a=a: f.may_contain(a[0])))
            if d != "float16":
                arr = pa.array(a)
                out.append((f"arrow {d}", lambda f, arr=arr: f.add_many(arr),
                            lambda f, arr=arr: bool(f.may_contain_many(arr)[0])))
            if d in INT_DTYPES:
                s = pd.Series(a, dtype=d.capitalize().replace("Uint", "UInt"))
                out.append((f"pandas {s.dtype}", lambda f, s=s: f.add_many(s), lambda f, s=s: bool(f.may_contain_many(s)[0])))
    return out


NUMBERS = st.one_of(
    st.integers(-(2**53), 2**53),
    st.integers(2**63, 2**64 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=NUMBERS, data=st.data())
def test_a_number_is_found_through_every_exact_source(value, data):
    sources = _sources_of(value)
    name, insert, _ = data.draw(st.sampled_from(sources), label="writer")
    f = bloomkit.SplitBlockBloom(100, 0.01)
    insert(f)
    for rname, _, query in sources:
        # Exact sources of the same value: found, or refused (MismatchError) where the filter's
        # type cannot hold it exactly (2**63 as a float into int64, 2**60 into float64).
        try:
            assert query(f), f"{value!r}: written as {name} ({f.key_type}), not found as {rname}"
        except bloomkit.MismatchError as e:
            assert f.key_type in str(e)
            assert _may_refuse(f.key_type, rname, value), (name, rname, value, str(e))


def _may_refuse(key_type, reader, value) -> bool:
    """Whether docs/KEYS.md lets a filter of `key_type` refuse `value` read as `reader`: a float
    outside int64's range into int64, an integer beyond 2**53 into float64."""
    floaty = "float" in reader
    if key_type == "int64":
        return floaty and not (-(2**63) <= value < 2**63)
    if key_type == "float64":
        return not floaty and abs(int(value)) > 2**53
    return False


# ---- single behaviours ----------------------------------------------------------------------


def test_key_type_is_taken_from_the_first_typed_insert_and_shown():
    f = bloomkit.SplitBlockBloom(100, 0.01)
    assert f.key_type == "unspecified"
    f.add(np.int32(5))  # a NumPy int32 gives int64: 8 bytes, not its own 4
    assert f.key_type == "int64"
    assert "int64 keys" in repr(f)
    assert f.params["key_type"] == "int64"
    assert 5 in f and np.int64(5) in f and np.uint8(5) in f
    assert f.may_contain_many(np.arange(1, 6, dtype=np.int32))[4]
    g = bloomkit.SplitBlockBloom(100, 0.01)
    g.add_many(np.arange(1, 6, dtype=np.int64))
    assert g.may_contain_many(np.arange(1, 6, dtype=np.int32)).all()  # the example


def test_mismatch_errors_name_both_types_and_change_nothing():
    f = bloomkit.BlockedBloom(100, 0.01)
    f.add_many([1, 2, 3])
    before = f.to_bytes()
    with pytest.raises(bloomkit.MismatchError, match="holds int64 keys; got str"):
        f.add("x")
    with pytest.raises(bloomkit.MismatchError, match="int64.*str"):
        "x" in f
    with pytest.raises(bloomkit.MismatchError, match="int64"):
        f.add_many([4, 5, "x"])
    with pytest.raises(bloomkit.MismatchError, match="int64.*float"):
        f.add_many(np.array([6.0, 7.5]))
    with pytest.raises(bloomkit.MismatchError, match="int64 keys; got a pandas.Series of dtype str"):
        f.add_many(pd.Series(["a", "b"]))
    with pytest.raises(bloomkit.MismatchError, match="int64.*timestamp"):
        f.add_many(pa.array([BASE], type=pa.timestamp("us")))
    assert f.to_bytes() == before
    assert isinstance(bloomkit.MismatchError("x"), ValueError)


def test_python_ints_outside_64_bits_are_refused():
    for f in (bloomkit.SplitBlockBloom(10, 0.01), bloomkit.SplitBlockBloom(10, 0.01, key_type="int64")):
        with pytest.raises(bloomkit.KeyOverflowError):
            f.add(2**64)
        with pytest.raises(bloomkit.KeyOverflowError):
            f.add_many([1, -(2**63) - 1])
        assert f.inserted == 0
    f = bloomkit.SplitBlockBloom(10, 0.01)
    f.add_many([2**64 - 1, -(2**63)])
    assert 2**64 - 1 in f and -(2**63) in f and np.uint64(2**64 - 1) in f


def test_numpy_bools_are_normalised():
    f = bloomkit.SplitBlockBloom(10, 0.01)
    f.add(True)
    odd = np.array([2, 0, 255], dtype=np.uint8).view(bool)
    assert list(f.may_contain_many(odd)) == [True, f.may_contain(False), True]
    assert (bloomkit.hash_keys(odd, f) == bloomkit.hash_keys(np.array([True, False, True]), f)).all()
    assert (bloomkit.hash_keys(odd, "split-block") == bloomkit.hash_keys(np.array([True, False, True]),
                                                                         "split-block")).all()


def test_conversions_are_exact_or_refused():
    f = bloomkit.SplitBlockBloom(100, 0.01, key_type="int32")
    f.add_many(np.array([1, 2, 2**31 - 1, -(2**31)], dtype=np.int64))
    assert f.may_contain_many([1.0, 2, np.int8(2), 2**31 - 1]).all()
    with pytest.raises(bloomkit.MismatchError, match="int32"):
        f.add_many(np.array([2**40], dtype=np.int64))
    with pytest.raises(bloomkit.MismatchError, match="int32"):
        f.may_contain(2.5)
    g = bloomkit.SplitBlockBloom(100, 0.01, key_type="float64")
    g.add_many([0.5, 3.0])
    assert g.may_contain_many(np.array([3], dtype=np.int16))[0] and np.float32(0.5) in g
    with pytest.raises(bloomkit.MismatchError):
        g.may_contain(2**60 + 1)
    with pytest.raises(bloomkit.MismatchError, match="bool"):
        g.may_contain(True)
    h = bloomkit.SplitBlockBloom(100, 0.01, key_type="timestamp_us")
    with pytest.raises(bloomkit.MismatchError, match="nanosecond|microsecond"):
        h.add_many(np.array(["2024-01-01T00:00:00.000000001"], dtype="datetime64[ns]"))
    with pytest.raises(bloomkit.MismatchError, match="nanosecond"):
        h.add(pd.Timestamp("2024-01-01T00:00:00.000000001"))
    assert h.inserted == 0
    with pytest.raises(bloomkit.InvalidArgumentError, match="key_type"):
        bloomkit.SplitBlockBloom(10, 0.01, key_type="int128")


def test_datetimes_convert_the_same_from_numpy_pandas_arrow_and_python():
    spec = ("xxh64", 0)
    want = bloomkit.hash_keys(np.array([int((t - dt.datetime(1970, 1, 1)) / dt.timedelta(microseconds=1))
                                        for t in TIMES], dtype=np.int64), spec)
    sources = [
        _np_dt(TIMES, "us"), _np_dt(TIMES, "ns"), pa.array(TIMES, type=pa.timestamp("us")),
        pa.array(TIMES, type=pa.timestamp("ns")), pd.Series(TIMES), pd.Series(TIMES, dtype="datetime64[us]"),
        pd.Series(pd.to_datetime(TIMES, utc=True)), pd.Series(TIMES, dtype=pd.ArrowDtype(pa.timestamp("us"))), TIMES,
        [pd.Timestamp(t) for t in TIMES], [t.replace(tzinfo=UTC) for t in TIMES],
    ]
    for s in sources:
        got = bloomkit.hash_keys(s, spec, key_type="timestamp_us")
        assert (got == want).all(), type(s)
    days = [bloomkit.hash_key(d, spec, key_type="date32") for d in DATES]
    for s in (_np_dt(DATES, "D"), pa.array(DATES, type=pa.date32()), pa.array(DATES, type=pa.date64())):
        assert list(bloomkit.hash_keys(s, spec, key_type="date32")) == days
    assert days[0] == bloomkit.hash_key(struct.pack("<i", 10957), spec)  # 2000-01-01: day 10957


def test_pandas_missing_values_are_skipped_in_every_spelling():
    for dtype in (None, "string", "string[pyarrow]", object):
        f = bloomkit.SplitBlockBloom(10, 0.01)
        s = pd.Series(["a", None, "b", np.nan] if dtype is object else ["a", None, "b"], dtype=dtype)
        f.add_many(s)
        assert f.inserted == 2 and f.key_type == "bytes", dtype
        assert list(f.may_contain_many(s)) == [True, False, True] + ([False] if dtype is object else [])
    for s in (pd.Series([1, None, 3], dtype="Int64"), pd.Series([1.0, np.nan, 3.0]),
              pd.Series([1, None, 3], dtype="int64[pyarrow]"), pd.Series([1.0, pd.NA, 3.0], dtype="Float64")):
        f = bloomkit.SplitBlockBloom(10, 0.01)
        f.add_many(s)
        assert f.inserted == 2 and list(f.may_contain_many(s)) == [True, False, True], s.dtype
    times = pd.Series([BASE, pd.NaT])
    f = bloomkit.SplitBlockBloom(10, 0.01)
    f.add_many(times)
    assert f.inserted == 1 and f.key_type == "timestamp_us"
    f.add_many([None, pd.NA, pd.NaT, np.datetime64("NaT"), BASE])
    assert f.inserted == 2
    # NumPy has no missing floats: a NaN in a NumPy array (or a list of floats) is a key.
    g = bloomkit.SplitBlockBloom(10, 0.01)
    g.add_many(np.array([np.nan]))
    assert g.inserted == 1 and g.may_contain(float("nan"))
    # A single missing value is not a key.
    with pytest.raises(TypeError):
        g.add(None)
    with pytest.raises(TypeError):
        g.add(pd.NA)


def test_tables_and_frames_name_the_real_problem():
    f = bloomkit.SplitBlockBloom(10, 0.01)
    with pytest.raises(TypeError, match=r"one column.*\['a', 'b'\]"):
        f.add_many(pa.table({"a": [1], "b": [2]}))
    with pytest.raises(TypeError, match="one column"):
        f.add_many(pa.record_batch({"a": [1]}))
    with pytest.raises(TypeError, match="one column.*DataFrame"):
        f.add_many(pd.DataFrame({"a": [1], "b": [2]}))
    assert f.inserted == 0 and f.key_type == "unspecified"


def test_key_type_survives_files_pickles_and_copies(tmp_path):
    f = bloomkit.SplitBlockBloom(100, 0.01)
    f.add_many(pd.Series([1, 2, 3], dtype="Int32"))
    path = tmp_path / "f.bkf"
    f.save(str(path))
    assert bloomkit.inspect(str(path))["key_type"] == "int64"
    assert bloomkit.inspect(str(path))["version"] == 5
    for g in (bloomkit.load(str(path)), bloomkit.open(str(path)), bloomkit.from_bytes(f.to_bytes()),
              pickle.loads(pickle.dumps(f, protocol=5)), pickle.loads(pickle.dumps(f, protocol=2)), f.copy()):
        assert g.key_type == "int64", type(g)
        assert g.may_contain_many(np.array([1, 2, 3], dtype=np.int8)).all()
        with pytest.raises(bloomkit.MismatchError):
            g.may_contain("1")
    s = bloomkit.BinaryFuse(np.arange(100, dtype=np.uint16))
    assert s.key_type == "int64" and s.may_contain_many(np.arange(100)).all()


def test_merging_different_key_types_is_refused():
    a = bloomkit.SplitBlockBloom(100, 0.01)
    a.add(1)
    b = bloomkit.SplitBlockBloom(100, 0.01)
    b.add("1")
    before = a.to_bytes()
    with pytest.raises(bloomkit.MismatchError, match="int64.*bytes|bytes.*int64"):
        a.merge(b)
    assert a.to_bytes() == before
    c = bloomkit.SplitBlockBloom(100, 0.01, key_type="int64")
    c.add(np.uint8(7))
    a.merge(c)
    assert 7 in a and 1 in a


def test_old_files_load_untyped_and_answer_as_before():
    corpus = ROOT / "fuzz" / "corpus" / "file_format"
    checked = 0
    for name in ("standard_bloom", "blocked_bloom", "split_block_bloom", "binary_fuse", "ribbon", "counting_bloom",
                 "cuckoo_filter", "age_partitioned_bloom"):
        path = corpus / f"{name}.bkf"
        if not path.exists():
            continue
        data = path.read_bytes()
        f = bloomkit.from_bytes(data)
        assert f.key_type == "unspecified", name
        assert f.to_bytes() == data, name  # written back byte for byte (no version 5 for untyped filters)
        # The corpus holds the uint64 keys 0..14 (tests/file_format_corpus_test.cpp).
        keys = np.arange(15, dtype=np.uint64)
        if name not in ("age_partitioned_bloom", "cuckoo_filter"):  # those two hold other keys
            assert f.may_contain_many(keys).all(), name
            assert all(int(k) in f for k in keys), name
        # Untyped: each key hashes its own bytes, as before (a NumPy int32 its 4).
        assert (bloomkit.hash_keys(np.arange(3, dtype=np.int32), f)
                == bloomkit.hash_keys([struct.pack("<i", i) for i in range(3)], f)).all()
        checked += 1
    assert checked >= 6


def test_pandas_columns_take_the_fast_paths():
    # No Python object per key: a Series whose iteration is refused still works.
    class NoIteration(pd.Series):
        @property
        def _constructor(self):
            return NoIteration

        def __iter__(self):
            raise AssertionError("iterated key by key")

    for values, dtype in ((["a", "b"], None), (["a", "b"], object), ([1, 2], "Int64"), ([1.5, 2.5], "float64"),
                          (["a", "b"], "string[pyarrow]"), ([1, 2], "int64[pyarrow]"), (["a", "b"], "category")):
        s = NoIteration(values, dtype=dtype)
        f = bloomkit.SplitBlockBloom(10, 0.01)
        f.add_many(s)
        assert f.may_contain_many(s).all(), dtype
