//===- AccumulatorEpilogue.cpp - tile epilogues on MMA accumulator layouts ---===//
//
// See AccumulatorEpilogue.h.
//===----------------------------------------------------------------------===//
#include "AccumulatorEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {
bool isTileType(Type t) { return isa<RankedTensorType>(t); }
bool touchesTiles(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isTileType) ||
         llvm::any_of(op->getResultTypes(), isTileType);
}
} // namespace

Value AccumulatorEpilogue::add(Value v, int64_t c) {
  return c ? b.create<arith::AddIOp>(loc, v, b.create<arith::ConstantIntOp>(loc, b.getI32Type(), c))
                 .getResult()
           : v;
}

bool AccumulatorEpilogue::isSupported(Operation *op) {
  if (!touchesTiles(op))
    return true;
  if (isa<tl::SplatOp, tl::MakeRangeOp, tl::ExpandDimsOp, tl::BroadcastOp, tl::LoadOp,
          tl::StoreOp, tl::BlockLoadOp>(op))
    return true;
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) && op->getNumRegions() == 0;
}

LogicalResult AccumulatorEpilogue::emitAfter(Block &block, Operation *after) {
  for (Operation &op : block) {
    if (op.isBeforeInBlock(after) || &op == after)
      continue;
    if (auto st = dyn_cast<tl::StoreOp>(op)) {
      if (failed(store(st)))
        return failure();
      continue;
    }
    if (op.hasTrait<OpTrait::IsTerminator>() || touchesTiles(&op))
      continue;
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return op.emitError("tensor-core epilogue: unsupported op after the K loop"), failure();
    b.clone(op, map);
  }
  return success();
}

SmallVector<Value> AccumulatorEpilogue::loadElems(tl::LoadOp l, ArrayRef<Value> offs, ArrayRef<Value> mask) {
  Type et = l.getType().getElementType();
  Value ptr = scalar(l.getPtr());
  TypedAttr padAttr = l.getPaddingAttr() ? cast<TypedAttr>(l.getPaddingAttr())
                      : isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 0.0))
                                           : TypedAttr(b.getIntegerAttr(et, 0));
  Value pad = b.create<arith::ConstantOp>(loc, padAttr);
  Value zero = b.create<arith::ConstantIntOp>(loc, b.getI32Type(), 0);
  SmallVector<Value> out;
  for (size_t i = 0; i < offs.size(); ++i) {
    Value o = mask.empty() ? offs[i] : b.create<arith::SelectOp>(loc, mask[i], offs[i], zero);
    Value idx = b.create<arith::IndexCastOp>(loc, b.getIndexType(), o);
    Value v = b.create<memref::LoadOp>(loc, ptr, ValueRange{idx});
    out.push_back(mask.empty() ? v : b.create<arith::SelectOp>(loc, mask[i], v, pad).getResult());
  }
  return out;
}

FailureOr<SmallVector<Value>>
AccumulatorEpilogue::evalElementwise(Operation *op, int n,
                          function_ref<FailureOr<SmallVector<Value>>(Value)> ev) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || op->getNumResults() != 1 ||
      op->getNumRegions())
    return op->emitError("tensor-core epilogue: epilogue op not supported"), failure();
  SmallVector<SmallVector<Value>> ins;
  for (Value o : op->getOperands()) {
    if (!isTileType(o.getType()))
      return op->emitError("tensor-core epilogue: mixed scalar/tile operands"), failure();
    auto e = ev(o);
    if (failed(e))
      return failure();
    ins.push_back(*e);
  }
  Type rt = cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  SmallVector<Value> out;
  for (int i = 0; i < n; ++i) {
    SmallVector<Value> operands;
    for (auto &in : ins)
      operands.push_back(in[i]);
    OperationState st(loc, op->getName().getStringRef(), operands, TypeRange{rt}, op->getAttrs());
    out.push_back(b.create(st)->getResult(0));
  }
  return out;
}

FailureOr<SmallVector<Value>> AccumulatorEpilogue::evalAlong(Value v, int d) {
  auto key = std::make_pair(v, d);
  if (auto it = memo1D.find(key); it != memo1D.end())
    return it->second;
  int n = numClasses(d);
  SmallVector<Value> out;
  Operation *op = v.getDefiningOp();
  if (!op)
    return emitError(loc, "tensor-core epilogue: 1-D tile without a defining op"), failure();
  if (auto r = dyn_cast<tl::MakeRangeOp>(op)) {
    for (int c = 0; c < n; ++c)
      out.push_back(add(d == 0 ? layout.rowCoords[c] : layout.colCoords[c], r.getStart()));
  } else if (auto s = dyn_cast<tl::SplatOp>(op)) {
    out.assign(n, scalar(s.getSrc()));
  } else if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    if (!dense || !dense.isSplat())
      return op->emitError("tensor-core epilogue: non-splat constant tile"), failure();
    out.assign(n, b.create<arith::ConstantOp>(loc, dense.getSplatValue<TypedAttr>()));
  } else if (auto l = dyn_cast<tl::LoadOp>(op)) {
    auto offs = evalAlong(l.getOffsets(), d);
    if (failed(offs))
      return failure();
    SmallVector<Value> mask;
    if (l.getMask()) {
      auto m = evalAlong(l.getMask(), d);
      if (failed(m))
        return failure();
      mask = *m;
    }
    out = loadElems(l, *offs, mask);
  } else {
    auto r = evalElementwise(op, n, [&](Value x) { return evalAlong(x, d); });
    if (failed(r))
      return failure();
    out = *r;
  }
  memo1D[key] = out;
  return out;
}

FailureOr<SmallVector<Value>> AccumulatorEpilogue::eval2D(Value v) {
  if (auto it = memo2D.find(v); it != memo2D.end())
    return it->second;
  int n = layout.regs();
  SmallVector<Value> out;
  if (v == accTile) {
    out = acc;
  } else if (auto e = v.getDefiningOp<tl::ExpandDimsOp>()) {
    int d = 1 - e.getAxis();
    auto a = evalAlong(e.getSrc(), d);
    if (failed(a))
      return failure();
    for (int i = 0; i < n; ++i)
      out.push_back((*a)[d == 0 ? layout.rowClass[i] : layout.colClass[i]]);
  } else if (auto bc = v.getDefiningOp<tl::BroadcastOp>()) {
    auto s = eval2D(bc.getSrc());
    if (failed(s))
      return failure();
    out = *s;
  } else if (auto s = v.getDefiningOp<tl::SplatOp>()) {
    out.assign(n, scalar(s.getSrc()));
  } else if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    if (!dense || !dense.isSplat())
      return cst->emitError("tensor-core epilogue: non-splat constant tile"), failure();
    out.assign(n, b.create<arith::ConstantOp>(loc, dense.getSplatValue<TypedAttr>()));
  } else if (auto l = v.getDefiningOp<tl::LoadOp>()) {
    auto offs = eval2D(l.getOffsets());
    if (failed(offs))
      return failure();
    SmallVector<Value> mask;
    if (l.getMask()) {
      auto m = eval2D(l.getMask());
      if (failed(m))
        return failure();
      mask = *m;
    }
    out = loadElems(l, *offs, mask);
  } else if (Operation *op = v.getDefiningOp()) {
    auto r = evalElementwise(op, n, [&](Value x) { return eval2D(x); });
    if (failed(r))
      return failure();
    out = *r;
  } else {
    return emitError(loc, "tensor-core epilogue: tile block argument in the epilogue"),
           failure();
  }
  memo2D[v] = out;
  return out;
}

LogicalResult AccumulatorEpilogue::store(tl::StoreOp st) {
  if (st.getValue().getType().getRank() != 2)
    return st->emitError("tensor-core epilogue: store of a non-2-D tile"), failure();
  auto vals = eval2D(st.getValue());
  auto offs = eval2D(st.getOffsets());
  if (failed(vals) || failed(offs))
    return failure();
  SmallVector<Value> mask;
  if (st.getMask()) {
    auto m = eval2D(st.getMask());
    if (failed(m))
      return failure();
    mask = *m;
  }
  Value ptr = scalar(st.getPtr());
  Type et = st.getValue().getType().getElementType();
  int64_t eb = std::max<int64_t>(1, et.getIntOrFloatBitWidth() / 8);
  auto storeOne = [&](OpBuilder &sb, int i) {
    Value idx = sb.create<arith::IndexCastOp>(loc, sb.getIndexType(), (*offs)[i]);
    sb.create<memref::StoreOp>(loc, (*vals)[i], ptr, ValueRange{idx});
  };
  auto storeMasked = [&](OpBuilder &sb, int i) {
    if (mask.empty())
      return storeOne(sb, i);
    auto ifOp = sb.create<scf::IfOp>(loc, mask[i], /*withElse=*/false);
    OpBuilder ib = ifOp.getThenBodyBuilder();
    storeOne(ib, i);
  };
  // Registers 2j and 2j+1 hold adjacent columns: one 2-element store when their offsets are
  // consecutive and the first is aligned to the pair (checked at run time: LLVM folds the
  // check where the offsets are visibly x and x+1), else one masked store each.
  Value one = b.create<arith::ConstantIntOp>(loc, b.getI32Type(), 1);
  Value zero = b.create<arith::ConstantIntOp>(loc, b.getI32Type(), 0);
  auto pairT = VectorType::get({2}, et);
  for (int i = 0; i + 1 < layout.regs(); i += 2) {
    Value o0 = (*offs)[i], o1 = (*offs)[i + 1];
    Value ok = b.create<arith::AndIOp>(
        loc,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                b.create<arith::SubIOp>(loc, o1, o0), one),
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                b.create<arith::AndIOp>(loc, o0, one), zero));
    if (!mask.empty())
      ok = b.create<arith::AndIOp>(loc, ok, b.create<arith::AndIOp>(loc, mask[i], mask[i + 1]));
    auto ifOp = b.create<scf::IfOp>(loc, ok, /*withElse=*/true);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value v = tb.create<vector::FromElementsOp>(loc, pairT, ValueRange{(*vals)[i], (*vals)[i + 1]});
      Value idx = tb.create<arith::IndexCastOp>(loc, tb.getIndexType(), o0);
      tb.create<vector::StoreOp>(loc, v, ptr, ValueRange{idx}, /*nontemporal=*/false,
                                 llvm::MaybeAlign(2 * eb));
    }
    {
      OpBuilder eb2 = ifOp.getElseBodyBuilder();
      storeMasked(eb2, i);
      storeMasked(eb2, i + 1);
    }
  }
  return success();
}

