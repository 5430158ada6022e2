// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile -canonicalize -cse -convert-tile-to-gpu-registers | FileCheck %s

// A softmax row of 2048 f16 elements on 2 warps (the row template's choice for 4 KiB rows):
// each thread holds 4 chunks of 8 contiguous f16 (#tile.blocked sizePerThread = [8]) in one
// vector<32xf16>; when every lane of its mask is set the thread issues four 16-byte
// vector.loads before any use, else a masked gather. Each tile.reduce is a pairwise tree over
// the thread's registers, a 5-step xor butterfly over the warp, and one shared-memory
// exchange across the 2 warps (a memref.alloc that convert-tile-to-gpu makes a workgroup
// attribution). The store is four 16-byte vector.stores under the same all-lanes check.
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      tile.layouts = [#tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>]
// CHECK:         %[[SMEM:.*]] = memref.alloc() : memref<2xf32>
// CHECK:         gpu.thread_id x
// CHECK:         gpu.block_id x
// CHECK:         %[[ALL:.*]] = vector.reduction <and>, %{{.*}} : vector<32xi1> into i1
// CHECK:         scf.if %[[ALL]] -> (vector<32xf16>) {
// CHECK-COUNT-4:   vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<8192xf16>, vector<8xf16>
// CHECK:         } else {
// CHECK:           vector.gather %arg0
// CHECK:         arith.extf %{{.*}} : vector<32xf16> to vector<32xf32>
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}}, %[[SMEM]]
// CHECK:         gpu.barrier
// CHECK:         memref.load %[[SMEM]]
// CHECK:         memref.load %[[SMEM]]
// CHECK:         math.exp %{{.*}} : vector<32xf32>
// CHECK:         arith.truncf %{{.*}} : vector<32xf32> to vector<32xf16>
// CHECK:         scf.if
// CHECK-COUNT-4:   vector.store %{{.*}}, %arg1[%{{.*}}] {alignment = 16 : i64} : memref<8192xf16>, vector<8xf16>
// CHECK:         } else {
// CHECK:           vector.scatter %arg1
// CHECK:         return
func.func @softmax_rows(%x: tensor<4x2048xf16>) -> tensor<4x2048xf16> {
  %0 = graph.fusion_group "softmax" (%x) : (tensor<4x2048xf16>) -> tensor<4x2048xf16> {
  ^bb0(%a: tensor<4x2048xf16>):
    %s = graph.softmax %a {axis = 1 : i64} : tensor<4x2048xf16>
    graph.yield %s : tensor<4x2048xf16>
  }
  return %0 : tensor<4x2048xf16>
}

// -----

// An elementwise add with a broadcast operand of one element: the [1] buffer is read once
// per thread at its single address (constancy covers the tile) and broadcast in registers;
// the other operand is read with 16-byte loads (4 f32 per chunk).
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      tile.layouts = [#tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>]
// CHECK:         vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK:         %[[ANY:.*]] = vector.reduction <or>
// CHECK:         scf.if %[[ANY]] -> (f32) {
// CHECK:           memref.load %arg1[%{{.*}}] : memref<1xf32>
// CHECK:         vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @add_scalar(%x: tensor<4096xf32>, %b: tensor<1xf32>) -> tensor<4096xf32> {
  %0 = graph.fusion_group "elementwise" (%x, %b) : (tensor<4096xf32>, tensor<1xf32>) -> tensor<4096xf32> {
  ^bb0(%a0: tensor<4096xf32>, %a1: tensor<1xf32>):
    %r = graph.add %a0, %a1 : (tensor<4096xf32>, tensor<1xf32>) -> tensor<4096xf32>
    graph.yield %r : tensor<4096xf32>
  }
  return %0 : tensor<4096xf32>
}

// -----

// 2-D tiles (a matmul's tile.dot) stay on the bufferizing path, with the reason recorded.
// CHECK-LABEL: func.func @fused_0_epilogue
// CHECK-SAME:      tile.register_path_refused = "tile.dot"
// CHECK:         tile.dot
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = graph.fusion_group "epilogue" (%a, %b) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>):
    %m = graph.matmul %x, %y : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    graph.yield %m : tensor<16x16xf32>
  }
  return %0 : tensor<16x16xf32>
}

// -----

// Short rows (4096 rows of 256 f16): one-warp programs, packed 8 to a CUDA block
// (tile.programs_per_cta): the program id is block * 8 + warp, the program's thread is the lane,
// and num_programs stays the program grid. No shared memory: the row's reductions stay in the warp.
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      tile.programs_per_cta = 8 : i64
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [4096, 1, 1], num_warps = 1
// CHECK-NOT:     memref.alloc
// CHECK:         %[[T:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[WARP:.*]] = arith.divui %[[T]], %{{.*}} : i32
// CHECK:         %[[LANE:.*]] = arith.remui %[[T]], %{{.*}} : i32
// CHECK:         %[[B:.*]] = gpu.block_id x
// CHECK:         %[[BI:.*]] = arith.index_cast %[[B]] : index to i32
// CHECK:         %[[B8:.*]] = arith.muli %[[BI]], %{{.*}} : i32
// CHECK:         arith.addi %[[B8]], %[[WARP]] : i32
// CHECK-NOT:     gpu.barrier
// CHECK:         return
func.func @short_rows(%x: tensor<4096x256xf16>) -> tensor<4096x256xf16> {
  %0 = graph.fusion_group "softmax" (%x) : (tensor<4096x256xf16>) -> tensor<4096x256xf16> {
  ^bb0(%a: tensor<4096x256xf16>):
    %s = graph.softmax %a {axis = 1 : i64} : tensor<4096x256xf16>
    graph.yield %s : tensor<4096x256xf16>
  }
  return %0 : tensor<4096x256xf16>
}

// -----

// A tile.reduce written over a 16-bit type (the templates reduce in f32, but the op allows f16):
// the warp butterfly moves the f16 bits widened to i32 (an f16 -> i64 bitcast does not exist).
// 64-bit values go as two 32-bit halves.
// CHECK-LABEL: func.func @reduce_f16
// CHECK:         %[[H:.*]] = arith.bitcast %{{.*}} : f16 to i16
// CHECK:         %[[W:.*]] = arith.extui %[[H]] : i16 to i32
// CHECK:         %[[S:.*]], %{{.*}} = gpu.shuffle  xor %[[W]], %{{.*}} : i32
// CHECK:         %[[N:.*]] = arith.trunci %[[S]] : i32 to i16
// CHECK:         arith.bitcast %[[N]] : i16 to f16
// CHECK-LABEL: func.func @reduce_f64
// CHECK:         %[[D:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK:         %[[LO:.*]] = arith.trunci %[[D]] : i64 to i32
// CHECK:         gpu.shuffle  xor %[[LO]]
// CHECK:         %[[HI:.*]] = arith.shrui %[[D]]
// CHECK:         arith.trunci %[[HI]] : i64 to i32
// CHECK:         gpu.shuffle  xor
// CHECK:         arith.bitcast %{{.*}} : i64 to f64
module {
  module @kernels {
    func.func @reduce_f16(%x: memref<1024xf16>, %y: memref<4xf16>) attributes {tile.schedule = #tile.schedule<grid = [4, 1, 1], num_warps = 2, num_stages = 1, blocks = {BLOCK = 256 : i64}>} {
      %c256 = arith.constant 256 : i32
      %pid = tile.program_id 0 : i32
      %base = arith.muli %pid, %c256 : i32
      %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
      %b = tile.splat %base : tensor<256xi32>
      %offs = arith.addi %b, %r : tensor<256xi32>
      %v = tile.load %x[%offs] : memref<1024xf16>, tensor<256xi32> -> tensor<256xf16>
      %s = tile.reduce add %v {axis = 0 : i32} : tensor<256xf16> -> tensor<f16>
      %s1 = tile.expand_dims %s {axis = 0 : i32} : tensor<f16> -> tensor<1xf16>
      %o = tile.splat %pid : tensor<1xi32>
      tile.store %y[%o], %s1 : memref<4xf16>, tensor<1xi32>, tensor<1xf16>
      return
    }
    func.func @reduce_f64(%x: memref<1024xf64>, %y: memref<4xf64>) attributes {tile.schedule = #tile.schedule<grid = [4, 1, 1], num_warps = 2, num_stages = 1, blocks = {BLOCK = 256 : i64}>} {
      %c256 = arith.constant 256 : i32
      %pid = tile.program_id 0 : i32
      %base = arith.muli %pid, %c256 : i32
      %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
      %b = tile.splat %base : tensor<256xi32>
      %offs = arith.addi %b, %r : tensor<256xi32>
      %v = tile.load %x[%offs] : memref<1024xf64>, tensor<256xi32> -> tensor<256xf64>
      %s = tile.reduce max %v {axis = 0 : i32} : tensor<256xf64> -> tensor<f64>
      %s1 = tile.expand_dims %s {axis = 0 : i32} : tensor<f64> -> tensor<1xf64>
      %o = tile.splat %pid : tensor<1xi32>
      tile.store %y[%o], %s1 : memref<4xf64>, tensor<1xi32>, tensor<1xf64>
      return
    }
  }
}

// -----

// The axis analysis keeps a remsi's runs contiguous only for a provably non-negative dividend:
// ((i - 16) rem 16) + 16 is 16, 1, 2, ... (remsi truncates toward zero), so its load gathers;
// (i rem 16) + 16 is 4-element runs at multiples of 4 and is read with 16-byte loads.
// CHECK-LABEL: func.func @rem_negative
// CHECK-NOT:     vector.load
// CHECK:         vector.gather %arg0
// CHECK-LABEL: func.func @rem_non_negative
// CHECK:         vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
module {
  module @kernels {
    func.func @rem_negative(%x: memref<64xf32>, %y: memref<128xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {BLOCK = 128 : i64}>} {
      %c16 = arith.constant 16 : i32
      %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
      %s = tile.splat %c16 : tensor<128xi32>
      %a = arith.subi %r, %s : tensor<128xi32>
      %m = arith.remsi %a, %s : tensor<128xi32>
      %o = arith.addi %m, %s : tensor<128xi32>
      %v = tile.load %x[%o] : memref<64xf32>, tensor<128xi32> -> tensor<128xf32>
      tile.store %y[%r], %v : memref<128xf32>, tensor<128xi32>, tensor<128xf32>
      return
    }
    func.func @rem_non_negative(%x: memref<64xf32>, %y: memref<128xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {BLOCK = 128 : i64}>} {
      %c16 = arith.constant 16 : i32
      %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
      %s = tile.splat %c16 : tensor<128xi32>
      %m = arith.remsi %r, %s : tensor<128xi32>
      %o = arith.addi %m, %s : tensor<128xi32>
      %v = tile.load %x[%o] : memref<64xf32>, tensor<128xi32> -> tensor<128xf32>
      tile.store %y[%r], %v : memref<128xf32>, tensor<128xi32>, tensor<128xf32>
      return
    }
  }
}

// -----

// A channels-last depthwise conv on the window template: each masked tap load is a
// gather on a non-empty buffer whose masked-off lanes read element 0 and take the padding
// by a select (no masked gather: its per-lane branches kept ptxas from overlapping the
// taps' loads; mobilenet_v3_small_f16's 5x5 convs 17.9 -> 13.7 us on the H200).
// CHECK-LABEL: func.func @fused_0_window
// CHECK:         %[[PAD:.*]] = vector.broadcast %{{.*}} : f16 to vector<2xf16>
// CHECK:         %[[ALL:.*]] = arith.constant dense<true> : vector<2xi1>
// CHECK:         %[[SAFE:.*]] = arith.select %[[M:.*]], %{{.*}}, %{{.*}} : vector<2xi1>, vector<2xi32>
// CHECK:         %[[G:.*]] = vector.gather %arg0[%{{.*}}] [%[[SAFE]]], %[[ALL]], %[[PAD]]
// CHECK:         arith.select %[[M]], %[[G]], %[[PAD]] : vector<2xi1>, vector<2xf16>
func.func @depthwise_nhwc(%x: tensor<2x8x8x128xf16>, %w: tensor<128x3x3x1xf16>) -> tensor<2x8x8x128xf16> {
  %0 = graph.fusion_group "window" (%x, %w) : (tensor<2x8x8x128xf16>, tensor<128x3x3x1xf16>) -> tensor<2x8x8x128xf16> {
  ^bb0(%a: tensor<2x8x8x128xf16>, %b: tensor<128x3x3x1xf16>):
    %c = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 128 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x8x128xf16>, tensor<128x3x3x1xf16>) -> tensor<2x8x8x128xf16>
    graph.yield %c : tensor<2x8x8x128xf16>
  }
  return %0 : tensor<2x8x8x128xf16>
}

// -----

// A per-row operand ([256, 1] over [256, 8]): its offset is the row, offs / 8, one value per
// run of 8 elements (AxisAnalysis's div rule), so each 4-lane chunk of a thread reads it with
// one scalar memref.load (at element 0 where no lane of the chunk is active), not a
// gather of four equal addresses.
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      tile.layouts = [#tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>]
// CHECK-NOT:     vector.gather %arg1
// CHECK:         %[[ANY:.*]] = arith.ori
// CHECK:         %[[O:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:         memref.load %arg1[%{{.*}}] : memref<256xf32>
// CHECK:         memref.load %arg1[%{{.*}}] : memref<256xf32>
// CHECK-NOT:     memref.load %arg1
// CHECK-NOT:     vector.gather %arg1
// CHECK:         return
func.func @row_bias(%x: tensor<256x8xf32>, %b: tensor<256x1xf32>) -> tensor<256x8xf32> {
  %0 = graph.fusion_group "elementwise" (%x, %b) : (tensor<256x8xf32>, tensor<256x1xf32>) -> tensor<256x8xf32> {
  ^bb0(%a: tensor<256x8xf32>, %c: tensor<256x1xf32>):
    %r = graph.add %a, %c : (tensor<256x8xf32>, tensor<256x1xf32>) -> tensor<256x8xf32>
    graph.yield %r : tensor<256x8xf32>
  }
  return %0 : tensor<256x8xf32>
}
