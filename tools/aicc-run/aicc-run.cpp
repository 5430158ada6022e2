//===- aicc-run.cpp - Run a compiled .aicc bundle -------------------------===//
//
// Loads a bundle, runs it on the CPU or a CUDA GPU, and optionally checks the
// outputs against ONNX test data (test_data_set_N/{input,output}_K.pb) with
// numpy.allclose's rule, writes the outputs, or times the launch plan.
//
// This tool deliberately uses a small hand-written argv parser instead of
// llvm::cl: it must build where LLVM/MLIR are not installed (the GPU machine
// builds the runtime with -DAICC_ENABLE_COMPILER=OFF).
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Limits.h"
#include "aicc/Runtime/ONNXData.h"
#include "aicc/Runtime/ReadFile.h"
#include "aicc/Runtime/Session.h"
#include "aicc/Version.h"

#include "Benchmark.h"
#include "Compare.h"
#include "aicc/Runtime/InputFiles.h"
#ifdef AICC_RUN_WITH_COMPILER
#include "aicc/Reference/ReferenceModes.h"
#endif
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace aicc::runtime;
using namespace aicc::run;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const char *const kUsage = R"(usage: aicc-run BUNDLE [options]
       aicc-run --reference MODEL [options]
       aicc-run [BUNDLE] --bisect MODEL [options]

Runs a compiled .aicc bundle.

options:
  --device=cuda|cpu       where to run (default: cuda for sm_* bundles, else cpu)
  --input FILE            the next model input, in order: an onnx.TensorProto
                          (.pb) or a numpy array (.npy: little-endian, C order;
                          bfloat16 as uint16 bit patterns); give one per input
                          (default: pseudo-random floats in [-1, 1), zeros for
                          integer and bool inputs)
  --input NAME=FILE       the graph input NAME, from FILE (.pb or .npy); mixes
                          with positional ones, which then fill the inputs in
                          order
  --input FILE.npz        a numpy archive (numpy.savez / savez_compressed): each
                          member NAME.npy is the input NAME; arr_0, arr_1, ...
                          (numpy.savez(*arrays)) are inputs in order.
                          Inputs bound at compile time (aicc-compile --bind-input)
                          may be given too, by name or in their ONNX position:
                          their value must equal the bound one and is otherwise
                          unused.
                          A bundle with symbolic dims (aicc-compile --dim
                          NAME=MIN..MAX) takes any value of each symbol in its
                          range, the same in every input: the run's outputs
                          have that value's shapes
  --test-data-set DIR     load DIR/input_K.pb, run, compare every output with
                          DIR/output_K.pb; may be repeated. K counts the
                          model's inputs in ONNX order, bound ones included:
                          DIR/input_K.pb of a bound input, when present, must
                          hold the bound value
  --rtol R                relative tolerance (default 1e-4)
  --atol A                absolute tolerance (default 1e-5); an element passes
                          when |got - expected| <= atol + rtol * |expected|
                          (numpy.allclose; NaN equals NaN)
  --output-dir D          write the outputs as D/output_K.pb, in the run's
                          shapes (with several test data sets:
                          D/<data set name>/output_K.pb)
  --benchmark N           afterwards, time N runs of the launch plan (transfers
                          excluded; CUDA events) and print milliseconds per run;
                          then min(N, 1000) whole runs with host copies, each
                          timed (wall clock: mean, median, p90, min), and the
                          bytes the plan's buffers take on the device. With
                          symbolic dims both run at the symbol values of the
                          last run (pseudo-random inputs of those shapes)
  --json FILE             with --benchmark, also write those figures as one JSON
                          object to FILE ('-': stdout; a file is written to a
                          temporary beside it and renamed): launch-plan and
                          whole-run ms (mean, median, p90, min, max), runs,
                          device, target, CUDA graphs, launches, device bytes
                          (and "symbols", their values, with symbolic dims)
  --no-cuda-graphs        launch every kernel with cuLaunchKernel instead of
                          replaying the plan as one CUDA graph (also:
                          AICC_CUDA_GRAPHS=0); --bisect always launches one by
                          one
  --device-index N        the CUDA device to run on (default 0, the first that
                          CUDA_VISIBLE_DEVICES shows)
  --poison                before each run, fill every output and temp buffer
                          with 0xFF bytes (NaN for floats, -1 for integers) so
                          that output elements no kernel writes show up as
                          mismatches instead of passing on zero-filled memory
                          (also with --bisect)
  --max-file-bytes N      largest file read: the bundle, the model, each .pb
                          (default 64G; suffixes K, M, G, T are powers of 1024).
                          Only regular files are read (no directories, pipes
                          or devices)
  --max-buffer-bytes N    largest total memory of the bundle's buffers, and of
                          the reference evaluator's tensors (default 64G),
                          refused before anything is allocated

float64 reference (run by aicc-run-reference, which aicc-run calls for these
options and which is built with the compiler; see docs/debugging.md):
  --reference MODEL       evaluate MODEL (.onnx, or graph-dialect .mlir) with the
                          float64 reference evaluator instead of running a bundle;
                          --test-data-set, --input, --rtol/--atol and --output-dir
                          work as for a bundle
  --bisect MODEL          compile MODEL (or take BUNDLE, compiled from MODEL), run it
                          kernel by kernel next to the reference on the same inputs
                          (--input, one --test-data-set, or pseudo-random), print every
                          fused kernel's max abs/rel error in execution order and name
                          the first kernel that diverges beyond its dtype's tolerance
                          (f32 rtol 1e-4 atol 1e-5, f16 1e-2/1e-3, bf16 2e-2/1e-2;
                          --rtol/--atol override); exit 1 on a divergence
  --target T              compile target for --bisect without BUNDLE (default cpu)

  -h, --help              print this help
  --version               print aicc's version and commit

A bundle with symbolic dims prints its signature first, each symbolic dim by
name with the symbols' ranges ("signature: input 0 ('x') f32[batch,4]"), and
each run's symbol values ("symbols: batch = 3").

Each option also takes the --option=value form.
exit status: 0 success (all comparisons pass), 1 failure, 2 usage error

environment:
  AICC_NUM_THREADS        threads of the cpu target's kernels (1 to 4096;
                          default: every hardware thread)
  CUDA_VISIBLE_DEVICES    which GPUs the CUDA driver shows, and their order
                          (--device-index counts among them)
  AICC_CUDA_GRAPHS=0      launch kernels one by one instead of as a CUDA graph
                          (as --no-cuda-graphs)
  TMPDIR                  where the cpu target's code is written when it cannot
                          be loaded from memory (memfd_create), default /tmp
  AICC_RUNTIME_NO_MEMFD=1 always take that temporary-file route (tests)
)";

struct Options {
  std::string bundlePath;
  std::optional<Device> device;
  std::vector<std::string> inputFiles;
  std::vector<std::string> testDataSets;
  double rtol = 1e-4;
  double atol = 1e-5;
  std::string outputDir;
  std::string jsonPath; // --json FILE: the --benchmark figures as JSON
  int benchmarkIters = 0;
  // --reference / --bisect (lib/Reference/ReferenceModes.cpp).
  std::string referenceModel;
  std::string bisectModel;
  std::string target = "cpu";
  bool toleranceGiven = false;
  bool poison = false;
  bool cudaGraphs = true;
  int deviceIndex = 0;
  Limits limits;
};

bool usageError(const std::string &message) {
  std::fprintf(stderr, "aicc-run: %s\n(run 'aicc-run --help' for usage)\n",
               message.c_str());
  return false;
}

bool parseDouble(const std::string &flag, const std::string &text,
                 double &out) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v >= 0))
    return usageError(flag + " expects a non-negative number, got '" + text +
                      "'");
  out = v;
  return true;
}

/// Parses a byte count: decimal digits and an optional K, M, G or T suffix
/// (powers of 1024), at least 1 and below 2^64.
bool parseByteCount(const std::string &flag, const std::string &text, uint64_t &out) {
  std::string digits = text;
  unsigned shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    case 'T':
      shift = 40;
      break;
    default:
      break;
    }
    if (shift)
      digits.pop_back();
  }
  uint64_t v = 0;
  bool ok = !digits.empty();
  for (char c : digits) {
    ok &= c >= '0' && c <= '9';
    if (!ok || __builtin_mul_overflow(v, 10, &v) ||
        __builtin_add_overflow(v, static_cast<uint64_t>(c - '0'), &v)) {
      ok = false;
      break;
    }
  }
  if (ok && shift && (v >> (64 - shift)) != 0)
    ok = false;
  if (!ok || v == 0)
    return usageError(flag + " expects a positive byte count (e.g. 4096, 512M, 64G), got '" + text +
                      "'");
  out = v << shift;
  return true;
}

/// Parses argv into `opts`. Returns false after printing a usage error;
/// sets `wantHelp` for --help, `wantVersion` for --version.
bool parseArgs(int argc, char **argv, Options &opts, bool &wantHelp, bool &wantVersion) {
  static const char *const kValueFlags[] = {
      "--device", "--input",      "--test-data-set",  "--rtol",
      "--atol",   "--output-dir", "--benchmark",      "--reference",
      "--bisect", "--target",     "--max-file-bytes", "--max-buffer-bytes",
      "--device-index", "--json"};
  bool flagsDone = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (flagsDone || arg.size() < 2 || arg[0] != '-') {
      if (!opts.bundlePath.empty())
        return usageError("unexpected argument '" + arg +
                          "' (only one bundle may be given)");
      opts.bundlePath = arg;
      continue;
    }
    if (arg == "--") {
      flagsDone = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      wantHelp = true;
      return true;
    }
    if (arg == "--version") {
      wantVersion = true;
      return true;
    }
    if (arg == "--poison") {
      opts.poison = true;
      continue;
    }
    if (arg == "--no-cuda-graphs") {
      opts.cudaGraphs = false;
      continue;
    }
    if (arg.rfind("--poison=", 0) == 0)
      return usageError("--poison takes no value");
    std::string flag = arg, value;
    bool hasValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    bool known = false;
    for (const char *f : kValueFlags)
      known |= flag == f;
    if (!known)
      return usageError("unknown option '" + flag + "'");
    if (!hasValue) {
      if (i + 1 >= argc)
        return usageError("option '" + flag + "' needs a value");
      value = argv[++i];
    }

    if (flag == "--device") {
      opts.device = parseDevice(value);
      if (!opts.device)
        return usageError("--device must be cuda or cpu, got '" + value + "'");
    } else if (flag == "--input") {
      opts.inputFiles.push_back(value);
    } else if (flag == "--test-data-set") {
      opts.testDataSets.push_back(value);
    } else if (flag == "--rtol") {
      if (!parseDouble(flag, value, opts.rtol))
        return false;
      opts.toleranceGiven = true;
    } else if (flag == "--atol") {
      if (!parseDouble(flag, value, opts.atol))
        return false;
      opts.toleranceGiven = true;
    } else if (flag == "--output-dir") {
      if (value.empty())
        return usageError("--output-dir needs a directory");
      opts.outputDir = value;
    } else if (flag == "--benchmark") {
      char *end = nullptr;
      errno = 0;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE || n < 1 ||
          n > std::numeric_limits<int>::max())
        return usageError("--benchmark expects a positive iteration count, "
                          "got '" + value + "'");
      opts.benchmarkIters = static_cast<int>(n);
    } else if (flag == "--device-index") {
      char *end = nullptr;
      errno = 0;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE || n < 0 || n > 1024)
        return usageError("--device-index expects a CUDA device ordinal (0, 1, ...), got '" +
                          value + "'");
      opts.deviceIndex = static_cast<int>(n);
    } else if (flag == "--json") {
      if (value.empty())
        return usageError("--json expects a file name ('-' for stdout)");
      opts.jsonPath = value;
    } else if (flag == "--reference") {
      opts.referenceModel = value;
    } else if (flag == "--bisect") {
      opts.bisectModel = value;
    } else if (flag == "--target") {
      opts.target = value;
    } else if (flag == "--max-file-bytes") {
      if (!parseByteCount(flag, value, opts.limits.maxFileBytes))
        return false;
    } else if (flag == "--max-buffer-bytes") {
      if (!parseByteCount(flag, value, opts.limits.maxBufferBytes))
        return false;
    }
  }
  if (!opts.referenceModel.empty() && !opts.bisectModel.empty())
    return usageError("--reference and --bisect cannot be combined");
  if (!opts.referenceModel.empty() && !opts.bundlePath.empty())
    return usageError("--reference evaluates a model, not a bundle");
  if (opts.bundlePath.empty() && opts.referenceModel.empty() &&
      opts.bisectModel.empty())
    return usageError("no bundle given");
  if (!opts.inputFiles.empty() && !opts.testDataSets.empty())
    return usageError("--input and --test-data-set cannot be combined");
  if (!opts.jsonPath.empty() && opts.benchmarkIters == 0)
    return usageError("--json writes --benchmark's figures: give --benchmark N too");
  return true;
}

//===----------------------------------------------------------------------===//
// Actions
//===----------------------------------------------------------------------===//

bool fail(const std::string &message) {
  std::fprintf(stderr, "aicc-run: error: %s\n", message.c_str());
  return false;
}

/// Deterministic inputs for runs without --input: floats uniform in [-1, 1)
/// from a fixed-seed LCG, zeros for integers and bools (they are often
/// indices, where random values would be out of range). Symbolic dims take
/// the session's current symbol values (each symbol's max before any run).
std::vector<HostTensor> makeDefaultInputs(const Session &session) {
  std::vector<HostTensor> inputs;
  uint64_t state = 0x243F6A8885A308D3ull;
  const std::vector<int64_t> values = session.getSymbolValues();
  for (const TensorInfo &info : session.getInputs()) {
    HostTensor t = HostTensor::zeros(info.dtype, info.shapeAt(values));
    for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      float v = static_cast<float>((state >> 40) * 0x1.0p-24 * 2.0 - 1.0);
      uint8_t *p = t.data.data() + i * dtypeSize(t.dtype);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      switch (info.dtype) {
      case DType::f32:
        std::memcpy(p, &v, 4);
        break;
      case DType::f64: {
        double d = v;
        std::memcpy(p, &d, 8);
        break;
      }
      case DType::bf16: {
        uint16_t b = static_cast<uint16_t>(bits >> 16);
        std::memcpy(p, &b, 2);
        break;
      }
      case DType::f16: {
        // |v| < 1: v = m * 2^-24 is exact enough as a (sub)normal half built
        // from the float's top bits; round toward zero.
        uint16_t sign = (bits >> 16) & 0x8000;
        int exp = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
        uint16_t h = sign;
        if (exp > 0)
          h |= static_cast<uint16_t>((exp << 10) | ((bits >> 13) & 0x3ff));
        std::memcpy(p, &h, 2);
        break;
      }
      default:
        break;
      }
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

bool writeOutputs(const Session &session, const std::vector<HostTensor> &outs,
                  const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return fail("cannot create output directory '" + dir +
                "': " + ec.message());
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string path = dir + "/output_" + std::to_string(i) + ".pb";
    if (Status s = writeTensorProtoFile(path, outs[i],
                                        session.getOutputs()[i].name);
        !s.ok)
      return fail(s.message);
  }
  return true;
}

/// For a bundle with symbolic dims: its inputs and outputs with each symbolic dim by
/// name, and the symbols' ranges ("signature: input 0 ('x') f32[batch,4]").
void printSignature(const Session &session) {
  const std::vector<SymbolInfo> &symbols = session.getSymbols();
  if (symbols.empty())
    return;
  std::string ranges;
  for (const SymbolInfo &sym : symbols)
    ranges += (ranges.empty() ? "" : ", ") + formatSymbolRange(sym);
  std::printf("symbolic dims: %s\n", ranges.c_str());
  // Whole plans per range (aicc-compile --specialize): "plan 1: seq = 1, 12 launches, packed".
  const std::vector<PlanInfo> &plans = session.getModel().getPlans();
  for (size_t i = 0; i < plans.size(); ++i) {
    const PlanInfo &p = plans[i];
    const std::string &name = symbols[p.symbol].name;
    std::printf("plan %zu: %s, %zu launches%s\n", i,
                (p.lo == p.hi
                     ? name + " = " + std::to_string(p.lo)
                     : name + " in [" + std::to_string(p.lo) + ", " + std::to_string(p.hi) + "]")
                    .c_str(),
                p.numLaunches, p.packed ? ", packed inputs and outputs" : "");
  }
  for (bool inputs : {true, false}) {
    const std::vector<TensorInfo> &list = inputs ? session.getInputs() : session.getOutputs();
    for (size_t i = 0; i < list.size(); ++i)
      std::printf("signature: %s %zu ('%s') %s\n", inputs ? "input" : "output", i,
                  list[i].name.c_str(), formatTensorInfo(list[i], symbols).c_str());
  }
}

/// "symbols: batch = 3" after a run of a bundle with symbolic dims.
void printSymbolValues(const Session &session) {
  if (!session.getSymbols().empty())
    std::printf("symbols: %s\n",
                formatSymbolValues(session.getSymbols(), session.getSymbolValues()).c_str());
}

void printSummary(const Session &session, const std::vector<HostTensor> &outs) {
  printSymbolValues(session);
  for (size_t i = 0; i < outs.size(); ++i) {
    const HostTensor &t = outs[i];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t n = t.numElements();
    for (int64_t k = 0; k < n; ++k) {
      double v = elementAsDouble(t, k);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    std::printf("output %zu ('%s'): %s", i, session.getOutputs()[i].name.c_str(),
                formatTensorType(t.dtype, t.shape).c_str());
    if (n > 0)
      std::printf(" min=%.6g max=%.6g mean=%.6g", lo, hi,
                  sum / static_cast<double>(n));
    std::printf("\n");
  }
}

/// The bundle's model inputs in ONNX order, bound ones included: what a test
/// data set's input_K.pb or the K-th --input file stands for.
struct ModelInputs {
  /// Bundle::modelInputOrder(): >= 0 a runtime input, -1 - j bound input j.
  std::vector<int> order;
  std::vector<BoundInputDesc> bound;
  /// The bound values, parallel to `bound`.
  std::vector<HostTensor> boundValues;

  explicit ModelInputs(const Bundle &bundle)
      : order(bundle.modelInputOrder()), bound(bundle.boundInputs) {
    for (const BoundInputDesc &bi : bound) {
      HostTensor t;
      t.dtype = bi.dtype;
      t.shape = bi.shape;
      const char *p = bundle.weights.data() + bi.offset;
      t.data.assign(p, p + bi.sizeBytes);
      boundValues.push_back(std::move(t));
    }
  }

  /// Checks that `given` (from `source`) equals bound input j's value.
  Status checkBound(size_t j, const HostTensor &given, const std::string &source) const {
    const HostTensor &want = boundValues[j];
    std::string what = source + " gives bound input '" + bound[j].name + "' ";
    std::string how = " (aicc-compile --bind-input " + bound[j].name + "=...)";
    if (given.dtype != want.dtype || given.shape != want.shape)
      return Status::error(what + "type " + formatTensorType(given.dtype, given.shape) +
                           ", the bundle was compiled with a value of type " +
                           formatTensorType(want.dtype, want.shape) + how);
    if (given.data != want.data)
      return Status::error(what + "a value other than the one the bundle was compiled with" +
                           how + "; recompile with this value");
    return Status::success();
  }
};

/// The --input files (InputFiles.h) as the session's inputs: by name, or in order, one per
/// runtime input or one per model input (bound ones too). Bound inputs given are checked
/// against their values. Returns false after printing an error.
bool readInputs(const Session &session, const ModelInputs &model, const Options &opts,
                std::vector<HostTensor> &inputs) {
  std::vector<LoadedInput> loaded;
  if (Status s = loadInputFiles(opts.inputFiles, opts.limits.maxFileBytes, loaded); !s.ok)
    return fail(s.message);
  const size_t numInputs = session.getInputs().size(), numModelInputs = model.order.size();
  std::vector<std::string> modelNames;
  for (int slot : model.order)
    modelNames.push_back(slot >= 0 ? session.getInputs()[slot].name
                                   : model.bound[static_cast<size_t>(-1 - slot)].name);
  size_t numPositional = 0;
  for (const LoadedInput &in : loaded)
    numPositional += in.position >= 0;
  if (!anyNamed(loaded) && numPositional != numInputs && numPositional != numModelInputs) {
    std::string counts = std::to_string(numInputs) + " input(s)";
    if (numModelInputs != numInputs)
      counts += " (" + std::to_string(numModelInputs) + " with the ones bound at compile time)";
    return fail("the bundle has " + counts + " but " + std::to_string(numPositional) +
                " --input file(s) were given");
  }
  // Positional files count the runtime inputs, or every model input when there is one
  // for each.
  const bool all = !anyNamed(loaded) && numPositional != numInputs;
  std::vector<int> positional;
  for (size_t slot = 0; slot < numInputs; ++slot)
    for (size_t k = 0; k < numModelInputs; ++k)
      if (model.order[k] == static_cast<int>(slot))
        positional.push_back(static_cast<int>(k));
  if (all) {
    positional.clear();
    for (size_t k = 0; k < numModelInputs; ++k)
      positional.push_back(static_cast<int>(k));
  }
  std::vector<int> modelIndex;
  if (Status s = placeInputs(loaded, modelNames, positional, modelIndex); !s.ok)
    return fail(s.message);
  inputs.assign(numInputs, HostTensor());
  std::vector<bool> given(numInputs, false);
  for (size_t i = 0; i < loaded.size(); ++i) {
    int slot = model.order[modelIndex[i]];
    if (slot < 0) {
      if (Status s =
              model.checkBound(static_cast<size_t>(-1 - slot), loaded[i].tensor, loaded[i].source);
          !s.ok)
        return fail(s.message);
      continue;
    }
    adoptLegacyBFloat16(loaded[i].tensor, session.getInputs()[slot].dtype);
    inputs[slot] = std::move(loaded[i].tensor);
    given[slot] = true;
  }
  for (size_t slot = 0; slot < numInputs; ++slot)
    if (!given[slot])
      return fail("no --input for the bundle's input " + std::to_string(slot) + " ('" +
                  session.getInputs()[slot].name + "'): give --input " +
                  session.getInputs()[slot].name + "=FILE, or every input in order");
  return true;
}

/// Session::run, after --poison's fill when asked.
Status runSession(Session &session, const Options &opts, const std::vector<HostTensor> &inputs,
                  std::vector<HostTensor> &outputs) {
  if (opts.poison)
    if (Status s = session.poisonBuffers(0xFF); !s.ok)
      return s;
  return session.run(inputs, outputs);
}

/// Runs one test data set; returns true when every output passes. Sets
/// `hardError` for problems that are not numerical mismatches.
bool runTestDataSet(Session &session, const ModelInputs &model, const Options &opts,
                    const std::string &dir, bool multipleSets, bool &hardError) {
  std::printf("test data set %s\n", dir.c_str());
  std::vector<HostTensor> inputs(session.getInputs().size());
  for (size_t k = 0; k < model.order.size(); ++k) {
    std::string path = dir + "/input_" + std::to_string(k) + ".pb";
    int slot = model.order[k];
    if (slot < 0) {
      // Bound at compile time: the data set may omit it; a value must match.
      size_t j = static_cast<size_t>(-1 - slot);
      std::error_code ec;
      if (!std::filesystem::exists(path, ec))
        continue;
      HostTensor given;
      Status s = readTensorProtoFile(path, given, nullptr, opts.limits.maxFileBytes);
      if (s.ok)
        s = model.checkBound(j, given, path);
      if (!s.ok) {
        hardError = true;
        return fail(s.message);
      }
      std::printf("input %zu ('%s'): bound at compile time, value matches\n", k,
                  model.bound[j].name.c_str());
      continue;
    }
    if (Status s = readTensorProtoFile(path, inputs[slot], nullptr, opts.limits.maxFileBytes);
        !s.ok) {
      hardError = true;
      return fail(s.message);
    }
    adoptLegacyBFloat16(inputs[slot], session.getInputs()[slot].dtype);
  }
  std::vector<HostTensor> expected(session.getOutputs().size());
  for (size_t i = 0; i < expected.size(); ++i) {
    std::string path = dir + "/output_" + std::to_string(i) + ".pb";
    if (Status s = readTensorProtoFile(path, expected[i], nullptr, opts.limits.maxFileBytes);
        !s.ok) {
      hardError = true;
      return fail(s.message);
    }
    adoptLegacyBFloat16(expected[i], session.getOutputs()[i].dtype);
  }
  std::vector<HostTensor> outputs;
  if (Status s = runSession(session, opts, inputs, outputs); !s.ok) {
    hardError = true;
    return fail(s.message);
  }
  printSymbolValues(session);
  bool allPass = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Comparison c = compare(outputs[i], expected[i], opts.rtol, opts.atol);
    const char *name = session.getOutputs()[i].name.c_str();
    if (!c.problem.empty()) {
      std::printf("output %zu ('%s'): %s FAIL\n", i, name, c.problem.c_str());
    } else {
      std::printf("output %zu ('%s'): max_abs_err=%.3e max_rel_err=%.3e "
                  "shape=%s %s",
                  i, name, c.maxAbsErr, c.maxRelErr,
                  formatShape(outputs[i].shape).c_str(),
                  c.pass() ? "PASS" : "FAIL");
      if (!c.pass())
        std::printf(" (%lld of %lld elements outside rtol=%g atol=%g)",
                    static_cast<long long>(c.numMismatches),
                    static_cast<long long>(outputs[i].numElements()), opts.rtol,
                    opts.atol);
      std::printf("\n");
    }
    allPass &= c.pass();
  }
  if (!opts.outputDir.empty()) {
    std::string outDir = opts.outputDir;
    if (multipleSets) {
      // One subdirectory per data set, named after the set's directory.
      std::string trimmed = dir;
      while (trimmed.size() > 1 && trimmed.back() == '/')
        trimmed.pop_back();
      outDir += "/" + std::filesystem::path(trimmed).filename().string();
    }
    if (!writeOutputs(session, outputs, outDir)) {
      hardError = true;
      return false;
    }
  }
  return allPass;
}

/// --reference / --bisect need MLIR and the reference evaluator. They are built
/// into aicc-run-reference (this file + AICCReferenceModes); plain aicc-run stays
/// free of MLIR (it is shipped alone to GPU machines) and hands such command
/// lines over to the aicc-run-reference next to it.
int runReferenceModes(const Options &opts, char **argv) {
#ifdef AICC_RUN_WITH_COMPILER
  (void)argv;
  aicc::run::ReferenceModeOptions r;
  r.modelPath = opts.bisectModel.empty() ? opts.referenceModel : opts.bisectModel;
  r.bundlePath = opts.bundlePath;
  r.device = opts.device;
  r.target = opts.target;
  r.inputFiles = opts.inputFiles;
  r.testDataSets = opts.testDataSets;
  r.rtol = opts.rtol;
  r.atol = opts.atol;
  r.toleranceGiven = opts.toleranceGiven;
  r.outputDir = opts.outputDir;
  r.poison = opts.poison;
  r.limits = opts.limits;
  return opts.bisectModel.empty() ? aicc::run::runReferenceMode(r)
                                  : aicc::run::runBisectMode(r);
#else
  (void)opts;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::string sibling = (self.parent_path() / "aicc-run-reference").string();
  if (!ec && ::access(sibling.c_str(), X_OK) == 0) {
    std::fflush(stdout);
    argv[0] = sibling.data();
    ::execv(sibling.c_str(), argv);
  }
  fail("--reference and --bisect need aicc-run-reference next to aicc-run (it "
       "is built with the compiler, -DAICC_ENABLE_COMPILER=ON): cannot run '" +
       sibling + "'");
  return kExitFailure;
#endif
}

/// Whether the file at `path` is an ONNX model rather than a bundle (isONNXModel). Only a
/// regular file is read (readRegularFile: never a FIFO or device, which could block).
bool looksLikeONNXModel(const std::string &path, uint64_t maxBytes) {
  std::string bytes;
  if (!readRegularFile(path, maxBytes, bytes).ok)
    return false;
  return !(bytes.size() >= 8 && std::memcmp(bytes.data(), "AICCBND1", 8) == 0) &&
         isONNXModel(bytes);
}

int runMain(const Options &opts) {
  Bundle bundle;
  if (Status s = readBundleFile(opts.bundlePath, bundle, opts.limits); !s.ok) {
    if (looksLikeONNXModel(opts.bundlePath, opts.limits.maxFileBytes)) {
      const std::string &m = opts.bundlePath;
      std::string stem =
          m.size() > 5 && m.compare(m.size() - 5, 5, ".onnx") == 0 ? m.substr(0, m.size() - 5) : m;
      fail("'" + m + "' is an ONNX model, not a compiled bundle: compile it first (aicc-compile " +
           m + " -o " + stem + ".aicc, then aicc-run " + stem +
           ".aicc), or evaluate it without compiling with aicc-run --reference " + m);
      return kExitFailure;
    }
    fail(s.message);
    return kExitFailure;
  }
  if (bundle.formatVersion < 3)
    std::fprintf(stderr,
                 "aicc-run: note: '%s' is a version-%d bundle: it has no checksums and no "
                 "parameter records, so corruption may go undetected; recompile it for "
                 "version 4 or newer\n",
                 opts.bundlePath.c_str(), bundle.formatVersion);
  else if (!bundle.arenaBytes)
    std::fprintf(stderr,
                 "aicc-run: note: '%s' has no memory plan (a version-%d bundle): every temp "
                 "gets its own allocation; recompile it for version 4 or newer to share one "
                 "arena\n",
                 opts.bundlePath.c_str(), bundle.formatVersion);
  ModelInputs model(bundle);
  Device device = opts.device.value_or(defaultDeviceForTarget(bundle.target));
  std::unique_ptr<Session> session;
  SessionOptions sessionOptions;
  sessionOptions.limits = opts.limits;
  sessionOptions.cudaGraphs = opts.cudaGraphs;
  sessionOptions.deviceIndex = opts.deviceIndex;
  if (Status s = Session::create(bundle, device, session, sessionOptions); !s.ok) {
    fail(s.message);
    return kExitFailure;
  }
  bundle = Bundle(); // the session holds what it needs
  printSignature(*session);

  bool ok = true;
  if (!opts.testDataSets.empty()) {
    int passed = 0;
    for (const std::string &dir : opts.testDataSets) {
      bool hardError = false;
      bool pass =
          runTestDataSet(*session, model, opts, dir, opts.testDataSets.size() > 1, hardError);
      passed += pass;
      ok &= pass;
    }
    std::printf("%d of %zu test data set(s) passed\n", passed,
                opts.testDataSets.size());
  } else {
    std::vector<HostTensor> inputs;
    const size_t numInputs = session->getInputs().size();
    if (opts.inputFiles.empty()) {
      if (numInputs > 0) {
        std::string at;
        if (!session->getSymbols().empty())
          at = " at the symbols' bounds (" +
               formatSymbolValues(session->getSymbols(), session->getSymbolValues()) + ")";
        std::fprintf(stderr,
                     "aicc-run: note: no --input given; using pseudo-random float inputs%s\n",
                     at.c_str());
      }
      inputs = makeDefaultInputs(*session);
    } else {
      if (!readInputs(*session, model, opts, inputs))
        return kExitFailure;
    }
    std::vector<HostTensor> outputs;
    if (Status s = runSession(*session, opts, inputs, outputs); !s.ok) {
      fail(s.message);
      return kExitFailure;
    }
    printSummary(*session, outputs);
    if (!opts.outputDir.empty() &&
        !writeOutputs(*session, outputs, opts.outputDir))
      return kExitFailure;
  }

  if (opts.benchmarkIters > 0)
    if (Status s = aicc::run::runBenchmark(*session, opts.benchmarkIters, makeDefaultInputs(*session),
                                opts.jsonPath);
        !s.ok) {
      fail(s.message);
      return kExitFailure;
    }
  return ok ? kExitOk : kExitFailure;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  bool wantHelp = false, wantVersion = false;
  if (!parseArgs(argc, argv, opts, wantHelp, wantVersion))
    return kExitUsage;
  if (wantHelp) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (wantVersion) {
    std::printf("%s\n", aicc::getVersionLine());
    return kExitOk;
  }
  if (!opts.referenceModel.empty() || !opts.bisectModel.empty())
    return runReferenceModes(opts, argv);
  return runMain(opts);
}
