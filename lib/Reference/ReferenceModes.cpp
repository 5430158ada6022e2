//===- ReferenceModes.cpp - aicc-run --reference ------------------------------===//
//
// --reference MODEL: import the model, run aicc-graph-pipeline, evaluate the graph IR with
// the float64 reference evaluator and compare with ONNX test data like a bundle run.
//
//
// [BUNDLE] --bisect MODEL is Bisect.cpp.
//
//===----------------------------------------------------------------------===//
#include "ModelEvaluation.h"

#include "aicc/Runtime/ONNXData.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

using namespace mlir;
using namespace aicc::run;
using namespace aicc::run::eval;

namespace {

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
  // An ONNX model is imported for the shapes of the inputs at hand: a model exported with
  // dynamic axes takes each data set's (ImportOptions::argumentShapes).
  const bool onnx = !llvm::StringRef(opts.modelPath).ends_with(".mlir");
  auto load = [&](Model &model, const std::string *dataSet) {
    std::vector<std::vector<int64_t>> shapes;
    if (onnx && (dataSet || !opts.inputFiles.empty()) && !inputFileShapes(opts, dataSet, shapes))
      return false;
    return loadModel(model, opts.modelPath, /*fuse=*/false, opts.limits, shapes) &&
           checkEvaluationFits(model.main, opts.limits.maxBufferBytes);
  };
  if (!opts.testDataSets.empty()) {
    int passed = 0;
    bool ok = true;
    for (const std::string &dir : opts.testDataSets) {
      bool hardError = false;
      Model m;
      if (!load(m, &dir))
        return 1;
      bool pass = referenceDataSet(m, opts, dir, hardError);
      passed += pass;
      ok &= pass;
    }
    std::printf("%d of %zu test data set(s) passed (float64 reference)\n", passed,
                opts.testDataSets.size());
    return ok ? 0 : 1;
  }
  Model m;
  if (!load(m, nullptr))
    return 1;
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
