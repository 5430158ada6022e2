#!/usr/bin/python3
"""Small ONNX models with a dynamic dim ('seq') for specialized-plan.test: outputs the
specialized plan (aicc-compile --specialize) must write where the range's plan does.

usage: specialize_models.py OUTDIR
writes OUTDIR/NAME.onnx and OUTDIR/NAME/test_data_set_{0..3} (seq = 1, 5, 16, 1) for NAME in:
  view_out     Y = Unsqueeze(Relu(X [3, seq, 8]), 1): the output is a view of a computed
               tensor (an alias of a temp in both plans)
  const_out    C = A + B of initializers (an output computed from constants alone), Z = Relu(X)
  scatter_cache  N = ScatterND(cache [16, 8], idx [seq, 1], upd [seq, 8]), R = Relu(upd): the
               cache updated in place at the run's positions
  digit_name   Y = Relu(X ['2s', 4]): a dim_param that starts with a digit (the specialized
               kernels' names must still be PTX identifiers); no data sets
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
SEQS = (1, 5, 16, 1)


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(out, name + ".onnx"))


def data_set(name, k, inputs, outputs):
    d = os.path.join(out, name, "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    for kind, tensors in (("input", inputs), ("output", outputs)):
        for i, (nm, t) in enumerate(tensors):
            with open(os.path.join(d, "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(numpy_helper.from_array(t, nm).SerializeToString())


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


save("view_out",
     [helper.make_node("Relu", ["X"], ["t"]), helper.make_node("Unsqueeze", ["t", "ax"], ["Y"])],
     [vi("X", [3, "seq", 8])], [vi("Y", [3, 1, "seq", 8])],
     [numpy_helper.from_array(np.array([1], np.int64), "ax")])
for k, s in enumerate(SEQS):
    x = rng.standard_normal((3, s, 8)).astype(np.float32)
    data_set("view_out", k, [("X", x)], [("Y", np.maximum(x, 0)[:, None])])

a = np.arange(6, dtype=np.float32).reshape(2, 3)
save("const_out",
     [helper.make_node("Add", ["A", "B"], ["C"]), helper.make_node("Relu", ["X"], ["Z"])],
     [vi("X", [3, "seq", 8])], [vi("C", [2, 3]), vi("Z", [3, "seq", 8])],
     [numpy_helper.from_array(a, "A"), numpy_helper.from_array(np.ones((2, 3), np.float32), "B")])
for k, s in enumerate(SEQS):
    x = rng.standard_normal((3, s, 8)).astype(np.float32)
    data_set("const_out", k, [("X", x)], [("C", a + 1), ("Z", np.maximum(x, 0))])

save("scatter_cache",
     [helper.make_node("ScatterND", ["cache", "idx", "upd"], ["N"]),
      helper.make_node("Relu", ["upd"], ["R"])],
     [vi("cache", [16, 8]), vi("idx", ["seq", 1], TensorProto.INT64), vi("upd", ["seq", 8])],
     [vi("N", [16, 8]), vi("R", ["seq", 8])])
for k, s in enumerate(SEQS):
    cache = rng.standard_normal((16, 8)).astype(np.float32)
    idx = (rng.integers(0, 16 - s + 1) + np.arange(s)).reshape(s, 1).astype(np.int64)
    upd = rng.standard_normal((s, 8)).astype(np.float32)
    new = cache.copy()
    new[idx[:, 0]] = upd
    data_set("scatter_cache", k, [("cache", cache), ("idx", idx), ("upd", upd)],
             [("N", new), ("R", np.maximum(upd, 0))])

save("digit_name", [helper.make_node("Relu", ["X"], ["Y"])], [vi("X", ["2s", 4])],
     [vi("Y", ["2s", 4])])
