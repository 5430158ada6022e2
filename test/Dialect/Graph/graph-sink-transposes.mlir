// graph-sink-transposes: row-order transposes (the last dim kept) move across row-wise ops
// to where a view chain can absorb them; the refusals keep everything in place.
// RUN: aicc-opt %s -split-input-file -graph-sink-transposes | FileCheck %s

// nn.MultiheadAttention (batch_first): [B, S, E] -> [S, B, E] before the in-projection. The
// transpose sinks below the matmul by a 2-D weight and the bias add.
// CHECK-LABEL: func.func @sink_below_projection
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x5x8xf16>
// CHECK:         %[[M:.*]] = graph.matmul %[[X]], %{{.*}} : (tensor<2x5x8xf16>, tensor<8x24xf16>) -> tensor<2x5x24xf16>
// CHECK:         %[[A:.*]] = graph.add %{{.*}}, %[[M]] : (tensor<24xf16>, tensor<2x5x24xf16>) -> tensor<2x5x24xf16>
// CHECK:         %[[T:.*]] = graph.transpose %[[A]], [1, 0, 2] : (tensor<2x5x24xf16>) -> tensor<5x2x24xf16>
// CHECK:         return %[[T]]
func.func @sink_below_projection(%x: tensor<2x5x8xf16>, %w: tensor<8x24xf16>, %b: tensor<24xf16>) -> tensor<5x2x24xf16> {
  %t = graph.transpose %x, [1, 0, 2] : (tensor<2x5x8xf16>) -> tensor<5x2x8xf16>
  %m = graph.matmul %t, %w : (tensor<5x2x8xf16>, tensor<8x24xf16>) -> tensor<5x2x24xf16>
  %a = graph.add %b, %m : (tensor<24xf16>, tensor<5x2x24xf16>) -> tensor<5x2x24xf16>
  return %a : tensor<5x2x24xf16>
}

// -----

// The out-projection's transpose back to [B, S, E] moves to the gemm's input, where it
// composes with the attention's head merge ([B, H, S, D] -> [S, B, H, D]) into the plain
// head merge [B, S, H, D].
// CHECK-LABEL: func.func @hoist_above_out_projection
// CHECK-SAME:      %[[Y:[^:]*]]: tensor<2x4x5x8xf16>
// CHECK:         %[[T:.*]] = graph.transpose %[[Y]], [0, 2, 1, 3] : (tensor<2x4x5x8xf16>) -> tensor<2x5x4x8xf16>
// CHECK:         %[[R:.*]] = graph.reshape %[[T]] : (tensor<2x5x4x8xf16>) -> tensor<10x32xf16>
// CHECK:         %[[G:.*]] = graph.gemm %[[R]], %{{.*}} {transB = true}
// CHECK:         %[[O:.*]] = graph.reshape %[[G]] : (tensor<10x32xf16>) -> tensor<2x5x32xf16>
// CHECK-NOT:     graph.transpose
// CHECK:         return %[[O]]
func.func @hoist_above_out_projection(%y: tensor<2x4x5x8xf16>, %w: tensor<32x32xf16>) -> tensor<2x5x32xf16> {
  %m = graph.transpose %y, [2, 0, 1, 3] : (tensor<2x4x5x8xf16>) -> tensor<5x2x4x8xf16>
  %r = graph.reshape %m : (tensor<5x2x4x8xf16>) -> tensor<10x32xf16>
  %g = graph.gemm %r, %w {transB = true} : (tensor<10x32xf16>, tensor<32x32xf16>) -> tensor<10x32xf16>
  %o = graph.reshape %g : (tensor<10x32xf16>) -> tensor<5x2x32xf16>
  %t = graph.transpose %o, [1, 0, 2] : (tensor<5x2x32xf16>) -> tensor<2x5x32xf16>
  return %t : tensor<2x5x32xf16>
}

// -----

// Refused: a transpose that moves the last dim (it reorders the elements of a row), one
// with a second user (moving it would duplicate it), a batched weight (3-D: not the same
// for every row), an elementwise operand that differs between rows, and a transpose of an
// input before an elementwise op (the op's kernel reads through it in place; below the op
// it would be a kernel of its own).
// CHECK-LABEL: func.func @refusals
// CHECK:         graph.transpose %{{.*}}, [0, 2, 1]
// CHECK-NEXT:    graph.matmul
// CHECK:         graph.transpose %{{.*}}, [1, 0, 2]
// CHECK-NEXT:    graph.matmul
// CHECK:         graph.transpose %{{.*}}, [1, 0, 2]
// CHECK-NEXT:    graph.matmul
// CHECK:         graph.transpose %{{.*}}, [1, 0, 2]
// CHECK-NEXT:    graph.add
// CHECK:         graph.transpose %{{.*}}, [1, 0, 2]
// CHECK-NEXT:    graph.mul
func.func @refusals(%x: tensor<4x4x4xf32>, %w: tensor<4x4xf32>, %w3: tensor<4x4x4xf32>, %c: tensor<4x4x4xf32>, %s: tensor<f32>) -> (tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>) {
  %t0 = graph.transpose %x, [0, 2, 1] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %m0 = graph.matmul %t0, %w : (tensor<4x4x4xf32>, tensor<4x4xf32>) -> tensor<4x4x4xf32>
  %t1 = graph.transpose %x, [1, 0, 2] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %m1 = graph.matmul %t1, %w : (tensor<4x4x4xf32>, tensor<4x4xf32>) -> tensor<4x4x4xf32>
  %t2 = graph.transpose %c, [1, 0, 2] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %m2 = graph.matmul %t2, %w3 : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %t3 = graph.transpose %w3, [1, 0, 2] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %a3 = graph.add %t3, %c : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %t4 = graph.transpose %c, [1, 0, 2] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %a4 = graph.mul %t4, %s : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4x4xf32>
  return %m0, %m1, %t1, %m2, %a3, %a4 : tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>
}

// -----
// A decode step's head merge, [B, H, 1, D] -> [B, 1, H, D], moves only a size-1 dim: a
// reshape, folded into the next (the out-projection reads the attention's result in place,
// no copy kernel).
// CHECK-LABEL: func @decode_head_merge
// CHECK-NOT: graph.transpose
// CHECK: %[[A:.*]] = graph.attention
// CHECK: graph.reshape %[[A]] : (tensor<2x4x1x8xf16>) -> tensor<2x1x32xf16>
func.func @decode_head_merge(%q: tensor<2x4x1x8xf16>, %kt: tensor<2x4x8x16xf16>, %v: tensor<2x4x16x8xf16>) -> tensor<2x1x32xf16> {
  %a = graph.attention %q, %kt, %v {scale = 0.35 : f64} : (tensor<2x4x1x8xf16>, tensor<2x4x8x16xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x1x8xf16>
  %t = graph.transpose %a, [0, 2, 1, 3] : (tensor<2x4x1x8xf16>) -> tensor<2x1x4x8xf16>
  %r = graph.reshape %t : (tensor<2x1x4x8xf16>) -> tensor<2x1x32xf16>
  return %r : tensor<2x1x32xf16>
}

// -----
// Two queries: the transpose moves rows; it stays (the attention kernel stores it in place).
// CHECK-LABEL: func @prefill_head_merge
// CHECK: graph.transpose
func.func @prefill_head_merge(%q: tensor<2x4x2x8xf16>, %kt: tensor<2x4x8x16xf16>, %v: tensor<2x4x16x8xf16>) -> tensor<2x2x32xf16> {
  %a = graph.attention %q, %kt, %v {scale = 0.35 : f64} : (tensor<2x4x2x8xf16>, tensor<2x4x8x16xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x2x8xf16>
  %t = graph.transpose %a, [0, 2, 1, 3] : (tensor<2x4x2x8xf16>) -> tensor<2x2x4x8xf16>
  %r = graph.reshape %t : (tensor<2x2x4x8xf16>) -> tensor<2x2x32xf16>
  return %r : tensor<2x2x32xf16>
}
