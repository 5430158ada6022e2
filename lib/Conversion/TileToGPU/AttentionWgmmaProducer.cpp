//===- AttentionWgmmaProducer.cpp - the producer warpgroup: TMA loads of Q, K, V ---===//
//
// Part of convert-tile-attention-to-wgmma (AttentionWgmmaKernel.h).
//===----------------------------------------------------------------------===//
#include "AttentionWgmmaKernel.h"

#include "AccumulatorEpilogue.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::attention_wgmma;

void AttentionWgmmaKernel::emitProducer(OpBuilder &b, Block &src, IRMapping &map, Value nEnd,
                                        Value round, Value base) {
  // Boxes of [rows x 64] (box j of a block at byte j * rows * 128), coordinates (col + 64 j,
  // row, batch) of the block load's 3-D map. K and V over a run-time key count (`rows` of
  // the load, the run's Skv): the map spans the bound's rows, whose tail holds no data of
  // this run, so the last block's box ends at the run's last key instead, min(row, Skv -
  // rows) (rows before 0 zero-filled by the TMA unit); the consumers mask the keys it
  // repeats (AttentionWgmmaConsumer.cpp, softmax). No key of the tail reaches P V.
  auto loadBoxes = [&](OpBuilder &ob, tl::BlockLoadOp l, IRMapping &m, Value desc, Value dstBase,
                       int64_t rows, int64_t cols, Value bar) {
    Value batch = m.lookupOrDefault(l.getBatch());
    Value row = m.lookupOrDefault(l.getRow());
    // (Q's `rows`, the run's query count, moves no box: a query row of the tail reads the
    // tail and writes an output row of the tail, and the tiles past the run do not run.)
    if (l.getRows() && l != p.q)
      row = arith::MinSIOp::create(
          ob, loc, row,
          arith::SubIOp::create(ob, loc, m.lookupOrDefault(l.getRows()), c32(ob, rows)));
    Value col = m.lookupOrDefault(l.getCol());
    for (int64_t j = 0; j < cols / kBoxCols; ++j)
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          ob, loc, ptr(ob, add(ob, dstBase, j * rows * kSwizzle), 7), desc,
          ValueRange{add(ob, col, j * kBoxCols), row, batch}, bar, ValueRange{}, Value(), Value(),
          NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
  };
  // Persistent: the Q block of the tile before is free once both consumers released it (a
  // fresh barrier is in phase 0: waiting for parity 1, "the phase before", passes at once).
  if (ctas)
    waitParity(
        b, barrier(b, qEmptyOff()),
        arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc, round, c32(b, 1)), c32(b, 1)));
  Value qBar = barrier(b, qFullOff());
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), qBar, c32(b, kBM * p.D * 2),
                                         NVVM::MemScopeKind::CTA, false, Value());
  loadBoxes(b, p.q, map, qMap, add(b, smemBase, qOff), kBM, p.D, qBar);
  auto jLoop = scf::ForOp::create(b, loc, c32(b, 0), nEnd, c32(b, 1));
  OpBuilder lb = OpBuilder::atBlockBegin(jLoop.getBody());
  Value j = jLoop.getInductionVar();
  auto [s, ph] = stageOf(lb, add(lb, base, j));
  // A fresh barrier is in phase 0: waiting for parity 1 ("the phase before") passes at once.
  Value before = arith::XOrIOp::create(lb, loc, ph, c32(lb, 1));
  IRMapping kmap = map;
  if (p.loop) {
    kmap.map(p.loop.getInductionVar(),
             arith::IndexCastUIOp::create(lb, loc, lb.getIndexType(), mul(lb, j, kBN)).getResult());
    (void)cloneScalarOps(lb, *p.loop.getBody(), kmap, nullptr, sched,
                         "convert-tile-attention-to-wgmma");
  }
  // K_j then V_j, each once its stage is free, on its own `full` barrier.
  Value s64 = arith::ExtUIOp::create(lb, loc, lb.getI64Type(), s);
  auto loadStage = [&](int64_t emptyOff, int64_t fullOff, tl::BlockLoadOp l, Value desc,
                       int64_t off, int64_t stageBytes, int64_t cols) {
    waitParity(lb, barrier(lb, emptyOff, s), before);
    Value bar = barrier(lb, fullOff, s);
    NVVM::MBarrierArriveExpectTxOp::create(lb, loc, Type(), bar, c32(lb, stageBytes),
                                           NVVM::MemScopeKind::CTA, false, Value());
    Value base =
        add(lb, add(lb, smemBase, off), arith::MulIOp::create(lb, loc, s64, c64(lb, stageBytes)));
    loadBoxes(lb, l, kmap, desc, base, kBN, cols, bar);
  };
  loadStage(kEmptyOff(), kFullOff(), p.k, kMap, kOff, kStage, p.D);
  loadStage(vEmptyOff(), vFullOff(), p.v, vMap, vOff, vStage, p.Dv);
}
