#!/usr/bin/env bash
# bench/jvm_compare.sh - bloomkit against the JVM's own mightContain on the same Spark and Guava
# filters (BENCHMARKS.md, "Spark and Guava formats"). Both sides build the same filters from the
# same SplitMix64 keys (n = BITS / 10) and time single-key lookups, present and absent apart.
#   bench/jvm_compare.sh [BITS...]        (default: 1000000 100000000)
# Needs build/release/bloomkit_jvm_bench and the tests/jvm harness (the interop step builds both).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CP="build/jvm/bloomkit-jvm-interop-0.1.0.jar:build/jvm/lib/*"
[ $# -gt 0 ] || set -- 1000000 100000000
lscpu | grep -E "Model name" | sed 's/  */ /g'
for bits in "$@"; do
  java -Xmx4g -cp "$CP" bloomkit.interop.Harness bench "$bits" $((bits / 10))
  build/release/bloomkit_jvm_bench "$bits"
done
