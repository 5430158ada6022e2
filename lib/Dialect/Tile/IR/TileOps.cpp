//===- TileOps.cpp - aicc tile dialect ops ---------------------------------===//
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace aicc::tile;

LogicalResult MakeRangeOp::verify() {
  int64_t n = (int64_t)getEnd() - (int64_t)getStart();
  if (n <= 0)
    return emitOpError("end must be greater than start");
  auto t = getType();
  if (t.getRank() != 1 || t.getDimSize(0) != n)
    return emitOpError("result must be tensor<") << n << "xi32>";
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto s = getSrc().getType(), r = getType();
  if (s.getRank() != r.getRank() || s.getElementType() != r.getElementType())
    return emitOpError("source and result must have the same rank and element type");
  for (int64_t i = 0; i < s.getRank(); ++i)
    if (s.getDimSize(i) != 1 && s.getDimSize(i) != r.getDimSize(i))
      return emitOpError("dim ") << i << " of size " << s.getDimSize(i)
                                 << " cannot broadcast to " << r.getDimSize(i);
  return success();
}

LogicalResult SwapPairsOp::verify() {
  auto t = getType();
  if (t.getRank() < 1 || t.getShape().back() % 2 != 0)
    return emitOpError("the last dim must have an even size, got ") << t;
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto s = getSrc().getType(), r = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > s.getRank())
    return emitOpError("axis ") << axis << " out of range [0, " << s.getRank() << "]";
  SmallVector<int64_t> want(s.getShape());
  want.insert(want.begin() + axis, 1);
  if (r.getShape() != ArrayRef<int64_t>(want) || r.getElementType() != s.getElementType())
    return emitOpError("result type must be the source with a 1 inserted at ") << axis;
  return success();
}

static LogicalResult verifyAccess(Operation *op, MemRefType ptr, RankedTensorType offs,
                                  Value mask, RankedTensorType value) {
  if (!offs.hasStaticShape() || offs.getShape() != value.getShape())
    return op->emitOpError("offsets shape [")
           << offs.getShape() << "] must equal the value shape [" << value.getShape() << "]";
  if (ptr.getElementType() != value.getElementType())
    return op->emitOpError("buffer element type ")
           << ptr.getElementType() << " differs from the tile's " << value.getElementType();
  if (mask && cast<RankedTensorType>(mask.getType()).getShape() != value.getShape())
    return op->emitOpError("mask shape must equal the value shape");
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyAccess(*this, getPtr().getType(), getOffsets().getType(), getMask(),
                          getType())))
    return failure();
  if (auto pad = getPaddingAttr())
    if (pad.getType() != getType().getElementType())
      return emitOpError("padding type ") << pad.getType() << " differs from element type";
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getPtr().getType(), getOffsets().getType(), getMask(),
                      getValue().getType());
}

/// The checks tile.block_load and tile.block_store share: `dims` is [batch, rows, cols] with
/// each dim in [1, 2^31) (i32 coordinates), the tile (`what`: the load's result, the store's
/// value) is a static non-empty 2-D tile of the buffer's element type, and a static buffer
/// holds dims[0] * dims[1] * dims[2] elements.
static LogicalResult verifyBlockAccess(Operation *op, ArrayRef<int64_t> dims, MemRefType ptr,
                                       RankedTensorType t, StringRef what) {
  if (dims.size() != 3)
    return op->emitOpError("dims must be [batch, rows, cols], got ") << dims.size() << " entries";
  for (int64_t d : dims)
    if (d < 1 || d >= (int64_t(1) << 31))
      return op->emitOpError("dims must be in [1, 2^31), got [") << dims << "]";
  if (t.getRank() != 2 || !t.hasStaticShape() || t.getNumElements() == 0)
    return op->emitOpError(what) << " must be a static non-empty 2-D tile, got " << t;
  if (ptr.getElementType() != t.getElementType())
    return op->emitOpError("element type ") << t.getElementType() << " differs from the buffer's "
                                            << ptr.getElementType();
  // N < d0 * d1 * d2, by division: the product of three dims under 2^31 can wrap int64.
  if (ptr.hasStaticShape() && ptr.getNumElements() / dims[0] / dims[1] < dims[2])
    return op->emitOpError("buffer of ") << ptr.getNumElements()
                                         << " elements is smaller than dims [" << dims << "]";
  return success();
}

LogicalResult Im2ColLoadOp::verify() {
  constexpr int64_t kLimit = int64_t(1) << 31;
  auto check = [&](StringRef name, ArrayRef<int64_t> v, size_t n, int64_t lo) -> LogicalResult {
    if (v.size() != n)
      return emitOpError(name) << " must have " << n << " entries, got " << v.size();
    for (int64_t x : v)
      if (x < lo || x >= kLimit)
        return emitOpError(name) << " entries must be in [" << lo << ", 2^31), got [" << v << "]";
    return success();
  };
  if (failed(check("input", getInput(), 4, 1)) || failed(check("kernel", getKernel(), 2, 1)) ||
      failed(check("strides", getStrides(), 2, 1)) || failed(check("pads", getPads(), 2, 0)) ||
      failed(check("dilations", getDilations(), 2, 1)) ||
      failed(check("output", getOutput(), 2, 1)))
    return failure();
  if (getLayout() != "NCHW" && getLayout() != "NHWC")
    return emitOpError("layout must be \"NCHW\" or \"NHWC\", got \"") << getLayout() << "\"";
  RankedTensorType t = getType();
  if (t.getRank() != 2 || !t.hasStaticShape() || t.getNumElements() == 0)
    return emitOpError("result must be a static non-empty 2-D tile, got ") << t;
  auto ptr = getPtr().getType();
  if (ptr.getElementType() != t.getElementType())
    return emitOpError("element type ") << t.getElementType() << " differs from the buffer's "
                                        << ptr.getElementType();
  // Every product is checked below 2^31 (i32 offsets) by division, so nothing wraps.
  auto fits = [&](ArrayRef<int64_t> f) {
    int64_t prod = 1;
    for (int64_t x : f) {
      if (x > (kLimit - 1) / prod)
        return false;
      prod *= x;
    }
    return true;
  };
  ArrayRef<int64_t> in = getInput(), k = getKernel(), o = getOutput();
  if (!fits(in) || !fits({in[0], o[0], o[1]}) || !fits({in[1], k[0], k[1]}))
    return emitOpError("input, im2col rows (N*OH*OW) and columns (C*KH*KW) must each hold "
                       "fewer than 2^31 elements");
  // Any output size is well defined (positions outside the input read zero), but the input
  // positions oh * stride + kh * dilation must stay in i32 for the bounds checks to hold.
  for (int d = 0; d < 2; ++d) {
    int64_t s = getStrides()[d], dl = getDilations()[d];
    if (o[d] - 1 > (kLimit - 1) / s || k[d] - 1 > (kLimit - 1) / dl ||
        (o[d] - 1) * s + (k[d] - 1) * dl >= kLimit)
      return emitOpError("input positions of spatial dim ")
             << d << " (output * stride + kernel * dilation) exceed 2^31";
  }
  if (ptr.hasStaticShape() && ptr.getNumElements() < in[0] * in[1] * in[2] * in[3])
    return emitOpError("buffer of ") << ptr.getNumElements() << " elements is smaller than input ["
                                     << in << "]";
  return success();
}

LogicalResult BlockLoadOp::verify() {
  return verifyBlockAccess(*this, getDims(), getPtr().getType(), getType(), "result");
}

LogicalResult BlockStoreOp::verify() {
  return verifyBlockAccess(*this, getDims(), getPtr().getType(), getValue().getType(), "value");
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D tiles");
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("K differs: a is [") << a.getShape() << "], b is [" << b.getShape() << "]";
  if (c.getDimSize(0) != a.getDimSize(0) || c.getDimSize(1) != b.getDimSize(1))
    return emitOpError("accumulator shape [") << c.getShape() << "] is not [M, N]";
  if (getType() != c)
    return emitOpError("result type must equal the accumulator type");
  if (a.getElementType() != b.getElementType())
    return emitOpError("a and b element types differ");
  if (!isa<FloatType>(c.getElementType()))
    return emitOpError("accumulator must be a float tile");
  return success();
}

LogicalResult ReduceOp::verify() {
  auto s = getSrc().getType(), r = getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis >= s.getRank())
    return emitOpError("axis ") << axis << " out of range [0, " << s.getRank() << ")";
  SmallVector<int64_t> want(s.getShape());
  want.erase(want.begin() + axis);
  if (r.getShape() != ArrayRef<int64_t>(want) || r.getElementType() != s.getElementType())
    return emitOpError("result must be the source with dim ") << axis << " removed";
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto module = (*this)->getParentOfType<ModuleOp>();
  if (!module)
    return emitOpError("must be inside a module");
  SymbolRefAttr ref = getKernel();
  // After gpu-module-to-binary the kernels live in a gpu.binary: nothing to look up.
  if (Operation *root = symbols.lookupSymbolIn(module, ref.getRootReference()))
    if (root->getName().getStringRef() == "gpu.binary")
      return success();
  Operation *kernel = symbols.lookupSymbolIn(module, ref);
  if (!kernel)
    return emitOpError("kernel ") << ref << " not found";
  auto fn = dyn_cast<FunctionOpInterface>(kernel);
  if (!fn)
    return emitOpError("kernel ") << ref << " is not a function";
  // CPU kernels (after convert-tile-to-cpu) take program ids and grid sizes after the buffers.
  unsigned numParams = fn.getNumArguments();
  if (auto n = kernel->getAttrOfType<IntegerAttr>(tile::kCpuKernelAttrName))
    numParams = n.getInt();
  // TMA kernels take their CUtensorMaps after the buffers; the runtime supplies them.
  if (auto maps = kernel->getAttrOfType<ArrayAttr>(tile::kTensorMapsAttrName))
    numParams -= std::min<unsigned>(numParams, maps.size());
  if (numParams != getBuffers().size())
    return emitOpError("passes ") << getBuffers().size() << " buffers, kernel " << ref
                                  << " takes " << numParams;
  for (auto [i, buf] : llvm::enumerate(getBuffers())) {
    auto have = cast<MemRefType>(buf.getType());
    auto want = dyn_cast<MemRefType>(fn.getArgumentTypes()[i]);
    if (!want)
      continue; // lowered kernels take pointers
    // Kernels take signless iN where the host buffer holds uiN / siN (arith is signless).
    auto signless = [](Type t) -> Type {
      if (auto it = dyn_cast<IntegerType>(t))
        return IntegerType::get(t.getContext(), it.getWidth());
      return t;
    };
    if (signless(have.getElementType()) != signless(want.getElementType()) ||
        have.getNumElements() != want.getNumElements())
      return emitOpError("buffer #") << i << " of type " << have << " does not match kernel parameter "
                                     << want << " (element type and element count must agree)";
  }
  return success();
}

#define GET_OP_CLASSES
#include "aicc/Dialect/Tile/IR/TileOps.cpp.inc"
