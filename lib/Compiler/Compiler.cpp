//===- Compiler.cpp - the compile driver behind aicc-compile ---------------===//
#include "aicc/Compiler.h"

#include "Internal.h"

#include "aicc/Conversion/GraphToTile/KernelTemplates.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/Analysis/CostModel.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Tile/Transforms/Passes.h"
#include "aicc/InitAll.h"
#include "aicc/Pipelines/Pipelines.h"
#include "aicc/Runtime/MemoryPlan.h"
#include "aicc/Target/Host.h"
#include "aicc/Target/NVPTX.h"
#include "aicc/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "aicc/Support/InputFile.h"
#include "aicc/Support/ParserGuard.h"
#include "aicc/Support/PipelineSteps.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace aicc;

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
          // No location (a file that is not MLIR, an option): aicc-compile adds its prefix.
          if (isa<UnknownLoc>(d.getLocation()) &&
              d.getSeverity() == DiagnosticSeverity::Error && d.getNotes().empty()) {
            os << d << "\n";
            return success();
          }
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
          for (Diagnostic &n : d.getNotes()) {
            // The pass manager's "see current operation" notes repeat whole functions.
            if (StringRef(n.str()).starts_with("see current operation"))
              continue;
            printLocation(os, n.getLocation());
            os << ": note: " << n << "\n";
          }
          return success();
        }) {}
  llvm::Error error(StringRef fallback) {
    return llvm::createStringError(text.empty() ? fallback.str() : text);
  }
};

std::string printOp(Operation *op) { return printIR(op); }

/// Names the pass, the op and its location when a pass fails (the pass's own diagnostics
/// come first).
struct NameFailingPass : public PassInstrumentation {
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (pass->getArgument().empty()) // a nested pass manager: its failing pass already spoke
      return;
    auto diag = emitError(op->getLoc()) << "pass '" << pass->getArgument() << "' failed on '"
                                        << op->getName() << "'";
    if (auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      diag << " @" << sym.getValue();
  }
};

constexpr int rank(Stage s) { return stageRank(s); }

/// The compile driver: runs stages [from, to] on one module.
class Driver {
public:
  Driver(MLIRContext &ctx, const CompileOptions &opts, DiagnosticCollector &diags)
      : ctx(ctx), opts(opts), diags(diags), gpu(opts.target != Target::CPU) {
    if (opts.timing) {
      timing.setEnabled(true);
      timing.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
      root = timing.getRootScope();
    }
    if (!opts.dumpStepsDir.empty() || opts.printIRAfterAll)
      ctx.disableMultithreading();
  }

  /// One stage of the compile: its --mlir-timing scope, and CompileOptions::onStageEnd
  /// called with its name when it ends.
  struct StageScope {
    TimingScope timing;
    std::string name;
    const CompileOptions &opts;
    ~StageScope() {
      if (opts.onStageEnd)
        opts.onStageEnd(name);
    }
  };

  /// Runs one MLIR stage's pipeline (step by step when dumping steps).
  LogicalResult runStage(ModuleOp module, Stage stage,
                         llvm::function_ref<void(OpPassManager &)> build) {
    StageScope stageScope = nest(stageName(stage, opts.target));
    TimingScope &scope = stageScope.timing;
    PassManager pm(&ctx, ModuleOp::getOperationName());
    build(pm);
    if (opts.dumpStepsDir.empty()) {
      configure(pm, scope);
      return pm.run(module);
    }
    std::string err;
    auto steps = flattenPipeline(printPipeline(pm), err);
    if (failed(steps))
      return module.emitError("internal error: ") << err;
    for (const PipelineStep &step : *steps) {
      PassManager one(&ctx, ModuleOp::getOperationName());
      std::string nestedText;
      for (size_t i = 1; i < step.nesting.size(); ++i)
        nestedText += step.nesting[i] + "(";
      nestedText += step.pass;
      nestedText.append(step.nesting.size() > 0 ? step.nesting.size() - 1 : 0, ')');
      std::string perr;
      llvm::raw_string_ostream pos(perr);
      if (failed(parsePassPipeline(nestedText, one, pos)))
        return module.emitError("internal error: cannot parse step '") << step.pipeline()
                                                                       << "': " << perr;
      configure(one, scope);
      if (failed(one.run(module)))
        return failure();
      if (failed(dumpMLIR(step, printOp(module))))
        return failure();
    }
    return success();
  }

  /// Writes the stage's starting IR as 00-<stage>.mlir (step dumps only).
  LogicalResult dumpStart(ModuleOp module, Stage stage) {
    if (opts.dumpStepsDir.empty())
      return success();
    std::string name = "00-" + stageName(stage, opts.target) + ".mlir";
    llvm::SmallString<256> path(opts.dumpStepsDir);
    llvm::sys::path::append(path, name);
    std::string err;
    if (auto ec = llvm::sys::fs::create_directories(opts.dumpStepsDir))
      return module.emitError("cannot create '") << opts.dumpStepsDir << "': " << ec.message();
    if (failed(writeFileAtomically(path, "// aicc step 00: input at stage " +
                                             stageName(stage, opts.target) + "\n" +
                                             printOp(module),
                                   err)))
      return module.emitError(err);
    lastStepFile = std::string(path);
    return success();
  }

  /// Writes a non-MLIR step (LLVM IR, PTX) to the step directory.
  LogicalResult dumpArtifact(Location loc, StringRef name, StringRef ext, StringRef comment,
                             StringRef reproduce, StringRef text) {
    if (opts.dumpStepsDir.empty())
      return success();
    char num[16];
    snprintf(num, sizeof(num), "%02u", ++stepIndex);
    llvm::SmallString<256> path(opts.dumpStepsDir);
    llvm::sys::path::append(path, std::string(num) + "-" + name.str() + "." + ext.str());
    std::string header = (comment + " aicc step " + num + ": " + name + "\n" + comment +
                          " reproduce: aicc-compile " + lastStepFile + " " + reproduce + "\n")
                             .str();
    std::string err;
    if (failed(writeFileAtomically(path, header + text.str(), err)))
      return emitError(loc, err);
    lastStepFile = std::string(path);
    return success();
  }

  StageScope nest(StringRef name) { return StageScope{root.nest(name), name.str(), opts}; }
  const CompileOptions &options() const { return opts; }

private:
  void configure(PassManager &pm, TimingScope &scope) {
    if (!opts.crashReproducer.empty())
      pm.enableCrashReproducerGeneration(opts.crashReproducer);
    if (opts.printIRAfterAll)
      pm.enableIRPrinting(/*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
                          /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
                          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    if (opts.timing)
      pm.enableTiming(scope);
    pm.addInstrumentation(std::make_unique<NameFailingPass>());
  }

  LogicalResult dumpMLIR(const PipelineStep &step, StringRef ir) {
    std::string err, written;
    if (failed(writeStepDump(opts.dumpStepsDir, ++stepIndex, step, lastStepFile, ir, err,
                             &written)))
      return emitError(UnknownLoc::get(&ctx), err);
    lastStepFile = written;
    return success();
  }

  MLIRContext &ctx;
  const CompileOptions &opts;
  DiagnosticCollector &diags;
  bool gpu;
  unsigned stepIndex = 0;
  std::string lastStepFile = "<input>";
  DefaultTimingManager timing;
  TimingScope root;
};

FailureOr<OwningOpRef<ModuleOp>> parseMLIR(MLIRContext &ctx, StringRef text, StringRef name) {
  // Constructs the upstream parser crashes on are refused first (ParserGuard.h).
  if (std::optional<ParserHazard> hazard = findParserHazard(text)) {
    StringRef before = text.take_front(hazard->offset);
    size_t lineStart = before.rfind('\n');
    unsigned line = before.count('\n') + 1;
    unsigned col = hazard->offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
    return emitError(FileLineColLoc::get(&ctx, name, line, col), hazard->message), failure();
  }
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  OwningOpRef<ModuleOp> m = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!m)
    return failure();
  return m;
}

/// Graphviz of the fused graph: fusion groups are clusters coloured by kind.
std::string emitDot(ModuleOp module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  DenseMap<Operation *, unsigned> ids;
  DenseMap<Value, std::string> producer; // value -> node id that produces it
  unsigned next = 0;
  auto color = [](StringRef kind) {
    return llvm::StringSwitch<const char *>(kind)
        .Case("epilogue", "lightblue")
        .Case("elementwise", "palegreen")
        .Case("softmax", "orange")
        .Case("reduction", "plum")
        .Case("attention", "gold")
        .Default("lightgray");
  };
  auto escape = [](StringRef in) {
    std::string r;
    for (char c : in) {
      if (c == '"' || c == '\\')
        r.push_back('\\');
      r.push_back(c);
    }
    return r;
  };
  auto typeStr = [](Type t) {
    std::string r;
    llvm::raw_string_ostream ts(r);
    ts << t;
    return r;
  };
  os << "digraph aicc {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (auto fn : module.getOps<func::FuncOp>()) {
    for (BlockArgument a : fn.getArguments()) {
      std::string id = "n" + std::to_string(next++);
      std::string name = "arg" + std::to_string(a.getArgNumber());
      if (auto n = fn.getArgAttrOfType<StringAttr>(a.getArgNumber(), "aicc.name"))
        name = n.getValue().str();
      os << "  " << id << " [shape=ellipse, label=\"input " << escape(name) << "\\n" << typeStr(a.getType())
         << "\"];\n";
      producer[a] = id;
    }
    unsigned cluster = 0;
    auto emitOp = [&](Operation &op, StringRef indent) {
      std::string id = "n" + std::to_string(next++);
      std::string label = op.getName().getStringRef().str();
      if (auto n = dyn_cast<NameLoc>(op.getLoc()))
        label += "\\n" + escape(n.getName().getValue());
      if (op.getNumResults() == 1)
        label += "\\n" + typeStr(op.getResult(0).getType());
      os << indent << id << " [label=\"" << label << "\"];\n";
      for (Value r : op.getResults())
        producer[r] = id;
      return id;
    };
    SmallVector<std::pair<std::string, std::string>> edges;
    for (Operation &op : fn.getBody().front()) {
      if (auto g = dyn_cast<aicc::graph::FusionGroupOp>(op)) {
        // Same numbering as convert-graph-to-tile's kernel names.
        os << "  subgraph cluster_" << cluster << " {\n    style=filled; fillcolor="
           << color(g.getKind()) << "; label=\"fused_" << cluster << "_" << g.getKind()
           << "\";\n";
        ++cluster;
        Block &body = g.getBody().front();
        for (auto [arg, in] : llvm::zip(body.getArguments(), g.getInputs()))
          producer[arg] = producer.lookup(in);
        for (Operation &inner : body) {
          if (auto y = dyn_cast<aicc::graph::YieldOp>(inner)) {
            for (auto [v, r] : llvm::zip(y.getValues(), g.getResults()))
              producer[r] = producer.lookup(v);
            continue;
          }
          std::string id = emitOp(inner, "    ");
          for (Value o : inner.getOperands())
            if (producer.count(o))
              edges.push_back({producer[o], id});
        }
        os << "  }\n";
        continue;
      }
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
          std::string id = "n" + std::to_string(next++);
          os << "  " << id << " [shape=ellipse, label=\"output " << i << "\"];\n";
          if (producer.count(v))
            edges.push_back({producer[v], id});
        }
        continue;
      }
      std::string id = emitOp(op, "  ");
      for (Value o : op.getOperands())
        if (producer.count(o))
          edges.push_back({producer[o], id});
    }
    for (auto &[a, b] : edges)
      os << "  " << a << " -> " << b << ";\n";
  }
  os << "}\n";
  return s;
}

/// Reads the host plan from an MLIR file at the tile or lowered stage.
FailureOr<runtime::Bundle> planFromFile(MLIRContext &ctx, StringRef path,
                                        const PipelineConfig &config) {
  bool gpu = config.target != Target::CPU;
  auto buf = aicc::readInputFile(path, aicc::kMaxMLIRFileBytes, "plan file");
  if (!buf)
    return emitError(UnknownLoc::get(&ctx)) << llvm::toString(buf.takeError()), failure();
  aicc::detail::FileDescription d = aicc::detail::describeFile((*buf)->getBuffer(), path);
  if (d.kind != aicc::detail::FileKind::MLIR)
    return emitError(UnknownLoc::get(&ctx), "the plan file ")
               << path << " is " << d.what << ", not MLIR at the tile or "
               << (gpu ? "gpu" : "cpu") << " stage",
           failure();
  auto m = parseMLIR(ctx, (*buf)->getBuffer(), path);
  if (failed(m))
    return failure();
  // Symbolic dims are proved from the ONNX model only (see compileModel).
  if ((**m)->hasAttr(aicc::detail::kSymbolsAttrName))
    return emitError(UnknownLoc::get(&ctx), "the plan file ")
               << path << " records symbolic dims (" << aicc::detail::kSymbolsAttrName
               << "): a bundle with symbolic dims is compiled from the ONNX model (aicc-compile "
                  "MODEL.onnx --dim NAME=MIN..MAX), which proves them",
           failure();
  bool loweredForGPU = false;
  std::optional<Stage> planStage = aicc::detail::stageOfModule(**m, loweredForGPU);
  if (!planStage || !(*planStage == Stage::Tile ||
                      (*planStage == Stage::Lowered && loweredForGPU == gpu)))
    return emitError(UnknownLoc::get(&ctx), "the plan file ")
               << path << " is "
               << (planStage ? "MLIR at stage '" +
                                   stageName(*planStage,
                                             loweredForGPU ? Target::SM90 : Target::CPU) +
                                   "'"
                             : std::string("MLIR without a kernels module"))
               << ", not MLIR at the tile or " << (gpu ? "gpu" : "cpu") << " stage",
           failure();
  if (gpu && !(**m)->hasAttr(gpu::GPUDialect::getContainerModuleAttrName())) {
    // A tile-stage plan: the GPU lowering's first passes decide how programs map to CUDA
    // blocks (tile.programs_per_cta); run them so the launches match the kernels (the block
    // loads expanded as in buildGPULoweringPipeline, so the register path sees the same IR).
    PassManager pm(&ctx);
    addAttachTarget(pm, config);
    addTensorCoreMatmulPasses(pm, config);
    pm.nest<ModuleOp>().addNestedPass<func::FuncOp>(tile::createTileExpandBlockLoads());
    pm.addPass(createConvertTileToGPURegisters());
    if (failed(pm.run(**m)))
      return failure();
  }
  auto plan = aicc::detail::buildBundlePlan(**m, aicc::detail::collectKernelInfo(**m), gpu);
  if (succeeded(plan) && gpu)
    aicc::detail::applyProgramsPerCTA(**m, *plan);
  return plan;
}
} // namespace

/// The kernels container of a module at the tile or lowered stage.
Operation *aicc::detail::findKernels(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto m = dyn_cast<ModuleOp>(op); m && m.getSymName() == kKernelModuleName)
      return m;
    if (auto g = dyn_cast<gpu::GPUModuleOp>(op); g && g.getName() == kKernelModuleName)
      return g;
  }
  return nullptr;
}

static Stage stageOf(EmitKind emit) {
  switch (emit) {
  case EmitKind::Bundle:
    return Stage::Bundle;
  case EmitKind::Cubin:
    return Stage::Cubin;
  case EmitKind::PTX:
    return Stage::PTX;
  case EmitKind::Import:
    return Stage::ONNX;
  case EmitKind::Graph:
    return Stage::Graph;
  case EmitKind::Fused:
  case EmitKind::Dot:
  case EmitKind::FusionReport:
    return Stage::Fused;
  case EmitKind::Tile:
  case EmitKind::MemoryReport:
    return Stage::Tile;
  case EmitKind::LLVM:
    return Stage::LLVM;
  case EmitKind::Lowered:
    return Stage::Lowered;
  }
  return Stage::Bundle;
}

/// The options the pipeline runs with: `given`, except that a symbolic range (--dim
/// NAME=MIN..MAX) turns graph-scatter-to-select off: the number of positions a ScatterND
/// writes may follow the symbol, and the pass's chain of selects would then differ between
/// the values the graph is compared at (the scatter kernel reads the run's count instead).
static CompileOptions pipelineOptionsOf(const CompileOptions &given) {
  CompileOptions opts = given;
  if (llvm::any_of(given.symbolicDims, [](const auto &d) { return d.min != d.max; }))
    opts.scatterSelectMaxUpdates = 0;
  return opts;
}

std::string aicc::describePipeline(EmitKind emit, const CompileOptions &givenOpts) {
  const CompileOptions opts = pipelineOptionsOf(givenOpts);
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  Stage from = opts.from.value_or(Stage::ONNX), to = stageOf(emit);
  bool gpu = opts.target != Target::CPU;
  std::string out;
  llvm::raw_string_ostream os(out);
  if (from == Stage::ONNX)
    os << "onnx: import (ONNX ModelProto -> graph dialect), or parse graph-dialect MLIR\n";
  for (Stage s : {Stage::Graph, Stage::Fused, Stage::Tile, Stage::Lowered}) {
    if (rank(from) >= rank(s) || rank(to) < rank(s))
      continue;
    PassManager pm(&ctx, ModuleOp::getOperationName());
    buildStagePipeline(pm, opts, s);
    os << stageName(s, opts.target) << ": " << printPipeline(pm) << "\n";
  }
  std::string chip = targetName(opts.target).str(), features = ptxFeaturesOf(opts);
  auto step = [&](Stage s, StringRef what) {
    if (rank(from) < rank(s) && rank(to) >= rank(s))
      os << stageName(s, opts.target) << ": " << what << "\n";
  };
  step(Stage::LLVM, "translate the kernels module to LLVM IR (mlir::translateModuleToLLVMIR)");
  if (gpu) {
    step(Stage::PTX, "LLVM -O3 + NVPTX codegen (nvptx64-nvidia-cuda, " + chip + ", " +
                         features + ")");
    step(Stage::Cubin, "ptxas -arch=" + chip + " -O3");
    step(Stage::Bundle, "host plan + cubin + weights");
  } else {
    step(Stage::Bundle, "LLVM -O3 + x86-64 codegen (PIC), cc -shared; host plan + "
                        "shared object + weights");
  }
  return out;
}

llvm::Expected<std::string> aicc::compileModel(StringRef input, StringRef bufferName,
                                               InputKind kind, EmitKind emit,
                                               const CompileOptions &givenOpts) {
  const CompileOptions opts = pipelineOptionsOf(givenOpts);
  registerAllPasses(); // step dumps parse pass pipelines by name
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  DiagnosticCollector diags(&ctx);
  Driver driver(ctx, opts, diags);

  bool gpu = opts.target != Target::CPU;
  Stage from = opts.from.value_or(Stage::ONNX), to = stageOf(emit);
  std::string fromName = stageName(from, opts.target), toName = stageName(to, opts.target);
  if (rank(from) > rank(to))
    return llvm::createStringError("cannot compile from stage '" + fromName +
                                   "' back to the earlier stage '" + toName + "'");
  if (!gpu && (to == Stage::Cubin || to == Stage::PTX || from == Stage::PTX ||
               from == Stage::Cubin))
    return llvm::createStringError("stages ptx and cubin need a GPU target (sm_80, sm_86, "
                                   "sm_89, sm_90, sm_90a, sm_100)");
  if (from == Stage::Bundle)
    return llvm::createStringError("a bundle is the final stage: nothing to compile from it");
  if ((emit == EmitKind::Dot || emit == EmitKind::FusionReport) && from != Stage::ONNX &&
      from != Stage::Graph && from != Stage::Fused)
    return llvm::createStringError(std::string(emit == EmitKind::Dot ? "--emit=dot"
                                                                     : "--fusion-report") +
                                   " needs the graph (stages onnx, graph, fused)");
  if (llvm::Error e = verifyPipelineConfig(opts))
    return std::move(e);
  auto hw = graph::hardwareByName(hardwareOf(opts));
  if (!opts.bindInputs.empty() && (from != Stage::ONNX || kind != InputKind::ONNX))
    return llvm::createStringError("binding graph inputs (--bind-input) needs an ONNX model "
                                   "as the input");
  if ((!opts.inputShapes.empty() || !opts.dimParams.empty() || !opts.symbolicDims.empty()) &&
      (from != Stage::ONNX || kind != InputKind::ONNX))
    return llvm::createStringError("fixing input shapes (--shape, --dim) needs an ONNX model "
                                   "as the input (MLIR inputs declare static shapes)");
  Location loc = FileLineColLoc::get(&ctx, bufferName, 0, 0);
  // A file from another stage (or target) is refused before anything runs on it.
  bool resuming = from != Stage::ONNX;
  if (resuming)
    if (llvm::Error e = aicc::detail::checkCompileFromBytes(input, bufferName, from, opts.target))
      return std::move(e);

  // Bounded symbolic dims (--dim NAME=MIN..MAX, docs/symbolic-shapes.md): the model is
  // imported at every symbol's max; importAt(k, v) imports it with symbol k at v instead.
  std::vector<aicc::detail::SymbolRange> symbols;
  for (const CompileOptions::SymbolicDim &sd : opts.symbolicDims) {
    if (sd.min < 1 || sd.min > sd.max || sd.max >= (int64_t(1) << 31))
      return llvm::createStringError("--dim " + sd.name + "=" + std::to_string(sd.min) + ".." +
                                     std::to_string(sd.max) +
                                     ": the range must be 1 <= MIN <= MAX < 2^31");
    if (llvm::any_of(opts.dimParams, [&](const auto &p) { return p.first == sd.name; }) ||
        llvm::any_of(symbols, [&](const auto &s) { return s.name == sd.name; }))
      return llvm::createStringError("--dim " + sd.name + " is given twice");
    symbols.push_back({sd.name, sd.min, sd.max});
  }
  // A range of one value is that value (a bundle for one shape).
  std::vector<std::pair<std::string, int64_t>> fixedDims = opts.dimParams;
  llvm::erase_if(symbols, [&](const aicc::detail::SymbolRange &s) {
    if (s.min != s.max)
      return false;
    fixedDims.push_back({s.name, s.max});
    return true;
  });
  // The shapes Shape / Size nodes read at max - 1 of each symbol: the main import marks the
  // values computed from the dims that differ (ImportOptions::shapeReferences).
  std::vector<std::map<std::string, std::vector<int64_t>>> shapeLogs(symbols.size());
  auto importAt = [&](int k, int64_t value,
                      std::map<std::string, std::vector<int64_t>> *log =
                          nullptr) -> OwningOpRef<ModuleOp> {
    onnx_import::ImportOptions importOpts;
    importOpts.shapeLog = log;
    if (k < 0)
      for (const auto &l : shapeLogs)
        importOpts.shapeReferences.push_back(&l);
    for (const InputBinding &bi : opts.bindInputs)
      importOpts.bindInputs.push_back({bi.name, bi.tensorPath});
    for (const auto &[name, dims] : opts.inputShapes)
      importOpts.inputShapes.push_back({name, dims});
    for (const auto &[name, v] : fixedDims)
      importOpts.dimParams.push_back({name, v});
    for (auto [i, s] : llvm::enumerate(symbols))
      importOpts.dimParams.push_back({s.name, (int)i == k ? value : s.max});
    importOpts.maxTensorBytes = opts.maxTensorBytes;
    return onnx_import::importONNXModel(input, bufferName, ctx, importOpts);
  };

  // --specialize NAME=V: checked before anything is compiled.
  if (llvm::Error e = aicc::detail::checkSpecializations(
          opts.specializations, symbols, to == Stage::Bundle && emit == EmitKind::Bundle))
    return std::move(e);
  if (!symbols.empty() && rank(to) < rank(Stage::Fused))
    return llvm::createStringError(
        "--dim " + symbols.front().name + "=" + std::to_string(symbols.front().min) + ".." +
        std::to_string(symbols.front().max) +
        " (a symbolic range) is checked on the fused graph: emit the fused stage or a later "
        "one (at the graph stage the model is the bound's, with nothing symbolic recorded)");

  runtime::Bundle plan;
  bool havePlan = false;
  std::string llvmIR;
  // Kernel name -> tile-stage IR, for --dump-kernels.
  llvm::StringMap<std::string> kernelTileIR;

  if (rank(from) <= rank(Stage::Lowered)) {
    OwningOpRef<ModuleOp> module;
    if (from == Stage::ONNX && kind == InputKind::ONNX) {
      Driver::StageScope t = driver.nest("import");
      // With symbolic dims: the imports at other values and their comparison
      // (SymbolicDims.cpp); without, the import at the given shapes.
      auto m = aicc::detail::importSymbolic(symbols, shapeLogs, importAt, loc);
      if (failed(m))
        return diags.error("the model cannot be compiled for a range of its symbolic dims");
      module = std::move(*m);
    } else {
      auto parsed = parseMLIR(ctx, input, bufferName);
      if (succeeded(parsed))
        module = std::move(*parsed);
    }
    if (!module)
      return diags.error("failed to load " + bufferName.str());
    if (resuming)
      if (llvm::Error e =
              aicc::detail::checkCompileFromModule(*module, bufferName, from, opts.target))
        return std::move(e);
    // Symbolic dims are proved from the ONNX model (compareSymbolSample, checkSymbolicDims);
    // a module resumed from a later stage cannot be, so its records are not trusted.
    if (resuming && ((*module)->hasAttr(aicc::detail::kSymbolsAttrName) ||
                     (*module)
                         ->walk([](Operation *op) {
                           return op->hasAttr(kGroupSymDimsAttrName) ||
                                          op->hasAttr(kAnchorSymDimAttrName)
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted()))
      return diags.error(bufferName.str() + " records symbolic dims (" +
                         aicc::detail::kSymbolsAttrName.str() + ", " + kGroupSymDimsAttrName.str() +
                         " or " + kAnchorSymDimAttrName.str() +
                         "): a bundle with symbolic dims is compiled from the ONNX model "
                         "(aicc-compile MODEL.onnx --dim NAME=MIN..MAX), which proves them; "
                         "resumed stages are taken for one shape (remove the attributes)");
    if (failed(verify(*module)))
      return diags.error("the input module does not verify");
    // Graph-stage MLIR holds graph functions at the top (a function in a nested module would
    // not be compiled and its ops would reach the lowerings unconverted).
    if (kind == InputKind::MLIR && rank(from) <= rank(Stage::Fused)) {
      bool hasBody = false;
      for (Operation &op : module->getBody()->getOperations()) {
        auto fn = dyn_cast<func::FuncOp>(op);
        if (!fn) {
          emitError(op.getLoc(), "a graph-stage module holds func.func ops only, not ")
              << op.getName() << " (aicc-compile compiles the functions at its top level)";
          return diags.error("unexpected op at the top of the input module");
        }
        hasBody |= !fn.isExternal();
      }
      if (!hasBody) {
        Block *top = module->getBody();
        emitError(top->empty() ? module->getLoc() : top->front().getLoc(),
                  "no function to compile: the module holds no func.func with a body");
        return diags.error("nothing to compile");
      }
    }
    if (to == Stage::ONNX)
      return printOp(*module);
    if (failed(driver.dumpStart(*module, from)))
      return diags.error("cannot write the step dump");

    auto stage = [&](Stage s, llvm::function_ref<void(OpPassManager &)> build) -> LogicalResult {
      if (rank(from) >= rank(s) || rank(to) < rank(s))
        return success();
      return driver.runStage(*module, s, build);
    };
    auto stagePipeline = [&](Stage s) {
      return [&opts, s](OpPassManager &pm) { buildStagePipeline(pm, opts, s); };
    };
    if (failed(stage(Stage::Graph, stagePipeline(Stage::Graph))))
      return diags.error("graph pipeline failed");
    if (to == Stage::Graph)
      return printOp(*module);
    if (failed(stage(Stage::Fused, stagePipeline(Stage::Fused))))
      return diags.error("fusion pipeline failed");
    // Bounded symbolic dims: the fused graph at max against the one at max - 1 gives every
    // value's symbolic dim; checkSymbolicDims proves the code right for the whole range.
    if (!symbols.empty() && rank(to) >= rank(Stage::Fused) &&
        failed(aicc::detail::proveSymbolicDims(*module, symbols, importAt, [&](ModuleOp m) {
          PassManager pm(&ctx, ModuleOp::getOperationName());
          buildStagePipeline(pm, opts, Stage::Graph);
          buildStagePipeline(pm, opts, Stage::Fused);
          return pm.run(m);
        })))
      return diags.error("the model cannot be compiled for a range of its symbolic dims");
    if (to == Stage::Fused)
      return emit == EmitKind::Dot            ? emitDot(*module)
             : emit == EmitKind::FusionReport ? aicc::detail::emitFusionReport(*module, *hw)
                                              : printOp(*module);
    if (failed(stage(Stage::Tile, stagePipeline(Stage::Tile))))
      return diags.error("tile pipeline failed");
    if (!opts.dumpKernelsDir.empty())
      if (Operation *k = aicc::detail::findKernels(*module); k && isa<ModuleOp>(k))
        for (auto fn : cast<ModuleOp>(k).getOps<func::FuncOp>())
          kernelTileIR[fn.getName()] = printOp(fn);
    if (emit == EmitKind::MemoryReport) {
      auto p = aicc::detail::buildBundlePlan(*module, aicc::detail::collectKernelInfo(*module), gpu);
      if (failed(p))
        return diags.error("building the launch plan failed");
      p->target = targetName(opts.target).str();
      runtime::MemoryPlanStats stats;
      if (runtime::Status s = runtime::planMemory(*p, &stats); !s.ok)
        return llvm::createStringError("memory planning failed: " + s.message);
      return runtime::formatMemoryReport(*p, stats);
    }
    if (to == Stage::Tile)
      return printOp(*module);
    if (to == Stage::Bundle) {
      auto p = aicc::detail::buildBundlePlan(*module, aicc::detail::collectKernelInfo(*module), gpu);
      if (failed(p))
        return diags.error("building the launch plan failed");
      plan = std::move(*p);
      havePlan = true;
    }
    // Specialized plans (SpecializedPlans.cpp): the model at one value of its symbol,
    // compiled to the tile stage as a bundle for that shape is, its kernels renamed into
    // this module (lowered with the range's) and its plan joined to the range's.
    for (const auto &[name, value] : opts.specializations) {
      const std::string what = "--specialize " + name + "=" + std::to_string(value);
      Driver::StageScope t = driver.nest("specialize " + name + "=" + std::to_string(value));
      OwningOpRef<ModuleOp> spec = importAt(0, value);
      if (!spec)
        return diags.error(what + ": the import failed");
      // The range's pipeline options (pipelineOptionsOf: graph-scatter-to-select off, so a
      // scattered cache is updated in place in both plans) with the symbol fixed at V.
      CompileOptions specOpts = opts;
      specOpts.symbolicDims.clear();
      specOpts.specializations.clear();
      specOpts.dimParams.push_back({name, value});
      PassManager pm(&ctx, ModuleOp::getOperationName());
      for (Stage s : {Stage::Graph, Stage::Fused, Stage::Tile})
        buildStagePipeline(pm, specOpts, s);
      if (failed(pm.run(*spec)) || failed(aicc::detail::prefixKernels(
                                       *spec, aicc::detail::specializedKernelPrefix(name, value))))
        return diags.error(what + ": compiling the model for that shape failed");
      if (!opts.dumpKernelsDir.empty())
        if (Operation *k = aicc::detail::findKernels(*spec); k && isa<ModuleOp>(k))
          for (auto fn : cast<ModuleOp>(k).getOps<func::FuncOp>())
            kernelTileIR[fn.getName()] = printOp(fn);
      if (llvm::Error e = aicc::detail::joinSpecializedPlan(*module, plan, *spec, value, gpu))
        return llvm::createStringError(what + ": " + llvm::toString(std::move(e)));
    }
    if (failed(stage(Stage::Lowered, stagePipeline(Stage::Lowered))))
      return diags.error(gpu ? "GPU lowering failed" : "CPU lowering failed");
    if (gpu && havePlan)
      aicc::detail::applyProgramsPerCTA(*module, plan);
    if (to == Stage::Lowered)
      return printOp(*module);
    Operation *kernels = aicc::detail::findKernels(*module);
    if (!kernels)
      return diags.error("no kernels module (builtin.module or gpu.module @kernels) at stage " +
                         fromName);
    Driver::StageScope t = driver.nest("llvm");
    auto text = aicc::detail::translateToLLVMIRText(kernels);
    if (failed(text))
      return diags.error("LLVM IR translation failed");
    llvmIR = std::move(*text);
    if (failed(driver.dumpArtifact(loc, "llvm", "ll", ";",
                                   ("--compile-from=" + stageName(Stage::Lowered, opts.target) +
                                    " --compile-to=llvm --target=" + targetName(opts.target))
                                       .str(),
                                   llvmIR)))
      return diags.error("cannot write the step dump");
  } else if (from == Stage::LLVM) {
    llvmIR = input.str();
  }
  if (to == Stage::LLVM)
    return llvmIR;

  if (to == Stage::Bundle && !havePlan) {
    if (opts.planFile.empty())
      return llvm::createStringError("a bundle from stage '" + fromName +
                                     "' needs --plan=FILE: the model's MLIR at the tile or " +
                                     stageName(Stage::Lowered, opts.target) + " stage");
    auto p = planFromFile(ctx, opts.planFile, opts);
    if (failed(p))
      return diags.error("cannot read the host plan from " + opts.planFile);
    plan = std::move(*p);
  }
  plan.target = targetName(opts.target).str();
  // Temps share one arena by lifetime (format version 4).
  if (runtime::Status s = runtime::planMemory(plan); !s.ok)
    return llvm::createStringError("memory planning failed: " + s.message);

  // Per-kernel dumps (LLVM IR, PTX, ptxas resources).
  if (!opts.dumpKernelsDir.empty() && !llvmIR.empty()) {
    if (failed(aicc::detail::dumpKernels(loc, opts.dumpKernelsDir, llvmIR, kernelTileIR, gpu,
                                         targetName(opts.target), ptxFeaturesOf(opts),
                                         opts.cudaPath)))
      return diags.error("writing the kernel dumps failed");
  }

  if (!gpu) {
    Driver::StageScope t = driver.nest("codegen (x86-64 + link)");
    auto so = host::emitSharedObject(loc, llvmIR);
    if (failed(so))
      return diags.error("CPU code generation failed");
    plan.code = std::move(*so);
    return runtime::serializeBundle(plan);
  }

  std::string chip = targetName(opts.target).str(), features = ptxFeaturesOf(opts);
  std::string ptx;
  if (rank(from) <= rank(Stage::LLVM)) {
    Driver::StageScope t = driver.nest("ptx (NVPTX codegen)");
    auto p = nvptx::emitPTX(loc, llvmIR, chip, features, opts.cudaPath);
    if (failed(p))
      return diags.error("PTX generation failed");
    ptx = std::move(*p);
    if (failed(driver.dumpArtifact(loc, "ptx", "ptx", "//",
                                   "--compile-from=llvm --compile-to=ptx --target=" + chip,
                                   ptx)))
      return diags.error("cannot write the step dump");
  } else if (from == Stage::PTX) {
    ptx = input.str();
  }
  if (to == Stage::PTX)
    return ptx;
  std::string cubin;
  if (from == Stage::Cubin) {
    cubin = input.str();
  } else {
    Driver::StageScope t = driver.nest("cubin (ptxas)");
    auto c = nvptx::assemblePTX(loc, ptx, chip, opts.cudaPath);
    if (failed(c))
      return diags.error("ptxas failed");
    cubin = std::move(*c);
  }
  if (to == Stage::Cubin)
    return cubin;
  plan.code = std::move(cubin);
  return runtime::serializeBundle(plan);
}
