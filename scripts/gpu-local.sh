#!/usr/bin/env bash
# Local counts on the GPU machine: for each graph, the kernel time of the
# default plan's total, of its per-vertex and of its per-edge variant
# (count --clustering-stats and --per-edge: the plan with its output set,
# ir.Plan.WithOutput), every local count checked against the CPU oracle
# (--check compares them vertex by vertex, edge by edge). Where the default
# picks a list that has no local variant the local counts run its catch-all
# list, the tiled edge merge (examples/small.yaml); the ratios are then
# taken against that list's total, timed too, so they compare one plan
# family with itself. (The pivot, the default on skewed graphs, has one.)
# Graphs: RMAT 22 and 24 (the corpus's commands, examples/corpus.tsv), the
# corpus's grid and Erdos-Renyi graphs, the three largest shared datasets.
# Writes $OUT/local.tsv (one row per graph; rows already there are kept, so
# a second run on the same warm machine goes on where the first stopped).
# Run from the repository root with the bundle unpacked in .gpu:
#   [GRAPHS="rmat22 grid2000"] [REPEAT=10] [DEADLINE=560] bash scripts/gpu-local.sh
set -uo pipefail
start=$(date +%s)
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - start) )); }
[ -f .gpu/bundle.tgz ] && [ ! -x .gpu/bin/tcgen ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T=$PWD/.gpu/bin/tcgen
C=.gpu/local
mkdir -p "$C"
REPEAT=${REPEAT:-10}
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
corpus() { awk -F'\t' -v n="$1" '$1 == n {print $3}' examples/corpus.tsv; }
default_graphs() {
  grep -v '^#' examples/corpus.tsv | awk -F'\t' 'NR > 1 && ($1 == "rmat22" || $1 == "rmat24" || $2 == "grid" || $2 == "er") {print $1}'
  # The three largest shared datasets by edges (MANIFEST.tsv: edges_undirected is column 7).
  awk -F'\t' 'NR > 1 {print $7 "\t" $1}' .gpu/datasets/MANIFEST.tsv | sort -n | tail -3 | cut -f2
}
# input NAME: the graph's file, made once.
input() {
  local name=$1 cmd f
  cmd=$(corpus "$name")
  case "$cmd" in dataset:*) name=${cmd#dataset:}; cmd="";; esac # the corpus names some shared datasets
  if [ -z "$cmd" ]; then # a shared dataset
    f=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' .gpu/datasets/MANIFEST.tsv)
    echo ".gpu/datasets/$f"; return
  fi
  f="$C/$name.tcsr"
  [ -f "$f" ] || $T -q ${cmd#tcgen } -o "$f" >&2 || return 1
  echo "$f"
}
. "$(dirname "$0")/gpu-lib.sh" # json, table, oriented_rmat
# run LABEL FILE ARGS...: one count into $C/LABEL.json; false when it fails.
run() {
  local label=$1 f=$2; shift 2
  if ! $T -q --no-store --cache-dir /tmp/tcgen-cache count "$f" --backend gpu --json --repeat "$REPEAT" --warmup 2 "$@" \
      > "$C/$label.json" 2> "$C/$label.err"; then
    echo "$label: failed: $(tail -c 300 "$C/$label.err")" >&2
    return 1
  fi
}
TSV=$OUT/local.tsv
[ -f "$TSV" ] || printf 'graph\tedges\ttriangles\tdefault_plan\tdefault_total_ms\tfamily\tfamily_total_ms\tvertex_ms\tedge_ms\tvertex_ratio\tedge_ratio\tvertex_download_ms\tedge_download_ms\tchecked\tdevice\n' > "$TSV"
status=0
for name in ${GRAPHS:-$(default_graphs)}; do
  grep -q "^$name	" "$TSV" && continue
  [ "$(left)" -lt 90 ] && { echo "local: no time left for $name"; status=3; break; }
  f=$(input "$name") || { echo "$name: could not make the graph"; status=4; continue; }
  ok=1
  run "$name-total" "$f" || ok=0
  run "$name-vertex" "$f" --check --clustering-stats || ok=0
  run "$name-edge" "$f" --check --per-edge "$C/$name-pe.npy" || ok=0
  rm -f "$C/$name-pe.npy"
  if [ $ok = 0 ]; then
    printf '%s\tfailed\n' "$name" >> "$TSV"; status=4; continue
  fi
  # The default's total ran a list without a local variant (its iterators
  # differ from the per-vertex run's): time the catch-all list the local
  # counts ran instead.
  family=default; fam_json="$C/$name-total.json"
  its='sorted(c.get("iterator", "") for c in r["gpu"]["classes"])'
  if [ "$(json "$C/$name-total.json" "$its")" != "$(json "$C/$name-vertex.json" "$its")" ]; then
    family=small; fam_json="$C/$name-small.json"
    run "$name-small" "$f" --spec examples/small.yaml || { printf '%s\tfailed\n' "$name" >> "$TSV"; status=4; continue; }
  fi
  python3 - "$name" "$C" "$fam_json" "$family" "$DEVICE" >> "$TSV" <<'PY'
import json, sys
name, c, fam, family, dev = sys.argv[1:]
load = lambda label: json.load(open("%s/%s-%s.json" % (c, name, label)))
tot, vx, ed, fa = load("total"), load("vertex"), load("edge"), json.load(open(fam))
k = lambda r: r["gpu"]["kernel_ms"]["median_ms"]
checked = "yes" if all("local counts: CPU oracle" in r.get("checked", "") for r in (vx, ed)) else "NO"
print("\t".join([name, str(tot["edges"]), str(tot["triangles"]), tot["plan"], "%.4f" % k(tot), family, "%.4f" % k(fa),
  "%.4f" % k(vx), "%.4f" % k(ed), "%.3f" % (k(vx) / k(fa)), "%.3f" % (k(ed) / k(fa)),
  "%.3f" % vx["gpu"].get("local_download_ms", 0), "%.3f" % ed["gpu"].get("local_download_ms", 0), checked, dev]))
PY
  tail -1 "$TSV"
done
cp "$TSV" "$OUT/local-$(echo "$DEVICE" | tr ' ' '-' | tr -cd 'A-Za-z0-9-').tsv" 2>/dev/null
echo "local: $(($(wc -l < "$TSV") - 1)) graphs in $TSV"
exit $status
