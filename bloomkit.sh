#!/usr/bin/env bash
# bloomkit.sh - the two commands (demo, test) and their helpers.
#
#   ./bloomkit.sh demo            build and run the main job (bloomkit demo)
#   ./bloomkit.sh test            build and run every test: release suite, ASan+UBSan
#                                 suite, ThreadSanitizer suite, fuzzers, browser tests
#   ./bloomkit.sh setup           install what is missing (apt, npm from the lock file)
#   ./bloomkit.sh build [PRESET]  configure and build a CMake preset (default release)
#   ./bloomkit.sh bench [ARGS]    build and run bench/compare (ARGS passed through)
#   ./bloomkit.sh serve [--port N]  build the playground and serve it on 127.0.0.1
#
# Every command installs what it needs first; when nothing is missing that
# step is silent. Set BLOOMKIT_JOBS to limit build parallelism,
# BLOOMKIT_FUZZ_SECONDS to change the fuzzing time (default 60 per target).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
JOBS="${BLOOMKIT_JOBS:-$(nproc)}"
FUZZ_SECONDS="${BLOOMKIT_FUZZ_SECONDS:-60}"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'bloomkit.sh: %s\n' "$*" >&2; exit 1; }

# ---- set-up -----------------------------------------------------------------------
CORE_PACKAGES=(g++ cmake ninja-build pkg-config libxxhash-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libbloom-dev nlohmann-json3-dev ccache)
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)
WEB_PACKAGES=(emscripten nodejs npm chromium)

missing_packages() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || printf '%s\n' "$pkg"
  done
}

apt_install() {
  local missing
  missing="$(missing_packages "$@")"
  [ -z "$missing" ] && return 0
  say "installing: $(echo $missing | tr '\n' ' ')"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

setup_core() { apt_install "${CORE_PACKAGES[@]}"; }
setup_fuzz() { apt_install "${FUZZ_PACKAGES[@]}"; }
setup_web() {
  local pkg web_packages=()
  for pkg in "${WEB_PACKAGES[@]}"; do
    # NodeSource's nodejs bundles npm and conflicts with Debian's npm package
    # (apt then fails with "held broken packages"): skip a tool already on PATH.
    [ "$pkg" = npm ] && command -v npm >/dev/null 2>&1 && continue
    [ "$pkg" = nodejs ] && command -v node >/dev/null 2>&1 && continue
    web_packages+=("$pkg")
  done
  apt_install "${web_packages[@]}"
  if [ -f web/package-lock.json ]; then
    if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
      say "installing npm packages from web/package-lock.json"
      (cd web && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
  fi
}

# ---- build ------------------------------------------------------------------------
build_preset() {
  local preset="$1"
  say "building preset $preset"
  # ccache, when present, makes a rebuild on the same machine (CI after a
  # session, a second clone) cheap; paths are taken relative to the root so
  # clones in other folders share the cache. Read only when configuring.
  if command -v ccache >/dev/null 2>&1; then
    CCACHE_BASEDIR="$ROOT" CMAKE_CXX_COMPILER_LAUNCHER=ccache cmake --preset "$preset" >/dev/null
  else
    cmake --preset "$preset" >/dev/null
  fi
  CCACHE_BASEDIR="$ROOT" cmake --build "build/$preset" -j "$JOBS"
}

run_ctest() {
  local preset="$1"; shift
  say "testing preset $preset"
  ctest --test-dir "build/$preset" --output-on-failure -j "$JOBS" "$@"
}

# ---- test steps -------------------------------------------------------------------
PASSED=0
FAILED=0
FAILED_STEPS=()
step() {
  local name="$1"; shift
  if "$@"; then
    PASSED=$((PASSED + 1))
  else
    FAILED=$((FAILED + 1))
    FAILED_STEPS+=("$name")
  fi
}

test_release() { build_preset release && run_ctest release; }
test_debug() { build_preset debug && run_ctest debug; }
test_tsan() {
  ls tests/*concurrent*_test.cpp >/dev/null 2>&1 || { say "FAILED: no tests/*concurrent*_test.cpp"; return 1; }
  build_preset tsan || return 1
  # The self-test must be among the tests run: without it a TSan build that
  # reports nothing would pass (tests/tsan/planted_race.cpp).
  ctest --test-dir build/tsan -N -L concurrent | grep tsan_catches_planted_race >/dev/null ||
    { say "FAILED: the tsan preset has no tsan_catches_planted_race test"; return 1; }
  TSAN_OPTIONS="halt_on_error=1" run_ctest tsan -L concurrent
}
test_bench_smoke() {
  [ -x build/release/bloomkit_compare ] || { say "FAILED: build/release/bloomkit_compare was not built"; return 1; }
  say "benchmark smoke run (tiny sizes, no timing asserted)"
  build/release/bloomkit_compare --sizes 10000 --repeats 1 >/dev/null
}
test_kinds_bench_smoke() {
  # Issue 19's benchmark (cuckoo vs counting, window, k-mers) at a tiny size:
  # it must run to the end; no timing is asserted.
  [ -x build/release/bloomkit_kinds_bench ] || { echo "bloomkit.sh: build/release/bloomkit_kinds_bench is missing" >&2; return 1; }
  say "kinds benchmark smoke run (n = 20000, no timing asserted)"
  build/release/bloomkit_kinds_bench 20000 >/dev/null
}
test_fuzz() {
  ls fuzz/*_fuzz.cpp >/dev/null 2>&1 || { say "FAILED: no fuzz/*_fuzz.cpp targets"; return 1; }
  wait_background_setup
  setup_fuzz
  build_preset fuzz || return 1
  # All targets run side by side for FUZZ_SECONDS of wall time each (with
  # more targets than cores each gets a share of the CPU: the step stays
  # FUZZ_SECONDS long, which keeps CI within its budget).
  local target name corpus rc=0 pids=() names=() i
  for target in build/fuzz/*_fuzz; do
    name="$(basename "$target")"
    corpus="fuzz/corpus/${name%_fuzz}"
    [ -f "$target" ] && [ -x "$target" ] || continue
    mkdir -p "build/fuzz/corpora/$name" "$corpus"
    say "fuzzing $name for ${FUZZ_SECONDS}s (seed corpus $corpus)"
    "$target" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -artifact_prefix="build/fuzz/$name-" \
      "build/fuzz/corpora/$name" "$corpus" >"build/fuzz/$name.log" 2>&1 &
    pids+=($!)
    names+=("$name")
  done
  [ "${#pids[@]}" -gt 0 ] || { say "FAILED: the fuzz preset built no targets"; return 1; }
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { tail -40 "build/fuzz/${names[$i]}.log" >&2; rc=1; }
  done
  for name in "${names[@]}"; do
    printf '%s: ' "$name" >&2
    grep -E "stat::number_of_executed_units" "build/fuzz/$name.log" | tr -s ' ' >&2 || { echo "no stats" >&2; rc=1; }
  done
  return $rc
}
test_parquet_duckdb() {
  [ -x tests/parquet_duckdb/run.sh ] || { say "FAILED: tests/parquet_duckdb/run.sh is missing"; return 1; }
  wait_background_setup
  setup_web
  say "Parquet round trip with DuckDB (bloomkit writes, DuckDB reads and probes; and back)"
  tests/parquet_duckdb/run.sh build/release/bloomkit
}
test_web() {
  [ -f web/package.json ] || { say "FAILED: web/package.json is missing"; return 1; }
  wait_background_setup
  setup_web
  say "building the playground and testing it in headless Chromium"
  "$ROOT/web/build.sh" || return 1
  say "every public header compiles for WebAssembly (em++, libc++ 13, 32-bit size_t)"
  NODE_PATH=/usr/share/nodejs em++ -std=c++20 -fsyntax-only -fexceptions -Wall -Wextra -Wpedantic -Werror \
    -Iinclude -Ibuild/web/include tests/wasm/umbrella.cpp || return 1
  (cd web && node --test tests/)
}

# The fuzz and web packages (clang, emscripten, chromium: about 1 GB on a new
# machine) install in the background while the release suite builds; the
# steps that need them wait for it first.
BACKGROUND_SETUP_PID=""
start_background_setup() {
  mkdir -p build
  (setup_fuzz && setup_web) >build/background-setup.log 2>&1 &
  BACKGROUND_SETUP_PID=$!
}
wait_background_setup() {
  [ -n "$BACKGROUND_SETUP_PID" ] || return 0
  local pid="$BACKGROUND_SETUP_PID"
  BACKGROUND_SETUP_PID=""
  if ! wait "$pid"; then
    cat build/background-setup.log >&2
    say "installing the fuzz/web packages failed; retrying in the foreground"
    setup_fuzz && setup_web
  fi
}

cmd_test() {
  setup_core
  start_background_setup
  step release test_release
  step bench-smoke test_bench_smoke
  step kinds-bench-smoke test_kinds_bench_smoke
  step parquet-duckdb test_parquet_duckdb
  step debug test_debug
  step tsan test_tsan
  step fuzz test_fuzz
  step web test_web
  echo
  if [ "$FAILED" -ne 0 ]; then
    echo "failed steps: ${FAILED_STEPS[*]}"
  fi
  echo "steps: $PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

cmd_demo() {
  setup_core
  build_preset release >/dev/null
  exec build/release/bloomkit demo "$@"
}

cmd_bench() {
  setup_core
  build_preset release >/dev/null
  [ -x build/release/bloomkit_compare ] || die "bench/compare is not built yet"
  exec build/release/bloomkit_compare "$@"
}

cmd_serve() {
  [ -x web/build.sh ] || die "the playground is not there yet"
  setup_web
  "$ROOT/web/build.sh"
  exec "$ROOT/web/serve.sh" "$@"
}

case "${1:-}" in
  demo) shift; cmd_demo "$@" ;;
  test) shift; cmd_test "$@" ;;
  setup) shift; setup_core; setup_fuzz; setup_web ;;
  build) shift; setup_core; build_preset "${1:-release}" ;;
  bench) shift; cmd_bench "$@" ;;
  serve) shift; cmd_serve "$@" ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
esac
