#!/usr/bin/env bash
# Packed CSR files (graph/packed.go) on the GPU: the deferred-check tests
# with files of 4-byte and 3-byte entries, then RMAT-SCALE end to end from
# both files (scripts/gpu-e2e.sh), each binary of BINS beside the others.
# Run from the repository root with the bundle unpacked in .gpu.
#   BINS="base:.gpu/bin/tcgen-base new:.gpu/bin/tcgen newp:.gpu/bin/tcgen:packed" bash scripts/gpu-packed.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
(cd runtime/executor && TCGEN_REQUIRE_GPU=1 "../../$G/tests/runtime_executor.test" -test.run 'TestExecGPUDeferredCheck|TestExecGPU$' -test.v -test.count=1) \
  > "$OUT/tests.txt" 2>&1 || status=1
grep -E '^(---|ok|FAIL|PASS)' "$OUT/tests.txt"
WARM=${WARM:-8} SCALE=${SCALE:-24} OUT=$OUT bash scripts/gpu-e2e.sh || status=1
exit $status
