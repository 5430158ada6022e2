//===- TileDialect.td - aicc tile dialect ------------------*- tablegen -*-===//
#ifndef AICC_DIALECT_TILE_IR_TILEDIALECT_TD
#define AICC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::aicc::tile";
  let summary = "Block-level kernel programs (Triton-style tiles)";
  let description = [{
    A tile kernel is a `func.func` carrying a `tile.schedule` attribute. Its body is one
    *program instance* (a CUDA thread block on the GPU, one loop iteration on the CPU):
    `tile.program_id` says which one. Tile values are statically shaped `tensor`s; elementwise
    math on tiles uses `arith` / `math` on those tensors. Global memory is reached through
    flat 1-D `memref` kernel arguments with `tile.load` / `tile.store` at element offsets,
    under an optional mask. Concepts and names follow Triton's TTIR (program_id, make_range,
    splat, broadcast, expand_dims, load/store with mask and `other`, dot, reduce).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

#endif
