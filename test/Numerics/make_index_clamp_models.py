#!/usr/bin/python3
"""Models whose *runtime* indices fall out of range, for index-clamp.test.

ONNX leaves out-of-range indices undefined (onnxruntime raises); aicc's kernels clamp them
(docs/onnx-import.md, "Indices out of range"): a negative index counts from the end, then the
result is clamped to [0, n - 1], in the index's own width (an int64 index of 2^32 + 1 must clamp
to n - 1, not wrap to 1 when narrowed to 32 bits). Each model gets test_data_set_0 with the
expected output computed here by that rule with numpy.
Usage: make_index_clamp_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def clamp(k, n):
    k = np.where(k < 0, k + n, k)
    return np.clip(k, 0, n - 1)


def write(name, nodes, inputs, outputs, feeds, expected):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    g = helper.make_graph(nodes, name, inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for i, a in enumerate(feeds):
        t = numpy_helper.from_array(a)
        open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb").write(t.SerializeToString())
    t = numpy_helper.from_array(expected)
    open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb").write(t.SerializeToString())


data = np.arange(12, dtype=np.float32).reshape(4, 3) + 0.5
f32, i64, i32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32

# Gather axis 0 with int64 indices: in range, negative, past the end, past 2^31 and 2^32 + 1
# (which a plain truncation to i32 turned into 1), and below -n.
idx = np.array([1, -1, 4, 2**31, 2**32 + 1, -5, -(2**40)], dtype=np.int64)
write("gather_i64",
      [helper.make_node("Gather", ["data", "idx"], ["y"], axis=0)],
      [helper.make_tensor_value_info("data", f32, [4, 3]),
       helper.make_tensor_value_info("idx", i64, [7])],
      [helper.make_tensor_value_info("y", f32, [7, 3])],
      [data, idx], data[clamp(idx, 4)])

# GatherElements axis 1, int32 indices.
ie = np.array([[0, 3, -1], [7, -4, 1], [2, 2, -100], [1, 0, 5]], dtype=np.int32)
write("gather_elements_i32",
      [helper.make_node("GatherElements", ["data", "idx"], ["y"], axis=1)],
      [helper.make_tensor_value_info("data", f32, [4, 3]),
       helper.make_tensor_value_info("idx", i32, [4, 3])],
      [helper.make_tensor_value_info("y", f32, [4, 3])],
      [data, ie], np.take_along_axis(data, clamp(ie, 3), axis=1))

# GatherND: each coordinate clamped on its own dim (it used to wrap modulo the dim).
ind = np.array([[0, 1], [5, 0], [-1, 7], [2**33, -2**33]], dtype=np.int64)
c = np.stack([clamp(ind[:, 0], 4), clamp(ind[:, 1], 3)], axis=1)
write("gather_nd_i64",
      [helper.make_node("GatherND", ["data", "idx"], ["y"])],
      [helper.make_tensor_value_info("data", f32, [4, 3]),
       helper.make_tensor_value_info("idx", i64, [4, 2])],
      [helper.make_tensor_value_info("y", f32, [4])],
      [data, ind], data[c[:, 0], c[:, 1]])
