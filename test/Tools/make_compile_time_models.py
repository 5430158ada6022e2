#!/usr/bin/python3
"""Writes the models of aicc-compile-compile-time.test into DIR/<name>/ (model.onnx +
test_data_set_0/{input,output}_K.pb): a chain of N Relu nodes and a Concat of N inputs, the
shapes of issue 14's compile-time reports (before the fix, tile-fuse-elementwise took over
90 s on the 3,000-Relu chain and 47 s on the 125-input Concat on the CPU target).
Inputs are seeded random numbers; the expected outputs are numpy evaluations (relu is
max(x, 0), concat copies), exact in f32.
Usage: /usr/bin/python3 make_compile_time_models.py DIR [RELU_CHAIN_LENGTH] [CONCAT_INPUTS]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20261201)


def save(out, name, nodes, inputs, outputs):
    """inputs / outputs: [(name, f32 array)]."""
    vi = lambda n, a: helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
    graph = helper.make_graph(nodes, name, [vi(n, a) for n, a in inputs],
                              [vi(n, a) for n, a in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="aicc make_compile_time_models.py")
    model.ir_version = 8
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", inputs), ("output", outputs)):
        for k, (n, a) in enumerate(vals):
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def main():
    out = sys.argv[1]
    chain = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 125

    x = rng.standard_normal((4, 8)).astype(np.float32)
    names = ["x"] + [f"t{i}" for i in range(chain - 1)] + ["y"]
    nodes = [helper.make_node("Relu", [names[i]], [names[i + 1]]) for i in range(chain)]
    save(out, f"relu_chain_{chain}", nodes, [("x", x)], [("y", np.maximum(x, 0))])

    xs = [(f"x{i}", rng.standard_normal((2, 3)).astype(np.float32)) for i in range(width)]
    nodes = [helper.make_node("Concat", [n for n, _ in xs], ["y"], axis=1)]
    save(out, f"concat_{width}", nodes, xs,
         [("y", np.concatenate([a for _, a in xs], axis=1))])


if __name__ == "__main__":
    main()
