//===- Bisect.cpp - aicc-run [BUNDLE] --bisect MODEL -----------------------===//
//
// [BUNDLE] --bisect MODEL: import and fuse the model, compile the fused IR to a bundle (or
// load BUNDLE, which must have been compiled from the same model), run it launch by launch
// through Session's LaunchObserver reading every kernel's inputs and outputs, evaluate the
// reference on the same inputs, and compare each fused kernel's outputs in execution order:
//   - against the reference evaluated from the model inputs (end to end), and
//   - against the reference of the kernel's own ops evaluated on the inputs the kernel
//     actually read ("local": blames the kernel itself rather than what it was fed).
// Fusion group k of the fused function runs as launch fused_<k>_<kind> (convert-graph-to-tile
// passes the group's inputs, then its results), after its helper launches (a split-K
// matmul's fused_<k>_<kind>_partials); the mapping is checked, never assumed.
//
//===----------------------------------------------------------------------===//
#include "ModelEvaluation.h"

#include "aicc/Compiler.h"
#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Runtime/ONNXData.h"
#include "aicc/Runtime/ReadFile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
using namespace aicc::run;
using namespace aicc::run::eval;
namespace graph = aicc::graph;

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

/// Checks that the session's launches run the fusion groups in order and records, per
/// group, the launch that writes its results: group k's kernel is fused_<k>_<kind>, after
/// the helper kernels of the same group (fused_<k>_<kind>_partials of a split-K matmul,
/// KernelTemplates.h's GroupKernels), and its buffers are the group's inputs first and its
/// results last (temporaries between).
bool checkPlan(const rt::Session &session, ArrayRef<graph::FusionGroupOp> groups,
               std::vector<size_t> &resultLaunch) {
  const auto &launches = session.getLaunches();
  const auto &buffers = session.getBuffers();
  const char *hint = "; was the bundle compiled from this model?";
  resultLaunch.clear();
  size_t l = 0;
  for (size_t k = 0; k < groups.size(); ++k) {
    graph::FusionGroupOp g = groups[k];
    std::string expected = "fused_" + std::to_string(k) + "_" + g.getKind().str();
    std::string helper = expected + aicc::kSplitKPartialsSuffix.str();
    while (l < launches.size() && launches[l].kernel == helper)
      ++l;
    size_t nIn = g.getInputs().size(), nOut = g.getNumResults();
    if (l >= launches.size())
      return fail("the bundle has " + std::to_string(launches.size()) +
                  " launches, which end before the fused model's kernel " + std::to_string(k) +
                  " ('" + expected + "') of " + std::to_string(groups.size()) + hint);
    if (launches[l].kernel != expected || launches[l].buffers.size() < nIn + nOut)
      return fail("launch " + std::to_string(l) + " runs '" + launches[l].kernel + "' with " +
                  std::to_string(launches[l].buffers.size()) + " buffers, expected '" + expected +
                  "' with at least " + std::to_string(nIn + nOut) + hint);
    size_t firstResult = launches[l].buffers.size() - nOut;
    for (size_t j = 0; j < nOut; ++j) {
      auto type = cast<RankedTensorType>(g.getResult(j).getType());
      const rt::BufferInfo &b = buffers[launches[l].buffers[firstResult + j]];
      auto dt = ref::toDType(type.getElementType());
      if (!dt || *dt != b.dtype || ArrayRef<int64_t>(b.shape) != type.getShape())
        return fail("launch " + std::to_string(l) + " ('" + expected + "') writes " +
                    rt::formatTensorType(b.dtype, b.shape) + " as result " + std::to_string(j) +
                    " but the model's kernel returns another type" + hint);
    }
    resultLaunch.push_back(l++);
  }
  if (l != launches.size())
    return fail("the bundle has " + std::to_string(launches.size()) +
                " launches but the fused model's " + std::to_string(groups.size()) +
                " kernels account for " + std::to_string(l) + hint);
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
  std::vector<size_t> resultLaunch;
  if (!checkPlan(*session, groups, resultLaunch))
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
  // read after it: those it updated in place (a scatter_nd into a model input's buffer,
  // convert-graph-to-tile) are the caller's tensors instead.
  // Group k's buffers are those of its result launch: its inputs first, its results last.
  // A group's first launch may be a helper (split-K partials): its inputs are read after
  // the launch before that one, its results after its result launch.
  auto readBuffers = [&](size_t k, bool inputs) -> rt::Status {
    const rt::LaunchInfo &l = session->getLaunches()[resultLaunch[k]];
    size_t nIn = groups[k].getInputs().size(), nOut = groups[k].getNumResults();
    for (size_t j = inputs ? 0 : l.buffers.size() - nOut; j < (inputs ? nIn : l.buffers.size());
         ++j) {
      auto arg = inputs ? dyn_cast<BlockArgument>(groups[k].getInputs()[j]) : BlockArgument();
      if (k == 0 && arg && arg.getOwner()->getParentOp() == m.main &&
          llvm::is_contained(ArrayRef<int>(l.buffers).take_back(nOut), l.buffers[j])) {
        reports[k].inputs.push_back(hostInputs[arg.getArgNumber()]);
        continue;
      }
      rt::HostTensor t;
      if (rt::Status s = session->readBuffer(l.buffers[j], t); !s.ok)
        return s;
      (inputs ? reports[k].inputs : reports[k].outputs).push_back(std::move(t));
    }
    return rt::Status::success();
  };
  std::vector<int64_t> groupOfResultLaunch(session->getLaunches().size(), -1);
  for (size_t k = 0; k < resultLaunch.size(); ++k)
    groupOfResultLaunch[resultLaunch[k]] = static_cast<int64_t>(k);
  rt::Status runStatus = session->run(hostInputs, outputs, [&](size_t launch) -> rt::Status {
    if (launch == 0)
      if (rt::Status s = readBuffers(0, /*inputs=*/true); !s.ok)
        return s;
    if (groupOfResultLaunch[launch] < 0)
      return rt::Status::success(); // a helper launch: its group's result launch follows
    size_t k = static_cast<size_t>(groupOfResultLaunch[launch]);
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
    reports[k].launch = resultLaunch[k];
    reports[k].kernel = session->getLaunches()[resultLaunch[k]].kernel;
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
              first->launch, session->getLaunches().size());
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
