//===- ImportResize.cpp - ONNX Resize / Upsample -> graph dialect ------------===//
//
// Resize / Upsample are separable: ONNX's reference implementation
// (onnx/reference/ops/op_resize.py, _interpolate_nd_with_x) interpolates along
// one axis after the other, each output position o of an axis taking
// sum_t coeff_t(o) * in[idx_t(o)] with coefficients and indices that depend only
// on o, the axis sizes and the attributes. With compile-time scales / sizes /
// roi these taps are constants: the importer evaluates the reference's 1-D
// formulas here and emits, per resized axis, one constant-index gather per tap
// (a plain gather for nearest), scaled by a constant coefficient vector and
// summed. tf_crop_and_resize positions outside the input take
// extrapolation_value (a where over a constant mask).
//
//
// Registered with the spatial family (ImportSpatial.cpp).
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace aicc::onnx_import::detail;

//===----------------------------------------------------------------------===//
// Resize / Upsample
//===----------------------------------------------------------------------===//

namespace {
enum class ResizeMode { Nearest, Linear, Cubic };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::Nearest;
  std::string coordMode;   // coordinate_transformation_mode
  std::string nearestMode; // nearest_mode
  double cubicA = -0.75;
  bool excludeOutside = false, antialias = false;
};

/// One axis to resample: sizes, the reference's scale_factor, and the roi
/// (tf_crop_and_resize only).
struct ResizeAxis {
  int64_t in = 1, out = 1;
  double scale = 1;
  double roiStart = 0, roiEnd = 1;
};

/// out[o] = sum_t coeff[t][o] * in[index[t][o]] (taps with coefficient 0
/// dropped, rows padded with coefficient 0); extrap[o]: the position takes
/// extrapolation_value instead.
struct ResizeTaps {
  SmallVector<SmallVector<int64_t>> index;
  SmallVector<SmallVector<double>> coeff;
  SmallVector<bool> extrap;
  bool anyExtrap = false;
};
} // namespace

/// The interpolation coefficients for the fractional position `ratio` in (0, 1]
/// (onnx/reference/ops/op_resize.py: _nearest_coeffs, _linear_coeffs,
/// _linear_coeffs_antialias, _cubic_coeffs, _cubic_coeffs_antialias). The
/// antialias filters are stretched by 1 / min(scale, 1) (ONNX spec, Resize-18
/// `antialias`), which widens them when downsampling.
static SmallVector<double> resizeCoeffs(const ResizeAttrs &a, double ratio, double scale) {
  switch (a.mode) {
  case ResizeMode::Nearest: {
    if (ratio == std::floor(ratio))
      return {0, 1};
    const std::string &m = a.nearestMode;
    if (m == "round_prefer_floor")
      return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
    if (m == "round_prefer_ceil")
      return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (m == "floor")
      return {1, 0};
    return {0, 1}; // ceil
  }
  case ResizeMode::Linear: {
    if (!a.antialias)
      return {1 - ratio, ratio};
    double s = std::min(scale, 1.0);
    int64_t start = (int64_t)std::floor(-1 / s) + 1;
    int64_t footprint = 2 - 2 * start;
    SmallVector<double> c;
    double sum = 0;
    for (int64_t i = 0; i < footprint; ++i) {
      double arg = ((double)(start + i) - ratio) * s;
      c.push_back(std::clamp(1 - std::abs(arg), 0.0, 1.0));
      sum += c.back();
    }
    for (double &v : c)
      v /= sum;
    return c;
  }
  case ResizeMode::Cubic: {
    double A = a.cubicA;
    if (!a.antialias) {
      double r = ratio, q = 1 - ratio;
      return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
              ((A + 2) * r - (A + 3)) * r * r + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
              ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A};
    }
    double s = std::min(scale, 1.0);
    // Keys' cubic convolution kernel with parameter A.
    auto kernel = [A](double x) {
      x = std::abs(x);
      double x2 = x * x, x3 = x * x2;
      if (x <= 1)
        return (A + 2) * x3 - (A + 3) * x2 + 1;
      if (x < 2)
        return A * x3 - 5 * A * x2 + 8 * A * x - 4 * A;
      return 0.0;
    };
    int64_t iStart = (int64_t)std::floor(-2 / s) + 1, iEnd = 2 - iStart;
    SmallVector<double> c;
    double sum = 0;
    for (int64_t i = iStart; i < iEnd; ++i) {
      c.push_back(kernel(s * ((double)i - ratio)));
      sum += c.back();
    }
    for (double &v : c)
      v /= sum;
    return c;
  }
  }
  return {};
}

/// Coefficients per output position of an axis resampled with `a` at `scale`
/// (the size of resizeCoeffs' result, which is the same for every position), or
/// nullopt when the antialias footprint of a tiny scale does not fit int64.
static std::optional<int64_t> resizeTapCount(const ResizeAttrs &a, double scale) {
  double s = std::min(scale, 1.0);
  if (a.mode == ResizeMode::Nearest || !a.antialias)
    return a.mode == ResizeMode::Cubic ? 4 : 2;
  // _linear_coeffs_antialias: 2 - 2 * (floor(-1 / s) + 1); cubic: -2 / s.
  double start = std::floor((a.mode == ResizeMode::Linear ? -1 : -2) / s) + 1;
  double n = 2 - 2 * start;
  if (!(n >= 1 && n < 9.0e15))
    return std::nullopt;
  return (int64_t)n;
}

/// The taps of output position `o` of one axis, following _interpolate_1d_with_x
/// of onnx/reference/ops/op_resize.py: the output coordinate maps to x_original
/// by coordinate_transformation_mode (with the reference's real-valued
/// output_width = scale * input_width), the n = len(coeffs) neighbours are the
/// n positions of the edge-padded input (pad ceil(n/2)) nearest to x_original
/// (ties to the smaller), positions outside the input read the edge element,
/// and exclude_outside zeroes and renormalizes their coefficients.
/// tf_half_pixel_for_nn (Resize-11) maps x to (x + 0.5) / scale. `row` gets the
/// (input index, coefficient) pairs with a non-zero coefficient; returns whether
/// the position takes extrapolation_value instead (tf_crop_and_resize).
static bool resizeRow(const ResizeAttrs &a, const ResizeAxis &ax, int64_t o,
                      SmallVectorImpl<std::pair<int64_t, double>> &row) {
  row.clear();
  int64_t in = ax.in, out = ax.out;
  double scale = ax.scale, outW = scale * (double)in, lastIn = (double)(in - 1);
  const std::string &cm = a.coordMode;
  double x = (double)o, xo;
  if (cm == "align_corners") {
    xo = outW == 1 ? 0.0 : x * lastIn / (outW - 1);
  } else if (cm == "asymmetric") {
    xo = x / scale;
  } else if (cm == "tf_half_pixel_for_nn") {
    xo = (x + 0.5) / scale;
  } else if (cm == "tf_crop_and_resize") {
    double span = ax.roiEnd - ax.roiStart;
    xo = outW == 1 ? span * lastIn / 2 : x * span * lastIn / (outW - 1);
    xo += ax.roiStart * lastIn;
    // TF CropAndResize: positions outside the input are extrapolation_value.
    if (!(xo >= 0 && xo <= lastIn))
      return true;
  } else if (cm == "pytorch_half_pixel") {
    xo = outW == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  } else if (cm == "half_pixel_symmetric") {
    double adjustment = (double)out / outW, center = (double)in / 2;
    xo = center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  } else { // half_pixel
    xo = (x + 0.5) / scale - 0.5;
  }
  double fl = std::floor(xo);
  double ratio = xo == fl ? 1.0 : xo - fl;
  SmallVector<double> c = resizeCoeffs(a, ratio, scale);
  int64_t n = c.size(), pad = (n + 1) / 2, len = in + 2 * pad;
  double xp = xo + (double)pad;
  // The n nearest of [0, len) to xp lie within n + 1 of xp clamped to the range.
  int64_t mid = (int64_t)std::clamp(std::floor(xp), 0.0, (double)(len - 1));
  SmallVector<int64_t> cand;
  for (int64_t j = std::max<int64_t>(0, mid - n - 1); j < std::min(len, mid + n + 2); ++j)
    cand.push_back(j);
  std::stable_sort(cand.begin(), cand.end(), [&](int64_t p, int64_t q) {
    return std::abs(xp - (double)p) < std::abs(xp - (double)q);
  });
  cand.resize(std::min<int64_t>(n, cand.size()));
  llvm::sort(cand);
  if (a.excludeOutside) {
    double sum = 0;
    for (size_t i = 0; i < cand.size(); ++i) {
      int64_t idx = cand[i] - pad;
      if (idx < 0 || idx >= in)
        c[i] = 0;
      sum += c[i];
    }
    if (sum != 0)
      for (double &v : c)
        v /= sum;
  }
  for (size_t i = 0; i < cand.size(); ++i)
    if (c[i] != 0)
      row.push_back({std::clamp<int64_t>(cand[i] - pad, 0, in - 1), c[i]});
  return false;
}

/// The taps of one axis (resizeRow for every output position), `n` taps per
/// position at most (resizeTapCount); the caller has checked the tables' size.
static ResizeTaps resizeAxisTaps(const ResizeAttrs &a, const ResizeAxis &ax, int64_t n) {
  int64_t out = ax.out;
  ResizeTaps taps;
  taps.extrap.assign(out, false);
  taps.index.assign(n, SmallVector<int64_t>(out, 0));
  taps.coeff.assign(n, SmallVector<double>(out, 0.0));
  size_t t = 1;
  SmallVector<std::pair<int64_t, double>> row;
  for (int64_t o = 0; o < out; ++o) {
    if (resizeRow(a, ax, o, row)) {
      taps.extrap[o] = taps.anyExtrap = true;
      continue;
    }
    t = std::max(t, row.size());
    for (int64_t k = 0; k < n; ++k) {
      if (k < (int64_t)row.size()) {
        taps.index[k][o] = row[k].first;
        taps.coeff[k][o] = row[k].second;
      } else if (!row.empty()) {
        taps.index[k][o] = row[0].first;
      }
    }
  }
  taps.index.resize(std::min<size_t>(t, n));
  taps.coeff.resize(std::min<size_t>(t, n));
  return taps;
}

/// Whether nearest resampling of the axis repeats every input element k = out / in
/// times (output o reads input o / k): then it is an expand, without index tables.
/// The nearest index is non-decreasing in o for every coordinate mode but
/// tf_crop_and_resize (x_original is increasing in o, the rounding monotone), so
/// checking the first and last position of each block of k suffices. Axes longer than
/// kMaxRepeatCheck are not checked (two rows per input element: 2^26 of them took past the
/// fuzzer's 30 s; aicc-fuzz-onnx audit) and take the table path, whose size is capped.
static bool resizeIsRepeat(const ResizeAttrs &a, const ResizeAxis &ax) {
  constexpr int64_t kMaxRepeatCheck = int64_t(1) << 22;
  if (a.mode != ResizeMode::Nearest || a.coordMode == "tf_crop_and_resize" || ax.in < 1 ||
      ax.in > kMaxRepeatCheck || ax.out % ax.in != 0)
    return false;
  int64_t k = ax.out / ax.in;
  SmallVector<std::pair<int64_t, double>> row;
  for (int64_t j = 0; j < ax.in; ++j)
    for (int64_t o : {j * k, j * k + k - 1}) {
      if (resizeRow(a, ax, o, row) || row.size() != 1 || row[0].first != j ||
          row[0].second != 1)
        return false;
    }
  return true;
}

/// More taps than this per output position (antialias filters when downsampling
/// strongly) resample with a dense matmul instead of one gather per tap.
constexpr size_t kResizeMaxTaps = 32;

/// A constant of `type` (float element type) holding `values` rounded to it.
static DenseElementsAttr floatConstant(RankedTensorType type, ArrayRef<double> values) {
  auto ft = cast<FloatType>(type.getElementType());
  SmallVector<APFloat> v;
  for (double d : values) {
    APFloat f(d);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    v.push_back(f);
  }
  return DenseElementsAttr::get(type, v);
}

Value Importer::resampleAxisMatmul(Location loc, Value x, int64_t axis, int64_t out,
                                   ArrayRef<double> w) {
  auto t = cast<RankedTensorType>(x.getType());
  Type e = t.getElementType();
  int64_t in = t.getDimSize(axis), P = 1, Q = 1;
  for (int64_t d = 0; d < axis; ++d)
    P *= t.getDimSize(d);
  for (int64_t d = axis + 1; d < t.getRank(); ++d)
    Q *= t.getDimSize(d);
  SmallVector<int64_t> shape(t.getShape());
  shape[axis] = out;
  Value y;
  if (Q == 1) {
    // [P, in] x W^T [in, out].
    SmallVector<double> wt(in * out);
    for (int64_t o = 0; o < out; ++o)
      for (int64_t i = 0; i < in; ++i)
        wt[i * out + o] = w[o * in + i];
    Value c = createConstant(loc, floatConstant(RankedTensorType::get({in, out}, e), wt));
    y = graph::MatMulOp::create(b, loc, RankedTensorType::get({P, out}, e),
                                reshape(loc, x, {P, in}), c);
  } else {
    // W [out, in] x [P, in, Q] (W broadcast over P).
    Value c = createConstant(loc, floatConstant(RankedTensorType::get({out, in}, e), w));
    y = graph::MatMulOp::create(b, loc, RankedTensorType::get({P, out, Q}, e), c,
                                reshape(loc, x, {P, in, Q}));
  }
  return reshape(loc, y, shape);
}

Value Importer::resampleAxis(Location loc, Value x, int64_t axis, ArrayRef<int64_t> index,
                             ArrayRef<double> coeff) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t out = index.size();
  SmallVector<int64_t> shape(t.getShape());
  shape[axis] = out;
  auto idxType = RankedTensorType::get({out}, b.getI64Type());
  Value idx = createConstant(loc, DenseElementsAttr::get(idxType, index));
  Value g = graph::GatherOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), x,
                                    idx, b.getI64IntegerAttr(axis));
  if (llvm::all_of(coeff, [](double c) { return c == 1; }))
    return g;
  SmallVector<int64_t> cshape(t.getRank(), 1);
  cshape[axis] = out;
  Value c =
      createConstant(loc, floatConstant(RankedTensorType::get(cshape, t.getElementType()), coeff));
  return bin<graph::MulOp>(loc, g, c);
}

LogicalResult Importer::importResize(const NodeCtx &nc) {
  bool upsample = nc.opType() == "Upsample";
  // Operands (ONNX spec): Upsample-7: X (scales an attribute); Upsample-9/10,
  // Resize-10: X, scales; Resize-11+: X, roi, scales, sizes.
  if (upsample && opset < 7)
    return nodeError(nc) << "Upsample before opset 7 (height_scale / width_scale) is not "
                            "supported";
  int minIn = upsample ? (opset < 9 ? 1 : 2) : (opset < 11 ? 2 : 1);
  int maxIn = upsample ? (opset < 9 ? 1 : 2) : (opset < 11 ? 2 : 4);
  if (failed(checkArity(nc, minIn, maxIn, 1)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  int64_t rank = xt.getRank();
  if (rank < 1)
    return nodeError(nc) << "X must have rank >= 1";

  // Attributes. Upsample and Resize-10 interpolate at x / scale (asymmetric);
  // their nearest takes the floor (Upsample's reference repeats each element
  // `scale` times).
  bool legacy = upsample || opset < 11;
  ResizeAttrs a;
  auto modeS = getString(nc, "mode", "nearest");
  if (failed(modeS))
    return failure();
  if (*modeS == "nearest")
    a.mode = ResizeMode::Nearest;
  else if (*modeS == "linear" || (upsample && *modeS == "bilinear"))
    a.mode = ResizeMode::Linear;
  else if (*modeS == "cubic" && !legacy)
    a.mode = ResizeMode::Cubic;
  else
    return nodeError(nc) << "mode '" << *modeS << "' is not supported (nearest, linear"
                         << (legacy ? "" : ", cubic") << ")";
  double extrapolation = 0;
  if (legacy) {
    a.coordMode = "asymmetric";
    a.nearestMode = "floor";
  } else {
    auto cm = getString(nc, "coordinate_transformation_mode", "half_pixel");
    auto nm = getString(nc, "nearest_mode", "round_prefer_floor");
    auto ca = getFloat(nc, "cubic_coeff_a", -0.75f);
    auto eo = getInt(nc, "exclude_outside", 0);
    auto ev = getFloat(nc, "extrapolation_value", 0.0f);
    if (failed(cm) || failed(nm) || failed(ca) || failed(eo) || failed(ev))
      return failure();
    a.coordMode = *cm;
    a.nearestMode = *nm;
    a.cubicA = *ca;
    a.excludeOutside = *eo != 0;
    extrapolation = *ev;
    bool known = llvm::is_contained({"half_pixel", "pytorch_half_pixel", "align_corners",
                                     "asymmetric", "tf_crop_and_resize"},
                                    a.coordMode) ||
                 (a.coordMode == "tf_half_pixel_for_nn" && opset < 13) ||
                 (a.coordMode == "half_pixel_symmetric" && opset >= 19);
    if (!known)
      return nodeError(nc) << "coordinate_transformation_mode '" << a.coordMode
                           << "' is not supported at opset " << opset;
    if (!llvm::is_contained({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                            a.nearestMode))
      return nodeError(nc) << "nearest_mode '" << a.nearestMode << "' is not supported";
  }
  SmallVector<int64_t> axes;
  std::string policy = "stretch";
  if (!upsample && opset >= 18) {
    auto aa = getInt(nc, "antialias", 0);
    auto ax = getInts(nc, "axes");
    auto kp = getString(nc, "keep_aspect_ratio_policy", "stretch");
    if (failed(aa) || failed(ax) || failed(kp))
      return failure();
    // Antialiasing applies to linear and cubic only (ONNX spec, Resize-18).
    a.antialias = *aa != 0 && a.mode != ResizeMode::Nearest;
    policy = *kp;
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return nodeError(nc) << "keep_aspect_ratio_policy '" << policy << "' is not supported";
    if (*ax) {
      for (int64_t v : **ax) {
        auto n = normalizeAxis(nc, v, rank, /*allowRank=*/false);
        if (failed(n))
          return failure();
        if (llvm::is_contained(axes, *n))
          return nodeError(nc) << "axes repeat axis " << *n;
        axes.push_back(*n);
      }
    }
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  int64_t na = axes.size();

  // Scales or sizes (compile-time constants).
  std::optional<SmallVector<double>> scales;
  std::optional<SmallVector<int64_t>> sizes;
  if (upsample && opset < 9) {
    const auto *sa = findAttr(nc, "scales");
    if (!sa)
      return nodeError(nc) << "attribute 'scales' is required";
    if (attrType(*sa) != onnx::AttributeProto::FLOATS)
      return attrTypeError(nc, *sa, onnx::AttributeProto::FLOATS);
    scales = SmallVector<double>(sa->floats().begin(), sa->floats().end());
  } else {
    int scalesIdx = legacy ? 1 : 2;
    auto sv = getOptionalInput(nc, scalesIdx), zv = getOptionalInput(nc, 3);
    if (failed(sv) || failed(zv))
      return failure();
    if (*sv) {
      auto st = cast<RankedTensorType>(sv->getType());
      if (st.getRank() != 1)
        return nodeError(nc) << "scales must be 1-D, got " << st;
      if (st.getDimSize(0) != 0) {
        if (!isa<FloatType>(st.getElementType()))
          return nodeError(nc) << "scales must be a float tensor, got " << st;
        auto v = getConstantFloats(nc, *sv, "scales");
        if (failed(v))
          return failure();
        scales = *v;
      }
    }
    if (*zv) {
      auto zt = cast<RankedTensorType>(zv->getType());
      if (zt.getRank() != 1)
        return nodeError(nc) << "sizes must be 1-D, got " << zt;
      if (zt.getDimSize(0) != 0) {
        auto v = getConstantInts(nc, *zv, "sizes");
        if (failed(v))
          return failure();
        sizes = *v;
      }
    }
  }
  if (scales.has_value() == sizes.has_value())
    return nodeError(nc) << "exactly one of scales and sizes must be given (non-empty)";
  if ((scales && (int64_t)scales->size() != na) || (sizes && (int64_t)sizes->size() != na))
    return nodeError(nc) << (scales ? "scales" : "sizes") << " has "
                         << (scales ? scales->size() : sizes->size()) << " entries, expected "
                         << na;
  if (!sizes && policy != "stretch")
    return nodeError(nc) << "keep_aspect_ratio_policy applies to sizes only";

  SmallVector<ResizeAxis> spec(rank);
  for (int64_t d = 0; d < rank; ++d) {
    spec[d].in = spec[d].out = xt.getDimSize(d);
    if (spec[d].in < 1)
      return nodeError(nc) << "X has an empty dim " << d;
  }
  // Output sizes (onnx/reference/ops/op_resize.py, _interpolate_nd): from scales,
  // floor(scale * in); from sizes, scale = size / in, or with keep_aspect_ratio_policy
  // one scale (min / max over `axes`) and size = round_half_up(scale * in).
  if (scales) {
    for (int64_t i = 0; i < na; ++i) {
      double s = (*scales)[i];
      if (!(s > 0) || !std::isfinite(s))
        return nodeError(nc) << "scale " << s << " must be positive and finite";
      ResizeAxis &r = spec[axes[i]];
      r.scale = s;
      double o = std::floor(s * (double)r.in);
      if (o < 1 || o > (double)(int64_t(1) << 31))
        return nodeError(nc) << "scale " << s << " gives output size " << o << " for dim "
                             << axes[i] << " of size " << r.in;
      r.out = (int64_t)o;
    }
  } else {
    for (int64_t i = 0; i < na; ++i)
      if ((*sizes)[i] < 1)
        return nodeError(nc) << "sizes must be positive, got " << (*sizes)[i];
    if (policy == "stretch") {
      for (int64_t i = 0; i < na; ++i) {
        ResizeAxis &r = spec[axes[i]];
        r.out = (*sizes)[i];
        r.scale = (double)r.out / (double)r.in;
      }
    } else {
      double s = policy == "not_larger" ? INFINITY : 0;
      for (int64_t i = 0; i < na; ++i) {
        double si = (double)(*sizes)[i] / (double)spec[axes[i]].in;
        s = policy == "not_larger" ? std::min(s, si) : std::max(s, si);
      }
      for (int64_t i = 0; i < na; ++i) {
        ResizeAxis &r = spec[axes[i]];
        r.scale = s;
        double o = s * (double)r.in + 0.5;
        if (!(o < (double)(int64_t(1) << 62)))
          return nodeError(nc) << "keep_aspect_ratio_policy gives a dim " << axes[i]
                               << " of size " << o;
        r.out = (int64_t)o;
        if (r.out < 1)
          return nodeError(nc) << "keep_aspect_ratio_policy gives an empty dim " << axes[i];
      }
    }
  }
  if (a.coordMode == "tf_crop_and_resize") {
    auto rv = getOptionalInput(nc, 1);
    if (failed(rv))
      return failure();
    if (!*rv)
      return nodeError(nc) << "tf_crop_and_resize needs the roi input";
    auto roi = getConstantFloats(nc, *rv, "roi");
    if (failed(roi))
      return failure();
    if ((int64_t)roi->size() != 2 * na)
      return nodeError(nc) << "roi has " << roi->size() << " entries, expected " << 2 * na;
    for (int64_t i = 0; i < na; ++i) {
      spec[axes[i]].roiStart = (*roi)[i];
      spec[axes[i]].roiEnd = (*roi)[na + i];
    }
  }

  // Resample each axis whose taps are not the identity. 16-bit floats
  // interpolate in f32 (the reference computes in float64, then casts).
  Value y = *x;
  Type elem = xt.getElementType();
  bool isFloat = isGraphFloat(elem);
  struct AxisWork {
    int64_t dim;
    ResizeTaps taps;
    bool select; // one tap of coefficient 1 (or extrapolation) per output position
  };
  SmallVector<AxisWork> work;
  bool weighted = false;
  SmallVector<int64_t> repeatDims;
  for (int64_t d = 0; d < rank; ++d) {
    const ResizeAxis &r = spec[d];
    if (r.in != r.out && resizeIsRepeat(a, r)) {
      repeatDims.push_back(d);
      continue;
    }
    // The taps are constants of the bundle (an index and a coefficient table per tap):
    // capped, checked before they are computed.
    std::optional<int64_t> n = resizeTapCount(a, r.scale);
    if (!n || failed(checkTable(nc, CheckedInt(*n) * r.out, 16,
                                "resampling dim " + std::to_string(d) + " (" +
                                    std::to_string(r.in) + " -> " + std::to_string(r.out) +
                                    ")")))
      return n ? failure() : nodeError(nc) << "scale " << r.scale << " of dim " << d
                                           << " is too small for antialiasing";
    ResizeTaps taps = resizeAxisTaps(a, r, *n);
    bool identity = r.in == r.out && !taps.anyExtrap && taps.index.size() == 1;
    for (int64_t o = 0; identity && o < r.out; ++o)
      identity = taps.index[0][o] == o && taps.coeff[0][o] == 1;
    if (identity)
      continue;
    bool select = taps.index.size() == 1;
    for (int64_t o = 0; select && o < r.out; ++o)
      select = taps.extrap[o] || taps.coeff[0][o] == 1;
    if (!select && !isFloat)
      return nodeError(nc) << "mode '" << *modeS << "' on element type " << elem
                           << " is not supported (float inputs only; nearest takes any type)";
    weighted |= !select;
    work.push_back({d, std::move(taps), select});
  }
  // The output size is checked before anything of its size is built.
  SmallVector<int64_t> outShape;
  for (const ResizeAxis &r : spec)
    outShape.push_back(r.out);
  if (failed(checkShape(nc, outShape, elem, "output of shape")))
    return failure();
  // Whole repeats: x[.., i, ..] -> [.., i, 1, ..] expanded to [.., i, k, ..], merged.
  for (int64_t d : repeatDims) {
    auto t = cast<RankedTensorType>(y.getType());
    SmallVector<int64_t> split(t.getShape()), rep(t.getShape()), merged(t.getShape());
    int64_t k = spec[d].out / spec[d].in;
    split.insert(split.begin() + d + 1, 1);
    rep.insert(rep.begin() + d + 1, k);
    merged[d] = spec[d].out;
    Value v = reshape(nc.loc, y, split);
    v = graph::ExpandOp::create(b, nc.loc, RankedTensorType::get(rep, t.getElementType()), v);
    y = reshape(nc.loc, v, merged);
  }
  bool widen = weighted && elem.getIntOrFloatBitWidth() < 32;
  if (widen)
    y = castTo(nc.loc, y, b.getF32Type());
  SmallVector<std::pair<int64_t, SmallVector<bool>>> masks;
  for (auto &[d, taps, select] : work) {
    int64_t out = taps.extrap.size();
    if (select) {
      y = resampleAxis(nc.loc, y, d, taps.index[0], SmallVector<double>(out, 1.0));
    } else if (taps.index.size() > kResizeMaxTaps) {
      // Wide antialias filters (strong downsampling): one matmul with W[out, in].
      int64_t in = cast<RankedTensorType>(y.getType()).getDimSize(d);
      if (failed(checkTable(nc, CheckedInt(out) * in, 8,
                            "the resampling matrix of dim " + std::to_string(d))))
        return failure();
      SmallVector<double> w(out * in, 0.0);
      for (size_t k = 0; k < taps.index.size(); ++k)
        for (int64_t o = 0; o < out; ++o)
          w[o * in + taps.index[k][o]] += taps.coeff[k][o];
      y = resampleAxisMatmul(nc.loc, y, d, out, w);
    } else {
      Value sum;
      for (size_t k = 0; k < taps.index.size(); ++k) {
        Value term = resampleAxis(nc.loc, y, d, taps.index[k], taps.coeff[k]);
        sum = sum ? bin<graph::AddOp>(nc.loc, sum, term) : term;
      }
      y = sum;
    }
    if (taps.anyExtrap)
      masks.push_back({d, taps.extrap});
  }
  if (widen)
    y = castTo(nc.loc, y, elem);
  // tf_crop_and_resize: an output outside the input along any axis is
  // extrapolation_value (the reference returns it from the 1-D step, and every
  // later 1-D step keeps it: their coefficients sum to 1).
  if (!masks.empty()) {
    Type e = xt.getElementType();
    Value ev;
    if (isFloat) {
      ev = scalarF(nc.loc, e, extrapolation);
    } else {
      auto it = dyn_cast<IntegerType>(e);
      if (!it)
        return nodeError(nc) << "extrapolation on element type " << e << " is not supported";
      // The value must be one of the element type's (a cast of anything else is undefined
      // behaviour; aicc-fuzz-onnx).
      unsigned w = std::min(it.getWidth(), 63u);
      double lo = it.isUnsigned() || w == 1 ? 0.0 : -std::ldexp(1.0, w - 1),
             hi = it.isUnsigned() || w == 1 ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
      if (!(extrapolation >= lo && extrapolation <= hi))
        return nodeError(nc) << "extrapolation_value " << extrapolation << " is not a value of "
                             << e;
      ev = createConstant(nc.loc, DenseElementsAttr::get(
                                      RankedTensorType::get({}, e),
                                      APInt(64, (uint64_t)(int64_t)extrapolation)
                                          .trunc(it.getWidth())));
    }
    for (auto &[d, m] : masks) {
      SmallVector<int64_t> mshape(rank, 1);
      mshape[d] = m.size();
      Value mv = createConstant(nc.loc,
                                DenseElementsAttr::get(RankedTensorType::get(mshape, b.getI1Type()),
                                                       ArrayRef<bool>(m.begin(), m.end())));
      y = graph::WhereOp::create(b, nc.loc, y.getType(), mv, ev, y);
    }
  }
  return define(nc, 0, y);
}
