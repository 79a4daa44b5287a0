#!/usr/bin/env bash
# Where a short pass's time goes beside its kernels: the launch floor of a
# C program (scripts/launch-floor.cu: N kernels on a stream or as one CUDA
# graph), tcgen's passes on RMAT-18 and small real graphs with and without
# per-kernel events, alone and with the second GPU counting at the same
# time. Needs make bundle's .gpu/ and .gpu/datasets; two GPUs for the
# concurrent rows. Results under $OUT.
set -u
. scripts/gpu-lib.sh
bundle_env
TMP=${TMPDIR:-/tmp}/gaps; mkdir -p "$TMP"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
nvcc -O2 -o "$TMP/launch-floor" scripts/launch-floor.cu && "$TMP/launch-floor" 300 | tee "$OUT/floor.txt"
"$T" -q graph rmat --scale 18 -o "$TMP/rmat18.tcsr"
"$T" -q graph rmat --scale 20 -o "$TMP/rmat20.tcsr"
row() { # label file json
  python3 - "$@" <<'PY' | tee -a "$OUT/gaps.tsv"
import json, sys
label, f = sys.argv[1], sys.argv[2]
r = json.load(open(f)); g = r.get("gpu") or {}
prep = "%.4f" % (g.get("prep_ms") or {}).get("median_ms", 0)
print("\t".join([label, str(r["triangles"]), "%.4f" % r.get("gpu_ms", 0), "%.4f" % r.get("gpu_min_ms", 0), "%.4f" % r.get("kernel_ms", 0), prep]))
PY
}
printf 'run\ttriangles\tgpu_ms\tgpu_min_ms\tkernel_ms\tprep_ms\n' > "$OUT/gaps.tsv"
karate=.gpu/datasets/$(dataset_file karate)
astro=.gpu/datasets/$(dataset_file ca-AstroPh)
fb=.gpu/datasets/$(dataset_file musae_facebook)
for round in 1 2 3; do
  for mode in events pass-only; do
    flag=; [ $mode = pass-only ] && flag=--pass-only
    CUDA_VISIBLE_DEVICES=0 "$T" -q count "$TMP/rmat18.tcsr" --repeat 20 --warmup 3 --expect 83075942 $flag --json > "$TMP/a.json" && row "rmat18 alone $mode r$round" "$TMP/a.json"
    # the second GPU counts RMAT-20 over and over meanwhile
    ( for i in 1 2 3 4 5 6; do CUDA_VISIBLE_DEVICES=1 "$T" -q count "$TMP/rmat20.tcsr" --repeat 20 > /dev/null; done ) & bg=$!
    sleep 1.5
    CUDA_VISIBLE_DEVICES=0 "$T" -q count "$TMP/rmat18.tcsr" --repeat 20 --warmup 3 --expect 83075942 $flag --json > "$TMP/b.json" && row "rmat18 beside $mode r$round" "$TMP/b.json"
    CUDA_VISIBLE_DEVICES=0 "$T" -q count "$astro" --repeat 20 --warmup 3 --expect 1351441 --json > "$TMP/c.json" && row "ca-AstroPh beside r$round" "$TMP/c.json"
    wait $bg
  done
  for g in karate:45 ca-AstroPh:1351441 musae_facebook:794953; do
    f=.gpu/datasets/$(dataset_file ${g%%:*})
    CUDA_VISIBLE_DEVICES=0 "$T" -q count "$f" --repeat 50 --warmup 3 --expect ${g##*:} --json > "$TMP/d.json" && row "${g%%:*} alone r$round" "$TMP/d.json"
  done
done
cp "$TMP"/a.json "$OUT/rmat18-events.json"
table "$OUT/gaps.tsv"
