//===- ImportTransformer.cpp - ONNX transformer ops -> graph dialect -------===//
//
// The transformer building blocks ONNX added after opset 21, decomposed into existing graph
// ops, and the activations of transformer MLPs:
//   - Attention (opsets 23, 24): scaled dot-product attention with grouped-query heads, KV
//     cache (past / present), masks, causal masking, softcap; batched matmul, transpose,
//     reshape, add, where, softmax, tanh, concat.
//   - RMSNormalization (opset 23): graph.layer_norm with `rms` (the layer-norm row kernel).
//   - RotaryEmbedding (opset 23): gather of the cos / sin caches at run-time position ids,
//     slices, mul, sub / add, concat.
//   - Swish (opset 24), Mish (opset 22): elementwise compositions.
// The semantics follow the ONNX operator specs (onnx/defs/nn/defs.cc, onnx/defs/math/defs.cc,
// onnx 1.22) and their reference implementations (onnx/reference/ops/op_attention.py,
// op_rms_normalization.py, op_rotary_embedding.py, op_swish.py, op_mish.py).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc::onnx_import::detail;

void Importer::registerTransformerOps(OpTable &t) {
  t.add("Attention", 23, handle<&Importer::importAttention>);
  t.add("RMSNormalization", 23, handle<&Importer::importRMSNormalization>);
  t.add("RotaryEmbedding", 23, handle<&Importer::importRotaryEmbedding>);
  t.add("Swish", 24, handle<&Importer::importSwish>);
  t.add("Mish", 18, handle<&Importer::importMish>);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Masked-out scores are -inf, as in the spec (softmax turns them into zero weights; a row
/// masked out entirely becomes NaN, as in the reference).
static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// ONNX Attention (opsets 23, 24), after op_attention.py and the operator's function body:
///   Q, K, V as [B, heads, S, head_size] (3-D inputs [B, S, heads * head_size] are split into
///   heads and transposed); present_K = concat(past_K, K, axis 2) (same for V);
///   s = sqrt(scale), scale = 1 / sqrt(head_size) by default;
///   qk = (Q * s) @ transpose(present_K * s)          (qk_matmul_output, mode 0)
///   qk = softcap * tanh(qk / softcap) if softcap > 0 (mode 1)
///   qk = qk + bias                                   (mode 2)
///   p  = softmax(qk, last axis), in softmax_precision (mode 3)
///   Y  = p @ present_V (3-D: transposed back and merged to [B, S, heads * v_head_size]).
/// bias = attn_mask (bool: 0 where true, -inf where false; its last dim padded to the total
/// sequence with -inf from opset 24) + the causal mask (-inf where j > i + past_length) + the
/// padding mask of nonpad_kv_seqlen (-inf where j >= nonpad_kv_seqlen[b]).
/// Grouped-query attention (q_num_heads = reps * kv_num_heads) repeats each K/V head reps
/// times (np.repeat: query head h reads K/V head h / reps). Instead of copying K and V, the
/// query heads are viewed as [B, kv_heads, reps, S, head_size] and the matmuls broadcast K / V
/// over `reps`.
/// f16 / bf16 inputs are computed in f32 and rounded once at the outputs (the reference's
/// numpy promotes them to f64; its outputs are the f32 results rounded).
/// Two deliberate departures from op_attention.py, where it disagrees with the spec text and
/// the function body: qk_matmul_output mode 0 is the matmul before softcap (the reference
/// returns it softcapped), and a bool mask with is_causal keeps 0 for true (the reference
/// computes 0 * -inf = NaN there).
LogicalResult Importer::importAttention(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, opset >= 24 ? 7 : 6, 4)))
    return failure();
  auto q = getInput(nc, 0), k = getInput(nc, 1), v = getInput(nc, 2);
  auto mask = getOptionalInput(nc, 3), pastK = getOptionalInput(nc, 4),
       pastV = getOptionalInput(nc, 5), nonpad = getOptionalInput(nc, 6);
  auto isCausal = getInt(nc, "is_causal", 0);
  auto qHeadsAttr = getInt(nc, "q_num_heads", 0), kvHeadsAttr = getInt(nc, "kv_num_heads", 0);
  auto mode = getInt(nc, "qk_matmul_output_mode", 0);
  auto softcap = getFloat(nc, "softcap", 0.0f);
  auto softmaxPrecision = getInt(nc, "softmax_precision", 0);
  if (failed(q) || failed(k) || failed(v) || failed(mask) || failed(pastK) || failed(pastV) ||
      failed(nonpad) || failed(isCausal) || failed(qHeadsAttr) || failed(kvHeadsAttr) ||
      failed(mode) || failed(softcap) || failed(softmaxPrecision))
    return failure();
  auto qt = checkFloat(nc, *q, "Q");
  if (failed(qt))
    return failure();
  Type elem = qt->getElementType();
  auto kt = cast<RankedTensorType>(k->getType()), vt = cast<RankedTensorType>(v->getType());
  if (kt.getElementType() != elem || vt.getElementType() != elem)
    return nodeError(nc) << "Q, K and V must have one element type, got " << *qt << ", " << kt
                         << ", " << vt;
  int64_t rank = qt->getRank();
  if ((rank != 3 && rank != 4) || kt.getRank() != rank || vt.getRank() != rank)
    return nodeError(nc) << "Q, K and V must all be 3-D or all 4-D, got " << *qt << ", " << kt
                         << ", " << vt;
  if (*mode < 0 || *mode > 3)
    return nodeError(nc) << "qk_matmul_output_mode " << *mode
                         << " is not supported (0: QK matmul, 1: after softcap, 2: after the "
                            "mask, 3: after softmax)";
  if (*isCausal != 0 && *isCausal != 1)
    return nodeError(nc) << "is_causal must be 0 or 1, got " << *isCausal;
  if (!(*softcap >= 0.0f))
    return nodeError(nc) << "softcap must be >= 0 (0: none), got " << *softcap;
  Type softmaxType = elem;
  if (findAttr(nc, "softmax_precision")) {
    softmaxType = convertElementType((int32_t)*softmaxPrecision, &ctx);
    if (!softmaxType || !isGraphFloat(softmaxType))
      return nodeError(nc) << "softmax_precision " << *softmaxPrecision
                           << " is not a supported floating-point type (FLOAT16 10, BFLOAT16 16, "
                              "FLOAT 1, DOUBLE 11)";
  }
  if ((bool)*pastK != (bool)*pastV)
    return nodeError(nc) << "past_key and past_value must be given together";

  // Shapes: B, heads and head sizes of Q, K and V.
  Location loc = nc.loc;
  int64_t B = qt->getDimSize(0), hq, hkv, sq, skv, d, dv;
  Value q4, k4, v4;
  if (rank == 3) {
    hq = *qHeadsAttr;
    hkv = *kvHeadsAttr;
    // At most the hidden sizes they divide (a zero hidden size passes the modulo below, and
    // hq * dv then overflowed; aicc-fuzz-onnx audit).
    if (hq <= 0 || hkv <= 0 || hq > std::max<int64_t>(1, qt->getDimSize(2)) ||
        hkv > std::max<int64_t>(1, kt.getDimSize(2)))
      return nodeError(nc) << "3-D Q, K and V need q_num_heads and kv_num_heads in [1, the "
                              "hidden size], got "
                           << hq << " and " << hkv;
    sq = qt->getDimSize(1);
    skv = kt.getDimSize(1);
    if (qt->getDimSize(2) % hq || kt.getDimSize(2) % hkv || vt.getDimSize(2) % hkv)
      return nodeError(nc) << "hidden sizes of Q " << shapeStr(qt->getShape()) << ", K "
                           << shapeStr(kt.getShape()) << " and V " << shapeStr(vt.getShape())
                           << " are not multiples of q_num_heads " << hq << " / kv_num_heads "
                           << hkv;
    d = qt->getDimSize(2) / hq;
    dv = vt.getDimSize(2) / hkv;
    if (kt.getDimSize(2) / hkv != d)
      return nodeError(nc) << "K head size " << kt.getDimSize(2) / hkv
                           << " differs from Q head size " << d;
  } else {
    hq = qt->getDimSize(1);
    hkv = kt.getDimSize(1);
    if ((*qHeadsAttr && *qHeadsAttr != hq) || (*kvHeadsAttr && *kvHeadsAttr != hkv))
      return nodeError(nc) << "q_num_heads " << *qHeadsAttr << " / kv_num_heads " << *kvHeadsAttr
                           << " disagree with the head dims of 4-D Q " << shapeStr(qt->getShape())
                           << " and K " << shapeStr(kt.getShape());
    sq = qt->getDimSize(2);
    skv = kt.getDimSize(2);
    d = qt->getDimSize(3);
    dv = vt.getDimSize(3);
    if (kt.getDimSize(3) != d)
      return nodeError(nc) << "K head size " << kt.getDimSize(3) << " differs from Q head size "
                           << d;
    if (vt.getDimSize(1) != hkv)
      return nodeError(nc) << "V has " << vt.getDimSize(1) << " heads, K has " << hkv;
  }
  if (kt.getDimSize(0) != B || vt.getDimSize(0) != B)
    return nodeError(nc) << "Q, K and V batch sizes differ: " << shapeStr(qt->getShape()) << ", "
                         << shapeStr(kt.getShape()) << ", " << shapeStr(vt.getShape());
  if (vt.getDimSize(rank == 3 ? 1 : 2) != skv)
    return nodeError(nc) << "K and V sequence lengths differ: " << shapeStr(kt.getShape()) << " vs "
                         << shapeStr(vt.getShape());
  if (hq % hkv)
    return nodeError(nc) << "q_num_heads " << hq << " is not a multiple of kv_num_heads " << hkv
                         << " (grouped-query attention shares each K/V head among q_num_heads / "
                            "kv_num_heads query heads)";
  int64_t reps = hq / hkv;

  // KV cache.
  int64_t past = 0;
  if (*pastK) {
    auto pkt = cast<RankedTensorType>(pastK->getType()),
         pvt = cast<RankedTensorType>(pastV->getType());
    if (pkt.getRank() != 4 || pvt.getRank() != 4 || pkt.getElementType() != elem ||
        pvt.getElementType() != elem)
      return nodeError(nc) << "past_key and past_value must be 4-D tensors of Q's element type, "
                              "got "
                           << pkt << " and " << pvt;
    past = pkt.getDimSize(2);
    if (pkt.getShape() != ArrayRef<int64_t>{B, hkv, past, d} ||
        pvt.getShape() != ArrayRef<int64_t>{B, hkv, past, dv})
      return nodeError(nc) << "past_key " << shapeStr(pkt.getShape()) << " / past_value "
                           << shapeStr(pvt.getShape()) << " must be " << shapeStr({B, hkv, past, d})
                           << " / " << shapeStr({B, hkv, past, dv});
  }
  int64_t total = past + skv;
  auto wanted = [&](int i) {
    return i < nc.node.output_size() && !nc.node.output(i).empty() &&
           usedNames.contains(nc.node.output(i));
  };

  // [B, heads, S, head_size] views. Without a cache and a wanted present_key, 3-D K goes
  // straight to its transposed [B, heads, head_size, S] form (one transpose).
  Value kT;
  if (rank == 3) {
    q4 = transpose(loc, reshape(loc, *q, {B, sq, hq, d}), {0, 2, 1, 3});
    Value k4s = reshape(loc, *k, {B, skv, hkv, d});
    if (!*pastK && !wanted(1))
      kT = transpose(loc, k4s, {0, 2, 3, 1});
    else
      k4 = transpose(loc, k4s, {0, 2, 1, 3});
    v4 = transpose(loc, reshape(loc, *v, {B, skv, hkv, dv}), {0, 2, 1, 3});
  } else {
    q4 = *q;
    k4 = *k;
    v4 = *v;
  }
  Value presentK = k4, presentV = v4;
  if (*pastK) {
    presentK = concat(loc, {*pastK, k4}, 2);
    presentV = concat(loc, {*pastV, v4}, 2);
  }
  if (!kT)
    kT = transpose(loc, presentK, {0, 1, 3, 2});

  // Q * sqrt(scale) and K^T * sqrt(scale) (the spec's overflow guard for low precision).
  double scale = 1.0 / std::sqrt((double)d);
  if (findAttr(nc, "scale")) {
    auto s = getFloat(nc, "scale", 0.0f);
    if (failed(s))
      return failure();
    if (!(*s >= 0.0f))
      return nodeError(nc) << "scale " << *s
                           << " is negative (Q and K are multiplied by sqrt(scale))";
    scale = *s;
  }
  // f16 / bf16 attention runs in f32 (the precision aicc's kernels compute those types in),
  // rounding once at the outputs as the reference does.
  Type ct = elem.isF16() || elem.isBF16() ? Type(b.getF32Type()) : elem;
  if (!findAttr(nc, "softmax_precision"))
    softmaxType = ct;
  Value sqrtScale = scalarF(loc, ct, std::sqrt(scale));
  Value qs = bin<graph::MulOp>(loc, castTo(loc, q4, ct), sqrtScale);
  Value ks = bin<graph::MulOp>(loc, castTo(loc, kT, ct), sqrtScale);

  // Grouped heads: Q as [B, kv_heads, reps, Sq, d], K^T and V broadcast over reps.
  SmallVector<int64_t> work = {B, hq, sq, total};
  if (reps > 1) {
    qs = reshape(loc, qs, {B, hkv, reps, sq, d});
    ks = reshape(loc, ks, {B, hkv, 1, d, total});
    work = {B, hkv, reps, sq, total};
  }
  auto fullType = [&](ArrayRef<int64_t> shape, Type t) { return RankedTensorType::get(shape, t); };
  Value qk = graph::MatMulOp::create(b, loc, fullType(work, ct), qs, ks);
  Value qkMatmul = qk;
  if (*softcap > 0.0f) {
    Value c = scalarF(loc, ct, *softcap);
    Value t = bin<graph::DivOp>(loc, qk, c);
    t = graph::TanhOp::create(b, loc, t.getType(), t);
    qk = bin<graph::MulOp>(loc, t, c);
  }
  Value qkSoftcap = qk;

  // The bias, broadcastable to [B, q_heads, Sq, total] (rank <= 4).
  Value bias;
  if (*mask) {
    auto mt = cast<RankedTensorType>(mask->getType());
    if (mt.getRank() < 1 || mt.getRank() > 4)
      return nodeError(nc) << "attn_mask must have rank 1 to 4, got " << mt;
    Value m = *mask;
    if (mt.getElementType().isInteger(1)) {
      m = graph::WhereOp::create(b, loc, fullType(mt.getShape(), ct), m, scalarF(loc, ct, 0.0),
                                 scalarF(loc, ct, kNegInf));
    } else if (mt.getElementType() != elem) {
      return nodeError(nc) << "attn_mask must be bool or of Q's element type " << elem << ", got "
                           << mt;
    } else {
      m = castTo(loc, m, ct);
    }
    int64_t last = mt.getDimSize(mt.getRank() - 1);
    // Opset 24: a mask shorter than the total sequence is padded with -inf.
    if (opset >= 24 && last < total) {
      SmallVector<int64_t> low(mt.getRank(), 0), high(mt.getRank(), 0), shape(mt.getShape());
      high.back() = total - last;
      shape.back() = total;
      m = graph::PadOp::create(b, loc, fullType(shape, ct), m, b.getDenseI64ArrayAttr(low),
                               b.getDenseI64ArrayAttr(high), b.getStringAttr("constant"),
                               b.getF64FloatAttr(kNegInf));
    }
    SmallVector<int64_t> full = {B, hq, sq, total};
    auto mshape = cast<RankedTensorType>(m.getType()).getShape();
    auto bshape = graph::broadcastShapes(mshape, full);
    if (failed(bshape) || ArrayRef<int64_t>(*bshape) != ArrayRef<int64_t>(full))
      return nodeError(nc) << "attn_mask shape " << shapeStr(mt.getShape())
                           << " does not broadcast to [batch, q_num_heads, q_sequence, "
                              "total_sequence] = "
                           << shapeStr(full);
    bias = m;
  }
  if (*isCausal) {
    // Upper-left aligned after the cache: query i sees keys j <= i + past.
    if (failed(checkTable(nc, CheckedInt(sq) * total, 8, "the causal mask")))
      return failure();
    SmallVector<double> c(sq * total, 0.0);
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = i + past + 1; j < total; ++j)
        c[i * total + j] = kNegInf;
    Value causal = constantOf(loc, fullType({sq, total}, ct), c, nc.name + "_causal");
    bias = bias ? bin<graph::AddOp>(loc, bias, causal) : causal;
  }
  if (*nonpad) {
    auto npt = cast<RankedTensorType>(nonpad->getType());
    if (!npt.getElementType().isInteger(64) || npt.getShape() != ArrayRef<int64_t>{B})
      return nodeError(nc) << "nonpad_kv_seqlen must be an int64 tensor of shape [" << B
                           << "], got " << npt;
    // Key j of batch b takes part when j < nonpad_kv_seqlen[b].
    Value pos = iotaAlong(loc, 1, 0, total, npt.getElementType());
    Value n = reshape(loc, *nonpad, {B, 1, 1, 1});
    Value keep = graph::LessOp::create(b, loc, fullType({B, 1, 1, total}, b.getI1Type()), pos, n);
    Value pad = graph::WhereOp::create(b, loc, fullType({B, 1, 1, total}, ct), keep,
                                       scalarF(loc, ct, 0.0), scalarF(loc, ct, kNegInf));
    bias = bias ? bin<graph::AddOp>(loc, bias, pad) : pad;
  }
  if (bias && reps > 1) {
    // To the grouped layout: the head dim (q_heads or 1) splits into [kv_heads, reps].
    auto bt = cast<RankedTensorType>(bias.getType());
    SmallVector<int64_t> s4(4 - bt.getRank(), 1);
    s4.append(bt.getShape().begin(), bt.getShape().end());
    int64_t h = s4[1];
    bias = reshape(loc, bias, {s4[0], h == 1 ? 1 : hkv, h == 1 ? 1 : reps, s4[2], s4[3]});
  }
  if (bias)
    qk = bin<graph::AddOp>(loc, qk, bias);
  Value qkBiased = qk;

  // Softmax over the keys, in softmax_precision.
  Value probs = castTo(loc, qk, softmaxType);
  probs = graph::SoftmaxOp::create(b, loc, probs.getType(), probs,
                                   b.getI64IntegerAttr((int64_t)work.size() - 1));
  probs = castTo(loc, probs, ct);

  Value vc = castTo(loc, presentV, ct);
  Value vg = reps > 1 ? reshape(loc, vc, {B, hkv, 1, total, dv}) : vc;
  SmallVector<int64_t> yShape(work.begin(), work.end() - 1);
  yShape.push_back(dv);
  Value y = graph::MatMulOp::create(b, loc, fullType(yShape, ct), probs, vg);
  y = castTo(loc, y, elem);
  if (reps > 1)
    y = reshape(loc, y, {B, hq, sq, dv});
  if (rank == 3)
    y = reshape(loc, transpose(loc, y, {0, 2, 1, 3}), {B, sq, hq * dv});

  if (failed(define(nc, 0, y)))
    return failure();
  if (wanted(1) && failed(define(nc, 1, presentK)))
    return failure();
  if (wanted(2) && failed(define(nc, 2, presentV)))
    return failure();
  if (wanted(3)) {
    Value qkOut =
        castTo(loc, std::array<Value, 4>{qkMatmul, qkSoftcap, qkBiased, probs}[*mode], elem);
    if (reps > 1)
      qkOut = reshape(loc, qkOut, {B, hq, sq, total});
    return define(nc, 3, qkOut);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RMSNormalization
//===----------------------------------------------------------------------===//

/// ONNX RMSNormalization (opset 23): Y = X / sqrt(mean(X^2 over dims [axis, rank)) + epsilon)
/// * scale (Zhang, Sennrich 2019). graph.layer_norm with `rms` computes f16 / bf16 rows in
/// f32, which is stash_type 1 (the only stash type the reference implements).
LogicalResult Importer::importRMSNormalization(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1);
  auto axisAttr = getInt(nc, "axis", -1);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  auto stash = getInt(nc, "stash_type", 1);
  if (failed(x) || failed(scale) || failed(axisAttr) || failed(eps) || failed(stash))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  if (*stash != 1)
    return nodeError(nc) << "stash_type " << *stash
                         << " is not supported (1: the first stage in float32)";
  auto st = cast<RankedTensorType>(scale->getType());
  if (st.getElementType() != xt->getElementType())
    return nodeError(nc) << "scale " << st << " must have X's element type "
                         << xt->getElementType();
  auto axis = normalizeAxis(nc, *axisAttr, xt->getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  auto bshape = graph::broadcastShapes(xt->getShape(), st.getShape());
  if (failed(bshape) || ArrayRef<int64_t>(*bshape) != xt->getShape())
    return nodeError(nc) << "scale shape " << shapeStr(st.getShape())
                         << " does not broadcast to X's " << shapeStr(xt->getShape());
  // A scale over the normalized dims only goes into the row kernel; one that also spans
  // leading dims is a separate multiply.
  bool inKernel = st.getRank() <= xt->getRank() - *axis;
  Value y = graph::LayerNormOp::create(b, nc.loc, *xt, *x, inKernel ? *scale : Value(), Value(),
                                       b.getI64IntegerAttr(*axis), b.getF64FloatAttr(*eps),
                                       b.getBoolAttr(true));
  if (!inKernel)
    y = bin<graph::MulOp>(nc.loc, y, *scale);
  return define(nc, 0, y);
}

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

/// ONNX RotaryEmbedding (opset 23; Su et al., "RoFormer", 2021), per op_rotary_embedding.py:
/// the first rotary_embedding_dim (default: head_size) features of each head split into
/// x1, x2 (halves, or even / odd features when interleaved) and become
///   real = cos * x1 - sin * x2,  imag = sin * x1 + cos * x2
/// (concatenated, or re-interleaved); the remaining features pass through. cos / sin are
/// [B, S, rotary_dim / 2], or gathered from [max_position, rotary_dim / 2] caches at the
/// run-time position_ids [B, S]. Works in the input's own layout: [B, heads, S, head_size]
/// for 4-D input, [B, S, heads, head_size] for 3-D input [B, S, heads * head_size].
LogicalResult Importer::importRotaryEmbedding(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 4, 1)))
    return failure();
  auto x = getInput(nc, 0), cosIn = getInput(nc, 1), sinIn = getInput(nc, 2),
       pos = getOptionalInput(nc, 3);
  auto interleaved = getInt(nc, "interleaved", 0);
  auto rotaryDim = getInt(nc, "rotary_embedding_dim", 0);
  auto numHeads = getInt(nc, "num_heads", 0);
  if (failed(x) || failed(cosIn) || failed(sinIn) || failed(pos) || failed(interleaved) ||
      failed(rotaryDim) || failed(numHeads))
    return failure();
  auto xt = checkFloat(nc, *x, "input");
  if (failed(xt))
    return failure();
  Type elem = xt->getElementType();
  Location loc = nc.loc;
  if (*interleaved != 0 && *interleaved != 1)
    return nodeError(nc) << "interleaved must be 0 or 1, got " << *interleaved;
  int64_t rank = xt->getRank();
  if (rank != 3 && rank != 4) // before any getDimSize (a 0-d input: aicc-fuzz-onnx)
    return nodeError(nc) << "input must be 3-D or 4-D, got " << *xt;
  Value x4 = *x;
  int64_t B = xt->getDimSize(0), S, H, D;
  if (rank == 4) {
    H = xt->getDimSize(1);
    S = xt->getDimSize(2);
    D = xt->getDimSize(3);
    if (*numHeads && *numHeads != H)
      return nodeError(nc) << "num_heads " << *numHeads << " disagrees with the head dim of 4-D "
                           << "input " << shapeStr(xt->getShape());
  } else if (rank == 3) {
    H = *numHeads;
    S = xt->getDimSize(1);
    if (H <= 0 || xt->getDimSize(2) % H)
      return nodeError(nc) << "3-D input " << shapeStr(xt->getShape())
                           << " needs num_heads dividing its hidden size, got num_heads " << H;
    D = xt->getDimSize(2) / H;
    x4 = reshape(loc, *x, {B, S, H, D});
  } else {
    return nodeError(nc) << "input must be 3-D or 4-D, got " << *xt;
  }
  int64_t rd = *rotaryDim ? *rotaryDim : D;
  if (rd <= 0 || rd > D || rd % 2)
    return nodeError(nc) << "rotary_embedding_dim " << rd
                         << " must be even and in (0, head_size = " << D << "]";
  int64_t half = rd / 2;

  // cos / sin as [b, s, half].
  Value cs[2] = {*cosIn, *sinIn};
  for (Value &c : cs) {
    auto ct = cast<RankedTensorType>(c.getType());
    if (ct.getElementType() != elem)
      return nodeError(nc) << "cos_cache / sin_cache must have the input's element type, got "
                           << ct;
    if (*pos) {
      auto pt = cast<RankedTensorType>(pos->getType());
      if (!pt.getElementType().isInteger(64) || pt.getShape() != ArrayRef<int64_t>{B, S})
        return nodeError(nc) << "position_ids must be an int64 tensor of shape " << shapeStr({B, S})
                             << ", got " << pt;
      if (ct.getRank() != 2 || ct.getDimSize(1) != half)
        return nodeError(nc) << "with position_ids, cos_cache / sin_cache must be "
                                "[max_position, rotary_embedding_dim / 2 = "
                             << half << "], got " << shapeStr(ct.getShape());
      c = graph::GatherOp::create(b, loc, RankedTensorType::get({B, S, half}, elem), c, *pos,
                                  b.getI64IntegerAttr(0));
    } else if (ct.getRank() != 3 || ct.getDimSize(2) != half ||
               (ct.getDimSize(0) != B && ct.getDimSize(0) != 1) ||
               (ct.getDimSize(1) != S && ct.getDimSize(1) != 1)) {
      return nodeError(nc) << "without position_ids, cos_cache / sin_cache must be [batch " << B
                           << ", sequence " << S << ", rotary_embedding_dim / 2 = " << half
                           << "], got " << shapeStr(ct.getShape());
    }
    auto s = cast<RankedTensorType>(c.getType()).getShape();
    c = rank == 4 ? reshape(loc, c, {s[0], 1, s[1], half}) : reshape(loc, c, {s[0], s[1], 1, half});
  }
  Value cosV = cs[0], sinV = cs[1];

  Value rot = rd == D ? x4 : slice(loc, x4, 3, 0, rd, 1);
  Value x1 = *interleaved ? slice(loc, rot, 3, 0, half, 2) : slice(loc, rot, 3, 0, half, 1);
  Value x2 = *interleaved ? slice(loc, rot, 3, 1, half, 2) : slice(loc, rot, 3, half, half, 1);
  Value real =
      bin<graph::SubOp>(loc, bin<graph::MulOp>(loc, cosV, x1), bin<graph::MulOp>(loc, sinV, x2));
  Value imag =
      bin<graph::AddOp>(loc, bin<graph::MulOp>(loc, sinV, x1), bin<graph::MulOp>(loc, cosV, x2));
  auto x4s = cast<RankedTensorType>(x4.getType()).getShape();
  if (*interleaved) {
    SmallVector<int64_t> s5(x4s.begin(), x4s.end());
    s5[3] = half;
    s5.push_back(1);
    Value pair = concat(loc, {reshape(loc, real, s5), reshape(loc, imag, s5)}, 4);
    SmallVector<int64_t> s4(x4s.begin(), x4s.end());
    s4[3] = rd;
    rot = reshape(loc, pair, s4);
  } else {
    rot = concat(loc, {real, imag}, 3);
  }
  Value y = rd == D ? rot : concat(loc, {rot, slice(loc, x4, 3, rd, D - rd, 1)}, 3);
  if (rank == 3)
    y = reshape(loc, y, xt->getShape());
  return define(nc, 0, y);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// ONNX Swish (opset 24): x * sigmoid(alpha * x).
LogicalResult Importer::importSwish(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  auto alpha = getFloat(nc, "alpha", 1.0f);
  if (failed(x) || failed(alpha) || failed(checkFloat(nc, *x, "X")))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  Value ax = *alpha == 1.0f
                 ? *x
                 : bin<graph::MulOp>(nc.loc, *x, scalarF(nc.loc, t.getElementType(), *alpha));
  Value s = graph::SigmoidOp::create(b, nc.loc, t, ax);
  return define(nc, 0, bin<graph::MulOp>(nc.loc, *x, s));
}

/// ONNX Mish (opset 18/22): x * tanh(softplus(x)), softplus(x) = ln(1 + e^x).
LogicalResult Importer::importMish(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x) || failed(checkFloat(nc, *x, "X")))
    return failure();
  Type t = x->getType();
  Value sp = graph::SoftplusOp::create(b, nc.loc, t, *x);
  Value th = graph::TanhOp::create(b, nc.loc, t, sp);
  return define(nc, 0, bin<graph::MulOp>(nc.loc, *x, th));
}
