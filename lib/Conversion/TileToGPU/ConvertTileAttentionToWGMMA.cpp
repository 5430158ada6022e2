//===- ConvertTileAttentionToWGMMA.cpp - FlashAttention tile kernels -> Hopper wgmma --===//
//
// FlashAttention-3's forward pass on sm_90a (Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao,
// "FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision", 2024:
// section 3.1, producer-consumer asynchrony through warp specialization and a circular
// shared-memory buffer; section 3.2 and Algorithm 2, the overlap of one block's softmax with
// the next block's QK^T and the previous block's PV inside a warpgroup). The code is our own.
// The input is the attention template's GPU form (AttentionProgram.h) with BLOCK_M = 128
// and BLOCK_N = 128 (AttentionTemplate.cpp picks them on sm_90a where
// attentionWgmmaProblem, TensorCoreRules.h, accepts the attention).
//
//   CTA = 1 producer warpgroup + 2 consumer warpgroups (384 threads; setmaxnreg 24 / 240).
//     One CTA per 128 query rows (program_id 0) and batch matrix (program_id 1); consumer
//     warpgroup w owns rows 64 w .. 64 w + 63 of the block.
//   Shared memory (dynamic, 1024-byte aligned, every block in TMA boxes of [rows x 64
//     elements] = 128 bytes per row with the 128-byte swizzle): the Q block [128, D], then
//     2 stages of the K block [128 keys, D] and 2 of the V block [128 keys, Dv], then the
//     mbarriers: qFull, kFull[2], vFull[2], kEmpty[2], vEmpty[2], qEmpty (persistent).
//   Producer (thread 0 of warpgroup 0): arrive.expect_tx + TMA loads of the Q boxes on
//     qFull; per key block j (stage s = j % 2): wait kEmpty[s] (both consumers' S_{j-2} is
//     done), TMA of the K boxes on kFull[s]; wait vEmpty[s] (their P_{j-2} V_{j-2} is done),
//     the V boxes on vFull[s]. K and V have their own barriers both ways, so QK^T starts
//     while V is in flight and K_{j+2} loads while P_j V_j still reads V_j. TMA zero-fills
//     rows past Sq / Skv (3-D maps over the block loads' [batch, rows, cols] matrices: a
//     head's columns of a [B, S, H * D] matrix are the box's column origin).
//   Consumers: S = Q K_j^T by wgmma.mma_async m64n128k16 with both operands in shared
//     memory (Q K-major; K K-major: the keys are B's N), P V by wgmma m64nDvk16 with P from
//     registers (V MN-major, imm-trans-b = 1). The S accumulator layout (PTX ISA 9.7.15.5.1.1,
//     "Matrix Fragments for wgmma.mma_async.m64nNk16": register i of a thread is row
//     16 warp + lane / 4 + 8 ((i % 4) / 2), column 8 (i / 4) + 2 (lane % 4) + i % 2) is the
//     register A fragment layout of the k16 slices of P: registers 8 kk .. 8 kk + 7 of S,
//     rounded to 16-bit pairs, are the four A registers of slice kk. So P never leaves
//     registers.
//   Online softmax in the log2 domain as in the mma.sync kernel: x = s * scale * log2(e),
//     -inf at keys >= Skv and above the causal diagonal (on the blocks that have such keys:
//     a branch uniform over the warpgroup), the row max over the thread's 32 values of a row
//     then two quad shuffles, m'' = (m' == -inf ? 0 : m'), alpha = 2^(m - m''),
//     p = 2^(x - m''); the row sum stays per thread until the end.
//   Intra-warpgroup overlap (option intra-warpgroup-overlap; FlashAttention-3 Algorithm 2):
//     block 0's S and softmax run first; then iteration j issues S_j = Q K_j^T and
//     O += P_{j-1} V_{j-1} as two wgmma groups, waits for the first (wait_group 1), runs the
//     softmax of S_j while the second still runs on the tensor cores, waits for it, and
//     rescales O by alpha_j; block n-1's PV follows the loop. Off (the default: with it the
//     kernel ran at 0.94-1.04x the speed without it on the H200, docs/performance.md):
//     S_j, its softmax, then O = O alpha_j + P_j V_j, each product waited for at once.
//   Ping-pong (option warpgroup-pingpong; FlashAttention-3 section 3.1): the consumer
//     warpgroups take turns issuing their products -- warpgroup w waits on named barrier
//     1 + w (bar.sync, 256 threads) before it issues and passes the turn with bar.arrive on
//     the other's after, warpgroup 1 passing warpgroup 0 the first turn; warpgroup 0 takes
//     the turn warpgroup 1 passes last, so every arrival is matched. One warpgroup's softmax
//     then runs under the other's products. Off by default until measured.
//   Stage release: one arrival per consumer warpgroup on kEmpty[s] once its S_j completed,
//     on vEmpty[s] once its P_j V_j did.
//   Causal: the CTA stops after the last key block its last row sees; program_id(0) runs
//     backwards (the longest query blocks first). Both warpgroups run every block of the
//     CTA (warpgroup 0 computes at most one fully masked block: p = 0, alpha = 1).
//   Persistent grid (option persistent): min(tiles, max-ctas or the hardware's SM count)
//     CTAs; CTA c runs tile r * ctas + c in round r (causal: ctas - 1 - c in odd rounds, so
//     the tiles, longest first, spread evenly), tile t being program (t % gx, t / gx % gy,
//     t / (gx gy)) of the schedule's grid (causal: x = gx - 1 - t / (gy gz), the longest
//     first). Producer and consumers walk the same tiles; the key-block counter, so every
//     stage and phase, runs on across tiles, and a qEmpty mbarrier (one arrival per consumer
//     warpgroup once the tile's last product is done) lets the producer load the next Q,
//     then the next tile's K / V, while the consumers run the epilogue (FlashAttention-3's
//     persistent kernel, section 3.1). The ping-pong turns run on across tiles too.
//   Epilogue: O / l per row, rounded to the output type, stored as 2-element vectors per
//     thread, rows >= Sq skipped (the store's matrices may be wider than Dv: the head merge
//     stored in place).
//
// Register discipline around the asynchronous products (PTX ISA 9.7.15.5: "accessing the
// accumulator register or the registers of the A fragment ... before wgmma.wait_group ...
// is undefined", and wgmma.fence must order register writes before a wgmma reads them):
// every value that a wgmma reads (O, P) goes through an empty `asm volatile` that ties it
// ("+f" / "+r", CUTLASS's warpgroup_fence_operand) before wgmma.fence, and every result is
// taken through one after the wait, so LLVM cannot move the arithmetic on them across the
// fence or the wait.
//
// Refused (an error: graph-recompose-attention and the template form this kernel only where
// attentionWgmmaProblem accepts it): blocks other than 128 x 128, head sizes other than 64 /
// 128, a stored K^T, rows that break TMA's 16-byte stride rule, more shared memory than the
// chip's.
//===----------------------------------------------------------------------===//
#include "AttentionWgmmaKernel.h"

#include "AccumulatorEpilogue.h"
#include "AttentionProgram.h"
#include "WgmmaKernel.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TargetAttr.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILEATTENTIONTOWGMMA
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;
using namespace aicc::attention_wgmma;

std::string AttentionWgmmaKernel::match() {
  std::string why = matchAttentionProgram(fn, sched, kBM, kBN, p);
  if (!why.empty())
    return why;
  if (p.lseStore)
    return "split keys (flash-decoding partials) are the mma.sync kernel's";
  auto headOk = [](int64_t d) { return d == 64 || d == 128; };
  if (!headOk(p.D) || !headOk(p.Dv))
    return "head sizes must be 64 or 128";
  if (!p.keyRows)
    return "K must be read as stored [keys, D] (a stored K^T takes the mma.sync kernel)";
  numBlocks = llvm::divideCeil(p.Skv, kBN);
  ArrayRef<int64_t> grid = sched.getGrid();
  numTiles = grid[0] * grid[1] * grid[2];
  if (numTiles <= 0 || numTiles > std::numeric_limits<int32_t>::max())
    return "the grid's tile count does not fit in 32 bits";
  ctas = maxCtas > 0 ? std::min(numTiles, maxCtas) : 0;
  if (autoPersistent && p.causal && numBlocks > kAttentionPersistentMaxCausalBlocks)
    ctas = 0;
  qOff = 0;
  kOff = qOff + kBM * p.D * 2;
  kStage = kBN * p.D * 2;
  vOff = kOff + kStages * kStage;
  vStage = kBN * p.Dv * 2;
  barOff = vOff + kStages * vStage;
  smemBytes = attentionWgmmaSharedBytes(p.D, p.Dv);
  if (smemBytes > maxSharedBytes)
    return "the Q block and two K / V stages exceed the shared memory per block";
  return "";
}

LogicalResult AttentionWgmmaKernel::forEachTile(OpBuilder &b, Block &src,
                                                const IRMapping &kernelMap, TileBody body) {
  ArrayRef<int64_t> grid = sched.getGrid();
  auto i32 = [&](OpBuilder &ob, Value x) {
    return arith::IndexCastUIOp::create(ob, loc, ob.getI32Type(), x);
  };
  // The tile at program ids `pids`: its scalars up to the key loop, first row and key blocks
  // (causal: up to its last row's diagonal).
  auto runTile = [&](OpBuilder &ob, ArrayRef<Value> pids, Value round,
                     Value base) -> FailureOr<Value> {
    IRMapping map = kernelMap;
    fn.walk([&](tl::ProgramIdOp op) { map.map(op.getResult(), pids[op.getAxis()]); });
    if (failed(cloneScalarOps(ob, src, map, p.loop ? p.loop.getOperation() : nullptr, sched,
                              "convert-tile-attention-to-wgmma")))
      return failure();
    Value m0 = map.lookupOrDefault(p.q.getRow());
    // The run's key blocks (at least one: the run's Skv is at least 1).
    Value nEnd =
        p.runSkv ? arith::DivUIOp::create(ob, loc, add(ob, map.lookupOrDefault(p.runSkv), kBN - 1),
                                          c32(ob, kBN))
                       .getResult()
                 : c32(ob, numBlocks);
    if (p.causal) {
      Value lastKey = add(ob, m0, kBM - 1 + p.Skv - p.Sq);
      Value last = arith::DivUIOp::create(ob, loc, lastKey, c32(ob, kBN));
      nEnd = arith::MinUIOp::create(ob, loc, nEnd, add(ob, last, 1));
    }
    // A key loop that ends before the keys (the template's key_bound end: a static cache's
    // positions, AttentionGPUTemplate.cpp keyBoundEnd): the tile's blocks end with it. (Its
    // end is a scalar of the tile, cloned above; the tiles past the run's queries, whose end
    // is 0, never run here.)
    if (p.loop && !matchPattern(p.loop.getUpperBound(), m_Constant())) {
      Value ub = arith::IndexCastUIOp::create(ob, loc, ob.getI32Type(),
                                              map.lookupOrDefault(p.loop.getUpperBound()));
      Value blocks = arith::DivUIOp::create(ob, loc, add(ob, ub, kBN - 1), c32(ob, kBN));
      nEnd = arith::MinUIOp::create(ob, loc, nEnd, blocks);
    }
    if (failed(body(ob, map, round, base, nEnd, m0)))
      return failure();
    return nEnd;
  };
  // A run-time query count (p.runSq, bounded symbolic dims): the query tiles at or past it
  // hold only the buffers' tail, so only the first ceil(runSq / kBM) along x run (the
  // kernel's scalars cloned once more with the program ids at 0 give the count).
  Value gridX = c32(b, grid[0]);
  if (p.runSq) {
    IRMapping top = kernelMap;
    Value zero = c32(b, 0);
    fn.walk([&](tl::ProgramIdOp op) { top.map(op.getResult(), zero); });
    if (failed(cloneScalarOps(b, src, top, p.loop ? p.loop.getOperation() : nullptr, sched,
                              "convert-tile-attention-to-wgmma")))
      return failure();
    Value tiles =
        arith::DivUIOp::create(b, loc, add(b, top.lookupOrDefault(p.runSq), kBM - 1), c32(b, kBM));
    gridX = arith::MinUIOp::create(b, loc, tiles, gridX);
  }
  if (!ctas) {
    SmallVector<Value> pids = {i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
                               i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)),
                               i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z))};
    if (!p.runSq) {
      // Causal: the last query blocks (the most key blocks) start first.
      if (p.causal)
        pids[0] = arith::SubIOp::create(b, loc, c32(b, grid[0] - 1), pids[0]);
      return failure(failed(runTile(b, pids, c32(b, 0), c32(b, 0))));
    }
    // The CTAs past the run's query tiles do nothing.
    Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, pids[0], gridX);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, live, /*withElse=*/false);
    OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
    if (p.causal)
      pids[0] = arith::SubIOp::create(tb, loc, add(tb, gridX, -1), pids[0]);
    return failure(failed(runTile(tb, pids, c32(tb, 0), c32(tb, 0))));
  }
  // Persistent: round r runs tile r * ctas + c on CTA c (causal, odd r: ctas - 1 - c).
  Value cta = i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  int64_t rounds = llvm::divideCeil(numTiles, ctas);
  auto loop =
      scf::ForOp::create(b, loc, c32(b, 0), c32(b, rounds), c32(b, 1), ValueRange{c32(b, 0)});
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  Value r = loop.getInductionVar();
  Value base = loop.getRegionIterArgs()[0];
  Value c = cta;
  if (p.causal) {
    Value odd = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne,
                                      arith::AndIOp::create(lb, loc, r, c32(lb, 1)), c32(lb, 0));
    c = arith::SelectOp::create(lb, loc, odd,
                                arith::SubIOp::create(lb, loc, c32(lb, ctas - 1), cta), cta);
  }
  Value t = add(lb, mul(lb, r, ctas), c);
  // The run's tiles only (p.runSq): the tiles of the query blocks before it are numbered
  // first, so each CTA runs a prefix of its rounds and the rounds' barrier phases hold.
  int64_t yz = grid[1] * grid[2];
  Value runTiles =
      p.runSq ? arith::MulIOp::create(lb, loc, gridX, c32(lb, yz)).getResult() : c32(lb, numTiles);
  Value inRange = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, t, runTiles);
  auto ifOp = scf::IfOp::create(lb, loc, TypeRange{lb.getI32Type()}, inRange, /*withElse=*/true);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  // Tile t -> (x, y, z): x fastest (the query blocks of one batch matrix together share its K
  // and V in L2); causal: x slowest, from the last query block down.
  SmallVector<Value> pids(3);
  Value rest;
  if (p.causal) {
    pids[0] = arith::SubIOp::create(tb, loc, add(tb, gridX, -1),
                                    arith::DivUIOp::create(tb, loc, t, c32(tb, yz)));
    rest = arith::RemUIOp::create(tb, loc, t, c32(tb, yz));
  } else {
    pids[0] = arith::RemUIOp::create(tb, loc, t, gridX);
    rest = arith::DivUIOp::create(tb, loc, t, gridX);
  }
  pids[1] = arith::RemUIOp::create(tb, loc, rest, c32(tb, grid[1]));
  pids[2] = arith::DivUIOp::create(tb, loc, rest, c32(tb, grid[1]));
  FailureOr<Value> nEnd = runTile(tb, pids, r, base);
  if (failed(nEnd))
    return failure();
  scf::YieldOp::create(tb, loc, ValueRange{add(tb, base, *nEnd)});
  OpBuilder eb = ifOp.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, ValueRange{base});
  scf::YieldOp::create(lb, loc, ifOp.getResults());
  return success();
}

LogicalResult AttentionWgmmaKernel::run() {
  MLIRContext *ctx = fn.getContext();
  Block &src = fn.getBody().front();
  OpBuilder b0(ctx);
  // The TMA maps of Q, K, V: 3-D over each block load's [batch, rows, cols] matrices, boxes of
  // [1, 128 rows, 64 columns] with the 128-byte swizzle.
  SmallVector<Attribute> maps;
  for (tl::BlockLoadOp l : {p.q, p.k, p.v}) {
    auto bufArg = dyn_cast<BlockArgument>(l.getPtr());
    if (!bufArg || bufArg.getOwner() != &src)
      return fn.emitError("convert-tile-attention-to-wgmma: a block load does not read a "
                          "kernel parameter"),
             failure();
    NamedAttrList m;
    m.append("param", b0.getI64IntegerAttr(bufArg.getArgNumber()));
    m.append("dims", b0.getDenseI64ArrayAttr(l.getDims()));
    m.append("box", b0.getDenseI64ArrayAttr({1, l == p.q ? kBM : kBN, kBoxCols}));
    m.append("swizzle", b0.getI64IntegerAttr(kSwizzle));
    m.append("element", TypeAttr::get(p.elem));
    maps.push_back(m.getDictionary(ctx));
  }
  Block *dst = wgmma::appendTensorMapBlock(fn, 3);
  unsigned nArgs = src.getNumArguments();
  qMap = dst->getArgument(nArgs);
  kMap = dst->getArgument(nArgs + 1);
  vMap = dst->getArgument(nArgs + 2);

  OpBuilder b = OpBuilder::atBlockBegin(dst);
  auto i32 = [&](Value x) { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x); };
  tid = i32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  auto smemTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                                gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, smemTy);
  Value raw = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dyn));
  smemBase = arith::AndIOp::create(b, loc, add(b, raw, 1023), c64(b, ~int64_t(1023)));
  {
    Value t0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c32(b, 0));
    auto init = scf::IfOp::create(b, loc, t0, false);
    OpBuilder ib = init.getThenBodyBuilder();
    NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, qFullOff()), c32(ib, 1), Value());
    for (int64_t s = 0; s < kStages; ++s) {
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, kFullOff() + 8 * s), c32(ib, 1), Value());
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, vFullOff() + 8 * s), c32(ib, 1), Value());
      // One arrival per consumer warpgroup.
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, kEmptyOff() + 8 * s), c32(ib, 2), Value());
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, vEmptyOff() + 8 * s), c32(ib, 2), Value());
    }
    if (ctas)
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, qEmptyOff()), c32(ib, 2), Value());
    NVVM::FenceMbarrierInitOp::create(ib, loc);
  }
  gpu::BarrierOp::create(b, loc);

  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), dst->getArguments()))
    map.map(o, n);
  Value wg = arith::DivUIOp::create(b, loc, tid, c32(b, 128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, c32(b, 0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder pb = roles.getThenBodyBuilder();
    NVVM::SetMaxRegisterOp::create(pb, loc, kProducerRegs, NVVM::SetMaxRegisterAction::decrease);
    auto one = scf::IfOp::create(
        pb, loc, arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid, c32(pb, 0)), false);
    OpBuilder ob = one.getThenBodyBuilder();
    if (failed(forEachTile(
            ob, src, map,
            [&](OpBuilder &tb, IRMapping &tmap, Value round, Value base, Value nEnd, Value) {
              emitProducer(tb, src, tmap, nEnd, round, base);
              return success();
            })))
      return failure();
  }
  {
    OpBuilder cb = roles.getElseBodyBuilder();
    NVVM::SetMaxRegisterOp::create(cb, loc, kConsumerRegs, NVVM::SetMaxRegisterAction::increase);
    if (failed(emitConsumer(cb, src, map)))
      return failure();
  }
  func::ReturnOp::create(b, loc);
  for (Operation &op : llvm::reverse(src.getOperations()))
    op.dropAllUses();
  src.dropAllDefinedValueUses();
  src.erase();

  fn->setAttr(tile::kLaunchBlockAttrName, b.getDenseI32ArrayAttr({384, 1, 1}));
  if (ctas)
    fn->setAttr(tile::kLaunchGridAttrName, b.getDenseI32ArrayAttr({(int32_t)ctas, 1, 1}));
  fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  fn->setAttr(tile::kDynamicSharedBytesAttrName, b.getI64IntegerAttr(smemBytes));
  fn->setAttr(tile::kTensorMapsAttrName, b.getArrayAttr(maps));
  fn->setAttr(tile::kWgmmaAttrName, tl::WgmmaConfigAttr::get(ctx, kBM, kBN, p.D, kStages, 0, 2,
                                                             tl::WgmmaSchedule::cooperative,
                                                             tl::EpilogueStore::registers));
  return success();
}

namespace {

struct ConvertTileAttentionToWGMMAPass
    : public aicc::impl::ConvertTileAttentionToWGMMABase<ConvertTileAttentionToWGMMAPass> {
  using Base::Base;
  void runOnOperation() override {
    const ChipInfo *chip =
        resolveChip(getOperation(), ChipRole::Target, "", "sm_90a", getArgument());
    // The persistent grid: one CTA per SM of the tuning hardware (or max-ctas).
    const ChipInfo *hw =
        resolveChip(getOperation(), ChipRole::Hardware, hardware, "h200", getArgument());
    if (!chip || !hw)
      return signalPassFailure();
    if (maxCtas < 0) {
      getOperation().emitError("convert-tile-attention-to-wgmma: max-ctas must be >= 0, got ")
          << maxCtas;
      return signalPassFailure();
    }
    if (persistent != "true" && persistent != "false" && persistent != "auto") {
      getOperation().emitError("convert-tile-attention-to-wgmma: persistent must be true, false "
                               "or auto, got '")
          << persistent << "'";
      return signalPassFailure();
    }
    int64_t ctaCap = persistent == "false" ? 0 : maxCtas > 0 ? maxCtas : hw->smCount;
    // The template's wgmma form: BLOCK_N = 128 (the mma.sync form has 64).
    auto lower = [&](func::FuncOp fn, tl::ScheduleAttr sched) -> FailureOr<std::string> {
      AttentionWgmmaKernel k(fn, sched, chip->sharedMemPerBlockBytes, intraWarpgroupOverlap,
                             warpgroupPingpong, ctaCap, persistent == "auto");
      std::string why = k.match();
      if (why.empty() && failed(k.run()))
        return failure();
      return why;
    };
    if (failed(lowerAttentionKernels(getOperation(), kBN, *chip, ChipFeature::Wgmma, "wgmma",
                                     getArgument(), lower)))
      signalPassFailure();
  }
};
} // namespace
