// RUN: aicc-opt %s -split-input-file -convert-tile-store-to-scf | FileCheck %s

// A 2-D masked store becomes an scf.parallel over the tile. Offsets and mask come from
// generics without memory access: they are recomputed per element at the loop indices
// (through the mask's use of the offsets, and the offsets' (d0, 0) broadcast read of
// %rows). The value is a load, so it is read back with tensor.extract, under the mask.
// An unmasked store writes unconditionally.
// CHECK-LABEL: func.func @store2d
// CHECK-SAME:      (%[[Q:[^:]*]]: memref<64xf32>, %[[ROWS:[^:]*]]: tensor<4x1xi32>, %[[V:[^:]*]]: tensor<4x16xf32>, %[[P:[^:]*]]: memref<64xf32>)
// CHECK:         %[[C16I:.*]] = arith.constant 16 : i32
// CHECK:         %[[LD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16xf32>)
// CHECK:           memref.load %[[P]]
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[C16:.*]] = arith.constant 16 : index
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0]], %[[C0]]) to (%[[C4]], %[[C16]]) step (%[[C1]], %[[C1]]) {
// Offsets at (i, j): rows[i, 0] * 16 + j.
// CHECK:           %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[R:.*]] = tensor.extract %[[ROWS]][%[[I]], %[[Z]]] : tensor<4x1xi32>
// CHECK-NEXT:      %[[J32:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:      %[[RR:.*]] = arith.muli %[[R]], %[[C16I]] : i32
// CHECK-NEXT:      %[[O:.*]] = arith.addi %[[RR]], %[[J32]] : i32
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[O]] : i32 to index
// The mask, recomputed from recomputed offsets.
// CHECK:           %[[O2:.*]] = arith.addi
// CHECK-NEXT:      %[[M:.*]] = arith.cmpi slt, %[[O2]], %[[C16I]] : i32
// CHECK-NEXT:      scf.if %[[M]] {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %[[LD]][%[[I]], %[[J]]] : tensor<4x16xf32>
// CHECK-NEXT:        memref.store %[[X]], %[[Q]][%[[IDX]]] : memref<64xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK:         scf.parallel (%[[I2:.*]], %[[J2:.*]]) =
// CHECK:           %[[IDX2:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT:      %[[X2:.*]] = tensor.extract %[[V]][%[[I2]], %[[J2]]] : tensor<4x16xf32>
// CHECK-NEXT:      memref.store %[[X2]], %[[Q]][%[[IDX2]]] : memref<64xf32>
// CHECK-NEXT:      scf.reduce
// CHECK-NOT:     tile.store
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
func.func @store2d(%q: memref<64xf32>, %rows: tensor<4x1xi32>, %v: tensor<4x16xf32>, %p: memref<64xf32>) {
  %e = tensor.empty() : tensor<4x16xi32>
  %c16 = arith.constant 16 : i32
  %offs = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%rows : tensor<4x1xi32>) outs(%e : tensor<4x16xi32>) {
  ^bb0(%r: i32, %out: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %rr = arith.muli %r, %c16 : i32
    %o = arith.addi %rr, %j32 : i32
    linalg.yield %o : i32
  } -> tensor<4x16xi32>
  %em = tensor.empty() : tensor<4x16xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%offs : tensor<4x16xi32>) outs(%em : tensor<4x16xi1>) {
  ^bb0(%o: i32, %out: i1):
    %m = arith.cmpi slt, %o, %c16 : i32
    linalg.yield %m : i1
  } -> tensor<4x16xi1>
  %ef = tensor.empty() : tensor<4x16xf32>
  %ld = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%offs : tensor<4x16xi32>) outs(%ef : tensor<4x16xf32>) {
  ^bb0(%o: i32, %out: f32):
    %i = arith.index_cast %o : i32 to index
    %x = memref.load %p[%i] : memref<64xf32>
    linalg.yield %x : f32
  } -> tensor<4x16xf32>
  tile.store %q[%offs], %ld, %mask : memref<64xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xi1>
  tile.store %q[%offs], %v : memref<64xf32>, tensor<4x16xi32>, tensor<4x16xf32>
  return
}

// -----

// Offsets and values that are function arguments (not generics) are read with
// tensor.extract; a 1-D tile gives a 1-D loop.
// CHECK-LABEL: func.func @store1d
// CHECK-SAME:      (%[[Q:[^:]*]]: memref<8xi32>, %[[O:[^:]*]]: tensor<8xi32>, %[[V:[^:]*]]: tensor<8xi32>, %[[M:[^:]*]]: tensor<8xi1>)
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT:      %[[OFF:.*]] = tensor.extract %[[O]][%[[I]]] : tensor<8xi32>
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK-NEXT:      %[[MK:.*]] = tensor.extract %[[M]][%[[I]]] : tensor<8xi1>
// CHECK-NEXT:      scf.if %[[MK]] {
// CHECK-NEXT:        %[[X:.*]] = tensor.extract %[[V]][%[[I]]] : tensor<8xi32>
// CHECK-NEXT:        memref.store %[[X]], %[[Q]][%[[IDX]]] : memref<8xi32>
func.func @store1d(%q: memref<8xi32>, %o: tensor<8xi32>, %v: tensor<8xi32>, %m: tensor<8xi1>) {
  tile.store %q[%o], %v, %m : memref<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi1>
  return
}

// -----

// A 0-d store is one element: no loop (an scf.parallel without dims does not verify; the
// pass used to emit one, issue 14).
// CHECK-LABEL: func.func @store_0d
// CHECK-SAME:      (%[[P:[^:]*]]: memref<8xf32>, %[[V:[^:]*]]: tensor<f32>, %[[O:[^:]*]]: tensor<i32>, %[[M:[^:]*]]: tensor<i1>)
// CHECK-NOT:     scf.parallel
// CHECK:         %[[OFF:.*]] = tensor.extract %[[O]][] : tensor<i32>
// CHECK:         %[[IDX:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK:         %[[MASK:.*]] = tensor.extract %[[M]][] : tensor<i1>
// CHECK:         scf.if %[[MASK]] {
// CHECK:           %[[X:.*]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK:           memref.store %[[X]], %[[P]][%[[IDX]]] : memref<8xf32>
func.func @store_0d(%p: memref<8xf32>, %v: tensor<f32>, %o: tensor<i32>, %m: tensor<i1>) {
  tile.store %p[%o], %v, %m : memref<8xf32>, tensor<i32>, tensor<f32>, tensor<i1>
  return
}
