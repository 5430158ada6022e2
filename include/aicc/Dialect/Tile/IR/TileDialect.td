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
  // The dialect's discardable attributes: the contract between the passes that set them
  // and those that read them (TileDialect::verifyOperationAttribute checks each; the
  // names are TileDialect::<Name>AttrHelper::getNameStr(), aliased in TileOps.h).
  //   schedule              on a kernel func: grid, num_warps, num_stages, BLOCK sizes
  //   cpu_kernel            convert-tile-to-cpu: the kernel's buffer parameter count
  //   layout                a #tile.blocked layout of one op's result
  //   layouts               convert-tile-to-gpu-registers: the layouts it chose (the
  //                         register path ran)
  //   programs_per_cta      convert-tile-to-gpu-registers: programs packed per CUDA block
  //   matmul_config         on a graph.fusion_group: the tile config select-matmul-configs
  //                         chose for its matmul / implicit-GEMM kernel
  //   matmul_buckets        on a graph.fusion_group whose matmul / conv result follows a
  //                         bounded symbolic dim: [{symbol, lo, hi, config}, ...], one tile
  //                         config per shape bucket, the buckets' [lo, hi] contiguous and
  //                         ascending (select-matmul-configs; convert-graph-to-tile builds
  //                         one kernel per bucket, docs/symbolic-shapes.md)
  //   symrange              on a tile.launch: array<i64: symbol, lo, hi>: the launch runs
  //                         only at values of the symbol in [lo, hi] (bundle `symrange`)
  //   wgmma, mma_sync       the tensor-core lowering that ran, with its MMA config
  //   *_refused             why a lowering left the kernel on a slower path (the reason)
  //   launch_grid, launch_block, dynamic_shared_bytes
  //                         a launch shape a lowering chose (persistent grid, warpgroups)
  //   tensor_maps           convert-tile-dot-to-wgmma: the TMA descriptors the kernel takes
  //   tensor_map            marks a CUtensorMap pointer argument
  //   in_place              on a kernel func (convert-graph-to-tile, elementwise template):
  //                         array<i32: in0, out0, in1, out1, ...>, parameter pairs where the
  //                         output may be written over the input's memory (bundle `inplace`
  //                         records; the memory plan reuses a dead input's bytes)
  //   symgrid               on a kernel func (convert-graph-to-tile, for a fusion group whose
  //                         results carry a bounded symbolic dim): array<i64: axis, symbol,
  //                         unit, per, group>: at symbol value v only group x ceil(v x unit
  //                         / per) programs along grid axis `axis` write the results' prefix
  //                         (bundle `symgrid` records, docs/symbolic-shapes.md)
  //   symvalues             on a kernel func (convert-graph-to-tile): the index of the
  //                         parameter holding i32[number of symbols], the run's symbol values
  //                         (attention over a sequence of run-time length; the bundle's
  //                         `symvalues` record, a buffer each session writes per run)
  let discardableAttrs = (ins
    "::aicc::tile::ScheduleAttr":$schedule,
    "::mlir::IntegerAttr":$cpu_kernel,
    "::aicc::tile::BlockedLayoutAttr":$layout,
    "::mlir::ArrayAttr":$layouts,
    "::mlir::IntegerAttr":$programs_per_cta,
    "::aicc::tile::MatmulConfigAttr":$matmul_config,
    "::aicc::tile::WgmmaConfigAttr":$wgmma,
    "::aicc::tile::MmaSyncConfigAttr":$mma_sync,
    "::mlir::StringAttr":$register_path_refused,
    "::mlir::StringAttr":$wgmma_refused,
    "::mlir::StringAttr":$tma_store_refused,
    "::mlir::StringAttr":$mma_sync_refused,
    "::mlir::StringAttr":$smem_store_refused,
    "::mlir::DenseI32ArrayAttr":$launch_grid,
    "::mlir::DenseI32ArrayAttr":$launch_block,
    "::mlir::IntegerAttr":$dynamic_shared_bytes,
    "::mlir::ArrayAttr":$tensor_maps,
    "::mlir::UnitAttr":$tensor_map,
    "::mlir::DenseI32ArrayAttr":$in_place,
    "::mlir::DenseI64ArrayAttr":$symgrid,
    "::mlir::ArrayAttr":$matmul_buckets,
    "::mlir::DenseI64ArrayAttr":$symrange,
    "::mlir::IntegerAttr":$symvalues
  );
}

#endif
