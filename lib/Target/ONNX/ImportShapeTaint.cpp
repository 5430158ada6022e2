//===- ImportShapeTaint.cpp - values computed from symbolic dims -----------===//
//
// Bounded symbolic dims (aicc-compile --dim NAME=MIN..MAX, docs/symbolic-shapes.md) compile
// the model at the symbol's max. A value the model computes from a symbolic dim's size
// (Shape, Size, and the arithmetic folded over them) is then the bound's, in every run. That
// is right only where the value is a shape the compiled graph keeps symbolic: the importer
// folds it into a result type, whose dims the compiler compares at several values and
// requires to be FACTOR x the symbol. So:
// - Shape / Size mark the elements of dims that differ in the reference imports (the same
//   model at other values of the symbols) kShapeSize.
// - Arithmetic keeps a multiple a multiple (Gather / Slice / Concat / Reshape of shape
//   vectors, +, -, x by an untainted value, integer casts: kShapeLinear, kShapeSize for a
//   sum of sizes); anything else (Min, Max, comparisons, Div, Mod ...) makes kShapeOther,
//   except the exporters' Expand idiom Where(Equal(shape, -1), 1, shape): a size is never
//   equal to a constant below 1, and Where with an untainted condition takes each element's
//   taint from the branch it picks.
// - A node that reads a kShapeOther value and defines a value that is not a constant (a
//   Pad by Min(batch, 4), x * (batch > 3)) is refused: its result would be the bound's.
// - After the last node, a tainted constant that the graph's results depend on is refused:
//   the graph reads it as data (x / batch). Range(0, n) and ConstantOfShape(shape) are not
//   tainted when only their length is (element i of a Range is i whatever n is); Expand and
//   Tile take their data's taint.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

namespace {
/// Largest taint of `t` (kShapeFree when empty).
uint8_t maxTaint(ArrayRef<uint8_t> t) {
  uint8_t m = 0;
  for (uint8_t x : t)
    m = std::max(m, x);
  return m;
}

/// Elements of a value whose taint is kept per element.
constexpr int64_t kMaxTaintElements = 64;
} // namespace

SmallVector<uint8_t> Importer::shapeDimTaint(llvm::StringRef inName, RankedTensorType in) {
  ArrayRef<int64_t> dims = in.getShape();
  if (opts.shapeLog)
    (*opts.shapeLog)[inName.str()] = std::vector<int64_t>(dims.begin(), dims.end());
  SmallVector<uint8_t> taint(dims.size(), kShapeFree);
  for (const auto *ref : opts.shapeReferences) {
    auto it = ref->find(inName.str());
    for (size_t d = 0; d < dims.size(); ++d)
      if (it == ref->end() || it->second.size() != dims.size())
        taint[d] = kShapeOther; // the graph differs there: the comparison refuses it anyway
      else if (it->second[d] != dims[d])
        taint[d] = std::max<uint8_t>(taint[d], kShapeSize);
  }
  return taint;
}

ArrayRef<uint8_t> Importer::inputTaint(const onnx::NodeProto &node, int i) const {
  if (i >= node.input_size() || node.input(i).empty())
    return {};
  auto it = shapeTaint.find(node.input(i));
  return it == shapeTaint.end() ? ArrayRef<uint8_t>() : ArrayRef<uint8_t>(it->second);
}

SmallVector<uint8_t> Importer::outputTaint(const NodeCtx &nc) {
  const onnx::NodeProto &node = nc.node;
  llvm::StringRef type = node.op_type();
  auto taintOf = [&](int i) { return inputTaint(node, i); };
  auto typeOf = [&](llvm::StringRef name) -> RankedTensorType {
    Value v = values.lookup(name);
    return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  };
  RankedTensorType outType = node.output_size() ? typeOf(node.output(0)) : RankedTensorType();
  int64_t n = outType && outType.hasStaticShape() ? outType.getNumElements() : -1;
  bool i64Out = outType && outType.getElementType().isInteger(64);
  ArrayRef<uint8_t> x = taintOf(0);
  uint8_t xMax = maxTaint(x), others = 0, all = xMax;
  bool anyData = xMax == kShapeData;
  for (int i = 1; i < node.input_size(); ++i) {
    others = std::max(others, maxTaint(taintOf(i)));
    all = std::max(all, maxTaint(taintOf(i)));
    anyData |= llvm::is_contained(taintOf(i), (uint8_t)kShapeData);
  }
  bool anyShape = false; // a size or linear element among the inputs
  for (int i = 0; i < node.input_size(); ++i)
    for (uint8_t t : taintOf(i))
      anyShape |= t == kShapeSize || t == kShapeLinear;
  auto whole = [](uint8_t t) { return SmallVector<uint8_t>(1, t); };
  const SmallVector<uint8_t> other = whole(kShapeOther);
  if (all == kShapeOther)
    return other;
  // Count-dependent data only (index-wise values), no size or linear element.
  const bool dataOnly = anyData && !anyShape;

  // Index-preserving moves: the elements in order. A tainted axes / shape operand makes the
  // layout a function of the symbol, except for data of the symbol's count.
  if (type == "Unsqueeze" || type == "Squeeze" || type == "Reshape" || type == "Identity" ||
      type == "Flatten") {
    // Data of the symbol's count reshaped to a tainted shape keeps its order ([n] -> [n, 1]).
    bool xData = xMax == kShapeData && !llvm::is_contained(x, (uint8_t)kShapeSize) &&
                 !llvm::is_contained(x, (uint8_t)kShapeLinear);
    if (others != kShapeFree && !(xData && others <= kShapeLinear))
      return other;
    return SmallVector<uint8_t>(x.begin(), x.end());
  }
  if (type == "Cast") {
    // Sizes fit every integer type; sums of them only 64 bits; a float or bool of them is
    // data (refused when read as data).
    SmallVector<uint8_t> r;
    for (uint8_t t : x)
      r.push_back(t == kShapeFree || t == kShapeData                  ? t
                  : !outType || !outType.getElementType().isInteger() ? (uint8_t)kShapeOther
                  : t == kShapeSize || i64Out                         ? t
                                                                      : (uint8_t)kShapeOther);
    return r;
  }
  // Rows of untainted data picked by data of the symbol's count (a position table read at
  // Range(0, seq): HF GPT-2's wpe(position_ids)): element i does not depend on the value.
  if (type == "Gather" && xMax == kShapeFree && node.input_size() == 2 && dataOnly)
    return whole(kShapeData);
  // Elements picked from a 1-D shape vector by constant indices.
  if (type == "Gather") {
    RankedTensorType xt = typeOf(node.input(0));
    if (others != kShapeFree || xMax == kShapeData || !xt || xt.getRank() != 1 ||
        (int64_t)x.size() != xt.getNumElements())
      return xMax == kShapeData || others != kShapeFree ? other : whole(xMax);
    auto idx = intConstant(values.lookup(node.input(1)));
    if (!idx)
      return other;
    SmallVector<uint8_t> r;
    for (int64_t k : *idx) {
      int64_t at = k < 0 ? k + (int64_t)x.size() : k;
      r.push_back(at >= 0 && at < (int64_t)x.size() ? x[at] : (uint8_t)kShapeOther);
    }
    return r;
  }
  if (type == "Concat") {
    if (anyData)
      return other; // the positions after a symbol-length part move with it
    SmallVector<uint8_t> r;
    for (int i = 0; i < node.input_size(); ++i) {
      ArrayRef<uint8_t> t = taintOf(i);
      RankedTensorType it = typeOf(node.input(i));
      if (!it || it.getRank() != 1)
        return whole(all);
      if ((int64_t)t.size() == it.getNumElements())
        r.append(t.begin(), t.end());
      else
        r.append(it.getNumElements(), maxTaint(t));
    }
    return (int64_t)r.size() == n ? r : whole(all);
  }
  // Data whose count follows the symbol, its values not: Range(start, n, delta) (element i
  // is start + i * delta), ConstantOfShape, Expand / Tile of untainted data to a tainted
  // shape, a Slice of untainted data cut at a tainted end.
  if (type == "Range")
    return maxTaint(taintOf(0)) == kShapeFree && maxTaint(taintOf(2)) == kShapeFree &&
                   maxTaint(taintOf(1)) <= kShapeLinear
               ? whole(kShapeData)
               : other;
  if (type == "ConstantOfShape")
    return xMax <= kShapeLinear ? whole(kShapeData) : other;
  if (type == "Expand" || type == "Tile")
    return xMax == kShapeFree && others <= kShapeLinear ? whole(kShapeData) : other;
  if (type == "Slice") {
    bool boundsFree = maxTaint(taintOf(1)) == kShapeFree && maxTaint(taintOf(3)) == kShapeFree &&
                      maxTaint(taintOf(4)) == kShapeFree;
    // Element i is data[start + i * step] with untainted start and step: cut to a tainted
    // end, untainted data (or data of the symbol's count) stays index-wise.
    if ((xMax == kShapeFree || xMax == kShapeData) && boundsFree &&
        maxTaint(taintOf(2)) <= kShapeLinear && (xMax == kShapeData || others != kShapeFree))
      return whole(kShapeData);
    if (others == kShapeFree && xMax != kShapeData)
      return whole(xMax == kShapeSize ? (uint8_t)kShapeLinear : xMax);
    return other;
  }
  // Integer arithmetic on sizes: sums, differences and multiples by untainted values stay
  // linear (64-bit only: narrower types wrap). A product of two tainted values is not.
  if (!anyData && (type == "Add" || type == "Sub" || type == "Neg" || type == "Mul")) {
    ArrayRef<uint8_t> y = taintOf(1);
    if (!i64Out || (type == "Mul" && xMax != kShapeFree && maxTaint(y) != kShapeFree))
      return other;
    auto lin = [](uint8_t a, uint8_t c) -> uint8_t {
      return a == kShapeFree && c == kShapeFree ? kShapeFree : kShapeLinear;
    };
    SmallVector<uint8_t> r;
    if (x.size() == y.size() && (int64_t)x.size() == n)
      for (size_t i = 0; i < x.size(); ++i)
        r.push_back(lin(x[i], y[i]));
    else if (y.empty() && (int64_t)x.size() == n)
      for (uint8_t a : x)
        r.push_back(lin(a, kShapeFree));
    else if (x.empty() && (int64_t)y.size() == n)
      for (uint8_t c : y)
        r.push_back(lin(kShapeFree, c));
    else
      r.push_back(kShapeLinear);
    return r;
  }
  // A size (at least 1 at every value) is never equal to a negative constant: the exporters'
  // Expand idiom Where(Equal(shape, -1), 1, shape).
  if (type == "Equal" && !anyData) {
    bool xSized = xMax == kShapeSize && maxTaint(taintOf(1)) == kShapeFree;
    bool ySized = maxTaint(taintOf(1)) == kShapeSize && xMax == kShapeFree;
    if (xSized || ySized) {
      auto c = intConstant(values.lookup(node.input(xSized ? 1 : 0)));
      if (c && llvm::all_of(*c, [](int64_t v) { return v < 0; }))
        return {};
    }
    return other;
  }
  // An untainted condition: each element takes the taint of the branch it picks.
  if (type == "Where" && xMax == kShapeFree && node.input_size() == 3 && !anyData) {
    auto cond = intConstant(values.lookup(node.input(0)));
    ArrayRef<uint8_t> a = taintOf(1), c = taintOf(2);
    if (!cond || (int64_t)cond->size() != n || (!a.empty() && (int64_t)a.size() != n) ||
        (!c.empty() && (int64_t)c.size() != n))
      return whole(std::max(maxTaint(a), maxTaint(c)));
    SmallVector<uint8_t> r;
    for (int64_t i = 0; i < n; ++i) {
      ArrayRef<uint8_t> src = (*cond)[i] ? a : c;
      r.push_back(src.empty() ? (uint8_t)kShapeFree : src[i]);
    }
    return r;
  }
  // Elementwise functions of count-dependent data stay index-wise.
  static const llvm::StringSet<> elementwise = {
      "Add",  "Sub",        "Mul",   "Div",     "Neg",         "Abs",
      "Sign", "Equal",      "Less",  "Greater", "LessOrEqual", "GreaterOrEqual",
      "Not",  "And",        "Or",    "Xor",     "Where",       "Cast",
      "Sqrt", "Reciprocal", "Floor", "Ceil",    "Round",       "Min",
      "Max",  "Mod",        "Pow",   "Relu",    "Clip",        "Exp",
      "Log",  "Sigmoid",    "Tanh"};
  if (dataOnly && elementwise.contains(type))
    return whole(kShapeData);
  return other;
}

LogicalResult Importer::propagateShapeTaint(const NodeCtx &nc) {
  if (opts.shapeReferences.empty() && !opts.shapeLog)
    return success();
  const onnx::NodeProto &node = nc.node;
  llvm::StringRef type = node.op_type();
  if (opts.shapeReferences.empty()) { // an import at a reference value: log only
    if ((type == "Shape" || type == "Size") && node.input_size() == 1)
      if (Value in = values.lookup(node.input(0)))
        if (auto t = dyn_cast<RankedTensorType>(in.getType()))
          (void)shapeDimTaint(node.input(0), t);
    return success();
  }
  auto taintOf = [&](int i) { return inputTaint(node, i); };
  auto numel = [&](llvm::StringRef name) -> int64_t {
    Value v = values.lookup(name);
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    return t && t.hasStaticShape() ? t.getNumElements() : -1;
  };
  uint8_t inMax = 0;
  for (int i = 0; i < node.input_size(); ++i)
    inMax = std::max(inMax, maxTaint(taintOf(i)));

  // The taint of output 0 (every other output: the largest input taint).
  SmallVector<uint8_t> out;
  if (type == "Shape" || type == "Size") {
    Value in = values.lookup(node.input(0));
    auto t = in ? dyn_cast<RankedTensorType>(in.getType()) : RankedTensorType();
    if (!t)
      return success();
    SmallVector<uint8_t> dims = shapeDimTaint(node.input(0), t);
    if (type == "Size") {
      int n = llvm::count_if(dims, [](uint8_t x) { return x != kShapeFree; });
      out.push_back(n == 0 ? kShapeFree : n == 1 ? maxTaint(dims) : (uint8_t)kShapeOther);
    } else {
      int64_t rank = t.getRank();
      auto attrInt = [&](const char *name, int64_t dflt) {
        auto it = nc.attrs.find(name);
        return it == nc.attrs.end() ? dflt : (int64_t)it->second->i();
      };
      int64_t s = attrInt("start", 0), e = attrInt("end", rank);
      s = std::clamp<int64_t>(s < 0 ? s + rank : s, 0, rank);
      e = std::clamp<int64_t>(e < 0 ? e + rank : e, 0, rank);
      for (int64_t d = s; d < e; ++d)
        out.push_back(dims[d]);
    }
  } else if (inMax == kShapeFree) {
    return success();
  } else {
    out = outputTaint(nc);
  }

  // Record each output's taint; a kShapeOther input reaching a value that is not a
  // constant (a graph op computing on it, or a type built from it) is refused.
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string &name = node.output(k);
    if (name.empty())
      continue;
    Value v = values.lookup(name);
    SmallVector<uint8_t> t = k == 0 ? out : SmallVector<uint8_t>(1, inMax);
    if (maxTaint(t) == kShapeFree)
      continue;
    // Where an input's kShapeOther came from (this node when none of its inputs had it).
    std::string origin;
    for (int i = 0; i < node.input_size() && origin.empty(); ++i)
      if (maxTaint(inputTaint(node, i)) == kShapeOther)
        origin = shapeOtherOrigin.lookup(node.input(i));
    auto cst = v ? v.getDefiningOp<graph::ConstantOp>() : graph::ConstantOp();
    if (!cst) {
      if (inMax == kShapeOther)
        return nodeError(nc)
               << "reads a value computed from the size of a symbolic dim as data, or through "
                  "an operation that does not keep it a multiple of the symbol (Min, Max, a "
                  "comparison, a division, a float cast ...)"
               << (origin.empty() ? std::string() : ", made so at " + origin)
               << ": the compiled graph would hold its value at the bound for every run "
                  "(docs/symbolic-shapes.md)";
      continue;
    }
    shapeTaint[name] = t;
    if (maxTaint(t) == kShapeOther)
      shapeOtherOrigin[name] =
          !origin.empty() ? origin : "node '" + nc.name + "' (" + node.op_type() + ")";
    // Data of the symbol's count is read where a run reads it (its elements do not depend
    // on the value); anything else is not data.
    bool notData = llvm::any_of(t, [](uint8_t x) { return x != kShapeFree && x != kShapeData; });
    taintedConstants.try_emplace(cst, nc.name, notData);
  }
  return success();
}

LogicalResult Importer::checkShapeTaintUnused(Block &entry, ArrayRef<Value> results) {
  if (taintedConstants.empty())
    return success();
  // The ops the results depend on.
  llvm::DenseSet<Operation *> live;
  SmallVector<Operation *> work;
  for (Value r : results)
    if (Operation *def = r.getDefiningOp())
      work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!live.insert(op).second)
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        work.push_back(def);
  }
  for (Operation &op : entry)
    if (auto it = taintedConstants.find(&op);
        it != taintedConstants.end() && live.contains(&op) && it->second.second)
      return emitError(op.getLoc())
             << "node '" << it->second.first
             << "' computes a value from the size of a symbolic dim (Shape or Size) that the "
                "graph reads as data: the compiled graph would hold its value at the bound for "
                "every run (docs/symbolic-shapes.md)";
  return success();
}
