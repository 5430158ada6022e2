//===- ImportSignal.cpp - ONNX signal-processing ops -> graph dialect -------===//
//
// Opset 17 signal ops. Windows and MelWeightMatrix depend only on constant
// inputs and become constant tensors. DFT is a matmul with a constant
// [L*C, 2*K] matrix of cos/sin terms (exact O(N^2) transform, no FFT); STFT
// gathers the frames, applies the window, and takes that DFT of each frame.
// Formulas follow the ONNX operator spec sections (DFT, STFT, HannWindow,
// HammingWindow, BlackmanWindow, MelWeightMatrix) and, where the spec leaves
// details to it, ONNX's reference implementation (onnx/reference/ops).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <cmath>

using namespace mlir;
using namespace aicc::onnx_import::detail;

/// Largest DFT matrix built (elements); above, the O(N^2) matmul form is refused.
static constexpr int64_t kMaxDftMatrixElements = int64_t(1) << 24;

void Importer::registerSignalOps(OpTable &t) {
  t.add("HannWindow", 17, handle<&Importer::importWindow>);
  t.add("HammingWindow", 17, handle<&Importer::importWindow>);
  t.add("BlackmanWindow", 17, handle<&Importer::importWindow>);
  t.add("DFT", 17, handle<&Importer::importDFT>);
  t.add("STFT", 17, handle<&Importer::importSTFT>);
  t.add("MelWeightMatrix", 17, handle<&Importer::importMelWeightMatrix>);
}

FailureOr<Type> Importer::getOutputDataType(const NodeCtx &nc) {
  auto dt = getInt(nc, "output_datatype", onnx::TensorProto::FLOAT);
  if (failed(dt))
    return failure();
  Type t = convertElementType((int32_t)*dt, &ctx);
  if (!t || (!isa<FloatType>(t) && !isa<IntegerType>(t)) || t.isInteger(1))
    return nodeError(nc) << "output_datatype " << *dt << " (" << dataTypeName((int32_t)*dt)
                         << ") is not a supported numeric type";
  return t;
}

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

/// HannWindow, HammingWindow, BlackmanWindow (spec, opset 17; their function bodies):
///   N = size when periodic, size - 1 when symmetric,
///   w[n] = a0 - a1 * cos(2 pi n / N) + a2 * cos(4 pi n / N),  n = 0 .. size - 1,
/// Hann (a0, a1, a2) = (0.5, 0.5, 0), Hamming (25/46, 21/46, 0), Blackman (0.42, 0.5, 0.08).
LogicalResult Importer::importWindow(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto periodic = getInt(nc, "periodic", 1);
  auto elem = getOutputDataType(nc);
  if (failed(in) || failed(periodic) || failed(elem))
    return failure();
  auto st = cast<RankedTensorType>(in->getType());
  if (st.getRank() != 0 || !isa<IntegerType>(st.getElementType()))
    return nodeError(nc) << "size must be an integer scalar, got " << st;
  auto sizeV = getConstantScalar(nc, *in, "size");
  if (failed(sizeV))
    return failure();
  auto sizeI = toInt(nc, *sizeV, "size");
  if (failed(sizeI))
    return failure();
  int64_t size = *sizeI;
  if (size < 1 || size > (int64_t(1) << 24))
    return nodeError(nc) << "size " << size << " is out of range [1, 2^24]";
  llvm::StringRef op = nc.opType();
  double a0 = 0.5, a1 = 0.5, a2 = 0.0;
  if (op == "HammingWindow") {
    a0 = 25.0 / 46.0;
    a1 = 1.0 - a0;
  } else if (op == "BlackmanWindow") {
    a0 = 0.42;
    a2 = 0.08;
  }
  double n = *periodic ? (double)size : (double)(size - 1);
  double step = 2.0 * M_PI / n; // a symmetric window of size 1 is 0/0 = NaN, as in ONNX
  SmallVector<double> w(size);
  for (int64_t i = 0; i < size; ++i) {
    double angle = (double)i * step;
    w[i] = a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle);
  }
  return define(nc, 0, constantOf(nc.loc, RankedTensorType::get({size}, *elem), w, nc.name));
}

//===----------------------------------------------------------------------===//
// DFT / STFT
//===----------------------------------------------------------------------===//

FailureOr<Value> Importer::buildDFT(const NodeCtx &nc, Value x, int64_t axis, int64_t length,
                                    bool inverse, bool onesided, ArrayRef<double> weights) {
  Location loc = nc.loc;
  auto xt = cast<RankedTensorType>(x.getType());
  Type elem = xt.getElementType();
  int64_t rank = xt.getRank();
  int64_t comps = xt.getDimSize(rank - 1);
  // inverse + onesided is the inverse real DFT (numpy.fft.irfft, onnx/reference/ops/op_dft.py):
  // the input holds bins 0..N/2 of a Hermitian spectrum, the result N real samples.
  bool irfft = inverse && onesided;
  // Only the first `length` samples (irfft: N/2 + 1 bins) take part (spec, dft_length:
  // truncate or zero-pad).
  int64_t keep = irfft ? length / 2 + 1 : length;
  if (xt.getDimSize(axis) > keep) {
    x = slice(loc, x, axis, 0, keep);
    xt = cast<RankedTensorType>(x.getType());
  }
  int64_t len = xt.getDimSize(axis);
  int64_t bins = irfft ? length : (onesided ? length / 2 + 1 : length);
  int64_t outC = irfft ? 1 : 2;
  // dft_length comes from a constant input: checked arithmetic (2 * 2^62 overflowed;
  // aicc-fuzz-onnx).
  CheckedInt colsChecked = CheckedInt(outC) * bins;
  CheckedInt matElems = CheckedInt(len) * comps * colsChecked;
  if (!matElems.valid() || matElems.value() > kMaxDftMatrixElements)
    return nodeError(nc) << "a DFT of length " << length << " over " << len << " samples needs a "
                         << len * comps << "x" << colsChecked.value()
                         << " matrix (the transform is a matmul); above " << kMaxDftMatrixElements
                         << " elements is unsupported";
  const int64_t cols = colsChecked.value();

  // [P..., L, C]: the transformed axis and the complex components last.
  SmallVector<int64_t> perm, outer;
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != axis) {
      perm.push_back(i);
      outer.push_back(xt.getDimSize(i));
    }
  perm.push_back(axis);
  perm.push_back(rank - 1);
  bool identity = axis == rank - 2;
  Value v = identity ? x : transpose(loc, x, perm);
  int64_t m = 1;
  for (int64_t d : outer)
    m *= d;
  v = reshape(loc, v, {m, len * comps});

  // Row (l, c) x column (k, p) of X[k] = sum_l x[l] e^(s 2 pi i l k / N), s = -1 forward,
  // +1 inverse (times 1/N): with e^(s i theta) = cos theta + s i sin theta,
  //   re: xr cos - s xi sin,  im: s xr sin + xi cos.
  // irfft: y[t] = 1/N sum_{l=0}^{N/2} a_l (xr_l cos - xi_l sin)(2 pi l t / N), the real part of
  // the inverse DFT of the Hermitian completion X[N - l] = conj X[l]; a_l = 2 except for the
  // bins that are their own mirror image (l = 0 and, N even, l = N/2: a_l = 1, their
  // imaginary parts drop out as sin = 0 there).
  double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / (double)length : 1.0;
  SmallVector<double> mat(len * comps * cols);
  for (int64_t l = 0; l < len; ++l)
    for (int64_t k = 0; k < bins; ++k) {
      // Angle from (l * k) mod N (no loss for large products); quarter turns exact.
      int64_t turn = (l * k) % length;
      double c, s;
      if ((4 * turn) % length == 0) {
        int64_t q = 4 * turn / length;
        c = q == 0 ? 1.0 : (q == 2 ? -1.0 : 0.0);
        s = q == 1 ? 1.0 : (q == 3 ? -1.0 : 0.0);
      } else {
        double theta = 2.0 * M_PI * (double)turn / (double)length;
        c = std::cos(theta);
        s = std::sin(theta);
      }
      double w = scale * (weights.empty() ? 1.0 : weights[l]);
      c *= w;
      s *= w;
      int64_t row = l * comps;
      if (irfft) {
        double a = (l == 0 || 2 * l == length) ? 1.0 : 2.0;
        mat[row * cols + k] = a * c;
        if (comps == 2)
          mat[(row + 1) * cols + k] = -a * s + 0.0;
        continue;
      }
      int64_t colBase = k * 2;
      mat[row * 2 * bins + colBase] = c;
      mat[row * 2 * bins + colBase + 1] = sign * s + 0.0; // + 0.0: no -0
      if (comps == 2) {
        mat[(row + 1) * 2 * bins + colBase] = -sign * s + 0.0;
        mat[(row + 1) * 2 * bins + colBase + 1] = c;
      }
    }
  Value mtx =
      constantOf(loc, RankedTensorType::get({len * comps, cols}, elem), mat, nc.name + "_dft");
  Value y = graph::MatMulOp::create(b, loc, RankedTensorType::get({m, cols}, elem), v, mtx);
  SmallVector<int64_t> yShape(outer);
  yShape.push_back(bins);
  yShape.push_back(outC);
  y = reshape(loc, y, yShape);
  if (identity)
    return y;
  SmallVector<int64_t> inv(rank);
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = i;
  return transpose(loc, y, inv);
}

/// DFT (opset 17: axis attribute, default 1; opset 20: axis input, default -2).
/// input [batch, signal dims..., C] with C = 1 (real) or 2 (complex); the result has
/// C = 2 and dft_length (or dft_length / 2 + 1 when onesided) points along axis; inverse with
/// onesided is the inverse real DFT: bins 0..N/2 in, N = dft_length (default 2 (bins - 1))
/// real samples out (C = 1).
LogicalResult Importer::importDFT(const NodeCtx &nc) {
  bool axisInput = opset >= 20;
  if (failed(checkArity(nc, 1, axisInput ? 3 : 2, 1)))
    return failure();
  auto in = getInput(nc, 0), lenIn = getOptionalInput(nc, 1);
  auto inverse = getInt(nc, "inverse", 0), onesided = getInt(nc, "onesided", 0);
  if (failed(in) || failed(lenIn) || failed(inverse) || failed(onesided))
    return failure();
  auto xt = checkFloat(nc, *in, "input");
  if (failed(xt))
    return failure();
  int64_t rank = xt->getRank();
  if (rank < 2 || (xt->getDimSize(rank - 1) != 1 && xt->getDimSize(rank - 1) != 2))
    return nodeError(nc) << "input must be [batch, signal dims..., 1 or 2], got " << *xt;
  int64_t axis = 1;
  if (axisInput) {
    auto a = getOptionalConstantScalar(nc, 2, "axis");
    if (failed(a))
      return failure();
    axis = -2;
    if (*a) {
      auto ai = toInt(nc, **a, "axis");
      if (failed(ai))
        return failure();
      axis = *ai;
    }
  } else {
    auto a = getInt(nc, "axis", 1);
    if (failed(a))
      return failure();
    axis = *a;
  }
  if (axis < -rank || axis > rank - 2 || axis == -1)
    return nodeError(nc) << "axis " << axis << " is out of range [" << -rank << ", -2] U [0, "
                         << rank - 2 << "] for an input of rank " << rank;
  if (axis < 0)
    axis += rank;
  // The inverse real DFT's default length is 2 (bins - 1) (onnx/reference/ops/op_dft.py).
  int64_t length = xt->getDimSize(axis);
  if (*inverse && *onesided)
    length = 2 * (length - 1);
  if (*lenIn) {
    auto l = getConstantScalar(nc, *lenIn, "dft_length");
    if (failed(l))
      return failure();
    auto li = toInt(nc, *l, "dft_length");
    if (failed(li))
      return failure();
    length = *li;
  }
  if (length < 1)
    return nodeError(nc) << "dft_length must be positive, got " << length;
  auto y = buildDFT(nc, *in, axis, length, *inverse != 0, *onesided != 0);
  if (failed(y))
    return failure();
  return define(nc, 0, *y);
}

/// STFT (spec, opset 17): signal [batch, L, C]; frame f covers samples
/// f * frame_step .. f * frame_step + W - 1 (W: the window's length, else frame_length),
/// zero past the end; frames = 1 + (L - frame_length) / frame_step; each frame is
/// multiplied by the window and transformed with a frame_length-point DFT (onesided by
/// default). Result [batch, frames, bins, 2].
LogicalResult Importer::importSTFT(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 4, 1)))
    return failure();
  auto sig = getInput(nc, 0), stepIn = getInput(nc, 1);
  auto window = getOptionalInput(nc, 2), lenIn = getOptionalInput(nc, 3);
  auto onesided = getInt(nc, "onesided", 1);
  if (failed(sig) || failed(stepIn) || failed(window) || failed(lenIn) || failed(onesided))
    return failure();
  auto st = checkFloat(nc, *sig, "signal");
  if (failed(st))
    return failure();
  if (st->getRank() != 3 || (st->getDimSize(2) != 1 && st->getDimSize(2) != 2))
    return nodeError(nc) << "signal must be [batch, length, 1 or 2], got " << *st;
  int64_t batch = st->getDimSize(0), sigLen = st->getDimSize(1), comps = st->getDimSize(2);
  auto step = getConstantScalar(nc, *stepIn, "frame_step");
  if (failed(step))
    return failure();
  auto stepI = toInt(nc, *step, "frame_step");
  if (failed(stepI))
    return failure();
  int64_t frameStep = *stepI;
  if (frameStep < 1)
    return nodeError(nc) << "frame_step must be positive, got " << frameStep;
  int64_t winLen = -1;
  if (*window) {
    auto wt = cast<RankedTensorType>(window->getType());
    if (wt.getRank() != 1 || wt.getElementType() != st->getElementType())
      return nodeError(nc) << "window must be a 1-D tensor of the signal's element type, got "
                           << wt;
    winLen = wt.getDimSize(0);
  }
  int64_t frameLen = winLen >= 0 ? winLen : sigLen;
  if (*lenIn) {
    auto l = getConstantScalar(nc, *lenIn, "frame_length");
    if (failed(l))
      return failure();
    auto li = toInt(nc, *l, "frame_length");
    if (failed(li))
      return failure();
    frameLen = *li;
  }
  if (winLen < 0)
    winLen = frameLen;
  if (frameLen < 1 || winLen < 1 || frameLen > sigLen)
    return nodeError(nc) << "frame_length " << frameLen << " must be in [1, signal length "
                         << sigLen << "]";
  int64_t frames = 1 + (sigLen - frameLen) / frameStep;

  Location loc = nc.loc;
  Value x = *sig;
  // Frames reaching past the end read zeros.
  int64_t need = (frames - 1) * frameStep + winLen;
  if (need > sigLen) {
    auto pt = RankedTensorType::get({batch, need, comps}, st->getElementType());
    x = graph::PadOp::create(b, loc, pt, x, b.getDenseI64ArrayAttr({0, 0, 0}),
                             b.getDenseI64ArrayAttr({0, need - sigLen, 0}),
                             b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
  }
  // [batch, frames, W, C] = x[:, f * step + n, :].
  if (failed(checkShape(nc, {batch, frames, winLen, comps}, st->getElementType(),
                        "framed signal of shape")))
    return failure();
  auto i64 = b.getI64Type();
  Value indices;
  if (frames * winLen <= kMaxIotaConstant) {
    SmallVector<int64_t> idx;
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t n = 0; n < winLen; ++n)
        idx.push_back(f * frameStep + n);
    indices = intConstantOf(loc, RankedTensorType::get({frames, winLen}, i64), idx);
  } else {
    // At run time (a long signal): [frames, 1] * step + [1, W].
    Value f = iotaAlong(loc, 2, 0, frames, i64);
    if (frameStep != 1)
      f = bin<graph::MulOp>(loc, f, intConstantOf(loc, RankedTensorType::get({}, i64), {frameStep}));
    indices = bin<graph::AddOp>(loc, f, iotaAlong(loc, 2, 1, winLen, i64));
  }
  Value framesV = graph::GatherOp::create(
      b, loc, RankedTensorType::get({batch, frames, winLen, comps}, st->getElementType()), x,
      indices, b.getI64IntegerAttr(1));
  // A constant window scales the DFT matrix's rows; a run-time one multiplies the frames.
  SmallVector<double> weights;
  if (*window && window->getDefiningOp<graph::ConstantOp>()) {
    auto w = getConstantFloats(nc, *window, "window");
    if (failed(w))
      return failure();
    weights = *w;
  } else if (*window) {
    framesV = bin<graph::MulOp>(loc, framesV, reshape(loc, *window, {winLen, 1}));
  }
  auto y = buildDFT(nc, framesV, 2, frameLen, /*inverse=*/false, *onesided != 0, weights);
  if (failed(y))
    return failure();
  return define(nc, 0, *y);
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

/// MelWeightMatrix (spec, opset 17; ONNX's reference op_mel_weight_matrix.py for the bin
/// arithmetic): mel(f) = 2595 * log10(1 + f / 700); num_mel_bins + 2 edges evenly spaced
/// in mel from lower_edge_hertz, mapped back to hertz and to DFT bins
/// floor((dft_length + 1) * f / sample_rate); triangles with peak 1.
LogicalResult Importer::importMelWeightMatrix(const NodeCtx &nc) {
  if (failed(checkArity(nc, 5, 5, 1)))
    return failure();
  SmallVector<double> v;
  const char *names[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
                         "upper_edge_hertz"};
  for (int i = 0; i < 5; ++i) {
    auto in = getInput(nc, i);
    if (failed(in))
      return failure();
    auto c = getConstantScalar(nc, *in, names[i]);
    if (failed(c))
      return failure();
    v.push_back(*c);
  }
  auto elem = getOutputDataType(nc);
  if (failed(elem))
    return failure();
  auto numMelI = toInt(nc, v[0], "num_mel_bins"), dftLengthI = toInt(nc, v[1], "dft_length"),
       sampleRateI = toInt(nc, v[2], "sample_rate");
  if (failed(numMelI) || failed(dftLengthI) || failed(sampleRateI))
    return failure();
  int64_t numMel = *numMelI, dftLength = *dftLengthI, sampleRate = *sampleRateI;
  if (numMel < 1 || dftLength < 1 || sampleRate < 1 || numMel > 65536 || dftLength > (1 << 24))
    return nodeError(nc) << "num_mel_bins (" << numMel << "), dft_length (" << dftLength
                         << ") and sample_rate (" << sampleRate << ") must be positive";
  int64_t specBins = dftLength / 2 + 1;
  // Before any allocation sized by them (num_mel_bins near 2^62; aicc-fuzz-onnx audit).
  if (failed(checkTable(nc, CheckedInt(specBins) * (CheckedInt(numMel) + 2), 8,
                        "the mel weight matrix")))
    return failure();
  // The reference evaluates the mel edges in float32 (its inputs' type).
  float lowMel = 2595.0f * std::log10(1.0f + (float)v[3] / 700.0f);
  float highMel = 2595.0f * std::log10(1.0f + (float)v[4] / 700.0f);
  float melStep = (highMel - lowMel) / (float)(numMel + 2);
  SmallVector<int64_t> edge(numMel + 2);
  for (int64_t i = 0; i < numMel + 2; ++i) {
    double mel = (double)i * (double)melStep + (double)lowMel;
    double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
    double e = std::floor((double)(dftLength + 1) * hz / (double)sampleRate);
    // Edges outside [-1, specBins] are refused below (at()); keep the cast defined.
    edge[i] = std::isfinite(e) ? (int64_t)std::clamp(e, -2.0, (double)specBins + 1) : -2;
  }
  SmallVector<double> out(specBins * numMel, 0.0);
  auto at = [&](int64_t j, int64_t i) -> LogicalResult {
    if (j < 0 || j >= specBins)
      return nodeError(nc) << "mel band " << i << " reaches DFT bin " << j << ", outside the "
                           << specBins << " bins of a onesided DFT of length " << dftLength;
    return success();
  };
  for (int64_t i = 0; i < numMel; ++i) {
    int64_t lo = edge[i], center = edge[i + 1], hi = edge[i + 2];
    if (center == lo) {
      if (failed(at(center, i)))
        return failure();
      out[center * numMel + i] = 1.0;
    } else {
      for (int64_t j = lo; j <= center; ++j) {
        if (failed(at(j, i)))
          return failure();
        out[j * numMel + i] = (double)(j - lo) / (double)(center - lo);
      }
    }
    for (int64_t j = center; j < hi; ++j) {
      if (failed(at(j, i)))
        return failure();
      out[j * numMel + i] = (double)(hi - j) / (double)(hi - center);
    }
  }
  return define(nc, 0,
                constantOf(nc.loc, RankedTensorType::get({specBins, numMel}, *elem), out, nc.name));
}
