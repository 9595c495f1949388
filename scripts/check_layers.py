#!/usr/bin/env python3
"""check_layers.py: the structure rules of preload/ (README, "How it works") and decoder/
(docs/decoder.md, "Design"), checked.

For each of the two trees:
1. Every source is in one of the tree's layer folders.
2. A file includes project headers of its own layer or of a layer below it only (the build's
   -I paths enforce it too; this names the offending line).
3. No two modules include each other in a circle (a module: a folder's NAME.c and NAME.h).
4. No project header is named like a system header (it would shadow it under -I).
5. Its map names every file: README's "How it works" for preload/; for decoder/, README's
   "The decoder" and docs/decoder.md's "Design".
And:
6. Hooks use the tracer API's accessors, not struct gt_thread's fields.
7. decoder/: no function is longer than 80 lines (but the table-like switches listed in
   LONG_TABLES), and comment lines are at least 0.15 of the code lines (lines holding a
   comment / lines holding code), so the reasoning stays written down as the code grows.
Exit status 0 when all hold, 1 with one line per violation otherwise."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# tree -> its layers, lowest first, and the (document, section) pairs whose text must name
# every file of the tree.
TREES = {
    "preload": (["util", "stack", "buffers", "writer", "flush", "api", "hooks"],
                [("README.md", "## How it works")]),
    "decoder": (["trace", "analysis", "cmd"],
                [("README.md", "## The decoder"), ("docs/decoder.md", "## Design")]),
}
FUNC_MAX = 80
LONG_TABLES = {"gd_transition"}  # one case per event type: a table written as a switch
COMMENT_MIN = 0.15


def sources(tree):
    out = []
    top = os.path.join(ROOT, tree)
    for dirpath, _, files in os.walk(top):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(dirpath, f), top))
    return sorted(out)


def layer_of(tree, rel):
    parts = rel.split(os.sep)
    return parts[0] if len(parts) == 2 and parts[0] in TREES[tree][0] else None


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
    text = open(os.path.join(ROOT, "preload", "buffers", "thread.h")).read()
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


def find_circles(graph, errors):
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


def check_tree(tree, errors):
    """Rules 1-3 and 5 for one tree; returns (files, module dependencies)."""
    layers, maps = TREES[tree]
    files = sources(tree)
    headers = {}  # name -> rel
    for rel in files:
        if layer_of(tree, rel) is None:
            errors.append(f"{tree}/{rel}: not in a layer folder ({', '.join(layers)})")
        elif rel.endswith(".h"):
            headers[os.path.basename(rel)] = rel
    graph = {}
    for rel in files:
        lay = layer_of(tree, rel)
        if lay is None:
            continue
        text = open(os.path.join(ROOT, tree, rel)).read()
        for name in INCLUDE.findall(text):
            target = headers.get(name)
            if target is None:
                continue  # common/ or include/
            tl = layer_of(tree, target)
            if layers.index(tl) > layers.index(lay):
                errors.append(f"{tree}/{rel}: includes {name} of layer {tl}, above {lay}")
            if module_of(target) != module_of(rel):
                graph.setdefault(module_of(rel), set()).add(module_of(target))
    find_circles(graph, errors)
    for doc, title in maps:
        text = open(os.path.join(ROOT, doc)).read()
        start = text.find(title)
        section = text[start:text.find("\n## ", start + 1)] if start >= 0 else ""
        for rel in files:
            base = os.path.basename(rel)
            pair = os.path.splitext(base)[0] + ".c/.h"  # "name.c/.h" names both
            if not re.search(r"\b(" + re.escape(base) + "|" + re.escape(pair) + r")\b", section):
                errors.append(f"{tree}/{rel}: missing from {doc}'s \"{title[3:]}\"")
    return files, sum(len(v) for v in graph.values())


def check_shadowing(errors):
    """Rule 4 over every folder with project headers."""
    sysdirs = system_include_dirs()
    for top in ("preload", "decoder", "common", "include"):
        for dirpath, _, fs in os.walk(os.path.join(ROOT, top)):
            for f in fs:
                if f.endswith(".h"):
                    for d in sysdirs:
                        if os.path.exists(os.path.join(d, f)):
                            rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                            errors.append(f"{rel}: shadows the system header {d}/{f}")


def check_hooks(files, errors):
    """Rule 6: hooks do not read or write struct gt_thread's fields."""
    fields = thread_fields()
    field_use = re.compile(r"->\s*(" + "|".join(sorted(fields)) + r")\b")
    for rel in files:
        if layer_of("preload", rel) != "hooks":
            continue
        for no, line in enumerate(open(os.path.join(ROOT, "preload", rel)), 1):
            m = field_use.search(line)
            if m and "__data" not in line:
                errors.append(f"preload/{rel}:{no}: uses struct gt_thread's field {m.group(1)}")


def line_kinds(text):
    """(lines holding a comment, lines holding code) of C text."""
    comments = code = 0
    in_comment = False
    for line in text.split("\n"):
        has_comment = has_code = False
        i = 0
        while i < len(line):
            if in_comment:
                has_comment = True
                j = line.find("*/", i)
                if j < 0:
                    break
                in_comment, i = False, j + 2
            elif line.startswith("/*", i):
                in_comment = has_comment = True
                i += 2
            elif line.startswith("//", i):
                has_comment = True
                break
            else:
                has_code = has_code or not line[i].isspace()
                i += 1
        comments += has_comment
        code += has_code
    return comments, code


def long_functions(text):
    """(name, lines) of each function definition (a body from "{" to "}" at column 0)."""
    lines = text.split("\n")
    start = None
    for n, line in enumerate(lines):
        if line == "{" and start is None:
            k = n - 1
            while k > 0 and lines[k][:1] in (" ", "\t"):
                k -= 1
            m = re.search(r"(\w+)\s*\(", lines[k])
            start = (k, m.group(1) if m else lines[k])
        elif line == "}" and start is not None:
            if n - start[0] + 1 > FUNC_MAX:
                yield start[1], n - start[0] + 1
            start = None


def check_shape(files, errors):
    """Rule 7 over decoder/."""
    comments = code = 0
    for rel in files:
        text = open(os.path.join(ROOT, "decoder", rel)).read()
        c, k = line_kinds(text)
        comments, code = comments + c, code + k
        for name, n in long_functions(text):
            if name not in LONG_TABLES:
                errors.append(f"decoder/{rel}: {name} has {n} lines (at most {FUNC_MAX})")
    ratio = comments / max(code, 1)
    if ratio < COMMENT_MIN:
        errors.append(f"decoder/: {comments} comment lines for {code} code lines, "
                      f"{ratio:.3f} < {COMMENT_MIN}")
    return ratio


def main():
    errors = []
    summary = []
    for tree in TREES:
        files, deps = check_tree(tree, errors)
        summary.append(f"{tree}/: {len(files)} files in {len(TREES[tree][0])} layers, "
                       f"{deps} module dependencies")
        if tree == "preload":
            check_hooks(files, errors)
        else:
            summary.append(f"comment/code {check_shape(files, errors):.2f}")
    check_shadowing(errors)
    for e in errors:
        print("check_layers: " + e)
    if not errors:
        print("check_layers: " + "; ".join(summary) + "; no circle")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
