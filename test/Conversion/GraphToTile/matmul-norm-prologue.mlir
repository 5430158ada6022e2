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
    // expected-error @+1 {{a matmul prologue is a norm over the last dim without scale or bias}}
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

// -----

// A LayerNorm prologue (mean subtracted): the K loop also carries each row's sum of x, both
// sums in f64; the accumulator becomes r (acc - mu c), mu = S1 / K, r = 1 / sqrt(max(S2 / K -
// mu^2, 0) + eps) (f64, then rounded to f32), c the column sums of B (the group's last
// input, made by graph-fuse) loaded as a bias.
// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK:         %[[L:.*]]:3 = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SS:.*]] = %{{.*}}, %[[S1:.*]] = %{{.*}}) -> (tensor<{{[0-9]+}}x{{[0-9]+}}xf32>, tensor<{{[0-9]+}}xf64>, tensor<{{[0-9]+}}xf64>)
// CHECK:           %[[A:.*]] = tile.block_load %arg0
// CHECK:           %[[D:.*]] = tile.dot %[[A]]
// CHECK:           %[[X:.*]] = arith.extf %[[A]] : tensor<{{.*}}xf16> to tensor<{{.*}}xf64>
// CHECK:           %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK:           %[[RS:.*]] = tile.reduce add %[[SQ]] {axis = 1 : i32}
// CHECK:           %[[S2:.*]] = arith.addf %[[SS]], %[[RS]]
// CHECK:           %[[XS:.*]] = tile.reduce add %[[X]] {axis = 1 : i32}
// CHECK:           %[[S1N:.*]] = arith.addf %[[S1]], %[[XS]]
// CHECK:           scf.yield %[[D]], %[[S2]], %[[S1N]]
// CHECK:         %[[MU:.*]] = arith.divf %[[L]]#2, %{{.*}} : tensor<{{[0-9]+}}xf64>
// CHECK:         %[[EX2:.*]] = arith.divf %[[L]]#1, %{{.*}} : tensor<{{[0-9]+}}xf64>
// CHECK:         %[[MU2:.*]] = arith.mulf %[[MU]], %[[MU]]
// CHECK:         %[[V:.*]] = arith.subf %[[EX2]], %[[MU2]]
// CHECK:         %[[VP:.*]] = arith.maximumf %[[V]], %{{.*}}
// CHECK:         %[[VE:.*]] = arith.addf %[[VP]], %{{.*}}
// CHECK:         %[[DEN:.*]] = math.sqrt %[[VE]]
// CHECK:         %[[R:.*]] = arith.divf %{{.*}}, %[[DEN]]
// CHECK:         %[[MU32:.*]] = arith.truncf %[[MU]] : tensor<{{[0-9]+}}xf64> to tensor<{{[0-9]+}}xf32>
// CHECK:         %[[R32:.*]] = arith.truncf %[[R]] : tensor<{{[0-9]+}}xf64> to tensor<{{[0-9]+}}xf32>
// CHECK:         %[[C:.*]] = tile.load %arg3
// CHECK:         tile.expand_dims %[[MU32]]
// CHECK:         %[[MUC:.*]] = arith.mulf %{{.*}}, %[[C]] : tensor<{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK:         %[[CEN:.*]] = arith.subf %[[L]]#0, %[[MUC]]
// CHECK:         tile.expand_dims %[[R32]]
// CHECK:         %[[Y:.*]] = arith.mulf %[[CEN]], %{{.*}} : tensor<{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK:         arith.addf %[[Y]]
func.func @main(%x: tensor<64x96xf16>, %w: tensor<96x32xf16>, %r: tensor<64x32xf16>, %c: tensor<32xf32>) -> tensor<64x32xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w, %r, %c) : (tensor<64x96xf16>, tensor<96x32xf16>, tensor<64x32xf16>, tensor<32xf32>) -> tensor<64x32xf16> {
  ^bb0(%a: tensor<64x96xf16>, %b: tensor<96x32xf16>, %rr: tensor<64x32xf16>, %cs: tensor<32xf32>):
    %n = graph.layer_norm %a {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<64x96xf16>) -> tensor<64x96xf16>
    %y = graph.matmul %n, %b : (tensor<64x96xf16>, tensor<96x32xf16>) -> tensor<64x32xf16>
    %z = graph.add %y, %rr : (tensor<64x32xf16>, tensor<64x32xf16>) -> tensor<64x32xf16>
    graph.yield %z : tensor<64x32xf16>
  }
  return %0 : tensor<64x32xf16>
}

// -----

// A LayerNorm prologue without the column sums as the group's last input: an error.
func.func @main(%x: tensor<64x96xf16>, %w: tensor<96x32xf16>) -> tensor<64x32xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w) : (tensor<64x96xf16>, tensor<96x32xf16>) -> tensor<64x32xf16> {
  ^bb0(%a: tensor<64x96xf16>, %b: tensor<96x32xf16>):
    // expected-error @+1 {{a LayerNorm prologue needs the column sums of a 2-D B as the group's last input}}
    %n = graph.layer_norm %a {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<64x96xf16>) -> tensor<64x96xf16>
    %y = graph.matmul %n, %b : (tensor<64x96xf16>, tensor<96x32xf16>) -> tensor<64x32xf16>
    graph.yield %y : tensor<64x32xf16>
  }
  return %0 : tensor<64x32xf16>
}
