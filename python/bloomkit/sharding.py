"""Sharded filters: one logical split-block or blocked filter split by block
range into S shard files plus a JSON manifest (C++: bloomkit/sharding.hpp).

A key's block comes from its hash's high 32 bits, so its shard is a
function of the hash: a shard built from the keys routed to it holds exactly
the unsharded filter's bits for its block range, and a probe routed to it
gets exactly the unsharded answer. ``ShardedFilter.gather()`` reassembles
the unsharded filter when it fits, byte for byte.

    layout = ShardLayout(plan("split-block", 10**9, 0.01)["blocks"], 16)
    build_local(keys, "out/", shards=16, kind="split-block", capacity=len(keys))
    f = ShardedFilter("out/filter.manifest.json")   # refuses missing or mismatched shards
    f.may_contain_many(queries)                     # routed, answered per shard, in order

Key types: the keys' hashes are computed under the key type of the column
(docs/KEYS.md), which the manifest records in a top-level "key_type" field
(readers that do not know it skip it; absent: "unspecified", each key's own
bytes); ShardedFilter converts probe keys into it, as a filter of that type
does, and gather() gives the unsharded filter of that type.

bloomkit.spark.build_sharded and bloomkit.dask.build_sharded run the same
steps on a cluster: each partition splits its keys' hashes by shard, the
engine shuffles the pieces so that shard s's pieces meet in one task, which
builds and saves shard s; the driver writes the manifest.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from typing import Iterable

import numpy as np

import bloomkit
from bloomkit import _bloomkit as _ext

from ._engines import EngineError, hashes_of, kind_name, kmv_capacity, kmv_sketch

__all__ = [
    "ShardLayout",
    "BlockShard",
    "ShardedFilter",
    "MANIFEST_NAME",
    "route",
    "reassemble",
    "plan",
    "split_by_shard",
    "build_shard",
    "finish",
    "staging_folder",
    "build_local",
    "shard_file_name",
]

ShardLayout = _ext.ShardLayout
BlockShard = _ext.BlockShard
route = _ext.route
reassemble = _ext.reassemble

MANIFEST_NAME = "filter.manifest.json"
_SHARDABLE = {"split-block": "SplitBlockBloom", "blocked": "BlockedBloom"}


def _shardable(kind) -> str:
    name = kind_name(kind)
    if name not in _SHARDABLE:
        raise ValueError(
            f"bloomkit: kind {name!r} cannot be sharded: only split-block and blocked filters can "
            "(a key touches one block, so a block range is a shard)"
        )
    return name


def filter_class(kind):
    """The bloomkit class whose filters a sharded ``kind`` equals."""
    return getattr(bloomkit, _SHARDABLE[_shardable(kind)])


def plan(kind, capacity: int, fpr: float) -> dict:
    """The logical filter's parameters (blocks, k, capacity, target_fpr,
    hash_algorithm, hash_seed): those of ``filter_class(kind)(capacity, fpr)``."""
    return _ext.shard_plan(_shardable(kind), int(capacity), float(fpr))


def shard_file_name(s: int, shards: int) -> str:
    """The name of shard s's file, as the C++ library spells it."""
    return f"shard-{s:05d}-of-{shards:05d}.bkf"


def split_by_shard(hashes: np.ndarray, layout) -> list:
    """[(s, hashes of shard s)] for every shard that gets any (C++ routing)."""
    grouped, _, offsets = route(layout, np.ascontiguousarray(hashes, dtype=np.uint64))
    out = []
    for s in range(layout.shards):
        a, b = int(offsets[s]), int(offsets[s + 1])
        if b > a:
            out.append((s, grouped[a:b].copy()))
    return out


def build_shard(kind, params: dict, layout, s: int, hash_arrays: Iterable, folder: str) -> dict:
    """Builds shard s from the hashes routed to it and saves it (atomically)
    in ``folder``; returns its manifest entry. A retried task writes the
    same bytes again."""
    shard = BlockShard(_shardable(kind), params, layout, s)
    for h in hash_arrays:
        shard.add_hashes(np.ascontiguousarray(h, dtype=np.uint64))
    return shard.save(os.path.join(folder, shard_file_name(s, layout.shards)))


def staging_folder(path: str) -> str:
    """A new, empty folder beside ``path`` where a build writes its shards
    before ``finish`` moves them into place."""
    path = os.path.abspath(path)
    if os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
        raise FileExistsError(f"bloomkit: {path!r} exists and is not an empty folder; a sharded build writes a new one")
    staging = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
    os.makedirs(staging)
    return staging


def _with_key_type(text: str, key_type: str | None) -> str:
    """The manifest text with a top-level "key_type" field after "kind" (the
    C++ reader skips fields it does not know)."""
    if not key_type or key_type == "unspecified":
        return text
    if key_type not in bloomkit.KEY_TYPES:
        raise bloomkit.InvalidArgumentError(f"key_type must be one of {', '.join(bloomkit.KEY_TYPES)}; got {key_type!r}")
    head, sep, rest = text.partition('\n "kind": ')
    line, nl, tail = rest.partition("\n")
    if not sep or not nl:
        raise bloomkit.CorruptError("bloomkit: the manifest text has no \"kind\" line")
    return f'{head}{sep}{line}{nl} "key_type": {json.dumps(key_type)},\n{tail}'


def finish(kind, params: dict, layout, entries: list, staging: str, path: str, key_type: str | None = None) -> str:
    """Writes the manifest (recording ``key_type``, the keys' type) into
    ``staging`` and renames it to ``path``; returns the manifest's path. The
    folder appears complete or not at all."""
    text = _ext.make_manifest_json(_shardable(kind), params, layout, list(entries))
    target = os.path.join(staging, MANIFEST_NAME)
    _ext.write_manifest_json(text, target)  # validated by the library
    typed = _with_key_type(text, key_type)
    if typed != text:  # the key type, in a field the library's reader skips (written atomically)
        tmp = target + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(typed)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    path = os.path.abspath(path)
    if os.path.isdir(path):
        os.rmdir(path)  # empty (staging_folder checked it)
    os.rename(staging, path)
    return os.path.join(path, MANIFEST_NAME)


def abandon(staging: str) -> None:
    """Removes a failed build's staging folder (no partial output stays)."""
    shutil.rmtree(staging, ignore_errors=True)


def build_local(keys, path: str, shards: int, kind="split-block", capacity: int | None = None,
                fpr: float = 0.01, key_type: str | None = None) -> str:
    """A sharded filter over ``keys`` built in this process (the reference
    the engines are tested against), of key type ``key_type`` (default: the
    type the keys give, as a filter's first insert); returns the manifest path."""
    cls = filter_class(kind)
    if key_type is None:
        key_type = _ext._batch_key_type(keys)
    hashes = next(iter(hashes_of([keys], cls, "keys", key_type)))
    if capacity is None:  # the distinct keys, by the rule every build follows (docs/KEYS.md "Capacity")
        capacity = kmv_capacity(kmv_sketch([hashes]), len(hashes))
    params = plan(kind, capacity, fpr)
    layout = ShardLayout(params["blocks"], shards)
    staging = staging_folder(path)
    try:
        pieces = dict(split_by_shard(hashes, layout))
        empty = np.empty(0, dtype=np.uint64)
        entries = [build_shard(kind, params, layout, s, [pieces.get(s, empty)], staging) for s in range(shards)]
        return finish(kind, params, layout, entries, staging, path, key_type)
    except BaseException:
        abandon(staging)
        raise


class ShardedFilter:
    """Every shard of a manifest, mapped and checked against it (missing,
    resized or altered shard files and manifests that disagree with their
    files are refused with bloomkit errors naming the shard). Answers
    exactly as the unsharded filter."""

    def __init__(self, manifest_path: str):
        self._path = os.fspath(manifest_path)
        self._impl = _ext.ShardedFilter(self._path)
        self.manifest = json.loads(self._impl.manifest_json)
        with open(self._path, encoding="utf-8") as f:
            recorded = json.load(f).get("key_type", "unspecified")
        if recorded not in bloomkit.KEY_TYPES:
            raise bloomkit.CorruptError(f"bloomkit: {self._path}: field 'key_type' is not a key type: {recorded!r}")
        #: The keys' type (the manifest's "key_type"; "unspecified" when it records none).
        self.key_type = recorded
        self.manifest["key_type"] = recorded
        self.kind = "split-block" if self.manifest["kind"] == "split_block_bloom" else "blocked"
        self.filter_class = filter_class(self.kind)

    @property
    def layout(self):
        return self._impl.layout

    def may_contain_hashes(self, hashes) -> np.ndarray:
        """Answers for 64-bit hashes (routed by shard, reassembled in order)."""
        return self._impl.may_contain_hashes(np.ascontiguousarray(hashes, dtype=np.uint64))

    def may_contain_many(self, keys) -> np.ndarray:
        """Answers for keys, hashed as the filter class hashes them, converted
        into the key type (MismatchError for keys that do not convert)."""
        key_type = None if self.key_type == "unspecified" else self.key_type
        return self.may_contain_hashes(bloomkit.hash_keys(keys, self.filter_class, key_type=key_type))

    def gather(self):
        """The unsharded filter (a filter_class instance of the key type), byte for byte."""
        f = bloomkit.from_bytes(self._impl.gather_bytes())
        if self.key_type != "unspecified":
            f.adopt_key_type(self.key_type)
        return f

    def __reduce__(self):  # engines ship the path, each worker maps the files itself
        return (ShardedFilter, (self._path,))

    def __repr__(self):
        m = self.manifest
        return f"ShardedFilter({self._path!r}, kind={m['kind']}, shards={m['shards']}, inserted={m['inserted']})"


_OPEN: dict = {}


def open_cached(manifest_path: str) -> ShardedFilter:
    """One ShardedFilter per manifest per worker process (mapping is cheap,
    checking every shard's checksum is not)."""
    f = _OPEN.get(manifest_path)
    if f is None:
        f = _OPEN[manifest_path] = ShardedFilter(manifest_path)
    return f


def sharded_mask(f: ShardedFilter, arr, column: str) -> np.ndarray:
    """may_contain over an Arrow array with nulls answered False."""
    import pyarrow as pa

    from ._engines import as_arrow_checked

    arr = as_arrow_checked(arr, column)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count == 0:
        return f.may_contain_many(arr)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    out = np.zeros(len(arr), dtype=bool)
    out[valid] = f.may_contain_many(arr.drop_null())
    return out


__all__ += ["filter_class", "abandon", "open_cached", "sharded_mask", "EngineError"]
