#!/usr/bin/env bash
# Records the plan model's corpus (examples/sweeps/transfer.yaml: 24 points
# on 110 graphs of ten families) on the GPU machine from make bundle's
# .gpu/, one sweep shard per GPU (--shard K/N, a store each), and exports
# the recording the model's leave-one-family-out test reads
# (autotune/transfer_test.go) as $OUT/transfer-GPU.jsonl.gz, e.g.
# transfer-nvidia-h200.jsonl.gz: copy it into autotune/testdata.
#
# Resumable: the shards' stores come back as $OUT/transfer-stores.tgz; put
# it in .gpu/ (carried there) and run again, and only missing points run.
# Each shard stops cleanly (SIGINT) after BUDGET seconds. SWEEP=FILE runs
# another sweep of the same graphs instead, named transfer too (e.g. the
# default alone after it changed: docs/results/align-nvidia-h100/transfer-default.yaml).
#   BUDGET=500 [SHARDS=N] [SWEEP=FILE] bash scripts/gpu-transfer.sh
set -uo pipefail
start=$(date +%s)
. "$(dirname "$0")/gpu-lib.sh" # bundle_env
bundle_env
# Stores and caches on tmpfs: a measurement is a committed transaction.
W=/dev/shm/tcgen-transfer
[ -d /dev/shm ] && [ -w /dev/shm ] || W=/tmp/tcgen-transfer
mkdir -p "$W"
if [ -f "$G/transfer-stores.tgz" ] && ! ls "$W"/s*.db > /dev/null 2>&1; then
  tar xzf "$G/transfer-stores.tgz" -C "$W" && echo "resuming from $G/transfer-stores.tgz"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/nvidia-smi.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | awk '{print $1 "-" $2}')
# SHARDS (default: one per GPU) may exceed the GPUs, to resume a recording
# made on more of them: the shards then run one after another on GPU 0, so
# no GPU ever times two at once.
gpus=$(nvidia-smi -L | wc -l)
n=${SHARDS:-$gpus}
echo "== transfer on $n x $gpu ($(nproc) cores)"
shard() { # K: sweep shard K of n on GPU K, or on GPU 0 when there are more shards than GPUs
  local left=$(( ${BUDGET:-500} - ($(date +%s) - start) ))
  [ "$left" -gt 0 ] || { echo "shard $1: no time left" > "$W/s$1.log"; return 3; }
  CUDA_VISIBLE_DEVICES=$(( n > gpus ? 0 : $1 )) timeout -s INT "$left" "$T" --store "$W/s$1.db" --cache-dir "$W/cache$1" sweep "${SWEEP:-transfer}" \
    --shard "$1/$n" --runs 7 --warmup 2 --datasets "$PWD/$G/datasets" --out "$W/out$1" > "$W/s$1.log" 2>&1
}
status=0
if [ "$n" -gt "$gpus" ]; then
  for k in $(seq 0 $((n - 1))); do shard "$k" || status=3; done
else
  for k in $(seq 0 $((n - 1))); do shard "$k" & done
  for k in $(seq 0 $((n - 1))); do
    wait -n || status=3
  done
fi
for k in $(seq 0 $((n - 1))); do echo "shard $k/$n: $(tail -1 "$W/s$k.log")"; done
(cd "$W" && tar czf "$OUT/transfer-stores.tgz" s*.db && tar czf "$OUT/transfer-logs.tgz" s*.log)
if [ $status -ne 0 ]; then
  echo "not complete after $(( $(date +%s) - start )) s; put $OUT/transfer-stores.tgz in $G/ and run again"
  exit 3
fi
rec=$OUT/transfer-$gpu.jsonl.gz
: > "$W/all.jsonl.gz"
for k in $(seq 0 $((n - 1))); do
  "$T" --store "$W/s$k.db" store export --space transfer -o "$W/e$k.jsonl.gz" || exit 1
  cat "$W/e$k.jsonl.gz" >> "$W/all.jsonl.gz" # gzip members concatenate
done
python3 - "$W/all.jsonl.gz" "$rec" <<'EOF2'
import collections, gzip, json, sys
rows = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
graphs = collections.Counter(r["graph_name"] for r in rows)
status = collections.Counter(r["status"] for r in rows)
print("%d rows, %d graphs, status %s" % (len(rows), len(graphs), dict(status)))
for r in rows:
    if r["status"] == "ok" and r["triangles"] != r["reference"]:
        sys.exit("row %s on %s counted %d of %d" % (r["plan"], r["graph_name"], r["triangles"], r["reference"]))
with gzip.open(sys.argv[2], "wt") as f:
    for r in rows:
        r.pop("samples_ms", None)  # the median, min and max stay
        f.write(json.dumps(r, separators=(",", ":")) + "\n")
EOF2
ls -l "$rec"
echo "took $(( $(date +%s) - start )) s"
