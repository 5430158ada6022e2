#!/usr/bin/python3
"""Generates the .onnx inputs of loss.test and index.test (loss and index op imports).

Run with Debian's python3: /usr/bin/python3 make_loss_index_models.py
Kept apart from make_test_models.py (whose helpers it reuses) so op families add their
models without touching one shared script. The outputs are committed.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from make_test_models import F32, model, save, vi

I64 = TensorProto.INT64


def k_init(k):
    return numpy_helper.from_array(np.array([k], np.int64), "k")


def main():
    # NegativeLogLikelihoodLoss, mean with weight and a negative ignore_index.
    save(model([helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["y"],
                                 name="nll", reduction="mean", ignore_index=-1)],
               [vi("x", F32, [2, 3, 4]), vi("t", I64, [2, 4]), vi("w", F32, [3])],
               [vi("y", F32, [])]), "nll_weight_ii.onnx")
    # SoftmaxCrossEntropyLoss, no reduction, with the log_prob output.
    save(model([helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y", "lp"],
                                 name="sce", reduction="none")],
               [vi("x", F32, [2, 3]), vi("t", I64, [2])],
               [vi("y", F32, [2]), vi("lp", F32, [2, 3])]), "sce_log_prob.onnx")
    # Refusals: a reduction that does not exist; a target of the wrong shape.
    save(model([helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"],
                                 name="nll_avg", reduction="avg")],
               [vi("x", F32, [2, 3]), vi("t", I64, [2])], [vi("y", F32, [])]),
         "nll_bad_reduction.onnx")
    save(model([helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"],
                                 name="sce_shape")],
               [vi("x", F32, [2, 3, 4]), vi("t", I64, [2, 3])], [vi("y", F32, [])]),
         "sce_bad_target.onnx")

    # ArgMax with select_last_index, no keepdims; Hardmax before opset 13 (coerced 2-D).
    save(model([helper.make_node("ArgMax", ["x"], ["y"], name="argmax_last", axis=1,
                                 keepdims=0, select_last_index=1)],
               [vi("x", F32, [2, 3, 4])], [vi("y", I64, [2, 4])]), "argmax_last.onnx")
    save(model([helper.make_node("Hardmax", ["x"], ["y"], name="hardmax11", axis=1)],
               [vi("x", F32, [2, 3, 4])], [vi("y", F32, [2, 3, 4])], opset=11),
         "hardmax_opset11.onnx")
    # TopK: pairwise ranks (short axis) and k rounds of arg-max (long axis).
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk", axis=-1)],
               [vi("x", F32, [3, 4])], [vi("v", F32, [3, 2]), vi("i", I64, [3, 2])],
               [k_init(2)], opset=11), "topk.onnx")
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk_rounds",
                                 largest=0)],
               [vi("x", F32, [4, 2100])], [vi("v", F32, [4, 2]), vi("i", I64, [4, 2])],
               [k_init(2)], opset=11), "topk_rounds.onnx")
    # Refusals: k past the rounds bound on a long axis, k larger than the axis, k not a
    # constant, axis out of range.
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk_many")],
               [vi("x", F32, [4, 2100])], [vi("v", F32, [4, 100]), vi("i", I64, [4, 100])],
               [k_init(100)], opset=11), "topk_k_too_many.onnx")
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk_big")],
               [vi("x", F32, [3, 4])], [vi("v", F32, [3, 5]), vi("i", I64, [3, 5])],
               [k_init(5)], opset=11), "topk_k_too_large.onnx")
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk_dyn")],
               [vi("x", F32, [3, 4]), vi("k", I64, [1])],
               [vi("v", F32, [3, 2]), vi("i", I64, [3, 2])], opset=11), "topk_k_input.onnx")
    save(model([helper.make_node("ArgMin", ["x"], ["y"], name="argmin_axis", axis=3)],
               [vi("x", F32, [2, 3, 4])], [vi("y", I64, [2, 3, 4])]), "argmin_bad_axis.onnx")


if __name__ == "__main__":
    main()
