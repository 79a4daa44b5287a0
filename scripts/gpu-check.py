#!/usr/bin/env python3
"""GPU check (runs on the GPU machine, which has CUDA but no Go).

Counts every shared dataset and RMAT scales 16..22 with every plan given,
on the GPU, checks each count against the manifest or the CPU oracle, and
prints one table: graph, plan, device, triangles, expected, ok, kernel ms,
total ms. A row without a device name or an event-timed kernel time fails.

Usage: gpu-check.py BIN DATASETS OUTDIR --plans preset:polak,spec:examples/x.yaml
"""
import argparse, csv, json, os, subprocess, sys, time


def run(cmd, timeout=600):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("datasets")
    ap.add_argument("out")
    ap.add_argument("--plans", required=True)
    ap.add_argument("--rmat", default="16,17,18,19,20,21,22")
    ap.add_argument("--repeat", default="10")
    ap.add_argument("--cache", default="/tmp/tcgen-cache")
    # The RMAT check values (seed 42; graph/rmat_test.go): no oracle
    # run needed for these scales.
    ap.add_argument("--known", default="18=83075942,20=424785436,22=2112253002,24=10282078419")
    ap.add_argument("--datasets-only", default="", help="comma-separated dataset names to keep (default: all)")
    ap.add_argument("--warmup", default="3")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    base = [a.bin, "-q", "--cache-dir", a.cache]

    graphs = []  # (label, path, expected)
    with open(os.path.join(a.datasets, "MANIFEST.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if a.datasets_only and row["name"] not in a.datasets_only.split(","):
                continue
            graphs.append((row["name"], os.path.join(a.datasets, row["file"]), int(row["triangles"])))
    known = {int(k): int(v) for k, v in (x.split("=") for x in a.known.split(",") if x)}
    for s in [int(x) for x in a.rmat.split(",") if x]:
        path = f"/tmp/rmat{s}.tcsr"
        if not os.path.exists(path):
            rc, _, err = run(base + ["graph", "rmat", "--scale", str(s), "-o", path])
            if rc != 0:
                print(f"graph rmat {s} failed: {err}", file=sys.stderr)
                sys.exit(1)
        if s in known:
            graphs.append((f"rmat{s}", path, known[s]))
            continue
        rc, out, err = run(base + ["count", path, "--backend", "cpu", "--json"])
        if rc != 0:
            print(f"oracle rmat {s} failed: {err}", file=sys.stderr)
            sys.exit(1)
        graphs.append((f"rmat{s}", path, json.loads(out)["triangles"]))

    plans = [p.split(":", 1) for p in a.plans.split(",")]
    rows, failures = [], 0
    log = open(os.path.join(a.out, "gpu-check.log"), "w")
    # Rows are also written as they come, so a run stopped by its time limit
    # still brings back what it measured.
    partial = open(os.path.join(a.out, "gpu-check.partial.tsv"), "w")
    for label, path, expected in graphs:
        for kind, name in plans:
            cmd = base + ["count", path, "--backend", "gpu", f"--{kind}", name,
                          "--expect", str(expected), "--repeat", a.repeat, "--warmup", a.warmup, "--json"]
            t0 = time.time()
            rc, out, err = run(cmd)
            wall = time.time() - t0
            log.write(f"$ {' '.join(cmd)}\nrc={rc} wall={wall:.2f}s\n{out}{err}\n")
            r = {}
            try:
                r = json.loads(out) if out.strip() else {}
            except json.JSONDecodeError:
                pass
            tri = r.get("triangles")
            device = r.get("device", "")
            kms = r.get("kernel_ms")
            ok = (rc == 0 and tri == expected and device and r.get("backend") == "gpu"
                  and isinstance(kms, (int, float)) and kms > 0)
            failures += not ok
            rows.append(dict(graph=label, plan=r.get("plan", name), device=device, triangles=tri,
                             expected=expected, ok="ok" if ok else f"FAIL(rc={rc})",
                             kernel_ms=kms, gpu_ms=r.get("gpu_ms"), gpu_min_ms=r.get("gpu_min_ms"),
                             gpu_max_ms=r.get("gpu_max_ms"), sm_mhz=(r.get("gpu") or {}).get("device", {}).get("clock_mhz"),
                             total_ms=r.get("total_ms"), error=err.strip()[-300:] if not ok else ""))
            print(f"{label:22} {name:28} {'ok' if ok else 'FAIL'} {kms} ms gpu {r.get('gpu_ms')} ms", file=sys.stderr, flush=True)
            partial.write("\t".join(str(v) for v in rows[-1].values()) + "\n")
            partial.flush()
    log.close()
    partial.close()
    os.remove(os.path.join(a.out, "gpu-check.partial.tsv"))

    with open(os.path.join(a.out, "gpu-check.tsv"), "w") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    fmt = "| {graph} | {plan} | {device} | {triangles} | {expected} | {ok} | {kernel_ms} | {gpu_ms} | {gpu_min_ms} | {gpu_max_ms} | {sm_mhz} | {total_ms} |"
    lines = ["| graph | plan | device | triangles | expected | ok | kernel ms (median) | gpu pass ms (median) | min | max | SM MHz | total ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        r = dict(r)
        for k in ("kernel_ms", "gpu_ms", "gpu_min_ms", "gpu_max_ms", "total_ms"):
            if isinstance(r[k], (int, float)):
                r[k] = f"{r[k]:.4f}"
        lines.append(fmt.format(**r))
    table = "\n".join(lines)
    with open(os.path.join(a.out, "gpu-check.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    print(f"\n{len(rows) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
