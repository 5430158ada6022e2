//===- StepMode.h - aicc-opt --step / --dump-steps --------------*- C++ -*-===//
#ifndef AICC_TOOLS_AICC_OPT_STEPMODE_H
#define AICC_TOOLS_AICC_OPT_STEPMODE_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace aicc {
/// True when argv asks for step mode (--step or --dump-steps=DIR).
bool wantsStepMode(int argc, char **argv);
/// Runs a pass pipeline one pass at a time (see docs/debugging.md). Returns the exit code.
int runStepMode(int argc, char **argv, mlir::DialectRegistry &registry);
} // namespace aicc

#endif
