#!/usr/bin/env bash
# Where a short count's process time goes, seen from outside
# (scripts/process-probe.py: launch, last output byte, exit), on the GPU
# machine from make bundle BASE=<commit>'s .gpu/: a process that only
# creates a context (scripts/startup-floor.c, with and without releasing
# it, leaving through _exit after the release, and loading NVRTC beside it), this tree's tcgen and the base's (when
# the bundle has one) on p2p-Gnutella31 with a warm kernel
# cache (one count, and --repeat 2), and the peers' whole processes on the
# same graph (.peers, peers.py --e2e, then their commands again), ROUNDS
# interleaved rounds.
# DATASETS: a folder holding the graph and MANIFEST.tsv (default
# .gpu/datasets). Results: $OUT/probe.tsv, $OUT/peers-e2e.tsv, tcgen's
# reports in $OUT/reports.jsonl.
#   OUT=out [ROUNDS=8] [BASE_ENV="K=V"] [VARIANTS="name:K=V[,K2=V2] ..."] bash scripts/gpu-process-probe.sh
set -u
tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
T=$PWD/.gpu/bin/tcgen; B=$PWD/.gpu/bin/tcgen-base; W=/tmp/process-probe; mkdir -p $W
DS=${DATASETS:-.gpu/datasets}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
f=$(awk -F'\t' '$1=="p2p-Gnutella31"{print $2}' "$DS/MANIFEST.tsv")
[ -n "$f" ] && [ -f "$DS/$f" ] || { echo "p2p-Gnutella31 not in $DS/MANIFEST.tsv"; exit 3; }
g=$DS/$f
$T -q convert "$g" -o $W/p2p.tcsr || exit 3
gcc -O2 -I/usr/local/cuda/include scripts/startup-floor.c -o $W/floor -L/usr/local/cuda/lib64/stubs -lcuda -lnvidia-ml -lpthread -ldl 2> $W/gcc.txt ||
  gcc -O2 -I/usr/local/cuda/include scripts/startup-floor.c -o $W/floor -lcuda -lnvidia-ml -lpthread -ldl || exit 1
$T -q --no-store --cache-dir $W/cache count $W/p2p.tcsr --backend gpu > /dev/null # fills the kernel cache
C="-q --no-store --cache-dir $W/cache count $W/p2p.tcsr --backend gpu --json --expect 2024" # a wrong count exits 4
# floor-nvrtc: the floor loading NVRTC beside the context, as tcgen does.
nv=/usr/local/cuda/lib64/libnvrtc.so.13
[ -f $nv ] || nv=libnvrtc.so.13
# floor-release-quick: released, then _exit (no atexit handlers), as Go's os.Exit leaves.
labels=("floor=$W/floor" "floor-release=$W/floor release" "floor-release-quick=$W/floor release quick-exit" "floor-nvrtc=NVRTC=$nv $W/floor parallel-nvrtc" "new=$T $C" "new-repeat2=$T $C --repeat 2")
# VARIANTS="name:K=V[,K2=V2] ...": this tree's count again with K=V (and
# K2=V2) in its environment, one label a word (an experiment's switch).
for v in ${VARIANTS:-}; do e=${v#*:}; labels+=("${v%%:*}=${e//,/ } $T $C"); done
# make bundle BASE=<commit>; BASE_ENV: environment words for it (K=V ...).
[ -x "$B" ] && labels+=("base=${BASE_ENV:-} $B $C" "base-repeat2=${BASE_ENV:-} $B $C --repeat 2")
# The peers' whole processes (peers.py --e2e, one count each), then the same
# commands again inside the rounds, interleaved with tcgen's.
if [ -d .peers ]; then
  bash .peers/build.sh > $W/build.log 2>&1 && python3 .peers/peers.py --graphs "$g" --expect p2p-Gnutella31=2024 \
    --only WeTriC,TRUST,GroupTC-BS,GroupTC-HS --e2e --out "$OUT/peers-e2e.tsv" > $W/peers.log 2>&1
  cut -f1,2,7,8,10 "$OUT/peers-e2e.tsv"
  for lf in /tmp/peers-work/logs/*/*-e2e.log; do
    [ -f "$lf" ] && labels+=("peer-$(basename "$lf" -e2e.log)=$(head -1 "$lf" | sed 's/^\$ //')")
  done
fi
PROBE_JSONL=$OUT/reports.jsonl python3 scripts/process-probe.py "${ROUNDS:-8}" "${labels[@]}" > "$OUT/probe.tsv"
python3 - "$OUT/probe.tsv" <<'PY'
import csv, sys, statistics as st, collections
d = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
    if r["rc"] != "0":
        print("%s round %s: exit %s" % (r["label"], r["round"], r["rc"]))
        continue
    d[r["label"]].append(r)
for k, rs in d.items():
    med = lambda f: st.median(float(r[f]) for r in rs)
    extra = "".join("  %s %6.1f" % (f[6:], med(f)) for f in ("tcgen_total_ms", "tcgen_context_ms", "tcgen_release_ms") if rs[0][f])
    print("%-14s wall %6.1f  to output %6.1f  exit after %6.1f ms%s (medians)" % (k, med("wall_ms"), med("to_last_output_ms"), med("to_exit_after_output_ms"), extra))
PY
