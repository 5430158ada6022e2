// select-matmul-configs: every matmul / implicit-GEMM conv group gets its tile config as a
// typed attribute, for the module's target (aicc.target) and hardware (aicc.hardware);
// convert-graph-to-tile builds the kernel with it.
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},func.func(graph-fuse),select-matmul-configs)" | FileCheck %s --check-prefix=SM90A
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_80},func.func(graph-fuse),select-matmul-configs)" | FileCheck %s --check-prefix=SM80
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=cpu},func.func(graph-fuse),select-matmul-configs)" | FileCheck %s --check-prefix=CPU
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},func.func(graph-fuse),select-matmul-configs{matmul-config=64x128x64x3})" | FileCheck %s --check-prefix=OVERRIDE
// The kernel has the recorded config, also one written by hand (the second group).
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},func.func(graph-fuse),select-matmul-configs,convert-graph-to-tile)" | FileCheck %s --check-prefix=KERNEL
// RUN: not aicc-opt %s --pass-pipeline="builtin.module(select-matmul-configs{conv-algorithm=fft})" 2>&1 | FileCheck %s --check-prefix=BADALGO

// SM90A-LABEL: func.func @matmul
// SM90A: graph.fusion_group "epilogue"{{.*}}tile.matmul_config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_warps = 8, num_stages = 4, path = wgmma>
// SM80-LABEL: func.func @matmul
// SM80: graph.fusion_group "epilogue"{{.*}}tile.matmul_config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 32, num_warps = 8, num_stages = 4, path = mma_sync>
// CPU-LABEL: func.func @matmul
// CPU: graph.fusion_group "epilogue"{{.*}}tile.matmul_config = #tile.matmul_config<BLOCK_M = 32, BLOCK_N = 32, BLOCK_K = 32, num_warps = 4, num_stages = 1, path = generic>
// OVERRIDE-LABEL: func.func @matmul
// OVERRIDE: tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 128, BLOCK_K = 64, num_warps = 4, num_stages = 3, path = wgmma>
// KERNEL: func.func @fused_0_epilogue{{.*}}tile.schedule = #tile.schedule<grid = [32, 16, 1], num_warps = 8, num_stages = 4, blocks = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 256 : i64}>
func.func @matmul(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %0 = graph.matmul %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %0 : tensor<4096x4096xf16>
}

// A group that has a config keeps it.
// SM90A-LABEL: func.func @given
// SM90A: tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>
// KERNEL: func.func @fused_1_epilogue{{.*}}tile.schedule = #tile.schedule<grid = [4, 4, 1], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 64 : i64, BLOCK_M = 64 : i64, BLOCK_N = 64 : i64}>
func.func @given(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %0 = graph.fusion_group "epilogue" (%a, %b) {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>} : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>):
    %1 = graph.matmul %x, %y : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    graph.yield %1 : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}

// An f16 conv takes the implicit-GEMM template on a tensor-core target, the direct window
// template (no config) on the CPU.
// SM90A-LABEL: func.func @conv
// SM90A: graph.fusion_group{{.*}}tile.matmul_config = #tile.matmul_config<BLOCK_M = {{[0-9]+}}, BLOCK_N = {{[0-9]+}}, BLOCK_K = 64, {{.*}}path = wgmma>
// CPU-LABEL: func.func @conv
// CPU-NOT: tile.matmul_config
// CPU: return
func.func @conv(%x: tensor<8x64x32x32xf16>, %w: tensor<64x64x3x3xf16>) -> tensor<8x64x32x32xf16> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x64x32x32xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x32x32xf16>
  return %0 : tensor<8x64x32x32xf16>
}

// Elementwise groups get no config.
// SM90A-LABEL: func.func @relu
// SM90A-NOT: tile.matmul_config
// SM90A: return
func.func @relu(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = graph.relu %x : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// A hand-written split_k: the group is built as two kernels, the partials (grid z = the 2
// slices) and the sum.
// SM90A-LABEL: func.func @given_split
// SM90A: tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma, split_k = 2>
// KERNEL: func.func @fused_4_epilogue_partials{{.*}}tile.schedule = #tile.schedule<grid = [4, 4, 2], num_warps = 4, num_stages = 2, blocks = {BLOCK_K = 64 : i64, BLOCK_M = 64 : i64, BLOCK_N = 64 : i64, SPLIT_K = 2 : i64}>
// KERNEL: func.func @fused_4_epilogue({{.*}}tile.schedule = #tile.schedule<grid = [64, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 1024 : i64, SPLIT_K = 2 : i64}>
func.func @given_split(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %0 = graph.fusion_group "epilogue" (%a, %b) {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma, split_k = 2>} : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16> {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>):
    %1 = graph.matmul %x, %y : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    graph.yield %1 : tensor<256x256xf16>
  }
  return %0 : tensor<256x256xf16>
}

// BADALGO: error: select-matmul-configs: conv-algorithm must be auto, implicit-gemm or direct, got 'fft'
