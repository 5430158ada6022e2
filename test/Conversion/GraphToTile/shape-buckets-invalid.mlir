// tile.matmul_buckets and tile.symrange as hand-written IR may hold them: the dialect checks
// their form, convert-graph-to-tile that the buckets cover the symbol's range.
// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile -verify-diagnostics

// Buckets that leave a gap (1..8, then 10..64).
func.func @gap(%x: tensor<1x64x64xf16>, %w: tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  // expected-error @+1 {{'tile.matmul_buckets' must be an array of at least two {symbol, lo, hi, config = #tile.matmul_config} dictionaries of one symbol, 1 <= lo <= hi, each bucket's lo the previous bucket's hi + 1}}
  %0 = graph.fusion_group "epilogue" (%x, %w) {tile.matmul_buckets = [{symbol = 0 : i64, lo = 1 : i64, hi = 8 : i64, config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>}, {symbol = 0 : i64, lo = 10 : i64, hi = 64 : i64, config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>}]} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<64x64xf16>):
    %1 = graph.matmul %a, %b {aicc.result_symdim = array<i64: 1, 0, 1, 1, 64>} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16>
    graph.yield %1 : tensor<1x64x64xf16>
  }
  return %0 : tensor<1x64x64xf16>
}

// -----

// Buckets up to 32 of a symbol whose values reach 64.
func.func @short(%x: tensor<1x64x64xf16>, %w: tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  // expected-error @+1 {{convert-graph-to-tile: tile.matmul_buckets must cover the values [min, max] of the symbol its matmul or conv follows (aicc.result_symdim = array<i64: axis, symbol, factor, min, max>)}}
  %0 = graph.fusion_group "epilogue" (%x, %w) {tile.matmul_buckets = [{symbol = 0 : i64, lo = 1 : i64, hi = 8 : i64, config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>}, {symbol = 0 : i64, lo = 9 : i64, hi = 32 : i64, config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>}]} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<64x64xf16>):
    %1 = graph.matmul %a, %b {aicc.result_symdim = array<i64: 1, 0, 1, 1, 64>} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16>
    graph.yield %1 : tensor<1x64x64xf16>
  }
  return %0 : tensor<1x64x64xf16>
}

// -----

// Buckets on a group whose matmul follows no symbol.
func.func @nosym(%x: tensor<1x64x64xf16>, %w: tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  // expected-error @+1 {{which no op of the group carries)}}
  %0 = graph.fusion_group "epilogue" (%x, %w) {tile.matmul_buckets = [{symbol = 0 : i64, lo = 1 : i64, hi = 8 : i64, config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>}, {symbol = 0 : i64, lo = 9 : i64, hi = 64 : i64, config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = wgmma>}]} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<64x64xf16>):
    %1 = graph.matmul %a, %b : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16>
    graph.yield %1 : tensor<1x64x64xf16>
  }
  return %0 : tensor<1x64x64xf16>
}
