//===- Compiler.cpp - the compile driver behind aicc-compile ---------------===//
#include "aicc/Compiler.h"

#include "Internal.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/InitAll.h"
#include "aicc/Pipelines/Pipelines.h"
#include "aicc/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace aicc;

llvm::Expected<Target> aicc::parseTarget(StringRef name) {
  if (name == "cpu")
    return Target::CPU;
  if (name == "sm_80")
    return Target::SM80;
  if (name == "sm_90")
    return Target::SM90;
  if (name == "sm_90a")
    return Target::SM90a;
  return llvm::createStringError("unknown target '" + name.str() +
                                 "' (expected cpu, sm_80, sm_90 or sm_90a)");
}

StringRef aicc::targetName(Target t) {
  switch (t) {
  case Target::CPU:
    return "cpu";
  case Target::SM80:
    return "sm_80";
  case Target::SM90:
    return "sm_90";
  case Target::SM90a:
    return "sm_90a";
  }
  return "cpu";
}

namespace {
/// Prints a location the way a user reads it: "file:line:col" for MLIR input,
/// "model.onnx: node 'name'" for ONNX nodes (NameLoc over a line-0 FileLineColLoc).
void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (!fused.getLocations().empty())
      return printLocation(os, fused.getLocations().front());
  }
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (auto file = dyn_cast<FileLineColLoc>(name.getChildLoc())) {
      os << file.getFilename().getValue();
      if (file.getLine() != 0)
        os << ":" << file.getLine() << ":" << file.getColumn();
      os << ": node '" << name.getName().getValue() << "'";
      return;
    }
    os << "'" << name.getName().getValue() << "'";
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":" << file.getColumn();
    return;
  }
  if (auto cs = dyn_cast<CallSiteLoc>(loc))
    return printLocation(os, cs.getCallee());
  os << loc;
}

/// Collects diagnostics as text "loc: error: message" lines.
struct DiagnosticCollector {
  std::string text;
  ScopedDiagnosticHandler handler;
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) {
          llvm::raw_string_ostream os(text);
          printLocation(os, d.getLocation());
          os << ": ";
          switch (d.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          case DiagnosticSeverity::Note:
            os << "note: ";
            break;
          case DiagnosticSeverity::Remark:
            os << "remark: ";
            break;
          }
          os << d << "\n";
          for (Diagnostic &n : d.getNotes())
          {
            printLocation(os, n.getLocation());
            os << ": note: " << n << "\n";
          }
          return success();
        }) {}
  llvm::Error error(StringRef fallback) {
    return llvm::createStringError(text.empty() ? fallback.str() : text);
  }
};

std::string printOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

LogicalResult runPipeline(ModuleOp module, const CompileOptions &opts,
                          llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module->getContext());
  if (!opts.crashReproducer.empty())
    pm.enableCrashReproducerGeneration(opts.crashReproducer);
  if (opts.printIRAfterAll) {
    module->getContext()->disableMultithreading();
    pm.enableIRPrinting();
  }
  if (opts.timing)
    pm.enableTiming();
  build(pm);
  return pm.run(module);
}
} // namespace

llvm::Expected<std::string> aicc::compileModel(StringRef input, StringRef bufferName,
                                               InputKind kind, EmitKind emit,
                                               const CompileOptions &opts) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  DiagnosticCollector diags(&ctx);

  bool gpu = opts.target != Target::CPU;
  if (!gpu && (emit == EmitKind::Cubin || emit == EmitKind::PTX))
    return llvm::createStringError("--emit=cubin/ptx need a GPU target (sm_80, sm_90, sm_90a)");

  OwningOpRef<ModuleOp> module;
  if (kind == InputKind::ONNX) {
    module = onnx_import::importONNXModel(input, bufferName, ctx);
  } else {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(input, bufferName), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sm, &ctx);
  }
  if (!module)
    return diags.error("failed to load " + bufferName.str());
  if (failed(verify(*module)))
    return diags.error("the input module does not verify");

  if (failed(runPipeline(*module, opts, buildGraphPipeline)))
    return diags.error("graph pipeline failed");
  if (emit == EmitKind::Graph)
    return printOp(*module);
  if (failed(runPipeline(*module, opts, buildFusionPipeline)))
    return diags.error("fusion pipeline failed");
  if (emit == EmitKind::Fused)
    return printOp(*module);
  if (failed(runPipeline(*module, opts, buildTilePipeline)))
    return diags.error("tile pipeline failed");
  if (emit == EmitKind::Tile)
    return printOp(*module);

  detail::KernelInfoMap info = detail::collectKernelInfo(*module);
  auto plan = detail::buildBundlePlan(*module, info, gpu);
  if (failed(plan))
    return diags.error("building the launch plan failed");
  plan->target = targetName(opts.target).str();

  if (!gpu) {
    if (failed(runPipeline(*module, opts, buildCPUPipeline)))
      return diags.error("CPU pipeline failed");
    Operation *kernels = nullptr;
    for (auto m : module->getOps<ModuleOp>())
      if (m.getSymName() == kKernelModuleName)
        kernels = m;
    if (!kernels)
      return llvm::createStringError("internal error: no kernels module after the CPU pipeline");
    if (emit == EmitKind::LLVM) {
      auto text = detail::translateToLLVMIRText(kernels);
      if (failed(text))
        return diags.error("LLVM IR translation failed");
      return *text;
    }
    auto so = detail::emitCPUSharedObject(kernels);
    if (failed(so))
      return diags.error("CPU code generation failed");
    plan->code = std::move(*so);
    return runtime::serializeBundle(*plan);
  }

  GPUPipelineOptions gpuOpts;
  gpuOpts.chip = targetName(opts.target).str();
  gpuOpts.features = opts.target == Target::SM90a ? "+ptx80" : "+ptx78";
  if (emit == EmitKind::LLVM) {
    if (failed(runPipeline(*module, opts,
                           [&](OpPassManager &pm) { buildGPULoweringPipeline(pm, gpuOpts); })))
      return diags.error("GPU pipeline failed");
    for (auto m : module->getOps<gpu::GPUModuleOp>()) {
      auto text = detail::translateToLLVMIRText(m);
      if (failed(text))
        return diags.error("LLVM IR translation failed");
      return *text;
    }
    return llvm::createStringError("internal error: no gpu.module after the GPU pipeline");
  }
  if (failed(runPipeline(*module, opts, [&](OpPassManager &pm) { buildGPUPipeline(pm, gpuOpts); })))
    return diags.error("GPU pipeline failed");
  auto ptx = detail::extractPTX(*module);
  if (failed(ptx))
    return diags.error("no PTX produced");
  if (emit == EmitKind::PTX)
    return *ptx;
  auto cubin = detail::assemblePTX(module->getLoc(), *ptx, gpuOpts.chip, opts.cudaPath);
  if (failed(cubin))
    return diags.error("ptxas failed");
  if (emit == EmitKind::Cubin)
    return *cubin;
  plan->code = std::move(*cubin);
  return runtime::serializeBundle(*plan);
}
