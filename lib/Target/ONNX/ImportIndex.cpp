//===- ImportIndex.cpp - ONNX index ops -> graph dialect --------------------===//
//
// ArgMax/ArgMin, Hardmax, TopK, CumSum, OneHot, EyeLike, NonZero; the family's registration,
// which also names GatherND, GatherElements, Scatter* (ImportGatherScatter.cpp) and Einsum
// (ImportEinsum.cpp).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <limits>
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace aicc::onnx_import::detail;

void Importer::registerIndexOps(OpTable &t) {
  t.add("NonZero", 9, handle<&Importer::importNonZero>);
  t.add("ArgMax", 1,
        [](Importer &im, const NodeCtx &nc) { return im.importArgMinMax(nc, /*isMax=*/true); });
  t.add("ArgMin", 1,
        [](Importer &im, const NodeCtx &nc) { return im.importArgMinMax(nc, /*isMax=*/false); });
  t.add("Hardmax", 1, handle<&Importer::importHardmax>);
  t.add("TopK", 1, handle<&Importer::importTopK>);
  t.add("CumSum", 11,
        [](Importer &im, const NodeCtx &nc) { return im.importCumulative(nc, /*product=*/false); });
  t.add("OneHot", 9, handle<&Importer::importOneHot>);
  t.add("EyeLike", 9, handle<&Importer::importEyeLike>);
  t.add("GatherElements", 11, handle<&Importer::importGatherElements>);
  t.add("GatherND", 11, handle<&Importer::importGatherND>);
  t.add("ScatterElements", 11, handle<&Importer::importScatterElements>);
  t.add("Scatter", 9, handle<&Importer::importScatterElements>);
  t.add("ScatterND", 11, handle<&Importer::importScatterND>);
  t.add("Einsum", 12, handle<&Importer::importEinsum>);
}

//===----------------------------------------------------------------------===//
// ArgMax / ArgMin / Hardmax / TopK
//
// Decomposed into comparisons, where and float reductions: the graph's reductions are
// float-only, so index arithmetic runs on indices held exactly in f32 (axes up to 2^24
// elements) or f64, cast to int64 at the end.
//===----------------------------------------------------------------------===//

namespace {
/// Broadcasting comparison (i1 result).
template <typename OpTy> Value compare(OpBuilder &b, Location loc, Value x, Value y) {
  auto xt = cast<RankedTensorType>(x.getType()), yt = cast<RankedTensorType>(y.getType());
  auto shape = aicc::graph::broadcastShapes(xt.getShape(), yt.getShape());
  return OpTy::create(b, loc, RankedTensorType::get(*shape, b.getI1Type()), x, y);
}
/// Broadcasting where; the result has x's element type.
Value select(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  auto ct = cast<RankedTensorType>(c.getType()), xt = cast<RankedTensorType>(x.getType()),
       yt = cast<RankedTensorType>(y.getType());
  auto xy = aicc::graph::broadcastShapes(xt.getShape(), yt.getShape());
  auto all = aicc::graph::broadcastShapes(ct.getShape(), *xy);
  return aicc::graph::WhereOp::create(b, loc, RankedTensorType::get(*all, xt.getElementType()), c,
                                      x, y);
}
SmallVector<int64_t> insertDim(ArrayRef<int64_t> shape, int64_t at, int64_t size) {
  SmallVector<int64_t> s(shape);
  s.insert(s.begin() + at, size);
  return s;
}
} // namespace

Value Importer::iotaAlong(Location loc, int64_t rank, int64_t axis, int64_t n, Type elem) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  auto type = RankedTensorType::get(shape, elem);
  auto constant = [&](RankedTensorType t, int64_t count) -> Value {
    if (isa<IntegerType>(elem))
      return intConstantOf(loc, t, llvm::to_vector(llvm::seq<int64_t>(0, count)));
    auto ft = cast<FloatType>(elem);
    SmallVector<APFloat> vals;
    for (int64_t i = 0; i < count; ++i) {
      APFloat f((double)i);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(f);
    }
    return createConstant(loc, DenseElementsAttr::get(t, vals));
  };
  if (n <= kMaxIotaConstant)
    return constant(type, n);
  // i = hi * B + lo with B = ceil(sqrt(n)): [H, 1] * B + [1, B] -> [H * B], the first n.
  int64_t B = (int64_t)std::ceil(std::sqrt((double)n)), H = (n + B - 1) / B;
  Value hi = constant(RankedTensorType::get({H, 1}, elem), H);
  Value lo = constant(RankedTensorType::get({1, B}, elem), B);
  Value scale = isa<IntegerType>(elem)
                    ? intConstantOf(loc, RankedTensorType::get({}, elem), {B})
                    : scalarF(loc, elem, (double)B);
  Value all = reshape(loc, bin<graph::AddOp>(loc, bin<graph::MulOp>(loc, hi, scale), lo), {H * B});
  Value first = graph::SliceOp::create(b, loc, RankedTensorType::get({n}, elem), all,
                                       b.getDenseI64ArrayAttr({0}), b.getDenseI64ArrayAttr({1}));
  return reshape(loc, first, shape);
}

/// m = reduce_max(x, axis) (reduce_min for ArgMin); the answer is the smallest (largest,
/// for select_last_index) position along `axis` where x == m, found as
/// reduce_min(where(x == m, iota, n)) (reduce_max(where(x == m, iota, -1))).
Value Importer::argIndex(Location loc, Value x, int64_t axis, bool isMax, bool selectLast,
                         bool keepdims) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t n = t.getDimSize(axis);
  Type fi = indexFloatType(n);
  Value m = isMax ? buildReduce<graph::ReduceMaxOp>(loc, x, {axis}, true)
                  : buildReduce<graph::ReduceMinOp>(loc, x, {axis}, true);
  Value match = compare<graph::EqualOp>(b, loc, x, m);
  // NaN != NaN: a NaN is the extreme, as in numpy (the ONNX reference implementation).
  Value isNan =
      graph::NotOp::create(b, loc, match.getType(), compare<graph::EqualOp>(b, loc, x, x));
  match = graph::OrOp::create(b, loc, match.getType(), match, isNan);
  Value iota = iotaAlong(loc, t.getRank(), axis, n, fi);
  Value cand = select(b, loc, match, iota, scalarF(loc, fi, selectLast ? -1.0 : (double)n));
  return selectLast ? buildReduce<graph::ReduceMaxOp>(loc, cand, {axis}, keepdims)
                    : buildReduce<graph::ReduceMinOp>(loc, cand, {axis}, keepdims);
}

/// ArgMax / ArgMin (opsets 1-13): axis (default 0), keepdims (default 1),
/// select_last_index (opset 12, default 0); int64 result.
LogicalResult Importer::importArgMinMax(const NodeCtx &nc, bool isMax) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", 0);
  auto keep = getInt(nc, "keepdims", 1);
  auto last = getInt(nc, "select_last_index", 0);
  if (failed(in) || failed(axisAttr) || failed(keep) || failed(last))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  if (t.getRank() == 0)
    return nodeError(nc) << "input must have rank >= 1";
  auto axis = normalizeAxis(nc, *axisAttr, t.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (t.getDimSize(*axis) == 0)
    return nodeError(nc) << "the reduced axis " << *axis << " is empty";
  Value x = *in;
  Type elem = t.getElementType();
  if (!isGraphFloat(elem)) {
    // Integers of up to 32 bits are exact in f64 (the graph's reductions are float-only).
    auto it = dyn_cast<IntegerType>(elem);
    if (!it || it.getWidth() == 1 || it.getWidth() > 32)
      return nodeError(nc) << "input element type " << elem
                           << " is not supported (floats and integers of up to 32 bits)";
    x = castTo(nc.loc, x, b.getF64Type());
  }
  Value idx = argIndex(nc.loc, x, *axis, isMax, *last != 0, *keep != 0);
  return define(nc, 0, castTo(nc.loc, idx, b.getI64Type()));
}

/// Hardmax: 1 at the first maximum along the axis, 0 elsewhere; the axis and the pre-13 2-D
/// coercion as Softmax's (parseSoftmaxArgs).
LogicalResult Importer::importHardmax(const NodeCtx &nc) {
  auto args = parseSoftmaxArgs(nc);
  if (failed(args))
    return failure();
  Value x = args->x, in = args->input;
  RankedTensorType t = args->type;
  int64_t a = args->axis;
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t n = xt.getDimSize(a);
  if (n == 0)
    return define(nc, 0, in);
  Value idx = argIndex(nc.loc, x, a, /*isMax=*/true, /*selectLast=*/false, /*keepdims=*/true);
  Value iota = iotaAlong(nc.loc, xt.getRank(), a, n, indexFloatType(n));
  Value y = castTo(nc.loc, compare<graph::EqualOp>(b, nc.loc, iota, idx), xt.getElementType());
  if (y.getType() != t)
    y = reshape(nc.loc, y, t.getShape());
  return define(nc, 0, y);
}

/// Above this many elements in the [.., n, n, ..] pairwise comparison, TopK uses k rounds of
/// arg-max instead of ranks.
static constexpr int64_t kTopKPairwiseLimit = int64_t(1) << 24;
/// Most rounds of the k-round TopK decomposition.
static constexpr int64_t kTopKMaxRounds = 64;

/// TopK (opset 1: k attribute; 10: k input; 11: largest, sorted): the k largest (smallest)
/// elements along `axis` and their int64 indices, sorted, ties to the smaller index (ONNX
/// spec). Both outputs are always sorted (sorted = 0 leaves the order unspecified).
///
/// Small axes: each element's rank is the number of elements that precede it,
///   rank[i] = #{j : x[j] > x[i] or (x[j] == x[i] and j < i)}   (< for smallest),
/// a permutation of 0..n-1; indices[r] = sum_i (rank[i] == r ? i : 0).
/// Larger axes: k rounds of arg-max over the elements not taken yet.
/// Values are gathered at the indices. NaN inputs give an unspecified (in-range) order.
LogicalResult Importer::importTopK(const NodeCtx &nc) {
  bool kIsInput = opset >= 10;
  if (failed(checkArity(nc, kIsInput ? 2 : 1, kIsInput ? 2 : 1, 2)))
    return failure();
  auto in = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", -1);
  auto largestAttr = getInt(nc, "largest", 1);
  auto sortedAttr = getInt(nc, "sorted", 1);
  if (failed(in) || failed(axisAttr) || failed(largestAttr) || failed(sortedAttr))
    return failure();
  int64_t k;
  if (kIsInput) {
    auto kIn = getInput(nc, 1);
    if (failed(kIn))
      return failure();
    auto kv = getConstantInts(nc, *kIn, inputWhat(nc, 1, "k"));
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return nodeError(nc) << "k input must hold one value, got " << kv->size();
    k = (*kv)[0];
  } else {
    if (!findAttr(nc, "k"))
      return nodeError(nc) << "attribute 'k' is required before opset 10";
    auto kAttr = getInt(nc, "k", 0);
    if (failed(kAttr))
      return failure();
    k = *kAttr;
  }
  auto t = cast<RankedTensorType>(in->getType());
  int64_t rank = t.getRank();
  if (rank == 0)
    return nodeError(nc) << "input must have rank >= 1";
  auto axis = normalizeAxis(nc, *axisAttr, rank, /*allowRank=*/false);
  if (failed(axis))
    return failure();
  int64_t a = *axis, n = t.getDimSize(a);
  if (k < 1 || k > n)
    return nodeError(nc) << "k = " << k << " must be in [1, " << n << "] (the size of axis " << a
                         << "; empty outputs are not supported)";
  Location loc = nc.loc;
  bool largest = *largestAttr != 0;
  Value key = *in;
  // Elements of the [.., n, n, ..] comparison (nullopt on overflow).
  auto total = product(t.getShape());
  std::optional<int64_t> pairwise = total ? product({*total / n, n, n}) : std::nullopt;
  bool usePairwise = pairwise && *pairwise <= kTopKPairwiseLimit;
  if (!isGraphFloat(t.getElementType())) {
    // The pairwise ranks only compare keys: integers of any width compare exactly as they
    // are (signed or unsigned). The k rounds reduce them, and the graph's reductions are
    // float-only: integers of up to 32 bits are exact in f64, wider ones are refused.
    auto it = dyn_cast<IntegerType>(t.getElementType());
    if (!it || it.getWidth() == 1)
      return nodeError(nc) << "input element type " << t.getElementType()
                           << " is not supported (floats and integers)";
    if (!usePairwise && it.getWidth() > 32)
      return nodeError(nc) << "input element type " << t.getElementType() << " along an axis of "
                           << n << " elements is not supported: the k-round decomposition "
                              "reduces in f64, exact for integers of up to 32 bits only";
    if (!usePairwise)
      key = castTo(loc, key, b.getF64Type());
  }
  Type keyElem = cast<RankedTensorType>(key.getType()).getElementType();
  Type fi = indexFloatType(n);
  Value idxF;
  if (usePairwise) {
    Value xi = reshape(loc, key, insertDim(t.getShape(), a + 1, 1)); // [.., n(i), 1, ..]
    Value xj = reshape(loc, key, insertDim(t.getShape(), a, 1));     // [.., 1, n(j), ..]
    Value beats = largest ? compare<graph::GreaterOp>(b, loc, xj, xi)
                          : compare<graph::LessOp>(b, loc, xj, xi);
    Value tie = compare<graph::EqualOp>(b, loc, xj, xi);
    Value jBeforeI = compare<graph::LessOp>(b, loc, iotaAlong(loc, rank + 1, a + 1, n, fi),
                                            iotaAlong(loc, rank + 1, a, n, fi));
    tie = graph::AndOp::create(b, loc, tie.getType(), tie, jBeforeI);
    Value before = graph::OrOp::create(b, loc, beats.getType(), beats, tie);
    Value rankOf = buildReduce<graph::ReduceSumOp>(loc, castTo(loc, before, fi), {a + 1},
                                                   /*keepdims=*/true); // [.., n(i), 1, ..]
    Value sel = compare<graph::EqualOp>(b, loc, rankOf,
                                        iotaAlong(loc, rank + 1, a + 1, k, fi)); // [.., n, k, ..]
    Value pos = select(b, loc, sel, iotaAlong(loc, rank + 1, a, n, fi), scalarF(loc, fi, 0.0));
    idxF = buildReduce<graph::ReduceSumOp>(loc, pos, {a}, /*keepdims=*/false); // [.., k, ..]
  } else {
    if (k > kTopKMaxRounds)
      return nodeError(nc) << "k = " << k << " along an axis of " << n
                           << " elements is not supported: the pairwise-rank decomposition "
                              "would compare "
                           << (pairwise ? std::to_string(*pairwise) : std::string("too many"))
                           << " pairs (limit " << kTopKPairwiseLimit
                           << ") and the k-round one is limited to k <= " << kTopKMaxRounds;
    double inf = std::numeric_limits<double>::infinity();
    Value fill = scalarF(loc, keyElem, largest ? -inf : inf);
    Value iota = iotaAlong(loc, rank, a, n, fi);
    Value none = scalarF(loc, fi, (double)n);
    Value taken;
    SmallVector<Value> picks;
    for (int64_t r = 0; r < k; ++r) {
      Value xm = taken ? select(b, loc, taken, fill, key) : key;
      Value m = largest ? buildReduce<graph::ReduceMaxOp>(loc, xm, {a}, true)
                        : buildReduce<graph::ReduceMinOp>(loc, xm, {a}, true);
      Value match = compare<graph::EqualOp>(b, loc, xm, m);
      if (taken)
        match = graph::AndOp::create(b, loc, match.getType(), match,
                                     graph::NotOp::create(b, loc, taken.getType(), taken));
      Value pick = buildReduce<graph::ReduceMinOp>(loc, select(b, loc, match, iota, none), {a},
                                                   /*keepdims=*/true); // [.., 1, ..]
      picks.push_back(pick);
      if (r + 1 == k)
        break;
      Value hit = compare<graph::EqualOp>(b, loc, iota, pick);
      taken = taken ? graph::OrOp::create(b, loc, hit.getType(), taken, hit).getResult() : hit;
    }
    SmallVector<int64_t> kShape(t.getShape());
    kShape[a] = k;
    idxF = picks.size() == 1 ? picks[0]
                             : graph::ConcatOp::create(b, loc, RankedTensorType::get(kShape, fi),
                                                       picks, b.getI64IntegerAttr(a))
                                   .getResult();
  }
  // In range even for NaN inputs (ranks that are not a permutation, rounds with no match).
  idxF = graph::ClipOp::create(b, loc, idxF.getType(), idxF, b.getF64FloatAttr(0.0),
                               b.getF64FloatAttr((double)(n - 1)));
  Value indices = castTo(loc, idxF, b.getI64Type());
  auto it = cast<RankedTensorType>(indices.getType());
  Value values = graph::GatherElementsOp::create(
      b, loc, RankedTensorType::get(it.getShape(), t.getElementType()), *in, indices,
      b.getI64IntegerAttr(a));
  if (failed(define(nc, 0, values)))
    return failure();
  return define(nc, 1, indices);
}

// (end of the ArgMax / ArgMin / Hardmax / TopK block)
// CumSum, OneHot, EyeLike, GatherND, ScatterElements / Scatter, ScatterND, Einsum
//===----------------------------------------------------------------------===//

/// CumSum (ONNX operator spec, opset 11/14): inclusive or exclusive prefix sums along
/// `axis` (a constant input), from the start or, with reverse = 1, from the end. Built as
/// the Hillis-Steele scan (Hillis & Steele, "Data Parallel Algorithms", CACM 1986):
/// y += shift(y, 2^i) for 2^i < n, ceil(log2 n) elementwise steps, exact for integers.
/// CumProd (opset 26) is the same scan with y *= shift(y, 2^i) and ones shifted in: only
/// multiplications (no exp/log), so exact for integers (wrapping like the reference's
/// fixed-width products), zeros and signs.
LogicalResult Importer::importCumulative(const NodeCtx &nc, bool product) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), axisIn = getInput(nc, 1);
  auto exclusive = getInt(nc, "exclusive", 0), reverse = getInt(nc, "reverse", 0);
  if (failed(x) || failed(axisIn) || failed(exclusive) || failed(reverse))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  Type elem = t.getElementType();
  if (elem.isInteger(1) || !(isa<FloatType>(elem) || isa<IntegerType>(elem)))
    return nodeError(nc) << "x must be a numeric tensor, got " << t;
  if (t.getRank() == 0)
    return nodeError(nc) << "x must have rank >= 1";
  auto axisV = getConstantInts(nc, *axisIn, inputWhat(nc, 1, "axis"));
  if (failed(axisV))
    return failure();
  if (axisV->size() != 1)
    return nodeError(nc) << "axis must hold one value, got " << axisV->size();
  auto axis = normalizeAxis(nc, (*axisV)[0], t.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  bool back = *reverse != 0;
  int64_t n = t.getDimSize(*axis);
  // 16-bit floats sum in f32: the partial sums are stored between steps.
  Type acc = !product && (elem.isF16() || elem.isBF16()) ? b.getF32Type() : elem;
  auto accT = RankedTensorType::get(t.getShape(), acc);
  double identity = product ? 1.0 : 0.0;
  Value y = castTo(nc.loc, *x, acc);
  if (*exclusive)
    y = shiftWithFill(nc.loc, y, *axis, 1, back, identity);
  for (int64_t s = 1; s < n; s *= 2) {
    Value shifted = shiftWithFill(nc.loc, y, *axis, s, back, identity);
    y = product ? Value(graph::MulOp::create(b, nc.loc, accT, y, shifted))
                : Value(graph::AddOp::create(b, nc.loc, accT, y, shifted));
  }
  return define(nc, 0, castTo(nc.loc, y, elem));
}

/// OneHot (ONNX operator spec, opset 9/11): output[..., j, ...] (j on the new dim `axis`)
/// = values[1] where j == (indices < 0 ? indices + depth : indices), else values[0].
/// Indices outside [-depth, depth) match no j. depth must be a constant (the output
/// shape depends on it); values may be computed at run time.
LogicalResult Importer::importOneHot(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto indices = getInput(nc, 0), depthIn = getInput(nc, 1), values = getInput(nc, 2);
  auto axisAttr = getInt(nc, "axis", -1);
  if (failed(indices) || failed(depthIn) || failed(values) || failed(axisAttr))
    return failure();
  auto it = cast<RankedTensorType>(indices->getType());
  auto vt = cast<RankedTensorType>(values->getType());
  Type ie = it.getElementType();
  if (ie.isInteger(1) || !(isa<FloatType>(ie) || isa<IntegerType>(ie)))
    return nodeError(nc) << "indices must be a numeric tensor, got " << it;
  if (vt.getNumElements() != 2 || vt.getRank() != 1)
    return nodeError(nc) << "values must be a 1-D tensor [off_value, on_value], got " << vt;
  auto depthF = getConstantScalar(nc, *depthIn, inputWhat(nc, 1, "depth"));
  if (failed(depthF))
    return failure();
  auto depthI = toInt(nc, *depthF, "depth");
  if (failed(depthI))
    return failure();
  int64_t depth = *depthI;
  if (depth < 1)
    return nodeError(nc) << "depth must be a positive integer, got " << *depthF;
  // Positions are compared in the indices' type: depth must be one of its values (int8
  // indices with depth 128; aicc-fuzz-onnx audit).
  if (auto iit = dyn_cast<IntegerType>(it.getElementType()); iit && iit.getWidth() < 64) {
    unsigned w = iit.getWidth() - (iit.isUnsigned() ? 0 : 1);
    if (depth > (int64_t(1) << w) - 1)
      return nodeError(nc) << "depth " << depth << " does not fit the indices' type " << iit;
  }
  int64_t r = it.getRank();
  auto axis = normalizeAxis(nc, *axisAttr, r + 1, /*allowRank=*/false);
  if (failed(axis))
    return failure();
  Location loc = nc.loc;
  SmallVector<int64_t> outShape(it.getShape()), idxShape(it.getShape());
  outShape.insert(outShape.begin() + *axis, depth);
  idxShape.insert(idxShape.begin() + *axis, 1);
  if (failed(checkShape(nc, outShape, vt.getElementType(), "output of shape")))
    return failure();
  auto scalarOf = [&](double v) -> Value {
    auto st = RankedTensorType::get({}, ie);
    if (isa<FloatType>(ie))
      return createConstant(loc, DenseElementsAttr::get(st, b.getFloatAttr(ie, v)));
    return intConstantOf(loc, st, {(int64_t)v});
  };
  // Wrap negative indices; compare with 0..depth-1 in the indices' own type (a
  // fractional float index matches nothing).
  Value idx = reshape(loc, *indices, idxShape);
  auto boolOf = [&](ArrayRef<int64_t> s) { return RankedTensorType::get(s, b.getI1Type()); };
  Value neg = graph::LessOp::create(b, loc, boolOf(idxShape), idx, scalarOf(0));
  Value wrapped = graph::WhereOp::create(b, loc, cast<RankedTensorType>(idx.getType()), neg,
                                         bin<graph::AddOp>(loc, idx, scalarOf((double)depth)), idx);
  Value iota = iotaAlong(loc, r + 1, *axis, depth, ie);
  Value hit = graph::EqualOp::create(b, loc, boolOf(outShape), wrapped, iota);
  // off / on values: constants when values is one, else [1]-shaped slices.
  Value off, on;
  Type ve = vt.getElementType();
  if (auto c = values->getDefiningOp<graph::ConstantOp>();
      c && isa<DenseElementsAttr>(c.getValue())) {
    auto dense = cast<DenseElementsAttr>(c.getValue());
    auto st = RankedTensorType::get({}, ve);
    auto elems = llvm::to_vector(dense.getValues<Attribute>());
    off = createConstant(loc, DenseElementsAttr::get(st, elems[0]));
    on = createConstant(loc, DenseElementsAttr::get(st, elems[1]));
  } else {
    auto one = RankedTensorType::get({1}, ve);
    off = graph::SliceOp::create(b, loc, one, *values, b.getDenseI64ArrayAttr({0}),
                                 b.getDenseI64ArrayAttr({1}));
    on = graph::SliceOp::create(b, loc, one, *values, b.getDenseI64ArrayAttr({1}),
                                b.getDenseI64ArrayAttr({1}));
  }
  return define(nc, 0,
                graph::WhereOp::create(b, loc, RankedTensorType::get(outShape, ve), hit, on, off));
}

/// EyeLike (ONNX operator spec, opset 9): a 2-D tensor of the input's shape with ones on
/// the k-th diagonal (j - i == k) and zeros elsewhere, of type `dtype` (default: the
/// input's). Built as a broadcast 1 kept by two trilu ops (j - i >= k and j - i <= k).
LogicalResult Importer::importEyeLike(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto k = getInt(nc, "k", 0);
  if (failed(in) || failed(k))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  if (t.getRank() != 2)
    return nodeError(nc) << "input must be 2-D, got " << t;
  Type elem = t.getElementType();
  if (findAttr(nc, "dtype")) {
    auto dt = getInt(nc, "dtype", 0);
    if (failed(dt))
      return failure();
    elem = convertElementType((int32_t)*dt, &ctx);
    if (!elem)
      return nodeError(nc) << "dtype " << dataTypeName((int32_t)*dt) << " is not supported";
  }
  auto outT = RankedTensorType::get(t.getShape(), elem);
  Location loc = nc.loc;
  if (elem.isInteger(1)) {
    // Small bool result: a constant.
    if (outT.getNumElements() > (1 << 16))
      return nodeError(nc) << "a bool result of more than 65536 elements is not supported";
    SmallVector<bool> bits;
    for (int64_t i = 0; i < t.getDimSize(0); ++i)
      for (int64_t j = 0; j < t.getDimSize(1); ++j)
        bits.push_back(j - i == *k);
    return define(nc, 0, createConstant(loc, DenseElementsAttr::get(outT, bits)));
  }
  auto scalarT = RankedTensorType::get({}, elem);
  Value one = isa<FloatType>(elem)
                  ? createConstant(loc, DenseElementsAttr::get(scalarT, b.getFloatAttr(elem, 1.0)))
                  : intConstantOf(loc, scalarT, {1});
  Value ones = graph::ExpandOp::create(b, loc, outT, one);
  Value upper =
      graph::TriluOp::create(b, loc, outT, ones, b.getI64IntegerAttr(*k), b.getBoolAttr(true));
  return define(
      nc, 0,
      graph::TriluOp::create(b, loc, outT, upper, b.getI64IntegerAttr(*k), b.getBoolAttr(false)));
}

//===----------------------------------------------------------------------===//
// NonZero
//===----------------------------------------------------------------------===//

/// NonZero (ONNX operator spec, opsets 9/13): the indices of the non-zero
/// elements of X, as int64 [rank(X), count], in row-major order (numpy.nonzero).
/// The output's shape depends on X's values, and aicc compiles static shapes:
/// X must be a compile-time constant (an initializer, folded arithmetic, or a
/// graph input bound with --bind-input); the result is then a constant.
LogicalResult Importer::importNonZero(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x))
    return failure();
  auto cst = x->getDefiningOp<graph::ConstantOp>();
  if (!cst)
    return notConstantError(nc, *x,
                            "input 'X' (the output's shape depends on its values, and shapes "
                            "are static)");
  auto t = cast<RankedTensorType>(x->getType());
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!dense || t.getNumElements() > (int64_t(1) << 20))
    return nodeError(nc) << "input 'X' must be a dense constant of at most 2^20 elements";
  SmallVector<bool> nonzero;
  nonzero.reserve(t.getNumElements());
  if (isa<FloatType>(t.getElementType())) {
    for (const APFloat &v : dense.getValues<APFloat>())
      nonzero.push_back(!v.isZero()); // NaN counts as non-zero, as in numpy
  } else if (isa<IntegerType>(t.getElementType())) {
    for (const APInt &v : dense.getValues<APInt>())
      nonzero.push_back(!v.isZero());
  } else {
    return nodeError(nc) << "unsupported element type " << t.getElementType();
  }
  int64_t rank = t.getRank(), count = llvm::count(nonzero, true);
  ArrayRef<int64_t> shape = t.getShape();
  // Row r of the result holds coordinate r of every non-zero element.
  SmallVector<int64_t> out(rank * count);
  int64_t k = 0;
  for (auto [flat, nz] : llvm::enumerate(nonzero)) {
    if (!nz)
      continue;
    int64_t rem = flat;
    for (int64_t r = rank - 1; r >= 0; --r) {
      out[r * count + k] = rem % shape[r];
      rem /= shape[r];
    }
    ++k;
  }
  auto type = RankedTensorType::get({rank, count}, b.getI64Type());
  return define(nc, 0, intConstantOf(nc.loc, type, out));
}
