#!/usr/bin/python3
"""Generates the .onnx inputs of lppool.test, cumprod.test, col2im.test and
misc-newops.test (LpPool, GlobalLpPool, LpNormalization, CumProd, CenterCropPad,
Col2Im, AffineGrid, TensorScatter imports).

Run with Debian's python3: /usr/bin/python3 make_newop_models.py
Kept apart from make_test_models.py (whose helpers it reuses) so op families add their
models without touching one shared script. The outputs are committed.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from make_test_models import F32, model, save, vi

I32 = TensorProto.INT32
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def main():
    # LpPool p = 3 with pads and ceil_mode; GlobalLpPool p = 2.
    save(model([helper.make_node("LpPool", ["x"], ["y"], name="lppool", kernel_shape=[3, 3],
                                 p=3, strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1)],
               [vi("x", F32, [1, 2, 8, 9])], [vi("y", F32, [1, 2, 5, 5])], opset=22),
         "lppool.onnx")
    save(model([helper.make_node("GlobalLpPool", ["x"], ["y"], name="glppool")],
               [vi("x", F32, [2, 3, 5, 6])], [vi("y", F32, [2, 3, 1, 1])], opset=22),
         "globallppool.onnx")
    # Refusals: p = 0; no kernel_shape.
    save(model([helper.make_node("LpPool", ["x"], ["y"], name="lppool_p0", kernel_shape=[2],
                                 p=0)],
               [vi("x", F32, [1, 2, 8])], [vi("y", F32, [1, 2, 7])], opset=22),
         "lppool_p0.onnx")
    save(model([helper.make_node("LpPool", ["x"], ["y"], name="lppool_nok")],
               [vi("x", F32, [1, 2, 8])], [vi("y", F32, [1, 2, 7])], opset=22),
         "lppool_no_kernel.onnx")

    # CumProd, exclusive and reverse, along axis 1 of five.
    save(model([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod", exclusive=1,
                                 reverse=1)],
               [vi("x", I32, [2, 5])], [vi("y", I32, [2, 5])], [const("axis", 1)], opset=26),
         "cumprod.onnx")
    # Refusals: axis a graph input (run-time value); bool x.
    save(model([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod_dyn")],
               [vi("x", F32, [2, 5]), vi("axis", I64, [])], [vi("y", F32, [2, 5])], opset=26),
         "cumprod_axis_input.onnx")
    save(model([helper.make_node("CumProd", ["x", "axis"], ["y"], name="cumprod_bool")],
               [vi("x", BOOL, [4])], [vi("y", BOOL, [4])], [const("axis", 0)], opset=26),
         "cumprod_bool.onnx")

    # Col2Im 5x5 image, 2x2 blocks, strides 2, pads 1 on the left of W.
    save(model([helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"],
                                 name="col2im", strides=[2, 2], pads=[0, 1, 0, 0])],
               [vi("x", F32, [1, 8, 6])], [vi("y", F32, [1, 2, 5, 5])],
               [const("image_shape", [5, 5]), const("block_shape", [2, 2])], opset=18),
         "col2im.onnx")
    # Refusal: L = 5 is not the 6 blocks the geometry gives.
    save(model([helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"],
                                 name="col2im_bad", strides=[2, 2], pads=[0, 1, 0, 0])],
               [vi("x", F32, [1, 8, 5])], [vi("y", F32, [1, 2, 5, 5])],
               [const("image_shape", [5, 5]), const("block_shape", [2, 2])], opset=18),
         "col2im_bad_blocks.onnx")

    # LpNormalization p = 1 along axis 0; CenterCropPad crop one axis, pad another;
    # AffineGrid 2-D; TensorScatter circular.
    save(model([helper.make_node("LpNormalization", ["x"], ["y"], name="lpnorm", axis=0, p=1)],
               [vi("x", F32, [3, 4])], [vi("y", F32, [3, 4])], opset=22), "lpnorm.onnx")
    save(model([helper.make_node("CenterCropPad", ["x", "shape"], ["y"], name="ccp",
                                 axes=[-1, 0])],
               [vi("x", F32, [7, 3, 6])], [vi("y", F32, [4, 3, 9])],
               [const("shape", [9, 4])], opset=18), "center_crop_pad.onnx")
    save(model([helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="affine",
                                 align_corners=1)],
               [vi("theta", F32, [2, 2, 3])], [vi("grid", F32, [2, 2, 3, 2])],
               [const("size", [2, 1, 2, 3])], opset=20), "affine_grid.onnx")
    save(model([helper.make_node("TensorScatter", ["past", "upd", "wi"], ["present"],
                                 name="tscatter", mode="circular")],
               [vi("past", F32, [2, 4, 3]), vi("upd", F32, [2, 2, 3]), vi("wi", I64, [2])],
               [vi("present", F32, [2, 4, 3])], opset=24), "tensor_scatter.onnx")
    # Refusals: LpNormalization p = 3; CenterCropPad with fewer shape entries than axes;
    # AffineGrid theta that does not match size; TensorScatter along the batch axis.
    save(model([helper.make_node("LpNormalization", ["x"], ["y"], name="lpnorm3", p=3)],
               [vi("x", F32, [3, 4])], [vi("y", F32, [3, 4])], opset=22), "lpnorm_p3.onnx")
    save(model([helper.make_node("CenterCropPad", ["x", "shape"], ["y"], name="ccp_bad")],
               [vi("x", F32, [7, 3, 6])], [vi("y", F32, [4, 3, 9])],
               [const("shape", [4, 9])], opset=18), "center_crop_pad_bad.onnx")
    save(model([helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="affine_bad")],
               [vi("theta", F32, [2, 3, 4])], [vi("grid", F32, [2, 2, 3, 2])],
               [const("size", [2, 1, 2, 3])], opset=20), "affine_grid_bad.onnx")
    save(model([helper.make_node("TensorScatter", ["past", "upd"], ["present"],
                                 name="tscatter_b0", axis=0)],
               [vi("past", F32, [4, 3]), vi("upd", F32, [2, 3])], [vi("present", F32, [4, 3])],
               opset=24), "tensor_scatter_axis0.onnx")


if __name__ == "__main__":
    main()
