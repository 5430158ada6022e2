//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
#ifndef AICC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define AICC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::func::FuncOp"> {
  let summary = "Attach a blocked layout (which thread holds which element) to every tile op";
  let description = [{
    For each op of a tile kernel producing a tile, sets the discardable attribute
    `tile.layout = #tile.blocked<...>` to the default layout for its shape and the kernel's
    num_warps (contiguous along the last dim, lanes then warps row-major).

    ```mlir
    %r = tile.make_range {end = 128 : i32, start = 0 : i32, tile.layout = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>} : tensor<128xi32>
    ```
  }];
  let options = [Option<"vecWidth", "vec-width", "unsigned", "1",
                        "elements per thread along the contiguous dim">];
  let dependentDialects = ["aicc::tile::TileDialect"];
}

def TileFuseElementwise : Pass<"tile-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg ops of tile kernels, recomputing cheap producers";
  let description = [{
    Runs after convert-tile-to-linalg / convert-elementwise-to-linalg. Like upstream
    linalg-fuse-elementwise-ops, but a producer with several users is also fused into each of
    them when it is cheap to recompute: its body reads no memory (index and mask
    arithmetic, splats, broadcasts). Such values then never become tile buffers (shared
    memory on the GPU). Producers that load from memory are fused only into their single user.
    Finally, a parallel generic that an scf.for yields, reading the loop's accumulator at the
    identity map and writing a fresh tensor.empty, is made to write the accumulator in place
    (so bufferization keeps one buffer per loop-carried tile).

    ```mlir
    %offs = linalg.generic ... { index arithmetic }    // used by a load and by a mask
    // after: each user computes the offsets inline; %offs disappears
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif
