package bloomkit.interop;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.compat.RowGroupFilter;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.BloomFilterReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * parquet-mr's own reading of Parquet Bloom filters (the reader Spark uses),
 * for bloomkit's interop step. Run with pyspark's jars on the class path.
 *
 * <pre>
 *   ParquetProbe probe FILE PROBES OUT
 *       PROBES: lines "ROW_GROUP TAB COLUMN TAB HEX" (HEX = the plain-encoded value, "-" empty);
 *       OUT:    the same lines with TAB none|maybe|absent appended: the answer of
 *               BloomFilterReader.readBloomFilter(...).findHash(hash(value)).
 *   ParquetProbe rowgroups FILE COLUMN HEX...
 *       per value: how many row groups RowGroupFilter keeps at FilterLevel.BLOOMFILTER
 *       for the predicate COLUMN == value (what Spark's reader skips), as "HEX TAB kept TAB total".
 * </pre>
 */
public final class ParquetProbe {
  private static final HexFormat HEX = HexFormat.of();

  public static void main(String[] args) throws Exception {
    if (args.length >= 4 && args[0].equals("probe")) {
      probe(args[1], java.nio.file.Path.of(args[2]), java.nio.file.Path.of(args[3]));
    } else if (args.length >= 4 && args[0].equals("rowgroups")) {
      rowGroups(args[1], args[2], java.util.Arrays.copyOfRange(args, 3, args.length));
    } else {
      System.err.println("usage: ParquetProbe probe FILE PROBES OUT | rowgroups FILE COLUMN HEX...");
      System.exit(1);
    }
  }

  static ParquetFileReader open(String file) throws IOException {
    return ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), new Configuration()));
  }

  static byte[] unhex(String text) {
    return text.equals("-") ? new byte[0] : HEX.parseHex(text);
  }

  static ColumnChunkMetaData column(BlockMetaData block, String path) {
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (c.getPath().toDotString().equals(path)) return c;
    }
    throw new IllegalArgumentException("no column " + path);
  }

  /** The filter's hash of a plain-encoded value, through the typed overload its physical type uses. */
  static long hash(BloomFilter filter, PrimitiveTypeName type, byte[] bytes) {
    ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    return switch (type) {
      case INT32 -> filter.hash(le.getInt());
      case INT64 -> filter.hash(le.getLong());
      case FLOAT -> filter.hash(le.getFloat());
      case DOUBLE -> filter.hash(le.getDouble());
      // parquet-mr writes INT96 values as 12-byte Binary and hashes them so.
      case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> filter.hash(Binary.fromConstantByteArray(bytes));
      default -> throw new IllegalArgumentException("no Bloom filter hash for " + type);
    };
  }

  static void probe(String file, java.nio.file.Path probes, java.nio.file.Path out) throws IOException {
    StringBuilder result = new StringBuilder();
    try (ParquetFileReader reader = open(file)) {
      List<BlockMetaData> blocks = reader.getRowGroups();
      List<BloomFilterReader> readers = new ArrayList<>();
      for (BlockMetaData block : blocks) readers.add(reader.getBloomFilterDataReader(block));
      String lastKey = null;
      BloomFilter filter = null;
      PrimitiveTypeName type = null;
      for (String line : Files.readAllLines(probes, StandardCharsets.UTF_8)) {
        if (line.isEmpty()) continue;
        String[] f = line.split("\t");
        int rg = Integer.parseInt(f[0]);
        String key = f[0] + "\t" + f[1];
        if (!key.equals(lastKey)) {
          ColumnChunkMetaData chunk = column(blocks.get(rg), f[1]);
          filter = readers.get(rg).readBloomFilter(chunk);
          type = chunk.getPrimitiveType().getPrimitiveTypeName();
          lastKey = key;
        }
        String answer = filter == null ? "none" : filter.findHash(hash(filter, type, unhex(f[2]))) ? "maybe" : "absent";
        result.append(line).append('\t').append(answer).append('\n');
      }
    }
    Files.writeString(out, result);
  }

  static void rowGroups(String file, String columnPath, String[] values) throws IOException {
    try (ParquetFileReader reader = open(file)) {
      List<BlockMetaData> blocks = reader.getRowGroups();
      PrimitiveTypeName type = column(blocks.get(0), columnPath).getPrimitiveType().getPrimitiveTypeName();
      for (String hex : values) {
        byte[] bytes = unhex(hex);
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        FilterPredicate predicate = switch (type) {
          case INT32 -> FilterApi.eq(FilterApi.intColumn(columnPath), le.getInt());
          case INT64 -> FilterApi.eq(FilterApi.longColumn(columnPath), le.getLong());
          case FLOAT -> FilterApi.eq(FilterApi.floatColumn(columnPath), le.getFloat());
          case DOUBLE -> FilterApi.eq(FilterApi.doubleColumn(columnPath), le.getDouble());
          case BINARY, FIXED_LEN_BYTE_ARRAY -> FilterApi.eq(FilterApi.binaryColumn(columnPath), Binary.fromConstantByteArray(bytes));
          default -> throw new IllegalArgumentException("no predicate for " + type);
        };
        List<BlockMetaData> kept = RowGroupFilter.filterRowGroups(
            List.of(RowGroupFilter.FilterLevel.BLOOMFILTER), FilterCompat.get(predicate), blocks, reader);
        System.out.println(hex + "\t" + kept.size() + "\t" + blocks.size());
      }
    }
  }
}
