//===- ReferenceModes.h - aicc-run --reference and --bisect ---------*- C++ -*-===//
//
// The two aicc-run modes that need the compiler and the float64 reference evaluator
// (lib/Reference), as a library (AICCReferenceModes) that aicc-run-reference and the
// Python bindings (python/, aicc.reference and Module.bisect) both call. Built only with
// AICC_ENABLE_COMPILER; this header itself uses no MLIR or LLVM type, so aicc-run.cpp stays
// buildable without it and the bindings can include it from a translation unit built with
// RTTI and exceptions.
//
// Output: both modes print their report to stdout and their errors ("aicc-run: error:
// ...", and the located MLIR diagnostics) to stderr, as aicc-run does; a caller that wants
// the text captures those file descriptors.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_REFERENCE_REFERENCEMODES_H
#define AICC_REFERENCE_REFERENCEMODES_H

#include "aicc/Runtime/Limits.h"
#include "aicc/Runtime/Session.h"

#include <optional>
#include <string>
#include <vector>

namespace aicc::run {

struct ReferenceModeOptions {
  /// The model: .onnx, or graph-dialect .mlir (graph or fused stage).
  std::string modelPath;
  /// --bisect: a bundle compiled from the same model (empty: compile one here).
  std::string bundlePath;
  /// --bisect: where the compiled model runs (default: the bundle target's device).
  std::optional<runtime::Device> device;
  /// --bisect: the compile target when no bundle is given ("cpu", "sm_90", ...).
  std::string target = "cpu";
  /// --input files (one per model input) or --test-data-set directories.
  std::vector<std::string> inputFiles;
  std::vector<std::string> testDataSets;
  /// --rtol / --atol; `toleranceGiven` when either was on the command line (bisect then
  /// uses them for every float type instead of the per-dtype defaults).
  double rtol = 1e-4;
  double atol = 1e-5;
  bool toleranceGiven = false;
  /// --output-dir (reference mode): write the reference outputs as D/output_K.pb.
  std::string outputDir;
  /// --poison (bisect): fill the compiled model's outputs and temps with 0xFF
  /// bytes before running it.
  bool poison = false;
  /// --max-file-bytes / --max-buffer-bytes: caps on the files read (model, bundle,
  /// tensors) and on memory: the bundle's buffers, and the reference evaluator's
  /// tensors (8 bytes per element of every value of the model, all held at once),
  /// checked before anything is allocated.
  runtime::Limits limits;
};

/// aicc-run --reference MODEL: evaluates the model's graph-stage IR with the float64
/// reference evaluator; with --test-data-set compares against ONNX's expected outputs
/// (same report and exit status as a bundle run). Returns the process exit status.
int runReferenceMode(const ReferenceModeOptions &opts);

/// aicc-run [BUNDLE] --bisect MODEL: runs the compiled model kernel by kernel next to the
/// reference and names the first fused kernel whose output diverges (docs/debugging.md).
/// Returns 0 when nothing diverges, 1 on a divergence or an error.
int runBisectMode(const ReferenceModeOptions &opts);

} // namespace aicc::run

#endif // AICC_REFERENCE_REFERENCEMODES_H
