//===- ImportEinsum.cpp - ONNX Einsum -> graph dialect ---===//
//
// Einsum as diagonals, sums and batched matmuls; registered with the index family
// (ImportIndex.cpp).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace aicc::onnx_import::detail;

namespace {
/// One Einsum operand during the decomposition: a value and one label per dim. Letters
/// are labels 0-51; the dims an ellipsis covers get labels kEllipsis + i (i counts from
/// the first of the widest ellipsis, so they align right across operands, numpy's rule).
struct Term {
  Value v;
  SmallVector<int> labels;
};
constexpr int kEllipsis = 100;

int letterLabel(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char labelChar(int l) { return l < 26 ? 'A' + l : 'a' + (l - 26); }
} // namespace

/// Einsum (ONNX operator spec, opset 12; numpy.einsum semantics): per operand, repeated
/// labels take the diagonal (a strided slice of the flattened pair of dims) and labels no
/// one else needs are summed; operands are then contracted left to right as one batched
/// matmul each ([batch..., kept-left, summed] x [batch..., summed, kept-right]); the
/// labels left that the output lacks are summed, and the result is transposed to the
/// output's order. Floats only (matmul and reduce_sum).
LogicalResult Importer::importEinsum(const NodeCtx &nc) {
  auto eqAttr = getString(nc, "equation", "");
  if (failed(eqAttr))
    return failure();
  if (nc.node.input_size() < 1 || nc.node.output_size() != 1)
    return nodeError(nc) << "expects at least 1 input and 1 output";
  std::string eq;
  for (char c : *eqAttr)
    if (c != ' ')
      eq.push_back(c);
  if (eq.empty())
    return nodeError(nc) << "attribute 'equation' is required";
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::optional<std::string> rhs;
  if (arrow != std::string::npos)
    rhs = eq.substr(arrow + 2);
  SmallVector<std::string> inTerms;
  {
    SmallVector<llvm::StringRef> parts;
    llvm::StringRef(lhs).split(parts, ',');
    for (llvm::StringRef part : parts)
      inTerms.push_back(part.str());
  }
  if ((int)inTerms.size() != nc.node.input_size())
    return nodeError(nc) << "equation '" << *eqAttr << "' has " << inTerms.size()
                         << " input terms for " << nc.node.input_size() << " inputs";
  // Parse a term into letters and the position of '...' (-1 if none).
  struct Parsed {
    SmallVector<int> letters;
    int ellipsisAt = -1;
  };
  auto parse = [&](const std::string &term, Parsed &p) -> LogicalResult {
    for (size_t i = 0; i < term.size(); ++i) {
      char c = term[i];
      if (c == '.') {
        if (term.compare(i, 3, "...") != 0 || p.ellipsisAt >= 0)
          return nodeError(nc) << "malformed ellipsis in term '" << term << "'";
        p.ellipsisAt = p.letters.size();
        i += 2;
        continue;
      }
      if (!llvm::isAlpha(c))
        return nodeError(nc) << "unexpected character '" << c << "' in equation '" << *eqAttr
                             << "'";
      p.letters.push_back(letterLabel(c));
    }
    return success();
  };
  SmallVector<Term> terms;
  SmallVector<Parsed> parsed(inTerms.size());
  int64_t ellRank = 0;
  for (auto [i, s] : llvm::enumerate(inTerms)) {
    if (failed(parse(s, parsed[i])))
      return failure();
    auto v = getInput(nc, i);
    if (failed(v))
      return failure();
    auto t = cast<RankedTensorType>(v->getType());
    if (!isGraphFloat(t.getElementType()))
      return nodeError(nc) << "input #" << i << " is " << t
                           << "; Einsum supports floating-point tensors only (it lowers to "
                              "matmul and reduce_sum)";
    int64_t extra = t.getRank() - (int64_t)parsed[i].letters.size();
    if (extra < 0 || (extra > 0 && parsed[i].ellipsisAt < 0))
      return nodeError(nc) << "term '" << s << "' does not match input #" << i << " of rank "
                           << t.getRank();
    ellRank = std::max(ellRank, extra);
  }
  Type elem;
  std::map<int, int64_t> sizes; // label -> size (the largest, for broadcast ellipsis dims)
  for (auto [i, p] : llvm::enumerate(parsed)) {
    Value v = *getInput(nc, i);
    auto t = cast<RankedTensorType>(v.getType());
    if (!elem)
      elem = t.getElementType();
    else if (elem != t.getElementType())
      return nodeError(nc) << "inputs differ in element type";
    int64_t extra = t.getRank() - (int64_t)p.letters.size();
    Term term{v, {}};
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int label;
      if (p.ellipsisAt >= 0 && d >= p.ellipsisAt && d < p.ellipsisAt + extra)
        label = kEllipsis + (int)(ellRank - extra + (d - p.ellipsisAt));
      else
        label = p.letters[d < p.ellipsisAt || p.ellipsisAt < 0 ? d : d - extra];
      int64_t n = t.getDimSize(d);
      auto [it, fresh] = sizes.try_emplace(label, n);
      if (!fresh && it->second != n) {
        if (label < kEllipsis)
          return nodeError(nc) << "label '" << labelChar(label) << "' has sizes " << it->second
                               << " and " << n;
        if (it->second != 1 && n != 1)
          return nodeError(nc) << "ellipsis dims of sizes " << it->second << " and " << n
                               << " do not broadcast";
        it->second = std::max(it->second, n);
      }
      term.labels.push_back(label);
    }
    terms.push_back(term);
  }
  // Output labels: explicit, or numpy's implicit form (ellipsis dims, then the letters
  // used exactly once, in alphabetical order).
  SmallVector<int> outLabels;
  if (rhs) {
    Parsed p;
    if (failed(parse(*rhs, p)))
      return failure();
    for (size_t i = 0; i <= p.letters.size(); ++i) {
      if ((int)i == p.ellipsisAt)
        for (int64_t e = 0; e < ellRank; ++e)
          outLabels.push_back(kEllipsis + e);
      if (i < p.letters.size())
        outLabels.push_back(p.letters[i]);
    }
    for (int l : outLabels) {
      std::string name = l >= kEllipsis ? "..." : std::string(1, labelChar(l));
      if (!sizes.count(l))
        return nodeError(nc) << "output label '" << name << "' appears in no input";
      if (llvm::count(outLabels, l) != 1)
        return nodeError(nc) << "output label '" << name << "' repeats";
    }
  } else {
    for (int64_t e = 0; e < ellRank; ++e)
      outLabels.push_back(kEllipsis + e);
    std::map<int, int> uses;
    for (const Term &t : terms)
      for (int l : t.labels)
        ++uses[l];
    // Uppercase letters (labels 0-25) sort before lowercase ones, as in ASCII.
    for (auto [l, n] : uses)
      if (l < kEllipsis && n == 1)
        outLabels.push_back(l);
  }
  Location loc = nc.loc;
  auto shapeOf = [&](Value v) { return cast<RankedTensorType>(v.getType()).getShape(); };
  // Permutes the dims of `t` into label order `order`.
  auto permuteTerm = [&](Term &t, ArrayRef<int> order) {
    SmallVector<int64_t> perm;
    for (int l : order)
      perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      t.v = transpose(loc, t.v, perm);
    t.labels.assign(order.begin(), order.end());
  };
  auto reshapeTo = [&](Value v, ArrayRef<int64_t> shape) {
    return shapeOf(v) == shape ? v : reshape(loc, v, shape);
  };
  // Sums the labels of `t` that `keep` rejects.
  auto sumOut = [&](Term &t, llvm::function_ref<bool(int)> keep) {
    SmallVector<int64_t> axes;
    SmallVector<int> rest;
    for (auto [d, l] : llvm::enumerate(t.labels)) {
      if (keep(l))
        rest.push_back(l);
      else
        axes.push_back(d);
    }
    if (axes.empty())
      return;
    t.v = buildReduce<graph::ReduceSumOp>(loc, t.v, axes, /*keepdims=*/false);
    t.labels = rest;
  };
  // 1. Diagonals of repeated labels: move the pair last, flatten it, take every
  //    (n + 1)-th element.
  for (Term &t : terms) {
    for (;;) {
      int rep = -1;
      for (int l : t.labels)
        if (llvm::count(t.labels, l) > 1) {
          rep = l;
          break;
        }
      if (rep < 0)
        break;
      SmallVector<int> order;
      for (int l : t.labels)
        if (l != rep)
          order.push_back(l);
      int firstOthers = order.size();
      order.push_back(rep);
      order.push_back(rep);
      // permuteTerm finds the first occurrence; place the two occurrences explicitly.
      SmallVector<int64_t> perm, shape;
      SmallVector<int64_t> reps;
      for (auto [d, l] : llvm::enumerate(t.labels))
        if (l == rep)
          reps.push_back(d);
      for (auto [d, l] : llvm::enumerate(t.labels))
        if (l != rep)
          perm.push_back(d);
      perm.push_back(reps[0]);
      perm.push_back(reps[1]);
      for (int64_t p : perm)
        shape.push_back(shapeOf(t.v)[p]);
      Value v = t.v;
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
        v = graph::TransposeOp::create(b, loc, RankedTensorType::get(shape, elem), v,
                                       b.getDenseI64ArrayAttr(perm));
      int64_t n = shape.back();
      if (shape[shape.size() - 2] != n)
        return nodeError(nc) << "repeated label takes a diagonal of a non-square " << n
                             << "-wide pair of dims";
      SmallVector<int64_t> flat(shape.begin(), shape.end() - 2);
      flat.push_back(n * n);
      v = reshapeTo(v, flat);
      SmallVector<int64_t> starts(flat.size(), 0), steps(flat.size(), 1), diag(flat);
      steps.back() = n + 1;
      diag.back() = n;
      v = graph::SliceOp::create(b, loc, RankedTensorType::get(diag, elem), v,
                                 b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
      order.erase(order.begin() + firstOthers + 1);
      t.v = v;
      t.labels = order;
    }
  }
  // 2. Contract left to right. Before each step every operand sums the labels nobody
  //    else needs.
  auto neededBeyond = [&](size_t i, int l) {
    if (llvm::is_contained(outLabels, l))
      return true;
    for (size_t j = 0; j < terms.size(); ++j)
      if (j != i && llvm::is_contained(terms[j].labels, l))
        return true;
    return false;
  };
  for (size_t i = 0; i < terms.size(); ++i)
    sumOut(terms[i], [&](int l) { return neededBeyond(i, l); });
  Term acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    Term &rhsT = terms[i];
    auto laterNeed = [&](int l) {
      if (llvm::is_contained(outLabels, l))
        return true;
      for (size_t j = i + 1; j < terms.size(); ++j)
        if (llvm::is_contained(terms[j].labels, l))
          return true;
      return false;
    };
    SmallVector<int> batch, left, right, contracted;
    for (int l : acc.labels) {
      bool inR = llvm::is_contained(rhsT.labels, l);
      if (inR && laterNeed(l))
        batch.push_back(l);
      else if (inR)
        contracted.push_back(l);
      else
        left.push_back(l);
    }
    for (int l : rhsT.labels)
      if (!llvm::is_contained(acc.labels, l))
        right.push_back(l);
    // A contracted ellipsis dim of size 1 on one side broadcasts: expand it first.
    for (Term *t : {&acc, &rhsT})
      for (int l : contracted) {
        int64_t p = llvm::find(t->labels, l) - t->labels.begin();
        if (shapeOf(t->v)[p] != sizes[l]) {
          SmallVector<int64_t> s(shapeOf(t->v));
          s[p] = sizes[l];
          t->v = graph::ExpandOp::create(b, loc, RankedTensorType::get(s, elem), t->v);
        }
      }
    auto dimsOf = [&](Term &t, ArrayRef<int> ls) {
      SmallVector<int64_t> s;
      for (int l : ls)
        s.push_back(shapeOf(t.v)[llvm::find(t.labels, l) - t.labels.begin()]);
      return s;
    };
    // Checked: contracted ellipsis dims expanded to their broadcast size can multiply past
    // int64 (aicc-fuzz-onnx audit).
    auto prod = [](ArrayRef<int64_t> s) {
      CheckedInt p = 1;
      for (int64_t x : s)
        p = p * x;
      return p;
    };
    SmallVector<int> aOrder(batch), bOrder(batch);
    aOrder.append(left);
    aOrder.append(contracted);
    bOrder.append(contracted);
    bOrder.append(right);
    SmallVector<int64_t> aBatch = dimsOf(acc, batch), bBatch = dimsOf(rhsT, batch);
    CheckedInt mC = prod(dimsOf(acc, left)), kC = prod(dimsOf(acc, contracted)),
               nC = prod(dimsOf(rhsT, right));
    if (!mC.valid() || !kC.valid() || !nC.valid())
      return nodeError(nc) << "the contraction's sizes overflow int64";
    int64_t M = mC.value(), K = kC.value(), N = nC.value();
    SmallVector<int64_t> leftDims = dimsOf(acc, left), rightDims = dimsOf(rhsT, right);
    permuteTerm(acc, aOrder);
    permuteTerm(rhsT, bOrder);
    SmallVector<int64_t> aShape(aBatch), bShape(bBatch);
    aShape.append({M, K});
    bShape.append({K, N});
    Value a = reshapeTo(acc.v, aShape), bm = reshapeTo(rhsT.v, bShape);
    SmallVector<int64_t> outBatch;
    for (auto [x, y] : llvm::zip(aBatch, bBatch))
      outBatch.push_back(std::max(x, y));
    SmallVector<int64_t> mmShape(outBatch);
    mmShape.append({M, N});
    if (failed(checkShape(nc, aShape, elem, "contraction operand of shape")) ||
        failed(checkShape(nc, bShape, elem, "contraction operand of shape")) ||
        failed(checkShape(nc, mmShape, elem, "contraction of shape")))
      return failure();
    Value mm = graph::MatMulOp::create(b, loc, RankedTensorType::get(mmShape, elem), a, bm);
    SmallVector<int64_t> resShape(outBatch);
    resShape.append(leftDims);
    resShape.append(rightDims);
    acc.v = reshapeTo(mm, resShape);
    acc.labels = batch;
    acc.labels.append(left);
    acc.labels.append(right);
  }
  // 3. Sum what the output lacks, order as the output, broadcast size-1 ellipsis dims.
  sumOut(acc, [&](int l) { return llvm::is_contained(outLabels, l); });
  if (acc.labels.empty() && !outLabels.empty())
    return nodeError(nc) << "internal: output labels lost";
  permuteTerm(acc, outLabels);
  SmallVector<int64_t> outShape;
  for (int l : outLabels)
    outShape.push_back(sizes[l]);
  if (shapeOf(acc.v) != ArrayRef<int64_t>(outShape))
    acc.v = graph::ExpandOp::create(b, loc, RankedTensorType::get(outShape, elem), acc.v);
  return define(nc, 0, acc.v);
}
