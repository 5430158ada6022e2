//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//
#ifndef AICC_DIALECT_TILE_IR_TILEATTRS_TD
#define AICC_DIALECT_TILE_IR_TILEATTRS_TD

include "aicc/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_ScheduleAttr : Tile_Attr<"Schedule", "schedule"> {
  let summary = "launch schedule of a tile kernel";
  let description = [{
    `grid`: number of program instances per axis [x, y, z] (CUDA grid dims).
    `num_warps`: warps per program instance (CUDA block = 32 * num_warps threads).
    `num_stages`: software-pipeline depth of the kernel's K loop (1 = no pipelining).
    `blocks`: the block sizes of the template, by Triton name (BLOCK_M, BLOCK_N, BLOCK_K, BLOCK).

    ```mlir
    #tile.schedule<grid = [4, 2, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK_M = 32 : i64}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$grid, "int64_t":$num_warps,
                        "int64_t":$num_stages, "::mlir::DictionaryAttr":$blocks);
  let assemblyFormat = [{
    `<` `grid` `=` `[` $grid `]` `,` `num_warps` `=` $num_warps `,` `num_stages` `=` $num_stages
    `,` `blocks` `=` $blocks `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// CUDA threads per block (32 * num_warps).
    int64_t getNumThreads() const { return 32 * getNumWarps(); }
    /// Total number of program instances (product of grid).
    int64_t getNumPrograms() const;
  }];
}

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked"> {
  let summary = "which thread holds which element of a tile (Triton's blocked encoding)";
  let description = [{
    A tile of shape S is covered by a CTA of `warpsPerCTA` warps of `threadsPerWarp` lanes,
    each lane holding `sizePerThread` contiguous elements, repeated cyclically until S is
    covered. `order` lists dims from fastest- to slowest-varying (order[0] is the contiguous
    one). Same semantics as Triton's #triton_gpu.blocked (TritonGPUAttrDefs.td).

    Element (i_0..i_{r-1}) belongs to lane/warp given by getOwner().
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,` `threadsPerWarp` `=` `[` $threadsPerWarp `]`
    `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The thread (linear id in [0, 32 * prod(warpsPerCTA))) that owns element `coord`
    /// of a tile, and the index of that element among the thread's registers.
    struct Owner { int64_t thread; int64_t reg; };
    Owner getOwner(::llvm::ArrayRef<int64_t> coord, ::llvm::ArrayRef<int64_t> shape) const;
    /// Default layout for a tile of `shape` on `numWarps` warps: contiguous along the last
    /// dim with `vecWidth` elements per thread, lanes then warps tiled row-major.
    static BlockedLayoutAttr getDefault(::mlir::MLIRContext *ctx, ::llvm::ArrayRef<int64_t> shape,
                                        unsigned numWarps, unsigned vecWidth);
  }];
}

//===----------------------------------------------------------------------===//
// What the tensor-core lowerings built (tile.wgmma, tile.mma_sync on the kernel func)
//===----------------------------------------------------------------------===//

def Tile_WgmmaSchedule : I32EnumAttr<"WgmmaSchedule", "how the consumer warpgroups share tiles", [
  I32EnumAttrCase<"cooperative", 0>, I32EnumAttrCase<"pingpong", 1>]> {
  let cppNamespace = "::aicc::tile";
  let genSpecializedAttr = 0;
}
def Tile_EpilogueStore : I32EnumAttr<"EpilogueStore", "how a tensor-core kernel stores its tile", [
  I32EnumAttrCase<"registers", 0>, I32EnumAttrCase<"tma", 1>, I32EnumAttrCase<"shared", 2>]> {
  let cppNamespace = "::aicc::tile";
  let genSpecializedAttr = 0;
}

def Tile_MatmulPath : I32EnumAttr<"MatmulPath", "the lowering a matmul config is chosen for", [
  I32EnumAttrCase<"generic", 0>, I32EnumAttrCase<"mma_sync", 1>, I32EnumAttrCase<"wgmma", 2>]> {
  let cppNamespace = "::aicc::tile";
  let genSpecializedAttr = 0;
}

def Tile_MatmulConfigAttr : Tile_Attr<"MatmulConfig", "matmul_config"> {
  let summary = "the tile config chosen for a matmul-shaped fusion group (tile.matmul_config)";
  let description = [{
    What select-matmul-configs chose for a fusion group that becomes a matmul or an
    implicit-GEMM convolution kernel: the output block (BLOCK_M x BLOCK_N), the K step, the
    warps of a program (for wgmma: the consumer warps), the pipeline depth, and the lowering
    the config is for (`wgmma`: convert-tile-dot-to-wgmma, sm_90a; `mma_sync`:
    convert-tile-dot-to-mma-sync; `generic`: the bufferizing GPU path or the CPU).
    convert-graph-to-tile builds the kernel with it; the chosen path's rules
    (include/aicc/Target/TensorCoreRules.h) are the ones the lowering checks.

    `split_k` (SPLIT_K, default 1, printed only when > 1) splits the K loop over that many
    programs per output tile (split-K: more programs for a grid that does not fill the
    SMs). The group then becomes two kernels: `fused_N_KIND_partials` writes one f32
    partial product per K slice, [SPLIT_K * batch, M, N], and `fused_N_KIND` sums them in
    slice order and applies Gemm's C and the fused epilogue (MatmulTemplate.cpp).

    ```mlir
    graph.fusion_group "epilogue" (...) attributes {tile.matmul_config =
        #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_warps = 8,
                            num_stages = 4, path = wgmma>}
    graph.fusion_group "epilogue" (...) attributes {tile.matmul_config =
        #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 64, num_warps = 8,
                            num_stages = 8, path = wgmma, split_k = 5>}
    ```
  }];
  let parameters = (ins "int64_t":$blockM, "int64_t":$blockN, "int64_t":$blockK,
                        "int64_t":$numWarps, "int64_t":$numStages,
                        EnumParameter<Tile_MatmulPath>:$path,
                        DefaultValuedParameter<"int64_t", "1">:$splitK);
  let assemblyFormat = [{
    `<` `BLOCK_M` `=` $blockM `,` `BLOCK_N` `=` $blockN `,` `BLOCK_K` `=` $blockK `,`
    `num_warps` `=` $numWarps `,` `num_stages` `=` $numStages `,` `path` `=` $path
    (`,` `split_k` `=` $splitK^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_WgmmaConfigAttr : Tile_Attr<"WgmmaConfig", "wgmma_config"> {
  let summary = "the kernel convert-tile-dot-to-wgmma built (tile.wgmma)";
  let description = [{
    The output tile (BLOCK_M x BLOCK_N) and K step, the pipeline depth (`num_stages`; with
    `num_stages_requested` when the TMA-store epilogue lowered it to make room for its
    staging buffers), the consumer warpgroups, whether they alternate whole tiles
    (`pingpong`) or split each tile's rows (`cooperative`), and the epilogue's store
    (`registers`, or `tma` through shared-memory staging). See ConvertTileDotToWGMMA.cpp.

    ```mlir
    #tile.wgmma_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_stages = 4,
                       consumer_warpgroups = 2, schedule = cooperative, epilogue_store = registers>
    ```
  }];
  let parameters = (ins "int64_t":$blockM, "int64_t":$blockN, "int64_t":$blockK,
                        "int64_t":$numStages,
                        DefaultValuedParameter<"int64_t", "0">:$numStagesRequested,
                        "int64_t":$consumerWarpgroups,
                        EnumParameter<Tile_WgmmaSchedule>:$schedule,
                        EnumParameter<Tile_EpilogueStore>:$epilogueStore);
  let assemblyFormat = [{
    `<` `BLOCK_M` `=` $blockM `,` `BLOCK_N` `=` $blockN `,` `BLOCK_K` `=` $blockK `,`
    `num_stages` `=` $numStages `,`
    (`num_stages_requested` `=` $numStagesRequested^ `,`)?
    `consumer_warpgroups` `=` $consumerWarpgroups `,` `schedule` `=` $schedule `,`
    `epilogue_store` `=` $epilogueStore `>`
  }];
}

def Tile_MmaSyncConfigAttr : Tile_Attr<"MmaSyncConfig", "mma_sync_config"> {
  let summary = "the kernel convert-tile-dot-to-mma-sync built (tile.mma_sync)";
  let description = [{
    The output tile (BLOCK_M x BLOCK_N) and K step, the cp.async ring depth (`num_stages`),
    the warp grid over the tile (`warps_m` x `warps_n`), and the epilogue's store
    (`registers`, or `shared`: staged through shared memory for 16-byte global stores). See
    ConvertTileDotToMMASync.cpp.

    ```mlir
    #tile.mma_sync_config<BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 32, num_stages = 4,
                          warps_m = 2, warps_n = 2, epilogue_store = shared>
    ```
  }];
  let parameters = (ins "int64_t":$blockM, "int64_t":$blockN, "int64_t":$blockK,
                        "int64_t":$numStages, "int64_t":$warpsM, "int64_t":$warpsN,
                        EnumParameter<Tile_EpilogueStore>:$epilogueStore);
  let assemblyFormat = [{
    `<` `BLOCK_M` `=` $blockM `,` `BLOCK_N` `=` $blockN `,` `BLOCK_K` `=` $blockK `,`
    `num_stages` `=` $numStages `,` `warps_m` `=` $warpsM `,` `warps_n` `=` $warpsN `,`
    `epilogue_store` `=` $epilogueStore `>`
  }];
}

#endif
