// tests/cli_messages_test.cpp - the CLI's error lines, pinned whole.
//
// Each failure prints exactly one line, `bloomkit: WHERE: what`, and exits
// 1 (usage) or 2 (data). The other CLI tests check that a message mentions
// the file or the field; this one pins every byte of the line for a sample
// of failures (missing, short, truncated and altered files, a directory,
// kinds and parameters that differ, a kind that cannot remove or fold, bad
// parameters, an output folder that does not exist), so that a change in
// how the library reports an error, or in how the CLI formats it, cannot
// alter what a user sees unnoticed.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace bloomkit::test {
namespace {

struct message_case {
  std::vector<std::string> args;
  int rc;
  std::string line;  ///< the whole of stderr, without its final '\n'
};

/// Overwrites the byte at `offset` of `path` with `value`.
void poke(const std::string& path, std::size_t offset, char value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(value);
  ASSERT_TRUE(f.good()) << path;
}

/// The files the cases read, made by the CLI itself so that they are what a
/// user would have: a.bloom and b.bloom (blocked, 1 % and 0.1 %), c.bloom
/// (cuckoo), st.bloom (standard), short and altered copies, a directory.
void make_inputs(const scratch_dir& dir) {
  write_file(dir / "keys.txt", "a\nb\nc\n");
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "a.bloom"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "b.bloom", "--fpr", "0.001"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "c.bloom", "--kind", "cuckoo"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"build", "keys.txt", "-o", "st.bloom", "--kind", "standard"}, {}, dir).rc, 0);
  const std::string blocked = read_file(dir / "a.bloom");
  const std::string standard = read_file(dir / "st.bloom");
  ASSERT_EQ(blocked.size(), 192u);
  write_file(dir / "trunc.bloom", blocked.substr(0, 40));
  write_file(dir / "trunc2.bloom", standard.substr(0, 100));
  write_file(dir / "garbage.bin", "hello\n");
  write_file(dir / "flip.bloom", blocked);
  poke(dir / "flip.bloom", 100, '\xff');
  write_file(dir / "pay.bloom", standard);
  poke(dir / "pay.bloom", standard.size() - 1, '\x55');
  std::filesystem::create_directory(dir.path() / "dir.bloom");
}

TEST(CliMessages, EachFailurePrintsItsOneLine) {
  scratch_dir dir;
  make_inputs(dir);
  const std::vector<message_case> cases = {
      {{"info", "missing.bloom"}, 2, "bloomkit: missing.bloom: cannot open: No such file or directory"},
      {{"query", "missing.bloom", "a"}, 2, "bloomkit: missing.bloom: cannot map: cannot open it: No such file or directory"},
      {{"info", "dir.bloom"}, 2, "bloomkit: dir.bloom: cannot read: it is a directory"},
      {{"info", "garbage.bin"}, 2, "bloomkit: garbage.bin: the file is 6 bytes long, shorter than the 8-byte magic"},
      {{"info", "trunc.bloom"}, 2,
       "bloomkit: trunc.bloom: the file is 40 bytes long, shorter than the 72-byte fixed header"},
      {{"info", "trunc2.bloom"}, 2, "bloomkit: trunc2.bloom: the file is 100 bytes long, shorter than its 128-byte header"},
      {{"info", "flip.bloom"}, 2, "bloomkit: flip.bloom: header padding byte at offset 100 is not zero"},
      {{"query", "flip.bloom", "a"}, 2,
       "bloomkit: flip.bloom: the header checksum does not match: the header was altered after it was written"},
      {{"query", "pay.bloom", "a"}, 2,
       "bloomkit: pay.bloom: the payload checksum does not match: the filter's bits were altered after they were "
       "written"},
      {{"info", "pay.bloom"}, 2, "bloomkit: pay.bloom: checksum mismatch in the payload"},
      {{"merge", "st.bloom", "pay.bloom", "-o", "m.bloom"}, 2,
       "bloomkit: pay.bloom: the payload checksum does not match: the filter's bits were altered after they were "
       "written"},
      {{"merge", "a.bloom", "b.bloom", "-o", "m.bloom"}, 2,
       "bloomkit: cannot merge a.bloom with b.bloom: blocked_bloom merge: k differs (1 vs 2); a.bloom: bits 512, k 1, "
       "blocks 1 (built for --capacity 3 --fpr 0.01); b.bloom: bits 512, k 2, blocks 1 (built for --capacity 3 --fpr "
       "0.001). Build both with the same --kind, --capacity and --fpr (or the same --bits and --hashes) to merge them"},
      {{"merge", "a.bloom", "c.bloom", "-o", "m.bloom"}, 2,
       "bloomkit: cannot merge a.bloom with c.bloom: kinds differ (blocked_bloom vs cuckoo_filter)"},
      {{"merge", "a.bloom", "missing.bloom", "-o", "m.bloom"}, 2,
       "bloomkit: missing.bloom: cannot open: No such file or directory"},
      {{"intersect", "st.bloom", "a.bloom", "-o", "m.bloom"}, 2,
       "bloomkit: cannot intersect st.bloom with a.bloom: kinds differ (standard_bloom vs blocked_bloom)"},
      {{"remove", "a.bloom", "a"}, 2,
       "bloomkit: 'a.bloom' holds a blocked_bloom; only counting and cuckoo filters can remove keys (build one with "
       "--kind counting or --kind cuckoo)"},
      {{"fold", "st.bloom", "-o", "f.bloom", "--fpr", "0.1"}, 2,
       "bloomkit: st.bloom: a standard_bloom cannot fold; only blocked_bloom and split_block_bloom filters fold (their "
       "block index ((h >> 32) * n) >> 32 halves exactly when n halves). Rebuild it smaller instead."},
      {{"build", "keys.txt", "-o", "nodir/x.bloom"}, 2,
       "bloomkit: cannot save 'nodir/x.bloom': cannot create a temporary file in 'nodir': No such file or directory"},
      {{"build", "missing.txt", "-o", "x.bloom"}, 2, "bloomkit: cannot open missing.txt: No such file or directory"},
      {{"build", "keys.txt", "-o", "x.bloom", "--fpr", "1.5"}, 1, "bloomkit: --fpr must be in (0, 1)"},
      {{"build", "keys.txt", "-o", "x.bloom", "--capacity", "0"}, 1, "bloomkit: --capacity must be at least 1, got 0"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    SCOPED_TRACE(joined);
    const cli_result r = run_cli(c.args, {}, dir);
    EXPECT_EQ(r.rc, c.rc);
    EXPECT_EQ(r.err, c.line + "\n");
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "m.bloom"));
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bloom"));
}

}  // namespace
}  // namespace bloomkit::test
