//===- StridedView.cpp - chains of graph view ops as strided views ---------===//
#include "aicc/Dialect/Graph/IR/StridedView.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

namespace aicc::graph {

/// The product of `dims`, or none on overflow.
static std::optional<int64_t> checkedProduct(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    auto q = llvm::checkedMul(p, d);
    if (!q || d < 0)
      return std::nullopt;
    p = *q;
  }
  return p;
}

namespace {
using Mode = ViewMode;
using Modes = ViewModes;

/// `m` without size-1 modes, adjacent modes that are one run merged ((a, b * s), (b, s)
/// -> (a * b, s)).
Modes simplify(ArrayRef<Mode> m) {
  Modes out;
  for (Mode x : m) {
    if (x.size == 1)
      continue;
    if (!out.empty() && out.back().stride == x.size * x.stride)
      out.back() = {out.back().size * x.size, x.stride};
    else
      out.push_back(x);
  }
  return out;
}

/// The dims of `newShape` over the modes of all of `dims` (row-major, outermost first),
/// or none when a new dim's boundary falls inside a mode it cannot split (the sizes do
/// not divide).
std::optional<SmallVector<Modes>> reshapeModes(ArrayRef<Modes> dims, ArrayRef<int64_t> newShape) {
  Modes flat;
  for (const Modes &d : dims)
    flat.append(d.begin(), d.end());
  flat = simplify(flat);
  SmallVector<Modes> out;
  size_t i = 0;
  for (int64_t m : newShape) {
    Modes dim;
    int64_t rem = m;
    while (rem > 1) {
      if (i == flat.size())
        return std::nullopt;
      Mode &f = flat[i];
      if (f.size <= rem) {
        if (rem % f.size)
          return std::nullopt;
        dim.push_back(f);
        rem /= f.size;
        ++i;
      } else {
        if (f.size % rem)
          return std::nullopt;
        dim.push_back({rem, f.stride * (f.size / rem)});
        f.size /= rem;
        rem = 1;
      }
    }
    out.push_back(simplify(dim));
  }
  if (i != flat.size())
    return std::nullopt;
  return out;
}

/// The strides of single-mode dims (size-1 dims: the contiguous value), or none when some
/// dim still has several modes.
std::optional<SmallVector<int64_t>> stridesOf(ArrayRef<Modes> dims, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> st(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k].size() > 1)
      return std::nullopt;
    st[k] = !dims[k].empty()      ? dims[k][0].stride
            : k + 1 < dims.size() ? shape[k + 1] * st[k + 1]
                                  : 1;
  }
  return st;
}

Modes single(int64_t size, int64_t stride) { return simplify({Mode{size, stride}}); }
} // namespace

std::optional<SmallVector<int64_t>>
reshapeStrides(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides, ArrayRef<int64_t> newShape) {
  auto n = checkedProduct(shape), m = checkedProduct(newShape);
  if (!n || !m || *n != *m || *n == 0 || shape.size() != strides.size())
    return std::nullopt;
  SmallVector<Modes> dims;
  for (auto [size, stride] : llvm::zip(shape, strides))
    dims.push_back(single(size, stride));
  auto out = reshapeModes(dims, newShape);
  if (!out)
    return std::nullopt;
  return stridesOf(*out, newShape);
}

SmallVector<Operation *> viewChain(Value v, llvm::function_ref<bool(Operation *)> follow) {
  SmallVector<Operation *> chain;
  while (Operation *d = v.getDefiningOp()) {
    if (!isa<TransposeOp, ReshapeOp, SliceOp, ExpandOp>(d) || !follow(d))
      break;
    auto in = dyn_cast<RankedTensorType>(d->getOperand(0).getType());
    auto out = dyn_cast<RankedTensorType>(d->getResult(0).getType());
    if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape())
      break;
    chain.push_back(d);
    v = d->getOperand(0);
  }
  return chain;
}

std::optional<ModeView> composeModes(Value v, ArrayRef<Operation *> chain, size_t depth) {
  if (depth > chain.size())
    return std::nullopt;
  ModeView view;
  view.root = depth == 0 ? v : chain[depth - 1]->getOperand(0);
  auto rootT = dyn_cast<RankedTensorType>(view.root.getType());
  if (!rootT || !rootT.hasStaticShape())
    return std::nullopt;
  auto total = checkedProduct(rootT.getShape());
  if (!total || *total == 0)
    return std::nullopt;
  SmallVector<int64_t> shape(rootT.getShape());
  SmallVector<Modes> &dims = view.dims;
  int64_t stride = *total;
  for (int64_t size : shape) {
    stride /= size;
    dims.push_back(single(size, stride));
  }
  for (size_t i = depth; i-- > 0;) {
    Operation *op = chain[i];
    ArrayRef<int64_t> outShape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    if (auto t = dyn_cast<TransposeOp>(op)) {
      SmallVector<Modes> permuted; // result dim k = input dim perm[k]
      for (int64_t p : t.getPerm())
        permuted.push_back(dims[p]);
      dims = std::move(permuted);
    } else if (isa<ExpandOp>(op)) {
      // numpy broadcast, right-aligned: new leading dims and size-1 dims that grow read
      // the same element again (stride 0).
      SmallVector<Modes> out(outShape.size());
      size_t lead = outShape.size() - shape.size();
      for (size_t k = 0; k < outShape.size(); ++k)
        out[k] =
            k < lead || shape[k - lead] != outShape[k] ? single(outShape[k], 0) : dims[k - lead];
      dims = std::move(out);
    } else if (auto s = dyn_cast<SliceOp>(op)) {
      for (auto [k, start] : llvm::enumerate(s.getStarts())) {
        int64_t step = s.getSteps()[k];
        if (start == 0 && step == 1 && outShape[k] == shape[k])
          continue; // the whole dim
        if (step <= 0 || dims[k].size() != 1)
          return std::nullopt; // a dim of several modes (or of one element sliced)
        int64_t st = dims[k][0].stride;
        view.offset += start * st;
        dims[k] = single(outShape[k], st * step);
      }
    } else {
      auto out = reshapeModes(dims, outShape);
      if (!out)
        return std::nullopt;
      dims = std::move(*out);
    }
    shape.assign(outShape.begin(), outShape.end());
  }
  view.shape = std::move(shape);
  return view;
}

std::optional<StridedView> composeView(Value v, ArrayRef<Operation *> chain, size_t depth) {
  auto m = composeModes(v, chain, depth);
  if (!m)
    return std::nullopt;
  auto strides = stridesOf(m->dims, m->shape);
  if (!strides)
    return std::nullopt;
  StridedView view;
  view.root = m->root;
  view.offset = m->offset;
  view.shape = std::move(m->shape);
  view.strides = std::move(*strides);
  return view;
}

} // namespace aicc::graph
