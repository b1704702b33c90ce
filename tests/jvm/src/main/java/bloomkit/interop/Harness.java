package bloomkit.interop;

import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.util.sketch.BloomFilter;
import org.apache.spark.util.sketch.BloomkitHashProbe;

/**
 * bloomkit's JVM reference harness. Every answer it writes comes from the
 * real spark-sketch and Guava jars (pom.xml pins them); bloomkit's C++ tests
 * compare against these files, and `check` reads back what bloomkit wrote.
 *
 * <pre>
 *   java -cp ... bloomkit.interop.Harness golden            golden hash values, to stdout
 *   java -cp ... bloomkit.interop.Harness make DIR [--big|--small]  filters + keys + probe answers
 *   java -cp ... bloomkit.interop.Harness check DIR         read DIR/*.bloomkit.bin with readFrom
 *   java -cp ... bloomkit.interop.Harness bench BITS N      timed mightContain loops
 * </pre>
 *
 * A case NAME is four files: NAME.meta (key=value lines), NAME.bin (the
 * library's own writeTo bytes), NAME.keys (inserted keys, one per line) and
 * NAME.probes ("1 KEY" or "0 KEY": the library's mightContain answer). Keys
 * are decimal for long/int and lower-case hex of the bytes for
 * string/binary (strings as UTF-8), so any key survives a text line.
 */
public final class Harness {
  private static final HexFormat HEX = HexFormat.of();

  public static void main(String[] args) throws Exception {
    if (args.length == 0) usage();
    switch (args[0]) {
      case "golden" -> golden(new PrintWriter(System.out, true, StandardCharsets.UTF_8));
      case "make" -> {
        if (args.length < 2) usage();
        String mode = args.length > 2 ? args[2] : "";
        make(Path.of(args[1]), mode.equals("--big"), mode.equals("--small") ? 10 : 1);
      }
      case "check" -> {
        if (args.length < 2) usage();
        System.exit(check(Path.of(args[1])));
      }
      case "bench" -> {
        if (args.length < 3) usage();
        bench(Long.parseLong(args[1]), Integer.parseInt(args[2]));
      }
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println("usage: Harness golden | make DIR [--big|--small] | check DIR | bench BITS N");
    System.exit(1);
  }

  // ---- golden hash values ------------------------------------------------------------

  /** Inputs that cover every tail length and bytes >= 0x80 (Spark sign-extends its tail). */
  static List<byte[]> goldenInputs() {
    List<byte[]> inputs = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(20261201L);
    for (int length = 0; length <= 40; ++length) {
      byte[] bytes = new byte[length];
      for (int i = 0; i < length; ++i) bytes[i] = (byte) random.nextInt(256);
      inputs.add(bytes);
    }
    inputs.add("hello".getBytes(StandardCharsets.UTF_8));
    inputs.add("The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8));
    inputs.add(new byte[] {(byte) 0x80, (byte) 0xff, 0x7f});
    return inputs;
  }

  static void golden(PrintWriter out) {
    int[] seeds = {0, 42, -1, Integer.MIN_VALUE};
    for (byte[] input : goldenInputs()) {
      for (int seed : seeds) {
        out.printf("spark_bytes %d %s %d%n", seed, hexOrDash(input), BloomkitHashProbe.hashBytes(input, seed));
      }
      out.printf("guava128 %s %s%n", hexOrDash(input), Hashing.murmur3_128().hashBytes(input).toString());
    }
    long[] longs = {0L, 1L, -1L, 42L, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123456789abcdefL, 1L << 32};
    for (long value : longs) {
      for (int seed : seeds) {
        out.printf("spark_long %d %d %d%n", seed, value, BloomkitHashProbe.hashLong(value, seed));
      }
      out.printf("guava128_long %d %s%n", value, Hashing.murmur3_128().hashLong(value).toString());
    }
    int[] ints = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 123456789};
    for (int value : ints) {
      out.printf("guava128_int %d %s%n", value, Hashing.murmur3_128().hashInt(value).toString());
    }
    out.flush();
  }

  private static String hexOrDash(byte[] bytes) {
    return bytes.length == 0 ? "-" : HEX.formatHex(bytes);
  }

  // ---- keys ---------------------------------------------------------------------------

  /** One key with both forms: the Java object the library is given and its text line. */
  record Key(Object value, String line) {}

  /** Strings with ASCII, 2-, 3- and 4-byte UTF-8, and the empty string. */
  static String randomString(SplittableRandom random) {
    int length = random.nextInt(0, 24);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; ++i) {
      switch (random.nextInt(8)) {
        case 0 -> sb.append((char) random.nextInt(0x80, 0x800));      // 2-byte UTF-8
        case 1 -> sb.append((char) random.nextInt(0x800, 0xd800));    // 3-byte UTF-8
        case 2 -> sb.appendCodePoint(random.nextInt(0x10000, 0x110000)); // 4 bytes, a surrogate pair in Java
        default -> sb.append((char) random.nextInt(0x20, 0x7f));
      }
    }
    return sb.toString();
  }

  static Key randomKey(String type, SplittableRandom random) {
    switch (type) {
      case "long": {
        long v = random.nextInt(4) == 0 ? random.nextLong(-1000, 1000) : random.nextLong();
        return new Key(v, Long.toString(v));
      }
      case "int": {
        int v = random.nextInt();
        return new Key(v, Integer.toString(v));
      }
      case "string": {
        String s = randomString(random);
        return new Key(s, hexOrDash(s.getBytes(StandardCharsets.UTF_8)));
      }
      case "binary": {
        byte[] b = new byte[random.nextInt(0, 40)];
        for (int i = 0; i < b.length; ++i) b[i] = (byte) random.nextInt(256);
        return new Key(b, hexOrDash(b));
      }
      default:
        throw new IllegalArgumentException("key type " + type);
    }
  }

  static Key parseKey(String type, String line) {
    switch (type) {
      case "long": return new Key(Long.parseLong(line), line);
      case "int": return new Key(Integer.parseInt(line), line);
      case "string": return new Key(new String(unhex(line), StandardCharsets.UTF_8), line);
      case "binary": return new Key(unhex(line), line);
      default: throw new IllegalArgumentException("key type " + type);
    }
  }

  private static byte[] unhex(String line) {
    return line.equals("-") ? new byte[0] : HEX.parseHex(line);
  }

  // ---- the two libraries behind one small interface ----------------------------------

  interface Filter {
    void put(Key key);
    boolean mightContain(Key key);
    byte[] bytes() throws IOException;
  }

  static final class SparkFilter implements Filter {
    final BloomFilter filter;
    final String type;

    SparkFilter(BloomFilter filter, String type) {
      this.filter = filter;
      this.type = type;
    }

    @Override public void put(Key key) {
      switch (type) {
        case "long" -> filter.putLong((Long) key.value());
        case "string" -> filter.putString((String) key.value());
        case "binary" -> filter.putBinary((byte[]) key.value());
        default -> throw new IllegalArgumentException(type);
      }
    }

    @Override public boolean mightContain(Key key) {
      return switch (type) {
        case "long" -> filter.mightContainLong((Long) key.value());
        case "string" -> filter.mightContainString((String) key.value());
        case "binary" -> filter.mightContainBinary((byte[]) key.value());
        default -> throw new IllegalArgumentException(type);
      };
    }

    @Override public byte[] bytes() throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      filter.writeTo(out);
      return out.toByteArray();
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static final class GuavaFilter implements Filter {
    final com.google.common.hash.BloomFilter filter;

    GuavaFilter(com.google.common.hash.BloomFilter filter) {
      this.filter = filter;
    }

    @Override public void put(Key key) { filter.put(key.value()); }
    @Override public boolean mightContain(Key key) { return filter.mightContain(key.value()); }

    @Override public byte[] bytes() throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      filter.writeTo(out);
      return out.toByteArray();
    }
  }

  static Funnel<?> funnel(String type) {
    return switch (type) {
      case "long" -> Funnels.longFunnel();
      case "int" -> Funnels.integerFunnel();
      case "string" -> Funnels.stringFunnel(StandardCharsets.UTF_8);
      case "binary" -> Funnels.byteArrayFunnel();
      default -> throw new IllegalArgumentException(type);
    };
  }

  /**
   * A Guava filter with the given strategy ordinal. Guava's public create()
   * always uses MURMUR128_MITZ_64 (ordinal 1); for ordinal 0
   * (MURMUR128_MITZ_32, still readable by every Guava) the stream's first
   * byte is rewritten and the filter read back with Guava's own readFrom.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static com.google.common.hash.BloomFilter guavaCreate(String type, long n, double fpp, int strategy)
      throws IOException {
    com.google.common.hash.BloomFilter filter = com.google.common.hash.BloomFilter.create((Funnel) funnel(type), n, fpp);
    if (strategy == 1) return filter;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    byte[] bytes = out.toByteArray();
    bytes[0] = (byte) strategy;
    return com.google.common.hash.BloomFilter.readFrom(new ByteArrayInputStream(bytes), (Funnel) funnel(type));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Filter readLibrary(Map<String, String> meta, byte[] bytes) throws IOException {
    String type = meta.get("key");
    if (meta.get("library").equals("spark")) {
      return new SparkFilter(BloomFilter.readFrom(new ByteArrayInputStream(bytes)), type);
    }
    InputStream in = new ByteArrayInputStream(bytes);
    return new GuavaFilter(com.google.common.hash.BloomFilter.readFrom(in, (Funnel) funnel(type)));
  }

  // ---- make ---------------------------------------------------------------------------

  record Case(String name, Map<String, String> meta, Filter filter, int inserts, int probes) {}

  static Map<String, String> meta(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) m.put(pairs[i], pairs[i + 1]);
    return m;
  }

  static List<Case> cases(boolean big) throws IOException {
    List<Case> cases = new ArrayList<>();
    // Spark: BloomFilter.create(n, fpp) is version 2 (64-bit indexing) in 4.x;
    // create(Version, n, bits, seed) makes either version with any seed.
    for (String type : new String[] {"long", "string", "binary"}) {
      cases.add(new Case("spark_v2_" + type, meta("library", "spark", "version", "2", "key", type, "n", "2000", "fpp", "0.03"),
          new SparkFilter(BloomFilter.create(2000, 0.03), type), 2000, 20000));
      cases.add(new Case("spark_v1_" + type, meta("library", "spark", "version", "1", "key", type, "n", "2000", "bits", "14000"),
          new SparkFilter(BloomFilter.create(BloomFilter.Version.V1, 2000, 14000, 0), type), 2000, 20000));
    }
    cases.add(new Case("spark_v2_seed_long", meta("library", "spark", "version", "2", "key", "long", "n", "1000", "bits", "9001", "seed", "-12345"),
        new SparkFilter(BloomFilter.create(BloomFilter.Version.V2, 1000, 9001, -12345), "long"), 1000, 20000));
    cases.add(new Case("spark_v2_seed_string", meta("library", "spark", "version", "2", "key", "string", "n", "1000", "bits", "8000", "seed", "777"),
        new SparkFilter(BloomFilter.create(BloomFilter.Version.V2, 1000, 8000, 777), "string"), 1000, 20000));
    cases.add(new Case("spark_v2_one_word", meta("library", "spark", "version", "2", "key", "long", "n", "10", "bits", "1"),
        new SparkFilter(BloomFilter.create(BloomFilter.Version.V2, 10, 1, 0), "long"), 10, 2000));
    cases.add(new Case("spark_v1_empty", meta("library", "spark", "version", "1", "key", "long", "n", "100", "bits", "1000"),
        new SparkFilter(BloomFilter.create(BloomFilter.Version.V1, 100, 1000, 0), "long"), 0, 2000));
    // Guava: every funnel with MURMUR128_MITZ_64, and MURMUR128_MITZ_32 for two.
    for (String type : new String[] {"long", "int", "string", "binary"}) {
      cases.add(new Case("guava_mitz64_" + type, meta("library", "guava", "key", type, "strategy", "1", "n", "2000", "fpp", "0.01"),
          new GuavaFilter(guavaCreate(type, 2000, 0.01, 1)), 2000, 20000));
    }
    for (String type : new String[] {"long", "string"}) {
      cases.add(new Case("guava_mitz32_" + type, meta("library", "guava", "key", type, "strategy", "0", "n", "2000", "fpp", "0.01"),
          new GuavaFilter(guavaCreate(type, 2000, 0.01, 0)), 2000, 20000));
    }
    cases.add(new Case("guava_mitz64_empty", meta("library", "guava", "key", "long", "strategy", "1", "n", "0", "fpp", "0.5"),
        new GuavaFilter(guavaCreate("long", 0, 0.5, 1)), 0, 2000));
    if (big) {
      // Past 2^31 bits: version 2 indexes all of them, version 1 only the
      // first 2^31 (its combined hash is a 32-bit int); Guava's MITZ_64 all.
      long bits = (1L << 31) + 4096;
      // n is what create() is told (it fixes k = 7 for 2^31 bits); 200,000 keys go in.
      cases.add(new Case("big_spark_v2_long", meta("library", "spark", "version", "2", "key", "long", "n", "200000000", "bits", Long.toString(bits)),
          new SparkFilter(BloomFilter.create(BloomFilter.Version.V2, 200_000_000L, bits, 0), "long"), 200000, 200000));
      cases.add(new Case("big_spark_v1_string", meta("library", "spark", "version", "1", "key", "string", "n", "200000000", "bits", Long.toString(bits)),
          new SparkFilter(BloomFilter.create(BloomFilter.Version.V1, 200_000_000L, bits, 0), "string"), 200000, 200000));
      cases.add(new Case("big_guava_mitz64_long", meta("library", "guava", "key", "long", "strategy", "1", "n", "100000000", "fpp", "0.01"),
          new GuavaFilter(guavaCreate("long", 100_000_000L, 0.01, 1)), 200000, 200000));
    }
    return cases;
  }

  /** Writes every case into dir; `shrink` divides the key and probe counts (the committed fixtures use 10). */
  static void make(Path dir, boolean big, int shrink) throws IOException {
    Files.createDirectories(dir);
    long seed = 1;
    for (Case c : cases(big)) {
      SplittableRandom random = new SplittableRandom(seed++);
      String type = c.meta().get("key");
      List<Key> inserted = new ArrayList<>();
      final int inserts = c.inserts() / shrink, randomProbes = c.probes() / shrink;
      for (int i = 0; i < inserts; ++i) {
        Key key = randomKey(type, random);
        c.filter().put(key);
        inserted.add(key);
      }
      // Probes: every inserted key (all must answer 1), then fresh random keys
      // (mostly absent: their answers carry the false positives).
      StringBuilder probes = new StringBuilder();
      int positives = 0;
      for (Key key : inserted) {
        if (!c.filter().mightContain(key)) throw new IllegalStateException(c.name() + ": a false negative in the library");
        probes.append("1 ").append(key.line()).append('\n');
      }
      for (int i = 0; i < randomProbes; ++i) {
        Key key = randomKey(type, random);
        boolean answer = c.filter().mightContain(key);
        positives += answer ? 1 : 0;
        probes.append(answer ? "1 " : "0 ").append(key.line()).append('\n');
      }
      StringBuilder keys = new StringBuilder();
      for (Key key : inserted) keys.append(key.line()).append('\n');
      StringBuilder meta = new StringBuilder();
      for (Map.Entry<String, String> e : c.meta().entrySet()) meta.append(e.getKey()).append('=').append(e.getValue()).append('\n');
      meta.append("inserted=").append(inserts).append('\n');
      Files.write(dir.resolve(c.name() + ".bin"), c.filter().bytes());
      Files.writeString(dir.resolve(c.name() + ".keys"), keys);
      Files.writeString(dir.resolve(c.name() + ".probes"), probes);
      Files.writeString(dir.resolve(c.name() + ".meta"), meta);
      System.out.printf("%s: %d keys, %d random probes, %d positive%n", c.name(), inserts, randomProbes, positives);
    }
  }

  // ---- check what bloomkit wrote --------------------------------------------------------

  static Map<String, String> readMeta(Path path) throws IOException {
    Map<String, String> meta = new LinkedHashMap<>();
    for (String line : Files.readAllLines(path)) {
      int eq = line.indexOf('=');
      if (eq > 0) meta.put(line.substring(0, eq), line.substring(eq + 1));
    }
    return meta;
  }

  /**
   * For every NAME.bloomkit.bin beside NAME.meta: the library reads it with
   * its own readFrom, it must equal (bytes and mightContain on every probe)
   * the library's own NAME.bin, and every line of NAME.bloomkit.probes (the
   * answers bloomkit gave) must match the library's answer. Returns the exit
   * status: 0 when every file agreed and at least one was checked.
   */
  static int check(Path dir) throws IOException {
    int checked = 0, failures = 0;
    List<Path> files;
    try (var stream = Files.list(dir)) {
      files = stream.filter(p -> p.getFileName().toString().endsWith(".bloomkit.bin")).sorted().toList();
    }
    for (Path file : files) {
      String name = file.getFileName().toString().replace(".bloomkit.bin", "");
      Map<String, String> meta = readMeta(dir.resolve(name + ".meta"));
      String type = meta.get("key");
      byte[] ours = Files.readAllBytes(file);
      Filter fromBloomkit;
      try {
        fromBloomkit = readLibrary(meta, ours);
      } catch (Exception e) {
        System.out.printf("%s: the library's readFrom refused bloomkit's file: %s%n", name, e);
        ++failures;
        continue;
      }
      Filter fromLibrary = readLibrary(meta, Files.readAllBytes(dir.resolve(name + ".bin")));
      boolean sameBytes = java.util.Arrays.equals(fromBloomkit.bytes(), fromLibrary.bytes());
      int disagreements = 0, lines = 0;
      Path answers = dir.resolve(name + ".bloomkit.probes");
      for (String line : Files.readAllLines(answers)) {
        if (line.isEmpty()) continue;
        ++lines;
        boolean bloomkitSays = line.charAt(0) == '1';
        Key key = parseKey(type, line.substring(2));
        boolean librarySays = fromBloomkit.mightContain(key);
        if (librarySays != bloomkitSays || librarySays != fromLibrary.mightContain(key)) ++disagreements;
      }
      boolean ok = sameBytes && disagreements == 0 && lines > 0;
      System.out.printf("%s: read by %s, %s bytes, %d probes, %d disagreements: %s%n", name, meta.get("library"),
          sameBytes ? "same" : "DIFFERENT", lines, disagreements, ok ? "ok" : "FAILED");
      ++checked;
      if (!ok) ++failures;
    }
    System.out.printf("checked %d bloomkit-written filters, %d failed%n", checked, failures);
    return checked > 0 && failures == 0 ? 0 : 1;
  }

  // ---- timed loops for BENCHMARKS.md ------------------------------------------------------

  /**
   * ns per mightContain on a Spark (v2, longs) and a Guava (MITZ_64, longs)
   * filter of about `bits` bits holding n keys: half the probes present,
   * half absent, after a warm-up so the JIT has compiled the loop. Prints one
   * line per library and probe mix; the keys are the same SplitMix64 stream
   * the C++ bench uses (bench/jvm_formats.cpp).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static void bench(long bits, int n) {
    long[] present = new long[n];
    long[] absent = new long[n];
    long state = 12345;
    for (int i = 0; i < n; ++i) {
      state += 0x9e3779b97f4a7c15L;
      present[i] = mix(state);
    }
    for (int i = 0; i < n; ++i) {
      state += 0x9e3779b97f4a7c15L;
      absent[i] = mix(state);
    }
    BloomFilter spark = BloomFilter.create(BloomFilter.Version.V2, n, bits, 0);
    com.google.common.hash.BloomFilter guava = com.google.common.hash.BloomFilter.create((Funnel) Funnels.longFunnel(),
        n, Math.exp(-(double) bits / n * Math.log(2) * Math.log(2)));
    for (long key : present) {
      spark.putLong(key);
      guava.put(key);
    }
    for (int round = 0; round < 3; ++round) {
      boolean report = round == 2;
      time("spark_v2", "present", report, bits, n, () -> { long c = 0; for (long k : present) if (spark.mightContainLong(k)) ++c; return c; });
      time("spark_v2", "absent", report, bits, n, () -> { long c = 0; for (long k : absent) if (spark.mightContainLong(k)) ++c; return c; });
      time("guava_mitz64", "present", report, bits, n, () -> { long c = 0; for (long k : present) if (guava.mightContain(k)) ++c; return c; });
      time("guava_mitz64", "absent", report, bits, n, () -> { long c = 0; for (long k : absent) if (guava.mightContain(k)) ++c; return c; });
    }
  }

  interface Loop { long run(); }

  static void time(String what, String mix, boolean report, long bits, int n, Loop loop) {
    long start = System.nanoTime();
    long hits = loop.run();
    long elapsed = System.nanoTime() - start;
    if (report) System.out.printf("jvm %s %s bits=%d n=%d ns_per_query=%.2f hits=%d%n", what, mix, bits, n, (double) elapsed / n, hits);
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
