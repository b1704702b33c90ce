package bloomkit.spark;

import bloomkit.HashSpec;
import bloomkit.Kmv;
import bloomkit.Sizing;
import bloomkit.SplitBlockBloom;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * DataFrame-level builds and probes of bloomkit's split-block filter, all in the JVM:
 * every partition builds one filter of the same parameters in its executor (reading
 * Catalyst's internal rows, keys converted by {@link SparkKeys}, nulls skipped), and the
 * partial filters are ORed together by {@code treeReduce}. OR is associative, commutative
 * and idempotent, so the result is bit-identical to a single-process build of the same
 * keys (the C++ library's and Python's), whatever the partitioning and however often Spark
 * re-runs a task. A column of a type with no key type is refused on the driver.
 */
public final class BloomkitSpark {
  private BloomkitSpark() {}

  private static SparkKeys.Reader reader(Dataset<Row> df, String column) {
    return SparkKeys.readerFor(df.schema().apply(column).dataType(), column);
  }

  private static JavaRDD<InternalRow> keyRows(Dataset<Row> df, String column) {
    final Dataset<Row> keys = df.select(df.col(column));
    return ((org.apache.spark.sql.classic.Dataset<Row>) keys).queryExecution().toRdd().toJavaRDD();
  }

  /**
   * The split-block filter over {@code df[column]} for {@code capacity} keys at {@code fpr}
   * (sized as the C++ library sizes it), merged with treeReduce of depth 2.
   */
  public static SplitBlockBloom build(Dataset<Row> df, String column, long capacity, double fpr) {
    return build(df, column, Sizing.splitBlockBlocksFor(capacity, fpr), capacity, fpr, 2);
  }

  /**
   * The split-block filter of exactly {@code blocks} blocks over {@code df[column]}
   * (capacity and fpr recorded as its design point), partial filters merged by
   * treeReduce({@code depth}). The key type is the column's (docs/KEYS.md); nulls are
   * skipped; an empty frame gives an empty filter.
   */
  public static SplitBlockBloom build(Dataset<Row> df, String column, long blocks, long capacity, double fpr,
      int depth) {
    return build(df, column, blocks, capacity, fpr, depth, true);
  }

  /**
   * {@link #build(Dataset, String, long, long, double, int)}, with the column's key type
   * recorded in the filter ({@code recordKeyType}, format version 5) or not (an untyped
   * filter whose keys hash the same bytes, as bloomkit writers before key types wrote it).
   */
  public static SplitBlockBloom build(Dataset<Row> df, String column, long blocks, long capacity, double fpr,
      int depth, boolean recordKeyType) {
    final SparkKeys.Reader reader = reader(df, column);
    final HashSpec hash = recordKeyType ? HashSpec.PARQUET.withKeys(reader.keyType) : HashSpec.PARQUET;
    final SplitBlockBloom empty = new SplitBlockBloom(blocks, capacity, fpr, hash);  // checks the parameters here
    final JavaRDD<SplitBlockBloom> parts = keyRows(df, column).mapPartitions(rows -> {
      final SplitBlockBloom f = new SplitBlockBloom(blocks, capacity, fpr, hash);
      while (rows.hasNext()) {
        final InternalRow row = rows.next();
        if (!row.isNullAt(0)) SparkKeys.insert(f, hash, reader, row);
      }
      return Collections.singletonList(f).iterator();
    });
    if (parts.getNumPartitions() == 0) return empty;
    return parts.treeReduce(SplitBlockBloom::merge, depth);
  }

  /** {@link #build(Dataset, String, long, long, double, int)} as file bytes (for PySpark). */
  public static byte[] buildBytes(Dataset<Row> df, String column, long blocks, long capacity, double fpr, int depth,
      boolean recordKeyType) {
    return build(df, column, blocks, capacity, fpr, depth, recordKeyType).toBytes();
  }

  /**
   * {@link #buildBytes} written to {@code path} on the driver's file system instead of
   * returned: PySpark then reads the file rather than taking the bytes through py4j, which
   * costs about as much as the build itself for a filter of tens of megabytes. The caller
   * owns the path (a fresh temporary file); it is overwritten.
   */
  public static void buildToFile(Dataset<Row> df, String column, long blocks, long capacity, double fpr, int depth,
      boolean recordKeyType, String path) throws IOException {
    Files.write(Path.of(path), buildBytes(df, column, blocks, capacity, fpr, depth, recordKeyType));
  }

  /**
   * The KMV sketch of the column's key hashes (XXH64 seed 0 of the converted keys, the
   * split-block filter's hash), per partition and merged by treeReduce: the distinct count
   * that sizes a build without a capacity, the same as python/bloomkit/_engines.py's.
   */
  public static Kmv countDistinct(Dataset<Row> df, String column) {
    final SparkKeys.Reader reader = reader(df, column);
    final HashSpec hash = HashSpec.PARQUET.withKeys(reader.keyType);
    final JavaRDD<Kmv> parts = keyRows(df, column).mapPartitions(rows -> {
      final Kmv k = new Kmv();
      while (rows.hasNext()) {
        final InternalRow row = rows.next();
        if (!row.isNullAt(0)) k.add(SparkKeys.hash(hash, reader, row));
      }
      return Collections.singletonList(k).iterator();
    });
    if (parts.getNumPartitions() == 0) return new Kmv();
    return parts.treeReduce(Kmv::merge, 2);
  }

  /**
   * The sketch of {@link #countDistinct} as its hashes, ascending as unsigned numbers, each
   * 8 bytes little-endian (for PySpark: numpy.frombuffer(b, "<u8")).
   */
  public static byte[] countDistinctSketch(Dataset<Row> df, String column) {
    final long[] h = countDistinct(df, column).hashes();
    final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(h.length * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.asLongBuffer().put(h);
    return b.array();
  }

  /**
   * {@link #countDistinct} as 8-byte little-endian numbers: the number of keys read (nulls
   * skipped), then the sketch's hashes ascending as unsigned numbers (for PySpark:
   * numpy.frombuffer(b, "<u8"), whose first entry is the count and the rest the sketch).
   */
  public static byte[] countedDistinctSketch(Dataset<Row> df, String column) {
    final Kmv k = countDistinct(df, column);
    final long[] h = k.hashes();
    final java.nio.ByteBuffer b =
        java.nio.ByteBuffer.allocate((h.length + 1) * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.asLongBuffer().put(k.added()).put(h);
    return b.array();
  }

  /**
   * The filter over {@code df[column]} at {@code fpr}, its capacity from an approximate
   * distinct count ({@link Kmv#capacity()}: exact below 4096 distinct keys).
   */
  public static SplitBlockBloom build(Dataset<Row> df, String column, double fpr) {
    return build(df, column, countDistinct(df, column).capacity(), fpr);
  }

  /**
   * A boolean column: whether {@code key} (a column of {@code df}'s kind of type) may be in
   * {@code filter}; null keys are false. The filter is broadcast once. IllegalArgumentException
   * on the driver when the filter's key type is not the column's.
   */
  public static Column mightContain(Dataset<Row> df, String column, SplitBlockBloom filter) {
    final SparkKeys.Reader reader = reader(df, column);
    SparkKeys.requireCompatible(filter, reader, column);
    final Broadcast<SplitBlockBloom> bc =
        JavaSparkContext.fromSparkContext(df.sparkSession().sparkContext()).broadcast(filter);
    final Probe probe = new Probe(reader, bc::value);
    return functions.udf(probe, DataTypes.BooleanType).apply(SparkKeys.convert(df.col(column), reader));
  }

  /**
   * The rows of {@code df} whose {@code column} may be in {@code filter}: a pre-filter for a
   * semi join (every joining row is kept; the rest only as false positives). Lazy.
   */
  public static Dataset<Row> semiJoinFilter(Dataset<Row> df, String column, SplitBlockBloom filter) {
    return df.where(mightContain(df, column, filter));
  }

  /** {@link #semiJoinFilter} with the filter as file bytes (for PySpark). */
  public static Dataset<Row> semiJoinFilter(Dataset<Row> df, String column, byte[] filterBytes) {
    return semiJoinFilter(df, column, SplitBlockBloom.fromBytes(filterBytes));
  }

  /** {@link #semiJoinFilter} with the filter read from a bloomkit file on the driver (for PySpark). */
  public static Dataset<Row> semiJoinFilterFromFile(Dataset<Row> df, String column, String path) throws IOException {
    return semiJoinFilter(df, column, SplitBlockBloom.fromBytes(Files.readAllBytes(Path.of(path))));
  }
}
