#!/usr/bin/env python3
"""Edits an .aicc bundle (docs/bundle-format.md) for aicc-run's tests.

  edit-bundle.py IN OUT flip SECTION OFFSET   flip the low bit of byte OFFSET of SECTION
                                              (manifest, code or weights); checksums untouched
  edit-bundle.py IN OUT replace OLD NEW       replace the first OLD in the manifest by NEW and,
                                              for versions 3 to 5, write a fresh checksum record (a
                                              consistent edit: only the checks behind the
                                              checksums can catch it)

XXH64 is implemented here from the xxHash specification (v0.1.1), independently of the
runtime's C++ one; that the runtime accepts a resealed bundle cross-checks the two.
"""
import struct
import sys

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def rnd(acc, lane):
    return (rotl((acc + lane * P2) & M, 31) * P1) & M


def xxh64(data, seed=0):
    n, p = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while p + 32 <= n:
            for i in range(4):
                v[i] = rnd(v[i], struct.unpack_from("<Q", data, p + 8 * i)[0])
            p += 32
        acc = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v:
            acc = ((acc ^ rnd(0, x)) * P1 + P4) & M
    else:
        acc = (seed + P5) & M
    acc = (acc + n) & M
    while p + 8 <= n:
        acc = (rotl(acc ^ rnd(0, struct.unpack_from("<Q", data, p)[0]), 27) * P1 + P4) & M
        p += 8
    if p + 4 <= n:
        acc = (rotl(acc ^ (struct.unpack_from("<I", data, p)[0] * P1 & M), 23) * P2 + P3) & M
        p += 4
    while p < n:
        acc = (rotl(acc ^ (data[p] * P5 & M), 11) * P1) & M
        p += 1
    acc ^= acc >> 33
    acc = acc * P2 & M
    acc ^= acc >> 29
    acc = acc * P3 & M
    return acc ^ (acc >> 32)


def read(path):
    b = open(path, "rb").read()
    assert b[:8] == b"AICCBND1", "not a bundle"
    sections, p = [], 8
    for _ in range(3):
        (size,) = struct.unpack_from("<Q", b, p)
        sections.append(bytearray(b[p + 8:p + 8 + size]))
        p += 8 + size
    return sections


def write(path, sections):
    with open(path, "wb") as f:
        f.write(b"AICCBND1")
        for s in sections:
            f.write(struct.pack("<Q", len(s)) + bytes(s))


def main():
    src, dst, cmd = sys.argv[1:4]
    manifest, code, weights = read(src)
    if cmd == "flip":
        section, offset = sys.argv[4], int(sys.argv[5])
        target = {"manifest": manifest, "code": code, "weights": weights}[section]
        target[offset] ^= 1
    elif cmd == "replace":
        old, new = sys.argv[4].encode(), sys.argv[5].encode()
        text = bytes(manifest)
        assert old in text, "text not found in the manifest"
        text = text.replace(old, new, 1)
        if text.startswith((b"aicc-bundle 3\n", b"aicc-bundle 4\n", b"aicc-bundle 5\n")):
            records = text[:text.rindex(b"checksum xxh64 ")]
            head = records + b"checksum xxh64 %016x %016x " % (xxh64(bytes(code)),
                                                                xxh64(bytes(weights)))
            text = head + b"%016x\n" % xxh64(head)
        manifest = bytearray(text)
    else:
        sys.exit("unknown command " + cmd)
    write(dst, [manifest, code, weights])


if __name__ == "__main__":
    main()
