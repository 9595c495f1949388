#!/usr/bin/env python3
"""footprint.py: what one condvar wait costs an interposer in cache lines, counted exactly.

    footprint.py LIB WORKLOAD N

Runs WORKLOAD N (a ping-pong: bench/workloads/condvar.c) under valgrind's lackey with
LD_PRELOAD=LIB and cuts its instruction stream at every entry to LIB's pthread_cond_wait: in a
ping-pong each piece holds one wait (the waiter's block), the other thread's return from its own
wait and its signal. For each piece it counts LIB's instructions, the 64-byte lines of LIB's code
they fetch and the lines of data they load or store (stacks, thread state, globals, buffers).
After a context switch those lines are cold: docs/cost.md ("What an event pays"). Prints the
medians over the middle half of the pieces: "instructions I-lines D-lines".
Invariants: needs valgrind; writes only a temporary log, removed; x86-64 ELF."""
import os
import re
import statistics
import subprocess
import sys
import tempfile


def exec_range(lib):
    """The [lo, hi) of LIB's executable PT_LOAD segments, as link-time addresses."""
    out = subprocess.run(["readelf", "-lW", lib], capture_output=True, text=True, check=True)
    lo, hi = None, None
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "LOAD" and "E" in f[6:-1]:
            start, size = int(f[2], 16), int(f[5], 16)
            lo = start if lo is None else min(lo, start)
            hi = start + size if hi is None else max(hi, start + size)
    return lo, hi


def symbol(lib, name):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True)
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    sys.exit("footprint.py: %s does not define %s" % (lib, name))


def pieces(log, lib, lo, hi, entry):
    base, started, inside = None, False, False
    n = 0
    ilines, dlines = set(), set()
    avma = re.compile(r"svma 0x([0-9a-f]+), avma 0x([0-9a-f]+)")
    want = "/" + os.path.basename(lib)
    expect = False
    with open(log) as f:
        for line in f:
            if base is None:
                if "Reading syms from" in line and line.rstrip().endswith(want):
                    expect = True
                elif expect and (m := avma.search(line)):
                    base = int(m.group(2), 16) - int(m.group(1), 16)
                    lo, hi, entry = lo + base, hi + base, entry + base
                continue
            if line[0] == "I":
                a = int(line[3:line.index(",")], 16)
                inside = lo <= a < hi
                if a == entry:
                    if started:
                        yield n, len(ilines), len(dlines)
                    started, n = True, 0
                    ilines, dlines = set(), set()
                if inside:
                    n += 1
                    ilines.add(a >> 6)
            elif inside and line[0] == " " and line[1] in "LSM":
                dlines.add(int(line[3:line.index(",")], 16) >> 6)
    if base is None:
        sys.exit("footprint.py: valgrind did not report where %s was loaded" % lib)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: footprint.py LIB WORKLOAD N")
    lib, workload, n = sys.argv[1:]
    lo, hi = exec_range(lib)
    entry = symbol(lib, "pthread_cond_wait")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "lackey.log")
        env = dict(os.environ, LD_PRELOAD=lib, GOTRACE_OUT=os.path.join(tmp, "t.%p.trace"))
        subprocess.run(["valgrind", "-v", "-v", "--tool=lackey", "--trace-mem=yes",
                        "--log-file=" + log, workload, n], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        got = list(pieces(log, lib, lo, hi, entry))
    mid = got[len(got) // 4: 3 * len(got) // 4]
    if not mid:
        sys.exit("footprint.py: no waits seen")
    print(" ".join("%.0f" % statistics.median(p[i] for p in mid) for i in range(3)))


main()
