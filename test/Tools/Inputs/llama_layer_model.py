"""Writes OUTDIR/llama.onnx and OUTDIR/data/ (the input and the numpy float64 result,
computed here, independently of aicc's passes): one Llama-style pre-norm decoder layer as
torch's exporter writes bench/models.py's LlamaLayer:

  h = x + o(attention(rope(q(n1)), rope(k(n1)), v(n1)))     n1 = RMSNorm(x) * g1
  y = h + down(silu(gate(n2)) * up(n2))                    n2 = RMSNorm(h) * g2

RMSNorm(x) = x / sqrt(mean(x^2) + eps), written (f16) as Cast to f32, Pow, ReduceMean,
Add, Sqrt, Reciprocal, Mul, Cast back, then the Mul by the weight g (random around 1);
GQA with H query heads over HKV key / value heads of D, causal mask, SwiGLU of width F.

usage: llama_layer_model.py OUTDIR DTYPE(float32|float16) B S H HKV D F [norm-out]
  norm-out: the second norm's output is also a model output (it must be stored).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rope_attention_model import repeat_kv_nodes, rope_nodes  # noqa: E402


def main():
    out, dtype = sys.argv[1], np.dtype(sys.argv[2])
    b, s, h, hkv, d, ff = (int(v) for v in sys.argv[3:9])
    norm_out = len(sys.argv) > 9 and sys.argv[9] == "norm-out"
    e = h * d
    eps = 1e-6
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    rng = np.random.default_rng(17)
    w = {"wq": rng.standard_normal((e, h * d)) / np.sqrt(e),
         "wk": rng.standard_normal((e, hkv * d)) / np.sqrt(e),
         "wv": rng.standard_normal((e, hkv * d)) / np.sqrt(e),
         "wo": rng.standard_normal((h * d, e)) / np.sqrt(h * d),
         "wg": rng.standard_normal((e, ff)) / np.sqrt(e),
         "wu": rng.standard_normal((e, ff)) / np.sqrt(e),
         "wd": rng.standard_normal((ff, e)) / np.sqrt(ff),
         "g1": 1 + 0.2 * rng.standard_normal(e),
         "g2": 1 + 0.2 * rng.standard_normal(e)}
    inv = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    ang = np.outer(np.arange(s), inv)
    ang = np.concatenate([ang, ang], axis=-1)
    w["cos"] = np.cos(ang)[None, None]
    w["sin"] = np.sin(ang)[None, None]
    w = {k: v.astype(dtype) for k, v in w.items()}
    # A residual stream of rms ~3 with a few large rows (the norm's r differs per row).
    x = rng.standard_normal((b, s, e)) * 3
    x[:, ::5] *= 8
    x = x.astype(dtype)
    half = dtype == np.float16
    et = TensorProto.FLOAT16 if half else TensorProto.FLOAT
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [i64("q_shape", [b, s, h, d]), i64("kv_shape", [b, s, hkv, d]),
              i64("h0", [0]), i64("hd", [d // 2]), i64("hend", [d]), i64("ax", [-1]),
              i64("rep_shape", [b, hkv, h // hkv, s, d]), i64("kv5", [b, hkv, 1, s, d]),
              i64("heads", [b, h, s, d]), i64("merged", [b, s, e])]
    mask = np.triu(np.full((s, s), -np.inf), 1).astype(dtype)
    inits.append(numpy_helper.from_array(mask, "mask"))
    inits.append(numpy_helper.from_array(np.array(1 / np.sqrt(d), dtype=dtype), "scale"))
    inits.append(numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two"))
    inits.append(numpy_helper.from_array(np.array(eps, dtype=np.float32), "eps"))
    nodes = []

    def node(op, ins, outs, **kw):
        nodes.append(helper.make_node(op, ins, outs, **kw))
        return outs[0]

    def rms_norm(name, t, g):
        tf = node("Cast", [t], [name + "_f"], to=TensorProto.FLOAT) if half else t
        p = node("Pow", [tf, "two"], [name + "_sq"])
        m = node("ReduceMean", [p], [name + "_ms"], axes=[-1], keepdims=1)
        a = node("Add", [m, "eps"], [name + "_ae"])
        r = node("Reciprocal", [node("Sqrt", [a], [name + "_rt"])], [name + "_r"])
        y = node("Mul", [tf, r], [name + "_y"])
        if half:
            y = node("Cast", [y], [name + "_h"], to=TensorProto.FLOAT16)
        return node("Mul", [y, g], [name + "_n"])

    def heads(name, src, wname, shape):
        p = node("MatMul", [src, wname], [name + "_p"])
        r = node("Reshape", [p, shape], [name + "_r"])
        return node("Transpose", [r], [name + "_t"], perm=[0, 2, 1, 3])

    def rope(name, t):
        return rope_nodes(node, name, t)

    def repeat(name, t):
        return repeat_kv_nodes(node, name, t)

    n1 = rms_norm("norm1", "x", "g1")
    q = rope("q", heads("q", n1, "wq", "q_shape"))
    k = rope("k", heads("k", n1, "wk", "kv_shape"))
    v = heads("v", n1, "wv", "kv_shape")
    kt = node("Transpose", [repeat("k", k)], ["kt"], perm=[0, 1, 3, 2])
    sc = node("MatMul", [q, kt], ["scores"])
    sc = node("Mul", [sc, "scale"], ["scaled"])
    sc = node("Add", [sc, "mask"], ["masked"])
    p = node("Softmax", [sc], ["probs"], axis=-1)
    o = node("MatMul", [p, repeat("v", v)], ["attn"])
    o = node("Transpose", [o], ["attn_t"], perm=[0, 2, 1, 3])
    o = node("Reshape", [o, "merged"], ["attn_m"])
    hres = node("Add", ["x", node("MatMul", [o, "wo"], ["oproj"])], ["h"])
    n2 = rms_norm("norm2", hres, "g2")
    gt = node("MatMul", [n2, "wg"], ["gate"])
    up = node("MatMul", [n2, "wu"], ["up"])
    silu = node("Mul", [gt, node("Sigmoid", [gt], ["sg"])], ["silu"])
    dn = node("MatMul", [node("Mul", [silu, up], ["gated"]), "wd"], ["down"])
    node("Add", [hres, dn], ["y"])
    outputs = [helper.make_tensor_value_info("y", et, [b, s, e])]
    if norm_out:
        outputs.append(helper.make_tensor_value_info(n2, et, [b, s, e]))
    graph = helper.make_graph(nodes, "llama_layer",
                              [helper.make_tensor_value_info("x", et, [b, s, e])], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "llama.onnx"))

    # float64 reference.
    f = {k: v.astype(np.float64) for k, v in w.items()}
    xf = x.astype(np.float64)

    def norm(t, g):
        return t / np.sqrt((t * t).mean(-1, keepdims=True) + eps) * g

    def split(p, n):
        return p.reshape(b, s, n, d).transpose(0, 2, 1, 3)

    def rot(t):
        hlf = np.concatenate([-t[..., d // 2:], t[..., :d // 2]], axis=-1)
        return t * f["cos"] + hlf * f["sin"]

    a = norm(xf, f["g1"])
    qf = rot(split(a @ f["wq"], h))
    kf = rot(split(a @ f["wk"], hkv))
    vf = split(a @ f["wv"], hkv)
    g = h // hkv
    kr, vr = np.repeat(kf, g, axis=1), np.repeat(vf, g, axis=1)
    sc = qf @ kr.transpose(0, 1, 3, 2) / np.sqrt(d) + np.triu(np.full((s, s), -np.inf), 1)
    sc = np.exp(sc - sc.max(-1, keepdims=True))
    sc /= sc.sum(-1, keepdims=True)
    hf = xf + (sc @ vr).transpose(0, 2, 1, 3).reshape(b, s, e) @ f["wo"]
    n2f = norm(hf, f["g2"])
    gv, uv = n2f @ f["wg"], n2f @ f["wu"]
    y = hf + (gv / (1 + np.exp(-gv)) * uv) @ f["wd"]
    ds = os.path.join(out, "data")
    open(os.path.join(ds, "input_0.pb"), "wb").write(
        numpy_helper.from_array(x, "x").SerializeToString())
    open(os.path.join(ds, "output_0.pb"), "wb").write(
        numpy_helper.from_array(y.astype(dtype), "y").SerializeToString())
    if norm_out:
        open(os.path.join(ds, "output_1.pb"), "wb").write(
            numpy_helper.from_array(n2f.astype(dtype), n2).SerializeToString())


if __name__ == "__main__":
    main()
