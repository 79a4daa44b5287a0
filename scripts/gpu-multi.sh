#!/usr/bin/env bash
# count --gpus on a machine of several GPUs, from the bundle (.gpu/: make
# bundle), run from the repository root. For Graph500 RMAT-24 and RMAT-26
# (seed 42, edge factor 16; each made once into .gpu/multi, oriented by
# degree and relabelled, packed where the ids fit 24 bits) it counts with
# the default plan on 1 GPU (--gpus 1), 2 (--gpus 2) and, with more, all of
# them, each REPEAT timed passes after WARMUP untimed ones, and writes
# $OUT/multi.tsv: graph, GPUs, median kernel and pass times, their speedups
# over 1 GPU, the slowest GPU's share of the modelled work, triangles, each
# GPU's median pass and predicted pass, and the inner cuts of the
# first rebalance's before and the last one's after (REBALANCE rounds,
# count --rebalance).
# RMAT-24's count is known (examples/corpus.tsv); RMAT-26's reference is
# the 1-GPU count, checked against the CPU oracle once (--check) unless
# ORACLE=0. Any count that differs ends the script with exit 4.
#   [SCALES="24 26"] [REPEAT=20] [WARMUP=3] [REBALANCE=2] [ORACLE=0] bash scripts/gpu-multi.sh
set -uo pipefail
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T=$PWD/.gpu/bin/tcgen
M=.gpu/multi
mkdir -p "$M"
. "$(dirname "$0")/gpu-lib.sh" # json, table, oriented_rmat
NG=$(nvidia-smi -L | grep -c '^GPU ')
{ nvidia-smi -L; echo; nvidia-smi topo -m; } > "$OUT/topo.txt" 2>&1
cat "$OUT/topo.txt"
"$T" devices > "$OUT/devices.txt" 2>&1
# Known counts of the default RMAT graphs (examples/corpus.tsv).
declare -A want=([24]=10282078419 [26]=49173010214)
TSV=$OUT/multi.tsv
printf 'graph\tgpus\tkernel_ms_median\tgpu_pass_ms_median\tkernel_speedup\tpass_speedup\tslowest_share\ttriangles\tdevice_pass_ms\tpredicted_ms\tcuts\n' > "$TSV"
failures=0
sets="1"
[ "$NG" -ge 2 ] && sets="$sets 2"
[ "$NG" -gt 2 ] && sets="$sets all"
for s in ${SCALES:-24 26}; do
  g=rmat$s
  f=$M/$g.o.tcsr
  if [ ! -f "$f" ]; then
    t0=$(date +%s)
    oriented_rmat "$T" "$s" "$f" || { echo "$g: making it failed"; failures=$((failures + 1)); continue; }
    echo "$g: made in $(( $(date +%s) - t0 )) s"
  fi
  k1=""
  p1=""
  for k in $sets; do
    args=(-q --no-store count "$f" --gpus "$k" --backend gpu --repeat "${REPEAT:-20}" --warmup "${WARMUP:-3}" --rebalance "${REBALANCE:-2}" --json)
    if [ -n "${want[$s]:-}" ]; then
      args+=(--expect "${want[$s]}")
    elif [ "${ORACLE:-1}" = 1 ]; then
      args+=(--check) # the first count of a graph without a known count
    fi
    j=$OUT/$g-gpus$k.json
    "$T" "${args[@]}" > "$j" 2> "$OUT/$g-gpus$k.err"
    rc=$?
    if [ $rc -ne 0 ] || [ ! -s "$j" ]; then
      echo "$g --gpus $k: exit $rc: $(tail -1 "$OUT/$g-gpus$k.err")"
      failures=$((failures + 1))
      continue
    fi
    tri=$(json "$j" 'r["triangles"]')
    [ -z "${want[$s]:-}" ] && want[$s]=$tri # the reference of the counts on more GPUs
    km=$(json "$j" 'r["kernel_ms"]')
    pm=$(json "$j" 'r["gpu_ms"]')
    share=$(json "$j" 'r.get("slowest_device_share", 1)')
    [ -z "$k1" ] && k1=$km && p1=$pm
    ks=$(python3 -c "print(f'{$k1/$km:.3f}')")
    ps=$(python3 -c "print(f'{$p1/$pm:.3f}')")
    n=$(json "$j" 'len(r["devices"])')
    dms=$(json "$j" '"/".join("%.2f" % d["gpu_ms"]["median_ms"] for d in r["devices"])')
    pms=$(json "$j" '"/".join("%.2f" % d.get("predicted_ms", 0) for d in r["devices"])')
    cuts=$(json "$j" '(lambda x: ",".join(map(str, x[0]["cuts_before"][1:-1])) + "->" + ",".join(map(str, x[-1]["cuts_after"][1:-1])) if x else "-")([q for q in r.get("rebalance", []) if "cuts_after" in q])')
    printf '%s\t%s\t%.4f\t%.4f\t%s\t%s\t%.4f\t%s\t%s\t%s\t%s\n' "$g" "$n" "$km" "$pm" "$ks" "$ps" "$share" "$tri" "$dms" "$pms" "$cuts" >> "$TSV"
    echo "$g on $n GPUs: kernels $km ms, pass $pm ms (x$ps over 1 GPU), slowest share $share, $tri triangles ($(json "$j" 'r.get("checked", "unchecked")'))"
  done
done
table "$TSV"
if [ $failures -gt 0 ]; then
  echo "multi: $failures failures"
  exit 4
fi
echo "multi: done"
