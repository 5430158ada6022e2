"""Writes the numpy inputs of aicc-run-input-files.test into DIR (argv[1]).

x = [0..5] and y = 100 + [0..5] as f32 [2, 3], so z = 2x + y has min 100, max 115 and mean
107.5, and the wrong inputs show up in the printed summary.
"""
import sys

import numpy as np

d = sys.argv[1]
x = np.arange(6, dtype=np.float32).reshape(2, 3)
y = x + 100
np.save(d + "/x.npy", x)
np.save(d + "/y.npy", y)
np.savez(d + "/named.npz", y=y, x=x)              # by name, in any order
np.savez_compressed(d + "/positional.npz", x, y)  # arr_0, arr_1
np.savez(d + "/only-y.npz", y=y)
np.savez(d + "/unknown.npz", x=x, w=y)
np.save(d + "/x-f64.npy", x.astype(np.float64))
np.save(d + "/x-big-endian.npy", x.astype(">f4"))
np.save(d + "/x-fortran.npy", np.asfortranarray(x))
with open(d + "/x-truncated.npy", "wb") as f:
    f.write(open(d + "/x.npy", "rb").read()[:-4])
