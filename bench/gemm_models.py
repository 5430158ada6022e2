#!/usr/bin/python3
"""Makes the ONNX models of the tensor-core GEMM benchmark and GPU numerics check (issue 6), one
directory per case: OUT/<case>/model.onnx, and OUT/cases.json listing every case's spec in run
order (bench/gemm.py reads it: shapes, dtype, which torch function is the reference).

Every operand is a graph input (no initializers), so the .onnx files stay a few hundred bytes
and bench/gemm.py draws fresh random operands on the GPU machine.

Groups (the group is the name's first part):
  num_*          numerics: small, ragged and aligned shapes, batched broadcast MatMul, Gemm
                 with transA / transB + bias, a small Linear + GELU (f16 and bf16), fp32
                 MatMul (the exact path); num_tc_* the same kinds with ragged M / N / K whose
                 stored rows are 16-byte multiples, so the tensor-core paths (TMA + wgmma,
                 cp.async + mma.sync) take them and must zero-fill the partial blocks;
                 num_tc_f32out_* Cast the f16 / bf16 product to f32 (kernels that store f32:
                 the mma.sync staged epilogue in 4-element chunks)
  mm<N>_*        square MatMul M = N = K in {1024, 2048, 4096, 8192}
  llm_m<M>_n<N>_k<K>_*   A[M,K] @ B[K,N], M in {1, 16, 128, 1024, 8192} x (N, K) of
                 Llama-class projections: (4096,4096), (11008,4096), (4096,11008), (14336,4096)
  linear_gelu_*  nn.Linear + bias + exact GELU at 4096^3 fp16, as torch.onnx exports a 2-D
                 nn.Linear (Gemm transB=1 with the bias as C) followed by torch.nn.GELU() at
                 opset 17 (x * 0.5 * (1 + erf(x / sqrt(2))): Div / Erf / Add / Mul / Mul);
                 linear_gelu_mm_* is the 3-D input form (MatMul by W^T given as [K,N], Add)
  num_conv_*, conv_*  Conv2d (ONNX Conv, NCHW, group 1) as implicit GEMM on the tensor-core
                 paths (issue 6): numerics on ragged / strided / dilated / padded shapes (+ bias,
                 + Relu), the f32 form on tf32 (--allow-tf32), and ResNet-50 layers at batch 32
                 against torch's F.conv2d (cuDNN); `_nhwc` cases are compiled with
                 --conv-layout=nhwc (channels-last implicit GEMM between two transposes).
                 GEMM view: M = N*OH*OW, N = output channels, K = C*KH*KW.
  small_m<M>_n<N>_k<K>_*   nn.Linear (Gemm transB=1 + bias) at the small M of batch-8 MLPs,
                 classifier heads and decode steps (issue 16), each twice: as compiled by
                 default and as `_mv` with --matvec-max-rows=M (graph-matvec: one
                 dot-product reduction kernel instead of the matmul template).
The dtype is the name's last part: f16, bf16 or f32.

Run with Debian's /usr/bin/python3 (python3-onnx) or any python3 with onnx.
Usage: gemm_models.py OUT_DIR [--filter REGEX] (re.search on the case name)
"""
import argparse, json, os, re
import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper

DT = {"f16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16, "f32": TensorProto.FLOAT}
NP = {"f16": np.float16, "f32": np.float32}

SQUARE = (1024, 2048, 4096, 8192)
LLM_M = (1, 16, 128, 1024, 8192)
LLM_NK = ((4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096))
# (M, N, K): a tile-aligned small case, the aligned 4096^3, ragged ones (no dimension a
# multiple of 8 or 16), a square non-power of two, a GEMV, K just past a multiple of 64.
# (M, N, K) of small-M linears: the batch-8 MLPs of bench/models.py (8x256x64, 8x32x256,
# 8x512x256, a 10-class head), a Llama-class decode projection (M = 1, 16), and M = 32 / 64,
# where the matmul template's grid starts to fill the GPU.
# (N, K) of GPT-2 small's linears: qkv, attention projection, MLP up, MLP down.
GPT2_LINEARS = ((2304, 768), (768, 768), (3072, 768), (768, 3072))
GPT2_CONFIGS = ("64x64x64x8", "64x128x64x4", "128x64x64x8")
# Split-K (issue 16): shapes whose tile grid leaves SMs idle, (M, N, K, the heuristic's tile
# config there), each compiled with the default (the heuristic's split_k), with that tile
# and no split (x1), and with SPLIT_K forced to each of SPLITK_FACTORS that K allows.
FILL_SHAPES = [  # (M, N, K, GELU, the config before the 64-row rule)
    (256, 64, 256, True, "128x64x64x8"), (256, 256, 64, False, "128x64x64x8"),
    (256, 768, 256, False, "128x64x64x8"), (256, 256, 256, False, "128x64x64x8"),
    (256, 768, 768, False, "128x64x64x8"), (256, 768, 3072, False, "128x64x64x8x5"),
    (1024, 256, 1024, False, "128x64x64x8x2"),
]
SPLITK_SHAPES = ((256, 768, 3072, "128x64x64x8"), (256, 768, 768, "128x64x64x8"),
                 (1024, 256, 1024, "128x64x64x8"), (256, 256, 1024, "128x64x64x8"),
                 (64, 4096, 4096, "64x64x64x8"), (16, 4096, 4096, "64x64x64x8"),
                 (256, 3072, 768, "128x64x64x8"))
SPLITK_FACTORS = (1, 2, 3, 4, 5, 6, 8)
SMALL = ((8, 256, 64, "f32"), (8, 32, 256, "f32"), (8, 512, 256, "f32"), (8, 10, 512, "f32"),
         (8, 4096, 1024, "f32"), (1, 4096, 4096, "f16"), (8, 4096, 4096, "f16"),
         (16, 11008, 4096, "f16"), (32, 1024, 1024, "f32"), (64, 4096, 4096, "f16"),
         (64, 512, 256, "f32"))
NUMERICS = ((128, 128, 64), (4096, 4096, 4096), (77, 45, 33), (1000, 1000, 1000),
            (1, 4096, 4096), (257, 129, 4100))


def matmul_case(name, group, dt, a, b):
    """A @ B with numpy-style broadcasting of the batch dimensions (ONNX MatMul)."""
    batch = list(np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2])))
    m, k, n = a[-2], a[-1], b[-1]
    return {"name": name, "group": group, "kind": "matmul", "dtype": dt,
            "inputs": [a, b], "output": batch + [m, n], "M": m, "N": n, "K": k,
            "batch": int(np.prod(batch)) if batch else 1}


def gemm_case(name, group, dt, m, n, k, trans_a=0, trans_b=0, bias=False, gelu=False):
    """ONNX Gemm: op(A) @ op(B) (+ C, C of shape [N]) with alpha = beta = 1, then optionally
    the exact GELU; A is [K,M] when trans_a, B is [N,K] when trans_b."""
    a = [k, m] if trans_a else [m, k]
    b = [n, k] if trans_b else [k, n]
    return {"name": name, "group": group, "kind": "gemm", "dtype": dt,
            "inputs": [a, b] + ([[n]] if bias else []), "output": [m, n], "M": m, "N": n,
            "K": k, "batch": 1, "transA": trans_a, "transB": trans_b, "bias": bias,
            "gelu": gelu}


def conv_case(name, group, dt, n, c, hw, oc, k, stride=1, pad=0, dil=1, bias=False,
              relu=False, flags=()):
    """ONNX Conv: X [n, c, hw, hw], W [oc, c, k, k], optional bias B [oc], optional Relu."""
    o = (hw + 2 * pad - dil * (k - 1) - 1) // stride + 1
    return {"name": name, "group": group, "kind": "conv", "dtype": dt,
            "inputs": [[n, c, hw, hw], [oc, c, k, k]] + ([[oc]] if bias else []),
            "output": [n, oc, o, o], "M": n * o * o, "N": oc, "K": c * k * k, "batch": 1,
            "stride": stride, "pad": pad, "dil": dil, "bias": bias, "relu": relu,
            "compile_flags": list(flags)}


# ResNet-50 convolutions at batch 32: (C, H=W, OC, kernel, stride, pad).
RESNET = ((64, 56, 64, 3, 1, 1), (256, 56, 64, 1, 1, 0), (128, 28, 128, 3, 1, 1),
          (256, 14, 256, 3, 1, 1), (512, 7, 512, 3, 1, 1), (64, 56, 256, 1, 1, 0))


def conv_cases():
    out = []
    nhwc = ["--conv-layout=nhwc"]
    for dt in ("f16", "bf16"):
        out.append(conv_case(f"num_conv_n2_c16_h15_oc24_k3_p1_{dt}", "num", dt, 2, 16, 15, 24, 3,
                             pad=1, bias=True))
        out.append(conv_case(f"num_conv_n3_c8_h17_oc40_k3_s2_p1_d2_relu_{dt}", "num", dt, 3, 8, 17,
                             40, 3, stride=2, pad=1, dil=2, relu=True))
        out.append(conv_case(f"num_conv_n2_c64_h14_oc136_k1_{dt}", "num", dt, 2, 64, 14, 136, 1))
        out.append(conv_case(f"num_conv_n2_c3_h33_oc64_k7_s2_p3_{dt}", "num", dt, 2, 3, 33, 64, 7,
                             stride=2, pad=3, bias=True))
        # NCHW with 12 x 12 = 144 output pixels: 128-row tiles start at varying pixels and
        # straddle images (one transposed block store per image, the later ones at negative
        # pixel columns: register stores on sm_90a, TMA faults there), 72 channels are ragged
        # against BLOCK_N, Relu.
        out.append(conv_case(f"num_conv_n5_c16_h12_oc72_k3_p1_relu_{dt}", "num", dt, 5, 16, 12, 72,
                             3, pad=1, bias=True, relu=True))
        # The same on the cooperative schedule (two warpgroups of 64 rows, BLOCK_N = 256).
        out.append(conv_case(f"num_conv_n5_c16_h12_oc200_k3_p1_coop_{dt}", "num", dt, 5, 16, 12,
                             200, 3, pad=1, bias=True, flags=["--matmul-config=128x256x64x3"]))
        # NCHW with 40 x 40 = 1600 pixels (3200 bytes): on sm_90a every tile stays within one
        # image (13 tiles of 128 per image, the last one a quarter inside it) and is
        # TMA-stored (BLOCK_N >= 128: forced for the ping-pong case); ping-pong and
        # cooperative.
        out.append(conv_case(f"num_conv_n2_c16_h40_oc72_k3_p1_relu_{dt}", "num", dt, 2, 16, 40, 72,
                             3, pad=1, bias=True, relu=True,
                             flags=["--matmul-config=128x128x64x4"]))
        out.append(conv_case(f"num_conv_n2_c16_h40_oc200_k3_p1_coop_{dt}", "num", dt, 2, 16, 40,
                             200, 3, pad=1, bias=True, flags=["--matmul-config=128x256x64x3"]))
        out.append(conv_case(f"num_conv_n2_c64_h15_oc72_k3_p1_nhwc_{dt}", "num", dt, 2, 64, 15, 72,
                             3, pad=1, bias=True, flags=nhwc))
        out.append(conv_case(f"num_conv_n2_c16_h15_oc24_k3_s2_p1_nhwc_{dt}", "num", dt, 2, 16, 15,
                             24, 3, stride=2, pad=1, relu=True, flags=nhwc))
    cf = conv_case("num_conv_n2_c16_h15_oc24_k3_p1_tf32_f32", "num", "f32", 2, 16, 15, 24, 3,
                   pad=1, bias=True, flags=["--allow-tf32"])
    cf["tol"] = 2e-3
    out.append(cf)
    # The same straddling NCHW tiles with f32 outputs (one consumer warpgroup of 64 rows).
    cf = conv_case("num_conv_n5_c16_h12_oc72_k3_p1_relu_tf32_f32", "num", "f32", 5, 16, 12, 72, 3,
                   pad=1, bias=True, relu=True,
                   flags=["--allow-tf32", "--matmul-config=64x64x32x4"])
    cf["tol"] = 2e-3
    out.append(cf)
    # Per-image tiles with f32 outputs: TMA boxes of 32 pixels, 25 tiles of 64 per image
    # (BLOCK_N 128: per-image tiles are for BLOCK_N >= 128).
    cf = conv_case("num_conv_n2_c16_h40_oc72_k3_p1_relu_tf32_f32", "num", "f32", 2, 16, 40, 72, 3,
                   pad=1, bias=True, relu=True,
                   flags=["--allow-tf32", "--matmul-config=64x128x32x4"])
    cf["tol"] = 2e-3
    out.append(cf)
    # More per-image NCHW tiles through TMA (BLOCK_N >= 128 forced, <= 1/16 padding): 32 x 32
    # (no padding, 8 tiles per image, ragged 136 channels), stride 2 (64 -> 32 x 32), 1x1 over
    # 56 x 56 (25 tiles, the last a half), 16 x 16 (two tiles per image, five images), and the
    # cooperative schedule over 56 x 56.
    for dt in ("f16", "bf16"):
        cfg = ["--matmul-config=128x128x64x4"]
        out.append(conv_case(f"num_conv_n3_c8_h32_oc136_k3_p1_relu_{dt}", "num", dt, 3, 8, 32,
                             136, 3, pad=1, bias=True, relu=True, flags=cfg))
        out.append(conv_case(f"num_conv_n2_c16_h64_oc130_k3_s2_p1_{dt}", "num", dt, 2, 16, 64,
                             130, 3, stride=2, pad=1, bias=True, flags=cfg))
        out.append(conv_case(f"num_conv_n2_c32_h56_oc144_k1_{dt}", "num", dt, 2, 32, 56, 144, 1,
                             flags=cfg))
        out.append(conv_case(f"num_conv_n5_c16_h16_oc128_k3_p1_{dt}", "num", dt, 5, 16, 16, 128,
                             3, pad=1, flags=cfg))
        out.append(conv_case(f"num_conv_n2_c24_h56_oc264_k3_p1_coop_{dt}", "num", dt, 2, 24, 56,
                             264, 3, pad=1, bias=True, flags=["--matmul-config=128x256x64x3"]))
    for c, hw, oc, k, st, pd in RESNET:
        base = f"conv_n32_c{c}_h{hw}_oc{oc}_k{k}"
        out.append(conv_case(base + "_f16", "conv", "f16", 32, c, hw, oc, k, st, pd))
        out.append(conv_case(base + "_nhwc_f16", "conv", "f16", 32, c, hw, oc, k, st, pd,
                             flags=nhwc))
    return out


def cases():
    """Every case, in the order bench/gemm.py runs them (numerics first, the big ones last)."""
    out = []
    for dt in ("f16", "bf16"):
        for m, n, k in NUMERICS:
            out.append(matmul_case(f"num_m{m}_n{n}_k{k}_{dt}", "num", dt, [m, k], [k, n]))
        out.append(matmul_case(f"num_bmm_4x1x257x129_3x129x65_{dt}", "num", dt,
                               [4, 1, 257, 129], [3, 129, 65]))
        # The same broadcast on the TMA path (rows are 16-byte multiples), ragged M.
        out.append(matmul_case(f"num_bmm_4x1x200x128_3x128x192_{dt}", "num", dt,
                               [4, 1, 200, 128], [3, 128, 192]))
        # A batch of A matrices against one shared B (B broadcast over the batch).
        out.append(matmul_case(f"num_bmm_6x130x64_64x72_{dt}", "num", dt, [6, 130, 64], [64, 72]))
        out.append(gemm_case(f"num_gemm_transA_m257_n129_k1000_{dt}", "num", dt, 257, 129,
                             1000, trans_a=1))
        out.append(gemm_case(f"num_gemm_transB_bias_m257_n1000_k129_{dt}", "num", dt, 257,
                             1000, 129, trans_b=1, bias=True))
        out.append(gemm_case(f"num_linear_gelu_m257_n129_k100_{dt}", "num", dt, 257, 129, 100,
                             trans_b=1, bias=True, gelu=True))
        # Tensor-core ragged: no dim a multiple of 32, every contiguous dim of 8 elements.
        out.append(matmul_case(f"num_tc_m200_n136_k72_{dt}", "num", dt, [200, 72], [72, 136]))
        out.append(matmul_case(f"num_tc_bmm_3x1x200x136_2x136x72_{dt}", "num", dt,
                               [3, 1, 200, 136], [2, 136, 72]))
        out.append(gemm_case(f"num_tc_gemm_transA_m264_n136_k1000_{dt}", "num", dt, 264, 136,
                             1000, trans_a=1))
        out.append(gemm_case(f"num_tc_gemm_transB_bias_m264_n1000_k136_{dt}", "num", dt, 264,
                             1000, 136, trans_b=1, bias=True))
        out.append(gemm_case(f"num_tc_gemm_transAB_m72_n136_k56_{dt}", "num", dt, 72, 136, 56,
                             trans_a=1, trans_b=1))
        out.append(gemm_case(f"num_tc_linear_gelu_m264_n136_k104_{dt}", "num", dt, 264, 136,
                             104, trans_b=1, bias=True, gelu=True))
        # f32 outputs (Cast after the product): the mma.sync staged epilogue in 4-element
        # chunks; N = 1004 rows are 16-byte multiples in f32 only.
        c = matmul_case(f"num_tc_f32out_m200_n136_k72_{dt}", "num", dt, [200, 72], [72, 136])
        c["out_dtype"] = "f32"
        out.append(c)
        c = gemm_case(f"num_tc_f32out_gemm_transB_bias_m264_n1004_k136_{dt}", "num", dt, 264,
                      1004, 136, trans_b=1, bias=True)
        c["out_dtype"] = "f32"
        out.append(c)
    for m, n, k in ((77, 45, 33), (1000, 1000, 1000), (257, 129, 4100)):
        out.append(matmul_case(f"num_m{m}_n{n}_k{k}_f32", "num", "f32", [m, k], [k, n]))
    # f32 on tf32 tensor cores, asked for with aicc-compile --allow-tf32 (nn.Linear layout:
    # wgmma's tf32 needs both operands K-major); tolerance of tf32 (10-bit mantissa).
    for m, n, k in ((1000, 1024, 512), (4096, 4096, 4096)):
        c = gemm_case(f"num_tf32_linear_m{m}_n{n}_k{k}_f32", "num", "f32", m, n, k,
                      trans_b=1, bias=True)
        c["compile_flags"] = ["--allow-tf32"]
        c["tol"] = 2e-3
        out.append(c)
    # The f32-output epilogue A/B: the tf32 kernel above stores from registers (8 stages)
    # instead of through the staging buffers and TMA (6 stages).
    c = gemm_case("num_tf32_linear_regstore_m4096_n4096_k4096_f32", "num", "f32", 4096, 4096,
                  4096, trans_b=1, bias=True)
    c["compile_flags"] = ["--allow-tf32", "--wgmma-tma-store=false", "--mma-smem-store=false"]
    c["tol"] = 2e-3
    out.append(c)
    # Ragged shapes the heuristic gives cooperative 128 x 256 tiles (plain epilogues, enough
    # tiles): TMA clips the last row and column of tiles; bias; a batched MatMul.
    for dt in ("f16", "bf16"):
        out.append(gemm_case(f"num_coop_gemm_transB_bias_m4000_n4000_k1000_{dt}", "num", dt,
                             4000, 4000, 1000, trans_b=1, bias=True))
        out.append(matmul_case(f"num_coop_bmm_3x1900x1000_1000x1904_{dt}", "num", dt,
                               [3, 1900, 1000], [1000, 1904]))
    out += conv_cases()
    for m, n, k, dt in SMALL:
        name = f"small_m{m}_n{n}_k{k}_{dt}"
        out.append(gemm_case(name, "small", dt, m, n, k, trans_b=1, bias=True))
        c = gemm_case(name + "_mv", "small", dt, m, n, k, trans_b=1, bias=True)
        c["compile_flags"] = [f"--matvec-max-rows={m}"]
        out.append(c)
    # GPT-2's linears at 2 x 128 tokens (bench/models.py gpt2_2l_f16): M = 256 rows give the
    # default 128-row tiles 24-96 programs on 132 SMs; each also with smaller tile configs.
    for n, k in GPT2_LINEARS:
        name = f"gpt2_m256_n{n}_k{k}_f16"
        out.append(gemm_case(name, "gpt2", "f16", 256, n, k, trans_b=1, bias=True))
        for cfg in GPT2_CONFIGS:
            c = gemm_case(f"{name}_c{cfg}", "gpt2", "f16", 256, n, k, trans_b=1, bias=True)
            c["compile_flags"] = [f"--matmul-config={cfg}"]
            out.append(c)
    # Under-filled grids (chooseMatmulConfig's 64-row rule): the linears of bert2_d256_f16
    # (d 256, FFN 64, GELU), gpt2_2l_f16 and llama_layer_f16's k / v projections, each with
    # the heuristic's config and with the config it chose before the rule (128-row tiles, the
    # split-K that chooseSplitK gave them) as "_c128".
    for m, n, k, gelu, old in FILL_SHAPES:
        name = f"fill_m{m}_n{n}_k{k}{'_gelu' if gelu else ''}_f16"
        out.append(gemm_case(name, "fill", "f16", m, n, k, trans_b=1, bias=True, gelu=gelu))
        c = gemm_case(name + "_c128", "fill", "f16", m, n, k, trans_b=1, bias=True, gelu=gelu)
        c["compile_flags"] = [f"--matmul-config={old}"]
        out.append(c)
    for m, n, k, tile in SPLITK_SHAPES:
        name = f"splitk_m{m}_n{n}_k{k}_f16"
        out.append(gemm_case(name, "splitk", "f16", m, n, k, trans_b=1, bias=True))
        for s in SPLITK_FACTORS:
            if s > k // 64:
                continue
            c = gemm_case(f"{name}_s{s}", "splitk", "f16", m, n, k, trans_b=1, bias=True)
            c["compile_flags"] = [f"--matmul-config={tile}x{s}"]
            out.append(c)
    out.append(gemm_case("linear_gelu_4096_f16", "linear_gelu", "f16", 4096, 4096, 4096,
                         trans_b=1, bias=True, gelu=True))
    mm = matmul_case("linear_gelu_mm_4096_f16", "linear_gelu", "f16", [4096, 4096],
                     [4096, 4096])
    mm.update(inputs=[[4096, 4096], [4096, 4096], [4096]], bias=True, gelu=True)
    out.append(mm)
    c = gemm_case("linear_gelu_regstore_4096_f16", "linear_gelu", "f16", 4096, 4096, 4096,
                  trans_b=1, bias=True, gelu=True)
    c["compile_flags"] = ["--wgmma-tma-store=false"]
    out.append(c)
    for dt in ("f16", "bf16"):
        for s in SQUARE:
            out.append(matmul_case(f"mm{s}_{dt}", "square", dt, [s, s], [s, s]))
    # 4096 x 4096 with K = 3072 and 5120 (48 and 80 k blocks of 64): for stage-count A/B runs
    # (scripts/bench-variants.sh): whether ping-pong's 3- / 5-stage slowdown at K = 4096 (64 k
    # blocks) follows from the stage count dividing the k-block count.
    for k in (3072, 5120):
        out.append(matmul_case(f"mm4096_k{k}_f16", "square", "f16", [4096, k], [k, 4096]))
    # The epilogue A/B: registers -> global (no shared-memory staging: no TMA store on
    # sm_90a, no staged 16-byte stores on sm_80 / sm_90) on the 4096^3 cases.
    for dt in ("f16", "bf16"):
        c = matmul_case(f"mm4096_regstore_{dt}", "square", dt, [4096, 4096], [4096, 4096])
        c["compile_flags"] = ["--wgmma-tma-store=false", "--mma-smem-store=false"]
        out.append(c)
    for dt in ("f16", "bf16"):
        for m in LLM_M:
            for n, k in LLM_NK:
                out.append(matmul_case(f"llm_m{m}_n{n}_k{k}_{dt}", "llm", dt, [m, k], [k, n]))
    for c in out:
        c["flops"] = 2 * c["batch"] * c["M"] * c["N"] * c["K"]
    return out


def gelu_nodes(x, y, dt):
    """torch.nn.GELU() as torch.onnx exports it at opset 17 (before opset 20's Gelu op):
    y = (x * (1 + erf(x / sqrt(2)))) * 0.5, constants in the tensor's dtype."""
    consts = {"sqrt2": 1.4142135381698608, "one": 1.0, "half": 0.5}
    nodes = [h.make_node("Constant", [], [f"gelu_{k}"],
                         value=h.make_tensor(f"gelu_{k}_value", DT[dt], [], [v]))
             for k, v in consts.items()]
    nodes += [h.make_node("Div", [x, "gelu_sqrt2"], ["gelu_div"]),
              h.make_node("Erf", ["gelu_div"], ["gelu_erf"]),
              h.make_node("Add", ["gelu_erf", "gelu_one"], ["gelu_add"]),
              h.make_node("Mul", [x, "gelu_add"], ["gelu_mul"]),
              h.make_node("Mul", ["gelu_mul", "gelu_half"], [y])]
    return nodes


def model(c):
    t = DT[c["dtype"]]
    names = ["A", "B", "C"][:len(c["inputs"])]
    ins = [h.make_tensor_value_info(n, t, s) for n, s in zip(names, c["inputs"])]
    # out_dtype: the result is Cast to that type (f16 MatMul -> Cast(float), as mixed-precision
    # exports write an f32 output), a kernel that stores f32.
    out_dt = c.get("out_dtype", c["dtype"])
    y = "Y" if out_dt == c["dtype"] else "Y_" + c["dtype"]
    mid = "mm" if c.get("gelu") or (c["kind"] == "matmul" and c.get("bias")) else y
    if c["kind"] == "conv":
        mid = "conv" if c.get("relu") else y
        nodes = [h.make_node("Conv", names, [mid], strides=[c["stride"]] * 2,
                             pads=[c["pad"]] * 4, dilations=[c["dil"]] * 2)]
        if c.get("relu"):
            nodes.append(h.make_node("Relu", [mid], [y]))
    elif c["kind"] == "matmul":
        nodes = [h.make_node("MatMul", ["A", "B"], [mid])]
        if c.get("bias"):
            nodes.append(h.make_node("Add", [mid, "C"], ["biased"]))
            mid = "biased"
    else:
        attrs = {k: 1 for k in ("transA", "transB") if c[k]}
        nodes = [h.make_node("Gemm", names, [mid], **attrs)]
    if c.get("gelu"):
        nodes += gelu_nodes(mid, y, c["dtype"])
    if y != "Y":
        nodes.append(h.make_node("Cast", [y], ["Y"], to=DT[out_dt]))
    out = [h.make_tensor_value_info("Y", DT[out_dt], c["output"])]
    g = h.make_graph(nodes, c["name"], ins, out)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--filter", default="", help="only cases whose name matches (re.search)")
    a = p.parse_args()
    sel = [c for c in cases() if re.search(a.filter, c["name"])]
    for c in sel:
        os.makedirs(os.path.join(a.out, c["name"]), exist_ok=True)
        onnx.save(model(c), os.path.join(a.out, c["name"], "model.onnx"))
    with open(os.path.join(a.out, "cases.json"), "w") as f:
        json.dump(sel, f, indent=1)
    print(f"{len(sel)} case(s) in {a.out}")


if __name__ == "__main__":
    main()
