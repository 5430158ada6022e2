// Shape buckets (bounded symbolic dims, docs/symbolic-shapes.md): a matmul whose rows follow
// a symbol (aicc.result_symdim = array<i64: axis, symbol, factor, min, max>, which
// checkSymbolicDims writes) gets the heuristic's config at each power of two of the symbol
// below the bound, merged where they agree; convert-graph-to-tile builds one kernel per bucket
// at the bound's shapes and launches each over the same buffers with tile.symrange.
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},select-matmul-configs)" | FileCheck %s --check-prefix=SELECT
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},select-matmul-configs,convert-graph-to-tile)" | FileCheck %s --check-prefix=TILE
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},select-matmul-configs{shape-buckets=4})" | FileCheck %s --check-prefix=FOUR
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},select-matmul-configs{shape-buckets=2})" | FileCheck %s --check-prefix=TWO
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},select-matmul-configs{shape-buckets=1})" | FileCheck %s --check-prefix=ONE
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a},select-matmul-configs{matmul-config=64x64x64})" | FileCheck %s --check-prefix=ONE

// GPT-2's MLP down projection over a prompt of 1 to 1024 tokens: 64-row tiles split in 6
// up to 64 rows, 128-row tiles split in 6, 5 and 2 up to 128, 256 and 512, the bound's
// (unsplit) after: five buckets, within the default cap of 6.
// SELECT-LABEL: func.func @mlp_down
// SELECT: tile.matmul_buckets = [{config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 8, path = wgmma, split_k = 6>, hi = 64 : i64, lo = 1 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma, split_k = 6>, hi = 128 : i64, lo = 65 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma, split_k = 5>, hi = 256 : i64, lo = 129 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma, split_k = 2>, hi = 512 : i64, lo = 257 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma>, hi = 1024 : i64, lo = 513 : i64, symbol = 0 : i64}]
// SELECT-SAME: tile.matmul_config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma>
// At most four: the three smallest buckets keep their configs, the rest (257..1024) run
// the bound's.
// FOUR: tile.matmul_buckets = [{config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 8, path = wgmma, split_k = 6>, hi = 64 : i64, lo = 1 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma, split_k = 6>, hi = 128 : i64, lo = 65 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma, split_k = 5>, hi = 256 : i64, lo = 129 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma>, hi = 1024 : i64, lo = 257 : i64, symbol = 0 : i64}]
// At most two: the smallest bucket keeps its config, the rest run the bound's.
// TWO: tile.matmul_buckets = [{config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 8, path = wgmma, split_k = 6>, hi = 64 : i64, lo = 1 : i64, symbol = 0 : i64}, {config = #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8, num_stages = 8, path = wgmma>, hi = 1024 : i64, lo = 65 : i64, symbol = 0 : i64}]
// One config (shape-buckets=1, or matmul-config): no buckets.
// ONE-NOT: tile.matmul_buckets
// The launches (split-K buckets: partials then sum, each with the bucket's range), the
// bound's kernel last under the group's name.
// TILE-LABEL: func.func @mlp_down
// TILE: tile.launch @kernels::@fused_0_epilogue_upto64_partials({{.*}}) {tile.symrange = array<i64: 0, 1, 64>}
// TILE-NEXT: tile.launch @kernels::@fused_0_epilogue_upto64({{.*}}) {tile.symrange = array<i64: 0, 1, 64>}
// TILE: tile.launch @kernels::@fused_0_epilogue_upto128_partials({{.*}}) {tile.symrange = array<i64: 0, 65, 128>}
// TILE-NEXT: tile.launch @kernels::@fused_0_epilogue_upto128({{.*}}) {tile.symrange = array<i64: 0, 65, 128>}
// TILE: tile.launch @kernels::@fused_0_epilogue_upto256_partials({{.*}}) {tile.symrange = array<i64: 0, 129, 256>}
// TILE-NEXT: tile.launch @kernels::@fused_0_epilogue_upto256({{.*}}) {tile.symrange = array<i64: 0, 129, 256>}
// TILE: tile.launch @kernels::@fused_0_epilogue_upto512_partials({{.*}}) {tile.symrange = array<i64: 0, 257, 512>}
// TILE-NEXT: tile.launch @kernels::@fused_0_epilogue_upto512({{.*}}) {tile.symrange = array<i64: 0, 257, 512>}
// TILE-NEXT: tile.launch @kernels::@fused_0_epilogue({{.*}}) {tile.symrange = array<i64: 0, 513, 1024>}
// TILE: func.func @fused_0_epilogue_upto64_partials{{.*}}tile.schedule = #tile.schedule<grid = [16, 12, 6], num_warps = 4, num_stages = 8, blocks = {BLOCK_K = 64 : i64, BLOCK_M = 64 : i64, BLOCK_N = 64 : i64, SPLIT_K = 6 : i64}>
// TILE: func.func @fused_0_epilogue({{.*}}tile.schedule = #tile.schedule<grid = [8, 12, 1], num_warps = 8, num_stages = 8, blocks = {BLOCK_K = 64 : i64, BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}>
func.func @mlp_down(%x: tensor<1x1024x3072xf16>, %w: tensor<3072x768xf16>) -> tensor<1x1024x768xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w) : (tensor<1x1024x3072xf16>, tensor<3072x768xf16>) -> tensor<1x1024x768xf16> {
  ^bb0(%a: tensor<1x1024x3072xf16>, %b: tensor<3072x768xf16>):
    %1 = graph.matmul %a, %b {aicc.result_symdim = array<i64: 1, 0, 1, 1, 1024>} : (tensor<1x1024x3072xf16>, tensor<3072x768xf16>) -> tensor<1x1024x768xf16>
    graph.yield %1 : tensor<1x1024x768xf16>
  }
  return %0 : tensor<1x1024x768xf16>
}

// A matmul whose config is the same at every value: no buckets.
// SELECT-LABEL: func.func @same
// SELECT-NOT: tile.matmul_buckets
// SELECT: return
func.func @same(%x: tensor<1x64x64xf16>, %w: tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  %0 = graph.fusion_group "epilogue" (%x, %w) : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<64x64xf16>):
    %1 = graph.matmul %a, %b {aicc.result_symdim = array<i64: 1, 0, 1, 1, 64>} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16>
    graph.yield %1 : tensor<1x64x64xf16>
  }
  return %0 : tensor<1x64x64xf16>
}
