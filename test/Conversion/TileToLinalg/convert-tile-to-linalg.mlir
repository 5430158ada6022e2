// RUN: aicc-opt %s -split-input-file -convert-tile-to-linalg | FileCheck %s

// CHECK-DAG:   #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @make_range_splat
// program_id is kept.
// CHECK:         %[[PID:.*]] = tile.program_id 0 : i32
// make_range: linalg.index + start.
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<16xi32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[E0]] : tensor<16xi32>) {
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           %[[START:.*]] = arith.constant 4 : i32
// CHECK:           %[[V:.*]] = arith.addi %[[I32]], %[[START]] : i32
// CHECK:           linalg.yield %[[V]] : i32
// CHECK:         } -> tensor<16xi32>
// splat: a generic yielding the scalar.
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<16xi32>
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[E1]] : tensor<16xi32>) {
// CHECK:           linalg.yield %[[PID]] : i32
// CHECK:         } -> tensor<16xi32>
// Elementwise arith on tiles is left alone.
// CHECK:         %[[O:.*]] = arith.addi %[[R]], %[[S]] : tensor<16xi32>
// CHECK:         return %[[O]]
// CHECK-NOT:     tile.
func.func @make_range_splat() -> tensor<16xi32> {
  %pid = tile.program_id 0 : i32
  %r = tile.make_range {start = 4 : i32, end = 20 : i32} : tensor<16xi32>
  %s = tile.splat %pid : tensor<16xi32>
  %o = arith.addi %r, %s : tensor<16xi32>
  return %o : tensor<16xi32>
}

// -----

// A masked load reads the buffer under scf.if, with the padding value otherwise; an
// unmasked one reads unconditionally.
// CHECK-DAG:   #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @load
// CHECK-SAME:      (%[[P:[^:]*]]: memref<64xf32>, %[[O:[^:]*]]: tensor<16xi32>, %[[M:[^:]*]]: tensor<16xi1>, %[[PI:[^:]*]]: memref<64xi32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<16xf32>
// CHECK:         %[[X:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[O]], %[[M]] : tensor<16xi32>, tensor<16xi1>) outs(%[[E]] : tensor<16xf32>) {
// CHECK:         ^bb0(%[[OFF:.*]]: i32, %[[MASK:.*]]: i1, %{{.*}}: f32):
// CHECK:           %[[IDX:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK:           %[[IF:.*]] = scf.if %[[MASK]] -> (f32) {
// CHECK:             %[[LD:.*]] = memref.load %[[P]][%[[IDX]]] : memref<64xf32>
// CHECK:             scf.yield %[[LD]] : f32
// CHECK:           } else {
// CHECK:             %[[PAD:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:             scf.yield %[[PAD]] : f32
// CHECK:           }
// CHECK:           linalg.yield %[[IF]] : f32
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[O]] : tensor<16xi32>)
// CHECK:         ^bb0(%[[OFF2:.*]]: i32, %{{.*}}: f32):
// CHECK:           %[[IDX2:.*]] = arith.index_cast %[[OFF2]] : i32 to index
// CHECK:           %[[LD2:.*]] = memref.load %[[P]][%[[IDX2]]] : memref<64xf32>
// CHECK:           linalg.yield %[[LD2]] : f32
// Integer buffers default to a zero padding.
// CHECK:         linalg.generic
// CHECK:           scf.if %{{.*}} -> (i32) {
// CHECK:             memref.load %[[PI]][%{{.*}}] : memref<64xi32>
// CHECK:           } else {
// CHECK:             %[[Z:.*]] = arith.constant 0 : i32
// CHECK:             scf.yield %[[Z]] : i32
// CHECK:         return %[[X]], %[[Y]]
func.func @load(%p: memref<64xf32>, %o: tensor<16xi32>, %m: tensor<16xi1>, %pi: memref<64xi32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xi32>) {
  %x = tile.load %p[%o], %m {padding = 1.5 : f32} : memref<64xf32>, tensor<16xi32>, tensor<16xi1> -> tensor<16xf32>
  %y = tile.load %p[%o] : memref<64xf32>, tensor<16xi32> -> tensor<16xf32>
  %z = tile.load %pi[%o], %m : memref<64xi32>, tensor<16xi32>, tensor<16xi1> -> tensor<16xi32>
  return %x, %y, %z : tensor<16xf32>, tensor<16xf32>, tensor<16xi32>
}

// -----

// tile.store is left for convert-tile-store-to-scf (after elementwise fusion).
// CHECK-LABEL: func.func @store
// CHECK-SAME:      (%[[Q:[^:]*]]: memref<64xf32>, %[[O:[^:]*]]: tensor<4x16xi32>, %[[V:[^:]*]]: tensor<4x16xf32>, %[[M:[^:]*]]: tensor<4x16xi1>)
// CHECK-NEXT:    tile.store %[[Q]][%[[O]]], %[[V]], %[[M]] : memref<64xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xi1>
// CHECK-NEXT:    return
func.func @store(%q: memref<64xf32>, %o: tensor<4x16xi32>, %v: tensor<4x16xf32>, %m: tensor<4x16xi1>) {
  tile.store %q[%o], %v, %m : memref<64xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xi1>
  return
}

// -----

// CHECK-LABEL: func.func @expand_dims
// CHECK-SAME:      (%[[V:[^:]*]]: tensor<16xf32>, %[[S:[^:]*]]: tensor<f32>, %[[M:[^:]*]]: tensor<4x8xf32>)
// CHECK:         %[[A:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
// CHECK:         %[[B:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
// CHECK:         %[[C:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         %[[D:.*]] = tensor.expand_shape %[[M]] {{\[}}[0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @expand_dims(%v: tensor<16xf32>, %s: tensor<f32>, %m: tensor<4x8xf32>)
    -> (tensor<16x1xf32>, tensor<1x16xf32>, tensor<1xf32>, tensor<4x1x8xf32>) {
  %0 = tile.expand_dims %v {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %1 = tile.expand_dims %v {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  %2 = tile.expand_dims %s {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
  %3 = tile.expand_dims %m {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4x1x8xf32>
  return %0, %1, %2, %3 : tensor<16x1xf32>, tensor<1x16xf32>, tensor<1xf32>, tensor<4x1x8xf32>
}

// -----

// Broadcast reads the source with its stretched dims pinned to 0.
// CHECK-DAG:   #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ZERO:.*]] = affine_map<(d0, d1) -> (0, 0)>
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:      (%[[V:[^:]*]]: tensor<16x1xf32>, %[[W:[^:]*]]: tensor<1x1xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<16x8xf32>
// CHECK:         %[[A:.*]] = linalg.generic {indexing_maps = [#[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[V]] : tensor<16x1xf32>) outs(%[[E]] : tensor<16x8xf32>) {
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK:           linalg.yield %[[IN]] : f32
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#[[ZERO]], #[[ID2]]], {{.*}} ins(%[[W]] : tensor<1x1xf32>)
// CHECK:         return %[[A]], %[[B]]
func.func @broadcast(%v: tensor<16x1xf32>, %w: tensor<1x1xf32>) -> (tensor<16x8xf32>, tensor<4x4xf32>) {
  %0 = tile.broadcast %v : tensor<16x1xf32> -> tensor<16x8xf32>
  %1 = tile.broadcast %w : tensor<1x1xf32> -> tensor<4x4xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @dot
// CHECK-SAME:      (%[[A:[^:]*]]: tensor<16x32xf32>, %[[B:[^:]*]]: tensor<32x64xf32>, %[[C:[^:]*]]: tensor<16x64xf32>, %[[AH:[^:]*]]: tensor<16x32xf16>, %[[BH:[^:]*]]: tensor<32x64xf16>)
// CHECK:         %[[D:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x64xf32>) outs(%[[C]] : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK:         %[[D2:.*]] = linalg.matmul ins(%[[AH]], %[[BH]] : tensor<16x32xf16>, tensor<32x64xf16>) outs(%[[D]] : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK:         return %[[D2]]
func.func @dot(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>,
               %ah: tensor<16x32xf16>, %bh: tensor<32x64xf16>) -> tensor<16x64xf32> {
  %0 = tile.dot %a, %b, %c : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = tile.dot %ah, %bh, %0 {input_precision = 1 : i32} : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
  return %1 : tensor<16x64xf32>
}

// -----

// Each reduce kind: a linalg.generic with a reduction iterator (so elementwise producers
// fuse into it) over a fill with the combiner's identity.
// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_float
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x16xf32>)
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[F0:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x16xf32>) outs(%[[F0]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[F1:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<16xf32>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<4x16xf32>) outs(%[[F1]] : tensor<16xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[PINF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         %[[F2:.*]] = linalg.fill ins(%[[PINF]] : f32)
// CHECK:         %[[MIN:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x16xf32>) outs(%[[F2]] : tensor<4xf32>)
// CHECK:           arith.minimumf
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[F3:.*]] = linalg.fill ins(%[[ONE]] : f32)
// CHECK:         %[[MUL:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x16xf32>) outs(%[[F3]] : tensor<4xf32>)
// CHECK:           arith.mulf
// CHECK:         return %[[ADD]], %[[MAX]], %[[MIN]], %[[MUL]]
func.func @reduce_float(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tile.reduce add %x {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  %1 = tile.reduce max %x {axis = 0 : i32} : tensor<4x16xf32> -> tensor<16xf32>
  %2 = tile.reduce min %x {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  %3 = tile.reduce mul %x {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_int
// CHECK:         arith.constant 0 : i32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.addi
// CHECK:         arith.constant -2147483648 : i32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.maxsi
// CHECK:         arith.constant 2147483647 : i32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.minsi
// CHECK:         arith.constant 1 : i32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:           arith.muli
func.func @reduce_int(%i: tensor<8xi32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %0 = tile.reduce add %i {axis = 0 : i32} : tensor<8xi32> -> tensor<i32>
  %1 = tile.reduce max %i {axis = 0 : i32} : tensor<8xi32> -> tensor<i32>
  %2 = tile.reduce min %i {axis = 0 : i32} : tensor<8xi32> -> tensor<i32>
  %3 = tile.reduce mul %i {axis = 0 : i32} : tensor<8xi32> -> tensor<i32>
  return %0, %1, %2, %3 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
}
