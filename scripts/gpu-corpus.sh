#!/usr/bin/env bash
# The corpus (examples/corpus.tsv) beside the published codes on the GPU
# machine, in phases that resume on the same warm machine:
#   make   each graph made once into .gpu/corpus (kept while the machine
#          stays), its CPU oracle count and its features (tcgen stats);
#   tcgen  tcgen's default plan with no tuning store (--no-store), and the
#          designs the default chooses between (SPECS), timed, each count
#          checked against the oracle; the first count with an empty kernel
#          cache and a warm one, end to end, on the small graphs;
#   peers  every published code (../shared/peerbench, carried in .peers/),
#          graph by graph until the deadline.
# Results gather under $OUT as one archive (corpus.tgz). Run again until
# it prints "corpus: done".
# A failed graph, count or peer run is a row that says so, and the script
# then ends with "corpus: N failures" and exit 4.
#   PHASES="make tcgen peers" DEADLINE=560 [RETIME=TAG] bash scripts/gpu-corpus.sh
# CORPUS=FILE takes another corpus file (a few lines of it); PEERS_ONLY=A,B
# runs only those peers (peers.py --only); CORPUS_DIR (.gpu/corpus) holds the
# graphs, caches and tables; E2E_GRAPHS="" skips the end-to-end rows; SHARD=1
# (scripts/gpu-corpus-shards.sh) leaves the bundle and the peers' build to
# the caller.
set -uo pipefail
start=$(date +%s)
left() { echo $(( ${DEADLINE:-560} - ($(date +%s) - start) )); }
[ -z "${SHARD:-}" ] && [ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
C=${CORPUS_DIR:-.gpu/corpus}
mkdir -p "$C/tmp"
TMP=$PWD/$C/tmp
T=$PWD/.gpu/bin/tcgen
SPECS=${SPECS:-examples/even.yaml examples/small.yaml examples/pivot-one.yaml}
# The small graphs timed end to end: tcgen's whole process and the peers'.
E2E_GRAPHS=${E2E_GRAPHS-"p2p-Gnutella31 musae_facebook email-Enron"}
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 > "$C/device.txt"
DEVICE=$(cat "$C/device.txt")
# corpus lines: name family command
lines() { grep -v "^#" "${CORPUS:-examples/corpus.tsv}" | tail -n +2 | cut -f1-3; }
# input NAME: the file tcgen reads; text NAME: the edge list the peers read.
input() { echo "$C/$1.tcsr"; }
text() { case "$2" in dataset:*) echo "$PWD/$C/$1.txt.gz";; *) echo "$PWD/$C/$1.txt";; esac; }
. "$(dirname "$0")/gpu-lib.sh" # json, table, dataset_file
# fail WHAT: note a failure (the run then ends with exit 4).
fail() { echo "$1: failed"; echo "$1" >> "$C/failures.txt"; }

make_graphs() {
  while IFS=$'\t' read -r name fam cmd <&3; do
    [ -f "$C/$name.cpu.json" ] && continue
    [ "$(left)" -lt 60 ] && { echo "make: no time left for $name"; return 1; }
    t0=$(date +%s%N)
    case "$cmd" in
      dataset:*) # the peers name a graph by its file: a link under the corpus name
         ln -sf "$PWD/.gpu/datasets/$(dataset_file "${cmd#dataset:}")" "$(text "$name" "$cmd")"
         $T -q convert "$(text "$name" "$cmd")" -o "$(input "$name")" || { fail "make $name"; continue; };;
      *) $T -q ${cmd#tcgen } -o "$(input "$name")" || { fail "make $name"; continue; }
         $T -q convert "$(input "$name")" -o "$(text "$name" "$cmd")";;
    esac
    t1=$(date +%s%N)
    $T -q --no-cache stats "$(input "$name")" --json > "$C/$name.stats.json"
    $T -q --no-cache --no-store count "$(input "$name")" --backend cpu --json > "$C/$name.cpu.json.tmp" && mv "$C/$name.cpu.json.tmp" "$C/$name.cpu.json"
    echo "make $name: $(( (t1 - t0) / 1000000 )) ms to make, $(json "$C/$name.cpu.json" 'r["triangles"]') triangles ($(json "$C/$name.cpu.json" 'round(r["count_ms"])') ms on the CPU)"
  done 3< <(lines)
}

# count NAME LABEL ARGS...: one timed row of tcgen.tsv, checked against the oracle.
count() {
  local name=$1 label=$2; shift 2
  local want; want=$(json "$C/$name.cpu.json" 'r["triangles"]')
  t0=$(date +%s%N)
  $T -q --no-store --cache-dir "$TMP/cache" count "$(input "$name")" --backend gpu --json "$@" > "$TMP/c.json" 2>"$TMP/c.err"
  rc=$?; t1=$(date +%s%N)
  if [ $rc -ne 0 ]; then
    fail "count $name $label" >&2
    printf '%s\t%s\t%s\t\t\t\t\t%s\t%s\tfailed rc=%s: %s\n' "$name" "$label" "$label" "$(( (t1 - t0) / 1000000 ))" "$DEVICE" "$rc" "$(tail -1 "$TMP/c.err" | tr '\t' ' ')"
    return
  fi
  python3 - "$name" "$label" "$want" "$(( (t1 - t0) / 1000000 ))" "$DEVICE" "$TMP/c.json" <<'PY'
import json, sys
name, label, want, wall, dev, path = sys.argv[1:]
r = json.load(open(path))
g = r.get("gpu") or {}
src = r.get("plan_source") or label
ok = "yes" if str(r["triangles"]) == want else "NO (oracle %s)" % want
feats = ",".join("%s=%.4g" % kv for kv in sorted((g.get("features") or {}).items()))
print("\t".join([name, r.get("plan", ""), "default" if src == "default" else label, str(r["triangles"]),
  "%.4f" % r.get("kernel_ms", 0), "%.4f" % r.get("gpu_ms", 0), str(r.get("runs", 0)), wall, dev,
  "exact=%s variant=%s %s%s" % (ok, g.get("variant", ""), feats,
    " slices_ms=%.4f" % g["slices_ms"] if g.get("slices_ms") else "")]))
PY
}

time_tcgen() {
  local f="$C/tcgen.tsv"
  # RETIME=TAG: time every graph again (a new binary), once per TAG however
  # many runs it takes; the old table is kept aside.
  if [ -n "${RETIME:-}" ] && [ ! -f "$C/retimed-$RETIME" ]; then
    [ -f "$f" ] && mv "$f" "$C/tcgen-$(date +%s).tsv.old"
    rm -f "$C/e2e.tsv"
    touch "$C/retimed-$RETIME"
  fi
  [ -f "$f" ] || printf 'graph\tplan\tplan_source\ttriangles\tkernel_ms\tgpu_ms\truns\twall_ms\tdevice\tnote\n' > "$f"
  # End to end on the small real graphs: the first count with an empty
  # kernel cache, then warm (one count, the process's wall).
  if ! grep -q '^e2e' "$C/e2e.tsv" 2>/dev/null; then
    printf 'e2e\tgraph\tcache\twall_ms\tcontext_ms\tcompile_ms\ttotal_ms\n' > "$C/e2e.tsv"
    for name in $E2E_GRAPHS; do
      [ -f "$(input "$name")" ] || continue
      for cache in cold warm warm; do
        [ $cache = cold ] && rm -rf "$TMP/e2e"
        t0=$(date +%s%N)
        $T -q --no-store --cache-dir "$TMP/e2e" count "$(input "$name")" --backend gpu --json > "$TMP/e.json" || { fail "e2e $name"; continue; }
        t1=$(date +%s%N)
        printf 'e2e\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" $cache $(( (t1 - t0) / 1000000 )) "$(json "$TMP/e.json" 'round(r.get("context_ms",0),1)')" "$(json "$TMP/e.json" 'round(r["gpu"]["compile_ms"],1)')" "$(json "$TMP/e.json" 'round(r.get("total_ms",0),1)')" >> "$C/e2e.tsv"
      done
    done
  fi
  while IFS=$'\t' read -r name fam cmd <&3; do
    [ -f "$C/$name.cpu.json" ] || continue
    grep -q "^$name	" "$f" && continue
    [ "$(left)" -lt 40 ] && { echo "tcgen: no time left for $name"; return 1; }
    { count "$name" default --repeat 10
      for s in $SPECS; do count "$name" "$(basename "$s" .yaml)" --spec "$s" --repeat 10; done; } >> "$f"
    grep "^$name	" "$f" | cut -f2,3,5,10 | sed "s/^/$name /"
  done 3< <(lines)
}

run_peers() {
  while IFS=$'\t' read -r name fam cmd <&3; do
    [ -f "$C/$name.cpu.json" ] || continue
    [ -f "$C/peers-$name.tsv" ] && continue
    l=$(left); [ "$l" -lt 60 ] && { echo "peers: no time left for $name"; return 1; }
    python3 .peers/peers.py --graphs "$(text "$name" "$cmd")" --expect "$(basename "$(text "$name" "$cmd")")=$(json "$C/$name.cpu.json" 'r["triangles"]')" \
      --out "$C/peers-$name.tsv.tmp" --deadline $(( l - 30 )) --work "$TMP/peers-work" --timeout ${PEER_TIMEOUT:-120} ${PEERS_ONLY:+--only "$PEERS_ONLY"} \
      $(case " $E2E_GRAPHS " in *" $name "*) echo --e2e;; esac) > "$C/peers-$name.log" 2>&1
    # A graph whose peers ran out of time is run again next time.
    if grep -q 'skipped: deadline' "$C/peers-$name.tsv.tmp"; then echo "peers $name: deadline"; return 1; fi
    [ -s "$C/peers-$name.tsv.tmp" ] || { fail "peers $name"; continue; }
    mv "$C/peers-$name.tsv.tmp" "$C/peers-$name.tsv"
    grep -P '^best\t' "$C/peers-$name.log" | head -1
  done 3< <(lines)
}

status=0
for phase in ${PHASES:-make tcgen peers}; do
  case $phase in
    make) make_graphs || status=3;;
    tcgen) time_tcgen || status=3;;
    peers) # build.sh builds only what is missing (or unpacks .peers/peers-bin.tgz)
           # and packs the binaries to bring home as .peers/peers-bin.tgz.
           if [ -z "${SHARD:-}" ] && ! bash .peers/build.sh --tar "$OUT/peers-bin.tgz" > "$C/peers-build.log" 2>&1; then
             fail "peers build (see peers-build.log)"; status=3; continue
           fi
           run_peers || status=3;;
  esac
done
nfail=$(sort -u "$C/failures.txt" 2>/dev/null | wc -l)
if [ $status -ne 0 ]; then
  echo "corpus: not done (run again)"
elif [ "$nfail" -gt 0 ]; then
  echo "corpus: $nfail failures:"; sort -u "$C/failures.txt"; status=4
else
  echo "corpus: done"
fi
[ -n "${SHARD:-}" ] && exit $status # the caller gathers the shards
(cd "$C" && tar czf "$OUT/corpus.tgz" device.txt *.tsv *.tsv.old *.json *.log failures.txt 2>/dev/null)
echo "took $(( $(date +%s) - start )) s"
exit $status
