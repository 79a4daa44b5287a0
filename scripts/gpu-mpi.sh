#!/usr/bin/env bash
# count --mpi on a machine of several GPUs, from the bundle (.gpu/: make
# bundle), run from the repository root, with the machine's mpirun (the
# GPU image's Open MPI 4.1.6). For Graph500 RMAT graphs of
# SCALES (seed 42, oriented by degree and relabelled, made once into
# .gpu/multi), it counts with one GPU and no MPI (the reference), then
# under mpirun with 2 ranks and, on 4 GPUs or more, 4 (each rank on the
# GPU of its local rank), every count checked against the reference;
# then a shared dataset with --backend cpu on 2 and 4 ranks against the
# manifest. Writes $OUT/mpi.tsv (graph, backend, ranks, triangles, the
# slowest rank's time, each rank's count) and each run's JSON and stderr.
# A count that differs ends the script with exit 4.
#   [SCALES="24 26"] [REPEAT=10] bash scripts/gpu-mpi.sh
set -uo pipefail
[ -f .gpu/bundle.tgz ] && tar xzf .gpu/bundle.tgz -C .gpu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T=$PWD/.gpu/bin/tcgen
M=.gpu/multi
mkdir -p "$M"
# Keep NVLink multicast off in anything started here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
command -v mpirun > /dev/null || { echo "no mpirun on this machine"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$(dirname "$0")/gpu-lib.sh" # json, table, oriented_rmat
NG=$(nvidia-smi -L | grep -c '^GPU ')
ranks="2"
[ "$NG" -ge 4 ] && ranks="2 4"
TSV=$OUT/mpi.tsv
printf 'graph\tbackend\tranks\ttriangles\tslowest_rank_ms\trank_triangles\trank_ms\n' > "$TSV"
failures=0
# run NAME RANKS WANT ARGS...: one count under mpirun, checked and recorded.
run() {
  local name=$1 np=$2 want=$3
  shift 3
  local j=$OUT/$name-np$np.json
  timeout 300 mpirun --oversubscribe -np "$np" "$T" -q --no-store count "$@" --mpi --expect "$want" --json > "$j" 2> "$OUT/$name-np$np.err"
  local rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$j" ]; then
    echo "$name on $np ranks: exit $rc: $(tail -3 "$OUT/$name-np$np.err")"
    failures=$((failures + 1))
    return
  fi
  printf '%s\t%s\t%s\t%s\t%.4f\t%s\t%s\n' "$name" "$(json "$j" 'r["backend"]')" "$(json "$j" 'r["mpi"]["ranks"]')" "$(json "$j" 'r["triangles"]')" \
    "$(json "$j" 'r["mpi"]["slowest_rank_ms"]')" "$(json "$j" '"/".join(map(str, r["mpi"]["rank_triangles"]))')" \
    "$(json "$j" '"/".join("%.2f" % x for x in r["mpi"]["rank_ms"])')" >> "$TSV"
  tail -1 "$TSV"
}
for s in ${SCALES:-24 26}; do
  g=rmat$s
  f=$M/$g.o.tcsr
  if [ ! -f "$f" ]; then
    oriented_rmat "$T" "$s" "$f" || { echo "$g: making it failed"; failures=$((failures + 1)); continue; }
  fi
  "$T" -q --no-store count "$f" --backend gpu --repeat "${REPEAT:-10}" --json > "$OUT/$g-np0.json" 2> "$OUT/$g-np0.err" ||
    { echo "$g on one GPU: failed: $(tail -1 "$OUT/$g-np0.err")"; failures=$((failures + 1)); continue; }
  want=$(json "$OUT/$g-np0.json" 'r["triangles"]')
  printf '%s\tgpu\t0 (no MPI)\t%s\t%.4f\t\n' "$g" "$want" "$(json "$OUT/$g-np0.json" 'r["gpu_ms"]')" >> "$TSV"
  for np in $ranks; do
    run "$g" "$np" "$want" "$f" --backend gpu --repeat "${REPEAT:-10}"
  done
done
d=$(awk -F'\t' '$1 == "ca-GrQc" {print $0}' .gpu/datasets/MANIFEST.tsv)
if [ -n "$d" ]; then
  want=$(python3 -c 'import sys; h=open(sys.argv[1]).readline().rstrip("\n").split("\t"); r=sys.argv[2].split("\t"); print(r[h.index("triangles")])' .gpu/datasets/MANIFEST.tsv "$d")
  path=.gpu/datasets/$(python3 -c 'import sys; h=open(sys.argv[1]).readline().rstrip("\n").split("\t"); r=sys.argv[2].split("\t"); print(r[h.index("file")])' .gpu/datasets/MANIFEST.tsv "$d")
  for np in 2 4; do
    run ca-GrQc-cpu "$np" "$want" "$path" --backend cpu
  done
fi
table "$TSV"
if [ $failures -gt 0 ]; then
  echo "mpi: $failures failures"
  exit 4
fi
echo "mpi: done"
