"""bench/peer_scoreboard.py reads peer-bench output as printed and pairs each
bloomkit row with its same-layout peer (BENCHMARKS.md's scoreboard comes from it)."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A trimmed peer-bench output: progress lines, a dynamic table, the ratio block the
# tool must skip, a static table. Names hold spaces; the memory-limit rows have "-".
SAMPLE = """\
peer_bench: Boost 1.92.0, bloomkit kernel avx512 (native build) / avx512 (v2 build), thread CPU time

# dynamic n=1000000 fpr=0.01: building workload (loadavg 0.72 0.90 1.60)
  round 1/2 start, loadavg 0.72 0.90 1.60

== dynamic filters, n = 1000000, target FPR 1 %, median of 2 rounds ==
family    filter                                         calls              bits/key   FPR % insert ns   pos ns   neg ns
sbbf      bloomkit[v2+dispatch] split_block_bloom        single                10.53   1.008      8.00     9.00    10.00
sbbf      bloomkit[v2+dispatch] split_block_bloom        batched               10.53   1.008      2.00     3.00     4.00
block512  bloomkit[v2+dispatch] blocked_bloom            single                 9.92   1.001     12.00    10.00    10.00
sbbf      bloomkit split_block_bloom                     batched               10.53   1.008      1.00     1.00     1.00
sbbf      Boost fast_multiblock32<8>                     single                10.53   0.987      4.00     3.00     5.00
sbbf      Boost fast_multiblock32<8>                     batched               10.53   0.987      4.00     3.00     2.00
block512  Boost block<u64[8],7>                          single                 9.90   1.016     10.00    20.00    10.00
mblock64  Boost fast_multiblock64<7>                     single                10.02   0.991      6.00     5.00     5.00
memlimit  memlimit W=0                                   -                     10.53       -      1.50     1.00     1.00
memlimit  memlimit W=16                                  -                     10.53       -      1.00     0.50     2.00

ratios (bloomkit ns / other ns; < 1 means bloomkit is faster). mem-limit: single styles vs W=0, batched styles vs the best W
bloomkit filter                    calls              | vs Boost analog ins/pos/neg | vs Boost-best ins/pos/neg (which)          | vs mem-limit ins/pos/neg
bloomkit[v2+dispatch] split_block_bloom single             | 2.00/3.00/2.00       | 2.00/3.00/2.00 (fast_multiblock32<8>|fast_multiblock32<8>|fast_multiblock32<8>) | 5.33/9.00/10.00

# static n=1000000: building workload (loadavg 0.41 1.66 1.98)

== static filters, n = 1000000, median of 5 rounds (b*: may_contain_many on prehashed XXH3) ==
filter                                       bits/key   FPR %  build ns   pos ns   neg ns   bpos ns   bneg ns
bloomkit[v2+dispatch] binary_fuse8 (3-wise)     9.044  0.3979      60.0    12.00    10.00      6.00      4.00
xor_singleheader binary_fuse8                   9.044  0.3899      50.0     6.00     5.00         -         -

timed sections: 1.0 s CPU, 1.0 s wall (wall/CPU 1.000); final loadavg 0.87 0.91 1.57
"""


def load_tool():
    spec = importlib.util.spec_from_file_location("peer_scoreboard", ROOT / "bench" / "peer_scoreboard.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_parse_reads_names_with_spaces_and_skips_progress_and_ratio_lines():
    tool = load_tool()
    sections = tool.parse(SAMPLE)
    assert [heading.split(",")[0] for heading, _ in sections] == ["dynamic filters", "static filters"]
    dynamic = sections[0][1]
    assert len(dynamic) == 10
    assert dynamic[0].name == "bloomkit[v2+dispatch] split_block_bloom" and dynamic[0].calls == "single"
    assert dynamic[0].ns == [8.0, 9.0, 10.0]
    assert dynamic[-1].name == "memlimit W=16" and dynamic[-1].ns == [1.0, 0.5, 2.0]
    static = sections[1][1]
    assert [r.name for r in static] == ["bloomkit[v2+dispatch] binary_fuse8 (3-wise)", "xor_singleheader binary_fuse8"]
    assert static[1].ns == [50.0, 6.0, 5.0, None, None]


def test_dynamic_rows_pair_each_peer_and_mark_rows_behind():
    tool = load_tool()
    heading, rows = tool.parse(SAMPLE)[0]
    table = tool.dynamic_table(heading, rows, "bloomkit[v2+dispatch]").splitlines()
    body = [line for line in table if line.startswith("| ") and not line.startswith("| bloomkit |")]
    # split single against fast_multiblock32<8>: 8/4, 9/3, 10/5; behind in bold.
    assert "| split_block_bloom | single | 8.00 / 9.00 / 10.00 | fast_multiblock32<8> | 4.00 / 3.00 / 5.00 | "\
           "**2.00** / **3.00** / **2.00** | - |" in body
    # batched: against the peer (2/4, 3/3, 4/2) and the best memory-limit window per column (3/0.5, 4/1).
    assert "| split_block_bloom | batched | 2.00 / 3.00 / 4.00 | fast_multiblock32<8> | 4.00 / 3.00 / 2.00 | "\
           "0.50 / 1.00 / **2.00** | 6.00 / 4.00 |" in body
    # blocked gets a row per peer; the native build's rows are not scored.
    assert sum(line.startswith("| blocked_bloom | single |") for line in body) == 2
    assert any("block<u64[8],7> | 10.00 / 20.00 / 10.00 | **1.20** / 0.50 / 1.00" in line for line in body)
    assert any("fast_multiblock64<7> | 6.00 / 5.00 / 5.00 | **2.00** / **2.00** / **2.00**" in line for line in body)
    assert len(body) == 4


def test_static_rows_compare_keyed_single_and_prehashed_batches_with_the_peer():
    tool = load_tool()
    heading, rows = tool.parse(SAMPLE)[1]
    table = tool.static_table(heading, rows, "bloomkit[v2+dispatch]")
    assert "| binary_fuse8 (3-wise) | 9.04 | 60.0 | 12.00 / 10.00 | 6.00 / 4.00 | xor_singleheader binary_fuse8 | 9.04 | "\
           "50.0 | 6.00 / 5.00 | **2.00** / **2.00** | 1.00 / 0.80 |" in table


def test_unreadable_or_malformed_input_is_an_error_not_a_table(tmp_path):
    import subprocess

    tool = ROOT / "bench" / "peer_scoreboard.py"
    bad = tmp_path / "bad.txt"
    bad.write_text("== dynamic filters, n = 1 ==\nsbbf   bloomkit x   single   10.5   1.0   a   b   c\n")
    for path in (bad, tmp_path / "missing.txt", ROOT / "README.md"):
        run = subprocess.run([sys.executable, str(tool), str(path)], capture_output=True, text=True)
        assert run.returncode == 1, (path, run.stdout)
        assert run.stdout == "" and "peer_scoreboard:" in run.stderr


def test_a_full_stdout_is_a_one_line_error():
    import subprocess

    tool = ROOT / "bench" / "peer_scoreboard.py"
    results = ROOT / "bench" / "results" / "peer_s13_1e8.txt"
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, str(tool), str(results)], stdout=full, stderr=subprocess.PIPE, text=True)
    assert run.returncode == 1
    assert run.stderr.strip() == "peer_scoreboard: cannot write the tables: No space left on device"
