// RUN: aicc-opt %s -split-input-file -aicc-attach-target="target=sm_90a" -graph-fuse | FileCheck %s
// On GPU targets an attention group takes the view chains that keep Q, K^T and V block
// matrices of a tensor in memory (AttentionOperands.h); the ones that do not stay copy
// kernels. Cases from trying to break it: a view shared by two operands' chains, row
// strides and column offsets that are not whole 16-byte chunks (the kernel's cp.async).

// %a (x with D moved next to the batch) is K^T whole and the start of Q's chain. K reads
// %a from memory, so %a is its own kernel and Q's chain stops at it (Q's transpose, whose
// last dim is not contiguous, is a copy too).
// CHECK-LABEL: func.func @shared_view
// CHECK:         %[[A:.*]] = graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.transpose %{{.*}}, [0, 3, 1, 2]
// CHECK:         graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "attention" (%{{.*}}, %[[A]], %{{.*}})
// CHECK-NOT:       graph.transpose
// CHECK:           graph.attention
func.func @shared_view(%x: tensor<1x16x16x16xf16>, %v: tensor<1x16x16x16xf16>) -> tensor<1x16x16x16xf16> {
  %a = graph.transpose %x, [0, 3, 1, 2] : (tensor<1x16x16x16xf16>) -> tensor<1x16x16x16xf16>
  %a2 = graph.reshape %a : (tensor<1x16x16x16xf16>) -> tensor<16x16x16xf16>
  %q = graph.transpose %a2, [1, 2, 0] : (tensor<16x16x16xf16>) -> tensor<16x16x16xf16>
  %y = graph.attention %q, %a, %v {scale = 0.25 : f64} : (tensor<16x16x16xf16>, tensor<1x16x16x16xf16>, tensor<1x16x16x16xf16>) -> tensor<1x16x16x16xf16>
  return %y : tensor<1x16x16x16xf16>
}

// -----

// V is columns 1..16 of rows 17 wide (row stride 17), Q columns 4..19 of rows 24 wide
// (column offset 4): not whole 16-byte chunks, so both slices stay copy kernels.
// CHECK-LABEL: func.func @unaligned_rows_and_columns
// CHECK:         graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.slice
// CHECK:         graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.slice
// CHECK:         graph.fusion_group "attention"
// CHECK-NOT:       graph.slice
// CHECK:           graph.attention
func.func @unaligned_rows_and_columns(%x: tensor<1x2x20x24xf16>, %k: tensor<1x2x20x16xf16>, %w: tensor<1x2x20x17xf16>) -> tensor<1x2x20x16xf16> {
  %q = graph.slice %x {starts = array<i64: 0, 0, 0, 4>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x2x20x24xf16> -> tensor<1x2x20x16xf16>
  %v = graph.slice %w {starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x2x20x17xf16> -> tensor<1x2x20x16xf16>
  %kt = graph.transpose %k, [0, 1, 3, 2] : (tensor<1x2x20x16xf16>) -> tensor<1x2x16x20xf16>
  %y = graph.attention %q, %kt, %v {scale = 0.25 : f64} : (tensor<1x2x20x16xf16>, tensor<1x2x16x20xf16>, tensor<1x2x20x16xf16>) -> tensor<1x2x20x16xf16>
  return %y : tensor<1x2x20x16xf16>
}

// -----

// The head h of [1, S, 2, 20] sliced to 16 columns sits at column 20 * h of rows 40 wide:
// the column step is not a whole chunk either.
// CHECK-LABEL: func.func @unaligned_column_step
// CHECK:         graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.slice
// CHECK:         graph.fusion_group "attention"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.transpose %{{.*}}, [0, 2, 1, 3]
func.func @unaligned_column_step(%x: tensor<1x20x2x20xf16>, %k: tensor<1x2x20x16xf16>, %v: tensor<1x2x20x16xf16>) -> tensor<1x2x20x16xf16> {
  %q0 = graph.slice %x {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x20x2x20xf16> -> tensor<1x20x2x16xf16>
  %q = graph.transpose %q0, [0, 2, 1, 3] : (tensor<1x20x2x16xf16>) -> tensor<1x2x20x16xf16>
  %kt = graph.transpose %k, [0, 1, 3, 2] : (tensor<1x2x20x16xf16>) -> tensor<1x2x16x20xf16>
  %y = graph.attention %q, %kt, %v {scale = 0.25 : f64} : (tensor<1x2x20x16xf16>, tensor<1x2x16x20xf16>, tensor<1x2x20x16xf16>) -> tensor<1x2x20x16xf16>
  return %y : tensor<1x2x20x16xf16>
}
