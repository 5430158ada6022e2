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


def audit():
    """Defects an audit of the importer found (same classes as aicc-fuzz-onnx's findings):
    importer-audit.test. Each was an abort (MLIR/APInt assertion, libstdc++ assertion),
    undefined behaviour (int64 or float-to-int overflow) or unbounded work."""
    I8, U8, I32 = TensorProto.INT8, TensorProto.UINT8, TensorProto.INT32
    big = 1 << 62
    # int8 constant fold 100 + 100: APInt(8, 200) asserted; wraps to -56 as the kernels do.
    save(model([helper.make_node("Add", ["a", "b"], ["y"], name="add_i8")], [],
               [vi("y", I8, [1])], [c("a", [100], np.int8), c("b", [100], np.int8)], opset=14),
         "audit_fold_i8_wrap.onnx")
    save(model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="convt_group",
                                 group=big)],
               [vi("x", F32, [1, 1, 4]), vi("w", F32, [1, 4, 3])], [vi("y", F32, None)]),
         "audit_convtranspose_group.onnx")
    save(model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="convt_dil",
                                 dilations=[big])],
               [vi("x", F32, [1, 1, 4]), vi("w", F32, [1, 1, 3])], [vi("y", F32, None)]),
         "audit_convtranspose_dilation.onnx")
    # An empty axis with a negative step: std::clamp(s, 0, -1).
    save(model([helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="slice_empty")],
               [vi("x", F32, [0])], [vi("y", F32, [0])],
               [c("s", [0]), c("e", [0]), c("a", [0]), c("st", [-1])]),
         "audit_slice_empty_negative_step.onnx")
    save(model([helper.make_node("Split", ["x", "sp"], ["y0", "y1"], name="split_wrap")],
               [vi("x", F32, [2])], [vi("y0", F32, None), vi("y1", F32, None)],
               [c("sp", [1, (1 << 63) - 1])]), "audit_split_overflow.onnx")
    save(model([helper.make_node("Split", ["x"], ["y0", "y1"], name="split_num",
                                 num_outputs=(1 << 63) - 1)],
               [vi("x", F32, [4])], [vi("y0", F32, None), vi("y1", F32, None)], opset=18),
         "audit_split_num_outputs.onnx")
    save(model([helper.make_node("DFT", ["x", "n"], ["y"], name="dft_len", onesided=0)],
               [vi("x", F32, [1, 4, 1])], [vi("y", F32, None)], [c("n", big)], opset=17),
         "audit_dft_length.onnx")
    save(model([helper.make_node("MelWeightMatrix", ["m", "n", "r", "lo", "hi"], ["y"],
                                 name="mel_huge")], [], [vi("y", F32, None)],
               [c("m", 65536), c("n", 1 << 24), c("r", 16000), c("lo", 0.0, np.float32),
                c("hi", 8000.0, np.float32)], opset=17), "audit_mel_huge.onnx")
    save(model([helper.make_node("OneHot", ["i", "d", "v"], ["y"], name="onehot_i8")],
               [vi("i", I8, [2])], [vi("y", F32, None)],
               [c("d", [128]), c("v", [0.0, 1.0], np.float32)], opset=11),
         "audit_onehot_depth_i8.onnx")
    save(model([helper.make_node("Mean", ["x"], [], name="mean_none")],
               [vi("x", F32, [2])], [], opset=18), "audit_mean_no_output.onnx")
    save(model([helper.make_node("Clip", ["x", "lo"], ["y"], name="clip_i64")], [],
               [vi("y", I64, [1])], [c("x", [5]), c("lo", (1 << 63) - 1)]),
         "audit_clip_fold_bound.onnx")
    save(model([helper.make_node("Resize", ["x", "roi", "", "sz"], ["y"], name="rs_extrap",
                                 mode="nearest", coordinate_transformation_mode="tf_crop_and_resize",
                                 extrapolation_value=1000.0)],
               [vi("x", I8, [4])], [vi("y", I8, [8])],
               [c("roi", [0.0, 2.0], np.float32), c("sz", [8])]), "audit_resize_extrapolation.onnx")
    save(model([helper.make_node("ConvInteger", ["x", "w"], ["y"], name="convint_group",
                                 group=big)],
               [vi("x", U8, [1, 0, 4]), vi("w", U8, [1, 2, 1])], [vi("y", I32, None)], opset=10),
         "audit_convinteger_group.onnx")
    # A reverse RNN of 4096 steps (the unroll limit): the constant folder recursed through
    # the whole chain (at 65536 steps, the limit then, the stack overflowed).
    save(model([helper.make_node("RNN", ["x", "w", "r"], ["", "yh"], name="rnn_long",
                                 hidden_size=1, direction="reverse")],
               [vi("x", F32, [4096, 1, 1])], [vi("yh", F32, [1, 1, 1])],
               [numpy_helper.from_array(np.ones([1, 1, 1], np.float32), "w"),
                numpy_helper.from_array(np.ones([1, 1, 1], np.float32), "r")]),
         "audit_rnn_fold_depth.onnx")
    save(model([helper.make_node("Einsum", ["a", "b"], ["y"], name="einsum_wrap",
                                 equation="...,...->")],
               [vi("a", TensorProto.FLOAT16, [1 << 32, 1]),
                vi("b", TensorProto.FLOAT16, [1, 1 << 32])], [vi("y", TensorProto.FLOAT16, [])],
               opset=12), "audit_einsum_overflow.onnx")
    save(model([helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attn_heads",
                                 q_num_heads=big, kv_num_heads=1)],
               [vi("q", F32, [1, 1, 0]), vi("k", F32, [1, 1, 0]), vi("v", F32, [1, 1, 4])],
               [vi("y", F32, None)], opset=23), "audit_attention_heads.onnx")
    save(model([helper.make_node("RNN", ["x", "w", "r", "", "l"], ["y"], name="rnn_lens_i8",
                                 hidden_size=1)],
               [vi("x", F32, [200, 1, 1]), vi("l", I8, [1])], [vi("y", F32, None)],
               [numpy_helper.from_array(np.ones([1, 1, 1], np.float32), "w"),
                numpy_helper.from_array(np.ones([1, 1, 1], np.float32), "r")], opset=18),
         "audit_rnn_lens_i8.onnx")
    save(model([helper.make_node("GatherND", ["d", "i"], ["y"], name="gathernd_i32")],
               [vi("d", TensorProto.BOOL, [1 << 31]), vi("i", I32, [1, 1])],
               [vi("y", TensorProto.BOOL, [1])], opset=18), "audit_gathernd_i32_rows.onnx")
    # Nearest Resize of 2^25 elements along one axis: 2^26 host-side row computations.
    save(model([helper.make_node("Resize", ["x", "", "", "sz"], ["y"], name="rs_long_in",
                                 mode="nearest")],
               [vi("x", U8, [1 << 25])], [vi("y", U8, [1 << 26])], [c("sz", [1 << 26])]),
         "audit_resize_long_input.onnx")


if __name__ == "__main__":
    sizes()
    invalid()
    audit()
