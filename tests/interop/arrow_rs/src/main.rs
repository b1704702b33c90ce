//! arrow-rs (parquet 60.1.0) against bloomkit: writes Parquet files with Bloom filters over
//! every physical and logical type the crate writes, and answers probes with the crate's own
//! reader (`Sbbf::check`), for tests/interop/parquet_writers.py.
//!
//!   bloomkit-arrow-rs-parquet write DIR           arrow_rs.parquet, arrow_rs_defaults.parquet
//!   bloomkit-arrow-rs-parquet probe FILE IN OUT    IN: ROW_GROUP\tCOLUMN\tHEX lines (the value's
//!                                                 plain encoding, "-" for empty); OUT: the same
//!                                                 lines + \tmaybe | \tabsent | \tnone (no filter)
//!   bloomkit-arrow-rs-parquet bench DIR OUT ROWS FPP   the table of python/bench/parquet_filter_sizes.py
//!                                                 (DIR: user.txt, country.txt one value a line,
//!                                                 id.i64, day.i32 little-endian) as OUT, ROWS rows a
//!                                                 row group, the crate's default NDV (folded down
//!                                                 after the values are in) at FPP
//!
//! Values come from a fixed SplitMix64 stream, so the files are the same on every run.
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DoubleType, FixedLenByteArray, FixedLenByteArrayType,
    FloatType, Int32Type, Int64Type, Int96, Int96Type,
};
use parquet::file::properties::{BloomFilterPosition, ReaderProperties, WriterProperties};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;

/// Every type: name, declaration. Optional columns get a null every 37th row.
const COLUMNS: &[(&str, &str)] = &[
    ("i8", "optional int32 i8 (INTEGER(8,true))"),
    ("i16", "required int32 i16 (INTEGER(16,true))"),
    ("i32", "required int32 i32"),
    ("i64", "required int64 i64"),
    ("u8", "required int32 u8 (INTEGER(8,false))"),
    ("u16", "required int32 u16 (INTEGER(16,false))"),
    ("u32", "required int32 u32 (INTEGER(32,false))"),
    ("u64", "required int64 u64 (INTEGER(64,false))"),
    ("f32", "required float f32"),
    ("f64", "required double f64"),
    ("f16", "required fixed_len_byte_array(2) f16 (FLOAT16)"),
    ("dec9_2", "required int32 dec9_2 (DECIMAL(9,2))"),
    ("dec18_4", "required int64 dec18_4 (DECIMAL(18,4))"),
    ("dec30_5", "required fixed_len_byte_array(13) dec30_5 (DECIMAL(30,5))"),
    ("dec_ba", "required binary dec_ba (DECIMAL(25,3))"),
    ("date", "required int32 date (DATE)"),
    ("time_ms", "required int32 time_ms (TIME(MILLIS,true))"),
    ("time_us", "required int64 time_us (TIME(MICROS,false))"),
    ("time_ns", "required int64 time_ns (TIME(NANOS,true))"),
    ("ts_ms", "required int64 ts_ms (TIMESTAMP(MILLIS,true))"),
    ("ts_us", "required int64 ts_us (TIMESTAMP(MICROS,false))"),
    ("ts_ns", "required int64 ts_ns (TIMESTAMP(NANOS,true))"),
    ("ts_int96", "required int96 ts_int96"),
    ("str", "optional binary str (STRING)"),
    ("bin", "required binary bin"),
    ("fsb7", "required fixed_len_byte_array(7) fsb7"),
    ("uuid", "required fixed_len_byte_array(16) uuid (UUID)"),
    ("bool", "required boolean bool"),
];

const ROWS_PER_GROUP: usize = 1000;
const ROW_GROUPS: usize = 3;
/// Distinct values per column (fewer than rows: dictionary pages and repeats).
const DISTINCT: u64 = 250;

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
}

/// The pool index of row `row` of column `col`: DISTINCT values per column, repeated.
fn pick(col: usize, row: usize) -> u64 {
    let mut r = SplitMix((col as u64) << 32 | row as u64);
    r.next() % DISTINCT
}

/// A 64-bit pseudo-random value for pool entry `i` of column `col`.
fn pool(col: usize, i: u64) -> u64 {
    let mut r = SplitMix(0xb100_0000 ^ ((col as u64) << 40) ^ i);
    r.next()
}

/// Two's-complement big-endian bytes of `v`, `len` long (FLBA decimals).
fn be_fixed(v: i128, len: usize) -> Vec<u8> {
    v.to_be_bytes()[16 - len..].to_vec()
}

/// The shortest two's-complement big-endian bytes of `v` (BYTE_ARRAY decimals).
fn be_minimal(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    bytes[start..].to_vec()
}

fn write_file(path: &Path, props: WriterProperties, columns: &[usize]) -> parquet::errors::Result<()> {
    let message = format!(
        "message arrow_rs {{ {}; }}",
        columns.iter().map(|&c| COLUMNS[c].1).collect::<Vec<_>>().join("; ")
    );
    let schema = Arc::new(parse_message_type(&message)?);
    let mut writer = SerializedFileWriter::new(File::create(path)?, schema, Arc::new(props))?;
    for group in 0..ROW_GROUPS {
        let mut row_group = writer.next_row_group()?;
        let mut index = 0;
        while let Some(mut column) = row_group.next_column()? {
            let c = columns[index];
            index += 1;
            let rows: Vec<usize> = (group * ROWS_PER_GROUP..(group + 1) * ROWS_PER_GROUP).collect();
            let optional = COLUMNS[c].1.starts_with("optional");
            let defs: Vec<i16> = rows.iter().map(|r| if optional && r % 37 == 5 { 0 } else { 1 }).collect();
            let present: Vec<u64> = rows
                .iter()
                .zip(&defs)
                .filter(|(_, d)| **d == 1)
                .map(|(r, _)| pool(c, pick(c, *r)))
                .collect();
            let def_levels = if optional { Some(defs.as_slice()) } else { None };
            let name = COLUMNS[c].0;
            match name {
                "i8" | "i16" | "u8" | "u16" => {
                    let (lo, span): (i64, u64) = match name {
                        "i8" => (-128, 256),
                        "i16" => (-32768, 65536),
                        "u8" => (0, 256),
                        _ => (0, 65536),
                    };
                    let v: Vec<i32> = present.iter().map(|x| (lo + (x % span) as i64) as i32).collect();
                    column.typed::<Int32Type>().write_batch(&v, def_levels, None)?;
                }
                "i32" | "u32" => {
                    let v: Vec<i32> = present.iter().map(|x| *x as u32 as i32).collect();
                    column.typed::<Int32Type>().write_batch(&v, def_levels, None)?;
                }
                "i64" | "u64" => {
                    let v: Vec<i64> = present.iter().map(|x| *x as i64).collect();
                    column.typed::<Int64Type>().write_batch(&v, def_levels, None)?;
                }
                "f32" => {
                    let v: Vec<f32> = present.iter().map(|x| ((*x % 2_000_001) as f32 - 1e6) / 7.0).collect();
                    column.typed::<FloatType>().write_batch(&v, def_levels, None)?;
                }
                "f64" => {
                    let v: Vec<f64> = present
                        .iter()
                        .map(|x| match x % DISTINCT {
                            0 => -0.0,
                            1 => f64::INFINITY,
                            _ => (*x as i64) as f64 / 1e9,
                        })
                        .collect();
                    column.typed::<DoubleType>().write_batch(&v, def_levels, None)?;
                }
                "f16" => {
                    // Finite, non-NaN half floats (exponent field below 31).
                    let v: Vec<FixedLenByteArray> = present
                        .iter()
                        .map(|x| {
                            let bits = (*x as u16) & 0xfbff;
                            FixedLenByteArray::from(bits.to_le_bytes().to_vec())
                        })
                        .collect();
                    column.typed::<FixedLenByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "dec9_2" => {
                    let v: Vec<i32> = present.iter().map(|x| ((x % 1_999_999_999) as i64 - 999_999_999) as i32).collect();
                    column.typed::<Int32Type>().write_batch(&v, def_levels, None)?;
                }
                "dec18_4" => {
                    let v: Vec<i64> =
                        present.iter().map(|x| (x % 1_999_999_999_999_999_999) as i64 - 999_999_999_999_999_999).collect();
                    column.typed::<Int64Type>().write_batch(&v, def_levels, None)?;
                }
                "dec30_5" => {
                    let v: Vec<FixedLenByteArray> = present
                        .iter()
                        .map(|x| {
                            let unscaled = (*x as i64 as i128) * 100_003;
                            FixedLenByteArray::from(be_fixed(unscaled, 13))
                        })
                        .collect();
                    column.typed::<FixedLenByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "dec_ba" => {
                    let v: Vec<ByteArray> = present
                        .iter()
                        .map(|x| {
                            let unscaled = match x % 5 {
                                0 => (*x % 1000) as i128 - 500,
                                _ => (*x as i64 as i128) * 99_991,
                            };
                            ByteArray::from(be_minimal(unscaled))
                        })
                        .collect();
                    column.typed::<ByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "date" => {
                    let v: Vec<i32> = present.iter().map(|x| (x % 60_000) as i32 - 20_000).collect();
                    column.typed::<Int32Type>().write_batch(&v, def_levels, None)?;
                }
                "time_ms" => {
                    let v: Vec<i32> = present.iter().map(|x| (x % 86_400_000) as i32).collect();
                    column.typed::<Int32Type>().write_batch(&v, def_levels, None)?;
                }
                "time_us" | "time_ns" => {
                    let day: u64 = if name == "time_us" { 86_400_000_000 } else { 86_400_000_000_000 };
                    let v: Vec<i64> = present.iter().map(|x| (x % day) as i64).collect();
                    column.typed::<Int64Type>().write_batch(&v, def_levels, None)?;
                }
                "ts_ms" | "ts_us" | "ts_ns" => {
                    let bits = match name {
                        "ts_ms" => 41,
                        "ts_us" => 51,
                        _ => 62,
                    };
                    let v: Vec<i64> = present.iter().map(|x| (x >> (64 - bits)) as i64 - (1i64 << (bits - 1))).collect();
                    column.typed::<Int64Type>().write_batch(&v, def_levels, None)?;
                }
                "ts_int96" => {
                    // Impala/Spark INT96: nanoseconds of the day (8 bytes LE), Julian day (4 bytes LE),
                    // days within about 80 years of 1970 (pyarrow reads them as ns timestamps).
                    let v: Vec<Int96> = present
                        .iter()
                        .map(|x| {
                            let nanos = x % 86_400_000_000_000;
                            let julian = 2_440_588u32 - 15_000 + ((x >> 48) % 30_000) as u32;
                            let mut t = Int96::new();
                            t.set_data(nanos as u32, (nanos >> 32) as u32, julian);
                            t
                        })
                        .collect();
                    column.typed::<Int96Type>().write_batch(&v, def_levels, None)?;
                }
                "str" => {
                    let v: Vec<ByteArray> = present
                        .iter()
                        .map(|x| {
                            let len = (x % 12) as usize;
                            let chars: Vec<char> = "abcdeé✓😀 ".chars().collect();
                            let s: String = (0..len).map(|i| chars[((x >> (4 * i)) % chars.len() as u64) as usize]).collect();
                            ByteArray::from(s.into_bytes())
                        })
                        .collect();
                    column.typed::<ByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "bin" => {
                    let v: Vec<ByteArray> =
                        present.iter().map(|x| ByteArray::from(x.to_le_bytes()[..(x % 9) as usize].to_vec())).collect();
                    column.typed::<ByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "fsb7" => {
                    let v: Vec<FixedLenByteArray> =
                        present.iter().map(|x| FixedLenByteArray::from(x.to_le_bytes()[..7].to_vec())).collect();
                    column.typed::<FixedLenByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "uuid" => {
                    let v: Vec<FixedLenByteArray> = present
                        .iter()
                        .map(|x| {
                            let mut b = x.to_le_bytes().to_vec();
                            b.extend_from_slice(&x.rotate_left(17).to_be_bytes());
                            FixedLenByteArray::from(b)
                        })
                        .collect();
                    column.typed::<FixedLenByteArrayType>().write_batch(&v, def_levels, None)?;
                }
                "bool" => {
                    let v: Vec<bool> = present.iter().map(|x| x % 3 == 0).collect();
                    column.typed::<BoolType>().write_batch(&v, def_levels, None)?;
                }
                other => panic!("no values for column {other}"),
            }
            column.close()?;
        }
        row_group.close()?;
    }
    writer.close()?;
    Ok(())
}

fn write(dir: &Path) -> parquet::errors::Result<()> {
    std::fs::create_dir_all(dir)?;
    let all: Vec<usize> = (0..COLUMNS.len()).collect();
    // 1. Every column, filters sized for at most ROWS_PER_GROUP distinct values at fpp 0.01
    //    (then folded by the writer), dictionaries on (the default), snappy, filters after
    //    each row group (the default position).
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.01)
        .set_bloom_filter_max_ndv(ROWS_PER_GROUP as u64)
        .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
        .build();
    write_file(&dir.join("arrow_rs.parquet"), props, &all)?;
    // 2. The crate's defaults for the filter (fpp 0.05, ndv = the default row group limit of
    //    1,048,576 rows, folded down after the values are in), no
    //    dictionaries, filters at the end of the file, dictionary-only chunks skipped for `str`
    //    (its dictionary is on there), and `set_column_bloom_filter_enabled(bin, false)`, which
    //    60.1.0 ignores while the default is on (the column's "off" is stored as "unset" and
    //    falls back to the default): `bin` gets filters anyway, as parquet_writers.py records.
    let some: Vec<usize> = ["i64", "str", "bin", "dec_ba", "ts_int96", "fsb7", "bool"]
        .iter()
        .map(|n| COLUMNS.iter().position(|(c, _)| c == n).unwrap())
        .collect();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_column_dictionary_enabled(ColumnPath::from("str"), true)
        .set_bloom_filter_enabled(true)
        .set_column_bloom_filter_enabled(ColumnPath::from("bin"), false)
        .set_bloom_filter_for_dictionary_encoded_chunks(false)
        .set_bloom_filter_position(BloomFilterPosition::End)
        .build();
    write_file(&dir.join("arrow_rs_defaults.parquet"), props, &some)
}

fn unhex(text: &str) -> Vec<u8> {
    if text == "-" {
        return Vec::new();
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex")).collect()
}

fn probe(file: &Path, input: &Path, output: &Path) -> parquet::errors::Result<()> {
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(ReaderProperties::builder().set_read_bloom_filter(true).build())
        .build();
    let reader = SerializedFileReader::new_with_options(File::open(file)?, options)?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let groups: Vec<_> = (0..reader.num_row_groups()).map(|i| reader.get_row_group(i)).collect::<Result<_, _>>()?;
    let mut out = std::io::BufWriter::new(File::create(output)?);
    for line in BufReader::new(File::open(input)?).lines() {
        let line = line?;
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let rg: usize = fields[0].parse().expect("row group");
        let column = (0..schema.num_columns())
            .find(|&i| schema.column(i).path().string() == fields[1])
            .unwrap_or_else(|| panic!("no column {}", fields[1]));
        // Sbbf::check hashes value.as_bytes(): a ByteArray's bytes are exactly the plain
        // encoding given, the same bytes the writer hashed for every physical type.
        let answer = match groups[rg].get_column_bloom_filter(column) {
            None => "none",
            Some(filter) if filter.check(&ByteArray::from(unhex(fields[2]))) => "maybe",
            Some(_) => "absent",
        };
        writeln!(out, "{line}\t{answer}")?;
    }
    out.flush()?;
    Ok(())
}

/// The benchmark table (python/bench/parquet_filter_sizes.py) written by the crate with its
/// folding filters: every option the crate's default but the row group size and the FPP.
fn bench(dir: &Path, out: &Path, rows_per_group: usize, fpp: f64) -> parquet::errors::Result<()> {
    let lines = |name: &str| -> parquet::errors::Result<Vec<ByteArray>> {
        let text = std::fs::read_to_string(dir.join(name))?;
        Ok(text.lines().map(|l| ByteArray::from(l.as_bytes().to_vec())).collect())
    };
    let users = lines("user.txt")?;
    let countries = lines("country.txt")?;
    let ids: Vec<i64> = std::fs::read(dir.join("id.i64"))?
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let days: Vec<i32> = std::fs::read(dir.join("day.i32"))?
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let rows = ids.len();
    assert!(users.len() == rows && countries.len() == rows && days.len() == rows, "columns of unequal length");
    let schema = Arc::new(parse_message_type(
        "message bench { required binary user (STRING); required binary country (STRING); \
         required int64 id; required int32 day (DATE); }",
    )?);
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(fpp)
        .set_max_row_group_row_count(Some(rows_per_group))
        .build();
    let mut writer = SerializedFileWriter::new(File::create(out)?, schema, Arc::new(props))?;
    for start in (0..rows).step_by(rows_per_group) {
        let end = (start + rows_per_group).min(rows);
        let mut row_group = writer.next_row_group()?;
        let mut index = 0;
        while let Some(mut column) = row_group.next_column()? {
            match index {
                0 => column.typed::<ByteArrayType>().write_batch(&users[start..end], None, None)?,
                1 => column.typed::<ByteArrayType>().write_batch(&countries[start..end], None, None)?,
                2 => column.typed::<Int64Type>().write_batch(&ids[start..end], None, None)?,
                _ => column.typed::<Int32Type>().write_batch(&days[start..end], None, None)?,
            };
            index += 1;
            column.close()?;
        }
        row_group.close()?;
    }
    writer.close()?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.get(1).map(String::as_str) {
        Some("write") if args.len() == 3 => write(Path::new(&args[2])),
        Some("probe") if args.len() == 5 => probe(Path::new(&args[2]), Path::new(&args[3]), Path::new(&args[4])),
        Some("bench") if args.len() == 6 => bench(
            Path::new(&args[2]),
            Path::new(&args[3]),
            args[4].parse().expect("ROWS: a row count"),
            args[5].parse().expect("FPP: a number in (0, 1)"),
        ),
        _ => {
            eprintln!(
                "usage: bloomkit-arrow-rs-parquet write DIR | probe FILE PROBES.tsv ANSWERS.tsv | bench DIR OUT ROWS FPP"
            );
            std::process::exit(1);
        }
    };
    if let Err(e) = result {
        eprintln!("bloomkit-arrow-rs-parquet: {e}");
        std::process::exit(2);
    }
}
