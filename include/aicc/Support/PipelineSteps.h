//===- PipelineSteps.h - run a pass pipeline one pass at a time -*- C++ -*-===//
//
// Flattens a textual pass pipeline into its leaf passes, each with the op nesting it runs
// under, so a pipeline can run one pass at a time over the whole module (aicc-opt --step,
// --dump-steps in aicc-opt and aicc-compile). Running the leaves in order over the whole
// module gives the same IR as the nested pipeline, because every nested pass manager is
// anchored on isolated-from-above ops (func.func, builtin.module, gpu.module): a pass on one
// such op never observes another.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_PIPELINESTEPS_H
#define AICC_SUPPORT_PIPELINESTEPS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class OpPassManager;
} // namespace mlir

namespace aicc {

/// One leaf pass of a pipeline.
struct PipelineStep {
  /// Op names from the root down to the pass's anchor, e.g. {"builtin.module", "func.func"}.
  std::vector<std::string> nesting;
  /// The pass with its options, as textual pipeline syntax: `convert-gpu-to-nvvm{...}`.
  std::string pass;
  /// The pass argument (flag) alone: `convert-gpu-to-nvvm`.
  std::string name;
  /// Full pipeline running only this pass at its nesting:
  /// `builtin.module(func.func(convert-tile-to-linalg))`.
  std::string pipeline() const;
};

/// Splits a textual pipeline (as printed by OpPassManager::printAsTextualPipeline, rooted
/// at an op name, e.g. `builtin.module(a,func.func(b{x=1}))`) into its leaf passes in run
/// order. Returns failure (with `error` set) on unbalanced brackets.
mlir::FailureOr<std::vector<PipelineStep>> flattenPipeline(llvm::StringRef textual,
                                                           std::string &error);

/// The textual form of `pm` rooted at its anchor op, e.g. `builtin.module(...)`.
std::string printPipeline(mlir::OpPassManager &pm);

/// Runs `step` on `root`. Diagnostics go to the context's handlers.
mlir::LogicalResult runStep(mlir::Operation *root, const PipelineStep &step);

/// Prints `op` (generic form off, debug info off) to a string.
std::string printIR(mlir::Operation *op);

/// Writes `text` to `path` as aicc::writeOutputFile does (temporary file renamed on success,
/// symbolic links written through, special files refused; aicc/Support/OutputFile.h).
mlir::LogicalResult writeFileAtomically(llvm::StringRef path, llvm::StringRef text,
                                        std::string &error);

/// Writes DIR/NN-<pass-name>.mlir for a step: a header comment with the exact aicc-opt
/// command reproducing it from the previous file, then the IR. `index` is NN (1-based);
/// `previous` names the file it was produced from.
mlir::LogicalResult writeStepDump(llvm::StringRef dir, unsigned index, const PipelineStep &step,
                                  llvm::StringRef previous, llvm::StringRef ir, std::string &error,
                                  std::string *writtenPath = nullptr);

/// Unified diff (`diff -u`) of two texts, labelled `before` / `after`; empty when equal.
/// Uses the system `diff` program; returns a note when it is missing.
std::string unifiedDiff(llvm::StringRef before, llvm::StringRef after, llvm::StringRef beforeLabel,
                        llvm::StringRef afterLabel);

} // namespace aicc

#endif
