//===- DataMovementOps.cpp - reference of reshape, transpose, slice, gather ... ----===//
//
// Every op here computes, for each result element, which input element it copies (or
// that it is a pad value): one index formula per op.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::reference;
using namespace aicc::reference::detail;

namespace {

InFlightDiagnostic evalError(Operation *op) { return op->emitError("reference evaluator: "); }

/// dst[i] = src[j].
void copyElement(Tensor &dst, int64_t i, const Tensor &src, int64_t j) {
  if (dst.isFloat())
    dst.floats[i] = src.floats[j];
  else
    dst.ints[i] = src.ints[j];
}

/// Builds the result of `op` by r[i] = x[source(resultIndex)] for every result element.
template <typename F> EvalResult gatherEach(Operation *op, const Tensor &x, F source) {
  Tensor r = Tensor::zeros(resultType(op));
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    copyElement(r, i, x, source(ArrayRef<int64_t>(idx)));
  }
  return r;
}

// Reshape: the same row-major elements under the result's shape.
EvalResult evalReshape(ReshapeOp op, const Tensor &x) {
  Tensor r = Tensor::zeros(resultType(op));
  if (r.numElements() != x.numElements())
    return evalError(op) << "reshape changes the element count", failure();
  r.floats = x.floats;
  r.ints = x.ints;
  return r;
}

// ONNX Transpose: result dim i is input dim perm[i]: r[idx] = x[j] with j[perm[i]] = idx[i].
EvalResult evalTranspose(TransposeOp op, const Tensor &x) {
  ArrayRef<int64_t> perm = op.getPerm();
  if (perm.size() != x.shape.size() ||
      llvm::any_of(perm, [&](int64_t p) { return p < 0 || p >= (int64_t)perm.size(); }))
    return evalError(op) << "perm is not a permutation of the dims", failure();
  SmallVector<int64_t> src(perm.size());
  return gatherEach(op, x, [&](ArrayRef<int64_t> idx) {
    for (size_t i = 0; i < perm.size(); ++i)
      src[perm[i]] = idx[i];
    return ravel(src, x.shape);
  });
}

// Slice (ONNX Slice after clamping): r[idx] = x[starts + idx * steps].
EvalResult evalSlice(SliceOp op, const Tensor &x) {
  ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
  SmallVector<int64_t> src(x.shape.size());
  Tensor r = Tensor::zeros(resultType(op));
  if (starts.size() != x.shape.size() || steps.size() != x.shape.size())
    return evalError(op) << "starts / steps need one entry per dim", failure();
  for (size_t d = 0; d < x.shape.size(); ++d) {
    int64_t n = r.shape[d];
    if (n && (starts[d] < 0 || starts[d] >= x.shape[d] || starts[d] + (n - 1) * steps[d] < 0 ||
              starts[d] + (n - 1) * steps[d] >= x.shape[d]))
      return evalError(op) << "slice of dim " << d << " reads outside the input", failure();
  }
  return gatherEach(op, x, [&](ArrayRef<int64_t> idx) {
    for (size_t d = 0; d < idx.size(); ++d)
      src[d] = starts[d] + idx[d] * steps[d];
    return ravel(src, x.shape);
  });
}

// ONNX Pad (non-negative pads): constant writes `value` outside the input; reflect
// mirrors without repeating the edge (x[-1] = x[1]); edge repeats the edge element; wrap
// (opset 19) reads x[i mod size].
EvalResult evalPad(PadOp op, const Tensor &x) {
  ArrayRef<int64_t> low = op.getLow();
  StringRef mode = op.getMode();
  double value = op.getValue().convertToDouble();
  Tensor r = Tensor::zeros(resultType(op));
  if (low.size() != x.shape.size())
    return evalError(op) << "pads need one entry per dim", failure();
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return evalError(op) << "unknown pad mode '" << mode << "'", failure();
  SmallVector<int64_t> idx, src(x.shape.size());
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t p = idx[d] - low[d], size = x.shape[d];
      if (p < 0 || p >= size) {
        inside = false;
        if (size == 0)
          p = -1; // nothing to reflect or repeat
        else if (mode == "edge")
          p = p < 0 ? 0 : size - 1;
        else if (mode == "wrap")
          p = (p % size + size) % size;
        else if (mode == "reflect" && size > 1)
          // Mirror into [0, size) with period 2 (size - 1).
          for (int64_t period = 2 * (size - 1); p < 0 || p >= size;)
            p = p < 0 ? -p : period - p;
        else if (mode == "reflect")
          p = 0;
      }
      src[d] = p;
    }
    if (inside || mode != "constant") {
      for (size_t d = 0; d < idx.size(); ++d)
        if (src[d] < 0)
          return evalError(op) << "cannot pad an empty dim in mode '" << mode << "'", failure();
      copyElement(r, i, x, ravel(src, x.shape));
    } else if (r.isFloat()) {
      r.floats[i] = value;
    } else {
      r.ints[i] = int64_t(value);
    }
  }
  return r;
}

// ONNX Concat along `axis`.
EvalResult evalConcat(ConcatOp op, Operands in) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t axis = op.getAxis();
  if (axis < 0 || axis >= (int64_t)r.shape.size())
    return evalError(op) << "concat axis out of range", failure();
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    int64_t p = idx[axis];
    size_t k = 0;
    while (k < in.size() && p >= in[k]->shape[axis])
      p -= in[k++]->shape[axis];
    if (k == in.size())
      return evalError(op) << "concat inputs do not fill the result", failure();
    idx[axis] = p;
    copyElement(r, i, *in[k], ravel(idx, in[k]->shape));
  }
  return r;
}

// ONNX Tile: r[idx] = x[idx mod input shape].
EvalResult evalTile(TileOp op, const Tensor &x) {
  SmallVector<int64_t> src(x.shape.size());
  return gatherEach(op, x, [&](ArrayRef<int64_t> idx) {
    for (size_t d = 0; d < idx.size(); ++d)
      src[d] = idx[d] % x.shape[d];
    return ravel(src, x.shape);
  });
}

// ONNX Expand: numpy broadcast to the result shape.
EvalResult evalExpand(ExpandOp op, const Tensor &x) {
  return gatherEach(op, x, [&](ArrayRef<int64_t> idx) { return broadcastIndex(idx, x.shape); });
}

/// Reads index `v` of an axis of size `size`: negative counts from the end. Fails
/// outside [-size, size).
FailureOr<int64_t> normalizeIndex(Operation *op, int64_t v, int64_t size) {
  if (v < -size || v >= size)
    return evalError(op) << "index " << v << " out of range [" << -size << ", " << size << ")",
           failure();
  return v < 0 ? v + size : v;
}

// ONNX Gather: r[o..., q..., i...] = x[o..., indices[q...], i...].
EvalResult evalGather(GatherOp op, const Tensor &x, const Tensor &indices) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t axis = op.getAxis(), q = indices.shape.size();
  if (indices.isFloat())
    return evalError(op) << "gather indices must be integers", failure();
  if (axis < 0 || axis >= (int64_t)x.shape.size() || r.shape.size() != x.shape.size() - 1 + q)
    return evalError(op) << "gather axis or result rank do not match", failure();
  SmallVector<int64_t> idx, src(x.shape.size());
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    ArrayRef<int64_t> qIdx = ArrayRef<int64_t>(idx).slice(axis, q);
    auto k = normalizeIndex(op, indices.ints[ravel(qIdx, indices.shape)], x.shape[axis]);
    if (failed(k))
      return failure();
    for (int64_t d = 0; d < axis; ++d)
      src[d] = idx[d];
    src[axis] = *k;
    for (int64_t d = axis + 1; d < (int64_t)x.shape.size(); ++d)
      src[d] = idx[d - 1 + q];
    copyElement(r, i, x, ravel(src, x.shape));
  }
  return r;
}

// ONNX GatherElements: r[idx] = x[idx with dim axis replaced by indices[idx]].
EvalResult evalGatherElements(GatherElementsOp op, const Tensor &x, const Tensor &indices) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t axis = op.getAxis();
  if (indices.isFloat())
    return evalError(op) << "gather_elements indices must be integers", failure();
  if (axis < 0 || axis >= (int64_t)x.shape.size() || indices.shape.size() != x.shape.size())
    return evalError(op) << "gather_elements axis or ranks do not match", failure();
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    auto k = normalizeIndex(op, indices.ints[i], x.shape[axis]);
    if (failed(k))
      return failure();
    idx[axis] = *k;
    for (size_t d = 0; d < idx.size(); ++d)
      if (idx[d] >= x.shape[d])
        return evalError(op) << "indices are larger than the input outside the axis", failure();
    copyElement(r, i, x, ravel(idx, x.shape));
  }
  return r;
}

// ONNX Trilu over the last two dims (i, j): upper keeps j - i >= k, lower keeps j - i <= k,
// everything else is 0.
EvalResult evalTrilu(TriluOp op, const Tensor &x) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t rank = x.shape.size(), k = op.getK();
  bool upper = op.getUpper();
  if (rank < 2)
    return evalError(op) << "trilu needs rank >= 2", failure();
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    int64_t diff = idx[rank - 1] - idx[rank - 2];
    if (upper ? diff >= k : diff <= k)
      copyElement(r, i, x, i);
  }
  return r;
}

/// How a scatter combines an update u with the element e already there (ONNX
/// ScatterElements-18 / ScatterND-18 `reduction`).
enum class ScatterKind { None, Add, Mul, Max, Min };

FailureOr<ScatterKind> scatterKind(Operation *op, StringRef reduction) {
  auto k = llvm::StringSwitch<std::optional<ScatterKind>>(reduction)
               .Case("none", ScatterKind::None)
               .Case("add", ScatterKind::Add)
               .Case("mul", ScatterKind::Mul)
               .Case("max", ScatterKind::Max)
               .Case("min", ScatterKind::Min)
               .Default(std::nullopt);
  if (!k)
    return evalError(op) << "unknown scatter reduction '" << reduction << "'", failure();
  return *k;
}

/// r[i] = combine(r[i], u[j]). Integers wrap later (the driver wraps every integer result).
void scatterElement(Tensor &r, int64_t i, const Tensor &u, int64_t j, ScatterKind kind) {
  if (r.isFloat()) {
    double &e = r.floats[i], v = u.floats[j];
    switch (kind) {
    case ScatterKind::None: e = v; break;
    case ScatterKind::Add: e = e + v; break;
    case ScatterKind::Mul: e = e * v; break;
    // NaN propagates, as numpy's maximum / minimum (the ONNX reference) do.
    case ScatterKind::Max: e = (std::isnan(e) || std::isnan(v)) ? NAN : std::max(e, v); break;
    case ScatterKind::Min: e = (std::isnan(e) || std::isnan(v)) ? NAN : std::min(e, v); break;
    }
    return;
  }
  int64_t &e = r.ints[i], v = u.ints[j];
  switch (kind) {
  case ScatterKind::None: e = v; break;
  case ScatterKind::Add: e = int64_t(uint64_t(e) + uint64_t(v)); break;
  case ScatterKind::Mul: e = int64_t(uint64_t(e) * uint64_t(v)); break;
  case ScatterKind::Max: e = std::max(e, v); break;
  case ScatterKind::Min: e = std::min(e, v); break;
  }
}

/// Integer-typed result elements are wrapped after each combine so that a chain of
/// duplicate-index adds / muls wraps like the integer type does.
void wrapElement(Tensor &r, int64_t i) {
  if (!r.isFloat())
    if (auto it = dyn_cast<IntegerType>(r.elementType))
      r.ints[i] = wrapToWidth(r.ints[i], it);
}

// ONNX ScatterElements-18: result = data; for every position i of updates (row-major),
// result[i with dim axis := indices[i]] (op)= updates[i].
EvalResult evalScatterElements(ScatterElementsOp op, const Tensor &data, const Tensor &indices,
                               const Tensor &updates) {
  auto kind = scatterKind(op, op.getReduction());
  if (failed(kind))
    return failure();
  int64_t axis = op.getAxis(), rank = data.shape.size();
  if (indices.isFloat())
    return evalError(op) << "scatter_elements indices must be integers", failure();
  if (axis < 0 || axis >= rank || (int64_t)indices.shape.size() != rank ||
      ArrayRef<int64_t>(indices.shape) != ArrayRef<int64_t>(updates.shape) ||
      updates.isFloat() != data.isFloat())
    return evalError(op) << "scatter_elements axis, ranks or shapes do not match", failure();
  Tensor r = data;
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = updates.numElements(); i < n; ++i) {
    unravel(i, updates.shape, idx);
    auto k = normalizeIndex(op, indices.ints[i], data.shape[axis]);
    if (failed(k))
      return failure();
    idx[axis] = *k;
    for (int64_t d = 0; d < rank; ++d)
      if (idx[d] >= data.shape[d])
        return evalError(op) << "updates are larger than the data outside the axis", failure();
    int64_t j = ravel(idx, data.shape);
    scatterElement(r, j, updates, i, *kind);
    wrapElement(r, j);
  }
  return r;
}

// ONNX ScatterND-18: indices [I..., k], updates [I...] + data.shape[k:]; result = data; for
// every tuple t (row-major) the slice result[indices[t]] (op)= updates[t].
EvalResult evalScatterND(ScatterNDOp op, const Tensor &data, const Tensor &indices,
                         const Tensor &updates) {
  auto kind = scatterKind(op, op.getReduction());
  if (failed(kind))
    return failure();
  int64_t rank = data.shape.size(), q = indices.shape.size();
  if (indices.isFloat())
    return evalError(op) << "scatter_nd indices must be integers", failure();
  if (q < 1 || updates.isFloat() != data.isFloat())
    return evalError(op) << "scatter_nd indices need rank >= 1", failure();
  int64_t k = indices.shape.back(), axis = op.getAxis();
  if (k > rank || axis < 0 || axis > rank - k)
    return evalError(op) << "scatter_nd index tuples (axis " << axis << ", " << k
                         << " coordinates) do not fit the data's rank",
           failure();
  // updates.shape must be indices.shape[:-1] + data.shape[:axis] + data.shape[axis+k:].
  SmallVector<int64_t> want(indices.shape.begin(), indices.shape.end() - 1);
  want.append(data.shape.begin(), data.shape.begin() + axis);
  want.append(data.shape.begin() + axis + k, data.shape.end());
  if (ArrayRef<int64_t>(want) != ArrayRef<int64_t>(updates.shape))
    return evalError(op) << "scatter_nd updates do not have shape indices.shape[:-1] + "
                            "data.shape[:axis] + data.shape[axis + k:]",
           failure();
  // A slice element e = (outer, inner): outer over data.shape[:axis], inner over
  // data.shape[axis + k:] (axis 0: e is the offset within the slice).
  int64_t inner = 1, outer = 1, span = 1;
  for (int64_t d = axis + k; d < rank; ++d)
    inner *= data.shape[d];
  for (int64_t d = 0; d < axis; ++d)
    outer *= data.shape[d];
  for (int64_t d = axis; d < axis + k; ++d)
    span *= data.shape[d];
  int64_t slice = outer * inner;
  int64_t tuples = 1;
  for (int64_t d = 0; d + 1 < q; ++d)
    tuples *= indices.shape[d];
  Tensor r = data;
  SmallVector<int64_t> start(k, 0);
  SmallVector<int64_t> tupleShape(data.shape.begin() + axis, data.shape.begin() + axis + k);
  for (int64_t t = 0; t < tuples; ++t) {
    for (int64_t d = 0; d < k; ++d) {
      auto v = normalizeIndex(op, indices.ints[t * k + d], data.shape[axis + d]);
      if (failed(v))
        return failure();
      start[d] = *v;
    }
    int64_t row = ravel(start, tupleShape);
    for (int64_t e = 0; e < slice; ++e) {
      int64_t at = (e / inner) * span * inner + row * inner + e % inner;
      scatterElement(r, at, updates, t * slice + e, *kind);
      wrapElement(r, at);
    }
  }
  return r;
}

} // namespace

std::optional<EvalResult> aicc::reference::detail::evalDataMovementOp(Operation *op, Operands in) {
  return llvm::TypeSwitch<Operation *, std::optional<EvalResult>>(op)
      .Case([&](ReshapeOp o) { return evalReshape(o, *in[0]); })
      .Case([&](TransposeOp o) { return evalTranspose(o, *in[0]); })
      .Case([&](SliceOp o) { return evalSlice(o, *in[0]); })
      .Case([&](PadOp o) { return evalPad(o, *in[0]); })
      .Case([&](ConcatOp o) { return evalConcat(o, in); })
      .Case([&](TileOp o) { return evalTile(o, *in[0]); })
      .Case([&](ExpandOp o) { return evalExpand(o, *in[0]); })
      .Case([&](GatherOp o) { return evalGather(o, *in[0], *in[1]); })
      .Case([&](GatherElementsOp o) { return evalGatherElements(o, *in[0], *in[1]); })
      .Case([&](TriluOp o) { return evalTrilu(o, *in[0]); })
      .Case([&](ScatterElementsOp o) { return evalScatterElements(o, *in[0], *in[1], *in[2]); })
      .Case([&](ScatterNDOp o) { return evalScatterND(o, *in[0], *in[1], *in[2]); })
      .Default([](Operation *) { return std::nullopt; });
}
