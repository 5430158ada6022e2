//===- ConvertTileToGPURegisters.cpp - 1-D tile kernels -> register SIMT code ---===//
//
// The fast GPU path for memory-bound kernels (elementwise, row kernels, reductions): a tile
// kernel whose tiles are all 1-D (or 0-D scalars) is lowered straight from its tensor form,
// before bufferization, to a gpu.func in which every thread holds its share of each tile in
// registers. Nothing goes through shared memory except the cross-warp step of a reduction.
//
// Layout (#tile.blocked<sizePerThread = [V], threadsPerWarp = [32], warpsPerCTA = [W]>, the
// Triton blocked encoding): a tile of N elements is split into N / V chunks of V contiguous
// elements; chunk c belongs to thread c mod T (T = 32 W) and is that thread's register group
// c div T. A thread's share is one vector<P x elt> value (P = V * ceil(N / (V T))). V is
// 16 bytes over the narrowest element the kernel loads or stores (8 for f16, 4 for f32), so a
// chunk is one 128-bit access. Tiles smaller than V T use a smaller V; below T elements the
// chunks are replicated (thread t holds chunk t mod (N / V); only t < N / V own it: replicas
// are masked out of stores and reductions). 0-D tiles and [1] tiles are uniform scalars.
//
// Loads and stores: an axis analysis of the offsets (Triton's AxisInfo, reduced to 1-D:
// contiguity, divisibility, constancy) proves when each chunk's offsets are V contiguous
// elements starting at a multiple of V. Such a tile is read with one 16-byte vector.load per
// chunk, all issued before any use, when every lane of the thread's mask is set (one branch per
// tile, not per element); a partial tile (the grid's last block, a row's tail) takes the
// masked path (vector.gather / vector.scatter, scalarized by LLVM). Offsets that are not
// provably contiguous (broadcast operands, strided rows) always take the gather path.
//
// Reductions (tile.reduce of a 1-D tile to a scalar): each thread combines its registers
// (vector.reduction), then a butterfly of gpu.shuffle xor over the warp, then lane 0 of every
// warp writes one value to shared memory, a barrier, and every thread combines the W values;
// the result is uniform. A reduction inside a loop ends with a second barrier so the next
// iteration's writes cannot overtake the reads.
//
// The kernel stays a func.func in @kernels, rewritten in place and marked with `tile.layouts`;
// convert-tile-to-gpu then moves it into the gpu.module without distributing it again (its
// shared-memory buffers are memref.allocs that become workgroup attributions there). Kernels
// this path does not cover (2-D tiles: matmul, pools, scatter) keep their tile form for the
// bufferizing path (with a `tile.register_path_refused` reason).
//===----------------------------------------------------------------------===//
#include "AxisAnalysis.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILETOGPUREGISTERS
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {

/// How one tile size is spread over the block's threads.
/// Most elements of one tile a thread holds on this path (the kernel templates need at most
/// 128: a 16384-element row over 128 threads).
constexpr int64_t kMaxRegsPerThread = 256;

struct Layout {
  int64_t n = 1;         // elements of the tile
  int64_t v = 1;         // sizePerThread: contiguous elements per chunk
  int64_t chunks = 1;    // n / v
  int64_t regs = 1;      // P: elements per thread
  bool replicated = false; // chunks < threads: thread t holds chunk t mod chunks
};

bool isUniformTile(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && (rt.getRank() == 0 || (rt.getRank() == 1 && rt.getDimSize(0) == 1));
}

class KernelLowering {
public:
  KernelLowering(func::FuncOp fn, tl::ScheduleAttr sched) : fn(fn), sched(sched) {
    threads = sched.getNumThreads();
  }

  /// Whether every op and tile of the kernel is one this path lowers; on failure `why`
  /// says what is not (the kernel then takes the bufferizing path).
  bool isEligible(std::string &why) {
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
               func::FuncDialect>(op->getDialect()) && !isa<tensor::ExtractOp>(op))
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
                  " per thread, over the register path's " +
                  std::to_string(kMaxRegsPerThread);
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
  void choosePacking() {
    ArrayRef<int64_t> g = sched.getGrid();
    if (sched.getNumWarps() != 1 || g[1] != 1 || g[2] != 1 || g[0] < 4096)
      return;
    for (int64_t p : {8, 4, 2})
      if (g[0] % p == 0) {
        programsPerCTA = p;
        return;
      }
  }

  Layout layoutFor(int64_t n) {
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

  Type convert(Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt)
      return t;
    if (isUniformTile(rt))
      return rt.getElementType();
    return VectorType::get({layoutFor(rt.getDimSize(0)).regs}, rt.getElementType());
  }

  /// Replaces the kernel's body by its per-thread form (same function, same signature).
  LogicalResult run() {
    choosePacking();
    Block &src = fn.getBody().front();
    Block *dst = new Block();
    for (BlockArgument a : src.getArguments())
      map.map(a, dst->addArgument(a.getType(), a.getLoc()));
    fn.getBody().push_back(dst);
    OpBuilder b = OpBuilder::atBlockBegin(dst);
    Location loc = fn.getLoc();
    entry = dst;
    Value tidx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    tid = arith::IndexCastOp::create(b, loc, b.getI32Type(), tidx);
    if (programsPerCTA > 1) {
      // Several one-warp programs per CUDA block: the program's threads are one warp.
      warpInCTA = arith::DivUIOp::create(b, loc, tid, cI32(b, loc, 32));
      tid = arith::RemUIOp::create(b, loc, tid, cI32(b, loc, 32));
      fn->setAttr(tile::kProgramsPerCTAAttrName, b.getI64IntegerAttr(programsPerCTA));
    }
    if (failed(lowerBlock(src, b)))
      return failure();
    func::ReturnOp::create(b, loc);
    for (Operation &op : llvm::reverse(src.getOperations()))
      op.dropAllUses();
    src.dropAllDefinedValueUses();
    src.erase();
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
    return success();
  }

private:
  func::FuncOp fn;
  tl::ScheduleAttr sched;
  Block *entry = nullptr;
  int64_t programsPerCTA = 1;
  Value warpInCTA; // i32, with programsPerCTA > 1
  int64_t threads = 128;
  int64_t maxV = 4;
  llvm::DenseMap<int64_t, Layout> layouts;
  IRMapping map;
  AxisAnalysis axis;
  Value tid; // i32

  Value cI32(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value cIdx(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// The chunk of `l` this thread holds first, and whether it owns it (replicas do not).
  std::pair<Value, Value> firstChunk(OpBuilder &b, Location loc, const Layout &l) {
    if (!l.replicated)
      return {tid, arith::ConstantOp::create(b, loc, b.getBoolAttr(true))};
    Value c = arith::RemUIOp::create(b, loc, tid, cI32(b, loc, l.chunks));
    Value own =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, cI32(b, loc, l.chunks));
    return {c, own};
  }

  LogicalResult lowerBlock(Block &src, OpBuilder &b) {
    for (Operation &op : src.without_terminator())
      if (failed(lowerOp(&op, b)))
        return failure();
    return success();
  }

  Value identity(OpBuilder &b, Location loc, tl::ReduceKind kind, Type t) {
    return arith::ConstantOp::create(b, loc, tl::reduceIdentity(b, kind, t));
  }

  /// Scalar combine: tile.reduce's (TileOps.h reduceCombine; NaN-propagating max / min).
  Value combine(OpBuilder &b, Location loc, tl::ReduceKind kind, Value x, Value y) {
    return tl::reduceCombine(b, loc, kind, x, y);
  }

  /// gpu.shuffle xor of a scalar: 32-bit values as they are, narrower ones (i1, i8, f16, bf16:
  /// a tile.reduce may be written over them) widened to i32 and back, 64-bit ones as two
  /// 32-bit halves.
  Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t offset) {
    Type t = v.getType();
    unsigned w = t.getIntOrFloatBitWidth();
    Value off = cI32(b, loc, offset), width = cI32(b, loc, 32);
    auto shfl = [&](Value x) {
      return gpu::ShuffleOp::create(b, loc, x, off, width, gpu::ShuffleMode::XOR)
          .getShuffleResult();
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

  LogicalResult lowerReduce(tl::ReduceOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    Value src = map.lookup(op.getSrc());
    tl::ReduceKind kind = op.getKind();
    Type et = op.getType().getElementType();
    if (isUniformTile(op.getSrc().getType())) {
      map.map(op.getResult(), src);
      return success();
    }
    Layout l = layoutFor(op.getSrc().getType().getDimSize(0));
    // 1. This thread's registers.
    // A pairwise tree (log2 P dependent steps rather than P) for instruction-level parallelism.
    SmallVector<Value> vals;
    for (int64_t j = 0; j < l.regs; ++j)
      vals.push_back(vector::ExtractOp::create(b, loc, src, ArrayRef<int64_t>{j}));
    while (vals.size() > 1) {
      SmallVector<Value> next;
      for (size_t j = 0; j + 1 < vals.size(); j += 2)
        next.push_back(combine(b, loc, kind, vals[j], vals[j + 1]));
      if (vals.size() % 2)
        next.push_back(vals.back());
      vals = std::move(next);
    }
    Value acc = vals.front();
    if (l.replicated)
      acc = arith::SelectOp::create(b, loc, firstChunk(b, loc, l).second, acc,
                                    identity(b, loc, kind, et));
    // 2. Butterfly over the warp.
    for (int64_t off = 16; off >= 1; off /= 2)
      acc = combine(b, loc, kind, acc, shuffleXor(b, loc, acc, off));
    // 3. Across warps through shared memory.
    int64_t warps = sched.getNumWarps();
    if (warps > 1) {
      // A tile buffer: convert-tile-to-gpu makes it a workgroup (shared-memory) attribution.
      OpBuilder entryBuilder = OpBuilder::atBlockBegin(entry);
      Value smem = memref::AllocOp::create(entryBuilder, loc, MemRefType::get({warps}, et));
      Value lane = arith::RemUIOp::create(b, loc, tid, cI32(b, loc, 32));
      Value warp = arith::DivUIOp::create(b, loc, tid, cI32(b, loc, 32));
      Value isLane0 =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, cI32(b, loc, 0));
      auto ifOp = scf::IfOp::create(b, loc, isLane0, /*withElse=*/false);
      {
        OpBuilder ib = ifOp.getThenBodyBuilder();
        memref::StoreOp::create(
            ib, loc, acc, smem,
            ValueRange{arith::IndexCastOp::create(ib, loc, ib.getIndexType(), warp)});
      }
      gpu::BarrierOp::create(b, loc);
      Value r = memref::LoadOp::create(b, loc, smem, ValueRange{cIdx(b, loc, 0)});
      for (int64_t w = 1; w < warps; ++w)
        r = combine(b, loc, kind, r,
                    memref::LoadOp::create(b, loc, smem, ValueRange{cIdx(b, loc, w)}));
      acc = r;
      if (op->getParentOfType<scf::ForOp>())
        gpu::BarrierOp::create(b, loc);
    }
    map.map(op.getResult(), acc);
    return success();
  }

  /// Whether every chunk of this load/store's offsets is V contiguous, V-aligned elements.
  bool isVectorizable(Value offsets, const Layout &l, Type elem) {
    // i1 tiles live in memory as one byte per element, but an LLVM <N x i1> load or store
    // is bit-packed: they always take the element-wise path.
    if (l.v == 1 || elem.getIntOrFloatBitWidth() < 8)
      return false;
    AxisInfo ai = axis.get(offsets);
    return ai.contiguity >= l.v && ai.contiguity % l.v == 0 && ai.divisibility % l.v == 0;
  }

  Value allTrue(OpBuilder &b, Location loc, Value mask) {
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::AND, mask);
  }

  Value elementIndex(OpBuilder &b, Location loc, Value offsets, int64_t j) {
    Value o = vector::ExtractOp::create(b, loc, offsets, ArrayRef<int64_t>{j});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), o);
  }

  LogicalResult lowerLoad(tl::LoadOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    Value ptr = map.lookup(op.getPtr());
    Type et = op.getType().getElementType();
    Type rt = convert(op.getType());
    TypedAttr padAttr = op.getPadding() ? cast<TypedAttr>(*op.getPadding())
                                        : (isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 0.0))
                                                              : TypedAttr(b.getIntegerAttr(et, 0)));
    Value pad = arith::ConstantOp::create(b, loc, padAttr);
    Value offsets = map.lookup(op.getOffsets());
    Value mask = op.getMask() ? map.lookup(op.getMask()) : Value();
    if (isUniformTile(op.getType())) {
      Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), offsets);
      if (!mask) {
        map.map(op.getResult(), memref::LoadOp::create(b, loc, ptr, idx));
        return success();
      }
      auto ifOp = scf::IfOp::create(
          b, loc, mask,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(tb, l, memref::LoadOp::create(tb, l, ptr, idx).getResult());
          },
          [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, pad); });
      map.map(op.getResult(), ifOp.getResult(0));
      return success();
    }
    Layout l = layoutFor(op.getType().getDimSize(0));
    auto vt = cast<VectorType>(rt);
    auto maskT = VectorType::get(vt.getShape(), b.getI1Type());
    auto padV = vector::BroadcastOp::create(b, loc, vt, pad);
    Value c0 = cIdx(b, loc, 0);
    auto gather = [&](OpBuilder &gb, Value m) -> Value {
      if (!m)
        m = arith::ConstantOp::create(gb, loc, DenseElementsAttr::get(maskT, true));
      return vector::GatherOp::create(gb, loc, vt, ptr, ValueRange{c0}, offsets, m, padV);
    };
    if (axis.get(op.getOffsets()).constancy >= l.n) {
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
      map.map(op.getResult(),
              mask ? arith::SelectOp::create(b, loc, mask, v, padV).getResult() : v);
      return success();
    }
    if (!isVectorizable(op.getOffsets(), l, et)) {
      map.map(op.getResult(), gather(b, mask));
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
      map.map(op.getResult(), vectorLoads(b));
      return success();
    }
    auto ifOp = scf::IfOp::create(
        b, loc, allTrue(b, loc, mask),
        [&](OpBuilder &tb, Location l2) { scf::YieldOp::create(tb, l2, vectorLoads(tb)); },
        [&](OpBuilder &eb, Location l2) { scf::YieldOp::create(eb, l2, gather(eb, mask)); });
    map.map(op.getResult(), ifOp.getResult(0));
    return success();
  }

  LogicalResult lowerStore(tl::StoreOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    Value ptr = map.lookup(op.getPtr());
    Value value = map.lookup(op.getValue());
    Value offsets = map.lookup(op.getOffsets());
    Value mask = op.getMask() ? map.lookup(op.getMask()) : Value();
    auto valT = cast<RankedTensorType>(op.getValue().getType());
    if (isUniformTile(valT)) {
      // Every thread holds the same value: thread 0 writes it.
      Value isT0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cI32(b, loc, 0));
      Value cond = mask ? arith::AndIOp::create(b, loc, isT0, mask).getResult() : isT0;
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
      OpBuilder ib = ifOp.getThenBodyBuilder();
      memref::StoreOp::create(
          ib, loc, value, ptr,
          ValueRange{arith::IndexCastOp::create(ib, loc, ib.getIndexType(), offsets)});
      return success();
    }
    Layout l = layoutFor(valT.getDimSize(0));
    auto vt = cast<VectorType>(value.getType());
    auto maskT = VectorType::get(vt.getShape(), b.getI1Type());
    if (l.replicated) {
      Value own = vector::BroadcastOp::create(b, loc, maskT, firstChunk(b, loc, l).second);
      mask = mask ? arith::AndIOp::create(b, loc, mask, own).getResult() : own;
    }
    Value c0 = cIdx(b, loc, 0);
    auto scatter = [&](OpBuilder &sb, Value m) {
      if (!m)
        m = arith::ConstantOp::create(sb, loc, DenseElementsAttr::get(maskT, true));
      vector::ScatterOp::create(sb, loc, /*result=*/Type(), ptr, ValueRange{c0}, offsets, m, value);
    };
    if (!isVectorizable(op.getOffsets(), l, vt.getElementType())) {
      scatter(b, mask);
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
      return success();
    }
    auto ifOp = scf::IfOp::create(b, loc, allTrue(b, loc, mask), /*withElse=*/true);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      vectorStores(tb);
      OpBuilder eb = ifOp.getElseBodyBuilder();
      scatter(eb, mask);
    }
    return success();
  }

  LogicalResult lowerOp(Operation *op, OpBuilder &b) {
    Location loc = op->getLoc();
    if (auto p = dyn_cast<tl::ProgramIdOp>(op)) {
      Value v = gpu::BlockIdOp::create(b, loc, static_cast<gpu::Dimension>(p.getAxis()));
      v = arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
      if (programsPerCTA > 1 && p.getAxis() == 0) // block * P + warp
        v = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, v, cI32(b, loc, programsPerCTA)), warpInCTA);
      map.map(p.getResult(), v);
      return success();
    }
    if (auto p = dyn_cast<tl::NumProgramsOp>(op)) {
      // The schedule's program grid (not the CUDA grid, which packs programs).
      map.map(p.getResult(), cI32(b, loc, sched.getGrid()[p.getAxis()]));
      return success();
    }
    if (auto r = dyn_cast<tl::MakeRangeOp>(op)) {
      auto rt = r.getType();
      if (isUniformTile(rt)) {
        map.map(r.getResult(), cI32(b, loc, r.getStart()));
        return success();
      }
      Layout l = layoutFor(rt.getDimSize(0));
      auto vt = cast<VectorType>(convert(rt));
      // element(j) = (firstChunk + T * (j / V)) * V + j % V + start
      SmallVector<int32_t> lane;
      for (int64_t j = 0; j < l.regs; ++j)
        lane.push_back((int32_t)((l.replicated ? 0 : threads * (j / l.v)) * l.v + j % l.v));
      Value base = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, firstChunk(b, loc, l).first, cI32(b, loc, l.v)),
          cI32(b, loc, r.getStart()));
      Value v = arith::AddIOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, vt, base),
          arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, ArrayRef<int32_t>(lane))));
      map.map(r.getResult(), v);
      return success();
    }
    if (auto s = dyn_cast<tl::SplatOp>(op)) {
      Value src = map.lookup(s.getSrc());
      Type t = convert(s.getType());
      map.map(s.getResult(),
              isa<VectorType>(t) ? vector::BroadcastOp::create(b, loc, t, src).getResult() : src);
      return success();
    }
    if (auto e = dyn_cast<tl::ExpandDimsOp>(op)) {
      map.map(e.getResult(), map.lookup(e.getSrc()));
      return success();
    }
    if (auto bc = dyn_cast<tl::BroadcastOp>(op)) {
      Value src = map.lookup(bc.getSrc());
      Type t = convert(bc.getType());
      if (isa<VectorType>(t) && !isa<VectorType>(src.getType()))
        src = vector::BroadcastOp::create(b, loc, t, src);
      map.map(bc.getResult(), src);
      return success();
    }
    if (auto r = dyn_cast<tl::ReduceOp>(op))
      return lowerReduce(r, b);
    if (auto ex = dyn_cast<tensor::ExtractOp>(op)) { // 0-D / [1] tile: the uniform scalar
      map.map(ex.getResult(), map.lookup(ex.getTensor()));
      return success();
    }
    if (auto l = dyn_cast<tl::LoadOp>(op))
      return lowerLoad(l, b);
    if (auto s = dyn_cast<tl::StoreOp>(op))
      return lowerStore(s, b);
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto d = dyn_cast<DenseElementsAttr>(c.getValue())) {
        Type t = convert(d.getType());
        Attribute a = isa<VectorType>(t) ? Attribute(DenseElementsAttr::get(cast<ShapedType>(t), d.getSplatValue<Attribute>()))
                                         : d.getSplatValue<Attribute>();
        map.map(c.getResult(), arith::ConstantOp::create(b, loc, cast<TypedAttr>(a)));
        return success();
      }
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> init;
      for (Value v : forOp.getInitArgs())
        init.push_back(map.lookup(v));
      auto nf =
          scf::ForOp::create(b, loc, map.lookup(forOp.getLowerBound()),
                             map.lookup(forOp.getUpperBound()), map.lookup(forOp.getStep()), init);
      map.map(forOp.getInductionVar(), nf.getInductionVar());
      for (auto [a, na] : llvm::zip(forOp.getRegionIterArgs(), nf.getRegionIterArgs()))
        map.map(a, na);
      OpBuilder fb = OpBuilder::atBlockBegin(nf.getBody());
      if (!nf.getBody()->empty() && isa<scf::YieldOp>(nf.getBody()->back()))
        nf.getBody()->back().erase();
      fb.setInsertionPointToEnd(nf.getBody());
      if (failed(lowerBlock(*forOp.getBody(), fb)))
        return failure();
      SmallVector<Value> yields;
      for (Value v : forOp.getBody()->getTerminator()->getOperands())
        yields.push_back(map.lookup(v));
      scf::YieldOp::create(fb, loc, yields);
      for (auto [r, nr] : llvm::zip(forOp.getResults(), nf.getResults()))
        map.map(r, nr);
      return success();
    }
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
      Operation *c = b.clone(*op, map);
      for (Value r : c->getResults())
        r.setType(convert(r.getType()));
      return success();
    }
    return op->emitError("convert-tile-to-gpu-registers: cannot lower ") << op->getName();
  }
};

struct ConvertTileToGPURegistersPass
    : public aicc::impl::ConvertTileToGPURegistersBase<ConvertTileToGPURegistersPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    ModuleOp kernels = getTileKernelModule(top);
    if (!kernels)
      return;
    MLIRContext *ctx = &getContext();
    for (auto fn : llvm::make_early_inc_range(kernels.getOps<func::FuncOp>())) {
      tl::ScheduleAttr sched = tl::getSchedule(fn);
      // Kernels the tensor-core lowerings took are per-thread code already.
      if (!sched || tile::isTensorCoreKernel(fn))
        continue;
      KernelLowering kl(fn, sched);
      std::string why;
      if (!kl.isEligible(why)) {
        fn->setAttr(tile::kRegisterPathRefusedAttrName, StringAttr::get(ctx, why));
        continue;
      }
      if (failed(kl.run()))
        return signalPassFailure();
    }
  }
};
} // namespace
