package bloomkit.spark;

import bloomkit.SplitBlockBloom;
import org.apache.spark.api.java.function.Function0;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;

/**
 * The predicate behind {@code bloomkit_might_contain}: whether a converted key
 * ({@link SparkKeys#convert}) may be in a filter. A null key answers false (it matches
 * nothing, as in a SQL semi join). The filter comes from a supplier (a captured filter or a
 * broadcast), or, for {@link Dynamic}, from file bytes per row, parsed once per distinct
 * array.
 */
final class Probe implements UDF1<Object, Boolean> {
  private static final long serialVersionUID = 1L;

  private final SparkKeys.Reader reader;
  private final Function0<SplitBlockBloom> source;
  private transient SplitBlockBloom filter;

  Probe(SparkKeys.Reader reader, Function0<SplitBlockBloom> source) {
    this.reader = reader;
    this.source = source;
  }

  @Override
  public Boolean call(Object key) throws Exception {
    if (key == null) return false;
    SplitBlockBloom f = filter;
    if (f == null) {
      f = source.call();
      filter = f;
    }
    return f.mayContainHash(SparkKeys.hashConverted(f.hash(), reader, key));
  }

  /** The two-argument form, {@code (filter bytes, key)}, for a filter that is not a constant. */
  static final class Dynamic implements UDF2<byte[], Object, Boolean> {
    private static final long serialVersionUID = 1L;

    private final SparkKeys.Reader reader;
    private final String column;
    private transient byte[] lastBytes;
    private transient SplitBlockBloom lastFilter;

    Dynamic(SparkKeys.Reader reader, String column) {
      this.reader = reader;
      this.column = column;
    }

    @Override
    public Boolean call(byte[] bytes, Object key) {
      if (key == null || bytes == null) return false;
      if (bytes != lastBytes) {
        if (lastBytes == null || !java.util.Arrays.equals(bytes, lastBytes)) {
          final SplitBlockBloom f = SplitBlockBloom.fromBytes(bytes);
          SparkKeys.requireCompatible(f, reader, column);
          lastFilter = f;
        }
        lastBytes = bytes;
      }
      return lastFilter.mayContainHash(SparkKeys.hashConverted(lastFilter.hash(), reader, key));
    }
  }
}
