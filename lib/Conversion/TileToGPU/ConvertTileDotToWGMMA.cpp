//===- ConvertTileDotToWGMMA.cpp - matmul tile kernels -> Hopper TMA + wgmma ----===//
//
// The tensor-core path for sm_90a. A matmul tile kernel, as the matmul template writes it,
//
//   %acc = scf.for %k = 0 to K step BLOCK_K iter_args(%c = zeros) {
//     %a = tile.block_load %A[...] : ... -> tensor<BMxBKxT>      (T = f16 or bf16)
//     %b = tile.block_load %B[...] : ... -> tensor<BKxBNxT>
//     %d = tile.dot %a, %b, %c : ... -> tensor<BMxBNxf32>
//     scf.yield %d
//   }
//   ... epilogue tile ops on %acc, tile.store ...
//
// becomes a warp-specialized, persistent kernel (the structure of CUTLASS's
// "KernelTmaWarpSpecializedCooperative", NVIDIA CUTLASS 3.x, and of the Hopper GEMM in
// MLIR's test/Examples/NVGPU; the code here is our own):
//
//   CTA = 1 producer warpgroup + BM/64 consumer warpgroups (128 threads each).
//   Shared memory (dynamic, 1024-byte aligned for the 128-byte swizzle):
//     num_stages x [A stage | B stage], then num_stages `full` and `empty` mbarriers.
//   Producer (thread 0 of warpgroup 0, 40 registers): for every output tile of this CTA, for
//     every k block: wait `empty[s]`, arrive.expect_tx(`full[s]`, stage bytes), issue the
//     cp.async.bulk.tensor (TMA) loads of the A and B boxes of that k block into stage s.
//   Consumers (232 registers each): wait `full[s]`, wgmma.fence, BLOCK_K/16 x
//     wgmma.mma_async m64nBNk16 (A and B from shared-memory descriptors, f32 accumulators in
//     registers), commit, wait until one group is in flight, then release the stage the
//     previous group read (`empty`, one arrival per consumer warpgroup).
//   Tiles: CTA c takes tiles c, c + gridDim.x, ... in grouped order (GROUP_M = 8 row tiles per
//     group: Triton's matmul tutorial order, for L2 reuse of B). The pipeline (stage, phase)
//     runs on across tiles, so the producer fetches the next tile while consumers run the
//     epilogue. Bounded symbolic dims (the kernel's tile.symgrid along grid x or z and its
//     tile.symvalues parameter): the tiles are those of the run's rows or matrices, their count
//     read from the session's symbol values at the kernel's start (setRunTiles), so a short
//     prompt runs its own tiles, not the bound's.
//   Epilogue: every tile op after the K loop is evaluated per thread, in registers, on the
//     wgmma accumulator layout (PTX ISA 9.7.15.5.1.1, "Matrix Fragments for
//     wgmma.mma_async.m64nNk16", accumulator D): register i of thread t of consumer
//     warpgroup w holds
//       row = 64 w + 16 (t / 32 mod 4) + (t mod 32) / 4 + 8 ((i mod 4) / 2)
//       col = 8 (i / 4) + 2 (t mod 4) + (i mod 2).
//     1-D tiles (make_range along a dim, bias loads) are evaluated once per distinct row or
//     column the thread holds (2 rows, BN/4 columns) and shared by the elements that use them.
//   TMA-store epilogue (option tma-store, default on): when the kernel's only store is a
//     tile.block_store of the [BM, BN] tile (f16/bf16/f32, output rows 16-byte multiples),
//     each consumer warpgroup w owns a staging buffer in shared memory (after the stages,
//     1024-aligned): its rows (BM in ping-pong, 64 otherwise) x BN elements as the boxes of
//     the output's tensor map, [rows x 128 bytes] each with the 128-byte swizzle. Per tile:
//       registers -> (epilogue math) -> st.shared into the staging buffer
//       -> fence.proxy.async.shared::cta (every thread: its generic-proxy writes become
//          visible to the async proxy that TMA reads through)
//       -> bar.sync (1 + w), 128 (all of the warpgroup's writes are done and fenced)
//       -> thread 0 of w: cp.async.bulk.tensor shared::cta -> global per box, commit_group.
//     Before the next tile writes the buffer: thread 0 of w waits with
//     cp.async.bulk.wait_group.read 0 (its stores have read the buffer), then bar.sync
//     (1 + w), 128 releases the other threads. After the last tile thread 0 waits for the
//     stores to complete (wait_group 0). Bulk groups are per thread, so only thread 0's wait
//     means anything; the barriers order everyone else around it. TMA clips the box at the
//     matrix edges (ragged M / N). Staging that does not fit in 227 KiB costs stages while 4
//     (ping-pong) or 3 (cooperative) stay, or else the register store stays
//     (tile.tma_store_refused says why).
//     A transposed block store (the NCHW implicit-GEMM conv's per-image tile; several of one
//     tile — spanning images — are refused: TMA stores at negative coordinates fault) stages
//     the tile transposed, [BN channels] x [the warpgroup's pixels] in boxes of [BN x 128
//     bytes], one st.shared per element, and the leader issues the boxes at the store's
//     coordinates, skipping boxes wholly outside the output (the address algebra is at the
//     staging setup in emitConsumer).
//
// Shared-memory operand layouts (PTX ISA 9.7.15.5.1.2, "Shared Memory Matrix Layout",
// 128-byte swizzle): each operand is stored in boxes of [rows x 64 elements] (128 bytes per
// row; TMA CU_TENSOR_MAP_SWIZZLE_128B writes that swizzle). A K-major operand (K contiguous in
// memory) has SBO = 1024 (8 rows x 128 bytes) and moves to the next k16 slice by +32 bytes; an
// MN-major operand (M or N contiguous) has LBO = box bytes (the next 64 M/N elements), SBO =
// 1024 (the next 8 k rows) and moves to the next k16 slice by +16 rows x 128 bytes. wgmma's
// imm-trans flag says which (NVVM layout row/col).
//
// What is refused (the kernel keeps its tile form for the generic path, with a
// `tile.wgmma_refused` reason): other operand types, tiles that are not multiples of the
// wgmma/TMA granules, rows whose byte length is not a multiple of 16 (a TMA stride rule),
// epilogue ops this evaluator does not know (reductions, loops over tiles).
//===----------------------------------------------------------------------===//
#include "WgmmaKernel.h"

#include "aicc/Target/TargetAttr.h"

#include "AccumulatorEpilogue.h"
#include "aicc/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILEDOTTOWGMMA
#define GEN_PASS_DEF_FINALIZETENSORMAPPARAMS
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
using namespace aicc::wgmma;

LogicalResult WgmmaKernel::run() {
  MLIRContext *ctx = fn.getContext();
  Location loc = fn.getLoc();
  Block &src = fn.getBody().front();
  OpBuilder b0(ctx);
  // What the runtime needs to build the TMA descriptors (read before the body is rewritten).
  SmallVector<Attribute> maps;
  for (Operand *o : {&opA, &opB}) {
    if (o->gather)
      continue;
    auto bufArg = cast<BlockArgument>(o->load.getPtr());
    ArrayRef<int64_t> d = o->load.getDims();
    NamedAttrList m;
    m.append("param", b0.getI64IntegerAttr(bufArg.getArgNumber()));
    m.append("dims", b0.getDenseI64ArrayAttr(d));
    m.append("box", b0.getDenseI64ArrayAttr({1, o->rows, o->rowElems}));
    m.append("swizzle", b0.getI64IntegerAttr(kSwizzleBytes));
    m.append("element", TypeAttr::get(elem));
    maps.push_back(m.getDictionary(ctx));
  }
  // The output's map (TMA-store epilogue): the box is one warpgroup's staging box.
  if (tmaStore) {
    NamedAttrList m;
    m.append("param", b0.getI64IntegerAttr(cast<BlockArgument>(outStore.getPtr()).getArgNumber()));
    m.append("dims", b0.getDenseI64ArrayAttr(outStore.getDims()));
    // Transposed (NCHW conv: dims [N, OC, OH * OW]): boxes of BLOCK_N channels x 128 bytes of
    // pixels.
    m.append("box", b0.getDenseI64ArrayAttr({1, outTransposed ? BN : stRows, stBoxElems}));
    m.append("swizzle", b0.getI64IntegerAttr(kSwizzleBytes));
    m.append("element", TypeAttr::get(outElem));
    maps.push_back(m.getDictionary(ctx));
  }
  // New signature: the buffers, then one CUtensorMap per TMA operand (byval, grid_constant).
  unsigned nArgs = src.getNumArguments();
  // In the order of `maps`: the TMA operands, then the output.
  unsigned numMaps = nArgs;
  for (Operand *o : {&opA, &opB})
    if (!o->gather)
      o->descArg = numMaps++;
  if (tmaStore)
    outDescArg = numMaps++;
  Block *dst = appendTensorMapBlock(fn, numMaps - nArgs);
  SmallVector<Value> args(dst->getArguments().begin(), dst->getArguments().end());

  OpBuilder b = OpBuilder::atBlockBegin(dst);
  tid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                   gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  auto smemTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                                gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, smemTy);
  Value raw = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dyn));
  smemBase = arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, raw, ci64(b, loc, 1023)),
                                   ci64(b, loc, ~int64_t(1023)));
  fullBar = arith::AddIOp::create(b, loc, smemBase, ci64(b, loc, barOffset));
  emptyBar = arith::AddIOp::create(b, loc, smemBase, ci64(b, loc, barOffset + 8 * stages));
  orderBar = arith::AddIOp::create(b, loc, smemBase, ci64(b, loc, barOffset + 16 * stages));
  // Thread 0 initializes the barriers; everyone waits for it.
  {
    Value t0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, ci32(b, loc, 0));
    auto init = scf::IfOp::create(b, loc, t0, false);
    OpBuilder ib = init.getThenBodyBuilder();
    for (int64_t s = 0; s < stages; ++s) {
      // One arrival: the producer's arrive.expect_tx (TMA operands); + 128 when the producer
      // threads gather an operand (one arrival each).
      bool anyTMA = !opA.gather || !opB.gather;
      NVVM::MBarrierInitOp::create(ib, loc, barrierAddr(ib, loc, fullBar, ci32(ib, loc, s)),
                                   ci32(ib, loc, (anyTMA ? 1 : 0) + (anyGather ? 128 : 0)),
                                   Value());
      // One arrival per consumer warpgroup that reads the stage.
      NVVM::MBarrierInitOp::create(ib, loc, barrierAddr(ib, loc, emptyBar, ci32(ib, loc, s)),
                                   ci32(ib, loc, pingpong ? 1 : consumers), Value());
    }
    for (int64_t w = 0; w < 2; ++w)
      NVVM::MBarrierInitOp::create(ib, loc, barrierAddr(ib, loc, orderBar, ci32(ib, loc, w)),
                                   ci32(ib, loc, 1), Value());
    NVVM::FenceMbarrierInitOp::create(ib, loc);
  }
  gpu::BarrierOp::create(b, loc);
  setRunTiles(b, loc, args);
  Value wg = arith::DivUIOp::create(b, loc, tid, ci32(b, loc, 128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, ci32(b, loc, 0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder pb = roles.getThenBodyBuilder();
    // Register budgets move from the producer to the consumers (setmaxnreg needs the
    // 384-thread cap of two consumer warpgroups; with one, every thread already has 255).
    if (consumers > 1)
      NVVM::SetMaxRegisterOp::create(pb, loc, producerRegs, NVVM::SetMaxRegisterAction::decrease);
    if (anyGather) {
      emitProducer(pb, loc, src, args);
    } else {
      Value t0 = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid, ci32(pb, loc, 0));
      auto one = scf::IfOp::create(pb, loc, t0, false);
      OpBuilder ob = one.getThenBodyBuilder();
      emitProducer(ob, loc, src, args);
    }
  }
  {
    OpBuilder cb = roles.getElseBodyBuilder();
    if (consumers > 1)
      NVVM::SetMaxRegisterOp::create(cb, loc, consumerRegs, NVVM::SetMaxRegisterAction::increase);
    if (failed(emitConsumer(cb, loc, src, args)))
      return failure();
  }
  func::ReturnOp::create(b, loc);
  for (Operation &op : llvm::reverse(src.getOperations()))
    op.dropAllUses();
  src.dropAllDefinedValueUses();
  src.erase();

  // What the launch and the runtime need.
  int64_t threads = 128 * (1 + consumers);
  fn->setAttr(
      tile::kLaunchGridAttrName,
      b.getDenseI32ArrayAttr({(int32_t)std::min<int64_t>(numSMs, sched.getNumPrograms()), 1, 1}));
  fn->setAttr(tile::kLaunchBlockAttrName, b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));
  // setmaxnreg needs the register count at kernel entry, which ptxas derives from .maxntid
  // together with .minnctapersm (65536 / 384 threads: 168); with .maxntid alone it ignores
  // every setmaxnreg (ptxas info C7508, "'setmaxnreg' ignored; unable to determine register
  // count at entry") and the consumers never get their 232 registers. CUTLASS's
  // __launch_bounds__(384, 1) emits the same pair.
  if (consumers > 1)
    fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  fn->setAttr(tile::kDynamicSharedBytesAttrName, b.getI64IntegerAttr(smemBytes));
  fn->setAttr(tile::kTensorMapsAttrName, b.getArrayAttr(maps));
  // num_stages lowered to make room for the staging buffers: the requested count is kept.
  fn->setAttr(tile::kWgmmaAttrName,
              tl::WgmmaConfigAttr::get(
                  ctx, BM, BN, BK, stages,
                  tmaStore && stagesRequested != stages ? stagesRequested : 0, consumers,
                  pingpong ? tl::WgmmaSchedule::pingpong : tl::WgmmaSchedule::cooperative,
                  tmaStore ? tl::EpilogueStore::tma : tl::EpilogueStore::registers));
  if (!tmaStoreRefused.empty())
    fn->setAttr(tile::kTmaStoreRefusedAttrName, b.getStringAttr(tmaStoreRefused));
  return success();
}

namespace {
struct ConvertTileDotToWGMMAPass
    : public aicc::impl::ConvertTileDotToWGMMABase<ConvertTileDotToWGMMAPass> {
  using Base::Base;
  void runOnOperation() override {
    // The persistent grid has one CTA per SM of the hardware; the target's shared memory
    // per block bounds the plan (include/aicc/Target/TargetAttr.h: the module's
    // aicc.hardware / aicc.target unless an option names them).
    const aicc::ChipInfo *chip = aicc::resolveChip(getOperation(), aicc::ChipRole::Hardware,
                                                   hardware, "h200", getArgument());
    const aicc::ChipInfo *target =
        aicc::resolveChip(getOperation(), aicc::ChipRole::Target, "", "sm_90a", getArgument());
    if (!chip || !target)
      return signalPassFailure();
    if (!target->has(aicc::ChipFeature::Wgmma)) {
      getOperation().emitError("convert-tile-dot-to-wgmma: target ")
          << target->name << " has no wgmma (sm_90a only)";
      return signalPassFailure();
    }
    auto lower = [&](func::FuncOp fn, tl::ScheduleAttr sched, std::string &why) {
      WgmmaKernel k(fn, sched, *target, chip->smCount, tmaStore);
      return k.match(why) ? k.run() : success();
    };
    if (failed(lowerDotKernels(getOperation(), tile::kWgmmaRefusedAttrName, lower)))
      signalPassFailure();
  }
};

struct FinalizeTensorMapParamsPass
    : public aicc::impl::FinalizeTensorMapParamsBase<FinalizeTensorMapParamsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // gpu.dynamic_shared_memory becomes an internal [0 x i8] global that the NVPTX backend
    // "demotes" to a 1-byte static .shared variable; the CUDA form of dynamic shared memory is
    // `.extern .shared .align A .b8 name[]`. Make it external, 1024-byte aligned (the 128-byte
    // swizzle's repeat).
    for (auto g : getOperation().getOps<LLVM::GlobalOp>())
      if (g.getAddrSpace() == 3 && g.getSymName().starts_with("__dynamic_shmem__")) {
        g.setLinkage(LLVM::Linkage::External);
        g.setAlignment(1024);
      }
    for (auto fn : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto maps = fn->getAttrOfType<ArrayAttr>(tile::kTensorMapsAttrName);
      if (!maps)
        continue;
      unsigned n = fn.getNumArguments();
      if (maps.size() > n) {
        fn.emitError("finalize-tensor-map-params: more tensor maps than parameters");
        return signalPassFailure();
      }
      for (unsigned i = n - maps.size(); i < n; ++i) {
        if (!isa<LLVM::LLVMPointerType>(fn.getArgumentTypes()[i])) {
          fn.emitError("finalize-tensor-map-params: tensor map parameter ")
              << i << " is not a pointer";
          return signalPassFailure();
        }
        fn.setArgAttr(i, "llvm.byval",
                      TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128)));
        fn.setArgAttr(i, "nvvm.grid_constant", UnitAttr::get(ctx));
        fn.setArgAttr(i, "llvm.align", IntegerAttr::get(IntegerType::get(ctx, 64), 64));
      }
    }
  }
};
} // namespace
