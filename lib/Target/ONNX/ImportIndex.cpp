//===- ImportIndex.cpp - ONNX index ops -> graph dialect --------------------===//
//
// ArgMax/ArgMin, Hardmax, TopK, CumSum, OneHot, GatherND, Scatter*, Einsum.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <limits>

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importIndexOps(const NodeCtx &nc) {
  llvm::StringRef op = nc.opType();
  // ArgMax / ArgMin / Hardmax / TopK block.
  if (op == "ArgMax" || op == "ArgMin")
    return importArgMinMax(nc, op == "ArgMax");
  if (op == "Hardmax")
    return importHardmax(nc);
  if (op == "TopK")
    return importTopK(nc);
  return std::nullopt;
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
  auto ft = cast<FloatType>(elem);
  SmallVector<APFloat> vals;
  for (int64_t i = 0; i < n; ++i) {
    APFloat f((double)i);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    vals.push_back(f);
  }
  return createConstant(loc, DenseElementsAttr::get(RankedTensorType::get(shape, elem), vals));
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

/// Hardmax: 1 at the first maximum along the axis, 0 elsewhere. Opset >= 13: along `axis`
/// (default -1); before, the input is coerced to 2-D around `axis` (default 1) like
/// Softmax-1/11.
LogicalResult Importer::importHardmax(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  int64_t rank = t->getRank();
  if (rank == 0)
    return nodeError(nc) << "input must have rank >= 1";
  auto axisAttr = getInt(nc, "axis", opset >= 13 ? -1 : 1);
  if (failed(axisAttr))
    return failure();
  auto axis = normalizeAxis(nc, *axisAttr, rank, /*allowRank=*/false);
  if (failed(axis))
    return failure();
  Value x = *in;
  int64_t a = *axis;
  if (opset < 13 && a != rank - 1) {
    auto outer = product(t->getShape().take_front(a));
    auto inner = product(t->getShape().drop_front(a));
    if (!outer || !inner)
      return nodeError(nc) << "input is too large";
    x = reshape(nc.loc, x, {*outer, *inner});
    a = 1;
  }
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t n = xt.getDimSize(a);
  if (n == 0)
    return define(nc, 0, *in);
  Value idx = argIndex(nc.loc, x, a, /*isMax=*/true, /*selectLast=*/false, /*keepdims=*/true);
  Value iota = iotaAlong(nc.loc, xt.getRank(), a, n, indexFloatType(n));
  Value y = castTo(nc.loc, compare<graph::EqualOp>(b, nc.loc, iota, idx), xt.getElementType());
  if (y.getType() != *t)
    y = reshape(nc.loc, y, t->getShape());
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
    auto kv = getConstantInts(nc, *kIn, "k input '" + nc.node.input(1) + "'");
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
  if (!isGraphFloat(t.getElementType())) {
    // Integers of up to 32 bits are exact in f64 (the graph's reductions are float-only).
    auto it = dyn_cast<IntegerType>(t.getElementType());
    if (!it || it.getWidth() == 1 || it.getWidth() > 32)
      return nodeError(nc) << "input element type " << t.getElementType()
                           << " is not supported (floats and integers of up to 32 bits)";
    key = castTo(loc, key, b.getF64Type());
  }
  Type keyElem = cast<RankedTensorType>(key.getType()).getElementType();
  Type fi = indexFloatType(n);
  // Elements of the [.., n, n, ..] comparison (nullopt on overflow).
  auto total = product(t.getShape());
  std::optional<int64_t> pairwise = total ? product({*total / n, n, n}) : std::nullopt;
  Value idxF;
  if (pairwise && *pairwise <= kTopKPairwiseLimit) {
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
