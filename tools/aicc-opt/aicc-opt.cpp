//===- aicc-opt.cpp - mlir-opt for aicc ------------------------------------===//
//
// Every aicc dialect, pass and pipeline plus the upstream ones, with all of MlirOptMain's
// flags (--mlir-print-ir-after-all, --mlir-timing, --mlir-pass-pipeline-crash-reproducer...),
// plus --step (interactive, one pass at a time) and --dump-steps=DIR.
//
//===----------------------------------------------------------------------===//
#include "StepMode.h"

#include "aicc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  aicc::registerAllDialects(registry);
  aicc::registerAllPasses();
  // --step / --dump-steps: run the pipeline one pass at a time (StepMode.cpp).
  if (aicc::wantsStepMode(argc, argv))
    return aicc::runStepMode(argc, argv, registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "aicc optimizer driver\n", registry));
}
