//===- AttentionWgmmaConsumer.cpp - the consumer warpgroups: wgmma, online softmax ---===//
//
// Part of convert-tile-attention-to-wgmma (AttentionWgmmaKernel.h): S = Q K^T and O += P V by
// wgmma, the online softmax, the intra-warpgroup overlap and the ping-pong, the epilogue.
//===----------------------------------------------------------------------===//
#include "AttentionWgmmaKernel.h"

#include "AccumulatorEpilogue.h"
#include "AttentionProgram.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace aicc;
using namespace aicc::attention_wgmma;

SmallVector<Value> AttentionWgmmaKernel::fenceOperands(OpBuilder &b, ArrayRef<Value> vals) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> types;
  std::string outs, ins;
  for (size_t i = 0; i < vals.size(); ++i) {
    types.push_back(vals[i].getType());
    bool f = vals[i].getType().isF32();
    outs += std::string(i ? "," : "") + (f ? "=f" : "=r");
    ins += "," + std::to_string(i);
  }
  auto st = LLVM::LLVMStructType::getLiteral(ctx, types);
  Value r = LLVM::InlineAsmOp::create(b, loc, st, vals, "", outs + ins,
                                      /*has_side_effects=*/true, /*is_align_stack=*/false,
                                      LLVM::tailcallkind::TailCallKind::None,
                                      LLVM::AsmDialectAttr(), ArrayAttr())
                .getResult(0);
  SmallVector<Value> out;
  for (size_t i = 0; i < vals.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, r, ArrayRef<int64_t>{(int64_t)i}));
  return out;
}

Value AttentionWgmmaKernel::issueS(OpBuilder &b, Value cw, Value s) {
  MLIRContext *ctx = b.getContext();
  auto accTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kBN / 2, b.getF32Type()));
  auto wt = p.elem.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  // Q: this warpgroup's 64 rows of each [128 x 64] box; K: stage s, boxes [128 keys x 64].
  Value qBase =
      add(b, add(b, smemBase, qOff),
          arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), cw),
                                c64(b, 64 * kSwizzle)));
  Value kBase = add(b, add(b, smemBase, kOff),
                    arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), s),
                                          c64(b, kStage)));
  Value acc = LLVM::UndefOp::create(b, loc, accTy);
  for (int64_t kk = 0; kk < p.D / 16; ++kk) {
    // K-major slices: box (16 kk) / 64, byte (16 kk % 64) * 2 of the swizzle row.
    int64_t box = (16 * kk) / kBoxCols, inRow = (16 * kk % kBoxCols) * 2;
    Value da = wgmma::smemDescriptor(b, loc, add(b, qBase, box * kBM * kSwizzle + inRow), 16, 1024);
    Value db = wgmma::smemDescriptor(b, loc, add(b, kBase, box * kBN * kSwizzle + inRow), 16, 1024);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accTy, acc, da, db, NVVM::MMAShapeAttr::get(ctx, 64, kBN, 16),
        NVVM::WGMMATypesAttr::get(ctx, wt), NVVM::WGMMATypesAttr::get(ctx, wt),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, kk == 0 ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return acc;
}

SmallVector<Value> AttentionWgmmaKernel::issuePV(OpBuilder &b, ArrayRef<Value> O, ArrayRef<Value> P,
                                                 Value s) {
  MLIRContext *ctx = b.getContext();
  int64_t R = p.Dv / 2;
  Value vBase = add(b, add(b, smemBase, vOff),
                    arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), s),
                                          c64(b, vStage)));
  // wgmma with A in registers (the NVVM op takes descriptors only): d, {a0..a3}, b-desc,
  // scale-d (a predicate, always true: O starts at 0), imm-scale-a, imm-scale-b, imm-trans-b
  // (PTX ISA 9.7.15.5.2). V is MN-major
  // (Dv contiguous): imm-trans-b = 1, LBO = one box ([128 keys x 64] = 16 KiB, the next 64
  // columns), SBO = 1024 (the next 8 keys), slice kk at +16 kk rows.
  std::string t = p.elem.isF16() ? "f16" : "bf16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(p.Dv) + "k16.f32." + t + "." + t + " {";
  for (int64_t i = 0; i < R; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {$" + std::to_string(R) + ", $" + std::to_string(R + 1) + ", $" +
          std::to_string(R + 2) + ", $" + std::to_string(R + 3) + "}, $" + std::to_string(R + 4) +
          ", p, 1, 1, 1;\n}";
  std::string cons;
  for (int64_t i = 0; i < R; ++i)
    cons += (i ? ",=f" : "=f");
  cons += ",r,r,r,r,l";
  for (int64_t i = 0; i < R; ++i)
    cons += "," + std::to_string(i);
  auto accTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(R, b.getF32Type()));
  SmallVector<Value> acc(O.begin(), O.end());
  for (int64_t kk = 0; kk < kBN / 16; ++kk) {
    Value db =
        wgmma::smemDescriptor(b, loc, add(b, vBase, 16 * kk * kSwizzle), kBN * kSwizzle, 1024);
    SmallVector<Value> operands(P.begin() + 4 * kk, P.begin() + 4 * kk + 4);
    operands.push_back(db);
    operands.append(acc);
    Value r = LLVM::InlineAsmOp::create(b, loc, accTy, operands, text, cons,
                                        /*has_side_effects=*/true, /*is_align_stack=*/false,
                                        LLVM::tailcallkind::TailCallKind::None,
                                        LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
    for (int64_t i = 0; i < R; ++i)
      acc[i] = LLVM::ExtractValueOp::create(b, loc, r, ArrayRef<int64_t>{i});
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return acc;
}

AttentionWgmmaKernel::Softmax AttentionWgmmaKernel::softmax(OpBuilder &b, ArrayRef<Value> S,
                                                            Value j, ArrayRef<Value> m,
                                                            ArrayRef<Value> l, ArrayRef<Value> rows,
                                                            Value wgRow0) {
  int64_t R = kBN / 2;
  double ninf = -std::numeric_limits<double>::infinity();
  Value lane = arith::RemUIOp::create(b, loc, tid, c32(b, 32));
  Value col2t = mul(b, arith::RemUIOp::create(b, loc, lane, c32(b, 4)), 2);
  // A run-time key count (p.runSkv): the last block was loaded from key min(n0, Skv - kBN)
  // (the producer's loadBoxes), so its columns are those keys (key0 on) and the ones before
  // n0 (the blocks before had them) are masked too.
  Value n0 = mul(b, j, kBN);
  Value keyLimit = p.runSkv ? consumerMap->lookupOrDefault(p.runSkv) : c32(b, p.Skv);
  Value key0 =
      p.runSkv ? arith::MinSIOp::create(b, loc, n0, add(b, keyLimit, -kBN)).getResult() : n0;
  // x = s * scale * log2(e) (+ bias * log2(e)).
  SmallVector<Value> x;
  Value cc = f32c(b, p.scale * kLog2E);
  for (int64_t i = 0; i < R; ++i)
    x.push_back(arith::MulFOp::create(b, loc, S[i], cc));
  if (p.bias) {
    auto bias = emitAttentionBias(b, loc, p, *consumerMap,
                                  arith::IndexCastUIOp::create(b, loc, b.getIndexType(), key0),
                                  rowLocal, lane, R, sched, "convert-tile-attention-to-wgmma");
    biasFailed |= failed(bias);
    for (int64_t i = 0; i < R && succeeded(bias); ++i)
      x[i] = arith::AddFOp::create(b, loc, x[i], (*bias)[i]);
  }
  // The masks, on the blocks with keys past Skv or (causal) above the first row's diagonal.
  Value needMask =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, add(b, n0, kBN), keyLimit);
  if (p.causal) {
    // The block's last key against the warpgroup's first row.
    Value first = wgRow0;
    Value diag = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, add(b, key0, kBN - 1),
                                       add(b, first, p.Skv - p.Sq));
    needMask = arith::OrIOp::create(b, loc, needMask, diag);
  }
  {
    SmallVector<Type> types(R, b.getF32Type());
    auto ifOp = scf::IfOp::create(b, loc, types, needMask, /*withElseRegion=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value minf = f32c(tb, ninf);
    SmallVector<Value> masked;
    for (int64_t i = 0; i < R; ++i) {
      Value col = add(tb, add(tb, key0, col2t), 8 * (i / 4) + i % 2);
      Value keep = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::slt, col, keyLimit);
      if (p.runSkv)
        keep = arith::AndIOp::create(
            tb, loc, keep, arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sge, col, n0));
      if (p.causal) {
        Value limit = add(tb, rows[(i % 4) / 2], p.Skv - p.Sq);
        keep = arith::AndIOp::create(
            tb, loc, keep, arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sle, col, limit));
      }
      masked.push_back(arith::SelectOp::create(tb, loc, keep, x[i], minf));
    }
    scf::YieldOp::create(tb, loc, masked);
    OpBuilder eb = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, x);
    x.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  }
  Softmax r;
  Value minf = f32c(b, ninf);
  SmallVector<Value> mSafe(2);
  auto shfl = [&](Value v, int64_t off) {
    return gpu::ShuffleOp::create(b, loc, v, c32(b, off), c32(b, 32), gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  for (int64_t h = 0; h < 2; ++h) {
    Value mx = m[h];
    for (int64_t i = 0; i < R; ++i)
      if ((i % 4) / 2 == h)
        mx = arith::MaximumFOp::create(b, loc, mx, x[i]);
    mx = arith::MaximumFOp::create(b, loc, mx, shfl(mx, 1));
    mx = arith::MaximumFOp::create(b, loc, mx, shfl(mx, 2));
    r.m.push_back(mx);
    Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mx, minf);
    mSafe[h] = arith::SelectOp::create(b, loc, none, f32c(b, 0.0), mx);
    r.alpha.push_back(LLVM::CallIntrinsicOp::create(
                          b, loc, b.getF32Type(), b.getStringAttr("llvm.nvvm.ex2.approx.f32"),
                          ValueRange{arith::SubFOp::create(b, loc, m[h], mSafe[h])})
                          .getResult(0));
    r.l.push_back(arith::MulFOp::create(b, loc, l[h], r.alpha[h]));
  }
  SmallVector<Value> pv(R);
  for (int64_t i = 0; i < R; ++i) {
    int64_t h = (i % 4) / 2;
    pv[i] = LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                          b.getStringAttr("llvm.nvvm.ex2.approx.f32"),
                                          ValueRange{arith::SubFOp::create(b, loc, x[i], mSafe[h])})
                .getResult(0);
    r.l[h] = arith::AddFOp::create(b, loc, r.l[h], pv[i]);
  }
  // P's A registers: slice kk is S registers 8 kk .. 8 kk + 7 as four 16-bit pairs.
  for (int64_t i = 0; i < R; i += 2) {
    Value pair = vector::FromElementsOp::create(b, loc, VectorType::get({2}, b.getF32Type()),
                                                ValueRange{pv[i], pv[i + 1]});
    Value h2 = arith::TruncFOp::create(b, loc, VectorType::get({2}, p.elem), pair);
    r.P.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), h2));
  }
  return r;
}

LogicalResult AttentionWgmmaKernel::emitConsumer(OpBuilder &b, Block &src,
                                                 const IRMapping &kernelMap) {
  int64_t R = p.Dv / 2;
  double ninf = -std::numeric_limits<double>::infinity();
  Value t128 = arith::RemUIOp::create(b, loc, tid, c32(b, 128));
  Value cw =
      arith::SubIOp::create(b, loc, arith::DivUIOp::create(b, loc, tid, c32(b, 128)), c32(b, 1));
  Value lane = arith::RemUIOp::create(b, loc, t128, c32(b, 32));
  Value warp = arith::DivUIOp::create(b, loc, t128, c32(b, 32));
  Value g = arith::DivUIOp::create(b, loc, lane, c32(b, 4));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t128, c32(b, 0));
  Value local0 = add(b, add(b, mul(b, cw, 64), mul(b, warp, 16)), g);
  rowLocal = {local0, add(b, local0, 8)};
  // Per tile: the warpgroup's first row, this thread's two rows (absolute query index) and
  // the key blocks of the CTA's tiles before (key block j of the tile is block base + j of
  // the pipeline).
  Value wgRow0, blockBase;
  SmallVector<Value> rows;
  // The K (V) stage of block j is released once this warpgroup's S_j (P_j V_j) completed.
  auto release = [&](OpBuilder &ob, int64_t emptyOff, Value j) {
    auto rel = scf::IfOp::create(ob, loc, leader, false);
    OpBuilder rb = rel.getThenBodyBuilder();
    Value s = arith::RemUIOp::create(rb, loc, add(rb, blockBase, j), c32(rb, kStages));
    NVVM::MBarrierArriveOp::create(rb, loc, Type(), barrier(rb, emptyOff, s), Value());
  };
  // Ping-pong (FlashAttention-3 section 3.1): the two consumer warpgroups take turns issuing
  // their products, so one's softmax runs while the other's products occupy the tensor
  // cores. Warpgroup w waits on named barrier 1 + w (256 threads: its own bar.sync and the
  // other's bar.arrive) before it issues, and arrives on the other's after.
  auto turnSync = [&](OpBuilder &ob) {
    if (pingpong)
      NVVM::BarrierOp::create(ob, loc, TypeRange{}, add(ob, cw, 1), c32(ob, 256),
                              NVVM::BarrierReductionAttr(), Value());
  };
  auto turnPass = [&](OpBuilder &ob) {
    if (pingpong)
      NVVM::BarrierArriveOp::create(ob, loc, arith::SubIOp::create(ob, loc, c32(ob, 2), cw),
                                    c32(ob, 256));
  };
  if (pingpong) {
    // Warpgroup 0 goes first.
    Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cw, c32(b, 1));
    auto first = scf::IfOp::create(b, loc, second, false);
    OpBuilder fb = first.getThenBodyBuilder();
    NVVM::BarrierArriveOp::create(fb, loc, c32(fb, 1), c32(fb, 256));
  }
  auto sRegs = [&](OpBuilder &ob, Value acc) {
    SmallVector<Value> r;
    for (int64_t i = 0; i < kBN / 2; ++i)
      r.push_back(LLVM::ExtractValueOp::create(ob, loc, acc, ArrayRef<int64_t>{i}));
    return fenceOperands(ob, r);
  };
  auto scaleO = [&](OpBuilder &ob, ArrayRef<Value> O, ArrayRef<Value> alpha) {
    SmallVector<Value> r;
    for (int64_t i = 0; i < R; ++i)
      r.push_back(arith::MulFOp::create(ob, loc, O[i], alpha[(i % 4) / 2]));
    return r;
  };
  // Operands of a wgmma group through the operand fence, then wgmma.fence.
  auto fenceBeforeWgmma = [&](OpBuilder &ob, SmallVector<Value> &O, SmallVector<Value> &P) {
    SmallVector<Value> all(O);
    all.append(P);
    all = fenceOperands(ob, all);
    O.assign(all.begin(), all.begin() + O.size());
    P.assign(all.begin() + O.size(), all.end());
    NVVM::WgmmaFenceAlignedOp::create(ob, loc);
  };
  auto waitK = [&](OpBuilder &ob, Value j) {
    auto [s, ph] = stageOf(ob, add(ob, blockBase, j));
    waitParity(ob, barrier(ob, kFullOff(), s), ph);
    return s;
  };
  auto waitV = [&](OpBuilder &ob, Value j) {
    auto [s, ph] = stageOf(ob, add(ob, blockBase, j));
    waitParity(ob, barrier(ob, vFullOff(), s), ph);
    return s;
  };
  // S_j alone (its turn, waited for at once, K_j released) and its softmax.
  auto sAndSoftmax = [&](OpBuilder &ob, Value j, ArrayRef<Value> mm, ArrayRef<Value> ll) {
    Value sj = waitK(ob, j);
    turnSync(ob);
    NVVM::WgmmaFenceAlignedOp::create(ob, loc);
    Value acc = issueS(ob, cw, sj);
    turnPass(ob);
    NVVM::WgmmaWaitGroupSyncOp::create(ob, loc, 0);
    release(ob, kEmptyOff(), j);
    return softmax(ob, sRegs(ob, acc), j, mm, ll, rows, wgRow0);
  };
  // Loop state: m (2), l (2), O (R), and with the overlap P (kBN / 4 16-bit pairs) of the
  // block before.
  auto pack = [&](ArrayRef<Value> mm, ArrayRef<Value> ll, ArrayRef<Value> OO, ArrayRef<Value> PP) {
    SmallVector<Value> v(mm);
    v.append(ll.begin(), ll.end());
    v.append(OO.begin(), OO.end());
    v.append(PP.begin(), PP.end());
    return v;
  };
  auto tile = [&](OpBuilder &b, IRMapping &map, Value round, Value base, Value nEnd,
                  Value m0) -> LogicalResult {
    blockBase = base;
    consumerMap = &map;
    wgRow0 = add(b, m0, mul(b, cw, 64));
    Value row0 = add(b, add(b, wgRow0, mul(b, warp, 16)), g);
    rows = {row0, add(b, row0, 8)};
    waitParity(b, barrier(b, qFullOff()), arith::AndIOp::create(b, loc, round, c32(b, 1)));
    SmallVector<Value> O(R, f32c(b, 0.0));
    SmallVector<Value> m = {f32c(b, ninf), f32c(b, ninf)}, l = {f32c(b, 0.0), f32c(b, 0.0)};
    if (overlap) {
      // Block 0: S_0 and its softmax (O is 0: alpha is not needed).
      Value zero = c32(b, 0);
      Softmax sm = sAndSoftmax(b, zero, m, l);
      auto loop = scf::ForOp::create(b, loc, c32(b, 1), nEnd, c32(b, 1), pack(sm.m, sm.l, O, sm.P));
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Value j = loop.getInductionVar();
        ValueRange it = loop.getRegionIterArgs();
        SmallVector<Value> mm(it.begin(), it.begin() + 2), ll(it.begin() + 2, it.begin() + 4);
        SmallVector<Value> OO(it.begin() + 4, it.begin() + 4 + R), PP(it.begin() + 4 + R, it.end());
        Value prev = arith::SubIOp::create(lb, loc, j, c32(lb, 1));
        Value sj = waitK(lb, j);
        Value sp = waitV(lb, prev);
        turnSync(lb);
        fenceBeforeWgmma(lb, OO, PP);
        Value accS = issueS(lb, cw, sj);
        SmallVector<Value> Onew = issuePV(lb, OO, PP, sp);
        turnPass(lb);
        NVVM::WgmmaWaitGroupSyncOp::create(lb, loc, 1);
        release(lb, kEmptyOff(), j);
        Softmax smj = softmax(lb, sRegs(lb, accS), j, mm, ll, rows, wgRow0);
        NVVM::WgmmaWaitGroupSyncOp::create(lb, loc, 0);
        Onew = fenceOperands(lb, Onew);
        release(lb, vEmptyOff(), prev);
        Onew = scaleO(lb, Onew, smj.alpha);
        scf::YieldOp::create(lb, loc, pack(smj.m, smj.l, Onew, smj.P));
      }
      ValueRange res = loop.getResults();
      m.assign(res.begin(), res.begin() + 2);
      l.assign(res.begin() + 2, res.begin() + 4);
      O.assign(res.begin() + 4, res.begin() + 4 + R);
      SmallVector<Value> P(res.begin() + 4 + R, res.end());
      // The last block's PV.
      Value last = arith::SubIOp::create(b, loc, nEnd, c32(b, 1));
      Value sl = waitV(b, last);
      turnSync(b);
      fenceBeforeWgmma(b, O, P);
      O = issuePV(b, O, P, sl);
      turnPass(b);
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      O = fenceOperands(b, O);
      release(b, vEmptyOff(), last);
    } else {
      auto loop = scf::ForOp::create(b, loc, c32(b, 0), nEnd, c32(b, 1), pack(m, l, O, {}));
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Value j = loop.getInductionVar();
        ValueRange it = loop.getRegionIterArgs();
        SmallVector<Value> mm(it.begin(), it.begin() + 2), ll(it.begin() + 2, it.begin() + 4);
        SmallVector<Value> OO(it.begin() + 4, it.end());
        Softmax smj = sAndSoftmax(lb, j, mm, ll);
        SmallVector<Value> Os = scaleO(lb, OO, smj.alpha);
        SmallVector<Value> P = smj.P;
        Value sv = waitV(lb, j);
        turnSync(lb);
        fenceBeforeWgmma(lb, Os, P);
        SmallVector<Value> Onew = issuePV(lb, Os, P, sv);
        turnPass(lb);
        NVVM::WgmmaWaitGroupSyncOp::create(lb, loc, 0);
        Onew = fenceOperands(lb, Onew);
        release(lb, vEmptyOff(), j);
        scf::YieldOp::create(lb, loc, pack(smj.m, smj.l, Onew, {}));
      }
      ValueRange res = loop.getResults();
      m.assign(res.begin(), res.begin() + 2);
      l.assign(res.begin() + 2, res.begin() + 4);
      O.assign(res.begin() + 4, res.end());
    }
    // Persistent: every product of the tile is done; the producer may load the next Q.
    if (ctas) {
      auto rel = scf::IfOp::create(b, loc, leader, false);
      OpBuilder rb = rel.getThenBodyBuilder();
      NVVM::MBarrierArriveOp::create(rb, loc, Type(), barrier(rb, qEmptyOff()), Value());
    }
    if (biasFailed)
      return failure();
    // Epilogue: O / l (the quad's partial sums added), rounded, stored by register pairs. The
    // store's scalar operands after the key loop first.
    if (failed(cloneScalarOps(b, src, map, nullptr, sched, "convert-tile-attention-to-wgmma")))
      return failure();
    emitAttentionStore(
        b, loc, p.store, map,
        [&](Value r) { return add(b, add(b, add(b, r, mul(b, cw, 64)), mul(b, warp, 16)), g); },
        lane, O, l, p.zeroUndefinedRows);
    return success();
  };
  if (failed(forEachTile(b, src, kernelMap, tile)))
    return failure();

  if (pingpong) {
    // Warpgroup 0 takes the last turn warpgroup 1 passed it (every bar.arrive is matched).
    Value firstWg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cw, c32(b, 0));
    auto fin = scf::IfOp::create(b, loc, firstWg, false);
    OpBuilder fb = fin.getThenBodyBuilder();
    NVVM::BarrierOp::create(fb, loc, TypeRange{}, c32(fb, 1), c32(fb, 256),
                            NVVM::BarrierReductionAttr(), Value());
  }
  return success();
}
