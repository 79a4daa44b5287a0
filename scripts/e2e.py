#!/usr/bin/env python3
"""End to end: count a graph from a CSR file 1 + WARM times
(default 2) and print where the wall time goes: "cold" after the file's pages
were dropped from the page cache (posix_fadvise DONTNEED: no root needed,
clean pages only), then with the page cache warm. "read+copy+count" is the
issue's measure: start to first count without the context creation (the
module loads, which the issue lets be reported apart, overlap the graph's
upload and are counted); its bound is the gpu pass median + 100 ms. Each run also prints Prepare's phases.
EXPECT, when set, is the triangle count every run must give.

Usage: e2e.py BIN GRAPH SPEC [CACHE_DIR]"""
import json, os, subprocess, sys, time

bin_, graph, spec = sys.argv[1:4]
cache = sys.argv[4] if len(sys.argv) > 4 else "/tmp/tcgen-cache"
expect = os.environ.get("EXPECT")
status = 0
warm = int(os.environ.get("WARM", "2"))
for attempt in ["cold"] + ["warm%d" % (i + 1) for i in range(warm)]:
    if attempt == "cold":
        fd = os.open(os.path.realpath(graph), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    t0 = time.time()
    p = subprocess.run([bin_, "-q", "--cache-dir", cache, "count", graph, "--backend", "gpu", "--spec", spec,
                        "--repeat", "10", "--warmup", "2", "--json"], capture_output=True, text=True)
    wall = (time.time() - t0) * 1e3
    if p.returncode != 0:
        print(attempt, "failed:", p.stderr.strip()[-400:])
        sys.exit(1)
    r = json.loads(p.stdout)
    g = r["gpu"]
    # The issue lets the module load be reported apart; it now overlaps the
    # graph's upload, so it is counted, with the kernel cache's read: only
    # the context creation is left out.
    loads = sum(ph["ms"] for ph in g.get("phases") or [] if ph["name"] in ("module load", "check module"))
    rcc = r["total_ms"] - r.get("context_ms", 0)
    ok = "" if not expect else (" (expected)" if str(r["triangles"]) == expect else " WRONG, expected " + expect)
    if ok.startswith(" WRONG"):
        status = 1
    print(f"{attempt}: process wall {wall:.1f} ms; start to first count {r['total_ms']:.1f} ms = "
          f"load {r['load_ms']:.1f} + context {r.get('context_ms', 0):.1f} + "
          f"prepare {r['prepare_ms']:.1f} [orient {g['orient_ms']:.1f}, host lists {g['lists_ms']:.1f}, "
          f"generate {g['generate_ms']:.1f}, compile/cache+module {g['compile_ms']:.1f}, copy {g['copy_ms']:.1f}] + "
          f"first pass {r.get('first_run_ms', 0):.1f} (gpu pass median {r['gpu_ms']:.1f}); module loads {loads:.1f} (counted); "
          f"graph upload {g.get('upload_wall_ms', 0):.1f} in the background; "
          f"read+copy+count {rcc:.1f} ms against {r['gpu_ms'] + 100:.1f}; triangles {r['triangles']}{ok}")
    # Where prepare and the rest went: Prepare's phases, and what the
    # command spent outside load, context, prepare and the first pass.
    other = r["total_ms"] - r["load_ms"] - r.get("context_ms", 0) - r["prepare_ms"] - r.get("first_run_ms", 0)
    print("   phases: " + ", ".join(f"{ph['name']} {ph['ms']:.1f}" for ph in g.get("phases") or []) +
          f"; outside load, context, prepare and first pass {other:.1f} ms (plan {r.get('plan_ms', 0):.1f}, facts {r.get('facts_ms', 0):.1f})")
sys.exit(status)
