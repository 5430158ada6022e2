"""Writes OUTDIR/dynamic.onnx, a model whose graph inputs have dynamic dims (ONNX dim_params
'batch' and 'seq', and one unnamed dim), as torch.onnx.export(dynamic_axes=...) writes them,
and OUTDIR/data_B_S/ test data sets (inputs and the numpy result) for the shapes given.

  x    [batch, seq, 4] float   -> y = relu(x @ w + b) * mask[..., None]  [batch, seq, 3]
  mask [batch, ?]      float      (the unnamed dim: seq again)

usage: dynamic_model.py OUTDIR B,S [B,S ...]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

W = np.array([[0.5, -1, 2], [0.25, 1, -0.5], [1.5, 0, 3], [-2, 0.75, 1]], dtype=np.float32)
BIAS = np.array([0.1, -0.2, 0.3], dtype=np.float32)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 4])
    mask = helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", None])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 3])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Add", ["h", "b"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]),
             helper.make_node("Unsqueeze", ["mask", "axes"], ["m3"]),
             helper.make_node("Mul", ["r", "m3"], ["y"])]
    inits = [numpy_helper.from_array(W, "w"), numpy_helper.from_array(BIAS, "b"),
             numpy_helper.from_array(np.array([2], dtype=np.int64), "axes")]
    g = helper.make_graph(nodes, "dynamic", [x, mask], [y], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, "dynamic.onnx"))
    rng = np.random.default_rng(11)
    for shape in sys.argv[2:]:
        bsz, seq = (int(v) for v in shape.split(","))
        xv = rng.standard_normal((bsz, seq, 4)).astype(np.float32)
        mv = (rng.random((bsz, seq)) > 0.3).astype(np.float32)
        yv = np.maximum(xv.astype(np.float64) @ W + BIAS, 0) * mv[..., None]
        d = os.path.join(out, f"data_{bsz}_{seq}")
        os.makedirs(d, exist_ok=True)
        for i, a in enumerate([xv, mv]):
            with open(os.path.join(d, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, f"input_{i}").SerializeToString())
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(yv.astype(np.float32), "output_0").SerializeToString())


if __name__ == "__main__":
    main()
