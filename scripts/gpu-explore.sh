#!/usr/bin/env bash
# Spec files beside the default plan on a few corpus graphs, in interleaved
# rounds, one row per count written as it ends (a run cut short keeps its
# rows):
#   CORPUS=FILE SPECS="a.yaml b.yaml" [ROUNDS=2] [DEADLINE=480] OUT=DIR bash scripts/gpu-explore.sh
# CORPUS has examples/corpus.tsv's columns (name, family, command, vertices,
# edges, triangles). Each graph is made once into .gpu/explore as a CSR file
# only (no edge list, no CPU count: every count is checked
# against the corpus's triangle column). Rows: $OUT/explore.tsv.
# BACKEND=cpu tries the script without a GPU (the oracle for every spec).
# PEERS=WeTriC,GroupTC-BS PEER_GRAPHS="g1 g2": after the rounds, those
# published codes (../shared/peerbench, carried in .peers/) on those graphs,
# each count checked against the corpus's; rows in $OUT/peers.tsv.
set -uo pipefail
start=$(date +%s)
left() { echo $(( ${DEADLINE:-480} - ($(date +%s) - start) )); }
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
T=$PWD/.gpu/bin/tcgen
G=.gpu/explore
OUT=${OUT:-gpu-out}
mkdir -p "$G" "$OUT"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
f=$OUT/explore.tsv
printf 'round\tgraph\tspec\tplan\ttriangles\texact\tkernel_ms\tgpu_ms\tvariant\tdevice\n' > "$f"
lines() { grep -v "^#" "$CORPUS" | tail -n +2; }
dataset_file() { awk -F'\t' -v n="$1" '$1 == n {print $2}' .gpu/datasets/MANIFEST.tsv; }

while IFS=$'\t' read -r name fam cmd _ _ _ <&3; do
  [ -f "$G/$name.tcsr" ] && continue
  [ "$(left)" -lt 60 ] && { echo "make: no time left for $name"; break; }
  t0=$(date +%s)
  case "$cmd" in
    dataset:*) $T -q convert ".gpu/datasets/$(dataset_file "${cmd#dataset:}")" -o "$G/$name.tcsr";;
    *) $T -q ${cmd#tcgen } -o "$G/$name.tcsr";;
  esac || echo "make $name: failed"
  echo "make $name: $(( $(date +%s) - t0 )) s"
done 3< <(lines)

for round in $(seq 1 "${ROUNDS:-2}"); do
  while IFS=$'\t' read -r name _ _ _ _ want <&3; do
    [ -f "$G/$name.tcsr" ] || continue
    for s in default $SPECS; do
      [ "$(left)" -lt 20 ] && { echo "explore: deadline"; exit 3; }
      args=(); [ "$s" = default ] || args=(--spec "$s")
      $T -q --no-store count "$G/$name.tcsr" --backend "${BACKEND:-gpu}" --json --repeat 10 --warmup 3 "${args[@]}" > /tmp/x.json 2>/tmp/x.err
      rc=$?
      python3 - "$round" "$name" "$(basename "$s" .yaml)" "$want" "$rc" "$DEVICE" >> "$f" <<'PY'
import json, sys
rnd, name, spec, want, rc, dev = sys.argv[1:]
try:
    r = json.load(open("/tmp/x.json"))
except Exception:
    err = open("/tmp/x.err").read().strip().splitlines()
    print("\t".join([rnd, name, spec, "", "", "failed rc=%s: %s" % (rc, err[-1] if err else ""), "", "", "", dev]))
    sys.exit()
g = r.get("gpu") or {}
ok = "yes" if str(r["triangles"]) == want else "NO (corpus %s)" % want
print("\t".join([rnd, name, spec, r.get("plan", ""), str(r["triangles"]), ok,
  "%.4f" % r.get("kernel_ms", 0), "%.4f" % r.get("gpu_ms", 0), str(g.get("variant", "")), dev]))
PY
      tail -1 "$f" | cut -f1-3,6,7 | sed "s/^/$(( $(date +%s) - start )) s: /"
    done
  done 3< <(lines)
done
if [ -n "${PEERS:-}" ]; then
  bash .peers/build.sh > "$OUT/peers-build.log" 2>&1 || echo "peers: build failed (peers-build.log)"
  for name in ${PEER_GRAPHS:-}; do
    [ "$(left)" -lt 60 ] && { echo "peers: no time left for $name"; break; }
    want=$(awk -F'\t' -v n="$name" '$1 == n {print $6}' "$CORPUS")
    $T -q convert "$G/$name.tcsr" -o "$G/$name.txt" || { echo "peers: $name: no edge list"; continue; }
    python3 .peers/peers.py --graphs "$G/$name.txt" --expect "$name=$want" --out "$G/peers-$name.tsv" \
      --only "$PEERS" --deadline $(( $(left) - 15 )) --timeout 120 > "$G/peers-$name.log" 2>&1
    [ -f "$OUT/peers.tsv" ] && tail -n +2 "$G/peers-$name.tsv" >> "$OUT/peers.tsv" || cp "$G/peers-$name.tsv" "$OUT/peers.tsv"
    grep -P '^best\t' "$G/peers-$name.log" | head -1
  done
fi
echo "explore: done in $(( $(date +%s) - start )) s"
