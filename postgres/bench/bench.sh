#!/usr/bin/env bash
# postgres/bench/bench.sh [ROWS] - issue 40's measurements, in one run, on a
# throwaway cluster (postgres/cluster.sh) with the installed extension
# (./bloomkit.sh install-postgres first):
#   * bloom_agg over ROWS (default 10^7) rows of bigint and of text, with 0
#     (serial), 1 and 2 parallel workers, against count(DISTINCT) and
#     array_agg over the same column (the database's own reference points);
#   * a join of ROWS facts against ROWS/10 keys (half of them match 5% of
#     the facts), plain against prefiltered by bloom_contains, with the hash
#     table in memory (work_mem 64MB) and spilling in batches (4MB, the default);
#   * the per-row cost of bloom_contains: a scan that probes every row
#     minus the same scan without the probe, over ROWS.
# Each figure is the median of 3 runs (psql's \timing, wall clock of the
# statement). Prints a Markdown table for BENCHMARKS.md.
set -euo pipefail
ROWS="${1:-10000000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="$(mktemp -d /tmp/bloomkit-pg-bench.XXXXXX)"
trap '"$ROOT/postgres/cluster.sh" stop "$DIR"' EXIT
"$ROOT/postgres/cluster.sh" start "$DIR" shared_buffers=1GB work_mem=64MB max_worker_processes=8 \
  max_parallel_workers=8 jit=off
export PGHOST="$DIR" PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql -c "CREATE EXTENSION bloomkit" \
  -c "CREATE TABLE t AS SELECT (g * 2654435761::bigint) % 1000000007 AS i, 'key-' || g AS s
        FROM generate_series(1, $ROWS) g" \
  -c "CREATE TABLE dims AS SELECT i FROM t WHERE i % 20 = 0 UNION ALL SELECT -g FROM generate_series(1, $ROWS / 20) g" \
  -c "CREATE TABLE filt AS SELECT bloom_agg(i, (SELECT count(*) FROM dims), 0.01) AS f FROM dims" \
  -c "VACUUM ANALYZE t" -c "VACUUM ANALYZE dims"

# median wall time in ms of SQL ($2) with settings ($1), 3 runs
time_ms() {
  local settings="$1" sql="$2" i out times=()
  for i in 1 2 3; do
    out="$(psql -c "$settings" -c '\timing on' -c "$sql" 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)"
    times+=("$out")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 2p
}
workers() {  # settings for N parallel workers (0: a serial plan)
  if [ "$1" -eq 0 ]; then echo "SET max_parallel_workers_per_gather = 0"; else
    echo "SET max_parallel_workers_per_gather = $1; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
          SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off"; fi
}
plan_has() { psql -At -c "$(workers "$1")" -c "EXPLAIN $2" | grep -c "$3" || true; }

echo "| query ($ROWS rows) | 0 workers (ms) | 1 worker (ms) | 2 workers (ms) |"
echo "|---|---:|---:|---:|"
for col in i s; do
  name=$([ "$col" = i ] && echo bigint || echo text)
  for q in "bloom_agg($col, $ROWS)" "bloom_agg($col)" "count(DISTINCT $col)" "array_agg($col)"; do
    sql="SELECT octet_length($q) FROM t"
    [ "${q#count}" != "$q" ] && sql="SELECT $q FROM t"
    [ "${q#array_agg}" != "$q" ] && sql="SELECT cardinality($q) FROM t"
    row="| \`$q\` over $name"
    for w in 0 1 2; do
      row="$row | $(time_ms "$(workers $w)" "$sql")"
    done
    echo "$row |"
  done
done
[ "$(plan_has 2 "SELECT bloom_agg(i, $ROWS) FROM t" "Partial Aggregate")" -ge 1 ] || echo "(no Partial Aggregate in the 2-worker plan)"

join="SELECT count(*) FROM t JOIN dims d ON t.i = d.i"
pre="SELECT count(*) FROM t JOIN dims d ON t.i = d.i WHERE bloom_contains((SELECT f FROM filt), t.i)"
echo
echo "| semi-join, $ROWS facts against $(psql -At -c 'SELECT count(*) FROM dims') keys ($(psql -At -c "$join") matches) | 0 workers (ms) | 2 workers (ms) |"
echo "|---|---:|---:|"
for mem in 64MB 4MB; do
  echo "| plain join, work_mem $mem | $(time_ms "$(workers 0); SET work_mem = '$mem'" "$join") |" \
    "$(time_ms "$(workers 2); SET work_mem = '$mem'" "$join") |"
  echo "| prefiltered with bloom_contains, work_mem $mem | $(time_ms "$(workers 0); SET work_mem = '$mem'" "$pre") |" \
    "$(time_ms "$(workers 2); SET work_mem = '$mem'" "$pre") |"
done
echo "| building the prefilter (bloom_agg over the keys) | $(time_ms "$(workers 0)" "SELECT octet_length(bloom_agg(i)) FROM dims") | |"

probe="SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM filt), i)) FROM t"
base="SELECT count(*) FILTER (WHERE i IS NOT NULL) FROM t"
p=$(time_ms "$(workers 0)" "$probe")
b=$(time_ms "$(workers 0)" "$base")
echo
echo "bloom_contains per row (serial scan of $ROWS rows, probe $p ms, same scan without it $b ms):" \
  "$(awk -v p="$p" -v b="$b" -v n="$ROWS" 'BEGIN { printf "%.1f ns", (p - b) * 1e6 / n }')"
