//===- TileBuilder.cpp - tile builder, loads, epilogues, chunked loops ------===//
#include "TemplateSupport.h"

namespace aicc::templates {

const ChipInfo &targetChip(const TemplateOptions &o) {
  const ChipInfo *c = lookupChip(o.target);
  return c ? *c : allChips().front();
}
const ChipInfo &hardwareChip(const TemplateOptions &o) {
  const ChipInfo *c = lookupChip(o.hardware);
  return c && c->isGPU ? *c : *lookupChip("h200");
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> inStrides,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> s(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1)
      s[lead + i] = inStrides[i];
  return s;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Type storageType(Type t) {
  if (auto it = dyn_cast<IntegerType>(t); it && !it.isSignless())
    return IntegerType::get(t.getContext(), it.getWidth());
  return t;
}

Type computeType(Type t) {
  if (t.isF16() || t.isBF16())
    return Float32Type::get(t.getContext());
  return storageType(t);
}

Type graphElementType(Value v) { return getElementTypeOrSelf(v.getType()); }

arith::CmpIPredicate unsignedPredicate(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::slt:
    return arith::CmpIPredicate::ult;
  case arith::CmpIPredicate::sle:
    return arith::CmpIPredicate::ule;
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::ugt;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::uge;
  default:
    return p;
  }
}

FailureOr<Value> loadView(TileBuilder &tb, KernelContext &kc, Value v, ArrayRef<Value> idx,
                          Value mask) {
  OpBuilder &b = tb.b;
  Location loc = tb.loc;
  auto vt = cast<RankedTensorType>(v.getType());
  Type elem = computeType(vt.getElementType());
  auto splat = [&](int64_t c) { return tb.splatI32(c); };
  auto addI = [&](Value x, int64_t c) -> Value {
    return c == 0 ? x : arith::AddIOp::create(b, loc, x, splat(c)).getResult();
  };
  auto andMask = [&](Value m, Value c) -> Value {
    return m ? arith::AndIOp::create(b, loc, m, c).getResult() : c;
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, int64_t c) -> Value {
    return arith::CmpIOp::create(b, loc, p, x, splat(c));
  };
  if (auto it = kc.argIndex.find(v); it != kc.argIndex.end()) {
    auto strides = rowMajorStrides(vt.getShape());
    SmallVector<Value> used;
    SmallVector<int64_t> usedStrides;
    for (int64_t d = 0; d < vt.getRank(); ++d)
      if (vt.getDimSize(d) != 1) {
        used.push_back(idx[d]);
        usedStrides.push_back(strides[d]);
      }
    return tb.load(kc.inParams[it->second], tb.offsets(used, usedStrides), mask, elem);
  }
  Operation *def = v.getDefiningOp();
  if (auto r = dyn_cast_or_null<ReshapeOp>(def)) {
    // Same linear index in both shapes: linearize over the result, delinearize over the
    // input (dims of size 1 contribute nothing).
    Value lin;
    auto strides = rowMajorStrides(vt.getShape());
    for (int64_t d = 0; d < vt.getRank(); ++d) {
      if (vt.getDimSize(d) == 1)
        continue;
      Value term = strides[d] == 1
                       ? idx[d]
                       : arith::MulIOp::create(b, loc, idx[d], splat(strides[d])).getResult();
      lin = lin ? arith::AddIOp::create(b, loc, lin, term).getResult() : term;
    }
    if (!lin)
      lin = splat(0);
    auto inShape = r.getInput().getType().getShape();
    return loadView(tb, kc, r.getInput(), tb.delinearize(lin, inShape), mask);
  }
  // A value the kernel computes, reached through views: the template evaluates it there.
  if (def && !isView(def) && kc.evalComputed && def->getParentOp() == kc.group.getOperation())
    return kc.evalComputed(v, idx, mask);
  if (!def || !isView(def)) {
    if (def)
      def->emitError("value of ") << def->getName()
                                  << " cannot be read here by the kernel template";
    return failure();
  }
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(def)
      .Case([&](TransposeOp t) -> FailureOr<Value> {
        SmallVector<Value> in(idx.size());
        for (auto [i, p] : llvm::enumerate(t.getPerm()))
          in[p] = idx[i];
        return loadView(tb, kc, t.getInput(), in, mask);
      })
      .Case([&](ExpandOp e) -> FailureOr<Value> {
        auto it = e.getInput().getType();
        size_t lead = vt.getRank() - it.getRank();
        SmallVector<Value> in;
        for (int64_t d = 0; d < it.getRank(); ++d)
          in.push_back(it.getDimSize(d) == 1 ? splat(0) : idx[lead + d]);
        return loadView(tb, kc, e.getInput(), in, mask);
      })
      .Case([&](SliceOp s) -> FailureOr<Value> {
        SmallVector<Value> in;
        for (auto [d, x] : llvm::enumerate(idx)) {
          int64_t step = s.getSteps()[d];
          Value y = step == 1 ? x : arith::MulIOp::create(b, loc, x, splat(step)).getResult();
          in.push_back(addI(y, s.getStarts()[d]));
        }
        return loadView(tb, kc, s.getInput(), in, mask);
      })
      .Case([&](TileOp t) -> FailureOr<Value> {
        auto it = t.getInput().getType();
        SmallVector<Value> in;
        for (auto [d, x] : llvm::enumerate(idx))
          in.push_back(
              it.getDimSize(d) == vt.getDimSize(d)
                  ? x
                  : arith::RemSIOp::create(b, loc, x, splat(it.getDimSize(d))).getResult());
        return loadView(tb, kc, t.getInput(), in, mask);
      })
      .Case([&](PadOp p) -> FailureOr<Value> {
        auto it = p.getInput().getType();
        SmallVector<Value> in;
        Value inRange;
        for (auto [d, x] : llvm::enumerate(idx)) {
          int64_t n = it.getDimSize(d);
          Value y = addI(x, -p.getLow()[d]);
          if (p.getLow()[d] == 0 && p.getHigh()[d] == 0) {
            in.push_back(y);
            continue;
          }
          if (p.getMode() == "constant") {
            inRange =
                andMask(inRange, arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::sge, y, 0),
                                                       cmp(arith::CmpIPredicate::slt, y, n)));
          } else if (p.getMode() == "edge") {
            y = arith::MaxSIOp::create(b, loc, y, splat(0));
            y = arith::MinSIOp::create(b, loc, y, splat(n - 1));
          } else if (p.getMode() == "wrap") {
            // wrap (numpy's): i mod n, shifted by a multiple of n to be non-negative.
            int64_t lift = (p.getLow()[d] + n - 1) / n * n;
            y = arith::RemSIOp::create(b, loc, addI(y, lift), splat(n));
          } else { // reflect: -i for i < 0, 2(n - 1) - i for i >= n
            auto absI = [&](Value z) -> Value {
              return arith::MaxSIOp::create(b, loc, z, arith::SubIOp::create(b, loc, splat(0), z));
            };
            y = absI(y);
            y = arith::SubIOp::create(b, loc, splat(n - 1),
                                      absI(arith::SubIOp::create(b, loc, splat(n - 1), y)));
          }
          in.push_back(y);
        }
        auto val = loadView(tb, kc, p.getInput(), in, inRange ? andMask(mask, inRange) : mask);
        if (failed(val) || !inRange)
          return val;
        Value pad = isa<FloatType>(elem)
                        ? tb.splatF(elem, p.getValue().convertToDouble())
                        : tb.splat(arith::ConstantOp::create(
                              b, loc, elem,
                              b.getIntegerAttr(elem, (int64_t)p.getValue().convertToDouble())));
        return arith::SelectOp::create(b, loc, inRange, *val, pad).getResult();
      })
      .Case([&](GatherOp g) -> FailureOr<Value> {
        // Load the index at the q dims, wrap negatives, then read the data there.
        auto dt = g.getInput().getType();
        auto it = g.getIndices().getType();
        int64_t axis = g.getAxis(), q = it.getRank(), n = dt.getDimSize(axis);
        SmallVector<Value> qIdx(idx.begin() + axis, idx.begin() + axis + q);
        auto k = loadView(tb, kc, g.getIndices(), qIdx, mask);
        if (failed(k))
          return failure();
        Value k32 = wrapIndex(tb, *k, n);
        SmallVector<Value> in(idx.begin(), idx.begin() + axis);
        in.push_back(k32);
        in.append(idx.begin() + axis + q, idx.end());
        return loadView(tb, kc, g.getInput(), in, mask);
      })
      .Case([&](GatherElementsOp g) -> FailureOr<Value> {
        int64_t axis = g.getAxis(), n = g.getInput().getType().getDimSize(axis);
        auto k = loadView(tb, kc, g.getIndices(), idx, mask);
        if (failed(k))
          return failure();
        Value k32 = wrapIndex(tb, *k, n);
        SmallVector<Value> in(idx);
        in[axis] = k32;
        return loadView(tb, kc, g.getInput(), in, mask);
      })
      .Case([&](ConcatOp c) -> FailureOr<Value> {
        int64_t axis = c.getAxis();
        int64_t extent = c.getType().getDimSize(axis);
        int64_t start = 0;
        Value acc;
        for (Value in : c.getInputs()) {
          int64_t n = cast<RankedTensorType>(in.getType()).getDimSize(axis);
          Value inside =
              arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::sge, idx[axis], start),
                                    cmp(arith::CmpIPredicate::slt, idx[axis], start + n));
          // Input i's index, idx - start where it is inside, written (idx + extent - start)
          // mod extent: never negative (the lanes of other inputs read in bounds), so the
          // GPU lowerings' axis analysis can prove the loads contiguous (x - start with
          // start > 0 is negative in other lanes, and a quotient of it is not analysed: the
          // rotate-half of RoPE read its second half one element at a time).
          SmallVector<Value> sub(idx);
          if (start != 0)
            sub[axis] = arith::RemSIOp::create(b, loc, addI(idx[axis], extent - start),
                                               tb.splatI32(extent));
          auto val = loadView(tb, kc, in, sub, andMask(mask, inside));
          if (failed(val))
            return failure();
          acc = acc ? arith::SelectOp::create(b, loc, inside, *val, acc).getResult() : *val;
          start += n;
        }
        return acc;
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        o->emitError("no load lowering for view op ") << o->getName();
        return failure();
      });
}

SmallVector<Value> broadcastIndex(TileBuilder &tb, RankedTensorType operandType,
                                  ArrayRef<Value> idx) {
  size_t lead = idx.size() - operandType.getRank();
  SmallVector<Value> in;
  for (int64_t d = 0; d < operandType.getRank(); ++d)
    in.push_back(operandType.getDimSize(d) == 1 ? tb.splatI32(0) : idx[lead + d]);
  return in;
}

FailureOr<Value> loadOperand(TileBuilder &tb, KernelContext &kc, Value v,
                             ArrayRef<int64_t> outShape, ArrayRef<Value> idx, Value mask) {
  return loadView(tb, kc, v, broadcastIndex(tb, cast<RankedTensorType>(v.getType()), idx), mask);
}

FailureOr<Value> applyEpilogue(TileBuilder &tb, KernelContext &kc, Operation *start, Value current,
                               ArrayRef<int64_t> outShape, ArrayRef<Value> idx, Value mask,
                               const ColumnPairs *pairs) {
  DenseMap<Value, Value> tiles;
  tiles[start->getResult(0)] = current;
  Block &body = kc.group.getBody().front();
  llvm::SmallPtrSet<Operation *, 4> swapOps;
  for (Operation &op : llvm::make_range(std::next(start->getIterator()), body.end())) {
    if (isa<YieldOp>(op))
      break;
    if (swapOps.count(&op))
      continue;
    if (isa<ReshapeOp>(op) && tiles.count(op.getOperand(0)))
      if (auto swap = matchSwapPairsView(op.getOperand(0), &op)) {
        tiles[(*swap)[2]->getResult(0)] =
            tl::SwapPairsOp::create(tb.b, tb.loc, tiles[op.getOperand(0)]).getResult();
        swapOps.insert(swap->begin(), swap->end());
        continue;
      }
    if (pairs && (&op == pairs->even || &op == pairs->odd)) {
      auto in = tiles.find(op.getOperand(0));
      if (in == tiles.end())
        return op.emitError("column pair of a value the epilogue does not compute"), failure();
      tiles[op.getResult(0)] = &op == pairs->even
                                   ? in->second
                                   : tl::SwapPairsOp::create(tb.b, tb.loc, in->second).getResult();
      continue;
    }
    if (isView(&op))
      continue; // folded into the loads of its users
    const bool half = pairs && cast<ShapedType>(op.getResult(0).getType()).getShape() ==
                                   ArrayRef<int64_t>(pairs->shape);
    if (!isElementwise(&op)) {
      op.emitError("cannot fuse ") << op.getName() << " into this kernel's epilogue";
      return failure();
    }
    SmallVector<Value> ins;
    for (Value o : op.getOperands()) {
      auto found = tiles.find(o);
      if (found != tiles.end()) {
        ins.push_back(found->second);
        continue;
      }
      auto loaded = half ? loadOperand(tb, kc, o, pairs->shape, pairs->idx, pairs->mask)
                         : loadOperand(tb, kc, o, outShape, idx, mask);
      if (failed(loaded))
        return failure();
      ins.push_back(*loaded);
    }
    auto r = emitElementwise(tb, &op, ins);
    if (failed(r))
      return failure();
    tiles[op.getResult(0)] = *r;
  }
  // The chain's result: the first yielded value the chain computes (a row kernel may also
  // yield its row input).
  auto yield = cast<YieldOp>(body.getTerminator());
  for (Value v : yield.getValues())
    if (auto found = tiles.find(v); found != tiles.end())
      return found->second;
  kc.group.emitError("fusion group result is not computed by its epilogue chain");
  return failure();
}

KernelContext makeKernel(OpBuilder &builder, FusionGroupOp group, StringRef name,
                         ArrayRef<int64_t> grid, int64_t numWarps, ArrayRef<NamedAttribute> blocks,
                         int64_t numStages) {
  SmallVector<RankedTensorType> results;
  for (Type t : group.getResultTypes())
    results.push_back(cast<RankedTensorType>(t));
  return makeKernelWithParams(builder, group, name, {}, results, grid, numWarps, blocks, numStages);
}

KernelContext makeKernelWithParams(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                   ArrayRef<RankedTensorType> extraInputs,
                                   ArrayRef<RankedTensorType> outputs, ArrayRef<int64_t> grid,
                                   int64_t numWarps, ArrayRef<NamedAttribute> blocks,
                                   int64_t numStages) {
  KernelContext kc;
  kc.group = group;
  MLIRContext *ctx = builder.getContext();
  SmallVector<Type> params;
  auto flat = [](Type t) {
    auto rt = cast<RankedTensorType>(t);
    return MemRefType::get({rt.getNumElements()}, storageType(rt.getElementType()));
  };
  for (Value v : group.getInputs())
    params.push_back(flat(v.getType()));
  for (RankedTensorType t : extraInputs)
    params.push_back(flat(t));
  for (RankedTensorType t : outputs)
    params.push_back(flat(t));
  auto fn = func::FuncOp::create(builder, group.getLoc(), name, FunctionType::get(ctx, params, {}));

  // A zero-element output gives zero programs; launch one, whose masks are all false (the
  // grid must be at least 1 in every dimension: tile.schedule's verifier, and CUDA's).
  SmallVector<int64_t> g(grid);
  for (int64_t &e : g)
    e = std::max<int64_t>(e, 1);
  fn->setAttr(tl::kScheduleAttrName,
              tl::ScheduleAttr::get(ctx, g, numWarps, numStages, DictionaryAttr::get(ctx, blocks)));
  Block *entry = fn.addEntryBlock();
  unsigned nIn = group.getInputs().size() + extraInputs.size();
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    (i < nIn ? kc.inParams : kc.outParams).push_back(entry->getArgument(i));
  for (auto [i, a] : llvm::enumerate(group.getBody().front().getArguments()))
    kc.argIndex[a] = i;
  kc.kernel = fn;
  return kc;
}

NamedAttribute blockAttr(OpBuilder &b, StringRef n, int64_t v) {
  return b.getNamedAttr(n, b.getI64IntegerAttr(v));
}

//===----------------------------------------------------------------------===//
// Chunked loops shared by the row and reduction templates.
//===----------------------------------------------------------------------===//

scf::ForOp chunkLoop(OpBuilder &b, Location loc, int64_t n, int64_t step, ValueRange init,
                     function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value cn = arith::ConstantIndexOp::create(b, loc, n);
  Value cs = arith::ConstantIndexOp::create(b, loc, step);
  return scf::ForOp::create(b, loc, c0, cn, cs, init,
                            [&](OpBuilder &lb, Location l, Value iv, ValueRange args) {
                              Value k = arith::IndexCastOp::create(lb, l, lb.getI32Type(), iv);
                              scf::YieldOp::create(lb, l, body(lb, k, args));
                            });
}

scf::ForOp rangeLoop(OpBuilder &b, Location loc, Value lo, Value hi, int64_t step, ValueRange init,
                     function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body) {
  Value l = arith::IndexCastOp::create(b, loc, b.getIndexType(), lo);
  Value h = arith::IndexCastOp::create(b, loc, b.getIndexType(), hi);
  Value cs = arith::ConstantIndexOp::create(b, loc, step);
  return scf::ForOp::create(b, loc, l, h, cs, init,
                            [&](OpBuilder &lb, Location il, Value iv, ValueRange args) {
                              Value k = arith::IndexCastOp::create(lb, il, lb.getI32Type(), iv);
                              scf::YieldOp::create(lb, il, body(lb, k, args));
                            });
}

ReducedDims splitReducedDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<bool> reduced(shape.size(), axes.empty());
  for (int64_t a : axes)
    reduced[a] = true;
  auto strides = rowMajorStrides(shape);
  ReducedDims rd;
  for (size_t d = 0; d < shape.size(); ++d) {
    (reduced[d] ? rd.redShape : rd.keptShape).push_back(shape[d]);
    (reduced[d] ? rd.redStr : rd.keptStr).push_back(strides[d]);
  }
  return rd;
}

Value keptBaseOffset(TileBuilder &tb, Value pid, const ReducedDims &rd) {
  OpBuilder &b = tb.b;
  Location loc = tb.loc;
  Value base = tb.i32(0);
  auto ks = rowMajorStrides(rd.keptShape);
  for (size_t d = 0; d < rd.keptShape.size(); ++d) {
    Value q = ks[d] == 1 ? pid : arith::DivSIOp::create(b, loc, pid, tb.i32(ks[d])).getResult();
    if (d != 0)
      q = arith::RemSIOp::create(b, loc, q, tb.i32(rd.keptShape[d]));
    base = arith::AddIOp::create(b, loc, base,
                                 arith::MulIOp::create(b, loc, q, tb.i32(rd.keptStr[d])));
  }
  return base;
}

Value wrapIndex(TileBuilder &tb, Value k, int64_t n) {
  OpBuilder &b = tb.b;
  Location loc = tb.loc;
  auto kt = cast<RankedTensorType>(k.getType());
  unsigned w = kt.getElementType().getIntOrFloatBitWidth();
  if (w < 32) {
    k = arith::ExtSIOp::create(b, loc, tb.tileOf(b.getI32Type()), k);
    kt = cast<RankedTensorType>(k.getType());
  }
  auto splatW = [&](int64_t v) {
    return tb.splat(arith::ConstantIntOp::create(b, loc, kt.getElementType(), v));
  };
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k, splatW(0));
  k = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, k, splatW(n)), k);
  k = arith::MaxSIOp::create(b, loc, k, splatW(0));
  k = arith::MinSIOp::create(b, loc, k, splatW(n - 1));
  if (kt.getElementType().getIntOrFloatBitWidth() > 32)
    k = arith::TruncIOp::create(b, loc, tb.tileOf(b.getI32Type()), k);
  return k;
}

} // namespace aicc::templates
