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
// (the highest such opset_import entry is the one used). Imported ops: about
// 190 ONNX op types (the per-op table of docs/onnx-conformance.md lists them
// with their conformance results; supportedOps() below lists them): one table
// (lib/Target/ONNX/ImportOpTable.cpp) maps (domain, op type) to an import
// function and the op's first opset; Import<Family>.cpp hold the functions and
// register them (Core, TensorOps, NN, Elementwise, Loss, Index, Spatial,
// Recurrent, Signal, Integer, Transformer, Misc); import-time constant folding is in
// ImportFold.cpp. Many are decompositions into graph ops. The
// semantics of each follow the ONNX operator spec (docs/Operators.md of the
// ONNX repository) at the model's opset, e.g. Softmax before opset 13 is the
// "coerced to 2-D" softmax and is imported as reshape + softmax + reshape, and
// Add/Sub/Mul/Div before opset 7 use the legacy `broadcast`/`axis` attributes.
//
// Graph inputs must have fully static shapes; inputs that are also
// initializers are constants, not function arguments, and so are inputs bound
// to a value with ImportOptions::bindInputs (a bound input may have symbolic
// dimensions: the value fixes them). Initializers and
// Constant nodes become `graph.constant`: `dense<...>` up to 64 KiB of data,
// `dense_resource<...>` (an owning heap blob in the builtin dialect's resource
// manager, so the MLIRContext owns the bytes) above that. Tensors stored as
// external data are read from files relative to the model's directory.
//
// Every op is located at NameLoc(<node name>, FileLineColLoc(<model path>, 0,
// 0)); nodes without a name are named "<op_type>_<node index>". Function
// arguments and results carry `{aicc.name = "<ONNX value name>"}`.
//
// The ONNX checker itself is not run (the system libonnx may be older than the
// model); instead every field the importer reads is checked, onnx.checker's
// rules (full_check) are applied with libonnx's schemas (ImportValidate.cpp),
// every size is checked against ImportOptions::maxTensorBytes, and external
// data is confined to the model's directory (docs/onnx-import.md). Malformed
// input is reported as a diagnostic, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TARGET_ONNX_IMPORTONNX_H
#define AICC_TARGET_ONNX_IMPORTONNX_H

#include "aicc/Support/CheckedSize.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace aicc::onnx_import {

/// One graph input to specialize the model on (aicc-compile --bind-input
/// NAME=FILE.pb).
struct InputBinding {
  /// The ONNX name of a graph input that is not an initializer.
  std::string name;
  /// A file holding one serialized onnx.TensorProto (as ONNX test data's
  /// test_data_set_N/input_K.pb): a regular file of at most kMaxModelFileBytes. Its element type must be the input's declared
  /// one, its shape the declared shape (a symbolic or absent dimension accepts
  /// any size; an input without a shape accepts any shape). The TensorProto's
  /// own name is ignored.
  std::string tensorPath;
};

/// The shape of one graph input fixed at compile time (aicc-compile --shape
/// NAME=D0,D1,...), like onnx-mlir's --shapeInformation and trtexec's --shapes.
struct InputShape {
  /// The ONNX name of a graph input that is not an initializer.
  std::string name;
  /// Every dim of the input (its declared rank); a dim declared static must be given its
  /// declared value. Each dim in [0, 2^31).
  std::vector<int64_t> dims;
};

/// A named symbolic dimension (an ONNX dim_param such as "batch") fixed at compile time
/// in every graph input that has it (aicc-compile --dim NAME=N).
struct DimParam {
  std::string name;
  /// In [0, 2^31).
  int64_t value = 0;
};

/// Knobs for the importer.
struct ImportOptions {
  /// Graph inputs whose values are fixed at compile time. Each becomes a
  /// `graph.constant` holding the file's value instead of a function argument,
  /// so operands that must be compile-time constants (Reshape's shape, Slice's
  /// starts, TopK's k, ...) and shape arithmetic over them fold. The module
  /// records them in the attribute
  ///
  ///   aicc.bound_inputs = [{name = "X", position = K : i64, value = dense<...>}, ...]
  ///
  /// where K is the input's 0-based position among the graph inputs that are
  /// not initializers (the K of test_data_set_N/input_K.pb); the bundle keeps
  /// them (docs/bundle-format.md, `bound` records) so that aicc-run can check a
  /// value given for a bound input. Errors (located diagnostics, import fails):
  /// a name that is no graph input, a name given twice, an input that has an
  /// initializer, an unreadable or unparsable file, an element type or shape
  /// that differs from the input's declaration.
  std::vector<InputBinding> bindInputs;

  /// Graph inputs whose dynamic (symbolic or absent) dims are fixed at compile time: the
  /// input's whole shape (inputShapes), or the dims named by an ONNX dim_param
  /// (dimParams; an input with a shape in inputShapes takes that instead). The model
  /// is then compiled for those shapes only (every input static: no guard is needed; a
  /// bundle input of another shape is refused by aicc-run). Errors (located
  /// diagnostics, import fails): a name that is no graph input (or is an initializer or
  /// bound), a name or dim_param given twice, a rank other than the declared one, a dim
  /// that differs from a static declared one, a dim_param that no graph input has.
  std::vector<InputShape> inputShapes;
  std::vector<DimParam> dimParams;

  /// Cap on the bytes of any one tensor of the model: graph inputs and
  /// outputs, initializers, constants, node outputs and the intermediates of
  /// their decompositions (elements x bytes per element, bool 1 byte). Every
  /// dim must also be at most this (even in an empty tensor), and the product
  /// of the non-zero dims too. A tensor above it is refused with a located
  /// diagnostic naming the node and the tensor, before anything is allocated
  /// for it (aicc-compile --max-tensor-bytes). Element counts and byte sizes
  /// are computed with overflow checks (include/aicc/Support/CheckedSize.h).
  uint64_t maxTensorBytes = kDefaultMaxTensorBytes;

  /// Bounded symbolic dims (aicc-compile --dim NAME=MIN..MAX, docs/symbolic-shapes.md): the
  /// model is imported at several values of each symbol. `shapeLog`, when set, receives the
  /// shape of every tensor a Shape or Size node reads, by ONNX name. `shapeReferences` are
  /// such logs from imports at other values: with them the importer marks the values
  /// computed from the dims that differ there (ImportShapeTaint.cpp) and refuses, naming
  /// the node, a value computed from them through anything but sums and multiples (Min, a
  /// comparison, a division ...: the compiled graph would hold the bound's result) that
  /// reaches the graph, and a value computed from them at all that the graph reads as data
  /// (Range and ConstantOfShape outputs, and Expand's, are data that does not depend on the
  /// value, only their shapes do).
  std::map<std::string, std::vector<int64_t>> *shapeLog = nullptr;
  std::vector<const std::map<std::string, std::vector<int64_t>> *> shapeReferences;

  /// The shapes of the tensors a caller will pass, by position among the graph inputs that
  /// become function arguments (not initializers, not bound): a graph input with a dynamic
  /// dim takes its shape from here as if given by `inputShapes` (aicc-run --reference of a
  /// model exported with dynamic axes: the data's shapes fix them). Static inputs are left
  /// as declared; positions past the end are not fixed.
  std::vector<std::vector<int64_t>> argumentShapes;
};

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
/// importONNXModel(bytes, path, ctx, opts). A missing or unreadable file, one
/// that is not a regular file (a device such as /dev/zero, a FIFO, a
/// directory) or one above kMaxModelFileBytes is an error diagnostic located at
/// `path` (aicc::readInputFile); the result is then null.
mlir::OwningOpRef<mlir::ModuleOp> importONNXFile(llvm::StringRef path, mlir::MLIRContext &ctx,
                                                 const ImportOptions &opts = {});

/// Every op the importer has a handler for, sorted: the op type (prefixed by
/// "<domain>." outside the default domain) and the first default-domain opset
/// the handler accepts it at, which is the op's first version in ONNX's operator
/// schemas (onnx 1.22); a node at a lower opset is refused naming both.
std::vector<std::pair<std::string, int64_t>> supportedOps();

} // namespace aicc::onnx_import

#endif // AICC_TARGET_ONNX_IMPORTONNX_H
