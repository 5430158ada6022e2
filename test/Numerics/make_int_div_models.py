#!/usr/bin/python3
"""Models for int-div-overflow.test: ONNX Div and Mod (fmod 0 and 1) of run-time int32 and
int64 inputs whose divisors include -1 under INT_MIN (the quotient overflows: x86's idiv
traps). Expected outputs: truncating division, INT_MIN / -1 wrapping to INT_MIN, x % -1 = 0
(what the kernels and the reference evaluator compute).
usage: make_int_div_models.py OUTDIR"""
import os, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def expected(a, b, op, bits):
    out = []
    for x, d in zip(a.tolist(), b.tolist()):
        if d == 0:
            out.append(x if op == "div" else 0)
            continue
        q = abs(x) // abs(d) * (1 if (x < 0) == (d < 0) else -1)
        r = x - q * d
        if op == "div":
            v = q
        elif op == "fmod":
            v = r
        else:  # Python-style: the result takes the divisor's sign
            v = r + d if r != 0 and (r < 0) != (d < 0) else r
        v = (v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))  # wrap
        out.append(v)
    return np.array(out, dtype=a.dtype)


def main():
    out = sys.argv[1]
    for dt, tp, bits in ((np.int32, TensorProto.INT32, 32), (np.int64, TensorProto.INT64, 64)):
        lo = np.iinfo(dt).min
        a = np.array([lo, 7, -7, 5, lo, 9], dtype=dt)
        b = np.array([-1, -1, 2, -3, 3, 4], dtype=dt)
        nodes = [helper.make_node("Div", ["a", "b"], ["q"]),
                 helper.make_node("Mod", ["a", "b"], ["m"], fmod=0),
                 helper.make_node("Mod", ["a", "b"], ["f"], fmod=1)]
        io = lambda n: helper.make_tensor_value_info(n, tp, [6])
        g = helper.make_graph(nodes, "int_div", [io("a"), io("b")], [io("q"), io("m"), io("f")])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        d = os.path.join(out, f"int{bits}")
        ds = os.path.join(d, "test_data_set_0")
        os.makedirs(ds, exist_ok=True)
        onnx.save(m, os.path.join(d, "model.onnx"))
        for i, (x, n) in enumerate(((a, "a"), (b, "b"))):
            with open(os.path.join(ds, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(x, n).SerializeToString())
        for i, (op, n) in enumerate((("div", "q"), ("mod", "m"), ("fmod", "f"))):
            with open(os.path.join(ds, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(expected(a, b, op, bits), n).SerializeToString())


if __name__ == "__main__":
    main()
