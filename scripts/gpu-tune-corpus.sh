#!/usr/bin/env bash
# Does the tuner's space hold plans faster than the default on the corpus's
# graphs? Makes each graph of NAMES (examples/corpus.tsv), counts it with
# the default plan and no store, then tunes it (--evals EVALS, the default
# space, cold or warm as COLD says) into one store, and writes
# $OUT/tune-corpus.tsv: graph, default ms, tuned plan, tuned ms (the tune's
# interleaved finalists), tuned/default. Counts are checked against the CPU
# oracle (tune verifies every candidate against it).
#   NAMES="er-2m-32m sbm-4m-b100" EVALS=40 bash scripts/gpu-tune-corpus.sh
set -uo pipefail
start=$(date +%s)
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
T=$PWD/.gpu/bin/tcgen
C=/tmp/tune-corpus
mkdir -p "$C"
status=0
. "$(dirname "$0")/gpu-lib.sh" # json, table, oriented_rmat
printf 'graph\tdefault_plan\tdefault_ms\ttuned_plan\ttuned_ms\tratio\tevals_s\n' > "$C/tune-corpus.tsv"
for name in ${NAMES:-er-2m-32m sbm-4m-b100 ws-2m-k32 rgg2d-1m-d40 ba-4m-m16 cl-2m-g2.1}; do
  [ $(( $(date +%s) - start )) -gt ${DEADLINE:-500} ] && { echo "deadline: $name not run"; status=3; break; }
  cmd=$(awk -F'\t' -v n="$name" '$1 == n {print $3}' examples/corpus.tsv)
  f=$C/$name.tcsr
  [ -f "$f" ] || $T -q ${cmd#tcgen } -o "$f" || { echo "$name: make failed"; status=1; continue; }
  n=$($T -q --no-store count "$f" --backend cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["triangles"])')
  $T -q --no-store --cache-dir $C/cache count "$f" --backend gpu --repeat 20 --warmup 3 --expect "$n" --json > $C/d.json || { echo "$name: default failed"; status=1; continue; }
  t0=$(date +%s)
  $T -q --store $C/tune.db --cache-dir $C/cache tune "$f" --evals "${EVALS:-40}" --expect "$n" ${COLD:+--cold} --json > $C/t.json 2> $C/$name.tune.err || { echo "$name: tune failed: $(tail -c 300 $C/$name.tune.err)"; status=1; continue; }
  cp $C/t.json $C/$name.tune.json
  python3 - "$name" $C/d.json $C/t.json $(( $(date +%s) - t0 )) >> "$C/tune-corpus.tsv" <<'EOF'
import json, sys
name, d, t, secs = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
ms = t.get("best_ms") or 0
plan = "%s (%s)" % (t.get("best_plan", "?"), t.get("best_label", ""))
print("\t".join(str(x) for x in [name, d["plan"], round(d["gpu_ms"], 4), plan, round(ms, 4), round(ms / d["gpu_ms"], 3) if ms else "?", secs]))
EOF
  tail -1 "$C/tune-corpus.tsv"
done
(cd $C && tar czf "$OUT/tune-corpus.tgz" *.tsv *.tune.json *.err 2>/dev/null)
echo "took $(( $(date +%s) - start )) s"
exit $status
