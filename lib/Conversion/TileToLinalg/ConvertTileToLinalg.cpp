//===- ConvertTileToLinalg.cpp - tile ops -> linalg/tensor/scf -------------===//
//
// Runs on tile kernels before bufferization. Every tile value is a static tensor; the ops
// become destination-style linalg ops over tensor.empty, so upstream elementwise fusion and
// one-shot bufferization do the rest. Global memory stays a memref kernel argument: loads
// read it inside a linalg.generic body. tile.store stays: convert-tile-store-to-scf lowers it
// after elementwise fusion, so the stored value's producers can be recomputed in place.
//
//===----------------------------------------------------------------------===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILETOLINALG
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc::tile;

namespace {

SmallVector<utils::IteratorType> parallel(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType t) {
  return tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType());
}

/// linalg.generic over `resultType` with `ins` read at identity maps; `body` gets the
/// scalar operands (ins..., out) and returns the yielded value.
Value genericIdentity(OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange ins,
                      function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(ins.size() + 1, b.getMultiDimIdentityMap(rank));
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ins, ValueRange{emptyLike(b, loc, resultType)}, maps,
      parallel(rank), [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return g.getResult(0);
}

Value indexOf(OpBuilder &b, Location loc, Value i32) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i32);
}

void lower(MakeRangeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  int32_t start = op.getStart();
  Value r = genericIdentity(b, loc, op.getType(), {}, [&](OpBuilder &nb, Location nl, ValueRange) {
    Value i = linalg::IndexOp::create(nb, nl, 0);
    Value v = arith::IndexCastOp::create(nb, nl, nb.getI32Type(), i);
    if (start != 0)
      v = arith::AddIOp::create(nb, nl, v,
                                arith::ConstantIntOp::create(nb, nl, nb.getI32Type(), start));
    return v;
  });
  op.replaceAllUsesWith(r);
  op.erase();
}

void lower(SplatOp op) {
  OpBuilder b(op);
  Value s = op.getSrc();
  Value r = genericIdentity(b, op.getLoc(), op.getType(), {},
                            [&](OpBuilder &, Location, ValueRange) { return s; });
  op.replaceAllUsesWith(r);
  op.erase();
}

void lower(ExpandDimsOp op) {
  OpBuilder b(op);
  auto src = op.getSrc().getType();
  int64_t axis = op.getAxis();
  SmallVector<ReassociationIndices> reassoc;
  int64_t r = src.getRank();
  if (r == 0) {
    reassoc = {};
  } else {
    for (int64_t i = 0; i < r; ++i)
      reassoc.push_back({});
    // Result dims [0..r]; the inserted unit dim joins its neighbour group.
    int64_t out = 0;
    for (int64_t i = 0; i < r; ++i) {
      if (out == axis)
        reassoc[i].push_back(out++);
      reassoc[i].push_back(out++);
    }
    if (axis == r)
      reassoc[r - 1].push_back(out++);
  }
  Value v = tensor::ExpandShapeOp::create(b, op.getLoc(), op.getType(), op.getSrc(), reassoc);
  op.replaceAllUsesWith(v);
  op.erase();
}

void lower(BroadcastOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto src = op.getSrc().getType();
  auto dst = op.getType();
  int64_t rank = dst.getRank();
  // Read the source through a map that pins its size-1 (broadcast) dims to 0.
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    exprs.push_back(src.getDimSize(i) == 1 && dst.getDimSize(i) != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(i));
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, exprs, b.getContext()),
                              b.getMultiDimIdentityMap(rank)};
  auto g = linalg::GenericOp::create(b, loc, TypeRange{dst}, ValueRange{op.getSrc()},
                                     ValueRange{emptyLike(b, loc, dst)}, maps, parallel(rank),
                                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                                       linalg::YieldOp::create(nb, nl, args[0]);
                                     });
  op.replaceAllUsesWith(g.getResult(0));
  op.erase();
}

void lower(LoadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value ptr = op.getPtr();
  Type elem = op.getType().getElementType();
  TypedAttr padAttr = op.getPaddingAttr();
  if (!padAttr)
    padAttr = isa<FloatType>(elem) ? TypedAttr(b.getFloatAttr(elem, 0.0))
                                   : TypedAttr(b.getIntegerAttr(elem, 0));
  SmallVector<Value> ins{op.getOffsets()};
  if (op.getMask())
    ins.push_back(op.getMask());
  bool masked = (bool)op.getMask();
  Value r = genericIdentity(b, loc, op.getType(), ins, [&](OpBuilder &nb, Location nl, ValueRange a) {
    Value idx = indexOf(nb, nl, a[0]);
    if (!masked)
      return memref::LoadOp::create(nb, nl, ptr, idx).getResult();
    auto ifOp = scf::IfOp::create(
        nb, nl, a[1],
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(tb, tl, memref::LoadOp::create(tb, tl, ptr, idx).getResult());
        },
        [&](OpBuilder &eb, Location el) {
          scf::YieldOp::create(eb, el, arith::ConstantOp::create(eb, el, padAttr).getResult());
        });
    return ifOp.getResult(0);
  });
  op.replaceAllUsesWith(r);
  op.erase();
}

void lower(DotOp op) {
  OpBuilder b(op);
  auto mm = linalg::MatmulOp::create(b, op.getLoc(), TypeRange{op.getType()},
                                     ValueRange{op.getA(), op.getB()}, ValueRange{op.getAcc()});
  op.replaceAllUsesWith(mm.getResult(0));
  op.erase();
}

void lower(ReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type elem = op.getType().getElementType();
  TypedAttr init = reduceIdentity(b, op.getKind(), elem);
  Value initV = arith::ConstantOp::create(b, loc, init);
  Value filled =
      linalg::FillOp::create(b, loc, initV, emptyLike(b, loc, op.getType())).getResult(0);
  ReduceKind kind = op.getKind();
  // A linalg.generic with a reduction iterator (not linalg.reduce) so that elementwise
  // producers fuse into it.
  int64_t rank = op.getSrc().getType().getRank();
  int64_t axis = op.getAxis();
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < rank; ++d) {
    iters.push_back(d == axis ? utils::IteratorType::reduction : utils::IteratorType::parallel);
    if (d != axis)
      outExprs.push_back(b.getAffineDimExpr(d));
  }
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank),
                              AffineMap::get(rank, 0, outExprs, b.getContext())};
  auto red = linalg::GenericOp::create(b, loc, TypeRange{op.getType()}, ValueRange{op.getSrc()},
                                       ValueRange{filled}, maps, iters,
                                       [&](OpBuilder &nb, Location nl, ValueRange a) {
                                         Value r = reduceCombine(nb, nl, kind, a[0], a[1]);
                                         linalg::YieldOp::create(nb, nl, r);
                                       });
  op.replaceAllUsesWith(red.getResult(0));
  op.erase();
}

struct ConvertTileToLinalgPass
    : public aicc::impl::ConvertTileToLinalgBase<ConvertTileToLinalgPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    bool blockLoads = false;
    getOperation().walk([&](Operation *op) {
      if (isa<MakeRangeOp, SplatOp, ExpandDimsOp, BroadcastOp, LoadOp, DotOp, ReduceOp>(op))
        ops.push_back(op);
      if (isa<BlockLoadOp>(op)) {
        op->emitError("tile.block_load has no linalg form: run tile-expand-block-loads first");
        blockLoads = true;
      }
      if (isa<BlockStoreOp>(op)) {
        op->emitError("tile.block_store has no linalg form: run tile-expand-block-loads first");
        blockLoads = true;
      }
    });
    if (blockLoads)
      return signalPassFailure();
    for (Operation *op : ops)
      llvm::TypeSwitch<Operation *>(op)
          .Case<MakeRangeOp, SplatOp, ExpandDimsOp, BroadcastOp, LoadOp, DotOp, ReduceOp>(
              [](auto o) { lower(o); });
  }
};
} // namespace
