//===- ConvertTileDotToMMASync.cpp - matmul tile kernels -> cp.async + mma.sync ----===//
//
// The tensor-core path for sm_80 and plain sm_90 (no wgmma). A matmul tile kernel, as the
// matmul template writes it,
//
//   %acc = scf.for %k = 0 to K step BLOCK_K iter_args(%c = zeros) {
//     %a = tile.block_load %A[...] : ... -> tensor<BMxBKxT>      (T = f16 or bf16)
//     %b = tile.block_load %B[...] : ... -> tensor<BKxBNxT>
//     %d = tile.dot %a, %b, %c : ... -> tensor<BMxBNxf32>
//     scf.yield %d
//   }
//   ... epilogue tile ops on %acc, tile.store ...
//
// (or the loop's body alone when K fits one BLOCK_K) becomes the Ampere multistage GEMM (the
// structure of CUTLASS's sm80 "MmaMultistage" mainloop and of Triton's MMAv2 path; the code
// here is our own). One program = one CTA of num_warps warps:
//
//   Warps: warpsM x warpsN warps (warp w = wm * warpsN + wn) each own a WM x WN sub-tile
//     (WM = BM / warpsM, WN = BN / warpsN, both multiples of 16) as (WM/16) x (WN/8)
//     mma.m16n8k16 tiles of 4 f32 accumulators.
//   Global -> shared: cp.async.cg 16 bytes (nvgpu.device_async_copy, 8 elements) per thread
//     and chunk, into a ring of num_stages stages (dynamic shared memory: num_stages x A
//     stage, then num_stages x B stage). Each operand block is stored as its global layout
//     has it: [rows x cols], cols contiguous (A: [BM x BK], or [BK x BM] under transpose;
//     B: [BK x BN], or [BN x BK] under transpose). A chunk outside the matrix (row >= dims[1],
//     col >= dims[2], batch >= dims[0]) copies 0 source bytes: cp.async zero-fills the 16
//     bytes (src-size operand, PTX ISA "cp.async"), so ragged M / N / K read zeros as with
//     TMA. Rows must be 16-byte multiples (dims[2] % 8 == 0) so chunks never straddle the end.
//   Implicit-GEMM convolutions: A may be a tile.im2col_load ([BM x BK] stored K-major like a
//     plain A); each chunk's source is the im2col formula of its 8 k (OperandAddress.h). NHWC
//     with C % 8 == 0: 8 consecutive k are 8 contiguous channels, one cp.async (zero fill
//     outside the input or in the padding). Else the chunk is filled element by element: 8
//     global loads (offset 0 and value 0 where out of bounds) and one 16-byte st.shared into
//     the same swizzled slot, in a loop over the thread's chunks (their address terms are not
//     kept live across the K loop). In such kernels a weight block whose rows are not 16-byte
//     multiples (K = 27 for a 3x3 conv of 3 channels) is filled the same way. The stores are
//     synchronous: the bar.sync that follows cp.async.wait_group (below) orders them before
//     the ldmatrix reads like the copies, and the one before the issue orders them after the
//     previous reads of the stage (same generic proxy: no fence).
//   Pipeline: the prologue issues k blocks 0 .. S-2 (S = num_stages), one commit group each.
//     Iteration kb: cp.async.wait_group S-2 (this thread's group kb has landed), bar.sync
//     (everyone's has; and every warp is done reading stage (kb-1) % S, read in iteration
//     kb-1), issue k block kb+S-1 into stage (kb+S-1) % S = (kb-1) % S, commit (an empty
//     group past the end, so group g is always k block g), then compute on stage kb % S.
//   Compute: for each k16 slice, ldmatrix.x4 (nvgpu.ldmatrix; .trans for an MN-major
//     operand) the A fragments of the warp's WM/16 m16 tiles and the B fragments of its WN/8
//     n8 tiles (one x4 per two n8 tiles), then (WM/16) x (WN/8) mma.sync.m16n8k16 (f32 +=).
//   Tiles: the programs of one batch run in grouped order (GROUP_M = 8 row tiles per group,
//     Triton's matmul tutorial order) for L2 reuse: linear block id x + gm * y is remapped to
//     (pid_m, pid_n).
//
// Layouts (PTX ISA, section "Warp Level Matrix Multiply-Accumulate Instructions"):
//   mma.m16n8k16 fragments ("Matrix Fragments for mma.m16n8k16 with floating point type"),
//   g = lane / 4, t = lane % 4:
//     A (4 x .b32 = 8 halves a0..a7): a0,a1: (row g, k 2t+{0,1}); a2,a3: (g+8, 2t+{0,1});
//       a4,a5: (g, 2t+8+{0,1}); a6,a7: (g+8, 2t+8+{0,1}).
//     B (2 x .b32 = 4 halves b0..b3): b0,b1: (k 2t+{0,1}, col g); b2,b3: (k 2t+8+{0,1}, g).
//     C/D (4 x f32): c0,c1: (row g, col 2t+{0,1}); c2,c3: (row g+8, col 2t+{0,1}).
//   ldmatrix.x4 ("Warp-level matrix load instruction: ldmatrix"): threads 8j .. 8j+7 give the
//     row addresses of 8x8 matrix j (16 bytes each); result register j of thread `lane`
//     holds row lane/4, elements 2 (lane%4) + {0,1} of matrix j, or with .trans the
//     transposed matrix: elements (rows 2 (lane%4) + {0,1}, column lane/4).
//   So with q = lane / 8, r = lane % 8, the matrix a thread addresses is j = q and its row is
//   r; an m16 x k16 A tile takes matrices j = (mn half j%2, k half j/2) (= a0a1, a2a3, a4a5,
//   a6a7), a k16 x n16 B pair takes j = (k half j%2, n half j/2) (= b0b1, b2b3 of n8 tile 0,
//   then of n8 tile 1). A K-major operand (K contiguous) is read without .trans at stored row
//   mn + 8 (mn half) + r, column k + 8 (k half); an MN-major one with .trans at stored row
//   k + 8 (k half) + r, column mn + 8 (mn half).
//   Accumulator register i = 4 (mi * WN/8 + ni) + e of warp (wm, wn) is the output element
//     row = wm WM + 16 mi + g + 8 (e / 2), col = wn WN + 8 ni + 2t + (e % 2);
//   the epilogue (AccumulatorEpilogue) evaluates the tile ops after the K loop on it.
// Shared-memory store epilogue (option smem-store, default on): when the kernel's only store
//   is a tile.block_store of the [BM, BN] tile at the top level, of f16/bf16 or f32 elements
//   (E = 2 or 4 bytes; a 16-byte chunk holds Q = 16 / E = 8 or 4 elements), with output rows
//   of 16-byte multiples (dims[2] % Q == 0) and a block column provably a multiple of Q (so
//   every Q-element chunk of a row is 16-byte aligned, given a 16-byte aligned buffer, and
//   wholly inside or outside the matrix), the epilogue stores through shared memory:
//     bar.sync -- every warp is past its last ldmatrix (the staging tile overlaps the ring;
//                 no cp.async is in flight: the groups after the last k block are empty);
//     every thread: epilogue math in registers, then its register pairs (adjacent columns)
//                 st.shared as 2E-byte pairs (4 bytes, or 8 for f32: a v2 store) into a
//                 staging tile [BM, BN] (output type), XOR-swizzled by 16-byte chunk like the
//                 operands: element (r, c) at r BN + Q ((c / Q) ^ phase(r)) + c % Q, with
//                 C = BN / Q chunks per row and the swizzle phase below taken with stride
//                 s = E / 2 (the chunks one quad of threads covers in a row: a quad's 4 pairs
//                 are 8 E bytes = s chunks). f16/bf16 (s = 1): the 8 rows g = lane / 4 of one
//                 pair store land in 8 different 16-byte bank groups, so a warp's 32 4-byte
//                 pairs hit 32 different banks. f32 (s = 2): 8-byte accesses are served per
//                 half-warp (128 bytes per wavefront); a half-warp's 4 rows g hold chunks
//                 {2n, 2n+1} ^ 2 (g % 4) (C >= 8), or sit two to a 128-byte line with phases
//                 0, 0, 2, 2 (C = 4, BN = 16), so its 16 pairs cover the 32 banks once. The 8
//                 chunks one 8-thread phase of the copy-out reads are 8 different groups
//                 either way (one row's 8 aligned chunks, permuted by the XOR, or two rows
//                 of 4 on the two halves of a line);
//     bar.sync -- the whole tile is written;
//     every thread: chunks tid, tid + T, ... of the BM x BN/Q chunks (row-major: consecutive
//                 threads read consecutive 16 bytes of one row): one 16-byte ld.shared and
//                 one 16-byte st.global each, skipped when the chunk's row is >= dims[1],
//                 its column >= dims[2] or the batch >= dims[0].
//   One tile per program (not persistent): nothing reuses the staging tile, so no barrier
//   follows the copy-out. Shared memory: max(ring, staging: BM BN E bytes) -- an f32 tile can
//   be larger than the ring (128 x 256: 128 KiB over a 96 KiB 4-stage ring), and the dynamic
//   shared memory grows to it while that fits max-shared-bytes (at 128 accumulators per
//   thread the registers already hold one CTA per SM). A staging tile beyond
//   max-shared-bytes, other element types, rows not 16-byte multiples or other stores keep
//   the register stores (tile.smem_store_refused says why; ragged rows could take element
//   stores, not done).
// Shared-memory swizzle (bank conflicts; the XOR scheme of CUTLASS's "Swizzle<3,3,3>"):
//   a stored row of C = cols / 8 16-byte chunks keeps logical chunk c at physical chunk
//   c ^ phase(row), phase = row % 8 when C >= 8, else (row / (8 / C)) % C (rows shorter than
//   128 bytes share a 128-byte line). The 8 rows of one 8x8 matrix (rows 8a .. 8a+7, same
//   chunk) then hit 8 different 16-byte bank groups, for ldmatrix and ldmatrix.trans alike;
//   phase only depends on row % 8 = r for the rows a thread addresses. The f32 staging tile
//   (C = BN / 4) takes stride s = 2: phase = (2 row) % 8, or (2 (row / (8 / C))) % C.
//
// What is refused (the kernel keeps its tile form for the generic path, with a
// `tile.mma_sync_refused` reason): other operand types, blocks that are not powers of two
// >= 16, rows that are not 16-byte multiples and block columns not provably multiples of 8
// (outside implicit-GEMM kernels),
// warp grids that do not tile the block in 16 x 16 pieces, more than 128 accumulators per
// thread, more shared memory than max-shared-bytes, epilogue ops AccumulatorEpilogue does not
// evaluate.
//===----------------------------------------------------------------------===//
#include "MmaSyncKernel.h"

#include "AccumulatorEpilogue.h"
#include "OperandAddress.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TargetAttr.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILEDOTTOMMASYNC
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
using namespace aicc::mma_sync;

Value aicc::mma_sync::swizzlePhase(OpBuilder &b, Location loc, int64_t chunks, Value row,
                                   int64_t stride) {
  auto ci32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  int64_t c = chunks;
  Value line = row;
  if (c < 8)
    line = arith::ShRUIOp::create(b, loc, row, ci32(llvm::Log2_64(8 / c)));
  if (stride > 1)
    line = arith::ShLIOp::create(b, loc, line, ci32(llvm::Log2_64(stride)));
  return arith::AndIOp::create(b, loc, line, ci32(std::min<int64_t>(c, 8) - 1));
}

/// The swizzle phase of stored row `row` (i32): swizzlePhase (MmaSyncKernel.h).
Value MmaSyncKernel::phase(OpBuilder &b, int64_t chunks, Value row, int64_t stride) {
  return swizzlePhase(b, loc, chunks, row, stride);
}

/// Copy slot of chunk `c` (i32) of operand `o`'s stage: stored row c / C, chunk c % C at its
/// swizzled place; `guarded`: only valid when c < rows x C.
MmaSyncKernel::CopySlot MmaSyncKernel::copySlot(OpBuilder &b, const Operand &o, Value c,
                                                bool guarded) {
  auto mul = [&](Value v, int64_t k) -> Value {
    return arith::MulIOp::create(b, loc, v, ci32(b, loc, k));
  };
  CopySlot s;
  s.row = arith::DivUIOp::create(b, loc, c, ci32(b, loc, o.chunks()));
  Value ch = arith::RemUIOp::create(b, loc, c, ci32(b, loc, o.chunks()));
  s.col = mul(ch, kChunk);
  Value phys = arith::XOrIOp::create(b, loc, ch, phase(b, o, s.row));
  s.dstOff = arith::AddIOp::create(b, loc, mul(s.row, o.cols), mul(phys, kChunk));
  if (guarded) {
    s.guarded = true;
    s.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                    ci32(b, loc, o.rows * o.chunks()));
  }
  return s;
}

void MmaSyncKernel::precompute(OpBuilder &b, Value lane, Value wm, Value wn) {
  auto mul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, ci32(b, loc, c));
  };
  auto add = [&](Value v, Value w) -> Value { return arith::AddIOp::create(b, loc, v, w); };
  auto addc = [&](Value v, int64_t c) -> Value { return c ? add(v, ci32(b, loc, c)) : v; };
  // Copy slots: chunk c = tid + i T of the stage is stored row c / C, chunk c % C.
  // Elementwise operands compute their slots in a loop at each k block instead (issueLoads).
  for (auto [o, slots] : {std::pair{&opA, &slotsA}, std::pair{&opB, &slotsB}})
    if (!o->elementwise)
      for (int64_t i = 0; i * threads < o->rows * o->chunks(); ++i)
        slots->push_back(
            copySlot(b, *o, addc(tid, i * threads), (i + 1) * threads > o->rows * o->chunks()));
  // ldmatrix addresses (see the file comment): q = lane / 8 picks the 8x8 matrix, r = lane % 8
  // its row. A: matrix q = (mn half q % 2, k half q / 2); B: (k half q % 2, n half q / 2).
  Value q = arith::DivUIOp::create(b, loc, lane, ci32(b, loc, 8));
  Value r = arith::RemUIOp::create(b, loc, lane, ci32(b, loc, 8));
  Value qLo = arith::AndIOp::create(b, loc, q, ci32(b, loc, 1));
  Value qHi = arith::ShRUIOp::create(b, loc, q, ci32(b, loc, 1));
  auto setup = [&](const Operand &o, Value warpOff, int64_t subTiles, Value mnHalf, Value kHalf,
                   SmallVector<Value> &t1, SmallVector<Value> &t2) {
    // All rows a thread addresses are r mod 8, so the swizzle phase is phase(r).
    Value ph = phase(b, o, r);
    if (o.kMajor) {
      // Stored row = warpOff + 16 i + 8 mnHalf + r, chunk = 2 kk + kHalf.
      Value row = add(add(warpOff, mul(mnHalf, 8)), r);
      Value rowOff = mul(row, o.cols);
      for (int64_t i = 0; i < subTiles; ++i)
        t1.push_back(addc(rowOff, 16 * i * o.cols));
      for (int64_t kk = 0; kk < BK / 16; ++kk)
        t2.push_back(mul(arith::XOrIOp::create(b, loc, addc(kHalf, 2 * kk), ph), kChunk));
    } else {
      // Stored row = 16 kk + 8 kHalf + r, chunk = warpOff / 8 + 2 i + mnHalf.
      Value chunk0 = add(arith::DivUIOp::create(b, loc, warpOff, ci32(b, loc, kChunk)), mnHalf);
      for (int64_t i = 0; i < subTiles; ++i)
        t1.push_back(mul(arith::XOrIOp::create(b, loc, addc(chunk0, 2 * i), ph), kChunk));
      Value rowOff = mul(add(mul(kHalf, 8), r), o.cols);
      for (int64_t kk = 0; kk < BK / 16; ++kk)
        t2.push_back(addc(rowOff, 16 * kk * o.cols));
    }
  };
  setup(opA, mul(wm, WM), mTiles(), qLo, qHi, aT1, aT2);
  setup(opB, mul(wn, WN), WN / 16, qHi, qLo, bT1, bT2);
  auto toIdx = [&](SmallVector<Value> &v) {
    for (Value &x : v)
      x = toIndex(b, loc, x);
  };
  toIdx(aT1);
  toIdx(aT2);
  toIdx(bT1);
  toIdx(bT2);
}

/// Issues the copies of the A and B blocks whose load operands `kmap` gives into stage
/// `stage` (index): per copy slot one 16-byte cp.async, or (elementwise operands) 8 masked
/// global loads and one 16-byte shared store. Uncommitted: the caller commits the group. The
/// synchronous stores need no wait: the bar.sync that orders the stage's cp.async data
/// before the ldmatrix reads (iteration kb + S - 1) orders them too, and the bar.sync at the
/// top of this iteration orders them after the reads of the stage's previous k block.
void MmaSyncKernel::issueLoads(OpBuilder &b, IRMapping &kmap, Value stage) {
  for (auto [o, slots] : {std::pair{&opA, &slotsA}, std::pair{&opB, &slotsB}}) {
    Value src = kmap.lookupOrDefault(o->im2col ? o->im2col.getPtr() : o->load.getPtr());
    Value batch, row0, col0;
    if (o->im2col) {
      row0 = kmap.lookupOrDefault(o->im2col.getRow());
      col0 = kmap.lookupOrDefault(o->im2col.getCol());
    } else {
      batch = kmap.lookupOrDefault(o->load.getBatch());
      row0 = kmap.lookupOrDefault(o->load.getRow());
      col0 = kmap.lookupOrDefault(o->load.getCol());
    }
    Value stageBase = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, stage, cidx(b, loc, o->stageElems)),
        cidx(b, loc, o->offset));
    auto emitSlot = [&](OpBuilder &b, const CopySlot &s) {
      OpBuilder cb = b;
      if (s.guarded) {
        auto ifOp = scf::IfOp::create(b, loc, s.valid, /*withElse=*/false);
        cb = ifOp.getThenBodyBuilder();
      }
      // The chunk's stored row and first column, absolute (the stored block is the
      // operand's global layout; an im2col block is [rows = p, cols = q]).
      Value row = arith::AddIOp::create(cb, loc, row0, s.row);
      Value col = arith::AddIOp::create(cb, loc, col0, s.col);
      std::optional<Im2ColRow> pRow;
      if (o->im2col)
        pRow = im2colRow(cb, loc, o->im2col, row);
      // (element offset, in bounds) of element `c` (absolute column) of the chunk's row.
      auto element = [&](Value c) {
        return o->im2col ? im2colElement(cb, loc, o->im2col, *pRow, c)
                         : blockLoadElement(cb, loc, o->load, batch, row, c);
      };
      Value dst = arith::AddIOp::create(cb, loc, stageBase, toIndex(cb, loc, s.dstOff));
      if (o->elementwise) {
        // Out-of-bounds elements read offset 0 (a valid address) and store 0.
        Value zero = arith::ConstantOp::create(cb, loc, elem, cb.getFloatAttr(elem, 0.0));
        SmallVector<Value> vals;
        for (int64_t e = 0; e < kChunk; ++e) {
          Value c = e ? arith::AddIOp::create(cb, loc, col, ci32(cb, loc, e)).getResult() : col;
          auto [off, ok] = element(c);
          Value safe = arith::SelectOp::create(cb, loc, ok, off, ci32(cb, loc, 0));
          Value v = memref::LoadOp::create(cb, loc, src, ValueRange{toIndex(cb, loc, safe)});
          vals.push_back(arith::SelectOp::create(cb, loc, ok, v, zero));
        }
        Value vec = vector::FromElementsOp::create(cb, loc, VectorType::get({kChunk}, elem), vals);
        vector::StoreOp::create(cb, loc, vec, smem, ValueRange{dst}, /*nontemporal=*/false,
                                llvm::MaybeAlign(16));
        return;
      }
      // One cp.async: the chunk's 8 elements are contiguous and in or out of bounds together
      // (block rows are 16-byte multiples, NHWC channels come in whole chunks). Out of bounds:
      // 0 source bytes (zero fill, PTX ISA "cp.async") from a valid address.
      auto [gidx, inb] = element(col);
      gidx = arith::SelectOp::create(cb, loc, inb, gidx, ci32(cb, loc, 0));
      Value srcElems =
          arith::SelectOp::create(cb, loc, inb, cidx(cb, loc, kChunk), cidx(cb, loc, 0));
      nvgpu::DeviceAsyncCopyOp::create(cb, loc, smem, ValueRange{dst}, src,
                                       ValueRange{toIndex(cb, loc, gidx)}, cb.getIndexAttr(kChunk),
                                       srcElems, cb.getUnitAttr());
    };
    if (!o->elementwise) {
      for (CopySlot &s : *slots)
        emitSlot(b, s);
      continue;
    }
    // Elementwise: a loop over this thread's chunks tid + i T, its slot computed in the loop,
    // so that the address terms of all of them are not kept live across the K loop (they
    // spilled at 128 x 128 x 32 with 4 warps: 4 chunks of 8 elements per thread).
    int64_t n = o->rows * o->chunks(), perThread = (n + threads - 1) / threads;
    auto sLoop =
        scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, perThread), cidx(b, loc, 1));
    OpBuilder lb = OpBuilder::atBlockBegin(sLoop.getBody());
    Value i32v = arith::IndexCastUIOp::create(lb, loc, lb.getI32Type(), sLoop.getInductionVar());
    Value c = arith::AddIOp::create(lb, loc, tid,
                                    arith::MulIOp::create(lb, loc, i32v, ci32(lb, loc, threads)));
    emitSlot(lb, copySlot(lb, *o, c, n % threads != 0));
  }
}

/// The mma.sync of one k block on stage `stage` (index): returns the new accumulators.
Value MmaSyncKernel::quadSum(OpBuilder &b, Value v) {
  for (int64_t m : {1, 2})
    v = arith::AddFOp::create(
        b, loc, v,
        gpu::ShuffleOp::create(b, loc, v, ci32(b, loc, m), ci32(b, loc, 32), gpu::ShuffleMode::XOR)
            .getShuffleResult());
  return v;
}

SmallVector<Value> MmaSyncKernel::compute(OpBuilder &b, Value stage, ValueRange acc,
                                          SmallVectorImpl<Value> &rows) {
  MLIRContext *ctx = b.getContext();
  auto fragT = VectorType::get({4, 2}, elem);
  auto resT = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(4, b.getF32Type()));
  auto ptx = elem.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  // mma.sync takes f16 pairs as vector<2xf16>, bf16 pairs as i32 (NVVM's operand types).
  auto reg = [&](Value frag, int64_t j) -> Value {
    Value p = vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{j});
    if (elem.isBF16())
      p = LLVM::BitcastOp::create(b, loc, b.getI32Type(), p);
    return p;
  };
  Value aBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, stage, cidx(b, loc, opA.stageElems)),
      cidx(b, loc, opA.offset));
  Value bBase = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, stage, cidx(b, loc, opB.stageElems)),
      cidx(b, loc, opB.offset));
  SmallVector<Value> out(acc.begin(), acc.end());
  for (int64_t kk = 0; kk < BK / 16; ++kk) {
    SmallVector<SmallVector<Value>> aRegs, bRegs;
    for (int64_t i = 0; i < mTiles(); ++i) {
      Value idx =
          arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, aBase, aT1[i]), aT2[kk]);
      Value f = nvgpu::LdMatrixOp::create(b, loc, fragT, smem, ValueRange{idx},
                                          /*transpose=*/!opA.kMajor, /*numTiles=*/4);
      aRegs.push_back({reg(f, 0), reg(f, 1), reg(f, 2), reg(f, 3)});
      if (rowSquares)
        // Register j of the A fragment is row g + 8 (j % 2) of the m16 tile (PTX ISA,
        // "Matrix Fragments for mma.m16n8k16", A: a0 a1 / a2 a3 / a4 a5 / a6 a7), the row of
        // accumulator row class 2 i + j % 2, at two k.
        for (int64_t j = 0; j < 4; ++j)
          for (int64_t e = 0; e < 2; ++e) {
            Value x = vector::ExtractOp::create(b, loc, f, ArrayRef<int64_t>{j, e});
            x = arith::ExtFOp::create(b, loc, rowSumType(b), x);
            Value &r = rows[2 * i + j % 2];
            r = arith::AddFOp::create(b, loc, r, arith::MulFOp::create(b, loc, x, x));
            // A LayerNorm's sums of x follow the sums of squares.
            if (xRowSums) {
              Value &sx = rows[2 * mTiles() + 2 * i + j % 2];
              sx = arith::AddFOp::create(b, loc, sx, x);
            }
          }
    }
    for (int64_t j = 0; j < WN / 16; ++j) {
      Value idx =
          arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, bBase, bT1[j]), bT2[kk]);
      Value f = nvgpu::LdMatrixOp::create(b, loc, fragT, smem, ValueRange{idx},
                                          /*transpose=*/!opB.kMajor, /*numTiles=*/4);
      bRegs.push_back({reg(f, 0), reg(f, 1)});
      bRegs.push_back({reg(f, 2), reg(f, 3)});
    }
    for (int64_t i = 0; i < mTiles(); ++i)
      for (int64_t n = 0; n < nTiles(); ++n) {
        int64_t base = (i * nTiles() + n) * 4;
        SmallVector<Value> c(out.begin() + base, out.begin() + base + 4);
        Value d = NVVM::MmaOp::create(
            b, loc, resT, aRegs[i], bRegs[n], c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt,
            std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
        for (int64_t e = 0; e < 4; ++e)
          out[base + e] = LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{e});
      }
  }
  return out;
}

LogicalResult MmaSyncKernel::run() {
  MLIRContext *ctx = fn.getContext();
  Block &src = fn.getBody().front();
  Block *dst = new Block();
  SmallVector<Value> args;
  for (BlockArgument a : src.getArguments())
    args.push_back(dst->addArgument(a.getType(), a.getLoc()));
  fn.getBody().push_back(dst);
  OpBuilder b = OpBuilder::atBlockBegin(dst);
  auto i32 = [&](Value idx) -> Value {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), idx);
  };
  tid = i32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value lane = arith::RemUIOp::create(b, loc, tid, ci32(b, loc, 32));
  Value warp = arith::DivUIOp::create(b, loc, tid, ci32(b, loc, 32));
  Value wm = arith::DivUIOp::create(b, loc, warp, ci32(b, loc, warpsN));
  Value wn = arith::RemUIOp::create(b, loc, warp, ci32(b, loc, warpsN));

  // Shared memory: one view of the dynamic shared memory as elements.
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(), wg);
  Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, bytesTy);
  auto viewTy = MemRefType::get({smemBytes / 2}, elem, AffineMap(), wg);
  smem = memref::ViewOp::create(b, loc, viewTy, dyn, cidx(b, loc, 0), ValueRange{});

  // Program ids in grouped order. Bounded symbolic dims (tile.symgrid along x and the
  // symbol values): the first runGM x gn CTAs take the run's row tiles in grouped order over
  // them, the others exit (the launch grid stays the bound's).
  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), args))
    map.map(o, n);
  scf::IfOp runOnly;
  {
    auto grid = sched.getGrid();
    int64_t gm = grid[0], gn = grid[1];
    Value bx = i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value by = i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
    Value bz = i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
    Value lin =
        arith::AddIOp::create(b, loc, bx, arith::MulIOp::create(b, loc, by, ci32(b, loc, gm)));
    Value runGM = runPrograms(b, loc, fn, args, 0, gm);
    if (runGM) {
      Value active =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lin,
                                arith::MulIOp::create(b, loc, runGM, ci32(b, loc, gn)).getResult());
      runOnly = scf::IfOp::create(b, loc, active, /*withElse=*/false);
      b.setInsertionPointToStart(&runOnly.getThenRegion().front());
    }
    auto [pidM, pidN] = runGM ? groupedTilePids(b, loc, lin, runGM, gn, kGroupM)
                              : groupedTilePids(b, loc, lin, gm, gn, kGroupM);
    Value pids[3] = {pidM, pidN, bz};
    fn.walk([&](tl::ProgramIdOp p) { map.map(p.getResult(), pids[p.getAxis()]); });
  }
  if (failed(cloneScalars(b, src, map, kOp)))
    return failure();
  precompute(b, lane, wm, wn);

  // Block loads of k block `kb` (index) into stage `stage` (index).
  auto issue = [&](OpBuilder &ib, Value kb, Value stage) -> LogicalResult {
    IRMapping kmap = map;
    if (loop) {
      kmap.map(loop.getInductionVar(),
               arith::MulIOp::create(ib, loc, kb, cidx(ib, loc, BK)).getResult());
      if (failed(cloneScalars(ib, *loop.getBody(), kmap, nullptr)))
        return failure();
    }
    issueLoads(ib, kmap, stage);
    return success();
  };
  // Prologue: k blocks 0 .. S-2, one group each (empty past the end).
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (s < numK && failed(issue(b, cidx(b, loc, s), cidx(b, loc, s))))
      return failure();
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  SmallVector<Value> acc0(accRegs(), zero);
  // Norm prologue: the row sums of squares (2 row classes per m16 tile) after the
  // accumulators.
  // A LayerNorm's row sums of x (as many) after them.
  int64_t rowRegs = rowSquares ? (xRowSums ? 4 : 2) * mTiles() : 0;
  acc0.append(rowRegs, xRowSums ? arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0)) : zero);
  auto kLoop =
      scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, numK), cidx(b, loc, 1), acc0);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value it = kLoop.getInductionVar();
    NVVM::CpAsyncWaitGroupOp::create(kb, loc, stages - 2);
    gpu::BarrierOp::create(kb, loc);
    Value next = arith::AddIOp::create(kb, loc, it, cidx(kb, loc, stages - 1));
    Value more =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, next, cidx(kb, loc, numK));
    auto ifOp = scf::IfOp::create(kb, loc, more, /*withElse=*/false);
    {
      OpBuilder ib = ifOp.getThenBodyBuilder();
      Value stage = arith::RemUIOp::create(ib, loc, next, cidx(ib, loc, stages));
      if (failed(issue(ib, next, stage)))
        return failure();
    }
    NVVM::CpAsyncCommitGroupOp::create(kb, loc);
    Value stage = arith::RemUIOp::create(kb, loc, it, cidx(kb, loc, stages));
    ValueRange carried = kLoop.getRegionIterArgs();
    SmallVector<Value> rows(carried.take_back(rowRegs));
    auto accV = compute(kb, stage, carried.drop_back(rowRegs), rows);
    accV.append(rows);
    scf::YieldOp::create(kb, loc, accV);
  }
  // Nothing is in flight past the loop: groups after the last k block are empty.
  SmallVector<Value> accRegsV(kLoop.getResults().drop_back(rowRegs));
  SmallVector<Value> rowSums;
  for (Value r : kLoop.getResults().take_back(rowRegs))
    rowSums.push_back(quadSum(b, r));

  // Epilogue on the mma.sync accumulator layout (see the file comment).
  AccumulatorLayout layout;
  for (int64_t i = 0; i < mTiles(); ++i)
    for (int64_t n = 0; n < nTiles(); ++n)
      for (int64_t e = 0; e < 4; ++e) {
        layout.rowClass.push_back(2 * i + e / 2);
        layout.colClass.push_back(2 * n + e % 2);
      }
  Value g = arith::DivUIOp::create(b, loc, lane, ci32(b, loc, 4));
  Value t4 = arith::RemUIOp::create(b, loc, lane, ci32(b, loc, 4));
  Value rowBase =
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, wm, ci32(b, loc, WM)), g);
  Value colBase = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, wn, ci32(b, loc, WN)),
                                        arith::MulIOp::create(b, loc, t4, ci32(b, loc, 2)));
  auto plus = [&](Value v, int64_t c) -> Value {
    return c ? arith::AddIOp::create(b, loc, v, ci32(b, loc, c)).getResult() : v;
  };
  for (int64_t c = 0; c < 2 * mTiles(); ++c)
    layout.rowCoords.push_back(plus(rowBase, 16 * (c / 2) + 8 * (c % 2)));
  for (int64_t c = 0; c < 2 * nTiles(); ++c)
    layout.colCoords.push_back(plus(colBase, 8 * (c / 2) + c % 2));
  // Staged store (see the file comment): per-class parts of the staging offsets.
  SmallVector<Value> stRowOff, stRowPh, stColChunk, stColIn;
  Value stView;
  SmallVector<int64_t> regRow, regCol;
  if (smemStore) {
    // Every warp is past its last ldmatrix of the ring, which the staging tile overlaps.
    gpu::BarrierOp::create(b, loc);
    stView = smem;
    if (outElem != elem)
      stView = memref::ViewOp::create(
          b, loc, MemRefType::get({smemBytes / outBytes}, outElem, AffineMap(), wg), dyn,
          cidx(b, loc, 0), ValueRange{});
    for (Value r : layout.rowCoords) {
      stRowOff.push_back(arith::MulIOp::create(b, loc, r, ci32(b, loc, stPitch())));
      stRowPh.push_back(phase(b, BN / outChunk, r, stStride()));
    }
    for (Value c : layout.colCoords) {
      stColChunk.push_back(
          arith::ShRUIOp::create(b, loc, c, ci32(b, loc, llvm::Log2_64(outChunk))));
      stColIn.push_back(arith::AndIOp::create(b, loc, c, ci32(b, loc, outChunk - 1)));
    }
    regRow = layout.rowClass;
    regCol = layout.colClass;
  }
  AccumulatorEpilogue ep(b, loc, map, std::move(layout), accRegsV, accResult);
  if (rowSquares)
    ep.setRowValues(rowSquares, ArrayRef<Value>(rowSums).take_front(2 * mTiles()));
  if (xRowSums)
    ep.setRowValues(xRowSums, ArrayRef<Value>(rowSums).drop_front(2 * mTiles()));
  if (smemStore) {
    auto pairT = VectorType::get({2}, outElem);
    ep.setBlockStoreSink([&, pairT](OpBuilder &sb, int64_t i, Value v0, Value v1) {
      int64_t rc = regRow[i], cc = regCol[i];
      Value ch = arith::XOrIOp::create(sb, loc, stColChunk[cc], stRowPh[rc]);
      Value off = arith::AddIOp::create(
          sb, loc,
          arith::AddIOp::create(
              sb, loc, stRowOff[rc],
              arith::ShLIOp::create(sb, loc, ch, ci32(sb, loc, llvm::Log2_64(outChunk)))),
          stColIn[cc]);
      Value v = vector::FromElementsOp::create(sb, loc, pairT, ValueRange{v0, v1});
      vector::StoreOp::create(sb, loc, v, stView, ValueRange{toIndex(sb, loc, off)},
                              /*nontemporal=*/false, llvm::MaybeAlign(2 * outBytes));
    });
  }
  if (failed(ep.emitAfter(src, kOp)))
    return failure();
  if (smemStore) {
    // The whole staging tile is written; copy it out in 16-byte chunks, row-major over the
    // BM x BN/outChunk chunks (chunk c = tid + j T), masked at the matrix edges.
    gpu::BarrierOp::create(b, loc);
    ArrayRef<int64_t> dims = outStore.getDims();
    Value ptr = map.lookupOrDefault(outStore.getPtr());
    Value batch = map.lookupOrDefault(outStore.getBatch());
    Value row = map.lookupOrDefault(outStore.getRow());
    Value col = map.lookupOrDefault(outStore.getCol());
    auto ult = [&](OpBuilder &ub, Value x, int64_t bound) -> Value {
      return arith::CmpIOp::create(ub, loc, arith::CmpIPredicate::ult, x, ci32(ub, loc, bound));
    };
    // i32 offsets fit: the buffer is below 2^31 elements (the block_store verifier and the
    // matmul template), and out-of-matrix chunks are masked off before their offset is used.
    Value base = arith::MulIOp::create(b, loc, batch, ci32(b, loc, dims[1] * dims[2]));
    Value batchIn = ult(b, batch, dims[0]);
    int64_t rowChunks = BN / outChunk, n = BM * rowChunks;
    auto vecT = VectorType::get({outChunk}, outElem);
    for (int64_t j = 0; j * threads < n; ++j) {
      Value c = j ? arith::AddIOp::create(b, loc, tid, ci32(b, loc, j * threads)).getResult() : tid;
      Value r = arith::DivUIOp::create(b, loc, c, ci32(b, loc, rowChunks));
      Value ch = arith::RemUIOp::create(b, loc, c, ci32(b, loc, rowChunks));
      Value cc = arith::MulIOp::create(b, loc, ch, ci32(b, loc, outChunk));
      Value absRow = arith::AddIOp::create(b, loc, row, r);
      Value absCol = arith::AddIOp::create(b, loc, col, cc);
      Value rowOk = ult(b, absRow, dims[1]);
      Value colOk = ult(b, absCol, dims[2]);
      Value ok =
          arith::AndIOp::create(b, loc, arith::AndIOp::create(b, loc, rowOk, colOk), batchIn);
      if ((j + 1) * threads > n)
        ok = arith::AndIOp::create(b, loc, ok, ult(b, c, n));
      auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
      OpBuilder ib = ifOp.getThenBodyBuilder();
      Value sOff = arith::AddIOp::create(
          ib, loc, arith::MulIOp::create(ib, loc, r, ci32(ib, loc, stPitch())),
          arith::MulIOp::create(
              ib, loc, arith::XOrIOp::create(ib, loc, ch, phase(ib, rowChunks, r, stStride())),
              ci32(ib, loc, outChunk)));
      Value v = vector::LoadOp::create(ib, loc, vecT, stView, ValueRange{toIndex(ib, loc, sOff)},
                                       /*nontemporal=*/false, llvm::MaybeAlign(16));
      Value gOff = arith::AddIOp::create(
          ib, loc,
          arith::AddIOp::create(
              ib, loc, arith::MulIOp::create(ib, loc, absRow, ci32(ib, loc, dims[2])), base),
          absCol);
      vector::StoreOp::create(ib, loc, v, ptr, ValueRange{toIndex(ib, loc, gOff)},
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    }
  }
  if (runOnly)
    b.setInsertionPointAfter(runOnly);
  func::ReturnOp::create(b, loc);
  for (Operation &op : llvm::reverse(src.getOperations()))
    op.dropAllUses();
  src.dropAllDefinedValueUses();
  src.erase();

  // What the launch and the runtime need: the schedule's grid, one CTA of num_warps warps.
  fn->setAttr(tile::kLaunchBlockAttrName, b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));
  fn->setAttr(tile::kDynamicSharedBytesAttrName, b.getI64IntegerAttr(smemBytes));
  fn->setAttr(tile::kMmaSyncAttrName,
              tl::MmaSyncConfigAttr::get(fn.getContext(), BM, BN, BK, stages, warpsM, warpsN,
                                         smemStore ? tl::EpilogueStore::shared
                                                   : tl::EpilogueStore::registers));
  if (!smemStoreRefused.empty())
    fn->setAttr(tile::kSmemStoreRefusedAttrName, b.getStringAttr(smemStoreRefused));
  return success();
}

namespace {
struct ConvertTileDotToMMASyncPass
    : public aicc::impl::ConvertTileDotToMMASyncBase<ConvertTileDotToMMASyncPass> {
  using Base::Base;
  void runOnOperation() override {
    // Shared memory one CTA may use: the chip's opt-in per-block maximum.
    // The chip: the option, else the module's aicc.target (include/aicc/Target/TargetAttr.h).
    std::string name = aicc::resolveChipName(getOperation(), aicc::ChipRole::Target, chip, "sm_80");
    const aicc::ChipInfo *c = aicc::lookupChip(name);
    if (!c || !c->has(aicc::ChipFeature::MmaSync)) {
      getOperation().emitError("convert-tile-dot-to-mma-sync: '")
          << name << "' is not a chip with mma.sync (" << aicc::chipNames() << ")";
      return signalPassFailure();
    }
    auto lower = [&](func::FuncOp fn, tl::ScheduleAttr sched, std::string &why) {
      MmaSyncKernel k(fn, sched, maxSharedBytes > 0 ? maxSharedBytes : c->sharedMemPerBlockBytes,
                      smemStore);
      return k.match(why) ? k.run() : success();
    };
    if (failed(lowerDotKernels(getOperation(), tile::kMmaSyncRefusedAttrName, lower)))
      signalPassFailure();
  }
};
} // namespace
