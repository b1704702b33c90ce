#!/usr/bin/env bash
# python/venv.sh - the Python package's environment, build and tests.
#
#   python/venv.sh setup    make build/venv (once) and install python/requirements/test.txt into it
#                           (again only when a requirements file changed)
#   python/venv.sh install  setup, then build the extension and install the package (incremental:
#                           scikit-build-core keeps python/build/)
#   python/venv.sh test [PYTEST ARGS]   install, then run pytest over python/tests (fails when no
#                           test ran, pytest exit 5, as well as on failures), then `wheel`.
#   python/venv.sh wheel    build a wheel (build/wheel/) and install it into a fresh venv that has only
#                           numpy (build/venv-wheel), then use it there: the package needs nothing else
#   python/venv.sh asan [PYTEST ARGS]   the extension built with AddressSanitizer + UBSan
#                           (build/pyext-asan) and pytest run over it (libasan preloaded into python)
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

# The extension's compiles go through ccache when it is there, as
# bloomkit.sh's builds do (the same settings: objects shared by clones in
# other folders); CMake reads CMAKE_CXX_COMPILER_LAUNCHER from the
# environment when it configures a new build folder.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
fi
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

need_cli_and_shim() {
  # The cross-language tests compare with the CLI's files; the fault loop
  # (tests/test_faults.py) preloads the fault shim.
  local build=()
  if [ -z "${BLOOMKIT_CLI:-}" ]; then
    [ -x "$ROOT/build/release/bloomkit" ] || build+=(bloomkit_cli)
    export BLOOMKIT_CLI="$ROOT/build/release/bloomkit"
  fi
  if [ -z "${BLOOMKIT_FAULT_SHIM:-}" ]; then
    [ -f "$ROOT/build/release/libbloomkit_fault_shim.so" ] || build+=(bloomkit_fault_shim)
    export BLOOMKIT_FAULT_SHIM="$ROOT/build/release/libbloomkit_fault_shim.so"
  fi
  if [ "${#build[@]}" -gt 0 ]; then
    say "building ${build[*]} (build/release) for the cross-language and fault tests"
    (cd "$ROOT" && cmake --preset release >/dev/null && cmake --build build/release --target "${build[@]}")
  fi
}

cmd_test() {
  cmd_install
  need_cli_and_shim
  say "pytest python/tests"
  local rc=0
  # From build/, so that "import bloomkit" finds the installed package, not python/bloomkit.
  (cd "$ROOT/build" && "$PY" -m pytest -q -p no:cacheprovider -c "$ROOT/python/pyproject.toml" \
    --rootdir "$ROOT/python" "$@" "$ROOT/python/tests") || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "python/venv.sh: pytest collected no tests" >&2
    return 1
  fi
  [ "$rc" -eq 0 ] || return "$rc"
  cmd_wheel
}

cmd_wheel() {
  cmd_setup
  say "building a wheel into build/wheel"
  rm -rf "$ROOT/build/wheel"
  "$PY" -m pip wheel --quiet --disable-pip-version-check --no-build-isolation --no-deps \
    -w "$ROOT/build/wheel" "$ROOT/python"
  local wheel
  wheel="$(ls "$ROOT"/build/wheel/bloomkit-*.whl)"
  say "installing $(basename "$wheel") into a fresh venv with only numpy"
  local fresh="$ROOT/build/venv-wheel"
  rm -rf "$fresh"
  "${BLOOMKIT_PYTHON:-python3}" -m venv "$fresh"
  "$fresh/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r <(grep '^numpy' "$REQ/build.txt")
  "$fresh/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps "$wheel"
  (cd "$fresh" && "$fresh/bin/python" - <<'PY'
import importlib.metadata as md, numpy as np, bloomkit
installed = sorted(d.metadata["Name"].lower() for d in md.distributions())
extra = [n for n in installed if n not in ("bloomkit", "numpy", "pip", "setuptools", "wheel")]
assert not extra, f"the fresh venv should hold only numpy and bloomkit, found {extra}"
try:
    import pyarrow  # noqa: F401
    raise SystemExit("pyarrow should not be installed here")
except ImportError:
    pass
f = bloomkit.SplitBlockBloom(1000, 0.01)
f.add_many(np.arange(1000))
assert f.may_contain_many(np.arange(1000, dtype=np.int32)).all() and f.key_type == "int64"
assert not f.may_contain_many(np.arange(10**6, 10**6 + 100)).all()
g = bloomkit.from_bytes(f.to_bytes())
assert g.to_bytes() == f.to_bytes()
print("wheel OK:", bloomkit.__file__, f)
PY
  )
}

cmd_asan() {
  cmd_setup
  need_cli_and_shim
  local dir="$ROOT/build/pyext-asan"
  say "building the extension with ASan + UBSan in build/pyext-asan"
  # The debug preset's flags: -O0 -g1 compiles in about a third of the time
  # of -O1 -g and optimizes no check away; line tables are all a report
  # needs. -Werror stays off as there: GCC 12 with sanitizers reports false
  # maybe-uninitialized warnings.
  # BLOOMKIT_PYTHON_THROWING_NEW: ASan's operator new aborts on a failed
  # allocation even with allocator_may_return_null=1 instead of throwing
  # std::bad_alloc (python/sanitizer/throwing_new.cpp); this one throws, so
  # test_huge_sizes_fail_cleanly's MemoryError path runs under ASan too.
  cmake -S "$ROOT/python" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DPython_EXECUTABLE="$PY" \
    -DBLOOMKIT_PYTHON_THROWING_NEW=ON \
    -DCMAKE_CXX_FLAGS="-O0 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
  cmake --build "$dir" -j "${BLOOMKIT_JOBS:-2}"
  rm -rf "$dir/pkg" && mkdir -p "$dir/pkg"
  cp -r "$ROOT/python/bloomkit" "$dir/pkg/"
  rm -f "$dir"/pkg/bloomkit/_bloomkit*.so
  cp "$dir"/_bloomkit*.so "$dir/pkg/bloomkit/"
  # python is not instrumented, so the sanitizer runtimes are preloaded (ASan
  # must come first in the process). PYTHONMALLOC=malloc sends every Python
  # object to ASan's allocator too, so an overflow or a use after free of a
  # Python object (a missing reference) is caught, not hidden in pymalloc's
  # arenas. Leak detection is off: CPython frees little at exit by design,
  # and every allocation's stack runs through the interpreter, so LSan
  # suppressions cannot tell its exit-time leaks from ours;
  # tests/test_leaks.py checks the extension's own allocations instead.
  # allocator_may_return_null: the out-of-memory tests expect MemoryError
  # from an impossible allocation, not an ASan abort (malloc and the nothrow
  # operator new then return null; the throwing operator new is the build's
  # own, above).
  local preload
  preload="$(g++ -print-file-name=libasan.so):$(g++ -print-file-name=libubsan.so)"
  asan_env() {
    (cd "$ROOT/build" && LD_PRELOAD="$preload" PYTHONMALLOC=malloc \
      ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=1:detect_stack_use_after_return=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PYTHONPATH="$dir/pkg" BLOOMKIT_ASAN_RUN=1 "$@")
  }
  # The run must use the instrumented extension, not the installed one.
  local where
  where="$(asan_env "$PY" -c 'import bloomkit._bloomkit as e; print(e.__file__)')"
  case "$where" in
    "$dir/pkg/"*) ;;
    *) echo "python/venv.sh asan: imported $where, not the ASan build in $dir/pkg" >&2; return 1 ;;
  esac
  say "pytest under ASan + UBSan (${*:-all tests})"
  local out="$dir/pytest.log" rc=0
  asan_env "$PY" -m pytest -q -p no:cacheprovider -c "$ROOT/python/pyproject.toml" --rootdir "$ROOT/python" \
    "$@" "$ROOT/python/tests" 2>&1 | tee "$out" || rc=$?
  if grep -q "ERROR: AddressSanitizer\|runtime error:\|nanobind: leaked" "$out"; then
    echo "python/venv.sh asan: a sanitizer or nanobind's leak check reported (see $out)" >&2
    return 1
  fi
  if [ "$rc" -eq 5 ]; then
    echo "python/venv.sh asan: pytest collected no tests" >&2
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
  wheel) cmd_wheel ;;
  asan) shift; cmd_asan "$@" ;;
  bench) shift; cmd_bench "$@" ;;
  *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
esac
