package bloomkit.spark;

import bloomkit.Sizing;
import bloomkit.SplitBlockBloom;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.classic.UserDefinedFunctionUtils;
import org.apache.spark.sql.execution.aggregate.ScalaAggregator$;
import org.apache.spark.sql.expressions.SparkUserDefinedFunction;
import org.apache.spark.sql.expressions.UserDefinedAggregator;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * bloomkit's SQL functions, registered in a session with one call,
 * {@code BloomkitFunctions.register(spark)}; from then on in SQL and every language:
 *
 * <ul>
 *   <li>{@code bloomkit_agg(key, n, fpp)}: aggregate; the file bytes (BINARY) of a split-block
 *       filter sized for n keys at false-positive rate fpp (constants), over the group's
 *       non-null keys. The same keys give the bytes the C++ library and the CLI write.
 *   <li>{@code bloomkit_might_contain(filter, key)}: BOOLEAN; whether key may be in the filter
 *       whose file bytes are {@code filter} (false for a null key). A constant filter is read
 *       once, while the query is analysed.
 * </ul>
 *
 * Keys convert by docs/KEYS.md ({@link SparkKeys}); a key column of another type, or a
 * constant filter of another key type, is refused while the query is analysed, on the driver.
 */
public final class BloomkitFunctions {
  private BloomkitFunctions() {}

  /** Registers bloomkit_agg and bloomkit_might_contain as temporary functions of {@code spark}. */
  public static void register(SparkSession spark) {
    final FunctionRegistry registry =
        ((org.apache.spark.sql.classic.SparkSession) spark).sessionState().functionRegistry();
    registry.createOrReplaceTempFunction("bloomkit_agg", new AggBuilder(), "scala_udf");
    registry.createOrReplaceTempFunction("bloomkit_might_contain", new ProbeBuilder(), "scala_udf");
  }

  /** {@code bloomkit_agg(key, n, fpp)} as a Column (register first). */
  public static Column bloomkitAgg(Column key, long n, double fpp) {
    return functions.call_function("bloomkit_agg", key, functions.lit(n), functions.lit(fpp));
  }

  /** {@code bloomkit_might_contain(filter, key)} as a Column (register first). */
  public static Column bloomkitMightContain(Column filter, Column key) {
    return functions.call_function("bloomkit_might_contain", filter, key);
  }

  private static Seq<Expression> seq(Expression... e) {
    return CollectionConverters.asScala(java.util.Arrays.asList(e)).toList();
  }

  private static String describe(Expression e) {
    return e.sql();
  }

  private static Object constant(Expression e, String function, String what) {
    if (!e.foldable()) {
      throw new IllegalArgumentException("bloomkit: " + function + ": " + what + " must be a constant, got "
          + describe(e));
    }
    return e.eval(null);
  }

  private static double number(Object v, String function, String what) {
    if (v instanceof Decimal d) return d.toDouble();
    if (v instanceof Number n) return n.doubleValue();
    throw new IllegalArgumentException("bloomkit: " + function + ": " + what + " must be a number, got " + v);
  }

  static final class AggBuilder extends AbstractFunction1<Seq<Expression>, Expression> {
    @Override
    public Expression apply(Seq<Expression> children) {
      if (children.size() != 3) {
        throw new IllegalArgumentException("bloomkit: bloomkit_agg takes (key, n, fpp), got " + children.size()
            + " arguments");
      }
      final Expression key = children.apply(0);
      final SparkKeys.Reader reader = SparkKeys.readerFor(key.dataType(), describe(key));
      final double n = number(constant(children.apply(1), "bloomkit_agg", "n"), "bloomkit_agg", "n");
      final double fpp = number(constant(children.apply(2), "bloomkit_agg", "fpp"), "bloomkit_agg", "fpp");
      if (!(n >= 1 && n <= 9.2e18 && n == Math.floor(n))) {
        throw new IllegalArgumentException("bloomkit: bloomkit_agg: n must be a whole number of keys >= 1, got " + n);
      }
      final long capacity = (long) n;
      final long blocks = Sizing.splitBlockBlocksFor(capacity, fpp);
      final FilterAggregator agg = new FilterAggregator(reader, blocks, capacity, fpp);
      final UserDefinedAggregator<Object, SplitBlockBloom, byte[]> udaf =
          (UserDefinedAggregator<Object, SplitBlockBloom, byte[]>) functions.udaf(agg, SparkKeys.encoder(reader))
              .withName("bloomkit_agg");
      return ScalaAggregator$.MODULE$.apply(udaf, seq(SparkKeys.convert(key, reader)));
    }
  }

  static final class ProbeBuilder extends AbstractFunction1<Seq<Expression>, Expression> {
    @Override
    public Expression apply(Seq<Expression> children) {
      if (children.size() != 2) {
        throw new IllegalArgumentException("bloomkit: bloomkit_might_contain takes (filter, key), got "
            + children.size() + " arguments");
      }
      final Expression filterExpr = children.apply(0);
      final Expression key = children.apply(1);
      final String column = describe(key);
      final SparkKeys.Reader reader = SparkKeys.readerFor(key.dataType(), column);
      if (!DataTypes.BinaryType.sameType(filterExpr.dataType())) {
        throw new IllegalArgumentException("bloomkit: bloomkit_might_contain: the filter must be BINARY (file bytes), "
            + "got " + filterExpr.dataType().simpleString());
      }
      final Expression converted = SparkKeys.convert(key, reader);
      if (filterExpr.foldable()) {
        final Object bytes = filterExpr.eval(null);
        if (bytes == null) {
          throw new IllegalArgumentException("bloomkit: bloomkit_might_contain: the filter is NULL");
        }
        final SplitBlockBloom filter = SplitBlockBloom.fromBytes((byte[]) bytes);
        SparkKeys.requireCompatible(filter, reader, column);
        final Probe probe = new Probe(reader, () -> filter);
        final SparkUserDefinedFunction udf = (SparkUserDefinedFunction) functions
            .udf(probe, DataTypes.BooleanType).withName("bloomkit_might_contain").asNonNullable();
        return UserDefinedFunctionUtils.toScalaUDF(udf, seq(converted));
      }
      final SparkUserDefinedFunction udf = (SparkUserDefinedFunction) functions
          .udf(new Probe.Dynamic(reader, column), DataTypes.BooleanType).withName("bloomkit_might_contain")
          .asNonNullable();
      return UserDefinedFunctionUtils.toScalaUDF(udf, seq(filterExpr, converted));
    }
  }
}
