#!/usr/bin/env bash
# A count in partitions against the whole graph on the GPU, from the bundle
# (.gpu/: make bundle), run from the repository root. For Graph500 RMAT-24
# (seed 42, edge factor 16; made once into .gpu/partition, oriented by
# degree and relabelled) it counts with the default plan in memory, then
# under --device-memory of a quarter of that run's memory plan
# (gpu.device_bytes), so that no plan fits and the graph is counted in
# partitions; each REPEAT timed passes after WARMUP untimed ones, checked
# against the known count (examples/corpus.tsv). It writes
# $OUT/partition.tsv: mode, the plan that counted and its design (the
# iterator of its class in memory; in partitions the family that counted
# each pair, with the core it kept), cap, memory used, blocks, chunks,
# pairs, bytes copied a pass, copy and kernel times (medians, summed over a
# pass), the pass, the pass over the in-memory kernel time, triangles; and
# each run's JSON and stderr. A count that differs ends the script with
# exit 4.
#   [SCALE=24] [REPEAT=10] [WARMUP=2] [SHARE=4] [CHUNK=BYTES] bash scripts/gpu-partition.sh
set -uo pipefail
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T=$PWD/.gpu/bin/tcgen
M=.gpu/partition
mkdir -p "$M"
. "$(dirname "$0")/gpu-lib.sh" # json, table, oriented_rmat
s=${SCALE:-24}
declare -A want=([24]=10282078419) # examples/corpus.tsv
g=rmat$s
f=$M/$g.o.tcsr
if [ ! -f "$f" ]; then
  oriented_rmat "$T" "$s" "$f" || { echo "$g: making it failed"; exit 1; }
fi
check=(--check)
[ -n "${want[$s]:-}" ] && check=(--expect "${want[$s]}")
base=(--no-store count "$f" --backend gpu --repeat "${REPEAT:-10}" --warmup "${WARMUP:-2}" --json "${check[@]}")
TSV=$OUT/partition.tsv
printf 'graph\tmode\tplan\tdesign\tcap_bytes\tdevice_bytes\tblocks\tchunks\tpairs\tbytes_copied\tcopy_ms\tkernel_ms\tgpu_pass_ms\tpass_over_inmemory_kernel\ttriangles\n' > "$TSV"
"$T" "${base[@]}" > "$OUT/$g-memory.json" 2> "$OUT/$g-memory.err" ||
  { echo "$g in memory: exit $?: $(tail -1 "$OUT/$g-memory.err")"; exit 4; }
foot=$(json "$OUT/$g-memory.json" 'r["gpu"]["device_bytes"]')
k0=$(json "$OUT/$g-memory.json" 'r["kernel_ms"]')
p0=$(json "$OUT/$g-memory.json" 'r["gpu_ms"]')
printf '%s\tmemory\t%s\t%s\t\t%s\t1\t\t\t\t\t%.4f\t%.4f\t%.3f\t%s\n' "$g" "$(json "$OUT/$g-memory.json" 'r["plan"]')" \
  "$(json "$OUT/$g-memory.json" '"+".join(c["iterator"] for c in r["gpu"]["classes"] if not c.get("skip"))')" \
  "$foot" "$k0" "$p0" "$(python3 -c "print($p0/$k0)")" "$(json "$OUT/$g-memory.json" 'r["triangles"]')" >> "$TSV"
cap=$((foot / ${SHARE:-4}))
args=("${base[@]}" --device-memory "$cap")
[ -n "${CHUNK:-}" ] && args+=(--partition-chunk "$CHUNK")
"$T" "${args[@]}" > "$OUT/$g-partition.json" 2> "$OUT/$g-partition.err"
rc=$?
cat "$OUT/$g-partition.err"
if [ $rc -ne 0 ]; then
  echo "$g in partitions under $cap bytes: exit $rc"
  exit 4
fi
j=$OUT/$g-partition.json
json "$j" '"\t".join(str(x) for x in ["'"$g"'", "partition", r["plan"],
  r["gpu"]["partition"]["family"] + (" core %d" % r["gpu"]["partition"]["core_ids"] if r["gpu"]["partition"].get("core_ids") else ""),
  r["gpu"]["partition"]["cap_bytes"], r["gpu"]["device_bytes"],
  r["gpu"]["partition"]["blocks"], r["gpu"]["partition"]["chunks"], r["gpu"]["partition"]["pairs"],
  r["gpu"]["partition"]["bytes_copied"], round(r["gpu"]["partition"]["copy_ms"]["median_ms"], 4),
  round(r["kernel_ms"], 4), round(r["gpu_ms"], 4), round(r["gpu_ms"] / '"$k0"', 3), r["triangles"]])' >> "$TSV"
table "$TSV"
echo "partition: done"
