#!/usr/bin/env bash
# Where one class kernel spends its instructions and stalls, per SASS
# instruction: Nsight Compute's source counters (clocks left alone), printed
# as CSV with the SASS beside each count. Run on the GPU machine from the
# repository root with .gpu carried; TAG names the output.
#   SPEC=examples/pivot-one.yaml KERNEL='_c0$' SCALE=18 bash scripts/ncu-source.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*; do [ -x "$d/ncu" ] && PATH=$PATH:$d && break; done
S=${SCALE:-18}
GRAPH=${GRAPH:-/tmp/rmat$S.tcsr}
[ -f "$GRAPH" ] || "$G/bin/tcgen" -q graph rmat --scale "$S" -o "$GRAPH"
rep=/tmp/ncu-source${TAG:-}
ncu --clock-control none --cache-control none --kernel-name "regex:${KERNEL:-_c0\$}" --launch-skip "${SKIP:-4}" --launch-count 1 \
  --section SourceCounters --section WarpStateStats --import-source no -f -o "$rep" \
  "$G/bin/tcgen" -q --cache-dir /tmp/tcgen-cache count "$GRAPH" --backend gpu --spec "${SPEC:-examples/pivot-one.yaml}" \
  --warmup 3 --repeat 1 > "$OUT/ncu-source${TAG:-}.log" 2>&1
rc=$?
ncu --import "$rep.ncu-rep" --page source --print-source sass --csv > "$OUT/ncu-source${TAG:-}.csv" 2>>"$OUT/ncu-source${TAG:-}.log" || rc=$?
echo "ncu-source rc=$rc"
exit $rc
