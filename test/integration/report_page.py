#!/usr/bin/env python3
"""report_page.py: checks a `gotrace report` page as headless Chromium rendered it.

  report_page.py dom DOM_FILE TEXT...   the rendered DOM has no script error, says the script
                                        finished (data-rendered="yes"), and contains every TEXT
  report_page.py details DOM_FILE TEXT...  the same, and the details panel shows every TEXT
  report_page.py png PNG_FILE COLOR...  the screenshot is not blank: many distinct colours, and
                                        each COLOR (#rrggbb, a timeline state) covers >= 200 pixels
Exit 0 when the check holds, 1 with a message. Reads PNG with zlib only (8-bit RGB/RGBA,
non-interlaced: what Chromium writes). Invariant: reads only its inputs."""
import html
import struct
import sys
import zlib


def fail(msg):
    print("report check failed:", msg)
    sys.exit(1)


def dom(path, *texts):
    text = open(path, encoding="utf-8", errors="replace").read()
    if 'id="script-errors"' in text:
        start = text.index('id="script-errors"')
        fail("script errors: " + html.unescape(text[start:start + 400]))
    if 'data-rendered="yes"' not in text:
        fail("the page's script did not finish (no data-rendered)")
    plain = html.unescape(text)
    for t in texts:
        if t not in plain:
            fail(f"the page does not show {t!r}")


def details(path, *texts):
    """The details panel (id="details") shows every TEXT."""
    dom(path)
    text = html.unescape(open(path, encoding="utf-8", errors="replace").read())
    start = text.find('id="details"')
    panel = text[start:text.find("</div>", start)] if start >= 0 else ""
    for t in texts:
        if t not in panel:
            fail(f"the details panel does not show {t!r}: {panel[:600]!r}")


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail(f"unsupported PNG: depth {depth}, colour type {ctype}, interlace {interlace}")
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows = bytearray(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return [(r[i], r[i + 1], r[i + 2]) for r in rows for i in range(0, stride, bpp)]


def png(path, *colors):
    count = {}
    for p in pixels(path):
        count[p] = count.get(p, 0) + 1
    if len(count) < 20:
        fail(f"the screenshot looks blank: {len(count)} distinct colours")
    for c in colors:
        rgb = tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
        if count.get(rgb, 0) < 200:
            fail(f"the screenshot has {count.get(rgb, 0)} pixels of {c} (a timeline colour)")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"dom": dom, "details": details, "png": png}.get(cmd, lambda *a: fail("unknown check " + cmd))(*args)
