//===- ConvertGraphToTile.cpp - fused graph -> tile kernels + host plan ----===//
#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TargetAttr.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/CheckedArithmetic.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTGRAPHTOTILE
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
using namespace aicc::graph;

namespace {

/// Largest tensor convert-graph-to-tile takes, in bytes: the importer's default cap on one
/// tensor (16 GiB, ImportOptions::maxTensorBytes), so hand-written graph MLIR meets the same
/// limit as imported models. The kernel templates refuse 2^31 elements or more anyway.
constexpr uint64_t kMaxTensorBytes = uint64_t(16) << 30;

/// Element types the kernel templates and the bundle (runtime dtypes) support.
bool isSupportedElementType(Type t) {
  if (t.isF16() || t.isBF16() || t.isF32() || t.isF64())
    return true;
  auto it = dyn_cast<IntegerType>(t);
  return it && llvm::is_contained({1u, 8u, 16u, 32u, 64u}, it.getWidth());
}

/// Checks that `t` is a tensor the kernel templates can take: ranked, static, a supported
/// element type and at most kMaxTensorBytes (element counts and byte sizes computed with
/// overflow checks: a shape such as 2^32 x 2^32 must not wrap to 0 elements).
LogicalResult checkTensorType(Location loc, Type t, const llvm::Twine &what) {
  auto fail = [&](const llvm::Twine &why) {
    return emitError(loc) << "convert-graph-to-tile: " << what << " has type " << t << ": "
                          << why;
  };
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return fail(isa<UnrankedTensorType>(t)
                    ? "unranked tensors are not supported (graph functions compute on ranked "
                      "tensors of static shape)"
                    : "graph functions compute on ranked tensors of static shape");
  if (!rt.hasStaticShape())
    return fail("dynamic dims are not supported (the kernel templates need static shapes)");
  if (rt.getEncoding())
    return fail("tensor encodings are not supported");
  if (!isSupportedElementType(rt.getElementType()))
    return fail("unsupported element type (supported: f16, bf16, f32, f64, i1 and 8-, 16-, "
                "32- and 64-bit integers)");
  std::optional<uint64_t> bytes = (rt.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  for (int64_t d : rt.getShape())
    if (bytes)
      bytes = llvm::checkedMulUnsigned<uint64_t>(*bytes, static_cast<uint64_t>(d));
  if (!bytes || *bytes > kMaxTensorBytes)
    return fail("larger than the 16 GiB limit on one tensor");
  return success();
}

/// Checks everything convert-graph-to-tile relies on in a graph function before it builds
/// anything: one block, and tensors it can lower at every value (signature, op results,
/// block arguments of fusion groups).
LogicalResult checkGraphFunction(func::FuncOp fn) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("convert-graph-to-tile: @")
           << fn.getName() << " has " << fn.getBody().getBlocks().size()
           << " blocks; a graph function has one (no control flow)";
  for (auto [i, a] : llvm::enumerate(fn.getArguments()))
    if (failed(checkTensorType(a.getLoc(), a.getType(),
                               "argument #" + llvm::Twine(i) + " of @" + fn.getName())))
      return failure();
  for (auto [i, t] : llvm::enumerate(fn.getResultTypes()))
    if (failed(checkTensorType(fn.getLoc(), t,
                               "result #" + llvm::Twine(i) + " of @" + fn.getName())))
      return failure();
  WalkResult r = fn.getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          if (failed(checkTensorType(a.getLoc(), a.getType(),
                                     "block argument #" + llvm::Twine(a.getArgNumber()) +
                                         " of " + op->getName().getStringRef())))
            return WalkResult::interrupt();
    for (OpResult res : op->getResults())
      if (failed(checkTensorType(op->getLoc(), res.getType(),
                                 "result #" + llvm::Twine(res.getResultNumber()) + " of " +
                                     op->getName().getStringRef())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

MemRefType toMemRef(Type t) {
  auto rt = cast<RankedTensorType>(t);
  return MemRefType::get(rt.getShape(), rt.getElementType());
}

/// Identity-layout view of `src` with the shape of `type` (contiguous reshape).
Value reshapeView(OpBuilder &b, Location loc, Value src, MemRefType type) {
  SmallVector<int64_t> strides(type.getRank(), 1);
  for (int64_t i = type.getRank() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.getDimSize(i + 1);
  SmallVector<OpFoldResult> sizes, strs;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  for (int64_t s : strides)
    strs.push_back(b.getIndexAttr(s));
  return memref::ReinterpretCastOp::create(b, loc, type, src, b.getIndexAttr(0), sizes, strs);
}

/// The group input whose buffer `group` may update in place, marking its scatter_nd
/// kScatterInPlaceAttrName: a group of a scatter_nd (and the ops computing its updates)
/// whose data is a model input (an argument of `fn`) read by nothing but this scatter. The kernel
/// then writes the updates into that input's buffer, which is the group's result (the host function
/// returns the argument's buffer as that output). Launches run in order, so the only hazard would
/// be a later reader of the input's old value, and there is none. checkScatterND refuses a symbolic
/// data operand, so the buffer's layout is the result's.
std::optional<unsigned> scatterInPlaceInput(func::FuncOp fn, FusionGroupOp group) {
  Block &body = group.getBody().front();
  // The mark is this pass's decision: one written into the input IR (a hand-written graph)
  // would make the kernel skip the copy into a fresh result buffer.
  body.walk([](ScatterNDOp sc) { sc->removeAttr(kScatterInPlaceAttrName); });
  // (The group's other ops compute the updates and never read data: dataArg.hasOneUse.)
  if (group->getNumResults() != 1)
    return std::nullopt;
  auto sc = dyn_cast_or_null<ScatterNDOp>(scatterOfGroup(group));
  auto dataArg = sc ? dyn_cast<BlockArgument>(sc.getData()) : BlockArgument();
  if (!dataArg || dataArg.getOwner() != &body || !dataArg.hasOneUse() ||
      sc.getResult() != body.getTerminator()->getOperand(0))
    return std::nullopt;
  unsigned i = dataArg.getArgNumber();
  auto input = dyn_cast<BlockArgument>(group.getInputs()[i]);
  if (!input || input.getOwner() != &fn.getBody().front() || !input.hasOneUse() ||
      input.getType() != group.getResult(0).getType())
    return std::nullopt;
  sc->setAttr(kScatterInPlaceAttrName, UnitAttr::get(sc.getContext()));
  return i;
}

/// The kernels of one shape bucket of a group (tile.matmul_buckets): launched only at the
/// symbol's values in `range` (array<i64: symbol, lo, hi>; null: at every value).
struct Variant {
  GroupKernels kernels;
  DenseI64ArrayAttr range;
};

/// `group`'s kernels: one set, or with tile.matmul_buckets one set per bucket, each built from
/// a copy of the group with the bucket's tile config (at the bound's shapes) and named NAME_uptoHI
/// but the last, which keeps NAME (aicc-run --bisect finds a group's result after the launch
/// of its name); an attention's shape buckets (attentionShapeBuckets) likewise, each built
/// for its bucket's most queries.
FailureOr<SmallVector<Variant>> buildVariants(OpBuilder &kb, FusionGroupOp group, StringRef name,
                                              const TemplateOptions &options,
                                              int64_t shapeBuckets) {
  SmallVector<Variant> out;
  Builder ab(group.getContext());
  auto buckets = group->getAttrOfType<ArrayAttr>(tile::kMatmulBucketsAttrName);
  if (!buckets) {
    SmallVector<AttentionShapeBucket> att = attentionShapeBuckets(group, options, shapeBuckets);
    for (auto [i, k] : llvm::enumerate(att)) {
      TemplateOptions o = options;
      o.attentionRunQueriesMax = k.maxQueries;
      bool last = i + 1 == att.size();
      std::string kname = last ? name.str() : (name + "_upto" + Twine(k.hi)).str();
      auto kernels = buildKernelsForGroup(kb, group, kname, o);
      if (failed(kernels))
        return failure();
      out.push_back({std::move(*kernels), ab.getDenseI64ArrayAttr({k.symbol, k.lo, k.hi})});
    }
    if (!att.empty())
      return out;
    auto k = buildKernelsForGroup(kb, group, name, options);
    if (failed(k))
      return failure();
    out.push_back({std::move(*k), {}});
    return out;
  }
  // The dialect verified the list (one symbol, contiguous ascending ranges); it must cover
  // the range of the symbol the group's matmul / conv follows.
  DenseI64ArrayAttr sd = groupAnchorSymDim(group);
  auto entry = [&](unsigned i, StringRef key) {
    return cast<IntegerAttr>(cast<DictionaryAttr>(buckets[i]).get(key)).getInt();
  };
  if (!sd || sd.size() != 5 || entry(0, "symbol") != sd[1] || entry(0, "lo") != sd[3] ||
      entry(buckets.size() - 1, "hi") != sd[4])
    return group.emitError("convert-graph-to-tile: ")
               << tile::kMatmulBucketsAttrName
               << " must cover the values [min, max] of the symbol its matmul or conv follows ("
               << kAnchorSymDimAttrName << " = array<i64: axis, symbol, factor, min, max>"
               << (sd ? "" : ", which no op of the group carries") << ")",
           failure();
  for (unsigned i = 0; i < buckets.size(); ++i) {
    auto d = cast<DictionaryAttr>(buckets[i]);
    OpBuilder cb(group);
    auto copy = cast<FusionGroupOp>(cb.clone(*group));
    copy->removeAttr(tile::kMatmulBucketsAttrName);
    copy->setAttr(tile::kMatmulConfigAttrName, d.get("config"));
    bool last = i + 1 == buckets.size();
    std::string kname = last ? name.str() : (name + "_upto" + Twine(entry(i, "hi"))).str();
    auto k = buildKernelsForGroup(kb, copy, kname, options);
    copy.erase();
    if (failed(k))
      return failure();
    out.push_back({std::move(*k),
                   ab.getDenseI64ArrayAttr({entry(i, "symbol"), entry(i, "lo"), entry(i, "hi")})});
  }
  return out;
}

struct ConvertGraphToTilePass
    : public aicc::impl::ConvertGraphToTileBase<ConvertGraphToTilePass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(aicc::checkConvAlgorithm(module, getArgument(), convAlgorithm)))
      return signalPassFailure();
    // The chips: the options, else the module's aicc.target / aicc.hardware
    // (include/aicc/Target/TargetAttr.h).
    const aicc::ChipInfo *targetRow =
        aicc::resolveChip(module, aicc::ChipRole::Target, target, "cpu", getArgument());
    const aicc::ChipInfo *hardwareRow =
        aicc::resolveChip(module, aicc::ChipRole::Hardware, hardware, "h200", getArgument());
    if (!targetRow || !hardwareRow)
      return signalPassFailure();
    SmallVector<func::FuncOp> graphFuncs;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(tile::kScheduleAttrName))
        graphFuncs.push_back(fn);
    if (graphFuncs.empty())
      return;
    for (func::FuncOp fn : graphFuncs)
      if (failed(checkGraphFunction(fn)))
        return signalPassFailure();
    if (Operation *clash = SymbolTable::lookupSymbolIn(module, kKernelModuleName)) {
      clash->emitError("convert-graph-to-tile: the symbol @")
          << kKernelModuleName << " is taken; it names the kernels module this pass creates";
      return signalPassFailure();
    }

    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto kernels = ModuleOp::create(mb, module.getLoc(), StringRef(kKernelModuleName));
    OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
    SymbolTable moduleSymbols(module);
    unsigned kernelCount = 0, constCount = 0;

    for (func::FuncOp fn : graphFuncs) {
      // New host function over memrefs.
      SmallVector<Type> argTypes, resTypes;
      for (Type t : fn.getArgumentTypes())
        argTypes.push_back(toMemRef(t));
      for (Type t : fn.getResultTypes())
        resTypes.push_back(toMemRef(t));
      OpBuilder hb(fn);
      auto host = func::FuncOp::create(hb, fn.getLoc(), fn.getName(),
                                       FunctionType::get(ctx, argTypes, resTypes));
      host.setArgAttrsAttr(fn.getArgAttrsAttr());
      host.setResAttrsAttr(fn.getResAttrsAttr());
      Block *entry = host.addEntryBlock();
      OpBuilder b = OpBuilder::atBlockEnd(entry);
      IRMapping map;
      for (auto [a, na] : llvm::zip(fn.getArguments(), entry->getArguments()))
        map.map(a, na);

      for (Operation &op : fn.getBody().front()) {
        Location loc = op.getLoc();
        if (auto c = dyn_cast<ConstantOp>(op)) {
          auto type = toMemRef(c.getType());
          std::string name = "__constant_" + std::to_string(constCount++);
          OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
          auto global = memref::GlobalOp::create(
              gb, loc, name, gb.getStringAttr("private"), type, c.getValue(),
              /*constant=*/true, /*alignment=*/gb.getI64IntegerAttr(64));
          // Renamed if the module already has a symbol of that name.
          StringAttr symbol = moduleSymbols.insert(global);
          map.map(c.getResult(), memref::GetGlobalOp::create(b, loc, type, symbol.getValue()));
          continue;
        }
        if (auto r = dyn_cast<ReshapeOp>(op)) {
          Value in = map.lookupOrNull(r.getInput());
          if (!in) {
            r.emitError("convert-graph-to-tile: the input of this reshape is not a function "
                        "argument, constant, reshape or fusion group result");
            return signalPassFailure();
          }
          map.map(r.getResult(), reshapeView(b, loc, in, toMemRef(r.getType())));
          continue;
        }
        if (auto g = dyn_cast<FusionGroupOp>(op)) {
          // A group whose results have no elements (a [0, 8] matmul, say) computes nothing:
          // its results are empty buffers and there is no kernel (the templates' block loads
          // and tensor maps need every dim >= 1; found by aicc-fuzz-onnx).
          if (llvm::all_of(g.getResultTypes(), [](Type t) {
                return cast<RankedTensorType>(t).getNumElements() == 0;
              })) {
            for (Value res : g.getResults())
              map.map(res, memref::AllocOp::create(b, loc, toMemRef(res.getType()),
                                                   b.getI64IntegerAttr(64)));
            continue;
          }
          std::string name = "fused_" + std::to_string(kernelCount++) + "_" + g.getKind().str();
          // A scatter_nd into a model input that nothing else reads updates it in place.
          std::optional<unsigned> inPlaceInput = scatterInPlaceInput(fn, g);
          TemplateOptions topts;
          topts.target = targetRow->name.str();
          topts.hardware = hardwareRow->name.str();
          topts.allowTF32 = allowTF32;
          topts.convAlgorithm = convAlgorithm;
          topts.tmaStore = tmaStore;
          topts.attentionBlockM = attentionBlockM;
          topts.attentionKVSplits = attentionKVSplits;
          // One kernel set per shape bucket (tile.matmul_buckets, an attention's), else the
          // group's own.
          auto variants = buildVariants(kb, g, name, topts, shapeBuckets);
          if (failed(variants))
            return signalPassFailure();
          SmallVector<Value> ins, results;
          for (Value in : g.getInputs())
            ins.push_back(map.lookupOrNull(in));
          if (llvm::is_contained(ins, Value())) {
            g.emitError("convert-graph-to-tile: an input of this fusion group is not a "
                        "function argument, constant, reshape or fusion group result");
            return signalPassFailure();
          }
          for (Value res : g.getResults()) {
            Value buf = inPlaceInput ? ins[*inPlaceInput]
                                     : memref::AllocOp::create(b, loc, toMemRef(res.getType()),
                                                               b.getI64IntegerAttr(64));
            map.map(res, buf);
            results.push_back(buf);
          }
          for (Variant &v : *variants) {
            // The variant's temporaries (a split-K matmul's partial products).
            SmallVector<Value> temps;
            for (RankedTensorType t : v.kernels.temps)
              temps.push_back(
                  memref::AllocOp::create(b, loc, toMemRef(t), b.getI64IntegerAttr(64)));
            for (GroupKernels::Launch &l : v.kernels.launches) {
              SmallVector<Value> bufs;
              for (GroupKernels::Buffer buf : l.buffers)
                bufs.push_back(buf.kind == GroupKernels::Buffer::Input    ? ins[buf.index]
                               : buf.kind == GroupKernels::Buffer::Result ? results[buf.index]
                                                                          : temps[buf.index]);
              auto ref = SymbolRefAttr::get(ctx, kKernelModuleName,
                                            {FlatSymbolRefAttr::get(l.kernel.getSymNameAttr())});
              auto launch = tile::LaunchOp::create(b, loc, ref, bufs);
              if (v.range)
                launch->setAttr(tile::kSymRangeAttrName, v.range);
            }
          }
          continue;
        }
        if (auto ret = dyn_cast<func::ReturnOp>(op)) {
          SmallVector<Value> vals;
          for (Value v : ret.getOperands())
            vals.push_back(map.lookupOrNull(v));
          if (llvm::is_contained(vals, Value())) {
            ret.emitError("convert-graph-to-tile: a returned value is not a function "
                          "argument, constant, reshape or fusion group result");
            return signalPassFailure();
          }
          func::ReturnOp::create(b, loc, vals);
          continue;
        }
        op.emitError("convert-graph-to-tile: ")
            << op.getName()
            << " is outside any fusion group; run graph-fuse (aicc-fusion-pipeline) first";
        return signalPassFailure();
      }
      fn.erase();
    }
  }
};
} // namespace
