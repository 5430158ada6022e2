//===- GraphOps.cpp - aicc graph dialect ops -------------------------------===//
//
// Shape helpers, verifiers and folders of the graph ops; the data-movement ops (reshape,
// slice, pad, concat, tile, gather, expand, transpose) are in GraphDataMovementOps.cpp.
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace aicc::graph;

FailureOr<SmallVector<int64_t>>
aicc::graph::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else
      return failure();
  }
  return out;
}

FailureOr<SmallVector<int64_t>> aicc::graph::reducedShape(ArrayRef<int64_t> shape,
                                                          ArrayRef<int64_t> axes,
                                                          bool keepdims) {
  SmallVector<bool> reduced(shape.size(), axes.empty());
  int64_t prev = -1;
  for (int64_t a : axes) {
    if (a < 0 || a >= (int64_t)shape.size() || a <= prev)
      return failure();
    reduced[a] = true;
    prev = a;
  }
  SmallVector<int64_t> out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduced[i])
      out.push_back(shape[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

static RankedTensorType getRanked(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//
LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange, DictionaryAttr attrs,
    OpaqueProperties properties, RegionRange, SmallVectorImpl<Type> &results) {
  Adaptor adaptor(ValueRange{}, attrs, properties);
  auto value = adaptor.getValueAttr();
  if (!value)
    return emitOptionalError(loc, "missing 'value'");
  results.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (!isa<RankedTensorType>(getValue().getType()) ||
      !cast<RankedTensorType>(getValue().getType()).hasStaticShape())
    return emitOpError("value must have a static ranked tensor type");
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//
static FailureOr<SmallVector<int64_t>> matmulShape(ArrayRef<int64_t> a,
                                                   ArrayRef<int64_t> b,
                                                   std::string &why) {
  if (a.empty() || b.empty()) {
    why = "operands must have rank >= 1";
    return failure();
  }
  SmallVector<int64_t> sa(a), sb(b);
  bool squeezeM = false, squeezeN = false;
  if (sa.size() == 1) {
    sa.insert(sa.begin(), 1);
    squeezeM = true;
  }
  if (sb.size() == 1) {
    sb.push_back(1);
    squeezeN = true;
  }
  int64_t k1 = sa.back(), k2 = sb[sb.size() - 2];
  if (k1 != k2 && !ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2)) {
    why = "contraction dims differ (" + std::to_string(k1) + " vs " +
          std::to_string(k2) + ")";
    return failure();
  }
  auto batch = broadcastShapes(ArrayRef<int64_t>(sa).drop_back(2),
                               ArrayRef<int64_t>(sb).drop_back(2));
  if (failed(batch)) {
    why = "batch dims do not broadcast";
    return failure();
  }
  SmallVector<int64_t> out(*batch);
  if (!squeezeM)
    out.push_back(sa[sa.size() - 2]);
  if (!squeezeN)
    out.push_back(sb.back());
  return out;
}

LogicalResult MatMulOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &results) {
  auto a = getRanked(operands[0]), b = getRanked(operands[1]);
  if (!a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  std::string why;
  auto shape = matmulShape(a.getShape(), b.getShape(), why);
  if (failed(shape))
    return emitOptionalError(loc, "graph.matmul: ", why);
  results.push_back(RankedTensorType::get(*shape, a.getElementType()));
  return success();
}

LogicalResult MatMulOp::verify() {
  if (getLhs().getType().getElementType() != getRhs().getType().getElementType())
    return emitOpError("operand element types differ");
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//
LogicalResult GemmOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &results) {
  Adaptor adaptor(operands, attrs, properties, regions);
  auto a = getRanked(adaptor.getA()), b = getRanked(adaptor.getB());
  if (!a || !b || a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "graph.gemm: A and B must be rank-2 tensors");
  int64_t m = adaptor.getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t n = adaptor.getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  results.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult GemmOp::verify() {
  auto a = getA().getType(), b = getB().getType();
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("A and B must be rank-2 tensors, got ranks ")
           << a.getRank() << " and " << b.getRank();
  int64_t ka = getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t kb = getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  if (ka != kb)
    return emitOpError("contraction dims differ: A gives K = ")
           << ka << ", B gives K = " << kb;
  if (a.getElementType() != b.getElementType())
    return emitOpError("A and B element types differ");
  if (getC()) {
    auto c = cast<RankedTensorType>(getC().getType());
    auto bc = broadcastShapes(getType().getShape(), c.getShape());
    if (c.getRank() > 2 || failed(bc) || *bc != SmallVector<int64_t>(getType().getShape()))
      return emitOpError("C of shape [")
             << c.getShape() << "] is not unidirectionally broadcastable to ["
             << getType().getShape() << "]";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PowOp canonicalization: x^1 -> x, x^2 -> x*x, x^0.5 -> sqrt(x) for a constant splat
// exponent that does not widen the result (exported LayerNorm / GELU use x^2 and x^3).
//===----------------------------------------------------------------------===//
namespace {
struct SimplifyConstantPow : public OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op, PatternRewriter &rewriter) const override {
    DenseFPElementsAttr e;
    if (!matchPattern(op.getRhs(), m_Constant(&e)) || !e.isSplat())
      return failure();
    auto x = op.getLhs();
    if (x.getType() != op.getType())
      return failure(); // the exponent broadcasts the result: keep the op
    double v = e.getSplatValue<APFloat>().convertToDouble();
    Type t = op.getType();
    if (v == 1.0) {
      rewriter.replaceOp(op, x);
    } else if (v == 2.0) {
      rewriter.replaceOpWithNewOp<MulOp>(op, t, x, x);
    } else if (v == 3.0) {
      Value sq = MulOp::create(rewriter, op.getLoc(), t, x, x);
      rewriter.replaceOpWithNewOp<MulOp>(op, t, sq, x);
    } else if (v == 0.5) {
      rewriter.replaceOpWithNewOp<SqrtOp>(op, t, x);
    } else {
      return failure();
    }
    return success();
  }
};
} // namespace

void PowOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *ctx) {
  results.add<SimplifyConstantPow>(ctx);
}

//===----------------------------------------------------------------------===//
// Conv / pools
//===----------------------------------------------------------------------===//
/// Checks the window geometry of a conv / pool: `in` and `out` have the same rank, the spatial
/// dims are dims [firstSpatial, firstSpatial + k) of both (k = rank - 2), and each output size
/// fits the padded input: the last window starts inside it (ONNX Conv / MaxPool output-size
/// formula, floor mode upper bound).
static LogicalResult verifyWindow(Operation *op, RankedTensorType in, RankedTensorType out,
                                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                                  int64_t firstSpatial = 2) {
  int64_t k = in.getRank() - 2;
  if (k < 1 || out.getRank() != in.getRank())
    return op->emitOpError(firstSpatial == 2
                               ? "needs [N, C, spatial...] input and output of the same rank"
                               : "needs [N, spatial..., C] input and output of the same rank");
  if ((int64_t)kernel.size() != k || (int64_t)strides.size() != k ||
      (int64_t)dilations.size() != k || (int64_t)pads.size() != 2 * k)
    return op->emitOpError("kernel, strides, dilations need ")
           << k << " entries and pads " << 2 * k;
  for (int64_t d = 0; d < k; ++d) {
    if (strides[d] < 1 || dilations[d] < 1 || kernel[d] < 1 || pads[d] < 0 || pads[d + k] < 0)
      return op->emitOpError("strides, dilations and kernel must be positive, pads >= 0");
    int64_t span = (kernel[d] - 1) * dilations[d] + 1;
    int64_t i = in.getDimSize(d + firstSpatial);
    int64_t o = out.getDimSize(d + firstSpatial);
    // The last window must start inside the (begin-)padded input.
    if (o < 1 || (o - 1) * strides[d] > i + pads[d] + pads[d + k] - 1 ||
        i + pads[d] + pads[d + k] < span)
      return op->emitOpError("output size ") << o << " of spatial dim " << d
                                             << " does not fit the padded input";
  }
  return success();
}

LogicalResult ConvOp::verify() {
  auto in = getInput().getType(), w = getWeight().getType(), out = getType();
  StringRef layout = getLayout();
  if (layout != "NCHW" && layout != "NHWC")
    return emitOpError("layout must be \"NCHW\" (channels first) or \"NHWC\" (channels "
                       "last), got \"")
           << layout << "\"";
  bool last = layout == "NHWC";
  // ONNX Conv: X, W, B and Y share the element type T.
  Type e = in.getElementType();
  if (w.getElementType() != e || out.getElementType() != e ||
      (getBias() && cast<ShapedType>(getBias().getType()).getElementType() != e))
    return emitOpError("X, W, B and Y must share one element type, got X ")
           << e << ", W " << w.getElementType() << ", Y " << out.getElementType();
  int64_t rank = in.getRank();
  if (rank < 3 || w.getRank() != rank || out.getRank() != rank)
    return emitOpError("shapes do not match: X, W and Y need one rank >= 3 (")
           << (last ? "X [N, D1..Dk, C], W [M, K1..Kk, C/group], Y [N, O1..Ok, M]"
                    : "X [N, C, D1..Dk], W [M, C/group, K1..Kk], Y [N, M, O1..Ok]")
           << "), got X " << in << ", W " << w << ", Y " << out;
  // Channel dims: X's C, W's C/group, Y's M (W's M is dim 0 in both layouts).
  int64_t cDim = last ? rank - 1 : 1;
  int64_t c = in.getDimSize(cDim), cw = w.getDimSize(cDim), m = w.getDimSize(0);
  int64_t g = getGroup();
  if (g < 1 || c % g || m % g)
    return emitOpError("shapes do not match: group ")
           << g << " must be >= 1 and divide C = " << c << " (X dim " << cDim
           << ") and M = " << m << " (W dim 0); layout " << layout;
  if (cw * g != c)
    return emitOpError("shapes do not match: W ")
           << w << " has " << cw << " input channels per group (dim " << cDim << ", layout "
           << layout << "), X " << in << " has C / group = " << c << " / " << g;
  if (out.getDimSize(cDim) != m)
    return emitOpError("shapes do not match: Y ")
           << out << " has " << out.getDimSize(cDim) << " channels (dim " << cDim
           << ", layout " << layout << "), W " << w << " has M = " << m;
  if (out.getDimSize(0) != in.getDimSize(0))
    return emitOpError("shapes do not match: batch N of Y ")
           << out << " differs from X " << in;
  if (getBias() && cast<RankedTensorType>(getBias().getType()).getShape() !=
                       ArrayRef<int64_t>{m})
    return emitOpError("bias must have shape [M] = [") << m << "]";
  int64_t first = last ? 1 : 2;
  return verifyWindow(*this, in, out, w.getShape().slice(first, rank - 2), getStrides(),
                      getPads(), getDilations(), first);
}

/// MaxPool / AveragePool: layout "NCHW" or "NHWC"; batch and channels kept; the window
/// rules of verifyWindow on the spatial dims the layout names.
template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  StringRef layout = op.getLayout();
  if (layout != "NCHW" && layout != "NHWC")
    return op.emitOpError("layout must be \"NCHW\" (channels first) or \"NHWC\" (channels "
                          "last), got \"")
           << layout << "\"";
  RankedTensorType in = op.getInput().getType(), out = op.getType();
  if (failed(verifyWindow(op, in, out, op.getKernelShape(), op.getStrides(), op.getPads(),
                          op.getDilations(), op.getFirstSpatialDim())))
    return failure();
  int64_t c = op.getChannelDim();
  if (out.getDimSize(0) != in.getDimSize(0) || out.getDimSize(c) != in.getDimSize(c))
    return op.emitOpError("shapes do not match: batch (dim 0) and channels (dim ")
           << c << ", layout " << layout << ") of the result " << out << " must be the input's "
           << in;
  return success();
}

LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }
LogicalResult AvgPoolOp::verify() { return verifyPool(*this); }

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//
/// Result type of a broadcasting binary op: the broadcast shape, with i1 elements for
/// comparisons (`boolResult`) and the operands' element type otherwise.
static LogicalResult inferBroadcast(MLIRContext *ctx, std::optional<Location> loc,
                                    ValueRange operands, bool boolResult,
                                    SmallVectorImpl<Type> &results) {
  auto a = getRanked(operands[0]), b = getRanked(operands[1]);
  if (!a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  auto shape = broadcastShapes(a.getShape(), b.getShape());
  if (failed(shape))
    return emitOptionalError(loc, "shapes do not broadcast");
  Type elem = boolResult ? IntegerType::get(ctx, 1) : a.getElementType();
  results.push_back(RankedTensorType::get(*shape, elem));
  return success();
}

static LogicalResult verifyBroadcast(Operation *op, bool boolResult) {
  auto a = getRanked(op->getOperand(0)), b = getRanked(op->getOperand(1));
  if (a.getElementType() != b.getElementType())
    return op->emitOpError("operand element types differ: ")
           << a.getElementType() << " vs " << b.getElementType();
  auto shape = broadcastShapes(a.getShape(), b.getShape());
  if (failed(shape))
    return op->emitOpError("operand shapes [")
           << a.getShape() << "] and [" << b.getShape() << "] do not broadcast";
  auto r = getRanked(op->getResult(0));
  if (boolResult) {
    if (r.getShape() != ArrayRef<int64_t>(*shape))
      return op->emitOpError("result shape is not the broadcast shape");
    return success();
  }
  if (r.getShape() != ArrayRef<int64_t>(*shape) || r.getElementType() != a.getElementType())
    return op->emitOpError("result type ") << r << " is not the broadcast type";
  return success();
}

#define AICC_BINARY_IMPL(OP)                                                   \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &results) {                                        \
    return inferBroadcast(ctx, loc, operands, /*boolResult=*/false, results);  \
  }                                                                            \
  LogicalResult OP::verify() { return verifyBroadcast(getOperation(), false); }
AICC_BINARY_IMPL(AddOp)
AICC_BINARY_IMPL(SubOp)
AICC_BINARY_IMPL(MulOp)
AICC_BINARY_IMPL(DivOp)
AICC_BINARY_IMPL(PowOp)
AICC_BINARY_IMPL(MinOp)
AICC_BINARY_IMPL(MaxOp)
AICC_BINARY_IMPL(ModOp)
AICC_BINARY_IMPL(PReluOp)
AICC_BINARY_IMPL(AndOp)
AICC_BINARY_IMPL(OrOp)
AICC_BINARY_IMPL(XorOp)
#undef AICC_BINARY_IMPL

#define AICC_COMPARE_IMPL(OP)                                                  \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &results) {                                        \
    return inferBroadcast(ctx, loc, operands, /*boolResult=*/true, results);   \
  }                                                                            \
  LogicalResult OP::verify() { return verifyBroadcast(getOperation(), true); }
AICC_COMPARE_IMPL(EqualOp)
AICC_COMPARE_IMPL(LessOp)
AICC_COMPARE_IMPL(LessEqualOp)
AICC_COMPARE_IMPL(GreaterOp)
AICC_COMPARE_IMPL(GreaterEqualOp)
#undef AICC_COMPARE_IMPL

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        ValueRange operands, DictionaryAttr, OpaqueProperties,
                                        RegionRange, SmallVectorImpl<Type> &results) {
  auto c = getRanked(operands[0]), a = getRanked(operands[1]), b = getRanked(operands[2]);
  if (!c || !a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  auto ab = broadcastShapes(a.getShape(), b.getShape());
  if (failed(ab))
    return emitOptionalError(loc, "shapes do not broadcast");
  auto all = broadcastShapes(c.getShape(), *ab);
  if (failed(all))
    return emitOptionalError(loc, "shapes do not broadcast");
  results.push_back(RankedTensorType::get(*all, a.getElementType()));
  return success();
}

LogicalResult WhereOp::verify() {
  if (getLhs().getType().getElementType() != getRhs().getType().getElementType())
    return emitOpError("x and y element types differ");
  SmallVector<Type> types;
  if (failed(inferReturnTypes(getContext(), getLoc(), getOperands(), nullptr, nullptr, {},
                              types)))
    return emitOpError("cond, x and y shapes do not broadcast");
  if (types[0] != getType())
    return emitOpError("result type must be ") << types[0];
  return success();
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getType().getShape())
    return emitOpError("cast keeps the shape: ")
           << getInput().getType() << " vs " << getType();
  auto ok = [](Type t) { return isa<FloatType>(t) || isa<IntegerType>(t); };
  if (!ok(getInput().getType().getElementType()) || !ok(getType().getElementType()))
    return emitOpError("casts between float, integer and bool tensors only");
  return success();
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto t = getInput().getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= t.getRank())
    return emitOpError("axis ") << axis << " out of range [0, " << t.getRank() << ")";
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    auto vt = cast<RankedTensorType>(v.getType());
    auto b = broadcastShapes(t.getShape(), vt.getShape());
    if (failed(b) || ArrayRef<int64_t>(*b) != t.getShape() ||
        vt.getRank() > t.getRank() - axis || vt.getElementType() != t.getElementType())
      return emitOpError("scale / bias of type ")
             << vt << " must broadcast over the normalized dims of " << t;
  }
  if (getType() != t)
    return emitOpError("result type must equal the input type");
  return success();
}

LogicalResult LogSoftmaxOp::verify() {
  int64_t rank = getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " out of range [0, " << rank << ")";
  return success();
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " out of range [0, " << rank << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//
LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType(), kt = getKeyT().getType(), v = getValue().getType();
  auto y = getType();
  Type e = q.getElementType();
  if (kt.getElementType() != e || v.getElementType() != e || y.getElementType() != e ||
      (getBias() && cast<RankedTensorType>(getBias().getType()).getElementType() != e))
    return emitOpError("query, key_t, value, bias and result must have one element type");
  if (q.getRank() < 2 || kt.getRank() < 2 || v.getRank() < 2)
    return emitOpError("query, key_t and value must have rank >= 2");
  // Static shapes only (the recomposition forms the op after shape inference; symbolic
  // lengths are issue 19's): the checks below compare dims.
  if (!q.hasStaticShape() || !kt.hasStaticShape() || !v.hasStaticShape() || !y.hasStaticShape() ||
      (getBias() && !cast<RankedTensorType>(getBias().getType()).hasStaticShape()))
    return emitOpError("query, key_t, value, bias and result must have static shapes");
  int64_t sq = q.getShape().end()[-2], d = q.getShape().back();
  int64_t skv = kt.getShape().back(), dv = v.getShape().back();
  if (kt.getShape().end()[-2] != d)
    return emitOpError("key_t is [..., D, Skv] with D = ")
           << kt.getShape().end()[-2] << ", query's head size is " << d;
  if (v.getShape().end()[-2] != skv)
    return emitOpError("value has ")
           << v.getShape().end()[-2] << " rows, key_t has " << skv << " keys";
  auto batch = broadcastShapes(q.getShape().drop_back(2), kt.getShape().drop_back(2));
  if (succeeded(batch))
    batch = broadcastShapes(*batch, v.getShape().drop_back(2));
  if (failed(batch))
    return emitOpError("batch dims of query, key_t and value do not broadcast");
  SmallVector<int64_t> want(*batch);
  want.append({sq, dv});
  if (y.getShape() != ArrayRef<int64_t>(want))
    return emitOpError("result must be [") << want << "], got " << y;
  if (getBias()) {
    SmallVector<int64_t> scores(*batch);
    scores.append({sq, skv});
    auto bt = cast<RankedTensorType>(getBias().getType());
    auto bc = broadcastShapes(scores, bt.getShape());
    if (failed(bc) || ArrayRef<int64_t>(*bc) != ArrayRef<int64_t>(scores))
      return emitOpError("bias of shape [")
             << bt.getShape() << "] does not broadcast to the scores [" << scores << "]";
  }
  if (Value kb = getKeyBound()) {
    auto kt = cast<RankedTensorType>(kb.getType());
    ArrayRef<int64_t> ks = kt.getShape();
    if (!kt.hasStaticShape() || ks.size() < 2 || ks.back() != 1 ||
        (ks.end()[-2] != sq && ks.end()[-2] != 1) ||
        llvm::any_of(ks.drop_back(2), [](int64_t d) { return d != 1; }))
      return emitOpError("key_bound must be [1, .., 1, Sq or 1, 1] with Sq = ")
             << sq << ", got [" << ks << "]";
  } else if (getKeyBoundMask()) {
    return emitOpError("key_bound_mask needs a key_bound");
  }
  if (auto c = getKeyBoundMask(); c && !(c->convertToDouble() < 0))
    return emitOpError("key_bound_mask must be negative, got ") << c->convertToDouble();
  if (getCausal() && sq > skv)
    return emitOpError("causal attention needs Sq <= Skv, got Sq = ") << sq << ", Skv = " << skv;
  if (!std::isfinite(getScale().convertToDouble()))
    return emitOpError("scale must be finite");
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//
static LogicalResult verifyReduce(Operation *op, ArrayRef<int64_t> axes, bool keepdims) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  auto shape = reducedShape(in.getShape(), axes, keepdims);
  if (failed(shape))
    return op->emitOpError("axes must be sorted, unique and in [0, ") << in.getRank() << ")";
  if (out.getShape() != ArrayRef<int64_t>(*shape))
    return op->emitOpError("result type ") << out << " does not match the reduced shape";
  // The element types match, or one is f32 and the other f16 / bf16: kernels accumulate
  // 16-bit floats in f32 and graph-split-reduction keeps its partials in f32.
  Type ie = in.getElementType(), oe = out.getElementType();
  auto is16 = [](Type t) { return t.isF16() || t.isBF16(); };
  if (ie != oe && !((ie.isF32() && is16(oe)) || (is16(ie) && oe.isF32())))
    return op->emitOpError("result element type ")
           << oe << " must be the input's (" << ie
           << ") or f32 for a 16-bit float input (or 16-bit for an f32 input)";
  return success();
}
#define AICC_REDUCE_IMPL(OP)                                                   \
  LogicalResult OP::verify() {                                                 \
    return verifyReduce(getOperation(), getAxes(), getKeepdims());             \
  }
AICC_REDUCE_IMPL(ReduceSumOp)
AICC_REDUCE_IMPL(ReduceMeanOp)
AICC_REDUCE_IMPL(ReduceMaxOp)
AICC_REDUCE_IMPL(ReduceMinOp)
AICC_REDUCE_IMPL(ReduceProdOp)
#undef AICC_REDUCE_IMPL

//===----------------------------------------------------------------------===//
// FusionGroupOp
//===----------------------------------------------------------------------===//
void FusionGroupOp::build(OpBuilder &b, OperationState &state, TypeRange results,
                          ValueRange inputs, StringRef kind) {
  state.addOperands(inputs);
  state.addAttribute(getKindAttrName(state.name), b.getStringAttr(kind));
  state.addTypes(results);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : inputs)
    block->addArgument(v.getType(), v.getLoc());
}

LogicalResult FusionGroupOp::verify() {
  // The body has one block (ODS); hand-written IR may end it in another op (e.g. func.return).
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ") << body.getNumArguments()
                                    << " arguments but the group has "
                                    << getInputs().size() << " inputs";
  for (auto [arg, in] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError("body argument type ") << arg.getType()
                                                << " differs from input type " << in.getType();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end in graph.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types differ from the result types");
  StringRef k = getKind();
  if (k != "epilogue" && k != "elementwise" && k != "softmax" && k != "reduction" &&
      k != "window" && k != "attention" && k != "single")
    return emitOpError("unknown fusion kind \"") << k << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//
static LogicalResult verifyScatterCommon(Operation *op, RankedTensorType data,
                                         RankedTensorType indices, RankedTensorType updates,
                                         RankedTensorType out, StringRef reduction) {
  if (out != data)
    return op->emitOpError("result type must be the data type ") << data;
  if (updates.getElementType() != data.getElementType())
    return op->emitOpError("updates must have the data's element type");
  auto it = dyn_cast<IntegerType>(indices.getElementType());
  if (!it || it.getWidth() < 8)
    return op->emitOpError("indices must be an integer tensor");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return op->emitOpError("reduction must be none, add, mul, max or min, got \"")
           << reduction << "\"";
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  auto data = getData().getType(), idx = getIndices().getType(), upd = getUpdates().getType();
  if (failed(verifyScatterCommon(*this, data, idx, upd, getType(), getReduction())))
    return failure();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= data.getRank())
    return emitOpError("axis ") << axis << " out of range";
  if (idx.getShape() != upd.getShape() || idx.getRank() != data.getRank())
    return emitOpError("indices and updates must share one shape of the data's rank");
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && idx.getDimSize(d) > data.getDimSize(d))
      return emitOpError("indices dim ") << d << " exceeds the data's";
  return success();
}

LogicalResult ScatterNDOp::verify() {
  auto data = getData().getType(), idx = getIndices().getType(), upd = getUpdates().getType();
  if (failed(verifyScatterCommon(*this, data, idx, upd, getType(), getReduction())))
    return failure();
  if (idx.getRank() < 1)
    return emitOpError("indices must have rank >= 1");
  int64_t k = idx.getShape().back(), axis = getAxis();
  if (k < 1 || k > data.getRank())
    return emitOpError("the last indices dim (") << k << ") must be in [1, data rank]";
  if (axis < 0 || axis > data.getRank() - k)
    return emitOpError("axis ") << axis << " must be in [0, data rank - " << k << "]";
  SmallVector<int64_t> want(idx.getShape().drop_back());
  want.append(data.getShape().begin(), data.getShape().begin() + axis);
  want.append(data.getShape().begin() + axis + k, data.getShape().end());
  if (upd.getShape() != ArrayRef<int64_t>(want))
    return emitOpError("updates must have type ")
           << RankedTensorType::get(want, data.getElementType());
  return success();
}

#define GET_OP_CLASSES
#include "aicc/Dialect/Graph/IR/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// BitShiftOp
//===----------------------------------------------------------------------===//
LogicalResult BitShiftOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                           ValueRange operands, DictionaryAttr, OpaqueProperties,
                                           RegionRange, SmallVectorImpl<Type> &results) {
  return inferBroadcast(ctx, loc, operands, /*boolResult=*/false, results);
}

LogicalResult BitShiftOp::verify() {
  if (getDirection() != "left" && getDirection() != "right")
    return emitOpError("direction must be \"left\" or \"right\", got \"")
           << getDirection() << "\"";
  Type elem = getLhs().getType().getElementType();
  if (!elem.isUnsignedInteger())
    return emitOpError("operands must be unsigned integer tensors (ONNX BitShift), got ")
           << elem;
  return verifyBroadcast(getOperation(), /*boolResult=*/false);
}
