//===- WgmmaProducer.cpp - the producer warpgroup: TMA loads and gathers ---===//
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

SmallVector<Value> WgmmaKernel::tilePids(OpBuilder &b, Location loc, Value t) {
  auto grid = sched.getGrid();
  int64_t gm = grid[0], gn = grid[1];
  if (runGridM) {
    Value mnTiles = arith::MulIOp::create(b, loc, runGridM, ci32(b, loc, gn));
    Value mn = arith::RemUIOp::create(b, loc, t, mnTiles);
    Value pidB = arith::DivUIOp::create(b, loc, t, mnTiles);
    auto [pidM, pidN] = groupedTilePids(b, loc, mn, runGridM, gn, kGroupM);
    return {pidM, pidN, pidB};
  }
  Value mn = arith::RemUIOp::create(b, loc, t, ci32(b, loc, gm * gn));
  Value pidB = arith::DivUIOp::create(b, loc, t, ci32(b, loc, gm * gn));
  auto [pidM, pidN] = groupedTilePids(b, loc, mn, gm, gn, kGroupM);
  return {pidM, pidN, pidB};
}

void WgmmaKernel::setRunTiles(OpBuilder &b, Location loc, ArrayRef<Value> args) {
  auto grid = sched.getGrid();
  if (Value rows = runPrograms(b, loc, fn, args, 0, grid[0])) {
    runGridM = rows;
    runTiles = arith::MulIOp::create(b, loc, rows, ci32(b, loc, grid[1] * grid[2]));
  } else if (Value matrices = runPrograms(b, loc, fn, args, 2, grid[2])) {
    runTiles = arith::MulIOp::create(b, loc, matrices, ci32(b, loc, grid[0] * grid[1]));
  }
}

Value WgmmaKernel::descriptor(OpBuilder &b, Location loc, const Operand &o, Value stageOff,
                              int64_t kk, int64_t mnOffset) {
  // Byte offset of the slice inside the stage.
  int64_t off;
  int64_t lbo, sbo = 1024;
  if (o.kMajor) {
    int64_t k = kk * kInstr;
    off = (k / o.rowElems) * o.boxBytes() + mnOffset * kSwizzleBytes +
          (k % o.rowElems) * elemBytes;
    lbo = 16; // unused for swizzled K-major layouts ("assumed 1" once encoded)
  } else {
    off = (mnOffset / o.rowElems) * o.boxBytes() + kk * kInstr * kSwizzleBytes;
    lbo = o.boxBytes();
  }
  Value addr = arith::AddIOp::create(
      b, loc, smemBase, arith::AddIOp::create(b, loc, stageOff, ci64(b, loc, o.offset + off)));
  return smemDescriptor(b, loc, addr, lbo, sbo);
}

void WgmmaKernel::emitProducer(OpBuilder &b, Location loc, Block &src, ArrayRef<Value> args) {
  auto grid = sched.getGrid();
  int64_t tiles = grid[0] * grid[1] * grid[2];
  Value bid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value gdim = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                          gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  auto tileLoop =
      scf::ForOp::create(b, loc, bid, tileCount(b, loc, tiles), gdim, ValueRange{ci32(b, loc, 0)});
  OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), args))
    map.map(o, n);
  auto pids = tilePids(tb, loc, tileLoop.getInductionVar());
  fn.walk([&](tl::ProgramIdOp p) { map.map(p.getResult(), pids[p.getAxis()]); });
  (void)cloneScalars(tb, src, map, kOp);
  Value c0 = arith::ConstantIndexOp::create(tb, loc, 0);
  Value cK = arith::ConstantIndexOp::create(tb, loc, numK * BK);
  Value cBK = arith::ConstantIndexOp::create(tb, loc, BK);
  auto kLoop =
      scf::ForOp::create(tb, loc, c0, cK, cBK, ValueRange{tileLoop.getRegionIterArgs()[0]});
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value it = kLoop.getRegionIterArgs()[0];
    Value s = arith::RemUIOp::create(kb, loc, it, ci32(kb, loc, stages));
    Value phase = arith::AndIOp::create(
        kb, loc, arith::DivUIOp::create(kb, loc, it, ci32(kb, loc, stages)), ci32(kb, loc, 1));
    // A fresh barrier is in phase 0: waiting for parity 1 ("the phase before") passes at once.
    waitParity(kb, loc, barrierAddr(kb, loc, emptyBar, s),
               arith::XOrIOp::create(kb, loc, phase, ci32(kb, loc, 1)));
    Value full = barrierAddr(kb, loc, fullBar, s);
    IRMapping kmap = map;
    if (loop) {
      kmap.map(loop.getInductionVar(), kLoop.getInductionVar());
      (void)cloneScalars(kb, *loop.getBody(), kmap, nullptr);
    }
    Value s64 = arith::ExtUIOp::create(kb, loc, kb.getI64Type(), s);
    auto stageAddrOf = [&](OpBuilder &ob, const Operand &o) -> Value {
      return arith::AddIOp::create(
          ob, loc, smemBase,
          arith::AddIOp::create(ob, loc, ci64(ob, loc, o.offset),
                                arith::MulIOp::create(ob, loc, s64, ci64(ob, loc, o.stageBytes))));
    };
    if (anyGather) {
      // Every producer thread copies its share of the gathered blocks into stage s; the
      // stage `gatherDefer` blocks back is complete for this thread once cp.async.wait_group
      // leaves at most gatherDefer groups pending. Its shared-memory writes (generic proxy)
      // are then fenced for the async proxy that wgmma reads through, and the thread arrives
      // on that stage's `full` barrier (initialized for 128 such arrivals, + 1 for the TMA
      // expect_tx arrival when some operand comes by TMA).
      for (Operand *o : {&opA, &opB})
        if (o->gather)
          emitGather(kb, loc, *o, kmap, stageAddrOf(kb, *o));
      NVVM::CpAsyncCommitGroupOp::create(kb, loc);
      Value doneIt = arith::SubIOp::create(kb, loc, it, ci32(kb, loc, gatherDefer));
      auto ready = scf::IfOp::create(
          kb, loc,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::sge, doneIt, ci32(kb, loc, 0)),
          false);
      OpBuilder rb = ready.getThenBodyBuilder();
      NVVM::CpAsyncWaitGroupOp::create(rb, loc, gatherDefer);
      NVVM::FenceProxyOp::create(
          rb, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
      NVVM::MBarrierArriveOp::create(
          rb, loc, Type(),
          barrierAddr(rb, loc, fullBar,
                      arith::RemUIOp::create(rb, loc, doneIt, ci32(rb, loc, stages))),
          Value());
    }
    int64_t tmaBytes = 0;
    for (Operand *o : {&opA, &opB})
      if (!o->gather)
        tmaBytes += o->stageBytes;
    OpBuilder tmaB = kb;
    if (tmaBytes && anyGather) {
      auto t0 = scf::IfOp::create(
          kb, loc, arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid, ci32(kb, loc, 0)),
          false);
      tmaB = t0.getThenBodyBuilder();
    }
    if (tmaBytes)
      NVVM::MBarrierArriveExpectTxOp::create(tmaB, loc, Type(), full, ci32(tmaB, loc, tmaBytes),
                                             NVVM::MemScopeKind::CTA, false, Value());
    for (Operand *o : {&opA, &opB}) {
      if (o->gather)
        continue;
      OpBuilder &kb = tmaB;
      Value desc = args[o->descArg];
      Value batch = kmap.lookupOrDefault(o->load.getBatch());
      Value row = kmap.lookupOrDefault(o->load.getRow());
      Value col = kmap.lookupOrDefault(o->load.getCol());
      Value stageAddr = stageAddrOf(kb, *o);
      for (int64_t j = 0; j < o->numBoxes(); ++j) {
        Value dst = LLVM::IntToPtrOp::create(
            kb, loc, LLVM::LLVMPointerType::get(kb.getContext(), 7),
            arith::AddIOp::create(kb, loc, stageAddr, ci64(kb, loc, j * o->boxBytes()))
                .getResult());
        Value c = arith::AddIOp::create(kb, loc, col, ci32(kb, loc, j * o->rowElems));
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            kb, loc, dst, desc, ValueRange{c, row, batch}, full, ValueRange{}, Value(), Value(),
            NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
      }
    }
    scf::YieldOp::create(kb, loc, ValueRange{arith::AddIOp::create(kb, loc, it, ci32(kb, loc, 1))});
  }
  scf::YieldOp::create(tb, loc, kLoop.getResults());
  if (anyGather && gatherDefer > 0) {
    // The last gatherDefer stages: wait for all copies, fence, arrive.
    Value itEnd = tileLoop.getResult(0);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
    for (int64_t d = gatherDefer; d >= 1; --d) {
      Value j = arith::SubIOp::create(b, loc, itEnd, ci32(b, loc, d));
      auto ifOp = scf::IfOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, ci32(b, loc, 0)),
          false);
      OpBuilder ib = ifOp.getThenBodyBuilder();
      NVVM::MBarrierArriveOp::create(
          ib, loc, Type(),
          barrierAddr(ib, loc, fullBar, arith::RemUIOp::create(ib, loc, j, ci32(ib, loc, stages))),
          Value());
    }
  }
}

std::pair<Value, Value> WgmmaKernel::gatherAddress(OpBuilder &b, Location loc, const Operand &o,
                                                   IRMapping &kmap, Value r, Value k) {
  auto add = [&](Value x, Value y) -> Value { return arith::AddIOp::create(b, loc, x, y); };
  if (tl::Im2ColLoadOp l = o.im2col) {
    // tile.im2col_load's formula (TileOps.td), per element (OperandAddress.h).
    Im2ColRow row = im2colRow(b, loc, l, add(kmap.lookupOrDefault(l.getRow()), r));
    return im2colElement(b, loc, l, row, add(kmap.lookupOrDefault(l.getCol()), k));
  }
  // A block_load: smem row r / column k is block element (r, k) when k runs along the
  // stored rows (K contiguous: A plain, B transposed), else (k, r).
  tl::BlockLoadOp l = o.load;
  bool kAlongCols = o.isA ? !l.getTranspose() : l.getTranspose();
  Value row = add(kmap.lookupOrDefault(l.getRow()), kAlongCols ? r : k);
  Value col = add(kmap.lookupOrDefault(l.getCol()), kAlongCols ? k : r);
  return blockLoadElement(b, loc, l, kmap.lookupOrDefault(l.getBatch()), row, col);
}

void WgmmaKernel::emitGather(OpBuilder &b, Location loc, const Operand &o, IRMapping &kmap,
                             Value stageAddr) {
  MLIRContext *ctx = b.getContext();
  // Units of `vec` elements: unit u = tid + 128 i is row u / unitsPerRow, k (u % unitsPerRow)
  // * vec; unitsPerRow divides 128, so a thread keeps its k and steps rows by 128 /
  // unitsPerRow (consecutive threads read consecutive k: coalesced along NHWC channels).
  int64_t unitsPerRow = o.cols / o.vec;
  int64_t perThread = o.rows * unitsPerRow / 128;
  int64_t rowStep = 128 / unitsPerRow;
  Value rBase = arith::DivUIOp::create(b, loc, tid, ci32(b, loc, unitsPerRow));
  Value k = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, tid, ci32(b, loc, unitsPerRow)), ci32(b, loc, o.vec));
  // Shared byte offset of (r, k) in the swizzled box layout (see the file comment): box
  // k / rowElems, row r (128 bytes each), 16-byte chunk ((k % rowElems) * bytes / 16) XOR
  // (r mod 8), byte within the chunk.
  Value kInRow = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, k, ci32(b, loc, o.rowElems)), ci32(b, loc, elemBytes));
  Value boxOff =
      arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, k, ci32(b, loc, o.rowElems)),
                            ci32(b, loc, o.boxBytes()));
  Value chunk = arith::DivUIOp::create(b, loc, kInRow, ci32(b, loc, 16));
  Value within = arith::RemUIOp::create(b, loc, kInRow, ci32(b, loc, 16));
  tl::Im2ColLoadOp im2col = o.im2col;
  tl::BlockLoadOp load = o.load;
  Value memref = kmap.lookupOrDefault(im2col ? im2col.getPtr() : load.getPtr());
  Value raw = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  auto gPtrTy = LLVM::LLVMPointerType::get(ctx, 1);
  Value gBase = LLVM::AddrSpaceCastOp::create(
      b, loc, gPtrTy, LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx), raw));
  Type et = elem;
  // One unit (row r): its source address, its swizzled destination, the copy.
  auto unit = [&](OpBuilder &b, Value r) {
    auto [off, ok] = gatherAddress(b, loc, o, kmap, r, k);
    Value safeOff = arith::SelectOp::create(b, loc, ok, off, ci32(b, loc, 0));
    Value src = LLVM::GEPOp::create(b, loc, gPtrTy, et, gBase, ArrayRef<LLVM::GEPArg>{safeOff});
    Value sw =
        arith::XOrIOp::create(b, loc, chunk, arith::RemUIOp::create(b, loc, r, ci32(b, loc, 8)));
    Value inStage = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, boxOff,
                              arith::MulIOp::create(b, loc, r, ci32(b, loc, kSwizzleBytes))),
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, sw, ci32(b, loc, 16)), within));
    Value dst =
        sharedPtr(b, loc,
                  arith::AddIOp::create(b, loc, stageAddr,
                                        arith::ExtUIOp::create(b, loc, b.getI64Type(), inStage)));
    if (o.vec > 1) {
      // vec elements (16 or 8 bytes), or 0 source bytes (zero fill) where out of bounds
      // (PTX ISA "cp.async": .cg takes 16-byte copies only, .ca 4, 8 and 16).
      int64_t n = o.vec * elemBytes;
      Value bytes = arith::SelectOp::create(b, loc, ok, ci32(b, loc, n), ci32(b, loc, 0));
      NVVM::CpAsyncOp::create(
          b, loc, dst, src, b.getI32IntegerAttr(n),
          NVVM::LoadCacheModifierKindAttr::get(ctx, n == 16 ? NVVM::LoadCacheModifierKind::CG
                                                            : NVVM::LoadCacheModifierKind::CA),
          bytes);
    } else {
      Value v = LLVM::LoadOp::create(b, loc, et, src);
      Value zero = arith::ConstantOp::create(b, loc, et, b.getFloatAttr(et, 0.0));
      LLVM::StoreOp::create(b, loc, arith::SelectOp::create(b, loc, ok, v, zero), dst);
    }
  };
  // Few units (the 16-byte copies): straight-line code, their row terms kept in registers
  // across k blocks. Many (per-element gathers): a loop, so that the row terms of 32-64 rows
  // are not all hoisted out of the K loop (they spilled).
  if (perThread <= 8) {
    for (int64_t i = 0; i < perThread; ++i)
      unit(b, arith::AddIOp::create(b, loc, rBase, ci32(b, loc, i * rowStep)));
    return;
  }
  auto uLoop = scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                                  arith::ConstantIndexOp::create(b, loc, perThread),
                                  arith::ConstantIndexOp::create(b, loc, 1));
  OpBuilder ub = OpBuilder::atBlockBegin(uLoop.getBody());
  Value i32v = arith::IndexCastOp::create(ub, loc, ub.getI32Type(), uLoop.getInductionVar());
  unit(ub, arith::AddIOp::create(ub, loc, rBase,
                                 arith::MulIOp::create(ub, loc, i32v, ci32(ub, loc, rowStep))));
}
