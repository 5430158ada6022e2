//===- SymbolSamples.cpp - bounded symbolic dims: the model at other values ---===//
//
// aicc-compile --dim NAME=MIN..MAX (docs/symbolic-shapes.md). The model is compiled at MAX
// and the code must be right for every value in the range. The first of the two steps that
// prove it (the second, checkSymbolicDims, is SymbolicDims.cpp):
//
// compareSymbolSample: the module at MAX against the module with one symbol at another
// value v, op by op (the same ops, operands, attributes and constants; tensor types equal
// except dims that are FACTOR x the symbol at both values). A constant or attribute that
// differs was computed from the symbol's size (Shape / Size of a symbolic input used as
// data): refused. Run on the imported modules at two other values (taint: importSymbolic),
// then on the fused modules at MAX and MAX - 1 (proveSymbolicDims), which records every
// value's symbolic dim.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Target/TargetAttr.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::detail;

namespace {

/// Raw bytes of a constant's elements (dense or resource), or none.
std::optional<ArrayRef<char>> elementBytes(Attribute a) {
  if (auto d = dyn_cast<DenseElementsAttr>(a))
    return d.getRawData();
  if (auto r = dyn_cast<DenseResourceElementsAttr>(a))
    if (AsmResourceBlob *blob = r.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

bool sameAttribute(Attribute a, Attribute b) {
  if (a == b)
    return true;
  auto ea = dyn_cast_or_null<ElementsAttr>(a), eb = dyn_cast_or_null<ElementsAttr>(b);
  if (!ea || !eb || ea.getType() != eb.getType())
    return false;
  // Resource blobs of two imports have different handles: compare their bytes. A splat
  // DenseElementsAttr holds one element, so dense vs dense is already decided by `==`.
  if (isa<DenseElementsAttr>(a) && isa<DenseElementsAttr>(b))
    return false;
  auto ba = elementBytes(a), bb = elementBytes(b);
  return ba && bb && *ba == *bb;
}

std::string shapeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

struct SampleComparer {
  int symbol = 0;
  ArrayRef<SymbolRange> symbols;
  int64_t value = 0;
  SymDimMap *dims = nullptr;
  DenseMap<Value, Value> sampleToMax;
  /// Ops whose results reach a function result (with everything nested in them).
  DenseSet<Operation *> liveA, liveB;

  static DenseSet<Operation *> liveOpsOf(ModuleOp m) {
    DenseSet<Operation *> live;
    SmallVector<Operation *> work;
    m.walk([&](Operation *op) {
      if (isa<func::ReturnOp>(op))
        work.push_back(op);
    });
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!live.insert(op).second)
        continue;
      op->walk([&](Operation *inner) {
        if (inner != op)
          work.push_back(inner);
      });
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          work.push_back(def);
      if (Operation *parent = op->getParentOp(); parent && !isa<func::FuncOp, ModuleOp>(parent))
        work.push_back(parent);
    }
    return live;
  }

  const SymbolRange &range() const { return symbols[symbol]; }

  InFlightDiagnostic error(Location loc) {
    return emitError(loc) << "symbolic dim '" << range().name << "' (--dim " << range().name << "="
                          << range().min << ".." << range().max << "): ";
  }

  InFlightDiagnostic mismatch(Operation &a, StringRef what) {
    return error(a.getLoc()) << "the model's " << a.getName() << " " << what << " at "
                             << range().name << " = " << range().max << " and at " << range().name
                             << " = " << value
                             << " (the compiled graph must be one graph for every value)";
  }

  LogicalResult compareType(Value atMax, Value sample, Location loc, StringRef what) {
    Type a = atMax.getType(), b = sample.getType();
    if (a == b)
      return success();
    auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getRank() != tb.getRank() || ta.getElementType() != tb.getElementType())
      return error(loc) << what << " is " << a << " at " << range().name << " = " << range().max
                        << " but " << b << " at " << range().name << " = " << value;
    for (int64_t d = 0; d < ta.getRank(); ++d) {
      int64_t x = ta.getDimSize(d), y = tb.getDimSize(d);
      if (x == y)
        continue;
      int64_t f = x / range().max;
      if (x % range().max != 0 || f < 1 || f * value != y)
        return error(loc) << "dim #" << d << " of " << what << " is " << x << " at " << range().name
                          << " = " << range().max << " and " << y << " at " << range().name << " = "
                          << value << ": not a multiple of " << range().name
                          << " (a symbolic dim must be FACTOR x the symbol in every tensor)";
      if (!dims)
        continue;
      SymDim sd{(int)d, symbol, f};
      auto [it, fresh] = dims->try_emplace(atMax, sd);
      if (fresh)
        continue;
      if (it->second.symbol != symbol)
        return error(loc) << what << " " << shapeText(a) << " carries two symbols ('"
                          << symbols[it->second.symbol].name << "' in dim #" << it->second.axis
                          << ", '" << range().name << "' in dim #" << d
                          << "): one symbol per tensor is supported";
      if (it->second.axis != d)
        return error(loc) << what << " " << shapeText(a) << " carries the symbol in dims #"
                          << it->second.axis << " and #" << d
                          << ": one symbolic dim per tensor is supported";
    }
    return success();
  }

  /// A constant built from the symbol's value whose elements at v are those of the bound's
  /// constant at the same indices (the sub-box the sample's shape cuts from it): a table
  /// sliced to the sequence length, positions 0 .. v - 1, a causal mask tril[:v, :v]. The
  /// compiled code reads the bound's constant at the indices a run at v reads.
  bool subBoxConsistent(Operation &a, Operation &b) {
    auto ta = dyn_cast<RankedTensorType>(a.getResult(0).getType());
    auto tb = dyn_cast<RankedTensorType>(b.getResult(0).getType());
    if (!ta || !tb || ta.getRank() != tb.getRank() || ta.getElementType() != tb.getElementType())
      return false;
    for (int64_t d = 0; d < ta.getRank(); ++d)
      if (tb.getDimSize(d) > ta.getDimSize(d))
        return false;
    Attribute va = a.getAttr("value"), vb = b.getAttr("value");
    auto da = dyn_cast_or_null<DenseElementsAttr>(va), db = dyn_cast_or_null<DenseElementsAttr>(vb);
    if (da && db && da.isSplat() && db.isSplat())
      return da.getSplatValue<Attribute>() == db.getSplatValue<Attribute>();
    int64_t rank = ta.getRank(), n = tb.getNumElements();
    SmallVector<int64_t> strideA(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      strideA[d] = strideA[d + 1] * ta.getDimSize(d + 1);
    // Offset in `a` of the sample's element k (row-major over tb's shape).
    auto offsetInA = [&](int64_t k) {
      int64_t off = 0;
      for (int64_t d = rank - 1; d >= 0; --d) {
        off += (k % tb.getDimSize(d)) * strideA[d];
        k /= tb.getDimSize(d);
      }
      return off;
    };
    Type et = ta.getElementType();
    unsigned width = et.isIntOrFloat() ? et.getIntOrFloatBitWidth() : 0;
    auto ba = elementBytes(va), bb = elementBytes(vb);
    bool raw =
        width >= 8 && width % 8 == 0 && ba && bb && !(da && da.isSplat()) && !(db && db.isSplat());
    if (raw) {
      size_t es = width / 8;
      if ((int64_t)bb->size() != n * (int64_t)es ||
          (int64_t)ba->size() != ta.getNumElements() * (int64_t)es)
        return false;
      for (int64_t k = 0; k < n; ++k)
        if (ba->slice(offsetInA(k) * es, es) != bb->slice(k * es, es))
          return false;
      return true;
    }
    if (!da || !db)
      return false;
    auto xa = da.getValues<Attribute>(), xb = db.getValues<Attribute>();
    for (int64_t k = 0; k < n; ++k)
      if (xa[offsetInA(k)] != xb[k])
        return false;
    return true;
  }

  LogicalResult compareRegion(Region &ra, Region &rb, Operation &parent) {
    if (ra.getBlocks().size() != rb.getBlocks().size())
      return mismatch(parent, "has different regions");
    for (auto [ba, bb] : llvm::zip(ra, rb)) {
      if (ba.getNumArguments() != bb.getNumArguments())
        return mismatch(parent, "has different block arguments");
      for (auto [i, pair] : llvm::enumerate(llvm::zip(ba.getArguments(), bb.getArguments()))) {
        auto [x, y] = pair;
        if (failed(compareType(x, y, parent.getLoc(),
                               isa<func::FuncOp>(parent)
                                   ? ("argument #" + std::to_string(i) + " of @" +
                                      cast<func::FuncOp>(parent).getName().str())
                                   : ("block argument #" + std::to_string(i)))))
          return failure();
        sampleToMax[y] = x;
      }
      // Only ops whose results reach the function's results: the importer leaves the graph
      // ops of folded shape computations (Shape -> Gather -> Concat -> Reshape's shape) dead
      // until the graph pipeline's cleanup removes them.
      auto liveOps = [&](Block &blk, const DenseSet<Operation *> &live) {
        SmallVector<Operation *> ops;
        for (Operation &op : blk)
          if (live.contains(&op))
            ops.push_back(&op);
        return ops;
      };
      SmallVector<Operation *> oa = liveOps(ba, liveA), ob = liveOps(bb, liveB);
      for (auto [x, y] : llvm::zip(oa, ob))
        if (failed(compareOp(*x, *y)))
          return failure();
      if (oa.size() != ob.size()) {
        // One graph has more ops at the end: name the first extra one.
        Operation &extra = oa.size() > ob.size() ? *oa[ob.size()] : *oa.back();
        return mismatch(extra, oa.size() > ob.size() ? "is there only at the bound"
                                                     : "is followed by more ops");
      }
    }
    return success();
  }

  LogicalResult compareOp(Operation &a, Operation &b) {
    if (a.getName() != b.getName())
      return error(a.getLoc()) << "where the graph at " << range().name << " = " << range().max
                               << " has " << a.getName() << ", the graph at " << range().name
                               << " = " << value << " has " << b.getName()
                               << " (an op folded or rewritten at one value only, e.g. for a "
                                  "dim of size 1; the compiled graph must be one graph for "
                                  "every value)";
    if (a.getNumOperands() != b.getNumOperands() || a.getNumResults() != b.getNumResults() ||
        a.getNumRegions() != b.getNumRegions())
      return mismatch(a, "has different operands or results");
    for (auto [x, y] : llvm::zip(a.getOperands(), b.getOperands())) {
      auto it = sampleToMax.find(y);
      if (it == sampleToMax.end() || it->second != x)
        return mismatch(a, "reads different values");
    }
    DictionaryAttr da = a.getAttrDictionary(), db = b.getAttrDictionary();
    for (NamedAttribute na : da) {
      // graph-fuse's record of the rules that kept groups apart is a note, not code.
      if (na.getName() == "refusals")
        continue;
      Attribute other = db.get(na.getName());
      if (other && sameAttribute(na.getValue(), other))
        continue;
      if (isa<graph::ConstantOp>(a) && subBoxConsistent(a, b))
        continue;
      if (isa<graph::ConstantOp>(a))
        return error(a.getLoc())
               << "a constant differs between " << range().name << " = " << range().max << " and "
               << range().name << " = " << value
               << " (and at the smaller value it is not the bound's elements at the same "
                  "indices): it depends on the symbol's value (the op's own decomposition along "
                  "the symbolic dim, or Shape / Size of a symbolic input used as data), and the "
                  "compiled code would hold it at "
               << range().max << " for every run";
      return mismatch(a, ("has a different '" + na.getName().str() + "' attribute").c_str());
    }
    for (NamedAttribute nb : db)
      if (nb.getName() != "refusals" && !da.get(nb.getName()))
        return mismatch(a, ("has a different '" + nb.getName().str() + "' attribute").c_str());
    for (auto [i, pair] : llvm::enumerate(llvm::zip(a.getResults(), b.getResults()))) {
      auto [x, y] = pair;
      if (failed(compareType(x, y, a.getLoc(),
                             "result #" + std::to_string(i) + " of " +
                                 a.getName().getStringRef().str())))
        return failure();
      sampleToMax[y] = x;
    }
    for (auto [ra, rb] : llvm::zip(a.getRegions(), b.getRegions()))
      if (failed(compareRegion(ra, rb, a)))
        return failure();
    return success();
  }
};

} // namespace

LogicalResult aicc::detail::compareSymbolSample(ModuleOp atMax, ModuleOp sample, int symbol,
                                                ArrayRef<SymbolRange> symbols, int64_t value,
                                                SymDimMap *dims) {
  SampleComparer c;
  c.symbol = symbol;
  c.symbols = symbols;
  c.value = value;
  c.dims = dims;
  c.liveA = SampleComparer::liveOpsOf(atMax);
  c.liveB = SampleComparer::liveOpsOf(sample);
  auto funcsOf = [](ModuleOp m) {
    SmallVector<func::FuncOp> fns;
    for (auto fn : m.getOps<func::FuncOp>())
      if (!fn.isExternal())
        fns.push_back(fn);
    return fns;
  };
  auto fa = funcsOf(atMax), fb = funcsOf(sample);
  if (fa.size() != fb.size())
    return c.error(atMax.getLoc()) << "the model has a different number of functions at "
                                   << symbols[symbol].name << " = " << value;
  for (auto [a, b] : llvm::zip(fa, fb))
    if (failed(c.compareRegion(a.getBody(), b.getBody(), *a)))
      return failure();
  return success();
}

/// Kernels that read the run's symbol values: each graph.attention over a symbolic sequence
/// gets kRunLengthsAttrName ([q symbol, q factor, kv symbol, kv factor], -1 where static),
/// each graph.scatter_nd of a symbolic number of tuples kRunTuplesAttrName ([axis, symbol,
/// factor]), and their fusion group one more input, a constant i32 [symbols] of the maxima
/// marked kSymbolValuesInputAttrName, which the template reads as the run's symbol values
/// (an entry that is a fusion group gets the input and no op attribute)
/// (the bundle gives that parameter the session-written `symvalues` buffer).

SmallVector<int64_t> aicc::detail::symbolSamples(const SymbolRange &s) {
  SmallVector<int64_t> v{s.max - 1};
  for (int64_t x : {s.min + (s.max - s.min) / 2, s.min})
    if (!llvm::is_contained(v, x) && x != s.max)
      v.push_back(x);
  return v;
}

FailureOr<OwningOpRef<ModuleOp>> aicc::detail::importSymbolic(ArrayRef<SymbolRange> symbols,
                                                              std::vector<ShapeLog> &logs,
                                                              SymbolImport importAt, Location loc) {
  auto sampleFailed = [&](const SymbolRange &sym, int64_t v) {
    return emitError(loc) << "the error above is at " << sym.name << " = " << v << ": --dim "
                          << sym.name << "=" << sym.min << ".." << sym.max
                          << " imports the model at several values of the range to find the "
                             "dims that follow the symbol, and it must import at each",
           failure();
  };
  // max - 1 of each symbol first: its Shape / Size reads mark the values computed from the
  // symbolic sizes in the import at max.
  SmallVector<OwningOpRef<ModuleOp>> below;
  for (auto [k, sym] : llvm::enumerate(symbols)) {
    below.push_back(importAt(k, symbolSamples(sym).front(), &logs[k]));
    if (!below.back())
      return sampleFailed(sym, symbolSamples(sym).front());
  }
  OwningOpRef<ModuleOp> module = importAt(-1, 0, nullptr);
  if (!module)
    return failure();
  for (auto [k, sym] : llvm::enumerate(symbols))
    for (int64_t v : symbolSamples(sym)) {
      OwningOpRef<ModuleOp> sample =
          v == symbolSamples(sym).front() ? std::move(below[k]) : importAt(k, v, nullptr);
      if (!sample)
        return sampleFailed(sym, v);
      if (failed(compareSymbolSample(*module, *sample, k, symbols, v, nullptr)))
        return failure();
    }
  return module;
}

LogicalResult
aicc::detail::proveSymbolicDims(ModuleOp fused, ArrayRef<SymbolRange> symbols,
                                SymbolImport importAt,
                                function_ref<LogicalResult(ModuleOp)> graphAndFusion) {
  SymDimMap dims;
  for (auto [k, sym] : llvm::enumerate(symbols)) {
    int64_t v = symbolSamples(sym).front();
    OwningOpRef<ModuleOp> sample = importAt(k, v, nullptr);
    if (!sample || failed(graphAndFusion(*sample)))
      return emitError(fused.getLoc())
                 << "compiling the model at " << sym.name << " = " << v << " failed (--dim "
                 << sym.name << "=" << sym.min << ".." << sym.max
                 << ": aicc-compile compiles the graph at max - 1 too, to find the dims that "
                    "follow the symbol)",
             failure();
    if (failed(compareSymbolSample(fused, *sample, k, symbols, v, &dims)))
      return failure();
  }
  return checkSymbolicDims(fused, symbols, dims);
}
