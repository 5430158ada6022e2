#!/usr/bin/python3
"""Host side of the attention benchmark (issue 17): writes one MLIR model per case into
OUTDIR/<case>.mlir, the attention as exporters write it (transpose K, matmul, multiply by
1/sqrt(D), softmax over the keys, matmul) or, for causal cases, graph.attention {causal}
itself (torch's causal mask as a constant would be an S x S literal of up to 64 M elements).
Inputs q, k, v are [B, H, S, D] (SDPA's layout), output [B, H, S, D].

Decode cases (<dtype>_decode_b<B>_h<H>_kv<HKV>_q<Q>_s<S>_d<D>): Q new queries of H heads
against a KV cache of S positions and HKV heads (grouped-query: H / HKV query heads share a
KV head), written as graph.attention over q [B, HKV, G, Q, D] and k, v [B, HKV, 1, S, D]
(the batch dims broadcast: what graph-recompose-attention makes of HF's repeat_kv; the same
memory as SDPA's q [B, H, Q, D], k, v [B, HKV, S, D] with enable_gqa).

usage: bench/attention_models.py OUTDIR [CASE...]
Case names: <dtype>_b<B>_h<H>_s<S>_d<D>[_causal|_mask], e.g. f16_b4_h16_s1024_d128_causal,
or the decode form above, e.g. f16_decode_b8_h32_kv8_q1_s4096_d128. _mask cases take a fourth
input, an additive padding mask [B, 1, 1, S] in the operands' type (0 or -inf: BERT's and HF's
attention_mask), added to the scaled scores.
"""
import math
import os
import re
import sys

CASES = [f"{dt}_b4_h16_s{s}_d128{c}" for dt in ("f16", "bf16") for s in (1024, 4096, 8192)
         for c in ("", "_causal")] + \
        [f"{dt}_b1_h32_s2048_d64{c}" for dt in ("f16", "bf16") for c in ("", "_causal")] + \
        [f"{dt}_b4_h16_s{s}_d128_mask" for dt in ("f16", "bf16") for s in (1024, 4096)] + \
        [f"f16_decode_b8_h32_kv8_q1_s{s}_d128" for s in (4096, 32768)] + \
        ["bf16_decode_b8_h32_kv8_q1_s32768_d128", "f16_decode_b8_h32_kv8_q16_s4096_d128"]


def parse_decode(name):
    """(dtype, B, H, HKV, Q, S, D) of a decode case name, or None."""
    m = re.fullmatch(r"(f16|bf16)_decode_b(\d+)_h(\d+)_kv(\d+)_q(\d+)_s(\d+)_d(\d+)", name)
    if not m:
        return None
    return (m.group(1),) + tuple(int(x) for x in m.groups()[1:])


def parse(name):
    """(dtype, B, H, S, D, causal, mask) of a prefill case name."""
    m = re.fullmatch(r"(f16|bf16)_b(\d+)_h(\d+)_s(\d+)_d(\d+)(_causal|_mask)?", name)
    if not m:
        raise SystemExit(f"bad case name {name}")
    dt, b, h, s, d, kind = m.groups()
    return dt, int(b), int(h), int(s), int(d), kind == "_causal", kind == "_mask"


def ttype(shape, e):
    return "tensor<" + "".join(f"{x}x" for x in shape) + e + ">"


def decode_model(name):
    e, b, h, hkv, q, s, d = parse_decode(name)
    if h % hkv:
        raise SystemExit(f"{name}: {h} query heads are not a multiple of {hkv} KV heads")
    g = h // hkv
    qt, kt, vt = [b, hkv, g, q, d], [b, hkv, 1, d, s], [b, hkv, 1, s, d]
    return "\n".join([
        f"// attention benchmark case {name} (bench/attention_models.py)",
        f"func.func @main(%q: {ttype(qt, e)}, %k: {ttype(vt, e)}, %v: {ttype(vt, e)}) -> {ttype(qt, e)} {{",
        f"  %kt = graph.transpose %k, [0, 1, 2, 4, 3] : ({ttype(vt, e)}) -> {ttype(kt, e)}",
        f"  %y = graph.attention %q, %kt, %v {{scale = {1.0 / math.sqrt(d)!r} : f64}} : "
        f"({ttype(qt, e)}, {ttype(kt, e)}, {ttype(vt, e)}) -> {ttype(qt, e)}",
        f"  return %y : {ttype(qt, e)}", "}"]) + "\n"


def model(name):
    if parse_decode(name):
        return decode_model(name)
    e, b, h, s, d, causal, mask = parse(name)
    q, kt, sc, mt = [b, h, s, d], [b, h, d, s], [b, h, s, s], [b, 1, 1, s]
    margs = f", %m: {ttype(mt, e)}" if mask else ""
    lines = [f"// attention benchmark case {name} (bench/attention_models.py)",
             f"func.func @main(%q: {ttype(q, e)}, %k: {ttype(q, e)}, %v: {ttype(q, e)}{margs}) -> {ttype(q, e)} {{",
             f"  %kt = graph.transpose %k, [0, 1, 3, 2] : ({ttype(q, e)}) -> {ttype(kt, e)}"]
    scale = 1.0 / math.sqrt(d)
    if causal:
        lines.append(f"  %y = graph.attention %q, %kt, %v {{causal, scale = {scale!r} : f64}} : "
                     f"({ttype(q, e)}, {ttype(kt, e)}, {ttype(q, e)}) -> {ttype(q, e)}")
    else:
        lines += [f"  %s = graph.matmul %q, %kt : ({ttype(q, e)}, {ttype(kt, e)}) -> {ttype(sc, e)}",
                  f"  %c = graph.constant dense<{scale!r}> : {ttype([], e)}",
                  f"  %t = graph.mul %s, %c : ({ttype(sc, e)}, {ttype([], e)}) -> {ttype(sc, e)}"]
        if mask:
            lines.append(f"  %t = graph.add %t0, %m : ({ttype(sc, e)}, {ttype(mt, e)}) -> {ttype(sc, e)}")
            lines[-2] = lines[-2].replace("%t = graph.mul", "%t0 = graph.mul")
        lines += [f"  %p = graph.softmax %t {{axis = 3 : i64}} : {ttype(sc, e)}",
                  f"  %y = graph.matmul %p, %v : ({ttype(sc, e)}, {ttype(q, e)}) -> {ttype(q, e)}"]
    lines += [f"  return %y : {ttype(q, e)}", "}"]
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or CASES:
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(model(name))


if __name__ == "__main__":
    main()
