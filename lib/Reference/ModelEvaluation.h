//===- ModelEvaluation.h - what --reference and --bisect share ----*- C++ -*-===//
//
// Private to AICCReferenceModes (ReferenceModes.cpp, Bisect.cpp): loading a model into its own
// MLIR context with located diagnostics, the reference evaluator's size check, the inputs
// both modes feed (test data, --input files, or pseudo-random), and formatting.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_REFERENCE_MODELEVALUATION_H
#define AICC_LIB_REFERENCE_MODELEVALUATION_H

#include "aicc/Reference/ReferenceModes.h"

#include "aicc/Reference/Evaluator.h"
#include "aicc/Runtime/Bundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace aicc::run::eval {
namespace rt = aicc::runtime;
namespace ref = aicc::reference;

/// Prints "aicc-run: error: MESSAGE" to stderr; returns false.
bool fail(const std::string &message);

/// ONNX node names (NameLocs) under `loc`, in order, without repeats.
void collectNodeNames(mlir::Location loc, std::vector<std::string> &names);

/// "model.onnx: node 'Gemm_0'" for imported ONNX nodes, "file:line:col" for MLIR text.
std::string describeLoc(mlir::Location loc);

/// A model loaded into its own context, diagnostics printed to stderr with their
/// locations.
struct Model {
  Model();
  static mlir::DialectRegistry makeRegistry();

  mlir::MLIRContext ctx;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp main;
  /// The module as loaded already held fusion groups.
  bool wasFused = false;
};

/// Loads `path` (.mlir: graph-dialect text; anything else: ONNX), runs aicc-graph-pipeline
/// unless the input is already fused, and aicc-fusion-pipeline too when `fuse`. The file
/// must be a regular file of at most limits.maxFileBytes (rt::readRegularFile).
/// `argShapes` (ONNX only): the shapes of the tensors the model will be given, by argument
/// position; a graph input with dynamic dims takes its shape from them (a model exported
/// with dynamic axes is imported for the data at hand; ImportOptions::argumentShapes).
bool loadModel(Model &m, const std::string &path, bool fuse, const rt::Limits &limits,
               const std::vector<std::vector<int64_t>> &argShapes = {});
/// The shapes of the input files of data set `dataSet` (input_0.pb, input_1.pb, ... while
/// they exist) or of the --input files (`dataSet` null); false after printing an error.
bool inputFileShapes(const ReferenceModeOptions &opts, const std::string *dataSet,
                     std::vector<std::vector<int64_t>> &shapes);

/// The reference evaluator holds every value of `fn` at once (arguments, and the results
/// of every op, inside fusion groups too), 8 bytes per element (double or int64_t). Fails
/// with a located diagnostic, before any tensor is allocated, when one value or their sum
/// exceeds `maxBytes` (the runtime's buffer cap) or overflows.
bool checkEvaluationFits(mlir::func::FuncOp fn, uint64_t maxBytes);

/// The name of argument / result `i` of `fn` (its aicc.name, else input_i / output_i).
std::string argName(mlir::func::FuncOp fn, unsigned i);
std::string resultName(mlir::func::FuncOp fn, unsigned i);

/// One host tensor per argument of `fn`: from `dataSet`/input_K.pb, from --input files,
/// or pseudo-random (floats uniform in [-1, 1) from aicc-run's fixed-seed LCG, integers
/// and bools 0).
bool makeInputs(mlir::func::FuncOp fn, const ReferenceModeOptions &opts,
                const std::string *dataSet, std::vector<rt::HostTensor> &out);

/// Converts host inputs to reference tensors of `fn`'s argument types.
bool toReferenceInputs(mlir::func::FuncOp fn, const std::vector<rt::HostTensor> &host,
                       std::vector<ref::Tensor> &out);

/// "f32[2,3]": a tensor's runtime dtype and shape (MLIR's element type name where it has
/// no runtime dtype).
std::string typeString(const ref::Tensor &t);

/// "[i,j,k]": the index of row-major element `linear` of `t`.
std::string formatIndex(const ref::Tensor &t, int64_t linear);

/// --rtol/--atol when given (floats), else the per-dtype default (ref::defaultTolerance).
ref::Tolerance toleranceFor(mlir::Type elem, const ReferenceModeOptions &opts);

} // namespace aicc::run::eval

#endif // AICC_LIB_REFERENCE_MODELEVALUATION_H
