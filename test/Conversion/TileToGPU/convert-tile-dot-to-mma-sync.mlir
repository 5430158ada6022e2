// RUN: aicc-opt %s -split-input-file -convert-tile-dot-to-mma-sync | FileCheck %s
// RUN: aicc-opt %s -split-input-file -convert-tile-dot-to-mma-sync=smem-store=false | FileCheck %s --check-prefix=NOSMEM
// RUN: aicc-opt %s -split-input-file -convert-tile-dot-to-mma-sync=max-shared-bytes=12288 | FileCheck %s --check-prefix=SMALL

// Kernels as the matmul template writes them (aicc-compile --emit=tile --target=sm_90
// --matmul-config=32x32x32x2, cut down): C[64x32] = A[64x64] @ B[64x32], f16, 4 warps.

// The kernel becomes per-thread code: 2 stages x (A 32x32 + B 32x32) x 2 bytes of dynamic
// shared memory, one CTA of 128 threads, 2 x 2 warps of 16 x 16.
// CHECK-LABEL: func.func @mm_f16
// CHECK-SAME:      (%[[A:.*]]: memref<4096xf16>, %[[B:.*]]: memref<2048xf16>, %[[C:.*]]: memref<2048xf16>)
// CHECK-SAME:      tile.dynamic_shared_bytes = 8192 : i64
// CHECK-SAME:      tile.launch_block = array<i32: 128, 1, 1>
// CHECK-SAME:      tile.mma_sync = #tile.mma_sync_config<BLOCK_M = 32, BLOCK_N = 32, BLOCK_K = 32, num_stages = 2, warps_m = 2, warps_n = 2, epilogue_store = registers>
// CHECK-NOT:     tile.{{block_load|dot|store|program_id}}
// CHECK:         gpu.thread_id  x
// CHECK:         %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[SM:.*]] = memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf16, #gpu.address_space<workgroup>>
// Programs in grouped order from the block ids.
// CHECK:         gpu.block_id  x
// CHECK:         gpu.block_id  y
// CHECK:         gpu.block_id  z
// Prologue: k block 0 into stage 0, one group. Out-of-bounds chunks read 0 source elements.
// CHECK:         %[[N0:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK:         nvgpu.device_async_copy %[[A]][%{{.*}}], %[[SM]][%{{.*}}], 8, %[[N0]] {bypassL1} : memref<4096xf16> to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %[[B]][%{{.*}}], %[[SM]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK-NEXT:    nvvm.cp.async.commit.group
// Main loop over the 2 k blocks, 2 x 4 f32 accumulators per thread.
// CHECK:         %[[ACC:.*]]:8 = scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C0:[a-z0-9_]+]] = %{{.*}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NEXT:      nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           scf.if
// CHECK:             nvgpu.device_async_copy %[[A]]
// CHECK:             nvgpu.device_async_copy %[[B]]
// CHECK-NEXT:      {{^ *}}}
// CHECK-NEXT:      nvvm.cp.async.commit.group
// A is K-major (ldmatrix), B N-major (ldmatrix.trans); one k16 slice, then the next.
// CHECK:           %[[FA:.*]] = nvgpu.ldmatrix %[[SM]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<4096xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:           %[[A0:.*]] = vector.extract %[[FA]][0] : vector<2xf16> from vector<4x2xf16>
// CHECK:           %[[FB:.*]] = nvgpu.ldmatrix %[[SM]][%{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK:           %[[B0:.*]] = vector.extract %[[FB]][0] : vector<2xf16> from vector<4x2xf16>
// CHECK:           %[[B1:.*]] = vector.extract %[[FB]][1] : vector<2xf16> from vector<4x2xf16>
// CHECK:           nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}]  B[%[[B0]], %[[B1]]]  C[%[[C0]], %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-SAME:        layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:        (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-3:   nvvm.mma.sync
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           scf.yield
// Epilogue: registers 2j, 2j+1 (adjacent columns) stored in pairs.
// CHECK:         arith.truncf %[[ACC]]#0 : f32 to f16
// CHECK:         vector.store %{{.*}}, %[[C]][%{{.*}}] {alignment = 4 : i64} : memref<2048xf16>, vector<2xf16>
// CHECK:         return
module {
  module @kernels {
    func.func @mm_f16(%arg0: memref<4096xf16>, %arg1: memref<2048xf16>, %arg2: memref<2048xf16>) attributes {tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c64_i32 = arith.constant 64 : i32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %3 = arith.muli %0, %c32_i32 : i32
      %4 = arith.muli %1, %c32_i32 : i32
      %5 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
      %6 = tile.splat %3 : tensor<32xi32>
      %7 = arith.addi %6, %5 : tensor<32xi32>
      %8 = tile.splat %4 : tensor<32xi32>
      %9 = arith.addi %8, %5 : tensor<32xi32>
      %10 = tile.expand_dims %7 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %11 = tile.broadcast %10 : tensor<32x1xi32> -> tensor<32x32xi32>
      %12 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %13 = tile.broadcast %12 : tensor<1x32xi32> -> tensor<32x32xi32>
      %14 = tile.splat %c64_i32 : tensor<32x32xi32>
      %15 = arith.cmpi slt, %11, %14 : tensor<32x32xi32>
      %16 = tile.splat %c32_i32 : tensor<32x32xi32>
      %17 = arith.cmpi slt, %13, %16 : tensor<32x32xi32>
      %18 = arith.andi %15, %17 : tensor<32x32xi1>
      %19 = tile.splat %cst : tensor<32x32xf32>
      %20 = scf.for %arg4 = %c0 to %c64 step %c32 iter_args(%arg5 = %19) -> (tensor<32x32xf32>) {
        %30 = arith.index_cast %arg4 : index to i32
        %31 = tile.block_load %arg0[%c0_i32, %3, %30] {dims = array<i64: 1, 64, 64>} : memref<4096xf16> -> tensor<32x32xf16>
        %32 = tile.block_load %arg1[%c0_i32, %30, %4] {dims = array<i64: 1, 64, 32>} : memref<2048xf16> -> tensor<32x32xf16>
        %33 = tile.dot %31, %32, %arg5 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        scf.yield %33 : tensor<32x32xf32>
      }
      %25 = arith.muli %11, %16 : tensor<32x32xi32>
      %26 = arith.addi %25, %13 : tensor<32x32xi32>
      %29 = arith.truncf %20 : tensor<32x32xf32> to tensor<32x32xf16>
      tile.store %arg2[%26], %29, %18 : memref<2048xf16>, tensor<32x32xi32>, tensor<32x32xf16>, tensor<32x32xi1>
      return
    }
  }
}

// -----

// bf16, B stored [N, K] (Gemm transB: K-major, plain ldmatrix), bias epilogue, K = 32: one
// k block, so no K loop in the input (canonicalization removed it) and the block loads read
// k 0. 3 stages requested; the ring keeps them.
// CHECK-LABEL: func.func @gemm_bf16_transB_bias
// CHECK-SAME:      tile.dynamic_shared_bytes = 12288 : i64
// CHECK-SAME:      tile.mma_sync = #tile.mma_sync_config<{{.*}}num_stages = 3,
// CHECK:         nvgpu.device_async_copy
// CHECK:         nvvm.cp.async.commit.group
// Stage 1 of the prologue has no k block (K has one): an empty group keeps the count.
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK:         scf.for
// CHECK-NEXT:      nvvm.cp.async.wait.group 1
// CHECK-NEXT:      gpu.barrier
// CHECK:           %[[FB:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<6144xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:           %[[FB2:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<6144xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:           %[[P:.*]] = vector.extract %[[FB2]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK-NEXT:      %[[I:.*]] = llvm.bitcast %[[P]] : vector<2xbf16> to i32
// CHECK:           nvvm.mma.sync A[{{.*}}]  B[%[[I]], %{{.*}}]
// CHECK-SAME:        multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME:        (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// The bias is read once per column the thread holds (2 per n8 tile), masked.
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<200xbf16>
// CHECK:         vector.store %{{.*}} : memref<26000xbf16>, vector<2xbf16>
module {
  module @kernels {
    func.func @gemm_bf16_transB_bias(%arg0: memref<4160xbf16>, %arg1: memref<6400xbf16>, %arg2: memref<200xbf16>, %arg3: memref<26000xbf16>) attributes {tile.schedule = #tile.schedule<grid = [5, 7, 1], num_warps = 4, num_stages = 3, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %cst = arith.constant 0.000000e+00 : f32
      %c200_i32 = arith.constant 200 : i32
      %c130_i32 = arith.constant 130 : i32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %3 = arith.muli %0, %c32_i32 : i32
      %4 = arith.muli %1, %c32_i32 : i32
      %5 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
      %6 = tile.splat %3 : tensor<32xi32>
      %7 = arith.addi %6, %5 : tensor<32xi32>
      %8 = tile.splat %4 : tensor<32xi32>
      %9 = arith.addi %8, %5 : tensor<32xi32>
      %10 = tile.expand_dims %7 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %11 = tile.broadcast %10 : tensor<32x1xi32> -> tensor<32x32xi32>
      %12 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %13 = tile.broadcast %12 : tensor<1x32xi32> -> tensor<32x32xi32>
      %14 = tile.splat %c130_i32 : tensor<32x32xi32>
      %15 = arith.cmpi slt, %11, %14 : tensor<32x32xi32>
      %16 = tile.splat %c200_i32 : tensor<32x32xi32>
      %17 = arith.cmpi slt, %13, %16 : tensor<32x32xi32>
      %18 = arith.andi %15, %17 : tensor<32x32xi1>
      %19 = tile.splat %cst : tensor<32x32xf32>
      %31 = tile.block_load %arg0[%c0_i32, %3, %c0_i32] {dims = array<i64: 1, 130, 32>} : memref<4160xbf16> -> tensor<32x32xbf16>
      %32 = tile.block_load %arg1[%c0_i32, %4, %c0_i32] {dims = array<i64: 1, 200, 32>, transpose} : memref<6400xbf16> -> tensor<32x32xbf16>
      %20 = tile.dot %31, %32, %19 : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
      %21 = tile.load %arg2[%13], %18 {padding = 0.000000e+00 : bf16} : memref<200xbf16>, tensor<32x32xi32>, tensor<32x32xi1> -> tensor<32x32xbf16>
      %22 = arith.extf %21 : tensor<32x32xbf16> to tensor<32x32xf32>
      %23 = arith.addf %20, %22 : tensor<32x32xf32>
      %25 = arith.muli %11, %16 : tensor<32x32xi32>
      %26 = arith.addi %25, %13 : tensor<32x32xi32>
      %29 = arith.truncf %23 : tensor<32x32xf32> to tensor<32x32xbf16>
      tile.store %arg3[%26], %29, %18 : memref<26000xbf16>, tensor<32x32xi32>, tensor<32x32xbf16>, tensor<32x32xi1>
      return
    }
  }
}

// -----

// Refused: rows of A are 36 elements (72 bytes), not whole 16-byte cp.async chunks. The
// kernel keeps its tile form for the generic path.
// CHECK-LABEL: func.func @rows_not_16_bytes
// CHECK-SAME:      tile.mma_sync_refused = "matrix rows are not a multiple of 16 bytes (cp.async granule)"
// CHECK:         tile.dot
module {
  module @kernels {
    func.func @rows_not_16_bytes(%arg0: memref<1152xf16>, %arg1: memref<1152xf16>, %arg2: memref<1024xf16>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %c32 = arith.constant 32 : index
      %c36 = arith.constant 36 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c0_i32 = arith.constant 0 : i32
      %19 = tile.splat %cst : tensor<32x32xf32>
      %20 = scf.for %arg4 = %c0 to %c36 step %c32 iter_args(%arg5 = %19) -> (tensor<32x32xf32>) {
        %30 = arith.index_cast %arg4 : index to i32
        %31 = tile.block_load %arg0[%c0_i32, %c0_i32, %30] {dims = array<i64: 1, 32, 36>} : memref<1152xf16> -> tensor<32x32xf16>
        %32 = tile.block_load %arg1[%c0_i32, %30, %c0_i32] {dims = array<i64: 1, 36, 32>} : memref<1152xf16> -> tensor<32x32xf16>
        %33 = tile.dot %31, %32, %arg5 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        scf.yield %33 : tensor<32x32xf32>
      }
      %5 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
      return
    }
  }
}

// -----

// Refused: f32 operands (the exact path; mma.sync has no f32 x f32 -> f32 at full precision).
// CHECK-LABEL: func.func @f32_operands
// CHECK-SAME:      tile.mma_sync_refused = "operands are not f16/bf16"
module {
  module @kernels {
    func.func @f32_operands(%arg0: memref<1024xf32>, %arg1: memref<1024xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %cst = arith.constant 0.000000e+00 : f32
      %c0_i32 = arith.constant 0 : i32
      %19 = tile.splat %cst : tensor<32x32xf32>
      %31 = tile.block_load %arg0[%c0_i32, %c0_i32, %c0_i32] {dims = array<i64: 1, 32, 32>} : memref<1024xf32> -> tensor<32x32xf32>
      %32 = tile.block_load %arg1[%c0_i32, %c0_i32, %c0_i32] {dims = array<i64: 1, 32, 32>} : memref<1024xf32> -> tensor<32x32xf32>
      %20 = tile.dot %31, %32, %19 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
      return
    }
  }
}

// -----

// Refused: the K coordinate of a block is not provably a multiple of 8 elements (16-byte
// aligned cp.async sources).
// CHECK-LABEL: func.func @column_not_aligned
// CHECK-SAME:      tile.mma_sync_refused = "block_load column is not provably a multiple of 8 elements"
module {
  module @kernels {
    func.func @column_not_aligned(%arg0: memref<2048xf16>, %arg1: memref<2048xf16>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %cst = arith.constant 0.000000e+00 : f32
      %c0_i32 = arith.constant 0 : i32
      %c4_i32 = arith.constant 4 : i32
      %19 = tile.splat %cst : tensor<32x32xf32>
      %31 = tile.block_load %arg0[%c0_i32, %c0_i32, %c4_i32] {dims = array<i64: 1, 32, 64>} : memref<2048xf16> -> tensor<32x32xf16>
      %32 = tile.block_load %arg1[%c0_i32, %c0_i32, %c0_i32] {dims = array<i64: 1, 64, 32>} : memref<2048xf16> -> tensor<32x32xf16>
      %20 = tile.dot %31, %32, %19 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
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
    // CHECK-SAME: tile.mma_sync_refused = "num_stages x stage bytes exceed the shared memory per block"
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
    // CHECK-SAME: tile.mma_sync_refused = "a dot operand tile has another user (arith.extf)"
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

// -----

// Implicit-GEMM convolution (the conv template's kernel, cut down to the matmul test's
// epilogue): A is a tile.im2col_load of an NHWC input with C = 64 (8 consecutive k of a
// chunk are 8 channels of one pixel, 16 contiguous bytes), B the [OC, K] weight, transposed.
// Both go by cp.async, 16 bytes with zero fill (src-size 0) outside the input / the padding.
// CHECK-LABEL: func.func @conv_nhwc_c64
// CHECK-SAME:      (%[[X:.*]]: memref<4096xf16>, %[[W:.*]]: memref<18432xf16>, %{{.*}}: memref<2048xf16>)
// CHECK-SAME:      tile.mma_sync = #tile.mma_sync_config<BLOCK_M = 32, BLOCK_N = 32, BLOCK_K = 32
// CHECK-NOT:     tile.{{im2col_load|block_load|dot}}
// CHECK-NOT:     memref.load
// CHECK:         %[[SM:.*]] = memref.view
// CHECK:         nvgpu.device_async_copy %[[X]][%{{.*}}], %[[SM]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:         nvgpu.device_async_copy %[[W]][%{{.*}}], %[[SM]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK:         scf.for
// CHECK-NEXT:      nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           scf.if
// CHECK:             nvgpu.device_async_copy %[[X]]
// CHECK:             nvgpu.device_async_copy %[[W]]
// CHECK:           nvvm.mma.sync
// CHECK-NOT:     vector<8xf16>
module {
  module @kernels {
    func.func @conv_nhwc_c64(%arg0: memref<4096xf16>, %arg1: memref<18432xf16>, %arg2: memref<2048xf16>) attributes {tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %c32 = arith.constant 32 : index
      %cK = arith.constant 576 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c64_i32 = arith.constant 64 : i32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %3 = arith.muli %0, %c32_i32 : i32
      %4 = arith.muli %1, %c32_i32 : i32
      %5 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
      %6 = tile.splat %3 : tensor<32xi32>
      %7 = arith.addi %6, %5 : tensor<32xi32>
      %8 = tile.splat %4 : tensor<32xi32>
      %9 = arith.addi %8, %5 : tensor<32xi32>
      %10 = tile.expand_dims %7 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %11 = tile.broadcast %10 : tensor<32x1xi32> -> tensor<32x32xi32>
      %12 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %13 = tile.broadcast %12 : tensor<1x32xi32> -> tensor<32x32xi32>
      %14 = tile.splat %c64_i32 : tensor<32x32xi32>
      %15 = arith.cmpi slt, %11, %14 : tensor<32x32xi32>
      %16 = tile.splat %c32_i32 : tensor<32x32xi32>
      %17 = arith.cmpi slt, %13, %16 : tensor<32x32xi32>
      %18 = arith.andi %15, %17 : tensor<32x32xi1>
      %19 = tile.splat %cst : tensor<32x32xf32>
      %20 = scf.for %arg4 = %c0 to %cK step %c32 iter_args(%arg5 = %19) -> (tensor<32x32xf32>) {
        %30 = arith.index_cast %arg4 : index to i32
        %31 = tile.im2col_load %arg0[%3, %30] {input = array<i64: 1, 64, 8, 8>, layout = "NHWC", kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, output = array<i64: 8, 8>} : memref<4096xf16> -> tensor<32x32xf16>
        %32 = tile.block_load %arg1[%c0_i32, %4, %30] {dims = array<i64: 1, 32, 576>, transpose} : memref<18432xf16> -> tensor<32x32xf16>
        %33 = tile.dot %31, %32, %arg5 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        scf.yield %33 : tensor<32x32xf32>
      }
      %25 = arith.muli %11, %16 : tensor<32x32xi32>
      %26 = arith.addi %25, %13 : tensor<32x32xi32>
      %29 = arith.truncf %20 : tensor<32x32xf32> to tensor<32x32xf16>
      tile.store %arg2[%26], %29, %18 : memref<2048xf16>, tensor<32x32xi32>, tensor<32x32xf16>, tensor<32x32xi1>
      return
    }
  }
}

// -----

// NCHW input of 3 channels, 3x3 kernel: K = 27. 8 consecutive k are not contiguous (they
// cross channels and kernel rows) and the weight's rows (27 elements) are not 16-byte
// multiples: both operands are filled element by element, in a loop over the thread's chunks
// (one here: 32 x 32 / 8 = 128 chunks for 128 threads): 8 loads at clamped offsets, zero
// where out of bounds, one 16-byte shared store into the chunk's swizzled slot. No cp.async:
// the bar.sync after cp.async.wait_group orders these stores before the ldmatrix reads.
// CHECK-LABEL: func.func @conv_nchw_c3
// CHECK-SAME:      (%[[X:.*]]: memref<192xf16>, %[[W:.*]]: memref<864xf16>, %{{.*}}: memref<2048xf16>)
// CHECK-SAME:      tile.mma_sync = #tile.mma_sync_config<BLOCK_M = 32, BLOCK_N = 32, BLOCK_K = 32
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[SM:.*]] = memref.view
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-COUNT-8:   memref.load %[[X]][%{{.*}}] : memref<192xf16>
// CHECK:           %[[VA:.*]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK:           vector.store %[[VA]], %[[SM]][%{{.*}}] {alignment = 16 : i64} : memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-COUNT-8:   memref.load %[[W]][%{{.*}}] : memref<864xf16>
// CHECK:           vector.store
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         scf.for
// CHECK-NEXT:      nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           scf.if
// CHECK:             memref.load %[[X]]
// CHECK:             vector.store
// CHECK:             memref.load %[[W]]
// CHECK:             vector.store
// CHECK:           nvvm.mma.sync
module {
  module @kernels {
    func.func @conv_nchw_c3(%arg0: memref<192xf16>, %arg1: memref<864xf16>, %arg2: memref<2048xf16>) attributes {tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %c32 = arith.constant 32 : index
      %cK = arith.constant 27 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c64_i32 = arith.constant 64 : i32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %3 = arith.muli %0, %c32_i32 : i32
      %4 = arith.muli %1, %c32_i32 : i32
      %5 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
      %6 = tile.splat %3 : tensor<32xi32>
      %7 = arith.addi %6, %5 : tensor<32xi32>
      %8 = tile.splat %4 : tensor<32xi32>
      %9 = arith.addi %8, %5 : tensor<32xi32>
      %10 = tile.expand_dims %7 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %11 = tile.broadcast %10 : tensor<32x1xi32> -> tensor<32x32xi32>
      %12 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %13 = tile.broadcast %12 : tensor<1x32xi32> -> tensor<32x32xi32>
      %14 = tile.splat %c64_i32 : tensor<32x32xi32>
      %15 = arith.cmpi slt, %11, %14 : tensor<32x32xi32>
      %16 = tile.splat %c32_i32 : tensor<32x32xi32>
      %17 = arith.cmpi slt, %13, %16 : tensor<32x32xi32>
      %18 = arith.andi %15, %17 : tensor<32x32xi1>
      %19 = tile.splat %cst : tensor<32x32xf32>
      %20 = scf.for %arg4 = %c0 to %cK step %c32 iter_args(%arg5 = %19) -> (tensor<32x32xf32>) {
        %30 = arith.index_cast %arg4 : index to i32
        %31 = tile.im2col_load %arg0[%3, %30] {input = array<i64: 1, 3, 8, 8>, layout = "NCHW", kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, output = array<i64: 8, 8>} : memref<192xf16> -> tensor<32x32xf16>
        %32 = tile.block_load %arg1[%c0_i32, %4, %30] {dims = array<i64: 1, 32, 27>, transpose} : memref<864xf16> -> tensor<32x32xf16>
        %33 = tile.dot %31, %32, %arg5 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        scf.yield %33 : tensor<32x32xf32>
      }
      %25 = arith.muli %11, %16 : tensor<32x32xi32>
      %26 = arith.addi %25, %13 : tensor<32x32xi32>
      %29 = arith.truncf %20 : tensor<32x32xf32> to tensor<32x32xf16>
      tile.store %arg2[%26], %29, %18 : memref<2048xf16>, tensor<32x32xi32>, tensor<32x32xf16>, tensor<32x32xi1>
      return
    }
  }
}

// -----

// Shared-memory store epilogue (smem-store, the default): the kernel's only store is a
// tile.block_store of the [BLOCK_M, BLOCK_N] tile (the matmul template's), f16, rows of 40
// elements (16-byte multiples). C[64x40] = A[64x64] @ B[64x40], 32x32x32 blocks, 4 warps.
// The staging tile (32 x 32 f16, 2 KiB) fits in the ring (8 KiB): the shared memory stays.
// CHECK-LABEL: func.func @mm_block_store
// CHECK-SAME:      (%[[A:.*]]: memref<4096xf16>, %[[B:.*]]: memref<2560xf16>, %[[C:.*]]: memref<2560xf16>)
// CHECK-SAME:      tile.dynamic_shared_bytes = 8192 : i64
// CHECK-SAME:      tile.mma_sync = #tile.mma_sync_config<BLOCK_M = 32, BLOCK_N = 32, BLOCK_K = 32, num_stages = 2, warps_m = 2, warps_n = 2, epilogue_store = shared>
// CHECK-NOT:       tile.smem_store_refused
// CHECK:         %[[SM:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[ACC:.*]]:8 = scf.for
// CHECK:           nvgpu.ldmatrix
// CHECK:           scf.yield
// Every warp is past its last ldmatrix before the staging tile (over the ring) is written.
// CHECK-NEXT:    }
// CHECK-NOT:     vector.store
// CHECK:         gpu.barrier
// Register pairs (adjacent columns) go to the swizzled staging tile: element (r, c) at
// r * 32 + 8 * ((c / 8) ^ phase(r)) + c % 8, phase(r) = (r / 2) % 4 (4 chunks per row).
// CHECK:         arith.truncf %[[ACC]]#0 : f32 to f16
// CHECK:         arith.xori
// CHECK:         vector.store %{{.*}}, %[[SM]][%{{.*}}] {alignment = 4 : i64} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-COUNT-3: vector.store %{{.*}}, %[[SM]][%{{.*}}] {alignment = 4 : i64}
// CHECK-NOT:     vector.store %{{.*}}, %[[C]]
// The whole tile is written, then copied out: one 16-byte chunk per thread (32 rows x 4
// chunks = 128 threads), masked at the matrix edges (rows < 64, columns < 40, batch < 1).
// CHECK:         gpu.barrier
// CHECK:         arith.cmpi ult, %{{.*}}, %c64_i32{{[_0-9]*}} : i32
// CHECK:         arith.cmpi ult, %{{.*}}, %c40_i32{{[_0-9]*}} : i32
// CHECK:         scf.if
// CHECK:           %[[V:.*]] = vector.load %[[SM]][%{{.*}}] {alignment = 16 : i64} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:           vector.store %[[V]], %[[C]][%{{.*}}] {alignment = 16 : i64} : memref<2560xf16>, vector<8xf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// With smem-store=false, the register pair stores stay.
// NOSMEM-LABEL: func.func @mm_block_store
// NOSMEM-SAME:    epilogue_store = registers
// NOSMEM-NOT:     tile.smem_store_refused
// NOSMEM:         vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<2560xf16>, vector<2xf16>
// NOSMEM-NOT:     vector.load
// NOSMEM:         return
module {
  module @kernels {
    func.func @mm_block_store(%arg0: memref<4096xf16>, %arg1: memref<2560xf16>, %arg2: memref<2560xf16>) attributes {tile.schedule = #tile.schedule<grid = [2, 2, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %2 = arith.muli %0, %c32_i32 : i32
      %3 = arith.muli %1, %c32_i32 : i32
      %4 = tile.splat %cst : tensor<32x32xf32>
      %5 = scf.for %arg3 = %c0 to %c64 step %c32 iter_args(%arg4 = %4) -> (tensor<32x32xf32>) {
        %7 = arith.index_cast %arg3 : index to i32
        %8 = tile.block_load %arg0[%c0_i32, %2, %7] {dims = array<i64: 1, 64, 64>} : memref<4096xf16> -> tensor<32x32xf16>
        %9 = tile.block_load %arg1[%c0_i32, %7, %3] {dims = array<i64: 1, 64, 40>} : memref<2560xf16> -> tensor<32x32xf16>
        %10 = tile.dot %8, %9, %arg4 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        scf.yield %10 : tensor<32x32xf32>
      }
      %6 = arith.truncf %5 : tensor<32x32xf32> to tensor<32x32xf16>
      tile.block_store %arg2[%c0_i32, %2, %3], %6 {dims = array<i64: 1, 64, 40>} : memref<2560xf16>, tensor<32x32xf16>
      return
    }
  }
}

// -----

// An f32 output (no cast) is staged too, in 16-byte chunks of 4 f32: a [32, 32] f32 view
// (4 KiB, inside the 8 KiB ring) over the same dynamic shared memory; the register pairs
// are 8-byte stores at r * 32 + 4 * ((c / 4) ^ phase(r)) + c % 4, phase(r) = (2 r) % 8 (8
// chunks per row; the stride 2 keeps the 4 rows of a half-warp's pair store on 8 different
// 16-byte bank groups); 32 rows x 8 chunks = 2 chunks per thread, masked at the edges.
// CHECK-LABEL: func.func @mm_block_store_f32
// CHECK-SAME:      (%{{.*}}: memref<4096xf16>, %{{.*}}: memref<2560xf16>, %[[C:.*]]: memref<2560xf32>)
// CHECK-SAME:      tile.dynamic_shared_bytes = 8192 : i64
// CHECK-SAME:      epilogue_store = shared
// CHECK-NOT:       tile.smem_store_refused
// CHECK:         scf.for
// CHECK:           nvgpu.ldmatrix
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     vector.store
// CHECK:         gpu.barrier
// CHECK:         %[[ST:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[SH:.*]] = arith.shli %{{.*}}, %c1_i32{{[_0-9]*}} : i32
// CHECK:         %[[PH:.*]] = arith.andi %[[SH]], %c7_i32{{[_0-9]*}} : i32
// CHECK:         %[[CH:.*]] = arith.shrui %{{.*}}, %c2_i32{{[_0-9]*}} : i32
// CHECK:         arith.andi %{{.*}}, %c3_i32{{[_0-9]*}} : i32
// CHECK:         %[[X:.*]] = arith.xori %[[CH]], %[[PH]] : i32
// CHECK:         arith.shli %[[X]], %c2_i32{{[_0-9]*}} : i32
// CHECK:         vector.store %{{.*}}, %[[ST]][%{{.*}}] {alignment = 8 : i64} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-COUNT-3: vector.store %{{.*}}, %[[ST]][%{{.*}}] {alignment = 8 : i64}
// CHECK-NOT:     vector.store %{{.*}}, %[[C]]
// CHECK:         gpu.barrier
// CHECK:         arith.cmpi ult, %{{.*}}, %c64_i32{{[_0-9]*}} : i32
// CHECK:         arith.cmpi ult, %{{.*}}, %c40_i32{{[_0-9]*}} : i32
// CHECK:         scf.if
// CHECK:           %[[V:.*]] = vector.load %[[ST]][%{{.*}}] {alignment = 16 : i64} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           vector.store %[[V]], %[[C]][%{{.*}}] {alignment = 16 : i64} : memref<2560xf32>, vector<4xf32>
// CHECK:         scf.if
// CHECK:           vector.load %[[ST]]
// CHECK:           vector.store %{{.*}}, %[[C]][%{{.*}}] {alignment = 16 : i64} : memref<2560xf32>, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
module {
  module @kernels {
    func.func @mm_block_store_f32(%arg0: memref<4096xf16>, %arg1: memref<2560xf16>, %arg2: memref<2560xf32>) attributes {tile.schedule = #tile.schedule<grid = [2, 2, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 32 : i64, BLOCK_M = 32 : i64, BLOCK_N = 32 : i64}>} {
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c32_i32 = arith.constant 32 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %2 = arith.muli %0, %c32_i32 : i32
      %3 = arith.muli %1, %c32_i32 : i32
      %4 = tile.splat %cst : tensor<32x32xf32>
      %5 = scf.for %arg3 = %c0 to %c64 step %c32 iter_args(%arg4 = %4) -> (tensor<32x32xf32>) {
        %7 = arith.index_cast %arg3 : index to i32
        %8 = tile.block_load %arg0[%c0_i32, %2, %7] {dims = array<i64: 1, 64, 64>} : memref<4096xf16> -> tensor<32x32xf16>
        %9 = tile.block_load %arg1[%c0_i32, %7, %3] {dims = array<i64: 1, 64, 40>} : memref<2560xf16> -> tensor<32x32xf16>
        %10 = tile.dot %8, %9, %arg4 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        scf.yield %10 : tensor<32x32xf32>
      }
      tile.block_store %arg2[%c0_i32, %2, %3], %5 {dims = array<i64: 1, 64, 40>} : memref<2560xf32>, tensor<32x32xf32>
      return
    }
  }
}

// -----

// An f32 staging tile larger than the ring: 64 x 64 x 4 = 16 KiB over a ring of 8 KiB (2
// stages of 64 x 16 + 16 x 64 f16). The dynamic shared memory grows to the tile where the
// chip allows it; with max-shared-bytes = 12288 it does not fit, and the register stores stay
// with the reason.
// CHECK-LABEL: func.func @mm_block_store_f32_big
// CHECK-SAME:      tile.dynamic_shared_bytes = 16384 : i64
// CHECK-SAME:      epilogue_store = shared
// CHECK-NOT:       tile.smem_store_refused
// CHECK:         memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// SMALL-LABEL: func.func @mm_block_store_f32_big
// SMALL-SAME:      tile.dynamic_shared_bytes = 8192 : i64
// SMALL-SAME:      epilogue_store = registers
// SMALL-SAME:      tile.smem_store_refused = "the staging tile (16384 bytes) exceeds the shared memory per block"
// SMALL-NOT:     vector.load
// SMALL:         vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 8 : i64} : memref<4096xf32>, vector<2xf32>
module {
  module @kernels {
    func.func @mm_block_store_f32_big(%arg0: memref<2048xf16>, %arg1: memref<2048xf16>, %arg2: memref<4096xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 16 : i64, BLOCK_M = 64 : i64, BLOCK_N = 64 : i64}>} {
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %c64_i32 = arith.constant 64 : i32
      %c0_i32 = arith.constant 0 : i32
      %0 = tile.program_id 0 : i32
      %1 = tile.program_id 1 : i32
      %2 = arith.muli %0, %c64_i32 : i32
      %3 = arith.muli %1, %c64_i32 : i32
      %4 = tile.splat %cst : tensor<64x64xf32>
      %5 = scf.for %arg3 = %c0 to %c32 step %c16 iter_args(%arg4 = %4) -> (tensor<64x64xf32>) {
        %7 = arith.index_cast %arg3 : index to i32
        %8 = tile.block_load %arg0[%c0_i32, %2, %7] {dims = array<i64: 1, 64, 32>} : memref<2048xf16> -> tensor<64x16xf16>
        %9 = tile.block_load %arg1[%c0_i32, %7, %3] {dims = array<i64: 1, 32, 64>} : memref<2048xf16> -> tensor<16x64xf16>
        %10 = tile.dot %8, %9, %arg4 : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
        scf.yield %10 : tensor<64x64xf32>
      }
      tile.block_store %arg2[%c0_i32, %2, %3], %5 {dims = array<i64: 1, 64, 64>} : memref<4096xf32>, tensor<64x64xf32>
      return
    }
  }
}
