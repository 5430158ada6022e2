//===- GraphDataMovementOps.cpp - verifiers and folders of the data-movement ops ---===//
//
// graph.reshape, slice, pad, concat, tile, gather, gather_elements, expand, transpose
// (the ops of GraphOps.td's "Data movement" section).
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Support/CheckedSize.h"
#include "aicc/Support/SaturatingInt.h"

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

static RankedTensorType getRanked(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

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

static std::optional<ArrayRef<char>> constantBytes(Attribute value, RankedTensorType type);
static Attribute bytesConstant(RankedTensorType type, ArrayRef<char> bytes, StringRef name);
/// A concat of constants folds up to this many bytes (the inputs' bytes: a fold that keeps
/// every input alive for another user at most doubles them).
static constexpr uint64_t kMaxFoldedConcatBytes = 64 << 20;

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getType().getNumElements() == 0)
    return {};
  // Every input a constant: one constant, the inputs' rows interleaved along the axis
  // (graph-merge-sibling-matmuls concatenates weights so).
  if (llvm::all_of(adaptor.getInputs(), [](Attribute a) { return (bool)a; })) {
    RankedTensorType outT = getType();
    Type elem = outT.getElementType();
    std::optional<int64_t> totalBytes;
    if (outT.hasStaticShape() && elem.isIntOrFloat() && elem.getIntOrFloatBitWidth() % 8 == 0)
      totalBytes = llvm::checkedMul<int64_t>(outT.getNumElements(),
                                             elem.getIntOrFloatBitWidth() / 8);
    uint64_t total = totalBytes ? (uint64_t)*totalBytes : 0;
    if (totalBytes && total <= kMaxFoldedConcatBytes) {
      int64_t bytesPer = elem.getIntOrFloatBitWidth() / 8, axis = getAxis();
      int64_t outer = 1;
      for (int64_t d = 0; d < axis; ++d)
        outer *= outT.getDimSize(d);
      SmallVector<std::vector<char>> splats;
      SmallVector<ArrayRef<char>> raws;
      SmallVector<int64_t> chunk; // bytes of one input per outer index
      bool ok = true;
      for (auto [v, a] : llvm::zip(getInputs(), adaptor.getInputs())) {
        auto t = cast<RankedTensorType>(v.getType());
        int64_t inner = 1;
        for (int64_t d = axis; d < t.getRank(); ++d)
          inner *= t.getDimSize(d);
        chunk.push_back(inner * bytesPer);
        if (auto dense = dyn_cast<DenseElementsAttr>(a); dense && dense.isSplat() &&
                                                         dense.getType() == t) {
          ArrayRef<char> one = dense.getRawData();
          std::vector<char> full;
          full.reserve(t.getNumElements() * bytesPer);
          for (int64_t i = 0; i < t.getNumElements(); ++i)
            full.insert(full.end(), one.begin(), one.begin() + bytesPer);
          splats.push_back(std::move(full));
          raws.push_back(splats.back());
          continue;
        }
        std::optional<ArrayRef<char>> bytes = constantBytes(a, t);
        if (!bytes) {
          ok = false;
          break;
        }
        raws.push_back(*bytes);
      }
      if (ok) {
        std::vector<char> out;
        out.reserve(total);
        for (int64_t o = 0; o < outer; ++o)
          for (auto [raw, c] : llvm::zip(raws, chunk))
            out.insert(out.end(), raw.begin() + o * c, raw.begin() + (o + 1) * c);
        return bytesConstant(outT, out, "concat");
      }
    }
  }
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

namespace {
/// gather(x, constant i) with one index in range -> slice(x) of one element along the axis
/// (reshape(slice(x)) for a rank-0 index, which drops the axis). A slice is a view every
/// kernel reads by index arithmetic (and the GPU attention kernel through its block loads,
/// AttentionOperands.h); a gather loads its index at run time.
struct GatherOfConstantIndex : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op, PatternRewriter &rewriter) const override {
    DenseIntElementsAttr idx;
    auto in = getRanked(op.getInput());
    auto it = getRanked(op.getIndices());
    if (!in || !it || !in.hasStaticShape() || !matchPattern(op.getIndices(), m_Constant(&idx)) ||
        idx.getNumElements() != 1 || it.getRank() > 1)
      return failure();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t n = in.getDimSize(axis);
    APInt raw = idx.getValues<APInt>()[0];
    bool isUnsigned = idx.getElementType().isUnsignedInteger();
    if (isUnsigned && raw.getActiveBits() > 63)
      return failure();
    int64_t i = isUnsigned ? int64_t(raw.getZExtValue()) : raw.getSExtValue();
    if (i < -n || i >= n)
      return failure(); // out of range: left to the gather (undefined in ONNX)
    if (i < 0)
      i += n;
    SmallVector<int64_t> starts(in.getRank(), 0), steps(in.getRank(), 1);
    starts[axis] = i;
    SmallVector<int64_t> shape(in.getShape());
    shape[axis] = 1;
    auto sliceT = RankedTensorType::get(shape, in.getElementType());
    Value s = SliceOp::create(rewriter, op.getLoc(), sliceT, op.getInput(),
                              rewriter.getDenseI64ArrayAttr(starts),
                              rewriter.getDenseI64ArrayAttr(steps));
    if (it.getRank() == 1)
      rewriter.replaceOp(op, s);
    else
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), s);
    return success();
  }
};
} // namespace

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *ctx) {
  results.add<GatherOfConstantIndex>(ctx);
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

/// The row-major bytes of `value`, a non-splat dense or dense_resource constant of `type`
/// with byte-sized elements (i1 is bit-packed in `dense`); nullopt otherwise.
static std::optional<ArrayRef<char>> constantBytes(Attribute value, RankedTensorType type) {
  Type elem = type.getElementType();
  if (!type.hasStaticShape() || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getType() != type || dense.isSplat())
      return std::nullopt;
    raw = dense.getRawData();
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || res.getType() != type)
      return std::nullopt;
    raw = blob->getData();
  } else {
    return std::nullopt;
  }
  if ((int64_t)raw.size() != type.getNumElements() * (elem.getIntOrFloatBitWidth() / 8))
    return std::nullopt;
  return raw;
}

/// A constant of `type` holding `bytes`: `dense` up to kMaxFoldedDenseBytes, else
/// `dense_resource` named `name`.
static Attribute bytesConstant(RankedTensorType type, ArrayRef<char> bytes, StringRef name);

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
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
    return dense.getType() == inType
               ? DenseElementsAttr::get(outType, dense.getSplatValue<Attribute>())
               : Attribute();
  std::optional<ArrayRef<char>> bytes = constantBytes(value, inType);
  if (!bytes)
    return {};
  ArrayRef<char> raw = *bytes;
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
  return bytesConstant(outType, out, "transposed");
}

static Attribute bytesConstant(RankedTensorType type, ArrayRef<char> bytes, StringRef name) {
  if ((uint64_t)bytes.size() <= kMaxFoldedDenseBytes)
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(uint64_t),
                                                                       /*dataIsMutable=*/false);
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

/// A constant-mode pad folds when its input is a constant and the padded constant is at
/// most kMaxFoldedPadBytes and at most kMaxFoldedPadGrowth times the input's: a fold never
/// grows the bundle by more than a small factor of what it already holds (the channel
/// padding of a first conv layer's weights: 3 -> 8 channels, 2.7x; grayscale 1 -> 8, 8x).
static constexpr uint64_t kMaxFoldedPadBytes = 16 << 20;
static constexpr uint64_t kMaxFoldedPadGrowth = 8;

/// Folds a constant-mode pad of a constant: the padded constant (the pad value stored in the
/// element type: rounded for floats, truncated toward zero for integers).
OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getInput();
  auto in = getRanked(getInput());
  RankedTensorType out = getType();
  if (!value || !in || getMode() != "constant" || !out.hasStaticShape())
    return {};
  Type elem = in.getElementType();
  std::optional<ArrayRef<char>> raw = constantBytes(value, in);
  if (!raw)
    return {};
  int64_t bytesPer = elem.getIntOrFloatBitWidth() / 8, rank = in.getRank();
  // The padded size, overflow-checked (a hostile type's element count overflows int64).
  std::optional<int64_t> outElems = checkedElementCount(out.getShape());
  if (rank == 0 || !outElems || (uint64_t)*outElems > kMaxFoldedPadBytes / bytesPer)
    return {};
  uint64_t outBytes = (uint64_t)*outElems * bytesPer;
  if (outBytes > kMaxFoldedPadGrowth * raw->size())
    return {};
  // The pad value's bytes in the element type.
  APInt bits;
  if (auto f = dyn_cast<FloatType>(elem)) {
    APFloat v(getValue().convertToDouble());
    bool lost;
    v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    bits = v.bitcastToAPInt();
  } else if (auto i = dyn_cast<IntegerType>(elem)) {
    // The kernel templates' rule, so a folded pad and a padding kernel agree.
    bits = saturatingInt(getValue().convertToDouble(), i.getWidth(), i.isUnsigned());
  } else {
    return {};
  }
  std::vector<char> pattern(bytesPer);
  for (int64_t b = 0; b < bytesPer; ++b)
    pattern[b] = (char)bits.extractBitsAsZExtValue(8, 8 * b);
  std::vector<char> bytes(outBytes);
  for (uint64_t o = 0; o < outBytes; o += bytesPer)
    std::memcpy(bytes.data() + o, pattern.data(), bytesPer);
  // Copy the input's innermost rows to their padded positions.
  int64_t rowElems = in.getDimSize(rank - 1), rows = rowElems ? in.getNumElements() / rowElems : 0;
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank - 1; ++d)
      o = o * out.getDimSize(d) + idx[d] + getLow()[d];
    o = o * out.getDimSize(rank - 1) + getLow()[rank - 1];
    std::memcpy(bytes.data() + o * bytesPer, raw->data() + r * rowElems * bytesPer,
                rowElems * bytesPer);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++idx[d] < in.getDimSize(d))
        break;
      idx[d] = 0;
    }
  }
  return bytesConstant(out, bytes, "padded");
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

