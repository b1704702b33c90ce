#!/usr/bin/env bash
# postgres/cluster.sh - a throwaway PostgreSQL cluster for the tests and the benchmark.
#
#   postgres/cluster.sh start DIR [SETTING=VALUE ...]   initdb DIR/data and start it on a
#                               Unix socket in DIR (no TCP), trust auth, user postgres
#   postgres/cluster.sh stop DIR                        stop it (immediate) and remove DIR
#
# initdb refuses to run as root, so when run as root the cluster belongs to
# `nobody`. Clients connect with PGHOST=DIR PGPORT=5432 PGUSER=postgres.
# Durability is off (fsync, full_page_writes): the cluster lives for one run.
set -euo pipefail

PGBIN="$(pg_config --bindir)"
cmd="${1:?usage: cluster.sh start|stop DIR}"
dir="${2:?usage: cluster.sh start|stop DIR}"
shift 2

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown nobody: "$dir"
    (cd "$dir" && as_owner "$PGBIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 \
      --no-sync >"$dir/initdb.log" 2>&1) || { cat "$dir/initdb.log" >&2; exit 1; }
    opts="-c listen_addresses='' -k $dir -p 5432 -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
    for setting in "$@"; do opts="$opts -c $setting"; done
    (cd "$dir" && as_owner "$PGBIN/pg_ctl" -D "$dir/data" -o "$opts" -l "$dir/server.log" -w -t 60 start >/dev/null) ||
      { cat "$dir/server.log" >&2; exit 1; }
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      (cd "$dir" && as_owner "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1) || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: cluster.sh start|stop DIR [SETTING=VALUE ...]" >&2
    exit 1
    ;;
esac
