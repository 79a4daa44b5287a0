#!/usr/bin/env python3
"""Compacts a recording (tcgen store export, .jsonl.gz) for autotune/testdata.

Replays need neither a row's spec (its plan is the space point) nor the
float64 spelling of times the CUDA event timer measured in float32: each
such time is written as the shortest decimal that reads back as the same
float32, which keeps every order and every gap to 1e-7. The large space's
H200 recording goes from 4.8 to 3.4 MB.
  python3 scripts/compact-recording.py IN.jsonl.gz OUT.jsonl.gz
"""
import gzip
import json
import struct
import sys

TIMES = ("median_ms", "min_ms", "max_ms", "kernel_ms")


def f32(x):
    """The shortest decimal of x when x is a float32, else x."""
    if not isinstance(x, float):
        return x
    y = struct.unpack("f", struct.pack("f", x))[0]
    if y != x:
        return x
    for digits in range(1, 10):
        s = float("%.*g" % (digits, x))
        if struct.unpack("f", struct.pack("f", s))[0] == y:
            return s
    return x


def main(src, dst):
    with gzip.open(src, "rt") as f, gzip.open(dst, "wt", compresslevel=9) as out:
        for line in f:
            r = json.loads(line)
            r.pop("spec", None)
            r["samples_ms"] = [f32(v) for v in r.get("samples_ms") or []]
            for k in TIMES:
                if k in r:
                    r[k] = f32(r[k])
            out.write(json.dumps(r, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: compact-recording.py IN.jsonl.gz OUT.jsonl.gz")
    main(sys.argv[1], sys.argv[2])
