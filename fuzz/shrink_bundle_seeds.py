#!/usr/bin/env python3
"""Shrinks bundle seeds for aicc-fuzz-bundle: usage shrink_bundle_seeds.py DIR.

The target replaces a bundle's code section with its own trusted shared object before
Session::create, so the seeds' code sections (shared objects, cubins) only cost time: each is
cut to 4 bytes (validateBundle wants a non-empty code section when there are kernels). A
version-3 bundle's checksum record (docs/bundle-format.md: the last manifest line,
"checksum xxh64 CODE WEIGHTS MANIFEST" in hex, MANIFEST hashing the manifest up to and
including the space before it) is recomputed so the seed still parses.

XXH64 per "xxHash fast digest algorithm" 0.1.1 (github.com/Cyan4973/xxHash,
doc/xxhash_spec.md); equal to llvm::xxHash64 (checked on "", "a", "abc", 31, 32 and 768 bytes).
"""
import pathlib
import struct
import sys

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
def rotl(x, r): return ((x << r) | (x >> (64 - r))) & M
def rnd(acc, lane): return (rotl((acc + lane * P2) & M, 31) * P1) & M
def xxh64(data, seed=0):
    n, i = len(data), 0
    u64 = lambda k: int.from_bytes(data[k:k + 8], "little")
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 32 <= n:
            v = [rnd(v[j], u64(i + 8 * j)) for j in range(4)]
            i += 32
        acc = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v:
            acc = ((acc ^ rnd(0, x)) * P1 + P4) & M
    else:
        acc = (seed + P5) & M
    acc = (acc + n) & M
    while i + 8 <= n:
        acc = (rotl(acc ^ rnd(0, u64(i)), 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        acc = (rotl(acc ^ (int.from_bytes(data[i:i + 4], "little") * P1 & M), 23) * P2 + P3) & M
        i += 4
    while i < n:
        acc = (rotl(acc ^ (data[i] * P5 & M), 11) * P1) & M
        i += 1
    acc ^= acc >> 33; acc = acc * P2 & M; acc ^= acc >> 29; acc = acc * P3 & M
    return acc ^ (acc >> 32)


def shrink(path):
    b = path.read_bytes()
    pos, parts = 8, []
    for _ in range(3):
        if pos + 8 > len(b):
            return
        (n,) = struct.unpack_from("<Q", b, pos)
        parts.append(b[pos + 8:pos + 8 + n])
        pos += 8 + n
    manifest, code, weights = parts
    code = code[:4]
    at = manifest.rfind(b"checksum xxh64 ")
    if at >= 0:
        head = manifest[:at] + b"checksum xxh64 %016x %016x " % (xxh64(code), xxh64(weights))
        manifest = head + b"%016x\n" % xxh64(head)
    framed = b"".join(struct.pack("<Q", len(p)) + p for p in (manifest, code, weights))
    path.write_bytes(b[:8] + framed + b[pos:])


for f in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    shrink(f)
