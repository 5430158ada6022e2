// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile | FileCheck %s

// Reductions over more than 4096 elements loop over the reduced extent in chunks of
// BLOCK = 1024, carrying per-lane partials; rows (softmax, log_softmax, layer_norm, RMS norm)
// over more than 16384 elements loop in chunks of BLOCK = 4096: one statistics pass (online
// softmax; shifted-data variance) and one pass that writes.

// A reduce_max over 6480 f16 elements per output: the loop's chunks start at 0, 1024, ...;
// lanes past 6480 are masked and load -inf; the f32 partial is combined with maximumf and
// reduced across the lanes once, after the loop.
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: memref<12960xf16>, %[[Y:[^:]*]]: memref<2xf16>)
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 1024 : i64}>
// CHECK:         %[[PID:.*]] = tile.program_id 0 : i32
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = tile.splat %[[NINF]] : tensor<1024xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[CR:.*]] = arith.constant 6480 : index
// CHECK:         %[[CB:.*]] = arith.constant 1024 : index
// CHECK:         %[[LOOP:.*]] = scf.for %[[IV:.*]] = %[[C0]] to %[[CR]] step %[[CB]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<1024xf32>) {
// CHECK:           %[[K:.*]] = arith.index_cast %[[IV]] : index to i32
// CHECK:           %[[R:.*]] = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
// CHECK:           %[[KS:.*]] = tile.splat %[[K]] : tensor<1024xi32>
// CHECK:           %[[COLS:.*]] = arith.addi %[[KS]], %[[R]] : tensor<1024xi32>
// CHECK:           %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<1024xi32>
// CHECK:           %[[OFFS:.*]] = arith.addi %[[COLS]], %{{.*}} : tensor<1024xi32>
// CHECK:           %[[H:.*]] = tile.load %[[X]][%[[OFFS]]], %[[MASK]] {padding = 0xFC00 : f16} : memref<12960xf16>, tensor<1024xi32>, tensor<1024xi1> -> tensor<1024xf16>
// CHECK:           %[[F:.*]] = arith.extf %[[H]] : tensor<1024xf16> to tensor<1024xf32>
// CHECK:           %[[NEXT:.*]] = arith.maximumf %[[ACC]], %[[F]] : tensor<1024xf32>
// CHECK:           scf.yield %[[NEXT]] : tensor<1024xf32>
// CHECK:         }
// CHECK:         %[[M:.*]] = tile.reduce max %[[LOOP]] {axis = 0 : i32} : tensor<1024xf32> -> tensor<f32>
// CHECK:         %[[M1:.*]] = tile.expand_dims %[[M]]
// CHECK:         %[[AT:.*]] = tile.splat %[[PID]] : tensor<1xi32>
// CHECK:         %[[MH:.*]] = arith.truncf %[[M1]] : tensor<1xf32> to tensor<1xf16>
// CHECK:         tile.store %[[Y]][%[[AT]]], %[[MH]]
func.func @long_reduce_max(%x: tensor<2x6480xf16>) -> tensor<2xf16> {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<2x6480xf16>) -> tensor<2xf16> {
  ^bb0(%a: tensor<2x6480xf16>):
    %r = graph.reduce_max %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x6480xf16>) -> tensor<2xf16>
    graph.yield %r : tensor<2xf16>
  }
  return %0 : tensor<2xf16>
}

// -----

// A strided reduce_mean (axis 0 of [5000, 3]): the chunk's row index times the stride 3,
// partial sums padded with 0, the division by 5000 after the lane reduction.
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      grid = [3, 1, 1]
// CHECK:         scf.for
// CHECK:           %[[COLS:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<1024xi32>
// CHECK:           %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<1024xi32>
// CHECK:           %[[S:.*]] = arith.muli %[[COLS]], %{{.*}} : tensor<1024xi32>
// CHECK:           %[[OFFS:.*]] = arith.addi %[[S]], %{{.*}} : tensor<1024xi32>
// CHECK:           %[[V:.*]] = tile.load %{{.*}}[%[[OFFS]]], %[[MASK]] {padding = 0.000000e+00 : f32}
// CHECK:           %[[NEXT:.*]] = arith.addf %{{.*}}, %[[V]] : tensor<1024xf32>
// CHECK:           scf.yield %[[NEXT]]
// CHECK:         %[[SUM:.*]] = tile.reduce add
// CHECK:         %[[N:.*]] = arith.constant 5.000000e+03 : f32
// CHECK:         %[[NS:.*]] = tile.splat %[[N]] : tensor<f32>
// CHECK:         arith.divf %[[SUM]], %[[NS]] : tensor<f32>
func.func @long_reduce_mean(%x: tensor<5000x3xf32>) -> tensor<3xf32> {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<5000x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<5000x3xf32>):
    %r = graph.reduce_mean %a {axes = array<i64: 0>, keepdims = false} : (tensor<5000x3xf32>) -> tensor<3xf32>
    graph.yield %r : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}

// -----

// A softmax row of 20000: one online pass carries the running max (a scalar: each chunk's
// max reduced across the lanes) and per-lane sums rescaled by exp(m_old - m_new); the second
// pass writes exp(x - max) * (1 / sum) through the fused consumer (* y).
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 8, num_stages = 1, blocks = {BLOCK = 4096 : i64}>
// CHECK:         %[[L:.*]]:2 = scf.for %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (f32, tensor<4096xf32>) {
// CHECK:           %[[X1:.*]] = tile.load %arg0[%{{.*}}], %{{.*}} {padding = 0xFF800000 : f32}
// CHECK:           %[[CM:.*]] = tile.reduce max %[[X1]] {axis = 0 : i32} : tensor<4096xf32> -> tensor<f32>
// CHECK:           %[[CMS:.*]] = tensor.extract %[[CM]][] : tensor<f32>
// CHECK:           %[[MN:.*]] = arith.maximumf %[[M]], %[[CMS]] : f32
// CHECK:           %[[NONE:.*]] = arith.cmpf oeq, %[[MN]], %{{.*}} : f32
// CHECK:           %[[DM:.*]] = arith.subf %[[M]], %[[MN]] : f32
// CHECK:           %[[EA:.*]] = math.exp %[[DM]] : f32
// CHECK:           %[[ALPHA:.*]] = arith.select %[[NONE]], %{{.*}}, %[[EA]] : f32
// CHECK:           %[[MNT:.*]] = tile.splat %[[MN]] : tensor<4096xf32>
// CHECK:           %[[D:.*]] = arith.subf %[[X1]], %[[MNT]] : tensor<4096xf32>
// CHECK:           %[[E:.*]] = math.exp %[[D]] : tensor<4096xf32>
// CHECK:           %[[E0:.*]] = arith.select %[[NONE]], %{{.*}}, %[[E]] : tensor<4096xf32>
// CHECK:           %[[AT:.*]] = tile.splat %[[ALPHA]] : tensor<4096xf32>
// CHECK:           %[[SC:.*]] = arith.mulf %[[S]], %[[AT]] : tensor<4096xf32>
// CHECK:           %[[SN:.*]] = arith.addf %[[SC]], %[[E0]] : tensor<4096xf32>
// CHECK:           scf.yield %[[MN]], %[[SN]] : f32, tensor<4096xf32>
// CHECK:         %[[MAXT:.*]] = tile.splat %[[L]]#0 : tensor<4096xf32>
// CHECK:         %[[SUM:.*]] = tile.reduce add %[[L]]#1 {axis = 0 : i32} : tensor<4096xf32> -> tensor<f32>
// CHECK:         %[[INV:.*]] = arith.divf %{{.*}}, %[[SUM]] : tensor<f32>
// CHECK:         %[[SUME:.*]] = tile.expand_dims %[[INV]]
// CHECK:         %[[SUMT:.*]] = tile.broadcast %[[SUME]] : tensor<1xf32> -> tensor<4096xf32>
// CHECK:         scf.for
// CHECK:           %[[X3:.*]] = tile.load %arg0[%[[OFFS:[0-9]+]]], %[[MASK:[0-9]+]] {padding = 0xFF800000 : f32}
// CHECK:           %[[D3:.*]] = arith.subf %[[X3]], %[[MAXT]] : tensor<4096xf32>
// CHECK:           %[[E3:.*]] = math.exp %[[D3]] : tensor<4096xf32>
// CHECK:           %[[P:.*]] = arith.mulf %[[E3]], %[[SUMT]] : tensor<4096xf32>
// CHECK:           %[[W:.*]] = tile.load %arg1
// CHECK:           %[[OUT:.*]] = arith.mulf %[[P]], %[[W]] : tensor<4096xf32>
// CHECK:           tile.store %arg2[%[[OFFS]]], %[[OUT]], %[[MASK]]
// CHECK:         }
// CHECK-NEXT:    return
func.func @long_softmax(%x: tensor<2x20000xf32>, %y: tensor<20000xf32>) -> tensor<2x20000xf32> {
  %0 = graph.fusion_group "softmax" (%x, %y) : (tensor<2x20000xf32>, tensor<20000xf32>) -> tensor<2x20000xf32> {
  ^bb0(%a: tensor<2x20000xf32>, %b: tensor<20000xf32>):
    %s = graph.softmax %a {axis = 1 : i64} : tensor<2x20000xf32>
    %m = graph.mul %s, %b : (tensor<2x20000xf32>, tensor<20000xf32>) -> tensor<2x20000xf32>
    graph.yield %m : tensor<2x20000xf32>
  }
  return %0 : tensor<2x20000xf32>
}

// -----

// log_softmax over a strided axis (inner dim 2): the columns are scaled by the stride; the
// write pass subtracts max and log(sum).
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      grid = [4, 1, 1]
// CHECK:         %[[SUM:.*]] = tile.reduce add
// CHECK:         %[[LOG:.*]] = math.log %[[SUM]] : tensor<f32>
// CHECK:         %[[LOGE:.*]] = tile.expand_dims %[[LOG]]
// CHECK:         %[[LOGT:.*]] = tile.broadcast %[[LOGE]]
// CHECK:         scf.for
// CHECK:           %[[COLS:.*]] = arith.addi
// CHECK:           arith.cmpi slt, %[[COLS]]
// CHECK:           %[[STR:.*]] = arith.muli %[[COLS]], %{{.*}} : tensor<4096xi32>
// CHECK:           %[[OFFS:.*]] = arith.addi %{{.*}}, %[[STR]] : tensor<4096xi32>
// CHECK:           %[[X:.*]] = tile.load %arg0[%[[OFFS]]]
// CHECK:           %[[XF:.*]] = arith.extf %[[X]] : tensor<4096xf16> to tensor<4096xf32>
// CHECK:           %[[D:.*]] = arith.subf %[[XF]], %{{.*}} : tensor<4096xf32>
// CHECK:           %[[L:.*]] = arith.subf %[[D]], %[[LOGT]] : tensor<4096xf32>
// CHECK:           %[[LH:.*]] = arith.truncf %[[L]] : tensor<4096xf32> to tensor<4096xf16>
// CHECK:           tile.store %arg1[%[[OFFS]]], %[[LH]]
func.func @long_log_softmax(%x: tensor<2x17000x2xf16>) -> tensor<2x17000x2xf16> {
  %0 = graph.fusion_group "softmax" (%x) : (tensor<2x17000x2xf16>) -> tensor<2x17000x2xf16> {
  ^bb0(%a: tensor<2x17000x2xf16>):
    %s = graph.log_softmax %a {axis = 1 : i64} : tensor<2x17000x2xf16>
    graph.yield %s : tensor<2x17000x2xf16>
  }
  return %0 : tensor<2x17000x2xf16>
}

// -----

// layer_norm over 20000: one statistics pass over d = x - K (K: the row's first element,
// loaded as a 1-element tile) carrying per-lane sums of d and d^2 (masked lanes zeroed);
// var = E[d^2] - E[d]^2 (clamped at 0), mean = K + E[d]; one pass writes
// (x - mean) / sqrt(var + eps) * scale. The sums, var and 1 / std are f64 for an f32 row
// (x^2 overflows f32 above 1.8e19; docs/numerics.md), mean and 1 / std are stored in f32.
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK:         %[[K:.*]] = tile.load %arg0[%{{.*}}] {padding = 0.000000e+00 : f32} : memref<40000xf32>, tensor<1xi32> -> tensor<1xf32>
// CHECK:         %[[KS:.*]] = tile.reduce add %[[K]]
// CHECK:         %[[KE:.*]] = tile.expand_dims %[[KS]]
// CHECK:         %[[KT:.*]] = tile.broadcast %[[KE]] : tensor<1xf32> -> tensor<4096xf32>
// CHECK:         %[[L:.*]]:2 = scf.for {{.*}} iter_args(%[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}) -> (tensor<4096xf64>, tensor<4096xf64>) {
// CHECK:           %[[MASK:.*]] = arith.cmpi slt
// CHECK:           %[[X:.*]] = tile.load %arg0
// CHECK:           %[[D:.*]] = arith.subf %[[X]], %[[KT]] : tensor<4096xf32>
// CHECK:           %[[DM:.*]] = arith.select %[[MASK]], %[[D]], %{{.*}} : tensor<4096xi1>, tensor<4096xf32>
// CHECK:           %[[DW:.*]] = arith.extf %[[DM]] : tensor<4096xf32> to tensor<4096xf64>
// CHECK:           %[[N1:.*]] = arith.addf %[[A1]], %[[DW]] : tensor<4096xf64>
// CHECK:           %[[SQ:.*]] = arith.mulf %[[DW]], %[[DW]] : tensor<4096xf64>
// CHECK:           %[[N2:.*]] = arith.addf %[[A2]], %[[SQ]] : tensor<4096xf64>
// CHECK:           scf.yield %[[N1]], %[[N2]]
// CHECK:         %[[SS:.*]] = tile.reduce add %[[L]]#1
// CHECK:         %[[MSQ:.*]] = arith.divf %[[SS]], %{{.*}} : tensor<f64>
// CHECK:         %[[SD:.*]] = tile.reduce add %[[L]]#0
// CHECK:         %[[MD:.*]] = arith.divf %[[SD]], %{{.*}} : tensor<f64>
// CHECK:         %[[MD2:.*]] = arith.mulf %[[MD]], %[[MD]] : tensor<f64>
// CHECK:         %[[V0:.*]] = arith.subf %[[MSQ]], %[[MD2]] : tensor<f64>
// CHECK:         %[[VAR:.*]] = arith.maximumf %[[V0]], %{{.*}} : tensor<f64>
// CHECK:         %[[MD32:.*]] = arith.truncf %[[MD]] : tensor<f64> to tensor<f32>
// CHECK:         %[[MDE:.*]] = tile.expand_dims %[[MD32]]
// CHECK:         %[[MDT:.*]] = tile.broadcast %[[MDE]]
// CHECK:         %[[MEANT:.*]] = arith.addf %[[KT]], %[[MDT]] : tensor<4096xf32>
// CHECK:         %[[VE:.*]] = arith.addf %[[VAR]], %{{.*}} : tensor<f64>
// CHECK:         %[[STD:.*]] = math.sqrt %[[VE]] : tensor<f64>
// CHECK:         %[[INV64:.*]] = arith.divf %{{.*}}, %[[STD]] : tensor<f64>
// CHECK:         %[[INV:.*]] = arith.truncf %[[INV64]] : tensor<f64> to tensor<f32>
// CHECK:         %[[STDE:.*]] = tile.expand_dims %[[INV]]
// CHECK:         %[[STDT:.*]] = tile.broadcast %[[STDE]]
// CHECK:         scf.for
// CHECK:           %[[X3:.*]] = tile.load %arg0
// CHECK:           %[[D3:.*]] = arith.subf %[[X3]], %[[MEANT]] : tensor<4096xf32>
// CHECK:           %[[N3:.*]] = arith.mulf %[[D3]], %[[STDT]] : tensor<4096xf32>
// CHECK:           %[[S3:.*]] = tile.load %arg1
// CHECK:           %[[Y3:.*]] = arith.mulf %[[N3]], %[[S3]] : tensor<4096xf32>
// CHECK:           tile.store %arg2[%{{.*}}], %[[Y3]]
func.func @long_layer_norm(%x: tensor<2x20000xf32>, %s: tensor<20000xf32>) -> tensor<2x20000xf32> {
  %0 = graph.fusion_group "softmax" (%x, %s) : (tensor<2x20000xf32>, tensor<20000xf32>) -> tensor<2x20000xf32> {
  ^bb0(%a0: tensor<2x20000xf32>, %a1: tensor<20000xf32>):
    %n = graph.layer_norm %a0 scale %a1 {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x20000xf32>, tensor<20000xf32>) -> tensor<2x20000xf32>
    graph.yield %n : tensor<2x20000xf32>
  }
  return %0 : tensor<2x20000xf32>
}

// -----

// RMS norm over 20000: no shift; the squares of x itself are summed (in f64).
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK:         scf.for
// CHECK-NOT:       arith.subf
// CHECK:           %[[X:.*]] = tile.load %arg0
// CHECK:           %[[XW:.*]] = arith.extf %{{.*}} : tensor<4096xf32> to tensor<4096xf64>
// CHECK:           %[[SQ:.*]] = arith.mulf %[[XW]], %[[XW]] : tensor<4096xf64>
// CHECK:         math.sqrt
// CHECK:         scf.for
// CHECK-NOT:       arith.subf
// CHECK:           tile.store
func.func @long_rms_norm(%x: tensor<2x20000xf32>) -> tensor<2x20000xf32> {
  %0 = graph.fusion_group "softmax" (%x) : (tensor<2x20000xf32>) -> tensor<2x20000xf32> {
  ^bb0(%a0: tensor<2x20000xf32>):
    %n = graph.layer_norm %a0 {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<2x20000xf32>) -> tensor<2x20000xf32>
    graph.yield %n : tensor<2x20000xf32>
  }
  return %0 : tensor<2x20000xf32>
}
