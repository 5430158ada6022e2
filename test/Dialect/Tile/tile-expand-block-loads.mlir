// RUN: aicc-opt %s -split-input-file -tile-expand-block-loads -verify-diagnostics | FileCheck %s

// A [32, 16] block at (b, m0, k0) of 2 matrices of 100 x 40: index tiles i (along dim 0)
// and j (along dim 1), offsets (m0 + i) * 40 + (k0 + j) + b * 4000, mask
// (m0 + i) ult 100 & (k0 + j) ult 40 & b ult 2 (ult: also false below 0).
// CHECK-LABEL: func.func @plain
// CHECK-SAME:      (%[[P:[^:]*]]: memref<8000xf32>, %[[B:[^:]*]]: i32, %[[M0:[^:]*]]: i32, %[[K0:[^:]*]]: i32)
// CHECK:         %[[RI:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK-NEXT:    %[[IE:.*]] = tile.expand_dims %[[RI]] {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
// CHECK-NEXT:    %[[I:.*]] = tile.broadcast %[[IE]] : tensor<32x1xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK-NEXT:    %[[JE:.*]] = tile.expand_dims %[[RJ]] {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK-NEXT:    %[[J:.*]] = tile.broadcast %[[JE]] : tensor<1x16xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[SM:.*]] = tile.splat %[[M0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[I]], %[[SM]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[SK:.*]] = tile.splat %[[K0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[J]], %[[SK]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C40:.*]] = arith.constant 40 : i32
// CHECK-NEXT:    %[[N40:.*]] = tile.splat %[[C40]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RO:.*]] = arith.muli %[[R]], %[[N40]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[O0:.*]] = arith.addi %[[RO]], %[[C]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C4000:.*]] = arith.constant 4000 : i32
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[B]], %[[C4000]] : i32
// CHECK-NEXT:    %[[SB:.*]] = tile.splat %[[BASE]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[O0]], %[[SB]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C100:.*]] = arith.constant 100 : i32
// CHECK-NEXT:    %[[N100:.*]] = tile.splat %[[C100]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[N100]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N40]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[M2:.*]] = arith.andi %[[RIN]], %[[CIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[BIN:.*]] = arith.cmpi ult, %[[B]], %[[C2]] : i32
// CHECK-NEXT:    %[[SBIN:.*]] = tile.splat %[[BIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[MASK:.*]] = arith.andi %[[M2]], %[[SBIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[X:.*]] = tile.load %[[P]][%[[OFF]]], %[[MASK]] {padding = 0.000000e+00 : f32} : memref<8000xf32>, tensor<32x16xi32>, tensor<32x16xi1> -> tensor<32x16xf32>
// CHECK-NEXT:    return %[[X]]
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
// CHECK-NEXT:    %[[IE:.*]] = tile.expand_dims %[[RI]] {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
// CHECK-NEXT:    %[[I:.*]] = tile.broadcast %[[IE]] : tensor<1x32xi32> -> tensor<16x32xi32>
// CHECK-NEXT:    %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK-NEXT:    %[[JE:.*]] = tile.expand_dims %[[RJ]] {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK-NEXT:    %[[J:.*]] = tile.broadcast %[[JE]] : tensor<16x1xi32> -> tensor<16x32xi32>
// CHECK-NEXT:    %[[SK:.*]] = tile.splat %[[K0]] : tensor<16x32xi32>
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[I]], %[[SK]] : tensor<16x32xi32>
// CHECK-NEXT:    %[[SM:.*]] = tile.splat %[[M0]] : tensor<16x32xi32>
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[J]], %[[SM]] : tensor<16x32xi32>
// CHECK:         %[[RO:.*]] = arith.muli %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK-NEXT:    %[[O0:.*]] = arith.addi %[[RO]], %[[C]] : tensor<16x32xi32>
// CHECK:         %[[OFF:.*]] = arith.addi %[[O0]], %{{.*}} : tensor<16x32xi32>
// CHECK:         %[[RIN:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : tensor<16x32xi32>
// CHECK-NEXT:    %[[CIN:.*]] = arith.cmpi ult, %[[C]], %{{.*}} : tensor<16x32xi32>
// CHECK-NEXT:    %[[M2:.*]] = arith.andi %[[RIN]], %[[CIN]] : tensor<16x32xi1>
// CHECK:         %[[MASK:.*]] = arith.andi %[[M2]], %{{.*}} : tensor<16x32xi1>
// CHECK-NEXT:    tile.load %[[P]][%[[OFF]]], %[[MASK]] {padding = 0.000000e+00 : f16} : memref<8000xf16>, tensor<16x32xi32>, tensor<16x32xi1> -> tensor<16x32xf16>
func.func @transposed(%p: memref<8000xf16>, %b: i32, %k0: i32, %m0: i32) -> tensor<16x32xf16> {
  %a = tile.block_load %p[%b, %k0, %m0] {dims = array<i64: 2, 100, 40>, transpose} : memref<8000xf16> -> tensor<16x32xf16>
  return %a : tensor<16x32xf16>
}

// -----

// A K loop as the matmul template writes it: the index tiles are built once before the
// loop and shared by both block loads (one make_range [0, 32) along either dim); only the
// shifts, offsets, masks and loads stay in the loop.
// CHECK-LABEL: func.func @k_loop
// CHECK:         %[[RI:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK-NEXT:    %[[IE:.*]] = tile.expand_dims %[[RI]] {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
// CHECK-NEXT:    %[[I:.*]] = tile.broadcast %[[IE]] : tensor<32x1xi32> -> tensor<32x32xi32>
// CHECK-NEXT:    %[[JE:.*]] = tile.expand_dims %[[RI]] {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
// CHECK-NEXT:    %[[J:.*]] = tile.broadcast %[[JE]] : tensor<1x32xi32> -> tensor<32x32xi32>
// CHECK-NEXT:    scf.for
// CHECK-NOT:       tile.make_range
// CHECK-NOT:       tile.expand_dims
// CHECK-NOT:       tile.broadcast
// CHECK:           arith.addi %[[I]], %{{.*}} : tensor<32x32xi32>
// CHECK:           arith.addi %[[J]], %{{.*}} : tensor<32x32xi32>
// CHECK:           %[[A:.*]] = tile.load
// CHECK:           arith.addi %[[I]], %{{.*}} : tensor<32x32xi32>
// CHECK:           arith.addi %[[J]], %{{.*}} : tensor<32x32xi32>
// CHECK:           %[[B:.*]] = tile.load
// CHECK-NEXT:      tile.dot %[[A]], %[[B]]
func.func @k_loop(%pa: memref<2541xf32>, %pb: memref<1485xf32>, %m0: i32, %n0: i32) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : tensor<32x32xf32>
  %c0 = arith.constant 0 : index
  %c33 = arith.constant 33 : index
  %c32 = arith.constant 32 : index
  %b0 = arith.constant 0 : i32
  %r = scf.for %k = %c0 to %c33 step %c32 iter_args(%acc = %acc0) -> (tensor<32x32xf32>) {
    %k0 = arith.index_cast %k : index to i32
    %a = tile.block_load %pa[%b0, %m0, %k0] {dims = array<i64: 1, 77, 33>} : memref<2541xf32> -> tensor<32x32xf32>
    %b = tile.block_load %pb[%b0, %k0, %n0] {dims = array<i64: 1, 33, 45>} : memref<1485xf32> -> tensor<32x32xf32>
    %d = tile.dot %a, %b, %acc : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  return %r : tensor<32x32xf32>
}

// -----

// Constant coordinates whose block lies inside the matrix need no check: batch 0 of 1 and
// columns [0, 16) of 40 leave only the row check; the zero batch adds no base, the zero
// column start no shift.
// CHECK-LABEL: func.func @constant_coordinates
// CHECK-SAME:      (%[[P:[^:]*]]: memref<4000xi8>, %[[M0:[^:]*]]: i32)
// CHECK:         %[[I:.*]] = tile.broadcast %{{.*}} : tensor<32x1xi32> -> tensor<32x16xi32>
// CHECK:         %[[J:.*]] = tile.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[SM:.*]] = tile.splat %[[M0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[I]], %[[SM]] : tensor<32x16xi32>
// CHECK-NEXT:    arith.constant 40 : i32
// CHECK-NEXT:    tile.splat
// CHECK-NEXT:    %[[RO:.*]] = arith.muli %[[R]], %{{.*}} : tensor<32x16xi32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[RO]], %[[J]] : tensor<32x16xi32>
// CHECK-NEXT:    arith.constant 100 : i32
// CHECK-NEXT:    tile.splat
// CHECK-NEXT:    %[[MASK:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : tensor<32x16xi32>
// CHECK-NEXT:    tile.load %[[P]][%[[OFF]]], %[[MASK]] {padding = 0 : i8} : memref<4000xi8>, tensor<32x16xi32>, tensor<32x16xi1> -> tensor<32x16xi8>
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
// CHECK-NEXT:    tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK-NEXT:    %[[J:.*]] = tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK-NOT:     tile.broadcast
// CHECK-NOT:     arith.cmpi
// CHECK:         arith.addi %[[J]], %{{.*}} : tensor<1x16xi32>
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

// -----

// tile.block_store: a [32, 16] block at (b, m0, n0) of 2 matrices of 100 x 40 is a tile.store
// at offsets (m0 + i) * 40 + (n0 + j) + b * 4000 under the mask
// (m0 + i) ult 100 & (n0 + j) ult 40 & b ult 2: elements outside are not written.
// CHECK-LABEL: func.func @store
// CHECK-SAME:      (%[[P:[^:]*]]: memref<8000xf16>, %[[B:[^:]*]]: i32, %[[M0:[^:]*]]: i32, %[[N0:[^:]*]]: i32, %[[V:[^:]*]]: tensor<32x16xf16>)
// CHECK:         %[[RI:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK-NEXT:    %[[IE:.*]] = tile.expand_dims %[[RI]] {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
// CHECK-NEXT:    %[[I:.*]] = tile.broadcast %[[IE]] : tensor<32x1xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK-NEXT:    %[[JE:.*]] = tile.expand_dims %[[RJ]] {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK-NEXT:    %[[J:.*]] = tile.broadcast %[[JE]] : tensor<1x16xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[SM:.*]] = tile.splat %[[M0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[I]], %[[SM]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[SN:.*]] = tile.splat %[[N0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[J]], %[[SN]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C40:.*]] = arith.constant 40 : i32
// CHECK-NEXT:    %[[N40:.*]] = tile.splat %[[C40]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RO:.*]] = arith.muli %[[R]], %[[N40]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[O0:.*]] = arith.addi %[[RO]], %[[C]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C4000:.*]] = arith.constant 4000 : i32
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[B]], %[[C4000]] : i32
// CHECK-NEXT:    %[[SB:.*]] = tile.splat %[[BASE]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[O0]], %[[SB]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C100:.*]] = arith.constant 100 : i32
// CHECK-NEXT:    %[[N100:.*]] = tile.splat %[[C100]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[N100]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N40]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[M2:.*]] = arith.andi %[[RIN]], %[[CIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[BIN:.*]] = arith.cmpi ult, %[[B]], %[[C2]] : i32
// CHECK-NEXT:    %[[SBIN:.*]] = tile.splat %[[BIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[MASK:.*]] = arith.andi %[[M2]], %[[SBIN]] : tensor<32x16xi1>
// CHECK-NEXT:    tile.store %[[P]][%[[OFF]]], %[[V]], %[[MASK]] : memref<8000xf16>, tensor<32x16xi32>, tensor<32x16xf16>, tensor<32x16xi1>
// CHECK-NOT:     tile.block_store
func.func @store(%p: memref<8000xf16>, %b: i32, %m0: i32, %n0: i32, %v: tensor<32x16xf16>) {
  tile.block_store %p[%b, %m0, %n0], %v {dims = array<i64: 2, 100, 40>} : memref<8000xf16>, tensor<32x16xf16>
  return
}

// -----

// A store whose block is known to lie inside (constant coordinates) is unmasked (its zero
// row start adds no shift); the load and the store of one function share their index tiles.
// CHECK-LABEL: func.func @store_in_bounds
// CHECK:         %[[I:.*]] = tile.broadcast %{{.*}} : tensor<4x1xi32> -> tensor<4x8xi32>
// CHECK:         %[[J:.*]] = tile.broadcast %{{.*}} : tensor<1x8xi32> -> tensor<4x8xi32>
// CHECK:         %[[X:.*]] = tile.load
// CHECK-NOT:     tile.make_range
// CHECK-NOT:     arith.cmpi
// CHECK:         arith.addi %[[J]], %{{.*}} : tensor<4x8xi32>
// CHECK:         arith.muli %[[I]], %{{.*}} : tensor<4x8xi32>
// CHECK-NOT:     arith.cmpi
// CHECK:         tile.store %{{.*}}[%{{.*}}], %[[X]] : memref<192xf32>, tensor<4x8xi32>, tensor<4x8xf32>
func.func @store_in_bounds(%p: memref<192xf32>, %q: memref<192xf32>, %m0: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %x = tile.block_load %p[%c0, %m0, %c0] {dims = array<i64: 2, 4, 24>} : memref<192xf32> -> tensor<4x8xf32>
  tile.block_store %q[%c1, %c0, %c8], %x {dims = array<i64: 2, 4, 24>} : memref<192xf32>, tensor<4x8xf32>
  return
}

// -----

// A transposed tile.block_store (the NCHW conv output): tile element (i, j) of the [32, 16]
// value goes to block element (j, i), i.e. offset (oc0 + j) * 49 + (p0 + i) + img * 3136 of 2
// matrices of 64 x 49, masked by (oc0 + j) ult 64 & (p0 + i) ult 49 & img ult 2: the row
// index is the tile's dim-1 index j, the column index its dim-0 index i.
// CHECK-LABEL: func.func @store_transposed
// CHECK-SAME:      (%[[P:[^:]*]]: memref<6272xf16>, %[[B:[^:]*]]: i32, %[[OC0:[^:]*]]: i32, %[[P0:[^:]*]]: i32, %[[V:[^:]*]]: tensor<32x16xf16>)
// CHECK:         %[[RJ:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK-NEXT:    %[[JE:.*]] = tile.expand_dims %[[RJ]] {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
// CHECK-NEXT:    %[[J:.*]] = tile.broadcast %[[JE]] : tensor<1x16xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[RI:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK-NEXT:    %[[IE:.*]] = tile.expand_dims %[[RI]] {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
// CHECK-NEXT:    %[[I:.*]] = tile.broadcast %[[IE]] : tensor<32x1xi32> -> tensor<32x16xi32>
// CHECK-NEXT:    %[[SOC:.*]] = tile.splat %[[OC0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[J]], %[[SOC]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[SP:.*]] = tile.splat %[[P0]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C:.*]] = arith.addi %[[I]], %[[SP]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C49:.*]] = arith.constant 49 : i32
// CHECK-NEXT:    %[[N49:.*]] = tile.splat %[[C49]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RO:.*]] = arith.muli %[[R]], %[[N49]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[O0:.*]] = arith.addi %[[RO]], %[[C]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C3136:.*]] = arith.constant 3136 : i32
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[B]], %[[C3136]] : i32
// CHECK-NEXT:    %[[SB:.*]] = tile.splat %[[BASE]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[O0]], %[[SB]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    %[[N64:.*]] = tile.splat %[[C64]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[N64]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N49]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[M2:.*]] = arith.andi %[[RIN]], %[[CIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[BIN:.*]] = arith.cmpi ult, %[[B]], %[[C2]] : i32
// CHECK-NEXT:    %[[SBIN:.*]] = tile.splat %[[BIN]] : tensor<32x16xi1>
// CHECK-NEXT:    %[[M:.*]] = arith.andi %[[M2]], %[[SBIN]] : tensor<32x16xi1>
// CHECK-NEXT:    tile.store %[[P]][%[[OFF]]], %[[V]], %[[M]] : memref<6272xf16>, tensor<32x16xi32>, tensor<32x16xf16>, tensor<32x16xi1>
// CHECK-NOT:     tile.block_store
func.func @store_transposed(%p: memref<6272xf16>, %img: i32, %oc0: i32, %p0: i32, %v: tensor<32x16xf16>) {
  tile.block_store %p[%img, %oc0, %p0], %v {dims = array<i64: 2, 64, 49>, transpose} : memref<6272xf16>, tensor<32x16xf16>
  return
}

// -----

// Transposed, the known-in-bounds checks take the block's extents from the swapped dims: 16
// rows (tile dim 1) from row 0 fit 16 rows, 4 columns (tile dim 0) from column 4 fit 8; only
// the batch is checked.
// CHECK-LABEL: func.func @store_transposed_in_bounds
// CHECK-NOT:     arith.cmpi ult, %{{.*}} : tensor<4x16xi32>
// CHECK:         arith.cmpi ult, %{{.*}} : i32
// CHECK-NOT:     arith.cmpi
// CHECK:         tile.store
func.func @store_transposed_in_bounds(%p: memref<384xf32>, %b: i32, %v: tensor<4x16xf32>) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  tile.block_store %p[%b, %c0, %c4], %v {dims = array<i64: 3, 16, 8>, transpose} : memref<384xf32>, tensor<4x16xf32>
  return
}

// -----

func.func @store_too_big(%p: memref<?xf32>, %b: i32, %v: tensor<16x16xf32>) {
  // expected-error @below {{cannot expand tile.block_store to tile.store: its matrices (dims [2, 65536, 16384]) hold 2^31 elements or more, beyond tile.store's i32 offsets}}
  tile.block_store %p[%b, %b, %b], %v {dims = array<i64: 2, 65536, 16384>} : memref<?xf32>, tensor<16x16xf32>
  return
}

// -----

// A run-time row count (`rows`: bounded symbolic dims): rows at or past it read zero too, one
// more compare of the block's rows against it (its splat) and-ed into the mask.
// CHECK-LABEL: func.func @run_rows
// CHECK-SAME:      (%[[P:[^:]*]]: memref<8000xf32>, %[[B:[^:]*]]: i32, %[[M0:[^:]*]]: i32, %[[K0:[^:]*]]: i32, %[[N:[^:]*]]: i32)
// CHECK:         %[[R:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<32x16xi32>
// CHECK:         %[[RIN:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : tensor<32x16xi32>
// CHECK-NEXT:    %[[SN:.*]] = tile.splat %[[N]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[RT:.*]] = arith.cmpi ult, %[[R]], %[[SN]] : tensor<32x16xi32>
// CHECK-NEXT:    %[[M:.*]] = arith.andi %[[RIN]], %[[RT]] : tensor<32x16xi1>
// CHECK:         tile.load %[[P]]
// CHECK-NOT:     tile.block_load
func.func @run_rows(%p: memref<8000xf32>, %b: i32, %m0: i32, %k0: i32, %n: i32) -> tensor<32x16xf32> {
  %a = tile.block_load %p[%b, %m0, %k0] rows %n {dims = array<i64: 2, 100, 40>} : memref<8000xf32> -> tensor<32x16xf32>
  return %a : tensor<32x16xf32>
}
