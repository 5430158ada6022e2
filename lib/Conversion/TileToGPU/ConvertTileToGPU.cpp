//===- ConvertTileToGPU.cpp - bufferized tile kernels -> gpu.func ----------===//
//
// Input: `builtin.module @kernels` of bufferized tile kernels (func.func with tile.schedule)
// whose tile-wide work is in scf.parallel loops (convert-linalg-to-parallel-loops), tile
// buffers are memref.alloc, and program ids are tile.program_id.
//
// Distribution (one program instance = one CUDA block of T = 32 * num_warps threads):
//   - an outermost scf.parallel of N iterations becomes `for (l = tid; l < N; l += T)`
//     with the multi-dim induction variables delinearized from l (row-major, the last dim
//     fastest: consecutive threads touch consecutive elements), then gpu.barrier;
//   - any other op that writes memory at that level runs on thread 0 only, then
//     gpu.barrier (correct for tile-level reductions and scalar stores; slow, replaced by
//     tree reductions in a later issue);
//   - scf.for loops that hold distributed work (the K loop) are uniform: every thread runs
//     them and their bodies are distributed recursively;
//   - memref.alloc tile buffers become workgroup (shared memory) attributions;
//   - math functions (exp, erf, tanh, ...) become polynomial approximations: no libdevice.
//
//===----------------------------------------------------------------------===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include <cmath>
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;

namespace {

bool writesMemory(Operation *op) {
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    if (iface.hasEffect<MemoryEffects::Write>())
      return true;
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return false;
  } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    return op->getNumRegions() != 0 || !isMemoryEffectFree(op);
  }
  bool writes = false;
  for (Region &r : op->getRegions())
    r.walk([&](Operation *nested) {
      if (auto i = dyn_cast<MemoryEffectOpInterface>(nested))
        if (i.hasEffect<MemoryEffects::Write>())
          writes = true;
    });
  return writes;
}

bool containsParallel(Operation *op) {
  bool found = false;
  op->walk([&](scf::ParallelOp) { found = true; });
  return found;
}

struct Distributor {
  Value tid;         // index
  int64_t numThreads;

  LogicalResult distributeBlock(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (auto par = dyn_cast<scf::ParallelOp>(op)) {
        if (failed(distributeParallel(par)))
          return failure();
        continue;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(op); forOp && containsParallel(forOp)) {
        if (failed(distributeBlock(*forOp.getBody())))
          return failure();
        continue;
      }
      if (containsParallel(op))
        return op->emitError("convert-tile-to-gpu: cannot distribute parallel loops nested in ")
               << op->getName();
      if (!writesMemory(op))
        continue;
      if (op->getNumResults() != 0)
        return op->emitError("convert-tile-to-gpu: a memory-writing op with results cannot be "
                             "run on one thread");
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
      auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
      op->moveBefore(ifOp.thenBlock()->getTerminator());
      b.setInsertionPointAfter(ifOp);
      gpu::BarrierOp::create(b, loc);
    }
    return success();
  }

  LogicalResult distributeParallel(scf::ParallelOp par) {
    if (par.getNumResults() != 0)
      return par.emitError("convert-tile-to-gpu: parallel reductions are not supported");
    OpBuilder b(par);
    Location loc = par.getLoc();
    SmallVector<int64_t> lbs, steps, counts;
    for (auto [lb, ub, st] : llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep())) {
      auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(st);
      if (!l || !u || !s || *s <= 0)
        return par.emitError("convert-tile-to-gpu: tile loops must have static bounds");
      lbs.push_back(*l);
      steps.push_back(*s);
      counts.push_back(std::max<int64_t>(0, (*u - *l + *s - 1) / *s));
    }
    int64_t total = 1;
    for (int64_t c : counts)
      total *= c;
    Value ub = arith::ConstantIndexOp::create(b, loc, total);
    Value step = arith::ConstantIndexOp::create(b, loc, numThreads);
    auto loop = scf::ForOp::create(b, loc, tid, ub, step);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value lin = loop.getInductionVar();
    SmallVector<Value> ivs(counts.size());
    int64_t stride = 1;
    for (int64_t d = counts.size() - 1; d >= 0; --d) {
      Value q = lin;
      if (stride != 1)
        q = arith::DivUIOp::create(lb, loc, q, arith::ConstantIndexOp::create(lb, loc, stride));
      if (d != 0)
        q = arith::RemUIOp::create(lb, loc, q, arith::ConstantIndexOp::create(lb, loc, counts[d]));
      if (steps[d] != 1)
        q = arith::MulIOp::create(lb, loc, q, arith::ConstantIndexOp::create(lb, loc, steps[d]));
      if (lbs[d] != 0)
        q = arith::AddIOp::create(lb, loc, q, arith::ConstantIndexOp::create(lb, loc, lbs[d]));
      ivs[d] = q;
      stride *= counts[d];
    }
    IRMapping map;
    for (auto [iv, v] : llvm::zip(par.getInductionVars(), ivs))
      map.map(iv, v);
    for (Operation &op : par.getBody()->without_terminator())
      lb.clone(op, map);
    b.setInsertionPointAfter(loop);
    gpu::BarrierOp::create(b, loc);
    par.erase();
    return success();
  }
};

/// Moves every memref.alloc to a workgroup attribution of `fn`, rewriting the memory space
/// of the alloc's users' view results.
LogicalResult promoteAllocs(gpu::GPUFuncOp fn) {
  SmallVector<memref::AllocOp> allocs;
  fn.walk([&](memref::AllocOp a) { allocs.push_back(a); });
  auto ws = gpu::AddressSpaceAttr::get(fn.getContext(), gpu::AddressSpace::Workgroup);
  auto withSpace = [&](Type t) -> Type {
    auto m = cast<MemRefType>(t);
    return MemRefType::get(m.getShape(), m.getElementType(), m.getLayout(), ws);
  };
  for (memref::AllocOp a : allocs) {
    MemRefType t = a.getType();
    if (!t.hasStaticShape())
      return a.emitError("convert-tile-to-gpu: tile buffers must have static shapes");
    BlockArgument attr = fn.addWorkgroupAttribution(withSpace(t), a.getLoc());
    // 16-byte aligned so the backend may use 128-bit shared-memory accesses.
    fn.setWorkgroupAttributionAttr(fn.getNumWorkgroupAttributions() - 1, "llvm.align",
                                   IntegerAttr::get(IntegerType::get(fn.getContext(), 64), 16));
    // Propagate the new memory space through view-like users.
    SmallVector<Value> worklist{a.getResult()};
    a.getResult().replaceAllUsesWith(attr);
    worklist = {attr};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<ViewLikeOpInterface>(user) || isa<memref::CastOp>(user)) {
          for (Value r : user->getResults())
            if (auto mt = dyn_cast<MemRefType>(r.getType()); mt && mt.getMemorySpace() != ws) {
              r.setType(withSpace(mt));
              worklist.push_back(r);
            }
        }
      }
    }
    a.erase();
  }
  int64_t bytes = 0;
  for (BlockArgument a : fn.getWorkgroupAttributions()) {
    auto t = cast<MemRefType>(a.getType());
    int64_t bits = t.getElementType().getIntOrFloatBitWidth();
    bytes += (t.getNumElements() * std::max<int64_t>(8, bits) / 8 + 15) / 16 * 16;
  }
  constexpr int64_t kStaticSharedLimit = 48 * 1024;
  if (bytes > kStaticSharedLimit) {
    auto diag = fn.emitError("convert-tile-to-gpu: kernel @")
                << fn.getName() << " needs " << bytes
                << " bytes of shared memory for its tile buffers, over the 48 KiB static limit; "
                   "use smaller block sizes";
    // Tiles this large come from the tensor-core matmul configs; say why the tensor-core
    // lowering did not take the kernel.
    if (auto why = fn->getAttrOfType<StringAttr>(tile::kWgmmaRefusedAttrName))
      diag << " (convert-tile-dot-to-wgmma refused it: " << why.getValue() << ")";
    if (auto why = fn->getAttrOfType<StringAttr>(tile::kMmaSyncRefusedAttrName))
      diag << " (convert-tile-dot-to-mma-sync refused it: " << why.getValue() << ")";
    return diag;
  }
  SmallVector<memref::DeallocOp> deallocs;
  fn.walk([&](memref::DeallocOp d) { deallocs.push_back(d); });
  for (auto d : deallocs)
    d.erase();
  return success();
}

/// pow(x, y) = exp(y * log|x|), negated when x < 0 and y is an odd integer, NaN when x < 0
/// and y is not an integer (C99 pow, which ONNX Pow follows); pow(x, 0) = 1.
void expandPowF(math::PowFOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getLhs(), y = op.getRhs();
  Type t = x.getType();
  // Scalars, or vectors of per-thread registers (convert-tile-to-gpu-registers).
  auto cst = [&](double v) -> Value {
    if (auto vt = dyn_cast<VectorType>(t))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vt, b.getFloatAttr(vt.getElementType(), v)));
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  };
  Value r = math::ExpOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, y,
                            math::LogOp::create(b, loc, math::AbsFOp::create(b, loc, x))));
  // trunc(v) as floor / ceil by sign (math.trunc has no NVVM lowering).
  auto trunc = [&](Value v) -> Value {
    Value isNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, cst(0.0));
    return arith::SelectOp::create(b, loc, isNeg, math::CeilOp::create(b, loc, v),
                                   math::FloorOp::create(b, loc, v));
  };
  Value yInt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, trunc(y), y);
  Value half = arith::MulFOp::create(b, loc, y, cst(0.5));
  Value yOdd = arith::AndIOp::create(
      b, loc, yInt, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, trunc(half), half));
  Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, cst(0.0));
  Value signed_ = arith::SelectOp::create(b, loc, yOdd, arith::NegFOp::create(b, loc, r), r);
  Value negResult = arith::SelectOp::create(b, loc, yInt, signed_, cst(std::nan("")));
  Value res = arith::SelectOp::create(b, loc, neg, negResult, r);
  Value yZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y, cst(0.0));
  res = arith::SelectOp::create(b, loc, yZero, cst(1.0), res);
  op.replaceAllUsesWith(res);
  op.erase();
}

/// The gpu.func of tile kernel `fn` (in `gb`'s gpu.module): its signature and argument
/// attributes, the known block / grid sizes (the schedule's, or the launch shape a lowering
/// chose), the schedule and every tile.* attribute (and nvvm.minctasm) of `fn`; the body
/// moved in, func.return become gpu.return.
gpu::GPUFuncOp createKernelFunc(OpBuilder &gb, func::FuncOp fn, tile::ScheduleAttr sched) {
  MLIRContext *ctx = fn.getContext();
  int64_t threads = sched.getNumThreads();
  // convert-tile-to-gpu-registers may pack several one-warp programs per CUDA block.
  int64_t perCTA = 1;
  if (auto p = fn->getAttrOfType<IntegerAttr>(tile::kProgramsPerCTAAttrName))
    perCTA = p.getInt();
  auto gfn = gpu::GPUFuncOp::create(gb, fn.getLoc(), fn.getName(), fn.getFunctionType());
  gfn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  if (ArrayAttr argAttrs = fn.getAllArgAttrs())
    gfn.setAllArgAttrs(argAttrs);
  gfn.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, {(int32_t)(threads * perCTA), 1, 1}));
  SmallVector<int32_t> grid;
  for (int64_t g : sched.getGrid())
    grid.push_back((int32_t)g);
  grid[0] /= perCTA;
  gfn.setKnownGridSizeAttr(DenseI32ArrayAttr::get(ctx, grid));
  // Kernels that chose their own launch shape (convert-tile-dot-to-wgmma: a persistent
  // grid, warpgroups) say so.
  if (auto g = fn->getAttrOfType<DenseI32ArrayAttr>(tile::kLaunchGridAttrName))
    gfn.setKnownGridSizeAttr(g);
  if (auto bl = fn->getAttrOfType<DenseI32ArrayAttr>(tile::kLaunchBlockAttrName))
    gfn.setKnownBlockSizeAttr(bl);
  gfn->setAttr(tile::kScheduleAttrName, sched);
  // What the lowerings recorded (the tile dialect's discardable attributes, TileDialect.td)
  // travels with the kernel, as does nvvm.minctasm.
  for (NamedAttribute a : fn->getDiscardableAttrs())
    if (a.getName().getValue().starts_with("tile.") || a.getName() == "nvvm.minctasm")
      gfn->setAttr(a.getName(), a.getValue());

  Block &dst = gfn.getBody().front();
  Block &src = fn.getBody().front();
  for (auto [a, na] : llvm::zip(src.getArguments(), dst.getArguments()))
    a.replaceAllUsesWith(na);
  dst.getOperations().splice(dst.end(), src.getOperations());
  auto ret = cast<func::ReturnOp>(dst.getTerminator());
  OpBuilder rb(ret);
  gpu::ReturnOp::create(rb, ret.getLoc());
  ret.erase();
  return gfn;
}

/// tile.program_id / tile.num_programs to gpu.block_id / gpu.grid_dim (as i32).
void lowerProgramIds(gpu::GPUFuncOp gfn) {
  SmallVector<Operation *> pids;
  gfn.walk([&](Operation *op) {
    if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
      pids.push_back(op);
  });
  for (Operation *op : pids) {
    OpBuilder pb(op);
    unsigned axis = isa<tile::ProgramIdOp>(op) ? cast<tile::ProgramIdOp>(op).getAxis()
                                               : cast<tile::NumProgramsOp>(op).getAxis();
    auto dim = static_cast<gpu::Dimension>(axis);
    Value v = isa<tile::ProgramIdOp>(op)
                  ? gpu::BlockIdOp::create(pb, op->getLoc(), dim).getResult()
                  : gpu::GridDimOp::create(pb, op->getLoc(), dim).getResult();
    op->getResult(0).replaceAllUsesWith(
        arith::IndexCastOp::create(pb, op->getLoc(), pb.getI32Type(), v));
    op->erase();
  }
}

/// powf as exp/log with C's sign rules (expandPowF), on every kernel.
void expandPowFs(gpu::GPUModuleOp gpuModule) {
  SmallVector<math::PowFOp> pows;
  gpuModule.walk([&](math::PowFOp p) { pows.push_back(p); });
  for (math::PowFOp p : pows)
    expandPowF(p);
}

/// f32 exp(x) = 2^(x log2 e) on the special function unit (llvm.nvvm.ex2.approx.f32 is PTX
/// ex2.approx.f32, max relative error 2^-22 for the 2^t step, PTX ISA "ex2"): two
/// instructions instead of a polynomial, what Triton emits for tl.exp. The rounding of
/// x log2 e adds a relative error of about |x| 2^-24, below the f32 tolerances for |x| < 88
/// (beyond, exp overflows or underflows anyway).
void expToEx2(gpu::GPUModuleOp gpuModule) {
  SmallVector<math::ExpOp> exps;
  gpuModule.walk([&](math::ExpOp e) {
    if (getElementTypeOrSelf(e.getType()).isF32())
      exps.push_back(e);
  });
  for (math::ExpOp e : exps) {
    OpBuilder b(e);
    Type t = e.getType();
    Attribute log2e = b.getF32FloatAttr(1.4426950408889634);
    if (auto vt = dyn_cast<VectorType>(t))
      log2e = DenseElementsAttr::get(vt, log2e);
    Location loc = e.getLoc();
    Value scaled = arith::MulFOp::create(
        b, loc, e.getOperand(), arith::ConstantOp::create(b, loc, t, cast<TypedAttr>(log2e)));
    // The NVVM intrinsic itself (convert-gpu-to-nvvm would turn llvm.intr.exp2 into a
    // libdevice call); scalar only, so vectors of registers go element by element.
    auto ex2 = [&](Value x) -> Value {
      return LLVM::CallIntrinsicOp::create(
                 b, loc, b.getF32Type(), b.getStringAttr("llvm.nvvm.ex2.approx.f32"), ValueRange{x})
          .getResult(0);
    };
    Value r;
    if (auto vt = dyn_cast<VectorType>(t)) {
      r = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, b.getF32FloatAttr(0.0)));
      for (int64_t i = 0; i < vt.getNumElements(); ++i)
        r = vector::InsertOp::create(
            b, loc, ex2(vector::ExtractOp::create(b, loc, scaled, ArrayRef<int64_t>{i})), r,
            ArrayRef<int64_t>{i});
    } else {
      r = ex2(scaled);
    }
    e.replaceAllUsesWith(r);
    e.erase();
  }
}

/// The math-polynomial-approximation patterns (all but sin, cos and log), and afn on the
/// divisions they introduce.
LogicalResult approximateMath(gpu::GPUModuleOp gpuModule) {
  MLIRContext *ctx = gpuModule.getContext();
  // The divisions the approximations introduce (erf's rational P/Q, ...) are part of an
  // approximation already accurate to a few ulp: they may use PTX div.approx.f32 (afn, max
  // 2 ulp, CUDA's __fdividef) instead of the IEEE div.rn.f32 subroutine, which dominated
  // the GELU epilogue of the tensor-core matmul. Divisions of the model keep div.rn.
  llvm::DenseSet<Operation *> modelDivs;
  gpuModule.walk([&](arith::DivFOp d) { modelDivs.insert(d); });
  RewritePatternSet patterns(ctx);
  // The set of the legacy populateMathPolynomialApproximationPatterns(patterns) overload,
  // less sin, cos and log (above); f16/bf16 calls of all of them compute in f32.
  auto approximated = [](StringRef name) {
    return llvm::is_contained({math::AtanOp::getOperationName(), math::Atan2Op::getOperationName(),
                               math::TanhOp::getOperationName(), math::Log2Op::getOperationName(),
                               math::Log1pOp::getOperationName(), math::ErfOp::getOperationName(),
                               math::ErfcOp::getOperationName(), math::ExpOp::getOperationName(),
                               math::ExpM1Op::getOperationName(), math::CbrtOp::getOperationName(),
                               math::AsinOp::getOperationName(), math::AcosOp::getOperationName()},
                              name);
  };
  populateMathF32ExpansionPatterns(patterns, [&](StringRef name) {
    return approximated(name) || name == math::SinOp::getOperationName() ||
           name == math::CosOp::getOperationName() || name == math::LogOp::getOperationName();
  });
  populateMathPolynomialApproximationPatterns(patterns, approximated);
  if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
    return failure();
  gpuModule.walk([&](arith::DivFOp d) {
    if (!modelDivs.contains(d) && getElementTypeOrSelf(d.getType()).isF32())
      d.setFastmath(d.getFastmath() | arith::FastMathFlags::afn);
  });
  return success();
}

struct ConvertTileToGPUPass : public aicc::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    ModuleOp kernels = getTileKernelModule(top);
    if (!kernels)
      return;
    MLIRContext *ctx = &getContext();
    OpBuilder tb(kernels);
    auto gpuModule = gpu::GPUModuleOp::create(tb, kernels.getLoc(), kKernelModuleName);
    top->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    OpBuilder gb = OpBuilder::atBlockEnd(gpuModule.getBody());

    for (auto fn : llvm::make_early_inc_range(kernels.getOps<func::FuncOp>())) {
      tile::ScheduleAttr sched = tile::getSchedule(fn);
      if (!sched) {
        fn.emitError("convert-tile-to-gpu: function without tile.schedule in @kernels");
        return signalPassFailure();
      }
      gpu::GPUFuncOp gfn = createKernelFunc(gb, fn, sched);
      Block &dst = gfn.getBody().front();
      OpBuilder eb = OpBuilder::atBlockBegin(&dst);
      Value tid = gpu::ThreadIdOp::create(eb, fn.getLoc(), gpu::Dimension::x);
      lowerProgramIds(gfn);
      Distributor dist{tid, sched.getNumThreads()};
      // Kernels convert-tile-to-gpu-registers lowered (tile.layouts) are per-thread already.
      bool perThread = tile::getKernelPath(fn) != tile::KernelPath::Portable;
      if ((!perThread && failed(dist.distributeBlock(dst))) || failed(promoteAllocs(gfn)))
        return signalPassFailure();
      fn.erase();
    }
    kernels.erase();

    // Most math functions become polynomial approximations (MLIR's
    // math-polynomial-approximation patterns: exp, tanh, erf, ... on the hot paths of GELU,
    // softmax and friends), so their PTX calls no libdevice function. sin, cos and log are
    // left to libdevice (__nv_sinf, __nv_cosf, __nv_logf: convert-gpu-to-nvvm's calls, linked by
    // linkLibdevice with denormals kept): the approximations lose all accuracy at the edges
    // the numerics sweep checks (docs/numerics.md; measured on the H200: sin/cos of |x| near
    // 1e30 off by inf -- one-step Cody-Waite reduction --, sin of subnormals off by 6e-8, log
    // of subnormals off by 16 -- no denormal scaling). powf first becomes exp/log with C's
    // sign rules (expandPowF).
    expandPowFs(gpuModule);
    expToEx2(gpuModule);
    if (failed(approximateMath(gpuModule)))
      return signalPassFailure();
  }
};
} // namespace
