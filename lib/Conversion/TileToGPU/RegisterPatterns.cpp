//===- RegisterPatterns.cpp - the register path's per-op lowerings --------===//
//
// Part of convert-tile-to-gpu-registers (RegisterKernel.h): one OpConversionPattern per
// tile op, each writing this thread's share of the op's result tile under the layouts of
// RegisterKernel. Operands arrive converted (the adaptor's values are the shares).
//===----------------------------------------------------------------------===//
#include "RegisterKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::registers;
namespace tl = aicc::tile;

namespace {

/// A pattern of the path: the op's lowering with the kernel's shared state.
template <typename Op> struct RegisterPattern : public OpConversionPattern<Op> {
  RegisterPattern(RegisterKernel &rk, const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<Op>(tc, ctx), rk(rk) {}
  RegisterKernel &rk;
};

/// tile.program_id: the CUDA block id (times the programs per block, plus the warp).
struct ProgramIdLowering : RegisterPattern<tl::ProgramIdOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(tl::ProgramIdOp p, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = p.getLoc();
    Value v = gpu::BlockIdOp::create(b, loc, static_cast<gpu::Dimension>(p.getAxis()));
    v = arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    if (rk.programsPerCTA > 1 && p.getAxis() == 0) // block * P + warp
      v = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, v, rk.cI32(b, loc, rk.programsPerCTA)),
          rk.warpInCTA);
    b.replaceOp(p, v);
    return success();
  }
};

/// tile.num_programs: the schedule's program grid (not the CUDA grid, which packs programs).
struct NumProgramsLowering : RegisterPattern<tl::NumProgramsOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(tl::NumProgramsOp p, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(p, rk.cI32(b, p.getLoc(), rk.sched.getGrid()[p.getAxis()]));
    return success();
  }
};

/// tile.make_range: element j of this thread's share is
/// (firstChunk + T * (j / V)) * V + j % V + start.
struct MakeRangeLowering : RegisterPattern<tl::MakeRangeOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(tl::MakeRangeOp r, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = r.getLoc();
    auto rt = r.getType();
    if (isUniformTile(rt)) {
      b.replaceOp(r, rk.cI32(b, loc, r.getStart()));
      return success();
    }
    Layout l = rk.layoutFor(rt.getDimSize(0));
    auto vt = cast<VectorType>(rk.convert(rt));
    SmallVector<int32_t> lane;
    for (int64_t j = 0; j < l.regs; ++j)
      lane.push_back((int32_t)((l.replicated ? 0 : rk.threads * (j / l.v)) * l.v + j % l.v));
    Value base = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rk.firstChunk(b, loc, l).first, rk.cI32(b, loc, l.v)),
        rk.cI32(b, loc, r.getStart()));
    Value v = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, vt, base),
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, ArrayRef<int32_t>(lane))));
    b.replaceOp(r, v);
    return success();
  }
};

/// `src` as a share of type `t`: a scalar broadcast to every register of a vector share; a
/// share already (or a uniform scalar) as it is.
Value asShare(OpBuilder &b, Location loc, Type t, Value src) {
  if (isa<VectorType>(t) && !isa<VectorType>(src.getType()))
    return vector::BroadcastOp::create(b, loc, t, src);
  return src;
}

/// tile.splat (the scalar in every register) and tile.broadcast (a uniform source to every
/// register; a 1-D one is already the share).
template <typename Op> struct BroadcastLowering : RegisterPattern<Op> {
  using RegisterPattern<Op>::RegisterPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor a,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, asShare(b, op.getLoc(), this->rk.convert(op.getType()), a.getSrc()));
    return success();
  }
};

/// tile.expand_dims of a uniform tile and tensor.extract of a 0-D / [1] tile: the uniform
/// scalar of the operand.
template <typename Op> struct ForwardLowering : RegisterPattern<Op> {
  using RegisterPattern<Op>::RegisterPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor a,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, a.getOperands().front());
    return success();
  }
};

/// arith.constant of a splat tile: the splat share.
struct ConstantLowering : RegisterPattern<arith::ConstantOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp c, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    auto d = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!d || !isa<RankedTensorType>(d.getType()))
      return failure();
    Type t = rk.convert(d.getType());
    Attribute v =
        isa<VectorType>(t)
            ? Attribute(DenseElementsAttr::get(cast<ShapedType>(t), d.getSplatValue<Attribute>()))
            : d.getSplatValue<Attribute>();
    b.replaceOp(c, arith::ConstantOp::create(b, c.getLoc(), cast<TypedAttr>(v)));
    return success();
  }
};

/// tile.reduce of a 1-D tile to a scalar: this thread's registers (a pairwise tree), a
/// butterfly of shuffles over the warp, then across warps through shared memory; the result
/// is uniform.
struct ReduceLowering : RegisterPattern<tl::ReduceOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(tl::ReduceOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value src = a.getSrc();
    tl::ReduceKind kind = op.getKind();
    Type et = op.getType().getElementType();
    if (isUniformTile(op.getSrc().getType())) {
      b.replaceOp(op, src);
      return success();
    }
    Layout l = rk.layoutFor(op.getSrc().getType().getDimSize(0));
    auto combine = [&](Value x, Value y) { return tl::reduceCombine(b, loc, kind, x, y); };
    // 1. This thread's registers: log2 P dependent steps rather than P.
    SmallVector<Value> vals;
    for (int64_t j = 0; j < l.regs; ++j)
      vals.push_back(vector::ExtractOp::create(b, loc, src, ArrayRef<int64_t>{j}));
    while (vals.size() > 1) {
      SmallVector<Value> next;
      for (size_t j = 0; j + 1 < vals.size(); j += 2)
        next.push_back(combine(vals[j], vals[j + 1]));
      if (vals.size() % 2)
        next.push_back(vals.back());
      vals = std::move(next);
    }
    Value acc = vals.front();
    if (l.replicated)
      acc = arith::SelectOp::create(
          b, loc, rk.firstChunk(b, loc, l).second, acc,
          arith::ConstantOp::create(b, loc, tl::reduceIdentity(b, kind, et)));
    // 2. Butterfly over the warp.
    for (int64_t off = 16; off >= 1; off /= 2)
      acc = combine(acc, rk.shuffleXor(b, loc, acc, off));
    // 3. Across warps through shared memory.
    int64_t warps = rk.sched.getNumWarps();
    if (warps > 1) {
      // A tile buffer: convert-tile-to-gpu makes it a workgroup (shared-memory) attribution.
      Value smem;
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(rk.entryBlock());
        smem = memref::AllocOp::create(b, loc, MemRefType::get({warps}, et));
      }
      Value lane = arith::RemUIOp::create(b, loc, rk.tid, rk.cI32(b, loc, 32));
      Value warp = arith::DivUIOp::create(b, loc, rk.tid, rk.cI32(b, loc, 32));
      Value isLane0 =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, rk.cI32(b, loc, 0));
      auto ifOp = scf::IfOp::create(b, loc, isLane0, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        memref::StoreOp::create(
            b, loc, acc, smem,
            ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(), warp)});
      }
      gpu::BarrierOp::create(b, loc);
      Value r = memref::LoadOp::create(b, loc, smem, ValueRange{rk.cIdx(b, loc, 0)});
      for (int64_t w = 1; w < warps; ++w)
        r = combine(r, memref::LoadOp::create(b, loc, smem, ValueRange{rk.cIdx(b, loc, w)}));
      acc = r;
      if (op->getParentOfType<scf::ForOp>())
        gpu::BarrierOp::create(b, loc);
    }
    b.replaceOp(op, acc);
    return success();
  }
};

Value allTrue(OpBuilder &b, Location loc, Value mask) {
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::AND, mask);
}

Value elementIndex(OpBuilder &b, Location loc, Value offsets, int64_t j) {
  Value o = vector::ExtractOp::create(b, loc, offsets, ArrayRef<int64_t>{j});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), o);
}

/// tile.load: 16-byte vector loads per chunk where the offsets are provably contiguous and
/// every lane is active, else a masked gather; one scalar load for a constant address.
struct LoadLowering : RegisterPattern<tl::LoadOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(tl::LoadOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value ptr = a.getPtr();
    Type et = op.getType().getElementType();
    Type rt = rk.convert(op.getType());
    TypedAttr padAttr = op.getPadding() ? cast<TypedAttr>(*op.getPadding())
                                        : (isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 0.0))
                                                              : TypedAttr(b.getIntegerAttr(et, 0)));
    Value pad = arith::ConstantOp::create(b, loc, padAttr);
    Value offsets = a.getOffsets();
    Value mask = op.getMask() ? a.getMask() : Value();
    if (isUniformTile(op.getType())) {
      Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), offsets);
      if (!mask) {
        b.replaceOp(op, memref::LoadOp::create(b, loc, ptr, idx).getResult());
        return success();
      }
      auto ifOp = scf::IfOp::create(
          b, loc, mask,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(tb, l, memref::LoadOp::create(tb, l, ptr, idx).getResult());
          },
          [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, pad); });
      b.replaceOp(op, ifOp.getResult(0));
      return success();
    }
    Layout l = rk.layoutFor(op.getType().getDimSize(0));
    auto vt = cast<VectorType>(rt);
    auto maskT = VectorType::get(vt.getShape(), b.getI1Type());
    auto padV = vector::BroadcastOp::create(b, loc, vt, pad);
    Value c0 = rk.cIdx(b, loc, 0);
    // A masked gather on a buffer that is not empty reads element 0 in the masked-off
    // lanes (in bounds) and selects the padding there: plain loads with no branch per lane,
    // so the loads of consecutive gathers are in flight together (a masked
    // llvm.masked.gather becomes one branch around each lane's load, and a window or
    // reduction loop then waits for every load in turn). An empty or dynamic buffer keeps
    // the masked gather.
    auto ptrT = cast<MemRefType>(ptr.getType());
    const bool safeIndex0 = ptrT.hasStaticShape() && ptrT.getNumElements() > 0;
    auto gather = [&](OpBuilder &gb, Value m) -> Value {
      Value all = arith::ConstantOp::create(gb, loc, DenseElementsAttr::get(maskT, true));
      if (!m)
        return vector::GatherOp::create(gb, loc, vt, ptr, ValueRange{c0}, offsets, all, padV);
      if (!safeIndex0)
        return vector::GatherOp::create(gb, loc, vt, ptr, ValueRange{c0}, offsets, m, padV);
      auto offT = cast<VectorType>(offsets.getType());
      Value zeros = arith::ConstantOp::create(
          gb, loc, DenseElementsAttr::get(offT, gb.getZeroAttr(offT.getElementType())));
      Value safe = arith::SelectOp::create(gb, loc, m, offsets, zeros);
      Value v = vector::GatherOp::create(gb, loc, vt, ptr, ValueRange{c0}, safe, all, padV);
      return arith::SelectOp::create(gb, loc, m, v, padV);
    };
    if (rk.offsetInfo(op).constancy >= l.n) {
      // One address for the whole tile (a broadcast operand): one scalar load, done when any
      // lane of this thread is active (the address is the same for every lane).
      Value idx = elementIndex(b, loc, offsets, 0);
      Value any =
          mask ? vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, mask).getResult()
               : Value();
      Value s;
      if (any) {
        s = scf::IfOp::create(
                b, loc, any,
                [&](OpBuilder &tb, Location l2) {
                  scf::YieldOp::create(tb, l2,
                                       memref::LoadOp::create(tb, l2, ptr, idx).getResult());
                },
                [&](OpBuilder &eb, Location l2) { scf::YieldOp::create(eb, l2, pad); })
                .getResult(0);
      } else {
        s = memref::LoadOp::create(b, loc, ptr, idx);
      }
      Value v = vector::BroadcastOp::create(b, loc, vt, s);
      b.replaceOp(op, mask ? arith::SelectOp::create(b, loc, mask, v, padV).getResult() : v);
      return success();
    }
    if (!rk.isVectorizable(op, l, et)) {
      if (l.v > 1 && rk.offsetInfo(op).constancy >= l.v && (!mask || safeIndex0)) {
        // One address per chunk (an operand broadcast along the tile's inner runs, as a
        // per-row [N, 1] operand over [N, M] rows): one scalar load per chunk, at element
        // 0 where no lane of the chunk is active.
        Value r = padV;
        for (int64_t g = 0; g < l.regs / l.v; ++g) {
          Value o = vector::ExtractOp::create(b, loc, offsets, ArrayRef<int64_t>{g * l.v});
          if (mask) {
            Value any = vector::ExtractOp::create(b, loc, mask, ArrayRef<int64_t>{g * l.v});
            for (int64_t e = 1; e < l.v; ++e)
              any = arith::OrIOp::create(
                  b, loc, any,
                  vector::ExtractOp::create(b, loc, mask, ArrayRef<int64_t>{g * l.v + e}));
            Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(o.getType()));
            o = arith::SelectOp::create(b, loc, any, o, zero);
          }
          Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), o);
          Value v = memref::LoadOp::create(b, loc, ptr, idx);
          for (int64_t e = 0; e < l.v; ++e)
            r = vector::InsertOp::create(b, loc, v, r, ArrayRef<int64_t>{g * l.v + e});
        }
        b.replaceOp(op, mask ? arith::SelectOp::create(b, loc, mask, r, padV).getResult() : r);
        return success();
      }
      b.replaceOp(op, gather(b, mask));
      return success();
    }
    int64_t bytes = l.v * std::max<int64_t>(1, et.getIntOrFloatBitWidth() / 8);
    auto chunkT = VectorType::get({l.v}, et);
    auto vectorLoads = [&](OpBuilder &vb) -> Value {
      SmallVector<Value> chunks;
      for (int64_t g = 0; g < l.regs / l.v; ++g)
        chunks.push_back(vector::LoadOp::create(vb, loc, chunkT, ptr,
                                                ValueRange{elementIndex(vb, loc, offsets, g * l.v)},
                                                /*nontemporal=*/false, llvm::MaybeAlign(bytes)));
      Value r = padV;
      for (auto [g, c] : llvm::enumerate(chunks))
        for (int64_t e = 0; e < l.v; ++e)
          r = vector::InsertOp::create(vb, loc,
                                       vector::ExtractOp::create(vb, loc, c, ArrayRef<int64_t>{e}),
                                       r, ArrayRef<int64_t>{(int64_t)g * l.v + e});
      return r;
    };
    if (!mask) {
      b.replaceOp(op, vectorLoads(b));
      return success();
    }
    auto ifOp = scf::IfOp::create(
        b, loc, allTrue(b, loc, mask),
        [&](OpBuilder &tb, Location l2) { scf::YieldOp::create(tb, l2, vectorLoads(tb)); },
        [&](OpBuilder &eb, Location l2) { scf::YieldOp::create(eb, l2, gather(eb, mask)); });
    b.replaceOp(op, ifOp.getResult(0));
    return success();
  }
};

/// tile.store: thread 0 writes a uniform value; otherwise 16-byte vector stores per chunk
/// where provably contiguous and every lane is active, else a masked scatter (replicas
/// masked out).
struct StoreLowering : RegisterPattern<tl::StoreOp> {
  using RegisterPattern::RegisterPattern;
  LogicalResult matchAndRewrite(tl::StoreOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value ptr = a.getPtr();
    Value value = a.getValue();
    Value offsets = a.getOffsets();
    Value mask = op.getMask() ? a.getMask() : Value();
    auto valT = cast<RankedTensorType>(op.getValue().getType());
    if (isUniformTile(valT)) {
      // Every thread holds the same value: thread 0 writes it.
      Value isT0 =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rk.tid, rk.cI32(b, loc, 0));
      Value cond = mask ? arith::AndIOp::create(b, loc, isT0, mask).getResult() : isT0;
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        memref::StoreOp::create(
            b, loc, value, ptr,
            ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(), offsets)});
      }
      b.eraseOp(op);
      return success();
    }
    Layout l = rk.layoutFor(valT.getDimSize(0));
    auto vt = cast<VectorType>(value.getType());
    auto maskT = VectorType::get(vt.getShape(), b.getI1Type());
    if (l.replicated) {
      Value own = vector::BroadcastOp::create(b, loc, maskT, rk.firstChunk(b, loc, l).second);
      mask = mask ? arith::AndIOp::create(b, loc, mask, own).getResult() : own;
    }
    Value c0 = rk.cIdx(b, loc, 0);
    auto scatter = [&](OpBuilder &sb, Value m) {
      if (!m)
        m = arith::ConstantOp::create(sb, loc, DenseElementsAttr::get(maskT, true));
      vector::ScatterOp::create(sb, loc, /*result=*/Type(), ptr, ValueRange{c0}, offsets, m, value);
    };
    if (!rk.isVectorizable(op, l, vt.getElementType())) {
      scatter(b, mask);
      b.eraseOp(op);
      return success();
    }
    Type et = vt.getElementType();
    int64_t bytes = l.v * std::max<int64_t>(1, et.getIntOrFloatBitWidth() / 8);
    auto vectorStores = [&](OpBuilder &vb) {
      for (int64_t g = 0; g < l.regs / l.v; ++g) {
        SmallVector<int64_t> idx;
        for (int64_t e = 0; e < l.v; ++e)
          idx.push_back(g * l.v + e);
        Value chunk = vector::ShuffleOp::create(vb, loc, value, value, idx);
        vector::StoreOp::create(vb, loc, chunk, ptr,
                                ValueRange{elementIndex(vb, loc, offsets, g * l.v)},
                                /*nontemporal=*/false, llvm::MaybeAlign(bytes));
      }
    };
    if (!mask) {
      vectorStores(b);
      b.eraseOp(op);
      return success();
    }
    auto ifOp = scf::IfOp::create(b, loc, allTrue(b, loc, mask), /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      vectorStores(b);
      b.setInsertionPointToStart(ifOp.elseBlock());
      scatter(b, mask);
    }
    b.eraseOp(op);
    return success();
  }
};

/// Any arith / math op on tiles: the same op on the shares (elementwise).
struct ElementwiseLowering : public ConversionPattern {
  ElementwiseLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &b) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions())
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types, op->getAttrs());
    b.replaceOp(op, b.create(state)->getResults());
    return success();
  }
};

} // namespace

void aicc::registers::populateRegisterPatterns(RegisterKernel &rk, const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ProgramIdLowering, NumProgramsLowering, MakeRangeLowering,
               BroadcastLowering<tl::SplatOp>, BroadcastLowering<tl::BroadcastOp>,
               ForwardLowering<tl::ExpandDimsOp>, ForwardLowering<tensor::ExtractOp>,
               ConstantLowering, ReduceLowering, LoadLowering, StoreLowering>(rk, converter, ctx);
  patterns.add<ElementwiseLowering>(converter, ctx);
  // scf.for (and its yield) over the shares.
  scf::populateSCFStructuralTypeConversions(converter, patterns);
}

void aicc::registers::configureRegisterTarget(const TypeConverter &converter,
                                              ConversionTarget &target) {
  target.addIllegalDialect<tl::TileDialect>();
  target.addIllegalOp<tensor::ExtractOp>();
  target.addLegalDialect<gpu::GPUDialect, vector::VectorDialect, memref::MemRefDialect>();
  target.addLegalOp<func::FuncOp, func::ReturnOp>();
  target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
      [&](Operation *op) { return converter.isLegal(op); });
  scf::populateSCFStructuralTypeConversionTarget(converter, target);
}
