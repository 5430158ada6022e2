// RUN: aicc-opt %s -convert-tile-to-gpu-registers | FileCheck %s

// A tile of 65536 elements over 128 threads is 512 registers per thread: the register path
// unrolls per element and LLVM's NVPTX codegen then took 87 s (262144 elements: over two
// minutes; issue 14, hostile tile IR). Such kernels take the bufferizing path, with the
// reason recorded (which then refuses the tile's shared memory with a located error).
// CHECK-LABEL: func.func @big
// CHECK-SAME:      tile.register_path_refused = "tile of 65536 elements is 512 per thread, over the register path's 256"
// CHECK:         tile.load
module {
  module @kernels {
    func.func @big(%arg0: memref<8xf32>, %arg1: memref<8xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 65536 : i64}>} {
      %c8 = arith.constant 8 : i32
      %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32>
      %n = tile.splat %c8 : tensor<65536xi32>
      %m = arith.cmpi slt, %r, %n : tensor<65536xi32>
      %v = tile.load %arg0[%r], %m {padding = 0.0 : f32} : memref<8xf32>, tensor<65536xi32>, tensor<65536xi1> -> tensor<65536xf32>
      %e = math.exp %v : tensor<65536xf32>
      tile.store %arg1[%r], %e, %m : memref<8xf32>, tensor<65536xi32>, tensor<65536xf32>, tensor<65536xi1>
      return
    }
  }
}
