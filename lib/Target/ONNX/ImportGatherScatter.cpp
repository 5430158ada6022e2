//===- ImportGatherScatter.cpp - ONNX GatherND, GatherElements, Scatter* -> graph dialect ---===//
//
// GatherND, GatherElements, ScatterElements (and the old Scatter), ScatterND; registered
// with the index family (ImportIndex.cpp).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace aicc::onnx_import::detail;

/// GatherND (ONNX operator spec, opset 11-13): indices [I..., k] address dims
/// [b, b + k) of data (b = batch_dims, the leading dims data and indices share);
/// output = indices.shape[:-1] + data.shape[b + k:]. The k coordinates (negative ones
/// wrapped) are linearized, the batch offset added, and the run-time gather reads data
/// viewed as [prod(data.shape[:b + k])] + data.shape[b + k:].
LogicalResult Importer::importGatherND(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto data = getInput(nc, 0), indices = getInput(nc, 1);
  auto batchAttr = getInt(nc, "batch_dims", 0);
  if (failed(data) || failed(indices) || failed(batchAttr))
    return failure();
  auto dt = cast<RankedTensorType>(data->getType());
  auto it = cast<RankedTensorType>(indices->getType());
  if (failed(checkIndexTensor(nc, it)))
    return failure();
  auto ie = cast<IntegerType>(it.getElementType());
  int64_t bd = *batchAttr, r = dt.getRank(), q = it.getRank();
  if (q < 1 || r < 1)
    return nodeError(nc) << "data and indices must have rank >= 1";
  if (bd < 0 || bd >= std::min(q, r))
    return nodeError(nc) << "batch_dims " << bd << " must be in [0, min(rank(data), "
                         << "rank(indices)) - 1]";
  int64_t k = it.getShape().back();
  if (k < 1 || k > r - bd)
    return nodeError(nc) << "the last indices dim (" << k << ") must be in [1, " << r - bd
                         << "] (rank(data) - batch_dims)";
  for (int64_t d = 0; d < bd; ++d)
    if (it.getDimSize(d) != dt.getDimSize(d))
      return nodeError(nc) << "batch dim " << d << " differs: data " << shapeStr(dt.getShape())
                           << ", indices " << shapeStr(it.getShape());
  Location loc = nc.loc;
  // Strides of the k indexed dims within their block of P elements, and the block size.
  SmallVector<int64_t> strides(k, 1);
  for (int64_t j = k - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * dt.getDimSize(bd + j + 1);
  int64_t P = strides[0] * dt.getDimSize(bd);
  SmallVector<int64_t> tupleShape(it.getShape().drop_back());
  int64_t tuples = it.getNumElements() / k;
  // Batch offset of each tuple: its linear index over the b batch dims, times P.
  int64_t perBatch = 1, numBatches = *product(it.getShape().take_front(bd));
  for (int64_t d = bd; d < q - 1; ++d)
    perBatch *= it.getDimSize(d);
  // The flattened data has numBatches * P rows (tuples / perBatch would divide by 0 for
  // an empty tuple dim).
  CheckedInt rows = CheckedInt(numBatches) * P;
  if (!rows.valid())
    return nodeError(nc) << "data " << shapeStr(dt.getShape()) << " is too large";
  // The linear index is computed in the indices' type (aicc-fuzz-onnx audit: int32 indices
  // into 2^31 rows wrapped).
  if (ie.getWidth() < 64 && rows.value() > (int64_t(1) << (ie.getWidth() - 1)) - 1)
    return nodeError(nc) << "data " << shapeStr(dt.getShape()) << " has more elements than "
                         << ie << " indices can address";
  auto linT = RankedTensorType::get(tupleShape, ie);
  Value lin;
  if (auto cv = intConstant(*indices)) {
    SmallVector<int64_t> out;
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t acc = (t / perBatch) * P;
      for (int64_t j = 0; j < k; ++j) {
        int64_t n = dt.getDimSize(bd + j), v = (*cv)[t * k + j];
        if (v < -n || v >= n)
          return nodeError(nc) << "index " << v << " is out of range [" << -n << ", " << n
                               << ") for data dim " << bd + j;
        acc += (v < 0 ? v + n : v) * strides[j];
      }
      out.push_back(acc);
    }
    lin = intConstantOf(loc, linT, out);
  } else {
    // sum_j clamp(wrap(indices[..., j]), 0, n_j - 1) * stride_j (+ batch offset): negative
    // coordinates count from the end; out-of-range ones are clamped like Gather's
    // (docs/onnx-import.md, "Indices out of range").
    auto colT = RankedTensorType::get(
        [&] {
          SmallVector<int64_t> s(it.getShape());
          s.back() = 1;
          return s;
        }(),
        ie);
    auto scalarI = [&](int64_t v) {
      return intConstantOf(loc, RankedTensorType::get({}, ie), {v});
    };
    SmallVector<int64_t> steps(q, 1);
    for (int64_t j = 0; j < k; ++j) {
      SmallVector<int64_t> starts(q, 0);
      starts.back() = j;
      Value col =
          k == 1 ? *indices
                 : graph::SliceOp::create(b, loc, colT, *indices, b.getDenseI64ArrayAttr(starts),
                                          b.getDenseI64ArrayAttr(steps))
                       .getResult();
      int64_t n = dt.getDimSize(bd + j);
      Value neg = graph::LessOp::create(b, loc, RankedTensorType::get(colT.getShape(),
                                                                      b.getI1Type()),
                                        col, scalarI(0));
      Value wrapped = graph::WhereOp::create(b, loc, colT, neg,
                                             bin<graph::AddOp>(loc, col, scalarI(n)), col);
      wrapped = bin<graph::MinOp>(loc, bin<graph::MaxOp>(loc, wrapped, scalarI(0)),
                                  scalarI(n - 1));
      Value term = strides[j] == 1 ? wrapped : bin<graph::MulOp>(loc, wrapped, scalarI(strides[j]));
      lin = lin ? bin<graph::AddOp>(loc, lin, term) : term;
    }
    if (bd > 0) {
      SmallVector<int64_t> offShape(it.getShape().take_front(bd));
      offShape.append(q - 1 - bd + 1, 1); // the tuple dims and the column dim
      // Batch offsets bi * P: a constant, or (many batches) computed at run time.
      Value offs;
      if (numBatches <= kMaxIotaConstant) {
        SmallVector<int64_t> o;
        for (int64_t bi = 0; bi < numBatches; ++bi)
          o.push_back(bi * P);
        offs = intConstantOf(loc, RankedTensorType::get(offShape, ie), o);
      } else {
        offs = reshape(loc,
                       bin<graph::MulOp>(loc, iotaAlong(loc, 1, 0, numBatches, ie),
                                         intConstantOf(loc, RankedTensorType::get({}, ie), {P})),
                       offShape);
      }
      lin = bin<graph::AddOp>(loc, lin, offs);
    }
    lin = reshape(loc, lin, tupleShape);
  }
  SmallVector<int64_t> flatShape{rows.value()};
  flatShape.append(dt.getShape().begin() + bd + k, dt.getShape().end());
  Value flat = reshape(loc, *data, flatShape);
  SmallVector<int64_t> outShape(tupleShape);
  outShape.append(dt.getShape().begin() + bd + k, dt.getShape().end());
  return define(nc, 0,
                graph::GatherOp::create(b, loc,
                                        RankedTensorType::get(outShape, dt.getElementType()), flat,
                                        lin, b.getI64IntegerAttr(0)));
}

/// The `reduction` attribute of ScatterElements / ScatterND: "none" before opset 16,
/// none/add/mul from 16, max/min from 18.
FailureOr<std::string> Importer::scatterReduction(const NodeCtx &nc) {
  auto red = getString(nc, "reduction", "none");
  if (failed(red))
    return failure();
  if (*red != "none" && *red != "add" && *red != "mul" && *red != "max" && *red != "min")
    return nodeError(nc) << "reduction '" << *red << "' is not one of none, add, mul, max, min";
  if (*red != "none" && opset < 16)
    return nodeError(nc) << "attribute 'reduction' needs opset >= 16 (model opset " << opset << ")";
  if ((*red == "max" || *red == "min") && opset < 18)
    return nodeError(nc) << "reduction '" << *red << "' needs opset >= 18 (model opset " << opset
                         << ")";
  return red;
}

/// ScatterElements (opset 11-18) and the deprecated Scatter (opset 9-10, no reduction):
/// graph.scatter_elements, a kernel that writes at the run-time positions.
LogicalResult Importer::importScatterElements(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto data = getInput(nc, 0), indices = getInput(nc, 1), updates = getInput(nc, 2);
  auto axisAttr = getInt(nc, "axis", 0);
  auto red = scatterReduction(nc);
  if (failed(data) || failed(indices) || failed(updates) || failed(axisAttr) || failed(red))
    return failure();
  auto dt = cast<RankedTensorType>(data->getType());
  auto it = cast<RankedTensorType>(indices->getType());
  auto ut = cast<RankedTensorType>(updates->getType());
  if (failed(checkIndexTensor(nc, it)))
    return failure();
  if (ut.getElementType() != dt.getElementType())
    return nodeError(nc) << "updates (" << ut.getElementType() << ") and data ("
                         << dt.getElementType() << ") differ in element type";
  if (it.getShape() != ut.getShape() || it.getRank() != dt.getRank())
    return nodeError(nc) << "indices " << shapeStr(it.getShape()) << " and updates "
                         << shapeStr(ut.getShape()) << " must share one shape of the data's rank "
                         << dt.getRank();
  auto axis = normalizeAxis(nc, *axisAttr, dt.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  for (int64_t d = 0; d < dt.getRank(); ++d)
    if (d != *axis && it.getDimSize(d) > dt.getDimSize(d))
      return nodeError(nc) << "indices dim " << d << " (" << it.getDimSize(d)
                           << ") exceeds the data's (" << dt.getDimSize(d) << ")";
  if (failed(checkConstantIndices(nc, 1, *indices, {dt.getDimSize(*axis)})))
    return failure();
  return define(nc, 0,
                graph::ScatterElementsOp::create(b, nc.loc, dt, *data, *indices, *updates,
                                                 b.getI64IntegerAttr(*axis),
                                                 b.getStringAttr(*red)));
}

/// ScatterND (opset 11-18): graph.scatter_nd.
LogicalResult Importer::importScatterND(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto data = getInput(nc, 0), indices = getInput(nc, 1), updates = getInput(nc, 2);
  auto red = scatterReduction(nc);
  if (failed(data) || failed(indices) || failed(updates) || failed(red))
    return failure();
  auto dt = cast<RankedTensorType>(data->getType());
  auto it = cast<RankedTensorType>(indices->getType());
  auto ut = cast<RankedTensorType>(updates->getType());
  if (failed(checkIndexTensor(nc, it)))
    return failure();
  if (ut.getElementType() != dt.getElementType())
    return nodeError(nc) << "updates (" << ut.getElementType() << ") and data ("
                         << dt.getElementType() << ") differ in element type";
  if (it.getRank() < 1 || dt.getRank() < 1)
    return nodeError(nc) << "data and indices must have rank >= 1";
  int64_t k = it.getShape().back();
  if (k < 1 || k > dt.getRank())
    return nodeError(nc) << "the last indices dim (" << k << ") must be in [1, " << dt.getRank()
                         << "]";
  SmallVector<int64_t> want(it.getShape().drop_back());
  want.append(dt.getShape().begin() + k, dt.getShape().end());
  if (ut.getShape() != ArrayRef<int64_t>(want))
    return nodeError(nc) << "updates must have shape " << shapeStr(want) << " (indices.shape[:-1]"
                         << " + data.shape[k:]), got " << shapeStr(ut.getShape());
  if (failed(checkConstantIndices(nc, 1, *indices, dt.getShape().take_front(k))))
    return failure();
  return define(
      nc, 0,
      graph::ScatterNDOp::create(b, nc.loc, dt, *data, *indices, *updates, b.getStringAttr(*red)));
}

LogicalResult Importer::importGatherElements(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto data = getInput(nc, 0), indices = getInput(nc, 1);
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(data) || failed(indices) || failed(axisAttr))
    return failure();
  auto dt = cast<RankedTensorType>(data->getType());
  auto it = cast<RankedTensorType>(indices->getType());
  auto axis = normalizeAxis(nc, *axisAttr, dt.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (it.getRank() != dt.getRank() || !isa<IntegerType>(it.getElementType()))
    return nodeError(nc) << "indices must be an integer tensor of the data's rank";
  if (failed(checkConstantIndices(nc, 1, *indices, {dt.getDimSize(*axis)})))
    return failure();
  return define(nc, 0,
                graph::GatherElementsOp::create(
                    b, nc.loc, RankedTensorType::get(it.getShape(), dt.getElementType()), *data,
                    *indices, b.getI64IntegerAttr(*axis)));
}
