#!/usr/bin/env python3
"""genpng.py DIR FIRST N W H: writes pictures FIRST .. FIRST+N-1 into DIR as
pNNN.png, photograph-like W x H RGB PNGs (gradients and noise, zlib level
1), with the standard library only (for bench/run-multigpu-bench.sh)."""
import os, random, struct, sys, zlib
d, first, n, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
os.makedirs(d, exist_ok=True)
def chunk(t, data):
    c = struct.pack('>I', len(data)) + t + data
    return c + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
for i in range(first, first + n):
    rnd = random.Random(i)
    noise = bytes(rnd.getrandbits(8) & 15 for _ in range(4096))
    rows = []
    for y in range(h):
        base = bytearray(3 * w)
        for x in range(0, w, 8):
            r = (x * 255 // w + i * 7) & 255
            g = (y * 255 // h + i * 13) & 255
            b = ((x + y) * 255 // (w + h) + i * 29) & 255
            base[3 * x:3 * x + 24] = bytes((r, g, b)) * 8
        base = base[:3 * w]
        off = (y * 97) % 4000
        nz = (noise[off:] + noise[:off]) * (3 * w // 4096 + 1)
        row = bytes((a + b) & 255 for a, b in zip(base, nz[:3 * w]))
        rows.append(b'\x00' + row)
    raw = b''.join(rows)
    png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) \
        + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b'')
    open(os.path.join(d, 'p%03d.png' % i), 'wb').write(png)
