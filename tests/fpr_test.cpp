// Statistical FPR tests: measured false-positive rates against the formula
// the library reports, with bounds derived from the sample sizes and fixed
// seeds (so a passing run passes every time).
//
// Two separate claims are checked for every (kind, n, p):
//  1. Query answers behave like the model for *this* filter: the measured
//     rate over T absent keys is Binomial(T, q)/T with q = estimated_fpr()
//     (exact for the filter's bits under a uniform hash), so
//     |measured - q| <= 5 sqrt(q (1 - q) / T).
//  2. The filter's bits behave like the model's average filter: q agrees with
//     the layout's formula within 5 standard deviations of q across filters
//     (from the occupancy variance for the standard layout, from the spread
//     of per-block terms for blocked layouts).
// Together they tie the measured FPR to sizing's formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::detail::splitmix64;
namespace sz = bloomkit::sizing;

/// Standard deviation of the fill-conditional FPR (X/m)^k across filters:
/// delta method on X, the number of set bits, whose variance is the
/// occupancy variance with t = kn throws into m bins.
double standard_fpr_sigma(const bloomkit::standard_bloom& f, double n) {
  const double m = static_cast<double>(f.bit_count()), k = f.num_hashes(), t = k * n;
  const double e1 = std::exp(t * std::log1p(-1.0 / m));
  const double e2 = std::exp(t * std::log1p(-2.0 / m));
  const double var_empty = m * (m - 1) * e2 + m * e1 - m * m * e1 * e1;
  const double fill = 1.0 - e1;
  return k * std::pow(fill, k - 1) * std::sqrt(std::max(var_empty, 0.0)) / m;
}

/// Standard deviation of the mean of per-block pass probabilities.
template <class View>
double block_fpr_sigma(const View& v) {
  using P = typename View::policy;
  double sum = 0, sum2 = 0;
  for (const auto& b : v.blocks()) {
    const double q = P::block_fpr(b, v.num_hashes());
    sum += q;
    sum2 += q * q;
  }
  const double z = static_cast<double>(v.blocks().size());
  const double mean = sum / z;
  return std::sqrt(std::max(sum2 / z - mean * mean, 0.0) / z);
}

double formula(const bloomkit::standard_bloom& f, double n) {
  return sz::exact_fpr(static_cast<double>(f.bit_count()), n, f.num_hashes());
}
double formula(const bloomkit::blocked_bloom& f, double n) {
  return sz::blocked_fpr(static_cast<double>(f.bit_count()), n, f.num_hashes(), 512);
}
double formula(const bloomkit::split_block_bloom& f, double n) {
  return sz::split_block_fpr(static_cast<double>(f.num_blocks()), n);
}
double sigma(const bloomkit::standard_bloom& f, double n) { return standard_fpr_sigma(f, n); }
double sigma(const bloomkit::blocked_bloom& f, double) { return block_fpr_sigma(f.view()); }
double sigma(const bloomkit::split_block_bloom& f, double) { return block_fpr_sigma(f.view()); }

template <class F>
class Fpr : public ::testing::Test {};
using Filters = ::testing::Types<bloomkit::standard_bloom, bloomkit::blocked_bloom, bloomkit::split_block_bloom>;
TYPED_TEST_SUITE(Fpr, Filters);

/// Checks claims 1 and 2 for a filter holding n keys, queried with
/// `absent` keys produced by next_absent().
template <class F, class Next>
void check_rates(const F& filter, double n, std::uint64_t trials, Next&& next_absent, const std::string& label) {
  std::uint64_t positives = 0;
  for (std::uint64_t i = 0; i < trials; ++i) positives += filter.may_contain_hash(next_absent());
  const double measured = static_cast<double>(positives) / static_cast<double>(trials);
  const double q = filter.estimated_fpr();
  const double predicted = formula(filter, n);
  const double t = static_cast<double>(trials);
  EXPECT_LE(std::abs(measured - q), bloomkit::test::binomial_tolerance(q, t) + 1.0 / t)
      << label << ": measured " << measured << " vs this filter's " << q;
  EXPECT_LE(std::abs(q - predicted), 5.0 * sigma(filter, n) + 1e-12)
      << label << ": filter's " << q << " vs formula " << predicted << " (sigma " << sigma(filter, n) << ")";
}

TYPED_TEST(Fpr, RandomKeysMatchTheFormula) {
  std::vector<std::uint64_t> sizes{1'000, 100'000, 1'000'000};
  if (!bloomkit::test::sanitized()) sizes.push_back(10'000'000);
  for (std::uint64_t n : sizes) {
    for (double p : {0.1, 0.01, 0.001, 0.0001}) {
      if (n == 10'000'000 && p != 0.01 && p != 0.0001) continue;  // keep the suite in seconds
      TypeParam filter(n, p);
      splitmix64 present(n * 31 + static_cast<std::uint64_t>(1 / p));
      for (std::uint64_t i = 0; i < n; ++i) filter.insert_hash(present());
      // Enough negatives for ~400 expected false positives, within [2e5, 4e6].
      const auto trials = bloomkit::test::scaled(
          static_cast<std::uint64_t>(std::clamp(400.0 / p, 2e5, 4e6)), 4);
      splitmix64 absent(n * 131 + 7);
      char label[96];
      std::snprintf(label, sizeof label, "n=%llu p=%g", static_cast<unsigned long long>(n), p);
      check_rates(filter, static_cast<double>(n), trials, absent, label);
      // The design target itself is met (within the same noise).
      EXPECT_LE(filter.estimated_fpr(), p + 5 * sigma(filter, static_cast<double>(n)) + 1e-12) << label;
    }
  }
}

TYPED_TEST(Fpr, RealLookingKeys) {
  const std::uint64_t n = 200'000;
  const std::uint64_t trials = bloomkit::test::scaled(1'000'000, 4);
  // Sequential integers; absent keys are the next integers.
  {
    TypeParam filter(n, 0.01);
    for (std::uint64_t i = 0; i < n; ++i) filter.insert(i);
    std::uint64_t next = n;
    check_rates(filter, n, trials, [&] { return bloomkit::hash_key(next++, filter.hash()); }, "sequential");
  }
  // Short strings "user:<i>".
  {
    TypeParam filter(n, 0.01);
    for (std::uint64_t i = 0; i < n; ++i) filter.insert("user:" + std::to_string(i));
    std::uint64_t next = n;
    check_rates(filter, n, trials,
                [&] { return bloomkit::hash_key("user:" + std::to_string(next++), filter.hash()); }, "strings");
  }
  // 16-byte keys one byte apart: present keys change one byte of a base key
  // (16 positions x 255 values); absent keys change two adjacent bytes, so
  // each is one byte away from two present keys.
  {
    const std::string base(16, 'x');
    auto other = [](std::uint64_t v) { return static_cast<char>(v < 'x' ? v : v + 1); };  // 255 values != 'x'
    TypeParam filter(16 * 255, 0.01);
    for (std::uint64_t i = 0; i < 16 * 255; ++i) {
      std::string k = base;
      k[i % 16] = other(i / 16);
      filter.insert(k);
    }
    std::uint64_t next = 0;
    check_rates(filter, 16 * 255, std::min<std::uint64_t>(trials, 16 * 255 * 255), [&] {
      std::string k = base;
      k[next % 16] = other(next / 16 % 255);
      k[(next + 1) % 16] = other(next / (16 * 255) % 255);
      ++next;
      return bloomkit::hash_key(k, filter.hash());
    }, "one-byte-apart");
  }
}

TYPED_TEST(Fpr, OverfilledFilterReportsWhatItMeasures) {
  // A 1 % filter at twice its capacity: saturated, and its estimated FPR
  // (and the measured one) near 15 %.
  TypeParam filter(100'000, 0.01);
  splitmix64 rng(77);
  for (int i = 0; i < 200'000; ++i) filter.insert_hash(rng());
  EXPECT_TRUE(filter.saturated());
  EXPECT_GT(filter.estimated_fpr(), 0.10);
  EXPECT_LT(filter.estimated_fpr(), 0.20);
  splitmix64 absent(78);
  check_rates(filter, 200'000, bloomkit::test::scaled(400'000, 4), absent, "2x capacity");
}

}  // namespace
