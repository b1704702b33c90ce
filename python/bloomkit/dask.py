"""bloomkit filters in Dask (dask.dataframe, dask.bag; any scheduler, a
distributed cluster included), built where the partitions live.

    import bloomkit.dask as bkd
    f = bkd.build(ddf, "user_id", kind="split-block", fpr=0.01)   # a SplitBlockBloom here
    f = bkd.build(bag, None, capacity=10**6)                        # a bag of keys
    f = bkd.build(bag_of_dicts, "user_id")                          # a bag of records
    hits = bkd.semi_join_filter(events, "user_id", f)               # lazy dask DataFrame
    manifest = bkd.build_sharded(ddf, "user_id", "users.shards", shards=16)

A build is one task per partition (the partition's column as one Arrow
array into one ``add_many`` call; a bag's partition is converted by pyarrow
first) and a tree of merge tasks with fan-in ``split_every`` (8) up to one
filter: the same design and the same bit-identity argument as bloomkit.spark
(docs/SCALE.md). Partial filters travel between workers as file bytes.

Key types (docs/KEYS.md): a build records the key type of the column's
dtype, as pandas columns give it (every integer dtype, nullable and
Arrow-backed ones included, int64; floats float64; strings bytes;
datetimes timestamp_us); an object column or a bag takes the type of its
values. semi_join_filter and sharded_semi_join compare the probe column's
dtype with the filter's key type before any task runs: a column whose every
value converts exactly is probed, anything else raises
bloomkit.MismatchError naming both types.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

import bloomkit

from . import _engines as _e
from . import sharding as _sh
from ._engines import EngineError

__all__ = ["build", "semi_join_filter", "build_sharded", "sharded_semi_join", "count_distinct", "column_type",
           "EngineError"]


def _delayed():
    import dask

    return dask.delayed


def _is_bag(coll) -> bool:
    import dask.bag

    return isinstance(coll, dask.bag.Bag)


def _keys_of(part, column, is_bag: bool):
    """A partition's keys as one Arrow array (bag: the elements, or
    element[column] for records)."""
    if is_bag:
        items = list(part)
        if column is not None:
            try:
                items = [r[column] for r in items]
            except (KeyError, IndexError, TypeError) as e:
                raise EngineError(f"bloomkit: column {column!r}: a record has no such field ({e!r})") from None
        return _e.as_arrow_checked(items, _name(column))
    series = part[column] if hasattr(part, "columns") else part  # a pandas DataFrame, or a Series
    return _e.as_arrow_checked(series, _name(column))


def _name(column) -> str:
    return "<elements>" if column is None else str(column)


def _parts(coll, column):
    """The collection's partitions as delayed objects (a dataframe narrowed
    to the column first, so nothing else is read)."""
    import dask.dataframe as dd

    if isinstance(coll, dd.DataFrame):
        coll = coll[[column]]
    return coll.to_delayed()


def _tree(nodes, combine, split_every: int):
    delayed = _delayed()
    while len(nodes) > 1:
        nodes = [delayed(combine)(nodes[i:i + split_every]) for i in range(0, len(nodes), split_every)]
    return nodes[0]


def _build_part(part, column, is_bag, cls, capacity, fpr, key_type=None) -> bytes:
    arr = _keys_of(part, column, is_bag)
    return _e.partition_filter(cls, capacity, fpr, [arr], _name(column), key_type).to_bytes()


def _sketch_part(part, column, is_bag, cls, key_type=None) -> tuple[np.ndarray, int]:
    return _e.kmv_sketch_counted(_e.hashes_of([_keys_of(part, column, is_bag)], cls, _name(column), key_type))


def column_type(coll, column):
    """The key-type view of a dask DataFrame's column (or a Series') dtype; None
    for a bag or an object column, whose values decide."""
    if _is_bag(coll):
        return None
    import dask.dataframe as dd

    dtype = coll[column].dtype if isinstance(coll, dd.DataFrame) else coll.dtype
    return _e.pandas_column_type(dtype)


def _sketch_merge(sketches) -> tuple[np.ndarray, int]:
    out, keys = sketches[0]
    for s, n in sketches[1:]:
        out, keys = _e.kmv_merge(out, s), keys + n
    return out, keys


def _counted_sketch(coll, column, cls, split_every: int) -> tuple[np.ndarray, int]:
    """(KMV sketch of the kind's key hashes, number of keys), per partition
    and merged in a tree."""
    key_type = _e.key_type_for_build(column_type(coll, column), _name(column))
    delayed = _delayed()
    is_bag = _is_bag(coll)
    parts = [delayed(_sketch_part)(p, column, is_bag, cls, key_type) for p in _parts(coll, column)]
    if not parts:
        return np.empty(0, dtype=np.uint64), 0
    return _tree(parts, _sketch_merge, split_every).compute()


def count_distinct(coll, column, kind="split-block", split_every: int = 8) -> tuple[float, bool]:
    """(approximate distinct count, exact?) by KMV sketches of the kind's key
    hashes, merged in a tree (see _engines.py for the error); never more
    than the number of keys."""
    cls = kind if isinstance(kind, type) else _e.resolve_kind(kind)
    sketch, keys = _counted_sketch(coll, column, cls, split_every)
    return _e.kmv_estimate(sketch, inserts=keys)


def build(coll, column, kind="split-block", fpr: float = 0.01, capacity: int | None = None,
          path: str | None = None, split_every: int = 8):
    """A bloomkit filter over a dask DataFrame's ``column`` (or a Series, or a
    Bag: its elements when ``column`` is None, element[column] otherwise),
    one task per partition and a merge tree of fan-in ``split_every``.
    Same contract as bloomkit.spark.build; the filter records the key type
    of the column's dtype (an object column or a bag: of its values)."""
    cls = _e.resolve_kind(kind)
    key_type = _e.key_type_for_build(column_type(coll, column), _name(column))
    if capacity is None:
        capacity = _e.kmv_capacity(*_counted_sketch(coll, column, cls, split_every))
    capacity, fpr = int(capacity), float(fpr)
    cls(capacity, fpr, key_type=key_type)
    delayed = _delayed()
    is_bag = _is_bag(coll)
    parts = [delayed(_build_part)(p, column, is_bag, cls, capacity, fpr, key_type) for p in _parts(coll, column)]
    if not parts:
        result = cls(capacity, fpr, key_type=key_type)
    else:
        result = bloomkit.from_bytes(_tree(parts, _e.merge_many, split_every).compute())
    if path is not None:
        result.save(path)
    return result


_FILTERS: dict = {}


def _semi_part(df, column, blob: bytes, key: str):
    f = _FILTERS.get(key)
    if f is None:
        f = _FILTERS[key] = bloomkit.from_bytes(blob)
    mask = _e.probe_mask(f, pa.array(df[column]) if len(df) else pa.array([], pa.int64()), column)
    return df[mask]


def semi_join_filter(ddf, column: str, filt):
    """The rows of ``ddf`` whose ``column`` may be in ``filt``: the filter's
    bytes enter the graph once (one delayed node every partition task
    depends on), each worker deserialises it once, and each partition is
    answered by one ``may_contain_many`` call. The column's dtype is compared
    with the filter's key type first (bloomkit.MismatchError, before any
    task, unless every value converts exactly). Lazy; nulls match nothing."""
    import hashlib

    if not hasattr(filt, "key_type"):
        raise bloomkit.MismatchError(
            f"bloomkit: semi_join_filter takes a bloomkit filter; got a {type(filt).__name__} (Spark's and Guava's "
            "own filters hash by their libraries' rules: probe them in their engine)")
    _e.require_probe_converts(filt.key_type, column_type(ddf, column), column)
    blob = filt.to_bytes()
    key = hashlib.blake2b(blob, digest_size=16).hexdigest()
    shared = _delayed()(blob, pure=True)
    return ddf.map_partitions(_semi_part, column, shared, key, meta=ddf._meta)


def _split_part(part, column, is_bag, cls, layout_args, key_type=None) -> dict:
    layout = _sh.ShardLayout(*layout_args)
    pieces = {}
    for h in _e.hashes_of([_keys_of(part, column, is_bag)], cls, _name(column), key_type):
        for s, p in _sh.split_by_shard(h, layout):
            pieces[s] = p
    return pieces


def _piece(split: dict, s: int) -> np.ndarray:
    """Shard s's hashes of one split task (a task of its own, so only this
    piece, not the whole split, moves to shard s's task)."""
    return split.get(s, np.empty(0, dtype=np.uint64))


def _build_one(kind, params, layout_args, s, folder, *pieces) -> dict:
    layout = _sh.ShardLayout(*layout_args)
    return _sh.build_shard(kind, params, layout, s, pieces, folder)


def build_sharded(coll, column, path: str, shards: int, kind="split-block", fpr: float = 0.01,
                  capacity: int | None = None) -> str:
    """A sharded filter in the folder ``path`` (see bloomkit.spark.build_sharded):
    one task per partition splits its key hashes by shard, one task per
    shard takes its piece from every split task, builds and saves the
    shard; the manifest is written last and the staging folder renamed into
    place, so a failure leaves nothing at ``path``. Returns the manifest path."""
    cls = _sh.filter_class(kind)
    key_type = _e.key_type_for_build(column_type(coll, column), _name(column))
    if key_type is None:
        raise EngineError(f"bloomkit: column {_name(column)!r}: a sharded build needs the key type from the column's "
                          "dtype (an object column or a bag does not say it): cast the column first")
    if capacity is None:
        capacity = _e.kmv_capacity(*_counted_sketch(coll, column, cls, 8))
    params = _sh.plan(kind, capacity, fpr)
    layout_args = (params["blocks"], int(shards))
    layout = _sh.ShardLayout(*layout_args)
    delayed = _delayed()
    is_bag = _is_bag(coll)
    staging = _sh.staging_folder(path)
    try:
        splits = [delayed(_split_part)(p, column, is_bag, cls, layout_args, key_type) for p in _parts(coll, column)]
        built = [delayed(_build_one)(kind, params, layout_args, s, staging, *[delayed(_piece)(sp, s) for sp in splits])
                 for s in range(int(shards))]
        import dask

        entries = list(dask.compute(*built))
        return _sh.finish(kind, params, layout, entries, staging, path, key_type)
    except BaseException:
        _sh.abandon(staging)
        raise


def _sharded_part(df, column, manifest_path):
    f = _sh.open_cached(manifest_path)
    if len(df) == 0:
        return df
    return df[_sh.sharded_mask(f, pa.array(df[column]), column)]


def sharded_semi_join(ddf, column: str, manifest_path: str):
    """semi_join_filter against a sharded filter (each worker maps the shard
    files once; batches are routed by shard and reassembled in order)."""
    manifest_path = os.path.abspath(manifest_path)
    sharded = _sh.ShardedFilter(manifest_path)
    _e.require_probe_converts(sharded.key_type, column_type(ddf, column), column)
    return ddf.map_partitions(_sharded_part, column, manifest_path, meta=ddf._meta)
