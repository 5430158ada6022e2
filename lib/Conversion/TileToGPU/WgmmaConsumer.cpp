//===- WgmmaConsumer.cpp - the consumer warpgroups: wgmma and the epilogues ---===//
//
// Part of convert-tile-dot-to-wgmma (WgmmaKernel.h).
//===----------------------------------------------------------------------===//
#include "WgmmaKernel.h"

#include "AccumulatorEpilogue.h"
#include "OperandAddress.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::wgmma;

/// The TMA-store epilogue's per-thread staging state: this warpgroup's staging buffer
/// and named barrier, and the per-thread parts of the staging addresses (the derivation:
/// the comment at its call in emitConsumer).
WgmmaKernel::StagingAddress WgmmaKernel::stagingAddress(OpBuilder &b, Location loc, Value cw,
                                                        Value rowInHalf, Value colBase) {
  StagingAddress a;
  Value cw64 = arith::ExtUIOp::create(b, loc, b.getI64Type(), cw);
  a.staging = arith::AddIOp::create(
      b, loc, smemBase,
      arith::AddIOp::create(b, loc, ci64(b, loc, stOffset),
                            arith::MulIOp::create(b, loc, cw64, ci64(b, loc, stBytes))));
  a.storeBar = arith::AddIOp::create(b, loc, cw, ci32(b, loc, kStoreBarrier));
  if (outTransposed) {
    Value A = arith::MulIOp::create(b, loc, rowInHalf, ci32(b, loc, outBytes));
    Value boxA = arith::DivUIOp::create(b, loc, A, ci32(b, loc, kSwizzleBytes));
    Value chunkA = arith::DivUIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, A, ci32(b, loc, kSwizzleBytes)), ci32(b, loc, 16));
    Value withinA = arith::RemUIOp::create(b, loc, A, ci32(b, loc, 16));
    a.stX = arith::MulIOp::create(b, loc, arith::XOrIOp::create(b, loc, chunkA, colBase),
                                  ci32(b, loc, 16));
    Value bytes = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc,
                              arith::MulIOp::create(b, loc, boxA, ci32(b, loc, BN * kSwizzleBytes)),
                              arith::MulIOp::create(b, loc, colBase, ci32(b, loc, kSwizzleBytes))),
        withinA);
    a.stP = arith::AddIOp::create(b, loc, a.staging,
                                  arith::ExtUIOp::create(b, loc, b.getI64Type(), bytes));
  } else {
    Value colBytes = arith::MulIOp::create(b, loc, colBase, ci32(b, loc, outBytes));
    Value L = arith::DivUIOp::create(b, loc, colBytes, ci32(b, loc, 16));
    Value W = arith::RemUIOp::create(b, loc, colBytes, ci32(b, loc, 16));
    Value rsw = arith::AndIOp::create(b, loc, rowInHalf, ci32(b, loc, 7));
    a.stX = arith::MulIOp::create(b, loc, arith::XOrIOp::create(b, loc, L, rsw), ci32(b, loc, 16));
    Value rowBytes = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rowInHalf, ci32(b, loc, kSwizzleBytes)), W);
    a.stP = arith::AddIOp::create(b, loc, a.staging,
                                  arith::ExtUIOp::create(b, loc, b.getI64Type(), rowBytes));
  }
  return a;
}

/// The end of a tile's TMA-store epilogue (steps 3 to 5 of emitConsumer's sequence): the
/// proxy fence, the warpgroup barrier, and the leader's box stores of the staging buffer.
void WgmmaKernel::emitTmaBoxStores(OpBuilder &tb, Location loc, IRMapping &map,
                                   ArrayRef<Value> args, Value leader, Value cw, Value staging,
                                   Value storeBar) {
  NVVM::FenceProxyOp::create(
      tb, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(tb.getContext(), NVVM::SharedSpace::shared_cta));
  NVVM::BarrierOp::create(tb, loc, TypeRange{}, storeBar, ci32(tb, loc, 128),
                          NVVM::BarrierReductionAttr(), Value());
  auto st = scf::IfOp::create(tb, loc, leader, false);
  OpBuilder sb = st.getThenBodyBuilder();
  // One TMA box store per box. Transposed, the box's columns are this warpgroup's tile rows
  // (the pixels) and its rows the tile's columns (the channels): coordinates (col (+ 64 w
  // cooperative) + j * boxElems, row, batch). A box wholly outside the output (pixels all
  // past OH * OW, or a batch >= N) is not issued; one that crosses the far edge is, and
  // the store writes only the elements inside (PTX ISA 5.5.3.3, "Out of Boundary Access"),
  // as the ragged M / N edges of the matmul epilogue rely on. Negative starting coordinates
  // are not used: a store there faulted on the H200 (see matchTmaStore).
  ArrayRef<int64_t> od = outStore.getDims();
  int64_t boxes = (outTransposed ? stRows : BN) / stBoxElems;
  Value batch = map.lookupOrDefault(outStore.getBatch());
  Value row = map.lookupOrDefault(outStore.getRow());
  Value col = map.lookupOrDefault(outStore.getCol());
  if (!pingpong && consumers > 1) {
    Value wOff = arith::MulIOp::create(sb, loc, cw, ci32(sb, loc, 64));
    if (outTransposed)
      col = arith::AddIOp::create(sb, loc, col, wOff);
    else
      row = arith::AddIOp::create(sb, loc, row, wOff);
  }
  int64_t boxStride = (outTransposed ? BN : stRows) * kSwizzleBytes;
  for (int64_t j = 0; j < boxes; ++j) {
    Value box =
        sharedPtr(sb, loc, arith::AddIOp::create(sb, loc, staging, ci64(sb, loc, j * boxStride)));
    Value c = arith::AddIOp::create(sb, loc, col, ci32(sb, loc, j * stBoxElems));
    OpBuilder ib = sb;
    if (outTransposed) {
      auto cmp = [&](arith::CmpIPredicate p, Value x, int64_t v) -> Value {
        return arith::CmpIOp::create(sb, loc, p, x, ci32(sb, loc, v));
      };
      Value inside = arith::AndIOp::create(
          sb, loc,
          arith::AndIOp::create(sb, loc, cmp(arith::CmpIPredicate::sgt, c, -stBoxElems),
                                cmp(arith::CmpIPredicate::slt, c, od[2])),
          cmp(arith::CmpIPredicate::ult, batch, od[0]));
      ib = scf::IfOp::create(sb, loc, inside, false).getThenBodyBuilder();
    }
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(ib, loc, args[outDescArg], box,
                                                       ValueRange{c, row, batch}, Value(),
                                                       NVVM::TMAStoreMode::TILE, Value());
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(sb, loc);
}

LogicalResult WgmmaKernel::emitConsumer(OpBuilder &b, Location loc, Block &src,
                                        ArrayRef<Value> args) {
  MLIRContext *ctx = b.getContext();
  auto grid = sched.getGrid();
  int64_t tiles = grid[0] * grid[1] * grid[2];
  int64_t R = BN / 2;
  // Cooperative: the consumer warpgroups split each tile's rows (64 each). Ping-pong: each
  // consumer warpgroup owns whole tiles (both 64-row halves, two accumulators), the two
  // taking turns along the CTA's tile sequence.
  int64_t halves = pingpong ? BM / 64 : 1;
  auto accTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(R, b.getF32Type()));
  Value t128 = arith::RemUIOp::create(b, loc, tid, ci32(b, loc, 128));
  Value cw = arith::SubIOp::create(b, loc, arith::DivUIOp::create(b, loc, tid, ci32(b, loc, 128)),
                                   ci32(b, loc, 1));
  Value lane = arith::RemUIOp::create(b, loc, t128, ci32(b, loc, 32));
  Value warp = arith::DivUIOp::create(b, loc, t128, ci32(b, loc, 32));
  // Accumulator coordinates (see the file comment): row of half h = 64 h' + 16 warp + lane / 4
  // (+ 8), h' = h (ping-pong) or the consumer index (cooperative).
  Value rowInHalf =
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, warp, ci32(b, loc, 16)),
                            arith::DivUIOp::create(b, loc, lane, ci32(b, loc, 4)));
  Value colBase = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, ci32(b, loc, 4)), ci32(b, loc, 2));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t128, ci32(b, loc, 0));

  Value bid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value gdim = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                          gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  // Tiles of this warpgroup: the CTA's sequence bid, bid + G, ... (cooperative), or every
  // other one of it starting at the consumer index (ping-pong). The pipeline position of a
  // tile's first k block is its ordinal in the CTA's sequence times numK (the producer loads
  // every tile of the sequence in order).
  Value first =
      pingpong
          ? arith::AddIOp::create(b, loc, bid, arith::MulIOp::create(b, loc, cw, gdim)).getResult()
          : bid;
  Value step = pingpong ? arith::MulIOp::create(b, loc, gdim, ci32(b, loc, 2)).getResult() : gdim;

  // TMA-store epilogue: this warpgroup's staging buffer and named barrier, and the per-thread
  // parts of the staging addresses. Element (r, c) of the staging buffer (r < stRows,
  // c < BLOCK_N) lies in box c / stBoxElems, row r, byte b = (c % stBoxElems) * outBytes of
  // the row; the 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B, as the loads; boxes are
  // 1024-aligned) puts 16-byte chunk b / 16 of row r at chunk (b / 16) ^ (r % 8):
  //   addr = staging + box * stRows * 128 + r * 128 + ((b / 16) ^ (r % 8)) * 16 + b % 16.
  // A thread's register pair (i, i + 1), i even, is row r = rowInHalf + 64 h + 8 c and
  // columns c0 = colBase + 8 q, c0 + 1 (file comment). Hence, per thread:
  //   - r % 8 = rowInHalf % 8 (64 h + 8 c is a multiple of 8);
  //   - the byte c0 * outBytes = colBase * outBytes + 8 q * outBytes, the first term < 32,
  //     the second a multiple of 16: chunk (in the row of boxes) Q + L with Q = q * outBytes
  //     / 2 (constant) and L = colBase * outBytes / 16 (0 for f16 / bf16; 0 or 1 for f32,
  //     and then Q is even), byte in chunk W = colBase * outBytes % 16; the pair (4 or 8
  //     bytes) stays in its chunk;
  //   - box Q / 8, chunk in box (Q % 8) | L, swizzled ((Q % 8) | L) ^ (r % 8) =
  //     (Q % 8) ^ (L ^ (r % 8)) (Q % 8 has bit 0 clear whenever L is 1).
  // So addr = P + (64 h + 8 c) * 128 + (Q / 8) * stRows * 128 + ((Q % 8) * 16 ^ X) with the
  // per-thread P = staging + rowInHalf * 128 + W and X = (L ^ (rowInHalf % 8)) * 16: two
  // registers, and per pair one xor with a constant and an add (a full per-column table
  // here made ptxas spill at BLOCK_N = 128 / 256).
  //
  // Transposed stores (the NCHW conv): tile element (r, c) is staging element (c, r), i.e.
  // staging row c (an output channel, < BLOCK_N) of 128 bytes in box r / stBoxElems (boxes of
  // BLOCK_N rows), byte b = (r % stBoxElems) * outBytes:
  //   addr = staging + box * BN * 128 + c * 128 + ((b / 16) ^ (c % 8)) * 16 + b % 16.
  // Register i (h = i / R, j = i % R, c = (j % 4) / 2, q = j / 4, e = j % 2) of a thread is
  // tile row r = 64 h + 8 c + rowInHalf (within the warpgroup's rows), column colBase + 8 q + e.
  // With A = rowInHalf * outBytes (rowInHalf = 16 warp + lane / 4 < 64):
  //   - the byte of r in the warpgroup's row of boxes is 64 h outBytes + 8 c outBytes + A; the
  //     first term is whole boxes (h outBytes / 2 of them), and 8 c outBytes + A % 128 < 128
  //     (f16: A % 128 <= 110, + 16; f32: A % 128 <= 92, + 32): r lies in box h outBytes / 2 +
  //     A / 128, chunk A % 128 / 16 + c outBytes / 2, byte A % 16 of the chunk; the two chunk
  //     terms have no bit in common (f16: 2 warp and c; f32: 4 (warp % 2) + lane / 16 and 2 c),
  //     so the sum is their xor;
  //   - the staging row c % 8 = colBase + e = colBase ^ e (colBase = 2 (lane % 4) is even).
  // So addr = P + (h outBytes / 2) BN 128 + (8 q + e) 128 + (X ^ ((c outBytes / 2) ^ e) 16)
  // with the per-thread P = staging + (A / 128) BN 128 + colBase 128 + A % 16 and
  // X = ((A % 128 / 16) ^ colBase) 16: the same two registers and per-element xor + add.
  // One 2-byte (f16 / bf16) or 4-byte (f32) st.shared per element: a warp's 32 lanes write
  // 4 staging rows (lane % 4) at 8 consecutive pixels (lane / 4) each; the 4 rows' chunks
  // differ ((..) ^ colBase, colBase = 0, 2, 4, 6), so the 32 lanes hit 32 different banks
  // (f32) or 16 banks, two lanes per 4-byte word (f16): conflict-free.
  Value staging, storeBar, stP, stX;
  if (tmaStore) {
    StagingAddress a = stagingAddress(b, loc, cw, rowInHalf, colBase);
    staging = a.staging;
    storeBar = a.storeBar;
    stP = a.stP;
    stX = a.stX;
  }
  // One bar.sync over this warpgroup's 128 threads (named barrier storeBar).
  auto warpgroupBarrier = [&](OpBuilder &ob) {
    NVVM::BarrierOp::create(ob, loc, TypeRange{}, storeBar, ci32(ob, loc, 128),
                            NVVM::BarrierReductionAttr(), Value());
  };

  // Norm prologue (rowSquares): thread t of a consumer warpgroup holds accumulator rows
  // r = rowInHalf + 8 c (c = 0, 1) of each 64-row half; it reads 16-byte chunks 2 (t % 4)
  // and 2 (t % 4) + 1 of those rows of every 128-byte box of the A stage (so the quad of
  // threads of a row reads its 8 chunks) and adds their squares to one f32 sum per row.
  // In the K-major 128-byte swizzle (PTX ISA 9.7.15.5.1.2; the file comment of
  // ConvertTileDotToWGMMA.cpp) logical chunk j of row r is stored at chunk j ^ (r % 8), and
  // r % 8 = (t % 32) / 4: per thread two constant offsets, rowInHalf * 128 +
  // ((2 (t % 4) + e) ^ ((t % 32) / 4)) * 16. (The quad reads all 8 chunks of its row either
  // way, so the sum does not depend on the swizzle; following it makes the 8 rows a warp
  // reads at once hit 8 different chunks, no bank conflicts.)
  // A LayerNorm's row sums of x follow the sums of squares (as many).
  int64_t rowRegs = rowSquares ? (xRowSums ? 4 : 2) * halves : 0;
  Value rowBar = arith::AddIOp::create(b, loc, cw, ci32(b, loc, kStoreBarrier));
  SmallVector<Value> rowChunkOff;
  if (rowSquares) {
    Value q4 = arith::RemUIOp::create(b, loc, lane, ci32(b, loc, 4));
    Value rsw = arith::DivUIOp::create(b, loc, lane, ci32(b, loc, 4));
    for (int64_t e = 0; e < 2; ++e) {
      Value chunk = arith::XOrIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, q4, ci32(b, loc, 2)),
                                ci32(b, loc, e)),
          rsw);
      Value off = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, rowInHalf, ci32(b, loc, kSwizzleBytes)),
          arith::MulIOp::create(b, loc, chunk, ci32(b, loc, 16)));
      rowChunkOff.push_back(arith::ExtUIOp::create(b, loc, b.getI64Type(), off));
    }
  }
  auto tileLoop = scf::ForOp::create(b, loc, first, tileCount(b, loc, tiles), step);
  OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
  Value t = tileLoop.getInductionVar();
  Value it0 = arith::MulIOp::create(
      tb, loc, arith::DivUIOp::create(tb, loc, arith::SubIOp::create(tb, loc, t, bid), gdim),
      ci32(tb, loc, numK));
  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), args))
    map.map(o, n);
  auto pids = tilePids(tb, loc, t);
  fn.walk([&](tl::ProgramIdOp p) { map.map(p.getResult(), pids[p.getAxis()]); });
  if (failed(cloneScalars(tb, src, map, kOp)))
    return failure();

  // One k block: wait for its stage, wgmma.fence, BLOCK_K / 16 wgmmas per accumulator,
  // commit, wait until one group is in flight. The first k block of a tile starts with
  // scale-d = 0 (D = A B): the accumulators are never written by other instructions (zeroing
  // them inside the fence window is what makes ptxas serialize wgmma, warning C7514/C7515;
  // CUTLASS does the same).
  auto layoutA = opA.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  auto layoutB = opB.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  auto wt = tf32          ? NVVM::WGMMATypes::tf32
            : elem.isF16() ? NVVM::WGMMATypes::f16
                           : NVVM::WGMMATypes::bf16;
  int64_t halfBytes = opA.kMajor ? 64 * kSwizzleBytes : (64 / opA.rowElems) * opA.boxBytes();
  // The squares of this thread's elements of A rows in k block stage `offAh` added to `rows`.
  auto addRowSquares = [&](OpBuilder &kb, ArrayRef<Value> offAh, SmallVectorImpl<Value> &rows) {
    auto vecT = VectorType::get({16 / elemBytes}, elem);
    for (int64_t h = 0; h < halves; ++h)
      for (int64_t box = 0; box < opA.numBoxes(); ++box)
        for (int64_t c = 0; c < 2; ++c)
          for (int64_t e = 0; e < 2; ++e) {
            Value addr = arith::AddIOp::create(
                kb, loc, smemBase,
                arith::AddIOp::create(
                    kb, loc, offAh[h],
                    arith::AddIOp::create(
                        kb, loc, rowChunkOff[e],
                        ci64(kb, loc, opA.offset + box * opA.boxBytes() + 8 * c * kSwizzleBytes))));
            Value v = LLVM::LoadOp::create(kb, loc, vecT, sharedPtr(kb, loc, addr), 16);
            Value &r = rows[2 * h + c];
            for (int64_t i = 0; i < vecT.getNumElements(); ++i) {
              Value x = vector::ExtractOp::create(kb, loc, v, ArrayRef<int64_t>{i});
              x = arith::ExtFOp::create(kb, loc, rowSumType(kb), x);
              r = arith::AddFOp::create(kb, loc, r, arith::MulFOp::create(kb, loc, x, x));
              if (xRowSums) {
                Value &sx = rows[2 * halves + 2 * h + c];
                sx = arith::AddFOp::create(kb, loc, sx, x);
              }
            }
          }
  };
  auto kStep = [&](OpBuilder &kb, ValueRange accIn, Value it, bool firstK,
                   SmallVectorImpl<Value> &rows) {
    Value s = arith::RemUIOp::create(kb, loc, it, ci32(kb, loc, stages));
    Value phase = arith::AndIOp::create(
        kb, loc, arith::DivUIOp::create(kb, loc, it, ci32(kb, loc, stages)), ci32(kb, loc, 1));
    waitParity(kb, loc, barrierAddr(kb, loc, fullBar, s), phase);
    Value s64 = arith::ExtUIOp::create(kb, loc, kb.getI64Type(), s);
    Value offA = arith::MulIOp::create(kb, loc, s64, ci64(kb, loc, opA.stageBytes));
    Value offB = arith::MulIOp::create(kb, loc, s64, ci64(kb, loc, opB.stageBytes));
    SmallVector<Value> offAh;
    if (pingpong) {
      for (int64_t h = 0; h < halves; ++h)
        offAh.push_back(arith::AddIOp::create(kb, loc, offA, ci64(kb, loc, h * halfBytes)));
    } else {
      // The consumer warpgroup's 64 rows of A.
      Value cw64 = arith::ExtUIOp::create(kb, loc, kb.getI64Type(), cw);
      offAh.push_back(arith::AddIOp::create(
          kb, loc, offA, arith::MulIOp::create(kb, loc, cw64, ci64(kb, loc, halfBytes))));
    }
    NVVM::WgmmaFenceAlignedOp::create(kb, loc);
    SmallVector<Value> accV(accIn.begin(), accIn.end());
    for (int64_t kk = 0; kk < BK / kInstr; ++kk) {
      Value db = descriptor(kb, loc, opB, offB, kk, 0);
      for (int64_t h = 0; h < halves; ++h) {
        Value da = descriptor(kb, loc, opA, offAh[h], kk, 0);
        auto scaleD = firstK && kk == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one;
        accV[h] = NVVM::WgmmaMmaAsyncOp::create(
            kb, loc, accTy, accV[h], da, db, NVVM::MMAShapeAttr::get(ctx, 64, BN, kInstr),
            NVVM::WGMMATypesAttr::get(ctx, wt), NVVM::WGMMATypesAttr::get(ctx, wt),
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, scaleD),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, layoutA), NVVM::MMALayoutAttr::get(ctx, layoutB),
            NVVM::MMAIntOverflowAttr());
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(kb, loc);
    // The row sums read the stage while the wgmmas run (both only read it).
    if (rowSquares)
      addRowSquares(kb, offAh, rows);
    NVVM::WgmmaWaitGroupSyncOp::create(kb, loc, 1);
    return accV;
  };
  auto release = [&](OpBuilder &ob, Value itOfStage) {
    // With the row sums every thread of the warpgroup read the stage: all of their reads
    // are done before the leader hands it back to the producer (bar.sync orders the
    // participating threads' memory accesses before it, PTX ISA "bar.sync").
    if (rowSquares)
      NVVM::BarrierOp::create(ob, loc, TypeRange{}, rowBar, ci32(ob, loc, 128),
                              NVVM::BarrierReductionAttr(), Value());
    auto rel = scf::IfOp::create(ob, loc, leader, false);
    OpBuilder rb = rel.getThenBodyBuilder();
    Value st = arith::RemUIOp::create(rb, loc, itOfStage, ci32(rb, loc, stages));
    NVVM::MBarrierArriveOp::create(rb, loc, Type(), barrierAddr(rb, loc, emptyBar, st), Value());
  };
  // Ping-pong order: warpgroup w starts the K loop of its n-th tile (ordinal 2n + w) once the
  // other warpgroup has issued the K loop of ordinal 2n + w - 1 (phase n + w - 1 of
  // orderBar[w]). Without it a warpgroup would wait on stages whose barrier is two or more
  // phases behind, and parity waits cannot tell those phases apart (CUTLASS orders its
  // ping-pong math warpgroups the same way).
  if (pingpong) {
    Value n = arith::DivUIOp::create(tb, loc, arith::SubIOp::create(tb, loc, t, first), step);
    Value phaseIdx =
        arith::SubIOp::create(tb, loc, arith::AddIOp::create(tb, loc, n, cw), ci32(tb, loc, 1));
    Value mustWait =
        arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sge, phaseIdx, ci32(tb, loc, 0));
    auto w = scf::IfOp::create(tb, loc, mustWait, false);
    OpBuilder wb = w.getThenBodyBuilder();
    waitParity(wb, loc, barrierAddr(wb, loc, orderBar, cw),
               arith::AndIOp::create(wb, loc, phaseIdx, ci32(wb, loc, 1)));
  }
  // k block 0 (peeled), then 1 .. numK-1, each releasing the stage of the block before it.
  SmallVector<Value> undefs(halves, LLVM::UndefOp::create(tb, loc, accTy));
  SmallVector<Value> rows0(
      rowRegs,
      arith::ConstantOp::create(tb, loc, tb.getFloatAttr(rowSumType(tb), 0.0)).getResult());
  SmallVector<Value> acc0 = kStep(tb, undefs, it0, /*firstK=*/true, rows0);
  Value c1 = arith::ConstantIndexOp::create(tb, loc, 1);
  Value cN = arith::ConstantIndexOp::create(tb, loc, numK);
  SmallVector<Value> inits(acc0);
  inits.push_back(arith::AddIOp::create(tb, loc, it0, ci32(tb, loc, 1)));
  inits.append(rows0);
  auto kLoop = scf::ForOp::create(tb, loc, c1, cN, c1, inits);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value it = kLoop.getRegionIterArgs()[halves];
    SmallVector<Value> rows(kLoop.getRegionIterArgs().take_back(rowRegs));
    SmallVector<Value> accV =
        kStep(kb, kLoop.getRegionIterArgs().take_front(halves), it, /*firstK=*/false, rows);
    release(kb, arith::AddIOp::create(kb, loc, it, ci32(kb, loc, stages - 1)));
    accV.push_back(arith::AddIOp::create(kb, loc, it, ci32(kb, loc, 1)));
    accV.append(rows);
    scf::YieldOp::create(kb, loc, accV);
  }
  Value itOut = kLoop.getResult(halves);
  // The row sums of the quad's four threads (each read a quarter of every row).
  SmallVector<Value> rowSums;
  for (Value r : kLoop.getResults().take_back(rowRegs)) {
    for (int64_t m : {1, 2})
      r = arith::AddFOp::create(tb, loc, r,
                                gpu::ShuffleOp::create(tb, loc, r, ci32(tb, loc, m),
                                                       ci32(tb, loc, 32), gpu::ShuffleMode::XOR)
                                    .getShuffleResult());
    rowSums.push_back(r);
  }
  if (pingpong) {
    // Hand the tensor cores to the other warpgroup; this one goes on to its epilogue.
    auto sig = scf::IfOp::create(tb, loc, leader, false);
    OpBuilder sb = sig.getThenBodyBuilder();
    Value other = arith::SubIOp::create(sb, loc, ci32(sb, loc, 1), cw);
    NVVM::MBarrierArriveOp::create(sb, loc, Type(), barrierAddr(sb, loc, orderBar, other), Value());
  }
  NVVM::WgmmaWaitGroupSyncOp::create(tb, loc, 0);
  release(tb, arith::AddIOp::create(tb, loc, itOut, ci32(tb, loc, stages - 1)));
  // The epilogue reads each accumulator through one f32 add of +0.0 (exact except that -0
  // becomes +0). ptxas (CUDA 13.0) serializes every wgmma of a kernel whose epilogue feeds the
  // raw accumulator registers to f32->f16 conversions (info C7514, "non wgmma instructions
  // reading accumulator registers ... between start and end of the pipeline stage"), even
  // after wgmma.wait_group 0; an arithmetic first use does not trigger it (measured on the
  // plain matmul kernels of bench/gemm_models.py).
  SmallVector<Value> accRegs;
  Value plusZero = arith::ConstantOp::create(tb, loc, tb.getF32FloatAttr(0.0));
  for (int64_t h = 0; h < halves; ++h)
    for (int64_t i = 0; i < R; ++i)
      accRegs.push_back(arith::AddFOp::create(
          tb, loc, LLVM::ExtractValueOp::create(tb, loc, kLoop.getResult(h), ArrayRef<int64_t>{i}),
          plusZero));
  // The wgmma accumulator layout (see the file comment): per half, 2 row classes and BN / 4
  // column classes.
  AccumulatorLayout layout;
  for (int64_t h = 0; h < halves; ++h)
    for (int64_t i = 0; i < R; ++i) {
      layout.rowClass.push_back(2 * h + (i % 4) / 2);
      layout.colClass.push_back((i / 4) * 2 + i % 2);
    }
  auto plus = [&](Value v, int64_t c) -> Value {
    return c ? arith::AddIOp::create(tb, loc, v, ci32(tb, loc, c)).getResult() : v;
  };
  Value rowBase = pingpong
                      ? rowInHalf
                      : arith::AddIOp::create(tb, loc, rowInHalf,
                                              arith::MulIOp::create(tb, loc, cw, ci32(tb, loc, 64)))
                            .getResult();
  for (int64_t h = 0; h < halves; ++h)
    for (int64_t c = 0; c < 2; ++c)
      layout.rowCoords.push_back(plus(rowBase, 64 * h + 8 * c));
  for (int64_t c = 0; c < BN / 4; ++c)
    layout.colCoords.push_back(plus(colBase, 8 * (c / 2) + c % 2));
  AccumulatorEpilogue ep(tb, loc, map, std::move(layout), accRegs, accResult);
  if (rowSquares) // row class 2 h + c, as rowSums
    ep.setRowValues(rowSquares, ArrayRef<Value>(rowSums).take_front(2 * halves));
  if (xRowSums)
    ep.setRowValues(xRowSums, ArrayRef<Value>(rowSums).drop_front(2 * halves));
  if (tmaStore) {
    // The TMA-store sequence of one tile (per consumer warpgroup, on its own staging buffer,
    // named barrier and bulk async-groups; the leader is its thread 0):
    //   1. leader: cp.async.bulk.wait_group.read 0 -- the TMA stores of this warpgroup's
    //      previous tile have finished reading the staging buffer (nothing to wait for at
    //      the first tile); bar.sync(storeBar, 128) -- no thread writes it before that;
    //   2. every thread: the epilogue in registers, its final values (output type) written
    //      to the staging buffer with st.shared (register pairs, 4 or 8 bytes);
    //   3. every thread: fence.proxy.async.shared::cta -- its generic-proxy shared-memory
    //      writes become visible to the async proxy (TMA reads through it);
    //   4. bar.sync(storeBar, 128) -- all 128 threads have written and fenced;
    //   5. leader: one cp.async.bulk.tensor shared::cta -> global (bulk_group) per box, at
    //      (col + j * boxElems, row (+ 64 w cooperative), batch); TMA clips what falls
    //      outside the matrix; then cp.async.bulk.commit_group.
    // The wait of step 1 runs after the next tile's K loop, which gives the stores that long
    // to drain. After the last tile the leader waits for their completion
    // (cp.async.bulk.wait_group 0) before the CTA exits.
    auto w = scf::IfOp::create(tb, loc, leader, false);
    OpBuilder wb = w.getThenBodyBuilder();
    NVVM::CpAsyncBulkWaitGroupOp::create(wb, loc, 0, wb.getUnitAttr());
    warpgroupBarrier(tb);
    // The address parts P and X are the same for every tile; LLVM's LICM would hoist each
    // staging address (or its xor part, one per chunk column) out of the tile loop, where
    // they stay live across the K loop and made ptxas spill the consumers at BLOCK_N = 128
    // / 256 (measured with ptxas -v, CUDA 13.0). A zero that LLVM cannot see through (inline
    // PTX with side effects, one mov per tile) keeps them in the epilogue, next to their use.
    Value opaqueZero =
        LLVM::InlineAsmOp::create(tb, loc, tb.getI32Type(), ValueRange{}, "mov.u32 $0, 0;", "=r",
                                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                                  LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                                  ArrayAttr())
            .getResult(0);
    Value tileX = arith::OrIOp::create(tb, loc, stX, opaqueZero);
    Value tileP = arith::AddIOp::create(
        tb, loc, stP, arith::ExtUIOp::create(tb, loc, tb.getI64Type(), opaqueZero));
    auto pairT = VectorType::get({2}, outElem);
    ep.setBlockStoreSink([&, pairT, tileX, tileP](OpBuilder &sb, int64_t i, Value v0, Value v1) {
      int64_t h = i / R, j = i % R, c = (j % 4) / 2, q = j / 4;
      if (outTransposed) {
        // Registers i and i + 1 are staging rows 8 q and 8 q + 1 (+ colBase) of the same
        // pixel: one element store each (see the address derivation above).
        for (int64_t e = 0; e < 2; ++e) {
          int64_t rest = (h * outBytes / 2) * BN * kSwizzleBytes + (8 * q + e) * kSwizzleBytes;
          int64_t sw = ((c * outBytes / 2) ^ e) * 16;
          Value off = arith::AddIOp::create(
              sb, loc, arith::XOrIOp::create(sb, loc, tileX, ci32(sb, loc, sw)),
              ci32(sb, loc, rest));
          Value addr = arith::AddIOp::create(sb, loc, tileP,
                                             arith::ExtUIOp::create(sb, loc, sb.getI64Type(), off));
          LLVM::StoreOp::create(sb, loc, e ? v1 : v0, sharedPtr(sb, loc, addr), outBytes);
        }
        return;
      }
      int64_t Q = q * outBytes / 2;
      int64_t rest = (64 * h + 8 * c) * kSwizzleBytes + (Q / 8) * stRows * kSwizzleBytes;
      Value sw = arith::XOrIOp::create(sb, loc, tileX, ci32(sb, loc, (Q % 8) * 16));
      Value off = arith::AddIOp::create(sb, loc, sw, ci32(sb, loc, rest));
      Value addr = arith::AddIOp::create(sb, loc, tileP,
                                         arith::ExtUIOp::create(sb, loc, sb.getI64Type(), off));
      Value v = vector::FromElementsOp::create(sb, loc, pairT, ValueRange{v0, v1});
      LLVM::StoreOp::create(sb, loc, v, sharedPtr(sb, loc, addr), 2 * outBytes);
    }, [&](OpBuilder &sb) {
      // An ordering point after each group of 8 registers: bar.warp.sync orders memory
      // accesses (PTX ISA, bar.warp.sync), so ptxas keeps the next group's loads (bias,
      // residual) and the math that hangs on them below this group's st.shared. Without it
      // ptxas hoists them all (st.shared cannot alias a global load, where the register
      // path's st.global can): with GELU's erf on 128 accumulators per thread (ping-pong)
      // that spilled 656 bytes; with it, none (ptxas -v, CUDA 13.0). The warp is converged
      // here, so the sync costs one WARPSYNC.
      NVVM::SyncWarpOp::create(sb, loc, ci32(sb, loc, -1));
    });
  }
  if (failed(ep.emitAfter(src, kOp)))
    return failure();
  if (tmaStore)
    emitTmaBoxStores(tb, loc, map, args, leader, cw, staging, storeBar);
  if (tmaStore) {
    // After the tile loop: the last tile's stores complete before the CTA exits.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointAfter(tileLoop);
    auto fin = scf::IfOp::create(b, loc, leader, false);
    OpBuilder fb = fin.getThenBodyBuilder();
    NVVM::CpAsyncBulkWaitGroupOp::create(fb, loc, 0, UnitAttr());
  }
  return success();
}
