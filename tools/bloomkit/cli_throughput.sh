#!/usr/bin/env bash
# tools/bloomkit/cli_throughput.sh - the CLI speed check, in one run.
#
#   tools/bloomkit/cli_throughput.sh [BLOOMKIT_BINARY] [KEYS]
#
# Writes KEYS (default 10^7) text keys to a temporary file, warms the page
# cache, then times on that same file:
#   wc -l                                   (the floor: just finding the lines)
#   bloomkit build --capacity N, per kind   (one pass: read, hash, insert, save)
#   bloomkit build without --capacity       (two passes: count, then insert)
#   bloomkit query --count / full output    (all keys present)
# Each bloomkit run reports the filter's own time (--stats: construct +
# insert_many for build, may_contain_many for query), so the goal
# "build <= 3 x wc -l + the filter's own insert time" is checked against
# figures from the same run. Best of REPEAT (default 3)
# runs per row. Prints a Markdown table for BENCHMARKS.md.
set -euo pipefail

BIN="${1:-build/release/bloomkit}"
N="${2:-10000000}"
REPEAT="${REPEAT:-3}"
[ -x "$BIN" ] || { echo "cli_throughput.sh: no executable at $BIN (build the release preset first)" >&2; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-throughput-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
KEYS="$TMP/keys.txt"
# Keys like "user-000001234-7f3a": 19 bytes, distinct, not sorted by hash.
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "user-%09d-%04x\n", i, (i * 2654435761) % 65536 }' > "$KEYS"
BYTES=$(stat -c %s "$KEYS")
cat "$KEYS" > /dev/null

# best_of CMD...: runs CMD REPEAT times; keeps the run with the least wall
# time: BEST (wall s), BEST_CPU (user + sys s) and LAST_ERR (its stderr).
best_of() {
  BEST=""
  local i real user sys
  for ((i = 0; i < REPEAT; i++)); do
    { TIMEFORMAT='%R %U %S'; time "$@" > "$TMP/out" 2> "$TMP/err"; } 2> "$TMP/time"
    read -r real user sys < "$TMP/time"
    if [ -z "$BEST" ] || awk -v a="$real" -v b="$BEST" 'BEGIN { exit !(a < b) }'; then
      BEST=$real
      BEST_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
      LAST_ERR=$(cat "$TMP/err")
    fi
  done
}
# stat_field NAME: the seconds after "NAME " in the last --stats line.
stat_field() { printf '%s\n' "$LAST_ERR" | grep 'stats:' | sed -n "s/.*$1 \([0-9.]*\) s.*/\1/p" | tail -1; }
# build_own: construct + insert_many of the last build.
build_own() { awk -v a="$(stat_field construct)" -v b="$(stat_field insert_many)" 'BEGIN { printf "%.3f", a + b }'; }

best_of wc -l "$KEYS"
WC=$BEST
WC_CPU=$BEST_CPU

printf 'CLI throughput: %s text keys (%s MB), %s, best of %s runs\n\n' "$N" "$((BYTES / 1000000))" \
  "$(uname -m)" "$REPEAT"
printf '| step | wall s | Mkeys/s | filter'"'"'s own s | limit: 3 x wc + own | within | CPU s (user+sys) | CPU limit | within |\n'
printf '|---|---:|---:|---:|---:|:---:|---:|---:|:---:|\n'
row() {  # name wall own   (uses BEST_CPU of the same run)
  local name="$1" wall="$2" own="$3"
  awk -v name="$name" -v wall="$wall" -v own="$own" -v wc="$WC" -v cpu="$BEST_CPU" -v wccpu="$WC_CPU" -v n="$N" 'BEGIN {
    if (own == "") { printf "| %s | %.3f | %.1f | | | | %.3f | | |\n", name, wall, n / wall / 1e6, cpu; exit }
    limit = 3 * wc + own; climit = 3 * wccpu + own
    printf "| %s | %.3f | %.1f | %.3f | %.3f | %s | %.3f | %.3f | %s |\n", name, wall, n / wall / 1e6, own, limit,
           (wall <= limit ? "yes" : "NO"), cpu, climit, (cpu <= climit ? "yes" : "NO")
  }'
}
BEST_CPU=$WC_CPU
row "wc -l" "$WC" ""

for kind in blocked split-block standard; do
  best_of "$BIN" build "$KEYS" --capacity "$N" --kind "$kind" -o "$TMP/$kind.bloom" --stats --quiet
  row "build --kind $kind --capacity N" "$BEST" "$(build_own)"
done
best_of "$BIN" build "$KEYS" --kind blocked -o "$TMP/counted.bloom" --stats --quiet
row "build --kind blocked (counts first: 2 passes)" "$BEST" "$(build_own)"
best_of sh -c "\"$BIN\" build --kind blocked -o \"$TMP/stdin.bloom\" --stats --quiet < \"$KEYS\""
row "build --kind blocked < stdin (spooled)" "$BEST" "$(build_own)"

for kind in blocked split-block standard; do
  best_of "$BIN" query "$TMP/$kind.bloom" --count --stats -i "$KEYS"
  row "query --count ($kind)" "$BEST" "$(stat_field may_contain_many)"
done
best_of "$BIN" query "$TMP/blocked.bloom" --stats -i "$KEYS"
row "query, KEY<TAB>maybe lines (blocked)" "$BEST" "$(stat_field may_contain_many)"
