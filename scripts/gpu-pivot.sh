#!/usr/bin/env bash
# Issue 5: pivot specs on the RMAT graphs, each count checked against the
# graph's known triangle count, the pass split into class kernels and the
# five preparation kernels. Run on the device machine from the repository
# root with the bundle unpacked in .gpu (scripts/gpu-session.sh does that).
#   SPECS="examples/pivot.yaml examples/pivot-one.yaml" SCALES="18 20 22 24" bash scripts/gpu-pivot.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
# Triangles of the Graph500 RMAT graphs (a=.57, b=.19, c=.19, edge factor 16,
# seed 42), from the CPU oracle (docs/results).
declare -A want=([18]=83075942 [20]=424785436 [22]=2112253002 [24]=10282078419)
status=0
for s in ${SCALES:-18 20 22 24}; do
  f=/tmp/tcgen-cache/graphs/sweep-rmat$s.tcsr
  mkdir -p "$(dirname "$f")"
  [ -f "$f" ] || "$G/bin/tcgen" -q generate rmat --scale "$s" -o "$f"
  for spec in ${SPECS:-examples/pivot.yaml examples/pivot-one.yaml}; do
    "$G/bin/tcgen" -q --no-store --cache-dir /tmp/tcgen-cache count "$f" --backend gpu --spec "$spec" \
      --repeat "${REPEAT:-20}" --warmup 3 --json ${want[$s]:+--expect ${want[$s]}} > /tmp/pivot.json 2>/tmp/pivot.err
    rc=$?
    [ $rc -ne 0 ] && { status=1; echo "rmat$s $spec: rc=$rc $(tail -c 300 /tmp/pivot.err)"; continue; }
    python3 -c 'import json,sys; r=json.load(open("/tmp/pivot.json")); g=r["gpu"]; m=g["gpu_ms"]; print("rmat%s %-26s gpu pass %.4f ms (min %.4f, max %.4f, %d runs) = kernels %.4f + prep %.4f %s; triangles %d (%s)" % (sys.argv[1], sys.argv[2], m["median_ms"], m["min_ms"], m["max_ms"], g["runs"], g["kernel_ms"]["median_ms"], g.get("prep_ms",{}).get("median_ms",0), {k: round(v["median_ms"],4) for k,v in (g.get("prep_kernels_ms") or {}).items()}, r["triangles"], r.get("checked","unchecked")))' "$s" "$spec"
  done
done 2>&1 | tee "$OUT/pivot.txt"
exit $status
