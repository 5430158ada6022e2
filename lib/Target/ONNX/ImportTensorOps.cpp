//===- ImportTensorOps.cpp - data-movement ops (Gather ... Split, DepthToSpace, Trilu) ---===//
//
// Gather, Concat, Slice, Pad, Tile, Split, DepthToSpace / SpaceToDepth, Trilu; the family's
// registration, which also names the shape ops of ImportShapeOps.cpp.
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "aicc/Support/InputFile.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace aicc::onnx_import::detail;

/// Gather folds when data and indices are small integer constants (shape arithmetic);
/// otherwise it is unsupported for now.
LogicalResult Importer::importGather(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto data = getInput(nc, 0), indices = getInput(nc, 1);
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(data) || failed(indices) || failed(axisAttr))
    return failure();
  auto dv = intConstant(*data), iv = intConstant(*indices);
  auto dt = cast<RankedTensorType>(data->getType()), it = cast<RankedTensorType>(indices->getType());
  auto axis = normalizeAxis(nc, *axisAttr, dt.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (!dv || !iv) {
    // A gather kernel: indices read at run time (graph.gather, a view op).
    auto iType = dyn_cast<IntegerType>(it.getElementType());
    if (!iType || iType.getWidth() < 8)
      return nodeError(nc) << "indices must be int32 or int64";
    if (failed(checkConstantIndices(nc, 1, *indices, {dt.getDimSize(*axis)})))
      return failure();
    SmallVector<int64_t> shape(dt.getShape().take_front(*axis));
    shape.append(it.getShape().begin(), it.getShape().end());
    shape.append(dt.getShape().begin() + *axis + 1, dt.getShape().end());
    return define(nc, 0, graph::GatherOp::create(
                             b, nc.loc, RankedTensorType::get(shape, dt.getElementType()), *data,
                             *indices, b.getI64IntegerAttr(*axis)));
  }
  SmallVector<int64_t> outShape(dt.getShape().take_front(*axis));
  outShape.append(it.getShape().begin(), it.getShape().end());
  outShape.append(dt.getShape().begin() + *axis + 1, dt.getShape().end());
  if (failed(checkShape(nc, outShape, dt.getElementType(), "output of shape")) ||
      failed(checkTable(nc, *product(outShape), 8, "the folded gather")))
    return failure();
  int64_t outer = 1, inner = 1, n = dt.getDimSize(*axis);
  for (int64_t d = 0; d < *axis; ++d)
    outer *= dt.getDimSize(d);
  for (int64_t d = *axis + 1; d < dt.getRank(); ++d)
    inner *= dt.getDimSize(d);
  SmallVector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : *iv) {
      if (k < -n || k >= n)
        return nodeError(nc) << "index " << k << " out of range [" << -n << ", " << n << ")";
      int64_t kk = k < 0 ? k + n : k;
      for (int64_t i = 0; i < inner; ++i)
        out.push_back((*dv)[(o * n + kk) * inner + i]);
    }
  return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get(outShape, dt.getElementType()),
                                     out));
}

/// Concat folds for integer constants (shape vectors); otherwise unsupported for now.
LogicalResult Importer::importConcat(const NodeCtx &nc) {
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(axisAttr) || nc.node.input_size() < 1)
    return nodeError(nc) << "needs inputs and an axis";
  SmallVector<SmallVector<int64_t>> parts;
  SmallVector<RankedTensorType> types;
  for (int i = 0; i < nc.node.input_size(); ++i) {
    auto in = getInput(nc, i);
    if (failed(in))
      return failure();
    auto c = intConstant(*in);
    types.push_back(cast<RankedTensorType>(in->getType()));
    if (!c) {
      parts.clear();
      break;
    }
    parts.push_back(*c);
  }
  if ((int)parts.size() != nc.node.input_size()) {
    // Not all constant: a concat kernel (graph.concat, read through index arithmetic).
    SmallVector<Value> ins;
    for (int i = 0; i < nc.node.input_size(); ++i) {
      auto v = getInput(nc, i);
      if (failed(v))
        return failure();
      ins.push_back(*v);
    }
    auto t0 = cast<RankedTensorType>(ins[0].getType());
    auto ax = normalizeAxis(nc, *axisAttr, t0.getRank(), /*allowRank=*/false);
    if (failed(ax))
      return failure();
    SmallVector<int64_t> shape(t0.getShape());
    CheckedInt axisSize = 0;
    for (Value v : ins) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() != t0.getRank() || t.getElementType() != t0.getElementType())
        return nodeError(nc) << "inputs differ in rank or element type";
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (d != *ax && t.getDimSize(d) != t0.getDimSize(d))
          return nodeError(nc) << "input shapes differ outside the axis";
      axisSize += t.getDimSize(*ax);
    }
    if (!axisSize.valid())
      return nodeError(nc) << "the inputs' sizes along axis " << *ax << " overflow int64";
    shape[*ax] = axisSize.value();
    return define(nc, 0, graph::ConcatOp::create(b, nc.loc,
                                                 RankedTensorType::get(shape, t0.getElementType()),
                                                 ins, b.getI64IntegerAttr(*ax)));
  }
  auto axis = normalizeAxis(nc, *axisAttr, types[0].getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(types[0].getShape());
  shape[*axis] = 0;
  for (auto t : types) {
    if (t.getRank() != (int64_t)shape.size() || t.getElementType() != types[0].getElementType())
      return nodeError(nc) << "inputs differ in rank or element type";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getDimSize(d) != types[0].getDimSize(d))
        return nodeError(nc) << "input shapes differ outside the axis";
    shape[*axis] += t.getDimSize(*axis); // constants of <= 4096 elements: no overflow
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= shape[d];
  SmallVector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [t, vals] : llvm::zip(types, parts)) {
      int64_t chunk = t.getNumElements() / std::max<int64_t>(outer, 1);
      out.append(vals.begin() + o * chunk, vals.begin() + (o + 1) * chunk);
    }
  return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get(shape,
                                                                   types[0].getElementType()),
                                     out));
}

/// Slice: starts/ends/axes/steps are attributes before opset 10 and constant inputs from
/// then on; clamped as the ONNX spec says (Slice-13).
LogicalResult Importer::importSlice(const NodeCtx &nc) {
  bool inputs = opset >= 10;
  if (failed(checkArity(nc, inputs ? 3 : 1, inputs ? 5 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (inputs) {
    auto get = [&](int i, llvm::StringRef what, SmallVector<int64_t> &out) -> LogicalResult {
      auto c = getOptionalConstantInts(nc, i, what);
      if (failed(c))
        return failure();
      if (*c)
        out = **c;
      return success();
    };
    if (failed(get(1, "starts", starts)) || failed(get(2, "ends", ends)) ||
        failed(get(3, "axes", axes)) || failed(get(4, "steps", steps)))
      return failure();
  } else {
    auto s0 = getInts(nc, "starts"), e0 = getInts(nc, "ends"), a0 = getInts(nc, "axes");
    if (failed(s0) || failed(e0) || failed(a0))
      return failure();
    if (!*s0 || !*e0)
      return nodeError(nc) << "attributes 'starts' and 'ends' are required";
    starts = **s0;
    ends = **e0;
    if (*a0)
      axes = **a0;
  }
  if (axes.empty())
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return nodeError(nc) << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> st(r, 0), sp(r, 1), shape(t.getShape());
  SmallVector<bool> seen(r, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalizeAxis(nc, axes[i], r, /*allowRank=*/false);
    if (failed(a))
      return failure();
    if (seen[*a])
      return nodeError(nc) << "axis " << *a << " repeats";
    seen[*a] = true;
    int64_t n = t.getDimSize(*a), step = steps[i];
    if (step == 0)
      return nodeError(nc) << "step 0";
    int64_t s0 = starts[i] < 0 ? starts[i] + n : starts[i];
    int64_t e0 = ends[i] < 0 ? ends[i] + n : ends[i];
    if (step > 0) {
      s0 = std::clamp<int64_t>(s0, 0, n);
      e0 = std::clamp<int64_t>(e0, 0, n);
    } else if (n == 0) {
      s0 = e0 = 0; // an empty axis: nothing to take (clamp(.., 0, -1) is undefined)
    } else {
      s0 = std::clamp<int64_t>(s0, 0, n - 1);
      e0 = std::clamp<int64_t>(e0, -1, n - 1);
    }
    // ceil((e0 - s0) / step), without overflow for any step (s0, e0 in [-1, n]).
    int64_t count = 0;
    if (step > 0 && e0 > s0)
      count = 1 + (e0 - s0 - 1) / step;
    else if (step < 0 && s0 > e0)
      count = step == INT64_MIN ? 1 : 1 + (s0 - e0 - 1) / (-step);
    st[*a] = count ? s0 : 0;
    sp[*a] = step;
    shape[*a] = count;
  }
  auto outT = RankedTensorType::get(shape, t.getElementType());
  // A slice whose bounds follow a symbolic dim's size (wpe[:seq]) stays a slice where it
  // takes everything (at the bound): the graph must be one graph at every value
  // (docs/symbolic-shapes.md).
  bool symbolic = inputs && llvm::any_of(llvm::seq(1, std::min(nc.node.input_size(), 5)),
                                         [&](int i) { return !inputTaint(nc.node, i).empty(); });
  if (outT == t && llvm::all_of(sp, [](int64_t x) { return x == 1; }) && !symbolic)
    return define(nc, 0, *in);
  return define(nc, 0, graph::SliceOp::create(b, nc.loc, outT, *in, b.getDenseI64ArrayAttr(st),
                                              b.getDenseI64ArrayAttr(sp)));
}

/// Pad: pads (and value) are attributes before opset 11, constant inputs from then on.
LogicalResult Importer::importPad(const NodeCtx &nc) {
  bool inputs = opset >= 11;
  if (failed(checkArity(nc, 1, inputs ? 4 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto mode = getString(nc, "mode", "constant");
  if (failed(in) || failed(mode))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> pads, axes;
  double value = 0;
  if (inputs) {
    auto p = getInput(nc, 1);
    if (failed(p))
      return failure();
    auto pv = getConstantInts(nc, *p, "pads");
    if (failed(pv))
      return failure();
    pads = *pv;
    auto c = getOptionalConstantScalar(nc, 2, "constant_value");
    if (failed(c))
      return failure();
    value = c->value_or(0.0);
    auto a = getOptionalConstantInts(nc, 3, "axes");
    if (failed(a))
      return failure();
    if (*a)
      axes = **a;
  } else {
    auto p = getInts(nc, opset < 2 ? "paddings" : "pads");
    auto v = getFloat(nc, "value", 0.0f);
    if (failed(p) || failed(v))
      return failure();
    if (!*p)
      return nodeError(nc) << "attribute 'pads' is required";
    pads = **p;
    value = *v;
  }
  if (axes.empty())
    for (int64_t i = 0; i < r; ++i)
      axes.push_back(i);
  if ((int64_t)pads.size() != 2 * (int64_t)axes.size())
    return nodeError(nc) << "pads has " << pads.size() << " entries, expected "
                         << 2 * axes.size();
  SmallVector<int64_t> low(r, 0), high(r, 0), shape(t.getShape());
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalizeAxis(nc, axes[i], r, /*allowRank=*/false);
    if (failed(a))
      return failure();
    low[*a] = pads[i];
    high[*a] = pads[i + axes.size()];
    if (low[*a] < 0 || high[*a] < 0)
      return nodeError(nc) << "negative pads (cropping) are not supported";
    CheckedInt size = CheckedInt(shape[*a]) + low[*a] + high[*a];
    if (!size.valid())
      return nodeError(nc) << "padded size of dim " << *a << " overflows int64";
    shape[*a] = size.value();
  }
  // wrap (opset 19): the pads repeat the input periodically (numpy.pad mode 'wrap').
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge" &&
      !(*mode == "wrap" && opset >= 19))
    return nodeError(nc) << "mode '" << *mode << "' is not supported"
                         << (*mode == "wrap" ? " before opset 19" : "");
  for (int64_t d = 0; d < r; ++d)
    if (*mode != "constant" && t.getDimSize(d) == 0 && (low[d] || high[d]))
      return nodeError(nc) << "mode '" << *mode << "' cannot pad the empty dim " << d;
  return define(nc, 0, graph::PadOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                            *in, b.getDenseI64ArrayAttr(low),
                                            b.getDenseI64ArrayAttr(high), b.getStringAttr(*mode),
                                            b.getF64FloatAttr(value)));
}

LogicalResult Importer::importTile(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto in = getInput(nc, 0), rep = getInput(nc, 1);
  if (failed(in) || failed(rep))
    return failure();
  auto reps = getConstantInts(nc, *rep, "repeats");
  if (failed(reps))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  if ((int64_t)reps->size() != t.getRank())
    return nodeError(nc) << "repeats needs one entry per dim";
  SmallVector<int64_t> shape;
  for (auto [d, k] : llvm::enumerate(*reps)) {
    if (k < 0)
      return nodeError(nc) << "negative repeat";
    CheckedInt size = CheckedInt(t.getDimSize(d)) * k;
    if (!size.valid())
      return nodeError(nc) << "dim " << d << " of size " << t.getDimSize(d) << " repeated " << k
                           << " times overflows int64";
    shape.push_back(size.value());
  }
  return define(nc, 0, graph::TileOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                             *in));
}

/// Split: sizes from the attribute (< 13), a constant input (>= 13), num_outputs (>= 18),
/// or equal parts; each output is a slice.
LogicalResult Importer::importSplit(const NodeCtx &nc) {
  auto in = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(in) || failed(axisAttr))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto axis = normalizeAxis(nc, *axisAttr, t.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  int64_t n = t.getDimSize(*axis), outs = nc.node.output_size();
  SmallVector<int64_t> sizes;
  if (opset >= 13 && nc.node.input_size() > 1 && !nc.node.input(1).empty()) {
    auto v = getInput(nc, 1);
    if (failed(v))
      return failure();
    auto c = getConstantInts(nc, *v, "split");
    if (failed(c))
      return failure();
    sizes = *c;
  } else if (opset < 13) {
    auto a = getInts(nc, "split");
    if (failed(a))
      return failure();
    if (*a)
      sizes = **a;
  }
  if (sizes.empty()) {
    auto k = getInt(nc, "num_outputs", outs);
    if (failed(k) || *k <= 0 || *k != outs)
      return nodeError(nc) << "num_outputs must be the number of outputs (" << outs << ")";
    int64_t chunk = (n + *k - 1) / *k;
    for (int64_t i = 0, left = n; i < *k; ++i, left -= chunk)
      sizes.push_back(std::min(chunk, left));
  }
  if ((int64_t)sizes.size() != outs)
    return nodeError(nc) << sizes.size() << " split sizes for " << outs << " outputs";
  int64_t start = 0;
  for (int64_t i = 0; i < outs; ++i) {
    SmallVector<int64_t> st(t.getRank(), 0), sp(t.getRank(), 1), shape(t.getShape());
    st[*axis] = start;
    shape[*axis] = sizes[i];
    if (sizes[i] < 0 || sizes[i] > n - start) // checked before the add: no overflow
      return nodeError(nc) << "split sizes exceed the axis";
    start += sizes[i];
    Value v = graph::SliceOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                     *in, b.getDenseI64ArrayAttr(st), b.getDenseI64ArrayAttr(sp));
    if (!nc.node.output(i).empty() && failed(define(nc, i, v)))
      return failure();
  }
  if (start != n)
    return nodeError(nc) << "split sizes add up to " << start << ", not " << n;
  return success();
}

/// DepthToSpace (DCR / CRD) and SpaceToDepth as reshape + transpose + reshape.
LogicalResult Importer::importDepthToSpace(const NodeCtx &nc, bool toSpace) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto bs = getInt(nc, "blocksize", 0);
  auto mode = getString(nc, "mode", "DCR");
  if (failed(in) || failed(bs) || failed(mode))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  if (t.getRank() != 4 || *bs <= 0)
    return nodeError(nc) << "needs a 4-D input and a positive blocksize";
  int64_t N = t.getDimSize(0), C = t.getDimSize(1), H = t.getDimSize(2), W = t.getDimSize(3),
          k = *bs;
  // blocksize^2 and the moved spatial sizes, checked (a wrapped blocksize^2 of 0 divides).
  CheckedInt kk = CheckedInt(k) * k, hk = CheckedInt(H) * k, wk = CheckedInt(W) * k,
             ckk = CheckedInt(C) * kk;
  if (!kk.valid() || (toSpace ? !hk.valid() || !wk.valid() : !ckk.valid()))
    return nodeError(nc) << "blocksize " << k << " is too large for the input "
                         << shapeStr(t.getShape()) << " (sizes overflow int64)";
  Type e = t.getElementType();
  Value v;
  if (toSpace) {
    if (C % kk.value())
      return nodeError(nc) << "channels not divisible by blocksize^2";
    bool crd = *mode == "CRD";
    Value r = reshape(nc.loc, *in, crd ? SmallVector<int64_t>{N, C / kk.value(), k, k, H, W}
                                       : SmallVector<int64_t>{N, k, k, C / kk.value(), H, W});
    SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                    : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
    SmallVector<int64_t> ts;
    auto rt = cast<RankedTensorType>(r.getType());
    for (int64_t p : perm)
      ts.push_back(rt.getDimSize(p));
    v = graph::TransposeOp::create(b, nc.loc, RankedTensorType::get(ts, e), r,
                                   b.getDenseI64ArrayAttr(perm));
    v = reshape(nc.loc, v, {N, C / kk.value(), hk.value(), wk.value()});
  } else {
    if (H % k || W % k)
      return nodeError(nc) << "spatial dims not divisible by blocksize";
    Value r = reshape(nc.loc, *in, {N, C, H / k, k, W / k, k});
    SmallVector<int64_t> perm{0, 3, 5, 1, 2, 4};
    SmallVector<int64_t> ts;
    auto rt = cast<RankedTensorType>(r.getType());
    for (int64_t p : perm)
      ts.push_back(rt.getDimSize(p));
    v = graph::TransposeOp::create(b, nc.loc, RankedTensorType::get(ts, e), r,
                                   b.getDenseI64ArrayAttr(perm));
    v = reshape(nc.loc, v, {N, ckk.value(), H / k, W / k});
  }
  return define(nc, 0, v);
}

LogicalResult Importer::importTrilu(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 2, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto upper = getInt(nc, "upper", 1);
  if (failed(in) || failed(upper))
    return failure();
  int64_t k = 0;
  if (nc.node.input_size() > 1 && !nc.node.input(1).empty()) {
    auto kv = getInput(nc, 1);
    if (failed(kv))
      return failure();
    auto c = getConstantScalar(nc, *kv, "k");
    if (failed(c))
      return failure();
    auto ki = toInt(nc, *c, "k");
    if (failed(ki))
      return failure();
    k = *ki;
  }
  if (cast<RankedTensorType>(in->getType()).getRank() < 2)
    return nodeError(nc) << "input must have rank >= 2";
  return define(nc, 0,
                graph::TriluOp::create(b, nc.loc, in->getType(), *in, b.getI64IntegerAttr(k),
                                       b.getBoolAttr(*upper != 0)));
}

void Importer::registerTensorOps(OpTable &t) {
  t.add("Reshape", 1, handle<&Importer::importReshape>);
  t.add("Flatten", 1, handle<&Importer::importFlatten>);
  t.add("Transpose", 1, handle<&Importer::importTranspose>);
  t.add("Shape", 1, handle<&Importer::importShapeOp>);
  t.add("Size", 1, handle<&Importer::importShapeOp>);
  t.add("Squeeze", 1,
        [](Importer &im, const NodeCtx &nc) { return im.importSqueeze(nc, /*unsqueeze=*/false); });
  t.add("Unsqueeze", 1,
        [](Importer &im, const NodeCtx &nc) { return im.importSqueeze(nc, /*unsqueeze=*/true); });
  t.add("Range", 11, handle<&Importer::importRange>);
  t.add("ConstantOfShape", 9, handle<&Importer::importConstantOfShape>);
  t.add("Expand", 8, handle<&Importer::importExpand>);
  t.add("Gather", 1, handle<&Importer::importGather>);
  t.add("Concat", 1, handle<&Importer::importConcat>);
  t.add("Slice", 1, handle<&Importer::importSlice>);
  t.add("Pad", 1, handle<&Importer::importPad>);
  t.add("Tile", 1, handle<&Importer::importTile>);
  t.add("Split", 1, handle<&Importer::importSplit>);
  t.add("DepthToSpace", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importDepthToSpace(nc, /*toSpace=*/true);
  });
  t.add("SpaceToDepth", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importDepthToSpace(nc, /*toSpace=*/false);
  });
  t.add("Trilu", 14, handle<&Importer::importTrilu>);
}
