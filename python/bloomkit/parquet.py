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


def foldable_filter(max_ndv: int, fpp: float = 0.01, *, key_type: Optional[str] = None) -> SplitBlockBloom:
    """An empty filter to fill and then fold to `fpp` (SplitBlockBloom.folded): twice the smallest
    power-of-two block count that holds `max_ndv` distinct values at `fpp` by the true split-block
    FPR (bloomkit.sizing.split_block_fpr; the doubling is a margin, since one filter's bits can
    land a little above the expected FPR), at most 2**22 blocks (128 MiB, the largest bitset
    Parquet readers accept). Hash: XXH64 seed 0; keys typed `key_type` (docs/KEYS.md; None:
    unspecified)."""
    return _p.foldable_filter(max_ndv, fpp, key_type=key_type)


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


def filter_for_column(values: Any, fpp: float = 0.01, writer: str = "fold",
                      ndv: Optional[int] = None) -> SplitBlockBloom:
    """The filter for a column chunk holding `values` (a pyarrow Array or ChunkedArray; nulls are
    not stored), holding the XXH64 of each value's plain encoding.

    writer='fold' (default): no distinct count needed. The filter starts at
    foldable_filter(ndv, fpp) (`ndv` an upper bound on the distinct values, default the
    number of values; a power of two of blocks), takes the values, then folds
    (SplitBlockBloom.folded) to the smallest size whose estimated FPR stays at or under `fpp`. writer='duckdb', 'arrow_cpp' or 'arrow_rs': sized as that writer sizes it for
    `ndv` distinct values (default: counted), so the bitset equals the writer's byte for byte.
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
    values, key_type = _physical(values)
    if writer == "fold":
        if ndv is None:
            ndv = len(values) - values.null_count
        f = foldable_filter(max(int(ndv), 1), fpp, key_type=key_type)
        f.add_many(values)
        return f.folded(fpp)
    if ndv is None:
        ndv = pc.count_distinct(values, mode="only_valid").as_py()
    f = SplitBlockBloom.parquet_sized(max(int(ndv), 1), fpp, writer, key_type=key_type)
    f.add_many(values)
    return f


# Julian day of 1970-01-01: INT96 timestamps store (nanoseconds of the day, Julian day).
_JULIAN_EPOCH = 2440588
_NANOS_PER_DAY = 86_400_000_000_000


def plain_values(values: Any, column: Any) -> Any:
    """The plain encodings of `values` (a pyarrow Array or ChunkedArray as pyarrow reads the
    Parquet column `column`, a pyarrow.parquet ColumnSchema), nulls dropped, as a pyarrow binary
    Array: exactly the bytes a Parquet writer hashes for each value (docs/PARQUET.md §4).

    INT32 / INT64: the integer (for dates, times and timestamps the stored count; for decimals the
    unscaled value) as 4 / 8 little-endian bytes, narrower integers widened by their signedness;
    FLOAT / DOUBLE: the IEEE bits; BYTE_ARRAY: the bytes (decimals as the unscaled value in the fewest
    big-endian two's complement bytes); FIXED_LEN_BYTE_ARRAY: the bytes (decimals as the unscaled
    value, big-endian two's complement of the column's width); INT96: nanoseconds
    of the day (8 bytes) then the Julian day (4 bytes), little-endian. UnsupportedError for
    BOOLEAN and for types this mapping does not cover (nothing is guessed)."""
    import numpy as np
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], values.type)
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    values = values.drop_null()
    t = values.type
    physical = column.physical_type
    n = len(values)

    def fixed(buffer: bytes, width: int) -> Any:
        return pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), n, [None, pa.py_buffer(buffer)]).cast(pa.binary())

    def unscaled(v: Any) -> int:
        return int(v.scaleb(t.scale))

    if physical == "BOOLEAN":
        raise _bloomkit.UnsupportedError("Parquet writers store no Bloom filter for BOOLEAN columns")
    if physical in ("INT32", "INT64"):
        width = 4 if physical == "INT32" else 8
        if pa.types.is_decimal(t):
            ints = np.array([unscaled(v) for v in values.to_pylist()], dtype=np.int64)
        elif pa.types.is_temporal(t):
            if pa.types.is_timestamp(t) and physical == "INT64":
                unit = getattr(column.logical_type, "unit", None) if column.logical_type is not None else None
                stored = {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}.get(str(unit), t.unit)
                if stored != t.unit:
                    values = values.cast(pa.timestamp(stored, t.tz))
            ints = np.asarray(values.view(pa.int32() if t.bit_width == 32 else pa.int64()).to_numpy(zero_copy_only=False))
        elif pa.types.is_integer(t):
            ints = np.asarray(values.to_numpy(zero_copy_only=False))
        else:
            raise _bloomkit.UnsupportedError(f"column {column.path}: {physical} read as {t} is not mapped to plain bytes")
        if width == 4:
            raw = (ints.astype(np.int64) & 0xFFFFFFFF).astype("<u4").tobytes()
        else:
            raw = ints.astype("<u8" if ints.dtype.kind == "u" else "<i8").tobytes()
        return fixed(raw, width)
    if physical in ("FLOAT", "DOUBLE"):
        if not pa.types.is_floating(t):
            raise _bloomkit.UnsupportedError(f"column {column.path}: {physical} read as {t} is not mapped to plain bytes")
        dtype = "<f4" if physical == "FLOAT" else "<f8"
        return fixed(np.asarray(values.to_numpy(zero_copy_only=False)).astype(dtype).tobytes(), int(dtype[-1]))
    if physical == "BYTE_ARRAY":
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
            return values.cast(pa.binary())
        if pa.types.is_decimal(t):  # the unscaled value in the fewest big-endian two's complement bytes
            def minimal(v: int) -> bytes:
                return v.to_bytes(((v if v >= 0 else ~v).bit_length() + 8) // 8, "big", signed=True)
            return pa.array([minimal(unscaled(v)) for v in values.to_pylist()], pa.binary())
        raise _bloomkit.UnsupportedError(f"column {column.path}: BYTE_ARRAY read as {t} is not mapped to plain bytes")
    if physical == "FIXED_LEN_BYTE_ARRAY":
        width = int(column.length)
        if pa.types.is_decimal(t):
            return pa.array([unscaled(v).to_bytes(width, "big", signed=True) for v in values.to_pylist()], pa.binary())
        if isinstance(t, pa.BaseExtensionType):
            values = values.storage
            t = values.type
        if pa.types.is_fixed_size_binary(t):
            return values.cast(pa.binary())
        if pa.types.is_float16(t):
            return fixed(np.asarray(values.to_numpy(zero_copy_only=False)).astype("<f2").tobytes(), 2)
        raise _bloomkit.UnsupportedError(f"column {column.path}: FIXED_LEN_BYTE_ARRAY read as {t} is not mapped")
    if physical == "INT96":
        if not pa.types.is_timestamp(t):
            raise _bloomkit.UnsupportedError(f"column {column.path}: INT96 read as {t} is not mapped to plain bytes")
        nanos = np.asarray(values.cast(pa.timestamp("ns")).view(pa.int64()).to_numpy(zero_copy_only=False))
        days, of_day = np.divmod(nanos, _NANOS_PER_DAY)
        rows = np.empty(n, dtype=[("nanos", "<i8"), ("day", "<i4")])
        rows["nanos"] = of_day
        rows["day"] = days + _JULIAN_EPOCH
        return fixed(rows.tobytes(), 12)
    raise _bloomkit.UnsupportedError(f"column {column.path}: physical type {physical} is not supported")


def add_filters(path: PathLike, output: PathLike, columns: Optional[Iterable[str]] = None,
                fpp: float = 0.01, replace: bool = False) -> list[dict[str, Any]]:
    """Writes `output`: the Parquet file `path` with a split-block Bloom filter added for every row
    group of each of `columns` (dotted paths; default every non-BOOLEAN leaf column). Every byte
    of `path` before its footer (pages, dictionaries, column and offset indexes, filters already
    there) is copied unchanged; the new filters follow, then the footer with their
    bloom_filter_offset / bloom_filter_length. A chunk that has a filter keeps it unless
    `replace`. Each filter starts at foldable_filter(the chunk's values, fpp) and is folded
    to `fpp` (as filter_for_column's writer='fold') over the chunk's
    values as pyarrow decodes them, hashed by the column's physical type (plain_values). Written
    atomically: on any error nothing is written. UnsupportedError for encrypted files, codecs or
    types pyarrow or plain_values cannot read; InvalidArgumentError for unknown columns.

    Returns one dict per column chunk of `columns`: row_group, column, action ('added',
    'replaced' or 'kept'), num_bytes and estimated_fpr of the filter it now has."""
    import pyarrow.parquet as pq

    path = os.fspath(path)
    output = os.fspath(output)
    if not (0.0 < fpp < 1.0):
        raise _bloomkit.InvalidArgumentError(f"fpp must be in (0, 1), got {fpp}")
    existing = {(r["row_group"], r["column"]): r for r in row_groups(path)}  # checks the footer first
    try:
        pf = pq.ParquetFile(path)
    except Exception as e:  # pyarrow's own refusal (an encrypted or unreadable file)
        raise _bloomkit.UnsupportedError(f"{path}: pyarrow cannot read it: {e}") from e
    schema = pf.schema
    leaves = {schema.column(i).path: i for i in range(len(schema))}
    if columns is None:
        names = [p for p, i in leaves.items() if schema.column(i).physical_type != "BOOLEAN"]
    else:
        names = list(columns)
        for name in names:
            if name not in leaves:
                raise _bloomkit.InvalidArgumentError(f"{path} has no column '{name}' (columns: {', '.join(leaves)})")
            if "." in name:
                raise _bloomkit.UnsupportedError(f"column '{name}' is nested; add-filters takes top-level columns")
            if schema.column(leaves[name]).physical_type == "BOOLEAN":
                raise _bloomkit.UnsupportedError(f"column '{name}' is BOOLEAN: Parquet stores no filter for it")
    names = [n for n in names if "." not in n]
    placements = []
    report = []
    for rg in range(pf.metadata.num_row_groups):
        todo = [n for n in names if replace or not existing[(rg, n)]["has_filter"]]
        for n in names:
            if n not in todo:
                r = existing[(rg, n)]
                report.append({"row_group": rg, "column": n, "action": "kept", "num_bytes": r["num_bytes"],
                               "estimated_fpr": r["estimated_fpr"]})
        if not todo:
            continue
        try:
            table = pf.read_row_group(rg, columns=todo)
        except Exception as e:
            raise _bloomkit.UnsupportedError(f"{path}, row group {rg}: pyarrow cannot decode it: {e}") from e
        for n in todo:
            raw = plain_values(table.column(n), schema.column(leaves[n]))
            f = foldable_filter(max(len(raw), 1), fpp)
            f.add_many(raw)
            f = f.folded(fpp)
            placements.append((rg, leaves[n], f.to_parquet_bitset()))
            report.append({"row_group": rg, "column": n,
                           "action": "replaced" if existing[(rg, n)]["has_filter"] else "added",
                           "num_bytes": f.size_in_bytes, "estimated_fpr": f.estimated_fpr})
    _p.write_with_filters(path, output, placements)
    return report


def _main(argv: Optional[list[str]] = None) -> int:
    """python -m bloomkit.parquet add-filters IN -o OUT [--columns a,b] [--fpp P] [--replace] [--json]
    (what `bloomkit parquet add-filters` runs)."""
    import argparse
    import json
    import sys

    parser = argparse.ArgumentParser(prog="bloomkit parquet add-filters",
                                     description="Add split-block Bloom filters to a Parquet file without "
                                                 "rewriting its data")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add-filters")
    add.add_argument("input")
    add.add_argument("-o", "--output", required=True)
    add.add_argument("--columns", help="comma-separated column names (default: every non-BOOLEAN column)")
    add.add_argument("--fpp", "--fpr", type=float, default=0.01)
    add.add_argument("--replace", action="store_true", help="replace filters the file already has")
    add.add_argument("--json", action="store_true", help="one JSON object per column chunk on stdout")
    args = parser.parse_args(argv)
    if os.path.exists(args.output) and os.path.samefile(args.input, args.output):
        print(f"bloomkit: -o {args.output} is the input: write a new file", file=sys.stderr)
        return 1
    columns = [c for c in args.columns.split(",") if c] if args.columns else None
    try:
        report = add_filters(args.input, args.output, columns, fpp=args.fpp, replace=args.replace)
    except (_bloomkit.Error, OSError) as e:
        print(f"bloomkit: parquet add-filters: {e}", file=sys.stderr)
        return 1 if isinstance(e, _bloomkit.InvalidArgumentError) else 2
    for r in report:
        if args.json:
            print(json.dumps(r))
    added = sum(r["action"] != "kept" for r in report)
    total = sum(r["num_bytes"] or 0 for r in report if r["action"] != "kept")
    print(f"bloomkit: wrote {args.output}: {added} filters added ({total} bytes), "
          f"{len(report) - added} kept", file=sys.stderr)
    return 0


__all__ = ["row_groups", "read_filter", "column_key_type", "probe", "skippable_row_groups", "plain_encode",
           "filter_from_bitset", "filter_for_column", "foldable_filter", "plain_values", "add_filters"]


if __name__ == "__main__":
    raise SystemExit(_main())
