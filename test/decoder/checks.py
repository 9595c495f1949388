#!/usr/bin/env python3
"""checks.py: content checks on gotrace's analyses, used by run.sh.

  checks.py contention FILE REASON_SUBSTR FRAME_SUBSTR MIN_MS [WAKER]
      a wait site whose reason contains REASON_SUBSTR, whose stack mentions FRAME_SUBSTR,
      totals at least MIN_MS (and, if given, was woken by WAKER at least once)
  checks.py summary FILE NAME...        every NAME is a thread in the summary table
  checks.py export FILE.json SUMMARY_FILE NAME MIN_MS
      valid JSON; every slice's track has a thread_name; one track per thread of the summary;
      flows pair up; thread NAME has a "blocked" slice of at least MIN_MS
Exit 0 when the check holds, 1 with a message otherwise. Invariant: reads only its inputs."""
import json
import re
import sys


def fail(msg):
    print("check failed:", msg)
    sys.exit(1)


def contention(path, reason, frame, min_ms, waker=None):
    text = open(path).read()
    for block in text.split("\n#")[1:]:
        head, *rest = block.split("\n")
        m = re.match(r"\d+\s+(.*?)\s+waits=(\d+)\s+total=(\S+)", head)
        if not m or reason not in m.group(1):
            continue
        if not any(frame in ln for ln in rest):
            continue
        if ms(m.group(3)) < min_ms:
            continue
        woken = [ln for ln in rest if ln.strip().startswith("woken by:")]
        if waker and not any(waker in ln for ln in woken):
            continue
        return
    fail(f"no wait site with reason~{reason!r}, frame~{frame!r}, >= {min_ms} ms, waker {waker}")


def ms(s):
    units = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    m = re.match(r"([\d.]+)(ns|us|ms|s)$", s)
    return float(m.group(1)) * units[m.group(2)] if m else -1


def summary_names(path):
    names = []
    for ln in open(path).read().split("\n"):
        if ln and not ln.startswith((" ", "THREAD", "TOTAL", "trace:")):
            names.append(ln[:28].strip())
    return names


def summary(path, *want):
    names = summary_names(path)
    for w in want:
        if w not in names:
            fail(f"thread {w!r} not in summary (threads: {names[:20]})")


def export(path, summary_path, name, min_ms):
    doc = json.load(open(path))
    evs = doc["traceEvents"]
    named = {e["tid"]: e["args"]["name"] for e in evs if e.get("name") == "thread_name"}
    slices = [e for e in evs if e.get("ph") == "X"]
    for e in slices:
        if e["tid"] not in named:
            fail(f"slice on unnamed track {e['tid']}")
    nthreads = len(summary_names(summary_path))
    if len(named) != nthreads:
        fail(f"{len(named)} tracks but {nthreads} threads in the summary")
    starts = {e["id"] for e in evs if e.get("ph") == "s"}
    ends = {e["id"] for e in evs if e.get("ph") == "f"}
    if not ends <= starts:
        fail("a flow ends without a start")
    tids = [t for t, n in named.items() if n.startswith(name + " (")]
    if not any(e["tid"] in tids and e["name"].startswith("blocked") and e["dur"] >= min_ms * 1000
               for e in slices):
        fail(f"no blocked slice >= {min_ms} ms on {name}")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "contention":
        contention(args[0], args[1], args[2], float(args[3]), *(args[4:5]))
    elif cmd == "summary":
        summary(*args)
    elif cmd == "export":
        export(args[0], args[1], args[2], float(args[3]))
    else:
        fail("unknown check " + cmd)
