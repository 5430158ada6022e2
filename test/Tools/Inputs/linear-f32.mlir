// An f32 nn.Linear (Gemm transB = 1, bias): exact f32 by default, tf32 tensor cores with
// aicc-compile --allow-tf32.
func.func @main(%x: tensor<512x256xf32>, %w: tensor<384x256xf32>, %b: tensor<384xf32>) -> tensor<512x384xf32> {
  %0 = graph.gemm %x, %w, %b {transB = true} : (tensor<512x256xf32>, tensor<384x256xf32>, tensor<384xf32>) -> tensor<512x384xf32>
  return %0 : tensor<512x384xf32>
}
