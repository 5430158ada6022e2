//===- ImportRecurrent.cpp - ONNX recurrent ops -> graph dialect ------------===//
//
// RNN, LSTM, GRU unrolled over the static sequence length into graph ops:
// one gemm projects every time step's input at once (X * W^T + biases), then
// each step is a gemm with the recurrence weights (H_{t-1} * R^T) and
// elementwise gate arithmetic. The equations are those of the ONNX operator
// spec (sections RNN, GRU, LSTM; opsets 7 and 14, opset 14 adding `layout`).
//
// sequence_lens is honoured exactly, also when it is only known at run time:
// a batch entry b takes step t only when t < sequence_lens[b]; otherwise its
// state is carried over and its Y row is 0 (onnxruntime's convention; the
// spec leaves padded Y unspecified). For the reverse direction, visiting
// t = T-1 .. 0 and skipping t >= sequence_lens[b] is the same as visiting
// sequence_lens[b]-1 .. 0, so Y_h is each sequence's last valid state in both
// directions.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

void Importer::registerRecurrentOps(OpTable &t) {
  t.add("RNN", 1, handle<&Importer::importRecurrent>);
  t.add("GRU", 1, handle<&Importer::importRecurrent>);
  t.add("LSTM", 1, handle<&Importer::importRecurrent>);
}

//===----------------------------------------------------------------------===//
// Small builders shared with ImportSignal.cpp
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<std::string>> Importer::getStringList(const NodeCtx &nc,
                                                            llvm::StringRef name) {
  SmallVector<std::string> out;
  const auto *a = findAttr(nc, name);
  if (!a)
    return out;
  int t = attrType(*a);
  if (t != onnx::AttributeProto::STRINGS && t != onnx::AttributeProto::UNDEFINED)
    return attrTypeError(nc, *a, onnx::AttributeProto::STRINGS);
  for (const std::string &s : a->strings())
    out.push_back(s);
  return out;
}

FailureOr<SmallVector<float>> Importer::getFloatList(const NodeCtx &nc, llvm::StringRef name) {
  SmallVector<float> out;
  const auto *a = findAttr(nc, name);
  if (!a)
    return out;
  int t = attrType(*a);
  if (t != onnx::AttributeProto::FLOATS && t != onnx::AttributeProto::UNDEFINED)
    return attrTypeError(nc, *a, onnx::AttributeProto::FLOATS);
  out.append(a->floats().begin(), a->floats().end());
  return out;
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

namespace {
/// Which of alpha / beta an activation reads, and their defaults: "the same as of
/// corresponding ONNX operators" (spec, activation_alpha). ScaledTanh's operator
/// had no defaults (NaN: the value must be given).
struct ActivationInfo {
  bool alpha, beta;
  double alphaDefault, betaDefault;
};
std::optional<ActivationInfo> activationInfo(llvm::StringRef name) {
  double none = std::numeric_limits<double>::quiet_NaN();
  return llvm::StringSwitch<std::optional<ActivationInfo>>(name)
      .Cases({"relu", "tanh", "sigmoid", "softsign", "softplus"},
             ActivationInfo{false, false, 0, 0})
      .Case("affine", ActivationInfo{true, true, 1.0, 0.0})
      .Case("leakyrelu", ActivationInfo{true, false, 0.01, 0})
      .Case("thresholdedrelu", ActivationInfo{true, false, 1.0, 0})
      .Case("scaledtanh", ActivationInfo{true, true, none, none})
      .Case("hardsigmoid", ActivationInfo{true, true, 0.2, 0.5})
      .Case("elu", ActivationInfo{true, false, 1.0, 0})
      .Default(std::nullopt);
}
} // namespace

FailureOr<SmallVector<Importer::RnnActivation>>
Importer::getRnnActivations(const NodeCtx &nc, ArrayRef<llvm::StringRef> defaults,
                            int64_t numDirections) {
  auto names = getStringList(nc, "activations");
  auto alphas = getFloatList(nc, "activation_alpha");
  auto betas = getFloatList(nc, "activation_beta");
  if (failed(names) || failed(alphas) || failed(betas))
    return failure();
  size_t per = defaults.size();
  SmallVector<std::string> list;
  if (names->empty()) {
    for (int64_t d = 0; d < numDirections; ++d)
      for (llvm::StringRef n : defaults)
        list.push_back(n.str());
  } else if (names->size() == per * numDirections) {
    list = *names;
  } else if (numDirections == 2 && names->size() == per) {
    // The same functions for both directions.
    list = *names;
    list.append(names->begin(), names->end());
  } else {
    return nodeError(nc) << "'activations' lists " << names->size() << " functions; expected "
                         << per * numDirections << " (" << per << " per direction)";
  }
  // activation_alpha/beta "are consumed in the order of activation functions": each
  // function that reads alpha (beta) takes the next value, or its default when none is
  // left (as onnxruntime reads them).
  size_t ai = 0, bi = 0;
  SmallVector<RnnActivation> out;
  for (const std::string &raw : list) {
    std::string name = llvm::StringRef(raw).lower();
    auto info = activationInfo(name);
    if (!info)
      return nodeError(nc) << "unsupported activation '" << raw
                           << "' (supported: Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                              "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus)";
    RnnActivation act{name, 0, 0};
    if (info->alpha)
      act.alpha = ai < alphas->size() ? (double)(*alphas)[ai++] : info->alphaDefault;
    if (info->beta)
      act.beta = bi < betas->size() ? (double)(*betas)[bi++] : info->betaDefault;
    if (std::isnan(act.alpha) || std::isnan(act.beta))
      return nodeError(nc) << "activation '" << raw
                           << "' needs values in activation_alpha and activation_beta";
    out.push_back(act);
  }
  return out;
}

/// The activation functions of the ONNX RNN/GRU/LSTM spec ("Activation functions").
Value Importer::applyRnnActivation(Location loc, const RnnActivation &act, Value x) {
  Type t = x.getType();
  Type elem = cast<RankedTensorType>(t).getElementType();
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  const std::string &n = act.name;
  if (n == "sigmoid")
    return graph::SigmoidOp::create(b, loc, t, x);
  if (n == "tanh")
    return graph::TanhOp::create(b, loc, t, x);
  if (n == "relu")
    return graph::ReluOp::create(b, loc, t, x);
  if (n == "softsign")
    return graph::SoftsignOp::create(b, loc, t, x);
  if (n == "softplus")
    return graph::SoftplusOp::create(b, loc, t, x);
  if (n == "leakyrelu") // x if x >= 0 else alpha * x
    return graph::LeakyReluOp::create(b, loc, t, x, f64(act.alpha));
  if (n == "elu") // x if x >= 0 else alpha * (e^x - 1)
    return graph::EluOp::create(b, loc, t, x, f64(act.alpha));
  if (n == "hardsigmoid") // min(max(alpha * x + beta, 0), 1)
    return graph::HardSigmoidOp::create(b, loc, t, x, f64(act.alpha), f64(act.beta));
  if (n == "affine") // alpha * x + beta
    return bin<graph::AddOp>(loc, bin<graph::MulOp>(loc, x, scalarF(loc, elem, act.alpha)),
                             scalarF(loc, elem, act.beta));
  if (n == "scaledtanh") { // alpha * Tanh(beta * x)
    Value bx = bin<graph::MulOp>(loc, x, scalarF(loc, elem, act.beta));
    return bin<graph::MulOp>(loc, graph::TanhOp::create(b, loc, t, bx),
                             scalarF(loc, elem, act.alpha));
  }
  // thresholdedrelu: x if x >= alpha else 0
  Value keep = graph::GreaterEqualOp::create(b, loc, x, scalarF(loc, elem, act.alpha));
  return graph::WhereOp::create(b, loc, keep, x, scalarF(loc, elem, 0.0));
}

//===----------------------------------------------------------------------===//
// RNN / GRU / LSTM
//===----------------------------------------------------------------------===//

LogicalResult Importer::importRecurrent(const NodeCtx &nc) {
  llvm::StringRef op = nc.opType();
  enum class Kind { RNN, GRU, LSTM };
  Kind kind = op == "RNN" ? Kind::RNN : (op == "GRU" ? Kind::GRU : Kind::LSTM);
  const int64_t gates = kind == Kind::RNN ? 1 : (kind == Kind::GRU ? 3 : 4);
  bool lstm = kind == Kind::LSTM;
  if (failed(checkArity(nc, 3, lstm ? 8 : 6, lstm ? 3 : 2)))
    return failure();

  // Attributes.
  auto direction = getString(nc, "direction", "forward");
  auto layoutAttr = getInt(nc, "layout", 0);
  auto hiddenAttr = getInt(nc, "hidden_size", -1);
  auto lbrAttr = getInt(nc, "linear_before_reset", 0);
  auto inputForgetAttr = getInt(nc, "input_forget", 0);
  if (failed(direction) || failed(layoutAttr) || failed(hiddenAttr) || failed(lbrAttr) ||
      failed(inputForgetAttr))
    return failure();
  if (*direction != "forward" && *direction != "reverse" && *direction != "bidirectional")
    return nodeError(nc) << "direction must be forward, reverse or bidirectional, got '"
                         << *direction << "'";
  if (*layoutAttr != 0 && *layoutAttr != 1)
    return nodeError(nc) << "layout must be 0 or 1, got " << *layoutAttr;
  bool batchFirst = *layoutAttr == 1;
  bool linearBeforeReset = kind == Kind::GRU && *lbrAttr != 0;
  bool inputForget = lstm && *inputForgetAttr != 0;
  std::optional<double> clip;
  if (findAttr(nc, "clip")) {
    auto c = getFloat(nc, "clip", 0);
    if (failed(c))
      return failure();
    if (!(*c > 0))
      return nodeError(nc) << "clip must be a positive threshold, got " << *c;
    clip = *c;
  }
  const int64_t numDir = *direction == "bidirectional" ? 2 : 1;
  SmallVector<llvm::StringRef> defaultActs;
  if (kind == Kind::RNN)
    defaultActs = {"Tanh"};
  else if (kind == Kind::GRU)
    defaultActs = {"Sigmoid", "Tanh"};
  else
    defaultActs = {"Sigmoid", "Tanh", "Tanh"};
  auto acts = getRnnActivations(nc, defaultActs, numDir);
  if (failed(acts))
    return failure();

  // Inputs and their shapes (spec, Inputs). X: [T, N, I] ([N, T, I] when layout = 1),
  // W: [D, G*H, I], R: [D, G*H, H], B: [D, 2*G*H], sequence_lens: [N],
  // initial_h / initial_c: [D, N, H] ([N, D, H]), P: [D, 3*H].
  auto x = getInput(nc, 0), w = getInput(nc, 1), r = getInput(nc, 2);
  auto bias = getOptionalInput(nc, 3), seqLens = getOptionalInput(nc, 4);
  auto initH = getOptionalInput(nc, 5);
  FailureOr<Value> initC = Value(), peep = Value();
  if (lstm) {
    initC = getOptionalInput(nc, 6);
    peep = getOptionalInput(nc, 7);
  }
  if (failed(x) || failed(w) || failed(r) || failed(bias) || failed(seqLens) || failed(initH) ||
      failed(initC) || failed(peep))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  Type elem = xt->getElementType();
  if (xt->getRank() != 3)
    return nodeError(nc) << "X must have rank 3, got " << *xt;
  const int64_t seqLen = xt->getDimSize(batchFirst ? 1 : 0);
  const int64_t batch = xt->getDimSize(batchFirst ? 0 : 1);
  const int64_t inSize = xt->getDimSize(2);
  auto rt = cast<RankedTensorType>(r->getType());
  if (rt.getRank() != 3)
    return nodeError(nc) << "R must have rank 3, got " << rt;
  const int64_t hidden = findAttr(nc, "hidden_size") ? *hiddenAttr : rt.getDimSize(2);
  if (hidden <= 0)
    return nodeError(nc) << "hidden_size must be positive, got " << hidden;
  // W, R and B are [.., 2 * gates * hidden, ..]: a hidden_size above 2^32 would overflow the
  // shapes computed below (aicc-fuzz-onnx, UBSan) and is far past any real model.
  if (hidden > (int64_t(1) << 32))
    return nodeError(nc) << "hidden_size " << hidden << " is too large (at most 2^32)";
  if (seqLen <= 0 || batch <= 0)
    return nodeError(nc) << "X " << shapeStr(xt->getShape())
                         << " has an empty sequence or batch (unsupported)";
  // The sequence is unrolled (a few ops per step and direction): capped.
  // 4096 steps, ~10 ops each: 16384 took 10 s to compile to the tile stage (natively) and
  // past the fuzzer's 30 s under ASan; 65536 overflowed the folder's stack (aicc-fuzz-onnx
  // audit). Longer sequences need a loop lowering (not built yet).
  constexpr int64_t kMaxUnrolledSteps = 1 << 12;
  if (seqLen > kMaxUnrolledSteps)
    return nodeError(nc) << "a sequence of " << seqLen << " steps is longer than the "
                         << kMaxUnrolledSteps << " steps the importer unrolls";

  auto expect = [&](Value v, llvm::StringRef what, ArrayRef<int64_t> shape) -> LogicalResult {
    if (!v)
      return success();
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != elem)
      return nodeError(nc) << what << " has element type " << t.getElementType() << ", X has "
                           << elem;
    if (t.getShape() != shape)
      return nodeError(nc) << what << " must have shape " << shapeStr(shape) << ", got "
                           << shapeStr(t.getShape());
    return success();
  };
  SmallVector<int64_t> stateShape = batchFirst ? SmallVector<int64_t>{batch, numDir, hidden}
                                               : SmallVector<int64_t>{numDir, batch, hidden};
  if (failed(expect(*w, "W", {numDir, gates * hidden, inSize})) ||
      failed(expect(*r, "R", {numDir, gates * hidden, hidden})) ||
      failed(expect(*bias, "B", {numDir, 2 * gates * hidden})) ||
      failed(expect(*initH, "initial_h", stateShape)) ||
      failed(expect(*initC, "initial_c", stateShape)) ||
      failed(expect(*peep, "P", {numDir, 3 * hidden})))
    return failure();

  // sequence_lens: [N] int32. A constant equal to seq_length everywhere needs no masking.
  Value lens = *seqLens;
  if (lens) {
    auto lt = cast<RankedTensorType>(lens.getType());
    // int32 (the spec) or int64: the step index is compared in the lens' type, and a
    // narrower one cannot count the steps (int8 lens, 200 steps; aicc-fuzz-onnx audit).
    if (!(lt.getElementType().isInteger(32) || lt.getElementType().isInteger(64)) ||
        lt.getShape() != ArrayRef<int64_t>{batch})
      return nodeError(nc) << "sequence_lens must be an int32 or int64 tensor of shape ["
                           << batch << "], got " << lt;
    if (auto c = intConstant(lens)) {
      bool full = true;
      for (auto [i, l] : llvm::enumerate(*c)) {
        if (l < 0 || l > seqLen)
          return nodeError(nc) << "sequence_lens[" << i << "] = " << l
                               << " is outside [0, seq_length = " << seqLen << "]";
        full &= l == seqLen;
      }
      if (full)
        lens = Value();
    }
  }

  Location loc = nc.loc;
  // Time-major views: X [T, N, I], states [D, N, H].
  Value xs = batchFirst ? transpose(loc, *x, {1, 0, 2}) : *x;
  Value h0 = *initH, c0 = *initC;
  if (batchFirst) {
    if (h0)
      h0 = transpose(loc, h0, {1, 0, 2});
    if (c0)
      c0 = transpose(loc, c0, {1, 0, 2});
  }
  Value x2 = reshape(loc, xs, {seqLen * batch, inSize});
  auto stateType = RankedTensorType::get({batch, hidden}, elem);
  auto zeros = [&]() {
    return createConstant(loc, DenseElementsAttr::get(stateType, b.getFloatAttr(elem, 0.0)));
  };
  auto gemm = [&](Value a, Value bm, Value c, int64_t n) -> Value {
    int64_t m = cast<RankedTensorType>(a.getType()).getDimSize(0);
    return graph::GemmOp::create(b, loc, RankedTensorType::get({m, n}, elem), a, bm, c,
                                 b.getF32FloatAttr(1.0f), b.getF32FloatAttr(1.0f),
                                 b.getBoolAttr(false), b.getBoolAttr(true));
  };
  auto add = [&](Value a, Value c) { return bin<graph::AddOp>(loc, a, c); };
  auto mul = [&](Value a, Value c) { return bin<graph::MulOp>(loc, a, c); };
  // Clip "is applied to the input of activations" (spec, clip): the gates' pre-activations.
  // LSTM's h(Ct) takes Ct unclipped, as in onnxruntime (Ct is a state, not a gate input).
  auto activate = [&](const RnnActivation &act, Value v) {
    if (clip)
      v = graph::ClipOp::create(b, loc, v.getType(), v, b.getF64FloatAttr(-*clip),
                                b.getF64FloatAttr(*clip));
    return applyRnnActivation(loc, act, v);
  };

  // Each step's recurrence is a gemm without C: the projected input is added in the
  // step's elementwise group, which reads it through a slice (no copy kernel).
  // Per direction d: Y rows (time order), final H (and C).
  SmallVector<SmallVector<Value>> ys(numDir, SmallVector<Value>(seqLen));
  SmallVector<Value> hLast, cLast;
  for (int64_t d = 0; d < numDir; ++d) {
    bool reverse = *direction == "reverse" || d == 1;
    ArrayRef<RnnActivation> act =
        ArrayRef<RnnActivation>(*acts).slice(d * defaultActs.size(), defaultActs.size());
    auto perDir = [&](Value v, ArrayRef<int64_t> shape) {
      return reshapeFolded(loc, slice(loc, v, 0, d, 1), shape);
    };
    Value wd = perDir(*w, {gates * hidden, inSize});
    Value rd = perDir(*r, {gates * hidden, hidden});
    // Biases: Wb[gates] (first half of B) and Rb[gates] (second half).
    Value wb, rb;
    if (*bias) {
      Value bd = perDir(*bias, {2 * gates * hidden});
      wb = slice(loc, bd, 0, 0, gates * hidden);
      rb = slice(loc, bd, 0, gates * hidden, gates * hidden);
    }
    // Input projection of every step at once: [T*N, G*H] = X * W^T + bias, where bias is
    // Wb + Rb, except for GRU with linear_before_reset, whose Rbh stays inside r (.) (...)
    // (there the recurrence gemm adds all of Rb).
    Value inBias = wb ? (linearBeforeReset ? wb : add(wb, rb)) : Value();
    Value xw = gemm(x2, wd, inBias, gates * hidden);

    // A null state is all zeros (no initial_h / initial_c): the first step then has no
    // recurrence gemm and no products with the state.
    Value h = h0 ? perDir(h0, {batch, hidden}) : Value();
    Value c = lstm && c0 ? perDir(c0, {batch, hidden}) : Value();
    Value pi, po, pf;
    if (*peep) {
      Value pd = perDir(*peep, {3 * hidden});
      pi = slice(loc, pd, 0, 0, hidden);
      po = slice(loc, pd, 0, hidden, hidden);
      pf = slice(loc, pd, 0, 2 * hidden, hidden);
    }
    // GRU without linear_before_reset: R splits into Rzr (one gemm with H) and Rh
    // (a gemm with r (.) H).
    Value rzr, rh;
    if (kind == Kind::GRU && !linearBeforeReset) {
      rzr = slice(loc, rd, 0, 0, 2 * hidden);
      rh = slice(loc, rd, 0, 2 * hidden, hidden);
    }

    for (int64_t s = 0; s < seqLen; ++s) {
      int64_t t = reverse ? seqLen - 1 - s : s;
      // Gate k's columns of step t's rows of the input projection: [N, H].
      auto xcol = [&](int64_t k) -> Value {
        return graph::SliceOp::create(b, loc, stateType, xw,
                                      b.getDenseI64ArrayAttr({t * batch, k * hidden}),
                                      b.getDenseI64ArrayAttr({1, 1}));
      };
      // H_{t-1} * R^T (+ C), `n` columns; with a zero state just C ([n]) or null (zero).
      auto recur = [&](Value rm, Value cv, int64_t n) { return h ? gemm(h, rm, cv, n) : cv; };
      // Gate k's columns of a recurrence term (null stays null).
      auto rcol = [&](Value v, int64_t k) -> Value {
        if (!v)
          return v;
        int64_t last = cast<RankedTensorType>(v.getType()).getRank() - 1;
        return slice(loc, v, last, k * hidden, hidden);
      };
      auto addOpt = [&](Value a, Value v) { return v ? add(a, v) : a; };
      Value hNew, cNew;
      if (kind == Kind::RNN) {
        // Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi)
        hNew = activate(act[0], addOpt(xcol(0), recur(rd, Value(), hidden)));
      } else if (kind == Kind::GRU) {
        Value z, rg, hh;
        if (linearBeforeReset) {
          // zt = f(Xt*(Wz^T) + Ht-1*(Rz^T) + Wbz + Rbz), rt likewise,
          // ht = g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh)
          Value hr = recur(rd, rb, 3 * hidden);
          z = activate(act[0], addOpt(xcol(0), rcol(hr, 0)));
          rg = activate(act[0], addOpt(xcol(1), rcol(hr, 1)));
          hh = activate(act[1], addOpt(xcol(2), hr ? mul(rg, rcol(hr, 2)) : Value()));
        } else {
          // ht = g(Xt*(Wh^T) + (rt (.) Ht-1)*(Rh^T) + Rbh + Wbh)
          Value zr = recur(rzr, Value(), 2 * hidden);
          z = activate(act[0], addOpt(xcol(0), rcol(zr, 0)));
          rg = activate(act[0], addOpt(xcol(1), rcol(zr, 1)));
          hh = activate(act[1],
                        addOpt(xcol(2), h ? gemm(mul(rg, h), rh, Value(), hidden) : Value()));
        }
        // Ht = (1 - zt) (.) ht + zt (.) Ht-1
        Value one = scalarF(loc, elem, 1.0);
        hNew = mul(bin<graph::SubOp>(loc, one, z), hh);
        if (h)
          hNew = add(hNew, mul(z, h));
      } else {
        // Gates in iofc order.
        Value g = recur(rd, Value(), 4 * hidden);
        auto gate = [&](int64_t k) { return addOpt(xcol(k), rcol(g, k)); };
        // it = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Pi (.) Ct-1 + Wbi + Rbi)
        Value ipre = gate(0);
        if (pi && c)
          ipre = add(ipre, mul(pi, c));
        Value it = activate(act[0], ipre);
        // ft = f(Xt*(Wf^T) + Ht-1*(Rf^T) + Pf (.) Ct-1 + Wbf + Rbf); with input_forget
        // the gates are coupled: ft = 1 - it (as onnxruntime does; the spec only says
        // "couple the input and forget gates").
        Value ft;
        if (inputForget) {
          ft = bin<graph::SubOp>(loc, scalarF(loc, elem, 1.0), it);
        } else {
          Value fpre = gate(2);
          if (pf && c)
            fpre = add(fpre, mul(pf, c));
          ft = activate(act[0], fpre);
        }
        // ct = g(Xt*(Wc^T) + Ht-1*(Rc^T) + Wbc + Rbc); Ct = ft (.) Ct-1 + it (.) ct
        Value ct = activate(act[1], gate(3));
        cNew = mul(it, ct);
        if (c)
          cNew = add(mul(ft, c), cNew);
        // ot = f(Xt*(Wo^T) + Ht-1*(Ro^T) + Po (.) Ct + Wbo + Rbo); Ht = ot (.) h(Ct)
        Value opre = gate(1);
        if (po)
          opre = add(opre, mul(po, cNew));
        Value ot = activate(act[0], opre);
        hNew = mul(ot, applyRnnActivation(loc, act[2], cNew));
      }
      if (lens) {
        // Step t applies to batch entries with t < sequence_lens[b] only.
        auto lt = cast<RankedTensorType>(lens.getType());
        Value tc = intConstantOf(loc, RankedTensorType::get({}, lt.getElementType()), {t});
        Value live = reshape(loc, graph::GreaterOp::create(b, loc, lens, tc), {batch, 1});
        ys[d][t] = graph::WhereOp::create(b, loc, live, hNew, scalarF(loc, elem, 0.0));
        hNew = graph::WhereOp::create(b, loc, live, hNew, h ? h : zeros());
        if (lstm)
          cNew = graph::WhereOp::create(b, loc, live, cNew, c ? c : zeros());
      } else {
        ys[d][t] = hNew;
      }
      h = hNew;
      c = cNew;
    }
    hLast.push_back(h);
    cLast.push_back(c);
  }

  // Outputs. Y: [T, D, N, H] ([N, T, D, H] when layout = 1); Y_h, Y_c: [D, N, H] ([N, D, H]).
  auto wanted = [&](int i) { return i < nc.node.output_size() && !nc.node.output(i).empty(); };
  if (wanted(0)) {
    SmallVector<Value> rows;
    for (int64_t t = 0; t < seqLen; ++t) {
      SmallVector<Value> dirs;
      for (int64_t d = 0; d < numDir; ++d)
        dirs.push_back(reshape(loc, ys[d][t], {1, 1, batch, hidden}));
      rows.push_back(concat(loc, dirs, 1));
    }
    Value y = concat(loc, rows, 0);
    if (batchFirst)
      y = transpose(loc, y, {2, 0, 1, 3});
    if (failed(define(nc, 0, y)))
      return failure();
  }
  auto state = [&](ArrayRef<Value> last) {
    SmallVector<Value> dirs;
    for (Value v : last)
      dirs.push_back(reshape(loc, v, {1, batch, hidden}));
    Value s = concat(loc, dirs, 0);
    return batchFirst ? transpose(loc, s, {1, 0, 2}) : s;
  };
  if (wanted(1) && failed(define(nc, 1, state(hLast))))
    return failure();
  if (lstm && wanted(2) && failed(define(nc, 2, state(cLast))))
    return failure();
  return success();
}
