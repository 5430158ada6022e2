// One case per verifier error of the graph dialect (GraphOps.cpp, including the
// inferReturnTypes failures that verification reports). Bad ops are written in generic form
// so that the verifier, not the custom parser, reports them.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

// Known verifier bugs live in their own files so they do not hide these cases:
// invalid-gemm-rank.mlir, invalid-softmax-negative-axis.mlir.
// Not reachable from IR, so not tested: ConstantOp::inferReturnTypes "missing 'value'" and the
// "operands must be ranked tensors" of inferBinary / MatMulOp (ODS constraints reject first),
// inferBinary's "shapes do not broadcast" and TransposeOp's "perm entry out of range" (the
// op's verify() reports first).

func.func @constant_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'graph.constant' op value must have a static ranked tensor type}}
  %0 = "graph.constant"() <{value = dense_resource<blob1> : tensor<?xf32>}> : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @constant_vector() -> tensor<2xf32> {
  // expected-error @+1 {{'graph.constant' op value must have a static ranked tensor type}}
  %0 = "graph.constant"() <{value = dense<1.0> : vector<2xf32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{graph.matmul: operands must have rank >= 1}}
  // expected-error @+1 {{'graph.matmul' op failed to infer returned types}}
  %0 = "graph.matmul"(%a, %b) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @matmul_k_mismatch(%a: tensor<2x4xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{graph.matmul: contraction dims differ (4 vs 3)}}
  // expected-error @+1 {{'graph.matmul' op failed to infer returned types}}
  %0 = "graph.matmul"(%a, %b) : (tensor<2x4xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_vector_k_mismatch(%a: tensor<2x4xf32>, %v: tensor<5xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{graph.matmul: contraction dims differ (4 vs 5)}}
  // expected-error @+1 {{'graph.matmul' op failed to infer returned types}}
  %0 = "graph.matmul"(%a, %v) : (tensor<2x4xf32>, tensor<5xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x2x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x2x5xf32> {
  // expected-error @+2 {{graph.matmul: batch dims do not broadcast}}
  // expected-error @+1 {{'graph.matmul' op failed to infer returned types}}
  %0 = "graph.matmul"(%a, %b) : (tensor<2x2x4xf32>, tensor<3x4x5xf32>) -> tensor<2x2x5xf32>
  return %0 : tensor<2x2x5xf32>
}

// -----

func.func @matmul_element_types(%a: tensor<2x4xf32>, %b: tensor<4x5xf16>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'graph.matmul' op operand element types differ}}
  %0 = "graph.matmul"(%a, %b) : (tensor<2x4xf32>, tensor<4x5xf16>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_result_type(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{'graph.matmul' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{'graph.matmul' op failed to infer returned types}}
  %0 = "graph.matmul"(%a, %b) : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @matmul_int(%a: tensor<2x4xi32>, %b: tensor<4x5xi32>) -> tensor<2x5xi32> {
  // expected-error @+1 {{'graph.matmul' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = "graph.matmul"(%a, %b) : (tensor<2x4xi32>, tensor<4x5xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

func.func @gemm_k_mismatch(%a: tensor<2x4xf32>, %b: tensor<5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gemm' op contraction dims differ: A gives K = 4, B gives K = 5}}
  %0 = "graph.gemm"(%a, %b) : (tensor<2x4xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// transA / transB pick the other dim as K.
func.func @gemm_k_mismatch_trans(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gemm' op contraction dims differ: A gives K = 4, B gives K = 3}}
  %0 = "graph.gemm"(%a, %b) <{alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = true}>
      : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gemm_element_types(%a: tensor<2x4xf32>, %b: tensor<4x3xf16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gemm' op A and B element types differ}}
  %0 = "graph.gemm"(%a, %b) : (tensor<2x4xf32>, tensor<4x3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gemm_c_not_broadcastable(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %c: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gemm' op C of shape [2] is not unidirectionally broadcastable to [2, 3]}}
  %0 = "graph.gemm"(%a, %b, %c) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// C must broadcast to [M, N] without growing it (unidirectional).
func.func @gemm_c_grows(%a: tensor<1x4xf32>, %b: tensor<4x3xf32>, %c: tensor<2x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{'graph.gemm' op C of shape [2, 3] is not unidirectionally broadcastable to [1, 3]}}
  %0 = "graph.gemm"(%a, %b, %c) : (tensor<1x4xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @gemm_c_rank3(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %c: tensor<1x2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gemm' op C of shape [1, 2, 3] is not unidirectionally broadcastable to [2, 3]}}
  %0 = "graph.gemm"(%a, %b, %c) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<1x2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gemm_b_rank1(%a: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gemm' op A and B must be rank-2 tensors, got ranks 2 and 1}}
  %0 = "graph.gemm"(%a, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @add_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.add' op operand shapes [2, 3] and [4] do not broadcast}}
  %0 = "graph.add"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @sub_element_types(%a: tensor<2x3xf32>, %b: tensor<3xf16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.sub' op operand element types differ: 'f32' vs 'f16'}}
  %0 = "graph.sub"(%a, %b) : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @mul_result_type(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.mul' op result type 'tensor<2x4xf32>' is not the broadcast type}}
  %0 = "graph.mul"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @div_result_element_type(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf64> {
  // expected-error @+1 {{'graph.div' op result type 'tensor<3xf64>' is not the broadcast type}}
  %0 = "graph.div"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

func.func @unary_type_change(%a: tensor<3xf32>) -> tensor<3xf16> {
  // expected-error @+1 {{'graph.relu' op requires the same type for all operands and results}}
  %0 = "graph.relu"(%a) : (tensor<3xf32>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

func.func @gelu_approximate(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.gelu' op approximate must be "none" or "tanh", got "fast"}}
  %0 = "graph.gelu"(%a) <{approximate = "fast"}> : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @softmax_axis_too_large(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.softmax' op axis 2 out of range [0, 2)}}
  %0 = "graph.softmax"(%a) <{axis = 2 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @softmax_rank0(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'graph.softmax' op axis 0 out of range [0, 0)}}
  %0 = "graph.softmax"(%a) <{axis = 0 : i64}> : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reshape_dynamic(%a: tensor<?x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'graph.reshape' op shapes must be static}}
  %0 = "graph.reshape"(%a) : (tensor<?x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reshape_element_count(%a: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'graph.reshape' op element count changes: 6 vs 7}}
  %0 = "graph.reshape"(%a) : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{'graph.reshape' op element type changes}}
  %0 = "graph.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

func.func @transpose_repeated(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'graph.transpose' op perm is not a permutation of [0, 2)}}
  %0 = "graph.transpose"(%a) <{perm = array<i64: 0, 0>}> : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @transpose_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.transpose' op perm is not a permutation of [0, 2)}}
  %0 = "graph.transpose"(%a) <{perm = array<i64: 0, 2>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @transpose_wrong_size(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{graph.transpose: perm size must equal the rank}}
  // expected-error @+1 {{'graph.transpose' op failed to infer returned types}}
  %0 = "graph.transpose"(%a) <{perm = array<i64: 0>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @transpose_result_type(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'graph.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'graph.transpose' op failed to infer returned types}}
  %0 = "graph.transpose"(%a) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op axes must be sorted, unique and in [0, 2)}}
  %0 = "graph.reduce_sum"(%x) <{axes = array<i64: 2>, keepdims = true}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_axis_negative(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_mean' op axes must be sorted, unique and in [0, 2)}}
  %0 = "graph.reduce_mean"(%x) <{axes = array<i64: -1>, keepdims = true}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_axes_unsorted(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{'graph.reduce_max' op axes must be sorted, unique and in [0, 2)}}
  %0 = "graph.reduce_max"(%x) <{axes = array<i64: 1, 0>, keepdims = true}> : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @reduce_axes_repeated(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_min' op axes must be sorted, unique and in [0, 2)}}
  %0 = "graph.reduce_min"(%x) <{axes = array<i64: 1, 1>, keepdims = true}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_keepdims_shape(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_mean' op result type 'tensor<2x1xf32>' does not match the reduced shape}}
  %0 = "graph.reduce_mean"(%x) <{axes = array<i64: 1>, keepdims = false}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_element_type(%x: tensor<2x3xf32>) -> tensor<2x1xf64> {
  // expected-error @+1 {{'graph.reduce_sum' op result element type 'f64' must be the input's ('f32') or f32 for a 16-bit float input (or 16-bit for an f32 input)}}
  %0 = "graph.reduce_sum"(%x) <{axes = array<i64: 1>, keepdims = true}> : (tensor<2x3xf32>) -> tensor<2x1xf64>
  return %0 : tensor<2x1xf64>
}

// -----

func.func @reduce_element_type_f16_bf16(%x: tensor<2x3xf16>) -> tensor<2x1xbf16> {
  // expected-error @+1 {{'graph.reduce_max' op result element type 'bf16' must be the input's ('f16')}}
  %0 = "graph.reduce_max"(%x) <{axes = array<i64: 1>, keepdims = true}> : (tensor<2x3xf16>) -> tensor<2x1xbf16>
  return %0 : tensor<2x1xbf16>
}

// -----

func.func @fusion_group_unknown_kind(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.fusion_group' op unknown fusion kind "pointwise"}}
  %0 = "graph.fusion_group"(%a) <{kind = "pointwise"}> ({
  ^bb0(%x: tensor<2xf32>):
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fusion_group_arg_count(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.fusion_group' op body has 2 arguments but the group has 1 inputs}}
  %0 = "graph.fusion_group"(%a) <{kind = "elementwise"}> ({
  ^bb0(%x: tensor<2xf32>, %y: tensor<2xf32>):
    "graph.yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fusion_group_arg_type(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.fusion_group' op body argument type 'tensor<3xf32>' differs from input type 'tensor<2xf32>'}}
  %0 = "graph.fusion_group"(%a) <{kind = "elementwise"}> ({
  ^bb0(%x: tensor<3xf32>):
    %y = "graph.reshape"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    "graph.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fusion_group_yield_count(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.fusion_group' op yielded types differ from the result types}}
  %0 = "graph.fusion_group"(%a) <{kind = "elementwise"}> ({
  ^bb0(%x: tensor<2xf32>):
    "graph.yield"() : () -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fusion_group_yield_type(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.fusion_group' op yielded types differ from the result types}}
  %0 = "graph.fusion_group"(%a) <{kind = "single"}> ({
  ^bb0(%x: tensor<2xf32>):
    %y = "graph.reshape"(%x) : (tensor<2xf32>) -> tensor<1x2xf32>
    "graph.yield"(%y) : (tensor<1x2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fusion_group_isolated(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = "graph.fusion_group"(%a) <{kind = "single"}> ({
  ^bb0(%x: tensor<2xf32>):
    // expected-error @+1 {{'graph.yield' op using value defined outside the region}}
    "graph.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @yield_outside_group(%a: tensor<2xf32>) {
  // expected-error @+1 {{'graph.yield' op expects parent op 'graph.fusion_group'}}
  "graph.yield"(%a) : (tensor<2xf32>) -> ()
}

// -----

// Found by aicc-fuzz-mlir (fuzz/regressions/mlir): the verifier cast the terminator to
// graph.yield and crashed on anything else.
func.func @fusion_group_not_yield(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.fusion_group' op body must end in graph.yield}}
  %0 = "graph.fusion_group"(%a) <{kind = "single"}> ({
  ^bb0(%x: tensor<2xf32>):
    "func.return"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @attention_element_types(%q: tensor<4x8xf32>, %kt: tensor<8x6xf16>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op query, key_t, value, bias and result must have one element type}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<8x6xf16>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_rank(%q: tensor<8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'graph.attention' op query, key_t and value must have rank >= 2}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<8xf32>, tensor<8x6xf32>, tensor<6x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @attention_dynamic(%q: tensor<?x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'graph.attention' op query, key_t, value, bias and result must have static shapes}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<?x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @attention_head_size(%q: tensor<4x8xf32>, %kt: tensor<7x6xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op key_t is [..., D, Skv] with D = 7, query's head size is 8}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<7x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_value_rows(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<5x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op value has 5 rows, key_t has 6 keys}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<5x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_batch(%q: tensor<2x4x8xf32>, %kt: tensor<3x8x6xf32>, %v: tensor<6x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'graph.attention' op batch dims of query, key_t and value do not broadcast}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<2x4x8xf32>, tensor<3x8x6xf32>, tensor<6x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @attention_result(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op result must be [4, 3], got 'tensor<4x8xf32>'}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_bias(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>, %b: tensor<2x4x6xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op bias of shape [2, 4, 6] does not broadcast to the scores [4, 6]}}
  %0 = "graph.attention"(%q, %kt, %v, %b) <{scale = 1.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<2x4x6xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_key_bound(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>, %kb: tensor<4x2xi64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op key_bound must be [1, .., 1, Sq or 1, 1] with Sq = 4, got [4, 2]}}
  %0 = graph.attention %q, %kt, %v key_bound %kb {scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<4x2xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_key_bound_batch(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x6xf32>, %v: tensor<2x6x8xf32>, %kb: tensor<2x4x1xi32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'graph.attention' op key_bound must be [1, .., 1, Sq or 1, 1] with Sq = 4, got [2, 4, 1]}}
  %0 = graph.attention %q, %kt, %v key_bound %kb {scale = 1.0 : f64} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>, tensor<2x6x8xf32>, tensor<2x4x1xi32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @attention_mask_without_key_bound(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op key_bound_mask needs a key_bound}}
  %0 = graph.attention %q, %kt, %v {key_bound_mask = 0xFFF0000000000000 : f64, scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_key_bound_mask_positive(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>, %kb: tensor<4x1xi64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op key_bound_mask must be negative, got 1}}
  %0 = graph.attention %q, %kt, %v key_bound %kb {key_bound_mask = 1.0 : f64, scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>, tensor<4x1xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_causal(%q: tensor<7x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<7x8xf32> {
  // expected-error @+1 {{'graph.attention' op causal attention needs Sq <= Skv, got Sq = 7, Skv = 6}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 1.0 : f64, causal, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<7x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>) -> tensor<7x8xf32>
  return %0 : tensor<7x8xf32>
}

// -----

func.func @attention_scale(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.attention' op scale must be finite}}
  %0 = "graph.attention"(%q, %kt, %v) <{scale = 0x7FF0000000000000 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
