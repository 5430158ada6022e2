#!/usr/bin/python3
"""Makes the ONNX models of the memory-bound benchmark (issue 5), one directory per case:
OUT/<case>/model.onnx. Shapes follow ../shared/bench/anchors.py (5-op chain on 2^28 fp32,
softmax / layernorm rows 8192 x 8192 in fp16 and fp32) plus RMSNorm, residual + LayerNorm,
long rows (8192 x 65536) and short rows (262144 x 256). Run with Debian's /usr/bin/python3
(python3-onnx). Usage: memory_bound_models.py OUT_DIR
"""
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper

DT = {"f16": (TensorProto.FLOAT16, np.float16), "f32": (TensorProto.FLOAT, np.float32)}


def save(out, name, nodes, inputs, outputs, inits=(), opset=17):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8 if opset <= 17 else 10
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(m, os.path.join(out, name, "model.onnx"))


def vi(n, t, s):
    return h.make_tensor_value_info(n, t, s)


def const(name, v, np_t):
    return numpy_helper.from_array(np.array(v, dtype=np_t), name)


def main(out):
    # 1. sigmoid(relu(x * 2 + 1) - 0.5) * x on 2^28 fp32 (anchors.py's chain).
    n = 1 << 28
    save(out, "ew5_f32", [
        h.make_node("Mul", ["x", "two"], ["a"]), h.make_node("Add", ["a", "one"], ["b"]),
        h.make_node("Relu", ["b"], ["c"]), h.make_node("Sub", ["c", "half"], ["d"]),
        h.make_node("Sigmoid", ["d"], ["e"]), h.make_node("Mul", ["e", "x"], ["y"])],
        [vi("x", TensorProto.FLOAT, [n])], [vi("y", TensorProto.FLOAT, [n])],
        [const("two", 2.0, np.float32), const("one", 1.0, np.float32),
         const("half", 0.5, np.float32)])
    rows = [("", 8192, 8192, ("f16", "f32")), ("_long", 8192, 65536, ("f16",)),
            ("_short", 262144, 256, ("f16",))]
    for suffix, m, k, dts in rows:
        for dn in dts:
            t, npt = DT[dn]
            save(out, f"softmax{suffix}_{dn}", [h.make_node("Softmax", ["x"], ["y"], axis=-1)],
                 [vi("x", t, [m, k])], [vi("y", t, [m, k])])
            save(out, f"layernorm{suffix}_{dn}",
                 [h.make_node("LayerNormalization", ["x", "w", "b"], ["y"], axis=-1, epsilon=1e-5)],
                 [vi("x", t, [m, k])], [vi("y", t, [m, k])],
                 [const("w", np.ones(k), npt), const("b", np.zeros(k), npt)])
    for dn in ("f16", "f32"):
        t, npt = DT[dn]
        save(out, f"rmsnorm_{dn}",
             [h.make_node("RMSNormalization", ["x", "w"], ["y"], axis=-1, epsilon=1e-6)],
             [vi("x", t, [8192, 8192])], [vi("y", t, [8192, 8192])],
             [const("w", np.ones(8192), npt)], opset=23)
        save(out, f"residual_layernorm_{dn}",
             [h.make_node("Add", ["x", "r"], ["s"]),
              h.make_node("LayerNormalization", ["s", "w", "b"], ["y"], axis=-1, epsilon=1e-5)],
             [vi("x", t, [8192, 8192]), vi("r", t, [8192, 8192])], [vi("y", t, [8192, 8192])],
             [const("w", np.ones(8192), npt), const("b", np.zeros(8192), npt)])


if __name__ == "__main__":
    main(sys.argv[1])
