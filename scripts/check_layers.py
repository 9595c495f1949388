#!/usr/bin/env python3
"""check_layers.py: the structure rules of preload/ (README, "How it works"), checked.

1. Every source of preload/ is in one of the layer folders.
2. A file includes project headers of its own layer or of a layer below it only (the build's
   -I paths enforce it too; this names the offending line).
3. No two modules include each other in a circle (a module: a folder's NAME.c and NAME.h).
4. No project header is named like a system header (it would shadow it under -I).
5. Hooks use the tracer API's accessors, not struct gt_thread's fields.
6. README's "How it works" names every file of preload/.
Exit status 0 when all hold, 1 with one line per violation otherwise."""
import os
import re
import subprocess
import sys

LAYERS = ["util", "stack", "buffers", "writer", "flush", "api", "hooks"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRELOAD = os.path.join(ROOT, "preload")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    out = []
    for dirpath, _, files in os.walk(PRELOAD):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(dirpath, f), PRELOAD))
    return sorted(out)


def layer_of(rel):
    parts = rel.split(os.sep)
    return parts[0] if len(parts) == 2 and parts[0] in LAYERS else None


def module_of(rel):
    return os.path.splitext(rel)[0]


def system_include_dirs():
    dirs = ["/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/local/include"]
    try:
        gcc = subprocess.run(["gcc", "-print-file-name=include"], capture_output=True, text=True)
        dirs.append(gcc.stdout.strip())
    except OSError:
        pass
    return [d for d in dirs if os.path.isdir(d)]


def thread_fields():
    text = open(os.path.join(PRELOAD, "buffers", "thread.h")).read()
    body = text[text.index("struct gt_thread {"):]
    body = body[:body.index("} __attribute__")]
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"struct\s*\{[^}]*\}", "struct X", body)  # nested anonymous structs
    names = set()
    for decl in body.split(";"):
        m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", decl.strip())
        if m and m.group(1) not in ("gt_thread",):
            names.add(m.group(1))
    return names


def main():
    errors = []
    files = sources()
    headers = {}  # name -> rel
    for rel in files:
        if layer_of(rel) is None:
            errors.append(f"preload/{rel}: not in a layer folder ({', '.join(LAYERS)})")
        elif rel.endswith(".h"):
            headers[os.path.basename(rel)] = rel

    graph = {}
    for rel in files:
        lay = layer_of(rel)
        if lay is None:
            continue
        text = open(os.path.join(PRELOAD, rel)).read()
        mod = module_of(rel)
        for name in INCLUDE.findall(text):
            target = headers.get(name)
            if target is None:
                continue  # common/ or include/
            tl = layer_of(target)
            if LAYERS.index(tl) > LAYERS.index(lay):
                errors.append(f"preload/{rel}: includes {name} of layer {tl}, above {lay}")
            tm = module_of(target)
            if tm != mod:
                graph.setdefault(mod, set()).add(tm)

    # 3. circles (depth-first search with colours)
    colour = {}
    stack = []

    def visit(m):
        colour[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if colour.get(n) == 1:
                cyc = stack[stack.index(n):] + [n]
                errors.append("modules in a circle: " + " -> ".join(cyc))
            elif n not in colour:
                visit(n)
        stack.pop()
        colour[m] = 2

    for m in sorted(graph):
        if m not in colour:
            visit(m)

    # 4. shadowing of system headers (preload, decoder, common, include)
    sysdirs = system_include_dirs()
    for top in ("preload", "decoder", "common", "include"):
        for dirpath, _, fs in os.walk(os.path.join(ROOT, top)):
            for f in fs:
                if f.endswith(".h"):
                    for d in sysdirs:
                        if os.path.exists(os.path.join(d, f)):
                            rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                            errors.append(f"{rel}: shadows the system header {d}/{f}")

    # 5. hooks do not read or write struct gt_thread's fields
    fields = thread_fields()
    field_use = re.compile(r"->\s*(" + "|".join(sorted(fields)) + r")\b")
    for rel in files:
        if layer_of(rel) != "hooks":
            continue
        for no, line in enumerate(open(os.path.join(PRELOAD, rel)), 1):
            m = field_use.search(line)
            if m and "__data" not in line:
                errors.append(f"preload/{rel}:{no}: uses struct gt_thread's field {m.group(1)}")

    # 6. README's map names every file
    readme = open(os.path.join(ROOT, "README.md")).read()
    start = readme.find("## How it works")
    section = readme[start:readme.find("\n## ", start + 1)]
    for rel in files:
        base = os.path.basename(rel)
        pair = os.path.splitext(base)[0] + ".c/.h"  # "name.c/.h" names both
        if not re.search(r"\b(" + re.escape(base) + "|" + re.escape(pair) + r")\b", section):
            errors.append(f"preload/{rel}: missing from README's \"How it works\"")

    for e in errors:
        print("check_layers: " + e)
    if not errors:
        print(f"check_layers: {len(files)} files in {len(LAYERS)} layers, "
              f"{sum(len(v) for v in graph.values())} module dependencies, no circle")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
