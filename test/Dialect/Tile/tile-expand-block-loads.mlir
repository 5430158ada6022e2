// RUN: aicc-opt %s -split-input-file -tile-expand-block-loads -verify-diagnostics | FileCheck %s

// A [32, 16] block at (b, m0, k0) of 2 matrices of 100 x 40: offsets
// (m0 + i) * 40 + (k0 + j) + b * 4000; mask (m0 + i) ult 100, (k0 + j) ult 40, b ult 2.
// CHECK-LABEL: func.func @plain
// CHECK-SAME:      (%[[P:[^:]*]]: memref<8000xf32>, %[[B:[^:]*]]: i32, %[[M0:[^:]*]]: i32, %[[K0:[^:]*]]: i32)
// CHECK:         %[[RI:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK:         %[[SM:.*]] = tile.splat %[[M0]] : tensor<32xi32>
// CHECK:         %[[R1:.*]] = arith.addi %[[SM]], %[[RI]] : tensor<32xi32>
// CHECK:         %[[RE:.*]] = tile.expand_dims %[[R1]] {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
// CHECK:         %[[R:.*]] = tile.broadcast %[[RE]] : tensor<32x1xi32> -> tensor<32x16xi32>
// CHECK:         %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK:         %[[SK:.*]] = tile.splat %[[K0]] : tensor<16xi32>
// CHECK:         %[[C1:.*]] = arith.addi %[[SK]], %[[RJ]] : tensor<16xi32>
// CHECK:         %[[CE:.*]] = tile.expand_dims %[[C1]] {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK:         %[[C:.*]] = tile.broadcast %[[CE]] : tensor<1x16xi32> -> tensor<32x16xi32>
// CHECK:         %[[C40:.*]] = arith.constant 40 : i32
// CHECK:         %[[N40:.*]] = tile.splat %[[C40]] : tensor<32x16xi32>
// CHECK:         %[[RO:.*]] = arith.muli %[[R]], %[[N40]] : tensor<32x16xi32>
// CHECK:         %[[O0:.*]] = arith.addi %[[RO]], %[[C]] : tensor<32x16xi32>
// CHECK:         %[[C4000:.*]] = arith.constant 4000 : i32
// CHECK:         %[[BASE:.*]] = arith.muli %[[B]], %[[C4000]] : i32
// CHECK:         %[[SB:.*]] = tile.splat %[[BASE]] : tensor<32x16xi32>
// CHECK:         %[[OFF:.*]] = arith.addi %[[O0]], %[[SB]] : tensor<32x16xi32>
// CHECK:         %[[C100:.*]] = arith.constant 100 : i32
// CHECK:         %[[N100:.*]] = tile.splat %[[C100]] : tensor<32x16xi32>
// CHECK:         %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[N100]] : tensor<32x16xi32>
// CHECK:         %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N40]] : tensor<32x16xi32>
// CHECK:         %[[M2:.*]] = arith.andi %[[RIN]], %[[CIN]] : tensor<32x16xi1>
// CHECK:         %[[C2:.*]] = arith.constant 2 : i32
// CHECK:         %[[BIN:.*]] = arith.cmpi ult, %[[B]], %[[C2]] : i32
// CHECK:         %[[SBIN:.*]] = tile.splat %[[BIN]] : tensor<32x16xi1>
// CHECK:         %[[MASK:.*]] = arith.andi %[[M2]], %[[SBIN]] : tensor<32x16xi1>
// CHECK:         %[[X:.*]] = tile.load %[[P]][%[[OFF]]], %[[MASK]] {padding = 0.000000e+00 : f32} : memref<8000xf32>, tensor<32x16xi32>, tensor<32x16xi1> -> tensor<32x16xf32>
// CHECK-NOT:     tile.block_load
// CHECK:         return %[[X]]
func.func @plain(%p: memref<8000xf32>, %b: i32, %m0: i32, %k0: i32) -> tensor<32x16xf32> {
  %a = tile.block_load %p[%b, %m0, %k0] {dims = array<i64: 2, 100, 40>} : memref<8000xf32> -> tensor<32x16xf32>
  return %a : tensor<32x16xf32>
}

// -----

// Transposed: the [BR, BC] = [32, 16] block comes out as [16, 32]; the row index
// (k0 + i) runs along result dim 1, the column index (m0 + j) along dim 0, so
// result[j, i] = ptr[(k0 + i) * 40 + m0 + j + b * 4000].
// CHECK-LABEL: func.func @transposed
// CHECK-SAME:      (%[[P:[^:]*]]: memref<8000xf16>, %[[B:[^:]*]]: i32, %[[K0:[^:]*]]: i32, %[[M0:[^:]*]]: i32)
// CHECK:         %[[RI:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK:         %[[SK:.*]] = tile.splat %[[K0]] : tensor<32xi32>
// CHECK:         %[[R1:.*]] = arith.addi %[[SK]], %[[RI]] : tensor<32xi32>
// CHECK:         %[[RE:.*]] = tile.expand_dims %[[R1]] {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
// CHECK:         %[[R:.*]] = tile.broadcast %[[RE]] : tensor<1x32xi32> -> tensor<16x32xi32>
// CHECK:         %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK:         %[[SM:.*]] = tile.splat %[[M0]] : tensor<16xi32>
// CHECK:         %[[C1:.*]] = arith.addi %[[SM]], %[[RJ]] : tensor<16xi32>
// CHECK:         %[[CE:.*]] = tile.expand_dims %[[C1]] {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK:         %[[C:.*]] = tile.broadcast %[[CE]] : tensor<16x1xi32> -> tensor<16x32xi32>
// CHECK:         %[[RO:.*]] = arith.muli %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[O0:.*]] = arith.addi %[[RO]], %[[C]] : tensor<16x32xi32>
// CHECK:         %[[OFF:.*]] = arith.addi %[[O0]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[RIN:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[CIN:.*]] = arith.cmpi ult, %[[C]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[M2:.*]] = arith.andi %[[RIN]], %[[CIN]] : tensor<16x32xi1>
// CHECK:         %[[MASK:.*]] = arith.andi %[[M2]], %{{.*}} : tensor<16x32xi1>
// CHECK:         tile.load %[[P]][%[[OFF]]], %[[MASK]] {padding = 0.000000e+00 : f16} : memref<8000xf16>, tensor<16x32xi32>, tensor<16x32xi1> -> tensor<16x32xf16>
func.func @transposed(%p: memref<8000xf16>, %b: i32, %k0: i32, %m0: i32) -> tensor<16x32xf16> {
  %a = tile.block_load %p[%b, %k0, %m0] {dims = array<i64: 2, 100, 40>, transpose} : memref<8000xf16> -> tensor<16x32xf16>
  return %a : tensor<16x32xf16>
}

// -----

// Constant coordinates whose block lies inside the matrix need no check: batch 0 of 1 and
// columns [0, 16) of 40 leave only the row check; the zero batch adds no base, the zero
// column start no splat.
// CHECK-LABEL: func.func @constant_coordinates
// CHECK:         %[[R:.*]] = tile.broadcast %{{.*}} : tensor<32x1xi32> -> tensor<32x16xi32>
// CHECK:         %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK-NEXT:    %[[CE:.*]] = tile.expand_dims %[[RJ]] {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK-NEXT:    %[[C:.*]] = tile.broadcast %[[CE]]
// CHECK:         %[[RO:.*]] = arith.muli %[[R]], %{{.*}} : tensor<32x16xi32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[RO]], %[[C]] : tensor<32x16xi32>
// CHECK:         %[[MASK:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : tensor<32x16xi32>
// CHECK-NEXT:    tile.load %{{.*}}[%[[OFF]]], %[[MASK]] {padding = 0 : i8} : memref<4000xi8>, tensor<32x16xi32>, tensor<32x16xi1> -> tensor<32x16xi8>
func.func @constant_coordinates(%p: memref<4000xi8>, %m0: i32) -> tensor<32x16xi8> {
  %c0 = arith.constant 0 : i32
  %a = tile.block_load %p[%c0, %m0, %c0] {dims = array<i64: 1, 100, 40>} : memref<4000xi8> -> tensor<32x16xi8>
  return %a : tensor<32x16xi8>
}

// -----

// Every coordinate constant and inside: an unmasked load of a [1, 16] block at (1, 3, 8).
// The column index [1, 16] already has the result's shape: no broadcast.
// CHECK-LABEL: func.func @in_bounds
// CHECK:         tile.broadcast %{{.*}} : tensor<1x1xi32> -> tensor<1x16xi32>
// CHECK:         %[[CE:.*]] = tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK-NOT:     tile.broadcast
// CHECK-NOT:     arith.cmpi
// CHECK:         %[[O:.*]] = arith.addi %{{.*}}, %[[CE]] : tensor<1x16xi32>
// CHECK-NOT:     arith.cmpi
// CHECK:         tile.load %{{.*}}[%{{.*}}] : memref<192xf32>, tensor<1x16xi32> -> tensor<1x16xf32>
func.func @in_bounds(%p: memref<192xf32>) -> tensor<1x16xf32> {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c8 = arith.constant 8 : i32
  %a = tile.block_load %p[%c1, %c3, %c8] {dims = array<i64: 2, 4, 24>} : memref<192xf32> -> tensor<1x16xf32>
  return %a : tensor<1x16xf32>
}

// -----

// Matrices of 2^31 elements or more cannot be addressed with tile.load's i32 offsets.
func.func @too_big(%p: memref<?xf32>, %b: i32) -> tensor<16x16xf32> {
  // expected-error @below {{cannot expand tile.block_load to tile.load: its matrices (dims [2, 65536, 16384]) hold 2^31 elements or more, beyond tile.load's i32 offsets}}
  %a = tile.block_load %p[%b, %b, %b] {dims = array<i64: 2, 65536, 16384>} : memref<?xf32> -> tensor<16x16xf32>
  return %a : tensor<16x16xf32>
}
