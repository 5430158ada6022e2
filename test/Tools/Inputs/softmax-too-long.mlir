// Valid graph IR that the kernel templates reject: a softmax row longer than 4096.
func.func @main(%x: tensor<2x8192xf32>) -> tensor<2x8192xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<2x8192xf32>
  return %0 : tensor<2x8192xf32>
}
