package bloomkit;

import java.io.Serializable;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * A k-minimum-values sketch of 64-bit key hashes: the K smallest distinct hashes (unsigned),
 * exactly what python/bloomkit/_engines.py's kmv_sketch keeps, so the JVM and Python paths
 * derive the same distinct-count estimate and therefore the same filter capacity. Merges by
 * union-and-keep-K; the sketch depends only on the set of hashes. It also counts the hashes
 * added (repeats included), which bounds every answer: an input holds no more distinct keys
 * than keys. Not thread-safe.
 */
public final class Kmv implements Serializable {
  private static final long serialVersionUID = 2L;

  /** The sketch size of _engines.KMV_K. */
  public static final int K = 4096;

  // Hashes with the sign bit flipped, so signed order is unsigned order of the hashes.
  private long[] kept = new long[0];
  private long[] pending = new long[8 * K];
  private int pendingCount = 0;
  private long added = 0;

  /** Adds one hash. */
  public void add(long hash) {
    ++added;
    final long key = hash ^ Long.MIN_VALUE;
    if (kept.length >= K && key >= kept[K - 1]) return;
    pending[pendingCount++] = key;
    if (pendingCount == pending.length) compact();
  }

  private void compact() {
    if (pendingCount == 0) return;
    final long[] all = Arrays.copyOf(kept, kept.length + pendingCount);
    System.arraycopy(pending, 0, all, kept.length, pendingCount);
    pendingCount = 0;
    kept = uniqueSmallest(all);
  }

  private static long[] uniqueSmallest(long[] all) {
    Arrays.sort(all);
    int n = 0;
    for (int i = 0; i < all.length && n < K; ++i) {
      if (n == 0 || all[i] != all[n - 1]) all[n++] = all[i];
    }
    return Arrays.copyOf(all, n);
  }

  /** Union with {@code other}'s set (this is changed; other is not). */
  public Kmv merge(Kmv other) {
    compact();
    other.compact();
    added += other.added;
    final long[] all = Arrays.copyOf(kept, kept.length + other.kept.length);
    System.arraycopy(other.kept, 0, all, kept.length, other.kept.length);
    kept = uniqueSmallest(all);
    return this;
  }

  /** The sketch: at most K hashes, ascending as unsigned numbers. */
  public long[] hashes() {
    compact();
    final long[] out = kept.clone();
    for (int i = 0; i < out.length; ++i) out[i] ^= Long.MIN_VALUE;
    return out;
  }

  /** Whether the sketch holds every distinct hash seen (fewer than K of them): the count is then exact. */
  public boolean exact() {
    compact();
    return kept.length < K;
  }

  /** The hashes added, repeats included (merged sketches: the sum). */
  public long added() {
    return added;
  }

  /**
   * The distinct-count estimate: exact below K, else (K - 1) / ((h_K + 1) / 2^64), at most
   * {@link #added()} (as _engines.kmv_estimate with its inserts).
   */
  public double estimate() {
    compact();
    if (kept.length < K) return kept.length;
    final long kth = kept[K - 1] ^ Long.MIN_VALUE;
    final double top = new BigInteger(Long.toUnsignedString(kth)).add(BigInteger.ONE).doubleValue();
    return Math.min((K - 1) / (top / 18446744073709551616.0), (double) added);
  }

  /**
   * The capacity a build uses: the count when exact, else the estimate plus two standard
   * errors (about +3.1 %), at most {@link #added()} and at least 1 (as _engines.kmv_capacity).
   */
  public long capacity() {
    final double e = estimate();
    if (exact()) return Math.max(1L, (long) e);
    return Math.max(1L, Math.min(added, (long) Math.ceil(e * (1.0 + 2.0 / Math.sqrt(K - 2)))));
  }
}
