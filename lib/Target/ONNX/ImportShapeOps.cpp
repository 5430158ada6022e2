//===- ImportShapeOps.cpp - shape ops (Reshape, Flatten, Shape, Squeeze, Range, Expand ...) ---===//
//
// Reshape, Flatten, Transpose, Shape / Size, Squeeze / Unsqueeze, Range, ConstantOfShape,
// Expand; registered with the tensor family (ImportTensorOps.cpp).
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

LogicalResult Importer::importReshape(const NodeCtx &nc) {
  SmallVector<int64_t> target;
  bool allowZero = false;
  Value data;
  if (opset >= 5) {
    if (failed(checkArity(nc, 2, 2, 1)))
      return failure();
    auto in = getInput(nc, 0), shapeIn = getInput(nc, 1);
    if (failed(in) || failed(shapeIn))
      return failure();
    auto shape = getConstantInts(nc, *shapeIn, inputWhat(nc, 1, "shape"));
    if (failed(shape))
      return failure();
    auto az = getInt(nc, "allowzero", 0);
    if (failed(az))
      return failure();
    data = *in;
    target = std::move(*shape);
    allowZero = *az != 0;
  } else {
    if (failed(checkArity(nc, 1, 1, 1)))
      return failure();
    auto in = getInput(nc, 0);
    auto shape = getInts(nc, "shape");
    if (failed(in) || failed(shape))
      return failure();
    if (!*shape)
      return nodeError(nc) << "attribute 'shape' is required before opset 5";
    data = *in;
    target = std::move(**shape);
  }
  auto t = cast<RankedTensorType>(data.getType());
  // 0 copies the input dim (unless allowzero), -1 is inferred (at most one).
  int inferIdx = -1;
  bool hasZero = false;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == -1) {
      if (inferIdx >= 0)
        return nodeError(nc) << "shape " << shapeStr(target) << " has more than one -1";
      inferIdx = i;
    } else if (d == 0 && !allowZero) {
      if ((int64_t)i >= t.getRank())
        return nodeError(nc) << "shape " << shapeStr(target) << " copies dim #" << i
                             << " (0) of an input of rank " << t.getRank();
      d = t.getDimSize(i);
    } else if (d < 0) {
      return nodeError(nc) << "shape " << shapeStr(target) << " has invalid entry " << d;
    }
    hasZero |= d == 0;
  }
  if (allowZero && hasZero && inferIdx >= 0)
    return nodeError(nc) << "shape " << shapeStr(target) << " has both 0 and -1 with allowzero = 1";
  int64_t total = t.getNumElements();
  if (inferIdx >= 0) {
    SmallVector<int64_t> known(target);
    known[inferIdx] = 1;
    auto p = product(known);
    if (!p || *p == 0 || total % *p != 0)
      return nodeError(nc) << "cannot infer the -1 in shape " << shapeStr(target)
                           << " for an input of shape " << shapeStr(t.getShape());
    target[inferIdx] = total / *p;
  }
  auto p = product(target);
  if (!p || *p != total)
    return nodeError(nc) << "cannot reshape an input of shape " << shapeStr(t.getShape()) << " ("
                         << total << " elements) to " << shapeStr(target);
  return define(nc, 0, reshape(nc.loc, data, target));
}

LogicalResult Importer::importFlatten(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", 1);
  if (failed(in) || failed(axisAttr))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto axis = normalizeAxis(nc, *axisAttr, t.getRank(), /*allowRank=*/true);
  if (failed(axis))
    return failure();
  auto outer = product(t.getShape().take_front(*axis));
  auto inner = product(t.getShape().drop_front(*axis));
  if (!outer || !inner)
    return nodeError(nc) << "input is too large";
  return define(nc, 0, reshape(nc.loc, *in, {*outer, *inner}));
}

LogicalResult Importer::importTranspose(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto permAttr = getInts(nc, "perm");
  if (failed(in) || failed(permAttr))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  int64_t rank = t.getRank();
  SmallVector<int64_t> perm;
  if (*permAttr) {
    perm = std::move(**permAttr);
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  SmallVector<bool> seen(rank, false);
  if ((int64_t)perm.size() != rank)
    return nodeError(nc) << "perm " << shapeStr(perm) << " has " << perm.size()
                         << " entries, the input has rank " << rank;
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return nodeError(nc) << "perm " << shapeStr(perm) << " is not a permutation of [0, " << rank
                           << ")";
    seen[p] = true;
    shape.push_back(t.getDimSize(p));
  }
  Value v = graph::TransposeOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                       *in, b.getDenseI64ArrayAttr(perm));
  return define(nc, 0, v);
}

/// Shape and Size of statically shaped tensors are constants.
LogicalResult Importer::importShapeOp(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto i64 = b.getI64Type();
  if (nc.opType() == "Size")
    return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get({}, i64),
                                       {t.getNumElements()}));
  int64_t rank = t.getRank();
  auto start = getInt(nc, "start", 0), end = getInt(nc, "end", rank);
  if (failed(start) || failed(end))
    return failure();
  int64_t s0 = std::clamp<int64_t>(*start < 0 ? *start + rank : *start, 0, rank);
  int64_t e0 = std::clamp<int64_t>(*end < 0 ? *end + rank : *end, 0, rank);
  SmallVector<int64_t> dims;
  for (int64_t i = s0; i < e0; ++i)
    dims.push_back(t.getDimSize(i));
  return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get({(int64_t)dims.size()}, i64),
                                     dims));
}

/// Squeeze / Unsqueeze: reshapes; axes from the attribute (opset < 13) or a constant input.
LogicalResult Importer::importSqueeze(const NodeCtx &nc, bool unsqueeze) {
  bool axesInput = opset >= 13;
  if (failed(checkArity(nc, 1, axesInput ? 2 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> axes;
  bool haveAxes = false;
  if (axesInput) {
    auto a = getOptionalConstantInts(nc, 1, inputWhat(nc, 1, "axes"));
    if (failed(a))
      return failure();
    if (*a) {
      axes = **a;
      haveAxes = true;
    }
  } else {
    auto a = getInts(nc, "axes");
    if (failed(a))
      return failure();
    if (*a) {
      axes = **a;
      haveAxes = true;
    }
  }
  auto t = cast<RankedTensorType>(in->getType());
  SmallVector<int64_t> shape;
  if (unsqueeze) {
    if (!haveAxes)
      return nodeError(nc) << "Unsqueeze needs axes";
    int64_t outRank = t.getRank() + axes.size();
    SmallVector<bool> isNew(outRank, false);
    for (int64_t a : axes) {
      auto n = normalizeAxis(nc, a, outRank, /*allowRank=*/false);
      if (failed(n))
        return failure();
      if (isNew[*n])
        return nodeError(nc) << "axes repeat dim " << *n;
      isNew[*n] = true;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < outRank; ++i)
      shape.push_back(isNew[i] ? 1 : t.getDimSize(j++));
  } else {
    SmallVector<bool> drop(t.getRank(), false);
    if (!haveAxes) {
      for (int64_t i = 0; i < t.getRank(); ++i)
        drop[i] = t.getDimSize(i) == 1;
    } else {
      for (int64_t a : axes) {
        auto n = normalizeAxis(nc, a, t.getRank(), /*allowRank=*/false);
        if (failed(n))
          return failure();
        if (t.getDimSize(*n) != 1)
          return nodeError(nc) << "cannot squeeze dim " << *n << " of size " << t.getDimSize(*n);
        drop[*n] = true;
      }
    }
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (!drop[i])
        shape.push_back(t.getDimSize(i));
  }
  return define(nc, 0, reshape(nc.loc, *in, shape));
}

/// Range with constant start / limit / delta folds to a constant.
LogicalResult Importer::importRange(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  SmallVector<double> v;
  Type elem;
  for (int i = 0; i < 3; ++i) {
    auto in = getInput(nc, i);
    if (failed(in))
      return failure();
    elem = cast<RankedTensorType>(in->getType()).getElementType();
    auto s = getConstantScalar(nc, *in, "Range input");
    if (failed(s))
      return failure();
    v.push_back(*s);
  }
  if (v[2] == 0)
    return nodeError(nc) << "delta is 0";
  // n = max(ceil((limit - start) / delta), 0) (ONNX Range), exactly for integers.
  constexpr int64_t kMaxRange = int64_t(1) << 24;
  int64_t n = 0;
  SmallVector<int64_t> ints;
  if (!isa<FloatType>(elem)) {
    for (int i = 0; i < 3; ++i) {
      auto c = getConstantInts(nc, *getInput(nc, i), "Range input");
      if (failed(c) || c->size() != 1)
        return nodeError(nc) << "Range inputs must be scalars";
      ints.push_back((*c)[0]);
    }
    CheckedInt diff = CheckedInt(ints[1]) - ints[0];
    CheckedInt q = diff / ints[2];
    if (q.valid() && (diff % ints[2]).value() != 0 && ((diff.value() < 0) == (ints[2] < 0)))
      q += 1;
    if (!q.valid())
      return nodeError(nc) << "the number of elements of range(" << ints[0] << ", " << ints[1]
                           << ", " << ints[2] << ") overflows int64";
    n = std::max<int64_t>(0, q.value());
  } else {
    double q = std::ceil((v[1] - v[0]) / v[2]);
    if (!std::isfinite(q))
      return nodeError(nc) << "the number of elements of range(" << v[0] << ", " << v[1] << ", "
                           << v[2] << ") is not finite";
    n = q <= 0 ? 0 : q > (double)kMaxRange ? kMaxRange + 1 : (int64_t)q;
  }
  if (n > kMaxRange)
    return nodeError(nc) << "range of more than " << kMaxRange
                         << " elements is too large to fold";
  if (failed(checkShape(nc, {n}, elem, "output of shape")))
    return failure();
  auto type = RankedTensorType::get({n}, elem);
  if (isa<FloatType>(elem)) {
    SmallVector<APFloat> vals;
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(v[0] + i * v[2]);
      bool lost;
      f.convert(cast<FloatType>(elem).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(f);
    }
    return define(nc, 0, createConstant(nc.loc, DenseElementsAttr::get(type, vals)));
  }
  // start + i * delta stays between start and limit: no overflow.
  SmallVector<int64_t> vals;
  for (int64_t i = 0; i < n; ++i)
    vals.push_back(ints[0] + i * ints[2]);
  return define(nc, 0, intConstantOf(nc.loc, type, vals));
}

LogicalResult Importer::importConstantOfShape(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto shape = getConstantInts(nc, *in, "shape input");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return nodeError(nc) << "negative dim in shape";
  Attribute fill;
  Type elem = b.getF32Type();
  if (auto it = nc.attrs.find("value"); it != nc.attrs.end()) {
    if (attrType(*it->second) != onnx::AttributeProto::TENSOR)
      return attrTypeError(nc, *it->second, onnx::AttributeProto::TENSOR);
    auto t = convertTensor(it->second->t(), "value", nc.loc);
    if (failed(t))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(*t);
    if (!dense || dense.getNumElements() != 1)
      return nodeError(nc) << "attribute 'value' must be a one-element tensor";
    elem = dense.getElementType();
    fill = *dense.value_begin<Attribute>();
  } else {
    fill = b.getF32FloatAttr(0.0f);
  }
  if (failed(checkShape(nc, *shape, elem, "output of shape")))
    return failure();
  auto type = RankedTensorType::get(*shape, elem);
  // Small fills are constants (shape arithmetic folds through them); a bigger
  // one is the fill value expanded by a runtime kernel, so that the bundle does
  // not carry its bytes.
  if (type.getNumElements() <= kMaxFoldElements)
    return define(nc, 0, createConstant(nc.loc, DenseElementsAttr::get(type, fill)));
  Value scalar = createConstant(nc.loc, DenseElementsAttr::get(RankedTensorType::get({}, elem),
                                                               fill));
  return define(nc, 0, graph::ExpandOp::create(b, nc.loc, type, scalar));
}

LogicalResult Importer::importExpand(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto in = getInput(nc, 0), shapeIn = getInput(nc, 1);
  if (failed(in) || failed(shapeIn))
    return failure();
  auto shape = getConstantInts(nc, *shapeIn, inputWhat(nc, 1, "shape"));
  if (failed(shape))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto out = graph::broadcastShapes(t.getShape(), *shape);
  if (failed(out))
    return nodeError(nc) << "cannot expand " << shapeStr(t.getShape()) << " to "
                         << shapeStr(*shape);
  auto outT = RankedTensorType::get(*out, t.getElementType());
  if (outT == t)
    return define(nc, 0, *in);
  return define(nc, 0, graph::ExpandOp::create(b, nc.loc, outT, *in));
}
