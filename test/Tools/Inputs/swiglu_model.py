"""Writes OUTDIR/swiglu.onnx and OUTDIR/data/ (the input and the numpy float64 result,
computed here, independently of aicc's passes): a gated MLP as Llama's exporters write it,
down(silu(x @ W_gate [+ b_gate]) * (x @ W_up [+ b_up])) + x, with SiLU as x * Sigmoid(x).
graph-merge-sibling-matmuls makes gate and up one product of interleaved weight columns,
graph-fuse its epilogue read both column pairs (one kernel for gate, up, SiLU and the
multiply).

usage: swiglu_model.py OUTDIR DTYPE(float32|float16) BIAS(0|1) B S E F
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out, dtype, bias = sys.argv[1], np.dtype(sys.argv[2]), sys.argv[3] == "1"
    b, s, e, f = (int(v) for v in sys.argv[4:8])
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    rng = np.random.default_rng(11)
    scale = 1 / np.sqrt(e)
    w = {"wg": rng.standard_normal((e, f)) * scale, "wu": rng.standard_normal((e, f)) * scale,
         "wd": rng.standard_normal((f, e)) / np.sqrt(f)}
    if bias:
        w["bg"] = rng.standard_normal(f) * 0.1
        w["bu"] = rng.standard_normal(f) * 0.1
    w = {k: v.astype(dtype) for k, v in w.items()}
    x = rng.standard_normal((b, s, e)).astype(dtype)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    nodes = [helper.make_node("MatMul", ["x", "wg"], ["g0"]),
             helper.make_node("MatMul", ["x", "wu"], ["u0"])]
    if bias:
        nodes += [helper.make_node("Add", ["g0", "bg"], ["g"]),
                  helper.make_node("Add", ["u0", "bu"], ["u"])]
    g, u = ("g", "u") if bias else ("g0", "u0")
    nodes += [helper.make_node("Sigmoid", [g], ["sg"]),
              helper.make_node("Mul", [g, "sg"], ["silu"]),
              helper.make_node("Mul", ["silu", u], ["h"]),
              helper.make_node("MatMul", ["h", "wd"], ["d"]),
              helper.make_node("Add", ["d", "x"], ["y"])]
    w64 = {k: v.astype(np.float64) for k, v in w.items()}
    x64 = x.astype(np.float64)
    gv = x64 @ w64["wg"] + (w64["bg"] if bias else 0)
    uv = x64 @ w64["wu"] + (w64["bu"] if bias else 0)
    y = (gv / (1 + np.exp(-gv)) * uv) @ w64["wd"] + x64
    graph = helper.make_graph(
        nodes, "swiglu", [helper.make_tensor_value_info("x", elem, [b, s, e])],
        [helper.make_tensor_value_info("y", elem, [b, s, e])],
        [numpy_helper.from_array(v, k) for k, v in w.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, "swiglu.onnx"))
    with open(os.path.join(out, "data", "input_0.pb"), "wb") as fh:
        fh.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(out, "data", "output_0.pb"), "wb") as fh:
        fh.write(numpy_helper.from_array(y.astype(dtype), "output_0").SerializeToString())


if __name__ == "__main__":
    main()
