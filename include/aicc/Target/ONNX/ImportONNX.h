//===- ImportONNX.h - ONNX ModelProto -> graph dialect ----------*- C++ -*-===//
//
// Imports a serialized ONNX model (ModelProto, onnx/onnx.proto) into one MLIR
// module holding
//
//   func.func @main(%in0: tensor<...>, ...) -> (tensor<...>, ...)
//
// made of graph-dialect ops (include/aicc/Dialect/Graph/IR/GraphOps.td).
//
// Accepted: IR versions <= 13; default-domain ("" or "ai.onnx") opsets 1-27
// (the highest such opset_import entry is the one used). Imported ops: MatMul,
// Gemm, Add, Sub, Mul, Div, Relu, Tanh, Sigmoid, Exp, Erf, Gelu, Softmax,
// Reshape, Transpose, Flatten, Identity, Dropout (inference), Constant. The
// semantics of each follow the ONNX operator spec (docs/Operators.md of the
// ONNX repository) at the model's opset, e.g. Softmax before opset 13 is the
// "coerced to 2-D" softmax and is imported as reshape + softmax + reshape, and
// Add/Sub/Mul/Div before opset 7 use the legacy `broadcast`/`axis` attributes.
//
// Graph inputs must have fully static shapes; inputs that are also
// initializers are constants, not function arguments. Initializers and
// Constant nodes become `graph.constant`: `dense<...>` up to 64 KiB of data,
// `dense_resource<...>` (an owning heap blob in the builtin dialect's resource
// manager, so the MLIRContext owns the bytes) above that. Tensors stored as
// external data are read from files relative to the model's directory.
//
// Every op is located at NameLoc(<node name>, FileLineColLoc(<model path>, 0,
// 0)); nodes without a name are named "<op_type>_<node index>". Function
// arguments and results carry `{aicc.name = "<ONNX value name>"}`.
//
// The ONNX checker is not run (the system libonnx may be older than the model);
// instead every field the importer reads is checked, and malformed input is
// reported as a diagnostic, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TARGET_ONNX_IMPORTONNX_H
#define AICC_TARGET_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace aicc::onnx_import {

/// Knobs for the importer. Reserved: no option changes the result yet.
struct ImportOptions {};

/// Parses `bytes`, a serialized ModelProto (the contents of a .onnx file, at
/// most 2 GiB - 1 bytes, the protobuf limit; bigger weights must be stored as
/// external data), and returns a new module that the caller owns.
///
/// `modelPath` is used for locations and to resolve external-data files
/// (relative to its directory); it may be empty when the model has no external
/// data (locations then name "<memory>").
///
/// Loads the graph and func dialects into `ctx`. Large constants are stored in
/// `ctx`'s builtin resource manager and live as long as `ctx`.
///
/// Errors (unparsable bytes, unsupported IR version / opset / op / element
/// type, dynamic input shapes, shape mismatches, missing or malformed fields,
/// unreadable external data, a module that fails verification) are emitted as
/// MLIR diagnostics on `ctx`, located at the offending node (its name is also
/// in the message); the result is then null. Nothing is printed by the
/// importer itself: install a diagnostic handler to see the messages.
mlir::OwningOpRef<mlir::ModuleOp> importONNXModel(llvm::StringRef bytes, llvm::StringRef modelPath,
                                                  mlir::MLIRContext &ctx,
                                                  const ImportOptions &opts = {});

/// Reads the file at `path` (memory-mapped, not copied) and imports it with
/// importONNXModel(bytes, path, ctx, opts). A missing or unreadable file is an
/// error diagnostic located at `path`; the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> importONNXFile(llvm::StringRef path, mlir::MLIRContext &ctx,
                                                 const ImportOptions &opts = {});

} // namespace aicc::onnx_import

#endif // AICC_TARGET_ONNX_IMPORTONNX_H
