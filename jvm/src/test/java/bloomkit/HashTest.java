package bloomkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** zero-allocation-hashing's XXH64 and XXH3-64 against libxxhash, and the fixed-width keys' bytes. */
class HashTest {
  private static byte[] pattern() {
    final byte[] data = new byte[300];
    for (int i = 0; i < data.length; ++i) data[i] = (byte) ((i * 131 + 7) & 0xff);
    return data;
  }

  @Test
  void everyLengthAndSeedEqualsLibxxhash() throws Exception {
    final byte[] data = pattern();
    final List<String> lines = Files.readAllLines(TestInputs.dir().resolve("hashes.tsv"));
    assertEquals(5 * 301 * 2, lines.size());
    for (String line : lines) {
      final String[] f = line.split("\t");
      final long seed = Long.parseUnsignedLong(f[1]);
      final int n = Integer.parseInt(f[2]);
      final long expected = Long.parseUnsignedLong(f[3]);
      final HashSpec spec = new HashSpec(f[0].equals("xxh64") ? HashSpec.XXH64 : HashSpec.XXH3_64, seed, KeyType.BYTES);
      assertEquals(expected, spec.hashBytes(data, 0, n), line);
      // The same bytes at an offset inside a larger array.
      final byte[] shifted = new byte[n + 5];
      System.arraycopy(data, 0, shifted, 3, n);
      assertEquals(expected, spec.hashBytes(shifted, 3, n), line);
    }
  }

  @Test
  void fixedWidthKeysHashTheirLittleEndianBytes() {
    final Random rng = new Random(7);
    for (HashSpec spec : new HashSpec[] {HashSpec.PARQUET, new HashSpec(HashSpec.XXH3_64, 99, KeyType.UNSPECIFIED)}) {
      for (int i = 0; i < 1000; ++i) {
        final long v = i < 4 ? new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE}[i] : rng.nextLong();
        final byte[] b8 = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
        final byte[] b4 = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array();
        assertEquals(spec.hashBytes(b8), spec.hashLong(v));
        assertEquals(spec.hashBytes(b4), spec.hashInt((int) v));
        final double d = Double.longBitsToDouble(v);  // NaN payloads included
        assertEquals(spec.hashLong(Double.doubleToRawLongBits(d)), spec.hashDouble(d));
      }
    }
    // -0.0 and +0.0 are different keys; the bits are hashed.
    assertTrue(HashSpec.PARQUET.hashDouble(0.0) != HashSpec.PARQUET.hashDouble(-0.0));
  }

  @Test
  void stringsHashTheirUtf8Bytes() {
    final String s = "Grüße 日本語 🎉";
    assertEquals(HashSpec.PARQUET.hashBytes(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        HashSpec.PARQUET.hashString(s));
  }
}
