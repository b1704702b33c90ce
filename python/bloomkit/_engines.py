"""What bloomkit.spark and bloomkit.dask share: choosing the kind, the
per-partition build over Arrow arrays, the merge, the approximate distinct
count, and turning a worker's failure into a message that names the column.

Nothing here knows an engine. Each engine module maps its partitions onto
``partition_filter`` (one filter per partition, built on the worker from the
partition's Arrow arrays with one batch call per array), combines the
partial filters with ``merge_bytes`` in a tree, and sizes the filter with
``count_distinct`` when no capacity is given. docs/SCALE.md explains why the
result is bit-identical to a single-process build.
"""

from __future__ import annotations

import math
from typing import Iterable, Iterator

import numpy as np
import pyarrow as pa

import bloomkit

__all__ = [
    "EngineError",
    "ColumnType",
    "arrow_column_type",
    "pandas_column_type",
    "require_probe_converts",
    "key_type_for_build",
    "resolve_kind",
    "kind_name",
    "partition_filter",
    "merge_bytes",
    "kmv_sketch",
    "kmv_sketch_counted",
    "kmv_merge",
    "kmv_estimate",
    "capacity_from_estimate",
    "kmv_capacity",
    "as_arrow",
    "KMV_K",
]


class EngineError(ValueError):
    """A build or probe in an engine failed on bad input. The message names
    the column and the problem; no output file was written."""


# Every kind by its CLI spelling (the library's kind_traits, through bloomkit._KIND_FACTS).
_FACTS = {k["cli_name"]: k for k in bloomkit._KIND_FACTS}


def _refusal(facts) -> str:
    """Why a kind's per-partition filters cannot be combined into the single-process filter."""
    if facts["static"]:
        return ("a static filter is built once from all keys and cannot be merged; build it in one process "
                "(collect the keys or hashes) or use a Bloom kind")
    if facts["no_merge_reason"]:
        return facts["no_merge_reason"]
    return (f"a {facts['cli_name']} filter's stages depend on the order of the inserts, so per-partition filters "
            "do not merge into the single-process filter; give a capacity and use 'blocked' or 'split-block'")


# Kinds whose per-partition filters OR-merge (counting: add with saturation)
# into exactly the single-process filter: those that merge and do not grow
# (a growing kind's stages depend on the order of the inserts).
_MERGEABLE = {name: k["class_name"] for name, k in _FACTS.items() if k["merges"] and not k["grows"]}
# Kinds refused, with the reason.
_REFUSED = {name: _refusal(k) for name, k in _FACTS.items() if name not in _MERGEABLE}
_CLASS_TO_NAME = {k["class_name"]: name for name, k in _FACTS.items()}
# Spellings the engines accept besides the CLI's: the file format's names (with '-') and a few common ones.
_ALIASES = {
    **{k["name"].replace("_", "-"): name for name, k in _FACTS.items()},
    "splitblock": "split-block",
    "sbbf": "split-block",
    "fuse": "binary-fuse",
    "binary-fuse8": "binary-fuse",
}


def kind_name(kind) -> str:
    """The CLI spelling of ``kind`` (a spelling or one of bloomkit's classes)."""
    if isinstance(kind, str):
        name = kind.strip().lower().replace("_", "-")
        name = _ALIASES.get(name, name)
        if name in _MERGEABLE or name in _REFUSED:
            return name
        raise ValueError(f"bloomkit: unknown kind {kind!r}; one of {sorted(list(_MERGEABLE) + list(_REFUSED))}")
    if isinstance(kind, type) and kind.__name__ in _CLASS_TO_NAME:
        return _CLASS_TO_NAME[kind.__name__]
    raise TypeError(f"bloomkit: kind must be a name such as 'split-block' or a bloomkit filter class, not {kind!r}")


def resolve_kind(kind):
    """The bloomkit class for ``kind``, refusing kinds that cannot be built
    partition by partition (static and scalable filters) with the reason."""
    name = kind_name(kind)
    if name in _REFUSED:
        raise ValueError(f"bloomkit: kind {name!r} cannot be built partition by partition: {_REFUSED[name]}")
    return getattr(bloomkit, _MERGEABLE[name])


def as_arrow(values) -> pa.Array:
    """An Arrow array of ``values`` (Arrow arrays and chunked arrays pass
    through; pandas Series and lists are converted by pyarrow)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    return pa.array(values)


def _check_keys(arr, column: str) -> None:
    if arr.null_count:
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        first = arr.is_null().to_numpy(zero_copy_only=False).argmax()
        raise EngineError(
            f"bloomkit: column {column!r}: a null key (row {int(first)} of a batch of {len(arr)}); "
            "nulls cannot be keys: drop them first (for example df.where(col.isNotNull()) or ddf.dropna())"
        )


def partition_filter(cls, capacity: int, fpr: float, arrays: Iterable, column: str, key_type: str | None = None):
    """One partition's filter: ``cls(capacity, fpr, key_type=key_type)``
    (every partition gets the same parameters and key type, so the filters
    merge, an empty partition's too) with each Arrow array added by one
    ``add_many`` call. Raises EngineError naming ``column`` for a null key or
    keys of a type bloomkit cannot hash."""
    f = cls(capacity, fpr, key_type=key_type)
    for arr in arrays:
        arr = as_arrow_checked(arr, column)
        _check_keys(arr, column)
        try:
            f.add_many(arr)
        except EngineError:
            raise
        except bloomkit.MismatchError as e:
            raise EngineError(f"bloomkit: column {column!r}: its values do not convert into the filter's key type: "
                              f"{e}") from e
        except Exception as e:  # the binding's TypeError/ValueError for an unsupported key type
            raise EngineError(f"bloomkit: column {column!r}: cannot use its values as keys: {e}") from e
    return f


def as_arrow_checked(values, column: str):
    """as_arrow, with pyarrow's refusal (mixed or unsupported Python
    types) turned into an EngineError naming the column."""
    try:
        return as_arrow(values)
    except (pa.ArrowException, TypeError, ValueError) as e:
        raise EngineError(f"bloomkit: column {column!r}: cannot use its values as keys: {e}") from e


def _merge_into(acc, other):
    """acc merged with other. An empty untyped partial filter (a partition
    whose column had no type to give, e.g. an empty object column) is the
    identity of the merge, whatever the other's key type: it is skipped, so
    it cannot make the merge refuse two key types."""
    if other.key_type == "unspecified" and other.inserted == 0 and acc.key_type != "unspecified":
        return acc
    if acc.key_type == "unspecified" and acc.inserted == 0 and other.key_type != "unspecified":
        return other
    acc.merge(other)
    return acc


def merge_bytes(a: bytes, b: bytes) -> bytes:
    """The file bytes of from_bytes(a) merged with from_bytes(b). Merging is
    an OR (counting: a saturating add), so it is associative, commutative
    and idempotent for re-run tasks: any reduction tree gives the same bytes."""
    return _merge_into(bloomkit.from_bytes(a), bloomkit.from_bytes(b)).to_bytes()


def merge_many(blobs: list) -> bytes:
    """merge_bytes over a list (one node of a tree reduction)."""
    it = iter(blobs)
    acc = bloomkit.from_bytes(next(it))
    for b in it:
        acc = _merge_into(acc, bloomkit.from_bytes(b))
    return acc.to_bytes()


# ---- approximate distinct count: k minimum values (KMV) ---------------------
#
# The sketch of a set is its K smallest distinct 64-bit key hashes (the
# filter kind's own hash). It merges by union-and-keep-K, so it reduces in the
# same tree as the filters, and it depends only on the set of keys (not on
# order, partitioning or retries), so the capacity and therefore the filter's
# shape are reproducible. With fewer than K distinct keys the sketch holds
# them all and the count is exact; otherwise the estimate is
# (K - 1) / (h_K / 2^64), unbiased with relative standard error about
# 1/sqrt(K - 2) (Bar-Yossef et al. 2002; Beyer et al. 2007), 1.6 % at K = 4096.
KMV_K = 4096


def kmv_sketch(hash_arrays: Iterable[np.ndarray], k: int = KMV_K) -> np.ndarray:
    """The KMV sketch (sorted uint64, at most k entries) of the hashes."""
    keep = np.empty(0, dtype=np.uint64)
    for h in hash_arrays:
        h = np.asarray(h, dtype=np.uint64)
        if len(keep) >= k:
            h = h[h < keep[-1]]  # most of a large batch is dropped here, in O(n)
            if len(h) == 0:
                continue
        keep = np.unique(np.concatenate([keep, h]))[:k]
    return keep


def kmv_sketch_counted(hash_arrays: Iterable[np.ndarray], k: int = KMV_K) -> tuple[np.ndarray, int]:
    """(kmv_sketch of the hashes, how many hashes there were, repeats
    included): what kmv_capacity needs. Counted pairs merge by kmv_merge of
    the sketches and the sum of the counts."""
    seen = 0

    def counted():
        nonlocal seen
        for h in hash_arrays:
            h = np.asarray(h, dtype=np.uint64)
            seen += len(h)
            yield h

    sketch = kmv_sketch(counted(), k)
    return sketch, seen


def kmv_merge(a: np.ndarray, b: np.ndarray, k: int = KMV_K) -> np.ndarray:
    """The sketch of the union of two sets from their sketches."""
    return np.unique(np.concatenate([a, b]))[:k]


def kmv_estimate(sketch: np.ndarray, k: int = KMV_K, inserts: int | None = None) -> tuple[float, bool]:
    """(distinct count estimate, exact?) of a KMV sketch. ``inserts``, the
    number of hashes the sketch was made from (repeats included), bounds the
    estimate: an input holds no more distinct keys than keys."""
    if len(sketch) < k:
        return float(len(sketch)), True
    kth = (int(sketch[k - 1]) + 1) / 2.0**64
    estimate = (k - 1) / kth
    return (estimate if inserts is None else min(estimate, float(inserts))), False


def capacity_from_estimate(estimate: float, exact: bool, k: int = KMV_K, inserts: int | None = None) -> int:
    """The capacity a build uses for a distinct-count estimate: the count
    itself when exact, else the estimate plus two standard errors (about
    +3.1 %), so the filter meets its FPR unless the estimate was more than 2
    sigma low (about 2 % of data sets), but at most ``inserts`` (the keys the
    estimate was made from, when given): the most distinct keys there are."""
    if exact:
        return max(1, int(estimate))
    upper = math.ceil(estimate * (1.0 + 2.0 / math.sqrt(k - 2)))
    return max(1, upper if inserts is None else min(upper, int(inserts)))


def kmv_capacity(sketch: np.ndarray, inserts: int, k: int = KMV_K) -> int:
    """The capacity a build sizes for, from the KMV sketch of its keys'
    hashes and the number of keys (repeats included) it was made from."""
    return capacity_from_estimate(*kmv_estimate(sketch, k, inserts), k, inserts)


def hashes_of(arrays: Iterable, cls, column: str, key_type: str | None = None) -> Iterator[np.ndarray]:
    """The kind's key hashes of each Arrow array, converted into ``key_type``
    (None: each value's own bytes), nulls refused as in a build."""
    for arr in arrays:
        arr = as_arrow_checked(arr, column)
        _check_keys(arr, column)
        try:
            yield np.asarray(bloomkit.hash_keys(arr, cls, key_type=key_type), dtype=np.uint64)
        except EngineError:
            raise
        except Exception as e:
            raise EngineError(f"bloomkit: column {column!r}: cannot use its values as keys: {e}") from e


def probe_mask(f, arr, column: str) -> np.ndarray:
    """may_contain_many over an Arrow array, with null keys answered False
    (a null matches nothing, as in a SQL semi join)."""
    arr = as_arrow_checked(arr, column)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count == 0:
        return np.asarray(f.may_contain_many(arr), dtype=bool)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    out = np.zeros(len(arr), dtype=bool)
    out[valid] = np.asarray(f.may_contain_many(arr.drop_null()), dtype=bool)
    return out


# ---- key types of engine columns (docs/KEYS.md) ---------------------------------
#
# A column's type decides the key type a build records (every integer type
# int64, floats float64, strings and binaries bytes, timestamps
# timestamp_us, dates date32), and a probe compares it with the filter's on
# the driver, before any task runs: the probe goes ahead only when every
# value of the column's type converts exactly into the filter's key type
# (docs/KEYS.md's "What converts" read for whole column types: an int
# column into an int64 filter, a float column into a float64 filter), so a
# semi join never drops a row that joins; anything else is refused with
# MismatchError. Timestamps convert into timestamp_us exactly unless a value
# has a sub-microsecond remainder (pandas' ns columns), which the batch
# itself refuses.


class ColumnType:
    """An engine column's type for the key-type checks: the class of its values
    ("bytes", "integer", "boolean", "floating", "timestamp", "date", "other"),
    their width in bytes (numbers), and the name the engine gives the type."""

    __slots__ = ("values", "width", "name")

    def __init__(self, values: str, width: int, name: str):
        self.values, self.width, self.name = values, width, name

    @property
    def key_type(self) -> str | None:
        """The key type a filter built from the column records (None: no key type)."""
        return {"bytes": "bytes", "integer": "int64", "boolean": "int64", "floating": "float64",
                "timestamp": "timestamp_us", "date": "date32"}.get(self.values)

    def converts_into(self, key_type: str) -> bool:
        """Whether every value of this column type converts exactly into ``key_type``."""
        v, w = self.values, self.width
        if key_type == "unspecified":
            return True
        if key_type == "bytes":
            return v == "bytes"
        if key_type == "int64":
            return v in ("integer", "boolean")
        if key_type == "int32":
            return (v == "integer" and w <= 4) or v in ("boolean", "date")
        if key_type == "float64":
            return (v == "integer" and w <= 4) or v == "floating"
        if key_type == "float32":
            return (v == "integer" and w <= 2) or (v == "floating" and w <= 4)
        if key_type == "timestamp_us":
            return v == "timestamp"
        if key_type == "date32":
            return v == "date"
        return False

    def __repr__(self) -> str:
        return f"ColumnType({self.values!r}, {self.width}, {self.name!r})"


def arrow_column_type(t: pa.DataType) -> ColumnType:
    """The ColumnType of an Arrow type (a dictionary's: its values')."""
    name = str(t)
    if pa.types.is_dictionary(t):
        inner = arrow_column_type(t.value_type)
        return ColumnType(inner.values, inner.width, name)
    if pa.types.is_boolean(t):
        return ColumnType("boolean", 1, name)
    if pa.types.is_integer(t):
        return ColumnType("integer", t.bit_width // 8, name)
    if pa.types.is_floating(t):
        return ColumnType("floating", t.bit_width // 8, name)
    if (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or getattr(pa.types, "is_string_view", lambda _: False)(t)
            or getattr(pa.types, "is_binary_view", lambda _: False)(t)):
        return ColumnType("bytes", 0, name)
    if pa.types.is_timestamp(t):
        return ColumnType("timestamp", 8, name)
    if pa.types.is_date(t):
        return ColumnType("date", 4, name)
    return ColumnType("other", 0, name)


def pandas_column_type(dtype) -> ColumnType | None:
    """The ColumnType of a pandas dtype, or None where the dtype does not say
    (object columns: their values decide, batch by batch)."""
    import pandas as pd

    name = str(dtype)
    if isinstance(dtype, pd.CategoricalDtype):
        inner = pandas_column_type(dtype.categories.dtype)
        return None if inner is None else ColumnType(inner.values, inner.width, name)
    if isinstance(dtype, pd.ArrowDtype):
        return arrow_column_type(dtype.pyarrow_dtype)
    if isinstance(dtype, pd.StringDtype):
        return ColumnType("bytes", 0, name)
    if isinstance(dtype, pd.DatetimeTZDtype):
        return ColumnType("timestamp", 8, name)
    kind = getattr(dtype, "kind", "O")
    size = getattr(dtype, "itemsize", 0)
    if kind == "b":
        return ColumnType("boolean", 1, name)
    if kind in "iu":
        return ColumnType("integer", size, name)
    if kind == "f":
        return ColumnType("floating", size, name)
    if kind == "M":
        unit = np.datetime_data(np.dtype(dtype))[0] if isinstance(dtype, np.dtype) else ""
        return ColumnType("date" if unit == "D" else "timestamp", 8, name)
    if kind in "SU":
        return ColumnType("bytes", 0, name)
    if kind == "O":
        return None
    return ColumnType("other", 0, name)


def key_type_for_build(ct: ColumnType | None, column: str) -> str | None:
    """The key type a build over a column of type ``ct`` records (None: the
    values decide, for columns whose type does not say). A column whose
    values have no key type (decimal, time of day, nested) is refused on the
    driver with EngineError."""
    if ct is None:
        return None
    if ct.key_type is None:
        raise EngineError(f"bloomkit: column {column!r}: cannot use its values as keys: its type {ct.name} has no "
                          "key type (keys are strings, binaries, integers, booleans, floats, timestamps or dates; "
                          "docs/KEYS.md); cast it first")
    return ct.key_type


def require_probe_converts(filter_key_type: str, ct: ColumnType | None, column: str) -> None:
    """On the driver, before any task: raises bloomkit.MismatchError unless
    every value of a column of type ``ct`` converts exactly into the filter's
    key type (None: the column's type does not say; its batches are checked
    as they come)."""
    if ct is None or ct.converts_into(filter_key_type):
        return
    hint = ""
    if ct.values in ("integer", "floating") and filter_key_type in ("int64", "int32", "float64", "float32"):
        hint = "; only some of its values convert exactly: cast the column to the filter's type first"
    raise bloomkit.MismatchError(
        f"bloomkit: column {column!r}: the filter holds {filter_key_type} keys; got a column of {ct.name}"
        f" ({ct.key_type or 'no key type'}){hint}")
