// tile.launch is verified against the kernel it names: the symbol must be a tile kernel, and
// each buffer must have as many elements as the kernel's matching flat parameter (TileOps.td:
// "each must hold exactly as many elements as the kernel's matching flat parameter").
// RUN: aicc-opt %s -split-input-file -verify-diagnostics
//
// Regression test (fixed): Tile_LaunchOp (include/aicc/Dialect/Tile/IR/TileOps.td) has no verifier and
// no SymbolUserOpInterface, so a launch of an undefined kernel, of a function that is not a
// tile kernel, or with buffers whose sizes or count differ from the kernel's parameters is
// accepted; the mismatch only surfaces later (bundle writer / runtime) or never.

func.func @undefined_kernel(%x: memref<2x4xf32>) {
  // expected-error @+1 {{@kernels::@missing}}
  tile.launch @kernels::@missing(%x) : memref<2x4xf32>
  return
}

// -----

module {
  module @kernels {
    func.func private @k(%a: memref<8xf32>, %b: memref<8xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      return
    }
  }
  func.func @size_mismatch(%x: memref<2x4xf32>, %y: memref<3x3xf32>) {
    // expected-error @+1 {{buffer #1 of type 'memref<3x3xf32>' does not match kernel parameter 'memref<8xf32>'}}
    tile.launch @kernels::@k(%x, %y) : memref<2x4xf32>, memref<3x3xf32>
    return
  }
}

// -----

module {
  module @kernels {
    func.func private @k(%a: memref<8xf32>, %b: memref<8xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      return
    }
  }
  func.func @count_mismatch(%x: memref<2x4xf32>) {
    // expected-error @+1 {{buffer}}
    tile.launch @kernels::@k(%x) : memref<2x4xf32>
    return
  }
}

// -----

// tile.symrange (a shape bucket's launch) is array<i64: symbol, lo, hi>, 1 <= lo <= hi.
module {
  module @kernels {
    func.func private @k(%a: memref<8xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      return
    }
  }
  func.func @bad_range(%x: memref<8xf32>) {
    // expected-error @+1 {{'tile.symrange' must be array<i64: symbol, lo, hi>, 1 <= lo <= hi}}
    tile.launch @kernels::@k(%x) {tile.symrange = array<i64: 0, 9, 8>} : memref<8xf32>
    return
  }
}
