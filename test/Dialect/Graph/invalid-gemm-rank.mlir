// graph.gemm with an operand that is not rank 2 must be rejected with a rank error.
// RUN: not aicc-opt %s -split-input-file 2>&1 | FileCheck %s
//
// Regression test (fixed): GemmOp::verify (lib/Dialect/Graph/IR/GraphOps.cpp) reads A's and B's dims 0/1
// (getDimSize(1)) before anything has checked that they are rank 2; the rank check lives only
// in GemmOp::inferReturnTypes, which the verifier runs after verify(). A rank-1 A reads past
// the shape array and reports a garbage K ("A gives K = 94683375689808"); rank-0 operands
// crash aicc-opt with SIGSEGV in GemmOp::verify(). (The MLIR here has no assertions.)

// CHECK: error: {{.*}}rank-2
// CHECK-NOT: A gives K
func.func @gemm_a_rank1(%a: tensor<4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %0 = "graph.gemm"(%a, %b) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK: error: {{.*}}rank-2
func.func @gemm_rank0(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = "graph.gemm"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
