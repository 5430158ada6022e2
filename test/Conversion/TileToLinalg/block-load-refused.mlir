// RUN: aicc-opt %s -convert-tile-to-linalg -verify-diagnostics

// tile.block_load has no linalg form of its own: tile-expand-block-loads must run first.
func.func @block_load(%p: memref<8000xf32>, %b: i32) -> tensor<32x16xf32> {
  // expected-error @below {{tile.block_load has no linalg form: run tile-expand-block-loads first}}
  %a = tile.block_load %p[%b, %b, %b] {dims = array<i64: 2, 100, 40>} : memref<8000xf32> -> tensor<32x16xf32>
  return %a : tensor<32x16xf32>
}

// The same for tile.block_store.
func.func @block_store(%p: memref<8000xf32>, %b: i32, %v: tensor<32x16xf32>) {
  // expected-error @below {{tile.block_store has no linalg form: run tile-expand-block-loads first}}
  tile.block_store %p[%b, %b, %b], %v {dims = array<i64: 2, 100, 40>} : memref<8000xf32>, tensor<32x16xf32>
  return
}
