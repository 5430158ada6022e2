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

#include "aicc/Conversion/TileToLinalg/TileToLinalg.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

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

struct LowerMakeRangeOp : OpConversionPattern<MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MakeRangeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    int32_t start = op.getStart();
    Value r =
        genericIdentity(b, loc, op.getType(), {}, [&](OpBuilder &nb, Location nl, ValueRange) {
          Value i = linalg::IndexOp::create(nb, nl, 0);
          Value v = arith::IndexCastOp::create(nb, nl, nb.getI32Type(), i);
          if (start != 0)
            v = arith::AddIOp::create(nb, nl, v,
                                      arith::ConstantIntOp::create(nb, nl, nb.getI32Type(), start));
          return v;
        });
    b.replaceOp(op, r);
    return success();
  }
};

struct LowerSplatOp : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value s = adaptor.getSrc();
    Value r = genericIdentity(b, op.getLoc(), op.getType(), {},
                              [&](OpBuilder &, Location, ValueRange) { return s; });
    b.replaceOp(op, r);
    return success();
  }
};

struct LowerExpandDimsOp : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
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
    Value v =
        tensor::ExpandShapeOp::create(b, op.getLoc(), op.getType(), adaptor.getSrc(), reassoc);
    b.replaceOp(op, v);
    return success();
  }
};

/// [.., N] -> [.., N/2, 2], read through the map (.., i, k) -> (.., i, 1 - k), and back.
struct LowerSwapPairsOp : OpConversionPattern<SwapPairsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SwapPairsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    RankedTensorType t = op.getType();
    int64_t rank = t.getRank();
    SmallVector<int64_t> pairs(t.getShape());
    pairs.back() /= 2;
    pairs.push_back(2);
    auto pt = RankedTensorType::get(pairs, t.getElementType());
    SmallVector<ReassociationIndices> reassoc;
    for (int64_t i = 0; i + 1 < rank; ++i)
      reassoc.push_back({i});
    reassoc.push_back({rank - 1, rank});
    Value in = tensor::ExpandShapeOp::create(b, loc, pt, adaptor.getSrc(), reassoc);
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i)
      exprs.push_back(b.getAffineDimExpr(i));
    exprs.push_back(1 - b.getAffineDimExpr(rank));
    SmallVector<AffineMap> maps{AffineMap::get(rank + 1, 0, exprs, b.getContext()),
                                b.getMultiDimIdentityMap(rank + 1)};
    auto g = linalg::GenericOp::create(b, loc, TypeRange{pt}, ValueRange{in},
                                       ValueRange{emptyLike(b, loc, pt)}, maps, parallel(rank + 1),
                                       [&](OpBuilder &nb, Location nl, ValueRange args) {
                                         linalg::YieldOp::create(nb, nl, args[0]);
                                       });
    b.replaceOp(op, tensor::CollapseShapeOp::create(b, loc, t, g.getResult(0), reassoc));
    return success();
  }
};

struct LowerBroadcastOp : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto src = op.getSrc().getType();
    auto dst = op.getType();
    int64_t rank = dst.getRank();
    // Read the source through a map that pins its size-1 (broadcast) dims to 0.
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i)
      exprs.push_back(src.getDimSize(i) == 1 && dst.getDimSize(i) != 1 ? b.getAffineConstantExpr(0)
                                                                       : b.getAffineDimExpr(i));
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, exprs, b.getContext()),
                                b.getMultiDimIdentityMap(rank)};
    auto g = linalg::GenericOp::create(b, loc, TypeRange{dst}, ValueRange{adaptor.getSrc()},
                                       ValueRange{emptyLike(b, loc, dst)}, maps, parallel(rank),
                                       [&](OpBuilder &nb, Location nl, ValueRange args) {
                                         linalg::YieldOp::create(nb, nl, args[0]);
                                       });
    b.replaceOp(op, g.getResult(0));
    return success();
  }
};

struct LowerLoadOp : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value ptr = adaptor.getPtr();
    Type elem = op.getType().getElementType();
    TypedAttr padAttr = op.getPaddingAttr();
    if (!padAttr)
      padAttr = isa<FloatType>(elem) ? TypedAttr(b.getFloatAttr(elem, 0.0))
                                     : TypedAttr(b.getIntegerAttr(elem, 0));
    SmallVector<Value> ins{adaptor.getOffsets()};
    if (adaptor.getMask())
      ins.push_back(adaptor.getMask());
    bool masked = (bool)adaptor.getMask();
    Value r =
        genericIdentity(b, loc, op.getType(), ins, [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value idx = indexOf(nb, nl, a[0]);
          if (!masked)
            return memref::LoadOp::create(nb, nl, ptr, idx).getResult();
          auto ifOp = scf::IfOp::create(
              nb, nl, a[1],
              [&](OpBuilder &tb, Location tl) {
                scf::YieldOp::create(tb, tl, memref::LoadOp::create(tb, tl, ptr, idx).getResult());
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el,
                                     arith::ConstantOp::create(eb, el, padAttr).getResult());
              });
          return ifOp.getResult(0);
        });
    b.replaceOp(op, r);
    return success();
  }
};

struct LowerDotOp : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto mm = linalg::MatmulOp::create(b, op.getLoc(), TypeRange{op.getType()},
                                       ValueRange{adaptor.getA(), adaptor.getB()},
                                       ValueRange{adaptor.getAcc()});
    b.replaceOp(op, mm.getResult(0));
    return success();
  }
};

struct LowerReduceOp : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
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
    auto red = linalg::GenericOp::create(b, loc, TypeRange{op.getType()},
                                         ValueRange{adaptor.getSrc()}, ValueRange{filled}, maps,
                                         iters, [&](OpBuilder &nb, Location nl, ValueRange a) {
                                           Value r = reduceCombine(nb, nl, kind, a[0], a[1]);
                                           linalg::YieldOp::create(nb, nl, r);
                                         });
    b.replaceOp(op, red.getResult(0));
    return success();
  }
};

} // namespace

void aicc::populateTileToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMakeRangeOp, LowerSplatOp, LowerExpandDimsOp, LowerBroadcastOp,
               LowerSwapPairsOp, LowerLoadOp, LowerDotOp, LowerReduceOp>(patterns.getContext());
}

void aicc::configureTileToLinalgTarget(ConversionTarget &target) {
  target.addIllegalOp<MakeRangeOp, SplatOp, ExpandDimsOp, BroadcastOp, SwapPairsOp, LoadOp, DotOp,
                      ReduceOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
}

namespace {
struct ConvertTileToLinalgPass
    : public aicc::impl::ConvertTileToLinalgBase<ConvertTileToLinalgPass> {
  void runOnOperation() override {
    bool blockLoads = false;
    getOperation().walk([&](Operation *op) {
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
    RewritePatternSet patterns(&getContext());
    aicc::populateTileToLinalgPatterns(patterns);
    ConversionTarget target(getContext());
    aicc::configureTileToLinalgTarget(target);
    // The tile ops have no folders; none is wanted (the lowering is one-to-one).
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
