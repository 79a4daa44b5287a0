#!/usr/bin/env bash
# Where a whole `tcgen count` of a small graph spends its time, beside the
# floor any CUDA process pays (scripts/startup-floor.c) and the published
# codes' whole processes, in one run on the GPU machine:
#   1. the first count on the fresh machine (empty kernel and driver caches);
#   2. "cold" counts of each binary: the kernel cache and the driver's JIT
#      cache emptied and the libraries' pages dropped from the page cache;
#   3. warm counts of each binary, interleaved;
#   4. the floor program's steps;
#   5. the quickest peers' single-count processes (--e2e);
#   6. kernel times of each binary on RMAT 18-22 (the default plan).
# BINS: label:path[:ENV=VAL,...] of the binaries (make bundle BASE=<commit>
# adds .gpu/bin/tcgen-base). Every count is checked: RMAT against the known
# counts, the datasets against MANIFEST.tsv. Results: $OUT/startup.tgz.
#   BINS="base:.gpu/bin/tcgen-base new:.gpu/bin/tcgen" bash scripts/gpu-startup.sh
set -uo pipefail
start=$(date +%s)
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
R=/tmp/startup
mkdir -p "$R"
BINS=${BINS:-new:.gpu/bin/tcgen}
GRAPHS=${GRAPHS:-p2p-Gnutella31 musae_facebook email-Enron}
WARM=${WARM:-5}
status=0
# What was measured comes home whatever fails.
trap '(cd "$R" && tar czf "$OUT/startup.tgz" device.txt *.tsv *.log *.txt 2>/dev/null)' EXIT
dataset() { echo ".gpu/datasets/$(awk -F'\t' -v n="$1" '$1 == n {print $2}' .gpu/datasets/MANIFEST.tsv)"; }
expected() { awk -F'\t' -v n="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "triangles") c = i} $1 == n {print $c}' .gpu/datasets/MANIFEST.tsv; }
T0=.gpu/bin/tcgen
for g in $GRAPHS; do [ -f "$R/$g.tcsr" ] || $T0 -q --no-cache convert "$(dataset "$g")" -o "$R/$g.tcsr"; done

# drop FILES: their pages out of the page cache (clean pages, no root needed).
drop() { python3 -c '
import os, sys
for f in sys.argv[1:]:
    try:
        fd = os.open(os.path.realpath(f), os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
    except OSError: pass' "$@"; }
libs() { ldconfig -p | awk '/libcuda.so.1 |libnvidia-ml.so.1 |libnvidia-ptxjitcompiler/ {print $NF}'; ls /usr/local/cuda/lib64/libnvrtc*.so* 2>/dev/null; }

# one LABEL BIN ENVS GRAPH CACHE_DIR MODE: one count, its process wall and
# its JSON's phases as a row of $R/e2e.tsv.
one() {
  local label=$1 bin=$2 envs=$3 g=$4 cache=$5 mode=$6
  local t0 t1
  t0=$(date +%s%N)
  env ${envs//,/ } CUDA_CACHE_PATH=$cache/nv "$bin" -q --no-store --cache-dir "$cache" count "$R/$g.tcsr" --backend gpu --json > "$R/e.json" 2> "$R/e.err"
  local rc=$?
  t1=$(date +%s%N)
  if [ $rc -ne 0 ]; then echo "$label $g $mode: exit $rc: $(tail -c 300 "$R/e.err")"; status=1; return; fi
  python3 - "$label" "$g" "$mode" $(( (t1 - t0) / 1000 )) "$(expected "$g")" "$R/e.json" <<'EOF' >> "$R/e2e.tsv" || status=1
import json, sys
label, g, mode, wall_us, want, path = sys.argv[1:]
r = json.load(open(path)); gp = r["gpu"]
ok = str(r["triangles"]) == want
if not ok:
    print(f"{label} {g}: {r['triangles']} triangles, MANIFEST {want}", file=sys.stderr)
ph = {p["name"]: p["ms"] for p in gp.get("phases") or []}
print("\t".join(str(x) for x in [label, g, mode, round(int(wall_us) / 1e3, 1), round(r["total_ms"], 1),
      round(r.get("context_ms", 0), 1), round(r["load_ms"], 1), round(r["prepare_ms"], 1), round(gp["compile_ms"], 1),
      round(r.get("first_run_ms", 0), 1), round(r.get("facts_ms", 0), 1), round(int(wall_us) / 1e3 - r["total_ms"], 1),
      "exact" if ok else "WRONG", json.dumps(ph)]))
sys.exit(0 if ok else 1)
EOF
}
printf 'binary\tgraph\tmode\twall_ms\ttotal_ms\tcontext_ms\tload_ms\tprepare_ms\tcompile_ms\tfirst_run_ms\tfacts_ms\toutside_total_ms\tcount\tphases\n' > "$R/e2e.tsv"

# 1. The first count on this machine: the first binary, the first graph.
first=${BINS%% *}
set -- $(echo "$first" | tr ':' ' ')
one "$1" "$2" "${3:-}" "${GRAPHS%% *}" "$R/cache-first" first
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$R/device.txt"
cat "$R/device.txt"

# 2. Cold, emulated: empty caches, libraries and binary dropped from the page cache.
for i in 1 2 3; do
  for lb in $BINS; do
    set -- $(echo "$lb" | tr ':' ' ')
    rm -rf "$R/cache-cold"; drop $(libs) "$2"
    one "$1" "$2" "${3:-}" "${GRAPHS%% *}" "$R/cache-cold" cold
  done
done
# 3. Warm, interleaved (each binary's own cache, filled by its first count).
for g in $GRAPHS; do
  for i in $(seq 0 "$WARM"); do
    for lb in $BINS; do
      set -- $(echo "$lb" | tr ':' ' ')
      one "$1" "$2" "${3:-}" "$g" "$R/cache-$1" $([ "$i" = 0 ] && echo fill || echo warm)
    done
  done
done

# 4. The floor: what any process pays for a context (and NVML).
if gcc -O2 -I/usr/local/cuda/include scripts/startup-floor.c -o "$R/floor" -L/usr/local/cuda/lib64/stubs -lcuda -lnvidia-ml -lpthread -ldl 2> "$R/floor-build.txt" ||
   gcc -O2 -I/usr/local/cuda/include scripts/startup-floor.c -o "$R/floor" -lcuda -lnvidia-ml -lpthread -ldl 2>> "$R/floor-build.txt"; then
  for i in 1 2 3 4 5; do
    for mode in "" "release" "quick-exit" "nvml release" "parallel-nvml release" "parallel-nvml quick-exit"; do
      t0=$(date +%s%N); line=$("$R/floor" $mode); t1=$(date +%s%N)
      printf 'floor\t%s\t%s\t%s\n' "${mode:-plain}" $(( (t1 - t0) / 1000000 )) "$line"
    done
  done > "$R/floor.tsv"
else
  echo "floor: build failed"; cat "$R/floor-build.txt"; status=1
fi

# 5. The quickest peers, one count a process (peerbench --e2e).
if [ -d .peers ] && [ -z "${SKIP_PEERS:-}" ]; then
  if bash .peers/build.sh > "$R/peers-build.log" 2>&1; then
    for g in $GRAPHS; do
      ln -sf "$PWD/$(dataset "$g")" "$R/$g.txt.gz" # the peers' reader takes a gzipped edge list by this name
      python3 .peers/peers.py --graphs "$R/$g.txt.gz" --expect "$g.txt.gz=$(expected "$g")" \
        --only "${PEERS:-Polak,GroupTC,GroupTC-BS,WeTriC}" --e2e --out "$R/peers-$g.tsv" --timeout 60 > "$R/peers-$g.log" 2>&1 || status=1
    done
  else
    echo "peers: build failed (peers-build.log)"; status=1
  fi
fi

# 6. Kernel times of each binary on RMAT (default plan), interleaved.
if [ -n "${RMAT:-18 20 22}" ]; then
  declare -A want=([18]=83075942 [20]=424785436 [22]=2112253002 [24]=10282078419)
  printf 'binary\tscale\tkernel_ms\tgpu_ms\tmin_ms\tmax_ms\tplan\tcount\n' > "$R/rmat.tsv"
  for s in ${RMAT:-18 20 22}; do
    f=$R/rmat$s.tcsr
    [ -f "$f" ] || { $T0 -q --no-cache graph rmat --scale "$s" -o "$R/rmat$s-u.tcsr" && $T0 -q --no-cache convert "$R/rmat$s-u.tcsr" -o "$f" --orient degree --relabel; }
    for round in 1 2; do
      for lb in $BINS; do
        set -- $(echo "$lb" | tr ':' ' ')
        e=${3:-}
        env ${e//,/ } "$2" -q --no-store --cache-dir "$R/cache-$1" count "$f" --backend gpu --repeat 20 --warmup 3 --expect "${want[$s]}" --json > "$R/r.json" 2> "$R/r.err" || { echo "$1 rmat$s: $(tail -c 300 "$R/r.err")"; status=1; continue; }
        python3 -c 'import json,sys; r=json.load(open(sys.argv[3])); print("\t".join(str(x) for x in [sys.argv[1], sys.argv[2], r["kernel_ms"], r["gpu_ms"], r["gpu_min_ms"], r["gpu_max_ms"], r["plan"], r["triangles"]]))' "$1" "$s" "$R/r.json" >> "$R/rmat.tsv"
      done
    done
  done
fi

# 7. A tune through a store, then count with no plan: the store's best is
# reused (code hash, interleaved finalists).
if [ -z "${SKIP_TUNE:-}" ]; then
  g=${GRAPHS%% *}
  { $T0 --store "$R/tune.db" --cache-dir "$R/cache-tune" tune "$R/$g.tcsr" --evals 12 2>&1 | tail -15
    $T0 --store "$R/tune.db" --cache-dir "$R/cache-tune" count "$R/$g.tcsr" --backend gpu --repeat 10 --expect "$(expected "$g")" 2>&1 | grep -E "plan|triangles|kernel"
  } > "$R/tune.txt" 2>&1 || status=1
  cat "$R/tune.txt"
fi

# Summary: median wall per binary and mode over the graphs.
python3 - "$R/e2e.tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
keys = sorted({(r["binary"], r["mode"]) for r in rows})
for b, m in keys:
    rs = [r for r in rows if r["binary"] == b and r["mode"] == m]
    med = lambda k: statistics.median(float(r[k]) for r in rs)
    print(f"{b:10s} {m:6s} n={len(rs):2d} wall {med('wall_ms'):7.1f}  total {med('total_ms'):7.1f}  context {med('context_ms'):6.1f}  compile {med('compile_ms'):6.1f}  outside {med('outside_total_ms'):6.1f}")
EOF
[ -f "$R/floor.tsv" ] && sort -k2,2 "$R/floor.tsv" | awk -F'\t' '{print $2": "$3" ms  "$4}'
for g in $GRAPHS; do grep -h -E "e2e|best" "$R/peers-$g.log" 2>/dev/null | head -8; done
[ -f "$R/rmat.tsv" ] && cat "$R/rmat.tsv"
echo "took $(( $(date +%s) - start )) s"
exit $status
