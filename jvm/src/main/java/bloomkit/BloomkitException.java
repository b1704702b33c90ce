package bloomkit;

/**
 * The one exception bloomkit's JVM library throws for bad input: a {@link Code} (the C++
 * library's {@code bloomkit::errc}) and a message that names the field or value. Input
 * that raises it has changed nothing.
 */
public final class BloomkitException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What went wrong; the names are the C++ library's {@code errc} values. */
  public enum Code {
    /** An argument outside its domain (capacity below 1, FPR outside (0, 1), ...). */
    INVALID_ARGUMENT,
    /** The bytes end before a field or the payload does. */
    TRUNCATED,
    /** A field holds a value no writer writes, or bytes are left over. */
    CORRUPT,
    /** A checksum does not match the bytes it covers. */
    CHECKSUM,
    /** A format version newer than this reader knows. */
    UNSUPPORTED_VERSION,
    /** A hash algorithm (or other feature) this reader does not implement. */
    UNSUPPORTED,
    /** A filter kind this library does not read. */
    UNKNOWN_KIND,
    /** Two filters (or a filter and a key) that do not go together. */
    MISMATCH
  }

  private final Code code;

  /** An exception with {@code code} and {@code message} (which should name the field or value). */
  public BloomkitException(Code code, String message) {
    super("bloomkit: " + message);
    this.code = code;
  }

  /** What went wrong. */
  public Code code() {
    return code;
  }

  static void require(boolean ok, Code code, String message) {
    if (!ok) throw new BloomkitException(code, message);
  }
}
