//===- Evaluator.h - float64 reference evaluator of the graph dialect -*- C++ -*-===//
//
// A slow, plain interpreter of graph-dialect IR on host tensors: one obviously right C++
// function per graph op (lib/Reference/*Ops.cpp), computing in float64. It is the oracle
// the tests use where ONNX gives no expected output, and what `aicc-run --bisect` runs
// next to a compiled model to find the first kernel that diverges.
//
//   aicc::reference::Evaluator eval;
//   mlir::FailureOr<std::vector<Tensor>> outs = eval.run(func, inputs);
//
// Numbers:
// - Float element types (f16, bf16, f32, f64) are held as double. Every op computes in
//   double from its operands' (already rounded) values.
// - Integers (signless and signed iN are signed, uiN unsigned; N <= 64, ui64 excluded) are
//   held exactly as int64_t and wrap to their width (two's complement) after every op.
// - i1 (bool) is held as 0 / 1 in the integer storage.
// - Rounding: with EvalOptions::roundToElementType (the default) every op's float result
//   is rounded to its declared element type (round to nearest even; f16 and bf16 through
//   llvm::APFloat), so f16/bf16/f32 storage rounding between ops is modelled; values
//   inside one op (accumulations, softmax rows) are never rounded. With the option off
//   every value stays a double (a pure float64 oracle). graph.cast rounds to its target
//   type either way (that rounding is the op's meaning).
//
// Shapes and layout: every tensor is dense row-major (last dim fastest); `shape` empty
// means a scalar (one element). Shapes are static: the evaluator reads them from the IR.
//
// Errors: every failure is an MLIR diagnostic at the offending op's location (an ONNX
// node name for imported models) on the op's context, and the call returns failure():
// an op the evaluator does not implement ("reference evaluator: no implementation of
// 'graph.foo'"), an element type it does not hold (ui64, f8 ...), input tensors that do
// not match the function's argument types, and data-dependent errors (integer division
// by zero, gather index out of range). Nothing aborts on bad input.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_REFERENCE_EVALUATOR_H
#define AICC_REFERENCE_EVALUATOR_H

#include "aicc/Runtime/Session.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace aicc::reference {

/// A dense tensor as the evaluator holds it. Exactly one of `floats` / `ints` is used,
/// chosen by `elementType` (isFloat()); its size is numElements().
struct Tensor {
  /// The declared element type (f16, bf16, f32, f64, iN / siN / uiN, i1).
  mlir::Type elementType;
  /// Dimensions in elements, outermost first; empty for a scalar.
  llvm::SmallVector<int64_t> shape;
  /// Float elements as double, row-major.
  std::vector<double> floats;
  /// Integer elements (exact value, already wrapped to the type's width) and i1 (0 / 1).
  std::vector<int64_t> ints;

  /// A zero-filled tensor of `type` (a statically shaped ranked tensor type).
  static Tensor zeros(mlir::RankedTensorType type);
  /// A zero-filled tensor with this element type and shape.
  static Tensor zeros(mlir::Type elementType, llvm::ArrayRef<int64_t> shape);

  bool isFloat() const { return mlir::isa<mlir::FloatType>(elementType); }
  /// Product of `shape` (1 for a scalar).
  int64_t numElements() const;
  /// Element `i` (row-major) as a double: exact for floats and for integers below 2^53.
  double getDouble(int64_t i) const { return isFloat() ? floats[i] : double(ints[i]); }
  /// The ranked tensor type of this tensor.
  mlir::RankedTensorType getType() const;
};

/// Options of an evaluation.
struct EvalOptions {
  /// Round every op's float results to the declared element type (see the file comment).
  bool roundToElementType = true;
};

/// Called after every evaluated op, in execution order (ops inside a graph.fusion_group
/// first, then the group itself), with the op's result values. Tensors are only valid
/// during the call.
using OpObserver = std::function<void(mlir::Operation *op, llvm::ArrayRef<Tensor> results)>;

/// Interprets graph-dialect IR. Stateless apart from its options and observer; one
/// evaluator may run many functions.
class Evaluator {
public:
  explicit Evaluator(EvalOptions options = {}) : options(options) {}

  /// Calls `observer` after every op of later run()/evaluateOp() calls (nullptr: none).
  void setObserver(OpObserver observer) { this->observer = std::move(observer); }

  /// Evaluates `fn`, a func.func whose single block holds graph ops and ends in
  /// func.return, on `args` (one tensor per argument, with the argument's element type
  /// and shape). Returns the returned values in order. Fails with a diagnostic (see the
  /// file comment).
  mlir::FailureOr<std::vector<Tensor>> run(mlir::func::FuncOp fn, llvm::ArrayRef<Tensor> args);

  /// Evaluates one op on `operands` (one per op operand, matching its types) and returns
  /// its results. graph.fusion_group evaluates its body. Fails with a diagnostic.
  mlir::FailureOr<std::vector<Tensor>> evaluateOp(mlir::Operation *op,
                                                  llvm::ArrayRef<Tensor> operands);

  /// Rounds / wraps every element of `t` to its element type: floats to the nearest
  /// value of the type (ties to even; overflow gives infinity), integers to their width.
  static void roundToType(Tensor &t);

private:
  mlir::FailureOr<std::vector<Tensor>> runBlock(mlir::Block &block, llvm::ArrayRef<Tensor> args);
  /// One op with a single result (not a fusion group): checks, dispatch, rounding.
  mlir::FailureOr<Tensor> evaluateOne(mlir::Operation *op, llvm::ArrayRef<const Tensor *> operands);

  EvalOptions options;
  OpObserver observer;
};

/// Whether the evaluator can hold tensors of element type `t`.
bool isSupportedElementType(mlir::Type t);

/// Reads an ElementsAttr (dense or dense_resource, as graph.constant holds) into a Tensor.
/// Fails with a diagnostic at `loc` for element types the evaluator does not hold or a
/// resource without data.
mlir::FailureOr<Tensor> tensorFromAttr(mlir::Location loc, mlir::ElementsAttr value);

/// The dense attribute of `t` (its type: t.getType()), a splat when every element is equal.
/// Floats are converted to the element type (ties to even), integers truncated to its width.
mlir::DenseElementsAttr attrFromTensor(const Tensor &t);

//===----------------------------------------------------------------------===//
// Runtime tensors and comparison
//===----------------------------------------------------------------------===//

/// The runtime dtype of element type `t`; std::nullopt when the bundle format has none.
std::optional<runtime::DType> toDType(mlir::Type t);

/// Converts a runtime host tensor to a Tensor of `type`. Fails (returns a message in
/// `error`) when the dtype or shape differ from `type`.
std::optional<Tensor> fromHostTensor(const runtime::HostTensor &t, mlir::RankedTensorType type,
                                     std::string &error);

/// Converts to a runtime host tensor (floats rounded to the dtype, ties to even).
/// std::nullopt when the element type has no runtime dtype.
std::optional<runtime::HostTensor> toHostTensor(const Tensor &t);

/// numpy.allclose-style tolerance: |got - ref| <= atol + rtol * |ref|.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// The tolerance aicc uses for a value of element type `t` against the float64
/// reference: f64 rtol 1e-9 atol 1e-12; f32 rtol 1e-4 atol 1e-5 (aicc-run's defaults);
/// f16 rtol 1e-2 atol 1e-3; bf16 rtol 2e-2 atol 1e-2; integers and bools exact (0, 0).
Tolerance defaultTolerance(mlir::Type t);

/// Result of comparing a computed tensor against the reference.
struct Comparison {
  /// Largest |got - ref| and |got - ref| / |ref| over the elements (NaN vs non-NaN and
  /// different infinities count as infinite error; equal values, NaN == NaN, as 0).
  double maxAbsErr = 0;
  double maxRelErr = 0;
  /// Elements outside the tolerance, and the first such element (row-major), -1 if none.
  int64_t numMismatches = 0;
  int64_t firstMismatch = -1;
  /// Non-empty when the two cannot be compared (different shapes): says why.
  std::string problem;
  bool pass() const { return problem.empty() && numMismatches == 0; }
};

/// Compares `got` with `ref` element by element in double (the element types may differ:
/// a compiled f32 result against a reference held in double).
Comparison compare(const Tensor &got, const Tensor &ref, Tolerance tol);

} // namespace aicc::reference

#endif // AICC_REFERENCE_EVALUATOR_H
