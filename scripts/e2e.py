#!/usr/bin/env python3
"""End to end (issue 5): count a graph from tcgen's CSR cache twice (the
second with the page cache warm) and print where the wall time goes.

Usage: e2e.py BIN GRAPH SPEC [CACHE_DIR]"""
import json, subprocess, sys, time

bin_, graph, spec = sys.argv[1:4]
cache = sys.argv[4] if len(sys.argv) > 4 else "/tmp/tcgen-cache"
for attempt in ("first", "warm"):
    t0 = time.time()
    p = subprocess.run([bin_, "-q", "--cache-dir", cache, "count", graph, "--backend", "gpu", "--spec", spec,
                        "--repeat", "10", "--warmup", "2", "--json"], capture_output=True, text=True)
    wall = (time.time() - t0) * 1e3
    if p.returncode != 0:
        print(attempt, "failed:", p.stderr.strip()[-400:])
        sys.exit(1)
    r = json.loads(p.stdout)
    g = r["gpu"]
    print(f"{attempt}: process wall {wall:.1f} ms; start to first count {r['total_ms']:.1f} ms = "
          f"load {r['load_ms']:.1f} + context {r.get('context_ms', 0):.1f} + "
          f"prepare {r['prepare_ms']:.1f} [orient {g['orient_ms']:.1f}, host lists {g['lists_ms']:.1f}, "
          f"generate {g['generate_ms']:.1f}, compile/cache+module {g['compile_ms']:.1f}, copy {g['copy_ms']:.1f}] + "
          f"first pass {r.get('first_run_ms', 0):.1f} (gpu pass median {r['gpu_ms']:.1f}); triangles {r['triangles']}")
