// tools/bloomkit/jvm_formats.hpp - `info`, `query`, `merge` and `intersect`
// on Spark's and Guava's own filter streams (bloomkit/format/jvm_streams.hpp).
//
// Those commands check is_jvm_filter_file first and hand such files here, so
// `bloomkit query spark.bin 42 --format i64` works on what Spark's writeTo
// wrote. Keys follow the libraries' own semantics (--format):
//   i64, u64  a long: Spark's putLong / mightContainLong; Guava's Funnels.longFunnel()
//             (u64 values above 2^63 - 1 are the long with the same 64 bits)
//   i32       an int: Spark widens it to a long (as its put(Object) does);
//             Guava's Funnels.integerFunnel() (4 bytes)
//   text      the line's bytes as a UTF-8 string: Spark's putString / mightContainString;
//             Guava's Funnels.stringFunnel(UTF_8)
//   hex       a byte array: Spark's putBinary / mightContainBinary; Guava's
//             Funnels.byteArrayFunnel()
// Guava's stream does not record its funnel: the caller picks the format
// that matches how the filter was built, exactly as Java's readFrom takes a
// funnel argument. Output lines, --json and --count are as in `query`.
// merge/intersect write the result in the inputs' own stream format
// (atomically), so Spark or Guava read it back with readFrom.
#pragma once

#include <string>
#include <vector>

namespace bloomkit::cli {

/// True when `path` names a regular file whose first bytes are a Spark or
/// Guava filter stream's header (never for "-", bloomkit files or Parquet).
bool is_jvm_filter_file(const std::string& path);

/// `query` on a JVM filter file (see the header comment for the formats).
int run_jvm_query(const std::string& file, const std::vector<std::string>& keys,
                  const std::vector<std::string>& inputs, const std::string& format, bool count, bool json);

/// `info` on a JVM filter file.
int run_jvm_info(const std::string& file, bool json);

/// `merge` (union) or `intersect` of JVM filter files of one kind and shape.
int run_jvm_set_op(bool merge, const std::vector<std::string>& inputs, const std::string& output, bool json,
                   bool quiet);

}  // namespace bloomkit::cli
