//===- FuzzMLIR.cpp - libFuzzer target: MLIR text -> parse -> verify -> aicc passes ---===//
//
// aicc-fuzz-mlir: each input is one selector byte followed by MLIR text. The text is parsed
// with every dialect aicc-opt registers (aicc::registerAllDialects), verified, and run through
// the pipeline the selector picks ((byte - '0') mod 5, so the seeds spell it as a digit):
//
//   0  aicc-graph-pipeline
//   1  aicc-graph-pipeline, aicc-fusion-pipeline
//   2  aicc-graph-pipeline, aicc-fusion-pipeline, aicc-tile-pipeline (aicc-compile up to tile)
//   3  aicc-tile-pipeline            (input: a fused graph)
//   4  aicc-cpu-pipeline             (input: tile kernels + host plan)
//
// Findings: crashes, sanitizer reports, and a pass that succeeds but leaves IR that does not
// verify. Diagnostics are the expected outcome of most inputs.
//
// Known upstream MLIR 22 parser crashes are skipped before parsing (knownUpstreamCrash): they
// are not aicc's to fix and would hide everything else. docs/fuzzing.md lists them.
//
//===----------------------------------------------------------------------===//
#define AICC_FUZZ_WITH_MLIR
#include "FuzzCommon.h"

#include "aicc/InitAll.h"
#include "aicc/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace aicc::fuzz;

namespace {
/// Inputs above this size are rejected at once (libFuzzer's -max_len should be lower).
constexpr size_t kMaxInputBytes = 64 << 10;

mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry();
    aicc::registerAllDialects(*reg);
    return reg;
  }();
  return *r;
}

/// Constructs that crash MLIR 22's own parser or verifier (built without assertions), which
/// aicc cannot fix; the fuzzer skips inputs containing them.
///  - `array<index: ...>`: DenseArrayAttr of index elements (no storage width for index;
///    the parser reads out of bounds). Reported in issue 14.
bool knownUpstreamCrash(llvm::StringRef text) {
  llvm::StringRef rest = text;
  while (true) {
    size_t at = rest.find("array<");
    if (at == llvm::StringRef::npos)
      return false;
    rest = rest.drop_front(at + 6).ltrim();
    if (rest.starts_with("index"))
      return true;
  }
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > kMaxInputBytes)
    return -1;
  unsigned selector = static_cast<uint8_t>(data[0] - '0') % 5;
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  if (knownUpstreamCrash(text))
    return -1;

  mlir::MLIRContext ctx(registry(), mlir::MLIRContext::Threading::DISABLED);
  DiagnosticSink sink(ctx);
  // A NUL-terminated copy: MLIR's lexer reads one byte past the end of its buffer.
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  // parseSourceFile verifies the module (ParserConfig's default).
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sm, &ctx);
  if (!module)
    return 0;

  mlir::PassManager pm(&ctx, mlir::ModuleOp::getOperationName());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<AbortOnInvalidIR>(sink));
  switch (selector) {
  case 0:
    aicc::buildGraphPipeline(pm);
    break;
  case 1:
    aicc::buildGraphPipeline(pm);
    aicc::buildFusionPipeline(pm);
    break;
  case 2:
    aicc::buildGraphPipeline(pm);
    aicc::buildFusionPipeline(pm);
    aicc::buildTilePipeline(pm);
    break;
  case 3:
    aicc::buildTilePipeline(pm);
    break;
  default:
    aicc::buildCPUPipeline(pm);
    break;
  }
  (void)pm.run(*module);
  return 0;
}
