package bloomkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * bloomkit's file format (docs/FORMAT.md) for kind 3, split_block_bloom: the 72-byte fixed
 * header, 16 bytes of parameters, zero padding to a 64-byte aligned payload, the header
 * checksum, then the blocks as u32 words little-endian. Both checksums are XXH3-64 seed 0.
 * {@link #write} gives exactly the bytes the C++ library's save() gives for the same filter
 * (version 1, or 2 for an inexact count, or 5 when a key type is recorded); {@link #read}
 * checks a file in the C++ reader's order and rejects what it rejects, with the same
 * error codes.
 */
public final class FileFormat {
  private FileFormat() {}

  /** {@code 89 42 4C 4D 0D 0A 1A 0A}. */
  static final byte[] MAGIC = {(byte) 0x89, 'B', 'L', 'M', '\r', '\n', 0x1a, '\n'};
  /** The newest version this reader knows (5: the key-type byte at offset 15). */
  public static final int CURRENT_VERSION = 5;
  /** Kind id of split_block_bloom. */
  public static final int KIND_SPLIT_BLOCK = 3;

  static final int FIXED = 72;
  static final int PARAMS = 16;
  static final int HEADER_BYTES = roundUp(FIXED + PARAMS + 8, 64);  // 128
  static final int MAX_PARAMS = 65536;

  private static int roundUp(int v, int to) {
    return (v + to - 1) / to * to;
  }

  /** The version a writer writes: the oldest that expresses the filter. */
  static int writtenVersion(int accuracy, KeyType keys) {
    if (keys != KeyType.UNSPECIFIED) return 5;
    return accuracy == SplitBlockBloom.EXACT ? 1 : 2;
  }

  /** The file bytes of {@code f}. */
  public static byte[] write(SplitBlockBloom f) {
    final long payload = f.sizeInBytes();
    BloomkitException.require(payload <= Integer.MAX_VALUE - HEADER_BYTES, BloomkitException.Code.INVALID_ARGUMENT,
        "split_block_bloom: a file of " + payload + " payload bytes does not fit in one Java array");
    final byte[] out = new byte[HEADER_BYTES + (int) payload];
    final ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    final HashSpec h = f.hash();
    b.put(0, MAGIC);
    b.putInt(8, writtenVersion(f.insertedAccuracy(), h.keys()));
    out[12] = KIND_SPLIT_BLOCK;
    out[13] = (byte) h.algorithm();
    out[14] = (byte) f.insertedAccuracy();
    out[15] = (byte) h.keys().id();
    b.putLong(16, h.seed());
    b.putInt(24, HEADER_BYTES);
    b.putInt(28, PARAMS);
    b.putLong(32, f.inserted());
    b.putLong(40, f.capacity());
    b.putLong(48, Double.doubleToRawLongBits(f.targetFpr()));
    b.putLong(56, payload);
    // params: blocks u64, k u32 = 8, reserved u32 = 0; then zero padding.
    b.putLong(FIXED, f.blocks());
    b.putInt(FIXED + 8, 8);
    final int[] words = f.words();
    final ByteBuffer body = ByteBuffer.wrap(out, HEADER_BYTES, (int) payload).slice().order(ByteOrder.LITTLE_ENDIAN);
    body.asIntBuffer().put(words);
    b.putLong(64, HashSpec.checksum(out, HEADER_BYTES, (int) payload));
    b.putLong(HEADER_BYTES - 8, HashSpec.checksum(out, 0, HEADER_BYTES - 8));
    return out;
  }

  private static BloomkitException fail(BloomkitException.Code code, String what) {
    return new BloomkitException(code, "file: " + what);
  }

  /** The header fields every kind shares, as read (and checked) from a file. */
  public record Header(int version, int kind, int hashAlgorithm, int insertedAccuracy, KeyType keyType, long seed,
      int headerBytes, int paramsBytes, long inserted, long capacity, double targetFpr, long payloadBytes,
      long payloadChecksum, boolean checksumOk) {}

  /**
   * The header of {@code bytes}, checked through step 6 of docs/FORMAT.md's list; the header
   * checksum must hold, the payload checksum is reported in {@link Header#checksumOk()}.
   */
  public static Header readHeader(byte[] bytes) {
    final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    final int size = bytes.length;
    if (size < 8) throw fail(BloomkitException.Code.TRUNCATED, "the file ends inside the magic");
    for (int i = 0; i < 8; ++i) {
      if (bytes[i] != MAGIC[i]) throw fail(BloomkitException.Code.CORRUPT, "not a bloomkit file (bad magic)");
    }
    if (size < 12) throw fail(BloomkitException.Code.TRUNCATED, "the file ends inside the 'version' field");
    final int version = b.getInt(8);
    if (version == 0) throw fail(BloomkitException.Code.CORRUPT, "field 'version' is 0, which no writer produces");
    if (version < 0 || version > CURRENT_VERSION) {
      throw fail(BloomkitException.Code.UNSUPPORTED_VERSION, "format version " + Integer.toUnsignedString(version)
          + " is newer than this reader understands (versions 1 to " + CURRENT_VERSION + "); upgrade bloomkit to read it");
    }
    if (size < FIXED) throw fail(BloomkitException.Code.TRUNCATED, "the file ends inside the fixed header");
    final int headerBytes = b.getInt(24);
    final int paramsBytes = b.getInt(28);
    if (paramsBytes < 0 || paramsBytes > MAX_PARAMS) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'params_bytes' is " + Integer.toUnsignedString(paramsBytes)
          + ", more than " + MAX_PARAMS);
    }
    if (headerBytes != roundUp(FIXED + paramsBytes + 8, 64)) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'header_bytes' is " + Integer.toUnsignedString(headerBytes)
          + ", not what params_bytes implies");
    }
    if (size < headerBytes) throw fail(BloomkitException.Code.TRUNCATED, "the file ends inside the header");
    final long headerSum = b.getLong(headerBytes - 8);
    if (HashSpec.checksum(bytes, 0, headerBytes - 8) != headerSum) {
      throw fail(BloomkitException.Code.CHECKSUM, "the header checksum does not match");
    }
    final int kind = bytes[12] & 0xff;
    final int algorithm = bytes[13] & 0xff;
    final int accuracy = bytes[14] & 0xff;
    final int keyByte = bytes[15] & 0xff;
    if (version == 1 && accuracy != 0) {
      throw fail(BloomkitException.Code.CORRUPT, "reserved byte 14 is " + accuracy + " in a version 1 file");
    }
    if (version >= 2 && accuracy > 2) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'inserted_accuracy' is " + accuracy);
    }
    if (version == 2 && accuracy == 0) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'inserted_accuracy' is 0 in a version 2 file; it must be 1 "
          + "(at most) or 2 (estimated), and an exact count is written as version 1");
    }
    if (version < 5 && keyByte != 0) {
      throw fail(BloomkitException.Code.CORRUPT, "reserved byte 15 is " + keyByte + " in a version " + version + " file");
    }
    if (version == 5 && keyByte > 7) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'key_type' is " + keyByte + " (known: 0 to 7)");
    }
    for (int i = FIXED + paramsBytes; i < headerBytes - 8; ++i) {
      if (bytes[i] != 0) throw fail(BloomkitException.Code.CORRUPT, "padding byte " + i + " is not zero");
    }
    if (algorithm != HashSpec.XXH64 && algorithm != HashSpec.XXH3_64) {
      throw fail(BloomkitException.Code.UNSUPPORTED, "hash algorithm " + algorithm + " is not supported");
    }
    final long capacity = b.getLong(40);
    final double fpr = Double.longBitsToDouble(b.getLong(48));
    if (capacity == 0) throw fail(BloomkitException.Code.CORRUPT, "field 'capacity' is 0");
    if (!(fpr > 0.0 && fpr < 1.0)) throw fail(BloomkitException.Code.CORRUPT, "field 'target_fpr' is " + fpr);
    final long payloadBytes = b.getLong(56);
    final long available = size - headerBytes;
    if (Long.compareUnsigned(payloadBytes, available) > 0) {
      throw fail(BloomkitException.Code.TRUNCATED, "the payload is " + Long.toUnsignedString(payloadBytes)
          + " bytes but only " + available + " follow the header");
    }
    if (payloadBytes < available) {
      throw fail(BloomkitException.Code.CORRUPT, (available - payloadBytes) + " bytes follow the payload");
    }
    final long payloadSum = b.getLong(64);
    final boolean ok = HashSpec.checksum(bytes, headerBytes, (int) payloadBytes) == payloadSum;
    return new Header(version, kind, algorithm, accuracy, KeyType.fromId(keyByte), b.getLong(16), headerBytes,
        paramsBytes, b.getLong(32), capacity, fpr, payloadBytes, payloadSum, ok);
  }

  /**
   * The split-block filter in {@code bytes}, after every check of docs/FORMAT.md's list:
   * TRUNCATED, CORRUPT, CHECKSUM, UNSUPPORTED_VERSION, UNSUPPORTED, UNKNOWN_KIND (a kind other
   * than 3; this library reads only split-block files) or INVALID_ARGUMENT (more blocks than
   * one Java array holds).
   */
  public static SplitBlockBloom read(byte[] bytes) {
    final Header h = readHeader(bytes);
    if (!h.checksumOk()) throw fail(BloomkitException.Code.CHECKSUM, "the payload checksum does not match");
    if (h.kind() != KIND_SPLIT_BLOCK) {
      throw fail(BloomkitException.Code.UNKNOWN_KIND, "kind " + h.kind()
          + " is not read by the JVM library (it reads kind 3, split_block_bloom)");
    }
    final int expected = writtenVersion(h.insertedAccuracy(), h.keyType());
    if (h.version() != expected) {
      throw fail(BloomkitException.Code.CORRUPT, "format version " + h.version() + " for a split_block_bloom whose "
          + "fields a version " + expected + " file expresses");
    }
    final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (h.paramsBytes() != PARAMS) {
      throw fail(BloomkitException.Code.CORRUPT, "split_block_bloom parameters are 16 bytes, not " + h.paramsBytes());
    }
    final long blocks = b.getLong(FIXED);
    final int k = b.getInt(FIXED + 8);
    final int reserved = b.getInt(FIXED + 12);
    if (blocks < 1 || blocks > Sizing.MAX_FORMAT_BLOCKS) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'blocks' is " + Long.toUnsignedString(blocks)
          + ", outside [1, 2^32]");
    }
    if (k != 8) throw fail(BloomkitException.Code.CORRUPT, "field 'k' is " + Integer.toUnsignedString(k) + ", not 8");
    if (reserved != 0) throw fail(BloomkitException.Code.CORRUPT, "reserved parameter bytes are not zero");
    if (h.payloadBytes() != blocks * 32) {
      throw fail(BloomkitException.Code.CORRUPT, "field 'payload_bytes' is " + h.payloadBytes() + ", not 32 x "
          + blocks + " blocks");
    }
    BloomkitException.require(blocks <= SplitBlockBloom.MAX_BLOCKS, BloomkitException.Code.INVALID_ARGUMENT,
        "split_block_bloom: " + blocks + " blocks are more than the JVM library holds (" + SplitBlockBloom.MAX_BLOCKS + ")");
    final int[] words = new int[(int) (blocks * 8)];
    ByteBuffer.wrap(bytes, h.headerBytes(), (int) h.payloadBytes()).slice().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer()
        .get(words);
    return new SplitBlockBloom(blocks, h.capacity(), h.targetFpr(),
        new HashSpec(h.hashAlgorithm(), h.seed(), h.keyType()), words, h.inserted(), h.insertedAccuracy());
  }
}
