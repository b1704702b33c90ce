package bloomkit;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Apache Parquet's split-block Bloom filter, bit for bit as include/bloomkit/split_block_bloom.hpp
 * and Parquet's BloomFilter.md define it: blocks of eight 32-bit words; a key's 64-bit hash h
 * picks block ((h >>> 32) * blocks) >>> 32 and sets, in word w, bit (int) h * SALT[w] >>> 27
 * (k = 8). Sized from (capacity, fpr) exactly as the C++ library sizes it ({@link Sizing}),
 * so the same keys give the same file ({@link FileFormat}).
 *
 * <p>Keys go through the filter's {@link HashSpec}: typed inserts convert by docs/KEYS.md
 * (an untyped filter takes its key type from its first typed insert) or throw MISMATCH
 * before changing anything. Not thread-safe for inserts; queries of an unchanging filter
 * are. Blocks are held in one int array, so at most 268,435,455 blocks (8 GiB).
 */
public final class SplitBlockBloom implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Parquet's eight salts (BloomFilter.md). */
  static final int[] SALT = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947,
      0x5c6bfb31};

  /** The most blocks one filter holds in this library (one int array). */
  public static final long MAX_BLOCKS = (Integer.MAX_VALUE - 8) / 8;

  /** inserted() is an exact count of insert calls (header byte 14: 0). */
  public static final int EXACT = 0;
  /** inserted() is an upper bound (after an intersection; byte 14: 1). */
  public static final int AT_MOST = 1;
  /** inserted() is an estimate (byte 14: 2). */
  public static final int ESTIMATED = 2;

  private final long blocks;
  private final int[] words;
  private final long capacity;
  private final double targetFpr;
  private HashSpec hash;
  private long inserted;
  private int accuracy;

  /** An empty filter for {@code capacity} keys at {@code fpr}, Parquet's hash (XXH64 seed 0), untyped. */
  public SplitBlockBloom(long capacity, double fpr) {
    this(capacity, fpr, KeyType.UNSPECIFIED);
  }

  /** An empty filter for {@code capacity} keys at {@code fpr} with key type {@code keys}. */
  public SplitBlockBloom(long capacity, double fpr, KeyType keys) {
    this(Sizing.splitBlockBlocksFor(capacity, fpr), capacity, fpr, HashSpec.PARQUET.withKeys(keys));
  }

  /**
   * An empty filter of exactly {@code blocks} blocks (1 to {@link #MAX_BLOCKS}); capacity (at
   * least 1) and fpr (in (0, 1)) are the design point recorded in its file. INVALID_ARGUMENT
   * otherwise.
   */
  public SplitBlockBloom(long blocks, long capacity, double fpr, HashSpec hash) {
    this(blocks, capacity, fpr, hash, null, 0, EXACT);
  }

  SplitBlockBloom(long blocks, long capacity, double fpr, HashSpec hash, int[] words, long inserted, int accuracy) {
    BloomkitException.require(blocks >= 1 && blocks <= MAX_BLOCKS, BloomkitException.Code.INVALID_ARGUMENT,
        "split_block_bloom: blocks must be in [1, " + MAX_BLOCKS + "] in the JVM library, got " + blocks);
    BloomkitException.require(capacity != 0, BloomkitException.Code.INVALID_ARGUMENT,
        "split_block_bloom: capacity must be at least 1, got " + Long.toUnsignedString(capacity));
    Sizing.checkFpr(fpr);
    if (hash == null) throw new NullPointerException("hash");
    this.blocks = blocks;
    this.words = words != null ? words : new int[(int) (blocks * 8)];
    this.capacity = capacity;
    this.targetFpr = fpr;
    this.hash = hash;
    this.inserted = inserted;
    this.accuracy = accuracy;
  }

  /** A copy with the same bits, counters and hash. */
  public SplitBlockBloom copy() {
    return new SplitBlockBloom(blocks, capacity, targetFpr, hash, words.clone(), inserted, accuracy);
  }

  // ---- hashes -----------------------------------------------------------------------

  private int blockBase(long h) {
    // (h >>> 32) < 2^32 and blocks <= 2^32: the product fits in 64 unsigned bits.
    return (int) ((((h >>> 32) * blocks) >>> 32) << 3);
  }

  /** Adds the key whose hash is {@code h} (the key type is not consulted). */
  public void insertHash(long h) {
    final int base = blockBase(h);
    final int x = (int) h;
    final int[] w = words;
    w[base] |= 1 << ((x * 0x47b6137b) >>> 27);
    w[base + 1] |= 1 << ((x * 0x44974d91) >>> 27);
    w[base + 2] |= 1 << ((x * 0x8824ad5b) >>> 27);
    w[base + 3] |= 1 << ((x * 0xa2b7289d) >>> 27);
    w[base + 4] |= 1 << ((x * 0x705495c7) >>> 27);
    w[base + 5] |= 1 << ((x * 0x2df1424b) >>> 27);
    w[base + 6] |= 1 << ((x * 0x9efc4947) >>> 27);
    w[base + 7] |= 1 << ((x * 0x5c6bfb31) >>> 27);
    ++inserted;
  }

  /** Whether the key whose hash is {@code h} may have been added (false: certainly not). */
  public boolean mayContainHash(long h) {
    final int base = blockBase(h);
    final int x = (int) h;
    final int[] w = words;
    return ((w[base] >>> ((x * 0x47b6137b) >>> 27))
        & (w[base + 1] >>> ((x * 0x44974d91) >>> 27))
        & (w[base + 2] >>> ((x * 0x8824ad5b) >>> 27))
        & (w[base + 3] >>> ((x * 0xa2b7289d) >>> 27))
        & (w[base + 4] >>> ((x * 0x705495c7) >>> 27))
        & (w[base + 5] >>> ((x * 0x2df1424b) >>> 27))
        & (w[base + 6] >>> ((x * 0x9efc4947) >>> 27))
        & (w[base + 7] >>> ((x * 0x5c6bfb31) >>> 27))
        & 1) != 0;
  }

  // ---- typed keys (docs/KEYS.md) ------------------------------------------------------

  /**
   * Takes key type {@code t} if this filter has none; no-op if it already has {@code t};
   * MISMATCH naming both otherwise (adopt_key_type in C++).
   */
  public void adoptKeyType(KeyType t) {
    if (hash.keys() == t) return;
    if (hash.keys() == KeyType.UNSPECIFIED) {
      hash = hash.withKeys(t);
      return;
    }
    throw new BloomkitException(BloomkitException.Code.MISMATCH,
        "split_block_bloom holds " + hash.keys() + " keys; got " + t + " keys");
  }

  private HashSpec typed(KeyType t, String got) {
    final KeyType mine = hash.keys();
    if (mine == t) return hash;
    if (mine == KeyType.UNSPECIFIED) {
      hash = hash.withKeys(t);
      return hash;
    }
    throw new BloomkitException(BloomkitException.Code.MISMATCH,
        "split_block_bloom holds " + mine + " keys; got " + got);
  }

  /** Adds an integer of any width, widened to int64 (key type int64). */
  public void insert(long v) {
    insertHash(typed(KeyType.INT64, "an integer").hashLong(v));
  }

  /** Adds a float or double, widened to float64 (key type float64). */
  public void insert(double v) {
    insertHash(typed(KeyType.FLOAT64, "a floating-point value").hashDouble(v));
  }

  /** Adds a byte string (key type bytes). */
  public void insert(byte[] v) {
    insertHash(typed(KeyType.BYTES, "a byte string").hashBytes(v));
  }

  /** Adds a string as its UTF-8 bytes (key type bytes). */
  public void insert(String v) {
    insertHash(typed(KeyType.BYTES, "a string").hashString(v));
  }

  /** Adds an instant as microseconds since the epoch, UTC (key type timestamp_us). */
  public void insertTimestampMicros(long micros) {
    insertHash(typed(KeyType.TIMESTAMP_US, "a timestamp").hashLong(micros));
  }

  /** Adds a date as days since 1970-01-01 (key type date32). */
  public void insertDateDays(int days) {
    insertHash(typed(KeyType.DATE32, "a date").hashInt(days));
  }

  private HashSpec probing(KeyType t, String got) {
    final KeyType mine = hash.keys();
    if (mine == t || mine == KeyType.UNSPECIFIED) return hash;
    throw new BloomkitException(BloomkitException.Code.MISMATCH,
        "split_block_bloom holds " + mine + " keys; got " + got);
  }

  /** Whether the integer may be in the filter (int64 keys, or an untyped filter). */
  public boolean mayContain(long v) {
    return mayContainHash(probing(KeyType.INT64, "an integer").hashLong(v));
  }

  /** Whether the float64 may be in the filter. */
  public boolean mayContain(double v) {
    return mayContainHash(probing(KeyType.FLOAT64, "a floating-point value").hashDouble(v));
  }

  /** Whether the byte string may be in the filter. */
  public boolean mayContain(byte[] v) {
    return mayContainHash(probing(KeyType.BYTES, "a byte string").hashBytes(v));
  }

  /** Whether the string (as UTF-8) may be in the filter. */
  public boolean mayContain(String v) {
    return mayContainHash(probing(KeyType.BYTES, "a string").hashString(v));
  }

  /** Whether the instant (µs since the epoch) may be in the filter. */
  public boolean mayContainTimestampMicros(long micros) {
    return mayContainHash(probing(KeyType.TIMESTAMP_US, "a timestamp").hashLong(micros));
  }

  /** Whether the date (days since the epoch) may be in the filter. */
  public boolean mayContainDateDays(int days) {
    return mayContainHash(probing(KeyType.DATE32, "a date").hashInt(days));
  }

  // ---- set algebra --------------------------------------------------------------------

  private void requireSameShape(SplitBlockBloom other, String op) {
    BloomkitException.require(blocks == other.blocks, BloomkitException.Code.MISMATCH,
        "split_block_bloom " + op + ": block counts differ (" + blocks + " vs " + other.blocks + ")");
    BloomkitException.require(hash.algorithm() == other.hash.algorithm() && hash.seed() == other.hash.seed(),
        BloomkitException.Code.MISMATCH, "split_block_bloom " + op + ": hash specs differ");
    BloomkitException.require(hash.keys() == other.hash.keys(), BloomkitException.Code.MISMATCH,
        "split_block_bloom " + op + ": key types differ (" + hash.keys() + " vs " + other.hash.keys() + ")");
  }

  /**
   * Union: this |= other. MISMATCH unless blocks and hash (key type included) are equal.
   * inserted() becomes the sum; its accuracy the weaker of the two.
   */
  public SplitBlockBloom merge(SplitBlockBloom other) {
    requireSameShape(other, "merge");
    final int[] mine = words;
    final int[] theirs = other.words;
    for (int i = 0; i < mine.length; ++i) mine[i] |= theirs[i];
    inserted += other.inserted;
    accuracy = Math.max(accuracy, other.accuracy);
    return this;
  }

  // ---- state --------------------------------------------------------------------------

  /** Number of 32-byte blocks. */
  public long blocks() {
    return blocks;
  }

  /** The design number of keys. */
  public long capacity() {
    return capacity;
  }

  /** The design false-positive rate. */
  public double targetFpr() {
    return targetFpr;
  }

  /** Insert calls counted (duplicates included; merges add), or a bound / estimate (see {@link #insertedAccuracy()}). */
  public long inserted() {
    return inserted;
  }

  /** {@link #EXACT}, {@link #AT_MOST} or {@link #ESTIMATED}. */
  public int insertedAccuracy() {
    return accuracy;
  }

  /** The hash (algorithm, seed, key type). */
  public HashSpec hash() {
    return hash;
  }

  /** The filter's size in bytes (32 per block). */
  public long sizeInBytes() {
    return blocks * 32;
  }

  /** Word {@code i} of the filter (block i / 8, word i % 8). */
  public int word(int i) {
    return words[i];
  }

  int[] words() {
    return words;
  }

  /** The file bytes of this filter (docs/FORMAT.md, kind 3), as the C++ library's save() writes them. */
  public byte[] toBytes() {
    return FileFormat.write(this);
  }

  /** The filter in {@code bytes} (a kind-3 file), checked as the C++ reader checks it. */
  public static SplitBlockBloom fromBytes(byte[] bytes) {
    return FileFormat.read(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SplitBlockBloom f && f.blocks == blocks && f.capacity == capacity
        && Double.doubleToRawLongBits(f.targetFpr) == Double.doubleToRawLongBits(targetFpr) && f.hash.equals(hash)
        && f.inserted == inserted && f.accuracy == accuracy && Arrays.equals(f.words, words);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(words) * 31 + Long.hashCode(inserted);
  }

  @Override
  public String toString() {
    return "SplitBlockBloom(blocks=" + blocks + ", capacity=" + Long.toUnsignedString(capacity) + ", fpr=" + targetFpr
        + ", inserted=" + Long.toUnsignedString(inserted) + ", " + hash + ")";
  }
}
