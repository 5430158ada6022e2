//===- ConvertTileStoreToSCF.cpp - tile.store -> scf.parallel --------------===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILESTORETOSCF
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;

namespace {

/// A parallel linalg.generic with one result, whose body touches no memory and ignores its
/// init value, and whose input maps pick dims or constants.
bool canRecompute(linalg::GenericOp g) {
  if (g.getNumDpsInits() != 1 || g.getNumResults() != 1 ||
      g.getNumReductionLoops() != 0 || !g.hasPureTensorSemantics())
    return false;
  if (!g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return false;
  Block &body = g.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return false;
  for (Operation &op : body)
    if (!isMemoryEffectFree(&op))
      return false;
  for (OpOperand *in : g.getDpsInputOperands())
    for (AffineExpr e : g.getMatchingIndexingMap(in).getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(e))
        return false;
  return true;
}

/// The element of tensor `t` at `ivs`, recomputed from cheap producers when possible.
Value elementAt(OpBuilder &b, Location loc, Value t, ValueRange ivs) {
  auto g = t.getDefiningOp<linalg::GenericOp>();
  if (!g || !canRecompute(g))
    return tensor::ExtractOp::create(b, loc, t, ivs);
  Block &body = g.getRegion().front();
  IRMapping map;
  for (OpOperand *in : g.getDpsInputOperands()) {
    SmallVector<Value> idx;
    for (AffineExpr e : g.getMatchingIndexingMap(in).getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        idx.push_back(ivs[d.getPosition()]);
      else
        idx.push_back(
            arith::ConstantIndexOp::create(b, loc, cast<AffineConstantExpr>(e).getValue()));
    }
    Value operand = in->get();
    Value v = isa<RankedTensorType>(operand.getType()) ? elementAt(b, loc, operand, idx) : operand;
    map.map(body.getArgument(in->getOperandNumber()), v);
  }
  for (Operation &op : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(op, map);
  }
  return map.lookupOrDefault(cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
}

struct ConvertTileStoreToSCFPass
    : public aicc::impl::ConvertTileStoreToSCFBase<ConvertTileStoreToSCFPass> {
  void runOnOperation() override {
    SmallVector<aicc::tile::StoreOp> stores;
    getOperation().walk([&](aicc::tile::StoreOp s) { stores.push_back(s); });
    for (auto op : stores) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto t = op.getValue().getType();
      SmallVector<Value> lbs, ubs, steps;
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t d : t.getShape()) {
        lbs.push_back(c0);
        ubs.push_back(arith::ConstantIndexOp::create(b, loc, d));
        steps.push_back(c1);
      }
      Value ptr = op.getPtr(), offs = op.getOffsets(), val = op.getValue(), mask = op.getMask();
      auto body = [&](OpBuilder &nb, Location nl, ValueRange iv) {
        Value off = elementAt(nb, nl, offs, iv);
        Value idx = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), off);
        auto emitStore = [&](OpBuilder &sb, Location sl) {
          Value v = elementAt(sb, sl, val, iv);
          memref::StoreOp::create(sb, sl, v, ptr, idx);
        };
        if (!mask) {
          emitStore(nb, nl);
          return;
        }
        Value m = elementAt(nb, nl, mask, iv);
        scf::IfOp::create(nb, nl, m, [&](OpBuilder &tb, Location tl) {
          emitStore(tb, tl);
          scf::YieldOp::create(tb, tl);
        });
      };
      // A 0-d tile is one element: no loop (scf.parallel needs at least one dim).
      if (t.getRank() == 0)
        body(b, loc, ValueRange());
      else
        scf::ParallelOp::create(b, loc, lbs, ubs, steps, body);
      op.erase();
    }
  }
};
} // namespace
