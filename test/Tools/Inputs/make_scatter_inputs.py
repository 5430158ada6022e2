"""Inputs of Inputs/scatter-kv-cache.mlir, scatter-kv-rope.mlir, scatter-data-shared.mlir,
scatter-axis-add.mlir and scatter-no-tuples.mlir as .npy files in
DIR (test/Tools/scatter-in-place.test): random floats from a fixed seed, and run-time
positions that include a negative one (counted from the end) and, for the reduction,
duplicates (which must combine in order)."""
import sys

import numpy as np

d = sys.argv[1]
g = np.random.default_rng(7)
np.save(d + "/cache.npy", g.standard_normal((2, 2, 32, 16)).astype(np.float32))
np.save(d + "/pos.npy", np.array([[5], [31], [-2]], dtype=np.int64))
np.save(d + "/k.npy", g.standard_normal((2, 2, 3, 16)).astype(np.float32))
np.save(d + "/x.npy", g.standard_normal((2, 3, 4, 5)).astype(np.float32))
np.save(d + "/i.npy", np.array([[0, 1], [2, 3], [0, 1], [1, 0], [-1, -1], [2, 3]], dtype=np.int64))
np.save(d + "/u.npy", g.standard_normal((6, 2, 5)).astype(np.float32))
np.save(d + "/x456.npy", g.standard_normal((4, 5, 6)).astype(np.float32))
np.save(d + "/i02.npy", np.zeros((0, 2), dtype=np.int64))
np.save(d + "/u06.npy", np.zeros((0, 6), dtype=np.float32))
# scatter-kv-rope.mlir: the new keys as a projection's output [B 2, T 3, H * D 32] and the
# rotary tables of the 3 positions [3, 16].
np.save(d + "/kproj.npy", g.standard_normal((2, 3, 32)).astype(np.float32))
np.save(d + "/cos.npy", np.cos(g.standard_normal((3, 16))).astype(np.float32))
np.save(d + "/sin.npy", np.sin(g.standard_normal((3, 16))).astype(np.float32))
# scatter-data-shared.mlir: a [32, 4] and 20 distinct positions (some negative).
np.save(d + "/a32.npy", g.standard_normal((32, 4)).astype(np.float32))
np.save(d + "/i20.npy", (g.permutation(32)[:20] - 16).reshape(20, 1).astype(np.int64))
