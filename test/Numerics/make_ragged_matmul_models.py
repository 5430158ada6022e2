#!/usr/bin/python3
"""Writes the small ONNX models of ragged-matmul.test into Inputs/<name>/ (model.onnx +
test_data_set_0/{input,output}_K.pb): MatMul and Gemm whose M, N and K are not multiples
of the matmul template's blocks (BLOCK_M/N/K = 32 here), so the A and B tiles
(tile.block_load, expanded to masked loads on the CPU) read past the matrices' edges in
every direction and must read zeros there; batched operands with broadcast batch dims
(each operand's own matrix index), Gemm transA / transB (transposed blocks), 1-D operands
and K spanning several blocks.
Inputs are seeded random numbers; expected outputs are numpy float64 evaluations of the
ONNX operator definitions (MatMul: numpy.matmul semantics; Gemm: alpha * A' @ B' + beta * C),
rounded to the output type.
Run with Debian's /usr/bin/python3 (onnx + numpy): /usr/bin/python3 make_ragged_matmul_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261130)
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    """inputs / outputs: [(name, array)] with the arrays' dtypes and shapes."""
    vi = lambda n, a: helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype.type], a.shape)
    graph = helper.make_graph(nodes, name, [vi(n, a) for n, a in inputs],
                              [vi(n, a) for n, a in outputs],
                              [numpy_helper.from_array(a, n) for n, a in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="aicc make_ragged_matmul_models.py")
    model.ir_version = 8
    d = os.path.join(HERE, "Inputs", name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", inputs), ("output", outputs)):
        for k, (n, a) in enumerate(vals):
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def f64(a):
    return a.astype(np.float64)


M, N, K = 77, 45, 33


def matmul(name, a_shape, b_shape, dtype=np.float32):
    a, b = rand(*a_shape, dtype=dtype), rand(*b_shape, dtype=dtype)
    y = np.matmul(f64(a), f64(b)).astype(dtype)
    save(name, [helper.make_node("MatMul", ["a", "b"], ["y"])], [("a", a), ("b", b)],
         [("y", y)])


def gemm(name, trans_a, trans_b, c_shape, alpha=1.0, beta=1.0, relu=False):
    a = rand(*((K, M) if trans_a else (M, K)))
    b = rand(*((N, K) if trans_b else (K, N)))
    c = rand(*c_shape)
    ta = f64(a).T if trans_a else f64(a)
    tb = f64(b).T if trans_b else f64(b)
    y = alpha * (ta @ tb) + beta * f64(c)
    nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["g" if relu else "y"], alpha=alpha,
                              beta=beta, transA=int(trans_a), transB=int(trans_b))]
    if relu:
        nodes.append(helper.make_node("Relu", ["g"], ["y"]))
        y = np.maximum(y, 0)
    save(name, nodes, [("a", a), ("b", b), ("c", c)], [("y", y.astype(np.float32))])


# 2-D, every dim ragged: the last block of each of M, N, K is partial (77 = 2 * 32 + 13,
# 45 = 32 + 13, 33 = 32 + 1).
matmul("matmul_77x33x45_f32", (M, K), (K, N))
# Batched with broadcast batch dims: [3, 1] x [2] -> [3, 2]; A holds 3 matrices, B 2.
matmul("matmul_3x1x77x33_2x33x45_f32", (3, 1, M, K), (2, K, N))
# Batched A against a 2-D B (B's matrix index is always 0), K spanning 4 blocks (100).
matmul("matmul_2x77x100_100x45_f32", (2, M, 100), (100, N))
# 1-D operands: a vector times a batch of matrices, a matrix times a vector.
matmul("matmul_33_3x33x45_f32", (K,), (3, K, N))
matmul("matmul_77x33_33_f32", (M, K), (K,))
# f16 operands (f32 accumulation), ragged.
matmul("matmul_77x33x45_f16", (M, K), (K, N), dtype=np.float16)
# Gemm: transA (A stored [K, M]), transB (B stored [N, K]), both; bias shapes [N], [M, N],
# [M, 1]; alpha / beta; a fused Relu epilogue.
gemm("gemm_transA_f32", True, False, (N,), alpha=0.5, beta=2.0)
gemm("gemm_transB_f32", False, True, (M, N))
gemm("gemm_transA_transB_relu_f32", True, True, (M, 1), alpha=1.5, relu=True)
