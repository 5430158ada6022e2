//===- GraphOps.cpp - aicc graph dialect ops -------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

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

LogicalResult MaxPoolOp::verify() {
  return verifyWindow(*this, getInput().getType(), getType(), getKernelShape(), getStrides(),
                      getPads(), getDilations());
}
LogicalResult AvgPoolOp::verify() {
  return verifyWindow(*this, getInput().getType(), getType(), getKernelShape(), getStrides(),
                      getPads(), getDilations());
}

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
// Reshape / Transpose
//===----------------------------------------------------------------------===//
LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return emitOpError("shapes must be static");
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("element count changes: ")
           << in.getNumElements() << " vs " << out.getNumElements();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes");
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  if (auto c = llvm::dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return c.reshape(getType());
  return {};
}

LogicalResult SliceOp::verify() {
  auto in = getInput().getType(), out = getType();
  int64_t r = in.getRank();
  if ((int64_t)getStarts().size() != r || (int64_t)getSteps().size() != r || out.getRank() != r)
    return emitOpError("starts, steps and the result need one entry per input dim");
  for (int64_t d = 0; d < r; ++d) {
    int64_t st = getStarts()[d], sp = getSteps()[d], n = out.getDimSize(d);
    if (sp == 0)
      return emitOpError("step of dim ") << d << " is 0";
    if (n == 0)
      continue;
    int64_t last = st + (n - 1) * sp;
    if (st < 0 || st >= in.getDimSize(d) || last < 0 || last >= in.getDimSize(d))
      return emitOpError("dim ") << d << " reads [" << st << ", " << last << "] outside [0, "
                                 << in.getDimSize(d) << ")";
  }
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes");
  return success();
}

LogicalResult PadOp::verify() {
  auto in = getInput().getType(), out = getType();
  int64_t r = in.getRank();
  if ((int64_t)getLow().size() != r || (int64_t)getHigh().size() != r || out.getRank() != r)
    return emitOpError("low, high and the result need one entry per input dim");
  for (int64_t d = 0; d < r; ++d) {
    if (getLow()[d] < 0 || getHigh()[d] < 0)
      return emitOpError("negative pads are not supported");
    if (out.getDimSize(d) != in.getDimSize(d) + getLow()[d] + getHigh()[d])
      return emitOpError("result dim ") << d << " must be input + low + high";
    if (getMode() == "reflect" && (getLow()[d] >= in.getDimSize(d) || getHigh()[d] >= in.getDimSize(d)))
      return emitOpError("reflect pads must be smaller than the dim");
    if (getMode() == "wrap" && in.getDimSize(d) == 0 && (getLow()[d] || getHigh()[d]))
      return emitOpError("wrap cannot pad an empty dim");
  }
  if (getMode() != "constant" && getMode() != "reflect" && getMode() != "edge" &&
      getMode() != "wrap")
    return emitOpError("mode must be constant, reflect, edge or wrap");
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto out = getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= out.getRank())
    return emitOpError("axis ") << axis << " out of range";
  int64_t total = 0;
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != out.getRank() || t.getElementType() != out.getElementType())
      return emitOpError("inputs must share rank and element type with the result");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && t.getDimSize(d) != out.getDimSize(d))
        return emitOpError("inputs differ from the result outside the axis");
    total += t.getDimSize(axis);
  }
  if (total != out.getDimSize(axis))
    return emitOpError("the axis sizes add up to ") << total << ", not " << out.getDimSize(axis);
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getType().getNumElements() == 0)
    return {};
  SmallVector<Value> kept;
  for (Value v : getInputs())
    if (cast<RankedTensorType>(v.getType()).getNumElements() != 0)
      kept.push_back(v);
  if (kept.size() == getInputs().size())
    return {};
  if (kept.size() == 1 && kept.front().getType() == getType())
    return kept.front();
  getInputsMutable().assign(kept); // in place: drop the empty inputs
  return getResult();
}

LogicalResult TileOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getRank() != out.getRank() || in.getElementType() != out.getElementType())
    return emitOpError("rank and element type must not change");
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (in.getDimSize(d) == 0 ? out.getDimSize(d) != 0 : out.getDimSize(d) % in.getDimSize(d))
      return emitOpError("result dim ") << d << " is not a multiple of the input's";
  return success();
}

LogicalResult GatherOp::verify() {
  auto in = getInput().getType(), idx = getIndices().getType(), out = getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= in.getRank())
    return emitOpError("axis ") << axis << " out of range";
  auto it = dyn_cast<IntegerType>(idx.getElementType());
  if (!it || it.getWidth() < 8)
    return emitOpError("indices must be an integer tensor");
  SmallVector<int64_t> shape(in.getShape().take_front(axis));
  shape.append(idx.getShape().begin(), idx.getShape().end());
  shape.append(in.getShape().begin() + axis + 1, in.getShape().end());
  if (out.getShape() != ArrayRef<int64_t>(shape) || out.getElementType() != in.getElementType())
    return emitOpError("result type must be ")
           << RankedTensorType::get(shape, in.getElementType());
  return success();
}

LogicalResult GatherElementsOp::verify() {
  auto in = getInput().getType(), idx = getIndices().getType(), out = getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= in.getRank() || idx.getRank() != in.getRank())
    return emitOpError("indices must have the input's rank and axis must be in range");
  auto it = dyn_cast<IntegerType>(idx.getElementType());
  if (!it || it.getWidth() < 8)
    return emitOpError("indices must be an integer tensor");
  if (out.getShape() != idx.getShape() || out.getElementType() != in.getElementType())
    return emitOpError("result must have the indices' shape and the input's element type");
  return success();
}

LogicalResult ExpandOp::verify() {
  auto in = getInput().getType(), out = getType();
  auto b = broadcastShapes(in.getShape(), out.getShape());
  if (failed(b) || ArrayRef<int64_t>(*b) != out.getShape())
    return emitOpError("cannot broadcast ") << in << " to " << out;
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes");
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &results) {
  Adaptor adaptor(operands, attrs, properties, regions);
  auto in = getRanked(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (!in || (int64_t)perm.size() != in.getRank())
    return emitOptionalError(loc, "graph.transpose: perm size must equal the rank");
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank())
      return emitOptionalError(loc, "graph.transpose: perm entry out of range");
    shape.push_back(in.getDimSize(p));
  }
  results.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult TransposeOp::verify() {
  SmallVector<bool> seen(getPerm().size(), false);
  for (int64_t p : getPerm()) {
    if (p < 0 || p >= (int64_t)seen.size() || seen[p])
      return emitOpError("perm is not a permutation of [0, ") << seen.size() << ")";
    seen[p] = true;
  }
  return success();
}

static bool isIdentityPerm(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if ((int64_t)i != p)
      return false;
  return true;
}

/// Constants up to this many bytes fold to `dense`, bigger ones to `dense_resource` (the
/// importer's threshold, ImportONNX's kMaxDenseBytes, so the IR text stays small).
static constexpr uint64_t kMaxFoldedDenseBytes = 64 * 1024;

/// `value` (a dense or dense_resource constant of `inType`) transposed by `perm` into
/// `outType`: result element at multi-index r is input element at s with s[perm[i]] = r[i].
/// Byte-sized element types only (i1 is bit-packed in `dense`); null when not foldable.
static Attribute transposeConstant(Attribute value, RankedTensorType inType,
                                   RankedTensorType outType, ArrayRef<int64_t> perm) {
  Type elem = inType.getElementType();
  if (!inType.hasStaticShape() || !outType.hasStaticShape() || !elem.isIntOrFloat() ||
      elem.getIntOrFloatBitWidth() % 8)
    return {};
  int64_t bytesPer = elem.getIntOrFloatBitWidth() / 8, n = inType.getNumElements();
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getType() != inType)
      return {};
    if (dense.isSplat())
      return DenseElementsAttr::get(outType, dense.getSplatValue<Attribute>());
    raw = dense.getRawData();
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || res.getType() != inType)
      return {};
    raw = blob->getData();
  } else {
    return {};
  }
  if ((int64_t)raw.size() != n * bytesPer)
    return {};
  // Input strides (elements) in the order of the result dims.
  int64_t rank = inType.getRank();
  SmallVector<int64_t> inStrides(rank, 1), strides(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inType.getDimSize(d + 1);
  for (int64_t i = 0; i < rank; ++i)
    strides[i] = inStrides[perm[i]];
  std::vector<char> out(raw.size());
  SmallVector<int64_t> idx(rank, 0);
  int64_t src = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.data() + i * bytesPer, raw.data() + src * bytesPer, bytesPer);
    // Odometer over the result's multi-index, keeping `src` in step.
    for (int64_t d = rank - 1; d >= 0; --d) {
      src += strides[d];
      if (++idx[d] < outType.getDimSize(d))
        break;
      src -= strides[d] * idx[d];
      idx[d] = 0;
    }
  }
  if ((uint64_t)out.size() <= kMaxFoldedDenseBytes)
    return DenseElementsAttr::getFromRawBuffer(outType, out);
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      out, alignof(uint64_t), /*dataIsMutable=*/false);
  return DenseResourceElementsAttr::get(outType, "transposed", std::move(blob));
}

/// Folds: the identity permutation; transpose(transpose(x, p), q) = transpose(x, r) with
/// r[i] = p[q[i]] (x itself when r is the identity; in place otherwise); a transpose of a
/// constant (the constant, transposed: graph-conv-layout's OHWI weights).
OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (isIdentityPerm(perm))
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> p = inner.getPerm();
    if (p.size() != perm.size())
      return {};
    SmallVector<int64_t> composed;
    for (int64_t q : perm) {
      if (q < 0 || q >= (int64_t)p.size())
        return {};
      composed.push_back(p[q]);
    }
    if (isIdentityPerm(composed))
      return inner.getInput();
    setPerm(composed);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (Attribute value = adaptor.getInput()) {
    auto in = getRanked(getInput());
    if (in && (int64_t)perm.size() == in.getRank())
      return transposeConstant(value, in, getType(), perm);
  }
  return {};
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
  if (k != "epilogue" && k != "elementwise" && k != "softmax" && k != "reduction" && k != "window" &&
      k != "single")
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
  int64_t k = idx.getShape().back();
  if (k < 1 || k > data.getRank())
    return emitOpError("the last indices dim (") << k << ") must be in [1, data rank]";
  SmallVector<int64_t> want(idx.getShape().drop_back());
  want.append(data.getShape().begin() + k, data.getShape().end());
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
