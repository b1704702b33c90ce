// tools/bloomkit/jvm_formats.hpp - `info`, `query`, `merge` and `intersect`
// on Spark's and Guava's own filter streams (bloomkit/format/jvm_streams.hpp).
//
// `query` maps FILE once in any format (open_mapped(path, any_format)) and
// hands a Spark or Guava view here; info, merge and intersect check
// is_jvm_filter_file and hand such files here. So `bloomkit query spark.bin
// 42 --format i64` works on what Spark's writeTo wrote. Keys follow the libraries' own semantics (--format):
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

#include "bloomkit/format/jvm_streams.hpp"

namespace bloomkit::cli {

/// True when `path` names a regular file whose first bytes are a Spark or
/// Guava filter stream's header (never for "-", bloomkit files or Parquet).
bool is_jvm_filter_file(const std::string& path);

/// `query` on a Spark or Guava filter (a view of its stream; see the header
/// comment for the formats).
int run_jvm_query(const jvm_filter_view& filter, const std::vector<std::string>& keys,
                  const std::vector<std::string>& inputs, const std::string& format, bool count, bool json);

/// `info` on a JVM filter file.
int run_jvm_info(const std::string& file, bool json);

/// `merge` (union) or `intersect` of JVM filter files of one kind and shape.
int run_jvm_set_op(bool merge, const std::vector<std::string>& inputs, const std::string& output, bool json,
                   bool quiet);

}  // namespace bloomkit::cli
