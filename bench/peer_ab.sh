#!/usr/bin/env bash
# bench/peer_ab.sh - ../shared/peer-bench with a "before" build of bloomkit in the
# same process, so a change is measured against its base in ONE run (the
# machine is shared and noisy; figures are compared only within one run).
#
#   PEERS=DIR bench/peer_ab.sh [BASE_COMMIT]     # from the project root; BASE defaults to main
#   build/peer-ab/peer_bench_ab --sizes 1e6 --low-fpr-size 1e6 --skip-static --rounds 5
#   PEER_SKIP='bloomkit ,libbloom' build/peer-ab/peer_bench_ab ...   # drop contestants
#
# PEER_SKIP (run time) is a comma-separated list of name prefixes whose
# contestants are dropped before the rounds (a 10^8 run of every contestant
# takes about 6 CPU-minutes a round; "bloomkit " drops only the -march=native
# build, whose name is "bloomkit" followed by a space). A prefix cannot hold a
# comma: "Boost block<u64,5>" is read as "Boost block<u64" and "5>", and the
# first drops block<u64[8],7> too.
#
# It builds peer-bench's harness.cpp (the peers and bloomkit at -march=native)
# and bloomkit_v2.cpp (this tree at the release flags, -march=x86-64-v2) as
# ../shared/peer-bench/build.sh does, plus a third translation unit: BASE's
# include/ (exported with git archive into the build folder) at the release
# flags, with `bloomkit` #defined to `bloomkit_before` so that the two copies
# of the header-only library are distinct symbols. Its rows are labelled
# "bloomkit-before[v2+dispatch]". The harness is patched in the build folder
# only (one declaration and two calls); the peers' sources stay in PEERS,
# outside the tree (see ../shared/peer-bench/build.sh for the layout).
set -euo pipefail
ROOT=$(pwd)
SH=${PEER_BENCH:-$ROOT/../shared/peer-bench}
PEERS=${PEERS:?set PEERS to the folder holding the peers sources (../shared/peer-bench/build.sh)}
BASE=${1:-main}
OUT=${BUILD:-$ROOT/build/peer-ab}
CXX=${CXX:-g++}
[ -f "$SH/harness.cpp" ] || { echo "peer_ab: no $SH/harness.cpp" >&2; exit 1; }
rm -rf "$OUT/base" "$OUT/new" && mkdir -p "$OUT/base" "$OUT/new"
git -C "$ROOT" archive "$BASE" include | tar -x -C "$OUT/base"
git -C "$ROOT" rev-parse --short "$BASE" > "$OUT/base/COMMIT"
cat > "$OUT/bloomkit_before.cpp" <<'SRC'
#include "common.hpp"
#define bloomkit bloomkit_before
#include "bloomkit/bloomkit.hpp"
#define BK_NS bk_before
#include "bk_contestants.hpp"
SRC
DECL='namespace pb { namespace bk_before { void add_dynamic(std::vector<contestant>\&, const workload\&, double, const std::string\&, bool, const std::string\&); void add_static(std::vector<static_contestant>\&, const workload\&, const std::string\&); } }'
sed -e 's|^\(  if (o.v2) bk_v2::add_dynamic(all, w, fpr, "bloomkit\[v2+dispatch\]", true, only);\)$|\1\n  if (o.v2) bk_before::add_dynamic(all, w, fpr, "bloomkit-before[v2+dispatch]", true, only);|' \
    -e 's|^\(  if (o.v2) bk_v2::add_static(all, w, "bloomkit\[v2+dispatch\]");\)$|\1\n  if (o.v2) bk_before::add_static(all, w, "bloomkit-before[v2+dispatch]");|' \
    -e "0,/^namespace pb {\$/s||$DECL\nnamespace pb {|" \
    -e 's|^\(  add_memlimit(all, w, sbbf_bytes);\)$|\1\n  if (const char* skip = std::getenv("PEER_SKIP")) std::erase_if(all, [\&](const contestant\& c) { for (std::string s = std::string(",") + skip + ","; s.size() > 1; s.erase(0, s.find(",", 1))) { const std::string p = s.substr(1, s.find(",", 1) - 1); if (!p.empty() \&\& c.name.rfind(p, 0) == 0) return true; } return false; });|' \
    "$SH/harness.cpp" > "$OUT/new/harness_ab.cpp"
# This tree's contestants gain the bumped Ribbon (ribbon_layout::bumped) beside
# the standard one: a patched copy of bk_contestants.hpp in $OUT/new, found
# first by the two translation units there (harness_ab.cpp and a copy of
# bloomkit_v2.cpp); the "before" unit keeps the shared, unpatched one, so a
# BASE without the layout still builds.
sed -e 's|^\(  out.push_back({label + " ribbon r=8 (w=128)", \[&w\] {\)$|  out.push_back({label + " ribbon r=8 bumped (BuRR)", [\&w] {\n                   return static_round<bloomkit::ribbon>(w, [\&] {\n                     bloomkit::ribbon_options o;\n                     o.layout = bloomkit::ribbon_layout::bumped;\n                     return bloomkit::ribbon::from_keys(std::span<const std::uint64_t>(w.keys), o);\n                   });\n                 }, {}});\n\1|' \
    "$SH/bk_contestants.hpp" > "$OUT/new/bk_contestants.hpp"
[ "$(grep -c 'ribbon_layout::bumped' "$OUT/new/bk_contestants.hpp")" = 1 ] || { echo "peer_ab: bk_contestants.hpp changed shape (ribbon row); patch it by hand" >&2; exit 1; }
cp "$SH/bloomkit_v2.cpp" "$OUT/new/bloomkit_v2.cpp"
[ "$(grep -c bk_before "$OUT/new/harness_ab.cpp")" = 3 ] || { echo "peer_ab: harness.cpp changed shape; patch it by hand" >&2; exit 1; }
[ "$(grep -c PEER_SKIP "$OUT/new/harness_ab.cpp")" = 1 ] || { echo "peer_ab: harness.cpp changed shape (PEER_SKIP); patch it by hand" >&2; exit 1; }
BOOST_INC=""
for r in bloom core config container_hash mp11 assert throw_exception static_assert type_traits describe; do
  [ -d "$PEERS/boostorg+$r/include" ] || { echo "peer_ab: missing $PEERS/boostorg+$r" >&2; exit 1; }
  BOOST_INC="$BOOST_INC -I$PEERS/boostorg+$r/include"
done
FF="$PEERS/FastFilter+fastfilter_cpp"
COMMON="-std=c++20 -O3 -DNDEBUG -Wall -Wno-unused-function -Wno-sign-compare"
set -x
$CXX $COMMON -march=native -I"$SH" -I"$ROOT/include" $BOOST_INC -I"$FF/src" -I"$PEERS/FastFilter+xor_singleheader/include" \
  -c "$OUT/new/harness_ab.cpp" -o "$OUT/harness.o"
$CXX $COMMON -march=x86-64-v2 -I"$SH" -I"$ROOT/include" -c "$OUT/new/bloomkit_v2.cpp" -o "$OUT/v2.o"
$CXX $COMMON -march=x86-64-v2 -I"$SH" -I"$OUT/base/include" -c "$OUT/bloomkit_before.cpp" -o "$OUT/before.o"
$CXX "$OUT/harness.o" "$OUT/v2.o" "$OUT/before.o" -o "$OUT/peer_bench_ab" -lbloom
