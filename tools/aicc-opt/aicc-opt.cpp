//===- aicc-opt.cpp - mlir-opt for aicc ------------------------------------===//
//
// Every aicc dialect, pass and pipeline plus the upstream ones, with all of MlirOptMain's
// flags (--mlir-print-ir-after-all, --mlir-timing, --mlir-pass-pipeline-crash-reproducer...).
//
//===----------------------------------------------------------------------===//
#include "aicc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  aicc::registerAllDialects(registry);
  aicc::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "aicc optimizer driver\n", registry));
}
