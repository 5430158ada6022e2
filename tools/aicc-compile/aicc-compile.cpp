//===- aicc-compile.cpp - model -> bundle / cubin / PTX / IR ---------------===//
//
//   aicc-compile MODEL -o OUT [--target=cpu|sm_80|sm_86|sm_89|sm_90|sm_90a|sm_100]
//                [--emit=bundle|cubin|ptx|onnx|graph|fused|tile|gpu|cpu|llvm|dot]
//                [--compile-to=STAGE] [--compile-from=STAGE [--plan=FILE]]
//                [--dump-steps=DIR] [--dump-kernels=DIR] [--print-pipeline] [--mlir-timing]
//                [--bind-input NAME=FILE.pb ...] [--shape NAME=D0,D1,... ...] [--dim NAME=N ...]
//                [--fusion-report] [--memory-report]
//                [pipeline knobs: --hardware, --conv-layout, --matmul-config, ...,
//                 aicc/Pipelines/PipelineOptions.def]
//
// MODEL is .onnx (ONNX ModelProto) or .mlir (graph dialect), or the output of an earlier
// --compile-to stage given with --compile-from. The output is written to a temporary file
// and renamed over OUT only when compilation succeeds (aicc/Support/OutputFile.h: symbolic
// links are written through; directories, devices, FIFOs and sockets are refused).
//
//===----------------------------------------------------------------------===//
#include "aicc/Compiler.h"
#include "aicc/Support/CheckedSize.h"
#include "aicc/Support/InputFile.h"
#include "aicc/Support/OutputFile.h"
#include "aicc/Version.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <unistd.h>

using namespace llvm;

static cl::OptionCategory cat("aicc-compile options");

namespace {
/// cl::parser for enum options whose error lists the valid values ("--emit=bogus": "'bogus'
/// is not one of bundle, cubin, ..."), where llvm::cl's own says only "Cannot find option
/// named 'bogus'!".
template <typename T> class ListingParser : public cl::parser<T> {
public:
  using cl::parser<T>::parser;
  bool parse(cl::Option &o, StringRef argName, StringRef arg, T &value) {
    for (unsigned i = 0, e = this->getNumOptions(); i != e; ++i)
      if (this->getOption(i) == arg) {
        value = this->Values[i].V.getValue();
        return false;
      }
    std::string valid;
    for (unsigned i = 0, e = this->getNumOptions(); i != e; ++i)
      valid += (i ? ", " : "") + this->getOption(i).str();
    return o.error("'" + arg + "' is not a valid value; expected one of: " + valid);
  }
};
} // namespace

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx|model.mlir>"),
                                      cl::cat(cat));
static cl::opt<std::string> outputFile(
    "o",
    cl::desc("output file ('-' for stdout, /dev/null to discard). Written to a temporary file "
             "beside it, renamed over it on success (untouched on failure); a symbolic link is "
             "written through to the file it names (as cp does; a dangling link is refused); "
             "directories, devices, FIFOs and sockets are refused"),
    cl::value_desc("file"), cl::cat(cat));
static cl::opt<std::string> targetName("target", cl::desc("cpu, sm_80, sm_86, sm_89, sm_90, sm_90a or sm_100"),
                                       cl::init("cpu"), cl::cat(cat));
static cl::opt<aicc::EmitKind, false, ListingParser<aicc::EmitKind>>
    emit("emit", cl::desc("what to write"), cl::init(aicc::EmitKind::Bundle),
         cl::values(clEnumValN(aicc::EmitKind::Bundle, "bundle", "runnable .aicc bundle (default)"),
                    clEnumValN(aicc::EmitKind::Cubin, "cubin", "one cubin with every kernel"),
                    clEnumValN(aicc::EmitKind::PTX, "ptx", "PTX of every kernel"),
                    clEnumValN(aicc::EmitKind::Import, "onnx",
                               "graph dialect as imported, before any pass (ONNX input)"),
                    clEnumValN(aicc::EmitKind::Graph, "graph", "graph dialect after import"),
                    clEnumValN(aicc::EmitKind::Fused, "fused", "graph dialect after fusion"),
                    clEnumValN(aicc::EmitKind::Tile, "tile", "tile kernels + host plan"),
                    clEnumValN(aicc::EmitKind::Lowered, "gpu", "MLIR after GPU lowering (NVVM)"),
                    clEnumValN(aicc::EmitKind::Lowered, "cpu", "MLIR after CPU lowering (LLVM)"),
                    clEnumValN(aicc::EmitKind::LLVM, "llvm", "LLVM IR of the kernels"),
                    clEnumValN(aicc::EmitKind::Dot, "dot", "Graphviz of the fused graph")),
         cl::cat(cat));
static cl::opt<std::string> compileTo(
    "compile-to",
    cl::desc("stop after this stage and write its output: onnx (ONNX input: the importer's "
             "graph dialect, before any pass), graph, fused, tile, gpu|cpu, "
             "llvm, ptx, cubin, bundle (same as --emit)"),
    cl::cat(cat));
static cl::opt<std::string> compileFrom(
    "compile-from",
    cl::desc("the input is the output of this stage (graph, fused, tile, gpu|cpu, llvm, ptx, "
             "cubin): resume from it"),
    cl::cat(cat));
static cl::opt<std::string> planFile(
    "plan", cl::desc("with --compile-from=llvm|ptx|cubin: MLIR of the same model at the tile "
                     "or gpu/cpu stage, whose host plan the bundle uses"),
    cl::cat(cat));
static cl::opt<bool> printPipelineFlag("print-pipeline",
                                       cl::desc("print every stage's pass pipeline and exit"),
                                       cl::cat(cat));
static cl::opt<std::string> dumpSteps(
    "dump-steps",
    cl::desc("write DIR/NN-<pass>.mlir after every pass (header: the aicc-opt command "
             "reproducing it from the previous file)"),
    cl::cat(cat));
static cl::opt<std::string> dumpKernels(
    "dump-kernels",
    cl::desc("write DIR/<kernel>/{tile.mlir,kernel.ll,kernel.ptx,resources.json} per kernel"),
    cl::cat(cat));
static cl::list<std::string> bindInputs(
    "bind-input",
    cl::desc("specialize an ONNX model on a graph input's value: NAME becomes a constant "
             "holding the onnx.TensorProto in FILE.pb (as test_data_set_N/input_K.pb; its "
             "type and shape must match the input's declaration) and is no longer a bundle "
             "input; aicc-run checks a value given for it. Repeatable"),
    cl::value_desc("NAME=FILE.pb"), cl::cat(cat));
static cl::list<std::string> inputShapes(
    "shape",
    cl::desc("fix every dim of an ONNX graph input at compile time (its dynamic dims, e.g. "
             "batch and sequence; static ones must be given as declared): the model is "
             "compiled for that shape. Repeatable"),
    cl::value_desc("NAME=D0,D1,..."), cl::cat(cat));
static cl::list<std::string> dimParams(
    "dim",
    cl::desc("fix an ONNX dim_param (a named dynamic dim such as batch) to N in every graph "
             "input that has it (inputs given by --shape keep theirs); NAME=MIN..MAX keeps it "
             "symbolic: one bundle for every value from MIN to MAX, compiled at MAX "
             "(docs/symbolic-shapes.md). Repeatable"),
    cl::value_desc("NAME=N|NAME=MIN..MAX"), cl::cat(cat));
static cl::list<std::string> specializations(
    "specialize",
    cl::desc("with --dim NAME=MIN..MAX: also compile the model for NAME = V alone (V is MIN or "
             "MAX) and put that plan in the bundle beside the range's; a run at V takes it "
             "(e.g. --specialize seq=1: an LLM's decode step gets the code a bundle for one "
             "token has, prompts keep the range's; docs/symbolic-shapes.md)"),
    cl::value_desc("NAME=V"), cl::cat(cat));
static cl::opt<uint64_t> maxTensorBytes(
    "max-tensor-bytes",
    cl::desc("refuse an ONNX model with a tensor (input, output, weight or intermediate) of "
             "more bytes than this (default 17179869184 = 16 GiB)"),
    cl::init(aicc::kDefaultMaxTensorBytes), cl::cat(cat));
static cl::opt<std::string> cudaPath("cuda-path",
                                     cl::desc("CUDA toolkit root (bin/ptxas, nvvm/libdevice)"),
                                     cl::cat(cat));
static cl::opt<std::string> crashReproducer(
    "mlir-pass-pipeline-crash-reproducer",
    cl::desc("write an MLIR crash reproducer here when a pass fails"), cl::cat(cat));
static cl::opt<bool> printAfterAll("mlir-print-ir-after-all",
                                   cl::desc("print the IR after every pass"), cl::cat(cat));
static cl::opt<bool> timing("mlir-timing", cl::desc("per-pass timing report"), cl::cat(cat));
static cl::opt<bool> fusionReport(
    "fusion-report",
    cl::desc("after fusion, print every kernel (ops, kind, bytes, FLOPs, FLOP/byte, roofline "
             "time) and the rule that kept each producer/consumer pair apart (docs/fusion.md); "
             "writes to -o, stdout by default"),
    cl::cat(cat));
static cl::opt<bool> memoryReport(
    "memory-report",
    cl::desc("after the tile stage, print the memory plan: the temps' arena against the "
             "peak-live lower bound and one allocation per temp, and every temp's arena offset "
             "and lifetime (docs/bundle-format.md, 'Memory plan'); writes to -o, stdout by "
             "default"),
    cl::cat(cat));
// The pipeline's knobs (--hardware, --conv-layout, --matmul-config, --allow-tf32,
// --conv-algorithm, --wgmma-tma-store, --mma-smem-store, --ptx-features): declared once in
// PipelineOptions.def, as are aicc-opt's aicc-pipeline{...} options of the same names.
namespace knob {
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                      \
  static cl::opt<TYPE> FIELD(FLAG, cl::desc(DESCRIPTION), cl::init(DEFAULT), cl::cat(cat));
#include "aicc/Pipelines/PipelineOptions.def"
} // namespace knob

static cl::extrahelp environmentHelp(R"(
Environment:
  AICC_PROGRESS=1|0     print one line per compile stage on stderr (stage, time) always
                        (1) or never (0); by default only when stderr is a terminal and
                        the compile has run for 2 s
  CUDA_HOME             CUDA toolkit root (bin/ptxas, nvvm/libdevice) when --cuda-path is
                        not given; then /usr/local/cuda, then ptxas on PATH
  PATH                  where ptxas (GPU targets, no toolkit found) and cc (the cpu
                        target's link step) are looked up
  TMPDIR                where the cpu target's object and shared object are written while
                        being linked (default /tmp)
aicc-run --help lists the variables the runtime reads (AICC_NUM_THREADS,
CUDA_VISIBLE_DEVICES, ...).
)");

/// Progress lines on stderr, one per stage as it ends (CompileOptions::onStageEnd):
/// "aicc-compile: tile done in 1.84 s (3.02 s in all)". Shown when stderr is a terminal
/// and the compile has run for kQuietSeconds (the stages before then are printed at that
/// point); AICC_PROGRESS=1 always, AICC_PROGRESS=0 never.
class ProgressLines {
public:
  static constexpr double kQuietSeconds = 2.0;

  ProgressLines() : start(Clock::now()), last(start) {
    const char *env = std::getenv("AICC_PROGRESS");
    if (env && StringRef(env) == "1")
      mode = Mode::Always;
    else if ((env && StringRef(env) == "0") || !::isatty(STDERR_FILENO))
      mode = Mode::Never;
  }

  void stageEnded(StringRef stage) {
    if (mode == Mode::Never)
      return;
    Clock::time_point now = Clock::now();
    double total = seconds(start, now), took = seconds(last, now);
    last = now;
    pending.push_back(
        formatv("aicc-compile: {0} done in {1:f2} s ({2:f2} s in all)\n", stage, took, total)
            .str());
    if (mode == Mode::Always || total >= kQuietSeconds) {
      for (const std::string &line : pending)
        errs() << line;
      pending.clear();
      mode = Mode::Always;
    }
  }

private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }
  enum class Mode { AfterQuiet, Always, Never } mode = Mode::AfterQuiet;
  Clock::time_point start, last;
  std::vector<std::string> pending;
};

static int fail(const Twine &msg) {
  WithColor::error(errs(), "aicc-compile") << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << aicc::getVersionLine() << "\n  LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "aicc model compiler\n");
  auto start = std::chrono::steady_clock::now();
  ProgressLines progress;

  auto target = aicc::parseTarget(targetName);
  if (!target)
    return fail(toString(target.takeError()));
  aicc::CompileOptions opts;
  opts.target = *target;
  opts.cudaPath = cudaPath;
  opts.crashReproducer = crashReproducer;
  opts.printIRAfterAll = printAfterAll;
  opts.timing = timing;
  opts.planFile = planFile;
  opts.dumpStepsDir = dumpSteps;
  opts.dumpKernelsDir = dumpKernels;
  opts.onStageEnd = [&progress](StringRef stage) { progress.stageEnded(stage); };
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION) opts.FIELD = knob::FIELD;
#include "aicc/Pipelines/PipelineOptions.def"
  opts.maxTensorBytes = maxTensorBytes;
  for (const std::string &bind : bindInputs) {
    // Split at the first '=': the path may hold '=', the input name may not.
    size_t eq = StringRef(bind).find('=');
    if (eq == StringRef::npos || eq == 0 || eq + 1 == bind.size())
      return fail("--bind-input expects NAME=FILE.pb, got '" + bind + "'");
    opts.bindInputs.push_back({bind.substr(0, eq), bind.substr(eq + 1)});
  }
  // --shape NAME=D0,D1,... and --dim NAME=N: split at the last '=' (names may hold '=';
  // the numbers may not), numbers in [0, 2^31).
  auto number = [](StringRef t, int64_t &v) {
    return !t.getAsInteger(10, v) && v >= 0 && v < (int64_t(1) << 31);
  };
  for (const std::string &sh : inputShapes) {
    size_t eq = StringRef(sh).rfind('=');
    if (eq == StringRef::npos || eq == 0)
      return fail("--shape expects NAME=D0,D1,..., got '" + sh + "'");
    SmallVector<StringRef> parts;
    StringRef(sh).substr(eq + 1).split(parts, ',');
    std::vector<int64_t> dims;
    for (StringRef part : parts) {
      int64_t v;
      if (!number(part.trim(), v))
        return fail("--shape " + sh.substr(0, eq) + ": '" + part.str() +
                    "' is not a dim (an integer in [0, 2^31))");
      dims.push_back(v);
    }
    opts.inputShapes.push_back({sh.substr(0, eq), dims});
  }
  for (const std::string &dp : dimParams) {
    size_t eq = StringRef(dp).rfind('=');
    int64_t v, lo, hi;
    StringRef value = eq == StringRef::npos ? StringRef() : StringRef(dp).substr(eq + 1).trim();
    if (auto [first, last] = value.split("..");
        eq != StringRef::npos && eq != 0 && value.contains("..")) {
      if (!number(first.trim(), lo) || !number(last.trim(), hi) || lo < 1 || lo > hi)
        return fail("--dim " + dp.substr(0, eq) +
                    "=MIN..MAX expects integers 1 <= MIN <= MAX "
                    "< 2^31, got '" +
                    value.str() + "'");
      opts.symbolicDims.push_back({dp.substr(0, eq), lo, hi});
      continue;
    }
    if (eq == StringRef::npos || eq == 0 || !number(value, v))
      return fail("--dim expects NAME=N or NAME=MIN..MAX (integers in [0, 2^31)), got '" + dp +
                  "'");
    opts.dimParams.push_back({dp.substr(0, eq), v});
  }
  for (const std::string &sp : specializations) {
    size_t eq = StringRef(sp).rfind('=');
    int64_t v;
    if (eq == StringRef::npos || eq == 0 || !number(StringRef(sp).substr(eq + 1).trim(), v) ||
        v < 1)
      return fail("--specialize expects NAME=V (an integer in [1, 2^31)), got '" + sp + "'");
    opts.specializations.push_back({sp.substr(0, eq), v});
  }
  if (!compileFrom.empty()) {
    auto from = aicc::parseStage(compileFrom);
    if (!from)
      return fail(toString(from.takeError()));
    opts.from = *from;
  }
  aicc::EmitKind what = emit;
  if (!compileTo.empty()) {
    auto to = aicc::parseStage(compileTo);
    if (!to)
      return fail(toString(to.takeError()));
    static const std::pair<aicc::Stage, aicc::EmitKind> table[] = {
        {aicc::Stage::ONNX, aicc::EmitKind::Import},   {aicc::Stage::Graph, aicc::EmitKind::Graph},   {aicc::Stage::Fused, aicc::EmitKind::Fused},
        {aicc::Stage::Tile, aicc::EmitKind::Tile},     {aicc::Stage::Lowered, aicc::EmitKind::Lowered},
        {aicc::Stage::LLVM, aicc::EmitKind::LLVM},     {aicc::Stage::PTX, aicc::EmitKind::PTX},
        {aicc::Stage::Cubin, aicc::EmitKind::Cubin},   {aicc::Stage::Bundle, aicc::EmitKind::Bundle}};
    for (auto &[st, ek] : table)
      if (st == *to)
        what = ek;
    if (emit.getNumOccurrences() && what != emit)
      return fail("--emit and --compile-to name different stages");
  }
  if (fusionReport) {
    if ((emit.getNumOccurrences() || !compileTo.empty()) && what != aicc::EmitKind::Fused)
      return fail("--fusion-report stops after fusion: it cannot be combined with --emit or "
                  "--compile-to of another stage");
    what = aicc::EmitKind::FusionReport;
    if (outputFile.empty())
      outputFile = "-";
  }
  if (memoryReport) {
    if (fusionReport || ((emit.getNumOccurrences() || !compileTo.empty()) &&
                         what != aicc::EmitKind::Tile))
      return fail("--memory-report stops after the tile stage: it cannot be combined with "
                  "--fusion-report, --emit or --compile-to of another stage");
    what = aicc::EmitKind::MemoryReport;
    if (outputFile.empty())
      outputFile = "-";
  }
  if (printPipelineFlag) {
    outs() << aicc::describePipeline(what, opts);
    return 0;
  }
  if (inputFile.empty())
    return fail("no input file (aicc-compile MODEL -o OUT)");
  if (outputFile.empty())
    return fail("no output file: pass -o OUT ('-' for stdout)");

  // A regular file (or '-', stdin) of at most the protobuf limit for a ModelProto (MLIR
  // text and later stages may be larger): never a device or FIFO (aicc::readInputFile).
  StringRef name = inputFile;
  bool onnxInput = name.ends_with(".onnx") || (!name.ends_with(".mlir") && !opts.from);
  auto buf = aicc::readInputFile(inputFile,
                                 onnxInput ? aicc::kMaxModelFileBytes : aicc::kMaxMLIRFileBytes,
                                 onnxInput ? "model" : "input", /*allowStdin=*/true);
  if (!buf)
    return fail(toString(buf.takeError()));
  aicc::InputKind kind = name.ends_with(".onnx") ? aicc::InputKind::ONNX
                         : name.ends_with(".mlir") ? aicc::InputKind::MLIR
                         : opts.from ? aicc::InputKind::MLIR
                                     : aicc::InputKind::ONNX;
  auto result = aicc::compileModel((*buf)->getBuffer(), inputFile, kind, what, opts);
  if (!result) {
    // Located diagnostics read "LOC: error: ..."; other messages get the tool's prefix.
    std::string msg = toString(result.takeError());
    SmallVector<StringRef> lines;
    StringRef(msg).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : lines) {
      if (line.contains(": error: ") || line.contains(": note: ") || line.contains(": warning: ") ||
          line.starts_with(" ") || line.starts_with("\t"))
        errs() << line << "\n";
      else
        WithColor::error(errs(), "aicc-compile") << line << "\n";
    }
    errs() << "aicc-compile: compilation failed; no output written\n";
    return 1;
  }
  if (Error e = aicc::writeOutputFile(outputFile, *result))
    return fail(toString(std::move(e)));
  if (timing) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    errs() << formatv("aicc-compile: total compile time {0:f1} ms ({1})\n", ms, inputFile);
  }
  return 0;
}
