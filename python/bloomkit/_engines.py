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
    "resolve_kind",
    "kind_name",
    "partition_filter",
    "merge_bytes",
    "kmv_sketch",
    "kmv_merge",
    "kmv_estimate",
    "capacity_from_estimate",
    "as_arrow",
    "KMV_K",
]


class EngineError(ValueError):
    """A build or probe in an engine failed on bad input. The message names
    the column and the problem; no output file was written."""


# Kinds whose per-partition filters OR-merge (counting: add with
# saturation) into exactly the single-process filter.
_MERGEABLE = {
    "split-block": "SplitBlockBloom",
    "blocked": "BlockedBloom",
    "standard": "StandardBloom",
    "counting": "CountingBloom",
}
# Kinds refused, with the reason.
_REFUSED = {
    "scalable": "a scalable filter's stages depend on the order of the inserts, so per-partition filters do not "
    "merge into the single-process filter; give a capacity and use 'blocked' or 'split-block'",
    "binary-fuse": "a static filter is built once from all keys and cannot be merged; build it in one process "
    "(collect the keys or hashes) or use a Bloom kind",
    "ribbon": "a static filter is built once from all keys and cannot be merged; build it in one process "
    "(collect the keys or hashes) or use a Bloom kind",
    "cuckoo": "cuckoo filters do not merge (each key is one fingerprint in one of two buckets, so two tables "
    "cannot be combined by OR); build it in one process or use 'counting' for a removable filter that merges",
    "window": "window (age-partitioned) filters do not merge: the slices of two streams are at different ages; "
    "feed the stream to one filter in order",
}
_CLASS_TO_NAME = {
    "SplitBlockBloom": "split-block",
    "BlockedBloom": "blocked",
    "StandardBloom": "standard",
    "CountingBloom": "counting",
    "ScalableBloom": "scalable",
    "BinaryFuse": "binary-fuse",
    "Ribbon": "ribbon",
    "CuckooFilter": "cuckoo",
    "AgePartitionedBloom": "window",
}


def kind_name(kind) -> str:
    """The CLI spelling of ``kind`` (a spelling or one of bloomkit's classes)."""
    if isinstance(kind, str):
        name = kind.strip().lower().replace("_", "-")
        aliases = {"split-block-bloom": "split-block", "splitblock": "split-block", "sbbf": "split-block",
                   "blocked-bloom": "blocked", "standard-bloom": "standard", "counting-bloom": "counting",
                   "scalable-bloom": "scalable", "fuse": "binary-fuse", "binary-fuse8": "binary-fuse"}
        name = aliases.get(name, name)
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


def partition_filter(cls, capacity: int, fpr: float, arrays: Iterable, column: str):
    """One partition's filter: ``cls(capacity, fpr)`` (every partition gets
    the same parameters, so the filters merge) with each Arrow array added
    by one ``add_many`` call. Raises EngineError naming ``column`` for a null
    key or keys of a type bloomkit cannot hash."""
    f = cls(capacity, fpr)
    for arr in arrays:
        arr = as_arrow_checked(arr, column)
        _check_keys(arr, column)
        try:
            f.add_many(arr)
        except EngineError:
            raise
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


def merge_bytes(a: bytes, b: bytes) -> bytes:
    """The file bytes of from_bytes(a) merged with from_bytes(b). Merging is
    an OR (counting: a saturating add), so it is associative, commutative
    and idempotent for re-run tasks: any reduction tree gives the same bytes."""
    fa = bloomkit.from_bytes(a)
    fa.merge(bloomkit.from_bytes(b))
    return fa.to_bytes()


def merge_many(blobs: list) -> bytes:
    """merge_bytes over a list (one node of a tree reduction)."""
    it = iter(blobs)
    acc = bloomkit.from_bytes(next(it))
    for b in it:
        acc.merge(bloomkit.from_bytes(b))
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


def kmv_merge(a: np.ndarray, b: np.ndarray, k: int = KMV_K) -> np.ndarray:
    """The sketch of the union of two sets from their sketches."""
    return np.unique(np.concatenate([a, b]))[:k]


def kmv_estimate(sketch: np.ndarray, k: int = KMV_K) -> tuple[float, bool]:
    """(distinct count estimate, exact?) of a KMV sketch."""
    if len(sketch) < k:
        return float(len(sketch)), True
    kth = (int(sketch[k - 1]) + 1) / 2.0**64
    return (k - 1) / kth, False


def capacity_from_estimate(estimate: float, exact: bool, k: int = KMV_K) -> int:
    """The capacity a build uses for a distinct-count estimate: the count
    itself when exact, else the estimate plus two standard errors (about
    +3.1 %), so the filter meets its FPR unless the estimate was more than 2
    sigma low (about 2 % of data sets)."""
    if exact:
        return max(1, int(estimate))
    return max(1, math.ceil(estimate * (1.0 + 2.0 / math.sqrt(k - 2))))


def hashes_of(arrays: Iterable, cls, column: str) -> Iterator[np.ndarray]:
    """The kind's key hashes of each Arrow array (nulls refused, as in a build)."""
    for arr in arrays:
        arr = as_arrow_checked(arr, column)
        _check_keys(arr, column)
        try:
            yield np.asarray(bloomkit.hash_keys(arr, cls), dtype=np.uint64)
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
