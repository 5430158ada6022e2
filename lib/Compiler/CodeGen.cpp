//===- CodeGen.cpp - LLVM IR, host objects, PTX -> cubin -------------------===//
#include "Internal.h"

#include "aicc/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Transforms/Utils/Cloning.h"
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
#include "llvm/Transforms/IPO/Internalize.h"

extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}
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

namespace {
/// Parses LLVM IR text into `ctx`.
FailureOr<std::unique_ptr<llvm::Module>> parseLLVMIR(Location loc, StringRef text,
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

void optimizeModule(llvm::Module &mod, llvm::TargetMachine *tm) {
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

FailureOr<std::string> emitWithTargetMachine(Location loc, llvm::Module &mod,
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
      .Cases("fabs", "fabsf", llvm::Intrinsic::fabs)
      .Case("sqrt", llvm::Intrinsic::sqrt)
      .Case("trunc", llvm::Intrinsic::trunc)
      .Case("rint", llvm::Intrinsic::rint)
      .Case("nearbyint", llvm::Intrinsic::nearbyint)
      .Cases("copysign", "copysignf", llvm::Intrinsic::copysign)
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

static std::string findPtxas(StringRef cudaPath) {
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

/// Defines __truncsfbf2 (f32 -> bf16, round to nearest even, NaN kept quiet) as a hidden
/// function of the kernels' module. x86 has no bf16 arithmetic: instruction selection promotes
/// bf16 values that stay bf16 in LLVM IR (a phi or select of bf16 loads, as masked row kernels
/// have) to f32 and rounds them back with a call to this compiler-rt/libgcc routine, which
/// libgcc only has from GCC 13. The arith-level bf16 conversions are expanded to integer ops
/// earlier (buildCPUPipeline); this covers the ones codegen introduces.
static void defineTruncSFBF2(llvm::Module &mod) {
  if (mod.getFunction("__truncsfbf2"))
    return;
  llvm::LLVMContext &ctx = mod.getContext();
  llvm::Type *f32 = llvm::Type::getFloatTy(ctx), *bf16 = llvm::Type::getBFloatTy(ctx);
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx), *i16 = llvm::Type::getInt16Ty(ctx);
  auto *f = llvm::Function::Create(llvm::FunctionType::get(bf16, {f32}, false),
                                   llvm::GlobalValue::ExternalLinkage, "__truncsfbf2", mod);
  f->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
  llvm::Value *x = f->getArg(0);
  llvm::Value *bits = b.CreateBitCast(x, i32);
  llvm::Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff))), 16);
  llvm::Value *quietNaN = b.CreateOr(b.CreateLShr(bits, 16), 0x40);
  llvm::Value *r = b.CreateSelect(b.CreateFCmpUNO(x, x), quietNaN, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(r, i16), bf16));
}

FailureOr<std::string> aicc::detail::emitCPUSharedObject(Location loc, StringRef llvmIR) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmCtx;
  auto parsed = parseLLVMIR(loc, llvmIR, llvmCtx);
  if (failed(parsed))
    return failure();
  llvm::Module &mod = **parsed;
  mod.setSourceFileName("aicc_kernels");
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
  mod.setTargetTriple(tt);
  mod.setDataLayout(tm->createDataLayout());
  optimizeModule(mod, tm.get());
  defineTruncSFBF2(mod);
  auto obj = emitWithTargetMachine(loc, mod, *tm, llvm::CodeGenFileType::ObjectFile);
  if (failed(obj))
    return failure();
  TempFile objFile, so;
  if (failed(objFile.create(loc, "aicc-kernels", "o")) ||
      failed(so.create(loc, "aicc-kernels", "so")) || failed(writeFile(loc, objFile.path, *obj)))
    return failure();
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return emitError(loc, "no C compiler driver 'cc' on PATH to link the CPU kernels"), failure();
  if (failed(runTool(loc, *cc, {*cc, "-shared", "-nostartfiles", "-Wl,--build-id=none", "-o",
                                so.path, objFile.path, "-lm"})))
    return failure();
  return readFile(loc, so.path);
}

FailureOr<std::string> aicc::detail::emitPTX(Location loc, StringRef llvmIR, StringRef chip,
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
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(tt.str(), err);
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

FailureOr<std::string> aicc::detail::assemblePTX(Location loc, StringRef ptx, StringRef chip,
                                                 StringRef cudaPath, std::string *log) {
  std::string ptxas = findPtxas(cudaPath);
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

LogicalResult aicc::detail::dumpKernels(Location loc, StringRef dir, StringRef llvmIR,
                                       const llvm::StringMap<std::string> &tileIR, bool gpu,
                                       StringRef chip, StringRef features, StringRef cudaPath) {
  llvm::LLVMContext llvmCtx;
  auto parsed = parseLLVMIR(loc, llvmIR, llvmCtx);
  if (failed(parsed))
    return failure();
  llvm::Module &whole = **parsed;
  SmallVector<std::string> kernels;
  for (llvm::Function &f : whole.functions()) {
    if (f.isDeclaration())
      continue;
    bool isKernel = gpu ? f.getCallingConv() == llvm::CallingConv::PTX_Kernel
                        : f.getName().ends_with("_entry");
    if (isKernel)
      kernels.push_back((gpu ? f.getName() : f.getName().drop_back(6)).str());
  }
  for (const std::string &k : kernels) {
    llvm::SmallString<256> kdir(dir);
    llvm::sys::path::append(kdir, k);
    if (auto ec = llvm::sys::fs::create_directories(kdir))
      return emitError(loc, "cannot create ") << kdir << ": " << ec.message(), failure();
    auto file = [&](StringRef name) {
      llvm::SmallString<256> p(kdir);
      llvm::sys::path::append(p, name);
      return std::string(p);
    };
    auto it = tileIR.find(k);
    if (it != tileIR.end() && failed(writeFile(loc, file("tile.mlir"), it->second)))
      return failure();
    // This kernel alone: drop the bodies of the other kernels, then unused globals.
    std::unique_ptr<llvm::Module> one = llvm::CloneModule(whole);
    for (llvm::Function &f : one->functions()) {
      StringRef n = f.getName();
      bool mine = gpu ? n == k : (n == k || n == k + "_entry");
      bool otherKernel = gpu ? f.getCallingConv() == llvm::CallingConv::PTX_Kernel
                             : llvm::is_contained(kernels, n.str()) || n.ends_with("_entry");
      if (!mine && otherKernel && !f.isDeclaration())
        f.deleteBody();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    one->print(os, nullptr);
    if (failed(writeFile(loc, file("kernel.ll"), text)))
      return failure();
    if (!gpu)
      continue;
    auto ptx = emitPTX(loc, text, chip, features, cudaPath);
    if (failed(ptx) || failed(writeFile(loc, file("kernel.ptx"), *ptx)))
      return failure();
    llvm::json::Object summary{{"kernel", k}, {"chip", chip.str()}};
    std::string log;
    if (!findPtxas(cudaPath).empty()) {
      if (failed(assemblePTX(loc, *ptx, chip, cudaPath, &log)))
        return failure();
      // ptxas -v: "Used 30 registers, used 1 barriers, 8736 bytes smem, ..." and
      // "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
      auto grab = [&](StringRef pattern) -> std::optional<int64_t> {
        llvm::Regex re(pattern);
        SmallVector<StringRef> m;
        int64_t v;
        if (re.match(log, &m) && !m[1].getAsInteger(10, v))
          return v;
        return std::nullopt;
      };
      auto put = [&](StringRef key, std::optional<int64_t> v) {
        if (v)
          summary[key] = *v;
      };
      put("registers", grab("Used ([0-9]+) registers"));
      put("barriers", grab("used ([0-9]+) barriers"));
      summary["shared_bytes"] = grab("([0-9]+) bytes smem").value_or(0);
      put("stack_frame_bytes", grab("([0-9]+) bytes stack frame"));
      put("spill_store_bytes", grab("([0-9]+) bytes spill stores"));
      put("spill_load_bytes", grab("([0-9]+) bytes spill loads"));
      summary["ptxas_log"] = log;
    } else {
      summary["ptxas"] = "unavailable (no CUDA toolkit found); PTX only";
    }
    std::string json;
    llvm::raw_string_ostream js(json);
    js << llvm::formatv("{0:2}", llvm::json::Value(std::move(summary))) << "\n";
    if (failed(writeFile(loc, file("resources.json"), json)))
      return failure();
  }
  return success();
}
