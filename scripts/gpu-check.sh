#!/usr/bin/env bash
# The GPU check, run on the GPU machine from the repository root with the
# bundle (.gpu/: make bundle) carried. Results land in $OUT (or ./gpu-out).
#   PLANS="preset:polak,preset:trust,..." scripts/gpu-check.sh
set -uo pipefail
G=${GPU_DIR:-.gpu}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export TCGEN_REQUIRE_GPU=1 TCGEN_DATASETS="$PWD/$G/datasets"
# The end-to-end tests (tests.test, run from tests/) exec this tcgen: no Go here to build one.
TCGEN_BIN="$(cd "$G" && pwd)/bin/tcgen"
export TCGEN_BIN
PLANS=${PLANS:-preset:polak,preset:trust,preset:grouptc,spec:examples/two-class.yaml}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"
"$G/bin/tcgen" devices | tee -a "$OUT/nvidia-smi.txt"

# 1. The GPU tests of each package (compiled by make bundle).
status=0
# TESTS="runtime_executor tests" picks test binaries (make bundle's names:
# the package path with / as _); TEST_RUN is their -test.run, TEST_SKIP
# their -test.skip (e.g. Large).
for t in "$G"/tests/*.test; do
  [ -n "${SKIP_TESTS:-}" ] && break
  n=$(basename "$t" .test)
  [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $n "* ]] && continue
  # From the package's own directory (runtime_cuda: runtime/cuda, tests:
  # tests), as go test runs it: tests read files next to the package
  # (../examples, testdata).
  # 450 s: runtime/executor's tests compile hundreds of plans to machine
  # code (sm_90 cubins), over 300 s on an H100 machine's 16 cores.
  bin=$(cd "$(dirname "$t")" && pwd)/$n.test
  (cd "${n//_//}" && "$bin" -test.v -test.count=1 -test.timeout ${TEST_TIMEOUT:-450s} ${TEST_RUN:+-test.run "$TEST_RUN"} ${TEST_SKIP:+-test.skip "$TEST_SKIP"}) > "$OUT/test-$n.log" 2>&1
  rc=$?; echo "test $n: rc=$rc ($(grep -c '^--- PASS' "$OUT/test-$n.log") passed, $(grep -c '^--- FAIL' "$OUT/test-$n.log") failed, $(grep -c '^--- SKIP' "$OUT/test-$n.log") skipped)"
  [ $rc -ne 0 ] && status=1 && grep -A5 -- '--- FAIL' "$OUT/test-$n.log" | head -40
done

# 2. Every plan on every shared dataset and RMAT 16..22, checked and timed.
if [ -z "${SKIP_TABLE:-}" ]; then
  python3 scripts/gpu-check.py "$G/bin/tcgen" "$G/datasets" "$OUT" --plans "$PLANS" ${RMAT:+--rmat "$RMAT"} ${DATASETS_ONLY:+--datasets-only "$DATASETS_ONLY"} || status=1
fi

# 3. Random valid plans against the oracle: FUZZ_PLANS=500.
if [ -n "${FUZZ_PLANS:-}" ]; then
  "$G/bin/tcgen" -q --cache-dir /tmp/tcgen-cache fuzz --backend gpu --plans "$FUZZ_PLANS" --seed "${FUZZ_SEED:-1}" \
    --failures "$OUT/fuzz-failures" > "$OUT/fuzz.txt" 2>&1
  rc=$?; echo "fuzz: rc=$rc"; grep -E '^(plans|runs|mismatches|errors|time)' "$OUT/fuzz.txt"
  [ $rc -ne 0 ] && status=1
  # at most 8 files come back: fold the failing specs into one.
  if [ -d "$OUT/fuzz-failures" ]; then cat "$OUT"/fuzz-failures/*.yaml > "$OUT/fuzz-failures.yaml"; rm -rf "$OUT/fuzz-failures"; fi
fi
# 4. End to end from the CSR cache: E2E=24 (an RMAT scale made in step 2).
# The canonical file, then the same graph oriented by degree and relabelled
# (tcgen convert --orient degree --relabel), which count reads without orienting.
if [ -n "${E2E:-}" ]; then
  swept=/tmp/tcgen-cache/graphs/sweep-rmat$E2E.tcsr  # made by a sweep or gpu-pivot.sh of this call
  [ -f "/tmp/rmat$E2E.tcsr" ] || { [ -f "$swept" ] && ln -s "$swept" "/tmp/rmat$E2E.tcsr"; }
  [ -f "/tmp/rmat$E2E.tcsr" ] || "$G/bin/tcgen" -q graph rmat --scale "$E2E" -o "/tmp/rmat$E2E.tcsr"
  "$G/bin/tcgen" -q convert "/tmp/rmat$E2E.tcsr" -o "/tmp/rmat$E2E-degree.tcsr" --orient degree --relabel
  for f in "/tmp/rmat$E2E.tcsr" "/tmp/rmat$E2E-degree.tcsr"; do
    echo "== $(basename "$f")"
    python3 scripts/e2e.py "$G/bin/tcgen" "$f" "${E2E_SPEC:-examples/pivot.yaml}" || status=1
  done | tee "$OUT/e2e.txt"
fi
# Pack the logs into one file (only when this run wrote any, so a second
# run into the same OUT keeps the first one's).
if compgen -G "$OUT/*.log" >/dev/null || compgen -G "$OUT/*.yaml" >/dev/null; then
  (cd "$OUT" && tar czf logs.tgz ./*.log ./*.yaml 2>/dev/null; rm -f ./*.log ./*.yaml)
fi
exit $status
