// RUN: aicc-opt %s -split-input-file -tile-assign-layouts | FileCheck %s
// RUN: aicc-opt %s -split-input-file -tile-assign-layouts=vec-width=4 | FileCheck %s --check-prefix=VEC4

// 1-D tiles: one element per lane, 32 lanes, the kernel's 4 warps. 2-D tiles: lanes fill the
// contiguous (last) dim first, warps go to the outer dim when it is large enough. Rank-0
// tiles and ops without a tile result get no layout.

// CHECK-LABEL: func.func @elementwise
// CHECK:         tile.program_id 0 : i32
// CHECK:         %[[R:.*]] = tile.make_range {end = 1024 : i32, start = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}
// CHECK:         %[[S:.*]] = tile.splat %{{.*}} {tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}
// CHECK:         %[[O:.*]] = arith.addi %[[R]], %[[S]] {tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}
// CHECK:         %[[X:.*]] = tile.load %{{.*}}[%[[O]]] {tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}
// CHECK:         %[[E:.*]] = tile.expand_dims %[[X]] {axis = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>}
// CHECK:         %[[B:.*]] = tile.broadcast %[[E]] {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>}
// CHECK:         %[[RED:.*]] = tile.reduce add %[[B]] {axis = 1 : i32, tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}
// CHECK:         tile.reduce add %[[RED]] {axis = 0 : i32} : tensor<16xf32> -> tensor<f32>
// CHECK:         tile.store %{{.*}}[%[[O]]], %[[X]] : memref
// VEC4-LABEL:  func.func @elementwise
// VEC4:          tile.make_range {end = 1024 : i32, start = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>}
// VEC4:          tile.broadcast %{{.*}} {tile.layout = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>}
func.func @elementwise(%p: memref<4096xf32>, %q: memref<4096xf32>) attributes {
    tile.schedule = #tile.schedule<grid = [4, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 1024 : i64}>} {
  %pid = tile.program_id 0 : i32
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %s = tile.splat %pid : tensor<1024xi32>
  %o = arith.addi %r, %s : tensor<1024xi32>
  %x = tile.load %p[%o] : memref<4096xf32>, tensor<1024xi32> -> tensor<1024xf32>
  %e = tile.expand_dims %x {axis = 0 : i32} : tensor<1024xf32> -> tensor<1x1024xf32>
  %b = tile.broadcast %e : tensor<1x1024xf32> -> tensor<16x1024xf32>
  %red = tile.reduce add %b {axis = 1 : i32} : tensor<16x1024xf32> -> tensor<16xf32>
  %all = tile.reduce add %red {axis = 0 : i32} : tensor<16xf32> -> tensor<f32>
  tile.store %q[%o], %x : memref<4096xf32>, tensor<1024xi32>, tensor<1024xf32>
  return
}

// -----

// Tiles smaller than the CTA: the lanes left over go to the outer dim (replication), and
// num_warps comes from the schedule (8 here).
// CHECK-LABEL: func.func @small_tiles
// CHECK:         tile.make_range {end = 8 : i32, start = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>}
// CHECK:         tile.expand_dims %{{.*}} {axis = 1 : i32, tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]>}
// CHECK:         tile.broadcast %{{.*}} {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>}
// CHECK:         arith.constant {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>} dense<0.000000e+00> : tensor<32x16xf32>
// VEC4-LABEL:  func.func @small_tiles
// VEC4:          tile.make_range {end = 8 : i32, start = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>}
// VEC4:          tile.expand_dims %{{.*}} {axis = 1 : i32, tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]>}
// VEC4:          tile.broadcast %{{.*}} {tile.layout = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>}
// VEC4:          arith.constant {tile.layout = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>} dense<0.000000e+00> : tensor<32x16xf32>
func.func @small_tiles(%a: memref<64xf32>) attributes {
    tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 8, num_stages = 1, blocks = {}>} {
  %r = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %b = tile.broadcast %e : tensor<8x1xi32> -> tensor<8x64xi32>
  %c = arith.constant dense<0.0> : tensor<32x16xf32>
  return
}

// -----

// Functions that are not tile kernels (no tile.schedule) are left alone.
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT:     tile.layout
// CHECK:         return
func.func @not_a_kernel() {
  %r = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32>
  return
}
