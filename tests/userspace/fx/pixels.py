#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pixels.py SVG PNG NAME STATE: how much of band NAME's width, in PNG
(SVG as rsvg-convert or Chromium drew it, 1 px a unit), is STATE's
colour. The band's place and the colour are read from the SVG (its
label's <text>, the <rect> of the band after it; the legend's swatch),
so the check follows the drawing. Prints "FRACTION MATCHED WIDTH" along
the band's middle row; exit 0 when it could measure, 1 when not.
A PNG decoder of its own (8-bit RGB or RGBA, not interlaced): Debian's
python3 has no imaging library by default."""
import re
import struct
import sys
import zlib


def png_rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, inter = hdr
    if depth != 8 or ctype not in (2, 6) or inter:
        raise ValueError("PNG not 8-bit RGB(A), or interlaced")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    svg_path, png_path, name, state = sys.argv[1:5]
    svg = open(svg_path, encoding="utf-8").read()
    esc = (name.replace("&", "&amp;").replace("<", "&lt;")
           .replace(">", "&gt;").replace('"', "&quot;"))
    m = re.search(r">" + re.escape(esc) + r"</text>\n<rect x=\"(\d+)\" "
                  r"y=\"(\d+)\" width=\"(\d+)\" height=\"(\d+)\"", svg)
    c = re.search(r"fill=\"#([0-9A-F]{6})\" stroke=\"#888\"/><text "
                  r"[^>]*>" + re.escape(state) + "</text>", svg)
    if not m or not c:
        print("no band %r or state %r in %s" % (name, state, svg_path))
        return 1
    x0, y0, bw, bh = (int(v) for v in m.groups())
    want = bytes.fromhex(c.group(1))
    w, h, bpp, rows = png_rows(png_path)
    y = y0 + bh // 2
    if y >= h or x0 + bw > w:
        print("the band (%d, %d) is outside the %dx%d PNG" % (x0, y, w, h))
        return 1
    row = rows[y]
    hit = 0
    for x in range(x0, x0 + bw):
        px = row[x * bpp:x * bpp + 3]
        if all(abs(px[k] - want[k]) <= 6 for k in range(3)):
            hit += 1
    print("%.4f %d %d" % (hit / bw, hit, bw))
    return 0


sys.exit(main())
