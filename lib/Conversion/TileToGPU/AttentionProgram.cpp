//===- AttentionProgram.cpp - the GPU attention tile program, matched ----------===//
#include "AttentionProgram.h"

#include "AccumulatorEpilogue.h"
#include "aicc/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

std::optional<double> aicc::splatConstant(Value v) {
  if (auto s = v.getDefiningOp<tl::SplatOp>())
    v = s.getOperand();
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValueAsDouble();
  DenseElementsAttr d;
  if (matchPattern(v, m_Constant(&d)) && d.isSplat() && isa<FloatType>(d.getElementType()))
    return d.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

std::string aicc::matchAttentionProgram(func::FuncOp fn, tl::ScheduleAttr sched, int64_t BM,
                                        int64_t BN, AttentionProgram &p) {
  SmallVector<tl::DotOp> dots;
  fn.walk([&](tl::DotOp d) { dots.push_back(d); });
  if (dots.size() != 2 || dots[0]->getBlock() != dots[1]->getBlock())
    return "not two tile.dot ops in one block";
  Block *body = dots[0]->getBlock();
  Block &top = fn.getBody().front();
  if (body != &top) {
    p.loop = dyn_cast<scf::ForOp>(body->getParentOp());
    if (!p.loop || p.loop->getBlock() != &top || p.loop.getNumRegionIterArgs() != 3)
      return "the dots are not in one key loop of three carried values at the kernel's top";
  }
  p.dotS = dots[0];
  p.dotO = dots[1];
  if (p.dotO->isBeforeInBlock(p.dotS))
    std::swap(p.dotS, p.dotO);
  auto qL = p.dotS.getA().getDefiningOp<tl::BlockLoadOp>();
  auto kL = p.dotS.getB().getDefiningOp<tl::BlockLoadOp>();
  auto vL = p.dotO.getB().getDefiningOp<tl::BlockLoadOp>();
  if (!qL || !kL || !vL || qL->getBlock() != &top || kL->getBlock() != body ||
      vL->getBlock() != body || !p.dotO.getA().getDefiningOp<arith::TruncFOp>())
    return "Q, K^T, V are not the template's block loads (Q before the key loop)";
  p.q = qL;
  p.k = kL;
  p.v = vL;
  auto shapeOf = [](Value x) { return cast<RankedTensorType>(x.getType()).getShape(); };
  p.elem = cast<RankedTensorType>(qL.getType()).getElementType();
  if (!p.elem.isF16() && !p.elem.isBF16())
    return "operands must be f16 or bf16";
  for (Value x : {kL.getResult(), vL.getResult(), p.dotO.getA()})
    if (cast<RankedTensorType>(x.getType()).getElementType() != p.elem)
      return "Q, K, V and P must share one element type";
  p.D = shapeOf(qL)[1];
  p.Dv = shapeOf(vL)[1];
  if (shapeOf(qL)[0] != BM || shapeOf(kL) != ArrayRef<int64_t>{p.D, BN} || shapeOf(vL)[0] != BN)
    return "blocks must be Q [" + std::to_string(BM) + ", D], K^T [D, " + std::to_string(BN) +
           "], V [" + std::to_string(BN) + ", Dv]";
  if (qL.getTranspose() || vL.getTranspose())
    return "Q and V must be read as stored (no transpose)";
  p.keyRows = kL.getTranspose();
  for (tl::BlockLoadOp l : {qL, kL, vL})
    if (l.getDims()[2] % 8 != 0)
      return "operand rows must be 16-byte multiples (dims[2] % 8 == 0)";
  p.Sq = qL.getDims()[1];
  p.Skv = vL.getDims()[1];
  // A run-time key count: V's rows (K's too when read as rows), one scalar computed before
  // the key loop.
  auto topScalar = [&](Value x) {
    Operation *d = x.getDefiningOp();
    return d && d->getBlock() == &top && (!p.loop || d->isBeforeInBlock(p.loop));
  };
  p.runSkv = vL.getRows();
  p.runSq = qL.getRows();
  if (p.keyRows ? kL.getRows() != p.runSkv : (bool)kL.getRows())
    return "only V's and K's rows take a run-time key count, the same one";
  if (p.runSkv && (!p.loop || !topScalar(p.runSkv)))
    return "the run-time key count is not a scalar before a key loop";
  if (p.runSq && (!p.loop || !topScalar(p.runSq)))
    return "the run-time query count is not a scalar before a key loop";
  // (Fewer: a shape bucket's kernel covers the first rows, the run's queries being at most
  // those: attentionShapeBuckets.)
  if (sched.getGrid()[0] < 1 || sched.getGrid()[0] > (int64_t)llvm::divideCeil(p.Sq, BM))
    return "grid x must be 1 to ceil(Sq / BLOCK_M) programs";
  // The scale: s * c right after the first product.
  if (!p.dotS->hasOneUse())
    return "S = Q K^T has more than one user";
  auto mul = dyn_cast<arith::MulFOp>(*p.dotS->getUsers().begin());
  std::optional<double> c;
  if (mul)
    c = splatConstant(mul.getLhs() == p.dotS.getResult() ? mul.getRhs() : mul.getLhs());
  if (!c || !std::isfinite(*c))
    return "S = Q K^T is not scaled by one constant";
  p.scale = *c;
  // The bias: (s * c) + b, b a tile of index math and loads (no product, no carried value).
  if (mul->hasOneUse())
    if (auto add = dyn_cast<arith::AddFOp>(*mul->getUsers().begin())) {
      p.bias = add.getLhs() == mul.getResult() ? add.getRhs() : add.getLhs();
      if (shapeOf(p.bias) != ArrayRef<int64_t>{BM, BN} ||
          !cast<RankedTensorType>(p.bias.getType()).getElementType().isF32())
        return "the bias added to S is not an f32 [BLOCK_M, BLOCK_N] tile";
      SmallVector<Value> work = {p.bias};
      while (!work.empty()) {
        Value x = work.pop_back_val();
        if (!isa<RankedTensorType>(x.getType()))
          continue;
        Operation *d = x.getDefiningOp();
        if (!d)
          return "the bias depends on a loop-carried tile";
        if (!p.biasOps.insert(d).second)
          continue;
        if (isa<tl::DotOp, tl::BlockLoadOp, tl::ReduceOp>(d) || !AccumulatorEpilogue::isSupported(d))
          return "op '" + d->getName().getStringRef().str() + "' in the bias";
        llvm::append_range(work, d->getOperands());
      }
    }
  // Every op of the key loop is one the template's GPU form has; the causal mask is the
  // comparison j <= i + Skv - Sq (sle; the key tail's is j < Skv, slt).
  for (Operation &op : *body) {
    if (p.biasOps.contains(&op))
      continue;
    if (body == &top && (&op == qL.getOperation() || !touchesTiles(&op)))
      continue;
    if (isa<tl::StoreOp, tl::BlockStoreOp, func::ReturnOp>(op) && body == &top)
      continue;
    if (!isa<tl::BlockLoadOp, tl::DotOp, tl::SplatOp, tl::BroadcastOp, tl::ExpandDimsOp,
             tl::MakeRangeOp, tl::ReduceOp, math::ExpOp, scf::YieldOp>(op) &&
        op.getDialect()->getNamespace() != "arith")
      return "op '" + op.getName().getStringRef().str() + "' in the key loop";
    if (auto l = dyn_cast<tl::BlockLoadOp>(op); l && l != kL && l != vL)
      return "a third block load in the key loop";
    auto cmp = dyn_cast<arith::CmpIOp>(op);
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::sle ||
        !isa<RankedTensorType>(cmp.getLhs().getType()))
      continue;
    p.causal = true;
  }
  SmallVector<Operation *> stores;
  fn.walk([&](Operation *op) {
    if (isa<tl::StoreOp, tl::BlockStoreOp>(op))
      stores.push_back(op);
  });
  if (stores.size() == 2) {
    // Split keys: the slice's f32 output and its [BLOCK_M, 1] log-sum-exps.
    auto a = dyn_cast<tl::BlockStoreOp>(stores[0]), b = dyn_cast<tl::BlockStoreOp>(stores[1]);
    if (a && b && shapeOf(a.getValue()) == ArrayRef<int64_t>{BM, 1})
      std::swap(a, b);
    if (!a || !b || b->getBlock() != &top || b.getTranspose() ||
        shapeOf(b.getValue()) != ArrayRef<int64_t>{BM, 1} ||
        !cast<RankedTensorType>(b.getValue().getType()).getElementType().isF32() ||
        b.getDims()[2] != 1 || !p.loop)
      return "two stores, not a split key loop's output and [BLOCK_M, 1] f32 log-sum-exps";
    p.store = a;
    p.lseStore = b;
  } else {
    p.store = stores.size() == 1 ? dyn_cast<tl::BlockStoreOp>(stores[0]) : tl::BlockStoreOp();
  }
  Type outElem = p.lseStore ? Float32Type::get(fn.getContext()) : p.elem;
  // The stored tile: (truncf of) O / l, or select(!(l > 0), 0, O / l) (the template's
  // zero_undefined_rows). The lowerings regenerate this math, so any other form is refused.
  if (p.store && !p.lseStore) {
    Value y = p.store.getValue();
    if (auto t = y.getDefiningOp<arith::TruncFOp>())
      y = t.getIn();
    if (auto sel = y.getDefiningOp<arith::SelectOp>()) {
      auto cmp = sel.getCondition().getDefiningOp<tl::BroadcastOp>();
      auto zero = sel.getTrueValue().getDefiningOp<tl::SplatOp>();
      if (!cmp || !zero || !matchPattern(zero.getOperand(), m_AnyZeroFloat()) ||
          !sel.getFalseValue().getDefiningOp<arith::MulFOp>())
        return "the stored tile is a select other than select(!(l > 0), 0, O / l)";
      p.zeroUndefinedRows = true;
    } else if (!y.getDefiningOp<arith::MulFOp>()) {
      return "the stored tile is not O / l";
    }
  }
  if (!p.store || p.store->getBlock() != &top || p.store.getTranspose() ||
      shapeOf(p.store.getValue()) != ArrayRef<int64_t>{BM, p.Dv} ||
      cast<RankedTensorType>(p.store.getValue().getType()).getElementType() != outElem ||
      p.store.getDims()[2] < p.Dv || p.store.getDims()[2] % 2 != 0)
    return p.lseStore ? "the output is not one block store of the [BLOCK_M, Dv] f32 tile"
                      : "the output is not one block store of the [BLOCK_M, Dv] tile in the "
                        "operands' type";
  return "";
}

LogicalResult aicc::lowerAttentionKernels(
    ModuleOp root, int64_t blockN, const ChipInfo &chip, ChipFeature feature, StringRef featureName,
    StringRef pass, function_ref<FailureOr<std::string>(func::FuncOp, tl::ScheduleAttr)> lower) {
  ModuleOp kernels = getTileKernelModule(root);
  if (!kernels)
    return success();
  SmallVector<func::FuncOp> todo;
  for (auto fn : kernels.getOps<func::FuncOp>()) {
    tl::ScheduleAttr sched = tl::getSchedule(fn);
    if (!sched || !sched.getBlocks().get("BLOCK_D"))
      continue;
    auto bn = dyn_cast_or_null<IntegerAttr>(sched.getBlocks().get("BLOCK_N"));
    if (blockN && (!bn || bn.getInt() != blockN))
      continue;
    // The tensor-core kernels' programs have 16-bit operands; an f32 one is the cpu
    // template's (attentionSimtProblem), lowered by convert-tile-to-gpu.
    int64_t dots = 0, wide = 0;
    fn.walk([&](tl::DotOp d) {
      ++dots;
      if (cast<ShapedType>(d->getOperand(0).getType()).getElementType().getIntOrFloatBitWidth() > 16)
        ++wide;
    });
    if (dots && !wide)
      todo.push_back(fn);
  }
  for (func::FuncOp fn : todo) {
    if (!chip.has(feature))
      return fn.emitError(pass) << ": " << chip.name << " has no " << featureName;
    FailureOr<std::string> why = lower(fn, tl::getSchedule(fn));
    if (failed(why))
      return failure();
    if (!why->empty())
      return fn.emitError(pass) << ": attention kernel '" << fn.getName()
                                << "' is not the form the lowering takes: " << *why;
  }
  return success();
}

void aicc::emitAttentionStore(OpBuilder &b, Location loc, tl::BlockStoreOp store, IRMapping &map,
                              function_ref<Value(Value)> rowOf, Value lane, ArrayRef<Value> O,
                              ArrayRef<Value> l, bool zeroUndefinedRows, tl::BlockStoreOp lseStore,
                              ArrayRef<Value> mLog2) {
  auto c32 = [&](OpBuilder &ob, int64_t x) -> Value {
    return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), x);
  };
  auto add = [&](OpBuilder &ob, Value x, Value y) -> Value {
    return arith::AddIOp::create(ob, loc, x, y);
  };
  auto mul = [&](OpBuilder &ob, Value x, int64_t y) -> Value {
    return arith::MulIOp::create(ob, loc, x, c32(ob, y));
  };
  auto shfl = [&](Value v, int64_t off) {
    return gpu::ShuffleOp::create(b, loc, v, c32(b, off), c32(b, 32), gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  auto f32c = [&](double x) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(x));
  };
  SmallVector<Value> inv(2), sums(2), undefined(2);
  for (int64_t h = 0; h < 2; ++h) {
    Value lh = arith::AddFOp::create(b, loc, l[h], shfl(l[h], 1));
    lh = arith::AddFOp::create(b, loc, lh, shfl(lh, 2));
    sums[h] = lh;
    inv[h] = arith::DivFOp::create(b, loc, f32c(1.0), lh);
    if (lseStore)
      inv[h] = arith::SelectOp::create(
          b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lh, f32c(0.0)),
          f32c(0.0), inv[h]);
    if (zeroUndefinedRows)
      undefined[h] = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULE, lh, f32c(0.0));
  }
  Type elem = cast<RankedTensorType>(store.getValue().getType()).getElementType();
  ArrayRef<int64_t> dims = store.getDims();
  Value yPtr = map.lookupOrDefault(store.getPtr());
  Value sBatch = map.lookupOrDefault(store.getBatch());
  Value sRow = rowOf(map.lookupOrDefault(store.getRow()));
  Value sCol = add(b, map.lookupOrDefault(store.getCol()),
                   mul(b, arith::RemUIOp::create(b, loc, lane, c32(b, 4)), 2));
  Value batchOff = mul(b, sBatch, dims[1] * dims[2]);
  for (int64_t h = 0; h < 2; ++h) {
    Value rowAbs = add(b, sRow, c32(b, 8 * h));
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rowAbs, c32(b, dims[1]));
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
    OpBuilder sb = ifOp.getThenBodyBuilder();
    Value rowOff = add(sb, batchOff, mul(sb, rowAbs, dims[2]));
    for (int64_t n = 0; n < (int64_t)O.size() / 4; ++n) {
      Value lo = arith::MulFOp::create(sb, loc, O[4 * n + 2 * h], inv[h]);
      Value hi = arith::MulFOp::create(sb, loc, O[4 * n + 2 * h + 1], inv[h]);
      if (zeroUndefinedRows) {
        Value zero = arith::ConstantOp::create(sb, loc, sb.getF32FloatAttr(0.0));
        lo = arith::SelectOp::create(sb, loc, undefined[h], zero, lo);
        hi = arith::SelectOp::create(sb, loc, undefined[h], zero, hi);
      }
      Value pair = vector::FromElementsOp::create(sb, loc, VectorType::get({2}, sb.getF32Type()),
                                                  ValueRange{lo, hi});
      Value out =
          elem.isF32() ? pair : arith::TruncFOp::create(sb, loc, VectorType::get({2}, elem), pair);
      Value off = add(sb, rowOff, add(sb, sCol, c32(sb, 8 * n)));
      vector::StoreOp::create(
          sb, loc, out, yPtr,
          ValueRange{arith::IndexCastUIOp::create(sb, loc, sb.getIndexType(), off)},
          /*nontemporal=*/false, llvm::MaybeAlign(4));
    }
  }
  if (!lseStore)
    return;
  // The log-sum-exps: (m + log2(l)) ln 2 by lane 4 g of each quad (lg2.approx(0) = -inf).
  ArrayRef<int64_t> ldims = lseStore.getDims();
  Value lPtr = map.lookupOrDefault(lseStore.getPtr());
  Value lRow = rowOf(map.lookupOrDefault(lseStore.getRow()));
  Value lBase = mul(b, map.lookupOrDefault(lseStore.getBatch()), ldims[1] * ldims[2]);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      arith::RemUIOp::create(b, loc, lane, c32(b, 4)), c32(b, 0));
  for (int64_t h = 0; h < 2; ++h) {
    Value rowAbs = add(b, lRow, c32(b, 8 * h));
    Value ok = arith::AndIOp::create(
        b, loc, first,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rowAbs, c32(b, ldims[1])));
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
    OpBuilder sb = ifOp.getThenBodyBuilder();
    Value lg2 = LLVM::CallIntrinsicOp::create(sb, loc, sb.getF32Type(),
                                              sb.getStringAttr("llvm.nvvm.lg2.approx.f"),
                                              ValueRange{sums[h]})
                    .getResult(0);
    Value lse = arith::MulFOp::create(
        sb, loc, arith::AddFOp::create(sb, loc, mLog2[h], lg2),
        arith::ConstantOp::create(sb, loc, sb.getF32FloatAttr(0.6931471805599453)));
    Value off = add(sb, lBase, mul(sb, rowAbs, ldims[2]));
    memref::StoreOp::create(
        sb, loc, lse, lPtr,
        ValueRange{arith::IndexCastUIOp::create(sb, loc, sb.getIndexType(), off)});
  }
}

FailureOr<SmallVector<Value>> aicc::emitAttentionBias(OpBuilder &b, Location loc,
                                                     const AttentionProgram &p,
                                                     const IRMapping &map, Value n0,
                                                     ArrayRef<Value> rowLocal, Value lane,
                                                     int64_t regs, tl::ScheduleAttr sched,
                                                     StringRef pass) {
  IRMapping kmap = map;
  if (scf::ForOp loop = p.loop) {
    kmap.map(loop.getInductionVar(), n0);
    if (failed(cloneScalarOps(b, *loop.getBody(), kmap, nullptr, sched, pass)))
      return failure();
  }
  auto c32 = [&](int64_t x) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), x);
  };
  AccumulatorLayout layout;
  layout.rowCoords.assign(rowLocal.begin(), rowLocal.end());
  Value col2t = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, c32(4)), c32(2));
  for (int64_t c = 0; c < regs / 2; ++c)
    layout.colCoords.push_back(arith::AddIOp::create(b, loc, col2t, c32(8 * (c / 2) + c % 2)));
  for (int64_t i = 0; i < regs; ++i) {
    layout.rowClass.push_back((i % 4) / 2);
    layout.colClass.push_back(2 * (i / 4) + i % 2);
  }
  AccumulatorEpilogue ev(b, loc, kmap, std::move(layout), {}, Value());
  SmallVector<Value> out;
  for (int64_t i = 0; i < regs; ++i) {
    FailureOr<Value> v = ev.eval2D(p.bias, i);
    if (failed(v))
      return failure();
    out.push_back(*v);
  }
  Value log2e = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kLog2E));
  for (Value &v : out)
    v = arith::MulFOp::create(b, loc, v, log2e);
  return out;
}
