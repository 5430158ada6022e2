// RUN: aicc-opt %s -split-input-file -tile-fuse-elementwise | FileCheck %s

// An elementwise kernel after convert-tile-to-linalg and convert-elementwise-to-linalg.
// The offsets (%6) and the mask (%10) are cheap (no memory access) and have several users:
// they are recomputed inside each user, so only the values tile.store needs stay tensors.
// The load (%12) reads memory and, once exp is fused into the add, has a single user, so it
// is fused too: one generic computes the stored value.
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @elementwise_kernel
// CHECK-SAME:      (%[[IN:[^:]*]]: memref<64xf32>, %[[OUT:[^:]*]]: memref<64xf32>)
// CHECK:         %[[BASE:.*]] = arith.muli
// The offsets, recomputed for the store: linalg.index + base.
// CHECK:         %[[OFFS:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<64xi32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: i32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %[[O:.*]] = arith.addi %[[I32]], %[[BASE]] : i32
// CHECK-NEXT:      linalg.yield %[[O]] : i32
// The mask, with the offsets folded in.
// CHECK:         %[[MASK:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<64xi1>) {
// CHECK:           arith.cmpi slt
// CHECK:           linalg.yield %{{.*}} : i1
// The value: offsets, mask, masked load, exp and add in one body.
// CHECK:         %[[VAL:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<64xf32>) {
// CHECK:           %[[M:.*]] = arith.cmpi slt
// CHECK:           %[[X:.*]] = scf.if %[[M]] -> (f32) {
// CHECK-NEXT:        memref.load %[[IN]]
// CHECK:           %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[E]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         tile.store %[[OUT]][%[[OFFS]]], %[[VAL]], %[[MASK]]
// CHECK-NOT:     linalg.generic
// CHECK:         return
#map = affine_map<(d0) -> (d0)>
func.func @elementwise_kernel(%arg0: memref<64xf32>, %arg1: memref<64xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  %0 = tile.program_id 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tensor.empty() : tensor<64xi32>
  %3 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%2 : tensor<64xi32>) {
  ^bb0(%out: i32):
    %15 = linalg.index 0 : index
    %16 = arith.index_cast %15 : index to i32
    linalg.yield %16 : i32
  } -> tensor<64xi32>
  %4 = tensor.empty() : tensor<64xi32>
  %5 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%4 : tensor<64xi32>) {
  ^bb0(%out: i32):
    linalg.yield %1 : i32
  } -> tensor<64xi32>
  %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%3, %5 : tensor<64xi32>, tensor<64xi32>) outs(%3 : tensor<64xi32>) {
  ^bb0(%in: i32, %in_0: i32, %out: i32):
    %15 = arith.addi %in, %in_0 : i32
    linalg.yield %15 : i32
  } -> tensor<64xi32>
  %7 = tensor.empty() : tensor<64xi32>
  %8 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%7 : tensor<64xi32>) {
  ^bb0(%out: i32):
    linalg.yield %c64_i32 : i32
  } -> tensor<64xi32>
  %9 = tensor.empty() : tensor<64xi1>
  %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%6, %8 : tensor<64xi32>, tensor<64xi32>) outs(%9 : tensor<64xi1>) {
  ^bb0(%in: i32, %in_0: i32, %out: i1):
    %15 = arith.cmpi slt, %in, %in_0 : i32
    linalg.yield %15 : i1
  } -> tensor<64xi1>
  %11 = tensor.empty() : tensor<64xf32>
  %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%6, %10 : tensor<64xi32>, tensor<64xi1>) outs(%11 : tensor<64xf32>) {
  ^bb0(%in: i32, %in_0: i1, %out: f32):
    %15 = arith.index_cast %in : i32 to index
    %16 = scf.if %in_0 -> (f32) {
      %17 = memref.load %arg0[%15] : memref<64xf32>
      scf.yield %17 : f32
    } else {
      %cst = arith.constant 0.000000e+00 : f32
      scf.yield %cst : f32
    }
    linalg.yield %16 : f32
  } -> tensor<64xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%12 : tensor<64xf32>) outs(%12 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %15 = math.exp %in : f32
    linalg.yield %15 : f32
  } -> tensor<64xf32>
  %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%13, %12 : tensor<64xf32>, tensor<64xf32>) outs(%13 : tensor<64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %15 = arith.addf %in, %in_0 : f32
    linalg.yield %15 : f32
  } -> tensor<64xf32>
  tile.store %arg1[%6], %14, %10 : memref<64xf32>, tensor<64xi32>, tensor<64xf32>, tensor<64xi1>
  return
}

// -----

// A producer that reads memory and has two users is not fused (it would load twice).
// CHECK-LABEL: func.func @load_two_users
// CHECK:         %[[X:.*]] = linalg.generic
// CHECK:           memref.load
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64xf32>)
// CHECK:           math.exp
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64xf32>)
// CHECK:           math.tanh
// CHECK:         return %[[A]], %[[B]]
#map = affine_map<(d0) -> (d0)>
func.func @load_two_users(%p: memref<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %x = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%e : tensor<64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = memref.load %p[%i] : memref<64xf32>
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %a, %b : tensor<64xf32>, tensor<64xf32>
}

// -----

// An elementwise producer fuses into a reduction generic (softmax's exp into its sum);
// producers without memory access and with two users (the broadcast max, the exp) are
// recomputed in both.
// CHECK-LABEL: func.func @into_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<32xf32>, %[[MAX:[^:]*]]: tensor<f32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["reduction"]} ins(%[[X]], %[[MAX]] : tensor<32xf32>, tensor<f32>)
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      arith.addf
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<32xf32>, tensor<f32>, tensor<f32>)
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      arith.divf
// CHECK:         return %[[Y]]
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @into_reduction(%x: tensor<32xf32>, %max: tensor<f32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<32xf32>
  %bmax = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel"]} ins(%max : tensor<f32>) outs(%e : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %bmax : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]} ins(%ex : tensor<32xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %y = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel"]} ins(%ex, %sum : tensor<32xf32>, tensor<f32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// -----

// A splat used by every op of a chain: one operand of the fused op, one body per op.
// CHECK-LABEL: func.func @chain_shared_splat
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<8xf32>, %[[C:[^:]*]]: f32)
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%[[X]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>) {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M0:.*]] = arith.maximumf %[[IN]], %[[C]] : f32
// CHECK-NEXT:      %[[M1:.*]] = arith.maximumf %[[M0]], %[[C]] : f32
// CHECK-NEXT:      %[[M2:.*]] = arith.maximumf %[[M1]], %[[C]] : f32
// CHECK-NEXT:      linalg.yield %[[M2]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
#id = affine_map<(d0) -> (d0)>
func.func @chain_shared_splat(%x: tensor<8xf32>, %c: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %c : f32
  } -> tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %s : tensor<8xf32>, tensor<8xf32>) outs(%x : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.maximumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%0, %s : tensor<8xf32>, tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.maximumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%1, %s : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.maximumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// A producer read through a broadcast (and its only user): its linalg.index becomes the
// consumer's index along the dim the map picks.
// CHECK-LABEL: func.func @broadcast_index
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel"]} outs(
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[V:.*]] = scf.if
// CHECK-NEXT:        memref.load %{{.*}}[%[[J]]]
// CHECK:           arith.index_cast %[[J]]
// CHECK:           math.exp %[[V]]
// CHECK-NOT:     linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @broadcast_index(%p: memref<4xf32>, %c: i1) -> tensor<3x4xf32> {
  %e1 = tensor.empty() : tensor<4xf32>
  %v = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]} outs(%e1 : tensor<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %r = scf.if %c -> f32 {
      %l = memref.load %p[%i] : memref<4xf32>
      scf.yield %l : f32
    } else {
      %z = arith.index_cast %i : index to i32
      %f = arith.sitofp %z : i32 to f32
      scf.yield %f : f32
    }
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<3x4xf32>
  %y = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<4xf32>) outs(%e2 : tensor<3x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// A reduction whose only input is a splat generic: fusing it would leave the reduced dim
// without an operand that defines its size, so the splat stays a tensor.
// CHECK-LABEL: func.func @keep_loop_bound
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[S]] : tensor<16xf32>)
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @keep_loop_bound(%c: f32, %init: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%out: f32):
    linalg.yield %c : f32
  } -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]} ins(%s : tensor<16xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %sum : tensor<f32>
}

// -----

// A load read at two different points of the same consumer (x[i] and x[0]) is not fused:
// it would load twice.
// CHECK-LABEL: func.func @load_two_points
// CHECK:         %[[X:.*]] = linalg.generic
// CHECK:           memref.load
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[X]] : tensor<8xf32>, tensor<8xf32>)
// CHECK-NOT:       memref.load
#id = affine_map<(d0) -> (d0)>
#first = affine_map<(d0) -> (0)>
func.func @load_two_points(%p: memref<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = memref.load %p[%i] : memref<8xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #first, #id], iterator_types = ["parallel"]} ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A splat dense constant input becomes a scalar constant in the body.
// CHECK-LABEL: func.func @splat_constant
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>)
// CHECK:           %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      arith.mulf %{{.*}}, %[[TWO]] : f32
#id = affine_map<(d0) -> (d0)>
func.func @splat_constant(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
