#!/usr/bin/env bash
# One device call: the GPU check (tests, fuzzed plans), then sweeps until
# DEADLINE seconds after the start, so the whole call ends inside the
# device tool's 600 s limit. Carry .gpu/bundle.tgz, .gpu/datasets and, to
# resume, .gpu/tuning.db and .gpu/cache.tgz.
#   DEADLINE=560 FUZZ_PLANS=40 SWEEPS="examples/sweeps/small.yaml" bash scripts/gpu-session.sh
set -uo pipefail
start=$(date +%s)
# The binaries travel packed (make bundle writes .gpu/bundle.tgz) to keep the
# working tree under the device tool's 64 MiB.
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
status=0
if [ -z "${SKIP_CHECK:-}" ]; then
  SKIP_TABLE=${SKIP_TABLE-1} bash scripts/gpu-check.sh || status=1
fi
echo "check took $(( $(date +%s) - start )) s"
if [ -n "${SWEEPS:-}" ]; then
  BUDGET=$(( ${DEADLINE:-560} - ($(date +%s) - start) )) bash scripts/gpu-sweep.sh || status=$?
fi
exit $status
