//===- Internal.h - pieces of the compiler driver ---------------*- C++ -*-===//
#ifndef AICC_LIB_COMPILER_INTERNAL_H
#define AICC_LIB_COMPILER_INTERNAL_H

#include "aicc/Compiler.h"
#include "aicc/Runtime/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aicc {
struct ChipInfo;
} // namespace aicc

namespace aicc::detail {
/// aicc-compile --fusion-report: the text report of the fused module `module` (after
/// aicc-fusion-pipeline) on `hw`; format in docs/fusion.md.
std::string emitFusionReport(mlir::ModuleOp module, const aicc::ChipInfo &hw);


/// Launch geometry of one kernel, read from its tile.schedule before lowering.
struct KernelInfo {
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t threads = 1;
  int numParams = 0;
  /// The bundle's `param` records, from the kernel's memref signature (empty when its
  /// buffer parameters are already lowered to pointers: buildBundlePlan then takes them
  /// from the launch operands, which tile.launch's verifier matched to that signature).
  std::vector<runtime::ParamDesc> params;
  /// The bundle's `inplace` records: the kernel's tile.in_place pairs.
  std::vector<runtime::InPlaceDesc> inPlace;
  /// tile.symgrid: [axis, symbol, unit, per, group] (the bundle's `symgrid` record of each
  /// launch of the kernel, cpu target), or empty.
  std::vector<int64_t> symGrid;
  /// tile.symvalues: the parameter that takes the run's symbol values (the bundle's
  /// `symvalues` buffer), or -1.
  int symValuesParam = -1;
};
using KernelInfoMap = llvm::StringMap<KernelInfo>;

/// Collects KernelInfo for every kernel of the @kernels module of `top`, at the tile stage
/// (func.func) or after lowering (gpu.func / llvm.func keeping their tile.schedule).
KernelInfoMap collectKernelInfo(mlir::ModuleOp top);

/// Builds the bundle's plan (buffers, inputs, outputs, kernels, launches) and weights from
/// the host function of `top` (after convert-graph-to-tile). `gpu` selects the block size
/// recorded per kernel (threads) or {1,1,1} for the cpu target.
mlir::FailureOr<runtime::Bundle> buildBundlePlan(mlir::ModuleOp top, const KernelInfoMap &info,
                                                 bool gpu);

/// Rewrites the launch shape of the plan's GPU kernels that the lowering packed several
/// programs to a CUDA block (`tile.programs_per_cta = P` in `lowered`, the module after the GPU
/// lowering, or a tile-stage plan file after convert-tile-to-gpu-registers): grid x / P
/// blocks of P x the program's threads. Plans are built from the tile stage's schedules,
/// before that decision.
void applyProgramsPerCTA(mlir::ModuleOp lowered, runtime::Bundle &plan);

/// The module of kernels inside `module` (builtin.module or gpu.module @kernels), or null.
mlir::Operation *findKernels(mlir::ModuleOp module);

/// Specialized plans (aicc-compile --specialize, lib/Compiler/SpecializedPlans.cpp).
/// Checks the --specialize values before anything is compiled: each names the compile's one
/// symbolic range, at its MIN or MAX, one of them, for bundle output; the error names the
/// flag and what is wrong.
llvm::Error checkSpecializations(const std::vector<std::pair<std::string, int64_t>> &specs,
                                 llvm::ArrayRef<runtime::SymbolDesc> symbols, bool bundleOutput);
/// The specialized kernels' name prefix for NAME = V: NAME (non-alphanumerics as _, `plan_`
/// first unless it starts with a letter: PTX identifiers), V, `_` (`seq1_`).
std::string specializedKernelPrefix(llvm::StringRef name, int64_t value);
/// Joins `spec` (the model at symbol 0 = `value`, at the tile stage, kernels renamed) to
/// `range` (its kernels moved there) and its plan to `plan` (mergeSpecializedPlan).
llvm::Error joinSpecializedPlan(mlir::ModuleOp range, runtime::Bundle &plan, mlir::ModuleOp spec,
                                int64_t value, bool gpu);
/// Renames every symbol of `top`'s kernels module to PREFIX + name, with its uses (the host
/// plan's launches).
mlir::LogicalResult prefixKernels(mlir::ModuleOp top, llvm::StringRef prefix);
/// Moves the kernels of `from` into `into`'s kernels module (same stage); a name both hold
/// is an error.
mlir::LogicalResult moveKernels(mlir::ModuleOp from, mlir::ModuleOp into);
/// Joins `spec`, the plan of the model compiled with symbol `symbol` of `range` fixed at
/// `value` (the range's MIN or MAX; kernel names already distinct), to `range`: spec's
/// launches after range's as a `packed` plan for `value`, range's as a plan for the rest of
/// [MIN, MAX] (its shape buckets clipped to it, buckets outside dropped), spec's inputs and
/// outputs the same memory as range's (aliases of their shapes), spec's weights shared
/// where the bytes are equal, its temps new (planMemory places them). Errors name what the
/// two plans disagree on (inputs, outputs, which of them share memory).
llvm::Error mergeSpecializedPlan(runtime::Bundle &range, const runtime::Bundle &spec, int symbol,
                                 int64_t value);

/// Translates the LLVM-dialect module `kernels` to LLVM IR text.
mlir::FailureOr<std::string> translateToLLVMIRText(mlir::Operation *kernels);

/// Writes DIR/<kernel>/{tile.mlir, kernel.ll, kernel.ptx, resources.json} for every kernel
/// of `llvmIR` (PTX and ptxas resources for GPU targets only).
mlir::LogicalResult dumpKernels(mlir::Location loc, llvm::StringRef dir, llvm::StringRef llvmIR,
                                const llvm::StringMap<std::string> &tileIR, bool gpu,
                                llvm::StringRef chip, llvm::StringRef features,
                                llvm::StringRef cudaPath);

/// A symbolic dim kept by aicc-compile --dim NAME=MIN..MAX (docs/symbolic-shapes.md): the
/// bundle's `symbol` record.
using SymbolRange = runtime::SymbolDesc;
/// Where a tensor carries a symbol: its dim `axis` is `factor` x symbol `symbol` (an index
/// into the SymbolRange list).
struct SymDim {
  int axis = 0;
  int symbol = 0;
  int64_t factor = 1;
};
using SymDimMap = llvm::DenseMap<mlir::Value, SymDim>;
/// Function argument / result attribute: the symbolic dim as [axis, symbol, factor].
constexpr llvm::StringLiteral kSymDimAttrName = "aicc.symdim";
/// Module attribute: the symbols, [{name, min, max}, ...] in index order.
constexpr llvm::StringLiteral kSymbolsAttrName = "aicc.symbols";

/// Compares `atMax` (every symbol at its max) with `sample` (symbol `symbol` at `value`, the
/// others at their max) op by op, in order: the same ops reading the same values, the same
/// attributes and constants (a constant that differs is computed from the symbol's size:
/// refused), and tensor types equal except dims that are FACTOR x the symbol at both values.
/// With `dims`, records those dims of `atMax`'s values there (refusing a tensor with two
/// symbolic dims). Fails with a diagnostic at the op (SymbolicDims.cpp).
mlir::LogicalResult compareSymbolSample(mlir::ModuleOp atMax, mlir::ModuleOp sample, int symbol,
                                        llvm::ArrayRef<SymbolRange> symbols, int64_t value,
                                        SymDimMap *dims);
/// The values besides max a symbol's model is imported at: max - 1 first (the fused graph
/// is compared there too), the middle of the range and its minimum (1 where ONNX treats
/// size-1 dims apart: Squeeze without axes, broadcasting).
llvm::SmallVector<int64_t> symbolSamples(const SymbolRange &s);
/// Imports the model with symbol `symbol` at `value` (-1: every symbol at its max, with the
/// shape logs as references), logging Shape / Size reads into `log` when set.
using ShapeLog = std::map<std::string, std::vector<int64_t>>;
using SymbolImport =
    llvm::function_ref<mlir::OwningOpRef<mlir::ModuleOp>(int symbol, int64_t value, ShapeLog *log)>;
/// The model at every symbol's max, imported after each symbol's max - 1 (whose Shape / Size
/// reads, in `logs`, mark the values computed from symbolic sizes: ImportShapeTaint.cpp)
/// and compared with the imports at every symbolSamples value (compareSymbolSample). Without
/// symbols, the plain import. Fails with diagnostics at `loc` or the op.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importSymbolic(llvm::ArrayRef<SymbolRange> symbols, std::vector<ShapeLog> &logs,
               SymbolImport importAt, mlir::Location loc);
/// For the fused module at max: each symbol's model at max - 1, run through
/// `graphAndFusion`, gives every value's symbolic dim (compareSymbolSample), then
/// checkSymbolicDims.
mlir::LogicalResult
proveSymbolicDims(mlir::ModuleOp fused, llvm::ArrayRef<SymbolRange> symbols, SymbolImport importAt,
                  llvm::function_ref<mlir::LogicalResult(mlir::ModuleOp)> graphAndFusion);
/// Checks that the fused module `module` (compiled at the symbols' max) is right for every
/// value in range, given its values' symbolic dims (docs/symbolic-shapes.md: materialized
/// tensors hold the symbol in their first non-unit dim, no op mixes positions along it),
/// then records the symbols (kSymbolsAttrName) and the functions' symbolic arguments and
/// results (kSymDimAttrName) for the bundle. Fails with a diagnostic naming the op.
mlir::LogicalResult checkSymbolicDims(mlir::ModuleOp module, llvm::ArrayRef<SymbolRange> symbols,
                                      const SymDimMap &dims);
/// What a --compile-from input is, judged from its bytes (StageDetection.cpp).
enum class FileKind { MLIR, LLVMIR, LLVMBitcode, PTX, Cubin, ELF, Bundle, ONNX, Binary, Text };
struct FileDescription {
  FileKind kind;
  std::string what; ///< for messages: "a cubin (CUDA ELF)", "LLVM IR of CPU kernels", ...
  bool gpu = false; ///< LLVM IR: for NVPTX
};
/// `name` is the file name (".onnx" marks an ONNX model); only the first 64 KiB of text are
/// looked at.
FileDescription describeFile(llvm::StringRef bytes, llvm::StringRef name);
/// The stage a parsed aicc module is at (graph, fused, tile or lowered; `gpu` set for a GPU
/// lowering), or nullopt when it shows none (no graph op, no kernels module).
std::optional<Stage> stageOfModule(mlir::ModuleOp module, bool &gpu);
/// "NAME is WHAT, not the output of --compile-to=STAGE" when the bytes of a --compile-from
/// input are not what stage `from` produces for `target` (kind of file; CPU vs GPU LLVM IR).
llvm::Error checkCompileFromBytes(llvm::StringRef bytes, llvm::StringRef name, Stage from,
                                  Target target);
/// The same for a parsed MLIR input: its stage (and GPU vs CPU lowering) must be `from`'s.
llvm::Error checkCompileFromModule(mlir::ModuleOp module, llvm::StringRef name, Stage from,
                                   Target target);

} // namespace aicc::detail

#endif
