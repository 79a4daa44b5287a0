#!/usr/bin/env bash
# CUDA graph replay against kernel-by-kernel launches (--no-graph) of the
# same build: the graphs of CORPUS (lines as examples/corpus.tsv's) are made
# once with their CPU oracle counts (gpu-corpus.sh's make phase), then
# counted by the default plan both ways, interleaved and alternating which
# goes first, ROUNDS times (gpu pass, median of REPEAT), every count checked.
# GPU tests first unless SKIP_TESTS=1 (TestExecGPU: every preset and spec
# plan replayed, counts against the oracle).
#   CORPUS=FILE [ROUNDS=3] [REPEAT=20] OUT=out bash scripts/gpu-graph-ab.sh
set -u
. "$(dirname "$0")/gpu-lib.sh" # json, bundle_env
bundle_env
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  OUT=$OUT/check SKIP_TABLE=1 TESTS="runtime_executor" TEST_RUN='TestExecGPU$' bash scripts/gpu-check.sh > "$OUT/check.log" 2>&1
  echo "TestExecGPU: rc $?"; grep -E "^(--- FAIL|FAIL|ok|PASS)" "$OUT/check.log" | head -20
fi
CORPUS=$CORPUS PHASES=make DEADLINE=200 OUT=$OUT/make bash scripts/gpu-corpus.sh > "$OUT/make.log" 2>&1
tail -2 "$OUT/make.log"
C=$G/corpus
printf 'round\tgraph\tlaunch\ttriangles\texact\tgpu_ms\tgpu_min_ms\tkernel_ms\treplayed\tvariant\n' > "$OUT/ab.tsv"
for r in $(seq 1 "${ROUNDS:-3}"); do
  order="graph stream"; [ $((r % 2)) = 0 ] && order="stream graph"
  for g in $(grep -v '^#' "$CORPUS" | tail -n +2 | cut -f1); do
    [ -f "$C/$g.cpu.json" ] || continue
    want=$(json "$C/$g.cpu.json" 'r["triangles"]')
    for how in $order; do
      flag=; [ $how = stream ] && flag=--no-graph
      "$T" -q --no-store --cache-dir /tmp/ab-cache count "$C/$g.tcsr" --backend gpu --json --repeat "${REPEAT:-20}" $flag > /tmp/ab.json 2> /tmp/ab.err ||
        { echo "$g $how failed: $(tail -1 /tmp/ab.err)"; continue; }
      python3 - "$r" "$g" "$how" "$want" /tmp/ab.json >> "$OUT/ab.tsv" <<'PY'
import json, sys
r, g, how, want, f = sys.argv[1:]
d = json.load(open(f)); x = d.get("gpu") or {}
print("\t".join([r, g, how, str(d["triangles"]), "yes" if str(d["triangles"]) == want else "NO",
  "%.4f" % d["gpu_ms"], "%.4f" % d["gpu_min_ms"], "%.4f" % d.get("kernel_ms", 0),
  "yes" if x.get("graph") else "no " + x.get("graph_error", ""), str(x.get("variant", ""))]))
PY
    done
  done
done
python3 - "$OUT/ab.tsv" <<'PY' | tee "$OUT/summary.txt"
import csv, statistics, sys, math
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
bad = [r for r in rows if r["exact"] != "yes"]
print("counts not exact: %d of %d" % (len(bad), len(rows)))
by = {}
for r in rows:
    by.setdefault(r["graph"], {}).setdefault(r["launch"], []).append(float(r["gpu_ms"]))
print("graph\tstream_ms\tgraph_ms\tstream/graph")
logs = []
for g, d in by.items():
    if "stream" in d and "graph" in d:
        s, q = statistics.median(d["stream"]), statistics.median(d["graph"])
        logs.append(math.log(s / q))
        print("%s\t%.4f\t%.4f\t%.3f" % (g, s, q, s / q))
if logs:
    print("geometric mean stream/graph: %.3f over %d graphs" % (math.exp(sum(logs) / len(logs)), len(logs)))
PY
