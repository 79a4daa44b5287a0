#!/usr/bin/env python3
"""Where a short process's wall time goes, seen from outside: for each
command, ROUNDS interleaved runs, each timed at launch, at the last byte it
wrote to stdout and at its exit (the kernel's teardown of its memory, files
and GPU context comes after its last write). Prints a row per run: label,
ms to the last output byte, ms from there to the exit, the total, and
total_ms / context_ms / release_ms from a tcgen --json output (PROBE_JSONL=FILE:
every such output whole, a line each).

Usage: process-probe.py ROUNDS LABEL=COMMAND... (COMMAND split on spaces;
ENV=VAL words before the program set its environment)."""
import json, os, subprocess, sys, time

# A process that outlives its output by this much is killed (rc -9).
TIMEOUT_S = 60
rounds = int(sys.argv[1])
cmds = []
for a in sys.argv[2:]:
    label, cmd = a.split("=", 1)
    words = cmd.split()
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/") and not words[0].startswith("."):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    if not words:
        sys.exit("process-probe: %s: no command" % a)
    cmds.append((label, words, env))
print("label\tround\tto_last_output_ms\tto_exit_after_output_ms\twall_ms\ttcgen_total_ms\ttcgen_context_ms\ttcgen_release_ms\trc")
for r in range(rounds):
    for label, words, env in cmds:
        t0 = time.monotonic()
        p = subprocess.Popen(words, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        out, last = b"", t0
        while True:
            chunk = os.read(p.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            out, last = out + chunk, time.monotonic()
        try:
            rc = p.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        t1 = time.monotonic()
        total = ctx = rel = ""
        try:
            j = json.loads(out)
        except ValueError:
            j = None
        if isinstance(j, dict):
            total, ctx = "%.1f" % j.get("total_ms", 0), "%.1f" % j.get("context_ms", 0)
            rel = "%.1f" % j.get("release_ms", 0)
            if os.environ.get("PROBE_JSONL"):  # every tcgen report whole, for its phases
                with open(os.environ["PROBE_JSONL"], "a") as f:
                    f.write(json.dumps({"label": label, "round": r, "report": j}) + "\n")
        print("%s\t%d\t%.1f\t%.1f\t%.1f\t%s\t%s\t%s\t%d" % (label, r, (last - t0) * 1e3, (t1 - last) * 1e3, (t1 - t0) * 1e3, total, ctx, rel, rc), flush=True)
