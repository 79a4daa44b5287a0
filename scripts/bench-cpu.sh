#!/usr/bin/env bash
# CPU benchmark (make bench-cpu): reader speed, conversion memory, oracle speed.
# Writes a Markdown table to stdout; keep results in docs/results/.
# Needs ~3 GB of disk under BENCH_DIR (default: a temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/tcgen}
DIR=${BENCH_DIR:-$(mktemp -d)}
SCALE_MEM=${SCALE_MEM:-22}   # the issue's memory bound is stated for RMAT-22
SCALE_SPEED=${SCALE_SPEED:-20}
trap '[ -z "${BENCH_KEEP:-}" ] && rm -rf "$DIR"' EXIT
mkdir -p "$DIR"

secs() { # run a command, print its wall seconds (stdout of the command discarded)
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
rss_kb() { # max RSS in KiB of a command
  /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
}
jfield() { # jfield NAME: the first numeric JSON field NAME on stdin
  sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p" | head -1
}
mb() { echo "scale=1; $(stat -c %s "$1") / 1000000" | bc -l; }

echo "# tcgen bench-cpu ($(date -u +%F), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo
echo "| measure | value |"
echo "|---|---|"

# Oracle speed and reading speed on RMAT-SCALE_SPEED.
$BIN -q graph rmat --scale "$SCALE_SPEED" -o "$DIR/r$SCALE_SPEED.tcsr"
$BIN -q --no-cache convert "$DIR/r$SCALE_SPEED.tcsr" -o "$DIR/r$SCALE_SPEED.txt"
gzip -1 -k "$DIR/r$SCALE_SPEED.txt"
txt=$DIR/r$SCALE_SPEED.txt
s=$(secs $BIN -q --no-cache stats "$txt")
echo "| read+clean text RMAT-$SCALE_SPEED ($(mb "$txt") MB) | $(printf %.2f "$s") s = $(echo "scale=0; $(mb "$txt") / $s" | bc -l) MB/s |"
sz=$(secs zcat "$txt.gz")
sg=$(secs $BIN -q --no-cache stats "$txt.gz")
echo "| read+clean gzip RMAT-$SCALE_SPEED ($(mb "$txt.gz") MB) | $(printf %.2f "$sg") s; zcat > /dev/null $(printf %.2f "$sz") s; ratio $(printf %.2f "$(echo "$sg / $sz" | bc -l)") |"
json=$($BIN -q count "$DIR/r$SCALE_SPEED.tcsr" --backend cpu --json)
eps=$(echo "$json" | jfield edges_per_second)
ms=$(echo "$json" | jfield count_ms)
tri=$(echo "$json" | jfield triangles)
echo "| oracle RMAT-$SCALE_SPEED ($tri triangles) | $(printf %.1f "$ms") ms = $(printf %.3g "$eps") edges/s |"
rm -f "$txt" "$txt.gz"

# Peak memory converting RMAT-SCALE_MEM written as a text edge list.
$BIN -q graph rmat --scale "$SCALE_MEM" -o "$DIR/r$SCALE_MEM.txt"
edges=$(wc -l < "$DIR/r$SCALE_MEM.txt")
kb=$(rss_kb $BIN -q --no-cache convert "$DIR/r$SCALE_MEM.txt" -o "$DIR/r$SCALE_MEM.tcsr")
verts=$($BIN -q stats "$DIR/r$SCALE_MEM.tcsr" --json | jfield vertices)
limit=$(( (32 * edges + 16 * verts) / 1024 ))
echo "| max RSS converting RMAT-$SCALE_MEM text ($edges edges, $verts vertices) | $((kb / 1024)) MiB (bound 32 B/edge + 16 B/vertex = $((limit / 1024)) MiB; $(echo "scale=1; $kb * 1024 / $edges" | bc -l) B/edge) |"
s=$(secs $BIN -q --no-cache convert "$DIR/r$SCALE_MEM.txt" -o "$DIR/r$SCALE_MEM.tcsr")
echo "| convert RMAT-$SCALE_MEM text ($(mb "$DIR/r$SCALE_MEM.txt") MB) to CSR | $(printf %.2f "$s") s = $(echo "scale=0; $(mb "$DIR/r$SCALE_MEM.txt") / $s" | bc -l) MB/s |"
if [ "$kb" -gt "$limit" ]; then echo "memory bound exceeded" >&2; exit 1; fi
