# Helpers the GPU measurement scripts share (sourced: . scripts/gpu-lib.sh).

# json FILE EXPR: EXPR (Python, the document as r) of a JSON file.
json() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# table TSV: the file's columns aligned (the GPU machine has no column(1)).
table() {
  python3 -c 'import sys; rows=[l.rstrip("\n").split("\t") for l in open(sys.argv[1])]; w=[max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(max(map(len, rows)))]; print("\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(r)) for r in rows))' "$1"
}

# dataset_file NAME: the file of the shared dataset NAME (its MANIFEST.tsv
# line) under .gpu/datasets.
dataset_file() { awk -F'\t' -v n="$1" '$1 == n {print $2}' .gpu/datasets/MANIFEST.tsv; }

# oriented_rmat TCGEN SCALE FILE: Graph500 RMAT of SCALE (seed 42, edge
# factor 16), oriented by degree and relabelled, made into FILE unless it
# is there.
oriented_rmat() {
  [ -f "$3" ] && return 0
  "$1" -q graph rmat --scale "$2" -o "$3.tmp.tcsr" &&
    "$1" -q --no-cache convert "$3.tmp.tcsr" -o "$3" --orient degree --relabel &&
    rm -f "$3.tmp.tcsr"
}

# bundle_env: unpacks make bundle's .gpu/ (or GPU_DIR) once, and sets G (that
# directory), OUT (made, absolute; gpu-out by default) and T (its tcgen).
bundle_env() {
  G=${GPU_DIR:-.gpu}
  [ -f "$G/bundle.tgz" ] && [ ! -x "$G/bin/tcgen" ] && tar xzf "$G/bundle.tgz" -C "$G"
  OUT=${OUT:-gpu-out}
  mkdir -p "$OUT"
  OUT=$(cd "$OUT" && pwd)
  T=$PWD/$G/bin/tcgen
}
