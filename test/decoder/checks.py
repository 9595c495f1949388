#!/usr/bin/env python3
"""checks.py: content checks on gotrace's analyses, used by run.sh.

  checks.py contention FILE REASON_SUBSTR FRAME_SUBSTR MIN_MS [WAKER]
      a wait site whose reason contains REASON_SUBSTR, whose stack mentions FRAME_SUBSTR,
      totals at least MIN_MS (and, if given, was woken by WAKER at least once)
  checks.py summary FILE NAME...        every NAME is a thread in the summary table
  checks.py export FILE.json SUMMARY_FILE NAME MIN_MS
      valid JSON; every event's track has a thread_name; one thread track per thread of the
      summary (region tracks aside); flows pair up; thread NAME has a "blocked" slice of at
      least MIN_MS
  checks.py annotations DUMP SUMMARY FILE.json
      examples/annotations' tasks, regions, logs and thread labels: exact counts in the dump,
      the summary's task and region tables, and the export's region slices (nested, on the
      workers' region tracks) and log instants (on the named threads' tracks)
  checks.py blocks SUMMARY              every thread's BLOCKS is the sum of its waits by reason
  checks.py samples DUMP SUMMARY FUNC MIN
      the summary counts every CPUSample of the dump (at least MIN) once in total and once per
      thread, and FUNC is the top leaf function
Exit 0 when the check holds, 1 with a message otherwise. Invariant: reads only its inputs."""
from collections import Counter
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


def summary_rows(path):
    """The thread table: (name, fields after the name) per thread, then the TOTAL row."""
    rows, inside = [], False
    for ln in open(path).read().split("\n"):
        if ln.startswith("THREAD"):
            inside = True
        elif inside and ln.startswith("TOTAL"):
            return rows, ln.split()[-8:]
        elif inside and ln and not ln.startswith(" "):
            name, *fields = ln.rsplit(None, 10)  # names are not cut: the 10 columns follow
            rows.append((name, fields))
    fail(f"no thread table in {path}")


def summary_names(path):
    return [name for name, _ in summary_rows(path)[0]]


def summary_section(path, title):
    """Rows (first column, numbers...) of the summary table whose header starts with title."""
    rows, inside = {}, False
    for ln in open(path).read().split("\n"):
        if ln.startswith(title):
            inside = True
        elif inside and not ln:
            break
        elif inside:
            name, *fields = ln.rsplit(None, 4 if title == "USER TASK" else 3)
            rows[name] = fields
    return rows


REGION_TID = 1 << 40  # cmd_export.c: a thread's region track


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
    for e in evs:
        if e.get("ph") != "M" and e["tid"] not in named:
            fail(f"{e['ph']} event on unnamed track {e['tid']}")
    nthreads = len(summary_names(summary_path))
    ntracks = len([t for t in named if t < REGION_TID])
    if ntracks != nthreads:
        fail(f"{ntracks} thread tracks but {nthreads} threads in the summary")
    starts = {e["id"] for e in evs if e.get("ph") == "s"}
    ends = {e["id"] for e in evs if e.get("ph") == "f"}
    if not ends <= starts:
        fail("a flow ends without a start")
    tids = [t for t, n in named.items() if n.startswith(name + " (")]
    if not any(e["tid"] in tids and e["name"].startswith("blocked") and e["dur"] >= min_ms * 1000
               for e in slices):
        fail(f"no blocked slice >= {min_ms} ms on {name}")


def annotations(dump_path, summary_path, json_path):
    dump = open(dump_path).read().split("\n")

    def count(*parts):
        return sum(1 for ln in dump if all(p in ln for p in parts))

    want = [
        ((" UserTaskBegin ", 'name="request"'), 40), ((" UserTaskBegin ", 'name="serve"'), 1),
        ((" UserTaskEnd ", 'name="request"'), 40), ((" UserTaskEnd ", 'name="serve"'), 1),
        ((" UserLog ", 'key="result"', 'value="request '), 40),
        ((" UserLog ", 'key="janitor"', 'value="nothing to clean"'), 1),
    ]
    for name in ("handle", "parse", "compute"):
        want += [((" UserRegionBegin ", f'name="{name}"'), 40),
                 ((" UserRegionEnd ", f'name="{name}"'), 40)]
    for parts, n in want:
        if count(*parts) != n:
            fail(f"dump: {count(*parts)} lines with {parts}, want {n}")
    for label in ("worker-0", "worker-1", "janitor"):
        if count(" GoLabel ", f'label="{label}"') < 1:
            fail(f"dump: no GoLabel {label}")

    tasks = summary_section(summary_path, "USER TASK")
    if tasks.get("request", [])[:2] != ["40", "40"] or tasks.get("serve", [])[:2] != ["1", "1"]:
        fail(f"summary tasks: {tasks}")
    regions = summary_section(summary_path, "USER REGION")
    if sorted(regions) != ["compute", "handle", "parse"] or \
            any(r[0] != "40" for r in regions.values()):
        fail(f"summary regions: {regions}")

    evs = json.load(open(json_path))["traceEvents"]
    named = {e["tid"]: e["args"]["name"] for e in evs if e.get("name") == "thread_name"}
    regs = [e for e in evs if e.get("cat") == "region"]
    if Counter(e["name"] for e in regs) != {"handle": 40, "parse": 40, "compute": 40}:
        fail(f"export regions: {Counter(e['name'] for e in regs)}")
    by_track = {}
    for e in regs:
        name = named.get(e["tid"], "")
        if not (re.match(r"worker-[01] \(G\d+ worker\) regions$", name) and
                named.get(e["tid"] - REGION_TID, "") == name[:-len(" regions")]):
            fail(f"region slice on track {name!r}")
        start = round(e["ts"] * 1000)
        by_track.setdefault(e["tid"], []).append((start, start + round(e["dur"] * 1000),
                                                  e["name"]))
    for spans in by_track.values():  # each track's slices nest: parse, compute inside handle
        open_ = []
        for s, end, name in sorted(spans, key=lambda x: (x[0], -x[1])):
            while open_ and open_[-1][1] <= s:
                open_.pop()
            if open_ and end > open_[-1][1]:
                fail(f"region {name} at {s} overlaps {open_[-1][2]} without nesting")
            if (name == "handle") != (not open_) or (open_ and open_[-1][2] != "handle"):
                fail(f"region {name} at {s} nested in {open_[-1][2] if open_ else None}")
            open_.append((s, end, name))
    logs = [e for e in evs if e.get("ph") == "i" and e.get("cat") == "log"]
    result = [e for e in logs if e["name"] == "result"]
    if len(result) != 40 or any(not named[e["tid"]].startswith("worker-") for e in result):
        fail(f"export: {len(result)} result logs, on {set(named[e['tid']] for e in result)}")
    jan = [e for e in logs if e["name"] == "janitor"]
    if len(jan) != 1 or not named[jan[0]["tid"]].startswith("janitor (G") or \
            jan[0]["args"]["message"] != "nothing to clean":
        fail(f"export: janitor log {jan}")


def blocks(path):
    """Every thread's BLOCKS column equals the sum of its 'in N waits' lines."""
    thread, want, got = None, 0, 0
    for ln in open(path).read().split("\n") + ["END"]:
        m = re.match(r"    blocked on .* in (\d+) waits$", ln)
        if m:
            got += int(m.group(1))
            continue
        if thread is not None and want != got:
            fail(f"{thread}: BLOCKS {want}, waits by reason {got}")
        thread = None
        if ln and not ln.startswith((" ", "THREAD", "TOTAL", "trace:")) and len(ln.split()) > 10:
            thread, want, got = ln.rsplit(None, 10)[0], int(ln.split()[-3]), 0


def samples(dump_path, summary_path, func, min_n):
    n = sum(1 for ln in open(dump_path) if " CPUSample " in ln)
    text = open(summary_path).read()
    m = re.search(r"^CPU samples: (\d+) .*\n +\d+ +[\d.]+% +(\S+)", text, re.M)
    if not m or int(m.group(1)) != n or n < min_n:
        fail(f"dump has {n} CPU samples (want >= {min_n}), summary says {m and m.group(1)}")
    if m.group(2) != func:
        fail(f"top leaf function {m.group(2)}, want {func}")
    rows, total = summary_rows(summary_path)
    per_thread = sum(int(f[-1]) for _, f in rows)
    if int(total[-1]) != n or per_thread != n:
        fail(f"samples: total row {total[-1]}, threads {per_thread}, dump {n}")
    if any(int(f[-1]) == 0 for name, f in rows if name.startswith("worker-")):
        fail("a worker has no CPU samples")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "contention":
        contention(args[0], args[1], args[2], float(args[3]), *(args[4:5]))
    elif cmd == "summary":
        summary(*args)
    elif cmd == "export":
        export(args[0], args[1], args[2], float(args[3]))
    elif cmd == "annotations":
        annotations(*args)
    elif cmd == "blocks":
        blocks(*args)
    elif cmd == "samples":
        samples(args[0], args[1], args[2], int(args[3]))
    else:
        fail("unknown check " + cmd)
