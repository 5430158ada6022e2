#!/usr/bin/python3
"""Generates the .onnx models under Inputs/ for the spatial-op lit tests
(resize.test, convtranspose.test, gridsample.test, spatial-errors.test).

Run with Debian's python3 (python3-onnx 1.12): /usr/bin/python3 make_spatial_models.py
The outputs are committed; rerun after editing this script.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs")
F32 = TensorProto.FLOAT


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def save(nodes, inputs, outputs, inits, filename, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="aicc-tests")
    m.ir_version = 8
    with open(os.path.join(OUT, filename), "wb") as f:
        f.write(m.SerializeToString())


def main():
    os.makedirs(OUT, exist_ok=True)

    # Linear Resize (half_pixel, x2 along H and W), nearest (asymmetric floor, sizes)
    # and tf_crop_and_resize (roi, extrapolation_value).
    save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="linear",
                           mode="linear")],
         [vi("x", F32, [1, 1, 2, 3])], [vi("y", F32, [1, 1, 4, 6])],
         [const("scales", [1, 1, 2, 2])], "resize_linear.onnx")
    save([helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="nearest",
                           mode="nearest", coordinate_transformation_mode="asymmetric",
                           nearest_mode="floor")],
         [vi("x", F32, [1, 1, 2, 3])], [vi("y", F32, [1, 1, 2, 5])],
         [const("sizes", [1, 1, 2, 5], np.int64)], "resize_nearest.onnx")
    save([helper.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], name="crop",
                           mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
                           extrapolation_value=7.0)],
         [vi("x", F32, [1, 3])], [vi("y", F32, [1, 3])],
         [const("roi", [0, 0.25, 1, 1.25]), const("sizes", [1, 3], np.int64)],
         "resize_crop.onnx")
    save([helper.make_node("Upsample", ["x", "scales"], ["y"], name="up", mode="nearest")],
         [vi("x", F32, [1, 2])], [vi("y", F32, [1, 4])], [const("scales", [1, 2])],
         "upsample.onnx", opset=9)

    # ConvTranspose: 2-D, group 2, strides, pads, output_padding, bias.
    save([helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="deconv", group=2,
                           strides=[2, 1], pads=[1, 0, 0, 2], output_padding=[1, 0])],
         [vi("x", F32, [1, 4, 3, 3]), vi("w", F32, [4, 3, 3, 2])], [vi("y", F32, [1, 6, 7, 2])],
         [const("b", np.arange(6) * 0.5)], "convtranspose.onnx", opset=11)

    # GridSample (opset 16): nearest, zeros padding, run-time grid.
    save([helper.make_node("GridSample", ["x", "grid"], ["y"], name="gs", mode="nearest")],
         [vi("x", F32, [1, 2, 3, 4]), vi("grid", F32, [1, 5, 6, 2])], [vi("y", F32, [1, 2, 5, 6])],
         [], "gridsample.onnx", opset=16)
    # GridSample (opset 20): 3-D nearest, align_corners (rounds halves to even in every rank).
    save([helper.make_node("GridSample", ["x", "grid"], ["y"], name="gs3", mode="nearest",
                           align_corners=1)],
         [vi("x", F32, [1, 1, 2, 3, 4]), vi("grid", F32, [1, 2, 2, 2, 3])],
         [vi("y", F32, [1, 1, 2, 2, 2])], [], "gridsample_3d_nearest.onnx", opset=20)

    # Refusals.
    save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="area", mode="area")],
         [vi("x", F32, [1, 1, 2, 2])], [vi("y", F32, [1, 1, 4, 4])],
         [const("scales", [1, 1, 2, 2])], "resize_bad_mode.onnx")
    save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="ctm", mode="linear",
                           coordinate_transformation_mode="tf_half_pixel_for_nn")],
         [vi("x", F32, [1, 1, 2, 2])], [vi("y", F32, [1, 1, 4, 4])],
         [const("scales", [1, 1, 2, 2])], "resize_bad_ctm.onnx")
    save([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="dyn", mode="linear")],
         [vi("x", F32, [1, 1, 2, 2]), vi("scales", F32, [4])], [vi("y", F32, [1, 1, 4, 4])],
         [], "resize_dynamic_scales.onnx")
    save([helper.make_node("Resize", ["x", "", "scales", "sizes"], ["y"], name="both")],
         [vi("x", F32, [1, 1, 2, 2])], [vi("y", F32, [1, 1, 4, 4])],
         [const("scales", [1, 1, 2, 2]), const("sizes", [1, 1, 4, 4], np.int64)],
         "resize_scales_and_sizes.onnx")
    save([helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="int_linear",
                           mode="linear")],
         [vi("x", TensorProto.INT32, [1, 1, 2, 2])], [vi("y", TensorProto.INT32, [1, 1, 3, 3])],
         [const("sizes", [1, 1, 3, 3], np.int64)], "resize_int_linear.onnx")
    save([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="bad_shape",
                           strides=[2, 2], output_shape=[0, 6])],
         [vi("x", F32, [1, 1, 3, 3]), vi("w", F32, [1, 1, 3, 3])], [vi("y", F32, [1, 1, 6, 6])],
         [], "convtranspose_bad_output_shape.onnx", opset=11)
    save([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="bad_group", group=2)],
         [vi("x", F32, [1, 3, 3, 3]), vi("w", F32, [3, 1, 3, 3])], [vi("y", F32, [1, 2, 5, 5])],
         [], "convtranspose_bad_group.onnx", opset=11)
    save([helper.make_node("GridSample", ["x", "grid"], ["y"], name="gs_area", mode="area")],
         [vi("x", F32, [1, 2, 3, 4]), vi("grid", F32, [1, 5, 6, 2])], [vi("y", F32, [1, 2, 5, 6])],
         [], "gridsample_bad_mode.onnx", opset=16)


if __name__ == "__main__":
    main()
