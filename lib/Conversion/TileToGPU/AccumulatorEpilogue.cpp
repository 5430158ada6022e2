//===- AccumulatorEpilogue.cpp - tile epilogues on MMA accumulator layouts ---===//
//
// See AccumulatorEpilogue.h.
//===----------------------------------------------------------------------===//
#include "AccumulatorEpilogue.h"
#include "aicc/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {
bool isTileType(Type t) { return isa<RankedTensorType>(t); }
} // namespace

std::string aicc::stagedTileRefusal(tl::BlockStoreOp st, func::FuncOp fn, int64_t BM,
                                    int64_t BN) {
  if (st->getParentOp() != fn.getOperation())
    return "the block store is not at the kernel's top level";
  auto vt = st.getValue().getType();
  if (vt.getShape() != ArrayRef<int64_t>{BM, BN})
    return "the stored tile is not [BLOCK_M, BLOCK_N]";
  Type e = vt.getElementType();
  if (!(e.isF16() || e.isBF16() || e.isF32()))
    return "the stored element type is not f16, bf16 or f32";
  return "";
}

bool aicc::touchesTiles(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isTileType) ||
         llvm::any_of(op->getResultTypes(), isTileType);
}

LogicalResult aicc::cloneScalarOps(OpBuilder &b, Block &src, IRMapping &map, Operation *stopAt,
                                   tl::ScheduleAttr sched, StringRef pass) {
  for (Operation &op : src) {
    if (&op == stopAt)
      break;
    if (isa<func::ReturnOp, scf::YieldOp>(op) || touchesTiles(&op))
      continue;
    if (op.getNumResults() && map.contains(op.getResult(0)))
      continue; // program ids
    if (auto n = dyn_cast<tl::NumProgramsOp>(op)) {
      map.map(n.getResult(), arith::ConstantIntOp::create(b, op.getLoc(), b.getI32Type(),
                                                          sched.getGrid()[n.getAxis()]));
      continue;
    }
    // (A loop of scalars, the attention's key_bound rows: cloned whole.)
    if (op.getNumRegions() && (!isa<scf::ForOp>(op) || op.walk([](Operation *in) {
                                                           return touchesTiles(in)
                                                                      ? WalkResult::interrupt()
                                                                      : WalkResult::advance();
                                                         }).wasInterrupted()))
      return op.emitError() << pass << ": scalar op with regions", failure();
    b.clone(op, map);
  }
  return success();
}

std::pair<Value, Value> aicc::groupedTilePids(OpBuilder &b, Location loc, Value mn, int64_t gm,
                                              int64_t gn, int64_t groupM) {
  return groupedTilePids(
      b, loc, mn, arith::ConstantIntOp::create(b, loc, b.getI32Type(), gm).getResult(), gn, groupM);
}

Value aicc::runPrograms(OpBuilder &b, Location loc, func::FuncOp fn, ArrayRef<Value> args,
                        int64_t axis, int64_t boundPrograms) {
  auto sg = fn->getAttrOfType<DenseI64ArrayAttr>(tl::kSymGridAttrName);
  auto sv = fn->getAttrOfType<IntegerAttr>(tl::kSymValuesAttrName);
  if (!sg || !sv || sg.size() != 5 || sg[0] != axis || sg[2] < 1 || sg[3] < 1 || sg[4] < 1 ||
      sv.getInt() < 0 || sv.getInt() >= (int64_t)args.size())
    return {};
  auto mt = dyn_cast<MemRefType>(args[sv.getInt()].getType());
  if (!mt || !mt.getElementType().isInteger(32) || mt.getRank() != 1 || sg[1] < 0 ||
      sg[1] >= mt.getDimSize(0))
    return {};
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  Value v = memref::LoadOp::create(b, loc, args[sv.getInt()],
                                   ValueRange{arith::ConstantIndexOp::create(b, loc, sg[1])});
  Value ceil = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, v, c(sg[2])), c(sg[3] - 1)),
      c(sg[3]));
  Value programs = arith::MulIOp::create(b, loc, ceil, c(sg[4]));
  return arith::MinUIOp::create(b, loc, programs, c(boundPrograms));
}

std::pair<Value, Value> aicc::groupedTilePids(OpBuilder &b, Location loc, Value mn, Value gm,
                                              int64_t gn, int64_t groupM) {
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  int64_t perGroup = groupM * gn;
  Value group = arith::DivUIOp::create(b, loc, mn, c(perGroup));
  Value firstM = arith::MulIOp::create(b, loc, group, c(groupM));
  Value sizeM =
      arith::MinUIOp::create(b, loc, arith::SubIOp::create(b, loc, gm, firstM), c(groupM));
  Value inGroup = arith::RemUIOp::create(b, loc, mn, c(perGroup));
  Value pidM =
      arith::AddIOp::create(b, loc, firstM, arith::RemUIOp::create(b, loc, inGroup, sizeM));
  Value pidN = arith::DivUIOp::create(b, loc, inGroup, sizeM);
  return {pidM, pidN};
}

LogicalResult aicc::lowerDotKernels(
    ModuleOp top, StringRef refusedAttr,
    function_ref<LogicalResult(func::FuncOp, tl::ScheduleAttr, std::string &)> lower) {
  ModuleOp kernels = getTileKernelModule(top);
  if (!kernels)
    return success();
  for (auto fn : llvm::make_early_inc_range(kernels.getOps<func::FuncOp>())) {
    tl::ScheduleAttr sched = tl::getSchedule(fn);
    if (!sched)
      continue;
    bool hasDot = false;
    fn.walk([&](tl::DotOp) { hasDot = true; });
    if (!hasDot)
      continue;
    std::string why;
    if (failed(lower(fn, sched, why)))
      return failure();
    if (!why.empty())
      fn->setAttr(refusedAttr, StringAttr::get(fn.getContext(), why));
  }
  return success();
}

/// Whether tile `v` is a splat of float zero.
static bool isZeroTile(Value v) {
  if (auto s = v.getDefiningOp<tl::SplatOp>())
    if (auto c = s.getSrc().getDefiningOp<arith::ConstantFloatOp>())
      return c.value().isZero();
  DenseElementsAttr d;
  if (matchPattern(v, m_Constant(&d)) && d.isSplat())
    return d.getSplatValue<APFloat>().isZero();
  return false;
}

bool aicc::matchDotKLoop(func::FuncOp fn, DotKLoop &out, std::string &why) {
  SmallVector<tl::DotOp> dots;
  fn.walk([&](tl::DotOp d) { dots.push_back(d); });
  if (dots.size() != 1)
    return why = "not exactly one tile.dot", false;
  tl::DotOp dot = dots.front();
  auto aBlock = dot.getA().getDefiningOp<tl::BlockLoadOp>();
  auto aIm2col = dot.getA().getDefiningOp<tl::Im2ColLoadOp>();
  Operation *a = aBlock ? aBlock.getOperation() : aIm2col.getOperation();
  auto bl = dot.getB().getDefiningOp<tl::BlockLoadOp>();
  if (!a || !bl || a->getBlock() != dot->getBlock() || bl->getBlock() != dot->getBlock())
    return why = "dot operands are not tile.block_load (A: or tile.im2col_load) next to the dot",
           false;
  // Rule norm-prologue's row sums of squares of A (MatmulTemplate): x = extf(A) (or A),
  // x * x, tile.reduce add along dim 1, the add to the carried sum; for a LayerNorm also
  // tile.reduce add of x along dim 1 and its add to a second carried sum: the lowering
  // computes them from its fragments or shared-memory copy of A.
  SmallVector<Operation *> rowOps;
  arith::AddFOp rowAdd, sumAdd;
  tl::ReduceOp sqRed, xRed;
  if (aBlock && !aBlock->hasOneUse()) {
    Value x = aBlock.getResult();
    // The ops other than the dot reading `v`, each once.
    auto readers = [&](Value v) {
      SmallVector<Operation *> others;
      for (Operation *user : v.getUsers())
        if (user != dot.getOperation() && !llvm::is_contained(others, user))
          others.push_back(user);
      return others;
    };
    SmallVector<Operation *> us = readers(x);
    if (auto ext = us.size() == 1 ? dyn_cast<arith::ExtFOp>(us.front()) : arith::ExtFOp()) {
      rowOps.push_back(ext);
      x = ext.getResult();
      us = readers(x);
    }
    // tile.reduce add of `v` along dim 1 whose one user adds it to a value (the carried sum).
    auto rowSum = [&](Operation *op, Value v, tl::ReduceOp &red) {
      red = dyn_cast<tl::ReduceOp>(op);
      if (!red || red.getSrc() != v || red.getAxis() != 1 || red.getKind() != tl::ReduceKind::add ||
          !red->hasOneUse())
        return red = {}, arith::AddFOp();
      auto add = dyn_cast<arith::AddFOp>(*red->getUsers().begin());
      return add && add->getBlock() == dot->getBlock() ? add : arith::AddFOp();
    };
    // x * x: both uses of x by one op.
    auto isSquare = [&](Operation *op) {
      auto m = dyn_cast<arith::MulFOp>(op);
      return m && m.getLhs() == x && m.getRhs() == x && m->hasOneUse();
    };
    Operation *sq = nullptr;
    if (us.size() == 1 && isSquare(us[0])) {
      sq = us[0];
    } else if (us.size() == 2 && (isSquare(us[0]) || isSquare(us[1]))) {
      sq = isSquare(us[0]) ? us[0] : us[1];
      sumAdd = rowSum(sq == us[0] ? us[1] : us[0], x, xRed);
    }
    if (sq)
      rowAdd = rowSum(*sq->getUsers().begin(), sq->getResult(0), sqRed);
    // The lowerings sum in f32, a LayerNorm's two sums in f64 (MatmulTemplate.cpp).
    auto sumsIn = [](arith::AddFOp add, unsigned bits) {
      return getElementTypeOrSelf(add.getType()).getIntOrFloatBitWidth() == bits;
    };
    // Anything else reading A's tile is refused below (a dot operand tile's other user).
    if (rowAdd && (us.size() == 1 ? sumsIn(rowAdd, 32)
                                  : sumAdd && sumsIn(rowAdd, 64) && sumsIn(sumAdd, 64))) {
      rowOps.append({sq, sqRed.getOperation(), rowAdd.getOperation()});
      if (sumAdd)
        rowOps.append({xRed.getOperation(), sumAdd.getOperation()});
    } else {
      rowOps.clear(), rowAdd = {}, sumAdd = {};
    }
  }
  // The operand tiles live only in shared memory (fragments): nothing but the dot may read them.
  for (Operation *l : {a, bl.getOperation()})
    for (Operation *user : l->getUsers())
      if (user != dot.getOperation() && !llvm::is_contained(rowOps, user))
        return why = "a dot operand tile has another user (" +
                     user->getName().getStringRef().str() + ")",
               false;
  std::optional<int64_t> ub, st;
  Value init;
  out = DotKLoop();
  if (dot->getParentOp() == fn.getOperation()) {
    // One k block: no loop.
    out.kOp = dot;
    out.accResult = dot.getResult();
    init = dot.getAcc();
    ub = st = cast<RankedTensorType>(dot.getA().getType()).getDimSize(1);
  } else {
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    if (!loop || loop->getParentOp() != fn.getOperation())
      return why = "tile.dot is not in a K loop at the kernel's top level", false;
    unsigned carried = 1 + (rowAdd ? 1 : 0) + (sumAdd ? 1 : 0);
    if (loop.getNumRegionIterArgs() != carried || dot.getAcc() != loop.getRegionIterArgs()[0] ||
        loop.getBody()->getTerminator()->getOperand(0) != dot.getResult())
      return why = "the K loop does not carry exactly the dot's accumulator", false;
    // Whether loop value i is the sum `add` carries (from zero).
    auto carriesSum = [&](unsigned i, arith::AddFOp add) {
      Value carry = loop.getRegionIterArgs()[i];
      return loop.getBody()->getTerminator()->getOperand(i) == add.getResult() &&
             carry.hasOneUse() && (add.getLhs() == carry || add.getRhs() == carry) &&
             isZeroTile(loop.getInitArgs()[i]);
    };
    if (rowAdd && !carriesSum(1, rowAdd))
      return why = "the K loop's second value is not the row sums of squares of A", false;
    if (sumAdd && !carriesSum(2, sumAdd))
      return why = "the K loop's third value is not the row sums of A", false;
    out.rowSquares = rowAdd ? loop.getResult(1) : Value();
    out.rowSums = sumAdd ? loop.getResult(2) : Value();
    auto lb = getConstantIntValue(loop.getLowerBound());
    ub = getConstantIntValue(loop.getUpperBound());
    st = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !st || *lb != 0 || *st <= 0)
      return why = "the K loop's bounds are not constants starting at 0", false;
    out.loop = loop;
    out.kOp = loop;
    out.accResult = loop.getResult(0);
    init = loop.getInitArgs()[0];
    for (Operation &op : *loop.getBody())
      if (&op != dot && &op != a && &op != bl && !isa<scf::YieldOp>(op) &&
          !llvm::is_contained(rowOps, &op) &&
          (touchesTiles(&op) || !isMemoryEffectFree(&op) || op.getNumRegions()))
        return why = ("K loop holds " + op.getName().getStringRef()).str(), false;
  }
  if (rowAdd && !out.loop) {
    // One k block: the sum is the add of this block's sums to zero.
    for (auto [add, red] : {std::pair(rowAdd, sqRed), std::pair(sumAdd, xRed)}) {
      if (!add)
        continue;
      Value other = add.getLhs() == red.getResult() ? add.getRhs() : add.getLhs();
      if (!isZeroTile(other))
        return why = "the row sums of A do not start at zero", false;
    }
    out.rowSquares = rowAdd.getResult();
    out.rowSums = sumAdd ? sumAdd.getResult() : Value();
  }
  out.rowOps = rowOps;
  // The accumulator starts at zero.
  if (!isZeroTile(init))
    return why = "the accumulator does not start at zero", false;
  out.dot = dot;
  out.a = aBlock;
  out.aIm2col = aIm2col;
  out.b = bl;
  out.upper = *ub;
  out.step = *st;
  return true;
}

Value AccumulatorEpilogue::add(Value v, int64_t c) {
  return c ? arith::AddIOp::create(b, loc, v,
                                   arith::ConstantIntOp::create(b, loc, b.getI32Type(), c))
                 .getResult()
           : v;
}

bool AccumulatorEpilogue::isSupported(Operation *op) {
  if (!touchesTiles(op))
    return true;
  if (isa<tl::SplatOp, tl::MakeRangeOp, tl::ExpandDimsOp, tl::BroadcastOp, tl::SwapPairsOp,
          tl::LoadOp, tl::StoreOp, tl::BlockStoreOp, tl::BlockLoadOp>(op))
    return true;
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) && op->getNumRegions() == 0;
}

LogicalResult AccumulatorEpilogue::emitAfter(Block &block, Operation *after) {
  // Transposed block stores of one tile value (the NCHW conv's, one per image a tile can
  // touch) are one group: without a sink the group is stored at its last member (where the
  // coordinates of all are cloned), evaluating the tile once for all of them.
  llvm::MapVector<Value, SmallVector<tl::BlockStoreOp>> transposedGroups;
  for (Operation &op : block)
    if (auto st = dyn_cast<tl::BlockStoreOp>(op);
        st && st.getTranspose() && after->isBeforeInBlock(st))
      transposedGroups[st.getValue()].push_back(st);
  for (Operation &op : block) {
    if (op.isBeforeInBlock(after) || &op == after)
      continue;
    if (auto st = dyn_cast<tl::StoreOp>(op)) {
      if (failed(store(st)))
        return failure();
      continue;
    }
    if (auto st = dyn_cast<tl::BlockStoreOp>(op)) {
      if (st.getTranspose() && !sink) {
        ArrayRef<tl::BlockStoreOp> group = transposedGroups[st.getValue()];
        if (group.back() == st && failed(transposedBlockStores(group)))
          return failure();
        continue;
      }
      if (failed(blockStore(st)))
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

Value AccumulatorEpilogue::loadOne(tl::LoadOp l, Value off, Value mask) {
  Type et = l.getType().getElementType();
  Value ptr = scalar(l.getPtr());
  TypedAttr padAttr = l.getPaddingAttr() ? cast<TypedAttr>(l.getPaddingAttr())
                      : isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 0.0))
                                           : TypedAttr(b.getIntegerAttr(et, 0));
  Value o = off;
  if (mask)
    o = arith::SelectOp::create(b, loc, mask, off,
                                arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), o);
  Value v = memref::LoadOp::create(b, loc, ptr, ValueRange{idx});
  if (!mask)
    return v;
  return arith::SelectOp::create(b, loc, mask, v, arith::ConstantOp::create(b, loc, padAttr));
}

FailureOr<Value> AccumulatorEpilogue::cloneElementwise(Operation *op,
                                                      function_ref<FailureOr<Value>(Value)> ev) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || op->getNumResults() != 1 ||
      op->getNumRegions())
    return op->emitError("tensor-core epilogue: epilogue op not supported"), failure();
  SmallVector<Value> operands;
  for (Value o : op->getOperands()) {
    if (!isTileType(o.getType()))
      return op->emitError("tensor-core epilogue: mixed scalar/tile operands"), failure();
    auto e = ev(o);
    if (failed(e))
      return failure();
    operands.push_back(*e);
  }
  Type rt = cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  OperationState st(loc, op->getName().getStringRef(), operands, TypeRange{rt}, op->getAttrs());
  return b.create(st)->getResult(0);
}

FailureOr<Value> AccumulatorEpilogue::splatConstant(Operation *op) {
  auto cst = cast<arith::ConstantOp>(op);
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  if (!dense || !dense.isSplat())
    return op->emitError("tensor-core epilogue: non-splat constant tile"), failure();
  return arith::ConstantOp::create(b, loc, dense.getSplatValue<TypedAttr>()).getResult();
}

FailureOr<Value> AccumulatorEpilogue::evalAlong(Value v, int d, int64_t c) {
  auto key = std::make_pair(v, c * 2 + d);
  if (auto it = memo1D.find(key); it != memo1D.end())
    return it->second;
  Operation *op = v.getDefiningOp();
  if (!op)
    return emitError(loc, "tensor-core epilogue: 1-D tile without a defining op"), failure();
  FailureOr<Value> out = failure();
  if (auto r = dyn_cast<tl::MakeRangeOp>(op)) {
    out = add(d == 0 ? layout.rowCoords[c] : layout.colCoords[c], r.getStart());
  } else if (auto s = dyn_cast<tl::SplatOp>(op)) {
    out = scalar(s.getSrc());
  } else if (isa<arith::ConstantOp>(op)) {
    out = splatConstant(op);
  } else if (auto l = dyn_cast<tl::LoadOp>(op)) {
    auto off = evalAlong(l.getOffsets(), d, c);
    if (failed(off))
      return failure();
    Value mask;
    if (l.getMask()) {
      auto m = evalAlong(l.getMask(), d, c);
      if (failed(m))
        return failure();
      mask = *m;
    }
    out = loadOne(l, *off, mask);
  } else {
    out = cloneElementwise(op, [&](Value x) { return evalAlong(x, d, c); });
  }
  if (succeeded(out))
    memo1D[key] = *out;
  return out;
}

FailureOr<Value> AccumulatorEpilogue::eval2D(Value v, int64_t i) {
  auto key = std::make_pair(v, i);
  if (auto it = memo2D.find(key); it != memo2D.end())
    return it->second;
  FailureOr<Value> out = failure();
  if (v == accTile) {
    out = acc[i];
  } else if (auto e = v.getDefiningOp<tl::ExpandDimsOp>()) {
    int d = 1 - e.getAxis();
    out = evalAlong(e.getSrc(), d, d == 0 ? layout.rowClass[i] : layout.colClass[i]);
  } else if (auto bc = v.getDefiningOp<tl::BroadcastOp>()) {
    out = eval2D(bc.getSrc(), i);
  } else if (auto sw = v.getDefiningOp<tl::SwapPairsOp>()) {
    // Registers 2j and 2j + 1 are columns 2c and 2c + 1 of one row (both MMA layouts).
    out = eval2D(sw.getSrc(), i ^ 1);
  } else if (auto s = v.getDefiningOp<tl::SplatOp>()) {
    out = scalar(s.getSrc());
  } else if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
    out = splatConstant(cst);
  } else if (auto l = v.getDefiningOp<tl::LoadOp>()) {
    auto off = eval2D(l.getOffsets(), i);
    if (failed(off))
      return failure();
    Value mask;
    if (l.getMask()) {
      auto m = eval2D(l.getMask(), i);
      if (failed(m))
        return failure();
      mask = *m;
    }
    out = loadOne(l, *off, mask);
  } else if (Operation *op = v.getDefiningOp()) {
    out = cloneElementwise(op, [&](Value x) { return eval2D(x, i); });
  } else {
    return emitError(loc, "tensor-core epilogue: tile block argument in the epilogue"), failure();
  }
  if (succeeded(out))
    memo2D[key] = *out;
  return out;
}

LogicalResult AccumulatorEpilogue::store(tl::StoreOp st) {
  if (st.getValue().getType().getRank() != 2)
    return st->emitError("tensor-core epilogue: store of a non-2-D tile"), failure();
  return storeRegisters(
      scalar(st.getPtr()), st.getValue().getType().getElementType(),
      [&](int64_t i, Value &v, Value &off, Value &mask) -> LogicalResult {
        auto ev = eval2D(st.getValue(), i);
        auto eo = eval2D(st.getOffsets(), i);
        if (failed(ev) || failed(eo))
          return failure();
        v = *ev;
        off = *eo;
        if (st.getMask()) {
          auto m = eval2D(st.getMask(), i);
          if (failed(m))
            return failure();
          mask = *m;
        }
        return success();
      });
}

LogicalResult AccumulatorEpilogue::blockStore(tl::BlockStoreOp st) {
  auto vt = st.getValue().getType();
  if (vt.getRank() != 2)
    return st->emitError("tensor-core epilogue: block store of a non-2-D tile"), failure();
  if (sink) {
    // Staged: the values only, in register pairs (adjacent columns of one row); where they
    // go (and the clipping) is the sink's business. A value is staged once, however many
    // block stores write it (the sink's owner issues the copies of each).
    if (!staged.insert(st.getValue()).second)
      return success();
    if (layout.regs() % 2)
      return st->emitError("tensor-core epilogue: staged store of an odd register count"),
             failure();
    for (int64_t lo = 0; lo < layout.regs(); lo += kStoreChunk) {
      memo2D.clear();
      int64_t hi = std::min<int64_t>(lo + kStoreChunk, layout.regs());
      SmallVector<Value> vals;
      for (int64_t i = lo; i < hi; ++i) {
        auto v = eval2D(st.getValue(), i);
        if (failed(v))
          return failure();
        vals.push_back(*v);
      }
      for (int64_t k = 0; k + 1 < hi - lo; k += 2)
        sink(b, lo + k, vals[k], vals[k + 1]);
      if (sinkChunkEnd && hi < layout.regs())
        sinkChunkEnd(b);
    }
    return success();
  }
  // Global memory, per register: element (r, c) of the tile goes to
  //   (batch * dims[1] + row + r) * dims[2] + col + c   if 0 <= row + r < dims[1],
  //   0 <= col + c < dims[2] and 0 <= batch < dims[0] (the op's description), else nowhere.
  // The row part (offset and check) is computed once per row class, the column part once per
  // column class. The i32 products fit: the kernel's buffer is below 2^31 elements (checked by
  // the matmul template), so is dims[0] * dims[1] * dims[2] (block_store's verifier), and
  // coordinates outside the matrix are masked off.
  ArrayRef<int64_t> dims = st.getDims();
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  auto ult = [&](Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c32(bound)).getResult();
  };
  Value batch = scalar(st.getBatch()), row = scalar(st.getRow()), col = scalar(st.getCol());
  Value base = arith::MulIOp::create(b, loc, batch, c32(dims[1] * dims[2]));
  Value batchIn = ult(batch, dims[0]);
  SmallVector<Value> rowOff, rowIn, colAbs, colIn;
  for (Value r : layout.rowCoords) {
    Value abs = arith::AddIOp::create(b, loc, row, r);
    rowOff.push_back(
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, abs, c32(dims[2])), base));
    rowIn.push_back(arith::AndIOp::create(b, loc, ult(abs, dims[1]), batchIn));
  }
  for (Value c : layout.colCoords) {
    Value abs = arith::AddIOp::create(b, loc, col, c);
    colAbs.push_back(abs);
    colIn.push_back(ult(abs, dims[2]));
  }
  return storeRegisters(
      scalar(st.getPtr()), vt.getElementType(),
      [&](int64_t i, Value &v, Value &off, Value &mask) -> LogicalResult {
        auto ev = eval2D(st.getValue(), i);
        if (failed(ev))
          return failure();
        v = *ev;
        int64_t rc = layout.rowClass[i], cc = layout.colClass[i];
        off = arith::AddIOp::create(b, loc, rowOff[rc], colAbs[cc]);
        mask = arith::AndIOp::create(b, loc, rowIn[rc], colIn[cc]);
        return success();
      });
}

LogicalResult AccumulatorEpilogue::transposedBlockStores(ArrayRef<tl::BlockStoreOp> group) {
  Value value = tl::BlockStoreOp(group.front()).getValue();
  auto vt = cast<RankedTensorType>(value.getType());
  if (vt.getRank() != 2)
    return group.front()->emitError("tensor-core epilogue: block store of a non-2-D tile"),
           failure();
  // Per store, tile element (r, c) goes to block element (c, r) (the op's description):
  //   (batch * dims[1] + row + c) * dims[2] + col + r   if 0 <= row + c < dims[1],
  //   0 <= col + r < dims[2] and 0 <= batch < dims[0], else nowhere;
  // the block-row part (offset and check) once per column class, the block-column part once
  // per row class. The i32 products fit as in blockStore (dims under 2^31 elements in all,
  // coordinates outside masked off).
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  auto ult = [&](Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c32(bound)).getResult();
  };
  struct Parts {
    Value ptr;
    SmallVector<Value> rowOff, rowIn, colAbs, colIn;
  };
  SmallVector<Parts, 4> parts;
  for (tl::BlockStoreOp st : group) {
    ArrayRef<int64_t> dims = st.getDims();
    Parts p;
    p.ptr = scalar(st.getPtr());
    Value batch = scalar(st.getBatch()), row = scalar(st.getRow()), col = scalar(st.getCol());
    Value base = arith::MulIOp::create(b, loc, batch, c32(dims[1] * dims[2]));
    Value batchIn = ult(batch, dims[0]);
    for (Value c : layout.colCoords) {
      Value abs = arith::AddIOp::create(b, loc, row, c);
      p.rowOff.push_back(
          arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, abs, c32(dims[2])), base));
      p.rowIn.push_back(arith::AndIOp::create(b, loc, ult(abs, dims[1]), batchIn));
    }
    for (Value r : layout.rowCoords) {
      Value abs = arith::AddIOp::create(b, loc, col, r);
      p.colAbs.push_back(abs);
      p.colIn.push_back(ult(abs, dims[2]));
    }
    parts.push_back(std::move(p));
  }
  // Registers in groups of kStoreChunk (see storeRegisters), each evaluated once and stored
  // by every store of the group under its mask (at most one mask holds per element when the
  // stores cover disjoint images). Adjacent registers are adjacent block rows here: no pairs.
  for (int64_t lo = 0; lo < layout.regs(); lo += kStoreChunk) {
    memo2D.clear();
    int64_t hi = std::min<int64_t>(lo + kStoreChunk, layout.regs());
    SmallVector<Value> vals;
    for (int64_t i = lo; i < hi; ++i) {
      auto v = eval2D(value, i);
      if (failed(v))
        return failure();
      vals.push_back(*v);
    }
    for (const Parts &p : parts)
      for (int64_t i = lo; i < hi; ++i) {
        int64_t rc = layout.rowClass[i], cc = layout.colClass[i];
        Value off = arith::AddIOp::create(b, loc, p.rowOff[cc], p.colAbs[rc]);
        Value mask = arith::AndIOp::create(b, loc, p.rowIn[cc], p.colIn[rc]);
        auto ifOp = scf::IfOp::create(b, loc, mask, /*withElse=*/false);
        OpBuilder ib = ifOp.getThenBodyBuilder();
        Value idx = arith::IndexCastOp::create(ib, loc, ib.getIndexType(), off);
        memref::StoreOp::create(ib, loc, vals[i - lo], p.ptr, ValueRange{idx});
      }
  }
  return success();
}

LogicalResult AccumulatorEpilogue::storeRegisters(
    Value ptr, Type et,
    function_ref<LogicalResult(int64_t, Value &, Value &, Value &)> evalRegister) {
  int64_t eb = std::max<int64_t>(1, et.getIntOrFloatBitWidth() / 8);
  Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  auto pairT = VectorType::get({2}, et);
  // Registers are evaluated and stored in groups of kStoreChunk (each element depends only on
  // the same element of its operands): a value's registers live from its group's start to the
  // group's stores, not across the whole tile (the whole tile at once spilled).
  for (int64_t lo = 0; lo < layout.regs(); lo += kStoreChunk) {
    memo2D.clear();
    int64_t hi = std::min<int64_t>(lo + kStoreChunk, layout.regs());
    SmallVector<Value> vals, offs, mask;
    for (int64_t i = lo; i < hi; ++i) {
      Value v, o, m;
      if (failed(evalRegister(i, v, o, m)))
        return failure();
      vals.push_back(v);
      offs.push_back(o);
      if (m)
        mask.push_back(m);
    }
    if (!mask.empty() && mask.size() != vals.size())
      return emitError(loc, "tensor-core epilogue: masked and unmasked registers in one store"),
             failure();
    auto storeOne = [&](OpBuilder &sb, int64_t k) {
      Value idx = arith::IndexCastOp::create(sb, loc, sb.getIndexType(), offs[k]);
      memref::StoreOp::create(sb, loc, vals[k], ptr, ValueRange{idx});
    };
    auto storeMasked = [&](OpBuilder &sb, int64_t k) {
      if (mask.empty())
        return storeOne(sb, k);
      auto ifOp = scf::IfOp::create(sb, loc, mask[k], /*withElse=*/false);
      OpBuilder ib = ifOp.getThenBodyBuilder();
      storeOne(ib, k);
    };
    // Registers 2j and 2j+1 hold adjacent columns: one 2-element store when their offsets
    // are consecutive and the first is pair-aligned (checked at run time; LLVM folds the check
    // where the offsets are visibly x and x + 1), else one masked store each.
    int64_t n = hi - lo, k = 0;
    for (; k + 1 < n; k += 2) {
      Value o0 = offs[k], o1 = offs[k + 1];
      Value ok = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                arith::SubIOp::create(b, loc, o1, o0), one),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                arith::AndIOp::create(b, loc, o0, one), zero));
      if (!mask.empty())
        ok = arith::AndIOp::create(b, loc, ok, arith::AndIOp::create(b, loc, mask[k], mask[k + 1]));
      auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
      {
        OpBuilder tb = ifOp.getThenBodyBuilder();
        Value v = vector::FromElementsOp::create(tb, loc, pairT, ValueRange{vals[k], vals[k + 1]});
        Value idx = arith::IndexCastOp::create(tb, loc, tb.getIndexType(), o0);
        vector::StoreOp::create(tb, loc, v, ptr, ValueRange{idx}, /*nontemporal=*/false,
                                llvm::MaybeAlign(2 * eb));
      }
      OpBuilder eb2 = ifOp.getElseBodyBuilder();
      storeMasked(eb2, k);
      storeMasked(eb2, k + 1);
    }
    for (; k < n; ++k)
      storeMasked(b, k);
  }
  return success();
}
