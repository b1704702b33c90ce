package bloomkit;

/**
 * The key types of docs/KEYS.md: what bytes a value becomes before it is hashed. The
 * {@link #id()} is the byte stored at offset 15 of a file's header (format version 5) and
 * never changes.
 */
public enum KeyType {
  /** No recorded type: the caller's bytes as they are (files before format version 5). */
  UNSPECIFIED(0, "unspecified"),
  /** Byte strings as they are; text as its UTF-8 bytes. */
  BYTES(1, "bytes"),
  /** Every integer widened to 8 bytes, little-endian two's complement. */
  INT64(2, "int64"),
  /** The 8 bytes of an IEEE-754 binary64, little-endian. */
  FLOAT64(3, "float64"),
  /** 4 bytes, little-endian (Parquet INT32 columns). */
  INT32(4, "int32"),
  /** The 4 bytes of an IEEE-754 binary32, little-endian (Parquet FLOAT columns). */
  FLOAT32(5, "float32"),
  /** Microseconds since 1970-01-01 00:00 UTC, 8 bytes little-endian. */
  TIMESTAMP_US(6, "timestamp_us"),
  /** Days since 1970-01-01, 4 bytes little-endian. */
  DATE32(7, "date32");

  private final int id;
  private final String text;

  KeyType(int id, String text) {
    this.id = id;
    this.text = text;
  }

  /** The id stored in files (0 to 7). */
  public int id() {
    return id;
  }

  /** The name docs/KEYS.md and the CLI use ("int64", "timestamp_us", ...). */
  @Override
  public String toString() {
    return text;
  }

  /** The key type whose id is {@code id}; {@link BloomkitException.Code#CORRUPT} for an unknown id. */
  public static KeyType fromId(int id) {
    for (KeyType t : values()) {
      if (t.id == id) return t;
    }
    throw new BloomkitException(BloomkitException.Code.CORRUPT, "unknown key type id " + id + " (known: 0 to 7)");
  }

  /** The key type named {@code name} (as {@link #toString()} spells it); INVALID_ARGUMENT otherwise. */
  public static KeyType parse(String name) {
    for (KeyType t : values()) {
      if (t.text.equals(name)) return t;
    }
    throw new BloomkitException(BloomkitException.Code.INVALID_ARGUMENT, "unknown key type '" + name + "'");
  }
}
