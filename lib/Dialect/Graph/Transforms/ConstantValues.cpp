//===- ConstantValues.cpp - float constants read as doubles ---------------===//
#include "ConstantValues.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

std::optional<std::vector<double>> aicc::graph::floatConstantValues(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return std::nullopt;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  auto ft = t ? dyn_cast<FloatType>(t.getElementType()) : FloatType();
  if (!ft || !t.hasStaticShape())
    return std::nullopt;
  std::vector<double> out;
  out.reserve(t.getNumElements());
  if (auto d = dyn_cast<DenseFPElementsAttr>(a)) {
    for (const APFloat &x : d.getValues<APFloat>())
      out.push_back(x.convertToDouble());
    return out;
  }
  auto r = dyn_cast<DenseResourceElementsAttr>(a);
  AsmResourceBlob *blob = r ? r.getRawHandle().getBlob() : nullptr;
  unsigned bits = ft.getWidth();
  if (!blob || bits % 8)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  int64_t eb = bits / 8;
  if ((int64_t)data.size() != t.getNumElements() * eb)
    return std::nullopt;
  for (int64_t i = 0; i < t.getNumElements(); ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, data.data() + i * eb, eb);
    APFloat x(ft.getFloatSemantics(), APInt(bits, raw));
    out.push_back(x.convertToDouble());
  }
  return out;
}

DenseElementsAttr aicc::graph::roundedFloatAttr(RankedTensorType t, ArrayRef<double> values) {
  auto ft = cast<FloatType>(t.getElementType());
  SmallVector<APFloat> rounded;
  rounded.reserve(values.size());
  for (double v : values) {
    APFloat x(v);
    bool lost;
    x.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    rounded.push_back(x);
  }
  return DenseElementsAttr::get(t, rounded);
}
