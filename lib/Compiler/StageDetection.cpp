//===- StageDetection.cpp - what a --compile-from input actually is -------===//
//
// aicc-compile --compile-from=STAGE trusts nothing about its input: the bytes say what the
// file is (ELF cubin, aicc bundle, LLVM IR or bitcode, PTX, MLIR, ONNX), a parsed MLIR
// module says its stage (graph, fused, tile, gpu/cpu), and a file from another stage or
// for another target is refused as "FILE is WHAT, not the output of --compile-to=STAGE"
// before any pipeline or LLVM translation runs on it.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

using namespace mlir;
using namespace aicc;

namespace {
constexpr int rank(Stage s) { return static_cast<int>(s); }

/// The first line of `text` that is neither blank nor a `//` or `;` comment.
StringRef firstCodeLine(StringRef text) {
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    StringRef t = line.trim();
    if (!t.empty() && !t.starts_with("//") && !t.starts_with(";"))
      return t;
    text = rest;
  }
  return "";
}

/// The value of a PTX directive such as ".target sm_90" (empty if absent).
StringRef ptxDirective(StringRef text, StringRef directive) {
  SmallVector<StringRef> lines;
  text.take_front(1 << 16).split(lines, '\n');
  for (StringRef l : lines) {
    StringRef t = l.trim();
    if (t.consume_front(directive) && !t.empty() && llvm::isSpace(t.front()))
      return t.trim();
  }
  return "";
}

bool isLLVMIRText(StringRef text) {
  StringRef head = text.take_front(1 << 16);
  if (head.starts_with("; ModuleID") || head.contains("\nsource_filename = ") ||
      head.starts_with("source_filename = ") || head.contains("target datalayout = ") ||
      head.contains("target triple = "))
    return true;
  StringRef first = firstCodeLine(head);
  return first.starts_with("define ") || first.starts_with("declare ") ||
         (first.starts_with("@") && first.contains(" = "));
}

bool isMLIRText(StringRef text) {
  StringRef first = firstCodeLine(text.take_front(1 << 16));
  return first.starts_with("module") || first.starts_with("func.func") ||
         first.starts_with("\"builtin.module\"") || first.starts_with("#") ||
         first.starts_with("!") || first.starts_with("{-#") || first.starts_with("gpu.module") ||
         first.starts_with("memref.global");
}

/// Whether LLVM IR targets NVPTX (the GPU lowering's kernels use the PTX kernel calling
/// convention and NVVM intrinsics; aicc's IR carries no target triple).
bool isGPULLVMIR(StringRef text) {
  return text.contains("ptx_kernel") || text.contains("@llvm.nvvm.") ||
         text.contains("target triple = \"nvptx");
}
} // namespace

aicc::detail::FileDescription aicc::detail::describeFile(StringRef bytes, StringRef name) {
  if (bytes.starts_with("\x7f"
                        "ELF")) {
    uint16_t machine = bytes.size() >= 20 ? uint8_t(bytes[18]) | uint8_t(bytes[19]) << 8 : 0;
    if (machine == llvm::ELF::EM_CUDA)
      return {FileKind::Cubin, "a cubin (CUDA ELF)"};
    return {FileKind::ELF, machine == llvm::ELF::EM_X86_64
                               ? "an x86-64 ELF file (not a cubin)"
                               : "an ELF file for machine " + std::to_string(machine) +
                                     " (not a cubin)"};
  }
  if (bytes.starts_with("AICCBND1"))
    return {FileKind::Bundle, "an aicc bundle (the final stage: run it with aicc-run)"};
  if (bytes.starts_with("BC\xC0\xDE"))
    return {FileKind::LLVMBitcode, "LLVM bitcode (give LLVM IR text to --compile-from=llvm)"};
  // The name says ONNX unless the bytes are MLIR text (aicc-run --bisect compiles the module it
  // imported from MODEL.onnx under that name).
  if (name.ends_with(".onnx") && !isMLIRText(bytes))
    return {FileKind::ONNX, "an ONNX model (compile it without --compile-from)"};
  if (bytes.take_front(4096).contains('\0'))
    return {FileKind::Binary, "binary data of no format aicc-compile knows"};
  if (StringRef target = ptxDirective(bytes, ".target"); !target.empty() &&
                                                       !ptxDirective(bytes, ".version").empty())
    return {FileKind::PTX, ("PTX (.target " + target + ")").str()};
  if (isLLVMIRText(bytes)) {
    bool gpu = isGPULLVMIR(bytes);
    return {FileKind::LLVMIR, gpu ? "LLVM IR of GPU kernels (NVPTX)" : "LLVM IR of CPU kernels",
            gpu};
  }
  if (isMLIRText(bytes))
    return {FileKind::MLIR, "MLIR"};
  return {FileKind::Text, "text of no format aicc-compile knows"};
}

std::optional<Stage> aicc::detail::stageOfModule(ModuleOp module, bool &gpu) {
  gpu = false;
  std::optional<Stage> stage;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto g = dyn_cast<gpu::GPUModuleOp>(op); g && g.getName() == kKernelModuleName) {
      gpu = true;
      return Stage::Lowered;
    }
    if (auto m = dyn_cast<ModuleOp>(op); m && m.getSymName() == kKernelModuleName) {
      bool llvmFuncs = !m.getOps<LLVM::LLVMFuncOp>().empty();
      return llvmFuncs ? Stage::Lowered : Stage::Tile;
    }
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      fn.walk([&](Operation *inner) {
        if (isa<graph::FusionGroupOp>(inner))
          stage = Stage::Fused;
        else if (!stage && isa_and_nonnull<graph::GraphDialect>(inner->getDialect()))
          stage = Stage::Graph;
      });
    }
  }
  return stage;
}

static std::string fromFlag(Stage s, Target t) { return "--compile-to=" + stageName(s, t); }

llvm::Error aicc::detail::checkCompileFromBytes(StringRef bytes, StringRef name, Stage from,
                                          Target target) {
  FileDescription d = describeFile(bytes, name);
  bool gpuTarget = target != Target::CPU;
  FileKind want = rank(from) <= rank(Stage::Lowered) ? FileKind::MLIR
                  : from == Stage::LLVM             ? FileKind::LLVMIR
                  : from == Stage::PTX              ? FileKind::PTX
                                                    : FileKind::Cubin;
  // Which --compile-from the file is for, as a hint.
  auto hint = [&]() -> std::string {
    switch (d.kind) {
    case FileKind::MLIR:
      return "; MLIR resumes with --compile-from=graph, fused, tile or " +
             stageName(Stage::Lowered, target);
    case FileKind::LLVMIR:
      return "; use --compile-from=llvm";
    case FileKind::PTX:
      return "; use --compile-from=ptx";
    case FileKind::Cubin:
      return "; use --compile-from=cubin";
    default:
      return "";
    }
  };
  if (d.kind != want)
    return llvm::createStringError(name + " is " + d.what + ", not the output of " +
                                   fromFlag(from, target) + hint());
  if (d.kind == FileKind::LLVMIR && d.gpu != gpuTarget)
    return llvm::createStringError(
        name + " is " + d.what + ", not the output of " + fromFlag(from, target) + " for " +
        (gpuTarget ? "a GPU target (" + stageName(Stage::Lowered, target) + ")"
                   : std::string("the cpu target")) +
        (gpuTarget ? "; it was compiled with --target=cpu" : "; pass its --target=sm_*"));
  return llvm::Error::success();
}

llvm::Error aicc::detail::checkCompileFromModule(ModuleOp module, StringRef name, Stage from,
                                           Target target) {
  bool gpu = false;
  std::optional<Stage> stage = stageOfModule(module, gpu);
  if (!stage) // hand-written MLIR that shows no stage: the pipelines judge it
    return llvm::Error::success();
  bool gpuTarget = target != Target::CPU;
  if (*stage == from && (from != Stage::Lowered || gpu == gpuTarget))
    return llvm::Error::success();
  if (*stage == from) // lowered for the other kind of target
    return llvm::createStringError(
        name + " is MLIR lowered for " + (gpu ? "a GPU target" : "the cpu target") +
        " (the output of --compile-to=" + (gpu ? "gpu --target=sm_*" : "cpu --target=cpu") +
        "), not the output of " + fromFlag(from, target) + " --target=" +
        targetName(target).str());
  Target shown = *stage == Stage::Lowered ? (gpu ? Target::SM90 : Target::CPU) : target;
  return llvm::createStringError(name + " is MLIR at stage '" + stageName(*stage, shown) +
                                 "' (the output of " + fromFlag(*stage, shown) +
                                 "), not the output of " + fromFlag(from, target) +
                                 "; use --compile-from=" + stageName(*stage, shown));
}
