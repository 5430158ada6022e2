// fp16 Linear + bias + ReLU, 1000 x 1024 x 512 (ragged M): one epilogue kernel that the sm_90a
// lowering turns into TMA + wgmma.
func.func @main(%x: tensor<1000x512xf16>, %w: tensor<512x1024xf16>, %b: tensor<1024xf16>) -> tensor<1000x1024xf16> {
  %0 = graph.matmul %x, %w : (tensor<1000x512xf16>, tensor<512x1024xf16>) -> tensor<1000x1024xf16>
  %1 = graph.add %0, %b : (tensor<1000x1024xf16>, tensor<1024xf16>) -> tensor<1000x1024xf16>
  %2 = graph.relu %1 : tensor<1000x1024xf16>
  return %2 : tensor<1000x1024xf16>
}
