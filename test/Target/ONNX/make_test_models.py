#!/usr/bin/python3
"""Generates the tiny .onnx models under Inputs/ used by the ONNX importer lit tests.

Run with Debian's python3 (python3-onnx 1.12): /usr/bin/python3 make_test_models.py
The outputs are committed; rerun after editing this script. The ONNX checker is not
used on purpose: several models are malformed or use opsets newer than onnx 1.12 knows.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs")
F32 = TensorProto.FLOAT


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, ir=8, extra_opsets=(), name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets, producer_name="aicc-tests")
    m.ir_version = ir
    return m


def save(m, filename):
    with open(os.path.join(OUT, filename), "wb") as f:
        f.write(m.SerializeToString())


def data(shape, start=1.0):
    """Deterministic non-zero values."""
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float32) * 0.25 + start).reshape(shape)


def integer_models():
    """BitShift and (De)QuantizeLinear (ImportInteger.cpp), with refusals."""
    U8, U32 = TensorProto.UINT8, TensorProto.UINT32
    save(model([helper.make_node("BitShift", ["x", "n"], ["l"], name="shl", direction="LEFT"),
                helper.make_node("BitShift", ["w", "m"], ["r"], name="shr", direction="RIGHT")],
               [vi("x", U8, [2, 3]), vi("n", U8, [3]), vi("w", U32, [4]), vi("m", U32, [])],
               [vi("l", U8, [2, 3]), vi("r", U32, [4])], opset=11), "bitshift.onnx")
    save(model([helper.make_node("BitShift", ["x", "x"], ["y"], name="shl_i32", direction="LEFT")],
               [vi("x", TensorProto.INT32, [2])], [vi("y", TensorProto.INT32, [2])], opset=11),
         "bitshift_signed.onnx")
    save(model([helper.make_node("BitShift", ["x", "x"], ["y"], name="shup", direction="UP")],
               [vi("x", U8, [2])], [vi("y", U8, [2])], opset=11), "bitshift_direction.onnx")
    # Per-axis QuantizeLinear (axis 1, int8 zero points) and per-tensor DequantizeLinear.
    scale = numpy_helper.from_array(np.array([0.5, 0.25, 2.0], dtype=np.float32), "scale")
    zp = numpy_helper.from_array(np.array([1, -2, 0], dtype=np.int8), "zp")
    dscale = numpy_helper.from_array(np.array(0.125, dtype=np.float32), "dscale")
    dzp = numpy_helper.from_array(np.array(128, dtype=np.uint8), "dzp")
    save(model([helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["q"], name="quant",
                                 axis=1),
                helper.make_node("DequantizeLinear", ["u", "dscale", "dzp"], ["d"],
                                 name="dequant")],
               [vi("x", F32, [2, 3, 4]), vi("u", U8, [5])],
               [vi("q", TensorProto.INT8, [2, 3, 4]), vi("d", F32, [5])],
               [scale, zp, dscale, dzp]), "quantize.onnx")
    save(model([helper.make_node("QuantizeLinear", ["x", "scale"], ["q"], name="quant_bad",
                                 axis=2)],
               [vi("x", F32, [2, 3, 4])], [vi("q", U8, [2, 3, 4])], [scale]),
         "quantize_bad_axis.onnx")


def main():
    os.makedirs(OUT, exist_ok=True)

    # Gemm (alpha, beta, transB) with a typed-field weight and a raw_data bias, then an
    # unnamed Relu (named "Relu_1" by the importer).
    w = helper.make_tensor("W", F32, [3, 4], data([3, 4]).flatten().tolist())  # float_data
    bias = numpy_helper.from_array(data([3], start=-1.0), "bias")  # raw_data
    save(model([helper.make_node("Gemm", ["x", "W", "bias"], ["h"], name="fc", alpha=0.5,
                                 beta=2.0, transB=1),
                helper.make_node("Relu", ["h"], ["y"])],
               [vi("x", F32, [2, 4])], [vi("y", F32, [2, 3])], [w, bias]), "gemm.onnx")

    # Elementwise with numpy broadcasting and a scalar initializer.
    two = numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")
    save(model([helper.make_node("Add", ["a", "b"], ["s0"], name="add"),
                helper.make_node("Sub", ["s0", "two"], ["s1"], name="sub"),
                helper.make_node("Mul", ["s1", "b"], ["s2"], name="mul"),
                helper.make_node("Div", ["two", "s2"], ["s3"], name="div"),
                helper.make_node("Tanh", ["s3"], ["s4"], name="tanh"),
                helper.make_node("Sigmoid", ["s4"], ["s5"], name="sigmoid"),
                helper.make_node("Exp", ["s5"], ["s6"], name="exp"),
                helper.make_node("Erf", ["s6"], ["y"], name="erf")],
               [vi("a", F32, [2, 3]), vi("b", F32, [3])], [vi("y", F32, [2, 3])], [two],
               opset=14), "elementwise.onnx")

    # MatMul: batched x 2-D, and matrix x vector.
    save(model([helper.make_node("MatMul", ["a", "b"], ["c"], name="mm3d"),
                helper.make_node("MatMul", ["c", "v"], ["y"], name="mv")],
               [vi("a", F32, [2, 3, 4]), vi("b", F32, [4, 5]), vi("v", F32, [5])],
               [vi("y", F32, [2, 3])]), "matmul.onnx")

    # Softmax before opset 13 (coerced to 2-D) and from opset 13 (single axis).
    save(model([helper.make_node("Softmax", ["x"], ["s0"], name="sm_axis1", axis=1),
                helper.make_node("Softmax", ["s0"], ["y"], name="sm_last", axis=-1)],
               [vi("x", F32, [2, 3, 4])], [vi("y", F32, [2, 3, 4])], opset=11),
         "softmax_opset11.onnx")
    save(model([helper.make_node("Softmax", ["x"], ["s0"], name="sm_default"),
                helper.make_node("Softmax", ["s0"], ["y"], name="sm_neg", axis=-2)],
               [vi("x", F32, [2, 3, 4])], [vi("y", F32, [2, 3, 4])], opset=13),
         "softmax_opset13.onnx")

    # Gelu (opset 20) in both forms, on f16.
    save(model([helper.make_node("Gelu", ["x"], ["g0"], name="gelu_tanh", approximate="tanh"),
                helper.make_node("Gelu", ["g0"], ["y"], name="gelu_erf")],
               [vi("x", TensorProto.FLOAT16, [4])], [vi("y", TensorProto.FLOAT16, [4])],
               opset=20, ir=9), "gelu.onnx")

    # Data movement: Reshape (0 / -1 from a Constant node), Transpose (default perm),
    # Flatten (axis 0), Identity, Dropout (inference, mask unused), Reshape from an
    # initializer with allowzero = 1. The Relu keeps the last two reshapes apart (a
    # canonicalizer would merge them).
    shape_c = helper.make_node("Constant", [], ["shape"], name="shape_const",
                               value=numpy_helper.from_array(np.array([0, -1], np.int64)))
    shape2 = numpy_helper.from_array(np.array([24, 1], np.int64), "shape2")
    ratio = numpy_helper.from_array(np.array(0.5, np.float32), "ratio")
    save(model([shape_c,
                helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
                helper.make_node("Transpose", ["r"], ["t"], name="transpose"),
                helper.make_node("Flatten", ["t"], ["f"], name="flatten", axis=0),
                helper.make_node("Identity", ["f"], ["i"], name="identity"),
                helper.make_node("Relu", ["i"], ["i2"], name="relu"),
                helper.make_node("Dropout", ["i2", "ratio"], ["d", "mask"], name="dropout"),
                helper.make_node("Reshape", ["d", "shape2"], ["y"], name="reshape_az",
                                 allowzero=1)],
               [vi("x", F32, [2, 3, 4])], [vi("y", F32, [24, 1])], [shape2, ratio], opset=14),
         "shape_ops.onnx")

    # Old opsets: Reshape-1 (`shape` attribute), legacy broadcasting Add-6 (axis).
    save(model([helper.make_node("Reshape", ["x"], ["r"], name="reshape_v1", shape=[3, 8]),
                helper.make_node("Add", ["r", "b"], ["y"], name="add_v6", broadcast=1,
                                 axis=0)],
               [vi("x", F32, [2, 3, 4]), vi("b", F32, [3])], [vi("y", F32, [3, 8])],
               opset=4, ir=3), "legacy_opset.onnx")

    # Constants of every supported element type, typed fields and raw_data; a graph
    # input that is also an initializer; outputs that are an input or a constant.
    def typed(name, dt, dims, field, vals):
        t = TensorProto(name=name, data_type=dt, dims=dims)
        getattr(t, field).extend(vals)
        return t
    f16_bits = np.array([1.0, -2.0], np.float16).view(np.uint16).tolist()
    bf16_bits = [0x3F80, 0xC000]  # 1.0, -2.0
    inits = [
        typed("c_f16", TensorProto.FLOAT16, [2], "int32_data", f16_bits),
        typed("c_bf16", TensorProto.BFLOAT16, [2], "int32_data", bf16_bits),
        typed("c_f64", TensorProto.DOUBLE, [2], "double_data", [1.5, -2.5]),
        typed("c_i64", TensorProto.INT64, [2], "int64_data", [-7, 1 << 40]),
        typed("c_i32", TensorProto.INT32, [2], "int32_data", [-3, 4]),
        typed("c_i8", TensorProto.INT8, [2], "int32_data", [-128, 127]),
        typed("c_u8", TensorProto.UINT8, [2], "int32_data", [0, 255]),
        typed("c_bool", TensorProto.BOOL, [3], "int32_data", [1, 0, 1]),
        numpy_helper.from_array(np.array([[3, 200]], np.uint8), "c_u8_raw"),
        numpy_helper.from_array(np.array([True, False]), "c_bool_raw"),
        numpy_helper.from_array(np.array([1.25, -0.5], np.float32), "w_in"),
    ]
    outs = [vi("x", F32, [2])] + [vi(t.name, t.data_type, list(t.dims)) for t in inits] + [
        vi("k_float", F32, []), vi("k_floats", F32, [2]), vi("k_int", TensorProto.INT64, []),
        vi("k_ints", TensorProto.INT64, [3]), vi("sum", F32, [2])]
    save(model([helper.make_node("Constant", [], ["k_float"], name="k_float", value_float=0.5),
                helper.make_node("Constant", [], ["k_floats"], name="k_floats",
                                 value_floats=[1.0, 2.0]),
                helper.make_node("Constant", [], ["k_int"], name="k_int", value_int=-3),
                helper.make_node("Constant", [], ["k_ints"], name="k_ints",
                                 value_ints=[1, 2, 3]),
                helper.make_node("Add", ["x", "w_in"], ["sum"], name="add")],
               [vi("x", F32, [2]), vi("w_in", F32, [2])], outs, inits), "constants.onnx")

    # External data: the weight lives in external.bin at offset 16 (raw little-endian f32).
    wext = data([2, 2], start=0.5)
    with open(os.path.join(OUT, "external.bin"), "wb") as f:
        f.write(b"\xAB" * 16 + wext.tobytes())
    w = TensorProto(name="W", data_type=F32, dims=[2, 2],
                    data_location=TensorProto.EXTERNAL)
    for k, v in [("location", "external.bin"), ("offset", "16"), ("length", "16")]:
        w.external_data.add(key=k, value=v)
    save(model([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")],
               [vi("x", F32, [1, 2])], [vi("y", F32, [1, 2])], [w]), "external.onnx")

    # ------------------------------------------- bound inputs (--bind-input) and folding
    I64 = TensorProto.INT64

    def save_tensor(array, filename, name=""):
        with open(os.path.join(OUT, filename), "wb") as f:
            f.write(numpy_helper.from_array(array, name).SerializeToString())

    # Reshape whose shape is a graph input (opset 13: no longer an attribute).
    save(model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape_in")],
               [vi("x", F32, [2, 3, 4]), vi("shape", I64, [3])], [vi("y", F32, None)]),
         "bind_reshape.onnx")
    save_tensor(np.array([4, 3, 2], np.int64), "bind_shape.pb", "shape")
    save_tensor(np.array([4, 3, 2], np.int32), "bind_shape_i32.pb", "shape")
    save_tensor(np.array([4, 6], np.int64), "bind_shape_len2.pb", "shape")
    with open(os.path.join(OUT, "bind_garbage.pb"), "wb") as f:
        f.write(b"this is not a TensorProto\n")
    # A symbolic dimension takes the bound value's size; an input with an initializer
    # (a default value) cannot be bound.
    save(model([helper.make_node("Reshape", ["x", "s"], ["r"], name="reshape_sym"),
                helper.make_node("Mul", ["r", "k"], ["y"], name="scale")],
               [vi("x", F32, [6]), vi("s", I64, ["R"]), vi("k", F32, [])],
               [vi("y", F32, None)], [numpy_helper.from_array(np.array(2.0, np.float32), "k")]),
         "bind_symbolic.onnx")
    save_tensor(np.array([2, 3], np.int64), "bind_s23.pb", "s")
    # The shape is computed from a graph input at run time (Add), then folds once bound.
    save(model([helper.make_node("Add", ["shape", "zero"], ["s"], name="add_shape"),
                helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape_computed")],
               [vi("x", F32, [2, 3, 4]), vi("shape", I64, [3])], [vi("y", F32, None)],
               [numpy_helper.from_array(np.zeros(3, np.int64), "zero")]),
         "bind_computed.onnx")

    # Shape arithmetic of static shapes folds (as in LayerNormalization's function body):
    # [N] = Slice(Shape(x), 0, 1), ones = ConstantOfShape(Unsqueeze(Size(Shape(x)) - 1)),
    # Reshape(ReduceMean(x), Concat(N, ones)) = [2, 1, 1]; Cast and Neg fold too.
    def c64(name, values):
        return helper.make_node("Constant", [], [name], name=name + "_c",
                                value=numpy_helper.from_array(np.array(values, np.int64)))
    save(model([helper.make_node("Shape", ["x"], ["xs"], name="shape"),
                c64("zero", [0]), c64("one", [1]), c64("one_s", 1), c64("axis0", [0]),
                helper.make_node("Slice", ["xs", "zero", "one"], ["prefix"], name="slice"),
                helper.make_node("Size", ["xs"], ["rank"], name="size"),
                helper.make_node("Sub", ["rank", "one_s"], ["k"], name="sub"),
                helper.make_node("Neg", ["k"], ["negk"], name="neg"),
                helper.make_node("Neg", ["negk"], ["k2"], name="neg2"),
                helper.make_node("Unsqueeze", ["k2", "axis0"], ["k1d"], name="unsqueeze"),
                helper.make_node("ConstantOfShape", ["k1d"], ["ones"], name="ones",
                                 value=numpy_helper.from_array(np.array([1], np.int64))),
                helper.make_node("Concat", ["prefix", "ones"], ["red"], name="concat", axis=0),
                helper.make_node("Cast", ["red"], ["redf"], name="cast", to=F32),
                helper.make_node("ReduceSum", ["redf"], ["three"], name="sum", keepdims=0),
                helper.make_node("ReduceMean", ["x"], ["m"], name="mean", axes=[1, 2],
                                 keepdims=0),
                helper.make_node("Reshape", ["m", "red"], ["mr"], name="reshape"),
                helper.make_node("Mul", ["mr", "three"], ["y"], name="scale")],
               [vi("x", F32, [2, 3, 4])], [vi("y", F32, [2, 1, 1])], opset=17),
         "fold_shape.onnx")

    # Clip with a run-time min and a constant max; Pow with an int64 base.
    save(model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip")],
               [vi("x", F32, [2, 3]), vi("lo", F32, [])], [vi("y", F32, [2, 3])],
               [numpy_helper.from_array(np.array(0.5, np.float32), "hi")]),
         "clip_runtime.onnx")
    save(model([helper.make_node("Pow", ["x", "e"], ["y"], name="pow_int")],
               [vi("x", I64, [3]), vi("e", F32, [3])], [vi("y", I64, [3])], opset=15),
         "pow_int.onnx")
    # MaxPool's Indices output (2x2 windows, stride 2, column-major indices).
    save(model([helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool", kernel_shape=[2, 2],
                                 strides=[2, 2], storage_order=1)],
               [vi("x", F32, [1, 1, 4, 4])],
               [vi("y", F32, [1, 1, 2, 2]), vi("idx", I64, [1, 1, 2, 2])], opset=12),
         "maxpool_indices.onnx")
    save(model([helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool3d",
                                 kernel_shape=[2, 2, 2], storage_order=1)],
               [vi("x", F32, [1, 1, 2, 2, 2])],
               [vi("y", F32, [1, 1, 1, 1, 1]), vi("idx", I64, [1, 1, 1, 1, 1])], opset=12),
         "maxpool_indices_3d.onnx")
    # Dropout-13's mask in inference: all true.
    save(model([helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop13")],
               [vi("x", F32, [2])], [vi("y", F32, [2]), vi("mask", TensorProto.BOOL, [2])]),
         "dropout_mask13.onnx")

    # ---------------------------------------------------------------- error cases
    save(model([helper.make_node("Det", ["x"], ["y"], name="my_det")],
               [vi("x", F32, [2])], [vi("y", F32, [2])]), "unsupported.onnx")
    save(model([helper.make_node("FusedMatMul", ["x", "x"], ["y"], name="fused",
                                 domain="com.microsoft")],
               [vi("x", F32, [2, 2])], [vi("y", F32, [2, 2])],
               extra_opsets=[("com.microsoft", 1)]), "custom_domain.onnx")
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [vi("x", F32, ["N", 4])], [vi("y", F32, ["N", 4])]), "dynamic_input.onnx")
    save(model([helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape_dyn")],
               [vi("x", F32, [2, 3]), vi("s", TensorProto.INT64, [1])], [vi("y", F32, [6])]),
         "reshape_nonconst.onnx")
    save(model([helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop")],
               [vi("x", F32, [2])], [vi("y", F32, [2]), vi("mask", F32, [2])], opset=9),
         "dropout_mask.onnx")
    save(model([helper.make_node("Add", ["a", "b"], ["y"], name="add_mixed")],
               [vi("a", F32, [2]), vi("b", TensorProto.DOUBLE, [2])], [vi("y", F32, [2])]),
         "mixed_types.onnx")
    save(model([helper.make_node("Relu", ["nowhere"], ["y"], name="relu")],
               [vi("x", F32, [2])], [vi("y", F32, [2])]), "undefined_input.onnx")
    save(model([helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm_bad")],
               [vi("a", F32, [2, 3]), vi("b", F32, [4, 5])], [vi("y", F32, [2, 5])]),
         "gemm_mismatch.onnx")
    save(model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1.0)],
               [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])]), "bad_attr.onnx")
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [vi("x", F32, [2])], [vi("y", F32, [2])], opset=28, ir=10), "opset_too_new.onnx")
    w = TensorProto(name="W", data_type=F32, dims=[2, 2], data_location=TensorProto.EXTERNAL)
    w.external_data.add(key="location", value="missing.bin")
    save(model([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")],
               [vi("x", F32, [1, 2])], [vi("y", F32, [1, 2])], [w]), "external_missing.onnx")

    integer_models()

    # Not a model: text, and the first half of a valid model.
    with open(os.path.join(OUT, "garbage.onnx"), "wb") as f:
        f.write(b"this is not an ONNX model\n" + bytes(range(256)))
    with open(os.path.join(OUT, "gemm.onnx"), "rb") as f:
        whole = f.read()
    with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
        f.write(whole[: len(whole) // 2])


if __name__ == "__main__":
    main()
