// One case per verifier error of the tile dialect: ops (TileOps.cpp), attributes and
// discardable attributes (TileDialect.cpp). Bad ops are written in generic form.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

// Known bugs (their own XFAIL files): negative axes print as unsigned
// (invalid-negative-axis.mlir); tile.launch is not verified against its kernel
// (invalid-launch.mlir). Not reachable from IR: DotOp's "result type must equal the
// accumulator type" (the AllTypesMatch trait reports first).

func.func @program_id_axis() {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %0 = "tile.program_id"() <{axis = 3 : i32}> : () -> i32
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{'tile.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %0 = "tile.num_programs"() <{axis = -1 : i32}> : () -> i32
  return
}

// -----

func.func @make_range_empty() {
  // expected-error @+1 {{'tile.make_range' op end must be greater than start}}
  %0 = "tile.make_range"() <{start = 8 : i32, end = 8 : i32}> : () -> tensor<0xi32>
  return
}

// -----

func.func @make_range_size() {
  // expected-error @+1 {{'tile.make_range' op result must be tensor<16xi32>}}
  %0 = "tile.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<32xi32>
  return
}

// -----

func.func @make_range_rank() {
  // expected-error @+1 {{'tile.make_range' op result must be tensor<16xi32>}}
  %0 = "tile.make_range"() <{start = 0 : i32, end = 16 : i32}> : () -> tensor<4x4xi32>
  return
}

// -----

func.func @splat_type(%s: f32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that element type matches}}
  %0 = "tile.splat"(%s) : (f32) -> tensor<4xf16>
  return
}

// -----

func.func @broadcast_rank(%v: tensor<1x16xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source and result must have the same rank and element type}}
  %0 = "tile.broadcast"(%v) : (tensor<1x16xf32>) -> tensor<4x4x16xf32>
  return
}

// -----

func.func @broadcast_element_type(%v: tensor<1x16xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source and result must have the same rank and element type}}
  %0 = "tile.broadcast"(%v) : (tensor<1x16xf32>) -> tensor<4x16xf16>
  return
}

// -----

func.func @broadcast_non_unit(%v: tensor<2x16xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dim 0 of size 2 cannot broadcast to 4}}
  %0 = "tile.broadcast"(%v) : (tensor<2x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @expand_dims_axis(%v: tensor<16xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 out of range [0, 1]}}
  %0 = "tile.expand_dims"(%v) <{axis = 2 : i32}> : (tensor<16xf32>) -> tensor<16x1xf32>
  return
}

// -----

func.func @expand_dims_result(%v: tensor<16xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type must be the source with a 1 inserted at 0}}
  %0 = "tile.expand_dims"(%v) <{axis = 0 : i32}> : (tensor<16xf32>) -> tensor<16x1xf32>
  return
}

// -----

func.func @expand_dims_element_type(%v: tensor<16xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type must be the source with a 1 inserted at 1}}
  %0 = "tile.expand_dims"(%v) <{axis = 1 : i32}> : (tensor<16xf32>) -> tensor<16x1xf16>
  return
}

// -----

func.func @load_offsets_shape(%p: memref<64xf32>, %o: tensor<8xi32>) {
  // expected-error @+1 {{'tile.load' op offsets shape [8] must equal the value shape [16]}}
  %0 = "tile.load"(%p, %o) : (memref<64xf32>, tensor<8xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_element_type(%p: memref<64xf16>, %o: tensor<16xi32>) {
  // expected-error @+1 {{'tile.load' op buffer element type 'f16' differs from the tile's 'f32'}}
  %0 = "tile.load"(%p, %o) : (memref<64xf16>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_mask_shape(%p: memref<64xf32>, %o: tensor<16xi32>, %m: tensor<8xi1>) {
  // expected-error @+1 {{'tile.load' op mask shape must equal the value shape}}
  %0 = "tile.load"(%p, %o, %m) : (memref<64xf32>, tensor<16xi32>, tensor<8xi1>) -> tensor<16xf32>
  return
}

// -----

func.func @load_padding_type(%p: memref<64xf32>, %o: tensor<16xi32>, %m: tensor<16xi1>) {
  // expected-error @+1 {{'tile.load' op padding type 'f16' differs from element type}}
  %0 = "tile.load"(%p, %o, %m) <{padding = 0.0 : f16}> : (memref<64xf32>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xf32>
  return
}

// -----

func.func @load_2d_buffer(%p: memref<8x8xf32>, %o: tensor<16xi32>) {
  // expected-error @+1 {{'tile.load' op operand #0 must be 1D memref of any type values}}
  %0 = "tile.load"(%p, %o) : (memref<8x8xf32>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_i64_offsets(%p: memref<64xf32>, %o: tensor<16xi64>) {
  // expected-error @+1 {{'tile.load' op operand #1 must be ranked tensor of 32-bit signless integer values}}
  %0 = "tile.load"(%p, %o) : (memref<64xf32>, tensor<16xi64>) -> tensor<16xf32>
  return
}

// -----

func.func @store_offsets_shape(%p: memref<64xf32>, %o: tensor<8xi32>, %v: tensor<16xf32>) {
  // expected-error @+1 {{'tile.store' op offsets shape [8] must equal the value shape [16]}}
  "tile.store"(%p, %o, %v) : (memref<64xf32>, tensor<8xi32>, tensor<16xf32>) -> ()
  return
}

// -----

func.func @store_element_type(%p: memref<64xf32>, %o: tensor<16xi32>, %v: tensor<16xf16>) {
  // expected-error @+1 {{'tile.store' op buffer element type 'f32' differs from the tile's 'f16'}}
  "tile.store"(%p, %o, %v) : (memref<64xf32>, tensor<16xi32>, tensor<16xf16>) -> ()
  return
}

// -----

func.func @store_mask_shape(%p: memref<64xf32>, %o: tensor<4x4xi32>, %v: tensor<4x4xf32>, %m: tensor<16xi1>) {
  // expected-error @+1 {{'tile.store' op mask shape must equal the value shape}}
  "tile.store"(%p, %o, %v, %m) : (memref<64xf32>, tensor<4x4xi32>, tensor<4x4xf32>, tensor<16xi1>) -> ()
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf32>, %b: tensor<16x8xf32>, %c: tensor<1x8xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D tiles}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16xf32>, tensor<16x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf32>, %b: tensor<16x64xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'tile.dot' op K differs: a is [16, 32], b is [16, 64]}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16x32xf32>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator shape [16, 32] is not [M, N]}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return
}

// -----

func.func @dot_result_type(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf16>
  return
}

// -----

func.func @dot_element_types(%a: tensor<16x32xf32>, %b: tensor<32x64xf16>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'tile.dot' op a and b element types differ}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16x32xf32>, tensor<32x64xf16>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @dot_int_acc(%a: tensor<16x32xi8>, %b: tensor<32x64xi8>, %c: tensor<16x64xi32>) {
  // expected-error @+1 {{'tile.dot' op accumulator must be a float tile}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<16x32xi8>, tensor<32x64xi8>, tensor<16x64xi32>) -> tensor<16x64xi32>
  return
}

// -----

func.func @dot_precision(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{Invalid attribute `input_precision` in property conversion: 5 : i32}}
  %0 = "tile.dot"(%a, %b, %c) <{input_precision = 5 : i32}> : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

func.func @reduce_axis(%v: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 out of range [0, 2)}}
  %0 = "tile.reduce"(%v) <{axis = 2 : i32, kind = 0 : i32}> : (tensor<4x16xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_result(%v: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be the source with dim 1 removed}}
  %0 = "tile.reduce"(%v) <{axis = 1 : i32, kind = 1 : i32}> : (tensor<4x16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @reduce_keepdims(%v: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be the source with dim 1 removed}}
  %0 = "tile.reduce"(%v) <{axis = 1 : i32, kind = 2 : i32}> : (tensor<4x16xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_element_type(%v: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be the source with dim 0 removed}}
  %0 = "tile.reduce"(%v) <{axis = 0 : i32, kind = 3 : i32}> : (tensor<4x16xf32>) -> tensor<16xf64>
  return
}

// -----

func.func @launch_dynamic(%x: memref<?xf32>) {
  // expected-error @+1 {{'tile.launch' op operand #0 must be variadic of statically shaped memref of any type values}}
  "tile.launch"(%x) <{kernel = @kernels::@k}> : (memref<?xf32>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// #tile.schedule
//===----------------------------------------------------------------------===//

// expected-error @+1 {{grid must have 3 entries [x, y, z], got 2}}
func.func @schedule_grid_size() attributes {tile.schedule = #tile.schedule<grid = [1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{grid must have 3 entries [x, y, z], got 4}}
func.func @schedule_grid_size4() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{grid entries must be in [1, 2^31), got 0}}
func.func @schedule_grid_zero() attributes {tile.schedule = #tile.schedule<grid = [1, 0, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{grid entries must be in [1, 2^31), got 2147483648}}
func.func @schedule_grid_huge() attributes {tile.schedule = #tile.schedule<grid = [2147483648, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{num_warps must be a power of two in [1, 32], got 3}}
func.func @schedule_warps_not_pow2() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 3, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{num_warps must be a power of two in [1, 32], got 64}}
func.func @schedule_warps_too_many() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 64, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{num_warps must be a power of two in [1, 32], got 0}}
func.func @schedule_warps_zero() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 0, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{num_stages must be >= 1, got 0}}
func.func @schedule_stages() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 0, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{block size "BLOCK" must be a positive integer}}
func.func @schedule_block_zero() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 0 : i64}>} {
  return
}

// -----

// expected-error @+1 {{block size "BLOCK_M" must be a positive integer}}
func.func @schedule_block_not_int() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK_M = "64"}>} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
func.func @blocked_lanes() attributes {tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]>} {
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 64}}
func.func @blocked_lanes_2d() attributes {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>} {
  return
}

// -----

// expected-error @+1 {{all blocked layout fields must have the same rank}}
func.func @blocked_rank() attributes {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>} {
  return
}

// -----

// expected-error @+1 {{order must be a permutation of [0, 2)}}
func.func @blocked_order_repeated() attributes {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]>} {
  return
}

// -----

// expected-error @+1 {{order must be a permutation of [0, 2)}}
func.func @blocked_order_range() attributes {tile.layout = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [2, 0]>} {
  return
}

// -----

// expected-error @+1 {{sizePerThread entries must be positive}}
func.func @blocked_size_zero() attributes {tile.layout = #tile.blocked<sizePerThread = [0], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>} {
  return
}

// -----

// expected-error @+1 {{warpsPerCTA entries must be positive}}
func.func @blocked_warps_zero() attributes {tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [0], order = [0]>} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// Discardable attributes: tile.schedule, tile.layout, tile.cpu_kernel
//===----------------------------------------------------------------------===//

// expected-error @+1 {{tile kernel arguments must be static 1-D memrefs with identity layout, got 'memref<4x4xf32>'}}
func.func @schedule_2d_arg(%p: memref<4x4xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{tile kernel arguments must be static 1-D memrefs with identity layout, got 'memref<?xf32>'}}
func.func @schedule_dynamic_arg(%p: memref<?xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{tile kernel arguments must be static 1-D memrefs with identity layout, got 'memref<16xf32, strided<[2]>>'}}
func.func @schedule_strided_arg(%p: memref<16xf32, strided<[2]>>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{tile kernel arguments must be static 1-D memrefs with identity layout, got 'tensor<16xf32>'}}
func.func @schedule_tensor_arg(%p: tensor<16xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return
}

// -----

// expected-error @+1 {{tile kernels return nothing}}
func.func @schedule_results(%p: memref<16xf32>) -> memref<16xf32> attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} {
  return %p : memref<16xf32>
}

// -----

// expected-error @+1 {{'tile.schedule' must be a #tile.schedule attribute}}
func.func @schedule_not_schedule() attributes {tile.schedule = 4 : i64} {
  return
}

// -----

func.func @schedule_not_function() {
  // expected-error @+1 {{'tile.schedule' only applies to functions}}
  %0 = arith.constant {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>} 0 : i32
  return
}

// -----

func.func @layout_not_blocked() {
  // expected-error @+1 {{'tile.layout' must be a #tile.blocked attribute}}
  %0 = arith.constant {tile.layout = "blocked"} 0 : i32
  return
}

// -----

// expected-error @+1 {{'tile.cpu_kernel' must be an integer (buffer parameter count)}}
func.func @cpu_kernel_not_int() attributes {tile.cpu_kernel = "2"} {
  return
}

// -----

// expected-error @+1 {{unknown tile dialect attribute "tile.bogus"}}
func.func @unknown_attribute() attributes {tile.bogus = 1 : i64} {
  return
}

// -----

// Discardable attributes of convert-tile-to-gpu-registers.
// expected-error @+1 {{'tile.layouts' must be an array of #tile.blocked attributes}}
func.func @layouts_not_blocked() attributes {tile.layouts = [1 : i64]} {
  return
}

// -----

// expected-error @+1 {{'tile.register_path_refused' must be a string (the reason)}}
func.func @refused_not_string() attributes {tile.register_path_refused = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.programs_per_cta' must be a positive integer}}
func.func @programs_per_cta_zero() attributes {tile.programs_per_cta = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.wgmma' must be a #tile.wgmma_config attribute (the kernel's MMA config)}}
func.func @wgmma_not_config() attributes {tile.wgmma = {BLOCK_M = 128 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tile.mma_sync' must be a #tile.mma_sync_config attribute (the kernel's MMA config)}}
func.func @mma_sync_not_config() attributes {tile.mma_sync = #tile.wgmma_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_stages = 2, consumer_warpgroups = 1, schedule = cooperative, epilogue_store = registers>} {
  return
}

// -----

// expected-error @+1 {{'tile.wgmma_refused' must be a string (the reason)}}
func.func @wgmma_refused_not_string() attributes {tile.wgmma_refused = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.tma_store_refused' must be a string (the reason)}}
func.func @tma_store_refused_not_string() attributes {tile.tma_store_refused = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.smem_store_refused' must be a string (the reason)}}
func.func @smem_store_refused_not_string() attributes {tile.smem_store_refused = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.mma_sync_refused' must be a string (the reason)}}
func.func @mma_sync_refused_not_string() attributes {tile.mma_sync_refused = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.launch_grid' must be array<i32: x, y, z>, each >= 1}}
func.func @launch_grid_two_dims() attributes {tile.launch_grid = array<i32: 4, 1>} {
  return
}

// -----

// expected-error @+1 {{'tile.launch_block' must be array<i32: x, y, z>, each >= 1}}
func.func @launch_block_zero() attributes {tile.launch_block = array<i32: 0, 1, 1>} {
  return
}

// -----

// expected-error @+1 {{'tile.dynamic_shared_bytes' must be a non-negative integer}}
func.func @dynamic_shared_bytes_negative() attributes {tile.dynamic_shared_bytes = -1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, dims, box, swizzle, element} dictionaries}}
func.func @tensor_maps_missing_box() attributes {tile.tensor_maps = [{param = 0 : i64, dims = array<i64: 1, 64, 64>, swizzle = 128 : i64, element = f16}]} {
  return
}

// -----

// expected-error @+1 {{'tile.tensor_map' must be a unit attribute}}
func.func @tensor_map_not_unit() attributes {tile.tensor_map = 1 : i64} {
  return
}

// -----

func.func @block_load_dims_rank(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op dims must be [batch, rows, cols], got 1 entries}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 128>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @block_load_dims_zero(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op dims must be in [1, 2^31), got [1, 0, 128]}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 1, 0, 128>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

func.func @block_load_result_rank(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op result must be a static non-empty 2-D tile, got 'tensor<64xf16>'}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 1, 128, 128>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<64xf16>
  return
}

// -----

func.func @block_load_result_empty(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op result must be a static non-empty 2-D tile, got 'tensor<0x64xf16>'}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 1, 128, 128>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<0x64xf16>
  return
}

// -----

func.func @block_load_element(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op element type 'f32' differs from the buffer's 'f16'}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 1, 128, 128>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<64x64xf32>
  return
}

// -----

func.func @block_load_buffer_small(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op buffer of 16384 elements is smaller than dims [2, 128, 128]}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 2, 128, 128>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

// 2^30 x 2^30 x 16 = 2^64 elements: the product wraps int64 to 0, which the check must not
// take for "fits".
func.func @block_load_buffer_small_wrapping(%A: memref<16384xf16>, %c: i32) {
  // expected-error @+1 {{'tile.block_load' op buffer of 16384 elements is smaller than dims [1073741824, 1073741824, 16]}}
  %a = "tile.block_load"(%A, %c, %c, %c) <{dims = array<i64: 1073741824, 1073741824, 16>}> : (memref<16384xf16>, i32, i32, i32) -> tensor<64x64xf16>
  return
}

// -----

// tile.block_store shares block_load's checks (verifyBlockAccess), on its value tile.
func.func @block_store_dims_rank(%C: memref<16384xf16>, %c: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.block_store' op dims must be [batch, rows, cols], got 2 entries}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 128, 128>}> : (memref<16384xf16>, i32, i32, i32, tensor<64x64xf16>) -> ()
  return
}

// -----

func.func @block_store_dims_big(%C: memref<16384xf16>, %c: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.block_store' op dims must be in [1, 2^31), got [1, 2147483648, 128]}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1, 2147483648, 128>}> : (memref<16384xf16>, i32, i32, i32, tensor<64x64xf16>) -> ()
  return
}

// -----

func.func @block_store_value_rank(%C: memref<16384xf16>, %c: i32, %v: tensor<2x64x64xf16>) {
  // expected-error @+1 {{'tile.block_store' op value must be a static non-empty 2-D tile, got 'tensor<2x64x64xf16>'}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1, 128, 128>}> : (memref<16384xf16>, i32, i32, i32, tensor<2x64x64xf16>) -> ()
  return
}

// -----

func.func @block_store_value_empty(%C: memref<16384xf16>, %c: i32, %v: tensor<64x0xf16>) {
  // expected-error @+1 {{'tile.block_store' op value must be a static non-empty 2-D tile, got 'tensor<64x0xf16>'}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1, 128, 128>}> : (memref<16384xf16>, i32, i32, i32, tensor<64x0xf16>) -> ()
  return
}

// -----

func.func @block_store_element(%C: memref<16384xf16>, %c: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.block_store' op element type 'f32' differs from the buffer's 'f16'}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1, 128, 128>}> : (memref<16384xf16>, i32, i32, i32, tensor<64x64xf32>) -> ()
  return
}

// -----

func.func @block_store_buffer_small(%C: memref<16384xf16>, %c: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.block_store' op buffer of 16384 elements is smaller than dims [1, 128, 129]}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1, 128, 129>}> : (memref<16384xf16>, i32, i32, i32, tensor<64x64xf16>) -> ()
  return
}

// -----

// The int64 product of the dims wraps to 0: the division form must still refuse it.
func.func @block_store_buffer_small_wrapping(%C: memref<16384xf16>, %c: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.block_store' op buffer of 16384 elements is smaller than dims [1073741824, 1073741824, 16]}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1073741824, 1073741824, 16>}> : (memref<16384xf16>, i32, i32, i32, tensor<64x64xf16>) -> ()
  return
}

// -----

// `transpose` is a unit attribute, an inherent one (a property): anything else is refused,
// not ignored.
func.func @block_store_transpose_not_unit(%C: memref<16384xf16>, %c: i32, %v: tensor<64x64xf16>) {
  // expected-error @+1 {{invalid properties {dims = array<i64: 1, 128, 128>, transpose = 1 : i32} for op tile.block_store: Invalid attribute `transpose` in property conversion: 1 : i32}}
  "tile.block_store"(%C, %c, %c, %c, %v) <{dims = array<i64: 1, 128, 128>, transpose = 1 : i32}> : (memref<16384xf16>, i32, i32, i32, tensor<64x64xf16>) -> ()
  return
}

// -----

// Transposed, the same checks hold (the value's type, the buffer against dims).
func.func @block_store_transposed_buffer_small(%C: memref<16384xf16>, %c: i32, %v: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.block_store' op buffer of 16384 elements is smaller than dims [2, 64, 129]}}
  tile.block_store %C[%c, %c, %c], %v {dims = array<i64: 2, 64, 129>, transpose} : memref<16384xf16>, tensor<64x32xf16>
  return
}

// -----

// expected-error @+1 {{'tile.tma_store_refused' must be a string (the reason)}}
func.func @tma_store_refused_not_string() attributes {tile.tma_store_refused = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.wgmma_refused' must be a string (the reason)}}
func.func @wgmma_refused_not_string() attributes {tile.wgmma_refused = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.smem_store_refused' must be a string (the reason)}}
func.func @smem_store_refused_not_string() attributes {tile.smem_store_refused = unit} {
  return
}

// -----

func.func @im2col_kernel_rank(%X: memref<210xf16>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op kernel must have 2 entries, got 3}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NCHW", kernel = array<i64: 3, 2, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, output = array<i64: 5, 4>}> : (memref<210xf16>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

func.func @im2col_negative_pad(%X: memref<210xf16>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op pads entries must be in [0, 2^31), got [-1, 0]}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NCHW", kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: -1, 0>, dilations = array<i64: 1, 1>, output = array<i64: 5, 4>}> : (memref<210xf16>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

func.func @im2col_layout(%X: memref<210xf16>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op layout must be "NCHW" or "NHWC", got "NWHC"}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NWHC", kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, output = array<i64: 5, 4>}> : (memref<210xf16>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

func.func @im2col_elem(%X: memref<210xf32>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op element type 'f16' differs from the buffer's 'f32'}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NCHW", kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, output = array<i64: 5, 4>}> : (memref<210xf32>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

func.func @im2col_small_buffer(%X: memref<200xf16>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op buffer of 200 elements is smaller than input [2, 3, 7, 5]}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NCHW", kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, output = array<i64: 5, 4>}> : (memref<200xf16>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

func.func @im2col_too_many_rows(%X: memref<210xf16>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op input, im2col rows (N*OH*OW) and columns (C*KH*KW) must each hold fewer than 2^31 elements}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NCHW", kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, output = array<i64: 65536, 65536>}> : (memref<210xf16>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

func.func @im2col_positions(%X: memref<210xf16>, %c: i32) {
  // expected-error @+1 {{'tile.im2col_load' op input positions of spatial dim 0 (output * stride + kernel * dilation) exceed 2^31}}
  %a = "tile.im2col_load"(%X, %c, %c) <{input = array<i64: 2, 3, 7, 5>, layout = "NCHW", kernel = array<i64: 3, 2>, strides = array<i64: 1073741824, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, output = array<i64: 5, 4>}> : (memref<210xf16>, i32, i32) -> tensor<16x32xf16>
  return
}

// -----

// A kernel declaration: the lowerings rewrite the body (convert-tile-to-gpu, -cpu and
// -gpu-registers crashed on one, issue 14).
// expected-error @+1 {{a tile kernel needs a body: this 'tile.schedule' function is a declaration}}
func.func private @declared(memref<8xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {}>}

// -----

// expected-error @+1 {{'tile.matmul_config' must be a #tile.matmul_config attribute (the chosen tile config)}}
func.func @matmul_config_not_config() attributes {tile.matmul_config = "128x128x64"} {
  return
}

// -----

// expected-error @+1 {{BLOCK sizes must be in [1, 1024], got 0}}
func.func @matmul_config_zero_block() attributes {tile.matmul_config = #tile.matmul_config<BLOCK_M = 0, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>} {
  return
}

// -----

// expected-error @+1 {{num_stages must be in [1, 16], got 17}}
func.func @matmul_config_stages() attributes {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 17, path = generic>} {
  return
}

// -----

// expected-error @+1 {{split_k must be in [1, 16], got 0}}
func.func @matmul_config_split_k_zero() attributes {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma, split_k = 0>} {
  return
}

// -----

// expected-error @+1 {{split_k must be in [1, 16], got 17}}
func.func @matmul_config_split_k_big() attributes {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma, split_k = 17>} {
  return
}

// -----

// expected-error @+2 {{expected ::aicc::tile::MatmulPath to be one of: generic, mma_sync, wgmma}}
// expected-error @+1 {{failed to parse Tile_MatmulConfigAttr parameter 'path'}}
func.func @matmul_config_path() attributes {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = tensor_cores>} {
  return
}

// -----

// expected-error @+1 {{'tile.in_place' must be array<i32: input, output, ...>: pairs of parameter indices}}
func.func @in_place_odd_count(%a: memref<8xf32>, %b: memref<8xf32>) attributes {tile.in_place = array<i32: 0, 1, 0>} {
  return
}

// -----

// expected-error @+1 {{'tile.in_place' must be array<i32: input, output, ...>: pairs of parameter indices}}
func.func @in_place_negative(%a: memref<8xf32>, %b: memref<8xf32>) attributes {tile.in_place = array<i32: -1, 1>} {
  return
}

// -----

func.func @swap_pairs_odd(%v: tensor<4x15xf32>) {
  // expected-error @+1 {{'tile.swap_pairs' op the last dim must have an even size, got 'tensor<4x15xf32>'}}
  %0 = "tile.swap_pairs"(%v) : (tensor<4x15xf32>) -> tensor<4x15xf32>
  return
}

// -----

// expected-error @+1 {{'tile.symgrid' must be array<i64: axis (0..2), symbol, unit, per, group>, unit, per and group >= 1}}
func.func @symgrid_short() attributes {tile.symgrid = array<i64: 0, 0, 4, 1>} {
  return
}

// -----

// expected-error @+1 {{'tile.symgrid' must be array<i64: axis (0..2), symbol, unit, per, group>, unit, per and group >= 1}}
func.func @symgrid_axis() attributes {tile.symgrid = array<i64: 3, 0, 4, 1, 1>} {
  return
}

// -----

// expected-error @+1 {{'tile.symgrid' must be array<i64: axis (0..2), symbol, unit, per, group>, unit, per and group >= 1}}
func.func @symgrid_zero_per() attributes {tile.symgrid = array<i64: 0, 0, 4, 0, 1>} {
  return
}

// -----

// expected-error @+1 {{'tile.symvalues' must be the index of a parameter (an integer >= 0)}}
func.func @symvalues_negative() attributes {tile.symvalues = -1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tile.symvalues' must be the index of a parameter (an integer >= 0)}}
func.func @symvalues_not_integer() attributes {tile.symvalues = "x"} {
  return
}
