#!/usr/bin/env bash
# End to end on RMAT-SCALE (default 24): the degree-oriented,
# relabelled CSR file counted cold and warm by each binary of BINS
# (label:path pairs; make bundle BASE=<commit> adds .gpu/bin/tcgen-base), so
# a change to reading or uploading is measured beside what it replaces in
# one run. The file has 4-byte entries (convert --pack no, what any tcgen
# reads) unless the pair ends in :packed (3 bytes an entry, convert --pack
# yes). Run from the repository root with the bundle unpacked in .gpu
# (scripts/gpu-session.sh does that: E2E_AB=1).
#   BINS="base:.gpu/bin/tcgen-base new:.gpu/bin/tcgen newp:.gpu/bin/tcgen:packed" SCALE=24 bash scripts/gpu-e2e.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
S=${SCALE:-24}
BINS=${BINS:-new:$G/bin/tcgen}
declare -A want=([18]=83075942 [20]=424785436 [22]=2112253002 [24]=10282078419)
f=/tmp/tcgen-cache/graphs/sweep-rmat$S.tcsr
mkdir -p "$(dirname "$f")"
[ -f "$f" ] || "$G/bin/tcgen" -q graph rmat --scale "$S" -o "$f"
o=/tmp/rmat$S-degree.tcsr
op=/tmp/rmat$S-degree-packed.tcsr
[ -f "$o" ] || "$G/bin/tcgen" -q convert "$f" -o "$o" --orient degree --relabel --pack no
[ -f "$op" ] || "$G/bin/tcgen" -q convert "$f" -o "$op" --orient degree --relabel --pack yes
ls -l "$o" "$op"
status=0
# UPLOAD_PATHS=1: the ways the file can reach the GPU, measured apart
# (runtime/cuda TestGPUUploadPaths), with what the machine is.
if [ -n "${UPLOAD_PATHS:-}" ]; then
  { uname -r; nproc; free -g; nvidia-smi -q | grep -iE 'confidential|cc mode|link (gen|width)|current *: *(gen|[0-9]+x)' | head -20
    TCGEN_UPLOAD_FILE=$o "$G/tests/runtime_cuda.test" -test.run TestGPUUploadPaths -test.v -test.count=1 || status=1
  } 2>&1 | tee -a "$OUT/upload-paths.txt"
fi
for lb in $BINS; do
  bin=${lb#*:} file=$o
  if [[ $bin == *:packed ]]; then bin=${bin%:packed} file=$op; fi
  echo "== ${lb%%:*} ($file, ${E2E_SPEC:-examples/pivot.yaml})"
  EXPECT=${want[$S]:-} python3 scripts/e2e.py "$bin" "$file" "${E2E_SPEC:-examples/pivot.yaml}" || status=1
done 2>&1 | tee -a "$OUT/e2e.txt"
exit $status
