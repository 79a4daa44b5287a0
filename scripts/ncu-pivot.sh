#!/usr/bin/env bash
# Profile one class kernel of a plan with Nsight Compute on the device
# machine (clocks left alone). Run from the repository root with .gpu carried.
#   SPEC=examples/pivot.yaml KERNEL='_c2$' SCALE=20 scripts/ncu-pivot.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
S=${SCALE:-20}
"$G/bin/tcgen" -q generate rmat --scale "$S" -o /tmp/rmat$S.tcsr
ncu --clock-control none --kernel-name "regex:${KERNEL:-_c2\$}" --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis \
  "$G/bin/tcgen" -q --cache-dir /tmp/tcgen-cache count /tmp/rmat$S.tcsr --backend gpu --spec "${SPEC:-examples/pivot.yaml}" \
  --repeat 1 > "$OUT/ncu.txt" 2>&1
echo "ncu rc=$?"
