// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile -verify-diagnostics | FileCheck %s
// Rule norm-prologue in the matmul template (MatmulTemplate.cpp): the K loop carries the
// sum of squares of each row of A (the norm's input, read in place of the normalized
// value) beside the accumulator, and the accumulator rows are scaled by
// 1 / sqrt(sum / K + epsilon) before the epilogue (the residual add here). The tensor-core
// lowerings match this loop (DotKLoop::rowSquares, AccumulatorEpilogue.h).

// A norm the template cannot run as a prologue (graph-fuse's rule refuses it): an error.
func.func @main(%x: tensor<64x96xf16>, %w: tensor<96x32xf16>, %g: tensor<96xf16>) -> tensor<64x32xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w, %g) : (tensor<64x96xf16>, tensor<96x32xf16>, tensor<96xf16>) -> tensor<64x32xf16> {
  ^bb0(%a: tensor<64x96xf16>, %b: tensor<96x32xf16>, %s: tensor<96xf16>):
    // expected-error @+1 {{a matmul prologue is an RMS norm over the last dim without scale or bias}}
    %n = graph.layer_norm %a scale %s {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<64x96xf16>, tensor<96xf16>) -> tensor<64x96xf16>
    %y = graph.matmul %n, %b : (tensor<64x96xf16>, tensor<96x32xf16>) -> tensor<64x32xf16>
    graph.yield %y : tensor<64x32xf16>
  }
  return %0 : tensor<64x32xf16>
}

// -----

// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK:         %[[Z:.*]] = tile.splat %{{.*}} : tensor<{{[0-9]+}}xf32>
// CHECK:         %[[L:.*]]:2 = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SS:.*]] = %[[Z]]) -> (tensor<{{[0-9]+}}x{{[0-9]+}}xf32>, tensor<{{[0-9]+}}xf32>)
// CHECK:           %[[A:.*]] = tile.block_load %arg0
// CHECK:           %[[B:.*]] = tile.block_load %arg1
// CHECK:           %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]]
// CHECK:           %[[X:.*]] = arith.extf %[[A]] : tensor<{{.*}}xf16> to tensor<{{.*}}xf32>
// CHECK:           %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK:           %[[RS:.*]] = tile.reduce add %[[SQ]] {axis = 1 : i32} : tensor<{{.*}}xf32> -> tensor<{{[0-9]+}}xf32>
// CHECK:           %[[S2:.*]] = arith.addf %[[SS]], %[[RS]]
// CHECK:           scf.yield %[[D]], %[[S2]]
// CHECK:         %[[MEAN:.*]] = arith.divf %[[L]]#1, %{{.*}} : tensor<{{[0-9]+}}xf32>
// CHECK:         %[[VE:.*]] = arith.addf %[[MEAN]], %{{.*}} : tensor<{{[0-9]+}}xf32>
// CHECK:         %[[DEN:.*]] = math.sqrt %[[VE]]
// CHECK:         %[[R:.*]] = arith.divf %{{.*}}, %[[DEN]] : tensor<{{[0-9]+}}xf32>
// CHECK:         %[[RE:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32}
// CHECK:         %[[RB:.*]] = tile.broadcast %[[RE]]
// CHECK:         %[[Y:.*]] = arith.mulf %[[L]]#0, %[[RB]] : tensor<{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK:         arith.addf %[[Y]]
func.func @main(%x: tensor<64x96xf16>, %w: tensor<96x32xf16>, %r: tensor<64x32xf16>) -> tensor<64x32xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w, %r) : (tensor<64x96xf16>, tensor<96x32xf16>, tensor<64x32xf16>) -> tensor<64x32xf16> {
  ^bb0(%a: tensor<64x96xf16>, %b: tensor<96x32xf16>, %c: tensor<64x32xf16>):
    %n = graph.layer_norm %a {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<64x96xf16>) -> tensor<64x96xf16>
    %y = graph.matmul %n, %b : (tensor<64x96xf16>, tensor<96x32xf16>) -> tensor<64x32xf16>
    %z = graph.add %y, %c : (tensor<64x32xf16>, tensor<64x32xf16>) -> tensor<64x32xf16>
    graph.yield %z : tensor<64x32xf16>
  }
  return %0 : tensor<64x32xf16>
}
