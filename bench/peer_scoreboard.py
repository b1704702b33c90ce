#!/usr/bin/env python3
"""bench/peer_scoreboard.py - the peer scoreboard from peer-bench output.

Reads the text that ../shared/peer-bench (or bench/peer_ab.sh's peer_bench_ab)
prints and writes, as Markdown, one table per configuration: every bloomkit
row of the chosen build beside the best peer of the same layout in the same
run (one row per peer and call style), the ratio (bloomkit / peer; below 1
means bloomkit is faster; above 1.00 in bold) and, for
batched lookups, the ratio to the memory-limit kernel's best prefetch window.
Nothing is measured here: it only reads the figures of one run, so the
ratios are the run's own.

    python3 bench/peer_scoreboard.py bench/results/peer_s13_1e6.txt [more files] [--label 'bloomkit[v2+dispatch]']

Same-layout peers: split_block_bloom against Boost
fast_multiblock32<8>; blocked_bloom against Boost block<u64[8],7> and
fast_multiblock64<7> (a row for each; fast_multiblock64 has no prehashed
rows); standard_bloom against Boost's classic filter<u64,7>;
binary_fuse8 against xor_singleheader; ribbon against fastfilter's standard
Ribbon (both widths, with their bits per key).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

PEERS = {
    "split_block_bloom": ["Boost fast_multiblock32<8>"],
    "blocked_bloom": ["Boost block<u64[8],7>", "Boost fast_multiblock64<7>"],
    "standard_bloom": ["Boost filter<u64,7> (classic)"],
}
CALLS = ["single", "batched", "prehashed-single", "prehashed-batched"]


@dataclass
class Row:
    name: str
    calls: str
    bits: float
    ns: list[float | None]  # insert, positive, negative (dynamic) or build, pos, neg, bpos, bneg (static)


def number(token: str) -> float | None:
    return None if token == "-" else float(token)


def parse(text: str) -> list[tuple[str, list[Row]]]:
    """Sections of the output: (heading, rows). A row's fields are read from
    the right (its name may hold spaces)."""
    sections: list[tuple[str, list[Row]]] = []
    rows: list[Row] | None = None
    for line in text.splitlines():
        if line.startswith("== "):
            rows = []
            sections.append((line.strip("= ").strip(), rows))
            continue
        if line.startswith(("#", "timed", "ratios")):
            rows = None  # a new workload's progress lines, the ratio block, or the end of the run
            continue
        tokens = line.split()
        if rows is None or len(tokens) < 8 or line.startswith(("family", "filter ")):
            continue  # outside a table, or its column header
        if sections[-1][0].startswith("dynamic"):
            rows.append(Row(" ".join(tokens[1:-6]), tokens[-6], float(tokens[-5]), [number(t) for t in tokens[-3:]]))
        else:
            rows.append(Row(" ".join(tokens[:-7]), "static", float(tokens[-7]), [number(t) for t in tokens[-5:]]))
    return sections


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    r = a / b
    return f"**{r:.2f}**" if round(r, 2) > 1.0 else f"{r:.2f}"


def triple(values: list[float | None]) -> str:
    return " / ".join("-" if v is None else f"{v:.2f}" for v in values)


def dynamic_table(heading: str, rows: list[Row], label: str) -> str:
    by_name = {(r.name, r.calls): r for r in rows}
    memlimit = [r for r in rows if r.name.startswith("memlimit")]
    best_mem = [min((r.ns[c] for r in memlimit if r.ns[c] is not None), default=None) for c in range(3)]
    out = [f"#### {heading}", "",
           "| bloomkit | calls | bloomkit ns (ins / pos / neg) | peer | peer ns | ratio | batched lookups / memory limit |",
           "|---|---|---|---|---|---|---|"]
    for kind, peers in PEERS.items():
        for peer in peers:
            for calls in CALLS:
                mine, theirs = by_name.get((f"{label} {kind}", calls)), by_name.get((peer, calls))
                if mine is None or theirs is None:
                    continue
                mem = "-"
                if calls.endswith("batched") and best_mem[1] is not None:
                    mem = f"{mine.ns[1] / best_mem[1]:.2f} / {mine.ns[2] / best_mem[2]:.2f}"
                out.append(f"| {kind} | {calls} | {triple(mine.ns)} | {peer.removeprefix('Boost ')} | {triple(theirs.ns)} | "
                           f"{' / '.join(ratio(mine.ns[c], theirs.ns[c]) for c in range(3))} | {mem} |")
    return "\n".join(out)


def static_table(heading: str, rows: list[Row], label: str) -> str:
    mine = [r for r in rows if r.name.startswith(label + " ")]
    xor = next((r for r in rows if r.name.startswith("xor_singleheader")), None)
    ribbons = [r for r in rows if r.name.startswith("fastfilter StandardRibbon")]
    out = [f"#### {heading}", "",
           "| bloomkit | bits/key | build ns | keyed single pos / neg | prehashed batched pos / neg | peer | peer bits/key | peer build | peer single pos / neg | ratio single | ratio batched vs peer single |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in mine:
        kind = r.name.removeprefix(label + " ")
        peers = [xor] if kind.startswith("binary_fuse8") else ribbons
        for p in peers:
            if p is None:
                continue
            out.append(f"| {kind} | {r.bits:.2f} | {r.ns[0]:.1f} | {triple(r.ns[1:3])} | {triple(r.ns[3:5])} | "
                       f"{p.name} | {p.bits:.2f} | {p.ns[0]:.1f} | {triple(p.ns[1:3])} | "
                       f"{ratio(r.ns[1], p.ns[1])} / {ratio(r.ns[2], p.ns[2])} | {ratio(r.ns[3], p.ns[1])} / {ratio(r.ns[4], p.ns[2])} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--label", default="bloomkit[v2+dispatch]",
                        help="the bloomkit build whose rows are scored (default: the release flags)")
    args = parser.parse_args()
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                sections = parse(f.read())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            print(f"peer_scoreboard: cannot read {path}: {e}", file=sys.stderr)
            return 1
        if not sections:
            print(f"peer_scoreboard: no tables in {path}", file=sys.stderr)
            return 1
        for heading, rows in sections:
            table = dynamic_table if heading.startswith("dynamic") else static_table
            print(table(heading, rows, args.label))
            print()
    return 0


if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except OSError as e:  # stdout is a full disk or a pipe whose reader has gone
        print(f"peer_scoreboard: cannot write the tables: {e.strerror}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        code = 1
    sys.exit(code)
