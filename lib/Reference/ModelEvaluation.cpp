//===- ModelEvaluation.cpp - what aicc-run's --reference and --bisect share ----===//
//
// See ModelEvaluation.h.
//
//===----------------------------------------------------------------------===//
#include "ModelEvaluation.h"
#include "aicc/Runtime/InputFiles.h"

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

namespace aicc::run::eval {

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


Model::Model() : ctx(makeRegistry()) {
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

DialectRegistry Model::makeRegistry() {
  DialectRegistry registry;
  aicc::registerAllDialects(registry);
  return registry;
}

/// Loads `path` (.mlir: graph-dialect text; anything else: ONNX), runs aicc-graph-pipeline
/// unless the input is already fused, and aicc-fusion-pipeline too when `fuse`. The file
/// must be a regular file of at most limits.maxFileBytes (rt::readRegularFile).
bool loadModel(Model &m, const std::string &path, bool fuse, const rt::Limits &limits,
               const std::vector<std::vector<int64_t>> &argShapes) {
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
    aicc::onnx_import::ImportOptions importOpts;
    importOpts.argumentShapes = argShapes;
    m.module = aicc::onnx_import::importONNXModel(buf->getBuffer(), path, m.ctx, importOpts);
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
/// The --input files (.pb, .npy, .npz members arr_K; InputFiles.h) in the model's input
/// order. The reference modes take them by position only: named inputs need the model's
/// input names before it is imported for their shapes.
bool loadPositionalInputs(const ReferenceModeOptions &opts, std::vector<rt::HostTensor> &out) {
  std::vector<LoadedInput> loaded;
  if (rt::Status s = loadInputFiles(opts.inputFiles, opts.limits.maxFileBytes, loaded); !s.ok)
    return fail(s.message);
  out.assign(loaded.size(), rt::HostTensor());
  for (LoadedInput &in : loaded) {
    if (!in.name.empty())
      return fail(in.source +
                  ": --reference and --bisect take their --input files in the "
                  "model's input order, not by name (NAME=FILE and named .npz members are for "
                  "bundles)");
    if (in.position >= static_cast<int>(loaded.size()))
      return fail(in.source + " is positional input " + std::to_string(in.position) + " but " +
                  std::to_string(loaded.size()) + " --input tensor(s) were given");
    out[in.position] = std::move(in.tensor);
  }
  return true;
}

/// One host tensor per argument of `fn`: from `dataSet`/input_K.pb, from --input files,
/// or pseudo-random (floats uniform in [-1, 1) from aicc-run's fixed-seed LCG, integers
/// and bools 0).
bool inputFileShapes(const ReferenceModeOptions &opts, const std::string *dataSet,
                     std::vector<std::vector<int64_t>> &shapes) {
  shapes.clear();
  std::vector<std::string> paths;
  if (!dataSet) {
    std::vector<rt::HostTensor> given;
    if (!loadPositionalInputs(opts, given))
      return false;
    for (const rt::HostTensor &t : given)
      shapes.push_back(t.shape);
    return true;
  }
  {
    for (int i = 0;; ++i) {
      std::string p = *dataSet + "/input_" + std::to_string(i) + ".pb";
      std::error_code ec;
      if (!std::filesystem::exists(p, ec))
        break;
      paths.push_back(p);
    }
  }
  for (const std::string &p : paths) {
    rt::HostTensor t;
    if (rt::Status s = rt::readTensorProtoFile(p, t, nullptr, opts.limits.maxFileBytes); !s.ok)
      return fail(s.message);
    shapes.push_back(t.shape);
  }
  return true;
}

bool makeInputs(func::FuncOp fn, const ReferenceModeOptions &opts, const std::string *dataSet,
                std::vector<rt::HostTensor> &out) {
  unsigned n = fn.getNumArguments();
  out.assign(n, rt::HostTensor());
  std::vector<rt::HostTensor> given;
  if (!dataSet && !opts.inputFiles.empty()) {
    if (!loadPositionalInputs(opts, given))
      return false;
    if (given.size() != n)
      return fail("the model has " + std::to_string(n) + " input(s) but " +
                  std::to_string(given.size()) + " --input tensor(s) were given");
  }
  uint64_t state = 0x243F6A8885A308D3ull;
  for (unsigned i = 0; i < n; ++i) {
    auto type = cast<RankedTensorType>(fn.getArgument(i).getType());
    if (!given.empty()) {
      out[i] = std::move(given[i]);
      continue;
    }
    if (dataSet) {
      std::string path = *dataSet + "/input_" + std::to_string(i) + ".pb";
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


/// --rtol/--atol when given (floats), else the per-dtype default (ref::defaultTolerance).
ref::Tolerance toleranceFor(Type elem, const ReferenceModeOptions &opts) {
  if (opts.toleranceGiven && isa<FloatType>(elem))
    return {opts.rtol, opts.atol};
  return ref::defaultTolerance(elem);
}

} // namespace aicc::run::eval
