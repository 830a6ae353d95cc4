#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""recblocks.py REC OUT: the text of a recording's intact blocks (the
frame of store/recfile.h: "TSAB", zlen, len, crc, header crc, then a zstd
frame), joined by NUL bytes, as fuzz_recblock's input (it frames them
again). libzstd through ctypes: no module beyond Python's own."""
import ctypes
import ctypes.util
import struct
import sys

zstd = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
zstd.ZSTD_decompress.restype = ctypes.c_size_t
zstd.ZSTD_decompress.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                 ctypes.c_char_p, ctypes.c_size_t]
zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]

data = open(sys.argv[1], "rb").read()
head = data[:13]
if head not in (b"tsa-record 1\n", b"tsa-record 2\n"):
    sys.exit("%s: not a recording" % sys.argv[1])
pos, blocks = len(head), []
while pos + 20 <= len(data):
    magic, zlen, rawlen = data[pos:pos + 4], *struct.unpack("<II", data[pos + 4:pos + 12])
    if magic != b"TSAB" or pos + 20 + zlen > len(data):
        break
    out = ctypes.create_string_buffer(rawlen + 1)
    got = zstd.ZSTD_decompress(out, rawlen, data[pos + 20:pos + 20 + zlen], zlen)
    if not zstd.ZSTD_isError(got) and got == rawlen:
        blocks.append(out.raw[:rawlen])
    pos += 20 + zlen
if not blocks:
    sys.exit("%s: no intact block" % sys.argv[1])
open(sys.argv[2], "wb").write(b"\0".join(blocks))
