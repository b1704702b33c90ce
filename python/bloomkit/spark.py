"""bloomkit filters in Apache Spark (PySpark), built where the data lives.

    import bloomkit.spark as bks
    f = bks.build(df, "user_id", kind="split-block", fpr=0.01)      # a SplitBlockBloom on the driver
    bks.build(df, "user_id", capacity=10**8, path="users.bkf")       # or written to a file
    small = bks.semi_join_filter(events, "user_id", f)               # rows that may join
    manifest = bks.build_sharded(df, "user_id", "users.shards", shards=16)
    hits = bks.sharded_semi_join(events, "user_id", manifest)

Split-block filters are built and probed in the executors' JVMs by default
(bloomkit's jar, shipped in this package and put on the session's classpath by
bloomkit._jvm; ``engine="python"`` forces the path below, which gives the same
bytes): no row leaves the JVM. The Python path, and every other kind:

How a build runs (docs/SCALE.md): every partition builds one filter of the
same parameters on its executor with ``mapInArrow`` (Arrow record batches go
straight into one ``add_many`` call each: no per-row Python), returns its
file bytes, and ``treeReduce`` ORs them together (depth 2 by default). OR is
associative, commutative and idempotent, so the result is bit-identical to
a single-process build of the same keys, whatever the partitioning and
however often Spark re-runs a lost task. Without ``capacity`` a first pass
counts distinct keys approximately (KMV sketch of the key hashes; exact
below 4096 distinct keys, 1.6 % standard error above; see _engines.py).

Key types (docs/KEYS.md): a build records the key type of the column's
Catalyst type (every integral type int64, float and double float64, string
and binary bytes, timestamp timestamp_us, date date32), so an int column and
a bigint column build the same filter. semi_join_filter and
sharded_semi_join compare the probe column's type with the filter's on the
driver, before any task runs: a column whose every value converts exactly
(an int column against an int64 filter) is probed, converted batch by batch;
anything else raises bloomkit.MismatchError naming both types. A filter
Spark itself built (bloomkit.SparkBloom, Spark's rule: every integer as a
long, strings as UTF-8) probes integral, string and binary columns.

Bad input (a null key, a type bloomkit cannot hash) fails the Spark job;
these functions then raise bloomkit._engines.EngineError with the column and
the problem, and write no output file.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import warnings

import numpy as np
import pyarrow as pa

import bloomkit

from . import _engines as _e
from . import _jvm
from . import sharding as _sh
from . import sizing as _sizing
from ._engines import EngineError

__all__ = ["build", "semi_join_filter", "build_sharded", "sharded_semi_join", "count_distinct", "column_type",
           "EngineError"]

# PySpark 4.3's mapInArrow goes through pandas_udf, whose version check warns
# "PySpark does not yet fully support pandas >= 3.0.0" on every call when
# pandas 3 is installed (bloomkit's pins: python/requirements). bloomkit's
# jobs hand Arrow record batches to add_many and back; no pandas object is
# made on either side, so the features that warning is about are not on the
# path. Only that warning, and only around bloomkit's own calls, is silenced:
# a user's pandas UDFs in the same process still get it.
_PANDAS_3_WARNING = r"PySpark does not yet fully support pandas >= 3\.0\.0"


def _map_in_arrow(df, fn, schema):
    """df.mapInArrow(fn, schema) without PySpark's pandas-3 warning (see above)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_PANDAS_3_WARNING, category=FutureWarning)
        return df.mapInArrow(fn, schema)



def _first_column(batch) -> pa.Array:
    return batch.column(0)


# Catalyst type names (DataType.typeName()) as (class of values, width in bytes).
_CATALYST = {
    "byte": ("integer", 1), "short": ("integer", 2), "integer": ("integer", 4), "long": ("integer", 8),
    "float": ("floating", 4), "double": ("floating", 8), "boolean": ("boolean", 1),
    "string": ("bytes", 0), "binary": ("bytes", 0), "char": ("bytes", 0), "varchar": ("bytes", 0),
    "timestamp": ("timestamp", 8), "timestamp_ntz": ("timestamp", 8), "date": ("date", 4),
}


def column_type(df, column: str) -> _e.ColumnType:
    """The key-type view of ``df[column]``'s Catalyst type (see the module docstring)."""
    field = df.schema[column]
    values, width = _CATALYST.get(field.dataType.typeName(), ("other", 0))
    return _e.ColumnType(values, width, field.dataType.simpleString())


def _job_error(e: Exception, column: str) -> Exception:
    """The EngineError inside a failed Spark job's message, or ``e``."""
    text = str(e)
    m = re.search(r"EngineError: (bloomkit: column .*?)(?:\n|$)", text)
    if m:
        return EngineError(m.group(1).strip())
    m = re.search(r"(bloomkit: column '.*?'.*?)(?:\n|$)", text)
    if m:
        return EngineError(m.group(1).strip())
    return e


def _run(column: str, thunk):
    try:
        return thunk()
    except EngineError:
        raise
    except Exception as e:  # Py4JJavaError / PythonException carrying the worker's EngineError
        err = _job_error(e, column)
        if err is e:
            raise
        raise err from None


def _counted_sketch(df, column: str, cls) -> tuple[np.ndarray, int]:
    """(KMV sketch of the kind's key hashes of the column's key type, number
    of keys), per partition and merged with treeReduce."""
    key_type = _e.key_type_for_build(column_type(df, column), column)
    schema = pa.schema([("sketch", pa.binary()), ("keys", pa.int64())])

    def sketch(batches):
        s, n = _e.kmv_sketch_counted(_e.hashes_of((_first_column(b) for b in batches), cls, column, key_type))
        yield pa.RecordBatch.from_pydict({"sketch": [s.tobytes()], "keys": [n]}, schema=schema)

    def merge(a, b):
        merged = _e.kmv_merge(np.frombuffer(a[0], dtype=np.uint64), np.frombuffer(b[0], dtype=np.uint64))
        return merged.tobytes(), a[1] + b[1]

    sketches = _map_in_arrow(df.select(column), sketch, "sketch binary, keys long").rdd.map(
        lambda r: (bytes(r[0]), int(r[1])))
    if sketches.getNumPartitions() == 0:
        return np.empty(0, dtype=np.uint64), 0
    merged, keys = _run(column, lambda: sketches.treeReduce(merge, depth=2))
    return np.frombuffer(merged, dtype=np.uint64), keys


def count_distinct(df, column: str, kind="split-block") -> tuple[float, bool]:
    """(approximate distinct count, exact?) of the column's keys: KMV sketches
    of the kind's key hashes (of the column's key type) per partition, merged
    with treeReduce; never more than the number of keys."""
    cls = kind if isinstance(kind, type) else _e.resolve_kind(kind)
    sketch, keys = _counted_sketch(df, column, cls)
    return _e.kmv_estimate(sketch, inserts=keys)


def build(df, column: str, kind="split-block", fpr: float = 0.01, capacity: int | None = None,
          path: str | None = None, depth: int = 2, engine: str = "auto"):
    """A bloomkit filter over ``df[column]``, built per partition on the
    executors and merged by ``treeReduce(depth)``. ``kind``: a CLI spelling
    ("split-block", "blocked", "standard", "counting") or the class; static
    and scalable kinds are refused (they do not merge). Returns the filter;
    with ``path`` it is also saved there (atomically, only if the job
    succeeded). The filter records the key type of the column's type.
    Raises EngineError for bad keys, naming the column.

    ``engine``: "auto" builds a split-block filter in the executors' JVMs
    (bloomkit's jar, bloomkit._jvm; null keys skipped) when the jar loads, else
    in Python workers over Arrow; "jvm" or "python" insists on one. Both give
    the same bytes."""
    cls = _e.resolve_kind(kind)
    key_type = _e.key_type_for_build(column_type(df, column), column)
    if _use_jvm(df, cls, engine):
        return _build_jvm(df, column, fpr, capacity, path, depth, key_type)
    if capacity is None:
        capacity = _e.kmv_capacity(*_counted_sketch(df, column, cls))
    capacity, fpr = int(capacity), float(fpr)
    cls(capacity, fpr, key_type=key_type)  # parameters checked on the driver, before any job
    schema = pa.schema([("filter", pa.binary())])

    def part(batches):
        f = _e.partition_filter(cls, capacity, fpr, (_first_column(b) for b in batches), column, key_type)
        yield pa.RecordBatch.from_pydict({"filter": [f.to_bytes()]}, schema=schema)

    partials = _map_in_arrow(df.select(column), part, "filter binary").rdd.map(lambda r: bytes(r[0]))
    if partials.getNumPartitions() == 0:
        result = cls(capacity, fpr, key_type=key_type)
    else:
        result = bloomkit.from_bytes(_run(column, lambda: partials.treeReduce(_e.merge_bytes, depth=depth)))
    if path is not None:
        result.save(path)
    return result


def _use_jvm(df, cls, engine: str) -> bool:
    """Whether a build or probe of kind ``cls`` runs in the JVM (bloomkit._jvm)."""
    if engine not in ("auto", "jvm", "python"):
        raise ValueError(f"bloomkit: engine must be 'auto', 'jvm' or 'python', not {engine!r}")
    if engine == "python":
        return False
    if cls is not bloomkit.SplitBlockBloom:
        if engine == "jvm":
            raise ValueError(f"bloomkit: the JVM engine builds and probes split-block filters only, not {cls.__name__}")
        return False
    ok = _jvm.ensure(df.sparkSession) if engine == "jvm" else _jvm.available(df.sparkSession)
    if not ok and engine == "jvm":
        raise RuntimeError("bloomkit: engine='jvm' but bloomkit's jar cannot be loaded into this session "
                           f"(jar: {_jvm.jar_path()}); start the session with spark.jars naming it")
    return ok


_TYPES_KEYS: list = []


def _python_records_key_types() -> bool:
    """Whether this package's own batch inserts record a key type in the file
    (docs/KEYS.md): the JVM path then does too, so both paths write the same
    bytes."""
    if not _TYPES_KEYS:
        f = bloomkit.SplitBlockBloom(1, 0.5)
        f.add_many(np.zeros(1, dtype=np.int64))
        _TYPES_KEYS.append(f.to_bytes()[15] != 0)
    return _TYPES_KEYS[0]


@contextlib.contextmanager
def _driver_file():
    """A fresh temporary file's path for passing a filter between Python and the driver JVM (the
    same machine in PySpark), removed afterwards."""
    folder = tempfile.mkdtemp(prefix="bloomkit-spark-")
    try:
        yield os.path.join(folder, "filter.bkf")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _build_jvm(df, column: str, fpr: float, capacity, path, depth: int, key_type: str):
    """build() for a split-block filter in the executors' JVMs: the KMV
    sketch (when no capacity is given) and every partition's filter are made
    there; the capacity and block count are chosen here, by the Python path's
    own functions, so the bytes are the Python path's."""
    spark = df.sparkSession
    jvm_spark = _jvm.entry(spark)
    if capacity is None:
        blob = np.frombuffer(bytes(_run(column, lambda: jvm_spark.countedDistinctSketch(df._jdf, column))), dtype="<u8")
        capacity = _e.kmv_capacity(blob[1:], int(blob[0]))
    capacity, fpr = int(capacity), float(fpr)
    bloomkit.SplitBlockBloom(capacity, fpr)  # parameters checked on the driver, before any job
    blocks = int(_sizing.split_block_blocks_for(capacity, fpr))
    typed = _python_records_key_types()
    # The file comes back through a temporary file the driver JVM writes, not as bytes through
    # py4j, whose transfer of a large filter costs as much as building it.
    with _driver_file() as tmp:
        _run(column, lambda: jvm_spark.buildToFile(df._jdf, column, blocks, capacity, fpr, int(depth), typed, tmp))
        result = bloomkit.load(tmp)
    if key_type is not None and result.key_type != key_type:  # the jar reads the column's type as this package does
        raise EngineError(f"bloomkit: column {column!r}: the JVM built {result.key_type} keys where "
                          f"{key_type} was expected (a jar of another version?)")
    if path is not None:
        result.save(path)
    return result


_BROADCAST: dict = {}


def _filter_of(key: str, bc):
    """The broadcast filter, deserialised once per Python worker process."""
    f = _BROADCAST.get(key)
    if f is None:
        f = _BROADCAST[key] = bloomkit.from_bytes(bc.value)
    return f


# Spark's own BloomFilter takes longs (every integral type), strings and binaries.
_SPARK_BLOOM_MODES = {"byte": "long", "short": "long", "integer": "long", "long": "long",
                      "string": "bytes", "char": "bytes", "varchar": "bytes", "binary": "bytes"}


def _spark_bloom_mode(df, column: str) -> str:
    name = df.schema[column].dataType.typeName()
    mode = _SPARK_BLOOM_MODES.get(name)
    if mode is None:
        raise bloomkit.MismatchError(
            f"bloomkit: column {column!r}: a SparkBloom (Spark's own BloomFilter) holds longs, strings and "
            f"binaries (Spark's rule: every integral type as a long); got a column of "
            f"{df.schema[column].dataType.simpleString()}")
    return mode


def _spark_bloom_mask(f, arr, mode: str) -> np.ndarray:
    """mightContain per value as Spark answers it (longs: every integer
    widened, as putLong; strings: UTF-8, as putString), nulls False."""
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    if mode == "long":
        longs = pc.fill_null(pc.cast(arr, pa.int64()), 0).to_numpy(zero_copy_only=False)
        return np.asarray(f.may_contain_longs(longs), dtype=bool) & valid
    return np.array([v is not None and f.may_contain(v) for v in arr.to_pylist()], dtype=bool)


def semi_join_filter(df, column: str, filt, engine: str = "auto"):
    """The rows of ``df`` whose ``column`` may be in ``filt`` (a bloomkit
    filter, or Spark's own as a bloomkit.SparkBloom): the filter is broadcast
    once and applied per Arrow batch with ``mapInArrow``, one
    ``may_contain_many`` call per batch. The column's type is compared with
    the filter's key type on the driver first: a column whose every value
    converts exactly is probed (an int column against an int64 filter keeps
    exactly the rows a join keeps, and its false positives); anything else
    raises bloomkit.MismatchError before any task runs. Null keys are dropped
    (they match nothing). Lazy: returns a DataFrame. A pre-filter: a join
    after it still removes the false positives. ``engine`` as in build: a
    SplitBlockBloom is probed in the JVM (a Spark predicate, the filter
    broadcast) when bloomkit's jar loads."""
    spark = df.sparkSession
    import hashlib

    index = df.columns.index(column)
    if isinstance(filt, bloomkit.SparkBloom):
        mode = _spark_bloom_mode(df, column)
        sblob = filt.to_bytes()
        sbc = spark.sparkContext.broadcast(sblob)
        skey = "spark:" + hashlib.blake2b(sblob, digest_size=16).hexdigest()

        def keep_spark(batches):
            f = _BROADCAST.get(skey)
            if f is None:
                f = _BROADCAST[skey] = bloomkit.SparkBloom.from_bytes(sbc.value)
            for b in batches:
                yield b.filter(pa.array(_spark_bloom_mask(f, b.column(index), mode)))

        return _map_in_arrow(df, keep_spark, df.schema)
    if not hasattr(filt, "key_type"):
        raise TypeError(f"bloomkit: semi_join_filter takes a bloomkit filter or a SparkBloom, not {type(filt).__name__}")
    _e.require_probe_converts(filt.key_type, column_type(df, column), column)
    if _use_jvm(df, type(filt), engine):
        from pyspark.sql import DataFrame

        with _driver_file() as tmp:
            filt.save(tmp)
            jdf = _run(column, lambda: _jvm.entry(spark).semiJoinFilterFromFile(df._jdf, column, tmp))
        return DataFrame(jdf, spark)
    blob = filt.to_bytes()
    key = hashlib.blake2b(blob, digest_size=16).hexdigest()
    bc = spark.sparkContext.broadcast(blob)

    def keep(batches):
        f = _filter_of(key, bc)
        for b in batches:
            mask = _e.probe_mask(f, b.column(index), column)
            yield b.filter(pa.array(mask))

    return _map_in_arrow(df, keep, df.schema)


def build_sharded(df, column: str, path: str, shards: int, kind="split-block", fpr: float = 0.01,
                  capacity: int | None = None) -> str:
    """A sharded filter over ``df[column]`` in the folder ``path`` (which
    must not exist, or be empty; on a cluster, a file system every executor
    and the driver share). Each partition routes its key hashes by shard
    (C++ routing) and emits one piece per shard it touches; ``partitionBy``
    brings shard s's pieces to task s, which builds and saves shard s. The
    driver writes the manifest and renames the staging folder into place, so
    a failed job leaves nothing at ``path``. Returns the manifest's path."""
    cls = _sh.filter_class(kind)
    key_type = _e.key_type_for_build(column_type(df, column), column)
    if capacity is None:
        capacity = _e.kmv_capacity(*_counted_sketch(df, column, cls))
    params = _sh.plan(kind, capacity, fpr)
    layout_args = (params["blocks"], int(shards))
    _sh.ShardLayout(*layout_args)  # checked on the driver
    staging = _sh.staging_folder(path)
    schema = pa.schema([("shard", pa.int32()), ("hashes", pa.binary())])

    def split(batches):
        layout = _sh.ShardLayout(*layout_args)
        for h in _e.hashes_of((_first_column(b) for b in batches), cls, column, key_type):
            pieces = _sh.split_by_shard(h, layout)
            if pieces:
                yield pa.RecordBatch.from_pydict(
                    {"shard": [s for s, _ in pieces], "hashes": [p.tobytes() for _, p in pieces]}, schema=schema)

    def build_one(index, pieces):
        layout = _sh.ShardLayout(*layout_args)
        arrays = (np.frombuffer(p, dtype=np.uint64) for _, p in pieces)
        yield _sh.build_shard(kind, params, layout, index, arrays, staging)

    try:
        routed = _map_in_arrow(df.select(column), split, "shard int, hashes binary").rdd.map(lambda r: (r[0], bytes(r[1])))
        built = routed.partitionBy(int(shards), lambda s: s).mapPartitionsWithIndex(build_one)
        entries = _run(column, built.collect)
        return _sh.finish(kind, params, _sh.ShardLayout(*layout_args), entries, staging, path, key_type)
    except BaseException:
        _sh.abandon(staging)
        raise


def sharded_semi_join(df, column: str, manifest_path: str):
    """semi_join_filter against a sharded filter: each Python worker maps the
    shard files once (checked against the manifest) and answers each Arrow
    batch by routing its hashes to the shards and reassembling in order."""
    manifest_path = os.path.abspath(manifest_path)
    sharded = _sh.ShardedFilter(manifest_path)  # refuse a broken manifest on the driver, before the job
    _e.require_probe_converts(sharded.key_type, column_type(df, column), column)
    index = df.columns.index(column)

    def keep(batches):
        f = _sh.open_cached(manifest_path)
        for b in batches:
            yield b.filter(pa.array(_sh.sharded_mask(f, b.column(index), column)))

    return _map_in_arrow(df, keep, df.schema)
