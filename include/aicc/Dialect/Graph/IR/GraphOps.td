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

// Op classes the passes ask about (aicc::graph::isElementwise, the cost model), as traits
// (C++: aicc::graph::OpTrait, GraphOps.h).
// Elementwise: result element i depends on operand element i only, after numpy
// broadcasting (Expand is a broadcast; Trilu's position test is on the element's own
// index). Fusion and the elementwise kernel templates take these.
def Graph_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::aicc::graph::OpTrait";
}
// Transcendental: evaluates a libm / SFU function per element (the cost model's
// kTranscendentalFlops).
def Graph_Transcendental : NativeOpTrait<"Transcendental"> {
  let cppNamespace = "::aicc::graph::OpTrait";
}
// View: data movement a kernel folds into its loads: each output element is one input
// element, found by index arithmetic (transpose, expand, slice, pad, concat, tile, gather).
def Graph_View : NativeOpTrait<"View"> {
  let cppNamespace = "::aicc::graph::OpTrait";
}
// Reduction: graph.reduce_* (a reduction over `axes`).
def Graph_Reduction : NativeOpTrait<"Reduction"> {
  let cppNamespace = "::aicc::graph::OpTrait";
}
// Contraction: a matmul-class op (matmul, gemm, conv) the cost model counts 2*K FLOPs per
// output element for and fusion treats as an anchor.
def Graph_Contraction : NativeOpTrait<"Contraction"> {
  let cppNamespace = "::aicc::graph::OpTrait";
}

def Graph_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Graph_AnyTensor : RankedTensorOf<[AnyType]>;
def Graph_NumTensor : RankedTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;
def Graph_BoolTensor : RankedTensorOf<[I1]>;

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
def Graph_MatMulOp : Graph_Op<"matmul", [Pure, Graph_Contraction,
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

def Graph_GemmOp : Graph_Op<"gemm", [Pure, Graph_Contraction,
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

def Graph_ConvOp : Graph_Op<"conv", [Pure, Graph_Contraction]> {
  let summary = "N-d convolution (ONNX Conv), channels first (NCHW) or last (NHWC)";
  let description = [{
    `layout` = "NCHW" (the default, ONNX Conv): X [N, C, D1..Dk], W [M, C/group, K1..Kk],
    Y [N, M, O1..Ok]:

      Y[n, m, o] = B[m] + sum_{c, kk} X[n, g*C/group + c, o*strides + kk*dilations - pads_begin]
                   * W[m, c, kk]

    `layout` = "NHWC" (channels last, as cuDNN's NHWC / TensorFlow's Conv2D; W is OHWI):
    X [N, D1..Dk, C], W [M, K1..Kk, C/group], Y [N, O1..Ok, M]:

      Y[n, o, m] = B[m] + sum_{kk, c} X[n, o*strides + kk*dilations - pads_begin, g*C/group + c]
                   * W[m, kk, c]

    with g = m / (M/group) in both; B [M] in both; out-of-range input positions read 0.
    `strides`, `dilations` and `pads` are indexed by spatial dim (D1..Dk) in both layouts:
    `pads` holds the begin pads of every spatial dim, then the end pads (ONNX order). The
    result type gives the output sizes. The NHWC form equals the NCHW form with X and W
    transposed by [0, 2, .., k+1, 1] and Y transposed back by [0, k+1, 1, .., k]
    (graph-conv-layout builds it that way).

    ```mlir
    %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64,
        layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<1x8x8x3xf32>, tensor<16x3x3x3xf32>) -> tensor<1x8x8x16xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$weight,
                   Optional<Graph_FloatTensor>:$bias, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations, I64Attr:$group,
                   DefaultValuedAttr<StrAttr, "\"NCHW\"">:$layout);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// True for layout "NHWC" (channels last); false for "NCHW" (the verifier admits no
    /// other value).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
    /// The dim of X and Y that holds channels: 1 (NCHW) or rank - 1 (NHWC).
    int64_t getChannelDim() {
      return isChannelsLast() ? getInput().getType().getRank() - 1 : 1;
    }
    /// The first spatial dim of X, W and Y: 2 (NCHW) or 1 (NHWC).
    int64_t getFirstSpatialDim() { return isChannelsLast() ? 1 : 2; }
  }];
  let hasVerifier = 1;
}

class Graph_PoolOp<string mnemonic, string desc, dag extra> : Graph_Op<mnemonic, [Pure]> {
  let summary = desc # " pooling over windows of the spatial dims of [N, C, D1..Dk]";
  let description = [{
    ONNX MaxPool / AveragePool over the spatial dims. `layout` is "NCHW" (ONNX's [N, C,
    D1..Dk], as imported) or "NHWC" ([N, D1..Dk, C], channels last: graph-conv-layout moves
    pools next to channels-last convs there); kernel_shape, strides, dilations and pads
    (begin values of every spatial dim, then the end values) count spatial dims in order in
    both.
  }];
  let arguments = !con((ins Graph_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                        DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                        DenseI64ArrayAttr:$dilations), extra,
                       (ins DefaultValuedAttr<StrAttr, "\"NCHW\"">:$layout));
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for layout "NHWC" (channels last); false for "NCHW" (the verifier admits no
    /// other value).
    bool isChannelsLast() { return getLayout() == "NHWC"; }
    /// The dim of X and Y that holds channels: 1 (NCHW) or rank - 1 (NHWC).
    int64_t getChannelDim() {
      return isChannelsLast() ? getInput().getType().getRank() - 1 : 1;
    }
    /// The first spatial dim of X and Y: 2 (NCHW) or 1 (NHWC).
    int64_t getFirstSpatialDim() { return isChannelsLast() ? 1 : 2; }
  }];
}
def Graph_MaxPoolOp : Graph_PoolOp<"max_pool", "max", (ins)>;
def Graph_AvgPoolOp : Graph_PoolOp<"avg_pool", "average",
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//
class Graph_BinaryOp<string mnemonic, string desc, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, Graph_Elementwise,
                                      DeclareOpInterfaceMethods<InferTypeOpInterface>], traits)> {
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
def Graph_PowOp : Graph_BinaryOp<"pow", "Power (x^y)", [Graph_Transcendental]> {
  let hasCanonicalizer = 1;
}
def Graph_MinOp : Graph_BinaryOp<"min", "Minimum">;
def Graph_MaxOp : Graph_BinaryOp<"max", "Maximum">;
def Graph_ModOp : Graph_BinaryOp<"mod", "Remainder (ONNX Mod: fmod = 1 takes the sign of the dividend, fmod = 0 of the divisor)"> {
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$fmod);
}
def Graph_PReluOp : Graph_BinaryOp<"prelu", "x >= 0 ? x : slope * x">;
def Graph_AndOp : Graph_BinaryOp<"and", "Logical and">;
def Graph_OrOp : Graph_BinaryOp<"or", "Logical or">;
def Graph_XorOp : Graph_BinaryOp<"xor", "Logical xor">;

class Graph_CompareOp<string mnemonic, string desc> : Graph_Op<mnemonic, [Pure,
    Graph_Elementwise, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = desc # " with numpy broadcasting; i1 result";
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs);
  let results = (outs Graph_BoolTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def Graph_EqualOp : Graph_CompareOp<"equal", "x == y">;
def Graph_LessOp : Graph_CompareOp<"less", "x < y">;
def Graph_LessEqualOp : Graph_CompareOp<"less_equal", "x <= y">;
def Graph_GreaterOp : Graph_CompareOp<"greater", "x > y">;
def Graph_GreaterEqualOp : Graph_CompareOp<"greater_equal", "x >= y">;

def Graph_WhereOp : Graph_Op<"where", [Pure, Graph_Elementwise,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "cond ? x : y with numpy broadcasting of all three (ONNX Where)";
  let arguments = (ins Graph_BoolTensor:$cond, Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$cond `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Graph_UnaryOp<string mnemonic, string desc, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType, Graph_Elementwise],
                                     traits)> {
  let summary = desc;
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}
def Graph_ReluOp : Graph_UnaryOp<"relu", "max(x, 0)">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "hyperbolic tangent", [Graph_Transcendental]>;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "1 / (1 + exp(-x))", [Graph_Transcendental]>;
def Graph_ExpOp : Graph_UnaryOp<"exp", "e^x", [Graph_Transcendental]>;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Gauss error function", [Graph_Transcendental]>;
class Graph_NumUnaryOp<string mnemonic, string desc>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType, Graph_Elementwise]> {
  let summary = desc # " (floats and integers)";
  let arguments = (ins Graph_NumTensor:$input);
  let results = (outs Graph_NumTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}
def Graph_NegOp : Graph_NumUnaryOp<"neg", "-x">;
def Graph_AbsOp : Graph_NumUnaryOp<"abs", "|x|">;
def Graph_SignOp : Graph_NumUnaryOp<"sign", "-1, 0 or 1 by the sign of x">;

def Graph_CeilOp : Graph_UnaryOp<"ceil", "smallest integer >= x">;
def Graph_FloorOp : Graph_UnaryOp<"floor", "largest integer <= x">;
def Graph_RoundOp : Graph_UnaryOp<"round", "nearest integer, halves to even (ONNX Round)">;
def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "square root", [Graph_Transcendental]>;
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", "1 / x">;
def Graph_LogOp : Graph_UnaryOp<"log", "natural logarithm", [Graph_Transcendental]>;
def Graph_SinOp : Graph_UnaryOp<"sin", "sine", [Graph_Transcendental]>;
def Graph_CosOp : Graph_UnaryOp<"cos", "cosine", [Graph_Transcendental]>;
def Graph_TanOp : Graph_UnaryOp<"tan", "tangent", [Graph_Transcendental]>;
def Graph_AsinOp : Graph_UnaryOp<"asin", "arcsine", [Graph_Transcendental]>;
def Graph_AcosOp : Graph_UnaryOp<"acos", "arccosine", [Graph_Transcendental]>;
def Graph_AtanOp : Graph_UnaryOp<"atan", "arctangent", [Graph_Transcendental]>;
def Graph_SinhOp : Graph_UnaryOp<"sinh", "hyperbolic sine", [Graph_Transcendental]>;
def Graph_CoshOp : Graph_UnaryOp<"cosh", "hyperbolic cosine", [Graph_Transcendental]>;
def Graph_AsinhOp : Graph_UnaryOp<"asinh", "inverse hyperbolic sine", [Graph_Transcendental]>;
def Graph_AcoshOp : Graph_UnaryOp<"acosh", "inverse hyperbolic cosine", [Graph_Transcendental]>;
def Graph_AtanhOp : Graph_UnaryOp<"atanh", "inverse hyperbolic tangent", [Graph_Transcendental]>;
def Graph_SoftplusOp : Graph_UnaryOp<"softplus", "log(1 + e^x)", [Graph_Transcendental]>;
def Graph_SoftsignOp : Graph_UnaryOp<"softsign", "x / (1 + |x|)">;
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", "x * max(0, min(1, x / 6 + 1 / 2))">;

class Graph_ParamUnaryOp<string mnemonic, string desc, dag params, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType, Graph_Elementwise],
                                     traits)> {
  let summary = desc;
  let arguments = !con((ins Graph_FloatTensor:$input), params);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}
def Graph_LeakyReluOp : Graph_ParamUnaryOp<"leaky_relu", "x >= 0 ? x : alpha * x",
    (ins DefaultValuedAttr<F64Attr, "0.01">:$alpha)>;
def Graph_EluOp : Graph_ParamUnaryOp<"elu", "x >= 0 ? x : alpha * (e^x - 1)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha), [Graph_Transcendental]>;
def Graph_CeluOp : Graph_ParamUnaryOp<"celu", "max(0, x) + min(0, alpha * (e^(x / alpha) - 1))",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha), [Graph_Transcendental]>;
def Graph_SeluOp : Graph_ParamUnaryOp<"selu", "gamma * (x > 0 ? x : alpha * (e^x - 1))",
    (ins DefaultValuedAttr<F64Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F64Attr, "1.05070102214813232421875">:$gamma), [Graph_Transcendental]>;
def Graph_HardSigmoidOp : Graph_ParamUnaryOp<"hard_sigmoid", "max(0, min(1, alpha * x + beta))",
    (ins DefaultValuedAttr<F64Attr, "0.2">:$alpha, DefaultValuedAttr<F64Attr, "0.5">:$beta)>;
def Graph_ClipOp : Graph_Op<"clip", [Pure, SameOperandsAndResultType, Graph_Elementwise]> {
  let summary = "min(max(x, min), max); absent bounds do not clip (ONNX Clip)";
  let arguments = (ins Graph_NumTensor:$input, OptionalAttr<F64Attr>:$min,
                   OptionalAttr<F64Attr>:$max);
  let results = (outs Graph_NumTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Graph_ShrinkOp : Graph_ParamUnaryOp<"shrink",
    "x < -lambd ? x + bias : (x > lambd ? x - bias : 0) (ONNX Shrink)",
    (ins DefaultValuedAttr<F64Attr, "0.5">:$lambd, DefaultValuedAttr<F64Attr, "0.0">:$bias)>;

def Graph_TriluOp : Graph_Op<"trilu", [Pure, SameOperandsAndResultType, Graph_Elementwise]> {
  let summary = "keep the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims";
  let arguments = (ins Graph_AnyTensor:$input, I64Attr:$k, BoolAttr:$upper);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Graph_NotOp : Graph_Op<"not", [Pure, SameOperandsAndResultType, Graph_Elementwise]> {
  let summary = "logical not";
  let arguments = (ins Graph_BoolTensor:$input);
  let results = (outs Graph_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Graph_CastOp : Graph_Op<"cast", [Pure, Graph_Elementwise]> {
  let summary = "elementwise conversion to the result's element type (ONNX Cast)";
  let description = [{
    Float to float rounds to nearest even; float to integer truncates toward zero
    (saturating is not required by ONNX before opset 19); integer to float rounds;
    to bool is x != 0; from bool gives 0 or 1. Shapes must match.
  }];
  let arguments = (ins Graph_AnyTensor:$input);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_GeluOp : Graph_Op<"gelu", [Pure, SameOperandsAndResultType, Graph_Elementwise, Graph_Transcendental]> {
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

def Graph_LogSoftmaxOp : Graph_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "log of softmax along one axis (ONNX LogSoftmax, opset >= 13 semantics)";
  let description = [{
    y = x - max(x, axis) - log(sum(exp(x - max(x, axis)), axis)).
  }];
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Graph_AttentionOp : Graph_Op<"attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention: softmax(scale * Q K + bias, last axis) V";
  let description = [{
    `query: [..., Sq, D]`, `key_t: [..., D, Skv]` (the keys transposed: the right operand of
    Q K^T as the exporters write it), `value: [..., Skv, Dv]` -> `[..., Sq, Dv]`:

      s = scale * (query @ key_t) + bias        (bias optional, broadcast to [..., Sq, Skv])
      s[..., i, j] = -inf  where causal and j > i + (Skv - Sq)
      result = softmax(s, last axis) @ value

    Batch dims broadcast as graph.matmul's do (numpy rules): grouped-query attention is the
    query heads viewed as [B, kv_heads, reps, Sq, D] against keys [B, kv_heads, 1, D, Skv].
    The mask is additive (0 / -inf, as torch and ONNX Attention build it from a bool mask);
    `causal` is the bottom-right aligned causal mask (the query rows are the last Sq of the
    Skv positions: ONNX Attention with a KV cache of Skv - Sq entries, FlashAttention 2.1's
    convention; upper-left and bottom-right agree when Sq == Skv). The softmax is ONNX's: a
    row whose every score is -inf is NaN. With `zero_undefined_rows`, a row whose softmax is
    undefined (every score -inf, or a NaN or +inf score: the softmax's sum is 0 or NaN) is 0
    instead: torch.nn.functional.scaled_dot_product_attention's math path with a bool mask,
    which the dynamo exporter writes as softmax then where(isnan(p), 0, p). Dao et al., "FlashAttention" (2022) for the
    one-kernel evaluation; graph-recompose forms this op from the matmul / scale / mask /
    softmax / matmul chain that exporters emit (docs/fusion.md).

    `key_bound` (optional, integer `[1, .., 1, Sq or 1, 1]`) is a promise about the bias,
    not a change of the result: query i gives weight 0 to every key j > key_bound[i]
    (graph-recompose-attention sets it from a KV cache's mask where(keys <= pos, 0, -inf):
    GraphAttentionKeyBound.cpp), so kernels may end a block of queries' key loop at its
    largest bound + 1. A row whose bound is negative sees every key (no promise).

    With `key_bound_mask` = c the bound is also a mask: c (-inf, or a finite lowest such as
    f16's -65504) is added to s[..., i, j] where j > key_bound[i], as the bias where(j <=
    key_bound[i], 0, c) would add it, without that [Sq, Skv] tensor. graph-recompose-attention
    folds a static KV cache's mask into it (HF's StaticCache, the bool mask of torch's
    scaled_dot_product_attention), so no kernel computes, stores or loads the mask, and the
    FlashAttention-3 kernel, which takes no bias varying along the query rows, takes the
    attention.
  }];
  let arguments = (ins Graph_FloatTensor:$query, Graph_FloatTensor:$key_t,
                   Graph_FloatTensor:$value, Optional<Graph_FloatTensor>:$bias,
                   Optional<RankedTensorOf<[I32, I64]>>:$key_bound,
                   F64Attr:$scale, UnitAttr:$causal, UnitAttr:$zero_undefined_rows,
                   OptionalAttr<F64Attr>:$key_bound_mask);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key_t `,` $value (`bias` $bias^)? (`key_bound` $key_bound^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dims of the op's score matrix and head sizes.
    int64_t getQueryLength() { return getQuery().getType().getShape().end()[-2]; }
    int64_t getKeyLength() { return getKeyT().getType().getShape().back(); }
    int64_t getHeadSize() { return getQuery().getType().getShape().back(); }
    int64_t getValueHeadSize() { return getValue().getType().getShape().back(); }
  }];
}

def Graph_LayerNormOp : Graph_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "layer or RMS normalization over dims [axis, rank) (ONNX LayerNormalization, RMSNormalization)";
  let description = [{
    y = (x - mean) / sqrt(var + epsilon) * scale + bias, mean and (biased) variance over the
    trailing dims from `axis`; scale and bias (optional) broadcast to the input (numpy rules).
    Ba, Kiros, Hinton, "Layer Normalization" (2016).

    With `rms`: y = x / sqrt(mean(x^2) + epsilon) * scale + bias, no mean subtracted
    (Zhang, Sennrich, "Root Mean Square Layer Normalization" (2019); ONNX RMSNormalization,
    opset 23). One op for both so they share the row kernel and its fusion rules.

    f16 / bf16 inputs are normalized in f32 (ONNX stash_type = 1).
  }];
  let arguments = (ins Graph_FloatTensor:$input, Optional<Graph_FloatTensor>:$scale,
                   Optional<Graph_FloatTensor>:$bias, I64Attr:$axis,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                   DefaultValuedAttr<BoolAttr, "false">:$rms);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
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

def Graph_SliceOp : Graph_Op<"slice", [Pure, Graph_View]> {
  let summary = "strided slice: result[i] = input[starts + i * steps] per dim";
  let description = [{
    One start and one step (non-zero, may be negative) per input dim; the result type gives
    the number of elements taken per dim. ONNX Slice after its clamping rules.
  }];
  let arguments = (ins Graph_AnyTensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$steps);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_PadOp : Graph_Op<"pad", [Pure, Graph_View]> {
  let summary = "pad each dim (ONNX Pad: constant, reflect, edge or wrap)";
  let arguments = (ins Graph_AnyTensor:$input, DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                   DefaultValuedAttr<StrAttr, "\"constant\"">:$mode,
                   DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  // A constant-mode pad of a constant folds to the padded constant (graph-conv-layout's
  // channel-padded weights), up to a size cap.
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [Pure, Graph_View]> {
  let summary = "concatenate along `axis` (ONNX Concat)";
  let description = [{
    Folds away empty inputs (no kernel reads or writes a zero-element tensor); a concat left
    with one input is that input.
  }];
  let arguments = (ins Variadic<Graph_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TileOp : Graph_Op<"tile", [Pure, Graph_View]> {
  let summary = "repeat the input along every dim (ONNX Tile); result dims are multiples";
  let arguments = (ins Graph_AnyTensor:$input);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_GatherOp : Graph_Op<"gather", [Pure, Graph_View]> {
  let summary = "gather slices along `axis` at integer indices (ONNX Gather)";
  let description = [{
    result[o..., q..., i...] = input[o..., indices[q...], i...]; negative indices count from
    the end of the axis. Indices are read at run time (kernels load them). Canonicalization:
    one constant index in range is a graph.slice of one element along `axis` (and, for a
    rank-0 index, a graph.reshape dropping the axis), a view the kernels that read it can
    take by index arithmetic (torch's `select`, e.g. q, k, v = qkv[0], qkv[1], qkv[2]).
  }];
  let arguments = (ins Graph_AnyTensor:$input, Graph_AnyTensor:$indices, I64Attr:$axis);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements", [Pure, Graph_View]> {
  let summary = "result[i] = input[i with dim axis replaced by indices[i]] (ONNX GatherElements)";
  let arguments = (ins Graph_AnyTensor:$input, Graph_AnyTensor:$indices, I64Attr:$axis);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ExpandOp : Graph_Op<"expand", [Pure, Graph_Elementwise, Graph_View]> {
  let summary = "broadcast to the result shape (numpy rules; ONNX Expand)";
  let arguments = (ins Graph_AnyTensor:$input);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure, Graph_View,
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
class Graph_ReduceOp<string mnemonic, string desc> : Graph_Op<mnemonic, [Pure, Graph_Reduction]> {
  let summary = desc # " over `axes` (ONNX Reduce* semantics)";
  let description = [{
    Reduces the input over the dims listed in `axes` (sorted, unique, in [0, rank)); the
    reduced dims are kept with size 1 when `keepdims`, removed otherwise. An empty `axes`
    reduces every dim (ONNX default when no axes are given).

    The result element type is the input's, or f32 for an f16 / bf16 input (the sum is
    accumulated in f32 and kept so: graph-split-reduction's partials), or f16 / bf16 for an
    f32 input (rounded once at the end).
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
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "product">;

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//
def Graph_FusionGroupOp : Graph_Op<"fusion_group", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a set of ops that becomes one kernel";
  let description = [{
    Operands are the group's inputs (block arguments of the body, in order); results are the
    values the body yields. `kind` names the kernel template that implements it:
    "epilogue" (matmul/gemm/conv + elementwise chain), "attention" (graph.attention with
    the views that make its operands and an elementwise chain after it), "elementwise" (a DAG of elementwise
    and view ops, possibly several results of one shape), "softmax" (a row kernel:
    softmax / log_softmax / layer_norm with elementwise producers of its row input and
    elementwise consumers, possibly the row input as a second result; or the ReduceLogSumExp
    chain), "reduction" (sibling reduce ops of one input shape and axes, with elementwise
    producers of their inputs and elementwise consumers, possibly several results),
    "window" (a pool), or "single" (a scatter, possibly with the elementwise and view ops
    that compute its updates before it).
    graph-fuse records on a group, as the discardable attribute `refusals` (an array of
    dictionaries with `input` and `rule`), the rule that kept each input's producer in
    another kernel (docs/fusion.md).

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

//===----------------------------------------------------------------------===//
// Scatter (writes at run-time positions)
//===----------------------------------------------------------------------===//
def Graph_ScatterElementsOp : Graph_Op<"scatter_elements", [Pure]> {
  let summary = "data with updates written along `axis` at run-time indices (ONNX ScatterElements)";
  let description = [{
    result = data; then for every position i of `updates` in row-major order:
    j = i with its `axis` coordinate replaced by indices[i] (negative counts from the end of
    data's axis), result[j] = updates[i] (`reduction` = "none") or
    result[j] = result[j] op updates[i] (op: "add", "mul", "max", "min"). Indices and
    updates share one shape, of data's rank, no larger than data outside `axis`. Duplicate
    indices apply in that order (ONNX leaves "none" with duplicates undefined).
    ONNX operator spec, ScatterElements-18 (and the deprecated Scatter-9).
  }];
  let arguments = (ins Graph_AnyTensor:$data, Graph_AnyTensor:$indices,
                   Graph_AnyTensor:$updates, I64Attr:$axis,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_ScatterNDOp : Graph_Op<"scatter_nd", [Pure]> {
  let summary = "data with update slices written at run-time index tuples (ONNX ScatterND)";
  let description = [{
    indices: [I..., k] (k <= rank of data); updates: [I...] + data.shape[k:]. result = data; then for every index tuple t in
    row-major order, the slice result[indices[t]] (the first k coordinates; negative values
    count from the end of their dim) becomes updates[t] (`reduction` = "none") or
    result[indices[t]] op updates[t] (op: "add", "mul", "max", "min"), elementwise.
    Duplicate tuples apply in that order. ONNX operator spec, ScatterND-18.

    `axis` (default 0, ONNX's form) generalizes which dims a tuple addresses: dims
    [axis, axis + k) of data, the slice being data's other dims in their order; updates:
    [I...] + data.shape[:axis] + data.shape[axis + k:]. It is ScatterND between the two
    transposes that move those dims to the front and back (torch's index_copy along `axis`
    as the dynamo exporter writes it; graph-scatter-in-place folds them).
  }];
  let arguments = (ins Graph_AnyTensor:$data, Graph_AnyTensor:$indices,
                   Graph_AnyTensor:$updates,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Integer ops
//===----------------------------------------------------------------------===//
def Graph_BitShiftOp : Graph_Op<"bit_shift", [Pure, Graph_Elementwise,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "logical shift of x by y bits with numpy broadcasting (ONNX BitShift)";
  let description = [{
    `direction` is "left" (x << y) or "right" (x >> y, zero-filling). Both operands share one
    unsigned integer element type (ONNX BitShift-11 takes uint8 ... uint64); a shift by the
    bit width or more gives 0, and the result has the broadcast shape.

    ```mlir
    %z = graph.bit_shift %x, %y {direction = "left"} : (tensor<3xui8>, tensor<1xui8>) -> tensor<3xui8>
    ```
  }];
  let arguments = (ins Graph_AnyTensor:$lhs, Graph_AnyTensor:$rhs, StrAttr:$direction);
  let results = (outs Graph_AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif
