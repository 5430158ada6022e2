#!/usr/bin/python3
"""Generates the .onnx models under Inputs/ for index-ops.test, index-errors.test and
misc-ops.test (CumSum, OneHot, EyeLike, GatherND, Scatter*, Einsum; ThresholdedRelu, IsInf,
IsNaN, LRN, MeanVarianceNormalization).

Run with Debian's python3 (python3-onnx): /usr/bin/python3 make_index_misc_models.py
The outputs are committed; rerun after editing this script.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs")
F32, F64, I32, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(nodes, inputs, outputs, filename, inits=(), opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="aicc-tests")
    m.ir_version = 8
    with open(os.path.join(OUT, filename), "wb") as f:
        f.write(m.SerializeToString())


def const(name, value, dtype=np.int64):
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def main():
    os.makedirs(OUT, exist_ok=True)
    node = helper.make_node

    # CumSum: exclusive + reverse along axis 1 (an initializer) of a [2, 5] tensor.
    save([node("CumSum", ["x", "axis"], ["y"], name="cs", exclusive=1, reverse=1)],
         [vi("x", F32, [2, 5])], [vi("y", F32, [2, 5])], "index_cumsum.onnx",
         inits=[const("axis", 1, np.int32)], opset=14)
    # ... and with the axis a graph input (refused without --bind-input).
    save([node("CumSum", ["x", "axis"], ["y"], name="cs_dyn")],
         [vi("x", F32, [2, 5]), vi("axis", I32, [])], [vi("y", F32, [2, 5])],
         "index_cumsum_axis_input.onnx", opset=14)

    # OneHot: depth an initializer, values a graph input, axis 0.
    save([node("OneHot", ["idx", "depth", "values"], ["y"], name="oh", axis=0)],
         [vi("idx", I64, [3]), vi("values", F32, [2])], [vi("y", F32, [4, 3])],
         "index_onehot.onnx", inits=[const("depth", 4)], opset=11)
    save([node("OneHot", ["idx", "depth", "values"], ["y"], name="oh_dyn")],
         [vi("idx", I64, [3]), vi("depth", I64, []), vi("values", F32, [2])],
         [vi("y", F32, [3, 4])], "index_onehot_depth_input.onnx", opset=11)

    # EyeLike k = 1 to f32 from an int32 input.
    save([node("EyeLike", ["x"], ["y"], name="eye", k=1, dtype=F32)],
         [vi("x", I32, [3, 4])], [vi("y", F32, [3, 4])], "index_eyelike.onnx", opset=9)

    # GatherND with batch_dims = 1 and run-time indices.
    save([node("GatherND", ["data", "idx"], ["y"], name="gnd", batch_dims=1)],
         [vi("data", F32, [2, 3, 4]), vi("idx", I64, [2, 5, 1])], [vi("y", F32, [2, 5, 4])],
         "index_gathernd.onnx", opset=13)
    save([node("GatherND", ["data", "idx"], ["y"], name="gnd_bad", batch_dims=2)],
         [vi("data", F32, [2, 3]), vi("idx", I64, [2, 1])], [vi("y", F32, [2])],
         "index_gathernd_bad_batch.onnx", opset=13)

    # ScatterElements (reduction add, negative axis), ScatterND (mul), Scatter (opset 10).
    save([node("ScatterElements", ["data", "idx", "upd"], ["y"], name="se", axis=-1,
               reduction="add")],
         [vi("data", F32, [3, 5]), vi("idx", I64, [3, 2]), vi("upd", F32, [3, 2])],
         [vi("y", F32, [3, 5])], "index_scatter_elements.onnx", opset=16)
    save([node("ScatterND", ["data", "idx", "upd"], ["y"], name="snd", reduction="mul")],
         [vi("data", F32, [4, 3]), vi("idx", I64, [2, 1]), vi("upd", F32, [2, 3])],
         [vi("y", F32, [4, 3])], "index_scatternd.onnx", opset=16)
    save([node("Scatter", ["data", "idx", "upd"], ["y"], name="sc")],
         [vi("data", F32, [3, 3]), vi("idx", I64, [2, 3]), vi("upd", F32, [2, 3])],
         [vi("y", F32, [3, 3])], "index_scatter.onnx", opset=10)
    save([node("ScatterElements", ["data", "idx", "upd"], ["y"], name="se_max", reduction="max")],
         [vi("data", F32, [5]), vi("idx", I64, [2]), vi("upd", F32, [2])],
         [vi("y", F32, [5])], "index_scatter_max_opset16.onnx", opset=16)
    save([node("ScatterND", ["data", "idx", "upd"], ["y"], name="snd_bad")],
         [vi("data", F32, [4, 3]), vi("idx", I64, [2, 1]), vi("upd", F32, [2, 4])],
         [vi("y", F32, [4, 3])], "index_scatternd_bad_updates.onnx", opset=16)

    # Einsum: batched matmul, a batch diagonal, and a three-operand chain.
    save([node("Einsum", ["a", "b"], ["y"], name="bmm", equation="bij, bjk -> bik")],
         [vi("a", F64, [5, 2, 3]), vi("b", F64, [5, 3, 4])], [vi("y", F64, [5, 2, 4])],
         "index_einsum_bmm.onnx", opset=12)
    save([node("Einsum", ["x"], ["y"], name="diag", equation="...ii->...i")],
         [vi("x", F32, [3, 4, 4])], [vi("y", F32, [3, 4])], "index_einsum_diag.onnx", opset=12)
    save([node("Einsum", ["a", "b", "c"], ["y"], name="chain", equation="ij,jk,k")],
         [vi("a", F32, [2, 3]), vi("b", F32, [3, 4]), vi("c", F32, [4])], [vi("y", F32, [2])],
         "index_einsum_chain.onnx", opset=12)
    save([node("Einsum", ["a", "b"], ["y"], name="ein_int", equation="i,i")],
         [vi("a", I32, [3]), vi("b", I32, [3])], [vi("y", I32, [])],
         "index_einsum_int.onnx", opset=12)
    save([node("Einsum", ["a"], ["y"], name="ein_bad", equation="ij->k")],
         [vi("a", F32, [2, 3])], [vi("y", F32, [2])], "index_einsum_bad_label.onnx", opset=12)

    # Misc: ThresholdedRelu, IsInf (positive only), IsNaN, LRN, MVN.
    save([node("ThresholdedRelu", ["x"], ["y"], name="trelu", alpha=2.0)],
         [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])], "misc_thresholdedrelu.onnx", opset=10)
    save([node("IsInf", ["x"], ["y"], name="isinf", detect_negative=0),
          node("IsNaN", ["x"], ["z"], name="isnan")],
         [vi("x", F32, [4])], [vi("y", TensorProto.BOOL, [4]), vi("z", TensorProto.BOOL, [4])],
         "misc_isinf_isnan.onnx", opset=13)
    save([node("LRN", ["x"], ["y"], name="lrn", size=3, alpha=0.0002, beta=0.5, bias=2.0)],
         [vi("x", F32, [1, 5, 2, 2])], [vi("y", F32, [1, 5, 2, 2])], "misc_lrn.onnx", opset=13)
    save([node("LRN", ["x"], ["y"], name="lrn_nosize")],
         [vi("x", F32, [1, 5, 2, 2])], [vi("y", F32, [1, 5, 2, 2])], "misc_lrn_nosize.onnx",
         opset=13)
    save([node("MeanVarianceNormalization", ["x"], ["y"], name="mvn", axes=[0, 2])],
         [vi("x", F32, [2, 3, 4])], [vi("y", F32, [2, 3, 4])], "misc_mvn.onnx", opset=13)
    save([node("MeanVarianceNormalization", ["x"], ["y"], name="mvn_rep", axes=[1, -2])],
         [vi("x", F32, [2, 3, 4])], [vi("y", F32, [2, 3, 4])], "misc_mvn_repeat.onnx", opset=13)


if __name__ == "__main__":
    main()
