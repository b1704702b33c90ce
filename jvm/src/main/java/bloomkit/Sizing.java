package bloomkit;

import java.util.function.DoubleUnaryOperator;
import java.util.function.LongPredicate;

/**
 * The sizing math of include/bloomkit/sizing.hpp that the split-block filter needs, in the
 * same steps: the split-block FPR as a Poisson mixture over block loads (docs/MATH.md) and
 * the smallest block count meeting a target FPR. The C++ library and this class choose the
 * same block count for the same (n, p) (SizingTest compares them with files the CLI wrote):
 * the search is the same, and the FPR sums agree to within a few units in the last place,
 * which could move a result only if a block count's FPR lay that close to the target.
 */
public final class Sizing {
  private Sizing() {}

  /** The most split blocks a filter may have in the file format (2^32). */
  public static final long MAX_FORMAT_BLOCKS = 1L << 32;

  private static final double LN2 = 0.6931471805599453;  // std::numbers::ln2
  private static final double HALF_LOG_TWO_PI = 0.9189385332046727;  // log(2 pi) / 2

  static void checkFpr(double p) {
    if (!(p > 0.0 && p < 1.0)) {
      throw new BloomkitException(BloomkitException.Code.INVALID_ARGUMENT,
          "false-positive rate must be in (0, 1), got " + p);
    }
  }

  static void checkPositive(double value, String name) {
    if (!(value >= 1.0) || Double.isInfinite(value)) {
      throw new BloomkitException(BloomkitException.Code.INVALID_ARGUMENT, name + " must be at least 1, got " + value);
    }
  }

  /**
   * log Gamma(x) for x >= 1 (here always an integer plus one, log i!): shifted up to x >= 15
   * by the recurrence, then Stirling's series to the x^-9 term (truncation error under 1e-16).
   */
  static double logGamma(double x) {
    double shift = 0.0;
    double product = 1.0;
    while (x < 15.0) {
      product *= x;
      x += 1.0;
    }
    if (product != 1.0) shift = Math.log(product);
    final double inv = 1.0 / x;
    final double inv2 = inv * inv;
    final double series =
        inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 * (1.0 / 1680.0 - inv2 / 1188.0))));
    return (x - 0.5) * Math.log(x) - x + HALF_LOG_TWO_PI + series - shift;
  }

  static double logPoisson(double lambda, double i) {
    return i * Math.log(lambda) - lambda - logGamma(i + 1.0);
  }

  /** E[f(L)] for L ~ Poisson(lambda), summed over the window sizing.hpp's poisson_mixture uses. */
  static double poissonMixture(double lambda, DoubleUnaryOperator f) {
    if (!(lambda > 0.0)) return f.applyAsDouble(0.0);
    if (lambda > 1e15) return Math.min(f.applyAsDouble(lambda), 1.0);
    final double spread = 12.0 * Math.sqrt(lambda) + 30.0;
    final double lo = Math.max(0.0, Math.floor(lambda - spread));
    final double hi = Math.ceil(lambda + spread);
    final double step = lambda > 1e6 ? Math.ceil((hi - lo) / 4000.0) : 1.0;
    double sum = 0.0;
    double weight = 0.0;
    for (double i = lo; i <= hi; i += step) {
      final double w = Math.exp(logPoisson(lambda, i));
      sum += w * f.applyAsDouble(i);
      weight += w;
    }
    if (step > 1.0 && weight > 0.0) sum /= weight;
    return Math.min(sum, 1.0);
  }

  /** Bits per key of an optimal standard Bloom filter at FPR p: -ln p / (ln 2)^2. */
  public static double bitsPerKeyFor(double p) {
    checkFpr(p);
    return -Math.log(p) / (LN2 * LN2);
  }

  /** ceil(n * bitsPerKeyFor(p)), at least 1 (sizing::bits_for). */
  public static long bitsFor(long n, double p) {
    checkPositive((double) n, "n (expected keys)");
    final double m = Math.ceil((double) n * bitsPerKeyFor(p));
    if (!(m < 9.2e18)) {
      throw new BloomkitException(BloomkitException.Code.INVALID_ARGUMENT, "n and p need more than 2^63 bits");
    }
    return Math.max(1L, (long) m);
  }

  /**
   * FPR of the Parquet split-block filter with {@code blocks} blocks holding {@code n} keys:
   * sum_i Pois(i; n/z) (1 - (31/32)^i)^8 (sizing::split_block_fpr).
   */
  public static double splitBlockFpr(double blocks, double n) {
    checkPositive(blocks, "blocks");
    if (!(n >= 0.0)) throw new BloomkitException(BloomkitException.Code.INVALID_ARGUMENT, "n must be >= 0");
    final double miss = Math.log1p(-1.0 / 32.0);
    return poissonMixture(n / blocks, i -> Math.pow(-Math.expm1(i * miss), 8.0));
  }

  /**
   * The smallest x in [1, limit] with meets(x), for a predicate false below some point and
   * true from it on; -1 when it fails at limit (sizing.hpp's smallest_meeting).
   */
  static long smallestMeeting(long guess, long limit, LongPredicate meets) {
    long hi = Math.max(1L, guess);
    while (hi > 1 && meets.test(hi)) hi /= 2;
    long lo = hi;
    while (!meets.test(hi)) {
      lo = hi + 1;
      if (hi == limit) return -1;
      hi = Math.min(hi * 2, limit);
    }
    while (lo < hi) {
      final long mid = lo + (hi - lo) / 2;
      if (meets.test(mid)) hi = mid;
      else lo = mid + 1;
    }
    return hi;
  }

  /**
   * The smallest number of split blocks whose FPR for {@code n} keys is at most {@code p}
   * (sizing::split_block_blocks_for; about 10.5 bits per key at 1 %). n >= 1 and p in (0, 1),
   * else INVALID_ARGUMENT.
   */
  public static long splitBlockBlocksFor(long n, double p) {
    checkPositive((double) n, "n (expected keys)");
    checkFpr(p);
    final long guess = Math.min(Math.max(bitsFor(n, p) / 256, 1L), MAX_FORMAT_BLOCKS);
    final double keys = (double) n;
    final long blocks = smallestMeeting(guess, MAX_FORMAT_BLOCKS, b -> splitBlockFpr((double) b, keys) <= p);
    if (blocks < 0) {
      throw new BloomkitException(BloomkitException.Code.INVALID_ARGUMENT, "n and p need more than 2^32 blocks");
    }
    return blocks;
  }
}
