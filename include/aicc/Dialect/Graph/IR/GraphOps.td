//===- GraphOps.td - aicc graph dialect ops ----------------*- tablegen -*-===//
#ifndef AICC_DIALECT_GRAPH_IR_GRAPHOPS_TD
#define AICC_DIALECT_GRAPH_IR_GRAPHOPS_TD

include "aicc/Dialect/Graph/IR/GraphDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

def Graph_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Graph_AnyTensor : RankedTensorOf<[AnyType]>;

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//
def Graph_ConstantOp : Graph_Op<"constant", [ConstantLike, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Tensor constant (ONNX initializer or Constant node)";
  let description = [{
    Holds a dense tensor value. Large weights use `dense_resource` (DenseResourceElementsAttr)
    so the IR text stays small; small ones use `dense`.

    ```mlir
    %w = graph.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//
def Graph_MatMulOp : Graph_Op<"matmul", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "numpy matmul (ONNX MatMul): batched, broadcasting batch dims";
  let description = [{
    `A: [..., M, K]`, `B: [..., K, N]` -> `[..., M, N]`; batch dims broadcast (numpy rules).
    Rank-1 operands follow numpy: a 1-D A is [1, K] with the 1 removed after, a 1-D B is
    [K, 1] with the 1 removed after.
  }];
  let arguments = (ins Graph_FloatTensor:$lhs, Graph_FloatTensor:$rhs);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_GemmOp : Graph_Op<"gemm", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "ONNX Gemm: Y = alpha * op(A) * op(B) + beta * C";
  let description = [{
    A: [M, K] (or [K, M] when transA), B: [K, N] (or [N, K] when transB), optional C
    unidirectionally broadcastable to [M, N]. ONNX operator spec, Gemm (opset 7-13).
  }];
  let arguments = (ins Graph_FloatTensor:$a, Graph_FloatTensor:$b,
                   Optional<Graph_FloatTensor>:$c,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                   DefaultValuedAttr<BoolAttr, "false">:$transA,
                   DefaultValuedAttr<BoolAttr, "false">:$transB);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//
class Graph_BinaryOp<string mnemonic, string desc> : Graph_Op<mnemonic, [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = desc # " with numpy broadcasting";
  let description = [{
    Elementwise binary op with ONNX multidirectional (numpy) broadcasting. Operands share an
    element type; the result shape is the broadcast of both shapes.
  }];
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def Graph_AddOp : Graph_BinaryOp<"add", "Addition">;
def Graph_SubOp : Graph_BinaryOp<"sub", "Subtraction">;
def Graph_MulOp : Graph_BinaryOp<"mul", "Multiplication">;
def Graph_DivOp : Graph_BinaryOp<"div", "Division">;

class Graph_UnaryOp<string mnemonic, string desc, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType], traits)> {
  let summary = desc;
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}
def Graph_ReluOp : Graph_UnaryOp<"relu", "max(x, 0)">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "hyperbolic tangent">;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "e^x">;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Gauss error function">;
def Graph_GeluOp : Graph_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "GELU, erf form (approximate = \"none\") or tanh form (\"tanh\")";
  let description = [{
    none: 0.5 x (1 + erf(x / sqrt(2))); tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    Hendrycks & Gimpel, "Gaussian Error Linear Units" (2016); ONNX Gelu (opset 20).
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Softmax and data movement
//===----------------------------------------------------------------------===//
def Graph_SoftmaxOp : Graph_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one axis (ONNX Softmax, opset >= 13 semantics)";
  let description = [{
    y = exp(x - max(x, axis)) / sum(exp(x - max(x, axis)), axis). `axis` is normalized to
    [0, rank). The importer rewrites opset < 13 Softmax (coerced-2D semantics) into
    reshape + softmax(axis = 1) + reshape.
  }];
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure]> {
  let summary = "reshape to the static result type (same element count)";
  let arguments = (ins Graph_AnyTensor:$input);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "permute dimensions: result dim i = input dim perm[i]";
  let arguments = (ins Graph_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input `,` $perm attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//
class Graph_ReduceOp<string mnemonic, string desc> : Graph_Op<mnemonic, [Pure]> {
  let summary = desc # " over `axes` (ONNX Reduce* semantics)";
  let description = [{
    Reduces the input over the dims listed in `axes` (sorted, unique, in [0, rank)); the
    reduced dims are kept with size 1 when `keepdims`, removed otherwise. An empty `axes`
    reduces every dim (ONNX default when no axes are given).
  }];
  let arguments = (ins Graph_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "arithmetic mean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "maximum">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "minimum">;

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//
def Graph_FusionGroupOp : Graph_Op<"fusion_group", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a set of ops that becomes one kernel";
  let description = [{
    Operands are the group's inputs (block arguments of the body, in order); results are the
    values the body yields. `kind` names the kernel template that implements it:
    "epilogue" (matmul/gemm + elementwise chain), "elementwise" (a run of elementwise ops),
    "softmax" (a row softmax, possibly with elementwise producers/consumers), "reduction"
    (one reduce op), or "single".

    ```mlir
    %r = graph.fusion_group "epilogue" (%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>):
      %m = graph.matmul %a, %b : ...
      %y = graph.relu %m : tensor<4x16xf32>
      graph.yield %y : tensor<4x16xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Graph_AnyTensor>:$inputs, StrAttr:$kind);
  let results = (outs Variadic<Graph_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind ` ` `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::ValueRange":$inputs,
                                 "::llvm::StringRef":$kind)>];
}

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"FusionGroupOp">]> {
  let summary = "fusion group terminator";
  let arguments = (ins Variadic<Graph_AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
}

#endif
