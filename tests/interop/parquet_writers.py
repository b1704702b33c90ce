"""Parquet Bloom filters from Arrow C++ (pyarrow) and parquet-mr (Spark), against bloomkit.

Called by spark_check.py --parquet (one Spark session for everything):

1. Writes files over every type each writer supports, several row groups each, with filters:
   pyarrow 26.0.1 (``bloom_filter_options``; decimals as FIXED_LEN_BYTE_ARRAY, a second
   file with ``store_decimal_as_integer``, a third with ``use_deprecated_int96_timestamps``),
   Spark 4.3.0's parquet-mr 1.17.0 (``parquet.bloom.filter.enabled``; sized by
   ``expected.ndv`` in one file, by ``max.bytes`` in another, INT96 timestamps in a third),
   and arrow-rs (the Rust ``parquet`` crate 60.1.0, tests/interop/arrow_rs: built and run when
   $BLOOMKIT_ARROW_RS names its binary, else its committed output in
   tests/fixtures/parquet_writers, with the answers its own reader gave then).
2. For every row group and column: the plain-encoded bytes of every distinct value (read back
   with pyarrow) go to WORK/NAME.values.json, which tests/parquet_writers_test.cpp reads to
   rebuild each filter bit for bit; 150 present and 150 absent values are probed by
   parquet-mr's own reader (ParquetProbe probe), by arrow-rs's reader for arrow-rs files, and by
   ``bloomkit parquet probe --hex``, which must agree on every one.
3. bloomkit writes files (``bloomkit parquet write``); pyarrow reads their values, Spark reads
   them, and parquet-mr's row-group filter (ParquetProbe rowgroups: what Spark's reader skips)
   must keep every row group holding a present value and skip some for absent ones.
"""
import decimal
import json
import os
import random
import struct
import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

# Rows per file (tests/fixtures/parquet_writers/generate.sh makes the committed, smaller set).
ROWS = int(os.environ.get("BLOOMKIT_PARQUET_ROWS", "6000"))
ROW_GROUP = ROWS // 3


def harness_classpath():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    import pyspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    return os.path.join(root, "build", "jvm", "bloomkit-jvm-interop-0.1.0.jar") + ":" + os.path.join(jars, "*")


def java(*args):
    out = subprocess.run(["java", "-cp", harness_classpath(), "bloomkit.interop.ParquetProbe", *args],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"ParquetProbe {args[0]} failed: {out.stderr[-2000:]}")
    return out.stdout


# ---- writing ------------------------------------------------------------------------------------


def arrow_table(rng):
    """Every type Arrow C++ writes a Bloom filter for, ROWS rows with repeats and a few nulls."""
    def ints(lo, hi):
        return [rng.randrange(lo, hi) for _ in range(ROWS)]

    def with_nulls(values):
        return [None if i % 97 == 5 else v for i, v in enumerate(values)]

    distinct = ROWS // 4  # fewer distinct values than rows: dictionary pages, repeated values
    pool = lambda make: [make() for _ in range(distinct)]  # noqa: E731
    pick = lambda values: [values[rng.randrange(len(values))] for _ in range(ROWS)]  # noqa: E731
    floats = pool(lambda: rng.uniform(-1e6, 1e6)) + [0.0, -0.0, float("inf"), float("-inf")]
    strings = pool(lambda: "".join(rng.choice("abcdeé✓😀 ") for _ in range(rng.randrange(0, 12)))) + [""]
    cols = {
        "i8": pa.array(with_nulls(ints(-128, 128)), pa.int8()),
        "i16": pa.array(ints(-32768, 32768), pa.int16()),
        "i32": pa.array(pick(pool(lambda: rng.randrange(-2**31, 2**31))), pa.int32()),
        "i64": pa.array(pick(pool(lambda: rng.randrange(-2**63, 2**63))), pa.int64()),
        "u8": pa.array(ints(0, 256), pa.uint8()),
        "u16": pa.array(ints(0, 65536), pa.uint16()),
        "u32": pa.array(pick(pool(lambda: rng.randrange(0, 2**32))), pa.uint32()),
        "u64": pa.array(pick(pool(lambda: rng.randrange(0, 2**64))), pa.uint64()),
        "f32": pa.array(pick(floats), pa.float32()),
        "f64": pa.array(pick(floats), pa.float64()),
        "dec9_2": pa.array(pick(pool(lambda: decimal.Decimal(rng.randrange(-10**9 + 1, 10**9)).scaleb(-2))),
                           pa.decimal128(9, 2)),
        "dec18_4": pa.array(pick(pool(lambda: decimal.Decimal(rng.randrange(-10**18 + 1, 10**18)).scaleb(-4))),
                            pa.decimal128(18, 4)),
        "dec30_5": pa.array(pick(pool(lambda: decimal.Decimal(rng.randrange(-10**30 + 1, 10**30)).scaleb(-5))),
                            pa.decimal128(30, 5)),
        "date": pa.array(ints(-20000, 40000), pa.int32()).cast(pa.date32()),
        "time_ms": pa.array(ints(0, 86400000), pa.int32()).cast(pa.time32("ms")),
        "time_us": pa.array(ints(0, 86400000000), pa.int64()).cast(pa.time64("us")),
        "time_ns": pa.array(ints(0, 86400000000000), pa.int64()).cast(pa.time64("ns")),
        "ts_ms": pa.array(ints(-2**40, 2**40), pa.int64()).cast(pa.timestamp("ms")),
        "ts_us": pa.array(ints(-2**50, 2**50), pa.int64()).cast(pa.timestamp("us")),
        "ts_ns": pa.array(ints(-2**62, 2**62), pa.int64()).cast(pa.timestamp("ns")),
        "ts_us_utc": pa.array(ints(-2**50, 2**50), pa.int64()).cast(pa.timestamp("us", tz="UTC")),
        "str": pa.array(with_nulls(pick(strings)), pa.string()),
        "lstr": pa.array(pick(strings), pa.large_string()),
        "bin": pa.array(pick(pool(lambda: rng.randbytes(rng.randrange(0, 20)))) , pa.binary()),
        "fsb7": pa.array(pick(pool(lambda: rng.randbytes(7))), pa.binary(7)),
        "uuid": pa.ExtensionArray.from_storage(pa.uuid(), pa.array(pick(pool(lambda: uuid.UUID(int=rng.getrandbits(128)).bytes)), pa.binary(16))),
    }
    return pa.table(cols)


def write_arrow(work, rng):
    table = arrow_table(rng)
    options = {name: {"ndv": ROW_GROUP, "fpp": 0.01} for name in table.column_names}
    files = []
    path = os.path.join(work, "arrow_cpp.parquet")
    pq.write_table(table, path, row_group_size=ROW_GROUP, bloom_filter_options=options)
    files.append(("arrow_cpp", path, f"pyarrow 26.0.1 (Arrow C++), ndv {ROW_GROUP}, fpp 0.01, decimals as FLBA"))
    path = os.path.join(work, "arrow_cpp_int_decimals.parquet")
    small = table.select(["dec9_2", "dec18_4", "dec30_5", "i64"])
    pq.write_table(small, path, row_group_size=ROW_GROUP, store_decimal_as_integer=True,
                   bloom_filter_options={"dec9_2": {"ndv": 500, "fpp": 0.05}, "dec18_4": True, "dec30_5": {"fpp": 0.2, "ndv": 100}})
    files.append(("arrow_cpp_int_decimals", path,
                  "pyarrow store_decimal_as_integer; filters on the decimals only, default and custom sizes"))
    path = os.path.join(work, "arrow_cpp_int96.parquet")
    int96 = table.select(["ts_ms", "ts_us", "ts_ns", "ts_us_utc", "i64"])
    pq.write_table(int96, path, row_group_size=ROW_GROUP, use_deprecated_int96_timestamps=True,
                   bloom_filter_options={name: {"ndv": ROW_GROUP, "fpp": 0.01} for name in int96.column_names})
    files.append(("arrow_cpp_int96", path, "pyarrow use_deprecated_int96_timestamps (timestamps as INT96)"))
    return files


def write_spark(spark, work):
    from pyspark.sql import functions as F

    idc = F.col("id")
    df = spark.range(0, ROWS).select(
        ((idc * 37) % 256 - 128).cast("byte").alias("b"),
        ((idc * 7919) % 65536 - 32768).cast("short").alias("s"),
        ((idc * 2654435761) % 4294967296 - 2147483648).cast("int").alias("i"),
        (idc * 1000000007 - 3000000000000).alias("l"),
        (idc * 0.37 - 500).cast("float").alias("f"),
        (idc * 1.7e-3 - 3.0).cast("double").alias("d"),
        (idc * 3.21).cast("decimal(9,2)").alias("dec9_2"),
        (idc * 12345.6789).cast("decimal(18,4)").alias("dec18_4"),
        (idc * 1234567890123.45678).cast("decimal(30,5)").alias("dec30_5"),
        F.date_add(F.lit("2000-01-01").cast("date"), (idc % 5000).cast("int")).alias("date"),
        F.timestamp_micros(idc * 123456789).alias("ts"),
        F.concat(F.lit("s-"), (idc % 2500).cast("string"), F.lit("-é😀")).alias("str"),
        F.concat(F.lit("b"), (idc % 1000).cast("string")).cast("binary").alias("bin"),
        (idc % 2 == 0).alias("bool"),
    )
    files = []
    # parquet-mr reads expected.ndv only per column ("...expected.ndv#COLUMN"); without it
    # every filter is parquet.bloom.filter.max.bytes (default 1 MiB) long.
    per_column_ndv = {f"parquet.bloom.filter.expected.ndv#{c}": "3000" for c in df.columns}
    for name, ts_type, options in [
        ("parquet_mr_ndv", "TIMESTAMP_MICROS", per_column_ndv),
        ("parquet_mr_max_bytes", "TIMESTAMP_MILLIS", {"parquet.bloom.filter.max.bytes": "8192"}),
        ("parquet_mr_int96", "INT96", per_column_ndv),
    ]:
        spark.conf.set("spark.sql.parquet.outputTimestampType", ts_type)
        out = os.path.join(work, name + ".spark")
        writer = (df.coalesce(1).write.mode("overwrite")
                  .option("parquet.bloom.filter.enabled", "true")
                  .option("parquet.block.size", str(64 * 1024))
                  .option("parquet.page.size", str(8 * 1024))
                  .option("compression", "snappy"))
        for key, value in options.items():
            writer = writer.option(key, value)
        writer.parquet(out)
        part = [f for f in os.listdir(out) if f.endswith(".parquet")]
        if len(part) != 1:
            raise RuntimeError(f"Spark wrote {part} in {out}")
        path = os.path.join(work, name + ".parquet")
        os.replace(os.path.join(out, part[0]), path)
        files.append((name, path, f"Spark 4.3.0 / parquet-mr 1.17.0, {ts_type}, " +
                      ("expected.ndv#COLUMN=3000" if options is per_column_ndv
                       else ", ".join(f"{k}={v}" for k, v in options.items()))))
    return files


FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "tests", "fixtures", "parquet_writers")
ARROW_RS_NOTES = {
    "arrow_rs": "arrow-rs (parquet 60.1.0), ndv 1000, fpp 0.01, dictionaries on, filters after each row group",
    "arrow_rs_defaults": "arrow-rs defaults (ndv 1048576, fpp 0.05, folded), no dictionaries but on str, "
                         "no filter for dictionary-only chunks, filters at the end; bin asked for none "
                         "(set_column_bloom_filter_enabled false) but gets them",
}


def write_arrow_rs(work):
    """arrow-rs's files: made now by the generator if $BLOOMKIT_ARROW_RS names it, else the
    committed ones (made by the same generator; tests/fixtures/parquet_writers/generate.sh)."""
    import shutil

    binary = os.environ.get("BLOOMKIT_ARROW_RS")
    if binary:
        subprocess.run([binary, "write", work], check=True)
    files = []
    for name, note in ARROW_RS_NOTES.items():
        path = os.path.join(work, name + ".parquet")
        if not binary:
            shutil.copyfile(os.path.join(FIXTURES, name + ".parquet"), path)
            note += " (committed file)"
        files.append((name, path, note))
    return files


def arrow_rs_answers(name, path, probe_path):
    """arrow-rs's own reader (Sbbf::check) on every probe: live, or as recorded when the
    committed file was made (the probes are drawn with a seed of the file's name, so they repeat)."""
    binary = os.environ.get("BLOOMKIT_ARROW_RS")
    answers_path = os.path.join(os.path.dirname(path), name + ".arrow_rs_answers.tsv")
    if binary:
        subprocess.run([binary, "probe", path, probe_path, answers_path], check=True)
    else:
        answers_path = os.path.join(FIXTURES, name + ".arrow_rs_answers.tsv")
    answers = {}
    with open(answers_path) as lines:
        for line in lines:
            rg, c, h, a = line.rstrip("\n").split("\t")
            answers[(int(rg), c, h)] = a
    return answers


# ---- plain encoding of values (what a Parquet Bloom filter hashes) -----------------------------


def plain_values(array, column_meta, type_length):
    """The plain-encoded bytes (no length prefix) of each non-null value of one column chunk."""
    physical = column_meta.physical_type
    if isinstance(array, pa.ExtensionArray):  # UUID: its 16-byte storage
        array = array.storage
    arrow_type = array.type
    out = []
    if pa.types.is_decimal(arrow_type):
        scale = arrow_type.scale
        for v in array.to_pylist():
            if v is None:
                continue
            unscaled = int(v.scaleb(scale))
            if physical == "INT32":
                out.append((unscaled & 0xFFFFFFFF).to_bytes(4, "little"))
            elif physical == "INT64":
                out.append((unscaled & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little"))
            elif physical == "BYTE_ARRAY":  # arrow-rs: the shortest two's-complement big-endian form
                width = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
                out.append(unscaled.to_bytes(width, "big", signed=True))
            else:
                out.append(unscaled.to_bytes(type_length, "big", signed=True))
        return out
    if physical == "INT96":  # read as ns timestamps: 8-byte LE nanoseconds of the day, 4-byte LE Julian day
        day = 86400 * 10**9
        ns = array.cast(pa.int64()).to_pylist()
        return [(v % day).to_bytes(8, "little") + (v // day + 2440588).to_bytes(4, "little") for v in ns if v is not None]
    if physical == "BOOLEAN":  # arrow-rs hashes a bool as one byte, 0 or 1
        return [b"\x01" if v else b"\x00" for v in array.to_pylist() if v is not None]
    if pa.types.is_float16(arrow_type):
        return [struct.pack("<e", float(v)) for v in array.to_pylist() if v is not None]
    if physical in ("INT32", "INT64"):
        width = 4 if physical == "INT32" else 8
        if not pa.types.is_integer(arrow_type):
            array = array.cast(pa.int32() if width == 4 else pa.int64())
        mask = (1 << (8 * width)) - 1
        return [(v & mask).to_bytes(width, "little") for v in array.to_pylist() if v is not None]
    if physical == "FLOAT":
        return [struct.pack("<f", v) for v in array.to_pylist() if v is not None]
    if physical == "DOUBLE":
        return [struct.pack("<d", v) for v in array.to_pylist() if v is not None]
    if physical in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
        return [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in array.to_pylist() if v is not None]
    raise ValueError(f"no plain encoding here for {physical}")


def absent_values(physical, type_length, present, rng, count):
    present = set(present)
    if physical == "BOOLEAN":
        return [v for v in (b"\x00", b"\x01") if v not in present]
    out = []
    while len(out) < count:
        if physical == "INT32":
            v = rng.getrandbits(32).to_bytes(4, "little")
        elif physical in ("INT64", "DOUBLE"):
            v = rng.getrandbits(64).to_bytes(8, "little")
        elif physical == "FLOAT":
            v = rng.getrandbits(32).to_bytes(4, "little")
        elif physical == "FIXED_LEN_BYTE_ARRAY":
            v = rng.randbytes(type_length)
        elif physical == "INT96":
            v = rng.getrandbits(64).to_bytes(8, "little") + rng.getrandbits(32).to_bytes(4, "little")
        else:
            v = ("absent-" + str(rng.getrandbits(40))).encode()
        if v not in present:
            out.append(v)
    return out


def hexs(b):
    return b.hex() if b else "-"


# ---- checks -------------------------------------------------------------------------------------


def check_file(cli, name, path, note, report, rng):
    f = pq.ParquetFile(path)
    md = f.metadata
    schema = f.schema
    leaves = {schema.column(j).path: j for j in range(len(schema))}
    sidecar = {"file": os.path.basename(path), "writer": note, "chunks": []}
    if name == "arrow_cpp":
        sidecar["ndv_option"] = ROW_GROUP  # write_arrow's bloom_filter_options ndv for every column
    if name == "arrow_rs":
        sidecar["arrow_rs_sizing"] = {"ndv": 1000, "fpp": 0.01}  # tests/interop/arrow_rs write()
    elif name == "arrow_rs_defaults":
        sidecar["arrow_rs_sizing"] = {"ndv": 1048576, "fpp": 0.05}
    if name.startswith("arrow_rs"):
        rng = random.Random(name)  # the same probes every run: the committed answers stay valid
    probes = []  # (rg, column, hex, present)
    with_filter = booleans = 0
    for rg in range(md.num_row_groups):
        table = f.read_row_group(rg)
        for column, j in leaves.items():
            meta = md.row_group(rg).column(j)
            if meta.bloom_filter_offset is None:
                sidecar["chunks"].append({"row_group": rg, "column": column, "filter": False,
                                          "physical_type": meta.physical_type})
                continue
            with_filter += 1
            if meta.physical_type == "BOOLEAN" and name.startswith("parquet_mr"):
                # parquet-mr 1.17 writes a filter for BOOLEAN columns but inserts nothing into
                # it (its ColumnValueCollector.write(boolean) skips the filter): the bitset is
                # all zeros and excludes true and false alike. parquet-mr's reader never asks
                # it (no hash(boolean)); parquet_writers_test checks the bitset is empty.
                sidecar["chunks"].append({"row_group": rg, "column": column, "filter": True,
                                          "physical_type": "BOOLEAN", "empty_filter_expected": True,
                                          "bloom_filter_length": meta.bloom_filter_length, "values": []})
                booleans += 1
                continue
            type_length = schema.column(j).length or 0
            values = sorted(set(plain_values(table.column(column).combine_chunks(), meta, type_length)))
            sidecar["chunks"].append({
                "row_group": rg, "column": column, "filter": True, "physical_type": meta.physical_type,
                "bloom_filter_length": meta.bloom_filter_length, "values": [hexs(v) for v in values]})
            sample = rng.sample(values, min(150, len(values)))
            probes += [(rg, column, hexs(v), True) for v in sample]
            probes += [(rg, column, hexs(v), False)
                       for v in absent_values(meta.physical_type, type_length, values, rng, 150)]
    with open(os.path.join(os.path.dirname(path), name + ".values.json"), "w") as out:
        json.dump(sidecar, out)

    # parquet-mr's reader on every probe (it has no hash for BOOLEAN: arrow-rs's filters
    # on booleans are checked against arrow-rs's reader only).
    types = {(rg, c): md.row_group(rg).column(leaves[c]).physical_type for rg, c, _, _ in probes}
    probe_path = os.path.join(os.path.dirname(path), name + ".probes.tsv")
    with open(probe_path, "w") as out:
        out.writelines(f"{rg}\t{c}\t{h}\n" for rg, c, h, _ in probes if types[(rg, c)] != "BOOLEAN")
    answers_path = probe_path + ".answers"
    java("probe", path, probe_path, answers_path)
    mr = {}
    with open(answers_path) as answers:
        for line in answers:
            rg, c, h, a = line.rstrip("\n").split("\t")
            mr[(int(rg), c, h)] = a
    rs = None
    if name.startswith("arrow_rs"):
        all_path = os.path.join(os.path.dirname(path), name + ".all_probes.tsv")
        with open(all_path, "w") as out:
            out.writelines(f"{rg}\t{c}\t{h}\n" for rg, c, h, _ in probes)
        rs = arrow_rs_answers(name, path, all_path)

    # bloomkit parquet probe, one call per column with every value of that column.
    by_column = {}
    for rg, c, h, _ in probes:
        by_column.setdefault(c, set()).add(h)
    ours = {}
    for c, values in by_column.items():
        args = [cli, "parquet", "probe", path, c, "--hex", "--json", "--"] + [("" if v == "-" else v) for v in sorted(values)]
        out = subprocess.run(args, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"bloomkit parquet probe {name} {c}: {out.stderr}")
        for line in out.stdout.splitlines():
            o = json.loads(line)
            if o.get("summary"):
                continue
            ours[(o["row_group"], c, o["value"] or "-")] = ("none" if not o["has_filter"]
                                                           else "absent" if o["excluded"] else "maybe")
    keys = [(rg, c, h) for rg, c, h, _ in probes]
    disagree = sum(ours.get(k) != mr[k] for k in keys if k in mr)
    false_negative = sum(mr.get(k) == "absent" for k, (_, _, _, present) in zip(keys, probes) if present)
    excluded = sum(mr.get(k) == "absent" for k, (_, _, _, present) in zip(keys, probes) if not present)
    detail = (f"{note}: {md.num_row_groups} row groups, {with_filter} filters, {len(probes)} probes; "
              f"parquet-mr's reader and bloomkit disagree on {disagree} of {len(mr)}, parquet-mr excludes "
              f"{excluded} absent and {false_negative} present values")
    ok = disagree == 0 and false_negative == 0 and with_filter > 0 and len(mr) > 0
    if rs is not None:
        missing = sum(k not in rs for k in keys)
        rs_disagree = sum(ours.get(k) != rs.get(k) for k in keys)
        rs_false_negative = sum(rs.get(k) == "absent" for k, (_, _, _, present) in zip(keys, probes) if present)
        ok = ok and missing == 0 and rs_disagree == 0 and rs_false_negative == 0
        detail += (f"; arrow-rs's reader and bloomkit disagree on {rs_disagree} of {len(keys)}"
                   f" ({missing} probes without a recorded arrow-rs answer), arrow-rs excludes"
                   f" {rs_false_negative} present values")
    int96 = [c for (rg, c), t in types.items() if t == "INT96"]
    no_filter = sorted({ch["column"] for ch in sidecar["chunks"] if not ch["filter"]})
    if no_filter:
        detail += f"; chunks without a filter in columns {', '.join(no_filter)}"
    if int96:
        detail += f"; INT96 columns probed: {', '.join(sorted(set(int96)))}"
    report.check(f"parquet {name}", ok, detail + (f"; {booleans} BOOLEAN chunks carry an empty filter" if booleans else ""))


def bloomkit_written(spark, cli, work, report):
    """Files bloomkit writes: read by pyarrow and Spark, their filters used by parquet-mr."""
    rng = random.Random(7)
    for kind, values, to_hex in [
        ("int64", [rng.randrange(-2**63, 2**63) for _ in range(5000)],
         lambda v: (v & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little").hex()),
        ("string", [f"user-{rng.getrandbits(48)}-é" for _ in range(5000)], lambda v: v.encode().hex()),
    ]:
        keys = os.path.join(work, f"bloomkit_{kind}.keys")
        with open(keys, "w", encoding="utf-8") as out:
            out.writelines(f"{v}\n" for v in values)
        path = os.path.join(work, f"bloomkit_{kind}.parquet")
        subprocess.run([cli, "parquet", "write", keys, "-o", path, "--type", kind, "--row-group-rows", "1000",
                        "--sizing", "arrow_cpp"], check=True)
        table = pq.read_table(path)
        read_back = table.column("value").to_pylist()
        rows = spark.read.parquet(path)
        present = values[::250]
        absent = [rng.randrange(-2**63, 2**63) if kind == "int64" else f"absent-{i}" for i in range(40)]
        kept = {}
        for line in java("rowgroups", path, "value", *[to_hex(v) for v in present + absent]).splitlines():
            h, k, total = line.split("\t")
            kept[h] = (int(k), int(total))
        present_ok = all(kept[to_hex(v)][0] >= 1 for v in present)
        skipped = sum(kept[to_hex(v)][1] - kept[to_hex(v)][0] for v in absent)
        spark_count = rows.count()
        spark_hit = rows.where(rows.value == present[0]).count()
        ok = read_back == values and present_ok and skipped > 0 and spark_count == len(values) and spark_hit >= 1
        report.check(f"bloomkit-written {kind}", ok,
                     f"pyarrow reads {len(read_back)} equal values: {read_back == values}; Spark reads "
                     f"{spark_count} rows, finds a present value: {spark_hit >= 1}; parquet-mr's row-group "
                     f"filter keeps every group of {len(present)} present values: {present_ok}, skips "
                     f"{skipped} of {len(absent) * kept[to_hex(absent[0])][1]} groups for absent values")


def run(spark, cli, work, report):
    os.makedirs(work, exist_ok=True)
    rng = random.Random(20261201)
    files = write_arrow(work, rng) + write_spark(spark, work) + write_arrow_rs(work)
    for name, path, note in files:
        check_file(cli, name, path, note, report, rng)
    bloomkit_written(spark, cli, work, report)
