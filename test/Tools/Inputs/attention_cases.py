#!/usr/bin/env python3
"""Attention test cases for test/Tools/attention.test (and, with --gpu, the GPU kernel's:
scripts/gpu-attention.sh).

`attention_cases.py OUTDIR [--gpu]` writes, per case, OUTDIR/NAME.mlir (the attention chain as
torch eager attention exports it: transpose K, matmul, divide by sqrt(d), an optional mask,
softmax over the keys, matmul) and OUTDIR/NAME/ (input_K.pb with seeded random inputs,
output_0.pb computed here in float64 with numpy and rounded to the model's dtype), so the
compiled kernel is checked against an evaluation that shares no code with aicc.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

NEG_INF = {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80"}


def ttype(shape, e):
    return "tensor<" + "".join(f"{d}x" for d in shape) + e + ">"


def to_bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even."""
    x = np.asarray(x, dtype=np.float32)
    u = np.atleast_1d(x).view(np.uint32).astype(np.uint64)
    u = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    return u.astype(np.uint16).reshape(x.shape)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def tensor_proto(name, x, e):
    if e == "f32":
        return numpy_helper.from_array(x.astype(np.float32), name)
    if e == "f16":
        return numpy_helper.from_array(x.astype(np.float16), name)
    if e == "i1":
        return numpy_helper.from_array(x.astype(np.bool_), name)
    t = helper.make_tensor(name, TensorProto.BFLOAT16, x.shape, to_bf16_bits(x).tobytes(), raw=True)
    return t


def rounded(x, e):
    """x as the model's dtype holds it, back in float64."""
    if e == "f32":
        return x.astype(np.float32).astype(np.float64)
    if e == "f16":
        return x.astype(np.float16).astype(np.float64)
    return from_bf16_bits(to_bf16_bits(x.astype(np.float32))).astype(np.float64)


def case(out, name, batch, sq, skv, d, dv, e, mask=None, causal=False, gqa=False, seed=0,
         kt_input=False, empty_rows=(), empty_batches=()):
    """batch: the batch dims of Q; with gqa the last one is the query heads per KV head,
    which K and V broadcast over (size 1 there). kt_input: the model takes K^T [.., D, Skv]
    itself (no transpose in the model: the attention reads a stored K^T). empty_rows (with
    mask="bool"): these query rows see no key, and the model zeroes the NaN probabilities as
    torch's scaled_dot_product_attention with a bool mask does (where(isnan(p), 0, p), IsNaN
    as not(p == p)): those rows of the result are 0. empty_batches (with mask="add"): these
    batch elements' padding masks hide every key, with the same cleanup."""
    rng = np.random.default_rng(seed)
    kb = batch[:-1] + [1] if gqa else batch
    q_s, k_s, v_s = batch + [sq, d], kb + [skv, d], kb + [skv, dv]
    s_s, y_s, kt_s = batch + [sq, skv], batch + [sq, dv], kb + [d, skv]
    args = [f"%q: {ttype(q_s, e)}",
            f"%kt: {ttype(kt_s, e)}" if kt_input else f"%k: {ttype(k_s, e)}",
            f"%v: {ttype(v_s, e)}"]
    q = rounded(rng.standard_normal(q_s), e)
    k = rounded(rng.standard_normal(k_s), e)
    v = rounded(rng.standard_normal(v_s), e)
    inputs = [q, np.swapaxes(k, -1, -2) if kt_input else k, v]
    types = [e, e, e]
    bias = np.zeros(s_s)
    m_s = None
    if mask == "add":  # a [B, 1, .., 1, Skv] padding mask: 0 or -inf, a few keys per row off
        m_s = [batch[0]] + [1] * (len(batch) - 1) + [1, skv]
        m = np.where(rng.random(m_s) < 0.2, -np.inf, 0.0)
        m[..., 0] = 0.0  # no row fully masked
        m[list(empty_batches)] = -np.inf
        args.append(f"%m: {ttype(m_s, e)}")
        inputs.append(m)
        types.append(e)
        bias = bias + m
    if mask == "bias":  # a [1, H.., Sq, Skv] bias (relative positions, ALiBi), some -inf
        m_s = [1] + batch[1:] + [sq, skv]
        m = rounded(2.0 * rng.standard_normal(m_s), e)
        m = np.where(rng.random(m_s) < 0.1, -np.inf, m)
        m[..., 0] = 0.0  # no row fully masked
        args.append(f"%m: {ttype(m_s, e)}")
        inputs.append(m)
        types.append(e)
        bias = bias + m
    if mask == "bool":  # an [Sq, Skv] bool mask of visible keys (where(mask, s, -inf))
        m_s = [sq, skv]
        m = rng.random(m_s) < 0.7
        m[:, 0] = True
        m[list(empty_rows), :] = False
        args.append(f"%m: {ttype(m_s, 'i1')}")
        inputs.append(m)
        types.append("i1")
        bias = bias + np.where(m, 0.0, -np.inf)
    r = len(k_s)
    perm = list(range(r - 2)) + [r - 1, r - 2]
    lines = [f"// attention case {name} (test/Tools/attention.test, attention_cases.py)",
             f"func.func @main({', '.join(args)}) -> {ttype(y_s, e)} {{"]
    if not kt_input:
        lines.append(f"  %kt = graph.transpose %k, [{', '.join(map(str, perm))}] : "
                     f"({ttype(k_s, e)}) -> {ttype(kt_s, e)}")
    lines += [f"  %s = graph.matmul %q, %kt : ({ttype(q_s, e)}, {ttype(kt_s, e)}) -> {ttype(s_s, e)}",
             f"  %c = graph.constant dense<{np.sqrt(d):.8f}> : {ttype([], e)}",
             f"  %t = graph.div %s, %c : ({ttype(s_s, e)}, {ttype([], e)}) -> {ttype(s_s, e)}"]
    last = "%t"
    if mask in ("add", "bias"):
        lines.append(f"  %a = graph.add %t, %m : ({ttype(s_s, e)}, {ttype(m_s, e)}) -> {ttype(s_s, e)}")
        last = "%a"
    if mask == "bool":
        lines.append(f"  %ninf = graph.constant dense<{NEG_INF[e]}> : {ttype([], e)}")
        lines.append(f"  %a = graph.where %m, %t, %ninf : ({ttype(m_s, 'i1')}, {ttype(s_s, e)}, "
                     f"{ttype([], e)}) -> {ttype(s_s, e)}")
        last = "%a"
    if causal:  # the constant mask torch builds: -inf above the (bottom-right) diagonal
        rows = ["[" + ", ".join("0.0" if j <= i + skv - sq else NEG_INF[e] for j in range(skv)) + "]"
                for i in range(sq)]
        lines.append(f"  %cm = graph.constant dense<[{', '.join(rows)}]> : {ttype([sq, skv], e)}")
        lines.append(f"  %b = graph.add {last}, %cm : ({ttype(s_s, e)}, {ttype([sq, skv], e)}) -> "
                     f"{ttype(s_s, e)}")
        last = "%b"
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        bias = bias + np.where(j <= i + skv - sq, 0.0, -np.inf)
    lines.append(f"  %p = graph.softmax {last} {{axis = {len(s_s) - 1} : i64}} : {ttype(s_s, e)}")
    probs = "%p"
    if empty_rows or empty_batches:
        b_s = ttype(s_s, "i1")
        lines += [f"  %same = graph.equal %p, %p : ({ttype(s_s, e)}, {ttype(s_s, e)}) -> {b_s}",
                  f"  %isnan = graph.not %same : {b_s}",
                  f"  %zero = graph.constant dense<0.0> : {ttype([], e)}",
                  f"  %pz = graph.where %isnan, %zero, %p : ({b_s}, {ttype([], e)}, "
                  f"{ttype(s_s, e)}) -> {ttype(s_s, e)}"]
        probs = "%pz"
    lines += [f"  %y = graph.matmul {probs}, %v : ({ttype(s_s, e)}, {ttype(v_s, e)}) -> {ttype(y_s, e)}",
              f"  return %y : {ttype(y_s, e)}", "}"]
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # The float64 evaluation: softmax(Q K^T / sqrt(d) + bias) V.
    s = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(d) + bias
    with np.errstate(invalid="ignore"):
        s = s - s.max(axis=-1, keepdims=True)
        p = np.exp(s)
        p = p / p.sum(axis=-1, keepdims=True)
    p = np.where(np.isnan(p), 0.0, p)  # only the empty rows, which only the cleanup has
    y = np.matmul(p, v)
    data = os.path.join(out, name)
    os.makedirs(data, exist_ok=True)
    for i, (x, t) in enumerate(zip(inputs, types)):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(tensor_proto(f"input_{i}", x, t).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(tensor_proto("output_0", rounded(y, e), e).SerializeToString())


ONNX_ELEM = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16}


def dynamic_case(out, name, batch, sq, skv, d, dv, e, bound, run, causal=False, seed=0,
                 q_tail=np.nan, mask=False, static_keys=None, positions=None,
                 mask_value=None, pos_dtype=np.int64):
    """An attention over a sequence of run-time length: OUT/NAME.onnx whose keys (and, with
    sq=None, queries: self-attention) have the dim_param 'seq', to compile with --dim
    seq=1..BOUND; OUT/NAME/ holds the inputs at the bound with the rows past RUN NaN (what a
    buffer's tail may hold) and the float64 result at RUN, the rows past it NaN (not
    compared; Q's tail rows hold q_tail, which wgmma_sim needs finite: its shared memory
    starts NaN to catch reads of bytes never written). Causal (self-attention only): torch's registered-buffer idiom, a constant
    mask of the model's maximum positions (BOUND + 64) sliced to [seq, seq] (Shape(q)[-2])
    and added to the scores. mask: a padding mask input [B, 1, .., 1, seq] (0 or -inf, a
    few keys per row off) added to the scores, its tail NaN too. static_keys=N (sq=None, not
    causal): queries of run-time length over N static keys (a prompt over a fixed-capacity
    KV cache), the mask [B, 1, .., seq, N] per query row, its tail rows NaN. positions=P
    (with static_keys, instead of the mask input): the static cache's mask as HF's
    StaticCache builds it from a position input pos int64 [seq] (P + 0, .., P + RUN - 1,
    its tail N - 1): where(arange(N) <= pos[:, None], 0, finfo.min) added to the scores
    (mask_value: that value instead of finfo.min, -inf: torch's bool mask; pos_dtype: the
    positions' and keys' integer type)."""
    if causal and sq is not None:
        raise ValueError("causal dynamic cases are self-attention (sq=None)")
    if static_keys is not None and (sq is not None or causal or (mask == (positions is not None))):
        raise ValueError("static_keys: queries of run-time length (sq=None), a mask or "
                         "positions, not causal")
    rng = np.random.default_rng(seed)
    qn = run if sq is None else sq
    kn = run if static_keys is None else static_keys
    q = rounded(rng.standard_normal(batch + [qn, d]), e)
    k = rounded(rng.standard_normal(batch + [kn, d]), e)
    v = rounded(rng.standard_normal(batch + [kn, dv]), e)
    bias = 0.0
    if causal:
        i, j = np.arange(run)[:, None], np.arange(run)[None, :]
        bias = np.where(j <= i, 0.0, -np.inf)
    m_s = [batch[0]] + [1] * (len(batch) - 1) + [1]
    if static_keys is not None:
        m_s = m_s[:-1] + [run]
    lowest = -65504.0 if e == "f16" else -3.3895313892515355e38
    if mask_value is not None:
        lowest = mask_value
    if positions is not None:
        pos = positions + np.arange(run)
        bias = np.where(np.arange(kn)[None, :] <= pos[:, None], 0.0, lowest)
    if mask:
        m = np.where(rng.random(m_s + [kn]) < 0.2, -np.inf, 0.0)
        m[..., 0] = 0.0  # no row fully masked
        bias = bias + m
    y = attention_reference(q, k, v, d, e, bias)
    et = ONNX_ELEM[e]
    seq_q = "seq" if sq is None else sq
    r = len(batch) + 2
    vi = helper.make_tensor_value_info
    seq_k = "seq" if static_keys is None else static_keys
    inputs = [vi("q", et, batch + [seq_q, d]), vi("k", et, batch + [seq_k, d]),
              vi("v", et, batch + [seq_k, dv])]
    if mask:
        inputs.append(vi("m", et, (m_s + ["seq"]) if static_keys is None
                         else (m_s[:-1] + ["seq", static_keys])))
    if positions is not None:
        inputs.append(vi("pos", TensorProto.INT32 if pos_dtype == np.int32 else TensorProto.INT64,
                             ["seq"]))
    outputs = [vi("y", et, batch + [seq_q, dv])]
    inits = [tensor_proto("scale", np.array(1 / np.sqrt(d)), e)]
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=list(range(r - 2)) + [r - 1, r - 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             helper.make_node("Mul", ["s", "scale"], ["t"])]
    last = "t"
    if causal:
        i, j = np.arange(bound + 64)[:, None], np.arange(bound + 64)[None, :]
        inits += [tensor_proto("tril", np.where(j <= i, 0.0, -np.inf), e),
                  numpy_helper.from_array(np.array([0, 0], dtype=np.int64), "starts"),
                  numpy_helper.from_array(np.array([0, 1], dtype=np.int64), "axes")]
        nodes += [helper.make_node("Shape", ["q"], ["n"], start=-2, end=-1),
                  helper.make_node("Concat", ["n", "n"], ["ends"], axis=0),
                  helper.make_node("Slice", ["tril", "starts", "ends", "axes"], ["cm"]),
                  helper.make_node("Add", [last, "cm"], ["tc"])]
        last = "tc"
    if mask:
        nodes.append(helper.make_node("Add", [last, "m"], ["tm"]))
        last = "tm"
    if positions is not None:
        inits += [numpy_helper.from_array(np.arange(kn, dtype=pos_dtype)[None, :], "keys"),
                  numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
                  tensor_proto("zero", np.array(0.0), e),
                  tensor_proto("lowest", np.array(lowest), e)]
        nodes += [helper.make_node("Unsqueeze", ["pos", "axis1"], ["pcol"]),
                  helper.make_node("LessOrEqual", ["keys", "pcol"], ["vis"]),
                  helper.make_node("Where", ["vis", "zero", "lowest"], ["pm"]),
                  helper.make_node("Add", [last, "pm"], ["tp"])]
        last = "tp"
    nodes += [helper.make_node("Softmax", [last], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "v"], ["y"])]
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())

    def padded(x, axis_len, fill=np.nan):
        pad = np.full(x.shape[:-2] + (bound - axis_len, x.shape[-1]), fill)
        return np.concatenate([x, pad], axis=-2)

    data = os.path.join(out, name)
    os.makedirs(data, exist_ok=True)
    if static_keys is not None:
        xs = [padded(q, run, q_tail), k, v] + ([padded(m, run)] if mask else [])
    else:
        xs = [q if sq is not None else padded(q, run, q_tail), padded(k, run), padded(v, run)]
    if mask and static_keys is None:
        xs.append(np.concatenate([m, np.full(m_s + [bound - run], np.nan)], axis=-1))
    for n, x in enumerate(xs):
        with open(os.path.join(data, f"input_{n}.pb"), "wb") as f:
            f.write(tensor_proto(f"input_{n}", x, e).SerializeToString())
    if positions is not None:
        tail = np.full(bound - run, kn - 1, dtype=pos_dtype)
        with open(os.path.join(data, f"input_{len(xs)}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.concatenate([pos.astype(pos_dtype), tail]),
                                            f"input_{len(xs)}").SerializeToString())
    yo = rounded(y, e) if sq is not None else padded(rounded(y, e), run)
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(tensor_proto("output_0", yo, e).SerializeToString())


def head_split_case(out, name, b, h, sq, skv, d, e, causal=False, seed=0, merge=False):
    """Attention as torch's multi-head attention writes it: Q, K, V come as [B, S, H * D]
    (a linear's output), are viewed [B, S, H, D] and transposed to [B, H, S, D] (K to
    [B, H, D, S] in one transpose, k.transpose(1, 2).transpose(2, 3) composed); the result
    is [B, H, Sq, D], or with `merge` the heads merged back: transposed to [B, Sq, H, D] and
    viewed [B, Sq, H * D]."""
    rng = np.random.default_rng(seed)
    q = rounded(rng.standard_normal([b, sq, h * d]), e)
    k = rounded(rng.standard_normal([b, skv, h * d]), e)
    v = rounded(rng.standard_normal([b, skv, h * d]), e)
    T = lambda s: ttype(s, e)
    lines = [f"// attention case {name} (head split; attention_cases.py)",
             f"func.func @main(%q0: {T([b, sq, h * d])}, %k0: {T([b, skv, h * d])}, "
             f"%v0: {T([b, skv, h * d])}) -> {T([b, h, sq, d])} {{"]
    for x, s in (("q", sq), ("k", skv), ("v", skv)):
        lines.append(f"  %{x}1 = graph.reshape %{x}0 : ({T([b, s, h * d])}) -> {T([b, s, h, d])}")
    lines += [f"  %q = graph.transpose %q1, [0, 2, 1, 3] : ({T([b, sq, h, d])}) -> {T([b, h, sq, d])}",
              f"  %kt = graph.transpose %k1, [0, 2, 3, 1] : ({T([b, skv, h, d])}) -> {T([b, h, d, skv])}",
              f"  %v = graph.transpose %v1, [0, 2, 1, 3] : ({T([b, skv, h, d])}) -> {T([b, h, skv, d])}",
              f"  %s = graph.matmul %q, %kt : ({T([b, h, sq, d])}, {T([b, h, d, skv])}) -> {T([b, h, sq, skv])}",
              f"  %c = graph.constant dense<{1 / np.sqrt(d):.8f}> : {T([])}",
              f"  %t = graph.mul %s, %c : ({T([b, h, sq, skv])}, {T([])}) -> {T([b, h, sq, skv])}"]
    last = "%t"
    bias = 0.0
    if causal:
        rows = ["[" + ", ".join("0.0" if j <= i + skv - sq else NEG_INF[e] for j in range(skv)) + "]"
                for i in range(sq)]
        lines.append(f"  %cm = graph.constant dense<[{', '.join(rows)}]> : {T([sq, skv])}")
        lines.append(f"  %a = graph.add %t, %cm : ({T([b, h, sq, skv])}, {T([sq, skv])}) -> {T([b, h, sq, skv])}")
        last = "%a"
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        bias = np.where(j <= i + skv - sq, 0.0, -np.inf)
    lines += [f"  %p = graph.softmax {last} {{axis = 3 : i64}} : {T([b, h, sq, skv])}",
              f"  %y = graph.matmul %p, %v : ({T([b, h, sq, skv])}, {T([b, h, skv, d])}) -> {T([b, h, sq, d])}"]
    if merge:
        lines += [f"  %ym = graph.transpose %y, [0, 2, 1, 3] : ({T([b, h, sq, d])}) -> {T([b, sq, h, d])}",
                  f"  %yr = graph.reshape %ym : ({T([b, sq, h, d])}) -> {T([b, sq, h * d])}",
                  f"  return %yr : {T([b, sq, h * d])}", "}"]
        lines[1] = lines[1].rsplit("->", 1)[0] + f"-> {T([b, sq, h * d])} {{"
    else:
        lines += [f"  return %y : {T([b, h, sq, d])}", "}"]
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")
    split = lambda x: x.reshape(b, -1, h, d).transpose(0, 2, 1, 3)
    qs, ks, vs = split(q), split(k), split(v)
    s = np.matmul(qs, np.swapaxes(ks, -1, -2)) * rounded(np.array([1 / np.sqrt(d)]), e)[0] + bias
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    y = np.matmul(p / p.sum(axis=-1, keepdims=True), vs)
    if merge:
        y = y.transpose(0, 2, 1, 3).reshape(b, sq, h * d)
    data = os.path.join(out, name)
    os.makedirs(data, exist_ok=True)
    for i, x in enumerate((q, k, v)):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(tensor_proto(f"input_{i}", x, e).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(tensor_proto("output_0", rounded(y, e), e).SerializeToString())


def causal_softmax_pv(lines, T, b, h, sq, d, e, v, heads, causal, skv=None):
    """Appends the scores of %q and %kt, their scale by 1/sqrt(d), an optional causal mask
    (sq queries over skv keys, default sq: key j visible from query i when j <= i + skv -
    sq), the softmax over the keys and %y = P @ v; returns the additive mask (0 or -inf) for
    the numpy reference."""
    skv = sq if skv is None else skv
    sc = T([b, h, sq, skv])
    lines += [f"  %s = graph.matmul %q, %kt : ({heads}, {T([b, h, d, skv])}) -> {sc}",
              f"  %c = graph.constant dense<{1 / np.sqrt(d):.8f}> : {T([])}",
              f"  %t = graph.mul %s, %c : ({sc}, {T([])}) -> {sc}"]
    last, bias = "%t", 0.0
    if causal:
        rows = ["[" + ", ".join("0.0" if j <= i + skv - sq else NEG_INF[e] for j in range(skv))
                + "]" for i in range(sq)]
        lines += [f"  %cm = graph.constant dense<[{', '.join(rows)}]> : {T([sq, skv])}",
                  f"  %a = graph.add %t, %cm : ({sc}, {T([sq, skv])}) -> {sc}"]
        last = "%a"
        bias = np.where(np.arange(skv)[None, :] <= np.arange(sq)[:, None] + skv - sq, 0.0,
                        -np.inf)
    lines += [f"  %p = graph.softmax {last} {{axis = 3 : i64}} : {sc}",
              f"  %y = graph.matmul %p, {v} : ({sc}, {T([b, h, skv, d])}) -> {heads}"]
    return bias


def attention_reference(q, k, v, d, e, bias):
    """softmax(q k^T * scale + bias) v in float64, the scale rounded to the model's dtype."""
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * rounded(np.array([1 / np.sqrt(d)]), e)[0] + bias
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    return np.matmul(p / p.sum(axis=-1, keepdims=True), v)


def write_case(out, name, lines, inputs, y, e):
    """OUT/NAME.mlir and OUT/NAME/{input_K,output_0}.pb (the output rounded to the dtype)."""
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write("\n".join(lines) + "\n")
    data = os.path.join(out, name)
    os.makedirs(data, exist_ok=True)
    for i, x in enumerate(inputs):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(tensor_proto(f"input_{i}", x, e).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(tensor_proto("output_0", rounded(y, e), e).SerializeToString())


def packed_qkv_case(out, name, sq, b, h, d, e, causal=False, seed=0, split=False):
    """Q, K and V as thirds of one projection's output, read in place. Default: torch's
    nn.MultiheadAttention fast path (sequence first, what nn.TransformerEncoderLayer
    exports): qkv [S, B, 3 * E] is unflattened to [S, B, 3, E], moved to [3, S, B, E] and
    selected (Gather of a constant index); each [S, B, E] is viewed [S, B * H, D],
    transposed to [B * H, S, D] and viewed [B, H, S, D]; the result is permuted to
    [S, B, H, D] and viewed [S, B, E]. With `split`, GPT-2's form: qkv [B, S, 3 * E] is
    Split into thirds (graph.slice), each viewed [B, S, H, D] and transposed, and the
    result merged back to [B, S, E]."""
    rng = np.random.default_rng(seed)
    E = h * d
    qkv = rounded(rng.standard_normal([b, sq, 3 * E] if split else [sq, b, 3 * E]), e)
    T = lambda s: ttype(s, e)
    inT = T([b, sq, 3 * E] if split else [sq, b, 3 * E])
    outT = T([b, sq, E] if split else [sq, b, E])
    lines = [f"// attention case {name} (one qkv projection; attention_cases.py)",
             f"func.func @main(%x: {inT}) -> {outT} {{"]
    heads = T([b, h, sq, d])
    if split:
        for i, x in enumerate("qkv"):
            lines += [f"  %{x}s = graph.slice %x {{starts = array<i64: 0, 0, {i * E}>, steps = array<i64: 1, 1, 1>}} : {inT} -> {T([b, sq, E])}",
                      f"  %{x}r = graph.reshape %{x}s : ({T([b, sq, E])}) -> {T([b, sq, h, d])}"]
        lines += [f"  %q = graph.transpose %qr, [0, 2, 1, 3] : ({T([b, sq, h, d])}) -> {heads}",
                  f"  %kt = graph.transpose %kr, [0, 2, 3, 1] : ({T([b, sq, h, d])}) -> {T([b, h, d, sq])}",
                  f"  %v = graph.transpose %vr, [0, 2, 1, 3] : ({T([b, sq, h, d])}) -> {heads}"]
    else:
        lines += [f"  %u = graph.reshape %x : ({inT}) -> {T([1, sq, b, 3, E])}",
                  f"  %m = graph.transpose %u, [3, 1, 2, 0, 4] : ({T([1, sq, b, 3, E])}) -> {T([3, sq, b, 1, E])}",
                  f"  %w = graph.reshape %m : ({T([3, sq, b, 1, E])}) -> {T([3, sq, b, E])}"]
        for i, x in enumerate("qkv"):
            lines += [f"  %{x}i = graph.constant dense<{i}> : tensor<i64>",
                      f"  %{x}g = graph.gather %w, %{x}i {{axis = 0 : i64}} : ({T([3, sq, b, E])}, tensor<i64>) -> {T([sq, b, E])}",
                      f"  %{x}r = graph.reshape %{x}g : ({T([sq, b, E])}) -> {T([sq, b * h, d])}"]
        lines += [f"  %q3 = graph.transpose %qr, [1, 0, 2] : ({T([sq, b * h, d])}) -> {T([b * h, sq, d])}",
                  f"  %kt3 = graph.transpose %kr, [1, 2, 0] : ({T([sq, b * h, d])}) -> {T([b * h, d, sq])}",
                  f"  %v3 = graph.transpose %vr, [1, 0, 2] : ({T([sq, b * h, d])}) -> {T([b * h, sq, d])}",
                  f"  %q = graph.reshape %q3 : ({T([b * h, sq, d])}) -> {heads}",
                  f"  %kt = graph.reshape %kt3 : ({T([b * h, d, sq])}) -> {T([b, h, d, sq])}",
                  f"  %v = graph.reshape %v3 : ({T([b * h, sq, d])}) -> {heads}"]
    bias = causal_softmax_pv(lines, T, b, h, sq, d, e, "%v", heads, causal)
    if split:
        lines += [f"  %ym = graph.transpose %y, [0, 2, 1, 3] : ({heads}) -> {T([b, sq, h, d])}",
                  f"  %yr = graph.reshape %ym : ({T([b, sq, h, d])}) -> {outT}"]
    else:
        lines += [f"  %ym = graph.transpose %y, [2, 0, 1, 3] : ({heads}) -> {T([sq, b, h, d])}",
                  f"  %yr = graph.reshape %ym : ({T([sq, b, h, d])}) -> {outT}"]
    lines += [f"  return %yr : {outT}", "}"]
    if split:
        q, k, v = (qkv[:, :, i * E:(i + 1) * E].reshape(b, sq, h, d).transpose(0, 2, 1, 3)
                   for i in range(3))
    else:
        q, k, v = (qkv[:, :, i * E:(i + 1) * E].reshape(sq, b * h, d).transpose(1, 0, 2)
                   .reshape(b, h, sq, d) for i in range(3))
    y = attention_reference(q, k, v, d, e, bias)
    y = y.transpose(0, 2, 1, 3) if split else y.transpose(2, 0, 1, 3)
    write_case(out, name, lines, [qkv], y.reshape([b, sq, E] if split else [sq, b, E]), e)


def gqa_expand_case(out, name, b, h, kvh, sq, d, e, causal=False, seed=0, skv=None):
    """Grouped-query attention as HF Llama writes it: q [B, S, H * D], k and v [B, Skv, KVH *
    D] (Skv = skv, default S) viewed [B, S, heads, D] and transposed to [B, heads, S, D]; k
    and v repeated per query-head group (repeat_kv: unsqueezed to [B, KVH, 1, Skv, D],
    expanded to [B, KVH, G, Skv, D], viewed [B, H, Skv, D]); K^T by a transpose of the last
    two dims. Result [B, H, S, D]."""
    rng = np.random.default_rng(seed)
    g = h // kvh
    skv = sq if skv is None else skv
    q = rounded(rng.standard_normal([b, sq, h * d]), e)
    k = rounded(rng.standard_normal([b, skv, kvh * d]), e)
    v = rounded(rng.standard_normal([b, skv, kvh * d]), e)
    T = lambda s: ttype(s, e)
    heads = T([b, h, sq, d])
    lines = [f"// attention case {name} (GQA through expand; attention_cases.py)",
             f"func.func @main(%q0: {T([b, sq, h * d])}, %k0: {T([b, skv, kvh * d])}, "
             f"%v0: {T([b, skv, kvh * d])}) -> {heads} {{",
             f"  %q1 = graph.reshape %q0 : ({T([b, sq, h * d])}) -> {T([b, sq, h, d])}",
             f"  %q = graph.transpose %q1, [0, 2, 1, 3] : ({T([b, sq, h, d])}) -> {heads}"]
    for x in "kv":
        lines += [f"  %{x}1 = graph.reshape %{x}0 : ({T([b, skv, kvh * d])}) -> {T([b, skv, kvh, d])}",
                  f"  %{x}2 = graph.transpose %{x}1, [0, 2, 1, 3] : ({T([b, skv, kvh, d])}) -> {T([b, kvh, skv, d])}",
                  f"  %{x}3 = graph.reshape %{x}2 : ({T([b, kvh, skv, d])}) -> {T([b, kvh, 1, skv, d])}",
                  f"  %{x}4 = graph.expand %{x}3 : {T([b, kvh, 1, skv, d])} -> {T([b, kvh, g, skv, d])}",
                  f"  %{x}5 = graph.reshape %{x}4 : ({T([b, kvh, g, skv, d])}) -> {T([b, h, skv, d])}"]
    lines.append(f"  %kt = graph.transpose %k5, [0, 1, 3, 2] : ({T([b, h, skv, d])}) -> {T([b, h, d, skv])}")
    bias = causal_softmax_pv(lines, T, b, h, sq, d, e, "%v5", heads, causal, skv)
    lines += [f"  return %y : {heads}", "}"]
    rep = lambda x: np.repeat(x.reshape(b, skv, kvh, d).transpose(0, 2, 1, 3), g, axis=1)
    y = attention_reference(q.reshape(b, sq, h, d).transpose(0, 2, 1, 3), rep(k), rep(v), d, e,
                            bias)
    write_case(out, name, lines, [q, k, v], y, e)


def gpu_cases(out):
    """The cases of the GPU attention kernels (the tensor-core ones: 16-bit operands, head
    sizes multiples of 16 in [16, 256]; the generic one: f32, heads up to 128;
    scripts/gpu-attention.sh runs them on the GPU machine)."""
    # Ragged query and key blocks (77 = 64 + 13), D 64.
    case(out, "gpu-f16-d64-ragged", [2, 4], 77, 77, 64, 64, "f16", seed=11)
    # Causal over several blocks (200 = 3 x 64 + 8), D 128: the diagonal blocks and skipping.
    case(out, "gpu-f16-d128-causal", [2, 2], 200, 200, 128, 128, "f16", causal=True, seed=12)
    # Causal with a KV cache (5 queries over 133 positions), bf16.
    case(out, "gpu-bf16-d64-causal-kv", [1, 2], 5, 133, 64, 64, "bf16", causal=True, seed=13)
    # Grouped-query heads: K and V broadcast over 2 query heads each.
    case(out, "gpu-f16-d64-gqa", [1, 2, 2], 40, 100, 64, 64, "f16", gqa=True, seed=14)
    # A stored K^T [.., D, Skv] (Skv % 8 == 0): ldmatrix.trans for the first product.
    case(out, "gpu-f16-d32-kt-stored", [3], 70, 96, 32, 32, "f16", kt_input=True, seed=15)
    # Long rows in bf16, D 128, Dv 64; and the smallest head.
    case(out, "gpu-bf16-d128-dv64", [1, 2], 300, 300, 128, 64, "bf16", seed=16)
    case(out, "gpu-f16-d16", [4], 33, 129, 16, 16, "f16", seed=17)
    # torch's multi-head layout: [B, S, H * D] inputs, the head split read in place.
    head_split_case(out, "gpu-f16-d64-heads", 2, 4, 100, 100, 64, "f16", seed=19)
    head_split_case(out, "gpu-bf16-d32-heads-causal", 1, 3, 70, 70, 32, "bf16", causal=True,
                    seed=20, merge=True)
    # One qkv projection read in place: torch's sequence-first MultiheadAttention (unflatten,
    # select, [S, B * H, D] head split; S = 100 ragged) and GPT-2's Split of [B, S, 3 * E].
    packed_qkv_case(out, "gpu-f16-d64-qkv-select", 100, 2, 4, 64, "f16", seed=21)
    packed_qkv_case(out, "gpu-bf16-d32-qkv-split-causal", 70, 2, 3, 32, "bf16", causal=True,
                    seed=22, split=True)
    # GQA through HF's repeat_kv (expand of K and V per query-head group): read in place,
    # kv head h / G.
    gqa_expand_case(out, "gpu-f16-d64-gqa-expand", 2, 8, 2, 90, 64, "f16", causal=True, seed=23)
    # The sm_90a FlashAttention-3 kernel's blocks (128 x 128): several key blocks with a
    # ragged tail, causal diagonals inside a CTA's two warpgroups, a KV cache longer than the
    # queries over two query blocks, Dv != D, the head split and merge in place with D 128.
    case(out, "gpu-f16-d64-long", [1, 3], 517, 1030, 64, 64, "f16", seed=24)
    case(out, "gpu-f16-d128-causal-long", [1, 2], 700, 700, 128, 128, "f16", causal=True,
         seed=25)
    case(out, "gpu-bf16-d64-causal-kv-long", [2, 1], 150, 600, 64, 64, "bf16", causal=True,
         seed=26)
    case(out, "gpu-f16-d64-dv128", [2], 260, 260, 64, 128, "f16", seed=27)
    head_split_case(out, "gpu-f16-d128-heads-causal", 2, 2, 300, 300, 128, "f16", causal=True,
                    seed=28, merge=True)
    # Decode (at most 32 queries: one warp per 16, the keys split across programs by the
    # heuristic, then the combine kernel): one query over a 4100-key cache with grouped-query
    # heads; 16 causal queries over 2000 keys in bf16; 4 queries in torch's multi-head layout
    # with the merge stored in place by the combine kernel (the head a column offset).
    case(out, "gpu-f16-d128-decode-gqa", [2, 2, 4], 1, 4100, 128, 128, "f16", gqa=True, seed=29)
    case(out, "gpu-bf16-d64-decode-causal", [1, 4], 16, 2000, 64, 64, "bf16", causal=True,
         seed=30)
    head_split_case(out, "gpu-f16-d64-decode-heads", 2, 4, 4, 1500, 64, "f16", seed=31,
                    merge=True)
    # HF Llama's decode step: repeat_kv's expand (32 query heads over 8 KV heads), one query
    # over 2100 causal positions, packed to 4 query rows per KV head.
    gqa_expand_case(out, "gpu-f16-d128-decode-repeat-kv", 1, 32, 8, 1, 128, "f16", causal=True,
                    seed=32, skv=2100)
    # Masks read per key block: a padding mask [B, 1, 1, Skv] (one row per block, several
    # blocks, ragged); a bias [1, H, Sq, Skv] varying along both axes (with -inf entries) at
    # D 128, the FlashAttention-3 kernel's on sm_90a; a bool mask (where(mask, s, -inf): a
    # kernel makes the additive mask, the attention reads it); a decode step with a padding
    # mask and split keys.
    case(out, "gpu-f16-d64-mask-add", [2, 4], 200, 300, 64, 64, "f16", mask="add", seed=18)
    case(out, "gpu-bf16-d128-mask-bias", [1, 4], 260, 260, 128, 128, "bf16", mask="bias",
         seed=33)
    case(out, "gpu-f16-d64-mask-bool", [2, 2], 100, 130, 64, 64, "f16", mask="bool", seed=34)
    # torch's SDPA with a bool mask: rows without a visible key are 0 (the NaN cleanup after
    # the softmax, graph.attention's zero_undefined_rows); D 64 (mma.sync) and D 128 (sm_90a:
    # FlashAttention-3), a decode step with split keys (the combine's empty rows).
    case(out, "gpu-f16-d64-mask-bool-empty", [2, 2], 100, 130, 64, 64, "f16", mask="bool",
         seed=48, empty_rows=(0, 37, 99))
    case(out, "gpu-bf16-d128-mask-bool-empty", [1, 2], 200, 260, 128, 128, "bf16", mask="bool",
         seed=49, empty_rows=(5, 130))
    case(out, "gpu-f16-d128-decode-bool-empty", [1, 4], 2, 2500, 128, 128, "f16", mask="bool",
         seed=50, empty_rows=(1,))
    case(out, "gpu-f16-d128-decode-mask", [1, 4], 1, 2500, 128, 128, "f16", mask="add",
         seed=35)
    # Head sizes that are not powers of two (shared-memory rows of 128 elements): 80 with a
    # padding mask over several key blocks, 96 causal in bf16 (sm_90a: the mma.sync kernel),
    # a decode step at 80 with split keys.
    case(out, "gpu-f16-d80-mask-add", [2, 2], 150, 200, 80, 80, "f16", mask="add", seed=36)
    case(out, "gpu-bf16-d96-causal", [1, 3], 260, 260, 96, 96, "bf16", causal=True, seed=37)
    case(out, "gpu-f16-d80-decode", [2, 4], 2, 1500, 80, 80, "f16", seed=38)
    # Head 256 (Gemma; the mma.sync kernel with 8 warps, Q read from shared memory): causal
    # prefill over ragged blocks, and a bf16 decode step with split keys.
    case(out, "gpu-f16-d256-causal", [1, 2], 300, 300, 256, 256, "f16", causal=True, seed=44)
    case(out, "gpu-bf16-d256-decode", [1, 4], 1, 2500, 256, 256, "bf16", seed=45)
    # f32 (the generic kernel: the cpu template's program in 16 x 16 blocks): causal over
    # ragged blocks, and an additive mask at head 128.
    case(out, "gpu-f32-d64-causal", [2, 2], 70, 70, 64, 64, "f32", causal=True, seed=46)
    case(out, "gpu-f32-d128-mask-add", [1, 2], 40, 100, 128, 128, "f32", mask="add", seed=47)
    # 16 queries of 4 heads per KV head (not causal): packed as 64 rows per KV head, which on
    # sm_90a take the mma.sync kernel with split keys (a wgmma CTA would be half empty).
    case(out, "gpu-f16-d128-decode-q16-gqa", [1, 2, 4], 16, 2000, 128, 128, "f16", gqa=True,
         seed=39)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if sys.argv[2:] == ["--gpu"]:
        gpu_cases(out)
        return
    # BERT-style: 64-wide heads, a padding mask, S = 77 (a ragged last block of 13 keys).
    case(out, "bert-mask-ragged", [2, 4], 77, 77, 64, 64, "f32", mask="add", seed=1)
    # f16, head size 80 (not a power of 2), a bool mask, Sq != Skv (50 queries, 130 keys).
    case(out, "f16-d80-bool-mask", [1, 3], 50, 130, 80, 80, "f16", mask="bool", seed=2)
    # torch's SDPA with a bool mask (the NaN cleanup after the softmax): rows 0 and 33 see no
    # key and are 0 (graph.attention's zero_undefined_rows); with split keys, the combine.
    case(out, "bool-mask-empty-rows", [2, 2], 40, 100, 64, 64, "f32", mask="bool", seed=13,
         empty_rows=(0, 33))
    case(out, "decode-bool-empty-split-f16", [2, 2], 3, 300, 64, 64, "f16", mask="bool",
         seed=14, empty_rows=(1,))
    # Causal, head size 128, two key blocks (70 keys).
    case(out, "causal-d128", [2, 2], 70, 70, 128, 128, "f32", causal=True, seed=3)
    # A padding mask and the causal constant added after it (two mask layers): causal with
    # the mask as the bias, 30 queries over 100 positions.
    case(out, "mask-causal-f32", [2, 2], 30, 100, 32, 32, "f32", mask="add", causal=True, seed=12)
    # Causal with a KV cache (5 new queries over 133 positions), bf16.
    case(out, "causal-kv-cache-bf16", [1, 2], 5, 133, 32, 32, "bf16", causal=True, seed=4)
    # Grouped-query attention: 2 KV heads, 2 query heads each, head size 96.
    case(out, "gqa-d96", [1, 2, 2], 40, 100, 96, 96, "f32", gqa=True, seed=5)
    # Head size 256 for Q / K, 64 for V; 9 queries over 200 keys.
    case(out, "d256-dv64", [3], 9, 200, 256, 64, "f32", seed=6)
    # Split keys (attention.test compiles these with --attention-kv-splits): 3 queries over
    # 300 keys; 200 causal queries over 330 keys in bf16 (the first rows see no key of the
    # last slice); 4 queries, head size 80, an additive mask in f16.
    case(out, "decode-split", [2, 3], 3, 300, 64, 64, "f32", seed=7)
    case(out, "decode-causal-split-bf16", [1, 2], 200, 330, 32, 32, "bf16", causal=True, seed=8)
    case(out, "decode-mask-split-f16", [2, 2], 4, 260, 80, 80, "f16", mask="add", seed=9)
    # Grouped-query decode (one query, 4 query heads per KV head; causal hides nothing):
    # graph-recompose-attention packs the 4 heads as the rows of one attention per KV head.
    case(out, "decode-gqa-packed", [2, 2, 4], 1, 300, 64, 64, "f32", gqa=True, causal=True,
         seed=10)
    # The same as HF Llama writes it (repeat_kv's expand of K and V, 8 query heads over 2 KV
    # heads, the causal mask over 300 positions): packed over the unrepeated K and V.
    gqa_expand_case(out, "decode-repeat-kv", 2, 8, 2, 1, 64, "f32", causal=True, seed=11,
                    skv=300)


if __name__ == "__main__":
    main()
