"""bloomkit.parquet: the split-block Bloom filters inside Parquet files.

A Parquet writer may store, per row group and column, a split-block Bloom filter of the
column's values (apache/parquet-format BloomFilter.md). bloomkit reads them bit for bit, answers
as the writer's engine would, and builds filters equal to what a writer stores.

    >>> from bloomkit import parquet
    >>> parquet.row_groups("events.parquet")[0]["has_filter"]
    True
    >>> parquet.skippable_row_groups("events.parquet", "user_id", [42, 7])
    [0, 2]

Values are hashed as Parquet hashes them: XXH64 (seed 0) of the value's plain encoding (INT32 as
4 little-endian bytes, INT64 as 8, FLOAT/DOUBLE as IEEE bits, BYTE_ARRAY as its bytes, ...). A
filter read from a file carries its column's physical type as its key type (INT32 'int32', INT64
'int64', FLOAT 'float32', DOUBLE 'float64', byte arrays 'bytes'; docs/KEYS.md), so probing it with
values of another type converts them when that is exact (an int or a NumPy int64 2 into an INT32
column's filter) and raises MismatchError otherwise (a str, or 2**40, into int32).
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Union

from . import _bloomkit
from ._bloomkit import SplitBlockBloom

_p = _bloomkit._parquet

PathLike = Union[str, "os.PathLike[str]"]
Column = Union[str, int]


def row_groups(path: PathLike) -> list[dict[str, Any]]:
    """One dict per (row group, column): row_group, column (dotted path), physical_type,
    num_rows, has_filter, and for a filter its offset, num_bytes (the bitset), fill_ratio,
    estimated_cardinality and estimated_fpr. Every offset and length is checked against the
    file (CorruptError / TruncatedError otherwise)."""
    return _p.row_groups(path)


def read_filter(path: PathLike, column: Column, row_group: int) -> Optional[SplitBlockBloom]:
    """The filter of `column` (name, dotted path or index) in `row_group` as a SplitBlockBloom
    (XXH64 seed 0, the writer's exact bits), or None when the writer stored none. Its key_type is
    the column's physical type (column_key_type)."""
    return _p.read_filter(path, column, row_group)


def column_key_type(path: PathLike, column: Column) -> str:
    """The key type of `column`'s filters: its physical type (INT32 'int32', INT64 'int64', FLOAT
    'float32', DOUBLE 'float64', BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY / INT96 'bytes'; BOOLEAN
    'unspecified', which has no filters)."""
    return _p.column_key_type(path, column)


def probe(path: PathLike, column: Column, values: Iterable[Any]) -> list[dict[str, Any]]:
    """Per row group: row_group, has_filter, may_contain (one bool per value) and skip (True
    when the row group has a filter and none of `values` may be in it, so a reader can skip it).

    Values: str is converted by the column's type as the CLI does (numbers, dates, timestamps,
    decimals, UUIDs from text); bytes are the plain-encoded value itself (BYTE_ARRAY: the bytes);
    int, float and bool are converted like their text."""
    return _p.probe(path, column, list(values))


def skippable_row_groups(path: PathLike, column: Column, values: Iterable[Any]) -> list[int]:
    """The row groups a reader can skip when looking for any of `values` in `column`."""
    return [r["row_group"] for r in probe(path, column, values) if r["skip"]]


def plain_encode(path: PathLike, column: Column, value: Any) -> bytes:
    """The bytes Parquet hashes for `value` in this file's `column` (see probe for conversions)."""
    return _p.plain_encode(path, column, value)


def filter_from_bitset(bitset: Any) -> SplitBlockBloom:
    """A SplitBlockBloom holding a Parquet bitset (bytes-like, a positive multiple of 32 bytes;
    CorruptError otherwise), for example one read from a file by another tool."""
    return _p.filter_from_bitset(bitset)


# Arrow types whose Parquet physical type is INT32 although they are narrower: their plain
# encoding is the value widened to 4 bytes (sign- or zero-extended, as the writer stores it).
_WIDEN_TO_INT32 = {"int8", "int16", "uint8", "uint16"}


def _physical(values: Any) -> tuple[Any, Optional[str]]:
    """`values` as the Parquet column's physical values, and their key type: integers of 4 bytes
    or less INT32 ('int32'), 8 bytes INT64 ('int64'), float FLOAT, double DOUBLE, strings and
    binaries byte arrays ('bytes'); dates, times, timestamps and durations as the integers the
    column stores (their counts); float16 as its FIXED_LEN_BYTE_ARRAY(2) bytes. Other types
    (decimals) stay as they are, untyped (None)."""
    import pyarrow as pa

    t = values.type
    if str(t) in _WIDEN_TO_INT32:
        return values.cast(pa.int32()), "int32"
    if pa.types.is_integer(t):
        return values, "int32" if t.bit_width == 32 else "int64"
    if pa.types.is_float16(t):
        return values.view(pa.binary(2)), "bytes"
    if pa.types.is_float32(t):
        return values, "float32"
    if pa.types.is_float64(t):
        return values, "float64"
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return values.cast(pa.int32()), "int32"
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_duration(t) or pa.types.is_date64(t):
        return values.cast(pa.int64()), "int64"
    if (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)):
        return values, "bytes"
    return values, None


def filter_for_column(values: Any, fpp: float = 0.01, writer: str = "duckdb",
                      ndv: Optional[int] = None) -> SplitBlockBloom:
    """The filter a Parquet writer stores for a column chunk holding `values` (a pyarrow Array or
    ChunkedArray; nulls are not stored): sized as `writer` ('duckdb', 'arrow_cpp' or 'arrow_rs')
    sizes it for `ndv` distinct values (default: counted) at `fpp`, holding the XXH64 of each
    value's plain encoding. Equal, byte for byte, to the writer's bitset for the same values.
    BOOLEAN columns are refused (writers store no filter for them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        values = pa.array(values)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    name = str(values.type)
    if name == "bool":
        raise _bloomkit.UnsupportedError("Parquet writers store no Bloom filter for BOOLEAN columns")
    if ndv is None:
        ndv = pc.count_distinct(values, mode="only_valid").as_py()
    values, key_type = _physical(values)
    f = SplitBlockBloom.parquet_sized(max(int(ndv), 1), fpp, writer, key_type=key_type)
    f.add_many(values)
    return f


__all__ = ["row_groups", "read_filter", "column_key_type", "probe", "skippable_row_groups", "plain_encode",
           "filter_from_bitset", "filter_for_column"]
