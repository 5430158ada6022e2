//===- CompilerFacade.h - aicc::compileModel in plain C++ types --*- C++ -*-===//
//
// The Python extension's only door into the compiler. The extension's binding code is
// built with RTTI and C++ exceptions (pybind11 needs both); LLVM and MLIR may be built
// without RTTI, so that code must not see a polymorphic LLVM class (llvm::Error's
// ErrorInfoBase, ...). This header uses only the standard library; CompilerFacade.cpp is
// built with the project's own flags and calls aicc::compileModel (include/aicc/Compiler.h).
//
// Built only with AICC_ENABLE_COMPILER (the runtime-only extension has no compiler).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PYTHON_COMPILERFACADE_H
#define AICC_PYTHON_COMPILERFACADE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aicc::python {

/// One compile, as aicc.compile gives it; every field mirrors an aicc-compile flag.
struct CompileRequest {
  /// The model: bytes of an ONNX ModelProto, or graph-dialect MLIR text (`isMLIR`).
  std::string model;
  bool isMLIR = false;
  /// Names the model in diagnostics; for ONNX, external data files are resolved next to
  /// it. A path, or "<bytes>" / "<onnx.ModelProto>".
  std::string bufferName;
  /// "cpu", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a" or "sm_100".
  std::string target = "cpu";
  /// What to produce: "bundle" (default), "cubin", "ptx", "onnx" (the importer's output),
  /// "graph", "fused", "tile", "lowered", "llvm", "dot", "fusion-report",
  /// "memory-report" (the EmitKind of include/aicc/Compiler.h).
  std::string emit = "bundle";
  /// Pipeline knobs by their flag name (include/aicc/Pipelines/PipelineOptions.def:
  /// "allow-tf32", "conv-layout", "matmul-config", ...), value as text: "true"/"false"
  /// (or "1"/"0") for flags, decimal for integers, anything for strings.
  std::vector<std::pair<std::string, std::string>> options;
  /// --bind-input NAME=FILE.pb: a graph input fixed to the TensorProto in FILE.
  std::vector<std::pair<std::string, std::string>> bindInputs;
  /// --shape NAME=D0,D1,...: a graph input's whole shape.
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputShapes;
  /// --dim NAME=N (min == max, fixed) or --dim NAME=MIN..MAX (min < max, symbolic).
  struct Dim {
    std::string name;
    int64_t min = 1, max = 1;
    bool symbolic = false;
  };
  std::vector<Dim> dims;
  /// --specialize NAME=V: the plan for one value of a symbolic range beside the range's.
  std::vector<std::pair<std::string, int64_t>> specializations;
  /// --cuda-path (empty: $CUDA_HOME, /usr/local/cuda, PATH).
  std::string cudaPath;
  /// --max-tensor-bytes; 0 keeps the default (16 GiB).
  uint64_t maxTensorBytes = 0;
};

/// Compiles `request`. On success returns true and sets `out` to the artifact's bytes
/// (a bundle, docs/bundle-format.md, for emit "bundle"). On failure returns false and
/// sets `error` to every diagnostic, located (ONNX node names, "node 'Gemm_0': error:
/// ..."), as aicc-compile prints them; an unknown option, emit kind or target, or a bad
/// option value, is reported the same way. Thread-compatible: each call has its own
/// MLIRContext.
bool compile(const CompileRequest &request, std::string &out, std::string &error);

/// The pipeline knobs compile() takes by flag name, with their type ("bool", "int",
/// "string"), default as text and description (PipelineOptions.def), in .def order.
struct OptionInfo {
  std::string flag, type, defaultValue, description;
};
std::vector<OptionInfo> pipelineOptions();

} // namespace aicc::python

#endif // AICC_PYTHON_COMPILERFACADE_H
