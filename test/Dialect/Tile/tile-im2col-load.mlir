// RUN: aicc-opt %s -split-input-file | aicc-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: aicc-opt %s -split-input-file -tile-expand-block-loads | FileCheck %s

// tile.im2col_load round-trips, and tile-expand-block-loads turns it into the masked gather
// of its description: p = m0 + i split over [N, OH, OW] = [2, 4, 3], q = k0 + j split over
// [C, KH, KW] = [3, 3, 2] (NCHW) or [KH, KW, C] (NHWC), ih = oh * 2 + kh * 1 - 1,
// iw = ow * 1 + kw * 2 - 0, mask p < 24, q < 18, ih < 7, iw < 5 (unsigned: also >= 0).

// ROUND-LABEL: func.func @nchw
// ROUND: tile.im2col_load %{{.*}}[%{{.*}}, %{{.*}}] {dilations = array<i64: 1, 2>, input = array<i64: 2, 3, 7, 5>, kernel = array<i64: 3, 2>, layout = "NCHW", output = array<i64: 4, 3>, pads = array<i64: 1, 0>, strides = array<i64: 2, 1>} : memref<210xf16> -> tensor<16x32xf16>
// CHECK-LABEL: func.func @nchw
// CHECK-SAME:      (%[[X:[^:]*]]: memref<210xf16>, %[[M0:[^:]*]]: i32, %[[K0:[^:]*]]: i32)
// CHECK:         %[[P:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[Q:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[N:.*]] = arith.divui %[[P]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[PIX:.*]] = arith.remui %[[P]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[OH:.*]] = arith.divui %[[PIX]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[OW:.*]] = arith.remui %[[PIX]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[CH:.*]] = arith.divui %[[Q]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[R:.*]] = arith.remui %[[Q]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[KH:.*]] = arith.divui %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[KW:.*]] = arith.remui %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK:         arith.cmpi ult, %[[P]], %{{.*}} : tensor<16x32xi32>
// CHECK:         arith.cmpi ult, %[[Q]], %{{.*}} : tensor<16x32xi32>
// CHECK:         arith.andi
// CHECK:         arith.andi
// CHECK:         %[[MASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<16x32xi1>
// CHECK:         %[[NC:.*]] = arith.muli %[[N]], %{{.*}} : tensor<16x32xi32>
// CHECK-NEXT:    %[[NCC:.*]] = arith.addi %[[NC]], %[[CH]] : tensor<16x32xi32>
// CHECK:         tile.load %[[X]][%{{.*}}], %[[MASK]] {padding = 0.000000e+00 : f16} : memref<210xf16>, tensor<16x32xi32>, tensor<16x32xi1> -> tensor<16x32xf16>
// CHECK-NOT:     tile.im2col_load
func.func @nchw(%X: memref<210xf16>, %m0: i32, %k0: i32) -> tensor<16x32xf16> {
  %a = tile.im2col_load %X[%m0, %k0] {input = array<i64: 2, 3, 7, 5>, layout = "NCHW",
         kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, pads = array<i64: 1, 0>,
         dilations = array<i64: 1, 2>, output = array<i64: 4, 3>}
         : memref<210xf16> -> tensor<16x32xf16>
  return %a : tensor<16x32xf16>
}

// -----

// NHWC: q splits as (kh, kw, c) = q / (KW * C), (q % (KW * C)) / C, q % C.
// CHECK-LABEL: func.func @nhwc
// CHECK:         %[[Q:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[KH:.*]] = arith.divui %[[Q]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[R:.*]] = arith.remui %[[Q]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[KW:.*]] = arith.divui %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[CH:.*]] = arith.remui %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK:         tile.load
// CHECK-NOT:     tile.im2col_load
func.func @nhwc(%X: memref<210xf32>, %m0: i32, %k0: i32) -> tensor<16x32xf32> {
  %a = tile.im2col_load %X[%m0, %k0] {input = array<i64: 2, 3, 7, 5>, layout = "NHWC",
         kernel = array<i64: 3, 2>, strides = array<i64: 2, 1>, pads = array<i64: 1, 0>,
         dilations = array<i64: 1, 2>, output = array<i64: 4, 3>}
         : memref<210xf32> -> tensor<16x32xf32>
  return %a : tensor<16x32xf32>
}
