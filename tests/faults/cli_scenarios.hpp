// tests/faults/cli_scenarios.hpp - the CLI commands the fault loops break
// (tests/cli_faults_test.cpp, tests/cli_memory_test.cpp): their inputs,
// arguments and outputs, and the fault shim's environment.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../cli_support.hpp"
#include "../test_paths.hpp"

namespace bloomkit::test::faults {

namespace fs = std::filesystem;
using bloomkit::test::cli_result;
using bloomkit::test::numbered_keys;
using bloomkit::test::read_file;
using bloomkit::test::run_cli;
using bloomkit::test::scratch_dir;
using bloomkit::test::write_file;

inline const std::vector<std::string> io_calls = {"open", "read", "write", "fsync", "rename", "mmap", "close", "ftruncate"};
inline const std::vector<std::string> io_errors = {"EIO", "ENOSPC", "EACCES", "EINTR"};

/// The folder's files by name and content (a folder must stay empty of
/// anything but the test's own files).
inline std::map<std::string, std::string> snapshot(const scratch_dir& dir) {
  std::map<std::string, std::string> out;
  for (const auto& name : dir.names()) out[name] = read_file(dir.path() / name);
  return out;
}

/// One CLI command to break: how to set up its folder, what to run, which
/// files it writes.
struct scenario {
  std::string name;
  std::function<void(const scratch_dir&)> setup;  // inputs and the previous outputs
  std::vector<std::string> args;
  std::optional<std::string> stdin_bytes;
  std::vector<std::string> outputs;  // files the command (re)writes
};

inline void must(const cli_result& r, const std::string& what) {
  ASSERT_EQ(r.rc, 0) << what << ": " << r.err;
}

/// A folder with keys, filters of several kinds and a small Parquet file,
/// made by the CLI itself (without faults).
inline void common_inputs(const scratch_dir& dir) {
  write_file(dir / "keys.txt", numbered_keys("k", 0, 300));
  write_file(dir / "more.txt", numbered_keys("k", 200, 300));
  write_file(dir / "gone.txt", numbered_keys("k", 0, 50));
  must(run_cli({"build", "keys.txt", "-o", "a.bkf", "--kind", "blocked", "--capacity", "1000", "-q"}, {}, dir), "a");
  must(run_cli({"build", "more.txt", "-o", "b.bkf", "--kind", "blocked", "--capacity", "1000", "-q"}, {}, dir), "b");
  must(run_cli({"build", "keys.txt", "-o", "c.bkf", "--kind", "counting", "--capacity", "1000", "-q"}, {}, dir), "c");
  std::string ts;
  for (int i = 0; i < 60; ++i) ts += "2024-01-01T00:00:" + std::to_string(10 + i % 50) + "Z\n";
  must(run_cli({"parquet", "write", "-", "-o", "t.parquet", "--type", "timestamp_ms", "--row-group-rows", "30",
                "--column", "ts"},
               ts, dir),
       "parquet");
  // "Previous" files at every output name: a failed command must leave them.
  write_file(dir / "out.bkf", read_file(dir.path() / "b.bkf"));
  write_file(dir / "m.bkf", read_file(dir.path() / "a.bkf"));
  write_file(dir / "x.bkf", read_file(dir.path() / "a.bkf"));
  write_file(dir / "after.bkf", read_file(dir.path() / "a.bkf"));
  write_file(dir / "w.parquet", read_file(dir.path() / "t.parquet"));
}

inline std::vector<scenario> scenarios() {
  std::string ts;
  for (int i = 0; i < 40; ++i) ts += "2024-02-01T00:00:" + std::to_string(10 + i % 40) + "Z\n";
  return {
      {"build", common_inputs, {"build", "keys.txt", "more.txt", "-o", "out.bkf", "--kind", "split-block", "-q"}, {},
       {"out.bkf"}},
      {"build-stdin", common_inputs, {"build", "-o", "out.bkf", "--capacity", "500", "-q"}, numbered_keys("s", 0, 200),
       {"out.bkf"}},
      {"query", common_inputs, {"query", "a.bkf", "-i", "more.txt"}, {}, {}},
      {"merge", common_inputs, {"merge", "a.bkf", "b.bkf", "-o", "m.bkf"}, {}, {"m.bkf"}},
      {"intersect", common_inputs, {"intersect", "a.bkf", "b.bkf", "-o", "m.bkf"}, {}, {"m.bkf"}},
      {"remove-in-place", common_inputs, {"remove", "c.bkf", "-i", "gone.txt", "-q"}, {}, {"c.bkf"}},
      {"remove-o", common_inputs, {"remove", "c.bkf", "-i", "gone.txt", "-o", "after.bkf", "-q"}, {}, {"after.bkf"}},
      {"parquet-extract", common_inputs, {"parquet", "extract", "t.parquet", "ts", "--row-group", "1", "-o", "x.bkf"},
       {}, {"x.bkf"}},
      {"parquet-write", common_inputs,
       {"parquet", "write", "-", "-o", "w.parquet", "--type", "timestamp_ms", "--row-group-rows", "16", "--column", "ts"},
       ts, {"w.parquet"}},
  };
}

/// The environment of one faulty run.
inline std::vector<std::string> fault_env(const std::string& spec, const fs::path& fired, const scratch_dir& dir) {
  return {std::string("LD_PRELOAD=") + bloomkit::test::paths::fault_shim, "BLOOMKIT_FAULT=" + spec,
          "BLOOMKIT_FAULT_FIRED=" + fired.string(), "TMPDIR=" + dir.path().string(),
          // The debug suite's CLI carries ASan, which wants to be first in
          // the library list; the shim is not instrumented, so that is moot.
          "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0"};
}

}  // namespace bloomkit::test::faults
