#!/usr/bin/env bash
# One run on the GPU machine: the GPU check (tests, fuzzed plans), then sweeps until
# DEADLINE seconds after the start, so the whole run ends inside the
# machine's 600 s limit per command. Carry .gpu/bundle.tgz, .gpu/datasets and, to
# resume, .gpu/tuning.db and .gpu/cache.tgz.
#   DEADLINE=560 FUZZ_PLANS=40 SWEEPS="examples/sweeps/small.yaml" bash scripts/gpu-session.sh
set -uo pipefail
start=$(date +%s)
# The binaries travel packed (make bundle writes .gpu/bundle.tgz) to keep the
# copied working tree under 64 MiB.
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
status=0
if [ -z "${SKIP_CHECK:-}" ]; then
  SKIP_TABLE=${SKIP_TABLE-1} E2E= bash scripts/gpu-check.sh || status=1
fi
echo "check took $(( $(date +%s) - start )) s"
if [ -n "${SWEEPS:-}" ]; then
  BUDGET=$(( ${DEADLINE:-560} - ($(date +%s) - start) )) bash scripts/gpu-sweep.sh || status=$?
fi
# Reuse of a tuned plan: count swept graphs with no plan given,
# twice each; the store's best is compiled already, so compile_ms is the
# module cache's load alone. The pass is split into the class kernels and
# the preparation kernels. REUSE="rmat18 rmat20" (RMAT graphs are made if
# no sweep of this call made them).
for gname in ${REUSE:-}; do
  f=/tmp/tcgen-cache/graphs/sweep-$gname.tcsr
  case "$gname" in rmat*) [ -f "$f" ] || .gpu/bin/tcgen -q graph rmat --scale "${gname#rmat}" -o "$f";; esac
  for i in 1 2; do
    .gpu/bin/tcgen -q --store /tmp/tuning.db --cache-dir /tmp/tcgen-cache count "$f" \
      --backend gpu --repeat 10 --json > /tmp/reuse.json 2>/tmp/reuse.err || { status=1; cat /tmp/reuse.err; continue; }
    python3 -c 'import json,sys; r=json.load(open("/tmp/reuse.json")); g=r["gpu"]; print("%s run %s: plan %s (%s), compile/cache+module %.1f ms, context %.1f ms, prepare %.1f ms, gpu pass %.4f ms = kernels %.4f + prep %.4f %s, triangles %d" % (sys.argv[1], sys.argv[2], r.get("plan"), r.get("plan_source"), g["compile_ms"], r.get("context_ms",0), r["prepare_ms"], r["gpu_ms"], g["kernel_ms"]["median_ms"], g.get("prep_ms",{}).get("median_ms",0), {k: round(v["median_ms"],4) for k,v in (g.get("prep_kernels_ms") or {}).items()}, r["triangles"]))' "$gname" "$i"
  done
done 2>&1 | tee -a "${OUT:-gpu-out}/reuse.txt"
# Pivot specs on RMAT: PIVOT=1 (SPECS, SCALES as gpu-pivot.sh takes).
if [ -n "${PIVOT:-}" ]; then
  bash scripts/gpu-pivot.sh || status=1
fi
# Nsight Compute on class kernels: NCU="spec:graph:kernel-regex:tag ..."
# (graph a file under .gpu/datasets, or rmatS), the timed run after the
# first run and the warm-ups. The list is split without globbing (regexes).
read -ra ncu_jobs <<< "${NCU:-}"
for job in "${ncu_jobs[@]}"; do
  IFS=: read -r spec graph kernel tag <<< "$job"
  case "$graph" in
    rmat*) GRAPH=/tmp/$graph.tcsr SCALE=${graph#rmat} SPEC=$spec KERNEL=$kernel TAG=-$tag SKIP=4 bash scripts/ncu-class.sh || status=1;;
    *) GRAPH=.gpu/datasets/$graph SPEC=$spec KERNEL=$kernel TAG=-$tag SKIP=4 bash scripts/ncu-class.sh || status=1;;
  esac
done
# End to end, the oriented file alone, each binary of BINS: E2E_AB=1 (SCALE).
if [ -n "${E2E_AB:-}" ]; then
  bash scripts/gpu-e2e.sh || status=1
fi
# End to end after the sweeps: E2E=24.
if [ -n "${E2E:-}" ]; then
  SKIP_TESTS=1 SKIP_TABLE=1 FUZZ_PLANS= bash scripts/gpu-check.sh || status=1
fi
exit $status
