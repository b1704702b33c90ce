// tests/error_parts_test.cpp - bloomkit::error keeps its message in parts
// (who speaks, the file it is about, the files it names, the context added
// around it) and what() joins them into the same text as a plain message
// would have: library callers read what they always read, and a shell can
// format its own line from the parts.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bloomkit/bloomkit.hpp"
#include "cli_support.hpp"

namespace bloomkit::test {
namespace {

using role = error_part::role_t;

TEST(ErrorParts, WhatJoinsThePartsAsBefore) {
  const error lib = error::from_library(errc::io, "cannot map", "x.bkf", ": cannot open it");
  EXPECT_STREQ(lib.what(), "bloomkit: cannot map 'x.bkf': cannot open it");
  EXPECT_EQ(lib.code(), errc::io);
  ASSERT_EQ(lib.parts().size(), 4u);
  EXPECT_EQ(lib.parts()[0].role, role::origin);
  EXPECT_EQ(lib.parts()[2].role, role::mention);
  EXPECT_EQ(lib.parts()[2].value, "x.bkf");

  const error about = error::about_file("x.bkf", lib);
  EXPECT_STREQ(about.what(), "'x.bkf': bloomkit: cannot map 'x.bkf': cannot open it");
  EXPECT_EQ(about.code(), errc::io);
  EXPECT_EQ(about.parts()[0].role, role::subject);

  const error format = error::from_file_format(errc::truncated, "the file is 6 bytes long");
  EXPECT_STREQ(format.what(), "bloomkit file: the file is 6 bytes long");

  const error wrapped = error::in_context("cannot merge a with b: ", format, "; more");
  EXPECT_STREQ(wrapped.what(), "cannot merge a with b: bloomkit file: the file is 6 bytes long; more");
  EXPECT_EQ(wrapped.code(), errc::truncated);
  EXPECT_EQ(error::in_context(errc::corrupt, "cuckoo_filter: ", format).code(), errc::corrupt);

  const error plain(errc::invalid_argument, "standard_bloom: k must be at least 1");
  EXPECT_STREQ(plain.what(), "standard_bloom: k must be at least 1");
  ASSERT_EQ(plain.parts().size(), 1u);
  EXPECT_EQ(plain.parts()[0].role, role::text);
}

/// The bloomkit::error f() throws; none when it throws nothing.
template <class F>
std::optional<error> thrown_by(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e;
  }
  return std::nullopt;
}

TEST(ErrorParts, AParameterCheckNamesTheKindAndTheFieldAsPartsOfTheirOwn) {
  standard_bloom_params p;
  p.bits = 1024;
  p.k = 0;
  const auto domain = thrown_by([&] { detail::validate(p); });
  ASSERT_TRUE(domain.has_value());
  EXPECT_EQ(domain->code(), errc::invalid_argument);
  EXPECT_EQ(domain->kind(), "standard_bloom");
  EXPECT_EQ(domain->field(), "k");
  EXPECT_EQ(domain->file(), "");
  EXPECT_EQ(std::string(domain->what()).substr(0, 18), "standard_bloom: k ") << domain->what();

  const auto stored = thrown_by([] { detail::param_check{"ribbon", errc::corrupt}(false, "result_bits", "is 0"); });
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->code(), errc::corrupt);
  EXPECT_STREQ(stored->what(), "bloomkit file: ribbon field 'result_bits' is 0");
  EXPECT_EQ(stored->kind(), "ribbon");
  EXPECT_EQ(stored->field(), "result_bits");
  const error about = error::about_file("r.bkf", *stored);
  EXPECT_EQ(about.kind(), "ribbon");
  EXPECT_EQ(about.file(), "r.bkf");
}

TEST(ErrorParts, LoadingAMissingFileNamesItAsItsSubject) {
  scratch_dir dir;
  const std::filesystem::path missing = dir.path() / "missing.bloom";
  try {
    (void)load(missing);
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::io);
    const std::string expected_start = "'" + missing.string() + "': bloomkit: cannot open '" + missing.string() + "': ";
    EXPECT_EQ(std::string(e.what()).substr(0, expected_start.size()), expected_start) << e.what();
    ASSERT_FALSE(e.parts().empty());
    EXPECT_EQ(e.parts()[0].role, role::subject);
    EXPECT_EQ(e.parts()[0].value, missing.string());
  }
}

}  // namespace
}  // namespace bloomkit::test
