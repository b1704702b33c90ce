package bloomkit;

import java.io.Serializable;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import net.openhft.hashing.LongHashFunction;

/**
 * A filter's hash: the algorithm (XXH64 or XXH3-64, as header byte 13 numbers them), its
 * seed, and the key type that turns values into bytes (docs/KEYS.md). Hashes are those of
 * libxxhash over the key's bytes, on every JVM and byte order: the fixed-width keys are
 * hashed as their little-endian bytes. Immutable and thread-safe.
 */
public final class HashSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Header byte 13: XXH64. */
  public static final int XXH64 = 1;
  /** Header byte 13: XXH3-64. */
  public static final int XXH3_64 = 2;

  /** Parquet's hash (XXH64, seed 0), the split-block filter's default; no key type. */
  public static final HashSpec PARQUET = new HashSpec(XXH64, 0, KeyType.UNSPECIFIED);

  private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final int algorithm;
  private final long seed;
  private final KeyType keys;
  private transient LongHashFunction function;

  /**
   * A hash spec. {@code algorithm} must be {@link #XXH64} or {@link #XXH3_64}, else
   * {@link BloomkitException.Code#UNSUPPORTED}; {@code keys} must not be null.
   */
  public HashSpec(int algorithm, long seed, KeyType keys) {
    BloomkitException.require(algorithm == XXH64 || algorithm == XXH3_64, BloomkitException.Code.UNSUPPORTED,
        "hash algorithm " + algorithm + " is not supported (1 = XXH64, 2 = XXH3-64)");
    if (keys == null) throw new NullPointerException("keys");
    this.algorithm = algorithm;
    this.seed = seed;
    this.keys = keys;
  }

  /** 1 (XXH64) or 2 (XXH3-64). */
  public int algorithm() {
    return algorithm;
  }

  /** The hash seed. */
  public long seed() {
    return seed;
  }

  /** The key type. */
  public KeyType keys() {
    return keys;
  }

  /** The same algorithm and seed with key type {@code t}. */
  public HashSpec withKeys(KeyType t) {
    return t == keys ? this : new HashSpec(algorithm, seed, t);
  }

  private LongHashFunction fn() {
    LongHashFunction f = function;
    if (f == null) {
      f = algorithm == XXH64 ? LongHashFunction.xx(seed) : LongHashFunction.xx3(seed);
      function = f;
    }
    return f;
  }

  /** The hash of {@code len} bytes of {@code bytes} from {@code offset}. */
  public long hashBytes(byte[] bytes, int offset, int len) {
    return fn().hashBytes(bytes, offset, len);
  }

  /** The hash of all of {@code bytes}. */
  public long hashBytes(byte[] bytes) {
    return fn().hashBytes(bytes);
  }

  /** The hash of a string's UTF-8 bytes (key type bytes). */
  public long hashString(String s) {
    return hashBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /** The hash of {@code v} as 8 bytes little-endian (int64 and timestamp_us keys). */
  public long hashLong(long v) {
    return fn().hashLong(LITTLE ? v : Long.reverseBytes(v));
  }

  /** The hash of {@code v} as 4 bytes little-endian (int32 and date32 keys). */
  public long hashInt(int v) {
    return fn().hashInt(LITTLE ? v : Integer.reverseBytes(v));
  }

  /** The hash of the IEEE-754 binary64 bits of {@code v}, little-endian (NaN payloads and -0.0 kept). */
  public long hashDouble(double v) {
    return hashLong(Double.doubleToRawLongBits(v));
  }

  /** The hash of the IEEE-754 binary32 bits of {@code v}, little-endian. */
  public long hashFloat(float v) {
    return hashInt(Float.floatToRawIntBits(v));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashSpec h && h.algorithm == algorithm && h.seed == seed && h.keys == keys;
  }

  @Override
  public int hashCode() {
    return (int) (algorithm * 31 + seed * 17 + keys.id());
  }

  @Override
  public String toString() {
    return (algorithm == XXH64 ? "xxh64" : "xxh3_64") + " seed " + Long.toUnsignedString(seed) + ", " + keys + " keys";
  }

  /** XXH3-64 with seed 0 of {@code len} bytes from {@code offset}: the file format's checksum. */
  static long checksum(byte[] bytes, int offset, int len) {
    return LongHashFunction.xx3().hashBytes(bytes, offset, len);
  }
}
