#!/usr/bin/env bash
# Profile one class kernel of a plan with Nsight Compute on the device
# machine (clocks left alone). Run from the repository root with .gpu carried.
# The graph is RMAT of SCALE, or GRAPH (a file); TAG names the output.
#   SPEC=examples/pivot.yaml KERNEL='_c2$' SCALE=20 scripts/ncu-class.sh
#   SPEC=examples/small.yaml KERNEL='_c0$' GRAPH=.gpu/datasets/BlogCatalog3.txt.gz TAG=-blog scripts/ncu-class.sh
# EXTRA adds ncu options (e.g. "--section SchedulerStats --section WarpStateStats"),
# METRICS more metrics (comma-separated), COUNT_ARGS count options (e.g.
# "--per-edge /tmp/e.npy", which profiles the plan's per-edge kernels).
set -uo pipefail
EXTRA=${EXTRA:-}
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
S=${SCALE:-20}
GRAPH=${GRAPH:-/tmp/rmat$S.tcsr}
[ -f "$GRAPH" ] || "$G/bin/tcgen" -q graph rmat --scale "$S" -o "$GRAPH"
stalls=long_scoreboard,short_scoreboard,wait,math_pipe_throttle,lg_throttle,mio_throttle,no_instruction,barrier,branch_resolving,dispatch_stall,not_selected,selected,tex_throttle,drain,membar,sleeping,imc_miss
metrics=smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for s in ${stalls//,/ }; do metrics="$metrics,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
metrics="$metrics${METRICS:+,$METRICS}"
# SKIP launches of the kernel go by first: count runs the plan once, then
# the three warm-ups, so SKIP=4 profiles the timed run.
# CACHE=none keeps the caches as the previous kernels left them (ncu
# flushes them before the profiled kernel by default).
ncu --clock-control none --cache-control "${CACHE:-all}" --kernel-name "regex:${KERNEL:-_c2\$}" --launch-skip "${SKIP:-0}" --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $EXTRA --metrics "$metrics" \
  "$G/bin/tcgen" -q --cache-dir /tmp/tcgen-cache count "$GRAPH" --backend gpu --spec "${SPEC:-examples/pivot.yaml}" \
  --warmup 3 --repeat 1 ${COUNT_ARGS:-} > "$OUT/ncu${TAG:-}.txt" 2>&1
rc=$?
echo "ncu rc=$rc"
exit $rc
