#!/usr/bin/env bash
# Spec files beside the default plan on a few corpus graphs, in interleaved
# rounds, one row per count written as it ends (a run cut short keeps its
# rows, and a run again on the same machine appends to them):
#   CORPUS=FILE [SPECS="a.yaml b.yaml"] [ROUNDS=2] [DEADLINE=480] OUT=DIR bash scripts/gpu-explore.sh
# CORPUS has examples/corpus.tsv's columns (a header line, then name, family,
# command, vertices, edges, triangles). Each graph is made once into
# .gpu/explore as a CSR file only (no edge list, no CPU count: every count
# is checked against the corpus's triangle column). Rows: $OUT/explore.tsv;
# a failed or wrong count is a row that says so, and the run then exits 4.
# BACKEND=cpu tries the script without a GPU (the oracle for every spec).
# PEERS=WeTriC,GroupTC-BS PEER_GRAPHS="g1 g2": after the rounds, those
# published codes (../shared/peerbench, carried in .peers/) on those graphs,
# each count checked against the corpus's; rows in $OUT/peers.tsv.
set -uo pipefail
: "${CORPUS:?CORPUS=FILE names the graphs}"
start=$(date +%s)
left() { echo $(( ${DEADLINE:-480} - ($(date +%s) - start) )); }
. "$(dirname "$0")/gpu-lib.sh" # bundle_env, dataset_file
bundle_env
X=$PWD/.gpu/explore
mkdir -p "$X"
DEVICE=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 | sed 's/, / driver /')
f=$OUT/explore.tsv
[ -s "$f" ] || printf 'round\tgraph\tspec\tplan\ttriangles\texact\tkernel_ms\tgpu_ms\tvariant\tdevice\n' > "$f"
failures=0
lines() { grep -v "^#" "$CORPUS" | tail -n +2 | cut -f1-6 | grep -v '^[[:space:]]*$'; }

while IFS=$'\t' read -r name fam cmd _ _ _ <&3; do
  [ -f "$X/$name.tcsr" ] && continue
  [ "$(left)" -lt 60 ] && { echo "make: no time left for $name"; break; }
  t0=$(date +%s)
  case "$cmd" in
    dataset:*) $T -q convert ".gpu/datasets/$(dataset_file "${cmd#dataset:}")" -o "$X/$name.tcsr";;
    *) $T -q ${cmd#tcgen } -o "$X/$name.tcsr";;
  esac || echo "make $name: failed"
  echo "make $name: $(( $(date +%s) - t0 )) s"
done 3< <(lines)

# row ROUND NAME SPEC WANT RC: one row of explore.tsv from /tmp/x.json and
# /tmp/x.err; prints "ok" for a count equal to WANT.
row() {
  python3 - "$@" "$DEVICE" <<'PY'
import json, sys
rnd, name, spec, want, rc, dev = sys.argv[1:]
def fail(why):
    why = " ".join(why.split())  # no tabs or newlines in a TSV cell
    print("\t".join([rnd, name, spec, "", "", "failed rc=%s: %s" % (rc, why), "", "", "", dev]))
try:
    r = json.load(open("/tmp/x.json"))
    tri = str(r["triangles"])
    kms, gms = float(r.get("kernel_ms") or 0), float(r.get("gpu_ms") or 0)  # none on the CPU
except Exception as e:
    err = open("/tmp/x.err").read().strip().splitlines()
    fail(err[-1] if err else repr(e))
    sys.exit()
g = r.get("gpu") or {}
ok = "yes" if tri == want and rc == "0" else "NO (corpus %s, rc %s)" % (want, rc)
print("\t".join([rnd, name, spec, r.get("plan", ""), tri, ok, "%.4f" % kms, "%.4f" % gms, str(g.get("variant", "")), dev]))
print("ok" if ok == "yes" else "bad", file=sys.stderr)
PY
}

for round in $(seq 1 "${ROUNDS:-2}"); do
  while IFS=$'\t' read -r name _ _ _ _ want <&3; do
    [ -f "$X/$name.tcsr" ] || continue
    for s in default ${SPECS:-}; do
      l=$(left); [ "$l" -lt 20 ] && { echo "explore: deadline"; exit 3; }
      args=(); [ "$s" = default ] || args=(--spec "$s")
      rm -f /tmp/x.json /tmp/x.err
      # A count that would outlast the deadline is stopped (a plan can take
      # seconds a pass on a graph it does not suit).
      timeout $(( l - 10 )) $T -q --no-store count "$X/$name.tcsr" --backend "${BACKEND:-gpu}" --json --repeat 10 --warmup 3 ${args[@]+"${args[@]}"} > /tmp/x.json 2>/tmp/x.err
      rc=$?
      if [ "$(row "$round" "$name" "$(basename "$s" .yaml)" "$want" "$rc" 2>/tmp/x.ok >> "$f"; cat /tmp/x.ok)" != ok ]; then
        failures=$((failures + 1))
      fi
      tail -1 "$f" | cut -f1-3,6,7 | sed "s/^/$(( $(date +%s) - start )) s: /"
    done
  done 3< <(lines)
done
if [ -n "${PEERS:-}" ]; then
  rm -f "$OUT/peers.tsv"
  bash .peers/build.sh > "$OUT/peers-build.log" 2>&1 || echo "peers: build failed (peers-build.log)"
  for name in ${PEER_GRAPHS:-}; do
    [ "$(left)" -lt 60 ] && { echo "peers: no time left for $name"; break; }
    want=$(awk -F'\t' -v n="$name" '$1 == n {print $6}' "$CORPUS")
    $T -q convert "$X/$name.tcsr" -o "$X/$name.txt" || { echo "peers: $name: no edge list"; continue; }
    rm -f "$X/peers-$name.tsv"
    python3 .peers/peers.py --graphs "$X/$name.txt" --expect "$name=$want" --out "$X/peers-$name.tsv" \
      --only "$PEERS" --deadline $(( $(left) - 15 )) --timeout 120 > "$X/peers-$name.log" 2>&1
    if [ ! -s "$X/peers-$name.tsv" ]; then
      echo "peers: $name: no rows (peers-$name.log)"; failures=$((failures + 1)); continue
    fi
    if [ -f "$OUT/peers.tsv" ]; then tail -n +2 "$X/peers-$name.tsv" >> "$OUT/peers.tsv"; else cp "$X/peers-$name.tsv" "$OUT/peers.tsv"; fi
    grep $'^best\t' "$X/peers-$name.log" | head -1
  done
fi
echo "explore: done in $(( $(date +%s) - start )) s, $failures failures"
[ "$failures" -eq 0 ] || exit 4
