#!/usr/bin/env bash
# tests/parquet_duckdb/run.sh BLOOMKIT - the DuckDB round trip (run.mjs) with
# its npm dependency installed from package-lock.json first.
#
# Never skips: missing node/npm, an `npm ci` that cannot install
# @duckdb/node-api (no registry access) and any failed check are exit 1, so
# CI cannot pass without the round trip having run.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLI="${1:?usage: tests/parquet_duckdb/run.sh path/to/bloomkit}"
CLI="$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")"
[ -x "$CLI" ] || { echo "parquet_duckdb: $CLI is not an executable" >&2; exit 1; }
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "parquet_duckdb: FAILED: node and npm are not installed (apt-get install nodejs npm)" >&2
  exit 1
fi
cd "$HERE"
if [ ! -d node_modules/@duckdb/node-api ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if ! npm ci --no-audit --no-fund --loglevel=error >npm-ci.log 2>&1; then
    echo "parquet_duckdb: FAILED: npm ci could not install @duckdb/node-api (see $HERE/npm-ci.log)" >&2
    tail -5 npm-ci.log >&2
    exit 1
  fi
fi
exec node run.mjs "$CLI"
