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

#endif
