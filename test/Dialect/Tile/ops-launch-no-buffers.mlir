// A tile.launch without buffers round-trips.
// RUN: aicc-opt %s | aicc-opt | FileCheck %s
//
// Regression test (fixed): tile.launch's assemblyFormat (include/aicc/Dialect/Tile/IR/TileOps.td) is
// "$kernel `(` $buffers `)` attr-dict `:` type($buffers)": with no buffers it prints
// "tile.launch @flat() : " and the parser then fails with "expected non-function type".
// (The type list needs to be optional, e.g. (`:` type($buffers)^)?.)

// CHECK-LABEL: func.func @launch_no_buffers
// CHECK:         tile.launch @kernels::@flat()
func.func @launch_no_buffers() {
  "tile.launch"() <{kernel = @kernels::@flat}> : () -> ()
  return
}
module @kernels {
  func.func @flat() attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
    return
  }
}
