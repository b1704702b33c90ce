// tests/cli_faults_test.cpp - every failing system call, for every command
// that reads or writes a file (docs/RELIABILITY.md, "I/O errors").
//
// The fault shim (tests/faults/fault_shim.cpp, LD_PRELOAD) fails the Nth
// open, read, write, fsync, rename, mmap, close or ftruncate of a real CLI
// run with EIO, ENOSPC, EACCES or EINTR, for N = 1, 2, ... until a run in
// which the call was not reached N times (SQLite's I/O-error loop). Each run
// must end in one of two ways:
//   * exit 0 with exactly the fault-free run's output file(s) and stdout
//     (EINTR must always end so: it is retried, never reported), or
//   * exit 2 with a "bloomkit: ..." message, the previous file at every
//     output name byte for byte as it was, and nothing else left in the
//     folder (no temporary file, no spool file).
// A signal, exit 1, any other exit code, a changed output on failure or a
// different output on success fails the test. The loops print how many
// (command, call, errno, N) cases ran.
//
// The second half raises SIGINT, SIGTERM and SIGKILL at the Nth write of a
// save (a Ctrl-C or `kill` arriving mid-save): SIGINT/SIGTERM must leave no
// temporary file and the previous output intact; a SIGKILL leaves one that
// the next save to the same name recognises and removes.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "cli_support.hpp"
#include "faults/cli_scenarios.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit::test::faults;

struct loop_counts {
  std::uint64_t cases = 0;     // runs in which the fault fired
  std::uint64_t failed = 0;    // of which ended in exit 2
  std::uint64_t succeeded = 0; // of which ended in exit 0
};

/// Runs every (call, errno, N) of `calls` x `errors` for `s` and checks each
/// ending; returns the counts.
loop_counts fault_loop(const scenario& s, const std::vector<std::string>& calls,
                       const std::vector<std::string>& errors) {
  loop_counts counts;
  scratch_dir dir;
  scratch_dir side;  // the fired marker lives outside the command's folder
  s.setup(dir);
  const auto before = snapshot(dir);
  const cli_result baseline = run_cli(s.args, s.stdin_bytes, dir, {"TMPDIR=" + dir.path().string()});
  EXPECT_EQ(baseline.rc, 0) << s.name << " without faults: " << baseline.err;
  if (baseline.rc != 0) return counts;
  const auto after_ok = snapshot(dir);
  const fs::path fired = side.path() / "fired";

  auto restore = [&] {
    for (const auto& name : dir.names()) {
      if (!before.count(name)) fs::remove(dir.path() / name);
    }
    for (const auto& [name, bytes] : before) {
      if (read_file(dir.path() / name) != bytes) write_file(dir / name, bytes);
    }
  };
  for (const auto& call : calls) {
    for (const auto& err : errors) {
      for (int n = 1; n < 10000; ++n) {
        restore();
        fs::remove(fired);
        const std::string spec = call + ":" + std::to_string(n) + ":" + err;
        const cli_result r = run_cli(s.args, s.stdin_bytes, dir, fault_env(spec, fired, dir));
        const auto now = snapshot(dir);
        const std::string where = s.name + " with " + spec;
        if (!fs::exists(fired)) {
          // Not reached N times: the loop is complete. This run is fault-free.
          EXPECT_EQ(r.rc, 0) << where << " (not reached): " << r.err;
          break;
        }
        ++counts.cases;
        if (r.rc == 0) {
          ++counts.succeeded;
          EXPECT_EQ(r.out, baseline.out) << where << ": exit 0 but another stdout";
          EXPECT_TRUE(now == after_ok) << where << ": exit 0 but the folder differs from a fault-free run";
        } else {
          ++counts.failed;
          EXPECT_NE(err, "EINTR") << where << ": EINTR must be retried, not reported: " << r.err;
          EXPECT_EQ(r.rc, 2) << where << ": exit " << r.rc << " (" << (r.rc > 128 ? "a signal" : "not 2") << "): " << r.err;
          EXPECT_EQ(r.err.rfind("bloomkit: ", 0), 0U) << where << ": message " << r.err;
          EXPECT_TRUE(now == before) << where << ": failed, but the folder changed (an output replaced, or a "
                                     << "temporary file left); now holds " << testing::PrintToString(dir.names());
        }
      }
    }
  }
  return counts;
}

class CliFaults : public testing::TestWithParam<std::size_t> {};

TEST_P(CliFaults, EveryFailingCallEndsInSuccessOrACleanExit2) {
  const scenario s = scenarios()[GetParam()];
  const loop_counts c = fault_loop(s, io_calls, io_errors);
  std::printf("[ faults   ] %-16s %5llu (call, errno, N) cases: %llu exit 2, %llu exit 0\n", s.name.c_str(),
              static_cast<unsigned long long>(c.cases), static_cast<unsigned long long>(c.failed),
              static_cast<unsigned long long>(c.succeeded));
  // Every command opens, reads and closes something: a loop that ran no
  // case means the shim did not load, and proves nothing.
  EXPECT_GT(c.cases, 20U) << s.name << ": the fault shim fired too rarely; is LD_PRELOAD working?";
  EXPECT_GT(c.failed, 0U) << s.name;
}

TEST_P(CliFaults, ShortReadsAndWritesAreFinishedNotReported) {
  const scenario s = scenarios()[GetParam()];
  const loop_counts c = fault_loop(s, {"read", "write"}, {"SHORT"});
  EXPECT_EQ(c.failed, 0U) << s.name << ": a short read or write is not an error; the rest must be read or written";
}

INSTANTIATE_TEST_SUITE_P(Commands, CliFaults, testing::Range<std::size_t>(0, scenarios().size()),
                         [](const testing::TestParamInfo<std::size_t>& info) {
                           std::string name = scenarios()[info.param].name;
                           for (auto& ch : name) ch = ch == '-' ? '_' : ch;
                           return name;
                         });

// ---- files that change under the CLI ---------------------------------------------------------

/// Names in `dir` that look like save()'s temporary files.
std::vector<std::string> temporaries(const scratch_dir& dir) {
  std::vector<std::string> out;
  for (const auto& name : dir.names()) {
    if (name.size() > 1 && name[0] == '.' && name.find(".tmp.") != std::string::npos) out.push_back(name);
  }
  return out;
}


/// Runs `args` with `victim` truncated to 0 bytes (action TRUNCATE) or
/// replaced by rename with a copy of `replacement` (REPLACE) at the Nth
/// read, for every N the command reaches. Every run must exit 0 or 2 with
/// a message, never die of a signal; with REPLACE it must exit 0 with the
/// answers of the file it opened first. Returns the exits seen.
std::set<int> changed_under(const std::vector<std::string>& args, const std::string& victim, const std::string& action,
                            const std::string& must_say, const std::string& replacement = "b.bkf") {
  std::set<int> exits;
  for (int n = 1; n < 100; ++n) {
    scratch_dir dir, side;
    common_inputs(dir);
    const cli_result unchanged = run_cli(args, {}, dir);
    EXPECT_EQ(unchanged.rc, 0) << unchanged.err;
    common_inputs(dir);
    write_file(side / "replacement", read_file(dir.path() / replacement));
    const auto before = snapshot(dir);
    auto env = fault_env("read:" + std::to_string(n) + ":" + action, side.path() / "fired", dir);
    env.push_back("BLOOMKIT_FAULT_VICTIM=" + (dir.path() / victim).string());
    env.push_back("BLOOMKIT_FAULT_REPLACEMENT=" + (side.path() / "replacement").string());
    const auto r = run_cli(args, {}, dir, env);
    if (!fs::exists(side.path() / "fired")) break;
    exits.insert(r.rc);
    const std::string where = args[0] + " with " + victim + " " + action + " at read " + std::to_string(n);
    EXPECT_TRUE(r.rc == 0 || r.rc == 2) << where << ": exit " << r.rc << (r.rc > 128 ? " (died of a signal)" : "")
                                        << ": " << r.err;
    if (action == "REPLACE") {
      EXPECT_EQ(r.rc, 0) << where << ": replacing a file by rename must never matter: " << r.err;
      EXPECT_EQ(r.out, unchanged.out) << where << ": answers must come from the file opened first";
    }
    if (r.rc == 2) {
      EXPECT_EQ(r.err.rfind("bloomkit: ", 0), 0U) << where << ": " << r.err;
      EXPECT_NE(r.err.find(must_say), std::string::npos) << where << ": " << r.err;
      for (const auto& [name, bytes] : before) {
        if (name == victim) continue;
        EXPECT_EQ(read_file(dir.path() / name), bytes) << where << ": " << name << " changed";
      }
      EXPECT_TRUE(temporaries(dir).empty()) << where;
    }
  }
  return exits;
}

TEST(CliChangingFiles, QueryOfAFileTruncatedWhileMappedExits2NotSigbus) {
  // query maps the filter, then reads its keys: a truncation at the first
  // key read comes after the mapping, and the next lookup touches lost pages.
  const auto exits = changed_under({"query", "a.bkf", "-i", "more.txt"}, "a.bkf", "TRUNCATE", "shrank while it was mapped");
  EXPECT_TRUE(exits.count(2)) << "no run reached the truncated mapping";
}

TEST(CliChangingFiles, CommandsThatLoadATruncatedFileExit2) {
  // merge and remove read their filters with read() (never mapped): a file
  // that shrinks meanwhile gives a short copy, which the format rejects.
  EXPECT_TRUE(changed_under({"merge", "a.bkf", "b.bkf", "-o", "m.bkf"}, "b.bkf", "TRUNCATE", "b.bkf").count(2));
  EXPECT_TRUE(changed_under({"remove", "c.bkf", "-i", "gone.txt", "-o", "after.bkf"}, "c.bkf", "TRUNCATE", "c.bkf")
                  .count(2));
}

TEST(CliChangingFiles, ReplacingAFileByRenameWhileItIsReadNeverMatters) {
  EXPECT_EQ(changed_under({"query", "a.bkf", "-i", "more.txt"}, "a.bkf", "REPLACE", ""), std::set<int>{0});
  // The replacements are of another kind: a command that read them instead
  // of the file it opened would fail (mismatch), not just answer otherwise.
  EXPECT_EQ(changed_under({"merge", "a.bkf", "b.bkf", "-o", "m.bkf"}, "a.bkf", "REPLACE", "", "c.bkf"),
            std::set<int>{0});
  EXPECT_EQ(changed_under({"remove", "c.bkf", "-i", "gone.txt", "-o", "after.bkf"}, "c.bkf", "REPLACE", "", "a.bkf"),
            std::set<int>{0});
}

// ---- signals during a save ------------------------------------------------------------------

TEST(CliSignals, InterruptOrTerminateDuringASaveLeavesNoTemporaryFile) {
  for (const std::string sig : {"SIGINT", "SIGTERM"}) {
    for (int n = 1; n <= 2; ++n) {  // a save of this size is two writes: header, payload
      scratch_dir dir, side;
      common_inputs(dir);
      const std::string previous = read_file(dir.path() / "out.bkf");
      // write N happens inside the save (the build reads its keys first):
      // the signal arrives while the temporary file is open and half written.
      const auto r = run_cli({"build", "keys.txt", "-o", "out.bkf", "-q"}, {}, dir,
                             fault_env("write:" + std::to_string(n) + ":" + sig, side.path() / "fired", dir));
      ASSERT_TRUE(fs::exists(side.path() / "fired")) << sig << " " << n;
      EXPECT_GT(r.rc, 128) << sig << ": the CLI must still end by the signal (its caller needs to know)";
      EXPECT_TRUE(temporaries(dir).empty()) << sig << " at write " << n << " left "
                                            << testing::PrintToString(temporaries(dir));
      EXPECT_EQ(read_file(dir.path() / "out.bkf"), previous) << sig << ": the previous output changed";
    }
  }
}

TEST(CliSignals, TheNextSaveRemovesWhatAKilledSaveLeft) {
  scratch_dir dir, side;
  common_inputs(dir);
  const std::string previous = read_file(dir.path() / "out.bkf");
  const auto killed = run_cli({"build", "keys.txt", "-o", "out.bkf", "-q"}, {}, dir,
                              fault_env("write:1:SIGKILL", side.path() / "fired", dir));
  ASSERT_EQ(killed.rc, 128 + SIGKILL);
  const auto left = temporaries(dir);
  ASSERT_EQ(left.size(), 1U) << "a SIGKILL cannot be caught: its temporary file stays, recognisably named";
  EXPECT_EQ(left[0].rfind(".out.bkf.tmp.", 0), 0U) << left[0];
  EXPECT_EQ(read_file(dir.path() / "out.bkf"), previous);

  // A temporary file of a process that is still alive (this test) must be
  // kept: it may be a save in progress.
  const std::string live = ".out.bkf.tmp." + std::to_string(::getpid()) + ".0.12345";
  write_file(dir / live, "in progress");
  // And another target's leftovers are not this save's business.
  const std::string other = ".a.bkf.tmp.999999999.0.1";
  write_file(dir / other, "someone else's");

  must(run_cli({"build", "keys.txt", "-o", "out.bkf", "-q"}, {}, dir), "the next save");
  const auto now = temporaries(dir);
  EXPECT_EQ(now, (std::vector<std::string>{other, live})) << "the dead process's file must be gone, the others kept";
}

}  // namespace
