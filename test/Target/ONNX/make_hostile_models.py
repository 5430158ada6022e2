#!/usr/bin/python3
"""Generates the hostile / invalid .onnx inputs of hostile-sizes.test, invalid-onnx.test and
external-data-confined.test (the fuzzing campaign of issue 14, and what onnx.checker with
full_check rejects).

Run with Debian's python3: /usr/bin/python3 make_hostile_models.py
The outputs are committed (each a few hundred bytes); external-data-confined.test builds its
symbolic links and directories itself. The checker is not run: the models are invalid.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from make_test_models import F32, model, save, vi

I64 = TensorProto.INT64


def c(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype), name)


def ext(name, dims, location):
    """A FLOAT initializer stored as external data at `location`."""
    t = TensorProto()
    t.name, t.data_type = name, F32
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", location
    return t


def sizes():
    big = 1 << 32
    save(model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos")], [],
               [vi("y", F32, None)], [c("s", [1 << 20, 1 << 20])]), "hostile_cos_huge.onnx")
    # 2^96 elements: the old element count wrapped to 0 and was accepted.
    save(model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos_wrap")], [],
               [vi("y", F32, None)], [c("s", [big, big, big])]), "hostile_cos_wrap.onnx")
    save(model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand_wrap")],
               [vi("x", F32, [1])], [vi("y", F32, None)], [c("s", [big, big, big])]),
         "hostile_expand_wrap.onnx")
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [vi("x", F32, [big, big, big])], [vi("y", F32, None)]), "hostile_input_wrap.onnx")
    # A legal 400 MB fill: a runtime expand of one value, not a 400 MB constant.
    save(model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill")], [],
               [vi("y", F32, [10000, 10000])], [c("s", [10000, 10000])]), "hostile_cos_400mb.onnx")
    save(model([helper.make_node("Resize", ["x", "", "sc"], ["y"], name="rs_huge")],
               [vi("x", F32, [1, 1, 4, 4])], [vi("y", F32, None)],
               [c("sc", [1, 1, 1e8, 1e8], np.float32)]), "hostile_resize_huge.onnx")
    save(model([helper.make_node("Resize", ["x", "", "", "sz"], ["y"], name="rs_sizes")],
               [vi("x", F32, [1, 1, 4, 4])], [vi("y", F32, None)],
               [c("sz", [1, 1, 1 << 31, 1 << 31])]), "hostile_resize_sizes.onnx")
    save(model([helper.make_node("Upsample", ["x", "sc"], ["y"], name="up_huge")],
               [vi("x", F32, [1, 1, 4, 4])], [vi("y", F32, None)],
               [c("sc", [1, 1, 5e8, 5e8], np.float32)], opset=9), "hostile_upsample_huge.onnx")
    # A legal 800 MB nearest Resize along one axis took 50 s, 8.8 GB and wrote an 800 MB
    # index table into the bundle; linear along it needs tables above the cap.
    for mode in ("nearest", "linear"):
        save(model([helper.make_node("Resize", ["x", "", "sc"], ["y"], name="rs_long",
                                     mode=mode)],
                   [vi("x", F32, [1, 1, 2, 2])], [vi("y", F32, [1, 1, 2, 100000000])],
                   [c("sc", [1, 1, 1, 5e7], np.float32)]), f"hostile_resize_long_{mode}.onnx")
    # blocksize^2 wraps to 0: SIGFPE.
    save(model([helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=big)],
               [vi("x", F32, [1, 4, 2, 2])], [vi("y", F32, None)]), "hostile_d2s_wrap.onnx")
    # 2 * 2^62 wraps to a negative (MLIR's dynamic) dim.
    save(model([helper.make_node("Tile", ["x", "r"], ["y"], name="tile_wrap")],
               [vi("x", F32, [2, 2])], [vi("y", F32, None)], [c("r", [1 << 62, 4])]),
         "hostile_tile_wrap.onnx")
    save(model([helper.make_node("Pad", ["x", "p"], ["y"], name="pad_huge")],
               [vi("x", F32, [2, 2])], [vi("y", F32, None)], [c("p", [0, 0, 1 << 62, 1 << 62])]),
         "hostile_pad_huge.onnx")
    save(model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range_inf")], [],
               [vi("y", F32, None)],
               [c("a", 0.0, np.float32), c("b", 1e30, np.float32), c("d", 1e-30, np.float32)]),
         "hostile_range_inf.onnx")
    save(model([helper.make_node("MaxPool", ["x"], ["y"], name="pool_wrap",
                                 kernel_shape=[3], pads=[(1 << 63) - 1, 0])],
               [vi("x", F32, [1, 1, 8])], [vi("y", F32, None)]), "hostile_pool_pads.onnx")


def invalid():
    relu = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    save(model(relu, [vi("x", F32, [2, 3])], [vi("y", F32, [4, 5])]),
         "invalid_output_shape.onnx")
    save(model(relu, [vi("x", F32, [2, 3])], [vi("y", I64, [2, 3])]),
         "invalid_output_type.onnx")
    g = model([helper.make_node("Relu", ["x"], ["h"], name="r1"),
               helper.make_node("Relu", ["h"], ["y"], name="r2")],
              [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])])
    g.graph.value_info.append(vi("h", F32, [7]))
    save(g, "invalid_value_info.onnx")
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu_attr", foo=1)],
               [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])]), "invalid_unknown_attr.onnx")
    # Dropout's seed is an INT; the importer never reads it.
    save(model([helper.make_node("Dropout", ["x"], ["y"], name="drop", seed=0.5)],
               [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])]), "invalid_attr_type.onnx")
    # An opset newer than libonnx's schemas: an attribute nobody knows.
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu_new", foo=1)],
               [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])], opset=21),
         "invalid_unknown_attr_opset21.onnx")
    w = numpy_helper.from_array(np.ones([2, 3], np.float32), "w")
    w.float_data.extend([1.0] * 6)  # raw_data and float_data
    save(model([helper.make_node("Add", ["x", "w"], ["y"], name="add2")],
               [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])], [w]), "invalid_two_fields.onnx")
    # The initializer shadows graph input 'w' of another shape: the input disappeared.
    save(model([helper.make_node("Add", ["x", "w"], ["y"], name="add_shadow")],
               [vi("x", F32, [2, 3]), vi("w", F32, [5])], [vi("y", F32, [2, 3])],
               [numpy_helper.from_array(np.ones([2, 3], np.float32), "w")]),
         "invalid_shadow.onnx")
    # Constant indices out of range (onnxruntime raises; the kernels clamp).
    save(model([helper.make_node("Gather", ["x", "i"], ["y"], name="gather_oob")],
               [vi("x", F32, [4, 3])], [vi("y", F32, [2, 3])], [c("i", [1, 4])]),
         "invalid_gather_index.onnx")
    save(model([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], name="scatter_oob",
                                 axis=1)],
               [vi("x", F32, [2, 3]), vi("u", F32, [2, 1])], [vi("y", F32, [2, 3])],
               [c("i", [[0], [-4]])]), "invalid_scatter_index.onnx")
    save(model([helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="scatternd_oob")],
               [vi("x", F32, [2, 3]), vi("u", F32, [1])], [vi("y", F32, [2, 3])],
               [c("i", [[1, 3]])]), "invalid_scatternd_index.onnx")
    # A Scale that does not broadcast to X (aicc-fuzz-onnx: the importer dereferenced the failed
    # broadcast; fuzz/regressions/onnx/layernorm-scale-not-broadcastable.onnx).
    save(model([helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln_bad_scale")],
               [vi("x", F32, [2, 4]), vi("s", F32, [5])], [vi("y", F32, [2, 4])], opset=17),
         "invalid_layernorm_scale.onnx")
    # Constant integer folding that overflows int64 (aicc-fuzz-onnx: signed overflow, UBSan):
    # wraps as the kernels do. 2^62 * 4 = 2^64 -> 0; (2^63 - 1) + 1 -> -2^63; -7 mod 2 = 1.
    save(model([helper.make_node("Mul", ["a", "b"], ["m"], name="mul_wrap"),
                helper.make_node("Add", ["c", "d"], ["s"], name="add_wrap"),
                helper.make_node("Mod", ["e", "f"], ["r"], name="mod_sign")], [],
               [vi("m", I64, [1]), vi("s", I64, [1]), vi("r", I64, [1])],
               [c("a", [1 << 62]), c("b", [4]), c("c", [(1 << 63) - 1]), c("d", [1]),
                c("e", [-7]), c("f", [2])]), "hostile_int_fold_wrap.onnx")
    # Mean whose output has no name (aicc-fuzz-onnx: the importer read the missing result).
    save(model([helper.make_node("Mean", ["x", "x"], [""], name="mean_unnamed"),
                helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [vi("x", F32, [2])], [vi("y", F32, [2])]), "hostile_mean_unnamed.onnx")
    # External data outside the model's directory.
    for loc, fname in (("../secret.bin", "ext_dotdot.onnx"),
                       ("link/w.bin", "ext_symlink.onnx"), ("dir", "ext_dir.onnx")):
        save(model([helper.make_node("Relu", ["w"], ["y"], name="relu_ext")], [],
                   [vi("y", F32, [2])], [ext("w", [2], loc)]), fname)


if __name__ == "__main__":
    sizes()
    invalid()
