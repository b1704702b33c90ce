// fuzz/jvm_streams_fuzz.cpp - Spark's and Guava's filter streams on untrusted
// bytes (bloomkit/format/jvm_streams.hpp).
//
// Each input is read three ways: as whatever detect_jvm_stream says it is,
// as a Spark stream and as a Guava stream. A stream that reads must:
//   * write back to exactly the input bytes (the readers accept only the
//     canonical, exact-length form, so reading is a bijection),
//   * answer queries for a few keys without a crash (every probe index is
//     below the bit count: UBSan and ASan watch the word reads),
//   * merge with itself to itself,
//   * viewed in place (view_spark_stream / view_guava_stream), equal the
//     copy and answer every query as it does,
// and load(bytes, any_format) / view(bytes, any_format) must agree with the
// JVM readers on what the bytes are.
// Failures must be bloomkit::error; anything else aborts. A lying word count
// must never allocate: the readers check lengths before allocating, so
// libFuzzer's -rss_limit_mb / malloc limit catches any regression.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "bloomkit/format/jvm_streams.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

template <class Filter, class View>
void exercise(const Filter& f, const View& view, std::span<const std::byte> input,
              std::vector<std::byte> (*write)(const Filter&)) {
  check(write(f) == std::vector<std::byte>(input.begin(), input.end()));
  check(view == f);
  const std::int64_t longs[] = {0, 1, -1, 42, INT64_MIN};
  for (const std::int64_t v : longs) check(f.may_contain(v) == view.may_contain(v));
  check(f.may_contain(std::string_view("bloomkit")) == view.may_contain(std::string_view("bloomkit")));
  const auto head = input.first(input.size() < 16 ? input.size() : 16);
  check(f.may_contain_bytes(head) == view.may_contain_bytes(head));
  Filter copy = f;
  copy.merge(f);
  check(copy == f);
  check(f.popcount() <= f.bit_count());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  bool jvm = false;
  try {
    const bloomkit::jvm_filter f = bloomkit::read_jvm_filter(input);
    check(bloomkit::write_jvm_filter(f) == std::vector<std::byte>(input.begin(), input.end()));
    jvm = true;
    // The any-format loader returns the same filter, after bloomkit's kinds.
    const auto any = bloomkit::load(input, bloomkit::any_format);
    check(any.index() == std::variant_size_v<bloomkit::any_filter> + f.index());
  } catch (const bloomkit::error&) {
  }
  try {
    const auto v = bloomkit::view(input, bloomkit::any_format, bloomkit::payload_check::skip);
    // A JVM view only for bytes the JVM reader accepts.
    check((v.index() >= std::variant_size_v<bloomkit::any_filter_view>) == jvm);
  } catch (const bloomkit::error&) {
  }
  try {
    exercise<bloomkit::spark_bloom>(bloomkit::read_spark_stream(input), bloomkit::view_spark_stream(input), input,
                                    &bloomkit::write_spark_stream);
  } catch (const bloomkit::error&) {
  }
  try {
    exercise<bloomkit::guava_bloom>(bloomkit::read_guava_stream(input), bloomkit::view_guava_stream(input), input,
                                    &bloomkit::write_guava_stream);
  } catch (const bloomkit::error&) {
  }
  return 0;
}
