#!/usr/bin/env bash
# Records the large space exhaustively (examples/sweeps/record-large.yaml:
# examples/spaces/large.yaml's 5445 points on 8 graphs of 6 families) on
# the GPU machine, from make bundle's .gpu/, through a tuning store, and
# exports the recording the replay tests read
# (autotune/replay_large_test.go) as $OUT/record-large-GPU.jsonl.gz, e.g.
# record-large-nvidia-h100.jsonl.gz: copy it into autotune/testdata.
#
# Resumable: every finished point is in the store, which comes back as
# $OUT/record-large.db.gz; put it in .gpu/ (carried there) and run the script
# again, and only the points it lacks are measured. A call stops cleanly
# (SIGINT: the store keeps every finished point) after BUDGET seconds; the
# recording is exported once every point of every graph is in the store.
#   BUDGET=540 bash scripts/gpu-record-large.sh
#
# Time, on one H100 with 16 cores: 5445 points x 8 graphs = 43560
# measurements, each a verifying pass, 1 warm-up and 3 timed passes of at
# most a few tenths of a ms (180 to 335 thousand edges; the slowest plans,
# id order on RMAT, near a ms), a prepare of about 1.5 ms (module load,
# buffers, upload) and 1-2 ms on the host (code hash, store on tmpfs,
# clocks): about 5 ms, so 220 s for all. The kernels compile once, in 15
# worker processes through the kernel cache: 4400 plans of one-launch
# classes at about 0.15 s and 1050 of two pivot classes at about 0.8 s of a
# core, 1500 core-seconds, 100 s on 15 cores, while the first graph is
# measured (it waits on them). About 5 minutes in all, 8 if a point takes
# 8 ms; a second call, if one is needed, compiles again what its graphs
# have left (the kernel cache stays on the machine), at most 100 s more.
set -uo pipefail
start=$(date +%s)
. "$(dirname "$0")/gpu-lib.sh" # bundle_env
bundle_env
SWEEP=examples/sweeps/record-large.yaml
# The store and the kernel cache on tmpfs: every measurement is a committed
# transaction (WAL, synchronous full), and a disk's fsync per point would
# cost more than the point.
W=/dev/shm/tcgen-record-large
[ -d /dev/shm ] && [ -w /dev/shm ] || W=/tmp/tcgen-record-large
mkdir -p "$W"
DB=$W/tuning.db
if [ ! -f "$DB" ] && [ -f "$G/record-large.db.gz" ]; then
  gunzip -c "$G/record-large.db.gz" > "$DB" || { echo "cannot read $G/record-large.db.gz"; exit 1; }
  echo "resuming from $G/record-large.db.gz"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/nvidia-smi.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | awk '{print $1 "-" $2}')
echo "== $SWEEP on $gpu ($(nproc) cores), store $DB"
left=$(( ${BUDGET:-540} - ($(date +%s) - start) ))
timeout -s INT "$left" "$T" --store "$DB" --cache-dir "$W/cache" sweep "$SWEEP" --runs 3 --warmup 1 \
  --datasets "$PWD/$G/datasets" --out "$W/sweep" > "$W/sweep.log" 2>&1
rc=$?
grep -E '^sweep' "$W/sweep.log" | tail -12
tail -3 "$W/sweep.log"
# The store comes back whole (tcgen closed it: its WAL is checkpointed).
gzip -c "$DB" > "$OUT/record-large.db.gz"
cp "$W/sweep.log" "$OUT/record-large.log"
if [ $rc -ne 0 ]; then
  echo "rc=$rc: not complete after $(( $(date +%s) - start )) s; put $OUT/record-large.db.gz in $G/ and run again"
  exit 3
fi
cp "$W/sweep/report.md" "$OUT/record-large-report.md" 2>/dev/null
rec=$OUT/record-large-$gpu.jsonl.gz
"$T" --store "$DB" store export --space record-large -o "$W/export.jsonl.gz" || exit 1
python3 scripts/compact-recording.py "$W/export.jsonl.gz" "$rec" || exit 1 # under 4 MiB for testdata
# What it holds: a row per point and graph, and how many failed and why (a
# count other than the graph's known one is a failure, never a best).
python3 - "$rec" <<'EOF'
import collections, gzip, json, sys
rows = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
graphs = collections.Counter(r["graph_name"] for r in rows)
status = collections.Counter(r["status"] for r in rows)
print("%d rows, %d graphs: %s" % (len(rows), len(graphs), dict(graphs)))
print("status: %s" % dict(status))
for r in rows:
    if r["status"] == "ok" and r["triangles"] != r["reference"]:
        sys.exit("row %s on %s counted %d of %d" % (r["plan"], r["graph_name"], r["triangles"], r["reference"]))
EOF
echo "complete in $(( $(date +%s) - start )) s: $rec"
