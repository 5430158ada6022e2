//===- aicc-compile.cpp - model -> bundle / cubin / PTX / IR ---------------===//
//
//   aicc-compile MODEL -o OUT [--target=cpu|sm_80|sm_90|sm_90a]
//                [--emit=bundle|cubin|ptx|graph|fused|tile|llvm]
//
// MODEL is .onnx (ONNX ModelProto) or .mlir (graph dialect). The output is written to a
// temporary file and renamed over OUT only when compilation succeeds.
//
//===----------------------------------------------------------------------===//
#include "aicc/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

static cl::OptionCategory cat("aicc-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx|model.mlir>"),
                                      cl::Required, cl::cat(cat));
static cl::opt<std::string> outputFile("o", cl::desc("output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::Required, cl::cat(cat));
static cl::opt<std::string> targetName("target", cl::desc("cpu, sm_80, sm_90 or sm_90a"),
                                       cl::init("cpu"), cl::cat(cat));
static cl::opt<aicc::EmitKind> emit(
    "emit", cl::desc("what to write"), cl::init(aicc::EmitKind::Bundle),
    cl::values(clEnumValN(aicc::EmitKind::Bundle, "bundle", "runnable .aicc bundle (default)"),
               clEnumValN(aicc::EmitKind::Cubin, "cubin", "one cubin with every kernel"),
               clEnumValN(aicc::EmitKind::PTX, "ptx", "PTX of every kernel"),
               clEnumValN(aicc::EmitKind::Graph, "graph", "graph dialect after import"),
               clEnumValN(aicc::EmitKind::Fused, "fused", "graph dialect after fusion"),
               clEnumValN(aicc::EmitKind::Tile, "tile", "tile kernels + host plan"),
               clEnumValN(aicc::EmitKind::LLVM, "llvm", "LLVM IR of the kernels")),
    cl::cat(cat));
static cl::opt<std::string> cudaPath("cuda-path", cl::desc("CUDA toolkit root (for ptxas)"),
                                     cl::cat(cat));
static cl::opt<std::string> crashReproducer(
    "mlir-pass-pipeline-crash-reproducer",
    cl::desc("write an MLIR crash reproducer here when a pass fails"), cl::cat(cat));
static cl::opt<bool> printAfterAll("mlir-print-ir-after-all",
                                   cl::desc("print the IR after every pass"), cl::cat(cat));
static cl::opt<bool> timing("mlir-timing", cl::desc("per-pass timing report"), cl::cat(cat));

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv, "aicc model compiler\n");

  auto target = aicc::parseTarget(targetName);
  if (!target) {
    WithColor::error(errs(), "aicc-compile") << toString(target.takeError()) << "\n";
    return 1;
  }
  auto buf = MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/false);
  if (!buf) {
    WithColor::error(errs(), "aicc-compile")
        << "cannot read '" << inputFile << "': " << buf.getError().message() << "\n";
    return 1;
  }
  StringRef name = inputFile;
  aicc::InputKind kind = name.ends_with(".mlir") ? aicc::InputKind::MLIR : aicc::InputKind::ONNX;
  aicc::CompileOptions opts;
  opts.target = *target;
  opts.cudaPath = cudaPath;
  opts.crashReproducer = crashReproducer;
  opts.printIRAfterAll = printAfterAll;
  opts.timing = timing;
  auto result = aicc::compileModel((*buf)->getBuffer(), inputFile, kind, emit, opts);
  if (!result) {
    errs() << toString(result.takeError());
    errs() << "aicc-compile: compilation failed; no output written\n";
    return 1;
  }
  if (Error e = writeToOutput(outputFile, [&](raw_ostream &os) -> Error {
        os << *result;
        return Error::success();
      })) {
    WithColor::error(errs(), "aicc-compile") << toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}
