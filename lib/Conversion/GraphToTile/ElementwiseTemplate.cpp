//===- ElementwiseTemplate.cpp - elementwise / view template (1-D programs) ---===//
#include "TemplateSupport.h"

#include "llvm/ADT/DenseSet.h"

#include <map>
#include <vector>

namespace aicc::templates {

/// Marks the (input, output) parameter pairs of an elementwise kernel that may run in
/// place (tile.in_place): the output's every access is a tile.store at `offs` and the
/// input's every access a tile.load at `offs`, each load before each store in the one
/// block of the kernel, with one element size and count. Sound for this template only:
/// program p reads and writes exactly the flat indices [p * BLOCK, (p + 1) * BLOCK) (with
/// rows, program (x, y) those of [x * BLOCK, (x + 1) * BLOCK) inside row y), so
/// no program reads an element another writes, and within a program every element is
/// read before it is written at the same byte offset (the same offsets tile gives the
/// load and the store one layout: the thread that reads an element writes it).
static void markInPlacePairs(KernelContext &kc, Value offs) {
  auto accessesOnlyAt = [&](Value param, bool store, SmallVectorImpl<Operation *> &ops) {
    for (Operation *user : param.getUsers()) {
      auto load = dyn_cast<tl::LoadOp>(user);
      auto st = dyn_cast<tl::StoreOp>(user);
      if (store ? !(st && st.getPtr() == param && st.getOffsets() == offs)
                : !(load && load.getOffsets() == offs))
        return false;
      if (user->getBlock() != &kc.kernel.getBody().front())
        return false;
      ops.push_back(user);
    }
    return true;
  };
  auto sameLayoutBytes = [](Value a, Value b) {
    auto ta = cast<MemRefType>(a.getType()), tb = cast<MemRefType>(b.getType());
    return ta.getNumElements() == tb.getNumElements() &&
           ta.getElementTypeBitWidth() == tb.getElementTypeBitWidth();
  };
  SmallVector<int32_t> pairs;
  const int32_t numIn = kc.inParams.size();
  // Each parameter in one pair at most (the bundle's rule): the first fitting input.
  llvm::SmallDenseSet<size_t> pairedInputs;
  for (auto [o, out] : llvm::enumerate(kc.outParams)) {
    SmallVector<Operation *> stores;
    if (!accessesOnlyAt(out, /*store=*/true, stores) || stores.empty())
      continue;
    for (auto [i, in] : llvm::enumerate(kc.inParams)) {
      SmallVector<Operation *> loads;
      if (pairedInputs.count(i) || !sameLayoutBytes(in, out) ||
          !accessesOnlyAt(in, /*store=*/false, loads) || loads.empty())
        continue;
      bool readFirst = llvm::all_of(loads, [&](Operation *l) {
        return llvm::all_of(stores, [&](Operation *s) { return l->isBeforeInBlock(s); });
      });
      if (!readFirst)
        continue;
      pairs.push_back(static_cast<int32_t>(i));
      pairs.push_back(numIn + static_cast<int32_t>(o));
      pairedInputs.insert(i);
      break; // one input per output
    }
  }
  if (!pairs.empty())
    kc.kernel->setAttr(tl::kInPlaceAttrName, DenseI32ArrayAttr::get(kc.kernel.getContext(), pairs));
}

//===----------------------------------------------------------------------===//
// Elementwise template
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildElementwise(OpBuilder &builder, FusionGroupOp group,
                                         StringRef name) {
  // The programs cover the largest result; a smaller one (mergeSiblings) is stored at its
  // own indices of the same linear index, masked past its element count.
  auto outType = cast<RankedTensorType>(group.getResult(0).getType());
  for (Value r : group.getResults())
    if (cast<RankedTensorType>(r.getType()).getNumElements() > outType.getNumElements())
      outType = cast<RankedTensorType>(r.getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t numel = outType.getNumElements();
  if (numel >= (int64_t(1) << 31))
    return group.emitError("tensor of ") << numel << " elements exceeds 2^31 (i32 offsets)";
  // A symbol behind non-unit dims ([B, H, seq, D]): programs (x, y) take elements
  // [x * BLOCK, (x + 1) * BLOCK) of row y of the largest result's `inner` elements, so that
  // a run launches only the programs of its rows' first elements (tile.symgrid along x; a
  // smaller result with other rows: storeSlots). Otherwise programs x take the flat
  // elements [x * BLOCK, (x + 1) * BLOCK).
  std::optional<SymbolRows> rows = symbolRows(group, /*sameInner=*/false);
  int64_t span = rows ? rows->inner : numel;
  int64_t block = std::min<int64_t>(1024, std::max<int64_t>(128, llvm::PowerOf2Ceil(span)));
  int64_t programs = (span + block - 1) / block;
  KernelContext kc = makeKernel(builder, group, name, {programs, rows ? rows->outer : 1, 1}, 4,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  TileBuilder tb{b, group.getLoc(), {block}};
  Value pid = tl::ProgramIdOp::create(b, tb.loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value base = arith::MulIOp::create(b, tb.loc, pid, tb.i32(block));
  Value offs = arith::AddIOp::create(b, tb.loc, tb.splat(base), tb.range(block));
  Value mask = arith::CmpIOp::create(b, tb.loc, arith::CmpIPredicate::slt, offs, tb.splatI32(span));
  Value lane = offs, row;
  if (rows) {
    row = tl::ProgramIdOp::create(b, tb.loc, b.getI32Type(), b.getI32IntegerAttr(1));
    Value rowBase = arith::MulIOp::create(b, tb.loc, row, tb.i32(rows->inner));
    offs = arith::AddIOp::create(b, tb.loc, tb.splat(rowBase), offs);
  }
  // Result r of rows with another unit (elements per symbol value) than the largest's: the
  // programs' slots of one symbol value, j = row * unit + (lane % unit) for the value
  // s = lane / unit, hold its (outer_r x unit_r) elements of value s in row-major order
  // (never more: the largest result has the most), so a run's programs cover them too.
  // Returns the flat offsets of those elements and the mask of the lanes that have one.
  auto storeSlots = [&](int64_t outerR, int64_t unitR, int64_t innerR) -> std::pair<Value, Value> {
    auto div = [&](Value x, int64_t d) {
      return arith::DivSIOp::create(b, tb.loc, x, tb.splatI32(d)).getResult();
    };
    auto rem = [&](Value x, int64_t d) {
      return arith::RemSIOp::create(b, tb.loc, x, tb.splatI32(d)).getResult();
    };
    auto mulAdd = [&](Value x, int64_t k, Value y) {
      return arith::AddIOp::create(b, tb.loc, arith::MulIOp::create(b, tb.loc, x, tb.splatI32(k)),
                                   y)
          .getResult();
    };
    Value s = div(lane, rows->unit);
    Value j = mulAdd(tb.splat(row), rows->unit, rem(lane, rows->unit));
    Value has =
        arith::CmpIOp::create(b, tb.loc, arith::CmpIPredicate::slt, j, tb.splatI32(outerR * unitR));
    Value at = mulAdd(div(j, unitR), innerR, mulAdd(s, unitR, rem(j, unitR)));
    return {at, arith::AndIOp::create(b, tb.loc, has, mask).getResult()};
  };
  // Multi-dim output index, only materialized for operands that need it.
  SmallVector<Value> idx = tb.delinearize(offs, outShape);
  Block &body = group.getBody().front();
  // evalAt(v, at): v's tile at element `at` of v's shape. At the kernel's own element (idx)
  // values are memoized by value (`tiles`); a value reached through a view chain (a
  // transpose, reshape or slice of a value the kernel computes) is evaluated at the
  // element the chain maps to (loadView calls back here) and memoized by (value, index
  // tiles). Kernel inputs are loaded, views of them read by index arithmetic (loadView).
  DenseMap<Value, Value> tiles;
  std::map<std::pair<void *, std::vector<void *>>, Value> remapped;
  std::function<FailureOr<Value>(Value, ArrayRef<Value>, Value)> evalAt;
  evalAt = [&](Value v, ArrayRef<Value> at, Value m) -> FailureOr<Value> {
    auto vt = cast<RankedTensorType>(v.getType());
    const bool here = vt.getShape() == outShape && at == ArrayRef<Value>(idx);
    std::pair<void *, std::vector<void *>> key{v.getAsOpaquePointer(), {}};
    if (here) {
      if (auto it = tiles.find(v); it != tiles.end())
        return it->second;
    } else {
      for (Value a : at)
        key.second.push_back(a.getAsOpaquePointer());
      if (auto it = remapped.find(key); it != remapped.end())
        return it->second;
    }
    Operation *op = v.getDefiningOp();
    FailureOr<Value> r = failure();
    // A kernel input (or a reshape chain of one: the element keeps its linear index) read at
    // the kernel's own element is at the kernel's contiguous offsets.
    Value src = v;
    while (auto rs = src.getDefiningOp<ReshapeOp>())
      src = rs.getInput();
    if (here && kc.argIndex.count(src)) {
      r = tb.load(kc.inParams[kc.argIndex[src]], offs, mask, computeType(vt.getElementType()));
    } else if (!op || op->getBlock() != &body || isView(op) || isa<ReshapeOp>(op)) {
      r = loadView(tb, kc, v, at, m);
    } else if (auto tr = dyn_cast<TriluOp>(op)) {
      // Needs the element's row and column: keep x where j - i >= k (upper) / <= k (lower).
      auto x = evalAt(tr.getInput(), at, m);
      if (failed(x))
        return failure();
      size_t rank = at.size();
      if (rank < 2)
        return op->emitError("trilu needs rank >= 2"), failure();
      Value diff = arith::SubIOp::create(b, tb.loc, at[rank - 1], at[rank - 2]);
      Value keep = arith::CmpIOp::create(
          b, tb.loc, tr.getUpper() ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, diff,
          tb.splatI32(tr.getK()));
      Type et = cast<RankedTensorType>(x->getType()).getElementType();
      Value zero =
          isa<FloatType>(et)
              ? tb.splatF(et, 0.0)
              : tb.splat(arith::ConstantOp::create(b, tb.loc, et, b.getIntegerAttr(et, 0)));
      r = arith::SelectOp::create(b, tb.loc, keep, *x, zero).getResult();
    } else if (isElementwise(op)) {
      // An operand of v's own shape is read at v's element (its size-1 dims' indices are 0
      // already), so at the kernel's element it keeps the flat offsets (a contiguous load,
      // an in-place pair).
      r = emitElementwiseAt(tb, op, at,
                            [&](Value o, ArrayRef<Value> oi) { return evalAt(o, oi, m); });
    } else {
      return op->emitError("elementwise kernel template cannot hold ") << op->getName(),
             failure();
    }
    if (failed(r))
      return failure();
    if (here)
      tiles[v] = *r;
    else
      remapped[key] = *r;
    return r;
  };
  kc.evalComputed = evalAt;
  auto yield = cast<YieldOp>(body.getTerminator());
  // Every result first, then the stores (each input is read before any output is written:
  // markInPlacePairs).
  SmallVector<Value> results, masks, stores;
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    // A result of another shape at its own indices of the same linear index
    // (mergeSiblings), masked past its element count.
    auto vt = cast<RankedTensorType>(v.getType());
    Value m = mask, at = offs;
    if (rows && rows->results[i].second != rows->unit) {
      auto [outerR, unitR] = rows->results[i];
      std::tie(at, m) = storeSlots(outerR, unitR, vt.getNumElements() / outerR);
    } else if (vt.getNumElements() != numel) {
      m = arith::CmpIOp::create(b, tb.loc, arith::CmpIPredicate::slt, offs,
                                tb.splatI32(vt.getNumElements()));
      // Rows: a lane past its row's end must not write the next row's first elements.
      if (rows)
        m = arith::AndIOp::create(b, tb.loc, m, mask);
    }
    FailureOr<Value> t = vt.getShape() == outShape && at == offs
                             ? evalAt(v, idx, m)
                             : evalAt(v, tb.delinearize(at, vt.getShape()), m);
    if (failed(t))
      return failure();
    results.push_back(*t);
    masks.push_back(m);
    stores.push_back(at);
  }
  for (auto [i, t] : llvm::enumerate(results))
    tb.store(kc.outParams[i], stores[i], t, masks[i]);
  func::ReturnOp::create(b, tb.loc);
  markInPlacePairs(kc, offs);
  // Each result is stored at its own flat indices of the programs' linear index.
  if (rows)
    setRowsSymGrid(kc, *rows, block);
  else
    setFlatSymGrid(kc, 0, block, 1, /*equalResults=*/false);
  return kc.kernel;
}

} // namespace aicc::templates
