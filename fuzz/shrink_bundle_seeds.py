#!/usr/bin/env python3
"""Shrinks bundle seeds for aicc-fuzz-bundle: usage shrink_bundle_seeds.py DIR.

The target replaces a bundle's code section with its own trusted shared object before
Session::create, so the seeds' code sections (shared objects, cubins) only cost time: each is
cut to 4 bytes (validateBundle wants a non-empty code section when there are kernels). A
version-3 bundle's checksum record (docs/bundle-format.md: the last manifest line,
"checksum xxh64 CODE WEIGHTS MANIFEST" in hex, MANIFEST hashing the manifest up to and
including the space before it) is recomputed so the seed still parses.

XXH64 (xxhash_spec.md 0.1.1, equal to llvm::xxHash64) comes from
test/Tools/Inputs/edit-bundle.py.
"""
import pathlib
import struct
import sys

import importlib.util

# XXH64 from the bundle-editing test tool (one Python copy of the algorithm in the tree).
_spec = importlib.util.spec_from_file_location(
    "edit_bundle", pathlib.Path(__file__).resolve().parent.parent / "test/Tools/Inputs/edit-bundle.py")
_edit_bundle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_edit_bundle)
xxh64 = _edit_bundle.xxh64


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
