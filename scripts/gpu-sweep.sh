#!/usr/bin/env bash
# Runs sweeps on the GPU machine, resumably across runs: the tuning store
# travels in .gpu/tuning.db (carried there; copy the returned one back into
# .gpu/ before the next call) and every finished point is answered from it.
# A sweep that runs out of BUDGET seconds is interrupted cleanly (SIGINT:
# the store is closed with every finished measurement) and resumes next time.
# A sweep named FILE@N is run with --profile-top N (ncu, if installed).
#   BUDGET=480 SWEEPS="examples/sweeps/record.yaml examples/sweeps/profile.yaml@12" bash scripts/gpu-sweep.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export TCGEN_REQUIRE_GPU=1 TCGEN_DATASETS="$PWD/$G/datasets"
# Nsight Compute is installed on the GPU machines but not always on PATH.
for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*; do [ -x "$d/ncu" ] && PATH=$PATH:$d && break; done
DB=/tmp/tuning.db
[ -f "$G/tuning.db" ] && cp "$G/tuning.db" "$DB"
# The NVRTC module cache travels too (.gpu/cache.tgz), so a resumed sweep
# or a later count does not compile again what an earlier call compiled.
mkdir -p /tmp/tcgen-cache
[ -f "$G/cache.tgz" ] && tar xzf "$G/cache.tgz" -C /tmp/tcgen-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/nvidia-smi.txt"
end=$(( $(date +%s) + ${BUDGET:-480} ))
status=0
for s in ${SWEEPS:-examples/sweeps/record.yaml}; do
  top=""
  case "$s" in *@*) top=${s#*@}; s=${s%@*};; esac
  left=$(( end - $(date +%s) ))
  [ "$left" -le 10 ] && { echo "no time left for $s"; status=3; break; }
  name=$(basename "$s" .yaml)
  echo "== $s ($left s left)"
  # "bench" is tcgen bench (the embedded bench_v1 plus each graph's tuned plan).
  cmd=(sweep "$s"); [ "$s" = bench ] && cmd=(bench)
  timeout -s INT "$left" "$G/bin/tcgen" --store "$DB" --cache-dir /tmp/tcgen-cache "${cmd[@]}" \
    --datasets "$G/datasets" --out "/tmp/sweep-$name" ${top:+--profile-top $top} > "/tmp/sweep-$name.log" 2>&1
  rc=$?; echo "rc=$rc"; tail -3 "/tmp/sweep-$name.log"
  [ $rc -ne 0 ] && status=$rc
  cp "/tmp/sweep-$name.log" "/tmp/sweep-$name/" 2>/dev/null || { mkdir -p "/tmp/sweep-$name"; cp "/tmp/sweep-$name.log" "/tmp/sweep-$name/"; }
done
# The store comes back whole (the last connection checkpoints the WAL).
cp "$DB" "$OUT/tuning.db"
[ -f "$DB-wal" ] && cp "$DB-wal" "$OUT/tuning.db-wal"
"$G/bin/tcgen" --store "$DB" store best > "$OUT/best.txt" 2>&1
(cd /tmp && tar czf "$OUT/sweeps.tgz" sweep-*/ 2>/dev/null)
# CACHE_BACK=1: the compiled kernels come back too (the converted graphs are
# rebuilt faster than carried); at most 16 MiB comes back per file.
[ -n "${CACHE_BACK:-}" ] && [ -d /tmp/tcgen-cache/kernels ] && (cd /tmp/tcgen-cache && tar czf "$OUT/cache.tgz" kernels)
exit $status
