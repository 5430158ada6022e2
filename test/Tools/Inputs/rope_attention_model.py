"""Writes OUTDIR/rope.onnx and OUTDIR/data/ (the input and the numpy float64 result, computed
here, independently of aicc's passes): Llama's attention block as torch's exporter writes it,
with rotary position embedding and grouped-query heads:

  q, k, v = x @ W_q, x @ W_k, x @ W_v            (H, HKV, HKV heads of D)
  q, k = q * cos + rotate_half(q) * sin, ...     (rotate_half: Slice, Neg, Concat)
  k, v repeated H / HKV times (Unsqueeze, Expand, Reshape: HF's repeat_kv)
  y = softmax(q k^T / sqrt(D) + causal mask) v, heads merged, @ W_o

graph-merge-sibling-matmuls makes q, k, v one product, graph-rotary-into-projection the
rotation elementwise ops of its columns, graph-fuse puts them in its epilogue.

usage: rope_attention_model.py OUTDIR DTYPE(float32|float16) B S H HKV D [present]
  present: k after the rotation is a second output (a KV cache: the rotation must stay).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def rope_nodes(node, name, t):
    """HF's rotate-half RoPE of `t` as ONNX nodes made by `node(op, ins, outs, **attrs)`:
    t * cos + cat(-t[..., hd:], t[..., :hd]) * sin (initializers h0, hd, hend, ax, cos, sin)."""
    a = node("Slice", [t, "h0", "hd", "ax"], [name + "_lo"])
    c = node("Slice", [t, "hd", "hend", "ax"], [name + "_hi"])
    n = node("Neg", [c], [name + "_neg"])
    cat = node("Concat", [n, a], [name + "_cat"], axis=-1)
    m1 = node("Mul", [t, "cos"], [name + "_mc"])
    m2 = node("Mul", [cat, "sin"], [name + "_ms"])
    return node("Add", [m1, m2], [name + "_rot"])


def repeat_kv_nodes(node, name, t):
    """HF's repeat_kv of `t` as ONNX nodes: reshape to kv5, expand to rep_shape, reshape to
    heads (initializers of those names)."""
    u = node("Reshape", [t, "kv5"], [name + "_u"])
    ex = node("Expand", [u, "rep_shape"], [name + "_e"])
    return node("Reshape", [ex, "heads"], [name + "_rep"])


def main():
    out, dtype = sys.argv[1], np.dtype(sys.argv[2])
    b, s, h, hkv, d = (int(v) for v in sys.argv[3:8])
    present = len(sys.argv) > 8 and sys.argv[8] == "present"
    e = h * d
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    rng = np.random.default_rng(13)
    w = {"wq": rng.standard_normal((e, h * d)) / np.sqrt(e),
         "wk": rng.standard_normal((e, hkv * d)) / np.sqrt(e),
         "wv": rng.standard_normal((e, hkv * d)) / np.sqrt(e),
         "wo": rng.standard_normal((h * d, e)) / np.sqrt(h * d)}
    inv = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    ang = np.outer(np.arange(s), inv)
    ang = np.concatenate([ang, ang], axis=-1)
    w["cos"] = np.cos(ang)[None, None]
    w["sin"] = np.sin(ang)[None, None]
    w = {k: v.astype(dtype) for k, v in w.items()}
    x = rng.standard_normal((b, s, e)).astype(dtype)
    et = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [i64("q_shape", [b, s, h, d]), i64("kv_shape", [b, s, hkv, d]),
              i64("h0", [0]), i64("hd", [d // 2]), i64("hend", [d]), i64("ax", [-1]),
              i64("rep_shape", [b, hkv, h // hkv, s, d]), i64("kv5", [b, hkv, 1, s, d]),
              i64("heads", [b, h, s, d]), i64("merged", [b, s, e])]
    mask = np.triu(np.full((s, s), -np.inf), 1).astype(dtype)
    inits.append(numpy_helper.from_array(mask, "mask"))
    inits.append(numpy_helper.from_array(np.array(1 / np.sqrt(d), dtype=dtype), "scale"))
    nodes = []

    def node(op, ins, outs, **kw):
        nodes.append(helper.make_node(op, ins, outs, **kw))
        return outs[0]

    def heads(name, wname, shape):
        p = node("MatMul", ["x", wname], [name + "_p"])
        r = node("Reshape", [p, shape], [name + "_r"])
        return node("Transpose", [r], [name + "_t"], perm=[0, 2, 1, 3])

    def rope(name, t):
        return rope_nodes(node, name, t)

    def repeat(name, t):
        return repeat_kv_nodes(node, name, t)

    q = rope("q", heads("q", "wq", "q_shape"))
    k = rope("k", heads("k", "wk", "kv_shape"))
    v = heads("v", "wv", "kv_shape")
    kt = node("Transpose", [repeat("k", k)], ["kt"], perm=[0, 1, 3, 2])
    sc = node("MatMul", [q, kt], ["scores"])
    sc = node("Mul", [sc, "scale"], ["scaled"])
    sc = node("Add", [sc, "mask"], ["masked"])
    p = node("Softmax", [sc], ["probs"], axis=-1)
    o = node("MatMul", [p, repeat("v", v)], ["attn"])
    o = node("Transpose", [o], ["attn_t"], perm=[0, 2, 1, 3])
    o = node("Reshape", [o, "merged"], ["attn_m"])
    node("MatMul", [o, "wo"], ["y"])
    outputs = [helper.make_tensor_value_info("y", et, [b, s, e])]
    if present:
        outputs.append(helper.make_tensor_value_info("k_rot", et, [b, hkv, s, d]))
    graph = helper.make_graph(nodes, "rope_attention",
                              [helper.make_tensor_value_info("x", et, [b, s, e])], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "rope.onnx"))

    # float64 reference.
    f = {k: v.astype(np.float64) for k, v in w.items()}
    xf = x.astype(np.float64)

    def split(p, n):
        return p.reshape(b, s, n, d).transpose(0, 2, 1, 3)

    def rot(t):
        half = np.concatenate([-t[..., d // 2:], t[..., :d // 2]], axis=-1)
        return t * f["cos"] + half * f["sin"]

    qf = rot(split(xf @ f["wq"], h))
    kf = rot(split(xf @ f["wk"], hkv))
    vf = split(xf @ f["wv"], hkv)
    g = h // hkv
    kr, vr = np.repeat(kf, g, axis=1), np.repeat(vf, g, axis=1)
    sc = qf @ kr.transpose(0, 1, 3, 2) / np.sqrt(d) + np.triu(np.full((s, s), -np.inf), 1)
    sc = np.exp(sc - sc.max(-1, keepdims=True))
    sc /= sc.sum(-1, keepdims=True)
    y = (sc @ vr).transpose(0, 2, 1, 3).reshape(b, s, e) @ f["wo"]
    ds = os.path.join(out, "data")
    open(os.path.join(ds, "input_0.pb"), "wb").write(
        numpy_helper.from_array(x, "x").SerializeToString())
    open(os.path.join(ds, "output_0.pb"), "wb").write(
        numpy_helper.from_array(y.astype(dtype), "y").SerializeToString())
    if present:
        open(os.path.join(ds, "output_1.pb"), "wb").write(
            numpy_helper.from_array(kf.astype(dtype), "k_rot").SerializeToString())


if __name__ == "__main__":
    main()
