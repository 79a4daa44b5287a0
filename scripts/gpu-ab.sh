#!/usr/bin/env bash
# Two tcgen builds side by side on the GPU machine: make bundle BASE=<commit>
# gives .gpu/bin/tcgen-base beside this tree's .gpu/bin/tcgen. The graphs of
# CORPUS (lines as examples/corpus.tsv's) are made once with their CPU
# oracle counts (gpu-corpus.sh's make phase), then counted by the default
# plan of both builds, interleaved, ROUNDS times (gpu pass, median of 10),
# each count checked; then `tcgen fuzz --backend gpu` (FUZZ plans, SEED) and
# the local-count GPU test (GT seconds, 0: none) on this tree's build.
#   CORPUS=FILE [ROUNDS=3] [FUZZ=150] [SEED=1] [GT=330] OUT=out bash scripts/gpu-ab.sh
set -u
. "$(dirname "$0")/gpu-lib.sh" # json, bundle_env
bundle_env
B=$PWD/$G/bin/tcgen-base
[ -x "$B" ] || { echo "no $B: make bundle BASE=<commit>"; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
CORPUS=$CORPUS PHASES=make DEADLINE=200 OUT=$OUT/make bash scripts/gpu-corpus.sh > "$OUT/make.log" 2>&1
tail -2 "$OUT/make.log"
C=$G/corpus
printf 'round\tgraph\tbin\ttriangles\texact\tgpu_ms\tvariant\n' > "$OUT/ab.tsv"
for r in $(seq 1 "${ROUNDS:-3}"); do
  for g in $(grep -v '^#' "$CORPUS" | tail -n +2 | cut -f1); do
    want=$(json "$C/$g.cpu.json" 'r["triangles"]')
    for b in base new; do
      bin=$T; [ $b = base ] && bin=$B
      "$bin" -q --no-store --cache-dir "/tmp/ab-cache-$b" count "$C/$g.tcsr" --backend gpu --json --repeat 10 > /tmp/ab.json 2> /tmp/ab.err ||
        { echo "$g $b failed: $(tail -1 /tmp/ab.err)"; continue; }
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$g" "$b" "$(json /tmp/ab.json 'r["triangles"]')" \
        "$(json /tmp/ab.json "'yes' if str(r['triangles']) == '$want' else 'NO'")" \
        "$(json /tmp/ab.json '"%.4f" % r["gpu_ms"]')" "$(json /tmp/ab.json '(r.get("gpu") or {}).get("variant", "")')" >> "$OUT/ab.tsv"
    done
  done
done
python3 - "$OUT/ab.tsv" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
for g in dict.fromkeys(r["graph"] for r in rows):
    t = {b: st.median(float(r["gpu_ms"]) for r in rows if r["graph"] == g and r["bin"] == b) for b in ("base", "new")}
    ok = all(r["exact"] == "yes" for r in rows if r["graph"] == g)
    print("%-16s base %.4f new %.4f  base/new %.3f  exact=%s" % (g, t["base"], t["new"], t["base"] / t["new"], ok))
PY
if [ "${FUZZ:-150}" -gt 0 ]; then
  "$T" -q fuzz --backend gpu --plans "${FUZZ:-150}" --seed "${SEED:-1}" > "$OUT/fuzz.txt" 2>&1; echo "fuzz rc=$?"
  grep -E '^(plans|runs|mismatches|errors|time)' "$OUT/fuzz.txt"
fi
if [ "${GT:-330}" -gt 0 ]; then
  (cd runtime/executor && TCGEN_REQUIRE_GPU=1 TCGEN_DATASETS="$PWD/../../$G/datasets" timeout "${GT:-330}" \
    "../../$G/tests/runtime_executor.test" -test.run 'TestLocalGPU$' -test.count=1 -test.v > "$OUT/local-gpu.txt" 2>&1
   echo "local GPU test rc=$? (124: the time limit), $(grep -c 'local_gpu_test.go:51' "$OUT/local-gpu.txt") counts, $(grep -c -- '--- FAIL' "$OUT/local-gpu.txt") failures")
fi
rm -rf "$OUT/make"
