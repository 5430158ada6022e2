//===- aicc-opt.cpp - mlir-opt for aicc ------------------------------------===//
//
// Every aicc dialect, pass and pipeline plus the upstream ones, with all of MlirOptMain's
// flags (--mlir-print-ir-after-all, --mlir-timing, --mlir-pass-pipeline-crash-reproducer...),
// plus --step (interactive, one pass at a time) and --dump-steps=DIR. Input the upstream
// parser is known to crash on is refused first (aicc/Support/ParserGuard.h).
//
//===----------------------------------------------------------------------===//
#include "StepMode.h"

#include "aicc/InitAll.h"
#include "aicc/Support/InputFile.h"
#include "aicc/Support/OutputFile.h"
#include "aicc/Support/ParserGuard.h"
#include "aicc/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

int main(int argc, char **argv) {
  // --version: LLVM's lines, then aicc's version and commit.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << aicc::getVersionLine() << "\n"; });
  mlir::DialectRegistry registry;
  aicc::registerAllDialects(registry);
  aicc::registerAllPasses();
  // --step / --dump-steps: run the pipeline one pass at a time (StepMode.cpp).
  if (aicc::wantsStepMode(argc, argv))
    return aicc::runStepMode(argc, argv, registry);
  // MlirOptMain(argc, argv, ...) split open: the input is read (once: it may be stdin) and
  // checked before MlirOptMain parses it.
  auto [inputFile, outputFile] =
      mlir::registerAndParseCLIOptions(argc, argv, "aicc optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));
  llvm::InitLLVM y(argc, argv);
  // A regular file or stdin, never a device or FIFO (aicc/Support/InputFile.h); copied so
  // that the MLIR lexer finds its null terminator.
  auto read = aicc::readInputFile(inputFile, aicc::kMaxMLIRFileBytes, "input", /*allowStdin=*/true);
  if (!read) {
    llvm::errs() << "aicc-opt: error: " << llvm::toString(read.takeError()) << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input =
      llvm::MemoryBuffer::getMemBufferCopy((*read)->getBuffer(), (*read)->getBufferIdentifier());
  if (!aicc::checkParserHazards(*input, llvm::errs()))
    return 1;
  // The output as aicc-compile writes it (aicc/Support/OutputFile.h): nothing is written
  // when MlirOptMain fails.
  bool optFailed = false;
  if (llvm::Error e = aicc::writeOutputFile(outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
        if (mlir::failed(mlir::MlirOptMain(os, std::move(input), registry, config))) {
          optFailed = true;
          return llvm::make_error<llvm::StringError>("aicc-opt failed",
                                                     llvm::inconvertibleErrorCode());
        }
        return llvm::Error::success();
      })) {
    if (!optFailed)
      llvm::errs() << "aicc-opt: error: " << llvm::toString(std::move(e)) << "\n";
    else
      llvm::consumeError(std::move(e));
    return 1;
  }
  return 0;
}
