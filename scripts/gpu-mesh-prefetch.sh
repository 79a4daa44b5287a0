#!/usr/bin/env bash
# The vertex merge's prefetch on the corpus's mesh-like graphs: the specs of
# docs/results/mesh-prefetch/specs beside the default, interleaved rounds
# (scripts/gpu-explore.sh), then Nsight Compute on grid2000's kernel with
# and without prefetch. Everything lands in $OUT/mesh-prefetch.tgz.
set -uo pipefail
tar xzf .gpu/bundle.tgz -C .gpu
D=docs/results/mesh-prefetch
W=$(mktemp -d)
S=$(ls $D/specs/*.yaml | tr '\n' ' ')
CORPUS=$D/graphs.tsv SPECS="$S" ROUNDS=${ROUNDS:-2} DEADLINE=${DEADLINE:-420} OUT=$W bash scripts/gpu-explore.sh 2>&1 | tee $W/explore.log
if command -v ncu >/dev/null && [ -f .gpu/explore/grid2000.tcsr ]; then
  for s in mesh_pf0 mesh_pf2; do
    timeout 120 ncu --kernel-name regex:'_c0$' --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      .gpu/bin/tcgen -q --no-store count .gpu/explore/grid2000.tcsr --backend gpu --repeat 3 --warmup 1 --spec $D/specs/$s.yaml > $W/ncu-$s.txt 2>&1
  done
fi
tar czf $OUT/mesh-prefetch.tgz -C $W .
