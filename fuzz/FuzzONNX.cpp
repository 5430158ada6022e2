//===- FuzzONNX.cpp - libFuzzer target: ONNX model bytes -> importer -> passes ---===//
//
// aicc-fuzz-onnx: each input is a serialized onnx.ModelProto (a .onnx file). It is imported
// (aicc::onnx_import::importONNXModel) and, when that succeeds, run through the pipelines
// aicc-compile runs for --target=cpu up to the stage AICC_FUZZ_ONNX_STAGE names:
//
//   import   the importer only
//   graph    + aicc-graph-pipeline
//   fused    + aicc-fusion-pipeline
//   tile     + aicc-tile-pipeline (the default: the deepest stage that keeps a useful
//            execution rate; docs/fuzzing.md has the measurements)
//   cpu      + aicc-cpu-pipeline (tile kernels -> LLVM dialect)
//
// Crashes, sanitizer reports, and a pass that succeeds but leaves IR that does not verify are
// findings; diagnostics (the importer refusing a model) are the expected outcome of most
// inputs. The custom mutator edits the parsed message (ProtoMutator.h) with ONNX knowledge
// from libonnx's operator schemas: op_type among the schemas' ops, attributes of the op's
// schema with their declared type (and, sometimes, a wrong one), tensor data types, raw_data
// sized to match a tensor's dims.
//
// External data: the model "lives" in an empty private directory, so relative locations
// resolve there (and the importer's confinement to the model's directory is what is tested).
//
//===----------------------------------------------------------------------===//
#define AICC_FUZZ_WITH_MLIR
#include "FuzzCommon.h"
#include "ONNXMutations.h"

#include "aicc/InitAll.h"
#include "aicc/Pipelines/Pipelines.h"
#include "aicc/Target/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

using namespace aicc::fuzz;

namespace {
/// Inputs above this size are rejected at once (libFuzzer's -max_len should be lower).
constexpr size_t kMaxInputBytes = 1 << 20;

enum class Stage { Import, Graph, Fused, Tile, CPU };

struct State {
  mlir::DialectRegistry registry;
  Stage stage = Stage::Tile;
  std::string modelPath;
  ProtoMutator mutator;
};

State &state() {
  static State *s = new State();
  return *s;
}

Stage parseStage(const std::string &name) {
  if (name == "import")
    return Stage::Import;
  if (name == "graph")
    return Stage::Graph;
  if (name == "fused")
    return Stage::Fused;
  if (name == "tile")
    return Stage::Tile;
  if (name == "cpu")
    return Stage::CPU;
  std::fprintf(stderr, "aicc-fuzz-onnx: AICC_FUZZ_ONNX_STAGE='%s' is not one of import, graph, "
                       "fused, tile, cpu\n",
               name.c_str());
  std::exit(2);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  State &s = state();
  aicc::registerAllDialects(s.registry);
  s.stage = parseStage(envString("AICC_FUZZ_ONNX_STAGE", "tile"));
  // An empty private directory for the model, removed at exit (when it is still empty).
  std::string dir = (std::filesystem::temp_directory_path() / "aicc-fuzz-onnx-XXXXXX").string();
  if (!::mkdtemp(dir.data())) {
    std::perror("aicc-fuzz-onnx: mkdtemp");
    std::exit(2);
  }
  static std::string dirToRemove = dir;
  std::atexit([] { ::rmdir(dirToRemove.c_str()); });
  s.modelPath = dir + "/model.onnx";
  addONNXMutations(s.mutator);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  State &s = state();
  mlir::MLIRContext ctx(s.registry, mlir::MLIRContext::Threading::DISABLED);
  DiagnosticSink sink(ctx);
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      aicc::onnx_import::importONNXModel(bytes, s.modelPath, ctx);
  if (!module || s.stage == Stage::Import)
    return 0;
  mlir::PassManager pm(&ctx, mlir::ModuleOp::getOperationName());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<AbortOnInvalidIR>(sink));
  aicc::buildGraphPipeline(pm);
  if (s.stage >= Stage::Fused)
    aicc::buildFusionPipeline(pm);
  if (s.stage >= Stage::Tile)
    aicc::buildTilePipeline(pm);
  if (s.stage >= Stage::CPU)
    aicc::buildCPUPipeline(pm);
  (void)pm.run(*module);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  static onnx::ModelProto prototype;
  return mutateSerialized(prototype, state().mutator, data, size, maxSize, seed);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
                                            const uint8_t *data2, size_t size2, uint8_t *out,
                                            size_t maxOutSize, unsigned int seed) {
  static onnx::ModelProto prototype;
  return crossOverSerialized(prototype, state().mutator, data1, size1, data2, size2, out,
                             maxOutSize, seed);
}
