#!/usr/bin/python3
"""Writes the small bf16 ONNX models of bf16-cpu.test into Inputs/<name>/ (model.onnx +
test_data_set_0/{input,output}_0.pb). A bf16 softmax whose row (1000) is not a power of two:
its masked row kernel copies bf16 values through a phi, which x86 instruction selection
rounds back to bf16 with a call to __truncsfbf2 (absent from libgcc before GCC 13).
Inputs are seeded random numbers in bf16; expected outputs are numpy float64 evaluations,
rounded to bf16 (nearest even).
Run with Debian's /usr/bin/python3 (onnx + numpy): /usr/bin/python3 make_bf16_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261129)


def to_bf16_bits(a):
    """float64 -> bf16 bit patterns (uint16), round to nearest even (finite inputs)."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def bf16_tensor(name, bits):
    return helper.make_tensor(name, TensorProto.BFLOAT16, bits.shape,
                              bits.astype("<u2").tobytes(), raw=True)


name, shape = "softmax_2x1000_bf16", (2, 1000)
x_bits = to_bf16_bits(rng.uniform(-4, 4, shape))
x = from_bf16_bits(x_bits)
e = np.exp(x - x.max(axis=1, keepdims=True))
y_bits = to_bf16_bits(e / e.sum(axis=1, keepdims=True))
vi = lambda n: helper.make_tensor_value_info(n, TensorProto.BFLOAT16, shape)
graph = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], axis=1)], name,
                          [vi("x")], [vi("y")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="aicc make_bf16_models.py")
model.ir_version = 8
onnx.checker.check_model(model)
d = os.path.join(HERE, "Inputs", name)
os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(d, "model.onnx"))
with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(bf16_tensor("x", x_bits).SerializeToString())
with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
    f.write(bf16_tensor("y", y_bits).SerializeToString())
