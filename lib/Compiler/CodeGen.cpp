//===- CodeGen.cpp - LLVM IR, host objects, PTX -> cubin -------------------===//
#include "Internal.h"

#include "aicc/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace aicc;

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  LogicalResult create(Location loc, StringRef prefix, StringRef suffix) {
    int fd;
    if (auto ec = llvm::sys::fs::createTemporaryFile(prefix, suffix, fd, path))
      return emitError(loc, "cannot create a temporary file: ") << ec.message(), failure();
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    return success();
  }
};

FailureOr<std::string> readFile(Location loc, StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return emitError(loc, "cannot read ") << path << ": " << buf.getError().message(), failure();
  return (*buf)->getBuffer().str();
}

LogicalResult writeFile(Location loc, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(loc, "cannot write ") << path << ": " << ec.message(), failure();
  os << data;
  return success();
}

/// Runs `program args`; on failure the diagnostic holds its output.
LogicalResult runTool(Location loc, StringRef program, ArrayRef<StringRef> args,
                      std::string *log = nullptr) {
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
} // namespace

FailureOr<std::string> aicc::detail::translateToLLVMIRText(Operation *kernels) {
  llvm::LLVMContext llvmCtx;
  auto mod = translateModuleToLLVMIR(kernels, llvmCtx, "aicc_kernels");
  if (!mod)
    return kernels->emitError("translation to LLVM IR failed"), failure();
  std::string s;
  llvm::raw_string_ostream os(s);
  mod->print(os, nullptr);
  return s;
}

FailureOr<std::string> aicc::detail::emitCPUSharedObject(Operation *kernels) {
  Location loc = kernels->getLoc();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmCtx;
  auto mod = translateModuleToLLVMIR(kernels, llvmCtx, "aicc_kernels");
  if (!mod)
    return emitError(loc, "translation of the CPU kernels to LLVM IR failed"), failure();
  mod->setSourceFileName("aicc_kernels");
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return emitError(loc, "no LLVM target for ") << triple << ": " << err, failure();
  llvm::TargetOptions to;
  llvm::Triple tt(triple);
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      tt, "x86-64-v2", "", to, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return emitError(loc, "cannot create a target machine for ") << triple, failure();
  mod->setTargetTriple(tt);
  mod->setDataLayout(tm->createDataLayout());
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(*mod, mam);
  }
  TempFile obj, so;
  if (failed(obj.create(loc, "aicc-kernels", "o")) || failed(so.create(loc, "aicc-kernels", "so")))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(obj.path, ec);
    if (ec)
      return emitError(loc, "cannot write ") << obj.path << ": " << ec.message(), failure();
    llvm::legacy::PassManager cg;
    if (tm->addPassesToEmitFile(cg, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      return emitError(loc, "the target cannot emit object files"), failure();
    cg.run(*mod);
  }
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return emitError(loc, "no C compiler driver 'cc' on PATH to link the CPU kernels"), failure();
  if (failed(runTool(loc, *cc, {*cc, "-shared", "-nostartfiles", "-Wl,--build-id=none", "-o",
                                so.path, obj.path, "-lm"})))
    return failure();
  return readFile(loc, so.path);
}

FailureOr<std::string> aicc::detail::extractPTX(ModuleOp top) {
  for (auto bin : top.getOps<gpu::BinaryOp>()) {
    if (bin.getName() != kKernelModuleName)
      continue;
    for (Attribute a : bin.getObjects()) {
      auto obj = cast<gpu::ObjectAttr>(a);
      return obj.getObject().getValue().str();
    }
  }
  return top.emitError("no gpu.binary @kernels after the GPU pipeline"), failure();
}

static std::string findPtxas(StringRef cudaPath) {
  SmallVector<std::string> roots;
  if (!cudaPath.empty())
    roots.push_back(cudaPath.str());
  if (const char *h = std::getenv("CUDA_HOME"))
    roots.push_back(h);
#ifdef AICC_DEFAULT_CUDA_ROOT
  if (StringRef(AICC_DEFAULT_CUDA_ROOT).size())
    roots.push_back(AICC_DEFAULT_CUDA_ROOT);
#endif
  roots.push_back("/usr/local/cuda");
  for (auto &r : roots) {
    llvm::SmallString<256> p(r);
    llvm::sys::path::append(p, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(p))
      return std::string(p);
  }
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  return "";
}

FailureOr<std::string> aicc::detail::assemblePTX(Location loc, StringRef ptx, StringRef chip,
                                                 StringRef cudaPath) {
  std::string ptxas = findPtxas(cudaPath);
  if (ptxas.empty())
    return emitError(loc, "ptxas not found (looked in --cuda-path, $CUDA_HOME, "
                          "/usr/local/cuda/bin and PATH); use --emit=ptx without a CUDA toolkit"),
           failure();
  TempFile in, out;
  if (failed(in.create(loc, "aicc-kernels", "ptx")) ||
      failed(out.create(loc, "aicc-kernels", "cubin")) || failed(writeFile(loc, in.path, ptx)))
    return failure();
  std::string arch = ("-arch=" + chip).str();
  if (failed(runTool(loc, ptxas, {ptxas, arch, "-O3", in.path, "-o", out.path})))
    return failure();
  return readFile(loc, out.path);
}
