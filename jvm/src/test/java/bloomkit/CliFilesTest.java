package bloomkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Files the C++ CLI wrote (`bloomkit build --kind split-block`, fresh every run) against the
 * JVM library: the same keys, capacity and FPR give the same bytes, the CLI's file reads
 * back and writes out unchanged, and answers every key inserted.
 */
class CliFilesTest {
  /** The key type the CLI records for a --format (docs/KEYS.md, "Where each source type goes"). */
  static KeyType keyTypeOf(String format) {
    return format.equals("i64") || format.equals("u64") ? KeyType.INT64 : KeyType.BYTES;
  }

  static void insert(SplitBlockBloom f, String format, String key) {
    switch (format) {
      case "i64" -> f.insert(Long.parseLong(key));
      case "u64" -> f.insert(Long.parseUnsignedLong(key));  // values >= 2^63 keep their bit pattern
      case "hex" -> f.insert(HexFormat.of().parseHex(key));
      default -> f.insert(key);
    }
  }

  static boolean mayContain(SplitBlockBloom f, String format, String key) {
    return switch (format) {
      case "i64" -> f.mayContain(Long.parseLong(key));
      case "u64" -> f.mayContain(Long.parseUnsignedLong(key));
      case "hex" -> f.mayContain(HexFormat.of().parseHex(key));
      default -> f.mayContain(key);
    };
  }

  @TestFactory
  List<DynamicTest> cliFilesEqualJvmFiles() throws Exception {
    final List<String> cases = Files.readAllLines(TestInputs.dir().resolve("cases.tsv"));
    assertTrue(cases.size() >= 50, "expected the full case list, got " + cases.size());
    final List<DynamicTest> tests = new ArrayList<>();
    for (String line : cases) {
      final String[] c = line.split("\t");
      final String name = c[0];
      final String format = c[1];
      final long capacity = Long.parseLong(c[2]);
      final double fpr = Double.parseDouble(c[3]);
      tests.add(DynamicTest.dynamicTest(name, () -> {
        final byte[] cli = TestInputs.read(name + ".bkf");
        final List<String> keys = Files.readAllLines(TestInputs.dir().resolve(name + ".keys"), StandardCharsets.UTF_8);
        // Sizing: the block count the C++ search chose.
        final long cliBlocks = ByteBuffer.wrap(cli).order(ByteOrder.LITTLE_ENDIAN).getLong(72);
        assertEquals(cliBlocks, Sizing.splitBlockBlocksFor(capacity, fpr), "blocks for " + capacity + ", " + fpr);
        // Built here from the same keys: the same bytes.
        final SplitBlockBloom f = new SplitBlockBloom(capacity, fpr);
        for (String k : keys) insert(f, format, k);
        assertEquals(keyTypeOf(format), f.hash().keys());
        assertArrayEquals(cli, f.toBytes(), name);
        // Read back: the same filter, the same bytes, every key present.
        final SplitBlockBloom read = SplitBlockBloom.fromBytes(cli);
        assertEquals(f, read);
        assertArrayEquals(cli, read.toBytes());
        for (String k : keys) assertTrue(mayContain(read, format, k), k);
      }));
    }
    return tests;
  }

  @TestFactory
  List<DynamicTest> partitionedBuildsMergeIntoTheCliFile() throws Exception {
    final List<DynamicTest> tests = new ArrayList<>();
    for (String name : new String[] {"full_i64", "full_text", "over_hex"}) {
      tests.add(DynamicTest.dynamicTest(name, () -> {
        final byte[] cli = TestInputs.read(name + ".bkf");
        final String format = name.substring(name.indexOf('_') + 1);
        final SplitBlockBloom shape = SplitBlockBloom.fromBytes(cli);
        final List<String> keys = Files.readAllLines(TestInputs.dir().resolve(name + ".keys"), StandardCharsets.UTF_8);
        final Random rng = new Random(name.hashCode());
        final SplitBlockBloom[] parts = new SplitBlockBloom[7];
        for (int i = 0; i < parts.length; ++i) {
          parts[i] = new SplitBlockBloom(shape.blocks(), shape.capacity(), shape.targetFpr(),
              HashSpec.PARQUET.withKeys(keyTypeOf(format)));
        }
        for (String k : keys) insert(parts[rng.nextInt(parts.length)], format, k);
        SplitBlockBloom merged = parts[3].copy();
        for (int i = 0; i < parts.length; ++i) {
          if (i != 3) merged.merge(parts[i]);
        }
        assertArrayEquals(cli, merged.toBytes());
      }));
    }
    return tests;
  }
}
