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
  auto taintOf = [&](int i) -> ArrayRef<uint8_t> {
    if (i >= node.input_size() || node.input(i).empty())
      return {};
    auto it = shapeTaint.find(node.input(i));
    return it == shapeTaint.end() ? ArrayRef<uint8_t>() : ArrayRef<uint8_t>(it->second);
  };
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
    ArrayRef<uint8_t> x = taintOf(0);
    uint8_t others = 0;
    for (int i = 1; i < node.input_size(); ++i)
      others = std::max(others, maxTaint(taintOf(i)));
    int64_t n = node.output_size() ? numel(node.output(0)) : -1;
    auto whole = [&](uint8_t t) { out.assign(1, t); };
    if (type == "Gather" && others == kShapeFree && x.size() > 1) {
      // Elements picked from a shape vector by constant indices.
      auto idx = getConstantInts(nc, values.lookup(node.input(1)), "indices");
      if (failed(idx))
        return failure();
      for (int64_t k : *idx) {
        int64_t at = k < 0 ? k + (int64_t)x.size() : k;
        out.push_back(at >= 0 && at < (int64_t)x.size() ? x[at] : (uint8_t)kShapeOther);
      }
    } else if (type == "Concat") {
      for (int i = 0; i < node.input_size(); ++i) {
        ArrayRef<uint8_t> t = taintOf(i);
        int64_t m = numel(node.input(i));
        if (t.size() > 1 && (int64_t)t.size() == m)
          out.append(t.begin(), t.end());
        else
          out.append(m >= 0 && m <= kMaxTaintElements ? m : 1, maxTaint(t));
      }
      if ((int64_t)out.size() != n)
        whole(maxTaint(out));
    } else if (type == "Unsqueeze" || type == "Squeeze" || type == "Reshape" ||
               type == "Identity" || type == "Flatten" || (type == "Cast" && n >= 0)) {
      // The elements in order; a tainted axes / shape operand makes the result's layout a
      // function of the symbol.
      if (others != kShapeFree)
        whole(kShapeOther);
      else
        out.assign(x.begin(), x.end());
    } else if (type == "Add" || type == "Sub" || type == "Neg" || type == "Mul") {
      ArrayRef<uint8_t> y = taintOf(1);
      bool product = type == "Mul" && maxTaint(x) != kShapeFree && maxTaint(y) != kShapeFree;
      // A sum of sizes is a size; a difference, a negation or a multiple by a constant of
      // unknown sign is only linear.
      auto combine = [&](uint8_t a, uint8_t c) -> uint8_t {
        uint8_t m = std::max(a, c);
        if (m == kShapeSize && !(type == "Add" && a != kShapeFree && c != kShapeFree))
          return kShapeLinear;
        return m;
      };
      if (product)
        whole(kShapeOther);
      else if (x.size() == y.size() && (int64_t)x.size() == n)
        for (size_t i = 0; i < x.size(); ++i)
          out.push_back(combine(x[i], y[i]));
      else if (y.empty() && (int64_t)x.size() == n)
        for (uint8_t a : x)
          out.push_back(combine(a, kShapeFree));
      else if (x.empty() && (int64_t)y.size() == n)
        for (uint8_t c : y)
          out.push_back(combine(kShapeFree, c));
      else
        whole(combine(maxTaint(x), maxTaint(y)));
    } else if (type == "Equal" && maxTaint(x) <= kShapeSize && maxTaint(taintOf(1)) <= kShapeSize &&
               (maxTaint(x) == kShapeFree || maxTaint(taintOf(1)) == kShapeFree)) {
      // A size against constants below 1: false at every value.
      Value other = values.lookup(node.input(maxTaint(x) == kShapeFree ? 0 : 1));
      auto c = other ? intConstant(other) : std::nullopt;
      if (!c || llvm::any_of(*c, [](int64_t v) { return v >= 1; }))
        whole(kShapeOther);
    } else if (type == "Where" && maxTaint(x) == kShapeFree && node.input_size() == 3) {
      // An untainted condition: each element takes the taint of the branch it picks.
      auto cond = intConstant(values.lookup(node.input(0)));
      ArrayRef<uint8_t> a = taintOf(1), c = taintOf(2);
      if (cond && (int64_t)cond->size() == n && (a.empty() || (int64_t)a.size() == n) &&
          (c.empty() || (int64_t)c.size() == n))
        for (int64_t i = 0; i < n; ++i) {
          ArrayRef<uint8_t> src = (*cond)[i] ? a : c;
          out.push_back(src.empty() ? (uint8_t)kShapeFree : src[i]);
        }
      else
        whole(std::max(maxTaint(a), maxTaint(c)));
    } else if (type == "Range") {
      // Element i is start + i * delta: only the length follows the limit.
      if (maxTaint(taintOf(0)) != kShapeFree || maxTaint(taintOf(2)) != kShapeFree ||
          maxTaint(taintOf(1)) == kShapeOther)
        whole(kShapeOther);
    } else if (type == "ConstantOfShape") {
      if (inMax == kShapeOther)
        whole(kShapeOther);
    } else if (type == "Expand" || type == "Tile" || type == "Slice") {
      // The data's elements; the shape, repeats or bounds only say which and how many.
      if (others == kShapeOther)
        whole(kShapeOther);
      else if (maxTaint(x) != kShapeFree)
        whole(maxTaint(x));
    } else {
      whole(kShapeOther);
    }
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
    auto cst = v ? v.getDefiningOp<graph::ConstantOp>() : graph::ConstantOp();
    if (!cst) {
      if (inMax == kShapeOther)
        return nodeError(nc)
               << "reads a value computed from the size of a symbolic dim through an operation "
                  "that does not keep it a multiple of the symbol (Min, Max, a comparison, a "
                  "division ...): the compiled graph would hold its value at the bound for "
                  "every run (docs/symbolic-shapes.md)";
      continue;
    }
    shapeTaint[name] = t;
    taintedConstants.try_emplace(cst, nc.name);
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
    if (auto it = taintedConstants.find(&op); it != taintedConstants.end() && live.contains(&op))
      return emitError(op.getLoc())
             << "node '" << it->second
             << "' computes a value from the size of a symbolic dim (Shape or Size) that the "
                "graph reads as data: the compiled graph would hold its value at the bound for "
                "every run (docs/symbolic-shapes.md)";
  return success();
}
