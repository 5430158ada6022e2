//===- ImportBuilders.cpp - the graph builders every op family uses ---------===//
//
// Constants (from bytes, doubles, integers), and the slice / concat / transpose /
// reshape builders with their result types derived from the operands. Declared in
// Importer.h ("Graph builders").
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace aicc::onnx_import::detail;

Value Importer::rawConstant(Location loc, RankedTensorType type, ArrayRef<char> bytes,
                            llvm::StringRef blobName) {
  if (bytes.size() <= kMaxDenseBytes)
    return createConstant(loc,
                          cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, bytes)));
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(uint64_t),
                                                                       /*dataIsMutable=*/false);
  return createConstant(loc, cast<ElementsAttr>(DenseResourceElementsAttr::get(
                                 type, blobKey(blobName), std::move(blob))));
}

Value Importer::constantOf(Location loc, RankedTensorType type, ArrayRef<double> values,
                           llvm::StringRef blobName) {
  Type elem = type.getElementType();
  unsigned width = elem.getIntOrFloatBitWidth();
  unsigned bytes = width / 8;
  std::vector<char> raw(values.size() * bytes);
  for (auto [i, v] : llvm::enumerate(values)) {
    APInt bits;
    if (auto ft = dyn_cast<FloatType>(elem)) {
      APFloat f(v);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      bits = f.bitcastToAPInt();
    } else {
      // Cast semantics: truncation toward zero (NaN has no integer value: 0).
      double tv = std::isfinite(v) ? std::trunc(v) : 0.0;
      bits = APInt(width, (uint64_t)(int64_t)tv, /*isSigned=*/true, /*implicitTrunc=*/true);
    }
    uint64_t word = bits.getZExtValue();
    std::memcpy(raw.data() + i * bytes, &word, bytes); // little-endian host
  }
  return rawConstant(loc, type, raw, blobName);
}

Value Importer::intConstantOf(Location loc, RankedTensorType type, ArrayRef<int64_t> values) {
  auto it = cast<IntegerType>(type.getElementType());
  SmallVector<APInt> bits;
  // Two's complement wrap to the element width (as the kernels compute): APInt(width, v)
  // asserts on a value that does not fit (an int8 fold of 100 + 100; aicc-fuzz-onnx).
  for (int64_t v : values)
    bits.push_back(APInt(64, (uint64_t)v).trunc(it.getWidth()));
  return createConstant(loc, DenseElementsAttr::get(type, bits));
}

Value Importer::slice(Location loc, Value v, int64_t dim, int64_t start, int64_t size,
                      int64_t step) {
  auto t = cast<RankedTensorType>(v.getType());
  if (step == 1 && start == 0 && size == t.getDimSize(dim))
    return v;
  SmallVector<int64_t> starts(t.getRank(), 0), steps(t.getRank(), 1), shape(t.getShape());
  starts[dim] = start;
  steps[dim] = step;
  shape[dim] = size;
  auto rt = RankedTensorType::get(shape, t.getElementType());
  // Constants (weights) are sliced here, not at run time (unit steps).
  if (auto c = step == 1 ? v.getDefiningOp<graph::ConstantOp>() : graph::ConstantOp()) {
    Type elem = t.getElementType();
    ElementsAttr value = c.getValue();
    auto dense = dyn_cast<DenseElementsAttr>(value);
    if (dense && dense.isSplat())
      return createConstant(loc, cast<ElementsAttr>(dense.resizeSplat(rt)));
    ArrayRef<char> raw;
    if (dense)
      raw = dense.getRawData();
    else if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
      raw = res.getData();
    int64_t width =
        elem.isIntOrFloat() && !elem.isInteger(1) ? elem.getIntOrFloatBitWidth() / 8 : 0;
    if (width > 0 && (int64_t)raw.size() == t.getNumElements() * width) {
      int64_t outer = 1, inner = width;
      for (int64_t d = 0; d < dim; ++d)
        outer *= t.getDimSize(d);
      for (int64_t d = dim + 1; d < t.getRank(); ++d)
        inner *= t.getDimSize(d);
      std::vector<char> out;
      out.reserve(outer * size * inner);
      for (int64_t o = 0; o < outer; ++o) {
        const char *from = raw.data() + (o * t.getDimSize(dim) + start) * inner;
        out.insert(out.end(), from, from + size * inner);
      }
      return rawConstant(loc, rt, out, "slice");
    }
  }
  return graph::SliceOp::create(b, loc, rt, v, b.getDenseI64ArrayAttr(starts),
                                b.getDenseI64ArrayAttr(steps));
}

Value Importer::reshapeFolded(Location loc, Value v, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(v.getType());
  auto rt = RankedTensorType::get(shape, t.getElementType());
  if (auto c = v.getDefiningOp<graph::ConstantOp>()) {
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
      return createConstant(loc, cast<ElementsAttr>(dense.reshape(rt)));
    if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
      return createConstant(
          loc, cast<ElementsAttr>(DenseResourceElementsAttr::get(rt, res.getRawHandle())));
  }
  return reshape(loc, v, shape);
}

Value Importer::concat(Location loc, ValueRange vs, int64_t axis) {
  if (vs.size() == 1)
    return vs.front();
  auto t = cast<RankedTensorType>(vs.front().getType());
  SmallVector<int64_t> shape(t.getShape());
  shape[axis] = 0;
  for (Value v : vs)
    shape[axis] += cast<RankedTensorType>(v.getType()).getDimSize(axis);
  return graph::ConcatOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), vs,
                                 b.getI64IntegerAttr(axis));
}

Value Importer::transpose(Location loc, Value v, ArrayRef<int64_t> perm) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return graph::TransposeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v,
                                    b.getDenseI64ArrayAttr(perm));
}
