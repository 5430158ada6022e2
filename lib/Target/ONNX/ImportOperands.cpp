//===- ImportOperands.cpp - compound operand accessors of the ONNX importer -===//
//
// The accessors of Importer.h that combine getInput / getOptionalInput with the constant
// readers, so an op's import reads an optional constant operand in one call with one
// failure path (the diagnostic of the accessor that failed, through nodeError).
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::string Importer::inputWhat(const NodeCtx &nc, int idx, llvm::StringRef role) {
  if (idx < 0 || idx >= nc.node.input_size())
    return (role + " input").str();
  return (role + " input '" + nc.node.input(idx) + "'").str();
}

FailureOr<std::optional<SmallVector<int64_t>>>
Importer::getOptionalConstantInts(const NodeCtx &nc, int idx, llvm::StringRef what) {
  auto v = getOptionalInput(nc, idx);
  if (failed(v))
    return failure();
  if (!*v)
    return std::optional<SmallVector<int64_t>>();
  auto ints = getConstantInts(nc, *v, what);
  if (failed(ints))
    return failure();
  return std::optional<SmallVector<int64_t>>(std::move(*ints));
}

FailureOr<std::optional<double>> Importer::getOptionalConstantScalar(const NodeCtx &nc, int idx,
                                                                     llvm::StringRef what) {
  auto v = getOptionalInput(nc, idx);
  if (failed(v))
    return failure();
  if (!*v)
    return std::optional<double>();
  auto x = getConstantScalar(nc, *v, what);
  if (failed(x))
    return failure();
  return std::optional<double>(*x);
}

LogicalResult Importer::checkIndexTensor(const NodeCtx &nc, RankedTensorType indices) {
  auto ie = dyn_cast<IntegerType>(indices.getElementType());
  if (!ie || ie.getWidth() < 32 || ie.isUnsigned())
    return nodeError(nc) << "indices must be int32 or int64, got " << indices;
  return success();
}
