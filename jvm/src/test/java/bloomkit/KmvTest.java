package bloomkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The KMV sketch: exact below K, order- and partition-independent, and the estimate's formula. */
class KmvTest {
  @Test
  void exactBelowKAndDuplicatesIgnored() {
    final Kmv k = new Kmv();
    for (int rep = 0; rep < 3; ++rep) {
      for (long i = 0; i < 1000; ++i) k.add(HashSpec.PARQUET.hashLong(i));
    }
    assertTrue(k.exact());
    assertEquals(1000.0, k.estimate());
    assertEquals(1000, k.capacity());
    assertEquals(1, new Kmv().capacity());
  }

  @Test
  void mergedSketchesEqualOneSketchAndTheEstimateIsClose() {
    final Random rng = new Random(1);
    final Kmv whole = new Kmv();
    final Kmv[] parts = {new Kmv(), new Kmv(), new Kmv()};
    final int n = 200_000;
    for (long i = 0; i < n; ++i) {
      final long h = HashSpec.PARQUET.hashLong(i);
      whole.add(h);
      parts[rng.nextInt(3)].add(h);
    }
    final Kmv merged = parts[2].merge(parts[0]).merge(parts[1]);
    assertArrayEquals(whole.hashes(), merged.hashes());
    assertFalse(whole.exact());
    final long[] h = whole.hashes();
    assertEquals(Kmv.K, h.length);
    for (int i = 1; i < h.length; ++i) assertTrue(Long.compareUnsigned(h[i - 1], h[i]) < 0);
    // Relative standard error 1/sqrt(K - 2) = 1.6 %: 5 sigma on fixed data.
    assertTrue(Math.abs(whole.estimate() - n) < 5.0 * n / Math.sqrt(Kmv.K - 2), "estimate " + whole.estimate());
    // Plus two standard errors, but never more than the n keys added.
    final long upper = (long) Math.ceil(whole.estimate() * (1.0 + 2.0 / Math.sqrt(Kmv.K - 2)));
    assertEquals(Math.min(upper, n), whole.capacity());
    assertEquals(n, merged.added());
  }

  @Test
  void neverMoreThanTheHashesAdded() {
    // K hashes packed at the bottom (i * 2^44) estimate about 2^20 distinct keys; with 10 more
    // hashes added, split over two merged sketches, the input holds at most K + 10.
    final Kmv a = new Kmv();
    final Kmv b = new Kmv();
    for (long i = 1; i <= Kmv.K; ++i) (i % 2 == 0 ? a : b).add(i << 44);
    for (long i = 1; i <= 10; ++i) b.add(-i);
    final Kmv merged = a.merge(b);
    assertFalse(merged.exact());
    assertEquals(Kmv.K + 10, merged.added());
    assertEquals(Kmv.K + 10.0, merged.estimate());
    assertEquals(Kmv.K + 10, merged.capacity());
  }
}
