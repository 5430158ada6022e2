//===- LLVMCodeGen.h - LLVM IR -> machine code, shared by the targets -*- C++ -*-===//
//
// What the NVPTX (NVPTX.h) and host (Host.h) targets share: parsing the kernels' LLVM IR
// text, LLVM's -O3 module pipeline, emitting through a TargetMachine, temporary files and
// running an external tool (ptxas, cc). Errors are emitted as MLIR diagnostics at `loc`.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TARGET_LLVMCODEGEN_H
#define AICC_TARGET_LLVMCODEGEN_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CodeGen.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace aicc::codegen {

/// A temporary file (created empty by `create`), removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile();
  /// Creates $TMPDIR/PREFIX-XXXXXX.SUFFIX; an error diagnostic at `loc` when it cannot.
  mlir::LogicalResult create(mlir::Location loc, llvm::StringRef prefix, llvm::StringRef suffix);
};

/// The bytes of the file `path`.
mlir::FailureOr<std::string> readFile(mlir::Location loc, llvm::StringRef path);
/// Writes `data` to `path` (truncating).
mlir::LogicalResult writeFile(mlir::Location loc, llvm::StringRef path, llvm::StringRef data);
/// Runs `program args` (args[0] is the program) with stdout and stderr to a temporary file;
/// `log`, when given, gets that output. A non-zero exit is an error diagnostic holding it.
mlir::LogicalResult runTool(mlir::Location loc, llvm::StringRef program,
                            llvm::ArrayRef<llvm::StringRef> args, std::string *log = nullptr);

/// Parses LLVM IR text into `ctx`; a parse error is a diagnostic quoting LLVM's message.
mlir::FailureOr<std::unique_ptr<llvm::Module>> parseLLVMIR(mlir::Location loc,
                                                          llvm::StringRef text,
                                                          llvm::LLVMContext &ctx);
/// LLVM's default -O3 module pipeline (PassBuilder::buildPerModuleDefaultPipeline) for `tm`.
void optimizeModule(llvm::Module &mod, llvm::TargetMachine *tm);
/// Runs `tm`'s code generator on `mod`: assembly text or an object file, as `type` says.
mlir::FailureOr<std::string> emitWithTargetMachine(mlir::Location loc, llvm::Module &mod,
                                                   llvm::TargetMachine &tm,
                                                   llvm::CodeGenFileType type);

} // namespace aicc::codegen

#endif // AICC_TARGET_LLVMCODEGEN_H
