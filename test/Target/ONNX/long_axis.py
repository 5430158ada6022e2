#!/usr/bin/python3
"""Writes the models and test data sets of long-axis.test into WORK_DIR.

Index sequences longer than the importer's kMaxIotaConstant (65536, Importer.h) are computed
at run time (Importer::iotaAlong: hi * B + lo, sliced to n) instead of becoming an n-entry
constant: a fuzz finding (fuzz/regressions/onnx/gridsample-huge-batch-oom.onnx,
iota-along-oom.onnx) built multi-GB constants for legal shapes. Every op that takes that path
gets one model with an axis of 70001 (> 65536, not a multiple of ceil(sqrt(70001)) = 265, so
the slice matters) and expected outputs computed here with numpy, independently of aicc.

Usage (Debian's python3, onnx 1.12): /usr/bin/python3 long_axis.py WORK_DIR
Writes WORK_DIR/NAME.onnx and WORK_DIR/NAME/test_data_set_0/{input,output}_K.pb and prints
the case names, one a line.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from make_test_models import F32, model, vi

I64 = TensorProto.INT64
N = 70001
rng = np.random.default_rng(14)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def write(work, name, m, inputs, outputs):
    with open(os.path.join(work, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())
    d = os.path.join(work, name, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for k, a in enumerate(arrays):
            with open(os.path.join(d, f"{kind}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
    print(name)


def argmax(work):
    # The first maximum of each row, near the far end (index 70000) and past 65536.
    x = rng.uniform(-1, 1, (2, N)).astype(np.float32)
    x[0, N - 1] = x[0, 66000] = 2.0
    x[1, 65537] = 3.0
    write(work, "argmax_long",
          model([helper.make_node("ArgMax", ["x"], ["y"], axis=1, keepdims=1, name="am")],
                [vi("x", F32, [2, N])], [vi("y", I64, [2, 1])]),
          [x], [np.argmax(x, axis=1, keepdims=True).astype(np.int64)])


def onehot(work):
    idx = np.array([0, N - 2, -1, 65536], np.int64)
    y = np.zeros((4, N), np.float32)
    for r, i in enumerate(idx):
        y[r, i % N] = 1.0
    write(work, "onehot_long",
          model([helper.make_node("OneHot", ["i", "depth", "values"], ["y"], axis=-1, name="oh")],
                [vi("i", I64, [4])], [vi("y", F32, [4, N])],
                [const("depth", N), const("values", [0.0, 1.0], np.float32)], opset=11),
          [idx], [y])


def gathernd(work):
    data = rng.uniform(-1, 1, (N, 3)).astype(np.float32)
    idx = (np.arange(N, dtype=np.int64) % 3).reshape(N, 1)
    write(work, "gathernd_long_batch",
          model([helper.make_node("GatherND", ["d", "i"], ["y"], batch_dims=1, name="gnd")],
                [vi("d", F32, [N, 3]), vi("i", I64, [N, 1])], [vi("y", F32, [N])], opset=12),
          [data, idx], [data[np.arange(N), idx[:, 0]]])


def gridsample(work):
    # align_corners=1 and grid points at the corners (+-1): every sample is one input pixel,
    # exactly, so the expected output needs no interpolation here.
    x = rng.uniform(-1, 1, (N, 1, 2, 2)).astype(np.float32)
    corner = rng.integers(0, 2, (N, 2))
    grid = (corner * 2 - 1).astype(np.float32).reshape(N, 1, 1, 2)  # (x, y)
    y = x[np.arange(N), 0, corner[:, 1], corner[:, 0]].reshape(N, 1, 1, 1)
    write(work, "gridsample_long_batch",
          model([helper.make_node("GridSample", ["x", "g"], ["y"], align_corners=1, name="gs")],
                [vi("x", F32, [N, 1, 2, 2]), vi("g", F32, [N, 1, 1, 2])],
                [vi("y", F32, [N, 1, 1, 1])], opset=16),
          [x, grid], [y])


def affinegrid(work):
    theta = np.array([[[0.5, 0.25, 0.1], [-0.75, 1.5, -0.2]]], np.float32)
    xs = -1.0 + (2.0 * np.arange(N) + 1.0) / N  # align_corners=0
    ys = np.zeros(N)  # H = 1: -1 + 1/1 = 0
    base = np.stack([xs, ys, np.ones(N)], axis=-1)  # [W, 3]
    y = (base @ theta[0].astype(np.float64).T).astype(np.float32).reshape(1, 1, N, 2)
    write(work, "affinegrid_long",
          model([helper.make_node("AffineGrid", ["t", "size"], ["y"], align_corners=0, name="ag")],
                [vi("t", F32, [1, 2, 3])], [vi("y", F32, [1, 1, N, 2])],
                [const("size", [1, 1, 1, N])], opset=20),
          [theta], [y])


def stft(work):
    # 17497 frames of 16: a frame-index table of 279952 entries, computed at run time.
    sig = rng.uniform(-1, 1, (1, N - 1, 1)).astype(np.float32)
    step, length = 4, 16
    frames = 1 + (N - 1 - length) // step
    cols = np.arange(frames)[:, None] * step + np.arange(length)[None, :]
    spec = np.fft.rfft(sig[0, cols, 0].astype(np.float64), axis=-1)
    y = np.stack([spec.real, spec.imag], axis=-1).astype(np.float32)[None]
    write(work, "stft_long",
          model([helper.make_node("STFT", ["s", "step", "", "len"], ["y"], onesided=1, name="st")],
                [vi("s", F32, [1, N - 1, 1])], [vi("y", F32, [1, frames, length // 2 + 1, 2])],
                [const("step", step), const("len", length)], opset=17),
          [sig], [y])


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for case in (argmax, onehot, gathernd, gridsample, affinegrid, stft):
        case(out)
