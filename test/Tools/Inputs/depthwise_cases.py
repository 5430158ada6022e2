"""Depthwise convolutions (ONNX Conv with group == C, one output channel per input channel), as
mobilenet's inverted-residual blocks hold them, with seeded random inputs, weights and bias
and the float64 result computed here with numpy (independently of aicc). Each case is an
NCHW model of a 1x1 conv (group 1, C -> C, no bias) then the depthwise conv, as in an
inverted-residual block; with `aicc-compile --conv-layout=nhwc` graph-conv-layout runs both in
channels-last order (the 1x1 conv's transposes sink below the depthwise one), so the
depthwise conv runs on the window template in NHWC (8 to 240 channels, 3x3 / 5x5 / 1x7
windows, strides, dilations, asymmetric padding; the masked taps are the register path's
branch-free gathers on the GPU).

Usage: depthwise_cases.py OUT_DIR [--check AICC_COMPILE AICC_RUN]
  writes OUT_DIR/<case>/model.onnx and OUT_DIR/<case>/test_data_set_0/{input_0,output_0}.pb;
  with --check, compiles each case for the cpu target with --conv-layout=nhwc, checks that
  the depthwise conv runs channels-last (layout = "NHWC" with group = C) and runs the bundle
  against the numpy result (rtol = atol = 1e-2 for f16, 1e-4 for f32): one PASS / FAIL line
  per case, then 'N passed, N failed'; exit 1 when any failed.
"""
import os, subprocess, sys, zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True

# name: (dtype, N, C, spatial, kernel, strides, pads (begin..., end...), dilations, bias)
CASES = {
    "f16_c16_3x3_s2": ("f16", 2, 16, (23, 23), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
    "f16_c72_3x3_s2": ("f16", 2, 72, (14, 14), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
    "f16_c88_3x3": ("f16", 1, 88, (9, 9), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False),
    "f16_c96_5x5_s2": ("f16", 2, 96, (13, 13), (5, 5), (2, 2), (2, 2, 2, 2), (1, 1), True),
    "f16_c240_5x5": ("f16", 2, 240, (7, 7), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1), True),
    "f16_c100_3x3_dil2": ("f16", 1, 100, (11, 10), (3, 3), (1, 1), (2, 1, 2, 3), (2, 2), True),
    "f32_c24_5x5_s2": ("f32", 3, 24, (12, 9), (5, 5), (2, 1), (2, 2, 2, 2), (1, 1), True),
    "f32_c130_3x3": ("f32", 1, 130, (6, 6), (3, 3), (1, 1), (0, 0, 0, 0), (1, 1), True),
    "f32_c8_1x7_s3": ("f32", 2, 8, (3, 40), (1, 7), (1, 3), (0, 3, 0, 3), (1, 1), True),
}


def conv_ref(x, w, b, strides, pads, dil):
    """Depthwise conv in float64: y[n, c, o] = b[c] + sum_k x[n, c, o*s + k*d - p] w[c, 0, k]."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    k = w.shape[2:]
    r = len(sp)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + r]) for i in range(r)])
    out = [(sp[i] + pads[i] + pads[i + r] - dil[i] * (k[i] - 1) - 1) // strides[i] + 1
           for i in range(r)]
    y = np.zeros((n, c) + tuple(out))
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[i] * dil[i], tap[i] * dil[i] + strides[i] * (out[i] - 1) + 1,
                         strides[i]) for i in range(r))
        y += xp[(slice(None), slice(None)) + sl] * w[(slice(None), 0) + tap].reshape(
            (1, c) + (1,) * r)
    return y + b.reshape((1, c) + (1,) * r)


def write(out, name, case):
    dt, n, c, sp, k, strides, pads, dil, has_bias = case
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    npt = np.float16 if dt == "f16" else np.float32
    onnx_t = TensorProto.FLOAT16 if dt == "f16" else TensorProto.FLOAT
    x = rng.standard_normal((n, c) + sp).astype(npt)
    w = (rng.standard_normal((c, 1) + k) / np.sqrt(np.prod(k))).astype(npt)
    p = (rng.standard_normal((c, c) + (1,) * len(sp)) / np.sqrt(c)).astype(npt)
    b = rng.standard_normal(c).astype(npt) if has_bias else np.zeros(c, npt)
    # The 1x1 conv in float64, rounded to the model's type as aicc's kernel stores it.
    h = np.einsum("nc...,mc->nm...", x.astype(np.float64),
                  p.reshape(c, c).astype(np.float64)).astype(npt)
    y = conv_ref(h.astype(np.float64), w.astype(np.float64), b.astype(np.float64), strides,
                 pads, dil).astype(npt)
    inits = [numpy_helper.from_array(p, "p"), numpy_helper.from_array(w, "w")] + (
        [numpy_helper.from_array(b, "b")] if has_bias else [])
    pw = helper.make_node("Conv", ["x", "p"], ["h"], kernel_shape=[1] * len(sp), name="pw")
    node = helper.make_node("Conv", ["h", "w"] + (["b"] if has_bias else []), ["y"],
                            group=c, kernel_shape=list(k), strides=list(strides),
                            pads=list(pads), dilations=list(dil), name="dw")
    graph = helper.make_graph([pw, node], name, [helper.make_tensor_value_info("x", onnx_t, x.shape)],
                              [helper.make_tensor_value_info("y", onnx_t, y.shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for fname, t in (("input_0.pb", x), ("output_0.pb", y)):
        with open(os.path.join(d, "test_data_set_0", fname), "wb") as f:
            f.write(numpy_helper.from_array(t).SerializeToString())


def check(out, compile_, run):
    ok = bad = 0
    for name in CASES:
        d = os.path.join(out, name)
        bundle = os.path.join(out, name + ".aicc")
        flags = [os.path.join(d, "model.onnx"), "--target=cpu", "--conv-layout=nhwc"]
        graph = subprocess.run([compile_] + flags + ["--emit=graph", "-o", "-"],
                               capture_output=True, text=True)
        c = CASES[name][2]
        nhwc = any("graph.conv" in l and "group = %d " % c in l and 'layout = "NHWC"' in l
                   for l in graph.stdout.splitlines())
        built = subprocess.run([compile_] + flags + ["-o", bundle], capture_output=True, text=True)
        tol = "1e-2" if name.startswith("f16") else "1e-4"
        ran = subprocess.run([run, bundle, "--test-data-set", os.path.join(d, "test_data_set_0"),
                              "--rtol", tol, "--atol", tol], capture_output=True, text=True)
        why = ("the depthwise conv is not channels-last" if not nhwc
               else "compile: " + built.stderr[-300:] if built.returncode
               else "run: " + (ran.stdout + ran.stderr)[-300:] if ran.returncode else "")
        print(("FAIL %s: %s" % (name, why)) if why else "PASS %s" % name)
        ok, bad = (ok, bad + 1) if why else (ok + 1, bad)
    print("%d passed, %d failed" % (ok, bad))
    return bad == 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 5) or (len(sys.argv) == 5 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    for name, case in CASES.items():
        write(sys.argv[1], name, case)
    if len(sys.argv) == 5:
        sys.exit(0 if check(sys.argv[1], sys.argv[3], sys.argv[4]) else 1)
    print("\n".join(CASES))
