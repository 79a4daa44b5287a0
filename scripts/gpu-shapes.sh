#!/usr/bin/env bash
# Designs by graph shape on the GPU machine: the shapes sweep (grids,
# uniform random, skewed RMAT, real graphs; examples/sweeps/shapes.yaml)
# and, on the same card, the published codes on the grid and the uniform
# random graph. Builds the peers in the background when .peers/ is carried
# (../shared/peerbench/README.md) and returns their binaries.
#   DEADLINE=560 bash scripts/gpu-shapes.sh
set -uo pipefail
start=$(date +%s)
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT" /tmp/shapes
OUT=$(cd "$OUT" && pwd)
T=.gpu/bin/tcgen
if [ -d .peers ]; then
  (bash .peers/build.sh --tar "$OUT/peers-bin.tgz" > /tmp/peers-build.log 2>&1; echo "build rc=$?" >> /tmp/peers-build.log) &
fi
$T -q graph rmat --scale 20 --edge-factor 48 --a 0.45 --b 0.22 --c 0.22 -o /tmp/shapes/rmat20-ef48-skew45.tcsr
# The peers read text edge lists.
PEER_GRAPHS=""
if [ -d .peers ]; then
  ( $T -q graph grid --rows 3000 --cols 3000 --diagonals -o /tmp/shapes/grid3000d.txt
    $T -q graph er --vertices 2000000 --edges 32000000 -o /tmp/shapes/er2m32m.txt ) &
  PEER_GRAPHS="/tmp/shapes/grid3000d.txt /tmp/shapes/er2m32m.txt"
fi
SWEEPS=${SWEEPS:-examples/sweeps/shapes.yaml} BUDGET=${SWEEP_BUDGET:-330} bash scripts/gpu-sweep.sh
wait
tail -3 /tmp/peers-build.log 2>/dev/null
if [ -n "$PEER_GRAPHS" ]; then
  left=$(( ${DEADLINE:-560} - ($(date +%s) - start) - 20 ))
  python3 .peers/peers.py --graphs $PEER_GRAPHS --only "${PEERS:-WeTriC,GroupTC,GroupTC-BS,GroupTC-HS,TRUST,Polak}" \
    --expect grid3000d=17988002 --out "$OUT/peers.tsv" --deadline "$left" --timeout 120 > "$OUT/peers.log" 2>&1
  tail -5 "$OUT/peers.log"
fi
cp /tmp/peers-build.log "$OUT/" 2>/dev/null
echo "took $(( $(date +%s) - start )) s"
# Everything but the peers' binaries comes back in one archive.
(cd "$OUT" && tar czf /tmp/results.tgz --exclude peers-bin.tgz . && find . -type f ! -name peers-bin.tgz -delete && mv /tmp/results.tgz .)
