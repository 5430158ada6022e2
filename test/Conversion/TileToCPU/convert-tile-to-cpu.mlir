// RUN: aicc-opt %s -split-input-file -convert-tile-to-cpu | FileCheck %s

// Each kernel of @kernels gets six trailing index parameters (pid x, y, z, grid x, y, z);
// program_id / num_programs read them; the kernel becomes public and is tagged with its
// buffer parameter count for tile-cpu-emit-entry-points (its schedule stays, for the launch
// plan). The host plan is untouched.

// CHECK-LABEL: func.func @main
// CHECK:         tile.launch @kernels::@k(
// CHECK:       module @kernels {
// CHECK:         func.func @k(%[[IN:[^:]*]]: memref<6xf32>, %[[OUT:[^:]*]]: memref<6xf32>, %[[PX:[^:]*]]: index, %[[PY:[^:]*]]: index, %[[PZ:[^:]*]]: index, %[[GX:[^:]*]]: index, %[[GY:[^:]*]]: index, %[[GZ:[^:]*]]: index) attributes {tile.cpu_kernel = 2 : i64, tile.schedule = #tile.schedule<grid = [2, 3, 4], num_warps = 4, num_stages = 1, blocks = {BLOCK = 256 : i64}>} {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[P0:.*]] = arith.index_cast %[[PX]] : index to i32
// CHECK-NEXT:      %[[P2:.*]] = arith.index_cast %[[PZ]] : index to i32
// CHECK-NEXT:      %[[N1:.*]] = arith.index_cast %[[GY]] : index to i32
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[P0]], %[[P2]] : i32
// CHECK-NEXT:      %[[T:.*]] = arith.addi %[[S]], %[[N1]] : i32
// CHECK:           memref.store %{{.*}}, %[[OUT]][%[[C0]]] : memref<6xf32>
// CHECK-NEXT:      return
// Helpers without a schedule are left alone.
// CHECK:         func.func private @helper(%{{.*}}: f32) -> f32
// Only @kernels is converted.
// CHECK:       module @other {
// CHECK:         func.func private @k2(%{{.*}}: memref<6xf32>) attributes {tile.schedule = #tile.schedule
module {
  func.func @main(%arg0: memref<2x3xf32>) -> memref<2x3xf32> {
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
    tile.launch @kernels::@k(%arg0, %alloc) : memref<2x3xf32>, memref<2x3xf32>
    return %alloc : memref<2x3xf32>
  }
  module @kernels {
    func.func private @k(%in: memref<6xf32>, %out: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [2, 3, 4], num_warps = 4, num_stages = 1, blocks = {BLOCK = 256 : i64}>} {
      %c0 = arith.constant 0 : index
      %pid = tile.program_id 0 : i32
      %pidz = tile.program_id 2 : i32
      %np = tile.num_programs 1 : i32
      %s = arith.addi %pid, %pidz : i32
      %t = arith.addi %s, %np : i32
      %f = arith.sitofp %t : i32 to f32
      memref.store %f, %out[%c0] : memref<6xf32>
      return
    }
    func.func private @helper(%x: f32) -> f32 {
      return %x : f32
    }
  }
  module @other {
    func.func private @k2(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
      return
    }
  }
}

// -----

// A kernel without buffers still gets the six ids.
// CHECK-LABEL: func.func @empty(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index) attributes {tile.cpu_kernel = 0 : i64, tile.schedule = #tile.schedule
module {
  module @kernels {
    func.func private @empty() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      return
    }
  }
}
