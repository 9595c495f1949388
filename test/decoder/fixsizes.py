#!/usr/bin/env python3
"""fixsizes.py: rewrites the size= of every EventBatch in a gotraceraw text trace so that it
matches the encoded payload that follows; for editing the golden traces by hand.
Usage: fixsizes.py FILE.txt (in place). Invariant: only size= fields change."""
import re
import sys

EV = {"Stacks": 2, "Stack": 3, "Strings": 4, "String": 5, "CPUSamples": 6, "CPUSample": 7,
      "Frequency": 8, "ProcsChange": 9, "ProcStart": 10, "ProcStop": 11, "ProcSteal": 12,
      "ProcStatus": 13, "GoCreate": 14, "GoCreateSyscall": 15, "GoStart": 16, "GoDestroy": 17,
      "GoDestroySyscall": 18, "GoStop": 19, "GoBlock": 20, "GoUnblock": 21,
      "GoSyscallBegin": 22, "GoSyscallEnd": 23, "GoSyscallEndBlocked": 24, "GoStatus": 25,
      "STWBegin": 26, "STWEnd": 27, "HeapAlloc": 37, "HeapGoal": 38, "GoLabel": 39,
      "UserTaskBegin": 40, "UserTaskEnd": 41, "UserRegionBegin": 42, "UserRegionEnd": 43,
      "UserLog": 44, "GoCreateBlocked": 47, "GoStatusStack": 48}


def uv(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return len(out)


def size_of(line):
    if line.startswith("pc="):  # a stack frame: four uvarints
        return sum(uv(int(f.split("=", 1)[1])) for f in line.split())
    name, *fields = line.split()
    if name not in EV:
        raise SystemExit(f"fixsizes: unknown event {name}")
    n = 1
    for f in fields:
        n += uv(int(f.split("=", 1)[1]))
    return n


def main():
    lines = open(sys.argv[1]).read().split("\n")
    out, batch, size = [], None, 0
    for ln in lines:
        s = ln.strip()
        if s.startswith("EventBatch"):
            if batch is not None:
                out[batch] = re.sub(r"size=\d+", f"size={size}", out[batch])
            batch, size = len(out), 0
        elif s.startswith("data="):
            data = eval(s[5:])  # a Go-quoted ASCII string
            size += uv(len(data)) + len(data.encode())
        elif s and batch is not None and not s.startswith("Trace"):
            size += size_of(s)
        out.append(ln)
    if batch is not None:
        out[batch] = re.sub(r"size=\d+", f"size={size}", out[batch])
    open(sys.argv[1], "w").write("\n".join(out))


if __name__ == "__main__":
    main()
