//===- ImportSpatial.cpp - ONNX spatial ops -> graph dialect ----------------===//
//
// ConvTranspose, GridSample, as decompositions into existing graph ops; the family's
// registration, which also names Resize and Upsample (ImportResize.cpp).
//
// ConvTranspose is a stride-1 Conv over the input with strides-1 zeros inserted
// between elements, with the weight's in/out channels swapped per group and its
// spatial dims flipped (all as graph ops: the weight may be a graph input).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace aicc::onnx_import::detail;

void Importer::registerSpatialOps(OpTable &t) {
  t.add("Resize", 10, handle<&Importer::importResize>);
  t.add("Upsample", 1, handle<&Importer::importResize>);
  t.add("ConvTranspose", 1, handle<&Importer::importConvTranspose>);
  t.add("GridSample", 16, handle<&Importer::importGridSample>);
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

/// ConvTranspose (ONNX spec, opsets 1-11+):
///   Y[n, g*M/G + m, o] = B[g*M/G + m]
///     + sum_{c, i, kk : o = i*s + kk*d - pad_begin} X[n, g*C/G + c, i] * W[g*C/G + c, m, kk]
/// Output size s*(in-1) + output_padding + (k-1)*d + 1 - pad_begin - pad_end; with
/// output_shape (or SAME_* auto_pad, output_shape = in * s) the pads come from
/// total_padding = s*(in-1) + output_padding + (k-1)*d + 1 - output_shape, split
/// floor(total/2) at the begin for SAME_UPPER and at the end otherwise.
///
/// Built as a stride-1 Conv (dilation d) over Z, the input with s-1 zeros after
/// every element (Z[i*s] = X[i], length in*s), with the weight Wc[g*M/G + m, c, k-1-kk]
/// = W[g*C/G + c, m, kk] and conv pads: begin (k-1)*d - pad_begin, end whatever
/// gives the output size; a negative conv pad crops Z instead. Substituting
/// kk' = k-1-kk shows Y[o] = sum_kk' Z[o - ((k-1)*d - pad_begin) + kk'*d] Wc[kk'].
LogicalResult Importer::importConvTranspose(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), wv = getInput(nc, 1), bias = getOptionalInput(nc, 2);
  auto group = getInt(nc, "group", 1);
  auto autoPad = getString(nc, "auto_pad", "NOTSET");
  auto kattr = getInts(nc, "kernel_shape"), sattr = getInts(nc, "strides"),
       pattr = getInts(nc, "pads"), dattr = getInts(nc, "dilations"),
       opattr = getInts(nc, "output_padding"), osattr = getInts(nc, "output_shape");
  if (failed(x) || failed(wv) || failed(bias) || failed(group) || failed(autoPad) ||
      failed(kattr) || failed(sattr) || failed(pattr) || failed(dattr) || failed(opattr) ||
      failed(osattr))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto wt = cast<RankedTensorType>(wv->getType());
  int64_t rank = xt->getRank(), k = rank - 2, G = *group;
  if (rank < 3 || wt.getRank() != rank)
    return nodeError(nc) << "X and W must have the same rank >= 3, got " << shapeStr(xt->getShape())
                         << " and " << shapeStr(wt.getShape());
  if (wt.getElementType() != xt->getElementType())
    return nodeError(nc) << "X and W element types differ";
  int64_t N = xt->getDimSize(0), C = xt->getDimSize(1);
  // Sizes from attributes are checked arithmetic below (a group or stride near 2^62
  // overflowed; aicc-fuzz-onnx).
  CheckedInt mChecked = CheckedInt(wt.getDimSize(1)) * G;
  if (G < 1 || C % G || wt.getDimSize(0) != C || !mChecked.valid())
    return nodeError(nc) << "W " << shapeStr(wt.getShape()) << " does not match C = " << C
                         << " and group " << G << " (W is [C, M/group, k...])";
  int64_t M = mChecked.value();
  if (*bias) {
    auto bt = cast<RankedTensorType>(bias->getType());
    if (bt.getShape() != ArrayRef<int64_t>{M} || bt.getElementType() != xt->getElementType())
      return nodeError(nc) << "B must be [" << M << "] of X's type, got " << bt;
  }
  ArrayRef<int64_t> kernel = wt.getShape().drop_front(2), in = xt->getShape().drop_front(2);
  if (*kattr && ArrayRef<int64_t>(**kattr) != kernel)
    return nodeError(nc) << "kernel_shape " << shapeStr(**kattr) << " differs from W's "
                         << shapeStr(kernel);
  SmallVector<int64_t> s = *sattr ? **sattr : SmallVector<int64_t>(k, 1);
  SmallVector<int64_t> d = *dattr ? **dattr : SmallVector<int64_t>(k, 1);
  SmallVector<int64_t> op = *opattr ? **opattr : SmallVector<int64_t>(k, 0);
  SmallVector<int64_t> pads = *pattr ? **pattr : SmallVector<int64_t>(2 * k, 0);
  if ((int64_t)s.size() != k || (int64_t)d.size() != k || (int64_t)op.size() != k ||
      (int64_t)pads.size() != 2 * k)
    return nodeError(nc) << "strides / dilations / output_padding / pads do not match " << k
                         << " spatial dims";
  for (int64_t i = 0; i < k; ++i) {
    if (s[i] < 1 || d[i] < 1 || kernel[i] < 1)
      return nodeError(nc) << "strides, dilations and kernel sizes must be positive";
    if (op[i] < 0 || pads[i] < 0 || pads[i + k] < 0)
      return nodeError(nc) << "pads and output_padding must be >= 0";
  }
  const std::string &ap = *autoPad;
  if (ap != "NOTSET" && ap != "VALID" && ap != "SAME_UPPER" && ap != "SAME_LOWER")
    return nodeError(nc) << "auto_pad '" << ap << "' is not supported";
  std::optional<SmallVector<int64_t>> outShape;
  if (*osattr) {
    SmallVector<int64_t> os = **osattr;
    if ((int64_t)os.size() == rank) // some exporters give [N, M, spatial...]
      os.erase(os.begin(), os.begin() + 2);
    if ((int64_t)os.size() != k)
      return nodeError(nc) << "output_shape " << shapeStr(**osattr) << " does not have " << k
                           << " spatial dims";
    outShape = os;
  } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    outShape = SmallVector<int64_t>();
    for (int64_t i = 0; i < k; ++i) {
      CheckedInt o = CheckedInt(in[i]) * s[i];
      if (!o.valid())
        return nodeError(nc) << "the output size of spatial dim " << i << " overflows int64";
      outShape->push_back(o.value());
    }
  }
  SmallVector<int64_t> out(k);
  for (int64_t i = 0; i < k; ++i) {
    CheckedInt full =
        CheckedInt(s[i]) * (in[i] - 1) + op[i] + (CheckedInt(kernel[i]) - 1) * d[i] + 1;
    if (ap == "VALID")
      pads[i] = pads[i + k] = 0;
    CheckedInt total = outShape ? full - (*outShape)[i] : CheckedInt(0);
    if (outShape && total.valid()) {
      int64_t t = total.value();
      int64_t half = t >= 0 ? t / 2 : -((-(t + 1)) / 2 + 1); // floor(t / 2), no -INT64_MIN
      pads[i] = ap == "SAME_UPPER" ? half : t - half;
      pads[i + k] = t - pads[i];
    }
    CheckedInt o = full - pads[i] - pads[i + k];
    if (!full.valid() || !total.valid() || !o.valid())
      return nodeError(nc) << "the output size of spatial dim " << i
                           << " (strides, dilations, pads, output_padding, output_shape) "
                              "overflows int64";
    out[i] = o.value();
    if (out[i] < 1)
      return nodeError(nc) << "output size " << out[i] << " of spatial dim " << i
                           << " is not positive (bad output_shape or pads)";
  }
  Type e = xt->getElementType();
  Location loc = nc.loc;

  // Z: X with s-1 zeros after every element ([.., D, 1, ..] padded to [.., D, s, ..]).
  Value z = *x;
  SmallVector<int64_t> zlen(in);
  if (llvm::any_of(s, [](int64_t v) { return v > 1; })) {
    SmallVector<int64_t> split{N, C}, padded{N, C}, high(2, 0), flat{N, C};
    for (int64_t i = 0; i < k; ++i) {
      split.append({in[i], 1});
      padded.append({in[i], s[i]});
      high.append({0, s[i] - 1});
      zlen[i] = in[i] * s[i];
      flat.push_back(zlen[i]);
    }
    Value r = reshape(loc, z, split);
    SmallVector<int64_t> low(high.size(), 0);
    r = graph::PadOp::create(b, loc, RankedTensorType::get(padded, e), r,
                             b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                             b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
    z = reshape(loc, r, flat);
  }
  // Conv pads; negative ones crop Z.
  SmallVector<int64_t> cpads(2 * k), starts(rank, 0), steps(rank, 1), cropped{N, C};
  bool crop = false;
  for (int64_t i = 0; i < k; ++i) {
    int64_t span = (kernel[i] - 1) * d[i];
    int64_t pb = span - pads[i];
    int64_t pe = out[i] + span - pb - zlen[i];
    int64_t cb = std::max<int64_t>(0, -pb), ce = std::max<int64_t>(0, -pe);
    if (cb + ce >= zlen[i])
      return nodeError(nc) << "pads crop every input element of spatial dim " << i;
    crop |= cb || ce;
    starts[i + 2] = cb;
    cropped.push_back(zlen[i] - cb - ce);
    cpads[i] = std::max<int64_t>(0, pb);
    cpads[i + k] = std::max<int64_t>(0, pe);
  }
  if (crop)
    z = graph::SliceOp::create(b, loc, RankedTensorType::get(cropped, e), z,
                               b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));

  // Conv weight [M, C/G, k...]: in/out channels swapped per group, spatially flipped.
  int64_t Cg = C / G, Mg = M / G;
  SmallVector<int64_t> gshape{G, Cg, Mg}, tshape{G, Mg, Cg}, perm{0, 2, 1}, cw{M, Cg};
  for (int64_t i = 0; i < k; ++i) {
    gshape.push_back(kernel[i]);
    tshape.push_back(kernel[i]);
    perm.push_back(3 + i);
    cw.push_back(kernel[i]);
  }
  Value w = reshape(loc, *wv, gshape);
  w = graph::TransposeOp::create(b, loc, RankedTensorType::get(tshape, e), w,
                                 b.getDenseI64ArrayAttr(perm));
  w = reshape(loc, w, cw);
  if (llvm::any_of(kernel, [](int64_t v) { return v > 1; })) {
    SmallVector<int64_t> fs(2, 0), fsteps(2, 1);
    for (int64_t i = 0; i < k; ++i) {
      fs.push_back(kernel[i] - 1);
      fsteps.push_back(kernel[i] > 1 ? -1 : 1);
    }
    w = graph::SliceOp::create(b, loc, RankedTensorType::get(cw, e), w, b.getDenseI64ArrayAttr(fs),
                               b.getDenseI64ArrayAttr(fsteps));
  }
  SmallVector<int64_t> yshape{N, M};
  yshape.append(out.begin(), out.end());
  return define(nc, 0,
                graph::ConvOp::create(b, loc, RankedTensorType::get(yshape, e), z, w, *bias,
                                      b.getDenseI64ArrayAttr(SmallVector<int64_t>(k, 1)),
                                      b.getDenseI64ArrayAttr(cpads), b.getDenseI64ArrayAttr(d),
                                      b.getI64IntegerAttr(G)));
}

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

/// GridSample (ONNX spec, opsets 16 and 20; onnx/reference/ops/op_grid_sample.py, which
/// follows PyTorch's grid_sampler): Y[n, c, o] = interpolation of X[n, c] at the point
/// grid[n, o, :] (its components in reverse dim order: x = W first), denormalized from
/// [-1, 1] by align_corners to (g + 1) / 2 * (d - 1), else ((g + 1) * d - 1) / 2.
/// nearest rounds halves to even (np.rint, every rank); then a point outside [lo, hi] ([0, d-1]
/// with align_corners, else [-0.5, d-0.5]) is clamped to [0, d-1] (border) or reflected into [lo,
/// hi] (reflection). Taps: nearest 1, linear floor(x) + {0, 1} with 1 - t, t, cubic floor(x) +
/// {-1..2} with Keys' coefficients (A = -0.75); a tap index outside [0, d) reads 0 (zeros), the
/// edge (border) or its mirror image (reflection).
///
/// Built from run-time gathers: per dim and tap, the index (elementwise on the grid)
/// and weight; per tap combination, one gather of X laid out [N * S, C] (S = spatial
/// size) at n * S + flat index, weighted; the sum is transposed back to [N, C, ...].
LogicalResult Importer::importGridSample(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), grid = getInput(nc, 1);
  auto modeS = getString(nc, "mode", opset >= 20 ? "linear" : "bilinear");
  auto padS = getString(nc, "padding_mode", "zeros");
  auto ac = getInt(nc, "align_corners", 0);
  if (failed(x) || failed(grid) || failed(modeS) || failed(padS) || failed(ac))
    return failure();
  auto xt = checkFloat(nc, *x, "X"), gt = checkFloat(nc, *grid, "grid");
  if (failed(xt) || failed(gt))
    return failure();
  // Opset 16 names the modes bilinear / bicubic, opset 20 linear / cubic.
  enum { Nearest, Linear, Cubic } mode;
  if (*modeS == "nearest")
    mode = Nearest;
  else if (*modeS == "bilinear" || *modeS == "linear")
    mode = Linear;
  else if (*modeS == "bicubic" || *modeS == "cubic")
    mode = Cubic;
  else
    return nodeError(nc) << "mode '" << *modeS << "' is not supported (nearest, linear, cubic)";
  const std::string &pm = *padS;
  if (pm != "zeros" && pm != "border" && pm != "reflection")
    return nodeError(nc) << "padding_mode '" << pm << "' is not supported";
  bool align = *ac != 0;
  int64_t rank = xt->getRank(), k = rank - 2;
  if (k < 1 || gt->getRank() != rank || gt->getDimSize(0) != xt->getDimSize(0) ||
      gt->getDimSize(rank - 1) != k)
    return nodeError(nc) << "X " << shapeStr(xt->getShape()) << " and grid "
                         << shapeStr(gt->getShape())
                         << " must be [N, C, D1..Dk] and [N, O1..Ok, k]";
  int64_t N = xt->getDimSize(0), C = xt->getDimSize(1);
  ArrayRef<int64_t> dims = xt->getShape().drop_front(2);
  ArrayRef<int64_t> outDims = gt->getShape().drop_front(1).drop_back(1);
  int64_t S = 1, P = 1;
  for (int64_t d : dims)
    S *= d;
  for (int64_t d : outDims)
    P *= d;
  if (S < 1 || P < 1 || C < 1 || N < 1)
    return nodeError(nc) << "empty tensors are not supported";
  Location loc = nc.loc;
  Type xe = xt->getElementType();
  Type ce = gt->getElementType().isF64() ? gt->getElementType() : b.getF32Type();
  Type i64 = b.getI64Type();
  auto ct = RankedTensorType::get({N, P}, ce);
  auto cst = [&](double v) { return scalarF(loc, ce, v); };
  auto add = [&](Value a, Value c) { return bin<graph::AddOp>(loc, a, c); };
  auto sub = [&](Value a, Value c) { return bin<graph::SubOp>(loc, a, c); };
  auto mul = [&](Value a, Value c) { return bin<graph::MulOp>(loc, a, c); };
  auto clampTo = [&](Value v, double lo, double hi) {
    return bin<graph::MinOp>(loc, bin<graph::MaxOp>(loc, v, cst(lo)), cst(hi));
  };
  auto select = [&](Value c, Value t, Value f) {
    return graph::WhereOp::create(b, loc, ct, c, t, f).getResult();
  };
  auto cmp = [&](auto tag, Value a, Value c) {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, RankedTensorType::get({N, P}, b.getI1Type()), a, c).getResult();
  };
  auto floorOf = [&](Value v) { return graph::FloorOp::create(b, loc, ct, v).getResult(); };

  Value g = castTo(loc, reshape(loc, *grid, {N, P, k}), ce);
  SmallVector<int64_t> stride(k, 1);
  for (int64_t i = k - 2; i >= 0; --i)
    stride[i] = stride[i + 1] * dims[i + 1];
  // Per dim: (index [N, P] i64 already times the dim's stride, weight or null) per tap.
  SmallVector<SmallVector<std::pair<Value, Value>>> taps(k);
  for (int64_t i = 0; i < k; ++i) {
    double d = (double)dims[i], lo = align ? 0.0 : -0.5, hi = align ? d - 1 : d - 0.5;
    int64_t comp = k - 1 - i;
    SmallVector<int64_t> starts{0, 0, comp}, steps{1, 1, 1};
    Value gi =
        graph::SliceOp::create(b, loc, RankedTensorType::get({N, P, 1}, ce), g,
                               b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
    gi = reshape(loc, gi, {N, P});
    Value xi = align ? mul(add(gi, cst(1)), cst((d - 1) / 2))
                     : mul(sub(mul(add(gi, cst(1)), cst(d)), cst(1)), cst(0.5));
    if (mode == Nearest) // np.rint: halves to even, in every rank (PyTorch PR 97000).
      xi = graph::RoundOp::create(b, loc, ct, xi);
    if (pm == "border") {
      Value out = graph::OrOp::create(b, loc, RankedTensorType::get({N, P}, b.getI1Type()),
                                      cmp(graph::LessOp(), xi, cst(lo)),
                                      cmp(graph::GreaterOp(), xi, cst(hi)));
      xi = select(out, clampTo(xi, 0, d - 1), xi);
    } else if (pm == "reflection") {
      // Reflect by the borders until inside (PyTorch reflect_coordinates): with
      // t = |x - lo| and span = hi - lo, flips = floor(t / span), extra = t - flips * span,
      // x = even(flips) ? lo + extra : hi - extra (the identity inside [lo, hi]).
      double span = hi - lo;
      if (span <= 0) {
        xi = mul(xi, cst(0));
      } else {
        Value t = graph::AbsOp::create(b, loc, ct, sub(xi, cst(lo)));
        Value flips = floorOf(mul(t, cst(1 / span)));
        Value extra = sub(t, mul(flips, cst(span)));
        Value odd = sub(flips, mul(floorOf(mul(flips, cst(0.5))), cst(2)));
        xi = select(cmp(graph::LessOp(), odd, cst(0.5)), add(extra, cst(lo)), sub(cst(hi), extra));
      }
    }
    SmallVector<std::pair<Value, Value>> raw; // (tap position as float, weight or null)
    if (mode == Nearest) {
      raw.push_back({xi, Value()});
    } else {
      Value x0 = floorOf(xi), tt = sub(xi, x0);
      if (mode == Linear) {
        raw.push_back({x0, sub(cst(1), tt)});
        raw.push_back({add(x0, cst(1)), tt});
      } else {
        // _gs_get_cubic_coeffs (Keys, A = -0.75) at t, taps x0 - 1 .. x0 + 2.
        const double A = -0.75;
        Value t1 = add(tt, cst(1)), u = sub(cst(1), tt), u1 = sub(cst(2), tt);
        auto outer = [&](Value z) { // ((A z - 5A) z + 8A) z - 4A
          return sub(mul(add(mul(sub(mul(z, cst(A)), cst(5 * A)), z), cst(8 * A)), z), cst(4 * A));
        };
        auto inner = [&](Value z) { // ((A + 2) z - (A + 3)) z z + 1
          return add(mul(mul(sub(mul(z, cst(A + 2)), cst(A + 3)), z), z), cst(1));
        };
        raw.push_back({sub(x0, cst(1)), outer(t1)});
        raw.push_back({x0, inner(tt)});
        raw.push_back({add(x0, cst(1)), inner(u)});
        raw.push_back({add(x0, cst(2)), outer(u1)});
      }
    }
    for (auto [pos, w] : raw) {
      Value j = pos;
      if (pm == "zeros") {
        Value valid = graph::AndOp::create(b, loc, RankedTensorType::get({N, P}, b.getI1Type()),
                                           cmp(graph::GreaterEqualOp(), j, cst(0)),
                                           cmp(graph::LessEqualOp(), j, cst(d - 1)));
        w = select(valid, w ? w : cst(1), cst(0));
      } else if (pm == "reflection") {
        // One bounce suffices: x is inside [lo, hi], so taps are at most 2 outside.
        j = select(cmp(graph::LessOp(), j, cst(0)), sub(cst(align ? 0 : -1), j), j);
        j = select(cmp(graph::GreaterOp(), j, cst(d - 1)),
                   sub(cst(align ? 2 * (d - 1) : 2 * d - 1), j), j);
      }
      j = clampTo(j, 0, d - 1);
      Value idx = castTo(loc, j, i64);
      if (stride[i] != 1)
        idx = mul(idx, intConstantOf(loc, RankedTensorType::get({}, i64), {stride[i]}));
      taps[i].push_back({idx, w});
    }
  }
  // X as [N * S, C]; row n * S + flat index.
  SmallVector<int64_t> perm{0}, tshape{N};
  for (int64_t i = 0; i < k; ++i) {
    perm.push_back(i + 2);
    tshape.push_back(dims[i]);
  }
  perm.push_back(1);
  tshape.push_back(C);
  Value xr = graph::TransposeOp::create(b, loc, RankedTensorType::get(tshape, xe), *x,
                                        b.getDenseI64ArrayAttr(perm));
  xr = reshape(loc, xr, {N * S, C});
  // Row offsets n * S: a constant, or (a long batch) computed at run time.
  Value batchBase;
  if (N <= kMaxIotaConstant) {
    SmallVector<int64_t> base;
    for (int64_t n = 0; n < N; ++n)
      base.push_back(n * S);
    batchBase = intConstantOf(loc, RankedTensorType::get({N, 1}, i64), base);
  } else {
    batchBase = iotaAlong(loc, 2, 0, N, i64);
    if (S != 1)
      batchBase = mul(batchBase, intConstantOf(loc, RankedTensorType::get({}, i64), {S}));
  }
  Value sum;
  SmallVector<size_t> sel(k, 0);
  while (true) {
    Value idx = batchBase, w;
    for (int64_t i = 0; i < k; ++i) {
      auto [ti, wi] = taps[i][sel[i]];
      idx = add(idx, ti);
      if (wi)
        w = w ? mul(w, wi) : wi;
    }
    Value v = graph::GatherOp::create(b, loc, RankedTensorType::get({N, P, C}, xe), xr, idx,
                                      b.getI64IntegerAttr(0));
    if (w)
      v = mul(v, reshape(loc, castTo(loc, w, xe), {N, P, 1}));
    sum = sum ? add(sum, v) : v;
    int64_t i = k - 1;
    while (i >= 0 && ++sel[i] == taps[i].size())
      sel[i--] = 0;
    if (i < 0)
      break;
  }
  Value y = graph::TransposeOp::create(b, loc, RankedTensorType::get({N, C, P}, xe), sum,
                                       b.getDenseI64ArrayAttr({0, 2, 1}));
  SmallVector<int64_t> yshape{N, C};
  yshape.append(outDims.begin(), outDims.end());
  return define(nc, 0, reshape(loc, y, yshape));
}
