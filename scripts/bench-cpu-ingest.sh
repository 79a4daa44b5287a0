#!/usr/bin/env bash
# Ingestion part of `make bench-cpu` (read speed and peak memory):
#  1. read throughput of plain text and gzip, against `zcat > /dev/null` of
#     the same file (a shared dataset; gzip must take at most twice zcat);
#  2. the same on a synthetic 60 MB edge list, and Build alone;
#  3. peak RSS converting RMAT scale 22 written as a text edge list
#     (budget: 32 bytes per input record + 16 per vertex).
# Environment: TCGEN_DATASETS (default ../shared/datasets), BENCH_DATASET
# (default ca-AstroPh.txt.gz), RMAT_SCALE (default 22; the text is ~1 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
datasets=${TCGEN_DATASETS:-../shared/datasets}
dataset=${BENCH_DATASET:-ca-AstroPh.txt.gz}
scale=${RMAT_SCALE:-22}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/graph.test" ./graph

if [[ -f "$datasets/$dataset" ]]; then
	echo "== $dataset (MB/s of the decompressed text)"
	TCGEN_BENCH_GZ="$datasets/$dataset" "$tmp/graph.test" -test.run '^$' \
		-test.bench '^Benchmark(ReadText|ReadGzip|Zcat)$' -test.benchtime 20x
else
	echo "== $datasets/$dataset not found: skipping the dataset benchmark"
fi

echo "== synthetic 4M-line edge list"
"$tmp/graph.test" -test.run '^$' -test.bench '^Benchmark(ReadText|ReadGzip|Zcat|Build)$' -test.benchtime 5x

# The CLI-level numbers (whole-process RSS, oracle speed) are in
# scripts/bench-cpu.sh; SKIP_RSS=1 leaves this in-process RSS check out.
[[ -n "${SKIP_RSS:-}" ]] && exit 0
echo "== peak RSS converting RMAT scale $scale written as text"
TCGEN_RMAT_TEXT="$tmp/rmat.txt" TCGEN_RMAT_SCALE="$scale" "$tmp/graph.test" -test.run '^TestWriteRMATText$'
TCGEN_PEAK_FILE="$tmp/rmat.txt" "$tmp/graph.test" -test.run '^TestPeakRSS$' -test.v | grep -E 'peak RSS|FAIL|ok|PASS'
