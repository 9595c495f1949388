#!/usr/bin/env python3
"""mutate.py: bounded mutation pass comparing `gotrace check` with Go's gotracevalidate.

For each input trace: every truncation point (or up to --max-cuts evenly spaced ones plus
every batch boundary guess), and --flips deterministic byte flips. A case fails when gotrace
crashes, hangs (timeout), or its verdict (valid / invalid) differs from gotracevalidate's.
Invariant: deterministic (fixed seed); the mutated files live in a temporary directory.
Usage: mutate.py GOTRACE GOTRACEVALIDATE [--max-cuts N] [--flips N] FILE...
"""
import argparse
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile


def verdict(cmd, path, stdin=False):
    try:
        if stdin:
            with open(path, "rb") as f:
                p = subprocess.run(cmd, stdin=f, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=20)
        else:
            p = subprocess.run(cmd + [path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=20)
        return p.returncode, p.stderr.decode(errors="replace").strip()[:300]
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gotrace")
    ap.add_argument("validate")
    ap.add_argument("--max-cuts", type=int, default=400)
    ap.add_argument("--flips", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="gotrace-mut-")
    cases = []
    for fn in a.files:
        data = open(fn, "rb").read()
        n = len(data)
        cuts = range(n) if n <= a.max_cuts else sorted(
            set(range(0, n, max(1, n // a.max_cuts))) | {n - 1, 16})
        base = os.path.basename(fn)
        for c in cuts:
            cases.append((f"{base}@cut{c}", data[:c]))
        for i in range(a.flips):
            pos = rnd.randrange(16, n) if n > 16 else 0
            b = bytearray(data)
            b[pos] ^= rnd.choice([1, 2, 4, 8, 16, 32, 64, 128, 0xff, rnd.randrange(1, 256)])
            cases.append((f"{base}@flip{i}-{pos}x{b[pos] ^ data[pos]:02x}", bytes(b)))

    def run(case):
        name, blob = case
        path = os.path.join(tmp, name.replace("/", "_"))
        with open(path, "wb") as f:
            f.write(blob)
        mine, merr = verdict([a.gotrace, "check"], path)
        go, gerr = verdict([a.validate], path, stdin=True)
        os.unlink(path)
        bad = None
        if mine not in (0, 1):
            bad = f"gotrace crashed or hung (status {mine}): {merr}"
        elif (mine == 0) != (go == 0):
            bad = f"verdicts differ: gotrace={mine} ({merr}) go={go} ({gerr})"
        return name, bad

    fails = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for name, bad in ex.map(run, cases):
            if bad:
                fails += 1
                if fails <= 20:
                    print(f"FAIL {name}: {bad}")
    os.rmdir(tmp)
    print(f"mutate: {len(cases)} cases, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
