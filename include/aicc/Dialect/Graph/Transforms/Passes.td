//===- Passes.td - graph dialect passes --------------------*- tablegen -*-===//
#ifndef AICC_DIALECT_GRAPH_TRANSFORMS_PASSES_TD
#define AICC_DIALECT_GRAPH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphInferShapes : Pass<"graph-infer-shapes", "mlir::func::FuncOp"> {
  let summary = "Re-infer result types of graph ops and the function's result types";
  let description = [{
    Walks the function in order; every op implementing InferTypeOpInterface gets the
    inferred result types, and `func.return` operand types are written back into the
    function type. Use after editing shapes by hand or after a rewrite that changed an
    operand type.

    ```mlir
    // before: %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphRecompose : Pass<"graph-recompose", "mlir::func::FuncOp"> {
  let summary = "Re-compose GELU, LayerNorm and RMSNorm that exporters emitted decomposed";
  let description = [{
    PyTorch exports GELU before opset 20 and LayerNorm before opset 17 as chains of
    elementwise ops and reductions. This pass matches them and rebuilds the graph op, so each
    becomes one kernel later:

    - GELU (erf form): mul(mul(x, add(erf(div(x, sqrt(2))), 1)), 0.5), any operand order of
      the commutative ops -> graph.gelu x;
    - LayerNorm: div(d, sqrt(add(reduce_mean(mul(d, d)), eps))) with
      d = sub(x, reduce_mean(x)) over the same trailing dims (keepdims) -> graph.layer_norm;
      a following mul / add by a tensor that broadcasts over the normalized dims becomes its
      scale / bias;
    - RMSNorm (ONNX RMSNormalization's function body, PyTorch RMSNorm exports):
      div(x, r) or mul(x, reciprocal(r)) with r = sqrt(add(reduce_mean(mul(x, x)), eps)) over
      trailing dims -> graph.layer_norm with rms (a following mul becomes its scale).

    ```mlir
    %d = graph.div %x, %sqrt2 ... %e = graph.erf %d ... %a = graph.add %e, %one
    %m = graph.mul %x, %a ... %g = graph.mul %m, %half
    // becomes
    %g = graph.gelu %x : tensor<16x256xf32>
    ```
  }];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphFoldConstants : Pass<"graph-fold-constants", "mlir::func::FuncOp"> {
  let summary = "Evaluate graph ops whose operands are all constants at compile time";
  let description = [{
    Exporters leave arithmetic on initializers in the graph: torch's scaled_dot_product_attention
    computes 1 / sqrt(head_dim) from a constant, masks are built from Trilu / Range / Where on
    constants, weights are transposed or cast on every call. Each would be a kernel at run
    time. This pass evaluates every pure graph op of the function's top level whose operands
    are all graph.constant with the float64 reference evaluator (include/aicc/Reference:
    results rounded to their element type, ties to even) and replaces it with a constant,
    in program order, so chains fold in one run. A fold must not bloat the bundle: it is
    done when its results take at most `max-bytes` (a splat counts one element) or no more
    than the constants it leaves unused, or when its one user's other operands are
    constants and that user's results take no more (it folds next: torch's causal
    masked_fill(mask == 0) casts a 1024 x 1024 f16 mask to f32 before the compare, 2 -> 4 ->
    1 MiB). A fold must also give what the kernel computes:
    float results fold only from elementwise ops and views (float64 then one rounding is
    the correctly rounded result), not from reductions or contractions (their float64
    accumulation neither overflows nor cancels as the kernel's does); an integer beyond 2^53
    cast to a float and a NaN, infinite or out-of-range float cast to an integer do not fold.
    Left alone too: ops the evaluator does not implement or whose evaluation fails (a
    data-dependent error; silently), operands or results beyond `max-elements` (compile
    time), and ops whose result the function returns.

    ```mlir
    %c = graph.constant dense<64.0> : tensor<f32>
    %s = graph.sqrt %c : tensor<f32>
    %r = graph.reciprocal %s : tensor<f32>
    // becomes
    %r = graph.constant dense<1.250000e-01> : tensor<f32>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"65536",
           "results of a fold may take this many bytes even when no constant becomes unused">,
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"4194304",
           "most elements of an evaluated op's operands or results">,
  ];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphConvLayout : Pass<"graph-conv-layout", "mlir::func::FuncOp"> {
  let summary = "Put 2-D group-1 convolutions in NHWC (channels last) or back in NCHW";
  let description = [{
    Tensor cores run a convolution as an implicit GEMM whose reduction dim is the input
    channels; they want channels contiguous (NHWC). With `layout=nhwc` (the default)
    every graph.conv with layout "NCHW", group = 1 and rank-4 operands (2-D) becomes

      transpose(X, [0, 2, 3, 1]) -> graph.conv {layout = "NHWC"} with the weight
      transpose(W, [0, 2, 3, 1]) (OHWI) -> transpose(Y, [0, 3, 1, 2])

    (bias, strides, pads, dilations unchanged: they are indexed by channel / spatial dim in
    both layouts). `layout=nchw` does the reverse for "NHWC" convolutions. Left alone:
    grouped and depthwise convolutions (group > 1: each group's GEMM has only C/group
    channels of reduction, too short for tensor-core tiles; they stay on the window
    template), 1-D / 3-D convolutions (the implicit-GEMM template is 2-D only) and convolutions
    of other element types than f16 / bf16 / f32 (ConvInteger's f64 conv).

    Then, greedily: a transpose of a constant folds to the transposed constant (constant
    weights become OHWI constants); transpose(transpose(x, p), q) folds to x when it is the
    identity (TransposeOp::fold); and a transpose back to the old layout sinks below an
    elementwise consumer (relu, add, ...: not expand / trilu) when each of the consumer's
    operands is such a transpose, a constant of the same rank (transposed, which folds) or a
    tensor of size-1 dims, so that conv -> relu -> conv keeps relu in NHWC and the pair of
    transposes between the convolutions cancels. The same transpose also sinks below a max /
    average pool (which then pools in the new layout), a grouped or depthwise conv of the
    pass's element types (the window template runs both layouts) and a reduce_* (over the
    permuted axes; without keepdims the transpose applies to the dims left, and goes when
    they keep their order): ResNet's max pool and global mean, mobilenet's depthwise convs
    and squeeze-excitation stay in NHWC. A transpose that moves only size-1 dims becomes a
    reshape (a view). Not done: moving transposes across reshapes, concat or other view
    ops, or across an elementwise op with a non-constant operand in the old layout (that
    would add a transpose of a computed value); the transposes left there run as
    data-movement kernels.

    Last (layout=nhwc), an f16 / bf16 group-1 conv of fewer than 8 input channels whose
    input is still a layout transpose (a first layer's RGB input) gets its channels padded
    to `pad-channels` (8, or 4 on sm_90a where the wgmma producer gathers 8-byte pixels) with
    zeros: graph.pad of X (fused with the transpose's kernel) and of W (folded for
    a constant weight). The implicit GEMM then gathers 16-byte pixels instead of single
    elements; the results are unchanged (the padded products are zero).

    ```mlir
    %y = graph.conv %x, %w {...} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>)
        -> tensor<1x16x8x8xf32>
    // becomes
    %xt = graph.transpose %x, array<i64: 0, 2, 3, 1> : ... -> tensor<1x8x8x3xf32>
    %wt = graph.constant ... : tensor<16x3x3x3xf32>   // W was a constant: OHWI
    %c = graph.conv %xt, %wt {..., layout = "NHWC", ...} : (...) -> tensor<1x8x8x16xf32>
    %y = graph.transpose %c, array<i64: 0, 3, 1, 2> : ... -> tensor<1x16x8x8xf32>
    ```
  }];
  let options = [
    Option<"layout", "layout", "std::string", /*default=*/"\"nhwc\"",
           "target layout of 2-D group-1 convolutions: nhwc or nchw">,
    ListOption<"elementTypes", "element-types", "std::string",
           "element types of the convolutions rewritten (f16, bf16, f32; default: all three)">,
    Option<"padChannels", "pad-channels", "int64_t", /*default=*/"8",
           "f16 / bf16 input channels a few-channel first layer is padded to: 8 (16-byte "
           "gathers, what mma.sync takes) or 4 (8-byte gathers: sm_90a's wgmma producer, half "
           "the K); 0 turns the padding off">
  ];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphRecomposeAttention : Pass<"graph-recompose-attention", "mlir::func::FuncOp"> {
  let summary = "Re-compose scaled dot-product attention into graph.attention";
  let description = [{
    Exporters write attention as a chain: torch eager attention (and HF models' "eager"
    attention), torch.onnx's decomposition of F.scaled_dot_product_attention and aicc's own
    import of ONNX Attention all give

      s = matmul(q, kt) (or matmul(q * c1, kt * c2))   kt: [..., D, Skv], usually transpose(k)
      s = s * c | s / c                                  (c a scalar constant; optional)
      s = s + bias | where(mask, s, -inf)                (optional; bias broadcast to s)
      p = softmax(s, last axis)
      p = where(not(p == p), 0, p)                       (optional: torch's SDPA with a
                                                          bool mask zeroes NaN rows)
      y = matmul(p, v)

    This pass rewrites the chain into `graph.attention q, kt, v [bias] {scale}` when every
    intermediate has exactly one user (the scores and probabilities never reach memory),
    scalar factors on q and kt fold into the scale, and a bool `where` mask becomes the
    additive bias where(mask, 0, -inf). A constant bias that is exactly the causal mask (0
    where j <= i + Skv - Sq, -inf elsewhere) becomes the op's `causal` flag. The NaN cleanup
    of torch.onnx's dynamo decomposition of scaled_dot_product_attention with a bool mask
    (IsNaN imported as not(p == p); a row without a visible key is NaN before it and 0 after)
    becomes `zero_undefined_rows`; p's other users are then only that cleanup. Softmax over
    another axis, intermediates with other users, a non-scalar scale, and a mask that does
    not broadcast to the scores are left alone. graph-fuse makes each graph.attention one
    kernel (kind "attention", the FlashAttention template).

    Grouped-query decode (one query per head; q's batch dim above the rows G > 1 where K^T's
    and V's is 1, the broadcast of HF's repeat_kv) is packed: reshape q [..., G, 1, D] to
    [..., 1, G, D], one attention of G query rows per K / V head, reshape the result back
    (views), so each K / V block is read once for its G query heads. With one query the
    causal flag hides nothing and is dropped. HF's repeat_kv (K and V [..., Hkv, S, D]
    unsqueezed, expanded to G copies and viewed [..., Hkv * G, S, D]; K^T a transpose of
    the last two dims) is packed the same way over the unrepeated K and V.

    ```mlir
    %kt = graph.transpose %k ...  %s = graph.matmul %q, %kt ...  %t = graph.mul %s, %c ...
    %a = graph.add %t, %mask ...  %p = graph.softmax %a {axis = 3} ...  %y = graph.matmul %p, %v
    // becomes
    %y = graph.attention %q, %kt, %v bias %mask {scale = 0.125 : f64} : ...
    ```
  }];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphSinkTransposes : Pass<"graph-sink-transposes", "mlir::func::FuncOp"> {
  let summary = "Move row-order transposes across row-wise ops to the view chains that absorb them";
  let description = [{
    A transpose that keeps the last dim (it permutes rows, not the elements of a row)
    commutes with every op that treats rows independently: a matmul by a 2-D weight, an
    elementwise op whose other operands are the same for every row (a bias [N], a scalar).
    Exporters put such transposes around those ops: torch's nn.MultiheadAttention with
    batch_first=True transposes [B, S, E] to [S, B, E] before the in-projection and the
    out-projection's [S, B, E] back after it. A transpose between two kernels is a copy
    kernel; moved next to a view chain it is read in place (the GPU attention kernel reads
    its operands and writes its result through views, AttentionOperands.h). Rewrites,
    greedily (each keeps the number of transposes or lowers it):

      matmul(transpose(x, p), W)      -> transpose(matmul(x, W), p)    (W rank 2)
      E(transpose(x, p), c...)        -> transpose(E(x, c...), p)      (c rank <= 1 or
                                         all dims but the last 1; x from a matmul, gemm
                                         or elementwise op, whose kernel E joins)
      transpose(reshape(G(reshape(z))), p) -> reshape(G(reshape(transpose(z, p'))))
          where G is a gemm or a 2-D-weight matmul on [M, K] rows, the first reshape
          merges z's leading dims L (product M) and the second splits M back into L:
          p' is p on L and the identity on the rest (the out-projection's transpose
          moves to its input, the attention's head merge)
      transpose(transpose(x, p), q)   -> transpose(x, p o q)
      transpose(x, p)                 -> reshape(x)   (x a reshape of an attention's result,
                                         p moving only size-1 dims: a decode step's head
                                         merge [B, H, 1, D] -> [B, 1, H, D])

    Each moved transpose must have one user (nothing is duplicated), p must keep the last
    dim, and the ops must be outside fusion groups. Run after graph-recompose-attention
    (whose patterns read the exported transposes) and before graph-fuse.
  }];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphScatterInPlace : Pass<"graph-scatter-in-place", "mlir::func::FuncOp"> {
  let summary = "A model input's ScatterND between two transposes as scatter_nd along its axis";
  let description = [{
    torch's index_copy of a KV cache along an inner dim (HF's StaticCache update) is
    exported as Transpose(cache, p) -> ScatterND -> Transpose(inverse p), p moving the
    indexed dims [a, a + k) to the front and keeping the others in order. When the cache is
    a model input read by nothing else, the three become graph.scatter_nd {axis = a} on the
    input itself, which convert-graph-to-tile runs in place: the kernel writes the update
    slices into the input's buffer, which the output then is (no copy of the cache, no
    transposes). Run before graph-scatter-to-select (which leaves axis != 0 alone) and
    graph-sink-transposes.
  }];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphScatterToSelect : Pass<"graph-scatter-to-select", "mlir::func::FuncOp"> {
  let summary = "ScatterND of a few run-time positions of dim 0 as elementwise selects";
  let description = [{
    A KV cache updated at the step's positions (torch's index_copy / index_put, exported as
    ScatterND with indices [T, 1], often between two transposes) becomes, for T <=
    max-updates,

      result = data; for t: result = where(iota0 == norm(indices[t]), updates[t], result)

    (iota0 a constant [N, 1, ..., 1] of 0..N-1, norm adds N to a negative position and clamps
    to [0, N - 1] as the scatter kernel does, docs/onnx-import.md): views and
    elementwise ops that graph-fuse puts in one kernel with the transposes around them, so the
    update costs one pass over the data instead of a copy, the scatter and the transposes'
    copies. Duplicate positions: the last wins (ScatterND's order). Reductions, indices into more than dim 0 and more than
    max-updates positions are left alone (the scatter kernel). max-updates = 0 turns it off.
  }];
  let options = [
    Option<"maxUpdates", "max-updates", "int64_t", "16",
           "most slices (T of indices [T, 1]) rewritten; 0: off">
  ];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphMergeSiblingMatmuls : Pass<"graph-merge-sibling-matmuls", "mlir::func::FuncOp"> {
  let summary = "One matmul for the projections of one input by constant weights (q, k, v)";
  let description = [{
    Matmuls of one left operand by constant 2-D weights of one K and element type (each
    optionally followed by the add of a constant [N] bias, all or none of them), whose
    results are read only by views (reshape, transpose, slice, ...: the head splits of q,
    k and v), become one matmul by the weights side by side (a graph.concat of the
    constants, folded; up to 64 MiB) plus the bias side by side, and each projection a
    slice of the product's columns:

      y_i = x @ W_i (+ b_i)   ->   y = x @ [W_1 .. W_n] (+ [b_1 .. b_n]),
                                    y_i = slice(y, columns N_1 + .. + N_{i-1} ..)

    One GEMM kernel instead of n (the activation read once, n times the tiles for the
    GPU), and the slices are read in place by their consumers' kernels (views).

    Gated pairs: two such projections of one N (no bias or both biased) whose results are
    read only by elementwise ops that combine them within 4 steps (SwiGLU's silu(x @ W_g)
    * (x @ W_u), GeGLU's; nothing else reads the ops between them and that combine, and
    the nearest combine pairs first) become one matmul by the weights interleaved column by column
    (column 2j is W_g's column j, 2j + 1 W_u's) and two slices of step 2:

      g = x @ W_g, u = x @ W_u   ->   y = x @ interleave(W_g, W_u),
                                       g = slice(y, columns 0, 2, ..), u = slice(y, 1, 3, ..)

    graph-fuse puts both slices and what combines them in the GEMM's epilogue (column
    pairs): each thread holds a column pair in registers, so the epilogue reads g and u
    where it computes y and stores only the combined result. One GEMM instead of two, the
    activation read once, and u never written to memory. Other projections read by
    elementwise ops are left alone.
  }];
}

def GraphRotaryIntoProjection : Pass<"graph-rotary-into-projection", "mlir::func::FuncOp"> {
  let summary = "Rotary position embedding of q and k as elementwise ops of their projection";
  let description = [{
    RoPE in the rotate-half form (GPT-NeoX, Llama; RoFormer eq. 34) of a head split
    x = transpose(reshape(slice(y))) of a product y = a @ W by a constant 2-D W,

      r = x * cos + concat(-x[.., D/2:], x[.., :D/2]) * sin      (cos, sin: constants [S, D]),

    read only as graph.attention's query or K^T (through reshapes keeping the head dim,
    expands and transposes), where every attention reached has both rotated: each rotated
    head's columns of W are reordered so that d and d + D/2 are columns 2j and 2j + 1 (the
    scores q k^T are a sum over d: one permutation of d for q and k leaves them unchanged),
    and the rotation becomes elementwise over y's columns with their pair partner:

      y' = where(rotated[c], y * C + swap_pairs(y) * S, y),   q, k, v = the same views of y'

    C and S the tables in the new order (S's first half negated) repeated over the heads
    (graph.tile of a [S, D] constant: a view), swap_pairs the reshape / reversing slice /
    reshape of SwapPairsView.h. graph-fuse puts it in the GEMM's epilogue (each thread holds
    a column pair in registers): no RoPE kernel, q and k never written unrotated. Results
    are the same to the rounding of each op (each product and the sum rounded to the element
    type as before). Left alone: a rotation also read elsewhere (a returned KV cache), tables
    that are not constants of the element type, a product with a user other than slices of
    columns no rotation covers, heads of different sizes or tables for one product.
  }];
}

def GraphNormScaleIntoWeights : Pass<"graph-norm-scale-into-weights", "mlir::func::FuncOp"> {
  let summary = "A norm's scale and bias folded into the constant weights and biases of the projections that read it";
  let description = [{
    RMSNorm followed by projections (Llama's pre-norm: q / k / v, gate / up) by constant
    weights, as graph-recompose writes it:

    ```mlir
    %n = graph.layer_norm %x scale %g {axis = 2, rms = true, epsilon = 1e-6}
    %y = graph.matmul %n, %W          // W a constant [K, N]
    // becomes (W'[k, n] = g[k] * W[k, n], rounded once to W's type)
    %n = graph.layer_norm %x {axis = 2, rms = true, epsilon = 1e-6}
    %y = graph.matmul %n, %W'
    ```

    since (x * r * g) @ W = (x * r) @ (diag(g) W), r = rsqrt(mean(x^2) + eps) per row. A
    scale-free norm is what graph-fuse can move into the GEMM as its prologue (rule
    `norm-prologue`, docs/fusion.md): the GEMM then reads x, sums its squares per row in
    the K loop and scales its accumulator rows by r. Gemm (transA false; B [K, N] or [N, K]
    under transB; alpha, beta and C unaffected) is taken like MatMul.

    LayerNorm (mean subtracted; GPT-2, BERT) the same way, its scale g and bias beta both
    optional: (n * g + beta) @ W = n @ W' + beta @ W, n = (x - mu) r the scale-free norm,
    so the scale goes into W' as above and beta @ W (f64, times Gemm's alpha) into the
    constant [N] of an add that is the projection's only user (a Linear's bias; b' = b +
    beta @ W rounded once), else into a new add of a constant after the projection:

    ```mlir
    %n = graph.layer_norm %x scale %g bias %beta {axis = 2, epsilon = 1e-5}
    %y = graph.matmul %n, %W
    %z = graph.add %y, %b
    // becomes
    %n = graph.layer_norm %x {axis = 2, epsilon = 1e-5}
    %y = graph.matmul %n, %W'
    %z = graph.add %y, %b'
    ```

    graph-fuse's rule `norm-prologue` takes such a LayerNorm too (the GEMM subtracts
    mu * (column sums of W') from its accumulator rows, docs/fusion.md).

    Left alone: an RMS norm with a bias or without a scale, a norm over more than the
    last dim, a scale or bias that is not a constant of K elements, a normalized value read
    by anything but such projections as their left operand (it would still need the scale),
    weights that are not 2-D constants of a float type.
  }];
}

def GraphMatVec : Pass<"graph-matvec", "mlir::func::FuncOp"> {
  let summary = "Write matmuls of a few rows as dot-product reductions (GEMV) on GPU targets";
  let description = [{
    The matmul template gives a [M, K] x [K, N] product one program per BLOCK_M x BLOCK_N
    tile: with M = 8 that is 1-16 programs on a 132-SM GPU, each running the whole K loop
    (an 8x256 @ 256x32 f32 Gemm took 38 us on one program, H200, docs/performance.md). For
    at most `max-rows` rows (A's leading dims flattened) and K >= `min-k`, the product is
    rewritten as the dot products it is, the GEMV of BLAS:

    ```mlir
    %y = graph.gemm %a, %w, %bias {transB = true}
        : (tensor<8x256xf32>, tensor<32x256xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    // becomes
    %a3 = graph.reshape %a : (tensor<8x256xf32>) -> tensor<8x1x256xf32>
    %w3 = graph.reshape %w : (tensor<32x256xf32>) -> tensor<1x32x256xf32>
    %p = graph.mul %a3, %w3 : (tensor<8x1x256xf32>, tensor<1x32x256xf32>) -> tensor<8x32x256xf32>
    %s = graph.reduce_sum %p {axes = array<i64: 2>, keepdims = false}
        : (tensor<8x32x256xf32>) -> tensor<8x32xf32>
    %y = graph.add %s, %bias : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    ```

    graph-fuse makes it one row-reduction kernel (the multiply its prologue, the bias and a
    following activation its epilogue; the [M, N, K] product is never stored), one program per
    output element reading a row of W contiguously. W must be stored [N, K] (Gemm transB,
    what torch.nn.Linear exports) or be a constant [K, N] (MatMul with a constant weight:
    transposed at compile time). f16 / bf16 operands are multiplied and summed in f32 and the
    sum rounded once, as the matmul kernels accumulate. Gemm with alpha != 1, beta != 1,
    transA, or a C of rank > 2 is left alone, as are batched right operands and the cpu
    target (whose matmul kernel is already a blocked GEMV loop).

    Measured on the H200 (docs/performance.md, bench/gemm.py small_*, 2026-12-02): for f32
    (no tensor cores without --allow-tf32) the rewrite is 2-8x faster than the matmul
    template at every M from 1 to 64 tried (8x10x512: 33.3 -> 3.9 us; 64x512x256: 40.2 ->
    13.6 us); for f16 it wins at M = 1 (1x4096x4096: 17.6 -> 12.2 us) and loses badly from
    M = 8 (8x4096x4096: 17.1 -> 305 us, against the wgmma kernel), hence `half-max-rows`.

    A MatMul of one-row matrices by a 2-D weight that is not rewritten ([B, 1, K] x [K, N]
    with B rows above the caps: a decode step's projections at batch B > 1) becomes one
    [B, K] x [K, N] product between two reshapes, so the matmul kernel reads the weight once
    for all rows rather than once per one-row batch matrix (a Llama-style decode step at
    batch 16 on an H100: 6.46 -> 1.13 ms, docs/gpu-results.md 2026-12-06).
  }];
  let options = [
    Option<"maxRows", "max-rows", "int64_t", /*default=*/"64",
           "largest number of rows (A's elements / K) rewritten">,
    Option<"halfMaxRows", "half-max-rows", "int64_t", /*default=*/"1",
           "largest number of rows rewritten when the operands are f16 / bf16 (the "
           "tensor-core matmul kernels win above one row: docs/performance.md)">,
    Option<"minK", "min-k", "int64_t", /*default=*/"16",
           "smallest reduced extent K rewritten">
  ];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphSplitReduction : Pass<"graph-split-reduction", "mlir::func::FuncOp"> {
  let summary = "Split a reduction with few outputs and a long reduced extent in two levels";
  let description = [{
    A fusion group lowers to exactly one kernel, and the reduction kernel gives each program
    whole outputs (one output element, or a block of consecutive outputs for a column
    reduction): a whole-tensor reduce_sum of 2^24 elements would run as one program. When the
    kernel would have few programs (fewer than 4 * SMs of the `hardware` chip: 528 on an H200) and each
    program reads many elements (at least 32768), or walks many steps (a column reduction of
    at least 128 reduced positions: each step waits on the last, so its time grows with the
    steps however narrow the rows), the reduced extent R is split as R = P * Q and the
    reduction becomes two: P partials of Q elements each, then a reduction of the partials.

    Applies when the reduced dims of size > 1 are consecutive (so the input reshapes to
    [outer, P, Q, inner] without a copy) and some P >= 2 divides R. P is the largest divisor
    of R with P * programs <= 4 * SMs (rounded up) and every first-level program still
    reading at least 2048 elements. Sum -> sum of sums, mean -> mean of means (the partials
    have equal counts, so the result is the mean), max / min / prod -> the same op twice
    (NaN propagates through both). Partials of f16 / bf16 inputs are f32 (the kernels
    accumulate in f32); the second level rounds to the result type.

    ```mlir
    %r = graph.reduce_sum %x {axes = array<i64>} : (tensor<4096x4096xf32>) -> tensor<1x1xf32>
    // becomes
    %v = graph.reshape %x : (tensor<4096x4096xf32>) -> tensor<512x32768xf32>
    %p = graph.reduce_sum %v {axes = array<i64: 1>, keepdims = false}
        : (tensor<512x32768xf32>) -> tensor<512xf32>
    %s = graph.reduce_sum %p {axes = array<i64: 0>, keepdims = false}
        : (tensor<512xf32>) -> tensor<f32>
    %r = graph.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
    ```
  }];
  let options = [
    Option<"hardware", "hardware", "std::string", /*default=*/"\"\"",
           "chip table row whose SM count sets the programs wanted (include/aicc/Target/Chip.h); empty: the module's aicc.hardware, else h200">
  ];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

def GraphFuse : Pass<"graph-fuse", "mlir::func::FuncOp"> {
  let summary = "Group ops into kernels (epilogue, row, elementwise, horizontal fusion)";
  let description = [{
    Builds `graph.fusion_group` ops, one per future kernel:
    - epilogue: a matmul/gemm/conv and the chain of elementwise consumers that follow it,
      as long as the result shape stays the anchor's and each fused value has one user;
    - softmax (row kernels: softmax, log_softmax, layer_norm / RMS norm): the elementwise
      producers of the row input (loop fusion: scale, mask add, residual add; the row
      input may also be a second result of the kernel) and the elementwise consumers;
    - elementwise: DAGs of elementwise and view ops whose intermediate values have one user
      each; a cheap producer with several users is recomputed in each of them when the
      cost model says recompute is cheaper than storing it; two independent elementwise
      groups of one shape that read a common input become one kernel with two results
      (horizontal fusion);
    - reduction: a reduce op of a float input with the elementwise producers of its input
      (prologue: x * x, x + bias) and its chain of elementwise consumers (epilogue); sibling
      reductions (same input shape, axes, keepdims) that read a common input and do not
      depend on each other share the kernel (one read of the input, several results:
      mean(x) and mean(x * x) in one pass);
    - window / single: one pool, one scatter.
    Reshapes and constants stay outside groups.

    Legality: one function per rule (GraphFuse.cpp): single-user, recompute-cost,
    side-effect-free, no-aliasing, iteration-space, reduction-in-one-kernel, template. A
    group whose input `i` is produced by another kernel records the rule that kept them
    apart: a `refusals` array of dictionaries `{input = i : i64, rule = "single-user"}`
    (discardable; read by
    `aicc-compile --fusion-report`). docs/fusion.md states the rules and the cost model.

    ```mlir
    %m = graph.matmul %x, %w ...; %r = graph.relu %m ...
    // becomes
    %r = graph.fusion_group "epilogue" (%x, %w) ... { matmul; relu; graph.yield }
    ```
  }];
  let options = [
    Option<"hardware", "hardware", "std::string", /*default=*/"\"\"",
           "hardware description of the cost model (h200 = sm_90; CostModel.h); empty: the module's aicc.hardware, else h200">
  ];
  let dependentDialects = ["aicc::graph::GraphDialect"];
}

#endif
