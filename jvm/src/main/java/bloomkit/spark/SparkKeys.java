package bloomkit.spark;

import bloomkit.HashSpec;
import bloomkit.KeyType;
import bloomkit.SplitBlockBloom;
import java.io.Serializable;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnixDate;
import org.apache.spark.sql.catalyst.expressions.UnixMicros;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * Spark's Catalyst types as bloomkit keys (docs/KEYS.md, "Spark columns"): every integral
 * type and boolean widened to int64, float and double as float64, string as its UTF-8 bytes
 * and binary as is (bytes), timestamp as microseconds since the epoch (timestamp_us), date as
 * days since the epoch (date32). Any other type is refused on the driver, before a job runs,
 * with an IllegalArgumentException naming the column.
 */
public final class SparkKeys {
  private SparkKeys() {}

  /** How one Catalyst type is read and hashed. */
  public enum Reader {
    BYTE(KeyType.INT64), SHORT(KeyType.INT64), INT(KeyType.INT64), LONG(KeyType.INT64), BOOLEAN(KeyType.INT64),
    FLOAT(KeyType.FLOAT64), DOUBLE(KeyType.FLOAT64), STRING(KeyType.BYTES), BINARY(KeyType.BYTES),
    TIMESTAMP(KeyType.TIMESTAMP_US), DATE(KeyType.DATE32);

    /** The key type this Catalyst type converts into. */
    public final KeyType keyType;

    Reader(KeyType keyType) {
      this.keyType = keyType;
    }
  }

  /**
   * The reader of Catalyst type {@code t} for column {@code column}; IllegalArgumentException
   * ("bloomkit: column 'c': cannot use its values as keys: ...") for a type with no key type.
   */
  public static Reader readerFor(DataType t, String column) {
    if (t instanceof LongType) return Reader.LONG;
    if (t instanceof IntegerType) return Reader.INT;
    if (t instanceof ShortType) return Reader.SHORT;
    if (t instanceof ByteType) return Reader.BYTE;
    if (t instanceof BooleanType) return Reader.BOOLEAN;
    if (t instanceof DoubleType) return Reader.DOUBLE;
    if (t instanceof FloatType) return Reader.FLOAT;
    if (t instanceof StringType) return Reader.STRING;
    if (t instanceof BinaryType) return Reader.BINARY;
    if (t instanceof TimestampType) return Reader.TIMESTAMP;
    if (t instanceof DateType) return Reader.DATE;
    throw new IllegalArgumentException("bloomkit: column '" + column + "': cannot use its values as keys: Spark type "
        + t.simpleString() + " has no bloomkit key type (integral, boolean, float, double, string, binary, "
        + "timestamp and date columns do; docs/KEYS.md)");
  }

  /**
   * Refuses (IllegalArgumentException naming the column) a filter whose recorded key type
   * is neither unspecified nor the column's.
   */
  public static void requireCompatible(SplitBlockBloom filter, Reader reader, String column) {
    final KeyType held = filter.hash().keys();
    if (held != KeyType.UNSPECIFIED && held != reader.keyType) {
      throw new IllegalArgumentException("bloomkit: column '" + column + "': the filter holds " + held
          + " keys; the column's values are " + reader.keyType + " keys (docs/KEYS.md)");
    }
  }

  /** Adds field 0 of {@code row} (not null) to {@code f}, converted by {@code reader}. */
  static void insert(SplitBlockBloom f, HashSpec h, Reader reader, InternalRow row) {
    f.insertHash(hash(h, reader, row));
  }

  /** The hash of field 0 of {@code row} (not null), converted by {@code reader}. */
  static long hash(HashSpec h, Reader reader, InternalRow row) {
    switch (reader) {
      case LONG: return h.hashLong(row.getLong(0));
      case INT: return h.hashLong(row.getInt(0));
      case SHORT: return h.hashLong(row.getShort(0));
      case BYTE: return h.hashLong(row.getByte(0));
      case BOOLEAN: return h.hashLong(row.getBoolean(0) ? 1 : 0);
      case DOUBLE: return h.hashDouble(row.getDouble(0));
      case FLOAT: return h.hashDouble(row.getFloat(0));
      case STRING: return hashUtf8(h, row.getUTF8String(0));
      case BINARY: return h.hashBytes(row.getBinary(0));
      case TIMESTAMP: return h.hashLong(row.getLong(0));
      case DATE: return h.hashInt(row.getInt(0));
      default: throw new AssertionError(reader);
    }
  }

  /** The hash of a UTF8String's bytes, without copying them when they live in a byte array. */
  static long hashUtf8(HashSpec h, UTF8String s) {
    final Object base = s.getBaseObject();
    if (base instanceof byte[] array) {
      return h.hashBytes(array, (int) (s.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), s.numBytes());
    }
    return h.hashBytes(s.getBytes());
  }

  /**
   * The key of {@code reader}'s type as the Catalyst expression {@link #hashConverted} reads:
   * integral and boolean cast to bigint, float to double, string to binary (its UTF-8 bytes),
   * timestamp to microseconds (unix_micros), date to days (unix_date). Every conversion is exact.
   */
  static Expression convert(Expression key, Reader reader) {
    switch (reader) {
      case LONG: case DOUBLE: case BINARY: return key;
      case INT: case SHORT: case BYTE: case BOOLEAN: return cast(key, DataTypes.LongType);
      case FLOAT: return cast(key, DataTypes.DoubleType);
      case STRING: return cast(key, DataTypes.BinaryType);
      case TIMESTAMP: return new UnixMicros(key);
      case DATE: return new UnixDate(key);
      default: throw new AssertionError(reader);
    }
  }

  private static Expression cast(Expression key, DataType to) {
    return new Cast(key, to, Option.empty(), EvalMode$.MODULE$.LEGACY());
  }

  /** {@link #convert(Expression, Reader)} for the Column API. */
  static Column convert(Column key, Reader reader) {
    switch (reader) {
      case LONG: case DOUBLE: case BINARY: return key;
      case INT: case SHORT: case BYTE: case BOOLEAN: return key.cast(DataTypes.LongType);
      case FLOAT: return key.cast(DataTypes.DoubleType);
      case STRING: return key.cast(DataTypes.BinaryType);
      case TIMESTAMP: return functions.unix_micros(key);
      case DATE: return functions.unix_date(key);
      default: throw new AssertionError(reader);
    }
  }

  /** The encoder of the converted key (bigint, double, binary or int). */
  @SuppressWarnings("unchecked")
  static Encoder<Object> encoder(Reader reader) {
    final Encoder<?> e;
    switch (reader) {
      case LONG: case INT: case SHORT: case BYTE: case BOOLEAN: case TIMESTAMP: e = Encoders.LONG(); break;
      case DOUBLE: case FLOAT: e = Encoders.DOUBLE(); break;
      case STRING: case BINARY: e = Encoders.BINARY(); break;
      case DATE: e = Encoders.INT(); break;
      default: throw new AssertionError(reader);
    }
    return (Encoder<Object>) e;
  }

  /** The hash of a converted key (a Long, Double, byte[] or Integer as {@link #convert} makes it). */
  static long hashConverted(HashSpec h, Reader reader, Object v) {
    switch (reader) {
      case LONG: case INT: case SHORT: case BYTE: case BOOLEAN: case TIMESTAMP: return h.hashLong((Long) v);
      case DOUBLE: case FLOAT: return h.hashDouble((Double) v);
      case STRING: case BINARY: return h.hashBytes((byte[]) v);
      case DATE: return h.hashInt((Integer) v);
      default: throw new AssertionError(reader);
    }
  }

  /** A Serializable holder of what a task needs to hash one column. */
  record KeySpec(Reader reader, HashSpec hash) implements Serializable {}
}
