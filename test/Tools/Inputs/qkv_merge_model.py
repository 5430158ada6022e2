"""Writes OUTDIR/qkv.onnx and OUTDIR/data/ (inputs and the numpy float64 result, computed
here, independently of aicc's passes): three Linear projections of one activation, q [8]
with a bias, k and v [4] with biases, split into heads, as an attention layer's exporters
write them (MatMul by a constant [K, N] weight, Add of a constant [N] bias, Reshape,
Transpose). graph-merge-sibling-matmuls makes them one product and three slices.

usage: qkv_merge_model.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    rng = np.random.default_rng(9)
    b, s, e = 2, 3, 6
    ws = {n: rng.standard_normal((e, c)).astype(np.float32) for n, c in
          (("wq", 8), ("wk", 4), ("wv", 4))}
    bs = {n: rng.standard_normal(c).astype(np.float32) for n, c in
          (("bq", 8), ("bk", 4), ("bv", 4))}
    x = rng.standard_normal((b, s, e)).astype(np.float32)
    nodes, outs, expect = [], [], []
    for name, heads in (("q", 2), ("k", 1), ("v", 1)):
        nodes += [helper.make_node("MatMul", ["x", "w" + name], [name + "0"]),
                  helper.make_node("Add", [name + "0", "b" + name], [name + "1"]),
                  helper.make_node("Reshape", [name + "1", name + "shape"], [name + "2"]),
                  helper.make_node("Transpose", [name + "2"], [name], perm=[0, 2, 1, 3])]
        n = ws["w" + name].shape[1]
        y = (x.astype(np.float64) @ ws["w" + name] + bs["b" + name]).reshape(
            b, s, heads, n // heads).transpose(0, 2, 1, 3)
        outs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(y.shape)))
        expect.append(y)
    inits = [numpy_helper.from_array(v, k) for k, v in {**ws, **bs}.items()]
    inits += [numpy_helper.from_array(np.array([b, s, h, c // h], dtype=np.int64), n + "shape")
              for n, h, c in (("q", 2, 8), ("k", 1, 4), ("v", 1, 4))]
    g = helper.make_graph(nodes, "qkv",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [b, s, e])],
                          outs, inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, "qkv.onnx"))
    with open(os.path.join(out, "data", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    for i, y in enumerate(expect):
        with open(os.path.join(out, "data", f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y.astype(np.float32), f"output_{i}").SerializeToString())


if __name__ == "__main__":
    main()
