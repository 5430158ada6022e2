"""Writes OUTDIR/gpt2.onnx and OUTDIR/data/ (the input and the numpy float64 result,
computed here, independently of aicc's passes): one GPT-2-style pre-LayerNorm decoder layer
(ONNX LayerNormalization, opset 17) with random LayerNorm weights and biases:

  h = x + o(attention(q(n1), k(n1), v(n1)))     n1 = LayerNorm(x) * g1 + b1
  y = h + fc2(gelu(fc1(n2)))                     n2 = LayerNorm(h) * g2 + b2

every projection a Linear (MatMul + Add of a bias), causal attention over H heads of D,
GELU (erf form) of width F. The input is OFFSET + N(0, 1) per element, a few rows scaled:
a row mean of OFFSET against a standard deviation near 1 (docs/fusion.md: the LayerNorm
prologue's sum(x^2) / K - mu^2 cancels as OFFSET grows).

usage: gpt2_layer_model.py OUTDIR DTYPE(float32|float16) B S H D F OFFSET
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ in the source tree


def main():
    out, dtype = sys.argv[1], np.dtype(sys.argv[2])
    b, s, h, d, ff = (int(v) for v in sys.argv[3:8])
    offset = float(sys.argv[8])
    e = h * d
    eps = 1e-5
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    rng = np.random.default_rng(23)
    w = {"wq": rng.standard_normal((e, e)) / np.sqrt(e),
         "wk": rng.standard_normal((e, e)) / np.sqrt(e),
         "wv": rng.standard_normal((e, e)) / np.sqrt(e),
         "wo": rng.standard_normal((e, e)) / np.sqrt(e),
         "w1": rng.standard_normal((e, ff)) / np.sqrt(e),
         "w2": rng.standard_normal((ff, e)) / np.sqrt(ff),
         "bq": 0.1 * rng.standard_normal(e), "bk": 0.1 * rng.standard_normal(e),
         "bv": 0.1 * rng.standard_normal(e), "bo": 0.1 * rng.standard_normal(e),
         "b1": 0.1 * rng.standard_normal(ff), "b2": 0.1 * rng.standard_normal(e),
         "g1": 1 + 0.2 * rng.standard_normal(e), "beta1": 0.2 * rng.standard_normal(e),
         "g2": 1 + 0.2 * rng.standard_normal(e), "beta2": 0.2 * rng.standard_normal(e)}
    w = {k: v.astype(dtype) for k, v in w.items()}
    x = offset + rng.standard_normal((b, s, e))
    x[:, ::5] = offset + 4 * (x[:, ::5] - offset)
    x = x.astype(dtype)
    half = dtype == np.float16
    et = TensorProto.FLOAT16 if half else TensorProto.FLOAT
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [i64("q_shape", [b, s, h, d]), i64("merged", [b, s, e])]
    mask = np.triu(np.full((s, s), -np.inf), 1).astype(dtype)
    inits.append(numpy_helper.from_array(mask, "mask"))
    inits.append(numpy_helper.from_array(np.array(1 / np.sqrt(d), dtype=dtype), "scale"))
    for name, v in (("half", 0.5), ("one", 1.0), ("rsqrt2", 1 / math.sqrt(2))):
        inits.append(numpy_helper.from_array(np.array(v, dtype=dtype), name))
    nodes = []

    def node(op, ins, outs, **kw):
        nodes.append(helper.make_node(op, ins, outs, **kw))
        return outs[0]

    def linear(name, t, wname, bname):
        return node("Add", [node("MatMul", [t, wname], [name + "_mm"]), bname], [name])

    def heads(name, t):
        r = node("Reshape", [t, "q_shape"], [name + "_r"])
        return node("Transpose", [r], [name + "_t"], perm=[0, 2, 1, 3])

    n1 = node("LayerNormalization", ["x", "g1", "beta1"], ["n1"], axis=-1, epsilon=eps)
    q = heads("q", linear("q", n1, "wq", "bq"))
    k = heads("k", linear("k", n1, "wk", "bk"))
    v = heads("v", linear("v", n1, "wv", "bv"))
    kt = node("Transpose", [k], ["kt"], perm=[0, 1, 3, 2])
    sc = node("MatMul", [q, kt], ["scores"])
    sc = node("Mul", [sc, "scale"], ["scaled"])
    sc = node("Add", [sc, "mask"], ["masked"])
    p = node("Softmax", [sc], ["probs"], axis=-1)
    o = node("MatMul", [p, v], ["attn"])
    o = node("Transpose", [o], ["attn_t"], perm=[0, 2, 1, 3])
    o = node("Reshape", [o, "merged"], ["attn_m"])
    hres = node("Add", ["x", linear("oproj", o, "wo", "bo")], ["h"])
    n2 = node("LayerNormalization", [hres, "g2", "beta2"], ["n2"], axis=-1, epsilon=eps)
    f1 = linear("fc1", n2, "w1", "b1")
    erf = node("Erf", [node("Mul", [f1, "rsqrt2"], ["fs"])], ["erf"])
    gelu = node("Mul", [node("Mul", [f1, "half"], ["fh"]),
                        node("Add", [erf, "one"], ["e1"])], ["gelu"])
    node("Add", [hres, linear("fc2", gelu, "w2", "b2")], ["y"])
    graph = helper.make_graph(nodes, "gpt2_layer",
                              [helper.make_tensor_value_info("x", et, [b, s, e])],
                              [helper.make_tensor_value_info("y", et, [b, s, e])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "gpt2.onnx"))

    # float64 reference.
    f = {k: v.astype(np.float64) for k, v in w.items()}
    xf = x.astype(np.float64)

    def norm(t, g, beta):
        c = t - t.mean(-1, keepdims=True)
        return c / np.sqrt((c * c).mean(-1, keepdims=True) + eps) * g + beta

    def split(t):
        return t.reshape(b, s, h, d).transpose(0, 2, 1, 3)

    a = norm(xf, f["g1"], f["beta1"])
    qf = split(a @ f["wq"] + f["bq"])
    kf = split(a @ f["wk"] + f["bk"])
    vf = split(a @ f["wv"] + f["bv"])
    sc = qf @ kf.transpose(0, 1, 3, 2) / np.sqrt(d) + np.triu(np.full((s, s), -np.inf), 1)
    sc = np.exp(sc - sc.max(-1, keepdims=True))
    sc /= sc.sum(-1, keepdims=True)
    hf = xf + (sc @ vf).transpose(0, 2, 1, 3).reshape(b, s, e) @ f["wo"] + f["bo"]
    n2f = norm(hf, f["g2"], f["beta2"])
    f1 = n2f @ f["w1"] + f["b1"]
    erf = np.vectorize(math.erf)(f1 / math.sqrt(2))
    y = hf + (0.5 * f1 * (1 + erf)) @ f["w2"] + f["b2"]
    ds = os.path.join(out, "data")
    open(os.path.join(ds, "input_0.pb"), "wb").write(
        numpy_helper.from_array(x, "x").SerializeToString())
    open(os.path.join(ds, "output_0.pb"), "wb").write(
        numpy_helper.from_array(y.astype(dtype), "y").SerializeToString())


if __name__ == "__main__":
    main()
