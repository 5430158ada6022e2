#!/usr/bin/python3
"""Generates the .onnx inputs of reduce-bool.test, topk-types.test, pad-wrap.test,
dft-irfft.test and pool-ceil.test (fixes found by the ONNX 1.22 scoreboard).

Run with Debian's python3: /usr/bin/python3 make_fixes_models.py
Kept apart from make_test_models.py (whose helpers it reuses). The outputs are committed.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from make_test_models import F32, model, save, vi

I32 = TensorProto.INT32
I64 = TensorProto.INT64
U64 = TensorProto.UINT64
BOOL = TensorProto.BOOL


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def main():
    # ReduceMax / ReduceMin of bools (opset 20): any / all through f32.
    save(model([helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="rmax", keepdims=1)],
               [vi("x", BOOL, [4, 2])], [vi("y", BOOL, [4, 1])], [const("axes", [1])],
               opset=20), "reduce_max_bool.onnx")
    save(model([helper.make_node("ReduceSum", ["x"], ["y"], name="rsum")],
               [vi("x", BOOL, [4, 2])], [vi("y", BOOL, [1, 1])], opset=20),
         "reduce_sum_bool.onnx")

    # ReduceSum at opset 13 with an `axes` attribute (axes became an input in opset 13):
    # refused, not silently ignored.
    save(model([helper.make_node("ReduceSum", ["x"], ["y"], name="rsum_attr", axes=[1])],
               [vi("x", F32, [4, 2])], [vi("y", F32, [4, 1])], opset=13),
         "reduce_sum_axes_attr.onnx")

    # TopK of uint64 (exact integer compares); int64 along a long axis is refused.
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk_u64")],
               [vi("x", U64, [3, 4])], [vi("v", U64, [3, 2]), vi("i", I64, [3, 2])],
               [const("k", [2])], opset=11), "topk_uint64.onnx")
    save(model([helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk_long")],
               [vi("x", I64, [1, 5000])], [vi("v", I64, [1, 2]), vi("i", I64, [1, 2])],
               [const("k", [2])], opset=11), "topk_int64_long.onnx")

    # Pad mode 'wrap' (opset 19); refused at opset 18.
    for opset, name in ((19, "pad_wrap.onnx"), (18, "pad_wrap_opset18.onnx")):
        save(model([helper.make_node("Pad", ["x", "pads"], ["y"], name="wrap", mode="wrap")],
                   [vi("x", F32, [3, 4])], [vi("y", F32, [5, 9])],
                   [const("pads", [1, 2, 1, 3])], opset=opset), name)

    # DFT inverse + onesided (irfft): 3 bins -> 4 real samples; 1 bin has no default length.
    save(model([helper.make_node("DFT", ["x"], ["y"], name="irfft", inverse=1, onesided=1,
                                 axis=1)],
               [vi("x", F32, [1, 3, 2])], [vi("y", F32, [1, 4, 1])], opset=17),
         "dft_irfft.onnx")
    save(model([helper.make_node("DFT", ["x"], ["y"], name="irfft1", inverse=1, onesided=1,
                                 axis=1)],
               [vi("x", F32, [1, 1, 2])], [vi("y", F32, [1, 0, 1])], opset=17),
         "dft_irfft_one_bin.onnx")

    # AveragePool, ceil_mode: the last window would start in the end padding and is dropped
    # (test_averagepool_2d_ceil_last_window_starts_on_pad's geometry).
    save(model([helper.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[3, 3],
                                 strides=[3, 3], pads=[1, 1, 1, 1], ceil_mode=1,
                                 count_include_pad=1)],
               [vi("x", F32, [1, 3, 2, 2])], [vi("y", F32, [1, 3, 1, 1])], opset=19),
         "averagepool_ceil_last_window.onnx")


if __name__ == "__main__":
    main()
