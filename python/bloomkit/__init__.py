"""bloomkit: Bloom filters and their relatives over the bloomkit C++ library.

Every kind is a class: SplitBlockBloom (Parquet's filter), BlockedBloom, StandardBloom,
CountingBloom (with remove), ScalableBloom (grows), CuckooFilter (remove at ~log2(1/p) + 3
bits per key), AgePartitionedBloom (a window of the last N keys or T time units), and the
static BinaryFuse and Ribbon (built once from all keys). Every filter has a key type (docs/KEYS.md;
`f.key_type`, recorded in its file): 'bytes' (str as UTF-8, bytes), 'int64' (every integer and
bool of any width: Python, NumPy, Arrow and pandas, widened), 'float64', 'timestamp_us'
(datetimes), 'date32' (dates), and for Parquet column filters 'int32' and 'float32'. A new filter
takes the type of its first insert; a value converts into it when that is exact and raises
MismatchError, naming both types, otherwise. Keys hash exactly as in C++ and the CLI, so a filter
built here and one built by `bloomkit build` from the same keys are the same file, byte for byte.

    >>> import bloomkit
    >>> f = bloomkit.SplitBlockBloom(1_000_000, 0.01)
    >>> f.add_many(["apple", "banana"])
    >>> "apple" in f, "cherry" in f
    (True, False)
    >>> f.save("fruit.bkf"); g = bloomkit.load("fruit.bkf")

Batch calls (add_many, may_contain_many, add_hashes, may_contain_hashes) take NumPy arrays,
pyarrow Arrays/ChunkedArrays (read in place), pandas Series of any dtype or any iterable, skip
missing values (None, NaN in pandas columns, pd.NA, NaT, nulls), and release the GIL.
"""

from __future__ import annotations

from typing import Any, Union

from . import _bloomkit
from ._bloomkit import (
    BinaryFuse,
    AgePartitionedBloom,
    BlockedBloom,
    CountingBloom,
    CuckooFilter,
    Ribbon,
    ScalableBloom,
    SplitBlockBloom,
    StandardBloom,
    # exceptions
    Error,
    InvalidArgumentError,
    MismatchError,
    HashMismatchError,
    FileError,
    FormatError,
    TruncatedError,
    CorruptError,
    ChecksumError,
    UnsupportedVersionError,
    UnknownKindError,
    ConstructionError,
    UnsupportedError,
    OutOfMemoryError,
    ReadOnlyError,
    ClosedError,
    KeyOverflowError,
    FullError,
    # files
    load,
    open,
    inspect,
    # Spark's and Guava's own filters (docs/INTEROP.md)
    SparkBloom,
    SparkBloomVersion,
    GuavaBloom,
    GuavaStrategy,
    from_jvm_bytes,
    load_jvm,
)
from . import sizing

__version__ = "0.1.0"

Filter = Union[SplitBlockBloom, BlockedBloom, StandardBloom, CountingBloom, ScalableBloom, BinaryFuse, Ribbon,
               CuckooFilter, AgePartitionedBloom]
FilterClass = Union[
    "type[SplitBlockBloom]", "type[BlockedBloom]", "type[StandardBloom]", "type[CountingBloom]",
    "type[ScalableBloom]", "type[BinaryFuse]", "type[Ribbon]", "type[CuckooFilter]", "type[AgePartitionedBloom]",
]

#: Every kind's facts (the library's kind_traits: names, default hash, capabilities), in the order
#: the CLI lists them; the tables below are built from it.
_KIND_FACTS: tuple[dict[str, Any], ...] = _bloomkit.kinds()

#: The classes by the CLI's --kind spelling (bloomkit build --kind ...).
KINDS: dict[str, Any] = {k["cli_name"]: getattr(_bloomkit, k["class_name"]) for k in _KIND_FACTS}

# Other spellings: the file format's kind names, the CLI's with '_' for '-', and the class names.
_ALIASES: dict[str, Any] = {
    spelling: KINDS[k["cli_name"]]
    for k in _KIND_FACTS
    for spelling in (k["name"], k["cli_name"].replace("-", "_"), k["class_name"])
}

#: The hash each class uses unless told otherwise (as the CLI's kind table).
_DEFAULT_HASH: dict[Any, tuple[str, int]] = {KINDS[k["cli_name"]]: tuple(k["default_hash"]) for k in _KIND_FACTS}

# help(), repr(type) and tracebacks name the public module, not the extension.
for _cls in (*KINDS.values(), SparkBloom, SparkBloomVersion, GuavaBloom, GuavaStrategy,
             Error, InvalidArgumentError, MismatchError, HashMismatchError, FileError, FormatError,
             TruncatedError, CorruptError, ChecksumError, UnsupportedVersionError, UnknownKindError,
             ConstructionError, UnsupportedError, OutOfMemoryError, ReadOnlyError, ClosedError, KeyOverflowError,
             FullError):
    try:
        _cls.__module__ = "bloomkit"
    except (AttributeError, TypeError):  # pragma: no cover - a type that refuses it keeps its name
        pass


def from_bytes(data: Any) -> Any:
    """The filter stored in `data` (bytes-like, bloomkit's file format: what to_bytes, save and the
    CLI write), of whichever kind it holds, as an owning, writable filter. Every field and both
    checksums are checked first: TruncatedError, CorruptError, ChecksumError,
    UnsupportedVersionError or UnknownKindError (all FormatError, a ValueError) otherwise."""
    return _bloomkit.from_bytes(data)


def _unpickle(header: Any, payload: Any) -> Any:
    # Protocol-5 pickles: the file header in band, the words out of band.
    return _bloomkit._unpickle(header, payload)


def kind(name: str) -> Any:
    """The filter class for a kind name as the CLI spells it ("split-block", "blocked",
    "standard", "counting", "scalable", "binary-fuse", "ribbon", "cuckoo", "window"); the file format's names
    ("split_block_bloom", ...) and the class names work too. InvalidArgumentError otherwise."""
    cls = KINDS.get(name) or _ALIASES.get(name)
    if cls is None:
        raise InvalidArgumentError(
            f"unknown kind {name!r}; choose one of: {', '.join(KINDS)}"
        )
    return cls


def _hash_spec_of(kind_or_filter: Any) -> tuple[str, int]:
    if isinstance(kind_or_filter, str):
        return _DEFAULT_HASH[kind(kind_or_filter)]
    if isinstance(kind_or_filter, type):
        if kind_or_filter not in _DEFAULT_HASH:
            raise TypeError(f"{kind_or_filter!r} is not a bloomkit filter class")
        return _DEFAULT_HASH[kind_or_filter]
    if isinstance(kind_or_filter, tuple) and len(kind_or_filter) == 2:
        return (str(kind_or_filter[0]), int(kind_or_filter[1]))
    spec = getattr(kind_or_filter, "hash_spec", None)
    if spec is None:
        raise TypeError("expected a kind name, a filter class, a filter or an (algorithm, seed) tuple")
    return spec


def _key_type_of(kind_or_filter: Any, key_type: Any) -> Any:
    if key_type is not None:
        return key_type
    t = getattr(kind_or_filter, "key_type", None)
    return t if isinstance(t, str) and t != "unspecified" else None


def hash_keys(keys: Any, kind_or_filter: Any = "split-block", key_type: Any = None) -> Any:
    """The uint64 hashes (a NumPy array) that `kind_or_filter` computes for `keys`: the same
    values its add_many / may_contain_many use, so code can route or partition keys by hash
    (e.g. by block: ((h >> 32) * num_blocks) >> 32) and then call add_hashes.

    `kind_or_filter` is a filter (its hash_spec and key type), a filter class or CLI kind name
    (that kind's default hash), or an (algorithm, seed) tuple. `key_type` ('int64', 'bytes', ...;
    default: the filter's, else none) converts the keys as a filter of that type does
    (MismatchError if they do not convert); without one each key hashes its own bytes. `keys`
    is any batch input (see may_contain_many); missing values raise InvalidArgumentError.
    Releases the GIL."""
    algorithm, seed = _hash_spec_of(kind_or_filter)
    return _bloomkit._hash_keys(keys, algorithm, seed, _key_type_of(kind_or_filter, key_type))


def hash_key(key: Any, kind_or_filter: Any = "split-block", key_type: Any = None) -> int:
    """The 64-bit hash of one key, as hash_keys computes it."""
    algorithm, seed = _hash_spec_of(kind_or_filter)
    return _bloomkit._hash_key(key, algorithm, seed, _key_type_of(kind_or_filter, key_type))


#: The key types (docs/KEYS.md), as `key_type` properties and arguments spell them.
KEY_TYPES = ("unspecified", "bytes", "int64", "float64", "int32", "float32", "timestamp_us", "date32")


__all__ = [
    "SplitBlockBloom", "BlockedBloom", "StandardBloom", "CountingBloom", "ScalableBloom",
    "BinaryFuse", "Ribbon", "CuckooFilter", "AgePartitionedBloom", "Filter", "KINDS", "KEY_TYPES", "kind", "hash_key",
    "hash_keys",
    "from_bytes", "load", "open", "inspect", "sizing", "parquet",
    "Error", "InvalidArgumentError", "MismatchError", "HashMismatchError", "FileError", "FormatError",
    "TruncatedError", "CorruptError", "ChecksumError", "UnsupportedVersionError", "UnknownKindError",
    "ConstructionError", "UnsupportedError", "OutOfMemoryError", "ReadOnlyError", "ClosedError", "KeyOverflowError",
    "FullError",
]

from . import parquet  # noqa: E402  (needs the classes above)
