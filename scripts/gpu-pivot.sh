#!/usr/bin/env bash
# Pivot specs on the RMAT graphs (and DATASETS, names of files in
# .gpu/datasets), each count checked against the graph's known triangle
# count (RMAT) or the CPU oracle (--check), the pass split into class kernels
# and the five preparation kernels. BINS lists label:binary pairs, so an
# earlier build (make bundle BASE=...) runs beside the new one in the same
# call. MODES="split pass" runs each count also with --pass-only (no events
# between the pass's kernels; the breakdown is then not measured). Run on the GPU machine from the repository root with the bundle
# unpacked in .gpu (scripts/gpu-session.sh does that). A binary labelled L
# reads a spec from .gpu/specs-L/ when one is there (make bundle BASE=... puts
# the base commit's examples in .gpu/specs-base/), so a spec whose format
# changed is read by each binary in its own form.
#   SPECS="examples/pivot.yaml examples/pivot-one.yaml" SCALES="18 20 22 24" bash scripts/gpu-pivot.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
BINS=${BINS:-new:$G/bin/tcgen}
# Triangles of the Graph500 RMAT graphs (a=.57, b=.19, c=.19, edge factor 16,
# seed 42), from the CPU oracle (docs/results).
declare -A want=([18]=83075942 [20]=424785436 [22]=2112253002 [24]=10282078419)
rm -f /tmp/pivot.fail  # the loops run in pipelines (subshells): failures are noted in a file
report() { # label graph spec
  python3 -c 'import json,sys; r=json.load(open("/tmp/pivot.json")); g=r["gpu"]; m=g["gpu_ms"]; print("%-4s %-16s %-26s gpu pass %.4f ms (min %.4f, max %.4f, %d runs) = kernels %.4f + prep %.4f %s; triangles %d (%s)" % (sys.argv[1], sys.argv[2], sys.argv[3], m["median_ms"], m["min_ms"], m["max_ms"], g["runs"], g["kernel_ms"]["median_ms"], g.get("prep_ms",{}).get("median_ms",0), {k: round(v["median_ms"],4) for k,v in (g.get("prep_kernels_ms") or {}).items()}, r["triangles"], r.get("checked","unchecked")))' "$@"
}
run() { # label binary graph-file graph-name spec extra-args...
  local label=$1 bin=$2 f=$3 name=$4 spec=$5; shift 5
  "$bin" -q --no-store --cache-dir /tmp/tcgen-cache count "$f" --backend gpu --spec "$spec" \
    --repeat "${REPEAT:-20}" --warmup 3 --json "$@" > /tmp/pivot.json 2>/tmp/pivot.err
  local rc=$?
  [ $rc -ne 0 ] && { echo fail >> /tmp/pivot.fail; echo "$label $name $spec: rc=$rc $(tail -c 300 /tmp/pivot.err)"; return; }
  report "$label" "$name" "$spec"
}
spec_for() { # label spec
  if [ -f "$G/specs-$1/$2" ]; then echo "$G/specs-$1/$2"; else echo "$2"; fi
}
for s in ${SCALES:-18 20 22 24}; do
  f=/tmp/tcgen-cache/graphs/sweep-rmat$s.tcsr
  mkdir -p "$(dirname "$f")"
  [ -f "$f" ] || "$G/bin/tcgen" -q graph rmat --scale "$s" -o "$f"
  for spec in ${SPECS:-examples/pivot.yaml examples/pivot-one.yaml}; do
    for lb in $BINS; do
      for mode in ${MODES:-split}; do
        po=""; [ "$mode" = pass ] && po=--pass-only
        run "${lb%%:*}${MODES:+-$mode}" "${lb#*:}" "$f" "rmat$s" "$(spec_for "${lb%%:*}" "$spec")" ${want[$s]:+--expect ${want[$s]}} $po
      done
    done
  done
done 2>&1 | tee "$OUT/pivot.txt"
for d in ${DATASETS:-}; do
  for spec in ${DSPECS:-${SPECS:-examples/pivot-one.yaml}}; do
    for lb in $BINS; do
      for mode in ${MODES:-split}; do
        po=""; [ "$mode" = pass ] && po=--pass-only
        run "${lb%%:*}${MODES:+-$mode}" "${lb#*:}" "$G/datasets/$d" "${d%%.*}" "$(spec_for "${lb%%:*}" "$spec")" --check $po
      done
    done
  done
done 2>&1 | tee -a "$OUT/pivot.txt"
[ ! -s /tmp/pivot.fail ]
