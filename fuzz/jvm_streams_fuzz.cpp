// fuzz/jvm_streams_fuzz.cpp - Spark's and Guava's filter streams on untrusted
// bytes (bloomkit/format/jvm_streams.hpp).
//
// Each input is read three ways: as whatever detect_jvm_stream says it is,
// as a Spark stream and as a Guava stream. A stream that reads must:
//   * write back to exactly the input bytes (the readers accept only the
//     canonical, exact-length form, so reading is a bijection),
//   * answer queries for a few keys without a crash (every probe index is
//     below the bit count: UBSan and ASan watch the word reads),
//   * merge with itself to itself.
// Failures must be bloomkit::error; anything else aborts. A lying word count
// must never allocate: the readers check lengths before allocating, so
// libFuzzer's -rss_limit_mb / malloc limit catches any regression.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "bloomkit/format/jvm_streams.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

template <class Filter>
void exercise(const Filter& f, std::span<const std::byte> input, std::vector<std::byte> (*write)(const Filter&)) {
  check(write(f) == std::vector<std::byte>(input.begin(), input.end()));
  const std::int64_t longs[] = {0, 1, -1, 42, INT64_MIN};
  for (const std::int64_t v : longs) (void)f.may_contain(v);
  (void)f.may_contain(std::string_view("bloomkit"));
  (void)f.may_contain_bytes(input.first(input.size() < 16 ? input.size() : 16));
  Filter copy = f;
  copy.merge(f);
  check(copy == f);
  check(f.popcount() <= f.bit_count());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  try {
    const bloomkit::jvm_filter f = bloomkit::read_jvm_filter(input);
    check(bloomkit::write_jvm_filter(f) == std::vector<std::byte>(input.begin(), input.end()));
  } catch (const bloomkit::error&) {
  }
  try {
    exercise<bloomkit::spark_bloom>(bloomkit::read_spark_stream(input), input, &bloomkit::write_spark_stream);
  } catch (const bloomkit::error&) {
  }
  try {
    exercise<bloomkit::guava_bloom>(bloomkit::read_guava_stream(input), input, &bloomkit::write_guava_stream);
  } catch (const bloomkit::error&) {
  }
  return 0;
}
