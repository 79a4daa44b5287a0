#!/usr/bin/env python3
"""Writes single-class candidate specs for small graphs (issue 5) into DIR.

Each is one launch over the whole degree-oriented, relabelled graph, so no
host-built work list enters the timing. Usage: small-candidates.py DIR
"""
import os, sys

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
cands = []
def add(name, it, isect, width, block, params=None):
    cands.append((name, it, isect, width, block, params or {}))

for b in (32, 64, 128):
    for s in (4, 8):
        add(f"vh32b{b}s{s}", "vertex", "hash", 32, 256, {"buckets": b, "slots": s})
add("vh16b64", "vertex", "hash", 16, 256, {"buckets": 64})
add("vh8b32", "vertex", "hash", 8, 256, {"buckets": 32, "slots": 8})
add("vh128", "vertex", "hash", 128, 128, {"buckets": 256})
add("vh256", "vertex", "hash", 256, 256, {"buckets": 512})
add("vbm256", "vertex", "bitmap", 256, 256, {"bitmap_bits": 1 << 15})
add("vbm128", "vertex", "bitmap", 128, 128, {"bitmap_bits": 1 << 16})
for w in (1, 2, 4, 8):
    add(f"ebs{w}", "edge", "binary-search", w, 256)
add("em1b128", "edge", "merge", 1, 128)
add("em1b512", "edge", "merge", 1, 512)
add("emp4", "edge", "merge-path", 4, 256)
add("ecbs", "edge-chunk", "binary-search", 256, 256, {"chunk": 0})
add("eh32", "edge", "hash", 32, 256, {"buckets": 64})
add("vbs32", "vertex", "binary-search", 32, 256)
add("vbs32c", "vertex", "binary-search", 32, 256, {"cache": 256})

for name, it, isect, w, b, p in cands:
    with open(os.path.join(d, f"{name}.yaml"), "w") as f:
        f.write(f"prefix: s{name.replace('-', '')}\norientation: degree\nrelabel: true\nclasses:\n")
        f.write(f"  - name: all\n    select: {{key: outdeg, lo: 0}}\n    iterator: {it}\n    intersection: {isect}\n")
        f.write(f"    width: {w}\n    block: {b}\n")
        if p:
            f.write("    params: {" + ", ".join(f"{k}: {v}" for k, v in p.items()) + "}\n")
print(",".join(f"spec:{os.path.join(d, n)}.yaml" for n, *_ in cands))
