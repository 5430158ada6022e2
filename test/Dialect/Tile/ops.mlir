// Every tile op and attribute round-trips through its custom assembly and the generic form.
// RUN: aicc-opt %s | aicc-opt | FileCheck %s
// RUN: aicc-opt %s --mlir-print-op-generic | aicc-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise_kernel
// CHECK-SAME:      (%[[P:[^:]*]]: memref<4096xf32>, %[[Q:[^:]*]]: memref<4096xf32>)
// CHECK-SAME:      attributes {tile.schedule = #tile.schedule<grid = [4, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 1024 : i64}>}
func.func @elementwise_kernel(%p: memref<4096xf32>, %q: memref<4096xf32>) attributes {
    tile.schedule = #tile.schedule<grid = [4, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 1024 : i64}>} {
  // CHECK:       %[[PID:.*]] = tile.program_id 0 : i32
  %pid = tile.program_id 0 : i32
  // CHECK:       %[[NP:.*]] = tile.num_programs 2 : i32
  %np = tile.num_programs 2 : i32
  // CHECK:       %[[R:.*]] = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  // CHECK:       %[[R2:.*]] = tile.make_range {end = 20 : i32, start = 4 : i32} : tensor<16xi32>
  %r2 = tile.make_range {start = 4 : i32, end = 20 : i32} : tensor<16xi32>
  // CHECK:       %[[S:.*]] = tile.splat %[[PID]] : tensor<1024xi32>
  %s = tile.splat %pid : tensor<1024xi32>
  %o = arith.addi %r, %s : tensor<1024xi32>
  // CHECK:       %[[LIM:.*]] = tile.splat %[[NP]] : tensor<1024xi32>
  %lim = tile.splat %np : tensor<1024xi32>
  %m = arith.cmpi slt, %o, %lim : tensor<1024xi32>
  // CHECK:       %[[X:.*]] = tile.load %[[P]][%[[O:.*]]], %[[M:.*]] {padding = 0xFF800000 : f32} : memref<4096xf32>, tensor<1024xi32>, tensor<1024xi1> -> tensor<1024xf32>
  %x = tile.load %p[%o], %m {padding = 0xFF800000 : f32} : memref<4096xf32>, tensor<1024xi32>, tensor<1024xi1> -> tensor<1024xf32>
  // CHECK:       %[[XM:.*]] = tile.load %[[P]][%[[O]]], %[[M]] : memref<4096xf32>, tensor<1024xi32>, tensor<1024xi1> -> tensor<1024xf32>
  %xm = tile.load %p[%o], %m : memref<4096xf32>, tensor<1024xi32>, tensor<1024xi1> -> tensor<1024xf32>
  // CHECK:       %[[Y:.*]] = tile.load %[[P]][%[[O]]] : memref<4096xf32>, tensor<1024xi32> -> tensor<1024xf32>
  %y = tile.load %p[%o] : memref<4096xf32>, tensor<1024xi32> -> tensor<1024xf32>
  // CHECK:       tile.store %[[Q]][%[[O]]], %[[X]], %[[M]] : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>, tensor<1024xi1>
  tile.store %q[%o], %x, %m : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>, tensor<1024xi1>
  // CHECK:       tile.store %[[Q]][%[[O]]], %[[Y]] : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>
  tile.store %q[%o], %y : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>
  // CHECK:       tile.store %[[Q]][%[[O]]], %[[XM]] : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>
  tile.store %q[%o], %xm : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>
  return
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME:      (%[[V:[^:]*]]: tensor<16xf32>, %[[SC:[^:]*]]: f32)
func.func @shapes(%v: tensor<16xf32>, %sc: f32) -> (tensor<8x16xf32>, tensor<16x8xf32>, tensor<4x16xf32>, tensor<f32>) {
  // CHECK:       %[[E0:.*]] = tile.expand_dims %[[V]] {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  %e0 = tile.expand_dims %v {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  // CHECK:       %[[B0:.*]] = tile.broadcast %[[E0]] : tensor<1x16xf32> -> tensor<8x16xf32>
  %b0 = tile.broadcast %e0 : tensor<1x16xf32> -> tensor<8x16xf32>
  // CHECK:       %[[E1:.*]] = tile.expand_dims %[[V]] {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %e1 = tile.expand_dims %v {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  // CHECK:       %[[B1:.*]] = tile.broadcast %[[E1]] : tensor<16x1xf32> -> tensor<16x8xf32>
  %b1 = tile.broadcast %e1 : tensor<16x1xf32> -> tensor<16x8xf32>
  // CHECK:       %[[SP:.*]] = tile.splat %[[SC]] : tensor<4x16xf32>
  %sp = tile.splat %sc : tensor<4x16xf32>
  // A rank-0 tile (a reduction result) expands to a 1-element tile.
  // CHECK:       %[[RED:.*]] = tile.reduce max %[[V]] {axis = 0 : i32} : tensor<16xf32> -> tensor<f32>
  %red = tile.reduce max %v {axis = 0 : i32} : tensor<16xf32> -> tensor<f32>
  // CHECK:       tile.expand_dims %[[RED]] {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
  %e2 = tile.expand_dims %red {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
  // CHECK:       return %[[B0]], %[[B1]], %[[SP]], %[[RED]]
  return %b0, %b1, %sp, %red : tensor<8x16xf32>, tensor<16x8xf32>, tensor<4x16xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @dot
// CHECK-SAME:      (%[[A:[^:]*]]: tensor<16x32xf32>, %[[B:[^:]*]]: tensor<32x64xf32>, %[[C:[^:]*]]: tensor<16x64xf32>, %[[AH:[^:]*]]: tensor<16x32xf16>, %[[BH:[^:]*]]: tensor<32x64xf16>)
func.func @dot(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>,
               %ah: tensor<16x32xf16>, %bh: tensor<32x64xf16>) -> tensor<16x64xf32> {
  // input_precision = ieee is the default and is elided.
  // CHECK:       %[[D0:.*]] = tile.dot %[[A]], %[[B]], %[[C]] : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %0 = tile.dot %a, %b, %c : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  // CHECK:       %[[D1:.*]] = tile.dot %[[A]], %[[B]], %[[D0]] input_precision = tf32 : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = tile.dot %a, %b, %0 input_precision = tf32 : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  // CHECK:       %[[D2:.*]] = tile.dot %[[A]], %[[B]], %[[D1]] : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %2 = tile.dot %a, %b, %1 {input_precision = 0 : i32} : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  // f16 inputs accumulate in f32.
  // CHECK:       %[[D3:.*]] = tile.dot %[[AH]], %[[BH]], %[[D2]] : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
  %3 = tile.dot %ah, %bh, %2 : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
  // CHECK:       return %[[D3]]
  return %3 : tensor<16x64xf32>
}

// Block loads and stores (the TMA-shaped ops of the matmul template).
// CHECK-LABEL: func.func @block_ops
// CHECK:         %[[A:.*]] = tile.block_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {dims = array<i64: 2, 64, 32>, transpose} : memref<4096xf16> -> tensor<32x16xf16>
// A run-time row count prints after the coordinates.
// CHECK:         tile.block_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] rows %{{.*}} {dims = array<i64: 2, 64, 32>} : memref<4096xf16> -> tensor<32x16xf16>
// CHECK:         tile.block_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[A]] {dims = array<i64: 2, 32, 64>} : memref<4096xf16>, tensor<32x16xf16>
// CHECK:         tile.block_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[A]] {dims = array<i64: 2, 64, 32>, transpose} : memref<4096xf16>, tensor<32x16xf16>
func.func @block_ops(%p: memref<4096xf16>, %q: memref<4096xf16>, %b: i32, %r: i32, %c: i32) {
  %a = tile.block_load %p[%b, %r, %c] {dims = array<i64: 2, 64, 32>, transpose} : memref<4096xf16> -> tensor<32x16xf16>
  %n = tile.block_load %p[%b, %r, %c] rows %r {dims = array<i64: 2, 64, 32>} : memref<4096xf16> -> tensor<32x16xf16>
  tile.block_store %q[%b, %r, %c], %a {dims = array<i64: 2, 32, 64>} : memref<4096xf16>, tensor<32x16xf16>
  tile.block_store %q[%b, %r, %c], %a {dims = array<i64: 2, 64, 32>, transpose} : memref<4096xf16>, tensor<32x16xf16>
  return
}

// CHECK-LABEL: func.func @reduce
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x16xf32>, %[[I:[^:]*]]: tensor<8xi32>)
func.func @reduce(%x: tensor<4x16xf32>, %i: tensor<8xi32>)
    -> (tensor<4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>) {
  // CHECK:       %[[ADD:.*]] = tile.reduce add %[[X]] {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  %0 = tile.reduce add %x {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  // CHECK:       %[[MAX:.*]] = tile.reduce max %[[X]] {axis = 0 : i32} : tensor<4x16xf32> -> tensor<16xf32>
  %1 = tile.reduce max %x {axis = 0 : i32} : tensor<4x16xf32> -> tensor<16xf32>
  // CHECK:       %[[MIN:.*]] = tile.reduce min %[[X]] {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  %2 = tile.reduce min %x {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  // CHECK:       %[[MUL:.*]] = tile.reduce mul %[[X]] {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  %3 = tile.reduce mul %x {axis = 1 : i32} : tensor<4x16xf32> -> tensor<4xf32>
  // CHECK:       %[[IADD:.*]] = tile.reduce add %[[I]] {axis = 0 : i32} : tensor<8xi32> -> tensor<i32>
  %4 = tile.reduce add %i {axis = 0 : i32} : tensor<8xi32> -> tensor<i32>
  // CHECK:       return %[[ADD]], %[[MAX]], %[[MIN]], %[[MUL]], %[[IADD]]
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @launch
// CHECK-SAME:      (%[[X:[^:]*]]: memref<2x4xf32>, %[[W:[^:]*]]: memref<4x3xf32>, %[[Y:[^:]*]]: memref<2x3xf32>)
func.func @launch(%x: memref<2x4xf32>, %w: memref<4x3xf32>, %y: memref<2x3xf32>) {
  // CHECK:       tile.launch @kernels::@fused_0(%[[X]], %[[W]], %[[Y]]) : memref<2x4xf32>, memref<4x3xf32>, memref<2x3xf32>
  tile.launch @kernels::@fused_0(%x, %w, %y) : memref<2x4xf32>, memref<4x3xf32>, memref<2x3xf32>
  return
}

// The launched kernel (tile.launch verifies the kernel exists and its parameters match).
module @kernels {
  func.func @fused_0(%a: memref<8xf32>, %b: memref<12xf32>, %c: memref<6xf32>)
      attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
    return
  }
}

// The blocked layout attribute (which thread holds which element) on a 1-D and a 2-D tile.
// CHECK-LABEL: func.func @layouts
// CHECK:         tile.make_range {end = 128 : i32, start = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>} : tensor<128xi32>
// CHECK:         tile.splat %{{.*}} {tile.layout = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>} : tensor<16x32xf32>
func.func @layouts(%s: f32) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32, tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>} : tensor<128xi32>
  %t = tile.splat %s {tile.layout = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>} : tensor<16x32xf32>
  return
}

// Schedules with 2-D grids, several block sizes and the limits of num_warps.
// CHECK-LABEL: func.func @schedules
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [3, 5, 2], num_warps = 32, num_stages = 3, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 64 : i64, BLOCK_N = 16 : i64}>
func.func @schedules(%p: memref<16xf32>) attributes {
    tile.schedule = #tile.schedule<grid = [3, 5, 2], num_warps = 32, num_stages = 3, blocks = {BLOCK_M = 64 : i64, BLOCK_N = 16 : i64, BLOCK_K = 32 : i64}>} {
  return
}
// CHECK-LABEL: func.func @one_warp
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>
func.func @one_warp() attributes {
    tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
  return
}

// The tensor-core lowerings' typed configs (tile.wgmma, tile.mma_sync).
// CHECK-LABEL: func.func @wgmma_config
// CHECK-SAME: tile.wgmma = #tile.wgmma_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_stages = 3, num_stages_requested = 4, consumer_warpgroups = 2, schedule = cooperative, epilogue_store = tma>
func.func @wgmma_config() attributes {tile.wgmma = #tile.wgmma_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_stages = 3, num_stages_requested = 4, consumer_warpgroups = 2, schedule = cooperative, epilogue_store = tma>} {
  return
}
// num_stages_requested 0 (the default: as scheduled) is not printed.
// CHECK-LABEL: func.func @wgmma_config_pingpong
// CHECK-SAME: tile.wgmma = #tile.wgmma_config<BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 64, num_stages = 4, consumer_warpgroups = 2, schedule = pingpong, epilogue_store = registers>
func.func @wgmma_config_pingpong() attributes {tile.wgmma = #tile.wgmma_config<BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 64, num_stages = 4, consumer_warpgroups = 2, schedule = pingpong, epilogue_store = registers>} {
  return
}
// CHECK-LABEL: func.func @mma_sync_config
// CHECK-SAME: tile.mma_sync = #tile.mma_sync_config<BLOCK_M = 64, BLOCK_N = 128, BLOCK_K = 32, num_stages = 4, warps_m = 1, warps_n = 2, epilogue_store = shared>
func.func @mma_sync_config() attributes {tile.mma_sync = #tile.mma_sync_config<BLOCK_M = 64, BLOCK_N = 128, BLOCK_K = 32, num_stages = 4, warps_m = 1, warps_n = 2, epilogue_store = shared>} {
  return
}

// CHECK-LABEL: func.func @swap_pairs
// CHECK:         tile.swap_pairs %{{.*}} : tensor<4x16xf32>
func.func @swap_pairs(%v: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %s = tile.swap_pairs %v : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
