//===- Passes.td - aicc conversion passes ------------------*- tablegen -*-===//
#ifndef AICC_CONVERSION_PASSES_TD
#define AICC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttachTarget : Pass<"aicc-attach-target", "mlir::ModuleOp"> {
  let summary = "Record the target chip and the tuning hardware on the module (aicc.target, aicc.hardware)";
  let description = [{
    The first pass of every pipeline aicc builds (lib/Pipelines/Pipelines.cpp). Writes the
    module attributes that the chip-dependent passes read (include/aicc/Target/TargetAttr.h):

    ```mlir
    module attributes {aicc.hardware = "h200", aicc.target = "sm_90a"} { ... }
    ```

    graph-split-reduction and graph-fuse take the SM count and roofline numbers of
    `aicc.hardware`; convert-graph-to-tile the tensor-core path of `aicc.target` and the SM
    count of `aicc.hardware`; convert-tile-dot-to-wgmma / -mma-sync the target's shared
    memory and the hardware's SM count. A pass option naming a chip overrides the attribute.
    A module that already carries a different target or hardware is an error: its kernels
    were shaped for that chip.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"cpu\"",
           "chip table row compiled for: cpu, sm_80, sm_86, sm_89, sm_90, sm_90a or sm_100">,
    Option<"hardware", "hardware", "std::string", "\"h200\"",
           "GPU row of the chip table the code is tuned for (a product alias, h200, or a chip name)">
  ];
}

def SelectMatmulConfigs : Pass<"select-matmul-configs", "mlir::ModuleOp"> {
  let summary = "Choose the tile config of every matmul / implicit-GEMM conv fusion group";
  let description = [{
    Runs before convert-graph-to-tile. For each `graph.fusion_group` whose kernel the matmul
    template or the implicit-GEMM conv template will build, chooses the tile config —
    chooseMatmulConfig's per-shape heuristic for the module's target and hardware
    (aicc.target / aicc.hardware, include/aicc/Target/TargetAttr.h; docs/tensor-cores.md), or
    `matmul-config` — and records it on the group:

    ```mlir
    %0 = graph.fusion_group "epilogue" (%a, %b) attributes {tile.matmul_config =
        #tile.matmul_config<BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, num_warps = 8,
                            num_stages = 4, path = wgmma>} { ... }
    ```

    convert-graph-to-tile builds those kernels with the recorded config, so a config can be
    read, edited and re-run between the two passes (aicc-compile --emit=fused shows the
    groups before it; `--step` stops here). A group that already has a config keeps it.
    The heuristic's choice passes the tensor-core path's rules
    (include/aicc/Target/TensorCoreRules.h) that the lowering checks. With `split-k`, a
    tensor-core matmul whose grid fills at most half the SMs also gets chooseSplitK's
    `split_k` (K slices over several programs; convert-graph-to-tile then builds the group
    as a partials kernel and a sum + epilogue kernel).

    Shape buckets (bounded symbolic dims, aicc-compile --dim NAME=MIN..MAX): when the
    group's matmul or conv carries `aicc.result_symdim` (its rows, columns or batch follow
    the symbol), the heuristic also runs at the symbol's powers of two in [MIN, MAX) as if
    the run had that size; adjacent buckets whose configs agree merge, and with `shape-buckets`
    = N the N - 1 smallest buckets keep their own config, the rest run the bound's. With
    more than one bucket left the group gets `tile.matmul_buckets`:

    ```mlir
    tile.matmul_buckets = [ {symbol = 0, lo = 1, hi = 64, config = #tile.matmul_config<..>},
                            {symbol = 0, lo = 65, hi = 1024, config = #tile.matmul_config<..>} ]
    ```

    and convert-graph-to-tile builds one kernel per bucket (each at the bound's shapes: only
    the tile config differs), launched over the same buffers with `tile.symrange`, so that
    a run executes the kernel of its value's bucket. A group that already has a config, and
    `matmul-config`, get no buckets.
  }];
  let options = [
    Option<"matmulConfig", "matmul-config", "std::string", "\"\"",
           "override the tile config of every matmul: BMxBNxBK[xSTAGES[xSPLIT_K]] (empty: the "
           "heuristic)">,
    Option<"splitK", "split-k", "bool", "true",
           "tensor-core matmuls whose grid fills at most half the SMs split K (chooseSplitK)">,
    Option<"allowTF32", "allow-tf32", "bool", "false",
           "f32 matmuls may run on tf32 tensor cores (the tf32 config space)">,
    Option<"convAlgorithm", "conv-algorithm", "std::string", "\"auto\"",
           "which convs take the implicit-GEMM template (as convert-graph-to-tile's option)">,
    Option<"shapeBuckets", "shape-buckets", "int64_t", "6",
           "most tile configs per group whose matmul / conv result follows a bounded symbolic "
           "dim (aicc.result_symdim): one per shape bucket (1: the bound's only)">
  ];
  let dependentDialects = ["aicc::tile::TileDialect"];
}

def ConvertGraphToTile : Pass<"convert-graph-to-tile", "mlir::ModuleOp"> {
  let summary = "Lower fused graph functions to tile kernels and a host launch plan";
  let description = [{
    Every `graph.fusion_group` becomes a tile kernel (a `func.func` with `tile.schedule`
    inside the nested `builtin.module @kernels`) built from a template chosen by its kind:
    matmul/gemm + elementwise epilogue, elementwise with broadcasting, or row softmax.
    The graph function becomes the host plan: a function over memrefs where constants are
    `memref.global`s, intermediate tensors are `memref.alloc`s, each kernel runs through
    `tile.launch`, and reshapes become `memref.reinterpret_cast` views.

    A group with `tile.matmul_buckets` (select-matmul-configs) gets one kernel set per
    bucket, each launch marked `tile.symrange`; so does a GPU attention whose queries follow
    a bounded symbolic dim (attentionShapeBuckets, KernelTemplates.h: the decode kernel for
    runs of at most 16 queries, the bound's kernel above).

    ```mlir
    func.func @main(%x: memref<2x4xf32>) -> memref<2x3xf32> {
      %w = memref.get_global @__constant_0 : memref<4x3xf32>
      %y = memref.alloc() : memref<2x3xf32>
      tile.launch @kernels::@fused_0(%x, %w, %y) : memref<2x4xf32>, memref<4x3xf32>, memref<2x3xf32>
      return %y : memref<2x3xf32>
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "cpu, sm_80, sm_86, sm_89, sm_90, sm_90a or sm_100 (include/aicc/Target/Chip.h): its features pick the matmul tile config space (docs/tensor-cores.md); empty: the module's aicc.target, else cpu">,
    Option<"hardware", "hardware", "std::string", "\"\"",
           "chip table row the tile configs are tuned for (SM count; h200 = sm_90); empty: the module's aicc.hardware, else h200">,
    Option<"allowTF32", "allow-tf32", "bool", "false",
           "f32 matmuls may run on tf32 tensor cores (input_precision = tf32)">,
    Option<"convAlgorithm", "conv-algorithm", "std::string", "\"auto\"",
           "2-D group-1 convs: auto (implicit-gemm where tensor cores take it: sm_80/sm_90/sm_90a f16/bf16, sm_90a f32 with allow-tf32; else direct), "
           "implicit-gemm (tile.im2col_load + tile.dot) or direct (window loop)">,
    Option<"tmaStore", "tma-store", "bool", "true",
           "sm_90a: shape kernels for the TMA-store epilogue (NCHW implicit-GEMM conv tiles stay within one image where it can store them); false: tiles straddle images (register stores)">,
    Option<"attentionBlockM", "attention-block-m", "int64_t", "0",
           "GPU attention kernels: BLOCK_M query rows per program, 64 (4 warps) or 128 (8 warps); 0: 64">,
    Option<"attentionKVSplits", "attention-kv-splits", "int64_t", "0",
           "attention kernels: key slices per query block (flash-decoding: f32 partials and their log-sum-exp, then a combine kernel); 0: auto (GPU targets, under-filled grids), 1: none, at most 16">,
    Option<"shapeBuckets", "shape-buckets", "int64_t", "6",
           "GPU attention over queries of run-time length (bounded symbolic dims): most kernel sets, one per shape bucket (attentionShapeBuckets: the decode kernel up to 16 queries); 1: the bound's only">
  ];
  let dependentDialects = ["aicc::tile::TileDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::func::FuncDialect"];
}

def ConvertTileToLinalg : Pass<"convert-tile-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower tile ops on tensors to linalg/tensor/scf (before bufferization)";
  let description = [{
    make_range, splat, broadcast and expand_dims become linalg.generic / tensor.expand_shape;
    load becomes a linalg.generic that reads the buffer under the mask; dot becomes
    linalg.matmul into the accumulator; reduce becomes a linalg.generic with a reduction
    iterator (so producers fuse into it). Elementwise arith/math on tensors is left for
    convert-elementwise-to-linalg; store for convert-tile-store-to-scf. program_id is kept.
    block_load is an error here: tile-expand-block-loads turns it into load first.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def ConvertTileStoreToSCF : Pass<"convert-tile-store-to-scf", "mlir::func::FuncOp"> {
  let summary = "Lower tile.store to an scf.parallel, recomputing cheap producers in place";
  let description = [{
    Runs after elementwise fusion. Each tile.store becomes an scf.parallel over the tile whose
    body writes `ptr[offsets[i]] = value[i]` under `mask[i]`. Offsets, mask and value produced
    by a parallel linalg.generic whose body touches no memory are recomputed inside the loop
    at the loop's indices (recursively through such producers) instead of being read back
    from a tile buffer; anything else is read with tensor.extract.

    ```mlir
    tile.store %out[%offs], %y, %mask : memref<64xf32>, tensor<64xi32>, tensor<64xf32>, tensor<64xi1>
    // becomes
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      ... offsets, mask and y computed for element %i ...
      scf.if %m { memref.store %v, %out[%o] : memref<64xf32> }
    }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def ConvertTileToGPURegisters : Pass<"convert-tile-to-gpu-registers", "mlir::ModuleOp"> {
  let summary = "Lower 1-D tile kernels (elementwise, rows, reductions) to register-resident gpu.func code";
  let description = [{
    Runs on the tensor form of the tile kernels, before bufferization. Every kernel of
    `builtin.module @kernels` whose tiles are all 1-D or 0-D (no tile.dot) becomes a
    gpu.func of `gpu.module @kernels` in which each thread holds its share of every tile in
    registers under a #tile.blocked layout (16-byte chunks per thread, recorded in the
    function's `tile.layouts` attribute): 128-bit vector loads/stores where an axis analysis
    proves the offsets contiguous and aligned, masked gathers/scatters otherwise, and
    tile.reduce as per-thread combine + warp shuffles + one shared-memory exchange across warps.
    Other kernels stay in @kernels (with a `tile.register_path_refused` reason) for
    convert-tile-to-gpu.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect", "mlir::math::MathDialect"];
}

def ConvertTileDotToWGMMA : Pass<"convert-tile-dot-to-wgmma", "mlir::ModuleOp"> {
  let summary = "Lower matmul tile kernels to Hopper TMA + mbarrier + wgmma code (sm_90a)";
  let description = [{
    Runs on the tensor form of the tile kernels, first in the sm_90a GPU pipeline. A kernel
    whose K loop is `scf.for { a = tile.block_load; b = tile.block_load; tile.dot(a, b, acc) }`
    (f16/bf16 operands, f32 accumulator, BLOCK_M in {64, 128}, BLOCK_N a multiple of 64 up to
    256, BLOCK_K a multiple of 64) becomes a warp-specialized persistent kernel:
      - warpgroup 0 (producer, 40 registers after setmaxnreg) issues cp.async.bulk.tensor
        (TMA) loads of A and B boxes, 128-byte swizzled, into a ring of num_stages
        shared-memory stages, each completing on its `full` mbarrier (expect_tx bytes);
      - warpgroups 1..BLOCK_M/64 (consumers, 232 registers) wait on `full`, issue
        wgmma.mma_async m64 x BLOCK_N x k16 from shared-memory descriptors with one
        wgmma group in flight, and release each stage on its `empty` mbarrier;
      - every CTA walks the output tiles t = blockIdx.x, + gridDim.x, ... in grouped order
        (GROUP_M = 8 row tiles per group, for L2 reuse), the pipeline running on across tiles;
      - the epilogue (every tile op after the K loop: bias, activation, residual, casts,
        the store) is evaluated per thread on the wgmma accumulator layout in registers;
        a `tile.block_store` of the tile (f16/bf16/f32, rows 16-byte multiples) is written
        to a 128-byte-swizzled shared-memory staging buffer per consumer warpgroup and stored
        with TMA box stores (cp.async.bulk.tensor shared::cta -> global, bulk groups), which
        clip at the matrix edges; `tma-store=false`, a staging buffer that does not fit
        (`tile.tma_store_refused`) or another store keep per-thread register stores.
    The TMA descriptors are extra kernel parameters (byval, grid_constant CUtensorMap) that the
    runtime builds (`tile.tensor_maps`); the launch shape (persistent grid, 128 threads per
    warpgroup, dynamic shared memory) is recorded in `tile.launch`. Kernels that do not fit
    keep their tile form, with a `tile.wgmma_refused` reason, for the generic path.
  }];
  let options = [
    Option<"hardware", "hardware", "std::string", "\"\"",
           "chip table row (include/aicc/Target/Chip.h) whose SM count is the persistent grid's CTAs (h200: 132); empty: the module's aicc.hardware, else h200">,
    Option<"tmaStore", "tma-store", "bool", "true",
           "epilogue stores through a shared-memory staging buffer and TMA box stores "
           "(false: per-thread register stores)">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::math::MathDialect", "mlir::vector::VectorDialect"];
}

def ConvertTileDotToMMASync : Pass<"convert-tile-dot-to-mma-sync", "mlir::ModuleOp"> {
  let summary = "Lower matmul tile kernels to cp.async + ldmatrix + mma.sync code (sm_80, sm_86, sm_89, sm_90, sm_100)";
  let description = [{
    Runs on the tensor form of the tile kernels, first in the sm_80 / sm_90 GPU pipeline. A
    kernel whose K loop is `scf.for { a = tile.block_load; b = tile.block_load;
    tile.dot(a, b, acc) }` (or that body alone when K fits one block; f16/bf16 operands, f32
    accumulator, BLOCK_M / BLOCK_N / BLOCK_K powers of two in [16, 256], rows of the operand
    matrices 16-byte multiples) becomes per-thread code of one CTA of num_warps warps, the
    Ampere multistage GEMM:
      - cp.async.cg 16-byte copies (nvgpu.device_async_copy, zero fill outside the matrix)
        of the A and B blocks into a ring of num_stages dynamic shared-memory stages, XOR
        swizzled by 16-byte chunk, num_stages - 1 commit groups in flight, one bar.sync per
        k block;
      - per k16 slice, nvgpu.ldmatrix x4 (transposed for an M- or N-contiguous operand) and
        nvvm.mma.sync m16n8k16 into f32 accumulators, the warps tiling BLOCK_M x BLOCK_N;
      - programs in grouped order (GROUP_M = 8, for L2 reuse);
      - the epilogue (every tile op after the K loop) evaluated per thread on the mma.sync
        accumulator layout in registers (AccumulatorEpilogue);
      - `smem-store=true` (default): when the kernel's only store is a `tile.block_store` of
        the [BLOCK_M, BLOCK_N] tile (f16/bf16 output, output rows 16-byte multiples), after
        the K loop and a bar.sync every thread writes its final values (register pairs) into
        a row-padded [BLOCK_M, BLOCK_N + 8] staging tile in the (now free) shared memory,
        bar.sync, then the CTA copies the tile out row-wise with 16-byte vector stores,
        masked at the matrix edges; otherwise (or `smem-store=false`) per-thread register
        pair stores (`tile.mma_sync` records `epilogue_store`, a refusal
        `tile.smem_store_refused`).
    ```mlir
    // after: (per thread)
    %v = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf16, #gpu.address_space<workgroup>>
    %t = nvgpu.device_async_copy %A[%g], %v[%s], 8, %n {bypassL1} : memref<...xf16> to memref<16384xf16, ...>
    nvvm.cp.async.commit.group
    scf.for %kb = %c0 to %cK step %c1 iter_args(...) {
      nvvm.cp.async.wait.group 2
      gpu.barrier
      %a = nvgpu.ldmatrix %v[%i] {numTiles = 4 : i32, transpose = false} : ... -> vector<4x2xf16>
      %d = nvvm.mma.sync A[...] B[...] C[...] {shape = #nvvm.shape<m = 16, n = 8, k = 16>, ...}
    }
    ```
    The kernel is marked `tile.mma_sync` (its config), with `tile.dynamic_shared_bytes` and
    `tile.launch_block`, so convert-tile-to-gpu-registers skips it and convert-tile-to-gpu
    does not distribute it. Kernels that do not fit keep their tile form, with a
    `tile.mma_sync_refused` reason, for the generic path. nvgpu ops are lowered by
    convert-nvgpu-to-nvvm in the GPU pipeline.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "target chip (include/aicc/Target/Chip.h): its opt-in shared memory per block bounds a CTA's (sm_80: 163 KiB; sm_90: 227 KiB); empty: the module's aicc.target, else sm_80">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", "0",
           "override of the chip's shared memory per CTA, in bytes (0: the chip's; for tests)">,
    Option<"smemStore", "smem-store", "bool", "true",
           "epilogue block stores go through a shared-memory staging tile and coalesced "
           "16-byte global stores (false: per-thread register pair stores)">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::nvgpu::NVGPUDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def ConvertTileAttentionToMMASync : Pass<"convert-tile-attention-to-mma-sync", "mlir::ModuleOp"> {
  let summary = "Lower FlashAttention tile kernels to cp.async + ldmatrix + mma.sync code (FlashAttention-2)";
  let description = [{
    Runs on the tensor form of the tile kernels, first in every GPU pipeline. A kernel that
    the attention template wrote for a GPU target (its one-pass form: the Q block loaded
    once, one scf.for over the key blocks carrying the running row max, the row sum and the
    output accumulator, `S = tile.dot(Q, K^T)`, the online softmax, `O = O * alpha +
    tile.dot(P, V)`, then `O / l` stored by one tile.block_store) becomes per-thread code of
    one CTA of 4 warps, FlashAttention-2's forward pass (Dao, 2023, Algorithm 1 and
    section 3.3: each warp owns 16 query rows, so the softmax statistics never leave a
    warp):
      - the Q block is copied once into shared memory (cp.async, XOR swizzled by 16-byte
        chunk) and held in registers as mma.sync A fragments (ldmatrix);
      - the K and V blocks of key block j + 1 are copied (cp.async, zero fill outside the
        keys) into the other of two shared-memory stages while block j is computed;
      - S = Q K^T by mma.sync m16n8k16 into f32, scaled, masked at the key tail and above
        the causal diagonal; the row max and sum by two quad shuffles; exp2 with the scale
        folded into log2(e) (ex2.approx.ftz.f32);
      - P stays in registers: the S accumulators of two n8 tiles are the A fragment of one
        k16 slice of O += P V (the m16n8 accumulator and m16k16 A layouts, PTX ISA
        "Matrix Fragments for mma.m16n8k16"), V read by ldmatrix.trans;
      - causal kernels stop at the last key block a query block sees (block skipping).
    The result is marked `tile.mma_sync` (BLOCK_K = the head size), with
    `tile.dynamic_shared_bytes` and `tile.launch_block`. Other kernels are left alone; an
    attention kernel the lowering cannot take is an error (graph-recompose-attention only
    forms the attention GPU targets can run: include/aicc/Target/TensorCoreRules.h,
    attentionMmaSyncProblem).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::nvgpu::NVGPUDialect", "mlir::vector::VectorDialect"];
}

def ConvertTileAttentionToWGMMA : Pass<"convert-tile-attention-to-wgmma", "mlir::ModuleOp"> {
  let summary = "Lower FlashAttention tile kernels to TMA + mbarrier + wgmma code (FlashAttention-3, sm_90a)";
  let description = [{
    Runs on the tensor form of the tile kernels, first in the sm_90a pipeline, on the attention
    kernels the template wrote in its wgmma form (BLOCK_M = BLOCK_N = 128; the one-pass form
    of convert-tile-attention-to-mma-sync otherwise). Each becomes FlashAttention-3's forward
    pass (Shah et al., 2024; the design is in ConvertTileAttentionToWGMMA.cpp's file comment):
      - one producer warpgroup (24 registers after setmaxnreg) issues the TMA loads of the Q
        block once and of the K and V blocks of each key block into 2 shared-memory stages
        (128-byte swizzle), completing on their own mbarriers;
      - two consumer warpgroups (240 registers) of 64 query rows each compute S = Q K^T by
        wgmma from shared memory, the online softmax in registers, and O += P V by wgmma with
        P from registers (the accumulator layout of S is the A fragment layout of P);
      - with intra-warpgroup-overlap the softmax of key block j runs while the tensor cores
        compute P_{j-1} V_{j-1} (FlashAttention-3 Algorithm 2); with warpgroup-pingpong the
        two consumer warpgroups take turns issuing their products (section 3.1);
      - causal kernels stop at the last key block a CTA sees, longest query blocks first;
      - with persistent, one CTA per SM loops over the tiles (the pipeline's stages and
        phases run on across tiles; Q is released once a tile's last product is done).
    The Q / K / V TMA descriptors are extra kernel parameters (tile.tensor_maps); the kernel
    is marked `tile.wgmma`. An attention kernel of the wgmma form the lowering cannot take is
    an error (the template forms it only where attentionWgmmaProblem, TensorCoreRules.h,
    accepts the attention).
  }];
  let options = [
    Option<"intraWarpgroupOverlap", "intra-warpgroup-overlap", "bool", "false",
           "Overlap each key block's softmax with the previous block's P V product "
           "(FlashAttention-3 Algorithm 2); false: the two products and the softmax in turn">,
    Option<"warpgroupPingpong", "warpgroup-pingpong", "bool", "false",
           "The two consumer warpgroups take turns issuing their products (named barriers), "
           "so one's softmax overlaps the other's products (FlashAttention-3 section 3.1)">,
    Option<"persistent", "persistent", "std::string", "\"false\"",
           "A persistent grid: each CTA loops over query-block tiles (causal: longest first, "
           "in zigzag rounds), so the producer loads the next tile's Q, K and V while the "
           "consumers run the previous tile's epilogue: true, false (one CTA per tile) or "
           "auto (persistent but for causal attention over more than "
           "kAttentionPersistentMaxCausalBlocks key blocks)">,
    Option<"maxCtas", "max-ctas", "int64_t", "0",
           "persistent: at most this many CTAs (0: one per SM of the tuning hardware, "
           "aicc.hardware or the `hardware` option)">,
    Option<"hardware", "hardware", "std::string", "\"\"",
           "The chip whose SM count sizes the persistent grid (default: the module's "
           "aicc.hardware, else h200)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::vector::VectorDialect"];
}

def FinalizeTensorMapParams : Pass<"finalize-tensor-map-params", "mlir::gpu::GPUModuleOp"> {
  let summary = "Pass CUtensorMap kernel parameters by value (byval, nvvm.grid_constant)";
  let description = [{
    Runs after convert-gpu-to-nvvm. The last N parameters of a kernel with `tile.tensor_maps`
    (N entries) are TMA descriptors: each becomes `!llvm.ptr {llvm.byval =
    !llvm.array<128 x i8>, nvvm.grid_constant, llvm.align = 64}`, i.e. a 128-byte, 64-byte
    aligned `.param` the kernel reads in place (CUDA's `const __grid_constant__ CUtensorMap`);
    cp.async.bulk.tensor takes its generic address. Also makes the dynamic shared memory
    global of gpu.dynamic_shared_memory `.extern` and 1024-byte aligned (the NVPTX backend would
    otherwise demote the internal [0 x i8] global to a 1-byte static variable).
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn bufferized tile kernels into gpu.func kernels of a gpu.module";
  let description = [{
    Runs after bufferization and convert-linalg-to-parallel-loops. For each kernel of
    `builtin.module @kernels`: program_id -> gpu.block_id, num_programs -> gpu.grid_dim;
    each outermost scf.parallel becomes a loop over the block's threads (thread t takes
    linear iterations t, t + T, t + 2T, ..., T = 32 * num_warps, so consecutive threads touch
    consecutive elements: coalesced) followed by gpu.barrier; tile buffers (memref.alloc)
    become workgroup (shared-memory) attributions. The module becomes
    `gpu.module @kernels` and the host's tile.launch keeps referring to it.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::math::MathDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect"];
}

def ConvertTileToCPU : Pass<"convert-tile-to-cpu", "mlir::ModuleOp"> {
  let summary = "Turn bufferized tile kernels into host functions called once per program";
  let description = [{
    For each kernel of `builtin.module @kernels`: program_id / num_programs become trailing
    i64 arguments (pid x, y, z, then grid x, y, z); tile buffers are freed at the end of
    their scope. After func-to-llvm, `tile-cpu-emit-entry-points` (part of this pass's
    pipeline) adds `void NAME(void **args, int64_t pid[3], int64_t grid[3])`.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect", "mlir::func::FuncDialect"];
}

def TileCPUEmitEntryPoints : Pass<"tile-cpu-emit-entry-points", "mlir::ModuleOp"> {
  let summary = "Add C-callable entry points to LLVM-lowered CPU tile kernels";
  let description = [{
    For each `llvm.func @K` that came from a tile kernel (attribute `tile.cpu_kernel`, with
    bare-pointer memref arguments), adds `llvm.func @K_entry(%args: !llvm.ptr, %pid: !llvm.ptr,
    %grid: !llvm.ptr)` that loads the buffer pointers from `args` and the program id and grid
    from the two i64[3] arrays, then calls @K. The runtime calls K_entry once per program.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif
