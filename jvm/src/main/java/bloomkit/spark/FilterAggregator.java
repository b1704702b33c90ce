package bloomkit.spark;

import bloomkit.HashSpec;
import bloomkit.SplitBlockBloom;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * The aggregate behind {@code bloomkit_agg(col, n, fpp)}: one split-block filter of fixed
 * parameters per group, keys added as {@link SparkKeys#convert} makes them (nulls skipped),
 * partial filters merged by OR, and the result the filter's file bytes (docs/FORMAT.md).
 * The same keys give the same bytes as the C++ library, whatever the partitioning.
 */
final class FilterAggregator extends Aggregator<Object, SplitBlockBloom, byte[]> {
  private static final long serialVersionUID = 1L;

  private final SparkKeys.Reader reader;
  private final long blocks;
  private final long capacity;
  private final double fpr;

  FilterAggregator(SparkKeys.Reader reader, long blocks, long capacity, double fpr) {
    this.reader = reader;
    this.blocks = blocks;
    this.capacity = capacity;
    this.fpr = fpr;
  }

  @Override
  public SplitBlockBloom zero() {
    return new SplitBlockBloom(blocks, capacity, fpr, HashSpec.PARQUET.withKeys(reader.keyType));
  }

  @Override
  public SplitBlockBloom reduce(SplitBlockBloom f, Object key) {
    if (key != null) f.insertHash(SparkKeys.hashConverted(f.hash(), reader, key));
    return f;
  }

  @Override
  public SplitBlockBloom merge(SplitBlockBloom a, SplitBlockBloom b) {
    return a.merge(b);
  }

  @Override
  public byte[] finish(SplitBlockBloom f) {
    return f.toBytes();
  }

  @Override
  public Encoder<SplitBlockBloom> bufferEncoder() {
    return Encoders.javaSerialization(SplitBlockBloom.class);
  }

  @Override
  public Encoder<byte[]> outputEncoder() {
    return Encoders.BINARY();
  }
}
