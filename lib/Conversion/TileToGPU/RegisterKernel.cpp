//===- RegisterKernel.cpp - the register path's layouts and per-thread state ---===//
//
// Part of convert-tile-to-gpu-registers (RegisterKernel.h).
//===----------------------------------------------------------------------===//
#include "RegisterKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::registers;
namespace tl = aicc::tile;

bool aicc::registers::isUniformTile(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && (rt.getRank() == 0 || (rt.getRank() == 1 && rt.getDimSize(0) == 1));
}

RegisterKernel::RegisterKernel(func::FuncOp fn, tl::ScheduleAttr sched) : fn(fn), sched(sched) {
  threads = sched.getNumThreads();
}

bool RegisterKernel::isEligible(std::string &why) {
  int64_t minBytes = 16;
  bool ok = true;
  // The most telling reason first: a dot is what keeps a kernel off this path.
  if (fn.walk([](tl::DotOp) { return WalkResult::interrupt(); }).wasInterrupted()) {
    why = "tile.dot";
    return false;
  }
  fn.walk([&](Operation *op) {
    if (!ok)
      return;
    auto refuse = [&](const Twine &w) {
      why = w.str();
      ok = false;
    };
    if (isa<tl::DotOp>(op))
      return refuse("tile.dot");
    if (op->getNumRegions() && !isa<scf::ForOp, func::FuncOp>(op))
      return refuse("region op " + op->getName().getStringRef());
    if (auto e = dyn_cast<tl::ExpandDimsOp>(op); e && !isUniformTile(e.getType()))
      return refuse("expand_dims to rank 2");
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      if (auto d = dyn_cast<DenseElementsAttr>(c.getValue()); d && !d.isSplat())
        return refuse("non-splat constant tile");
    if (auto ex = dyn_cast<tensor::ExtractOp>(op); ex && !isUniformTile(ex.getTensor().getType()))
      return refuse("tensor.extract from a 1-D tile");
    if (!isa<tl::TileDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
             func::FuncDialect>(op->getDialect()) &&
        !isa<tensor::ExtractOp>(op))
      return refuse("op " + op->getName().getStringRef());
    if (isa<tl::LaunchOp>(op))
      return refuse("tile.launch");
    auto memBytes = [&](Type t) {
      Type e = getElementTypeOrSelf(t);
      if (e.isIntOrFloat())
        minBytes = std::min<int64_t>(minBytes, std::max<int64_t>(1, e.getIntOrFloatBitWidth() / 8));
    };
    if (auto l = dyn_cast<tl::LoadOp>(op))
      memBytes(l.getType());
    if (auto s = dyn_cast<tl::StoreOp>(op))
      memBytes(s.getValue().getType());
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      if (isa<VectorType>(t))
        return refuse("vector-typed value");
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt)
        continue;
      if (rt.getRank() > 1)
        return refuse("rank-" + Twine(rt.getRank()) + " tile");
      if (!rt.getElementType().isIntOrFloat())
        return refuse("tile of non-scalar elements");
    }
  });
  maxV = std::max<int64_t>(1, 16 / minBytes);
  if (!ok)
    return false;
  // Every 1-D tile size must split evenly over the threads (or be replicated).
  fn.walk([&](Operation *op) {
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (auto rt = dyn_cast<RankedTensorType>(t); rt && !isUniformTile(rt)) {
        Layout l = layoutFor(rt.getDimSize(0));
        if (!l.replicated && l.chunks % threads != 0) {
          why = "tile of " + std::to_string(l.n) + " elements does not split over " +
                std::to_string(threads) + " threads";
          ok = false;
        } else if (l.regs > kMaxRegsPerThread) {
          // The code is unrolled per element: LLVM's time grows faster than linearly
          // (65536 elements over 128 threads took 87 s); templates stay at <= 128.
          why = "tile of " + std::to_string(l.n) + " elements is " + std::to_string(l.regs) +
                " per thread, over the register path's " + std::to_string(kMaxRegsPerThread);
          ok = false;
        }
      }
  });
  return ok;
}

/// One-warp programs are packed `programsPerCTA` to a CUDA block (one per warp) when the
/// grid is large and divides evenly: a 32-thread block moves too few bytes, and the SM's
/// resident-block limit (32 on sm_90) would cap the bytes in flight (short rows: 256 f16
/// elements per program). Only without shared memory (one warp per program never uses it).
/// Along x only (a grid (x, y): rows of a symbol behind a batch dim, the attention
/// combine's (query row, matrix)): program (x, y) is warp x mod P of block (x / P, y).
void RegisterKernel::choosePacking() {
  ArrayRef<int64_t> g = sched.getGrid();
  if (sched.getNumWarps() != 1 || g[2] != 1 || g[0] * g[1] < 4096)
    return;
  for (int64_t p : {8, 4, 2})
    if (g[0] % p == 0) {
      programsPerCTA = p;
      return;
    }
}

Layout RegisterKernel::layoutFor(int64_t n) {
  auto it = layouts.find(n);
  if (it != layouts.end())
    return it->second;
  Layout l;
  l.n = n;
  l.v = maxV;
  while (l.v > 1 && (n % l.v != 0 || n / l.v < threads))
    l.v /= 2;
  l.chunks = n / l.v;
  l.replicated = l.chunks < threads;
  l.regs = l.replicated ? l.v : l.v * ((l.chunks + threads - 1) / threads);
  layouts[n] = l;
  return l;
}

Type RegisterKernel::convert(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return t;
  if (isUniformTile(rt))
    return rt.getElementType();
  return VectorType::get({layoutFor(rt.getDimSize(0)).regs}, rt.getElementType());
}

void RegisterKernel::prepare() {
  choosePacking();
  // The axis facts of the offsets, on the tile form (the patterns see the shares only).
  AxisAnalysis axis;
  fn.walk([&](Operation *op) {
    if (auto l = dyn_cast<tl::LoadOp>(op))
      offsets[op] = axis.get(l.getOffsets());
    if (auto s = dyn_cast<tl::StoreOp>(op))
      offsets[op] = axis.get(s.getOffsets());
  });
  OpBuilder b = OpBuilder::atBlockBegin(entryBlock());
  Location loc = fn.getLoc();
  Value tidx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  tid = arith::IndexCastOp::create(b, loc, b.getI32Type(), tidx);
  if (programsPerCTA > 1) {
    // Several one-warp programs per CUDA block: the program's threads are one warp.
    warpInCTA = arith::DivUIOp::create(b, loc, tid, cI32(b, loc, 32));
    tid = arith::RemUIOp::create(b, loc, tid, cI32(b, loc, 32));
    fn->setAttr(tile::kProgramsPerCTAAttrName, b.getI64IntegerAttr(programsPerCTA));
  }
}

void RegisterKernel::finish() {
  // Record the layouts used (documentation for readers of the IR), by tile size so the
  // printed IR does not depend on hash order.
  SmallVector<int64_t> sizes;
  for (auto &entry : layouts)
    sizes.push_back(entry.first);
  llvm::sort(sizes);
  SmallVector<Attribute> ls;
  for (int64_t n : sizes)
    ls.push_back(tl::BlockedLayoutAttr::get(fn.getContext(), {(unsigned)layouts[n].v}, {32u},
                                            {(unsigned)sched.getNumWarps()}, {0u}));
  fn->setAttr(tile::kLayoutsAttrName, ArrayAttr::get(fn.getContext(), ls));
}

Value RegisterKernel::cI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value RegisterKernel::cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

std::pair<Value, Value> RegisterKernel::firstChunk(OpBuilder &b, Location loc, const Layout &l) {
  if (!l.replicated)
    return {tid, arith::ConstantOp::create(b, loc, b.getBoolAttr(true))};
  Value c = arith::RemUIOp::create(b, loc, tid, cI32(b, loc, l.chunks));
  Value own = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, cI32(b, loc, l.chunks));
  return {c, own};
}

Value RegisterKernel::shuffleXor(OpBuilder &b, Location loc, Value v, int64_t offset) {
  Type t = v.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  Value off = cI32(b, loc, offset), width = cI32(b, loc, 32);
  auto shfl = [&](Value x) {
    return gpu::ShuffleOp::create(b, loc, x, off, width, gpu::ShuffleMode::XOR).getShuffleResult();
  };
  if (w == 32)
    return shfl(v);
  Type i32 = b.getI32Type(), iw = b.getIntegerType(w);
  Value bits = isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, iw, v).getResult() : v;
  Value r;
  if (w < 32) {
    r = arith::TruncIOp::create(b, loc, iw, shfl(arith::ExtUIOp::create(b, loc, i32, bits)));
  } else {
    Type i64 = b.getI64Type();
    Value c32 = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
    Value lo = shfl(arith::TruncIOp::create(b, loc, i32, bits));
    Value hi =
        shfl(arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, c32)));
    r = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi), c32));
  }
  return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, r).getResult() : r;
}

AxisInfo RegisterKernel::offsetInfo(Operation *op) const {
  auto it = offsets.find(op);
  return it == offsets.end() ? AxisInfo() : it->second;
}

bool RegisterKernel::isVectorizable(Operation *op, const Layout &l, Type elem) const {
  // i1 tiles live in memory as one byte per element, but an LLVM <N x i1> load or store
  // is bit-packed: they always take the element-wise path.
  if (l.v == 1 || elem.getIntOrFloatBitWidth() < 8)
    return false;
  AxisInfo ai = offsetInfo(op);
  return ai.contiguity >= l.v && ai.contiguity % l.v == 0 && ai.divisibility % l.v == 0;
}

RegisterTypeConverter::RegisterTypeConverter(RegisterKernel &rk) {
  addConversion([](Type t) { return t; });
  addConversion([&rk](RankedTensorType t) -> Type { return rk.convert(t); });
}
