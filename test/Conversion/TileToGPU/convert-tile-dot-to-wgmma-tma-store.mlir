// RUN: aicc-opt %s -split-input-file -convert-tile-dot-to-wgmma -verify-diagnostics | FileCheck %s
// RUN: aicc-opt %s -split-input-file -convert-tile-dot-to-wgmma=tma-store=false | FileCheck %s --check-prefix=OFF

// The TMA-store epilogue of convert-tile-dot-to-wgmma: a kernel whose only store is a
// tile.block_store of the [BLOCK_M, BLOCK_N] tile writes its final values to a 128-byte
// swizzled staging buffer per consumer warpgroup and stores it with TMA box stores.
//
// Ping-pong 128 x 128 (f16 out): each warpgroup stages a whole tile, 128 rows x 128 columns
// = 2 boxes of [128 x 64]; shared memory = 4 stages x 32 KiB + 2 x 32 KiB of staging +
// barriers + 1 KiB of alignment slack; the output (param 3) gets the third tensor map.
// CHECK-LABEL: func.func @pingpong(
// CHECK-SAME: %{{.*}}: !llvm.ptr {tile.tensor_map}, %{{.*}}: !llvm.ptr {tile.tensor_map}, %[[OUTMAP:.*]]: !llvm.ptr {tile.tensor_map})
// CHECK-SAME: tile.dynamic_shared_bytes = 197712
// CHECK-SAME: {box = array<i64: 1, 128, 64>, dims = array<i64: 1, 4096, 4096>, element = f16, param = 3 : i64, swizzle = 128 : i64}]
// CHECK-NOT: tile.tma_store_refused
// CHECK-SAME: tile.wgmma = #tile.wgmma_config<{{.*}}num_stages = 4, {{.*}}schedule = pingpong, epilogue_store = tma>
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The staging buffer is free once the previous tile's stores have read it (leader), for all
// 128 threads.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// The named barrier of consumer warpgroup w (id 1 + w), over its 128 threads.
// CHECK: nvvm.barrier id = %[[BAR:.*]] number_of_threads = %{{.*}}
// CHECK-NOT: llvm.store
// 128 x 128 elements / 128 threads = 64 register pairs per thread, st.shared each.
// CHECK-COUNT-64: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT: vector.store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %[[BAR]] number_of_threads = %{{.*}}
// CHECK-NEXT: scf.if
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: }
// After the tile loop the leader waits for the stores to complete.
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
//
// tma-store=false: the register path (global pair stores), two tensor maps, no reason.
// OFF-LABEL: func.func @pingpong(
// OFF-SAME: %{{.*}}: !llvm.ptr {tile.tensor_map}, %{{.*}}: !llvm.ptr {tile.tensor_map}) attributes
// OFF-SAME: tile.dynamic_shared_bytes = 132176
// OFF-NOT: tile.tma_store_refused
// OFF-SAME: epilogue_store = registers
// OFF-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// OFF: vector.store %{{.*}} {alignment = 4 : i64} : memref<16777216xf16>, vector<2xf16>
// OFF-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
module {
  builtin.module @kernels {
    func.func @pingpong(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16777216xf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 32, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %cbm = arith.constant 128 : i32
      %cbn = arith.constant 128 : i32
      %m0 = arith.muli %pm, %cbm : i32
      %n0 = arith.muli %pn, %cbn : i32
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
      %rn0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %sn = tile.splat %n0 : tensor<128xi32>
      %rn = arith.addi %sn, %rn0 : tensor<128xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<128xi32> -> tensor<128xf16>
      %bf = arith.extf %bo : tensor<128xf16> to tensor<128xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
      %b3 = tile.broadcast %b2 : tensor<1x128xf32> -> tensor<128x128xf32>
      %v = arith.addf %r, %b3 : tensor<128x128xf32>
      %h = arith.truncf %v : tensor<128x128xf32> to tensor<128x128xf16>
      tile.block_store %C[%pb, %m0, %n0], %h {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16>, tensor<128x128xf16>
      return
    }
  }
}

// -----

// Cooperative 128 x 256 (bf16 out): the warpgroups split the rows, each stages its 64 rows
// (4 boxes of [64 x 64]) and stores them at row m0 + 64 w. 4 stages of 48 KiB and 64 KiB of
// staging exceed 227 KiB: num_stages drops to 3 (recorded).
// CHECK-LABEL: func.func @cooperative(
// CHECK-SAME: tile.dynamic_shared_bytes = 214080
// CHECK-SAME: {box = array<i64: 1, 64, 64>, dims = array<i64: 1, 4096, 4096>, element = bf16, param = 3 : i64, swizzle = 128 : i64}]
// CHECK-SAME: tile.wgmma = #tile.wgmma_config<{{.*}}num_stages = 3, num_stages_requested = 4, {{.*}}schedule = cooperative, epilogue_store = tma>
// 3 full + 3 empty + 2 order barriers.
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: nvvm.fence.proxy
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[ROWOFF:.*]] = arith.muli %{{.*}}, %[[C64]] : i32
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[ROWOFF]] : i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %[[ROW]], %{{.*}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
module {
  builtin.module @kernels {
    func.func @cooperative(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16777216xbf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 16, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 256 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %cbm = arith.constant 128 : i32
      %cbn = arith.constant 256 : i32
      %m0 = arith.muli %pm, %cbm : i32
      %n0 = arith.muli %pn, %cbn : i32
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
      %rn0 = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
      %sn = tile.splat %n0 : tensor<256xi32>
      %rn = arith.addi %sn, %rn0 : tensor<256xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<256xi32> -> tensor<256xf16>
      %bf = arith.extf %bo : tensor<256xf16> to tensor<256xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<256xf32> -> tensor<1x256xf32>
      %b3 = tile.broadcast %b2 : tensor<1x256xf32> -> tensor<128x256xf32>
      %v = arith.addf %r, %b3 : tensor<128x256xf32>
      %h = arith.truncf %v : tensor<128x256xf32> to tensor<128x256xbf16>
      tile.block_store %C[%pb, %m0, %n0], %h {dims = array<i64: 1, 4096, 4096>} : memref<16777216xbf16>, tensor<128x256xbf16>
      return
    }
  }
}

// -----

// f32 out at 128 x 256: 128 KiB of staging do not fit beside 3 stages (the fewest it leaves): the
// register path, with the reason.
// CHECK-LABEL: func.func @f32_out_no_room(
// CHECK-SAME: tile.tma_store_refused = "the staging buffers (131072 bytes) do not fit in 227 KiB of shared memory beside 3 stages of 49152 bytes"
// CHECK-SAME: num_stages = 4, {{.*}}epilogue_store = registers
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<16777216xf32>, vector<2xf32>
module {
  builtin.module @kernels {
    func.func @f32_out_no_room(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16777216xf32>) attributes {tile.schedule = #tile.schedule<grid = [32, 16, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 256 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %cbm = arith.constant 128 : i32
      %cbn = arith.constant 256 : i32
      %m0 = arith.muli %pm, %cbm : i32
      %n0 = arith.muli %pn, %cbn : i32
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
      %rn0 = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
      %sn = tile.splat %n0 : tensor<256xi32>
      %rn = arith.addi %sn, %rn0 : tensor<256xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<256xi32> -> tensor<256xf16>
      %bf = arith.extf %bo : tensor<256xf16> to tensor<256xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<256xf32> -> tensor<1x256xf32>
      %b3 = tile.broadcast %b2 : tensor<1x256xf32> -> tensor<128x256xf32>
      %v = arith.addf %r, %b3 : tensor<128x256xf32>
      tile.block_store %C[%pb, %m0, %n0], %v {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf32>, tensor<128x256xf32>
      return
    }
  }
}

// -----

// BLOCK_M = 64 (one consumer warpgroup), f32 out: boxes of [64 x 32 f32], 4 of them, stored at
// columns n0, n0 + 32, n0 + 64, n0 + 96; 8-byte st.shared pairs.
// CHECK-LABEL: func.func @bm64_f32(
// CHECK-SAME: {box = array<i64: 1, 64, 32>, dims = array<i64: 1, 4096, 4096>, element = f32, param = 3 : i64, swizzle = 128 : i64}]
// CHECK-SAME: epilogue_store = tma
// CHECK-COUNT-32: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: scf.if
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[COL0:.*]] = arith.addi %[[N0:.*]], %[[C0]] : i32
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[COL0]], %{{.*}}, %{{.*}}]
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[COL1:.*]] = arith.addi %[[N0]], %[[C32]] : i32
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%[[COL1]], %{{.*}}, %{{.*}}]
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
module {
  builtin.module @kernels {
    func.func @bm64_f32(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16777216xf32>) attributes {tile.schedule = #tile.schedule<grid = [64, 32, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_M = 64 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %cbm = arith.constant 64 : i32
      %cbn = arith.constant 128 : i32
      %m0 = arith.muli %pm, %cbm : i32
      %n0 = arith.muli %pn, %cbn : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<64x128xf32>
      %c0 = arith.constant 0 : index
      %cK = arith.constant 4096 : index
      %cBK = arith.constant 64 : index
      %r = scf.for %k = %c0 to %cK step %cBK iter_args(%acc = %acc0) -> (tensor<64x128xf32>) {
        %k32 = arith.index_cast %k : index to i32
        %a = tile.block_load %A[%pb, %m0, %k32] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<64x64xf16>
        %b = tile.block_load %B[%pb, %k32, %n0] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<64x128xf16>
        %d = tile.dot %a, %b, %acc : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
        scf.yield %d : tensor<64x128xf32>
      }
      %rn0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %sn = tile.splat %n0 : tensor<128xi32>
      %rn = arith.addi %sn, %rn0 : tensor<128xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<128xi32> -> tensor<128xf16>
      %bf = arith.extf %bo : tensor<128xf16> to tensor<128xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
      %b3 = tile.broadcast %b2 : tensor<1x128xf32> -> tensor<64x128xf32>
      %v = arith.addf %r, %b3 : tensor<64x128xf32>
      tile.block_store %C[%pb, %m0, %n0], %v {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf32>, tensor<64x128xf32>
      return
    }
  }
}

// -----

// Output rows of 4099 f16 (8198 bytes) break TMA's 16-byte stride rule: register path.
// CHECK-LABEL: func.func @ragged_rows(
// CHECK-SAME: tile.tma_store_refused = "output rows are not a multiple of 16 bytes (TMA stride rule)"
// CHECK-SAME: epilogue_store = registers
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
module {
  builtin.module @kernels {
    func.func @ragged_rows(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %bias: memref<4096xf16>, %C: memref<16789504xf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 32, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %pn = tile.program_id 1 : i32
      %pb = tile.program_id 2 : i32
      %cbm = arith.constant 128 : i32
      %cbn = arith.constant 128 : i32
      %m0 = arith.muli %pm, %cbm : i32
      %n0 = arith.muli %pn, %cbn : i32
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
      %rn0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
      %sn = tile.splat %n0 : tensor<128xi32>
      %rn = arith.addi %sn, %rn0 : tensor<128xi32>
      %bo = tile.load %bias[%rn] : memref<4096xf16>, tensor<128xi32> -> tensor<128xf16>
      %bf = arith.extf %bo : tensor<128xf16> to tensor<128xf32>
      %b2 = tile.expand_dims %bf {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
      %b3 = tile.broadcast %b2 : tensor<1x128xf32> -> tensor<128x128xf32>
      %v = arith.addf %r, %b3 : tensor<128x128xf32>
      %h = arith.truncf %v : tensor<128x128xf32> to tensor<128x128xf16>
      tile.block_store %C[%pb, %m0, %n0], %h {dims = array<i64: 1, 4096, 4099>} : memref<16789504xf16>, tensor<128x128xf16>
      return
    }
  }
}

// -----

// Transposed block stores (the NCHW conv form, hand-written: the conv template emits one per
// tile only where the tile stays within one image). Two of them, the second at negative pixel
// columns (the tile's rows past image %img): TMA box stores there fault on the H200, so the
// register path, with the reason.
// CHECK-LABEL: func.func @transposed_spanning_images(
// CHECK-SAME: tile.tma_store_refused = "the tile spans 2 images (one transposed block store each): TMA box stores at negative pixel coordinates fault"
// CHECK-SAME: epilogue_store = registers
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: memref.store
module {
  builtin.module @kernels {
    func.func @transposed_spanning_images(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %C: memref<3686400xf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 1, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %c0i = arith.constant 0 : i32
      %cbm = arith.constant 128 : i32
      %c144 = arith.constant 144 : i32
      %c1 = arith.constant 1 : i32
      %m0 = arith.muli %pm, %cbm : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<128x128xf32>
      %c0 = arith.constant 0 : index
      %cK = arith.constant 4096 : index
      %cBK = arith.constant 64 : index
      %r = scf.for %k = %c0 to %cK step %cBK iter_args(%acc = %acc0) -> (tensor<128x128xf32>) {
        %k32 = arith.index_cast %k : index to i32
        %a = tile.block_load %A[%c0i, %m0, %k32] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<128x64xf16>
        %b = tile.block_load %B[%c0i, %k32, %c0i] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<64x128xf16>
        %d = tile.dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      %h = arith.truncf %r : tensor<128x128xf32> to tensor<128x128xf16>
      %img = arith.divsi %m0, %c144 : i32
      %pix = arith.remsi %m0, %c144 : i32
      tile.block_store %C[%img, %c0i, %pix], %h {dims = array<i64: 200, 128, 144>, transpose} : memref<3686400xf16>, tensor<128x128xf16>
      %img1 = arith.addi %img, %c1 : i32
      %pix1 = arith.subi %pix, %c144 : i32
      tile.block_store %C[%img1, %c0i, %pix1], %h {dims = array<i64: 200, 128, 144>, transpose} : memref<3686400xf16>, tensor<128x128xf16>
      return
    }
  }
}

// -----

// One transposed block store whose channel rows (225 pixels of 2 bytes) break TMA's 16-byte
// global stride rule: the register path, with the reason.
// CHECK-LABEL: func.func @transposed_odd_rows(
// CHECK-SAME: tile.tma_store_refused = "output rows (225 pixels of 2 bytes per NCHW channel) are not a multiple of 16 bytes (TMA stride rule)"
// CHECK-SAME: epilogue_store = registers
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: memref.store
module {
  builtin.module @kernels {
    func.func @transposed_odd_rows(%A: memref<16777216xf16>, %B: memref<16777216xf16>, %C: memref<5760000xf16>) attributes {tile.schedule = #tile.schedule<grid = [32, 1, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, BLOCK_K = 64 : i64}>} {
      %pm = tile.program_id 0 : i32
      %c0i = arith.constant 0 : i32
      %cbm = arith.constant 128 : i32
      %c2 = arith.constant 2 : i32
      %img = arith.divsi %pm, %c2 : i32
      %t = arith.remsi %pm, %c2 : i32
      %pix = arith.muli %t, %cbm : i32
      %m0 = arith.muli %pm, %cbm : i32
      %zero = arith.constant 0.0 : f32
      %acc0 = tile.splat %zero : tensor<128x128xf32>
      %c0 = arith.constant 0 : index
      %cK = arith.constant 4096 : index
      %cBK = arith.constant 64 : index
      %r = scf.for %k = %c0 to %cK step %cBK iter_args(%acc = %acc0) -> (tensor<128x128xf32>) {
        %k32 = arith.index_cast %k : index to i32
        %a = tile.block_load %A[%c0i, %m0, %k32] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<128x64xf16>
        %b = tile.block_load %B[%c0i, %k32, %c0i] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<64x128xf16>
        %d = tile.dot %a, %b, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      %h = arith.truncf %r : tensor<128x128xf32> to tensor<128x128xf16>
      tile.block_store %C[%img, %c0i, %pix], %h {dims = array<i64: 200, 128, 225>, transpose} : memref<5760000xf16>, tensor<128x128xf16>
      return
    }
  }
}
