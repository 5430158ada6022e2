// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile -verify-diagnostics | FileCheck %s

// Epilogue kernel (matmul + bias + relu) and its host plan: the weight constant becomes a
// memref.global read with get_global, the group result a 64-byte aligned alloc.

// CHECK-LABEL: memref.global "private" constant @__constant_0 : memref<4x3xf32> = dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], {{.*}}]> {alignment = 64 : i64}

// CHECK-LABEL: func.func @epilogue
// CHECK-SAME:      (%[[X:[^:]*]]: memref<2x4xf32>, %[[B:[^:]*]]: memref<3xf32>) -> memref<2x3xf32>
// CHECK-NEXT:    %[[W:.*]] = memref.get_global @__constant_0 : memref<4x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK-NEXT:    tile.launch @kernels::@fused_0_epilogue(%[[X]], %[[W]], %[[B]], %[[Y]]) : memref<2x4xf32>, memref<4x3xf32>, memref<3xf32>, memref<2x3xf32>
// CHECK-NEXT:    return %[[Y]] : memref<2x3xf32>

// CHECK:       module @kernels {
// The kernel takes flat 1-D buffers: inputs, then outputs.
// CHECK-LABEL:   func.func @fused_0_epilogue
// CHECK-SAME:        (%[[PA:[^:]*]]: memref<8xf32>, %[[PB:[^:]*]]: memref<12xf32>, %[[PC:[^:]*]]: memref<3xf32>, %[[PY:[^:]*]]: memref<6xf32>)
// CHECK-SAME:        attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK_K = 16 : i64, BLOCK_M = 16 : i64, BLOCK_N = 16 : i64}>}
// CHECK:           %[[PIDM:.*]] = tile.program_id 0 : i32
// CHECK:           %[[PIDN:.*]] = tile.program_id 1 : i32
// CHECK:           %[[PIDB:.*]] = tile.program_id 2 : i32
// The block's first row m0 = pid_m * BLOCK_M and column n0 = pid_n * BLOCK_N; rows of the
// output tile m0 + [0, 16).
// CHECK:           %[[M0:.*]] = arith.muli %[[PIDM]], %{{.*}} : i32
// CHECK:           %[[N0:.*]] = arith.muli %[[PIDN]], %{{.*}} : i32
// CHECK:           %[[RM0:.*]] = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK:           %[[SM0:.*]] = tile.splat %[[M0]] : tensor<16xi32>
// CHECK:           %[[RM:.*]] = arith.addi %[[SM0]], %[[RM0]] : tensor<16xi32>
// CHECK:           %[[RM2E:.*]] = tile.expand_dims %[[RM]] {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK:           %[[RM2:.*]] = tile.broadcast %[[RM2E]] : tensor<16x1xi32> -> tensor<16x16xi32>
// CHECK:           %[[RN2:.*]] = tile.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<16x16xi32>
// CHECK:           %[[OUTMASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<16x16xi1>
// CHECK:           %[[ZERO:.*]] = tile.splat %{{.*}} : tensor<16x16xf32>
// The K loop: 0 to K = 4 step BLOCK_K = 16, accumulating with tile.dot.
// CHECK:           %[[C0:.*]] = arith.constant 0 : index
// CHECK:           %[[K:.*]] = arith.constant 4 : index
// CHECK:           %[[BK:.*]] = arith.constant 16 : index
// The A tile is the [16, 16] block at (m0, k0) of A's one 2 x 4 matrix, the B tile the
// block at (k0, n0) of B's one 4 x 3 matrix (zero outside); tile.dot takes them as they are.
// CHECK:           %[[ACC:.*]] = scf.for %[[KI:.*]] = %[[C0]] to %[[K]] step %[[BK]] iter_args(%[[IT:.*]] = %[[ZERO]]) -> (tensor<16x16xf32>) {
// CHECK-NEXT:        %[[K0:.*]] = arith.index_cast %[[KI]] : index to i32
// CHECK-NEXT:        %[[AT:.*]] = tile.block_load %[[PA]][%{{.*}}, %[[M0]], %[[K0]]] {dims = array<i64: 1, 2, 4>} : memref<8xf32> -> tensor<16x16xf32>
// CHECK-NEXT:        %[[BT:.*]] = tile.block_load %[[PB]][%{{.*}}, %[[K0]], %[[N0]]] {dims = array<i64: 1, 4, 3>} : memref<12xf32> -> tensor<16x16xf32>
// CHECK-NEXT:        %[[D:.*]] = tile.dot %[[AT]], %[[BT]], %[[IT]] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK:             scf.yield %[[D]]
// CHECK:           }
// The bias [3] broadcasts along rows: it is read at the column index only.
// CHECK:           %[[BIAS:.*]] = tile.load %[[PC]][%[[RN2]]], %[[OUTMASK]] {padding = 0.000000e+00 : f32} : memref<3xf32>, tensor<16x16xi32>, tensor<16x16xi1> -> tensor<16x16xf32>
// CHECK:           %[[SUM:.*]] = arith.addf %[[ACC]], %[[BIAS]] : tensor<16x16xf32>
// CHECK:           %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : tensor<16x16xf32>
// The output tile is the [16, 16] block at (m0, n0) of the one 2 x 3 output matrix (batch 0:
// one matrix), clipped at its edges.
// CHECK:           %[[B0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      tile.block_store %[[PY]][%[[B0]], %[[M0]], %[[N0]]], %[[RELU]] {dims = array<i64: 1, 2, 3>} : memref<6xf32>, tensor<16x16xf32>
// CHECK-NEXT:      return
func.func @epilogue(%x: tensor<2x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  %0 = graph.fusion_group "epilogue" (%x, %w, %b) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a0: tensor<2x4xf32>, %a1: tensor<4x3xf32>, %a2: tensor<3xf32>):
    %m = graph.matmul %a0, %a1 : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %s = graph.add %m, %a2 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = graph.relu %s : tensor<2x3xf32>
    graph.yield %r : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

// Gemm with alpha/beta/transB: grid = [ceil(M/BM), ceil(N/BN), batch], BM = BN <= 32.
// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [4, 5, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>
// CHECK:         %[[M0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:         %[[N0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:         scf.for
// CHECK:           %[[K0:.*]] = arith.index_cast
// A: block (m0, k0) of the 100 x 40 matrix. transB: B is stored [N, K] = [160, 40]: the
// [BN, BK] block at (n0, k0), transposed to [BK, BN].
// CHECK-NEXT:      %[[AT:.*]] = tile.block_load %{{.*}}[%{{.*}}, %[[M0]], %[[K0]]] {dims = array<i64: 1, 100, 40>} : memref<4000xf32> -> tensor<32x32xf32>
// CHECK-NEXT:      %[[BT:.*]] = tile.block_load %{{.*}}[%{{.*}}, %[[N0]], %[[K0]]] {dims = array<i64: 1, 160, 40>, transpose} : memref<6400xf32> -> tensor<32x32xf32>
// CHECK-NEXT:      tile.dot %[[AT]], %[[BT]]
// CHECK:         }
// alpha = 0.5 scales the product, beta = 2 the bias.
// CHECK:         %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[AS:.*]] = tile.splat %[[ALPHA]]
// CHECK:         %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[AS]]
// CHECK:         %[[C:.*]] = tile.load %{{.*}} : memref<160xf32>
// CHECK:         %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[BS:.*]] = tile.splat %[[BETA]]
// CHECK:         %[[CB:.*]] = arith.mulf %[[C]], %[[BS]]
// CHECK:         %[[Y:.*]] = arith.addf %[[SCALED]], %[[CB]]
// CHECK:         tile.block_store %{{.*}}[%{{.*}}, %[[M0]], %[[N0]]], %[[Y]] {dims = array<i64: 1, 100, 160>} : memref<16000xf32>, tensor<32x32xf32>
func.func @gemm(%x: tensor<100x40xf32>, %w: tensor<160x40xf32>, %c: tensor<160xf32>) -> tensor<100x160xf32> {
  %0 = graph.fusion_group "epilogue" (%x, %w, %c) : (tensor<100x40xf32>, tensor<160x40xf32>, tensor<160xf32>) -> tensor<100x160xf32> {
  ^bb0(%a0: tensor<100x40xf32>, %a1: tensor<160x40xf32>, %a2: tensor<160xf32>):
    %g = graph.gemm %a0, %a1, %a2 {alpha = 0.5 : f32, beta = 2.0 : f32, transB = true} : (tensor<100x40xf32>, tensor<160x40xf32>, tensor<160xf32>) -> tensor<100x160xf32>
    graph.yield %g : tensor<100x160xf32>
  }
  return %0 : tensor<100x160xf32>
}

// -----

// Elementwise kernel with a broadcast operand, and a reshape in the host plan that becomes a
// reinterpret_cast view feeding a softmax kernel with a fused exp consumer.

// CHECK-LABEL: func.func @elementwise_softmax
// CHECK-SAME:      (%[[X:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xf32>) -> (memref<3x2xf32>, memref<2x3xf32>)
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK-NEXT:    tile.launch @kernels::@fused_0_elementwise(%[[X]], %[[B]], %[[T]]) : memref<2x3xf32>, memref<3xf32>, memref<2x3xf32>
// CHECK-NEXT:    %[[V:.*]] = memref.reinterpret_cast %[[T]] to offset: [0], sizes: [3, 2], strides: [2, 1] : memref<2x3xf32> to memref<3x2xf32>
// CHECK-NEXT:    %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<3x2xf32>
// CHECK-NEXT:    tile.launch @kernels::@fused_1_softmax(%[[V]], %[[S]]) : memref<3x2xf32>, memref<3x2xf32>
// CHECK-NEXT:    return %[[S]], %[[T]] : memref<3x2xf32>, memref<2x3xf32>

// One program of BLOCK = 128 covers the 6 elements.
// CHECK-LABEL:   func.func @fused_0_elementwise
// CHECK-SAME:        (%[[PX:[^:]*]]: memref<6xf32>, %[[PB:[^:]*]]: memref<3xf32>, %[[PY:[^:]*]]: memref<6xf32>)
// CHECK-SAME:        tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 128 : i64}>
// CHECK:           %[[PID:.*]] = tile.program_id 0 : i32
// CHECK:           %[[BASE:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK:           %[[R:.*]] = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
// CHECK:           %[[SB:.*]] = tile.splat %[[BASE]] : tensor<128xi32>
// CHECK:           %[[OFFS:.*]] = arith.addi %[[SB]], %[[R]] : tensor<128xi32>
// CHECK:           %[[N:.*]] = arith.constant 6 : i32
// CHECK:           %[[NS:.*]] = tile.splat %[[N]] : tensor<128xi32>
// CHECK:           %[[MASK:.*]] = arith.cmpi slt, %[[OFFS]], %[[NS]] : tensor<128xi32>
// The [3] operand is read at offs % 3.
// CHECK:           %[[COL:.*]] = arith.remsi %[[OFFS]], %{{.*}} : tensor<128xi32>
// CHECK:           %[[LX:.*]] = tile.load %[[PX]][%[[OFFS]]], %[[MASK]] {padding = 0.000000e+00 : f32} : memref<6xf32>, tensor<128xi32>, tensor<128xi1> -> tensor<128xf32>
// CHECK:           %[[LB:.*]] = tile.load %[[PB]][%[[COL]]], %[[MASK]] {padding = 0.000000e+00 : f32} : memref<3xf32>, tensor<128xi32>, tensor<128xi1> -> tensor<128xf32>
// CHECK:           %[[ADD:.*]] = arith.addf %[[LX]], %[[LB]] : tensor<128xf32>
// CHECK:           %[[TANH:.*]] = math.tanh %[[ADD]] : tensor<128xf32>
// CHECK:           tile.store %[[PY]][%[[OFFS]]], %[[TANH]], %[[MASK]] : memref<6xf32>, tensor<128xi32>, tensor<128xf32>, tensor<128xi1>

// One program per row (3 rows), the row padded to BLOCK = 32 lanes with -inf.
// CHECK-LABEL:   func.func @fused_1_softmax
// CHECK-SAME:        (%[[SX:[^:]*]]: memref<6xf32>, %[[SY:[^:]*]]: memref<6xf32>)
// CHECK-SAME:        tile.schedule = #tile.schedule<grid = [3, 1, 1], num_warps = 1, num_stages = 1, blocks = {BLOCK = 32 : i64}>
// CHECK:           %[[ROW:.*]] = tile.program_id 0 : i32
// CHECK:           %[[COLS:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK:           %[[RMASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<32xi32>
// CHECK:           %[[ROFFS:.*]] = arith.addi %{{.*}}, %[[COLS]] : tensor<32xi32>
// CHECK:           %[[IN:.*]] = tile.load %[[SX]][%[[ROFFS]]], %[[RMASK]] {padding = 0xFF800000 : f32} : memref<6xf32>, tensor<32xi32>, tensor<32xi1> -> tensor<32xf32>
// CHECK:           %[[MAX:.*]] = tile.reduce max %[[IN]] {axis = 0 : i32} : tensor<32xf32> -> tensor<f32>
// CHECK:           %[[MAXE:.*]] = tile.expand_dims %[[MAX]] {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
// CHECK:           %[[MAXB:.*]] = tile.broadcast %[[MAXE]] : tensor<1xf32> -> tensor<32xf32>
// CHECK:           %[[SUB:.*]] = arith.subf %[[IN]], %[[MAXB]] : tensor<32xf32>
// CHECK:           %[[EXP:.*]] = math.exp %[[SUB]] : tensor<32xf32>
// CHECK:           %[[SUM:.*]] = tile.reduce add %[[EXP]] {axis = 0 : i32} : tensor<32xf32> -> tensor<f32>
// CHECK:           %[[INV:.*]] = arith.divf %{{.*}}, %[[SUM]] : tensor<f32>
// CHECK:           %[[INVE:.*]] = tile.expand_dims %[[INV]] {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
// CHECK:           %[[INVB:.*]] = tile.broadcast %[[INVE]] : tensor<1xf32> -> tensor<32xf32>
// CHECK:           %[[SM:.*]] = arith.mulf %[[EXP]], %[[INVB]] : tensor<32xf32>
// CHECK:           %[[OUT:.*]] = math.exp %[[SM]] : tensor<32xf32>
// CHECK:           tile.store %[[SY]][%[[ROFFS]]], %[[OUT]], %[[RMASK]] : memref<6xf32>, tensor<32xi32>, tensor<32xf32>, tensor<32xi1>
func.func @elementwise_softmax(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = graph.fusion_group "elementwise" (%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>):
    %s = graph.add %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %t = graph.tanh %s : tensor<2x3xf32>
    graph.yield %t : tensor<2x3xf32>
  }
  %r = graph.reshape %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = graph.fusion_group "softmax" (%r) : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a0: tensor<3x2xf32>):
    %s = graph.softmax %a0 {axis = 1 : i64} : tensor<3x2xf32>
    %e = graph.exp %s : tensor<3x2xf32>
    graph.yield %e : tensor<3x2xf32>
  }
  return %1, %0 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// Softmax over a non-last axis: the row is strided by the inner size (4).
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [8, 1, 1], num_warps = 1, num_stages = 1, blocks = {BLOCK = 32 : i64}>
// CHECK:         %[[ROW:.*]] = tile.program_id 0 : i32
// CHECK:         %[[INNER:.*]] = arith.constant 4 : i32
// CHECK:         %[[O:.*]] = arith.divsi %[[ROW]], %[[INNER]] : i32
// CHECK:         %[[I:.*]] = arith.remsi %[[ROW]], %{{.*}} : i32
// CHECK:         %[[RSTRIDE:.*]] = arith.constant 12 : i32
// CHECK:         %[[OB:.*]] = arith.muli %[[O]], %[[RSTRIDE]] : i32
// CHECK:         %[[BASE:.*]] = arith.addi %[[OB]], %[[I]] : i32
// CHECK:         %[[COLS:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK:         %[[STRIDED:.*]] = arith.muli %[[COLS]], %{{.*}} : tensor<32xi32>
// CHECK:         %[[OFFS:.*]] = arith.addi %{{.*}}, %[[STRIDED]] : tensor<32xi32>
// CHECK:         tile.load %{{.*}}[%[[OFFS]]]
func.func @softmax_axis1(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.fusion_group "softmax" (%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  ^bb0(%a0: tensor<2x3x4xf32>):
    %s = graph.softmax %a0 {axis = 1 : i64} : tensor<2x3x4xf32>
    graph.yield %s : tensor<2x3x4xf32>
  }
  return %0 : tensor<2x3x4xf32>
}

// -----

// A "single" transpose group reads its input at permuted offsets: out (i, j) of [3, 2] is
// in (j, i) of [2, 3], i.e. offset j * 3 + i.
// CHECK-LABEL: func.func @fused_0_single
// CHECK:         %[[OFFS:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<128xi32>
// CHECK:         %[[I:.*]] = arith.divsi %[[OFFS]], %{{.*}} : tensor<128xi32>
// CHECK:         %[[J:.*]] = arith.remsi %[[OFFS]], %{{.*}} : tensor<128xi32>
// CHECK:         %[[THREE:.*]] = arith.constant 3 : i32
// CHECK:         %[[THREES:.*]] = tile.splat %[[THREE]] : tensor<128xi32>
// CHECK:         %[[JS:.*]] = arith.muli %[[J]], %[[THREES]] : tensor<128xi32>
// CHECK:         %[[IN:.*]] = arith.addi %[[JS]], %[[I]] : tensor<128xi32>
// CHECK:         %[[V:.*]] = tile.load %{{.*}}[%[[IN]]]
// CHECK:         tile.store %{{.*}}[%[[OFFS]]], %[[V]]
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = graph.fusion_group "single" (%x) : (tensor<2x3xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %t = graph.transpose %a, [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    graph.yield %t : tensor<3x2xf32>
  }
  return %0 : tensor<3x2xf32>
}

// -----

// f16 tensors are computed in f32: loads are extended, the store truncates.
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      (%{{.*}}: memref<4xf16>, %{{.*}}: memref<4xf16>)
// CHECK:         %[[L:.*]] = tile.load %{{.*}} {padding = 0.000000e+00 : f16} : memref<4xf16>, tensor<128xi32>, tensor<128xi1> -> tensor<128xf16>
// CHECK:         %[[E:.*]] = arith.extf %[[L]] : tensor<128xf16> to tensor<128xf32>
// CHECK:         %[[S:.*]] = math.exp %[[E]] : tensor<128xf32>
// CHECK:         %[[T:.*]] = arith.truncf %[[S]] : tensor<128xf32> to tensor<128xf16>
// CHECK:         tile.store %{{.*}}, %[[T]], %{{.*}} : memref<4xf16>
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = graph.fusion_group "elementwise" (%x) : (tensor<4xf16>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    %e = graph.exp %a : tensor<4xf16>
    graph.yield %e : tensor<4xf16>
  }
  return %0 : tensor<4xf16>
}

// -----

// Elementwise groups may have several results: one output buffer each.
// CHECK-LABEL: func.func @two_results
// CHECK:         %[[A0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NEXT:    %[[A1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NEXT:    tile.launch @kernels::@fused_0_elementwise(%{{.*}}, %[[A0]], %[[A1]])
// CHECK-NEXT:    return %[[A0]], %[[A1]]
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      (%{{.*}}: memref<8xf32>, %[[O0:[^:]*]]: memref<8xf32>, %[[O1:[^:]*]]: memref<8xf32>)
// CHECK:         %[[E:.*]] = math.exp
// CHECK:         %[[T:.*]] = math.tanh %[[E]]
// CHECK:         tile.store %[[O0]][%{{.*}}], %[[E]]
// CHECK:         tile.store %[[O1]][%{{.*}}], %[[T]]
func.func @two_results(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0:2 = graph.fusion_group "elementwise" (%x) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %e = graph.exp %a : tensor<8xf32>
    %t = graph.tanh %e : tensor<8xf32>
    graph.yield %e, %t : tensor<8xf32>, tensor<8xf32>
  }
  return %0#0, %0#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Batched matmul: batch dims [2, 1] x [3] broadcast to [2, 3] = 6 programs along z. The
// batch index pid_z splits into (pid_z / 3, pid_z % 3); A's matrix index is the first (its
// second batch dim is 1: A holds 2 matrices), B's the second (B holds 3).
// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK-SAME:      (%[[A:[^:]*]]: memref<64xf32>, %[[B:[^:]*]]: memref<120xf32>, %[[Y:[^:]*]]: memref<120xf32>)
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [1, 1, 6], num_warps = 4
// CHECK:         %[[PIDZ:.*]] = tile.program_id 2 : i32
// CHECK:         %[[Q0:.*]] = arith.divsi %[[PIDZ]], %{{.*}} : i32
// CHECK:         %[[AMAT:.*]] = arith.addi %{{.*}}, %[[Q0]] : i32
// CHECK:         %[[Q1:.*]] = arith.remsi %[[PIDZ]], %{{.*}} : i32
// CHECK:         %[[BMAT:.*]] = arith.addi %{{.*}}, %[[Q1]] : i32
// CHECK:         scf.for
// CHECK:           tile.block_load %[[A]][%[[AMAT]], %{{.*}}, %{{.*}}] {dims = array<i64: 2, 4, 8>} : memref<64xf32> -> tensor<16x16xf32>
// CHECK-NEXT:      tile.block_load %[[B]][%[[BMAT]], %{{.*}}, %{{.*}}] {dims = array<i64: 3, 8, 5>} : memref<120xf32> -> tensor<16x16xf32>
// CHECK-NEXT:      tile.dot
// The output holds 6 matrices of 4 x 5: the tile goes to matrix pid_z.
// CHECK:         tile.block_store %[[Y]][%[[PIDZ]], %{{.*}}, %{{.*}}], %{{.*}} {dims = array<i64: 6, 4, 5>} : memref<120xf32>, tensor<16x16xf32>
func.func @batched(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = graph.fusion_group "epilogue" (%a, %b) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  ^bb0(%x: tensor<2x1x4x8xf32>, %y: tensor<3x8x5xf32>):
    %m = graph.matmul %x, %y : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
    graph.yield %m : tensor<2x3x4x5xf32>
  }
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Gemm transA: A is stored [K, M] = [40, 100]: the [BK, BM] block at (k0, m0), transposed
// to [BM, BK]; with transB as well, B's [BN, BK] block at (n0, k0), transposed.
// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK:         %[[M0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:         %[[N0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:         scf.for
// CHECK:           %[[K0:.*]] = arith.index_cast
// CHECK-NEXT:      %[[AT:.*]] = tile.block_load %{{.*}}[%{{.*}}, %[[K0]], %[[M0]]] {dims = array<i64: 1, 40, 100>, transpose} : memref<4000xf16> -> tensor<32x32xf16>
// CHECK-NEXT:      %[[BT:.*]] = tile.block_load %{{.*}}[%{{.*}}, %[[N0]], %[[K0]]] {dims = array<i64: 1, 24, 40>, transpose} : memref<960xf16> -> tensor<32x32xf16>
// CHECK-NEXT:      tile.dot %[[AT]], %[[BT]], %{{.*}} : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
func.func @gemm_trans(%x: tensor<40x100xf16>, %w: tensor<24x40xf16>) -> tensor<100x24xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w) : (tensor<40x100xf16>, tensor<24x40xf16>) -> tensor<100x24xf16> {
  ^bb0(%a0: tensor<40x100xf16>, %a1: tensor<24x40xf16>):
    %g = graph.gemm %a0, %a1 {transA = true, transB = true} : (tensor<40x100xf16>, tensor<24x40xf16>) -> tensor<100x24xf16>
    graph.yield %g : tensor<100x24xf16>
  }
  return %0 : tensor<100x24xf16>
}

// -----

// 1-D operands: a vector A [K] is one 1 x K matrix, a vector B [K] one K x 1 matrix; the
// batched B [3, 8, 5] against the vector [8] gives 3 programs along z, A's matrix index 0.
// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [1, 1, 3]
// CHECK:         scf.for
// CHECK:           tile.block_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {dims = array<i64: 1, 1, 8>} : memref<8xf32> -> tensor<16x16xf32>
// CHECK-NEXT:      tile.block_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {dims = array<i64: 3, 8, 5>} : memref<120xf32> -> tensor<16x16xf32>
// The squeezed outputs are still batch x M x N row-major: [3, 5] is 3 matrices of 1 x 5,
// [4] one matrix of 4 x 1.
// CHECK:         tile.block_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {dims = array<i64: 3, 1, 5>} : memref<15xf32>, tensor<16x16xf32>
// CHECK-LABEL: func.func @fused_1_epilogue
// CHECK:         scf.for
// CHECK:           tile.block_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {dims = array<i64: 1, 4, 8>} : memref<32xf32> -> tensor<16x16xf32>
// CHECK-NEXT:      tile.block_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {dims = array<i64: 1, 8, 1>} : memref<8xf32> -> tensor<16x16xf32>
// CHECK:         tile.block_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {dims = array<i64: 1, 4, 1>} : memref<4xf32>, tensor<16x16xf32>
func.func @vectors(%v: tensor<8xf32>, %b: tensor<3x8x5xf32>, %a: tensor<4x8xf32>) -> (tensor<3x5xf32>, tensor<4xf32>) {
  %0 = graph.fusion_group "epilogue" (%v, %b) : (tensor<8xf32>, tensor<3x8x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%x: tensor<8xf32>, %y: tensor<3x8x5xf32>):
    %m = graph.matmul %x, %y : (tensor<8xf32>, tensor<3x8x5xf32>) -> tensor<3x5xf32>
    graph.yield %m : tensor<3x5xf32>
  }
  %1 = graph.fusion_group "epilogue" (%a, %v) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
    %m = graph.matmul %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
    graph.yield %m : tensor<4xf32>
  }
  return %0, %1 : tensor<3x5xf32>, tensor<4xf32>
}

// -----

// Reductions: one program per output element (2 x 4 = 8), the 3 reduced elements (stride 4)
// on one BLOCK = 32 tile; max pads with -inf, mean divides the sum by 3.
// CHECK-LABEL: func.func @reduce
// CHECK:         tile.launch @kernels::@fused_0_reduction(%{{.*}}, %{{.*}}) : memref<2x3x4xf32>, memref<2x1x4xf32>
// CHECK:         tile.launch @kernels::@fused_1_reduction(%{{.*}}, %{{.*}}) : memref<2x3x4xf32>, memref<2x4xf32>
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: memref<24xf32>, %[[Y:[^:]*]]: memref<8xf32>)
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [8, 1, 1], num_warps = 1, num_stages = 1, blocks = {BLOCK = 32 : i64}>
// CHECK:         %[[PID:.*]] = tile.program_id 0 : i32
// Kept coordinates (pid / 4, pid % 4) at strides (12, 1).
// CHECK:         %[[O:.*]] = arith.divsi %[[PID]], %{{.*}} : i32
// CHECK:         %[[OB:.*]] = arith.muli %[[O]], %{{.*}} : i32
// CHECK:         %[[I:.*]] = arith.remsi %[[PID]], %{{.*}} : i32
// CHECK:         %[[BASE:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:         %[[R:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %[[R]], %{{.*}} : tensor<32xi32>
// CHECK:         %[[RS:.*]] = arith.muli %[[R]], %{{.*}} : tensor<32xi32>
// CHECK:         %[[BS:.*]] = tile.splat %[[BASE]] : tensor<32xi32>
// CHECK:         %[[OFFS:.*]] = arith.addi %[[RS]], %[[BS]] : tensor<32xi32>
// CHECK:         %[[V:.*]] = tile.load %[[X]][%[[OFFS]]], %[[MASK]] {padding = 0xFF800000 : f32} : memref<24xf32>, tensor<32xi32>, tensor<32xi1> -> tensor<32xf32>
// CHECK:         %[[M:.*]] = tile.reduce max %[[V]] {axis = 0 : i32} : tensor<32xf32> -> tensor<f32>
// CHECK:         %[[M1:.*]] = tile.expand_dims %[[M]] {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
// CHECK:         %[[AT:.*]] = tile.splat %[[PID]] : tensor<1xi32>
// CHECK:         tile.store %[[Y]][%[[AT]]], %[[M1]] : memref<8xf32>, tensor<1xi32>, tensor<1xf32>
// CHECK-LABEL: func.func @fused_1_reduction
// CHECK:         %[[V:.*]] = tile.load %{{.*}} {padding = 0.000000e+00 : f32}
// CHECK:         %[[S:.*]] = tile.reduce add %[[V]] {axis = 0 : i32} : tensor<32xf32> -> tensor<f32>
// CHECK:         %[[N:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         %[[NS:.*]] = tile.splat %[[N]] : tensor<f32>
// CHECK:         %[[MEAN:.*]] = arith.divf %[[S]], %[[NS]] : tensor<f32>
// CHECK:         tile.expand_dims %[[MEAN]]
func.func @reduce(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x4xf32>) {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  ^bb0(%a: tensor<2x3x4xf32>):
    %r = graph.reduce_max %a {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
    graph.yield %r : tensor<2x1x4xf32>
  }
  %1 = graph.fusion_group "reduction" (%x) : (tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x3x4xf32>):
    %r = graph.reduce_mean %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
    graph.yield %r : tensor<2x4xf32>
  }
  return %0, %1 : tensor<2x1x4xf32>, tensor<2x4xf32>
}

// -----

// Graph ops must be in fusion groups first.
func.func @unfused(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{convert-graph-to-tile: graph.relu is outside any fusion group; run graph-fuse (aicc-fusion-pipeline) first}}
  %0 = graph.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// RMS norm (layer_norm with rms) in the row kernel: no mean is subtracted; the row's mean
// square (masked lanes load 0) plus epsilon under the square root, inverted once per row,
// scales x, then the scale operand. The statistics and x / rms are f64 for an f32 row
// (docs/numerics.md).
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [6, 1, 1]
// CHECK:         %[[X:.*]] = tile.load %arg0[%{{.*}}], %{{.*}} {padding = 0.000000e+00 : f32}
// CHECK-NOT:     arith.subf
// CHECK:         %[[XW:.*]] = arith.extf %[[X]] : tensor<32xf32> to tensor<32xf64>
// CHECK:         %[[SQ:.*]] = arith.mulf %[[XW]], %[[XW]] : tensor<32xf64>
// CHECK:         %[[SUM:.*]] = tile.reduce add %[[SQ]] {axis = 0 : i32} : tensor<32xf64> -> tensor<f64>
// CHECK:         %[[MS:.*]] = arith.divf %[[SUM]], %{{.*}} : tensor<f64>
// CHECK:         %[[MSE:.*]] = arith.addf %[[MS]], %{{.*}} : tensor<f64>
// CHECK:         %[[RMS:.*]] = math.sqrt %[[MSE]] : tensor<f64>
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[RMS]] : tensor<f64>
// CHECK:         %[[NW:.*]] = arith.mulf %[[XW]], %{{.*}} : tensor<32xf64>
// CHECK:         %[[N:.*]] = arith.truncf %[[NW]] : tensor<32xf64> to tensor<32xf32>
// CHECK:         %[[S:.*]] = tile.load %arg1
// CHECK:         %[[Y:.*]] = arith.mulf %[[N]], %[[S]] : tensor<32xf32>
// CHECK:         tile.store %arg2[%{{.*}}], %[[Y]]
func.func @rms_norm(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.fusion_group "softmax" (%x, %s) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32> {
  ^bb0(%a0: tensor<2x3x4xf32>, %a1: tensor<4xf32>):
    %n = graph.layer_norm %a0 scale %a1 {axis = 2 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    graph.yield %n : tensor<2x3x4xf32>
  }
  return %0 : tensor<2x3x4xf32>
}

// -----

// A constant whose name the module already uses: the global is renamed (the pass used to
// create a second @__constant_0, a symbol redefinition).
// CHECK-LABEL: memref.global "private" constant @__constant_0_0 : memref<2xf32>
// CHECK-LABEL: func.func @__constant_0
// CHECK-LABEL: func.func @constant_name_taken
// CHECK:         memref.get_global @__constant_0_0 : memref<2xf32>
func.func @__constant_0() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}
func.func @constant_name_taken() -> tensor<2xf32> {
  %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
