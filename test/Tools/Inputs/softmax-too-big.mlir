// Valid graph IR that the kernel templates reject: a softmax over 2^31 elements (i32 offsets).
func.func @main(%x: tensor<2x1073741824xf32>) -> tensor<2x1073741824xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<2x1073741824xf32>
  return %0 : tensor<2x1073741824xf32>
}
