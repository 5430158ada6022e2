//===- Host.cpp - LLVM IR of the CPU kernels -> an x86-64 shared object ------===//
#include "aicc/Target/Host.h"

#include "aicc/Target/LLVMCodeGen.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace aicc::codegen;

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

FailureOr<std::string> aicc::host::emitSharedObject(Location loc, StringRef llvmIR) {
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
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), err);
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
