#!/usr/bin/env bash
# The corpus beside the published codes on every GPU of the machine at once:
# examples/corpus.tsv split into one shard per GPU (greedy by edges, largest
# first, so the split is the same on every run), each shard
# scripts/gpu-corpus.sh on its own GPU (CUDA_VISIBLE_DEVICES) in its own
# directory (.gpu/corpus-I) on its own share of the cores, one phase (make,
# tcgen, peers) at a time on all of them. Kernels do not share a GPU; the
# host's memory is shared, and no end-to-end rows are taken here.
# Run again on the same warm machine until it prints "shards: done".
#   DEADLINE=560 [SHARDS=N] [PEERS_ONLY=A,B] bash scripts/gpu-corpus-shards.sh
# $OUT/corpus.tgz then holds the tables of one gpu-corpus.sh run, merged.
set -uo pipefail
start=$(date +%s)
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -x .gpu/bin/tcgen ] || tar xzf .gpu/bundle.tgz -C .gpu
N=${SHARDS:-$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)}
bash .peers/build.sh --tar "$OUT/peers-bin.tgz" > .gpu/peers-build.log 2>&1 || { echo "shards: peers build failed"; tail -5 .gpu/peers-build.log; exit 3; }
python3 - "$N" <<'PY'
import sys
n = int(sys.argv[1])
lines = [l for l in open("examples/corpus.tsv") if not l.startswith("#")]
head, rows = lines[0], [l for l in lines[1:] if l.strip()]
edges = {l.split("\t")[0]: int(l.split("\t")[4]) for l in open("examples/corpus.tsv") if l[0] != "#" and l.split("\t")[4].isdigit()}
# Every graph costs its edges plus a fixed 2 M for the runs' start-up.
load, shards = [0] * n, [[] for _ in range(n)]
for r in sorted(rows, key=lambda r: -edges.get(r.split("\t")[0], 0)):
    i = load.index(min(load))
    shards[i].append(r)
    load[i] += edges.get(r.split("\t")[0], 0) + 2_000_000
for i, s in enumerate(shards):
    with open(".gpu/corpus-%d.tsv" % i, "w") as f:
        f.write(head + "".join(s))
    print("shard %d: %s" % (i, " ".join(r.split("\t")[0] for r in s)))
PY
# One phase at a time on every shard, the next when all have ended: no
# shard's CPU oracle (make) runs while another times its kernels. Each
# shard on its own share of the cores (taskset; Go's GOMAXPROCS follows
# it): a timed pass is an event, a launch and an event, and a launching
# thread the other shard's sort or load preempts would time the wait.
status=0 failed=0
# The CPUs this script may use (its affinity, not 0..nproc-1), split in N runs.
read -r -a cpus <<< "$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')"
per=$(( ${#cpus[@]} / N ))
pin() {
  if command -v taskset > /dev/null && [ "$per" -gt 0 ]; then
    taskset -c "$(IFS=,; echo "${cpus[*]:$(( $1 * per )):$per}")" "${@:2}"
  else "${@:2}"; fi
}
for i in $(seq 0 $((N - 1))); do : > .gpu/corpus-$i.log; done
for phase in make tcgen peers; do
  left=$(( ${DEADLINE:-560} - ($(date +%s) - start) - 20 ))
  for i in $(seq 0 $((N - 1))); do
    CUDA_VISIBLE_DEVICES=$i SHARD=1 E2E_GRAPHS="" CORPUS=.gpu/corpus-$i.tsv CORPUS_DIR=.gpu/corpus-$i PHASES=$phase \
      OUT=.gpu/corpus-$i/out DEADLINE=$left pin $i bash scripts/gpu-corpus.sh > .gpu/corpus-$i.$phase.log 2>&1 &
  done
  wait
  for i in $(seq 0 $((N - 1))); do
    cat .gpu/corpus-$i.$phase.log >> .gpu/corpus-$i.log
    echo "== shard $i, $phase"; tail -3 .gpu/corpus-$i.$phase.log
    if grep -qE "^corpus: [0-9]+ failures" .gpu/corpus-$i.$phase.log; then
      failed=1 # a failed count or peer: a row that says so; running again does not mend it
    elif ! grep -q "^corpus: done" .gpu/corpus-$i.$phase.log; then
      status=3
    fi
  done
done
# Merge: one header, every shard's rows.
M=.gpu/corpus-merged
rm -rf "$M"; mkdir -p "$M"
cp .gpu/corpus-0/device.txt "$M/"
for t in tcgen.tsv; do
  head -1 .gpu/corpus-0/$t > "$M/$t"
  for i in $(seq 0 $((N - 1))); do tail -n +2 .gpu/corpus-$i/$t >> "$M/$t" 2>/dev/null; done
done
for i in $(seq 0 $((N - 1))); do
  cp .gpu/corpus-$i/peers-*.tsv .gpu/corpus-$i/*.json .gpu/corpus-$i/*.log "$M/" 2>/dev/null
  cat .gpu/corpus-$i/failures.txt >> "$M/failures.txt" 2>/dev/null
  cp .gpu/corpus-$i.log "$M/shard-$i.log"
done
(cd "$M" && tar czf "$OUT/corpus.tgz" *)
if [ $status -ne 0 ]; then
  echo "shards: not done (run again)"
elif [ $failed -ne 0 ]; then
  echo "shards: done, with failures:"; sort -u "$M/failures.txt"; status=4
else
  echo "shards: done"
fi
echo "took $(( $(date +%s) - start )) s"
exit $status
