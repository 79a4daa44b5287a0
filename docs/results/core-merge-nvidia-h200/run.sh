#!/usr/bin/env bash
# Potential of a core bit matrix beside the tiled edge merge on power-law graphs: the merge skipping edges (u, v) with v
# among the highest ids (skip_top, a partial count, checked offline), the pivot plans with cores of 4096 and 8192 (exact),
# and the core kernels' own times under Nsight Compute.
# Needs a tcgen built with skip-top.patch (this folder) for the skip_top specs.
set -uo pipefail
start=$(date +%s)
mkdir -p "$OUT" .gpu/corpus
[ -f .gpu/bin/tcgen ] || tar xzf .gpu/bundle.tgz -C .gpu
T=$PWD/.gpu/bin/tcgen; C=.gpu/corpus
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tee "$OUT/device.txt"
for name in cl-2m-g2.1 ba-500k-m4 cl-4m-g2.5 ba-1m-m8 cl-4m-g3.0 ba-4m-m16; do
  line=$(grep -v '^#' examples/corpus.tsv | awk -F'\t' -v n=$name '$1==n'); cmd=$(echo "$line" | cut -f3); tri=$(echo "$line" | cut -f6)
  [ -f $C/$name.deg.tcsr ] || { $T -q ${cmd#tcgen } -o /tmp/$name.tcsr && $T -q convert /tmp/$name.tcsr -o $C/$name.deg.tcsr --orient degree --relabel && rm -f /tmp/$name.tcsr; }
  for round in 1 2; do
    for s in examples/small.yaml docs/results/core-merge-nvidia-h200/skip4096.yaml docs/results/core-merge-nvidia-h200/skip8192.yaml examples/pivot-one.yaml docs/results/core-merge-nvidia-h200/pivot8192.yaml; do
      ex=""; case $s in *skip*) ;; *) ex="--expect $tri";; esac
      if $T -q --no-store --cache-dir /tmp/tcgen-cache count $C/$name.deg.tcsr --backend gpu --spec $s --repeat 10 --warmup 3 $ex --json > /tmp/r.json 2>/tmp/r.err; then
        python3 -c "import json; r=json.load(open('/tmp/r.json')); print('\t'.join(['$name','$round',r['plan'],str(r['triangles']),'kernel %.4f'%r['kernel_ms'],'gpu %.4f'%r['gpu_ms'],'prep %.4f'%((r.get('prep_ms') or {}).get('median_ms',0)), 'exact' if '$ex' else 'partial (checked offline)']))"
      else echo -e "$name\t$round\t$s\tFAILED rc=$? $(tail -1 /tmp/r.err)"; fi
    done
  done
  for k in 4096 8192; do
    spec=examples/pivot-one.yaml; [ $k = 8192 ] && spec=docs/results/core-merge-nvidia-h200/pivot8192.yaml
    ncu --clock-control none --cache-control none --kernel-name "regex:core$k\$" --launch-skip 3 --launch-count 1 --metrics gpu__time_duration.sum \
      $T -q --cache-dir /tmp/tcgen-cache --no-store count $C/$name.deg.tcsr --backend gpu --spec $spec --warmup 3 --repeat 1 > /tmp/ncu.txt 2>&1
    echo -e "$name\tncu core$k\t$(grep -E 'gpu__time_duration.sum' /tmp/ncu.txt | awk '{print $(NF-1), $NF}' | tr '\n' ' ')\t$(grep -c '==PROF==' /tmp/ncu.txt) prof lines"
  done
done 2>&1 | tee "$OUT/core.tsv"
echo "elapsed $(( $(date +%s) - start )) s"
