// RUN: aicc-opt %s -split-input-file -convert-tile-dot-to-wgmma -verify-diagnostics | FileCheck %s

// A 4096^3 fp16 matmul + bias epilogue as the matmul template writes it for sm_90a
// (128 x 256 x 64, 4 stages). The kernel becomes warp-specialized per-thread code:
// CHECK-LABEL: func.func @mm(
// The CUtensorMaps of A and B follow the buffers.
// CHECK-SAME: %{{.*}}: !llvm.ptr {tile.tensor_map}, %{{.*}}: !llvm.ptr {tile.tensor_map})
// CHECK-SAME: tile.dynamic_shared_bytes = 197712
// CHECK-SAME: tile.launch_block = array<i32: 384, 1, 1>
// CHECK-SAME: tile.launch_grid = array<i32: 132, 1, 1>
// CHECK-SAME: tile.tensor_maps = [{box = array<i64: 1, 128, 64>, dims = array<i64: 1, 4096, 4096>, element = f16, param = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 64, 64>, dims = array<i64: 1, 4096, 4096>, element = f16, param = 1 : i64, swizzle = 128 : i64}]
// This kernel stores with tile.store (offsets and a mask): the epilogue stores from registers
// (the TMA-store epilogue takes tile.block_store: convert-tile-dot-to-wgmma-tma-store.mlir).
// CHECK-SAME: tile.tma_store_refused = "the kernel stores with tile.store, not tile.block_store"
// CHECK-SAME: tile.wgmma = #tile.wgmma_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_stages = 4, consumer_warpgroups = 2, schedule = cooperative, epilogue_store = registers>
// CHECK: gpu.dynamic_shared_memory
// 4 full + 4 empty barriers + 2 ping-pong order barriers, initialized by thread 0.
// CHECK-COUNT-10: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// Producer: warpgroup 0 gives registers away, thread 0 streams A (1 box) and B (4 boxes of
// 64 columns) per stage.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// Consumers: the first k block starts with scale-d = 0, then a loop with one group in flight.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue: bias loads per column, paired 2-element stores.
// CHECK: memref.load %{{.*}} : memref<4096xf16>
// CHECK: vector.store %{{.*}} {alignment = 4 : i64} : memref<16777216xf16>, vector<2xf16>
module {
  builtin.module @kernels {
    func.func @mm(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16777216xf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 16, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 256 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %c128 = arith.constant 128 : i32
      %c256 = arith.constant 256 : i32
      %m0 = arith.muli %pm, %c128 : i32
      %n0 = arith.muli %pn, %c256 : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<128x256xf32>
      %c0 = arith.constant 0 : index
      %cK = arith.constant 4096 : index
      %cBK = arith.constant 64 : index
      %r = scf.for %k = %c0 to %cK step %cBK iter_args(%acc = %acc0) -> (tensor<128x256xf32>) {
        %k32 = arith.index_cast %k : index to i32
        %a = tile.block_load %A[%pb, %m0, %k32] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<128x64xf16>
        %b = tile.block_load %B[%pb, %k32, %n0] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<64x256xf16>
        %d = tile.dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
        scf.yield %d : tensor<128x256xf32>
      }
      %rm0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %rn0 = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
      %sm = tile.splat %m0 : tensor<128xi32>
      %sn = tile.splat %n0 : tensor<256xi32>
      %rm = arith.addi %sm, %rm0 : tensor<128xi32>
      %rn = arith.addi %sn, %rn0 : tensor<256xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<256xi32> -> tensor<256xf16>
      %bf = arith.extf %bo : tensor<256xf16> to tensor<256xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<256xf32> -> tensor<1x256xf32>
      %b3 = tile.broadcast %b2 : tensor<1x256xf32> -> tensor<128x256xf32>
      %v = arith.addf %r, %b3 : tensor<128x256xf32>
      %h = arith.truncf %v : tensor<128x256xf32> to tensor<128x256xf16>
      %rm2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
      %rm3 = tile.broadcast %rm2 : tensor<128x1xi32> -> tensor<128x256xi32>
      %rn2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
      %rn3 = tile.broadcast %rn2 : tensor<1x256xi32> -> tensor<128x256xi32>
      %c4096 = arith.constant 4096 : i32
      %N = tile.splat %c4096 : tensor<128x256xi32>
      %ro = arith.muli %rm3, %N : tensor<128x256xi32>
      %off = arith.addi %ro, %rn3 : tensor<128x256xi32>
      %Ms = tile.splat %c4096 : tensor<128x256xi32>
      %mm = arith.cmpi slt, %rm3, %Ms : tensor<128x256xi32>
      tile.store %C[%off], %h, %mm : memref<16777216xf16>, tensor<128x256xi32>, tensor<128x256xf16>, tensor<128x256xi1>
      return
    }
  }
}

// -----

// f32 operands (exact f32 is asked for): the kernel keeps its tile form, with the reason.
module {
  builtin.module @kernels {
    // CHECK-LABEL: func.func @f32
    // CHECK-SAME: tile.wgmma_refused = "f32 operands without input_precision = tf32 (exact f32 asked)"
    // CHECK: tile.dot
    func.func @f32(%A: memref<16384xf32>, %B: memref<16384xf32>, %C: memref<16384xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %c0 = arith.constant 0 : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<128x128xf32>
      %a = tile.block_load %A[%c0, %c0, %c0] {dims = array<i64: 1, 128, 128>} : memref<16384xf32> -> tensor<128x64xf32>
      %b = tile.block_load %B[%c0, %c0, %c0] {dims = array<i64: 1, 128, 128>} : memref<16384xf32> -> tensor<64x128xf32>
      %d = tile.dot %a, %b, %acc0 : tensor<128x64xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
      %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
      %off = tile.broadcast %r2 : tensor<128x1xi32> -> tensor<128x128xi32>
      tile.store %C[%off], %d : memref<16384xf32>, tensor<128x128xi32>, tensor<128x128xf32>
      return
    }
  }
}

// -----

// Rows of 100 f16 (200 bytes) break TMA's 16-byte global stride rule.
module {
  builtin.module @kernels {
    // CHECK-LABEL: func.func @stride
    // CHECK-SAME: tile.wgmma_refused = "matrix rows are not a multiple of 16 bytes (TMA stride rule)"
    func.func @stride(%A: memref<12800xf16>, %B: memref<12800xf16>, %C: memref<16384xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %c0 = arith.constant 0 : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<128x128xf32>
      %a = tile.block_load %A[%c0, %c0, %c0] {dims = array<i64: 1, 128, 100>} : memref<12800xf16> -> tensor<128x64xf16>
      %b = tile.block_load %B[%c0, %c0, %c0] {dims = array<i64: 1, 100, 128>} : memref<12800xf16> -> tensor<64x128xf16>
      %d = tile.dot %a, %b, %acc0 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
      %off = tile.broadcast %r2 : tensor<128x1xi32> -> tensor<128x128xi32>
      tile.store %C[%off], %d : memref<16384xf32>, tensor<128x128xi32>, tensor<128x128xf32>
      return
    }
  }
}

// -----

// 128 x 128 tiles: ping-pong. Each consumer warpgroup owns whole tiles (two m64 wgmmas per k16
// step, two accumulators) and takes every other tile of the CTA's sequence; an order barrier
// hands the tensor cores over after each K loop, so one warpgroup's epilogue overlaps the
// other's K loop.
// CHECK-LABEL: func.func @mm_pingpong(
// CHECK-SAME: schedule = pingpong
// Empty barriers count one consumer per stage.
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.if
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>]
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
module {
  builtin.module @kernels {
    func.func @mm_pingpong(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16777216xf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 32, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %c128 = arith.constant 128 : i32
      %m0 = arith.muli %pm, %c128 : i32
      %n0 = arith.muli %pn, %c128 : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<128x128xf32>
      %c0 = arith.constant 0 : index
      %cK = arith.constant 4096 : index
      %cBK = arith.constant 64 : index
      %r = scf.for %k = %c0 to %cK step %cBK iter_args(%acc = %acc0) -> (tensor<128x128xf32>) {
        %k32 = arith.index_cast %k : index to i32
        %a = tile.block_load %A[%pb, %m0, %k32] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<128x64xf16>
        %b = tile.block_load %B[%pb, %k32, %n0] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<64x128xf16>
        %d = tile.dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      %rm0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %rn0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %sm = tile.splat %m0 : tensor<128xi32>
      %sn = tile.splat %n0 : tensor<128xi32>
      %rm = arith.addi %sm, %rm0 : tensor<128xi32>
      %rn = arith.addi %sn, %rn0 : tensor<128xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<128xi32> -> tensor<128xf16>
      %bf = arith.extf %bo : tensor<128xf16> to tensor<128xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
      %b3 = tile.broadcast %b2 : tensor<1x128xf32> -> tensor<128x128xf32>
      %v = arith.addf %r, %b3 : tensor<128x128xf32>
      %h = arith.truncf %v : tensor<128x128xf32> to tensor<128x128xf16>
      %rm2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
      %rm3 = tile.broadcast %rm2 : tensor<128x1xi32> -> tensor<128x128xi32>
      %rn2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
      %rn3 = tile.broadcast %rn2 : tensor<1x128xi32> -> tensor<128x128xi32>
      %c4096 = arith.constant 4096 : i32
      %N = tile.splat %c4096 : tensor<128x128xi32>
      %ro = arith.muli %rm3, %N : tensor<128x128xi32>
      %off = arith.addi %ro, %rn3 : tensor<128x128xi32>
      %Ms = tile.splat %c4096 : tensor<128x128xi32>
      %mm = arith.cmpi slt, %rm3, %Ms : tensor<128x128xi32>
      tile.store %C[%off], %h, %mm : memref<16777216xf16>, tensor<128x128xi32>, tensor<128x128xf16>, tensor<128x128xi1>
      return
    }
  }
}

// -----

// A num_stages so large that num_stages x stage bytes wraps int64: refused for shared memory
// (the check divides instead of multiplying), not a wrapped size that fits and a prologue
// unrolled 2^62 times.
module {
  builtin.module @kernels {
    // CHECK-LABEL: func.func @huge_stages
    // CHECK-SAME: tile.wgmma_refused = "num_stages x stage bytes exceed 227 KiB of shared memory"
    // CHECK: tile.dot
    func.func @huge_stages(%A: memref<16384xf16>, %B: memref<16384xf16>, %C: memref<16384xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 4611686018427387904, blocks = {BLOCK_M = 64 : i64, BLOCK_N = 64 : i64, BLOCK_K = 64 : i64}>} {
      %c0 = arith.constant 0 : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<64x64xf32>
      %a = tile.block_load %A[%c0, %c0, %c0] {dims = array<i64: 1, 128, 128>} : memref<16384xf16> -> tensor<64x64xf16>
      %b = tile.block_load %B[%c0, %c0, %c0] {dims = array<i64: 1, 128, 128>} : memref<16384xf16> -> tensor<64x64xf16>
      %d = tile.dot %a, %b, %acc0 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %off = tile.broadcast %r2 : tensor<64x1xi32> -> tensor<64x64xi32>
      tile.store %C[%off], %d : memref<16384xf32>, tensor<64x64xi32>, tensor<64x64xf32>
      return
    }
  }
}

// -----

// The epilogue reads a dot operand tile too (C = A @ B + A): the operands exist only as
// shared-memory fragments, so the kernel is refused (it used to fail the whole compile with
// "tensor-core epilogue: epilogue op not supported").
module {
  builtin.module @kernels {
    // CHECK-LABEL: func.func @operand_reused
    // CHECK-SAME: tile.wgmma_refused = "a dot operand tile has another user (arith.extf)"
    // CHECK: tile.dot
    func.func @operand_reused(%A: memref<16384xf16>, %B: memref<16384xf16>, %C: memref<16384xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_M = 64 : i64, BLOCK_N = 64 : i64, BLOCK_K = 64 : i64}>} {
      %c0 = arith.constant 0 : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<64x64xf32>
      %a = tile.block_load %A[%c0, %c0, %c0] {dims = array<i64: 1, 128, 128>} : memref<16384xf16> -> tensor<64x64xf16>
      %b = tile.block_load %B[%c0, %c0, %c0] {dims = array<i64: 1, 128, 128>} : memref<16384xf16> -> tensor<64x64xf16>
      %d = tile.dot %a, %b, %acc0 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %ae = arith.extf %a : tensor<64x64xf16> to tensor<64x64xf32>
      %s = arith.addf %d, %ae : tensor<64x64xf32>
      %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
      %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %off = tile.broadcast %r2 : tensor<64x1xi32> -> tensor<64x64xi32>
      tile.store %C[%off], %s : memref<16384xf32>, tensor<64x64xi32>, tensor<64x64xf32>
      return
    }
  }
}
