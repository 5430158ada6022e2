#!/usr/bin/python3
"""Writes the ONNX models of fused-reductions.test into OUTDIR/<name>/ (model.onnx +
test_data_set_0/{input,output}_K.pb): sibling reductions of one input with elementwise
producers and consumers, which graph-fuse (lib/Dialect/Graph/Transforms/GraphFuse.cpp,
formReductions) makes one reduction kernel (lib/Conversion/GraphToTile/KernelTemplates.cpp,
buildReduction / buildColumnReduction).
Per model, over `axis` of x (+ a bias b broadcast along the other dim):
  mean = ReduceMean(x), msq = ReduceMean(x * x), mx = Exp(ReduceMax(x + b) / 8),
  mn = ReduceMin(x)
Inputs are seeded random numbers (never zeros); expected outputs are numpy float64
evaluations, rounded to float32.
Run with Debian's /usr/bin/python3 (onnx + numpy): make_fused_reduction_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rng = np.random.default_rng(20261130)


def save(name, x, b, axis):
    f32 = TensorProto.FLOAT
    out_shape = [x.shape[1 - axis]]
    eight = numpy_helper.from_array(np.array(8.0, np.float32), "eight")
    red = lambda op, i, o: helper.make_node(op, [i], [o], axes=[axis], keepdims=0)
    nodes = [
        red("ReduceMean", "x", "mean"),
        helper.make_node("Mul", ["x", "x"], ["sq"]),
        red("ReduceMean", "sq", "msq"),
        helper.make_node("Add", ["x", "b"], ["xb"]),
        red("ReduceMax", "xb", "m"),
        helper.make_node("Div", ["m", "eight"], ["m8"]),
        helper.make_node("Exp", ["m8"], ["mx"]),
        red("ReduceMin", "x", "mn"),
    ]
    outs = ["mean", "msq", "mx", "mn"]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", f32, x.shape),
         helper.make_tensor_value_info("b", f32, b.shape)],
        [helper.make_tensor_value_info(o, f32, out_shape) for o in outs], [eight])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="aicc make_fused_reduction_models.py")
    model.ir_version = 8
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    x64, b64 = x.astype(np.float64), b.astype(np.float64)
    bb = b64 if axis == 1 else b64.reshape(-1, 1)
    ys = [x64.mean(axis=axis), (x64 * x64).mean(axis=axis),
          np.exp((x64 + bb).max(axis=axis) / 8.0), x64.min(axis=axis)]
    t = os.path.join(d, "test_data_set_0")
    for k, (n, a) in enumerate((("x", x), ("b", b))):
        with open(os.path.join(t, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (n, a) in enumerate(zip(outs, ys)):
        with open(os.path.join(t, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a.astype(np.float32), n).SerializeToString())


# Rows: 4096 outputs of 1000 reduced elements each (per-output kernel, one tile). The bias
# runs along the reduced dim.
x = (rng.standard_normal((4096, 1000)) + 1.0).astype(np.float32)
save("rows_4096x1000_f32", x, rng.standard_normal(1000).astype(np.float32), 1)
# Columns: 4096 outputs, 123 reduced rows (column kernel, 4 rows per step and a tail of
# 3); the bias [123, 1] broadcast along the kept dim.
x = (rng.standard_normal((123, 4096)) + 1.0).astype(np.float32)
save("cols_123x4096_f32", x, rng.standard_normal((123, 1)).astype(np.float32), 0)
# Columns: 1000 reduced rows: graph-split-reduction makes each reduction two levels
# (partials over a reshape of the input), which the prologue does not look through (rule
# no-aliasing): separate kernels, same numbers.
x = (rng.standard_normal((1000, 4096)) + 1.0).astype(np.float32)
save("cols_1000x4096_f32", x, rng.standard_normal((1000, 1)).astype(np.float32), 0)
# Long rows: 64 outputs of 10000 elements (per-output kernel, chunked loop with a tail).
x = (rng.standard_normal((64, 10000)) + 1.0).astype(np.float32)
save("rows_64x10000_f32", x, rng.standard_normal(10000).astype(np.float32), 1)
