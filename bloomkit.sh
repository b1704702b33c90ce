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
#   ./bloomkit.sh install [PREFIX]  build the CLI and install it (default ~/.local/bin), with its
#                                 man page and bash/zsh/fish completion under PREFIX/share
#   ./bloomkit.sh test-gpu [ARGS]  on a machine with nvcc and an NVIDIA GPU: build the
#                                 CUDA component (cuda/), run its tests and gpu_bench
#   ./bloomkit.sh install-postgres  build the PostgreSQL extension (postgres/) and install it
#                                 into Debian's PostgreSQL 15 (as root: CREATE EXTENSION bloomkit)
#
# Every command installs what it needs first; when nothing is missing that
# step is silent. Set BLOOMKIT_JOBS to limit build parallelism,
# BLOOMKIT_FUZZ_SECONDS to change the fuzzing time (default 60 per target),
# BLOOMKIT_STEPS (e.g. "python engines") to run only those steps of test.
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
POSTGRES_PACKAGES=(postgresql-15 postgresql-server-dev-15)

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
  # One line that counts the packages apt sets up (a fresh machine installs
  # a few hundred, which takes minutes): progress without apt's full log.
  # shellcheck disable=SC2086
  $sudo apt-get install -y -q --no-install-recommends $missing |
    awk '/^Setting up /{n++; printf "\r    set up %d packages (%s)\033[K", n, $3} END{if (n) printf "\n"}' >&2
}

setup_core() { apt_install "${CORE_PACKAGES[@]}"; }
setup_fuzz() { apt_install "${FUZZ_PACKAGES[@]}"; }
setup_postgres() { apt_install "${POSTGRES_PACKAGES[@]}"; }
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

setup_interop() {
  # Java 17 and Maven from Debian; pyspark/pyarrow into build/venv from
  # python/requirements/interop.txt (again only when that file changes).
  command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 || apt_install openjdk-17-jdk-headless maven
  local venv="$ROOT/build/venv" stamp sum
  [ -x "$venv/bin/python" ] || "${BLOOMKIT_PYTHON:-python3}" -m venv "$venv" || return 1
  stamp="$venv/.stamp-interop"
  sum="$(sha256sum python/requirements/interop.txt | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "installing python/requirements/interop.txt into build/venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements/interop.txt || return 1
    echo "$sum" >"$stamp"
  fi
}

# ---- build ------------------------------------------------------------------------
build_preset() {
  local preset="$1"
  say "building preset $preset"
  # ccache, when present, makes a rebuild on the same machine (CI after a
  # session, a second clone) cheap. For objects to be shared by clones in
  # other folders, nothing a compile sees may name the clone's folder: paths
  # on the command line are taken relative to the root (CCACHE_BASEDIR), the
  # build folder is left out of the hash although -g1 records it in the debug
  # information (CCACHE_NOHASHDIR; tests never read it), and the tests take
  # their paths from one generated file, not -D macros (tests/test_paths.hpp).
  # The launcher is read only when configuring.
  if command -v ccache >/dev/null 2>&1; then
    CCACHE_BASEDIR="$ROOT" CMAKE_CXX_COMPILER_LAUNCHER=ccache cmake --preset "$preset" >/dev/null
  else
    cmake --preset "$preset" >/dev/null
  fi
  CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1 cmake --build "build/$preset" -j "$JOBS"
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
  local started=$SECONDS
  # BLOOMKIT_STEPS="jvm engines" runs only the steps named (a developer's rerun; CI runs all).
  if [ -n "${BLOOMKIT_STEPS:-}" ] && [[ " $BLOOMKIT_STEPS " != *" $name "* ]]; then return 0; fi
  if "$@"; then
    PASSED=$((PASSED + 1))
    say "step $name passed in $((SECONDS - started)) s"
  else
    FAILED=$((FAILED + 1))
    FAILED_STEPS+=("$name")
    say "step $name FAILED after $((SECONDS - started)) s"
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
test_python() {
  # The Python package: build/venv from python/requirements (pinned), the
  # extension built and installed, pytest over python/tests (no tests = failure).
  say "Python package: build, install into build/venv, pytest"
  "$ROOT/python/venv.sh" test
}
test_python_asan() {
  # The extension built with ASan + UBSan (build/pyext-asan) and pytest run
  # over it with the sanitizer runtimes preloaded and PYTHONMALLOC=malloc
  # (python/venv.sh asan). The tests marked slow (millions of keys) are left
  # to the release step: under ASan they would add minutes for no new path.
  say "Python package under ASan + UBSan: pytest -m 'not slow' (python/venv.sh asan)"
  "$ROOT/python/venv.sh" asan -m "not slow"
}
test_engines() {
  # bloomkit.spark / bloomkit.dask on real clusters on this machine, loopback
  # only: Spark local-cluster[2,1,1024] (two executor JVMs; needs Java 17)
  # and a distributed.LocalCluster with two worker processes. Reuses the
  # python step's build/venv (python/venv.sh) and adds
  # python/requirements/engines.txt (pinned) once per change of that file.
  command -v java >/dev/null 2>&1 || { echo "engines: java is missing (Spark needs Java 17)" >&2; return 1; }
  "$ROOT/python/venv.sh" install
  setup_engines || return 1
  say "engine tests: Spark local-cluster and Dask LocalCluster (python/tests_engines)"
  local rc=0
  # From build/, so that "import bloomkit" finds the installed package.
  (cd "$ROOT/build" && "$ROOT/build/venv/bin/python" -m pytest -q -p no:cacheprovider -p no:logging \
    -c "$ROOT/python/pyproject.toml" --rootdir "$ROOT/python" "$ROOT/python/tests_engines") || rc=$?
  [ "$rc" -eq 5 ] && { echo "engines: pytest collected no tests" >&2; return 1; }
  return "$rc"
}
setup_engines() {
  # python/requirements/engines.txt (pinned: pyspark, dask) into build/venv, again only
  # when a requirements file changes.
  "$ROOT/python/venv.sh" setup || return 1
  local stamp="$ROOT/build/venv/.stamp-engines" sum
  sum="$(cat "$ROOT"/python/requirements/*.txt | sha256sum | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "installing python/requirements/engines.txt into build/venv"
    "$ROOT/build/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      -r "$ROOT/python/requirements/engines.txt" || return 1
    echo "$sum" >"$stamp"
  fi
}
test_jvm() {
  # The JVM library (jvm/, Maven, Java 17): built against the pinned pyspark's Spark jars,
  # its JUnit tests run against libxxhash's hashes and split-block files the CLI writes
  # fresh (jvm/tools/make_test_inputs.py), and the jar copied into the Python package
  # (python/bloomkit/jars/) so that the python and engines steps ship and use it. Maven
  # downloads its plugins and the pinned jars once into ~/.m2; later runs need no network.
  say "JVM library: Maven build and JUnit (jvm/), the jar into python/bloomkit/jars/"
  command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 || apt_install openjdk-17-jdk-headless maven
  setup_engines || return 1
  local jars inputs="$ROOT/build/jvm-test-inputs" reports="$ROOT/build/jvm-lib/surefire-reports"
  jars="$("$ROOT/build/venv/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')" || return 1
  [ -x build/release/bloomkit ] || { cmake --preset release >/dev/null && cmake --build build/release --target bloomkit_cli -j "$JOBS" >/dev/null; } || return 1
  rm -rf "$inputs" "$reports"
  "$ROOT/build/venv/bin/python" jvm/tools/make_test_inputs.py build/release/bloomkit "$inputs" 2>/dev/null || return 1
  (cd jvm && mvn -B -q package -Dpyspark.jars="$jars" -Dbloomkit.test.dir="$inputs") || return 1
  cat "$reports"/TEST-*.xml | sed -n 's/.*<testsuite [^>]*name="\([^"]*\)"[^>]*tests="\([0-9]*\)"[^>]*failures="\([0-9]*\)".*/\1: \2 tests, \3 failures/p' >&2
  mkdir -p python/bloomkit/jars && cp build/jvm-lib/bloomkit-jvm-0.1.0.jar python/bloomkit/jars/bloomkit-jvm.jar
}
test_web() {
  [ -f web/package.json ] || { say "FAILED: web/package.json is missing"; return 1; }
  wait_background_setup
  setup_web
  # The file view's tests (web/tests/fileview.test.mjs) make a file of every kind with the CLI.
  build_cli || return 1
  say "building the playground and testing it in headless Chromium"
  "$ROOT/web/build.sh" || return 1
  say "every public header compiles for WebAssembly (em++, libc++ 13, 32-bit size_t)"
  NODE_PATH=/usr/share/nodejs em++ -std=c++20 -fsyntax-only -fexceptions -Wall -Wextra -Wpedantic -Werror \
    -Iinclude -Ibuild/web/include tests/wasm/umbrella.cpp || return 1
  (cd web && node --test tests/)
}

test_interop() {
  # Spark's and Guava's filters and Parquet from other writers, against the real
  # libraries (docs/INTEROP.md, docs/PARQUET.md): fresh material from the pinned
  # spark-sketch 4.3.0 (pyspark's jar) and Guava 33.8.0 every run, both directions,
  # filters past 2^31 bits from both jars, then PySpark (df.stat.bloomFilter) and
  # Parquet from pyarrow, parquet-mr and arrow-rs (its committed files and its
  # reader's recorded answers; tests/fixtures/parquet_writers/generate.sh rebuilds
  # them with cargo). BLOOMKIT_INTEROP_FULL=1 adds what CI leaves out for time:
  # Spark's own df.stat.bloomFilter past 2^31 bits (about 5 min) and arrow-rs built
  # and run live (cargo).
  say "interop: Spark and Guava formats, Parquet from pyarrow, parquet-mr and arrow-rs"
  setup_interop || return 1
  local py="$ROOT/build/venv/bin/python" work="$ROOT/build/interop" jars cp started=$SECONDS big=""
  elapsed() { say "interop: $1 ($((SECONDS - started)) s)"; }
  jars="$("$py" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')" || return 1
  [ -f "$jars/spark-sketch_2.13-4.3.0.jar" ] || { say "pyspark has no spark-sketch jar in $jars"; return 1; }
  (cd tests/jvm && mvn -B -q package -Dpyspark.jars="$jars") || return 1
  cmake --build build/release --target bloomkit_cli jvm_formats_test cli_jvm_test parquet_writers_test -j "$JOBS" >/dev/null || return 1
  elapsed "harness and test binaries built"
  cp="$ROOT/build/jvm/bloomkit-jvm-interop-0.1.0.jar:$ROOT/build/jvm/lib/*"
  rm -rf "$work" && mkdir -p "$work/material" || return 1
  java -cp "$cp" bloomkit.interop.Harness golden >"$work/material/golden.txt" || return 1
  cmp -s "$work/material/golden.txt" tests/fixtures/jvm/golden.txt ||
    { say "the jars' golden hashes differ from tests/fixtures/jvm/golden.txt"; return 1; }
  java -cp "$cp" bloomkit.interop.Harness make "$work/material" --big >/dev/null || return 1
  elapsed "jar material made (3 filters past 2^31 bits among them)"
  BLOOMKIT_JVM_DIR="$work/material" BLOOMKIT_JVM_WRITE=1 build/release/jvm_formats_test --gtest_brief=1 || return 1
  BLOOMKIT_JVM_DIR="$work/material" build/release/cli_jvm_test --gtest_brief=1 || return 1
  java -cp "$cp" bloomkit.interop.Harness check "$work/material" >"$work/check.log" || { cat "$work/check.log" >&2; return 1; }
  tail -1 "$work/check.log" >&2
  rm -f "$work"/material/big_*  # 1.6 GB of 2^31-bit filters
  elapsed "bloomkit against the jars, both directions"
  if [ "${BLOOMKIT_INTEROP_FULL:-0}" = 1 ]; then
    big=--big
    command -v cargo >/dev/null 2>&1 || { say "BLOOMKIT_INTEROP_FULL=1 needs cargo (arrow-rs)"; return 1; }
    cargo build --quiet --locked --manifest-path tests/interop/arrow_rs/Cargo.toml --target-dir build/arrow_rs || return 1
    export BLOOMKIT_ARROW_RS="$ROOT/build/arrow_rs/debug/bloomkit-arrow-rs-parquet"
    elapsed "arrow-rs generator built"
  fi
  "$py" tests/interop/spark_check.py build/release/bloomkit "$work/spark" $big --parquet 2>"$work/spark.log" ||
    { tail -30 "$work/spark.log" >&2; unset BLOOMKIT_ARROW_RS; return 1; }
  unset BLOOMKIT_ARROW_RS
  elapsed "PySpark filters and Parquet writers checked"
  BLOOMKIT_PARQUET_WRITERS_DIR="$work/spark/parquet" build/release/parquet_writers_test --gtest_brief=1 || return 1
  elapsed "done"
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

# The extension (postgres/, PGXS) built and installed into PostgreSQL's own
# folders: `make install` writes under /usr, so it needs root (CI runs as root).
install_postgres_extension() {
  setup_postgres
  local pg_config=/usr/lib/postgresql/15/bin/pg_config sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  say "building the PostgreSQL extension (postgres/, PGXS, $("$pg_config" --version))"
  make -C postgres -s -j "$JOBS" PG_CONFIG="$pg_config" >&2 || return 1
  $sudo make -C postgres -s install PG_CONFIG="$pg_config" >/dev/null || return 1
}

test_postgres() {
  # issue 40: a throwaway cluster in a temporary folder (Unix socket only,
  # owned by `nobody` when run as root: initdb refuses root), the extension
  # installed into it, pg_regress over postgres/sql (expected output in
  # postgres/expected), then pytest over postgres/tests (psycopg, pinned in
  # python/requirements/postgres.txt; the CLI and the Python package for the
  # byte-identity tests). The cluster is stopped and removed however the
  # tests end (trap).
  install_postgres_extension || return 1
  cmake --build build/release --target bloomkit_cli -j "$JOBS" >/dev/null || return 1
  "$ROOT/python/venv.sh" install || return 1
  local stamp="$ROOT/build/venv/.stamp-postgres" sum
  sum="$(sha256sum "$ROOT/python/requirements/postgres.txt" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
    say "installing python/requirements/postgres.txt into build/venv"
    "$ROOT/build/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      -r "$ROOT/python/requirements/postgres.txt" || return 1
    echo "$sum" >"$stamp"
  fi
  local dir rc=0
  dir="$(mktemp -d /tmp/bloomkit-pg.XXXXXX)"
  (
    trap '"$ROOT/postgres/cluster.sh" stop "$dir"' EXIT
    "$ROOT/postgres/cluster.sh" start "$dir" || exit 1
    export PGHOST="$dir" PGPORT=5432 PGUSER=postgres
    say "pg_regress: postgres/sql against postgres/expected"
    mkdir -p "$ROOT/build/postgres-regress"
    "$(/usr/lib/postgresql/15/bin/pg_config --pgxs | xargs dirname)/../test/regress/pg_regress" \
      --inputdir="$ROOT/postgres" --outputdir="$ROOT/build/postgres-regress" --dbname=bloomkit_regress \
      $(sed -n 's/^REGRESS = //p' "$ROOT/postgres/Makefile") ||
      { cat "$ROOT/build/postgres-regress/regression.diffs" >&2 2>/dev/null; exit 1; }
    say "pytest: postgres/tests (CLI and Python byte identity, parallel aggregates, faults, README)"
    BLOOMKIT_CLI="$ROOT/build/release/bloomkit" "$ROOT/build/venv/bin/python" -m pytest -q -p no:cacheprovider \
      "$ROOT/postgres/tests"
  ) || rc=$?
  [ "$rc" -eq 5 ] && { echo "postgres: pytest collected no tests" >&2; return 1; }
  return "$rc"
}

cmd_test() {
  setup_core
  start_background_setup
  step release test_release
  step bench-smoke test_bench_smoke
  step kinds-bench-smoke test_kinds_bench_smoke
  step parquet-duckdb test_parquet_duckdb
  step jvm test_jvm
  step python test_python
  step python-asan test_python_asan
  step engines test_engines
  step debug test_debug
  step tsan test_tsan
  step fuzz test_fuzz
  step web test_web
  step interop test_interop
  step postgres test_postgres
  echo
  if [ "$FAILED" -ne 0 ]; then
    echo "failed steps: ${FAILED_STEPS[*]}"
  fi
  echo "steps: $PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}

# Builds only the command-line tool (not every test and benchmark), with the
# build's own progress on screen. The binary is build/release/bloomkit.
build_cli() {
  say "building the bloomkit command-line tool (build/release/bloomkit)"
  cmake --preset release >/dev/null
  cmake --build build/release --target bloomkit_cli -j "$JOBS" >&2
}

cmd_demo() {
  setup_core
  build_cli
  say "running build/release/bloomkit demo $*"
  exec build/release/bloomkit demo "$@"
}

# ./bloomkit.sh install [PREFIX]: the CLI to PREFIX/bin and the headers and
# CMake package to PREFIX/include and PREFIX/lib (default ~/.local).
cmd_install() {
  local prefix="${1:-$HOME/.local}"
  setup_core
  build_cli
  say "installing to $prefix"
  cmake --install build/release --prefix "$prefix" >/dev/null
  # Completion scripts and the man page come from the installed binary's own
  # option tables (bloomkit completion / bloomkit man), so they match its --help.
  local bin="$prefix/bin/bloomkit" share="$prefix/share"
  mkdir -p "$share/bash-completion/completions" "$share/zsh/site-functions" \
    "$share/fish/vendor_completions.d" "$share/man/man1"
  "$bin" completion bash >"$share/bash-completion/completions/bloomkit"
  "$bin" completion zsh >"$share/zsh/site-functions/_bloomkit"
  "$bin" completion fish >"$share/fish/vendor_completions.d/bloomkit.fish"
  "$bin" man >"$share/man/man1/bloomkit.1"
  echo "installed $prefix/bin/bloomkit, its man page ($share/man/man1/bloomkit.1) and bash, zsh and fish completion"
  case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "add it to PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
  esac
}

cmd_install_postgres() {
  install_postgres_extension
  echo "installed: CREATE EXTENSION bloomkit; in any database of PostgreSQL 15 (docs/POSTGRES.md)"
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

# ---- the optional CUDA component (cuda/CMakeLists.txt) -----------------------------
# Never part of `test`: CI machines have no GPU. Needs nvcc (PATH, CUDACXX or
# /usr/local/cuda), a GPU, xxhash.h and GoogleTest (system or /usr/src/googletest;
# installed from Debian here when apt can). Optional environment:
# BLOOMKIT_CUDA_ARCH (default native), BLOOMKIT_CUCO_INCLUDE (cuCollections'
# include folder: gpu_bench then measures cuco::bloom_filter beside bloomkit),
# BLOOMKIT_GPU_TEST_GIB (the largest test filter, default 17). ARGS go to gpu_bench.
cmd_test_gpu() {
  local nvcc="${CUDACXX:-}"
  [ -n "$nvcc" ] || nvcc="$(command -v nvcc || true)"
  [ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
  [ -n "$nvcc" ] || die "test-gpu needs nvcc (the CUDA toolkit) and an NVIDIA GPU; none found"
  if { [ ! -f /usr/include/xxhash.h ] || [ ! -d /usr/src/googletest ]; } && command -v apt-get >/dev/null 2>&1; then
    apt_install libxxhash-dev libgtest-dev || say "could not install libxxhash-dev/libgtest-dev; trying without"
  fi
  local cuco=()
  [ -n "${BLOOMKIT_CUCO_INCLUDE:-}" ] && cuco=(-DBLOOMKIT_CUCO_INCLUDE="$BLOOMKIT_CUCO_INCLUDE")
  say "configuring build/cuda with $nvcc"
  cmake -S cuda -B build/cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES="${BLOOMKIT_CUDA_ARCH:-native}" "${cuco[@]}" >/dev/null
  cmake --build build/cuda -j "$JOBS"
  say "GPU tests (build/cuda/split_block_gpu_test)"
  build/cuda/split_block_gpu_test
  say "gpu_bench"
  build/cuda/gpu_bench "$@"
}

case "${1:-}" in
  demo) shift; cmd_demo "$@" ;;
  install) shift; cmd_install "$@" ;;
  install-postgres) shift; cmd_install_postgres ;;
  test) shift; cmd_test "$@" ;;
  test-gpu) shift; cmd_test_gpu "$@" ;;
  setup) shift; setup_core; setup_fuzz; setup_web; setup_interop ;;
  build) shift; setup_core; build_preset "${1:-release}" ;;
  bench) shift; cmd_bench "$@" ;;
  serve) shift; cmd_serve "$@" ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
esac
