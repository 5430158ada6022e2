#!/usr/bin/python3
"""Writes the small ONNX models of long-rows.test into Inputs/<name>/ (model.onnx +
test_data_set_0/{input,output}_K.pb): reductions and row kernels (softmax, log_softmax,
layer_norm, RMS norm) over more elements than the kernel templates' one-pass limits (4096 reduced elements, 16384 row elements),
which take the chunked loops of lib/Conversion/GraphToTile/KernelTemplates.cpp.
Inputs are seeded random numbers; expected outputs are numpy float64 evaluations of the
ONNX operator definitions, rounded to the output type.
Run with Debian's /usr/bin/python3 (onnx + numpy): /usr/bin/python3 make_long_row_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261129)
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    """inputs / outputs: [(name, array)] with the arrays' dtypes and shapes."""
    vi = lambda n, a: helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype.type], a.shape)
    graph = helper.make_graph(nodes, name, [vi(n, a) for n, a in inputs],
                              [vi(n, a) for n, a in outputs],
                              [numpy_helper.from_array(a, n) for n, a in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="aicc make_long_row_models.py")
    model.ir_version = 8
    d = os.path.join(HERE, "Inputs", name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", inputs), ("output", outputs)):
        for k, (n, a) in enumerate(vals):
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def softmax64(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# Softmax over rows of 10000 (f32), then a fused consumer (* 3).
x = (rng.standard_normal((2, 10000)) * 4).astype(np.float32)
three = np.array(3.0, np.float32)
save("softmax_2x10000_f32",
     [helper.make_node("Softmax", ["x"], ["s"], axis=-1),
      helper.make_node("Mul", ["s", "three"], ["y"])],
     [("x", x)], [("y", (softmax64(x, 1) * 3).astype(np.float32))], [("three", three)])

# LogSoftmax over a strided axis of 5000 (inner dim 2), f16 in and out (f32 inside).
x = (rng.standard_normal((2, 5000, 2)) * 2).astype(np.float16)
x64 = x.astype(np.float64)
ref = x64 - x64.max(axis=1, keepdims=True)
ref = ref - np.log(np.exp(ref).sum(axis=1, keepdims=True))
save("logsoftmax_2x5000x2_f16", [helper.make_node("LogSoftmax", ["x"], ["y"], axis=1)],
     [("x", x)], [("y", ref.astype(np.float16))])

# ReduceSum over 6480 elements (the size of node/test_nllloss_NCd1d2d3d4d5's sum).
x = rng.standard_normal((3, 6480)).astype(np.float32)
save("reduce_sum_3x6480_f32",
     [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=1)],
     [("x", x)], [("y", x.astype(np.float64).sum(axis=1, keepdims=True).astype(np.float32))],
     [("axes", np.array([1], np.int64))], opset=13)

# ReduceMean over a strided axis of 5000 (stride 3).
x = (rng.standard_normal((5000, 3)) + 0.5).astype(np.float32)
save("reduce_mean_5000x3_f32",
     [helper.make_node("ReduceMean", ["x"], ["y"], axes=[0], keepdims=0)],
     [("x", x)], [("y", x.astype(np.float64).mean(axis=0).astype(np.float32))])

# ReduceMax over 9000 f16 elements (the max in the last, partial chunk of one row).
x = (rng.standard_normal((3, 9000)) * 10).astype(np.float16)
x[1, 8999] = np.float16(100.0)
save("reduce_max_3x9000_f16",
     [helper.make_node("ReduceMax", ["x"], ["y"], axes=[1], keepdims=0)],
     [("x", x)], [("y", x.max(axis=1))])

# ReduceMin over two dims (3000 x 2 = 6000 elements) and ReduceProd over 5000 near 1.
x = rng.standard_normal((2, 3000, 2)).astype(np.float32)
save("reduce_min_2x3000x2_f32",
     [helper.make_node("ReduceMin", ["x"], ["y"], axes=[1, 2], keepdims=1)],
     [("x", x)], [("y", x.min(axis=(1, 2), keepdims=True))])
x = (1 + 0.01 * rng.standard_normal((2, 5000))).astype(np.float32)
save("reduce_prod_2x5000_f32",
     [helper.make_node("ReduceProd", ["x"], ["y"], axes=[1], keepdims=0)],
     [("x", x)], [("y", x.astype(np.float64).prod(axis=1).astype(np.float32))])

# LayerNormalization over 5000 (ONNX operator spec: (x - mean) / sqrt(var + eps) * scale
# + bias, biased variance), with a mean far from 0.
x = (rng.standard_normal((2, 5000)) * 2 + 5).astype(np.float32)
scale = rng.standard_normal(5000).astype(np.float32)
bias = rng.standard_normal(5000).astype(np.float32)
x64 = x.astype(np.float64)
mean = x64.mean(axis=1, keepdims=True)
var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
ref = (x64 - mean) / np.sqrt(var + 1e-5) * scale + bias
save("layer_norm_2x5000_f32",
     [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1,
                       epsilon=1e-5)],
     [("x", x)], [("y", ref.astype(np.float32))], [("scale", scale), ("bias", bias)])

# RMSNormalization (opset 23) over 2 x 2500 = 5000 elements, f16.
x = rng.standard_normal((3, 2, 2500)).astype(np.float16)
scale = rng.standard_normal((2, 2500)).astype(np.float16)
x64 = x.astype(np.float64)
ref = x64 / np.sqrt((x64 ** 2).mean(axis=(1, 2), keepdims=True) + 1e-6) * scale
save("rms_norm_3x2x2500_f16",
     [helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=1, epsilon=1e-6)],
     [("x", x)], [("y", ref.astype(np.float16))], [("scale", scale)], opset=23)

# Rows longer than the on-chip limit (16384 elements): the chunked loops (online softmax,
# one-pass shifted variance). Softmax with a large spread (the running max grows late in the
# row); LayerNorm with a mean far from 0 (the shifted-data variance must not cancel);
# LogSoftmax f16 over a strided axis; RMSNorm f16.
x = (rng.standard_normal((2, 20000)) * 4).astype(np.float32)
x[0, 19990] = 60.0
save("softmax_2x20000_f32", [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
     [("x", x)], [("y", softmax64(x, 1).astype(np.float32))])
x = (rng.standard_normal((2, 17000, 2)) * 2).astype(np.float16)
x64 = x.astype(np.float64)
ref = x64 - x64.max(axis=1, keepdims=True)
ref = ref - np.log(np.exp(ref).sum(axis=1, keepdims=True))
save("logsoftmax_2x17000x2_f16", [helper.make_node("LogSoftmax", ["x"], ["y"], axis=1)],
     [("x", x)], [("y", ref.astype(np.float16))])
x = (rng.standard_normal((2, 20000)) * 2 + 100).astype(np.float32)
scale = rng.standard_normal(20000).astype(np.float32)
bias = rng.standard_normal(20000).astype(np.float32)
x64 = x.astype(np.float64)
mean = x64.mean(axis=1, keepdims=True)
var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
ref = (x64 - mean) / np.sqrt(var + 1e-5) * scale + bias
save("layer_norm_2x20000_f32",
     [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1,
                       epsilon=1e-5)],
     [("x", x)], [("y", ref.astype(np.float32))], [("scale", scale), ("bias", bias)])
x = rng.standard_normal((2, 17000)).astype(np.float16)
scale = rng.standard_normal(17000).astype(np.float16)
x64 = x.astype(np.float64)
ref = x64 / np.sqrt((x64 ** 2).mean(axis=1, keepdims=True) + 1e-6) * scale
save("rms_norm_2x17000_f16",
     [helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=-1, epsilon=1e-6)],
     [("x", x)], [("y", ref.astype(np.float16))], [("scale", scale)], opset=23)

# Many short rows: one-warp programs, which the GPU path packs 8 to a CUDA block
# (tile.programs_per_cta). Softmax over 4096 rows of 32 f32; LayerNorm over 8192 rows of 16.
x = (rng.standard_normal((4096, 32)) * 3).astype(np.float32)
save("softmax_4096x32_f32", [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
     [("x", x)], [("y", softmax64(x, 1).astype(np.float32))])
x = (rng.standard_normal((8192, 16)) + 1).astype(np.float32)
scale = rng.standard_normal(16).astype(np.float32)
bias = rng.standard_normal(16).astype(np.float32)
x64 = x.astype(np.float64)
mean = x64.mean(axis=1, keepdims=True)
var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
ref = (x64 - mean) / np.sqrt(var + 1e-5) * scale + bias
save("layer_norm_8192x16_f32",
     [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1,
                       epsilon=1e-5)],
     [("x", x)], [("y", ref.astype(np.float32))], [("scale", scale), ("bias", bias)])
