//===- ReferenceModes.cpp - aicc-run --reference and --bisect -------------===//
//
// --reference MODEL: import the model, run aicc-graph-pipeline, evaluate the graph IR with
// the float64 reference evaluator and compare with ONNX test data like a bundle run.
//
// [BUNDLE] --bisect MODEL: import and fuse the model, compile the fused IR to a bundle (or
// load BUNDLE, which must have been compiled from the same model), run it launch by launch
// through Session's LaunchObserver reading every kernel's inputs and outputs, evaluate the
// reference on the same inputs, and compare each fused kernel's outputs in execution order:
//   - against the reference evaluated from the model inputs (end to end), and
//   - against the reference of the kernel's own ops evaluated on the inputs the kernel
//     actually read ("local": blames the kernel itself rather than what it was fed).
// Launch k of a bundle runs fusion group k of the fused function (convert-graph-to-tile
// names it fused_<k>_<kind> and passes the group's inputs, then its results); the mapping
// is checked, never assumed.
//
//===----------------------------------------------------------------------===//
#include "ReferenceModes.h"

#include "aicc/Compiler.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/InitAll.h"
#include "aicc/Pipelines/Pipelines.h"
#include "aicc/Reference/Evaluator.h"
#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/ONNXData.h"
#include "aicc/Runtime/ReadFile.h"
#include "aicc/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

using namespace mlir;
using namespace aicc::run;
namespace rt = aicc::runtime;
namespace ref = aicc::reference;
namespace graph = aicc::graph;

namespace {

bool fail(const std::string &message) {
  std::fprintf(stderr, "aicc-run: error: %s\n", message.c_str());
  return false;
}

//===----------------------------------------------------------------------===//
// Locations
//===----------------------------------------------------------------------===//
/// ONNX node names (NameLocs) under `loc`, in order, without repeats.
void collectNodeNames(Location loc, std::vector<std::string> &names) {
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location l : fused.getLocations())
      collectNodeNames(l, names);
  } else if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string s = name.getName().str();
    if (!llvm::is_contained(names, s))
      names.push_back(s);
  } else if (auto cs = dyn_cast<CallSiteLoc>(loc)) {
    collectNodeNames(cs.getCallee(), names);
  }
}

/// "model.onnx: node 'Gemm_0'" for imported ONNX nodes, "file:line:col" for MLIR text.
std::string describeLoc(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    return fused.getLocations().empty() ? "<unknown>" : describeLoc(fused.getLocations().front());
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string node = "node '" + name.getName().str() + "'";
    if (auto file = dyn_cast<FileLineColLoc>(name.getChildLoc()))
      return file.getFilename().str() +
             (file.getLine()
                  ? ":" + std::to_string(file.getLine()) + ":" + std::to_string(file.getColumn())
                  : "") +
             ": " + node;
    return node;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  if (auto cs = dyn_cast<CallSiteLoc>(loc))
    return describeLoc(cs.getCallee());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//
/// A model loaded into its own context, diagnostics printed to stderr with their
/// locations.
struct Model {
  Model() : ctx(makeRegistry()) {
    ctx.loadAllAvailableDialects();
    handler = std::make_unique<ScopedDiagnosticHandler>(&ctx, [](Diagnostic &d) {
      const char *sev = d.getSeverity() == DiagnosticSeverity::Error     ? "error"
                        : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                         : "note";
      std::fprintf(stderr, "aicc-run: %s: %s: %s\n", describeLoc(d.getLocation()).c_str(), sev,
                   d.str().c_str());
      for (Diagnostic &n : d.getNotes())
        if (!StringRef(n.str()).starts_with("see current operation"))
          std::fprintf(stderr, "aicc-run: %s: note: %s\n", describeLoc(n.getLocation()).c_str(),
                       n.str().c_str());
      return success();
    });
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    aicc::registerAllDialects(registry);
    return registry;
  }

  MLIRContext ctx;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  OwningOpRef<ModuleOp> module;
  func::FuncOp main;
  /// The module as loaded already held fusion groups.
  bool wasFused = false;
};

/// Loads `path` (.mlir: graph-dialect text; anything else: ONNX), runs aicc-graph-pipeline
/// unless the input is already fused, and aicc-fusion-pipeline too when `fuse`. The file
/// must be a regular file of at most limits.maxFileBytes (rt::readRegularFile).
bool loadModel(Model &m, const std::string &path, bool fuse, const rt::Limits &limits) {
  aicc::registerAllPasses();
  std::string bytes;
  if (rt::Status s = rt::readRegularFile(path, limits.maxFileBytes, bytes, "model"); !s.ok)
    return fail(s.message);
  auto buf = llvm::MemoryBuffer::getMemBufferCopy(bytes, path);
  bytes = std::string();
  if (StringRef(path).ends_with(".mlir")) {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(std::move(buf), llvm::SMLoc());
    m.module = parseSourceFile<ModuleOp>(sm, &m.ctx);
  } else {
    m.module = aicc::onnx_import::importONNXModel(buf->getBuffer(), path, m.ctx);
  }
  if (!m.module)
    return fail("cannot load the model '" + path + "'");
  if (failed(verify(*m.module)))
    return fail("the model '" + path + "' does not verify");
  m.module->walk([&](graph::FusionGroupOp) { m.wasFused = true; });
  auto runPipeline = [&](aicc::Stage stage, const char *what) {
    PassManager pm(&m.ctx, ModuleOp::getOperationName());
    aicc::buildStagePipeline(pm, aicc::PipelineConfig(), stage);
    if (failed(pm.run(*m.module)))
      return fail(std::string(what) + " failed on '" + path + "'");
    return true;
  };
  if (!m.wasFused && !runPipeline(aicc::Stage::Graph, "aicc-graph-pipeline"))
    return false;
  if (fuse && !m.wasFused && !runPipeline(aicc::Stage::Fused, "aicc-fusion-pipeline"))
    return false;
  for (auto fn : m.module->getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    if (m.main)
      return fail("'" + path + "' has more than one function; expected the model's one");
    m.main = fn;
  }
  if (!m.main)
    return fail("'" + path + "' has no function to evaluate");
  return true;
}

/// The reference evaluator holds every value of `fn` at once (arguments, and the results
/// of every op, inside fusion groups too), 8 bytes per element (double or int64_t). Fails
/// with a located diagnostic, before any tensor is allocated, when one value or their sum
/// exceeds `maxBytes` (the runtime's buffer cap) or overflows.
bool checkEvaluationFits(func::FuncOp fn, uint64_t maxBytes) {
  uint64_t total = 0;
  auto add = [&](Value v, Location loc, const std::string &what) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return true; // the evaluator reports these itself
    uint64_t bytes = 8;
    for (int64_t d : type.getShape())
      if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) {
        bytes = UINT64_MAX;
        break;
      }
    std::string size = bytes == UINT64_MAX ? "2^64 or more" : std::to_string(bytes);
    if (bytes > maxBytes) {
      emitError(loc) << "reference evaluator: " << what << " of type " << type << " needs " << size
                     << " bytes (8 per element), above the limit of " << maxBytes
                     << " (--max-buffer-bytes)";
      return false;
    }
    if (__builtin_add_overflow(total, bytes, &total) || total > maxBytes) {
      emitError(loc) << "reference evaluator: the model's values, held at once, need more than "
                     << maxBytes << " bytes (8 per element) by this " << what
                     << "; above the limit (--max-buffer-bytes)";
      return false;
    }
    return true;
  };
  for (BlockArgument arg : fn.getArguments())
    if (!add(arg, fn.getLoc(), "input " + std::to_string(arg.getArgNumber())))
      return fail("the model is too large for the reference evaluator");
  WalkResult r = fn.walk([&](Operation *op) {
    for (OpResult v : op->getResults())
      if (!add(v, op->getLoc(), "result of '" + op->getName().getStringRef().str() + "'"))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (r.wasInterrupted())
    return fail("the model is too large for the reference evaluator");
  return true;
}

std::string argName(func::FuncOp fn, unsigned i) {
  if (auto s = fn.getArgAttrOfType<StringAttr>(i, "aicc.name"))
    return s.getValue().str();
  return "input_" + std::to_string(i);
}

std::string resultName(func::FuncOp fn, unsigned i) {
  if (auto s = fn.getResultAttrOfType<StringAttr>(i, "aicc.name"))
    return s.getValue().str();
  return "output_" + std::to_string(i);
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//
/// One host tensor per argument of `fn`: from `dataSet`/input_K.pb, from --input files,
/// or pseudo-random (floats uniform in [-1, 1) from aicc-run's fixed-seed LCG, integers
/// and bools 0).
bool makeInputs(func::FuncOp fn, const ReferenceModeOptions &opts, const std::string *dataSet,
                std::vector<rt::HostTensor> &out) {
  unsigned n = fn.getNumArguments();
  out.assign(n, rt::HostTensor());
  if (!dataSet && !opts.inputFiles.empty() && opts.inputFiles.size() != n)
    return fail("the model has " + std::to_string(n) + " input(s) but " +
                std::to_string(opts.inputFiles.size()) + " --input file(s) were given");
  uint64_t state = 0x243F6A8885A308D3ull;
  for (unsigned i = 0; i < n; ++i) {
    auto type = cast<RankedTensorType>(fn.getArgument(i).getType());
    if (dataSet || !opts.inputFiles.empty()) {
      std::string path =
          dataSet ? *dataSet + "/input_" + std::to_string(i) + ".pb" : opts.inputFiles[i];
      if (rt::Status s = rt::readTensorProtoFile(path, out[i], nullptr, opts.limits.maxFileBytes);
          !s.ok)
        return fail(s.message);
      continue;
    }
    ref::Tensor t = ref::Tensor::zeros(type);
    if (t.isFloat())
      for (double &v : t.floats) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = double(float((state >> 40) * 0x1.0p-24 * 2.0 - 1.0));
      }
    std::optional<rt::HostTensor> h = ref::toHostTensor(t);
    if (!h)
      return fail("input " + std::to_string(i) + " ('" + argName(fn, i) +
                  "') has no runtime dtype");
    out[i] = std::move(*h);
  }
  return true;
}

/// Converts host inputs to reference tensors of `fn`'s argument types.
bool toReferenceInputs(func::FuncOp fn, const std::vector<rt::HostTensor> &host,
                       std::vector<ref::Tensor> &out) {
  out.clear();
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    std::string error;
    auto t =
        ref::fromHostTensor(host[i], cast<RankedTensorType>(fn.getArgument(i).getType()), error);
    if (!t)
      return fail("input " + std::to_string(i) + " ('" + argName(fn, i) + "'): " + error);
    out.push_back(std::move(*t));
  }
  return true;
}

std::string typeString(const ref::Tensor &t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto dt = ref::toDType(t.elementType))
    return rt::formatTensorType(*dt, std::vector<int64_t>(t.shape.begin(), t.shape.end()));
  os << t.elementType << "["
     << llvm::join(llvm::map_range(t.shape, [](int64_t d) { return std::to_string(d); }), ",")
     << "]";
  return s;
}

std::string formatIndex(const ref::Tensor &t, int64_t linear) {
  std::vector<int64_t> idx(t.shape.size());
  for (int64_t d = (int64_t)t.shape.size() - 1; d >= 0; --d) {
    idx[d] = t.shape[d] ? linear % t.shape[d] : 0;
    linear = t.shape[d] ? linear / t.shape[d] : 0;
  }
  return "[" + llvm::join(llvm::map_range(idx, [](int64_t d) { return std::to_string(d); }), ",") +
         "]";
}

//===----------------------------------------------------------------------===//
// --reference
//===----------------------------------------------------------------------===//
void printSummary(func::FuncOp fn, const std::vector<ref::Tensor> &outs) {
  for (size_t i = 0; i < outs.size(); ++i) {
    const ref::Tensor &t = outs[i];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t n = t.numElements();
    for (int64_t k = 0; k < n; ++k) {
      double v = t.getDouble(k);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    std::printf("output %zu ('%s'): %s", i, resultName(fn, i).c_str(), typeString(t).c_str());
    if (n > 0)
      std::printf(" min=%.6g max=%.6g mean=%.6g", lo, hi, sum / double(n));
    std::printf("\n");
  }
}

/// --rtol/--atol when given (floats), else the per-dtype default (ref::defaultTolerance).
ref::Tolerance toleranceFor(Type elem, const ReferenceModeOptions &opts) {
  if (opts.toleranceGiven && isa<FloatType>(elem))
    return {opts.rtol, opts.atol};
  return ref::defaultTolerance(elem);
}

bool writeOutputs(func::FuncOp fn, const std::vector<ref::Tensor> &outs, const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return fail("cannot create output directory '" + dir + "': " + ec.message());
  for (size_t i = 0; i < outs.size(); ++i) {
    std::optional<rt::HostTensor> h = ref::toHostTensor(outs[i]);
    if (!h)
      return fail("output " + std::to_string(i) + " has no runtime dtype");
    std::string path = dir + "/output_" + std::to_string(i) + ".pb";
    if (rt::Status s = rt::writeTensorProtoFile(path, *h, resultName(fn, i)); !s.ok)
      return fail(s.message);
  }
  return true;
}

/// Evaluates one data set and compares with its expected outputs; true when all pass.
bool referenceDataSet(Model &m, const ReferenceModeOptions &opts, const std::string &dir,
                      bool &hardError) {
  std::printf("test data set %s\n", dir.c_str());
  std::vector<rt::HostTensor> hostInputs;
  std::vector<ref::Tensor> inputs;
  if (!makeInputs(m.main, opts, &dir, hostInputs) ||
      !toReferenceInputs(m.main, hostInputs, inputs)) {
    hardError = true;
    return false;
  }
  ref::Evaluator eval;
  auto outs = eval.run(m.main, inputs);
  if (failed(outs)) {
    hardError = true;
    return fail("the reference evaluator failed");
  }
  bool allPass = true;
  for (size_t i = 0; i < outs->size(); ++i) {
    const ref::Tensor &got = (*outs)[i];
    rt::HostTensor expectedHost;
    std::string path = dir + "/output_" + std::to_string(i) + ".pb";
    if (rt::Status s =
            rt::readTensorProtoFile(path, expectedHost, nullptr, opts.limits.maxFileBytes);
        !s.ok) {
      hardError = true;
      return fail(s.message);
    }
    std::string name = resultName(m.main, i), error;
    auto expected = ref::fromHostTensor(expectedHost, got.getType(), error);
    if (!expected) {
      std::printf("output %zu ('%s'): %s FAIL\n", i, name.c_str(), error.c_str());
      allPass = false;
      continue;
    }
    ref::Tolerance tol = toleranceFor(got.elementType, opts);
    ref::Comparison c = ref::compare(got, *expected, tol);
    std::printf(
        "output %zu ('%s'): max_abs_err=%.3e max_rel_err=%.3e shape=[%s] %s", i, name.c_str(),
        c.maxAbsErr, c.maxRelErr,
        llvm::join(llvm::map_range(got.shape, [](int64_t d) { return std::to_string(d); }), ",")
            .c_str(),
        c.pass() ? "PASS" : "FAIL");
    if (!c.pass())
      std::printf(" (%lld of %lld elements outside rtol=%g atol=%g)", (long long)c.numMismatches,
                  (long long)got.numElements(), tol.rtol, tol.atol);
    std::printf("\n");
    allPass &= c.pass();
  }
  if (!opts.outputDir.empty()) {
    std::string outDir = opts.outputDir;
    if (opts.testDataSets.size() > 1) {
      std::string trimmed = dir;
      while (trimmed.size() > 1 && trimmed.back() == '/')
        trimmed.pop_back();
      outDir += "/" + std::filesystem::path(trimmed).filename().string();
    }
    if (!writeOutputs(m.main, *outs, outDir)) {
      hardError = true;
      return false;
    }
  }
  return allPass;
}

} // namespace

int aicc::run::runReferenceMode(const ReferenceModeOptions &opts) {
  Model m;
  if (!loadModel(m, opts.modelPath, /*fuse=*/false, opts.limits) ||
      !checkEvaluationFits(m.main, opts.limits.maxBufferBytes))
    return 1;
  if (!opts.testDataSets.empty()) {
    int passed = 0;
    bool ok = true;
    for (const std::string &dir : opts.testDataSets) {
      bool hardError = false;
      bool pass = referenceDataSet(m, opts, dir, hardError);
      passed += pass;
      ok &= pass;
    }
    std::printf("%d of %zu test data set(s) passed (float64 reference)\n", passed,
                opts.testDataSets.size());
    return ok ? 0 : 1;
  }
  if (opts.inputFiles.empty() && m.main.getNumArguments() > 0)
    std::fprintf(stderr, "aicc-run: note: no --input given; using pseudo-random float inputs\n");
  std::vector<rt::HostTensor> hostInputs;
  std::vector<ref::Tensor> inputs;
  if (!makeInputs(m.main, opts, nullptr, hostInputs) ||
      !toReferenceInputs(m.main, hostInputs, inputs))
    return 1;
  ref::Evaluator eval;
  auto outs = eval.run(m.main, inputs);
  if (failed(outs))
    return fail("the reference evaluator failed"), 1;
  printSummary(m.main, *outs);
  if (!opts.outputDir.empty() && !writeOutputs(m.main, *outs, opts.outputDir))
    return 1;
  return 0;
}

//===----------------------------------------------------------------------===//
// --bisect
//===----------------------------------------------------------------------===//
namespace {

/// What bisect learns about one fused kernel.
struct KernelReport {
  graph::FusionGroupOp group;
  size_t launch = 0;
  std::string kernel;
  /// Buffers the kernel read and wrote, observed right after its launch.
  std::vector<rt::HostTensor> inputs, outputs;
  bool observed = false;
  /// Reference results from the model inputs (end to end); empty when the reference
  /// stopped before this group.
  std::vector<ref::Tensor> reference;
  /// Per result: end-to-end and local comparisons.
  std::vector<ref::Comparison> endToEnd, local;
  std::vector<ref::Tensor> got;
  bool compared = false;
  bool localFailed = false, endToEndFailed = false;
  std::string problem; // why it could not be compared
};

std::string opsOf(graph::FusionGroupOp group) {
  std::vector<std::string> ops;
  for (Operation &op : group.getBody().front().without_terminator())
    ops.push_back(op.getName().stripDialect().str());
  return llvm::join(ops, "+");
}

std::string nodesOf(graph::FusionGroupOp group) {
  std::vector<std::string> names;
  for (Operation &op : group.getBody().front().without_terminator())
    collectNodeNames(op.getLoc(), names);
  if (names.empty())
    collectNodeNames(group.getLoc(), names);
  std::vector<std::string> quoted;
  for (const std::string &n : names)
    quoted.push_back("'" + n + "'");
  return llvm::join(quoted, ", ");
}

/// Checks that launch k of the session runs fusion group k (name, buffer count, result
/// types).
bool checkPlan(const rt::Session &session, ArrayRef<graph::FusionGroupOp> groups) {
  const auto &launches = session.getLaunches();
  const auto &buffers = session.getBuffers();
  const char *hint = "; was the bundle compiled from this model?";
  if (launches.size() != groups.size())
    return fail("the bundle has " + std::to_string(launches.size()) +
                " launches but the fused model has " + std::to_string(groups.size()) + " kernels" +
                hint);
  for (size_t k = 0; k < groups.size(); ++k) {
    graph::FusionGroupOp g = groups[k];
    std::string expected = "fused_" + std::to_string(k) + "_" + g.getKind().str();
    size_t nIn = g.getInputs().size(), nOut = g.getNumResults();
    if (launches[k].kernel != expected || launches[k].buffers.size() != nIn + nOut)
      return fail("launch " + std::to_string(k) + " runs '" + launches[k].kernel + "' with " +
                  std::to_string(launches[k].buffers.size()) + " buffers, expected '" + expected +
                  "' with " + std::to_string(nIn + nOut) + hint);
    for (size_t j = 0; j < nOut; ++j) {
      auto type = cast<RankedTensorType>(g.getResult(j).getType());
      const rt::BufferInfo &b = buffers[launches[k].buffers[nIn + j]];
      auto dt = ref::toDType(type.getElementType());
      if (!dt || *dt != b.dtype || ArrayRef<int64_t>(b.shape) != type.getShape())
        return fail("launch " + std::to_string(k) + " ('" + expected + "') writes " +
                    rt::formatTensorType(b.dtype, b.shape) + " as result " + std::to_string(j) +
                    " but the model's kernel returns another type" + hint);
    }
  }
  return true;
}

/// Compiles the fused module to a bundle for `target` (the same IR bisect evaluates).
bool compileBundle(Model &m, const ReferenceModeOptions &opts, rt::Bundle &bundle) {
  auto target = aicc::parseTarget(opts.target);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  m.module->print(os, OpPrintingFlags().enableDebugInfo());
  aicc::CompileOptions copts;
  copts.target = *target;
  copts.from = aicc::Stage::Fused;
  auto bytes = aicc::compileModel(text, opts.modelPath, aicc::InputKind::MLIR,
                                  aicc::EmitKind::Bundle, copts);
  if (!bytes) {
    std::string msg = llvm::toString(bytes.takeError());
    std::fprintf(stderr, "%s\n", msg.c_str());
    return fail("compiling '" + opts.modelPath + "' failed");
  }
  if (rt::Status s = rt::parseBundle(*bytes, bundle, opts.limits); !s.ok)
    return fail("the compiled bundle does not parse: " + s.message);
  return true;
}

void printComparison(const char *label, const ref::Comparison &c) {
  std::printf("%s max_abs_err=%.3e max_rel_err=%.3e", label, c.maxAbsErr, c.maxRelErr);
}

} // namespace

int aicc::run::runBisectMode(const ReferenceModeOptions &opts) {
  if (opts.testDataSets.size() > 1)
    return fail("--bisect takes at most one --test-data-set"), 1;
  Model m;
  if (!loadModel(m, opts.modelPath, /*fuse=*/true, opts.limits) ||
      !checkEvaluationFits(m.main, opts.limits.maxBufferBytes))
    return 1;
  std::vector<graph::FusionGroupOp> groups;
  for (Operation &op : m.main.getBody().front())
    if (auto g = dyn_cast<graph::FusionGroupOp>(op))
      groups.push_back(g);

  rt::Bundle bundle;
  if (!opts.bundlePath.empty()) {
    if (rt::Status s = rt::readBundleFile(opts.bundlePath, bundle, opts.limits); !s.ok)
      return fail(s.message), 1;
  } else if (!compileBundle(m, opts, bundle)) {
    return 1;
  }
  rt::Device device = opts.device.value_or(rt::defaultDeviceForTarget(bundle.target));
  std::unique_ptr<rt::Session> session;
  if (rt::Status s = rt::Session::create(bundle, device, session, opts.limits); !s.ok)
    return fail(s.message), 1;
  std::string target = bundle.target;
  bundle = rt::Bundle();
  if (!checkPlan(*session, groups))
    return 1;

  // Inputs: the same host tensors feed the compiled model and the reference.
  const std::string *dataSet = opts.testDataSets.empty() ? nullptr : &opts.testDataSets[0];
  if (!dataSet && opts.inputFiles.empty() && m.main.getNumArguments() > 0)
    std::fprintf(stderr, "aicc-run: note: no --input given; using pseudo-random float inputs\n");
  std::vector<rt::HostTensor> hostInputs;
  std::vector<ref::Tensor> refInputs;
  if (!makeInputs(m.main, opts, dataSet, hostInputs) ||
      !toReferenceInputs(m.main, hostInputs, refInputs))
    return 1;

  // 1. The compiled model, launch by launch.
  std::vector<KernelReport> reports(groups.size());
  std::vector<rt::HostTensor> outputs;
  if (opts.poison)
    if (rt::Status s = session->poisonBuffers(0xFF); !s.ok)
      return fail(s.message), 1;
  // A kernel's inputs are read before it runs (after the launch before it): with
  // in-place reuse (bundle `inplace` records) a launch may write its result over an
  // input that dies there. The first launch's inputs are model inputs and constants,
  // which no launch overwrites: they are read after it.
  auto readBuffers = [&](size_t k, bool inputs) -> rt::Status {
    const rt::LaunchInfo &l = session->getLaunches()[k];
    size_t nIn = groups[k].getInputs().size();
    for (size_t j = inputs ? 0 : nIn; j < (inputs ? nIn : l.buffers.size()); ++j) {
      rt::HostTensor t;
      if (rt::Status s = session->readBuffer(l.buffers[j], t); !s.ok)
        return s;
      (inputs ? reports[k].inputs : reports[k].outputs).push_back(std::move(t));
    }
    return rt::Status::success();
  };
  rt::Status runStatus = session->run(hostInputs, outputs, [&](size_t k) -> rt::Status {
    if (k == 0)
      if (rt::Status s = readBuffers(0, /*inputs=*/true); !s.ok)
        return s;
    if (rt::Status s = readBuffers(k, /*inputs=*/false); !s.ok)
      return s;
    if (k + 1 < reports.size())
      if (rt::Status s = readBuffers(k + 1, /*inputs=*/true); !s.ok)
        return s;
    reports[k].observed = true;
    return rt::Status::success();
  });
  if (!runStatus.ok)
    return fail(runStatus.message), 1;

  // 2. The reference from the model inputs, recording every group's results.
  llvm::DenseMap<Operation *, size_t> groupIndex;
  for (auto [k, g] : llvm::enumerate(groups)) {
    groupIndex[g] = k;
    reports[k].group = g;
    reports[k].launch = k;
    reports[k].kernel = session->getLaunches()[k].kernel;
  }
  ref::Evaluator eval;
  eval.setObserver([&](Operation *op, ArrayRef<ref::Tensor> results) {
    auto it = groupIndex.find(op);
    if (it != groupIndex.end())
      reports[it->second].reference.assign(results.begin(), results.end());
  });
  auto refOutputs = eval.run(m.main, refInputs);
  bool referenceComplete = succeeded(refOutputs);

  // 3. Compare every kernel: end to end, and locally on the inputs it read.
  ref::Evaluator localEval;
  for (KernelReport &r : reports) {
    if (!r.observed) {
      r.problem = "not observed";
      continue;
    }
    for (size_t j = 0; j < r.outputs.size(); ++j) {
      std::string error;
      auto got = ref::fromHostTensor(r.outputs[j],
                                     cast<RankedTensorType>(r.group.getResult(j).getType()), error);
      if (!got) {
        r.problem = "result " + std::to_string(j) + ": " + error;
        break;
      }
      r.got.push_back(std::move(*got));
    }
    if (!r.problem.empty())
      continue;
    std::vector<ref::Tensor> in;
    for (size_t j = 0; j < r.inputs.size(); ++j) {
      std::string error;
      auto t = ref::fromHostTensor(r.inputs[j],
                                   cast<RankedTensorType>(r.group.getOperand(j).getType()), error);
      if (!t) {
        r.problem = "input " + std::to_string(j) + ": " + error;
        break;
      }
      in.push_back(std::move(*t));
    }
    if (!r.problem.empty())
      continue;
    auto local = localEval.evaluateOp(r.group, in);
    if (failed(local) || r.reference.empty()) {
      r.problem = "the reference cannot evaluate this kernel";
      continue;
    }
    for (size_t j = 0; j < r.got.size(); ++j) {
      ref::Tolerance tol = toleranceFor(r.got[j].elementType, opts);
      r.endToEnd.push_back(ref::compare(r.got[j], r.reference[j], tol));
      r.local.push_back(ref::compare(r.got[j], (*local)[j], tol));
      r.endToEndFailed |= !r.endToEnd.back().pass();
      r.localFailed |= !r.local.back().pass();
    }
    r.compared = true;
  }

  // 4. The table, in execution order.
  std::printf("bisect: %s on %s (%s), %zu kernel(s); reference: float64, rounded to each "
              "value's element type after every op\n",
              opts.bundlePath.empty() ? opts.modelPath.c_str() : opts.bundlePath.c_str(),
              rt::deviceName(device), target.c_str(), reports.size());
  std::printf("inputs: %s\n", dataSet                   ? dataSet->c_str()
                              : opts.inputFiles.empty() ? "pseudo-random (fixed seed)"
                                                        : "--input files");
  std::printf("%-4s %-28s %-18s %-10s %-10s %-10s %-8s %s\n", "#", "kernel", "result", "max_abs",
              "max_rel", "local_abs", "status", "ops (ONNX nodes)");
  const KernelReport *first = nullptr, *firstLocal = nullptr;
  for (const KernelReport &r : reports) {
    for (size_t j = 0; j < std::max<size_t>(1, r.got.size()); ++j) {
      std::string result = j < r.got.size() ? typeString(r.got[j]) : "-";
      std::string name = r.kernel + (r.got.size() > 1 ? "#" + std::to_string(j) : "");
      std::printf("%-4zu %-28s %-18s ", r.launch, name.c_str(), result.c_str());
      if (!r.compared) {
        std::printf("%-10s %-10s %-10s %-8s ", "-", "-", "-", "skipped");
      } else {
        const char *status = !r.local[j].pass()      ? "DIVERGES"
                             : !r.endToEnd[j].pass() ? "drift"
                                                     : "ok";
        std::printf("%-10.3e %-10.3e %-10.3e %-8s ", r.endToEnd[j].maxAbsErr,
                    r.endToEnd[j].maxRelErr, r.local[j].maxAbsErr, status);
      }
      std::printf("%s (%s)\n", opsOf(r.group).c_str(), nodesOf(r.group).c_str());
    }
    if (r.compared && r.endToEndFailed && !first)
      first = &r;
    if (r.compared && r.localFailed && !firstLocal)
      firstLocal = &r;
  }

  // 5. Model outputs against the reference (and the test data's expected outputs).
  if (referenceComplete) {
    for (size_t i = 0; i < outputs.size() && i < refOutputs->size(); ++i) {
      std::string error;
      const ref::Tensor &want = (*refOutputs)[i];
      auto got = ref::fromHostTensor(outputs[i], want.getType(), error);
      std::printf("output %zu ('%s'): ", i, resultName(m.main, i).c_str());
      if (!got) {
        std::printf("%s\n", error.c_str());
        continue;
      }
      ref::Comparison c = ref::compare(*got, want, toleranceFor(want.elementType, opts));
      printComparison("vs reference", c);
      if (dataSet) {
        rt::HostTensor expectedHost;
        std::string path = *dataSet + "/output_" + std::to_string(i) + ".pb";
        if (rt::readTensorProtoFile(path, expectedHost, nullptr, opts.limits.maxFileBytes).ok)
          if (auto expected = ref::fromHostTensor(expectedHost, want.getType(), error)) {
            std::printf(";");
            printComparison(" vs expected", ref::compare(*got, *expected, {opts.rtol, opts.atol}));
          }
      }
      std::printf(" %s\n", c.pass() ? "ok" : "DIVERGES");
    }
  } else {
    std::printf("the reference evaluator stopped (see the error above); kernels after that "
                "op were not compared\n");
  }

  // 6. The verdict.
  auto describeFirst = [&](const KernelReport &r) {
    for (size_t j = 0; j < r.endToEnd.size(); ++j) {
      const ref::Comparison &c = r.endToEnd[j];
      if (c.pass())
        continue;
      std::printf("  result %zu %s:", j, typeString(r.got[j]).c_str());
      printComparison("", c);
      ref::Tolerance tol = toleranceFor(r.got[j].elementType, opts);
      std::printf(" (%lld of %lld elements outside rtol=%g atol=%g)\n", (long long)c.numMismatches,
                  (long long)r.got[j].numElements(), tol.rtol, tol.atol);
      if (c.firstMismatch >= 0)
        std::printf("  first at %s: got %.9g, reference %.9g\n",
                    formatIndex(r.got[j], c.firstMismatch).c_str(),
                    r.got[j].getDouble(c.firstMismatch), r.reference[j].getDouble(c.firstMismatch));
    }
    std::printf("  ops: %s\n", opsOf(r.group).c_str());
    std::vector<std::string> where;
    graph::FusionGroupOp group = r.group;
    for (Operation &op : group.getBody().front().without_terminator())
      where.push_back(describeLoc(op.getLoc()));
    std::vector<std::string> unique;
    for (const std::string &w : where)
      if (!llvm::is_contained(unique, w))
        unique.push_back(w);
    std::printf("  at: %s\n", llvm::join(unique, "; ").c_str());
  };
  if (!first) {
    if (referenceComplete) {
      std::printf("no divergence: every kernel output is within tolerance of the float64 "
                  "reference\n");
      return 0;
    }
    std::printf("no divergence among the kernels the reference could evaluate\n");
    return 1;
  }
  std::printf("first divergence: kernel '%s' (launch %zu of %zu)\n", first->kernel.c_str(),
              first->launch, reports.size());
  describeFirst(*first);
  if (first->localFailed) {
    std::printf("  on the inputs it actually read, the kernel's own output also diverges "
                "from the reference of its ops:");
    for (const ref::Comparison &c : first->local)
      printComparison("", c);
    std::printf("\n  -> this kernel computes its ops wrong\n");
  } else {
    std::printf("  on the inputs it actually read, the kernel matches the reference of its "
                "ops: the divergence is rounding accumulated upstream, amplified here\n");
    if (firstLocal)
      std::printf("  first kernel that is wrong on its own inputs: '%s' (launch %zu)\n",
                  firstLocal->kernel.c_str(), firstLocal->launch);
  }
  return 1;
}
