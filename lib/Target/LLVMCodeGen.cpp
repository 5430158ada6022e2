//===- LLVMCodeGen.cpp - LLVM IR -> machine code, shared by the targets -----===//
#include "aicc/Target/LLVMCodeGen.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

LogicalResult aicc::codegen::TempFile::create(Location loc, StringRef prefix, StringRef suffix) {
  int fd;
  if (auto ec = llvm::sys::fs::createTemporaryFile(prefix, suffix, fd, path))
    return emitError(loc, "cannot create a temporary file: ") << ec.message(), failure();
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  return success();
}

aicc::codegen::TempFile::~TempFile() {
  if (!path.empty())
    llvm::sys::fs::remove(path);
}

FailureOr<std::string> aicc::codegen::readFile(Location loc, StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return emitError(loc, "cannot read ") << path << ": " << buf.getError().message(), failure();
  return (*buf)->getBuffer().str();
}

LogicalResult aicc::codegen::writeFile(Location loc, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(loc, "cannot write ") << path << ": " << ec.message(), failure();
  os << data;
  return success();
}

LogicalResult aicc::codegen::runTool(Location loc, StringRef program, ArrayRef<StringRef> args,
                                     std::string *log) {
  TempFile out;
  if (failed(out.create(loc, "aicc-tool", "log")))
    return failure();
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out.path), StringRef(out.path)};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0, 0, &err);
  auto text = readFile(loc, out.path);
  if (log && succeeded(text))
    *log = *text;
  if (rc != 0) {
    auto diag = emitError(loc, "") << program << " failed (exit " << rc << ")";
    if (!err.empty())
      diag << ": " << err;
    if (succeeded(text) && !text->empty())
      diag << ":\n" << *text;
    return failure();
  }
  return success();
}
FailureOr<std::unique_ptr<llvm::Module>> aicc::codegen::parseLLVMIR(Location loc, StringRef text,
                                                                    llvm::LLVMContext &ctx) {
  llvm::SMDiagnostic err;
  auto mod = llvm::parseIR(llvm::MemoryBufferRef(text, "kernels.ll"), err, ctx);
  if (!mod) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    err.print("kernels.ll", os, /*ShowColors=*/false);
    return emitError(loc, "invalid LLVM IR: ") << msg, failure();
  }
  return mod;
}

void aicc::codegen::optimizeModule(llvm::Module &mod, llvm::TargetMachine *tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(mod, mam);
}

FailureOr<std::string> aicc::codegen::emitWithTargetMachine(Location loc, llvm::Module &mod,
                                                           llvm::TargetMachine &tm,
                                                           llvm::CodeGenFileType type) {
  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager cg;
  if (tm.addPassesToEmitFile(cg, os, nullptr, type))
    return emitError(loc, "the LLVM target cannot emit this file type"), failure();
  cg.run(mod);
  return std::string(buf.str());
}
