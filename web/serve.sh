#!/usr/bin/env bash
# web/serve.sh - serve the playground on 127.0.0.1 and print its URL.
#
#   web/serve.sh [--port N]        (default 8080; ./bloomkit.sh serve builds first)
#
# Uses web/server.mjs (node, already needed by emscripten): it sends
# application/wasm for .wasm and text/javascript for .mjs. Any other static
# file server works too, as long as it serves this folder over HTTP (module
# scripts do not load from file://).
set -euo pipefail
WEB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v node >/dev/null || { echo "web/serve.sh: node not found (./bloomkit.sh setup installs nodejs)" >&2; exit 1; }
[ -f "$WEB/dist/playground.mjs" ] || { echo "web/serve.sh: web/dist/ is empty; run web/build.sh first" >&2; exit 1; }
exec node "$WEB/server.mjs" --root "$WEB" "$@"
