#!/usr/bin/env bash
# web/build.sh - build the playground: bloomkit compiled to WebAssembly for
# the page, and the native program the browser tests compare it with.
#
#   web/dist/playground.mjs, web/dist/playground.wasm
#       web/bindings.cpp (+ web/playground.hpp, views.hpp, file_view.hpp +
#       include/bloomkit/) through
#       Debian's emscripten (em++ 3.1.6, embind, ES6 module): the CMake preset
#       `wasm` (target playground, build/wasm), copied here
#   build/web/expected, build/web/expected_views
#       web/expected.cpp and web/expected_views.cpp (the cuckoo and window
#       views) with g++ against the same headers
#
# Why emscripten and not clang's wasm32-wasi target: it is one Debian package
# (`apt-get install emscripten`) that brings clang, lld and binaryen with it,
# supports C++ exceptions (bloomkit reports bad parameters by throwing
# bloomkit::error) and embind, so the bindings stay a thin, typed file with no
# hand-written loader. Its libc++ is version 13: code compiled here must avoid
# std::bit_cast, std::ranges algorithms and std::format.
#
# Rebuilds only what is older than its inputs; BLOOMKIT_WEB_REBUILD=1 forces.
# Needs: emscripten, g++, libxxhash-dev (./bloomkit.sh setup installs them).
set -euo pipefail

WEB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$WEB/.." && pwd)"
OUT_NATIVE="$ROOT/build/web"
DIST="$WEB/dist"
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'web/build.sh: %s\n' "$*" >&2; exit 1; }

command -v em++ >/dev/null || die "em++ not found: install Debian's emscripten (./bloomkit.sh setup)"
command -v g++ >/dev/null || die "g++ not found (./bloomkit.sh setup)"
[ -f /usr/include/xxhash.h ] || die "/usr/include/xxhash.h not found: install libxxhash-dev"

# em++ at -O2 and above runs node tools that need Debian's acorn (TOOLCHAIN.md).
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

mkdir -p "$OUT_NATIVE/include" "$DIST"
# xxhash.h is the only header bloomkit takes from /usr/include. Adding
# -I/usr/include to em++ would pull glibc's headers into a wasm build, so copy
# that one header into a folder of its own.
cp -p /usr/include/xxhash.h "$OUT_NATIVE/include/xxhash.h"

# True when $1 is missing or older than any of the inputs that follow.
stale() {
  local target="$1"; shift
  [ "${BLOOMKIT_WEB_REBUILD:-0}" = 1 ] && return 0
  [ -f "$target" ] || return 0
  local input
  for input in "$@"; do
    [ "$input" -nt "$target" ] && return 0
  done
  return 1
}

HEADERS=("$ROOT"/include/bloomkit/*.hpp "$ROOT"/include/bloomkit/detail/*.hpp "$ROOT"/include/bloomkit/format/*.hpp "$ROOT"/include/bloomkit/parquet/*.hpp)
WARNINGS=(-Wall -Wextra -Wpedantic -Werror)

if stale "$DIST/playground.mjs" "$WEB/bindings.cpp" "$WEB/playground.hpp" "$WEB/views.hpp" "$WEB/file_view.hpp" "$WEB/build.sh" "${HEADERS[@]}"; then
  say "compiling bloomkit to WebAssembly (the CMake preset wasm, em++ $(em++ --version | sed -n '1s/.* \([0-9][0-9.]*\) .*/\1/p'))"
  # One build line: the wasm preset (CMakePresets.json, target playground).
  (cd "$ROOT" && cmake --preset wasm >/dev/null && cmake --build --preset wasm)
  # Copy under temporary names and rename, so an interrupted build never
  # leaves a .mjs that loads a stale or half-written .wasm.
  cp -f "$ROOT/build/wasm/playground.wasm" "$DIST/.playground.wasm.tmp"
  cp -f "$ROOT/build/wasm/playground.mjs" "$DIST/.playground.mjs.tmp"
  mv -f "$DIST/.playground.wasm.tmp" "$DIST/playground.wasm"
  mv -f "$DIST/.playground.mjs.tmp" "$DIST/playground.mjs"
fi

if stale "$OUT_NATIVE/expected" "$WEB/expected.cpp" "$WEB/build.sh" "${HEADERS[@]}"; then
  say "compiling the native reference (build/web/expected)"
  g++ -std=c++20 -O2 "${WARNINGS[@]}" -I"$ROOT/include" "$WEB/expected.cpp" -o "$OUT_NATIVE/expected.tmp"
  mv -f "$OUT_NATIVE/expected.tmp" "$OUT_NATIVE/expected"
fi

if stale "$OUT_NATIVE/expected_views" "$WEB/expected_views.cpp" "$WEB/build.sh" "${HEADERS[@]}"; then
  say "compiling the native reference of the cuckoo and window views (build/web/expected_views)"
  g++ -std=c++20 -O2 "${WARNINGS[@]}" -I"$ROOT/include" "$WEB/expected_views.cpp" -o "$OUT_NATIVE/expected_views.tmp"
  mv -f "$OUT_NATIVE/expected_views.tmp" "$OUT_NATIVE/expected_views"
fi
