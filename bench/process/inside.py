#!/usr/bin/env python3
"""inside.py RUNS LABEL VAR=VALUE... -- COMMAND...: the tracer's own time inside a short process.

Runs COMMAND RUNS times with the variables added to its environment (LD_PRELOAD=libgotrace.so,
GOTRACE_*; this script itself runs untraced) and GOTRACE_DEBUG=1, reads the line the tracer prints at exit (preload/util/selfcost.h: start-up,
stack walks and the unwind rules they read, live-file pages backed, stack tables, final write)
and prints one Markdown table row of the medians: the parts a process's whole time (perf,
procbench) cannot resolve on shared CPUs, to a few µs.
Invariants: COMMAND must be one process (a command that starts others prints a line each: the
row would mix them); exits 1 when no run printed the line (the tracer not loaded, or too old)."""
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"own time here: start-up (\d+) us; (\d+) stack walks (\d+) us, (\d+) new unwind "
                  r"rules (\d+) us of it; (\d+) live-file pages backed (\d+) us; (\d+) stack "
                  r"tables (\d+) us; final write (\d+) us")


def main():
    args = sys.argv[3:]
    if "--" not in args or not args[args.index("--") + 1:]:
        sys.exit("usage: inside.py RUNS LABEL VAR=VALUE... -- COMMAND...")
    runs, label, cmd = int(sys.argv[1]), sys.argv[2], args[args.index("--") + 1:]
    env = dict(os.environ, GOTRACE_DEBUG="1")
    env.update(kv.split("=", 1) for kv in args[:args.index("--")])
    rows = []
    for _ in range(runs):
        err = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env).stderr
        m = LINE.search(err.decode(errors="replace"))
        if m:
            rows.append([int(x) for x in m.groups()])
    if not rows:
        sys.exit("inside.py: no run printed the tracer's own time")
    med = [statistics.median(col) for col in zip(*rows)]
    start, walks, t_walk, rules, t_rules, pages, t_back, tables, t_sym, t_final = med
    print(f"| {label} ({len(rows)} runs) | {start:.0f} | {walks:.0f}: {t_walk:.0f} "
          f"({rules:.0f} rules: {t_rules:.0f}) | {pages:.0f}: {t_back:.0f} | {tables:.0f}: "
          f"{t_sym:.0f} | {t_final:.0f} | {start + t_walk + t_final:.0f} |")


if __name__ == "__main__":
    main()
