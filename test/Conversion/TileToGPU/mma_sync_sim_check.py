"""Numbers of convert-tile-dot-to-mma-sync's kernels without a GPU: each case is an ONNX
MatMul / Gemm / Conv model (bench/gemm_models.py), compiled by aicc-compile for sm_90 to the tile
stage (the template's config, or --matmul-config), lowered by aicc-opt
-convert-tile-dot-to-mma-sync, and run by the SIMT simulator (simt_sim.py: PTX semantics of
cp.async, ldmatrix, mma.sync; shared-memory races are errors) on seeded random operands. The
output (poisoned with NaN first) is compared with numpy's float64 result on the same rounded
operands: relative Frobenius error under 1e-3 (f16 operands; rounding the output alone gives
~2e-4) or 5e-3 (bf16; ~1.7e-3); cases whose result is Cast to f32 (out_dtype) keep their
operand type's tolerance. Shared-memory accesses must be conflict-free (one wavefront per
ldmatrix matrix and per 8-thread cp.async phase).

--mutate KIND edits the lowered IR the way a broken lowering would (wait: one more
cp.async group in flight; barrier: no bar.sync; trans: ldmatrix.trans flipped; staging: no
bar.sync between the staged epilogue's st.shared and its ld.shared copy-out; staging-entry:
no bar.sync between the K loop and the staging stores) and expects the check to fail. --smem-store=false checks the register-store epilogue instead of the staged
one (smem-store, the pass default); --expect-store fails cases whose epilogue_store differs.

--wgmma runs the cases through convert-tile-dot-to-wgmma instead (sm_90a; register stores,
as wgmma_sim.py does not simulate TMA stores) and wgmma_sim.py. --wgmma --dynamic runs
DYNAMIC_GEMMS (rows of run-time length: the run's tiles only); --mutate bound leaves the bound
in the symbol values (every tile runs: the check sees tiles written past the run's).
--dynamic without --wgmma runs them through sm_90's mma.sync kernels (the CTAs past the run's
row tiles exit).

Usage: mma_sync_sim_check.py --compile AICC_COMPILE --opt AICC_OPT --work DIR [--wgmma]
         [--mutate wait|barrier|trans|staging|staging-entry] [--smem-store true|false]
         [--expect-store TEXT] [CASE_REGEX]
Prints one line per case, then 'N passed, N failed'; exit 1 when any failed (or, with
--mutate, when any passed).
"""
import argparse, math, os, re, subprocess, sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "..", "bench"))
import gemm_models as gm  # noqa: E402
import simt_sim  # noqa: E402
import wgmma_sim  # noqa: E402

def f32out(c):
    """The case with its result Cast to f32 (a kernel that stores f32)."""
    c["out_dtype"] = "f32"
    return c


# (case, --matmul-config or ""): the template's configs (64x32 and 16x32 blocks, 4 and 2
# warps) and the large ones (128x128 / 4 warps and 128x256 / 8 warps of 64x64 warp tiles,
# 64x64x64, 32x64x16), ragged M / N / K, every operand layout, bias + GELU and residual
# epilogues, a batch, K under one block (no K loop), K over more blocks than stages (the
# ring wraps).
CASES = [
    (gm.matmul_case("m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136]), ""),
    (gm.matmul_case("bmm_3x1x72x40_2x40x24_bf16", "t", "bf16", [3, 1, 72, 40], [2, 40, 24]),
     ""),
    (gm.gemm_case("gemm_transA_m136_n72_k200_f16", "t", "f16", 136, 72, 200, trans_a=1),
     "128x128x32x3"),
    (gm.gemm_case("gemm_transB_bias_m130_n200_k96_bf16", "t", "bf16", 130, 200, 96,
                  trans_b=1, bias=True), "128x256x32x2"),
    (gm.gemm_case("gemm_transAB_m72_n136_k56_f16", "t", "f16", 72, 136, 56, trans_a=1,
                  trans_b=1), "64x64x64x3"),
    (gm.gemm_case("linear_gelu_m100_n136_k104_bf16", "t", "bf16", 100, 136, 104, trans_b=1,
                  bias=True, gelu=True), ""),
    (gm.matmul_case("m1_n256_k264_f16", "t", "f16", [1, 264], [264, 256]), ""),
    (dict(gm.matmul_case("residual_gelu_m96_n80_k48_bf16", "t", "bf16", [96, 48], [48, 80]),
          inputs=[[96, 48], [48, 80], [96, 80]], bias=True, gelu=True), "32x64x16x2"),
    (gm.matmul_case("m8_n8_k8_f16", "t", "f16", [8, 8], [8, 8]), ""),
    # Implicit-GEMM convolutions (NCHW: the im2col A blocks are filled element by element):
    # K = 27 (3 channels: the [OC, K] weight rows are not 16-byte multiples, so B goes
    # element by element too), bias; K = 144 over 5 k blocks (the 4-stage ring wraps, B by
    # cp.async), stride 2, Relu; dilation 2 with padding 2 on a 32 x 32 x 32 config.
    (gm.conv_case("conv_n2_c3_h9_oc24_k3_p1_f16", "t", "f16", 2, 3, 9, 24, 3, pad=1,
                  bias=True), ""),
    (gm.conv_case("conv_n2_c16_h9_oc40_k3_s2_p1_relu_bf16", "t", "bf16", 2, 16, 9, 40, 3,
                  stride=2, pad=1, relu=True), ""),
    (gm.conv_case("conv_n1_c8_h11_oc16_k3_p2_d2_f16", "t", "f16", 1, 8, 11, 16, 3, pad=2,
                  dil=2), "32x32x32x2"),
    # f32 outputs (the product Cast to float): staged in 16-byte chunks of 4 f32, 8-byte pair
    # stores. Rows of 32 f32 (8 chunks, the template's 64x32); a 128 x 256 tile (128 KiB
    # staging, over the 48 KiB ring) with N = 132 (16-byte rows in f32 only) and ragged M;
    # rows of 16 f32 (4 chunks, two rows per 128-byte line), N = 100; N = 130 (rows not
    # 16-byte multiples: register stores, tile.smem_store_refused).
    (f32out(gm.matmul_case("f32out_m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136])),
     ""),
    (f32out(gm.gemm_case("f32out_gemm_transB_bias_m130_n132_k96_bf16", "t", "bf16", 130, 132,
                         96, trans_b=1, bias=True)), "128x256x32x2"),
    (f32out(gm.gemm_case("f32out_gemm_transB_m72_n100_k40_f16", "t", "f16", 72, 100, 40,
                         trans_b=1)), "32x16x16x2"),
    (f32out(gm.gemm_case("f32out_rows_gemm_transB_m40_n130_k24_f16", "t", "f16", 40, 130, 24,
                         trans_b=1)), ""),
    # 25 output pixels per image: a 64-row tile spans up to 4 images (four transposed block
    # stores of the NCHW output, each element written under one of their masks).
    (gm.conv_case("conv_n6_c8_h5_oc24_k3_p1_relu_f16", "t", "f16", 6, 8, 5, 24, 3, pad=1,
                  bias=True, relu=True), "64x32x32x2"),
    # Split-K (SPLIT_K, the fifth field): the partials kernel simulated, its sum + epilogue
    # (fused_0_epilogue, an elementwise kernel) computed on the host (split_k_sum). 3 slices
    # of 3 k blocks over K = 256 (the last slice ends past K: zeros); a batch with K = 40
    # (2 slices, the second a 8-element tail); GELU after 3 slices of 2 blocks over K = 104
    # (4 blocks: the third slice is all past K); transA with 4 slices.
    (gm.gemm_case("splitk_gemm_transB_bias_m64_n96_k256_f16", "t", "f16", 64, 96, 256,
                  trans_b=1, bias=True), "64x32x32x2x3"),
    (gm.matmul_case("splitk_bmm_3x1x72x40_2x40x24_bf16", "t", "bf16", [3, 1, 72, 40],
                    [2, 40, 24]), "64x32x32x2x2"),
    (gm.gemm_case("splitk_linear_gelu_m100_n136_k104_bf16", "t", "bf16", 100, 136, 104,
                  trans_b=1, bias=True, gelu=True), "64x32x32x4x3"),
    (gm.gemm_case("splitk_gemm_transA_m72_n40_k200_f16", "t", "f16", 72, 40, 200, trans_a=1),
     "64x64x32x3x4"),
]

def rms(c):
    """The case with A RMS-normalized over K first (rule norm-prologue: the kernel sums the
    squares of its A fragments per row, then scales its accumulator rows)."""
    c["rms"] = True
    return c


# Norm prologue (rms, rule norm-prologue): the template's config (64 x 32 blocks, 2 warps along N, each summing
# its rows), 128 x 128 over 4 warps (2 x 2: two m16 tiles per warp), K over several blocks
# and ragged (the zero-filled tail adds nothing), a batch of 3, bf16; rows of very different
# scale (each row gets its own r).
CASES += [
    (rms(gm.matmul_case("rms_m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136])), ""),
    (rms(gm.matmul_case("rms_bmm_3x40x200_200x72_bf16", "t", "bf16", [3, 40, 200], [200, 72])),
     "128x128x32x3"),
    (rms(gm.gemm_case("rms_gemm_transB_m72_n100_k40_f16", "t", "f16", 72, 100, 40, trans_b=1)),
     "32x16x16x2"),
]
# The same on the sm_90a wgmma kernel (--wgmma): the template's configs, 128 x 128 and
# 128 x 256 (two consumer warpgroups: ping-pong, cooperative), BLOCK_K = 128.
WGMMA_RMS = [
    (rms(gm.matmul_case("rms_m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136])), ""),
    (rms(gm.matmul_case("rms_bmm_3x40x200_200x72_bf16", "t", "bf16", [3, 40, 200], [200, 72])),
     ""),
    (rms(gm.gemm_case("rms_gemm_transB_m72_n100_k40_f16", "t", "f16", 72, 100, 40, trans_b=1)),
     ""),
    (rms(gm.matmul_case("rms_m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136])),
     "128x128x64x4"),
    (rms(gm.matmul_case("rms_m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136])),
     "128x256x64x3"),
    # BLOCK_K = 128: two 128-byte boxes per A stage.
    (rms(gm.matmul_case("rms_bmm_3x40x200_200x72_bf16", "t", "bf16", [3, 40, 200], [200, 72])),
     "64x64x128x3"),
]


def ln(c, offset):
    """The case with A LayerNormalized over K first, with random scale and bias, and B a
    constant (rule norm-prologue with a mean: the kernel also sums each row of A and
    computes r (A @ B' - mu c) + b', c the column sums of B' = diag(scale) B); A is
    offset + N(0, s^2), s from 0.5 to 2 per row."""
    c["ln"] = offset
    c["name"] = f"ln{offset:g}_" + c["name"]
    return c


# LayerNorm prologue: the configs of the RMS cases (the template's, 128 x 128 over 4 warps,
# a small one) with a Linear's bias; row means 3 and 30 (the cancellation of sum(x^2) / K
# - mu^2 grows with (mu / std)^2: docs/fusion.md).
CASES += [
    (ln(gm.matmul_case("m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136]), 3), ""),
    (ln(gm.matmul_case("bmm_3x40x200_200x72_f16", "t", "f16", [3, 40, 200], [200, 72]), 30),
     "128x128x32x3"),
    (ln(gm.gemm_case("gemm_transB_bias_m72_n100_k40_f16", "t", "f16", 72, 100, 40, trans_b=1,
                     bias=True), 3), "32x16x16x2"),
    (ln(gm.gemm_case("gemm_transB_bias_m72_n100_k40_f16", "t", "f16", 72, 100, 40, trans_b=1,
                     bias=True), 300), "32x16x16x2"),
]
WGMMA_LN = [
    (ln(gm.matmul_case("m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136]), 3), ""),
    (ln(gm.gemm_case("gemm_transB_bias_m72_n100_k40_f16", "t", "f16", 72, 100, 40, trans_b=1,
                     bias=True), 30), ""),
    (ln(gm.matmul_case("m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136]), 30),
     "128x128x64x4"),
    (ln(gm.matmul_case("m200_n136_k72_f16", "t", "f16", [200, 72], [72, 136]), 3),
     "128x256x64x3"),
    (ln(gm.matmul_case("bmm_3x40x200_200x72_f16", "t", "f16", [3, 40, 200], [200, 72]), 300),
     "64x64x128x3"),
]
TOL = {"f16": 1e-3, "bf16": 5e-3}
# --dynamic: a projection of a prompt of run-time length, x [1, seq, K] @ W + b (GPT-2's,
# f16), compiled with --dim seq=1..BOUND; the kernel reads the run's length from the symbol
# values and takes the run's row tiles only, in grouped order over them (wgmma: the
# persistent loop; mma.sync: the CTAs past them exit): (name, K, N, BOUND, RUN). One group of row tiles, two groups (the second
# partial), the run at the bound, a run of one row.
DYNAMIC_GEMMS = [
    ("f16_k64_n256_r130_b600", 64, 256, 600, 130),
    ("f16_k128_n128_r1100_b2000", 128, 128, 2000, 1100),
    ("f16_k64_n128_full_b300", 64, 128, 300, 300),
    ("f16_k64_n128_r1_b300", 64, 128, 300, 1),
    # Shape buckets (--shape-buckets): GPT-2's MLP down projection at a 7-token prompt of
    # 1024 runs its 1..64 bucket's kernel (64-row tiles, split-K partials of the run's row
    # tile only, the sum on the host); the QKV projection at 100 its 65..128 bucket's.
    ("f16_k3072_n768_r7_b1024", 3072, 768, 1024, 7),
    ("f16_k768_n2304_r100_b1024", 768, 2304, 1024, 100),
    # A batch of prompts (x [3, seq, K]: the symbol behind the batch dim): each matrix of the
    # batch (grid z) runs the run's row tiles only.
    ("f16_k64_n256_r70_b300_x3", 64, 256, 300, 70, 3),
    ("f16_k3072_n768_r7_b1024_x2", 3072, 768, 1024, 7, 2),
]


def dynamic_gemm_model(k, n, rng, batch=1):
    """x [batch, 'seq', K] @ W [K, N] + b, f16, W and b seeded constants."""
    from onnx import TensorProto, helper
    w = round_to(rng.standard_normal((k, n)) / math.sqrt(k), "f16")
    b = round_to(rng.standard_normal(n), "f16")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]),
         helper.make_node("Add", ["xw", "b"], ["y"])], "proj",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [batch, "seq", k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [batch, "seq", n])],
        [numpy_helper.from_array(w.astype(np.float16), "w"),
         numpy_helper.from_array(b.astype(np.float16), "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m, w, b


def run_dynamic_gemm(a, name, k, n, bound, run, batch=1):
    """The run's rows match numpy; the row tiles past the run's are never written (x's tail
    rows hold a finite value, so a tile computed there would write numbers, not NaN)."""
    d = os.path.join(a.work, name)
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(0)
    model, w, b = dynamic_gemm_model(k, n, rng, batch)
    path = os.path.join(d, "model.onnx")
    onnx.save(model, path)
    tile = subprocess.run([a.compile, path, "--target=sm_90a" if a.wgmma else "--target=sm_90",
                           f"--dim=seq=1..{bound}", "--emit=tile", "-o", "-"], check=True,
                          capture_output=True, text=True).stdout
    lower = ("-convert-tile-dot-to-wgmma=tma-store=false" if a.wgmma else
             "-convert-tile-dot-to-mma-sync=smem-store=" + a.smem_store)
    ir = subprocess.run([a.opt, "-", lower, "-canonicalize", "-cse", "--mlir-print-op-generic"],
                        input=tile, check=True, capture_output=True, text=True).stdout
    if a.mutate != "bound":
        ir = simt_sim.with_symbol_value(ir, bound, run)
    s = wgmma_sim.WgmmaSim(ir, seed=1) if a.wgmma else simt_sim.Sim(ir)
    # A split-K bucket's sum kernel (no tile.dot, not lowered here) on the host: the slices'
    # sum plus the bias; partial rows never written stay NaN, so the tail check sees them.
    def dynamic_split_k_sum(buffers):
        partials, out = buffers[-2], buffers[-1]
        total = partials.data.reshape(-1, out.data.size).sum(axis=0).reshape(-1, n) + b
        out.data[:] = simt_sim.round_to(total.reshape(-1), out.elem)
        s.written[id(out)][:] = 1
    for kname in list(s.kernels):
        if kname.endswith("_partials") and kname[: -len("_partials")] in s.kernels:
            s.host_kernels[kname[: -len("_partials")]] = dynamic_split_k_sum
    x = np.full((batch, bound, k), 0.5)
    x[:, :run] = round_to(rng.standard_normal((batch, run, k)), "f16")
    out = s.run_main([x], symbols=[run])[0].data.reshape(batch, bound, n)
    ref = x[:, :run] @ w + b
    # The kernels that ran: the run's shape bucket's (tile.symrange), or the one kernel.
    ran = [kk for kname, kk in s.kernels.items()
           if (kname in s.bucket_kernels or not s.bucket_kernels) and kname not in s.host_kernels]
    bm = int(re.search(r"BLOCK_M = (\d+)", " ".join(
        str(simt_sim.prop(kk, "tile.schedule")) for kk in ran)).group(1))
    tail = out[:, -(-run // bm) * bm:]
    if not np.isnan(tail).all():
        raise simt_sim.SimError(f"{int((~np.isnan(tail)).sum())} elements written past the "
                                f"run's row tiles")
    got = out[:, :run]
    if np.isnan(got).any():
        raise simt_sim.SimError(f"{int(np.isnan(got).sum())} output elements not written")
    err = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    ran_names = " ".join(s.bucket_kernels) + " " if s.bucket_kernels else ""
    if not a.wgmma:
        conf = " ".join(str(simt_sim.prop(kk, "tile.mma_sync") or "") for kk in ran)
        return err < TOL["f16"], (f"{ran_names}{conf}: rel err {err:.1e} (tol {TOL['f16']}), "
                                  f"{s.stats.mma} mma.sync")
    conf = " ".join(str(simt_sim.prop(kk, "tile.wgmma") or "") for kk in ran)
    return err < TOL["f16"], (f"{ran_names}{conf}: rel err {err:.1e} (tol {TOL['f16']}), "
                              f"{s.ctas} CTAs")
EPS = 1e-5


def ln_inputs(c, rng):
    """The values of a LayerNorm case: A (offset + N(0, s^2), s per row), B, the scale, the
    bias, then the other inputs, rounded to the case's type."""
    a_shape, b_shape = c["inputs"][0], c["inputs"][1]
    a = rng.standard_normal(a_shape) * np.exp(rng.uniform(np.log(0.5), np.log(2), a_shape[:-1] + [1]))
    a = c["ln"] + a
    b = rng.standard_normal(b_shape) / math.sqrt(c["K"])
    g = 1 + 0.2 * rng.standard_normal(c["K"])
    beta = 0.2 * rng.standard_normal(c["K"])
    rest = [rng.standard_normal(shp) for shp in c["inputs"][2:]]
    return [round_to(x, c["dtype"]) for x in [a, b, g, beta] + rest]


def ln_model(c, vals):
    """gm.model's MatMul / Gemm with A replaced by LayerNormalization(A, scale, bias) and B
    an initializer (vals: ln_inputs)."""
    m = gm.model(c)
    g = m.graph
    np_t = {"f16": np.float16}[c["dtype"]]
    for n in g.node:
        if n.op_type in ("MatMul", "Gemm") and n.input[0] == "A":
            n.input[0] = "A_n"
    kept = [i for i in g.input if i.name != "B"]
    del g.input[:]
    g.input.extend(kept)
    for name, v in (("B", vals[1]), ("ln_scale", vals[2]), ("ln_bias", vals[3])):
        g.initializer.append(numpy_helper.from_array(v.astype(np_t), name))
    old = list(g.node)
    del g.node[:]
    g.node.extend([onnx.helper.make_node("LayerNormalization", ["A", "ln_scale", "ln_bias"],
                                         ["A_n"], axis=-1, epsilon=EPS)] + old)
    return m


def rms_model(c):
    """gm.model's MatMul / Gemm with A replaced by A / sqrt(mean(A^2, -1) + EPS), written as
    exporters do (Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul): graph-recompose makes it a
    scale-free layer_norm {rms}, graph-fuse the GEMM's prologue."""
    m = gm.model(c)
    g = m.graph
    t = gm.DT[c["dtype"]]
    np_t = {"f16": np.float16, "bf16": np.float32}[c["dtype"]]
    for n in g.node:
        if n.op_type in ("MatMul", "Gemm") and n.input[0] == "A":
            n.input[0] = "A_n"
    two = onnx.helper.make_tensor("two", t, [], [2.0]) if c["dtype"] == "f16" else None
    nodes = [onnx.helper.make_node("Mul", ["A", "A"], ["A_sq"]),
             onnx.helper.make_node("ReduceMean", ["A_sq"], ["A_ms"], axes=[-1], keepdims=1),
             onnx.helper.make_node("Add", ["A_ms", "eps"], ["A_ae"]),
             onnx.helper.make_node("Sqrt", ["A_ae"], ["A_rt"]),
             onnx.helper.make_node("Reciprocal", ["A_rt"], ["A_r"]),
             onnx.helper.make_node("Mul", ["A", "A_r"], ["A_n"])]
    g.initializer.append(onnx.helper.make_tensor("eps", t, [], [EPS]))
    old = list(g.node)
    del g.node[:]
    g.node.extend(nodes + old)
    return m


def round_to(x, dt):
    return simt_sim.round_to(x, dt)


def conv_reference(c, xs):
    """ONNX Conv (group 1, square stride / pad / dilation) in float64, NCHW."""
    x, w = xs[0], xs[1]
    n, ch, h, _ = x.shape
    oc, _, k, _ = w.shape
    s, p, d = c["stride"], c["pad"], c["dil"]
    o = c["output"][2]
    xp = np.zeros((n, ch, h + 2 * p, h + 2 * p))
    xp[:, :, p:p + h, p:p + h] = x
    y = np.zeros((n, oc, o, o))
    for kh in range(k):
        for kw in range(k):
            win = xp[:, :, kh * d:kh * d + s * (o - 1) + 1:s, kw * d:kw * d + s * (o - 1) + 1:s]
            y += np.einsum("nchw,mc->nmhw", win, w[:, :, kh, kw])
    if c.get("bias"):
        y = y + xs[2].reshape(1, oc, 1, 1)
    if c.get("relu"):
        y = np.maximum(y, 0)
    return y


def epilogue(c, y, xs):
    if c.get("bias"):
        y = y + xs[2]
    if c.get("gelu"):  # torch.nn.GELU(): x / 2 (1 + erf(x / sqrt 2))
        y = 0.5 * y * (1 + np.vectorize(math.erf)(y / math.sqrt(2)))
    return y


def reference(c, xs):
    if "ln" in c:
        a, g, beta = xs[0], xs[2], xs[3]
        mc = a - a.mean(-1, keepdims=True)
        n = mc / np.sqrt((mc * mc).mean(-1, keepdims=True) + EPS) * g + beta
        xs = [n, xs[1]] + list(xs[4:])
    if c.get("rms"):
        a = xs[0]
        xs = [a / np.sqrt((a * a).mean(-1, keepdims=True) + EPS)] + list(xs[1:])
    if c["kind"] == "conv":
        return conv_reference(c, xs)
    if c["kind"] == "matmul":
        y = np.matmul(xs[0], xs[1])
    else:
        a = xs[0].T if c["transA"] else xs[0]
        b = xs[1].T if c["transB"] else xs[1]
        y = a @ b
    return epilogue(c, y, xs)


def split_k_sum(c, sim, kernel):
    """The second kernel of a split-K group (fused_N_epilogue after fused_N_epilogue_partials,
    buffers: inputs, partials [S * batch, M, N] f32, result) computed on the host: the sum of
    the simulated partials kernel's slices, then the epilogue, rounded to the result type. A
    partial element never written (NaN) stays NaN, so the check still sees it."""
    def run(buffers):
        n_in = len(c["inputs"])
        partials, out = buffers[n_in], buffers[n_in + 1]
        slices = partials.data.size // out.data.size
        total = partials.data.reshape(slices, -1).sum(axis=0)
        xs = [b.data for b in buffers[:n_in]]
        shaped = [x.reshape(shp) for x, shp in zip(xs, c["inputs"])]
        y = epilogue(c, total.reshape(c["output"]), shaped)
        out.data[:] = simt_sim.round_to(np.asarray(y).reshape(-1), out.elem)
        sim.written[id(out)][:] = 1
    return run


def mutate(ir, kind):
    if kind in simt_sim.COMMON_MUTATIONS:
        return simt_sim.mutate(ir, kind)
    if kind in ("staging", "staging-entry"):
        # staging: drops the bar.sync between the staging stores and the copy-out (the
        # kernel's last barrier); staging-entry: the one between the K loop's last ldmatrix
        # and the staging stores (the one before it). One kernel per module here.
        lines = ir.split("\n")
        bars = [i for i, l in enumerate(lines) if '"gpu.barrier"' in l]
        drop = bars[-1] if kind == "staging" else bars[-2]
        return "\n".join(l for i, l in enumerate(lines) if i != drop)
    raise ValueError(kind)


def run_case(a, c, cfg):
    d = os.path.join(a.work, c["name"])
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    rng = np.random.default_rng(0)
    vals = ln_inputs(c, rng) if "ln" in c else None
    onnx.save(ln_model(c, vals) if vals else rms_model(c) if c.get("rms") else gm.model(c),
              path)
    target = "--target=sm_90a" if a.wgmma else "--target=sm_90"
    cmd = [a.compile, path, target, "--conv-layout=nchw", "--emit=tile", "-o", "-"]
    if cfg:
        cmd.append(f"--matmul-config={cfg}")
    tile = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    lower = ("-convert-tile-dot-to-wgmma=tma-store=false" if a.wgmma else
             "-convert-tile-dot-to-mma-sync=smem-store=" + a.smem_store)
    ir = subprocess.run([a.opt, "-", lower, "-canonicalize", "-cse",
                         "--mlir-print-op-generic"], input=tile, check=True,
                        capture_output=True, text=True).stdout
    if a.mutate:
        ir = mutate(ir, a.mutate)
    s = wgmma_sim.WgmmaSim(ir, seed=1) if a.wgmma else simt_sim.Sim(ir)
    if (c.get("rms") or vals) and len(s.kernels) != 1:
        raise simt_sim.SimError(f"the norm is not the GEMM's prologue: {len(s.kernels)} kernels")
    for name in list(s.kernels):
        if name.endswith("_partials") and name[: -len("_partials")] in s.kernels:
            s.host_kernels[name[: -len("_partials")]] = split_k_sum(c, s, name)
    conf = " ".join(str(simt_sim.prop(k, "tile.mma_sync") or "") for n, k in s.kernels.items()
                    if n not in s.host_kernels)
    conf = re.sub(r" : i64", "", conf)
    why = [simt_sim.prop(k, "tile.smem_store_refused") for n, k in s.kernels.items()
           if n not in s.host_kernels]
    conf += "".join(f" (smem_store_refused = {w})" for w in why if w)
    xs = []
    for i, shp in enumerate([] if vals else c["inputs"]):
        x = rng.standard_normal(shp) / (math.sqrt(c["K"]) if i == 1 else 1.0)
        if c.get("rms") and i == 0:  # rows (of A, not transposed) of scales 1 to 1000
            x = x * np.exp(rng.uniform(0, np.log(1000), shp[:-1] + [1]))
        xs.append(round_to(x, c["dtype"]))
    outs = s.run_main([vals[0]] + vals[4:] if vals else xs)
    ref = reference(c, vals or xs)
    out = outs[0].data.reshape(ref.shape)
    if np.isnan(out).any():
        raise simt_sim.SimError(f"{int(np.isnan(out).sum())} output elements not written")
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    if a.wgmma:
        conf = " ".join(str(simt_sim.prop(k, "tile.wgmma") or "") for k in s.kernels.values())
        return err < TOL[c["dtype"]], f"{conf}: rel err {err:.1e} (tol {TOL[c['dtype']]}), {s.ctas} CTAs"
    st = s.stats
    lm = st.ldmatrix_wavefronts / max(1, 4 * st.ldmatrix)
    cp = st.cp_wavefronts * 8 / st.cp_async if st.cp_async else 1.0
    # Staged epilogue: pair stores (one wavefront per warp store of 4-byte pairs, per
    # half-warp of 8-byte f32 pairs) and 16-byte copy-out reads (one per 8-lane phase)
    # conflict-free.
    sp = st.st_pair_wavefronts / st.st_pair_phases if st.st_pair_phases else 1.0
    ld = st.ld_wavefronts / st.ld_phases if st.ld_phases else 1.0
    if a.expect_store and a.expect_store not in conf:
        raise simt_sim.SimError(f"epilogue store is not {a.expect_store}: {conf}")
    ok = err < TOL[c["dtype"]] and lm == 1.0 and cp == 1.0 and sp == 1.0 and ld == 1.0
    return ok, (f"{conf}: rel err {err:.1e} (tol {TOL[c['dtype']]}), shared wavefronts per "
                f"ldmatrix matrix {lm:.2f}, per cp.async phase {cp:.2f}, {st.mma} mma.sync"
                + (f", {st.st_shared} st.shared" if st.st_shared else "")
                + (f", per pair-store phase {sp:.2f}, {st.ld_shared} ld.shared (wavefronts per "
                   f"phase {ld:.2f})" if st.ld_shared else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--compile", required=True)
    p.add_argument("--opt", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--mutate", choices=["wait", "barrier", "trans", "staging", "staging-entry",
                                        "bound"])
    p.add_argument("--smem-store", default="true", choices=["true", "false"],
                   help="convert-tile-dot-to-mma-sync's smem-store option")
    p.add_argument("--expect-store", default="",
                   help="fail a case whose tile.mma_sync epilogue_store is not this "
                        "(e.g. '\"shared\"')")
    p.add_argument("--wgmma", action="store_true",
                   help="compile for sm_90a, lower with convert-tile-dot-to-wgmma "
                        "(tma-store=false: wgmma_sim.py does not simulate TMA stores) and run "
                        "wgmma_sim.py (no shared-memory bank statistics)")
    p.add_argument("--dynamic", action="store_true",
                   help="DYNAMIC_GEMMS, rows of run-time length (sm_90's mma.sync kernels; "
                        "with --wgmma sm_90a's)")
    p.add_argument("filter", nargs="?", default="")
    a = p.parse_args()
    # (label, thunk) per selected case: the label printed, the thunk returning (ok, what).
    if a.dynamic:
        runs = [(c[0], lambda c=c: run_dynamic_gemm(a, *c)) for c in DYNAMIC_GEMMS
                if re.search(a.filter, c[0])]
    else:
        runs = [(f"{c['name']} {cfg or '(template config)'}", lambda c=c, cfg=cfg: run_case(a, c, cfg))
                for c, cfg in (WGMMA_RMS + WGMMA_LN if a.wgmma else CASES)
                if re.search(a.filter, c["name"])]
    passed = failed = 0
    for label, run in runs:
        try:
            ok, what = run()
        except simt_sim.SimError as e:
            ok, what = False, f"simulation error: {e}"
        print(f"{'PASS' if ok else 'FAIL'} {label}: {what}", flush=True)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    if a.mutate:
        return 0 if passed == 0 and failed > 0 else 1
    return 0 if failed == 0 and passed > 0 else 1

if __name__ == "__main__":
    sys.exit(main())
