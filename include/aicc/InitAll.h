//===- InitAll.h - register every aicc dialect, pass and pipeline -*- C++ -*-===//
//
// The one place that registers aicc's dialects, passes and pipelines, plus the upstream
// dialects, passes and translations the aicc pipelines use. Tools call these once at start.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_INITALL_H
#define AICC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace aicc {
/// Adds the graph and tile dialects and every upstream dialect (and extension / interface
/// model) the aicc pipelines create or consume.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers aicc passes, the upstream passes aicc pipelines use, and the aicc-*-pipeline
/// pass pipelines, in the global pass registry (idempotent).
void registerAllPasses();
} // namespace aicc

#endif
