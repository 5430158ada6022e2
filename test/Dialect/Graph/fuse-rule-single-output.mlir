// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule single-output (GraphFuse.cpp absorbConsumerDag): a matmul / Gemm epilogue value with
// several users still takes them, and their elementwise users, into the kernel when in the
// end exactly one value the added ops compute is read outside it. The matmul template
// evaluates the epilogue over the tiles it computed (applyEpilogue), so x is read from the
// accumulator as often as the DAG needs. Where more than one value would leave the kernel,
// single-user keeps them apart (fuse-rule-single-user.mlir, @matmul_two_users).

// Accept: SiLU, x * sigmoid(x): one kernel.
// CHECK-LABEL: func.func @silu
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[X:.*]] = graph.matmul
// CHECK-NEXT:      %[[S:.*]] = graph.sigmoid %[[X]]
// CHECK-NEXT:      %[[Y:.*]] = graph.mul %[[X]], %[[S]]
// CHECK-NEXT:      graph.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @silu(%a: tensor<64x128xf16>, %w: tensor<128x256xf16>) -> tensor<64x256xf16> {
  %x = graph.matmul %a, %w : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %s = graph.sigmoid %x : tensor<64x256xf16>
  %y = graph.mul %x, %s : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// -----

// Accept: SwiGLU, silu(a W_gate) * (a W_up): the gate kernel's epilogue computes SiLU and,
// the chain going on from its one output, multiplies by the up projection (loaded: its
// kernel runs first). Two matmul kernels, no elementwise one.
// CHECK-LABEL: func.func @swiglu
// CHECK-NEXT:    %[[UP:.*]] = graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" (%{{.*}}, %{{.*}}, %[[UP]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.sigmoid
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @swiglu(%a: tensor<64x128xf16>, %wg: tensor<128x256xf16>, %wu: tensor<128x256xf16>) -> tensor<64x256xf16> {
  %g = graph.matmul %a, %wg : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %s = graph.sigmoid %g : tensor<64x256xf16>
  %silu = graph.mul %g, %s : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  %u = graph.matmul %a, %wu : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %y = graph.mul %silu, %u : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// -----

// Accept: quick GELU after a Gemm with bias, x * sigmoid(1.702 x), with the constant
// defined before the anchor (loaded, broadcast).
// CHECK-LABEL: func.func @quick_gelu
// CHECK-NEXT:    %[[C:.*]] = graph.constant
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.gemm
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.sigmoid
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @quick_gelu(%a: tensor<8x32xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %c = graph.constant dense<1.702> : tensor<1xf32>
  %x = graph.gemm %a, %w, %b {transB = true} : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %t = graph.mul %x, %c : (tensor<8x16xf32>, tensor<1xf32>) -> tensor<8x16xf32>
  %s = graph.sigmoid %t : tensor<8x16xf32>
  %y = graph.mul %x, %s : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Refuse: x is also returned (two values would leave the kernel; the edge is refused by
// no-aliasing, as x is a model output): the matmul kernel stores x and one elementwise
// kernel computes SiLU from it.
// CHECK-LABEL: func.func @tail_returned
// CHECK-NEXT:    %[[M:.*]] = graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%[[M]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
func.func @tail_returned(%a: tensor<64x128xf16>, %w: tensor<128x256xf16>) -> (tensor<64x256xf16>, tensor<64x256xf16>) {
  %x = graph.matmul %a, %w : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %s = graph.sigmoid %x : tensor<64x256xf16>
  %y = graph.mul %x, %s : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  return %x, %y : tensor<64x256xf16>, tensor<64x256xf16>
}

// -----

// Refuse: x * mean(x) reads x through a reduction the epilogue cannot hold (it would have
// to run inside the kernel that produces x): the matmul kernel stays alone.
// CHECK-LABEL: func.func @through_reduction
// CHECK-NEXT:    %[[M:.*]] = graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
func.func @through_reduction(%a: tensor<64x128xf32>, %w: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %x = graph.matmul %a, %w : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  %y = graph.mul %x, %m : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// Refuse: t reads p, which no kernel holds yet when the matmul grows; the softmax later
// takes p into its row kernel. (A review found the DAG then read p before the kernel
// computing it: "does not dominate".) The matmul stays alone and the output verifies.
// CHECK-LABEL: func.func @unclaimed_operand
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
func.func @unclaimed_operand(%in: tensor<16x16xf32>, %a: tensor<16x32xf32>, %w: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %p = graph.exp %in : tensor<16x16xf32>
  %x = graph.matmul %a, %w : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  %s = graph.sigmoid %x : tensor<16x16xf32>
  %t = graph.mul %s, %p : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = graph.mul %x, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %z = graph.softmax %p {axis = 1 : i64} : tensor<16x16xf32>
  return %y, %z : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// A row kernel's input read before the row op stays out of the row kernel (it would become
// the row kernel's second result, written after that reader runs): the exp is its own
// kernel, read by the matmul epilogue and by the softmax.
// CHECK-LABEL: func.func @row_input_read_earlier
// CHECK:         %[[P:.*]] = graph.fusion_group "elementwise"
// CHECK:           graph.exp
// CHECK:         graph.fusion_group "epilogue" ({{.*}}%[[P]])
// CHECK:         graph.fusion_group "softmax" (%[[P]])
// CHECK-NOT:       graph.exp
// CHECK:         return
func.func @row_input_read_earlier(%in: tensor<16x16xf32>, %a: tensor<16x32xf32>, %w: tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %p = graph.exp %in : tensor<16x16xf32>
  %x = graph.matmul %a, %w : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  %y = graph.add %x, %p : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %z = graph.softmax %p {axis = 1 : i64} : tensor<16x16xf32>
  return %y, %z : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Rule column-pairs (columnPairSlices): a product read only by its two column-pair slices
// (step 2 along the last dim, at 0 and 1: graph-merge-sibling-matmuls' gated pair) takes
// both and what combines them: one kernel whose result has half the product's columns
// (the matmul template reads the pairs in registers, tile.swap_pairs).
// CHECK-LABEL: func.func @column_pairs
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" {{.*}} -> tensor<64x256xf16>
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[X:.*]] = graph.matmul
// CHECK-NEXT:      %[[E:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>}
// CHECK-NEXT:      %[[O:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
// CHECK-NEXT:      %[[S:.*]] = graph.sigmoid %[[E]]
// CHECK-NEXT:      %[[SILU:.*]] = graph.mul %[[E]], %[[S]]
// CHECK-NEXT:      %[[Y:.*]] = graph.mul %[[SILU]], %[[O]]
// CHECK-NEXT:      graph.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @column_pairs(%a: tensor<64x128xf16>, %w: tensor<128x512xf16>) -> tensor<64x256xf16> {
  %x = graph.matmul %a, %w : (tensor<64x128xf16>, tensor<128x512xf16>) -> tensor<64x512xf16>
  %e = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : tensor<64x512xf16> -> tensor<64x256xf16>
  %o = graph.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<64x512xf16> -> tensor<64x256xf16>
  %s = graph.sigmoid %e : tensor<64x256xf16>
  %silu = graph.mul %e, %s : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  %y = graph.mul %silu, %o : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// -----

// Not column pairs: each pair read on its own (two values would leave the kernel), and
// slices of step 2 that are not the pairs (start 2): the product is stored, the slices read
// it in other kernels.
// CHECK-LABEL: func.func @column_pairs_refused
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
func.func @column_pairs_refused(%a: tensor<64x128xf16>, %w: tensor<128x512xf16>) -> (tensor<64x256xf16>, tensor<64x256xf16>, tensor<64x255xf16>, tensor<64x256xf16>) {
  %x = graph.matmul %a, %w : (tensor<64x128xf16>, tensor<128x512xf16>) -> tensor<64x512xf16>
  %e = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : tensor<64x512xf16> -> tensor<64x256xf16>
  %o = graph.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<64x512xf16> -> tensor<64x256xf16>
  %s = graph.sigmoid %e : tensor<64x256xf16>
  %n = graph.neg %o : tensor<64x256xf16>
  %x2 = graph.matmul %a, %w : (tensor<64x128xf16>, tensor<128x512xf16>) -> tensor<64x512xf16>
  %e2 = graph.slice %x2 {starts = array<i64: 0, 2>, steps = array<i64: 1, 2>} : tensor<64x512xf16> -> tensor<64x255xf16>
  %o2 = graph.slice %x2 {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<64x512xf16> -> tensor<64x256xf16>
  return %s, %n, %e2, %o2 : tensor<64x256xf16>, tensor<64x256xf16>, tensor<64x255xf16>, tensor<64x256xf16>
}

// -----

// Not column pairs (review): slices of step 2 of a matrix-vector product (its last dim is
// M, not the product's N), and a second pair after the first (the result of a gated
// epilogue split again): only one application per kernel, on the product's own [.., N].
// CHECK-LABEL: func.func @column_pairs_once
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul {{.*}} -> tensor<10xf32>
// CHECK-NEXT:      graph.yield
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.slice
// CHECK-NEXT:      graph.slice
// CHECK-NEXT:      graph.sigmoid
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.yield
// CHECK:         graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.slice {{.*}} -> tensor<10x32xf32>
// CHECK-NEXT:      graph.slice {{.*}} -> tensor<10x32xf32>
// CHECK-NEXT:      graph.sub
func.func @column_pairs_once(%a: tensor<10x16xf32>, %v: tensor<16xf32>, %w: tensor<16x128xf32>) -> (tensor<5xf32>, tensor<8x32xf32>) {
  %y = graph.matmul %a, %v : (tensor<10x16xf32>, tensor<16xf32>) -> tensor<10xf32>
  %e = graph.slice %y {starts = array<i64: 0>, steps = array<i64: 2>} : tensor<10xf32> -> tensor<5xf32>
  %o = graph.slice %y {starts = array<i64: 1>, steps = array<i64: 2>} : tensor<10xf32> -> tensor<5xf32>
  %s = graph.mul %e, %o : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %x = graph.matmul %a, %w : (tensor<10x16xf32>, tensor<16x128xf32>) -> tensor<10x128xf32>
  %xe = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : tensor<10x128xf32> -> tensor<10x64xf32>
  %xo = graph.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<10x128xf32> -> tensor<10x64xf32>
  %g = graph.sigmoid %xe : tensor<10x64xf32>
  %h = graph.mul %g, %xo : (tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %he = graph.slice %h {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : tensor<10x64xf32> -> tensor<10x32xf32>
  %ho = graph.slice %h {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<10x64xf32> -> tensor<10x32xf32>
  %d = graph.sub %he, %ho : (tensor<10x32xf32>, tensor<10x32xf32>) -> tensor<10x32xf32>
  %r = graph.slice %d {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<10x32xf32> -> tensor<8x32xf32>
  return %s, %r : tensor<5xf32>, tensor<8x32xf32>
}

// -----
// graph-rotary-into-projection's form in two layers whose tables' views are one (CSE merges
// the identical graph.tile ops): each GEMM's epilogue takes the swap of its column pairs,
// the rotation and the where, and a view of the tables of its own (the shared one cloned
// for the first; a review found both rotations left as their own kernels, the tiles
// materialized by two more).
// CHECK-LABEL: func.func @rotary_shared_tables
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.tile
// CHECK-NEXT:      graph.tile
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.slice
// CHECK-NEXT:      graph.reshape
// CHECK:           graph.where
// CHECK-NEXT:      graph.yield
// CHECK:         graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.tile
// CHECK-NEXT:      graph.tile
// CHECK:           graph.where
// CHECK-NEXT:      graph.yield
// CHECK-NOT:     graph.fusion_group
func.func @rotary_shared_tables(%x: tensor<2x4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %c = graph.constant dense<1.0> : tensor<4x4xf32>
  %s = graph.constant dense<0.5> : tensor<4x4xf32>
  %m = graph.constant dense<[true, true, true, true, false, false, false, false]> : tensor<8xi1>
  %y1 = graph.matmul %x, %w1 : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %ct = graph.tile %c : tensor<4x4xf32> -> tensor<4x8xf32>
  %st = graph.tile %s : tensor<4x4xf32> -> tensor<4x8xf32>
  %p1 = graph.reshape %y1 : (tensor<2x4x8xf32>) -> tensor<2x4x4x2xf32>
  %r1 = graph.slice %p1 {starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, -1>} : tensor<2x4x4x2xf32> -> tensor<2x4x4x2xf32>
  %sw1 = graph.reshape %r1 : (tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
  %a1 = graph.mul %y1, %ct : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %b1 = graph.mul %sw1, %st : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %o1 = graph.add %a1, %b1 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %z1 = graph.where %m, %o1, %y1 : (tensor<8xi1>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %y2 = graph.matmul %z1, %w2 : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %p2 = graph.reshape %y2 : (tensor<2x4x8xf32>) -> tensor<2x4x4x2xf32>
  %r2 = graph.slice %p2 {starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, -1>} : tensor<2x4x4x2xf32> -> tensor<2x4x4x2xf32>
  %sw2 = graph.reshape %r2 : (tensor<2x4x4x2xf32>) -> tensor<2x4x8xf32>
  %a2 = graph.mul %y2, %ct : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %b2 = graph.mul %sw2, %st : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %o2 = graph.add %a2, %b2 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %z2 = graph.where %m, %o2, %y2 : (tensor<8xi1>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %z1, %z2 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
