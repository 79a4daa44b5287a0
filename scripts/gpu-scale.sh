#!/usr/bin/env bash
# Billions of edges on one GPU: RMAT-26 and RMAT-27 (the corpus's RMAT
# command, examples/corpus.tsv: the default seed), each
#   gen      tcgen graph rmat --scale S, under /usr/bin/time -v (wall, peak RSS);
#   convert  oriented by degree and relabelled, the file count reads with no
#            orientation of its own (--pack auto);
#   gpu      count with the default plan (no --preset/--spec, --no-store), JSON:
#            the gpu pass, Prepare's phases, total_ms, and the process's wall;
#   cpu      the CPU oracle on the undirected file, on all 16 cores (wall and
#            count_ms).
# One row per scale in $OUT/scale.tsv; each step's JSON, stderr and time -v
# output beside it. Steps whose output exists are skipped: run it again on
# the same warm machine to go on (each step fits a 10-minute command: RMAT-27
# took 105 s to generate). Exit 4 when a GPU count differs from the oracle,
# 1 when a step failed.
#   SCALES="26 27" DEADLINE=560 bash scripts/gpu-scale.sh
set -uo pipefail
start=$(date +%s)
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - start) )); }
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
C=.gpu/scale # the graphs: tens of GB, kept while the machine stays, never under $OUT
mkdir -p "$C"
T=$PWD/.gpu/bin/tcgen
export GOMAXPROCS=${GOMAXPROCS:-16}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt"
. "$(dirname "$0")/gpu-lib.sh" # json, table, oriented_rmat
# timev FILE KEY: a field of /usr/bin/time -v's report.
timev() { awk -F': ' -v k="$2" 'index($0, k) {print $2}' "$1" | tail -1; }
wall_s() { timev "$1" "Elapsed (wall clock)" | awk -F: '{s=0; for (i=1; i<=NF; i++) s=s*60+$i; print s}'; }
rss_gb() { awk -v kb="$(timev "$1" "Maximum resident set size")" 'BEGIN {printf "%.2f", kb / 1048576}'; }
status=0
fail() { echo "$1: failed (see $OUT)"; [ "$status" -eq 0 ] && status=1; }
# step NAME FILE SECONDS CMD...: run CMD under time -v into $OUT/NAME.*
# unless FILE exists, when SECONDS are left.
step() {
  local name=$1 file=$2 need=$3
  shift 3
  [ -s "$file" ] && return 0
  [ "$(left)" -lt "$need" ] && { echo "$name: not started, $(left) s left (run again)"; return 1; }
  /usr/bin/time -v -o "$OUT/$name.time" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err" || { fail "$name"; rm -f "$file"; return 1; }
  echo "$name: $(wall_s "$OUT/$name.time") s, peak RSS $(rss_gb "$OUT/$name.time") GB"
}
printf 'graph\tvertices\tedges\tgen_s\tgen_rss_gb\tconvert_s\tplan\tplan_source\tfallback\tgpu_triangles\tgpu_pass_ms\tprepare_ms\ttotal_ms\tprocess_s\tcpu_triangles\tcpu_count_ms\tcpu_process_s\tmatch\n' > "$OUT/scale.tsv"
for s in ${SCALES:-26 27}; do
  g=rmat$s
  step "$g.gen" "$C/$g.tcsr" 200 $T -q --no-cache graph rmat --scale "$s" -o "$C/$g.tcsr" || continue
  step "$g.convert" "$C/$g-o.tcsr" 200 $T -q --no-cache convert "$C/$g.tcsr" -o "$C/$g-o.tcsr" --orient degree --relabel || continue
  # The GPU count: notices on stderr say which plan and any fallback.
  step "$g.gpu" "$OUT/$g.gpu.json" 120 $T --no-cache --no-store count "$C/$g-o.tcsr" --backend gpu --json --repeat 5 && cp "$OUT/$g.gpu.out" "$OUT/$g.gpu.json"
  step "$g.cpu" "$OUT/$g.cpu.json" 300 $T -q --no-cache --no-store count "$C/$g.tcsr" --backend cpu --json && cp "$OUT/$g.cpu.out" "$OUT/$g.cpu.json"
  [ -s "$OUT/$g.gpu.json" ] && [ -s "$OUT/$g.cpu.json" ] || continue
  gt=$(json "$OUT/$g.gpu.json" 'r["triangles"]')
  ct=$(json "$OUT/$g.cpu.json" 'r["triangles"]')
  match=yes
  [ "$gt" = "$ct" ] || { match=no; status=4; echo "$g: GPU $gt triangles, the oracle $ct"; }
  fb=$(grep -c "cannot take this graph" "$OUT/$g.gpu.err")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" \
    "$(json "$OUT/$g.gpu.json" 'r["vertices"]')" "$(json "$OUT/$g.gpu.json" 'r["edges"]')" \
    "$(wall_s "$OUT/$g.gen.time")" "$(rss_gb "$OUT/$g.gen.time")" "$(wall_s "$OUT/$g.convert.time")" \
    "$(json "$OUT/$g.gpu.json" 'r["plan"]')" "$(json "$OUT/$g.gpu.json" 'r.get("plan_source", "")')" "$fb" \
    "$gt" "$(json "$OUT/$g.gpu.json" 'round(r["gpu_ms"], 2)')" "$(json "$OUT/$g.gpu.json" 'round(r["prepare_ms"])')" \
    "$(json "$OUT/$g.gpu.json" 'round(r["total_ms"])')" "$(wall_s "$OUT/$g.gpu.time")" \
    "$ct" "$(json "$OUT/$g.cpu.json" 'round(r["count_ms"])')" "$(wall_s "$OUT/$g.cpu.time")" "$match" >> "$OUT/scale.tsv"
  # Prepare's phases, for the end-to-end analysis.
  json "$OUT/$g.gpu.json" '"\n".join("%s\t%.1f" % (p["name"], p["ms"]) for p in r["gpu"].get("phases", []))' > "$OUT/$g.phases.tsv"
done
table "$OUT/scale.tsv"
exit $status
