#!/usr/bin/env bash
# python/venv.sh - the Python package's environment, build and tests.
#
#   python/venv.sh setup    make build/venv (once) and install python/requirements/test.txt into it
#                           (again only when a requirements file changed)
#   python/venv.sh install  setup, then build the extension and install the package (incremental:
#                           scikit-build-core keeps python/build/)
#   python/venv.sh test [PYTEST ARGS]   install, then run pytest over python/tests. Fails when no
#                           test ran (pytest exit 5) as well as on failures.
#   python/venv.sh bench [ARGS]   install python/requirements/bench.txt too, run python/bench/compare.py
#
# BLOOMKIT_PYTHON picks the interpreter the venv is made from (default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/build/venv"
PY="$VENV/bin/python"
REQ="$ROOT/python/requirements"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

requirements() {  # install FILE into the venv unless the same contents are already installed
  local file="$1" stamp="$VENV/.stamp-$(basename "$1" .txt)" sum
  sum="$(cat "$REQ"/*.txt | sha256sum | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then return 0; fi
  say "installing python/requirements/$(basename "$file") into build/venv"
  "$PY" -m pip install --quiet --disable-pip-version-check -r "$file"
  echo "$sum" >"$stamp"
}

cmd_setup() {
  if [ ! -x "$PY" ]; then
    say "creating build/venv with ${BLOOMKIT_PYTHON:-python3}"
    "${BLOOMKIT_PYTHON:-python3}" -m venv "$VENV"
  fi
  requirements "$REQ/test.txt"
}

cmd_install() {
  cmd_setup
  say "building and installing the bloomkit Python package"
  # --no-build-isolation: the pinned build requirements are in the venv already.
  "$PY" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps "$ROOT/python"
}

cmd_test() {
  cmd_install
  # The cross-language tests compare with the CLI's files.
  if [ -z "${BLOOMKIT_CLI:-}" ]; then
    if [ ! -x "$ROOT/build/release/bloomkit" ]; then
      say "building the CLI for the cross-language tests"
      (cd "$ROOT" && cmake --preset release >/dev/null && cmake --build build/release --target bloomkit_cli)
    fi
    export BLOOMKIT_CLI="$ROOT/build/release/bloomkit"
  fi
  say "pytest python/tests"
  local rc=0
  # From build/, so that "import bloomkit" finds the installed package, not python/bloomkit.
  (cd "$ROOT/build" && "$PY" -m pytest -q -p no:cacheprovider -c "$ROOT/python/pyproject.toml" \
    --rootdir "$ROOT/python" "$@" "$ROOT/python/tests") || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "python/venv.sh: pytest collected no tests" >&2
    return 1
  fi
  return "$rc"
}

cmd_bench() {
  cmd_install
  requirements "$REQ/bench.txt"
  (cd "$ROOT/python" && "$PY" bench/compare.py "$@")
}

case "${1:-test}" in
  setup) cmd_setup ;;
  install) cmd_install ;;
  test) shift || true; cmd_test "$@" ;;
  bench) shift; cmd_bench "$@" ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
esac
