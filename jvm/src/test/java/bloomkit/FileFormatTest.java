package bloomkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The reader's checks (docs/FORMAT.md, "How a reader checks a file") on damaged and non-canonical files. */
class FileFormatTest {
  private static SplitBlockBloom sample(KeyType keys) {
    final SplitBlockBloom f = new SplitBlockBloom(3, 20, 0.05, HashSpec.PARQUET.withKeys(keys));
    for (long i = 0; i < 15; ++i) f.insertHash(HashSpec.PARQUET.hashLong(i));
    return f;
  }

  /** Recomputes both checksums, so a test reaches the checks after them. */
  private static byte[] resealed(byte[] b) {
    final ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    final int h = bb.getInt(24);
    bb.putLong(64, HashSpec.checksum(b, h, b.length - h));
    bb.putLong(h - 8, HashSpec.checksum(b, 0, h - 8));
    return b;
  }

  private static BloomkitException.Code codeOf(byte[] b) {
    return assertThrows(BloomkitException.class, () -> SplitBlockBloom.fromBytes(b)).code();
  }

  @Test
  void layoutOfASmallFile() {
    final byte[] b = sample(KeyType.UNSPECIFIED).toBytes();
    assertEquals(128 + 3 * 32, b.length);
    final ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(1, bb.getInt(8));
    assertEquals(3, b[12]);
    assertEquals(1, b[13]);
    assertEquals(0, b[15]);
    assertEquals(15, bb.getLong(32));
    assertEquals(3, bb.getLong(72));
    assertEquals(8, bb.getInt(80));
    final byte[] typed = sample(KeyType.INT64).toBytes();
    assertEquals(5, ByteBuffer.wrap(typed).order(ByteOrder.LITTLE_ENDIAN).getInt(8));
    assertEquals(2, typed[15]);
    assertEquals(sample(KeyType.INT64), SplitBlockBloom.fromBytes(typed));
  }

  @Test
  void everySingleBitFlipIsRejected() {
    for (KeyType t : new KeyType[] {KeyType.UNSPECIFIED, KeyType.DATE32}) {
      final byte[] good = sample(t).toBytes();
      for (int bit = 0; bit < good.length * 8; ++bit) {
        final byte[] b = good.clone();
        b[bit / 8] ^= (byte) (1 << (bit % 8));
        assertThrows(BloomkitException.class, () -> SplitBlockBloom.fromBytes(b), "bit " + bit);
      }
    }
  }

  @Test
  void everyTruncationAndTrailingBytesAreRejected() {
    final byte[] good = sample(KeyType.BYTES).toBytes();
    for (int n = 0; n < good.length; ++n) {
      assertEquals(n < 8 ? BloomkitException.Code.TRUNCATED : BloomkitException.Code.TRUNCATED,
          codeOf(Arrays.copyOf(good, n)), "length " + n);
    }
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(Arrays.copyOf(good, good.length + 1)));
  }

  @Test
  void fieldsThatNoWriterWritesAreCorrupt() {
    final byte[] good = sample(KeyType.UNSPECIFIED).toBytes();
    // Version 5 with no key type: version 1 expresses it.
    byte[] b = good.clone();
    b[8] = 5;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    // A key type in a version 1 file.
    b = good.clone();
    b[15] = 2;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    // An unknown key type in version 5.
    b = sample(KeyType.INT64).toBytes();
    b[15] = 8;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    // Version 3 for a split-block filter.
    b = good.clone();
    b[8] = 3;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    // k other than 8, blocks 0, padding not zero.
    b = good.clone();
    b[80] = 7;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    b = good.clone();
    b[72] = 0;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    b = good.clone();
    b[100] = 1;
    assertEquals(BloomkitException.Code.CORRUPT, codeOf(resealed(b)));
    // A newer version, an unknown hash, another kind.
    b = good.clone();
    b[8] = 6;
    assertEquals(BloomkitException.Code.UNSUPPORTED_VERSION, codeOf(b));
    b = good.clone();
    b[13] = 9;
    assertEquals(BloomkitException.Code.UNSUPPORTED, codeOf(resealed(b)));
    b = good.clone();
    b[12] = 2;
    assertEquals(BloomkitException.Code.UNKNOWN_KIND, codeOf(resealed(b)));
  }

  /**
   * What fuzz/file_format_fuzz.cpp checks for the C++ reader, on random damage with both
   * checksums recomputed (so every later check is reached): the reader either throws a
   * BloomkitException or returns a filter whose bytes are exactly the input (the encoding
   * is canonical). Never another exception.
   */
  @Test
  void randomDamageWithValidChecksumsIsRejectedOrCanonical() {
    final java.util.Random rng = new java.util.Random(42);
    final byte[][] seeds = {sample(KeyType.UNSPECIFIED).toBytes(), sample(KeyType.TIMESTAMP_US).toBytes(),
        new SplitBlockBloom(2, 10, 0.01, HashSpec.PARQUET, new int[16], 4, SplitBlockBloom.ESTIMATED).toBytes()};
    int accepted = 0;
    for (int i = 0; i < 30000; ++i) {
      final byte[] b = seeds[i % seeds.length].clone();
      final int edits = 1 + rng.nextInt(3);
      for (int e = 0; e < edits; ++e) {
        final int at = rng.nextInt(120);  // the header fields, parameters and padding
        b[at] = (byte) (rng.nextInt(4) == 0 ? rng.nextInt(9) : rng.nextInt(256));
      }
      final ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
      if (bb.getInt(24) != 128 || bb.getLong(56) != b.length - 128) continue;  // lengths: covered above
      resealed(b);
      try {
        final SplitBlockBloom f = SplitBlockBloom.fromBytes(b);
        assertArrayEquals(b, f.toBytes(), "accepted bytes must be canonical");
        ++accepted;
      } catch (BloomkitException expected) {
        // rejected with a typed error
      }
    }
    assertTrue(accepted > 0, "some edits (inserted, capacity, seed, ...) are valid files");
  }

  @Test
  void inexactCountsAreVersion2AndRoundTrip() {
    final SplitBlockBloom f = new SplitBlockBloom(2, 10, 0.01, HashSpec.PARQUET, new int[16], 4, SplitBlockBloom.AT_MOST);
    final byte[] b = f.toBytes();
    assertEquals(2, b[8]);
    assertEquals(1, b[14]);
    assertArrayEquals(b, SplitBlockBloom.fromBytes(b).toBytes());
  }

  @Test
  void keyTypesAreAdoptedOnceAndMismatchesRefused() {
    final SplitBlockBloom f = new SplitBlockBloom(100, 0.01);
    assertEquals(KeyType.UNSPECIFIED, f.hash().keys());
    f.insert(5L);
    assertEquals(KeyType.INT64, f.hash().keys());
    final long before = f.inserted();
    final BloomkitException e = assertThrows(BloomkitException.class, () -> f.insert("5"));
    assertEquals(BloomkitException.Code.MISMATCH, e.code());
    assertTrue(e.getMessage().contains("int64"), e.getMessage());
    assertEquals(before, f.inserted());
    final SplitBlockBloom other = new SplitBlockBloom(100, 0.01, KeyType.BYTES);
    assertEquals(BloomkitException.Code.MISMATCH, assertThrows(BloomkitException.class, () -> f.merge(other)).code());
    assertTrue(f.mayContain(5L));
  }
}
