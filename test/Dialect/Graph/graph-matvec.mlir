// RUN: aicc-opt %s --pass-pipeline='builtin.module(aicc-attach-target{target=sm_90a},func.func(graph-matvec{max-rows=16 half-max-rows=2}))' | FileCheck %s
// RUN: aicc-opt %s --pass-pipeline='builtin.module(aicc-attach-target{target=sm_90a},func.func(graph-matvec{max-rows=16 half-max-rows=2}),func.func(graph-fuse))' | FileCheck %s --check-prefix=FUSED
// RUN: aicc-opt %s --pass-pipeline='builtin.module(aicc-attach-target{target=cpu},func.func(graph-matvec))' | FileCheck %s --check-prefix=CPU
// The defaults: f32 up to 64 rows, f16 / bf16 only one row (the tensor-core kernels win above).
// RUN: aicc-opt %s --pass-pipeline='builtin.module(aicc-attach-target{target=sm_90a},func.func(graph-matvec))' | FileCheck %s --check-prefix=DEFAULT

// An MLP layer at batch 8 (torch.nn.Linear exports Gemm transB): dot products.
// CHECK-LABEL: func.func @linear_b8
// CHECK:      %[[A:.*]] = graph.reshape %arg0 : (tensor<8x256xf32>) -> tensor<8x1x256xf32>
// CHECK-NEXT: %[[W:.*]] = graph.reshape %arg1 : (tensor<32x256xf32>) -> tensor<1x32x256xf32>
// CHECK-NEXT: %[[P:.*]] = graph.mul %[[A]], %[[W]] : (tensor<8x1x256xf32>, tensor<1x32x256xf32>) -> tensor<8x32x256xf32>
// CHECK-NEXT: %[[S:.*]] = graph.reduce_sum %[[P]] {axes = array<i64: 2>, keepdims = false} : (tensor<8x32x256xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.add %[[S]], %arg2
// CHECK-NEXT: %[[G:.*]] = graph.gelu %[[Y]]
// CHECK-NOT:  graph.gemm
// One kernel: the multiply is the reduction's prologue, bias and GELU its epilogue.
// FUSED-LABEL: func.func @linear_b8
// FUSED:       graph.fusion_group "reduction"
// FUSED:       graph.mul
// FUSED:       graph.reduce_sum
// FUSED:       graph.add
// FUSED:       graph.gelu
// FUSED-NOT:   graph.fusion_group
// FUSED:       return
// The cpu target keeps its matmul kernel.
// CPU-LABEL: func.func @linear_b8
// CPU:       graph.gemm
func.func @linear_b8(%a: tensor<8x256xf32>, %w: tensor<32x256xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %y = graph.gemm %a, %w, %b {transB = true} : (tensor<8x256xf32>, tensor<32x256xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %g = graph.gelu %y : tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// A bias-free f16 projection of a decode step (MatMul with a constant [K, N] weight): the
// weight is transposed at compile time, products and sum in f32, rounded once.
// CHECK-LABEL: func.func @decode_f16
// CHECK-DAG:  %[[WT:.*]] = graph.constant dense<{{.*}}> : tensor<2x16xf16>
// CHECK:      %[[A:.*]] = graph.reshape %arg0 : (tensor<1x2x16xf16>) -> tensor<2x1x16xf16>
// CHECK-NEXT: %[[A32:.*]] = graph.cast %[[A]] : tensor<2x1x16xf16> -> tensor<2x1x16xf32>
// CHECK-NEXT: %[[W:.*]] = graph.reshape %[[WT]] : (tensor<2x16xf16>) -> tensor<1x2x16xf16>
// CHECK-NEXT: %[[W32:.*]] = graph.cast %[[W]] : tensor<1x2x16xf16> -> tensor<1x2x16xf32>
// CHECK-NEXT: %[[P:.*]] = graph.mul %[[A32]], %[[W32]] : (tensor<2x1x16xf32>, tensor<1x2x16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: %[[S:.*]] = graph.reduce_sum %[[P]] {axes = array<i64: 2>, keepdims = false} : (tensor<2x2x16xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %[[H:.*]] = graph.cast %[[S]] : tensor<2x2xf32> -> tensor<2x2xf16>
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[H]] : (tensor<2x2xf16>) -> tensor<1x2x2xf16>
// CHECK-NEXT: return %[[R]]
// DEFAULT-LABEL: func.func @decode_f16
// DEFAULT:       graph.matmul
// DEFAULT-LABEL: func.func @refused
// DEFAULT-NOT:   graph.gemm %arg0, %arg1 {transB = true} : (tensor<32x64xf32>
func.func @decode_f16(%a: tensor<1x2x16xf16>) -> tensor<1x2x2xf16> {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]> : tensor<16x2xf16>
  %y = graph.matmul %a, %w : (tensor<1x2x16xf16>, tensor<16x2xf16>) -> tensor<1x2x2xf16>
  return %y : tensor<1x2x2xf16>
}

// Left alone: too many rows, a weight that is neither [N, K] nor constant, alpha != 1,
// a short K.
// CHECK-LABEL: func.func @refused
// CHECK-COUNT-4: graph.{{gemm|matmul}}
func.func @refused(%a: tensor<32x64xf32>, %w: tensor<64x64xf32>, %x: tensor<8x64xf32>, %s: tensor<8x8xf32>) -> (tensor<32x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x8xf32>) {
  %0 = graph.gemm %a, %w {transB = true} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %1 = graph.matmul %x, %w : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %2 = graph.gemm %x, %w {transB = true, alpha = 2.0 : f32} : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
  %3 = graph.matmul %s, %s : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %2, %3 : tensor<32x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x8xf32>
}

// A decode step's f16 projection at batch 4 ([4, 1, K]: four one-row matrices), above the
// half-precision row cap: one [4, K] x [K, N] matmul between two reshapes (the matmul kernel
// reads the weight once, not once per one-row matrix). The cpu target leaves it alone.
// CHECK-LABEL: func.func @decode_batch_f16
// CHECK:       %[[A:.*]] = graph.reshape %arg0 : (tensor<4x1x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:  %[[Y:.*]] = graph.matmul %[[A]], %arg1 : (tensor<4x16xf16>, tensor<16x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT:  %[[R:.*]] = graph.reshape %[[Y]] : (tensor<4x8xf16>) -> tensor<4x1x8xf16>
// CHECK-NEXT:  return %[[R]]
// CPU-LABEL:   func.func @decode_batch_f16
// CPU:         graph.matmul %arg0, %arg1 : (tensor<4x1x16xf16>
func.func @decode_batch_f16(%a: tensor<4x1x16xf16>, %w: tensor<16x8xf16>) -> tensor<4x1x8xf16> {
  %y = graph.matmul %a, %w : (tensor<4x1x16xf16>, tensor<16x8xf16>) -> tensor<4x1x8xf16>
  return %y : tensor<4x1x8xf16>
}
