//===- NVPTX.cpp - LLVM IR -> PTX (NVPTX backend + libdevice) -> cubin (ptxas) ---===//
#include "aicc/Target/NVPTX.h"

#include "aicc/Target/LLVMCodeGen.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/IPO/Internalize.h"

extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;
using namespace aicc;
using namespace aicc::codegen;

namespace {
/// libdevice functions that are exactly one LLVM intrinsic the NVPTX backend selects.
std::optional<llvm::Intrinsic::ID> libdeviceIntrinsic(StringRef name) {
  StringRef base = name;
  if (!base.consume_front("__nv_"))
    return std::nullopt;
  if (base.ends_with("f") && base != "fabs" && base != "copysign")
    base = base.drop_back(); // float variant: fmaf -> fma
  return llvm::StringSwitch<std::optional<llvm::Intrinsic::ID>>(base)
      .Case("fma", llvm::Intrinsic::fma)
      .Case("fmax", llvm::Intrinsic::maxnum)
      .Case("fmin", llvm::Intrinsic::minnum)
      .Case("floor", llvm::Intrinsic::floor)
      .Case("ceil", llvm::Intrinsic::ceil)
      .Cases({"fabs", "fabsf"}, llvm::Intrinsic::fabs)
      .Case("sqrt", llvm::Intrinsic::sqrt)
      .Case("trunc", llvm::Intrinsic::trunc)
      .Case("rint", llvm::Intrinsic::rint)
      .Case("nearbyint", llvm::Intrinsic::nearbyint)
      .Cases({"copysign", "copysignf"}, llvm::Intrinsic::copysign)
      .Default(std::nullopt);
}

/// Defines the libdevice functions that are one LLVM intrinsic in place, as
/// always-inline wrappers; every other __nv_* declaration is left for linkLibdevice.
void defineLibdeviceIntrinsics(llvm::Module &mod) {
  for (llvm::Function &f : mod.functions()) {
    if (!f.isDeclaration() || !f.getName().starts_with("__nv_"))
      continue;
    // __nv_fmodf / __nv_fmod stay libdevice's exact fmod: LLVM's frem, as NVPTX selects it,
    // is x - trunc(x / y) * y, off by inf when x / y overflows (1e38 mod 1e-38; the numerics
    // sweep on the H200).
    auto id = libdeviceIntrinsic(f.getName());
    if (!id)
      continue;
    llvm::Function *intr = llvm::Intrinsic::getOrInsertDeclaration(&mod, *id,
                                                                   {f.getReturnType()});
    auto *bb = llvm::BasicBlock::Create(mod.getContext(), "entry", &f);
    llvm::IRBuilder<> b(bb);
    SmallVector<llvm::Value *> args;
    for (llvm::Argument &a : f.args())
      args.push_back(&a);
    b.CreateRet(b.CreateCall(intr, args));
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
}
} // namespace

/// CUDA toolkit roots looked at, in order: --cuda-path alone when given; else $CUDA_HOME,
/// the toolkit CMake found, /usr/local/cuda.
static SmallVector<std::string> cudaRoots(StringRef cudaPath) {
  if (!cudaPath.empty())
    return {cudaPath.str()};
  SmallVector<std::string> roots;
  if (const char *h = std::getenv("CUDA_HOME"); h && *h)
    roots.push_back(h);
#ifdef AICC_DEFAULT_CUDA_ROOT
  if (StringRef(AICC_DEFAULT_CUDA_ROOT).size())
    roots.push_back(AICC_DEFAULT_CUDA_ROOT);
#endif
  roots.push_back("/usr/local/cuda");
  return roots;
}

std::string aicc::nvptx::findPtxas(StringRef cudaPath) {
  for (const std::string &r : cudaRoots(cudaPath)) {
    llvm::SmallString<256> p(r);
    llvm::sys::path::append(p, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(p))
      return std::string(p);
  }
  // An explicit --cuda-path is the only place looked at.
  if (cudaPath.empty())
    if (auto p = llvm::sys::findProgramByName("ptxas"))
      return *p;
  return "";
}

/// Finds nvvm/libdevice/libdevice.10.bc where findPtxas looks for ptxas (a ptxas found on
/// PATH contributes its toolkit root, bin/..). Returns "" when there is none; `lookedAt`
/// gets the candidate files, for the diagnostic.
static std::string findLibdevice(StringRef cudaPath, std::string &lookedAt) {
  SmallVector<std::string> roots = cudaRoots(cudaPath);
  if (cudaPath.empty())
    if (auto p = llvm::sys::findProgramByName("ptxas"))
      roots.push_back(llvm::sys::path::parent_path(llvm::sys::path::parent_path(*p)).str());
  lookedAt.clear();
  for (const std::string &r : roots) {
    llvm::SmallString<256> p(r);
    llvm::sys::path::append(p, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::is_regular_file(p))
      return std::string(p);
    if (!lookedAt.empty())
      lookedAt += ", ";
    lookedAt += p.str();
  }
  return "";
}

/// Links NVIDIA's libdevice into `mod` when `mod` still declares __nv_* functions (those
/// defineLibdeviceIntrinsics did not define), the way clang, MLIR's NVVM target, Triton and
/// IREE do: only the needed functions are linked (Linker::LinkOnlyNeeded), they become
/// internal (so -O3 inlines them and drops the rest), and the module flags answer libdevice's
/// __nvvm_reflect queries for the NVVMReflect pass the NVPTX target adds to the -O3 pipeline:
/// __CUDA_FTZ=0 (denormals kept, as on the CPU target) and __CUDA_PREC_SQRT=1 (IEEE sqrt).
/// __CUDA_ARCH comes from the target machine's chip.
static LogicalResult linkLibdevice(Location loc, llvm::Module &mod, StringRef cudaPath) {
  SmallVector<std::string> needed;
  for (llvm::Function &f : mod.functions())
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      needed.push_back(f.getName().str());
  if (needed.empty())
    return success();
  std::string lookedAt;
  std::string path = findLibdevice(cudaPath, lookedAt);
  if (path.empty())
    return emitError(loc, "kernel calls libdevice function ")
               << needed.front() << ", which aicc does not provide: libdevice was not found at "
               << lookedAt << " (install the CUDA toolkit, set $CUDA_HOME or pass --cuda-path)",
           failure();
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return emitError(loc, "cannot read libdevice ") << path << ": " << buf.getError().message(),
           failure();
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::parseBitcodeFile((*buf)->getMemBufferRef(), mod.getContext());
  if (!lib)
    return emitError(loc, "invalid libdevice bitcode ")
               << path << ": " << llvm::toString(lib.takeError()),
           failure();
  // libdevice says nvptx64-nvidia-gpulibs and a partial data layout; it is meant to be
  // linked into any NVPTX module, so it takes the kernel module's.
  (*lib)->setTargetTriple(mod.getTargetTriple());
  (*lib)->setDataLayout(mod.getDataLayout());
  // The callback sees the names of what was linked in: those become internal.
  auto internalizeLinked = [](llvm::Module &m, const llvm::StringSet<> &linked) {
    llvm::internalizeModule(m, [&](const llvm::GlobalValue &gv) {
      return !gv.hasName() || !linked.contains(gv.getName());
    });
  };
  bool failedLink = llvm::Linker::linkModules(
      mod, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded, internalizeLinked);
  if (failedLink)
    return emitError(loc, "linking libdevice ") << path << " into the kernels failed", failure();
  for (const std::string &name : needed)
    if (llvm::Function *f = mod.getFunction(name); !f || f->isDeclaration())
      return emitError(loc, "kernel calls libdevice function ")
                 << name << ", which libdevice (" << path << ") does not define",
             failure();
  mod.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  mod.addModuleFlag(llvm::Module::Override, "nvvm-reflect-prec-sqrt", uint32_t(1));
  return success();
}

FailureOr<std::string> aicc::nvptx::emitPTX(Location loc, StringRef llvmIR, StringRef chip,
                                            StringRef features, StringRef cudaPath) {
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  llvm::LLVMContext llvmCtx;
  auto parsed = parseLLVMIR(loc, llvmIR, llvmCtx);
  if (failed(parsed))
    return failure();
  llvm::Module &mod = **parsed;
  llvm::Triple tt("nvptx64-nvidia-cuda");
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(tt, err);
  if (!target)
    return emitError(loc, "LLVM has no NVPTX target: ") << err, failure();
  llvm::TargetOptions to;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      tt, chip, features, to, std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return emitError(loc, "cannot create an NVPTX target machine for ") << chip, failure();
  mod.setTargetTriple(tt);
  mod.setDataLayout(tm->createDataLayout());
  defineLibdeviceIntrinsics(mod);
  if (failed(linkLibdevice(loc, mod, cudaPath)))
    return failure();
  optimizeModule(mod, tm.get());
  return emitWithTargetMachine(loc, mod, *tm, llvm::CodeGenFileType::AssemblyFile);
}

FailureOr<std::string> aicc::nvptx::assemblePTX(Location loc, StringRef ptx, StringRef chip,
                                                StringRef cudaPath, std::string *log) {
  std::string ptxas = nvptx::findPtxas(cudaPath);
  if (ptxas.empty())
    return emitError(loc, cudaPath.empty()
                              ? "ptxas not found (looked in $CUDA_HOME, /usr/local/cuda/bin and "
                                "PATH); use --emit=ptx without a CUDA toolkit"
                              : ("no executable bin/ptxas under --cuda-path=" + cudaPath).str()),
           failure();
  TempFile in, out;
  if (failed(in.create(loc, "aicc-kernels", "ptx")) ||
      failed(out.create(loc, "aicc-kernels", "cubin")) || failed(writeFile(loc, in.path, ptx)))
    return failure();
  std::string arch = ("-arch=" + chip).str();
  // -v always: the performance diagnostics checked below are "info" lines.
  SmallVector<StringRef> args{ptxas, arch, "-O3", "-v", in.path, "-o", out.path};
  std::string text;
  if (failed(runTool(loc, ptxas, args, &text)))
    return failure();
  if (log)
    *log = text;
  // ptxas warning C7515: wgmma.mma_async serialized (the accumulators were touched inside a
  // wgmma fence window, or the pipeline could not be proven safe). The kernel would run, at a
  // fraction of the tensor cores' rate: treat it as a build error (issue 6).
  if (StringRef(text).contains("C7515") ||
      StringRef(text).contains("wgmma.mma_async instructions are serialized"))
    return emitError(loc, "ptxas serialized wgmma (warning C7515): ") << text, failure();
  // C7508: setmaxnreg ignored (no register count at entry): the tensor-core kernels'
  // register reallocation between producer and consumer warpgroups would silently not happen.
  if (StringRef(text).contains("C7508"))
    return emitError(loc, "ptxas ignored setmaxnreg (C7508): ") << text, failure();
  return readFile(loc, out.path);
}
