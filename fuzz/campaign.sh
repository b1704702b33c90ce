#!/usr/bin/env bash
# fuzz/campaign.sh TARGET CPU_SECONDS [BUILD_DIR] - one long libFuzzer campaign
# measured in CPU time, not wall time, so a campaign run under `nice -n 19`
# on a shared machine still gets its full budget.
#
# The corpus accumulates in BUILD_DIR/campaign/<target> (seeded from
# fuzz/corpus/<name> and fuzz/regressions/<name>); crashes, leaks, timeouts
# and out-of-memory inputs land in BUILD_DIR/campaign/<target>-artifacts/.
# At the end it prints one summary line: executions, coverage (libFuzzer's
# cov: and ft: counters), corpus size, CPU seconds and findings. Keep every
# finding as fuzz/regressions/<name>/<file> (replayed by ctest).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:?usage: fuzz/campaign.sh TARGET CPU_SECONDS [BUILD_DIR]}"
budget="${2:?usage: fuzz/campaign.sh TARGET CPU_SECONDS [BUILD_DIR]}"
build="${3:-$ROOT/build/fuzz}"
name="${target%_fuzz}"
exe="$build/$target"
[ -x "$exe" ] || { echo "campaign: $exe is not built (cmake --preset fuzz && cmake --build build/fuzz)" >&2; exit 1; }
corpus="$build/campaign/$target"
artifacts="$build/campaign/$target-artifacts/"
log="$build/campaign/$target.log"
mkdir -p "$corpus" "$artifacts" "$ROOT/fuzz/regressions/$name"
seeds=("$ROOT/fuzz/corpus/$name")
[ -n "$(ls -A "$ROOT/fuzz/regressions/$name" 2>/dev/null)" ] && seeds+=("$ROOT/fuzz/regressions/$name")

ticks="$(getconf CLK_TCK)"
start="$(date +%s)"
# -fork would hide the CPU time in children; one process keeps it countable.
# libFuzzer's -timeout is wall time: under nice on a loaded machine an input
# that runs in 0.01 s of CPU was once starved past 10 s and reported as a
# timeout (2026-12-01). 120 s still catches a real hang; replay any timeout
# alone (`$exe FILE`) before keeping it as a finding.
"$exe" -timeout=120 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts" \
  "$corpus" "${seeds[@]}" >"$log" 2>&1 &
pid=$!
cpu=0
while kill -0 "$pid" 2>/dev/null; do
  if stat_line="$(cat "/proc/$pid/stat" 2>/dev/null)"; then
    # Fields 14 and 15 (utime, stime) after the parenthesised command name.
    read -r -a f <<<"${stat_line##*) }"
    cpu=$(((f[11] + f[12]) / ticks))
    if [ "$cpu" -ge "$budget" ]; then
      kill -INT "$pid" 2>/dev/null || true
      break
    fi
  fi
  sleep 5
done
rc=0
wait "$pid" || rc=$?
findings="$(find "$artifacts" -type f | wc -l)"
last="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
execs="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)"
[ -n "$execs" ] || execs="$(echo "$last" | grep -Eo '^#[0-9]+' | tr -d '#')"
cov="$(echo "$last" | grep -Eo 'cov: [0-9]+' || true)"
ft="$(echo "$last" | grep -Eo 'ft: [0-9]+' || true)"
echo "$target: executions=${execs:-?} ${cov:-cov: ?} ${ft:-ft: ?} corpus=$(ls "$corpus" | wc -l) cpu_s=$cpu wall_s=$(( $(date +%s) - start )) findings=$findings exit=$rc"
[ "$findings" -eq 0 ]
