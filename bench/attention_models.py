#!/usr/bin/python3
"""Host side of the attention benchmark (issue 17): writes one MLIR model per case into
OUTDIR/<case>.mlir, the attention as exporters write it (transpose K, matmul, multiply by
1/sqrt(D), softmax over the keys, matmul) or, for causal cases, graph.attention {causal}
itself (torch's causal mask as a constant would be an S x S literal of up to 64 M elements).
Inputs q, k, v are [B, H, S, D] (SDPA's layout), output [B, H, S, D].

usage: bench/attention_models.py OUTDIR [CASE...]
Case names: <dtype>_b<B>_h<H>_s<S>_d<D>[_causal], e.g. f16_b4_h16_s1024_d128_causal.
"""
import math
import os
import re
import sys

CASES = [f"{dt}_b4_h16_s{s}_d128{c}" for dt in ("f16", "bf16") for s in (1024, 4096, 8192)
         for c in ("", "_causal")] + \
        [f"{dt}_b1_h32_s2048_d64{c}" for dt in ("f16", "bf16") for c in ("", "_causal")]


def parse(name):
    m = re.fullmatch(r"(f16|bf16)_b(\d+)_h(\d+)_s(\d+)_d(\d+)(_causal)?", name)
    if not m:
        raise SystemExit(f"bad case name {name}")
    dt, b, h, s, d, causal = m.groups()
    return dt, int(b), int(h), int(s), int(d), bool(causal)


def ttype(shape, e):
    return "tensor<" + "".join(f"{x}x" for x in shape) + e + ">"


def model(name):
    e, b, h, s, d, causal = parse(name)
    q, kt, sc = [b, h, s, d], [b, h, d, s], [b, h, s, s]
    lines = [f"// attention benchmark case {name} (bench/attention_models.py)",
             f"func.func @main(%q: {ttype(q, e)}, %k: {ttype(q, e)}, %v: {ttype(q, e)}) -> {ttype(q, e)} {{",
             f"  %kt = graph.transpose %k, [0, 1, 3, 2] : ({ttype(q, e)}) -> {ttype(kt, e)}"]
    scale = 1.0 / math.sqrt(d)
    if causal:
        lines.append(f"  %y = graph.attention %q, %kt, %v {{causal, scale = {scale!r} : f64}} : "
                     f"({ttype(q, e)}, {ttype(kt, e)}, {ttype(q, e)}) -> {ttype(q, e)}")
    else:
        lines += [f"  %s = graph.matmul %q, %kt : ({ttype(q, e)}, {ttype(kt, e)}) -> {ttype(sc, e)}",
                  f"  %c = graph.constant dense<{scale!r}> : {ttype([], e)}",
                  f"  %t = graph.mul %s, %c : ({ttype(sc, e)}, {ttype([], e)}) -> {ttype(sc, e)}",
                  f"  %p = graph.softmax %t {{axis = 3 : i64}} : {ttype(sc, e)}",
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
