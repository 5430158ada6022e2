#!/usr/bin/python3
"""Small ONNX models with a dynamic batch dim ('batch') for symbolic-dims.test: each is one
way the bounded symbolic dims (docs/symbolic-shapes.md) must refuse or accept a model.

usage: symbolic_models.py OUTDIR
writes OUTDIR/NAME.onnx for NAME in:
  rowwise        Y = softmax(X @ W + b) over the last axis: accepted
  batch_as_data  Y = X / batch (the batch size from Shape, cast to float, used as data)
  reduce_batch   Y = ReduceSum(X, axis 0) (sums over the batch)
  last_row       Y = X[-1:] (a slice along the batch)
  batch_inner    Y = softmax(X @ W) of X [4, batch, 8]: accepted (the symbol after a dim of 4:
                 a run's tensors are 4 rows of their buffers, format version 8); writes
                 OUTDIR/batch_inner/test_data_set_{0,1,2} at batch 1, 3 and 16
  rows_reduce    Y = ReduceSum(X) + ReduceMax(X) over the last axis of X [4, batch, 40]:
                 accepted (the reduction kernel's outputs are 4 rows of their buffers);
                 OUTDIR/rows_reduce/test_data_set_{0,1,2} at batch 1, 3 and 16
  mean_flatten   Y = Reshape(X, [batch * 4]) -> ReduceMean: refused (reduces along it)
  min_batch      Y = X * Cast(Min(batch, 4)): refused (a function of batch that is 4 at the
                 values the compiler imports the model at, 16, 15, 8, but not at 1, 2, 3)
  pad_min        Y = Pad(X, [0, 0, 0, Min(batch, 4)]): refused (the same, as a shape operand)
  batch_is_one   Y = Where(batch == 1, X, Z): refused
  squeeze_all    Y = Squeeze(X) of X [batch, 1, 4]: refused (at batch 1 it drops the batch dim)
  count_sum      Y = X + Cast(ReduceSum(ConstantOfShape(batch, 1.0)) == 3): refused (a sum over
                 data of the batch's length is the batch size again)
  slice_at_batch Y = X * Slice(T, batch - 1, batch): refused (the element read moves with batch)
  expand_batch   Y = Expand(T, Shape(X)) + X: accepted (only the shape follows batch); writes
                 OUTDIR/expand_batch/test_data_set_{0,1,2} at batch 1, 3 and 16
  scatter_rows   Y = ScatterND(D [8, 4], I [batch, 1], U [batch, 4], reduction add): accepted
                 (batch rows added into static data, repeated positions among them; the
                 kernel applies only the run's tuples); OUTDIR/scatter_rows/test_data_set_
                 {0,1,2} at batch 1, 3 and 16
  expand_scatter Y = ScatterND(D [8, 4], I [batch, 1], Expand(R [1, 4], [batch, 4]), add):
                 the graph at batch 1 folds the Expand away (a different graph): refused at
                 --dim batch=1..8 naming both ops, accepted at 2..8
  scatter_into_batch  Y = ScatterND(X [batch, 4], I [1, 1], U [1, 4]): refused (the data
                 carries the symbol)
  position_table Y = X [1, batch, 64] + Slice(P [512, 64], 0, Shape(X)[1]): accepted at
                 --dim batch=1..512 (a table sliced to the prompt's length, GPT-2's wpe[:seq];
                 128 KiB, too big to fold, and the whole table at the bound);
                 OUTDIR/position_table/test_data_set_{0,1,2} at 1, 100 and 512
  conv_f16       Y = Conv(X [batch, 64, 16, 16], W [128, 64, 3, 3], pad 1) in f16: on sm_90a a
                 persistent wgmma kernel that reads the run's tile count
  position_gather  Y = X [1, batch, 64] + Gather(P [512, 64], Range(0, Shape(X)[1])): accepted
                 (HF GPT-2's wpe(position_ids): rows of a table read at data of the symbol's
                 count); OUTDIR/position_gather/test_data_set_{0,1,2} at 1, 100 and 512
  two_units      YA = 2 * Transpose(Reshape(X[..., :32], [1, batch, 2, 16])) [1, 2, batch, 16]
                 and YB = -Transpose(Reshape(X[..., 32:], [1, batch, 2, 16])) [batch, 1, 2, 16]
                 of X [1, batch, 64]: one elementwise kernel (siblings of X) whose results
                 hold the symbol behind 2 rows of 16 and in one row of 32 per value (a GQA
                 layer's q and k head splits before RoPE);
                 OUTDIR/two_units/test_data_set_{0,1,2} at 1, 3 and 16
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)


def save(name, nodes, inputs, outputs, inits=(), check=True):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    if check:  # (Debian's onnx checker wants a shape on every output)
        onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(out, name + ".onnx"))


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


w = numpy_helper.from_array(rng.standard_normal((4, 6)).astype(np.float32), "W")
b = numpy_helper.from_array(rng.standard_normal((6,)).astype(np.float32), "B")
save("rowwise",
     [helper.make_node("MatMul", ["X", "W"], ["m"]), helper.make_node("Add", ["m", "B"], ["a"]),
      helper.make_node("Softmax", ["a"], ["Y"], axis=-1)],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 6])], [w, b])

idx0 = numpy_helper.from_array(np.array(0, np.int64), "i0")
save("batch_as_data",
     [helper.make_node("Shape", ["X"], ["s"]), helper.make_node("Gather", ["s", "i0"], ["n"]),
      helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
      helper.make_node("Div", ["X", "nf"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 4])], [idx0])

axes0 = numpy_helper.from_array(np.array([0], np.int64), "axes")
save("reduce_batch", [helper.make_node("ReduceSum", ["X", "axes"], ["Y"], keepdims=1)],
     [vi("X", ["batch", 4])], [vi("Y", [1, 4])], [axes0])

starts = numpy_helper.from_array(np.array([-1], np.int64), "starts")
ends = numpy_helper.from_array(np.array([2**62], np.int64), "ends")
save("last_row", [helper.make_node("Slice", ["X", "starts", "ends", "axes"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", [1, 4])], [starts, ends, axes0])

wi = rng.standard_normal((8, 6)).astype(np.float32)
save("batch_inner",
     [helper.make_node("MatMul", ["X", "W"], ["m"]),
      helper.make_node("Softmax", ["m"], ["Y"], axis=-1)],
     [vi("X", [4, "batch", 8])], [vi("Y", [4, "batch", 6])], [numpy_helper.from_array(wi, "W")])
for k, n in enumerate((1, 3, 16)):
    d = os.path.join(out, "batch_inner", "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((4, n, 8)).astype(np.float32)
    m = x.astype(np.float64) @ wi
    y = np.exp(m - m.max(-1, keepdims=True))
    y /= y.sum(-1, keepdims=True)
    open(os.path.join(d, "input_0.pb"), "wb").write(numpy_helper.from_array(x, "X").SerializeToString())
    open(os.path.join(d, "output_0.pb"), "wb").write(
        numpy_helper.from_array(y.astype(np.float32), "Y").SerializeToString())

axes_last = numpy_helper.from_array(np.array([-1], np.int64), "axes_last")
save("rows_reduce",
     [helper.make_node("ReduceSum", ["X", "axes_last"], ["s"], keepdims=1),
      helper.make_node("ReduceMax", ["X"], ["m"], axes=[-1], keepdims=1),
      helper.make_node("Add", ["s", "m"], ["Y"])],
     [vi("X", [4, "batch", 40])], [vi("Y", [4, "batch", 1])], [axes_last])
for k, n in enumerate((1, 3, 16)):
    d = os.path.join(out, "rows_reduce", "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((4, n, 40)).astype(np.float32)
    y = x.astype(np.float64).sum(-1, keepdims=True) + x.max(-1, keepdims=True)
    open(os.path.join(d, "input_0.pb"), "wb").write(numpy_helper.from_array(x, "X").SerializeToString())
    open(os.path.join(d, "output_0.pb"), "wb").write(
        numpy_helper.from_array(y.astype(np.float32), "Y").SerializeToString())

flat = numpy_helper.from_array(np.array([-1], np.int64), "flat")
save("mean_flatten",
     [helper.make_node("Reshape", ["X", "flat"], ["f"]),
      helper.make_node("ReduceMean", ["f"], ["Y"], keepdims=0)],
     [vi("X", ["batch", 4])], [vi("Y", [])], [flat])

bidx = numpy_helper.from_array(np.array([0], np.int64), "bidx")
four = numpy_helper.from_array(np.array([4], np.int64), "four")
shape_b = [helper.make_node("Shape", ["X"], ["s"]), helper.make_node("Gather", ["s", "bidx"], ["b"])]
save("min_batch",
     shape_b + [helper.make_node("Min", ["b", "four"], ["m"]),
                helper.make_node("Cast", ["m"], ["mf"], to=TensorProto.FLOAT),
                helper.make_node("Mul", ["X", "mf"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 4])], [bidx, four])

zeros3 = numpy_helper.from_array(np.zeros(3, np.int64), "zeros3")
save("pad_min",
     shape_b + [helper.make_node("Min", ["b", "four"], ["m"]),
                helper.make_node("Concat", ["zeros3", "m"], ["pads"], axis=0),
                helper.make_node("Pad", ["X", "pads"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", None])], [bidx, four, zeros3])

one = numpy_helper.from_array(np.array([1], np.int64), "one")
save("batch_is_one",
     shape_b + [helper.make_node("Equal", ["b", "one"], ["e"]),
                helper.make_node("Where", ["e", "X", "Z"], ["Y"])],
     [vi("X", ["batch", 4]), vi("Z", ["batch", 4])], [vi("Y", ["batch", 4])], [bidx, one])

save("squeeze_all", [helper.make_node("Squeeze", ["X"], ["Y"])],
     [vi("X", ["batch", 1, 4])], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
     check=False)

onef = helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])
three = numpy_helper.from_array(np.array(3.0, np.float32), "three")
save("count_sum",
     shape_b + [helper.make_node("ConstantOfShape", ["b"], ["ones"], value=onef),
                helper.make_node("ReduceSum", ["ones"], ["n"], keepdims=0),
                helper.make_node("Equal", ["n", "three"], ["e"]),
                helper.make_node("Cast", ["e"], ["ef"], to=TensorProto.FLOAT),
                helper.make_node("Add", ["X", "ef"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 4])], [bidx, three])

table = numpy_helper.from_array(np.array([5, 9, 9, 5, 9, 9, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5],
                                         np.float32), "table")
one1 = numpy_helper.from_array(np.array([1], np.int64), "one1")
save("slice_at_batch",
     shape_b + [helper.make_node("Sub", ["b", "one1"], ["lo"]),
                helper.make_node("Slice", ["table", "lo", "b"], ["t"]),
                helper.make_node("Mul", ["X", "t"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 4])], [bidx, table, one1])

t = rng.standard_normal((1, 4)).astype(np.float32)
save("expand_batch",
     [helper.make_node("Shape", ["X"], ["s"]), helper.make_node("Expand", ["T", "s"], ["e"]),
      helper.make_node("Add", ["e", "X"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 4])], [numpy_helper.from_array(t, "T")])
for k, n in enumerate((1, 3, 16)):
    d = os.path.join(out, "expand_batch", "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    open(os.path.join(d, "input_0.pb"), "wb").write(numpy_helper.from_array(x, "X").SerializeToString())
    open(os.path.join(d, "output_0.pb"), "wb").write(
        numpy_helper.from_array((x + t).astype(np.float32), "Y").SerializeToString())

save("scatter_rows",
     [helper.make_node("ScatterND", ["D", "I", "U"], ["Y"], reduction="add")],
     [vi("D", [8, 4]), helper.make_tensor_value_info("I", TensorProto.INT64, ["batch", 1]),
      vi("U", ["batch", 4])], [vi("Y", [8, 4])])
for k, n in enumerate((1, 3, 16)):
    d = os.path.join(out, "scatter_rows", "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    data = rng.standard_normal((8, 4)).astype(np.float32)
    idx = rng.integers(-8, 8, (n, 1)).astype(np.int64)  # negative positions count from the end
    upd = rng.standard_normal((n, 4)).astype(np.float32)
    y = data.copy()
    np.add.at(y, idx[:, 0] % 8, upd)
    for i, (t, nm) in enumerate(((data, "D"), (idx, "I"), (upd, "U"))):
        open(os.path.join(d, "input_%d.pb" % i), "wb").write(
            numpy_helper.from_array(t, nm).SerializeToString())
    open(os.path.join(d, "output_0.pb"), "wb").write(
        numpy_helper.from_array(y, "Y").SerializeToString())

save("scatter_into_batch",
     [helper.make_node("ScatterND", ["X", "I", "U"], ["Y"])],
     [vi("X", ["batch", 4])], [vi("Y", ["batch", 4])],
     [numpy_helper.from_array(np.array([[0]], np.int64), "I"),
      numpy_helper.from_array(rng.standard_normal((1, 4)).astype(np.float32), "U")])

save("expand_scatter",
     [helper.make_node("Shape", ["I"], ["sh"], start=0, end=1),
      helper.make_node("Concat", ["sh", "four"], ["tgt"], axis=0),
      helper.make_node("Expand", ["R", "tgt"], ["u"]),
      helper.make_node("ScatterND", ["D", "I", "u"], ["Y"], reduction="add")],
     [vi("D", [8, 4]), helper.make_tensor_value_info("I", TensorProto.INT64, ["batch", 1]),
      vi("R", [1, 4])], [vi("Y", [8, 4])],
     [numpy_helper.from_array(np.array([4], np.int64), "four")])

p_table = rng.standard_normal((512, 64)).astype(np.float32)


def table_data_sets(name):
    """OUTDIR/NAME/test_data_set_{0,1,2}: X [1, n, 64] and Y = X + P[:n] at n = 1, 100, 512."""
    for k, n in enumerate((1, 100, 512)):
        d = os.path.join(out, name, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        x = rng.standard_normal((1, n, 64)).astype(np.float32)
        open(os.path.join(d, "input_0.pb"), "wb").write(
            numpy_helper.from_array(x, "X").SerializeToString())
        open(os.path.join(d, "output_0.pb"), "wb").write(
            numpy_helper.from_array(x + p_table[:n], "Y").SerializeToString())


save("position_table",
     [helper.make_node("Shape", ["X"], ["n"], start=1, end=2),
      helper.make_node("Slice", ["P", "zero", "n", "axis0"], ["pos"]),
      helper.make_node("Add", ["X", "pos"], ["Y"])],
     [vi("X", [1, "batch", 64])], [vi("Y", [1, "batch", 64])],
     [numpy_helper.from_array(p_table, "P"),
      numpy_helper.from_array(np.array([0], np.int64), "zero"),
      numpy_helper.from_array(np.array([0], np.int64), "axis0")])
table_data_sets("position_table")


save("conv_f16",
     [helper.make_node("Conv", ["X", "W"], ["Y"], pads=[1, 1, 1, 1])],
     [helper.make_tensor_value_info("X", TensorProto.FLOAT16, ["batch", 64, 16, 16])],
     [helper.make_tensor_value_info("Y", TensorProto.FLOAT16, ["batch", 128, 16, 16])],
     [numpy_helper.from_array(
         (rng.standard_normal((128, 64, 3, 3)) / 24).astype(np.float16), "W")])

save("position_gather",
     [helper.make_node("Shape", ["X"], ["n1"], start=1, end=2),
      helper.make_node("Squeeze", ["n1", "zero"], ["n"]),
      helper.make_node("Range", ["start", "n", "step"], ["ids"]),
      helper.make_node("Gather", ["P", "ids"], ["pos"], axis=0),
      helper.make_node("Add", ["X", "pos"], ["Y"])],
     [vi("X", [1, "batch", 64])], [vi("Y", [1, "batch", 64])],
     [numpy_helper.from_array(p_table, "P"),
      numpy_helper.from_array(np.array([0], np.int64), "zero"),
      numpy_helper.from_array(np.array(0, np.int64), "start"),
      numpy_helper.from_array(np.array(1, np.int64), "step")])
table_data_sets("position_gather")


def i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


save("two_units",
     [helper.make_node("Slice", ["X", "s0", "s32", "ax2"], ["xa"]),
      helper.make_node("Reshape", ["xa", "shape_a"], ["ra"]),
      helper.make_node("Transpose", ["ra"], ["ta"], perm=[0, 2, 1, 3]),
      helper.make_node("Mul", ["ta", "two"], ["YA"]),
      helper.make_node("Slice", ["X", "s32", "s64", "ax2"], ["xb"]),
      helper.make_node("Reshape", ["xb", "shape_a"], ["rb"]),
      helper.make_node("Transpose", ["rb"], ["tb"], perm=[1, 0, 2, 3]),
      helper.make_node("Neg", ["tb"], ["YB"])],
     [vi("X", [1, "batch", 64])],
     [vi("YA", [1, 2, "batch", 16]), vi("YB", ["batch", 1, 2, 16])],
     [i64("s0", [0]), i64("s32", [32]), i64("s64", [64]), i64("ax2", [2]),
      i64("shape_a", [1, -1, 2, 16]), numpy_helper.from_array(np.array(2, np.float32), "two")])
for k, n in enumerate((1, 3, 16)):
    d = os.path.join(out, "two_units", "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((1, n, 64)).astype(np.float32)
    ya = 2 * x[..., :32].reshape(1, n, 2, 16).transpose(0, 2, 1, 3)
    yb = -x[..., 32:].reshape(1, n, 2, 16).transpose(1, 0, 2, 3)
    for name, t in (("input_0", numpy_helper.from_array(x, "X")),
                    ("output_0", numpy_helper.from_array(ya, "YA")),
                    ("output_1", numpy_helper.from_array(yb, "YB"))):
        open(os.path.join(d, name + ".pb"), "wb").write(t.SerializeToString())
