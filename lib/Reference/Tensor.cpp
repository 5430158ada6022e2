//===- Tensor.cpp - reference tensors: storage, rounding, conversion, compare ----===//
#include "Internal.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace aicc::reference;
using namespace aicc::reference::detail;
namespace rt = aicc::runtime;

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//
Tensor Tensor::zeros(Type elementType, ArrayRef<int64_t> shape) {
  Tensor t;
  t.elementType = elementType;
  t.shape.assign(shape.begin(), shape.end());
  if (t.isFloat())
    t.floats.assign(t.numElements(), 0.0);
  else
    t.ints.assign(t.numElements(), 0);
  return t;
}

Tensor Tensor::zeros(RankedTensorType type) {
  return zeros(type.getElementType(), type.getShape());
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

RankedTensorType Tensor::getType() const { return RankedTensorType::get(shape, elementType); }

bool aicc::reference::isSupportedElementType(Type t) {
  if (t.isF16() || t.isBF16() || t.isF32() || t.isF64())
    return true;
  auto it = dyn_cast<IntegerType>(t);
  return it && it.getWidth() <= 64 && !(it.isUnsigned() && it.getWidth() == 64);
}

//===----------------------------------------------------------------------===//
// Index helpers and rounding
//===----------------------------------------------------------------------===//
SmallVector<int64_t> aicc::reference::detail::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

void aicc::reference::detail::unravel(int64_t linear, ArrayRef<int64_t> shape,
                                      SmallVectorImpl<int64_t> &idx) {
  idx.assign(shape.size(), 0);
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    if (shape[d] == 0)
      return;
    idx[d] = linear % shape[d];
    linear /= shape[d];
  }
}

int64_t aicc::reference::detail::ravel(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    linear = linear * shape[d] + idx[d];
  return linear;
}

int64_t aicc::reference::detail::broadcastIndex(ArrayRef<int64_t> outIdx, ArrayRef<int64_t> in) {
  size_t lead = outIdx.size() - in.size();
  int64_t linear = 0;
  for (size_t d = 0; d < in.size(); ++d)
    linear = linear * in[d] + (in[d] == 1 ? 0 : outIdx[lead + d]);
  return linear;
}

int64_t aicc::reference::detail::wrapToWidth(int64_t v, IntegerType t) {
  unsigned w = t.getWidth();
  if (w >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << w) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (!t.isUnsigned() && w > 1 && (u >> (w - 1)))
    u |= ~mask; // sign-extend
  return int64_t(u);
}

double aicc::reference::detail::roundToFloatType(double v, FloatType t) {
  if (t.isF64() || std::isnan(v))
    return v;
  if (t.isF32())
    return double(float(v)); // IEEE conversion: round to nearest even
  llvm::APFloat f(v);
  bool losesInfo = false;
  f.convert(t.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return f.convertToDouble();
}

void Evaluator::roundToType(Tensor &t) {
  if (auto ft = dyn_cast<FloatType>(t.elementType)) {
    if (!ft.isF64())
      for (double &v : t.floats)
        v = roundToFloatType(v, ft);
    return;
  }
  if (auto it = dyn_cast<IntegerType>(t.elementType))
    for (int64_t &v : t.ints)
      v = wrapToWidth(v, it);
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//
/// Decodes element `i` of little-endian raw storage of element type `t` (i1: one byte).
static void decodeRaw(const char *data, Type t, int64_t i, Tensor &out, int64_t k) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    unsigned bytes = ft.getWidth() / 8;
    uint64_t bits = 0;
    std::memcpy(&bits, data + i * bytes, bytes);
    llvm::APFloat f(ft.getFloatSemantics(), llvm::APInt(ft.getWidth(), bits));
    out.floats[k] = f.convertToDouble();
    return;
  }
  auto it = cast<IntegerType>(t);
  unsigned bytes = it.getWidth() == 1 ? 1 : it.getWidth() / 8;
  uint64_t bits = 0;
  std::memcpy(&bits, data + i * bytes, bytes);
  out.ints[k] = it.getWidth() == 1 ? int64_t(bits != 0) : wrapToWidth(int64_t(bits), it);
}

FailureOr<Tensor> aicc::reference::tensorFromAttr(Location loc, ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  Type elem = type.getElementType();
  if (!type.hasStaticShape() || !isSupportedElementType(elem) ||
      (isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() % 8 &&
       elem.getIntOrFloatBitWidth() != 1))
    return emitError(loc, "reference evaluator: unsupported constant type ") << type, failure();
  Tensor t = Tensor::zeros(elem, type.getShape());
  int64_t n = t.numElements();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return emitError(loc, "reference evaluator: constant resource has no data"), failure();
    ArrayRef<char> data = blob->getData();
    unsigned width = elem.getIntOrFloatBitWidth();
    int64_t bytes = n * (width == 1 ? 1 : width / 8);
    if ((int64_t)data.size() != bytes)
      return emitError(loc, "reference evaluator: constant resource holds ")
                 << data.size() << " bytes, " << type << " needs " << bytes,
             failure();
    for (int64_t i = 0; i < n; ++i)
      decodeRaw(data.data(), elem, i, t, i);
    return t;
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return emitError(loc, "reference evaluator: unsupported constant attribute kind"), failure();
  if (t.isFloat()) {
    int64_t i = 0;
    for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
      t.floats[i++] = v.convertToDouble();
    return t;
  }
  auto it = cast<IntegerType>(elem);
  int64_t i = 0;
  for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
    t.ints[i++] =
        it.isUnsigned() || it.getWidth() == 1 ? int64_t(v.getZExtValue()) : v.getSExtValue();
  return t;
}

DenseElementsAttr aicc::reference::attrFromTensor(const Tensor &t) {
  RankedTensorType type = t.getType();
  int64_t n = t.numElements();
  bool splat = true;
  for (int64_t i = 1; i < n && splat; ++i)
    splat = t.isFloat() ? ((t.floats[i] == t.floats[0] &&
                            std::signbit(t.floats[i]) == std::signbit(t.floats[0])) ||
                           (std::isnan(t.floats[i]) && std::isnan(t.floats[0])))
                        : t.ints[i] == t.ints[0];
  int64_t count = splat ? std::min<int64_t>(n, 1) : n;
  if (auto ft = dyn_cast<FloatType>(t.elementType)) {
    SmallVector<llvm::APFloat> vals;
    vals.reserve(count);
    for (int64_t i = 0; i < count; ++i) {
      llvm::APFloat f(t.floats[i]);
      bool losesInfo = false;
      f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      vals.push_back(f);
    }
    return splat && n ? DenseElementsAttr::get(type, vals.front()) : DenseElementsAttr::get(type, vals);
  }
  unsigned width = t.elementType.getIntOrFloatBitWidth();
  SmallVector<llvm::APInt> vals;
  vals.reserve(count);
  for (int64_t i = 0; i < count; ++i)
    vals.push_back(llvm::APInt(width, uint64_t(t.ints[i]), /*isSigned=*/true, /*implicitTrunc=*/true));
  return splat && n ? DenseElementsAttr::get(type, vals.front()) : DenseElementsAttr::get(type, vals);
}

//===----------------------------------------------------------------------===//
// Runtime tensors
//===----------------------------------------------------------------------===//
std::optional<rt::DType> aicc::reference::toDType(Type t) {
  if (t.isF32())
    return rt::DType::f32;
  if (t.isF16())
    return rt::DType::f16;
  if (t.isBF16())
    return rt::DType::bf16;
  if (t.isF64())
    return rt::DType::f64;
  if (t.isInteger(1))
    return rt::DType::boolean;
  if (t.isUnsignedInteger(8))
    return rt::DType::u8;
  if (t.isSignlessInteger(8) || t.isSignedInteger(8))
    return rt::DType::i8;
  if (t.isSignlessInteger(16) || t.isSignedInteger(16))
    return rt::DType::i16;
  if (t.isUnsignedInteger(16))
    return rt::DType::u16;
  if (t.isSignlessInteger(32) || t.isSignedInteger(32))
    return rt::DType::i32;
  if (t.isUnsignedInteger(32))
    return rt::DType::u32;
  if (t.isSignlessInteger(64) || t.isSignedInteger(64))
    return rt::DType::i64;
  return std::nullopt;
}

std::optional<Tensor> aicc::reference::fromHostTensor(const rt::HostTensor &t,
                                                      RankedTensorType type, std::string &error) {
  std::optional<rt::DType> dt = toDType(type.getElementType());
  // Test data written before ONNX had a bfloat16 tensor type holds bf16 bit patterns in a
  // uint16 tensor (the runtime's adoptLegacyBFloat16 rule): same bytes, read as bf16.
  bool legacyBF16 = dt == rt::DType::bf16 && t.dtype == rt::DType::u16;
  if (!dt || (*dt != t.dtype && !legacyBF16) || ArrayRef<int64_t>(t.shape) != type.getShape()) {
    error = "expected " +
            (dt ? rt::formatTensorType(
                      *dt, std::vector<int64_t>(type.getShape().begin(), type.getShape().end()))
                : std::string("a supported element type")) +
            ", got " + rt::formatTensorType(t.dtype, t.shape);
    return std::nullopt;
  }
  Tensor out = Tensor::zeros(type);
  int64_t n = out.numElements();
  if (t.data.size() != size_t(n) * rt::dtypeSize(t.dtype)) {
    error = "tensor data has " + std::to_string(t.data.size()) + " bytes, expected " +
            std::to_string(size_t(n) * rt::dtypeSize(t.dtype));
    return std::nullopt;
  }
  const char *data = reinterpret_cast<const char *>(t.data.data());
  for (int64_t i = 0; i < n; ++i)
    decodeRaw(data, type.getElementType(), i, out, i);
  return out;
}

std::optional<rt::HostTensor> aicc::reference::toHostTensor(const Tensor &t) {
  std::optional<rt::DType> dt = toDType(t.elementType);
  if (!dt)
    return std::nullopt;
  rt::HostTensor h =
      rt::HostTensor::zeros(*dt, std::vector<int64_t>(t.shape.begin(), t.shape.end()));
  size_t size = rt::dtypeSize(*dt);
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    uint8_t *p = h.data.data() + i * size;
    uint64_t bits;
    if (auto ft = dyn_cast<FloatType>(t.elementType)) {
      if (ft.isF64()) {
        std::memcpy(p, &t.floats[i], 8);
        continue;
      }
      if (ft.isF32()) {
        float f = float(t.floats[i]);
        std::memcpy(p, &f, 4);
        continue;
      }
      llvm::APFloat f(t.floats[i]);
      bool losesInfo = false;
      f.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      bits = f.bitcastToAPInt().getZExtValue();
    } else {
      bits = uint64_t(t.ints[i]);
    }
    std::memcpy(p, &bits, size); // little-endian host
  }
  return h;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//
Tolerance aicc::reference::defaultTolerance(Type t) {
  if (t.isF64())
    return {1e-9, 1e-12};
  if (t.isF32())
    return {1e-4, 1e-5};
  if (t.isF16())
    return {1e-2, 1e-3};
  if (t.isBF16())
    return {2e-2, 1e-2};
  return {0, 0};
}

Comparison aicc::reference::compare(const Tensor &got, const Tensor &ref, Tolerance tol) {
  Comparison c;
  if (got.shape != ref.shape) {
    c.problem =
        "shape [" +
        llvm::join(llvm::map_range(got.shape, [](int64_t d) { return std::to_string(d); }), ",") +
        "] differs from the reference's [" +
        llvm::join(llvm::map_range(ref.shape, [](int64_t d) { return std::to_string(d); }), ",") +
        "]";
    return c;
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0, n = got.numElements(); i < n; ++i) {
    double g = got.getDouble(i), e = ref.getDouble(i);
    double abs, rel;
    bool ok;
    if (std::isnan(g) || std::isnan(e)) {
      ok = std::isnan(g) && std::isnan(e);
      abs = rel = ok ? 0 : inf;
    } else if (g == e) { // also equal infinities
      ok = true;
      abs = rel = 0;
    } else {
      abs = std::fabs(g - e);
      rel = e != 0 ? abs / std::fabs(e) : inf;
      ok = abs <= tol.atol + tol.rtol * std::fabs(e);
    }
    c.maxAbsErr = std::max(c.maxAbsErr, abs);
    c.maxRelErr = std::max(c.maxRelErr, rel);
    if (!ok) {
      if (c.numMismatches++ == 0)
        c.firstMismatch = i;
    }
  }
  return c;
}
