// select-matmul-configs checks aicc.result_symdim before it walks the symbol's powers of
// two: a max of 2^31 or more (past what --dim allows) is refused, not looped over.
// RUN: aicc-opt %s -split-input-file --pass-pipeline="builtin.module(aicc-attach-target{target=cpu},select-matmul-configs)" -verify-diagnostics

func.func @huge(%x: tensor<1x64x64xf16>, %w: tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  // expected-error @+1 {{select-matmul-configs: aicc.result_symdim must be array<i64: axis, symbol, factor, min, max>, axis >= 0, factor >= 1, 1 <= min <= max < 2^31}}
  %0 = graph.fusion_group "epilogue" (%x, %w) : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<64x64xf16>):
    %1 = graph.matmul %a, %b {aicc.result_symdim = array<i64: 1, 0, 1, 1, 9223372036854775807>} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16>
    graph.yield %1 : tensor<1x64x64xf16>
  }
  return %0 : tensor<1x64x64xf16>
}

// -----

func.func @zero_factor(%x: tensor<1x64x64xf16>, %w: tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  // expected-error @+1 {{must be array<i64: axis, symbol, factor, min, max>}}
  %0 = graph.fusion_group "epilogue" (%x, %w) : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16> {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<64x64xf16>):
    %1 = graph.matmul %a, %b {aicc.result_symdim = array<i64: 1, 0, 0, 1, 64>} : (tensor<1x64x64xf16>, tensor<64x64xf16>) -> tensor<1x64x64xf16>
    graph.yield %1 : tensor<1x64x64xf16>
  }
  return %0 : tensor<1x64x64xf16>
}
