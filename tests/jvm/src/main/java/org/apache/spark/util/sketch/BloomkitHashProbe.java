package org.apache.spark.util.sketch;

/**
 * Exposes spark-sketch's package-private Murmur3_x86_32 so the harness can
 * print golden hash values from the real jar (bloomkit's C++ hash is checked
 * against them). Lives in Spark's package name only for that access.
 */
public final class BloomkitHashProbe {
  private BloomkitHashProbe() {}

  /** Spark's hashUnsafeBytes over a whole byte array. */
  public static int hashBytes(byte[] bytes, int seed) {
    return Murmur3_x86_32.hashUnsafeBytes(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length, seed);
  }

  /** Spark's hashLong. */
  public static int hashLong(long value, int seed) {
    return Murmur3_x86_32.hashLong(value, seed);
  }
}
