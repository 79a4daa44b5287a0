#!/usr/bin/env python3
"""Summarise gpu-check.log (scripts/gpu-check.sh): one line per run with the
gpu pass, the device-side preparation and each class's kernel time."""
import json, sys

s = open(sys.argv[1]).read()
for b in s.split("\n$ "):
    i = b.find("{")
    if i < 0:
        continue
    try:
        r = json.loads(b[i:b.rfind("}") + 1])
    except json.JSONDecodeError:
        print("unparsed:", b[:200])
        continue
    g = r.get("gpu", {})
    ok = r.get("triangles") == r.get("reference")
    cls = " ".join(f"{c['name']}={c['kernel_ms']['median_ms']:.4f}" for c in g.get("classes", []))
    pk = g.get("prep_kernels_ms") or {}
    cls += " | " + " ".join(f"{k}={pk[k]['median_ms']:.4f}" for k in ("count", "sums", "scan", "bin", "scatter") if k in pk)
    print(f"{r['graph'].split('/')[-1][:16]:16} {r['plan'][:18]:18} {'ok' if ok else 'MISMATCH'} "
          f"gpu {r['gpu_ms']:.4f} [{r['gpu_min_ms']:.4f}, {r['gpu_max_ms']:.4f}] prep {g.get('prep_ms', {}).get('median_ms', 0):.4f} {cls}")
