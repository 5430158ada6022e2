#!/usr/bin/python3
"""Writes the ONNX models of big-reductions.test into OUTDIR/<name>/ (model.onnx +
test_data_set_0/{input,output}_K.pb): reductions big enough to take the column kernel
and the two-level split of graph-split-reduction (lib/Dialect/Graph/Transforms/
GraphSplitReduction.cpp, the reduction template in lib/Conversion/GraphToTile/
KernelTemplates.cpp). The inputs are up to 64 MiB, so the test makes them at run time
instead of committing them.
Inputs are seeded random numbers (never zeros); expected outputs are numpy float64
evaluations of the ONNX Reduce* operators, rounded to the output type.
Run with Debian's /usr/bin/python3 (onnx + numpy): make_big_reduction_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rng = np.random.default_rng(20261129)
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def save(name, op, x, y, axes, keepdims):
    """One Reduce<op> node over `axes` (None: every dim) of x, expected output y."""
    vi = lambda n, a: helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype.type], a.shape)
    # Opset 17: ReduceSum takes its axes as an input (since opset 13), the others as an
    # attribute (until opset 18).
    attrs, ins, inits = {"keepdims": keepdims}, ["x"], []
    if axes is not None and op == "ReduceSum":
        ins.append("axes")
        inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
    elif axes is not None:
        attrs["axes"] = list(axes)
    graph = helper.make_graph([helper.make_node(op, ins, ["y"], **attrs)], name,
                              [vi("x", x)], [vi("y", y)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="aicc make_big_reduction_models.py")
    model.ir_version = 8
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, (n, a) in (("input", ("x", x)), ("output", ("y", y))):
        with open(os.path.join(d, "test_data_set_0", f"{kind}_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())


def ref(fn, x, axes, keepdims, dtype):
    axis = None if axes is None else tuple(axes)
    return np.asarray(fn(x.astype(np.float64), axis=axis, keepdims=bool(keepdims))).astype(dtype)


# Whole-tensor ReduceSum of 4096 x 4096 f32 (2^24 elements): split into 512 partials.
# Positive inputs: the sum does not cancel, so the relative tolerance is meaningful.
x = rng.uniform(0.5, 1.5, (4096, 4096)).astype(np.float32)
save("reduce_sum_all_4096x4096_f32", "ReduceSum", x, ref(np.sum, x, None, 0, np.float32),
     None, 0)

# ReduceMean over axis 0 of 8192 x 1024 f32: column kernel, split into 128 partials.
x = (rng.standard_normal((8192, 1024)) + 2.0).astype(np.float32)
save("reduce_mean_axis0_8192x1024_f32", "ReduceMean", x, ref(np.mean, x, [0], 0, np.float32),
     [0], 0)

# ReduceMax over axis 0 of 4096 x 768 f16 (f32 partials, f16 result); one NaN column
# (max propagates NaN, as numpy's does) and one column whose max is in the last row.
x = (rng.standard_normal((4096, 768)) * 10).astype(np.float16)
x[1234, 5] = np.float16(np.nan)
x[4095, 700] = np.float16(1000.0)
save("reduce_max_axis0_4096x768_f16", "ReduceMax", x, ref(np.max, x, [0], 1, np.float16),
     [0], 1)

# ReduceSum over axis 1 of 16 x 65536 f16: row kernel, split into 32 f32 partials.
x = rng.uniform(0.25, 0.75, (16, 65536)).astype(np.float16)
save("reduce_sum_axis1_16x65536_f16", "ReduceSum", x, ref(np.sum, x, [1], 0, np.float16),
     [1], 0)

# ReduceMin over the non-adjacent axes {0, 2} of 6 x 50 x 7 x 300 f32 (column kernel,
# reduced index delinearized over two dims, 42 positions: a tail after the unrolled loop;
# 300 outputs per row: a partial second BLOCK). Not split (axes not consecutive).
x = rng.standard_normal((6, 50, 7, 300)).astype(np.float32)
save("reduce_min_axes02_6x50x7x300_f32", "ReduceMin", x,
     ref(np.min, x, [0, 2], 1, np.float32), [0, 2], 1)

# ReduceProd over axis 1 of 3 x 1001 x 40 f32 near 1 (column kernel, split into 13
# partials of 77: 1001 = 7 * 11 * 13).
x = (1 + 0.01 * rng.standard_normal((3, 1001, 40))).astype(np.float32)
save("reduce_prod_axis1_3x1001x40_f32", "ReduceProd", x, ref(np.prod, x, [1], 0, np.float32),
     [1], 0)
