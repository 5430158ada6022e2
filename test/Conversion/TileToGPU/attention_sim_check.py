"""Numbers of convert-tile-attention-to-mma-sync's FlashAttention kernels without a GPU: each
case is an attention model of test/Tools/Inputs/attention_cases.py (the chain exporters write,
seeded random inputs, the float64 numpy result), compiled by aicc-compile for sm_90 with
--attention=fused to the tile stage, lowered by aicc-opt -convert-tile-attention-to-mma-sync,
and run by the SIMT simulator (simt_sim.py: PTX semantics of cp.async, ldmatrix, mma.sync,
shfl.sync.bfly, ex2; shared-memory races are errors). The output (poisoned with NaN first)
is compared with the float64 result: relative Frobenius error under 2e-3 (f16; P is rounded to
f16 before the second product) or 1e-2 (bf16). Shared-memory accesses must be conflict-free
(one wavefront per ldmatrix matrix and per 8-thread cp.async phase).

--mutate KIND edits the lowered IR the way a broken lowering would (wait: one more cp.async
group in flight; barrier: no bar.sync; trans: ldmatrix.trans flipped; shuffle: the quad
shuffles read the thread's own lane) and expects every case to fail.

--block-m 128 compiles with --attention-block-m=128 (8 warps, 128 query rows per program).

--dynamic runs DYNAMIC_CASES (WGMMA_DYNAMIC_CASES with --wgmma): a sequence of run-time
length (the inputs' rows past the run NaN); --mutate rows drops the block loads' run-time row
count (V's tail rows reach P V), --mutate bound leaves the bound in the symbol values (the
kernel reads the tail as keys), --mutate bucket runs the first shape bucket's kernels
(attentionShapeBuckets: the decode kernel of at most 16 queries) at every value, --mutate
keybound makes the key_bound loop over a program's rows run none (its keys end at 0).

--decode runs DECODE_CASES: at most 32 queries (one or two warps per program) with the keys
split across programs (--attention-kv-splits); the combine kernel after the simulated
partials is computed on the host (attention_combine).

Usage: attention_sim_check.py --compile AICC_COMPILE --opt AICC_OPT --work DIR
         [--mutate wait|barrier|trans|shuffle] [--block-m 64|128] [--decode] [CASE_REGEX]
Prints one line per case, then 'N passed, N failed'; exit 1 when any failed (or, with
--mutate, when any passed).
"""
import argparse, os, re, subprocess, sys, zlib

import numpy as np
import onnx
from onnx import numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "Tools", "Inputs"))
import attention_cases as ac  # noqa: E402
import simt_sim  # noqa: E402
import wgmma_sim  # noqa: E402

# (name, batch, Sq, Skv, D, Dv, dtype, options): ragged query and key blocks; causal over
# three key blocks (diagonal masking and block skipping); causal over a KV cache (5 queries,
# 133 keys); grouped-query heads (K / V broadcast over the query heads); a stored K^T (the
# first product's B by ldmatrix.trans); bf16 with Dv != D; one key block (no key loop: the
# canonicalizer inlines it).
CASES = [
    ("f16_d64_ragged", [1, 2], 77, 77, 64, 64, "f16", {}),
    ("f16_d32_causal", [1, 1], 150, 150, 32, 32, "f16", {"causal": True}),
    ("bf16_d64_causal_kv", [1, 1], 5, 133, 64, 64, "bf16", {"causal": True}),
    ("f16_d32_gqa", [1, 2, 2], 40, 70, 32, 32, "f16", {"gqa": True}),
    ("f16_d16_kt_stored", [2], 70, 96, 16, 16, "f16", {"kt_input": True}),
    ("bf16_d32_dv16", [1], 65, 130, 32, 16, "bf16", {}),
    ("f16_d128_one_block", [1], 64, 64, 128, 128, "f16", {}),
    # torch's multi-head layout: [B, S, H * D] inputs, the head split read in place (column
    # offsets h * D of the [B, S, H * D] matrices), K^T in one transpose (0, 2, 3, 1); the
    # heads merged back ([B, S, H * D]) stored in place.
    ("f16_d32_heads", [2], 70, 70, 32, 32, "f16", {"heads": 3}),
    ("bf16_d16_heads_causal", [1], 90, 90, 16, 16, "bf16",
     {"heads": 2, "causal": True, "merge": True}),
    # One qkv projection read in place (strided views through reshapes and slices,
    # AttentionOperands.h): torch's sequence-first MultiheadAttention (unflatten, select,
    # [S, B * H, D] head split: matrices of S rows with row stride B * 3E) and GPT-2's Split.
    ("f16_d16_qkv_select", [2], 70, 70, 16, 16, "f16", {"qkv": 2}),
    ("bf16_d32_qkv_split_causal", [1], 65, 65, 32, 32, "bf16",
     {"qkv": 2, "split": True, "causal": True}),
    # GQA through HF's repeat_kv expand (4 query heads over 2 kv heads), read in place.
    ("f16_d16_gqa_expand", [1], 70, 70, 16, 16, "f16", {"gqa_expand": (4, 2), "causal": True}),
    # Additive masks read per key block: a padding mask [B, 1, 1, Skv] (one row broadcast
    # over the block), a bias [1, H, Sq, Skv] varying along both axes with some -inf.
    ("f16_d64_mask_add", [2, 2], 77, 140, 64, 64, "f16", {"mask": "add"}),
    ("bf16_d32_mask_bias", [1, 2], 70, 150, 32, 32, "bf16", {"mask": "bias"}),
    ("f16_d32_mask_causal", [2, 1], 100, 160, 32, 32, "f16", {"mask": "add", "causal": True}),
    # Head sizes that are not powers of two (rows of 128 elements in shared memory): 80 with a
    # padding mask, 96 causal, bf16 D 80 with Dv 48.
    ("f16_d80_mask_add", [1, 2], 70, 140, 80, 80, "f16", {"mask": "add"}),
    ("f16_d96_causal", [1, 1], 130, 130, 96, 96, "f16", {"causal": True}),
    ("bf16_d80_dv48", [2], 65, 100, 80, 48, "bf16", {}),
    # Head 256 (Gemma): Q's fragments read from shared memory at each key block, the
    # swizzled chunk offsets past the first 8 chunks as constants; causal, and D != Dv.
    ("f16_d256_causal", [1], 130, 130, 256, 256, "f16", {"causal": True}),
    ("bf16_d256_dv128", [1], 70, 100, 256, 128, "bf16", {}),
    # torch's SDPA bool-mask form (its NaN cleanup): batch element 1's padding mask hides
    # every key, its rows store 0 (zero_undefined_rows).
    ("f16_d32_mask_empty_rows", [2, 2], 70, 140, 32, 32, "f16",
     {"mask": "add", "empty_batches": (1,)}),
]
# Decode (--decode): at most 32 queries take one warp per 16 of them (BLOCK_M 16 or 32),
# the keys split across programs (flash-decoding; "splits": --attention-kv-splits, 0 the
# heuristic's): one query over a ragged KV cache; 16 queries in 3 slices with one of 2
# blocks; a causal KV cache of 200 queries (4 warps) where the first query block's loop over
# the last slice runs no block (its rows store O = 0, lse = -inf) and rows of the middle
# slice see none of its keys; 32 queries (2 warps) in bf16 with Dv != D; the heuristic's
# split of a long cache; grouped-query heads; no split (the result stored directly).
DECODE_CASES = [
    ("f16_d64_q1_split4", [2, 2], 1, 300, 64, 64, "f16", {"splits": 4}),
    ("f16_d32_q16_split3", [1, 2], 16, 330, 32, 32, "f16", {"splits": 3}),
    ("bf16_d32_causal_split3", [1, 1], 200, 330, 32, 32, "bf16", {"splits": 3, "causal": True}),
    ("bf16_d64_dv32_q32_split2", [1], 32, 200, 64, 32, "bf16", {"splits": 2}),
    ("f16_d128_q2_auto", [1, 2], 2, 1100, 128, 128, "f16", {"splits": 0}),
    ("f16_d16_gqa_split2", [1, 2, 2], 4, 270, 16, 16, "f16", {"splits": 2, "gqa": True}),
    ("f16_d64_q8_nosplit", [2], 8, 150, 64, 64, "f16", {"splits": 1}),
    ("f16_d64_q1_mask_split3", [2, 2], 1, 300, 64, 64, "f16", {"splits": 3, "mask": "add"}),
    ("f16_d80_q4_mask_split2", [2, 2], 4, 260, 80, 80, "f16", {"splits": 2, "mask": "add"}),
    ("f16_d256_q1_split2", [1, 2], 1, 200, 256, 256, "f16", {"splits": 2}),
    # The bool-mask form's empty row through the partials and the combine.
    ("f16_d64_q3_mask_empty_split3", [2, 2], 3, 300, 64, 64, "f16",
     {"splits": 3, "mask": "add", "empty_batches": (0,)}),
]
# The sm_90a FlashAttention-3 kernel (--wgmma): head sizes 64 / 128, blocks of 128 x 128:
# several key blocks with a ragged tail, causal inside and across a CTA's two warpgroups, a
# KV cache longer than the queries, one key block (no key loop), Dv != D, grouped-query heads,
# torch's multi-head layout with the merge, a packed qkv projection, HF's repeat_kv.
WGMMA_CASES = [
    ("f16_d64_ragged", [1, 2], 77, 77, 64, 64, "f16", {}),
    ("f16_d64_long", [1, 1], 150, 300, 64, 64, "f16", {}),
    ("f16_d128_causal", [1, 1], 260, 260, 128, 128, "f16", {"causal": True}),
    ("bf16_d64_causal_kv", [1, 1], 130, 400, 64, 64, "bf16", {"causal": True}),
    ("bf16_d128_dv64", [1], 140, 140, 128, 64, "bf16", {}),
    ("f16_d64_dv128", [1], 70, 200, 64, 128, "f16", {}),
    ("f16_d64_gqa", [1, 2, 2], 40, 140, 64, 64, "f16", {"gqa": True}),
    ("f16_d64_heads_causal", [1], 300, 300, 64, 64, "f16",
     {"heads": 2, "causal": True, "merge": True}),
    ("bf16_d64_qkv_split", [1], 130, 130, 64, 64, "bf16", {"qkv": 2, "split": True}),
    ("f16_d64_gqa_expand", [1], 270, 270, 64, 64, "f16", {"gqa_expand": (4, 2),
                                                          "causal": True}),
    ("f16_d64_mask_add", [2, 2], 77, 300, 64, 64, "f16", {"mask": "add"}),
    ("bf16_d128_mask_add", [2, 2], 140, 300, 128, 128, "bf16", {"mask": "add"}),
    ("f16_d64_mask_causal", [2, 1], 200, 260, 64, 64, "f16", {"mask": "add", "causal": True}),
    ("bf16_d128_mask_empty_rows", [2, 2], 140, 300, 128, 128, "bf16",
     {"mask": "add", "empty_batches": (0,)}),
]
# A sequence of run-time length (--dynamic; attention_cases.dynamic_case: ONNX models with
# the dim_param 'seq', compiled with --dim seq=1..BOUND, run at RUN with the inputs' rows
# past it NaN and the symbol values buffer holding RUN). (name, batch, Sq or None for a
# self-attention over 'seq', RUN, D, Dv, dtype, options with the bound). mma.sync (sm_90):
# causal self-attention (the key loop and the masks end at the run's keys, the diagonal stays),
# queries over run-time keys, a run shorter than one key block, the run at the bound, split
# keys whose last slices hold no key of the run (O = 0, lse = -inf there).
DYNAMIC_CASES = [
    ("f16_d64_self_causal_r77", [1, 2], None, 77, 64, 64, "f16", {"bound": 192, "causal": True}),
    ("f16_d32_keys_r70", [2], 40, 70, 32, 32, "f16", {"bound": 200}),
    ("bf16_d64_self_r5", [1], None, 5, 64, 64, "bf16", {"bound": 130}),
    ("f16_d64_self_causal_full", [1], None, 150, 64, 64, "f16", {"bound": 150, "causal": True}),
    ("f16_d64_q1_keys_split3", [2, 2], 1, 90, 64, 64, "f16", {"bound": 300, "splits": 3}),
    ("f16_d64_self_causal_mask_r77", [2, 2], None, 77, 64, 64, "f16",
     {"bound": 192, "causal": True, "mask": True}),
    # Shape buckets (attentionShapeBuckets): a run of at most 16 queries takes the decode
    # kernel (16 query rows of the bound's buffers, keys split) with its combine, 17 the
    # bound's kernel.
    ("f16_d64_self_causal_mask_r12", [1, 2], None, 12, 64, 64, "f16",
     {"bound": 300, "causal": True, "mask": True, "auto_blocks": True}),
    ("f16_d128_self_causal_r16", [1, 2], None, 16, 128, 128, "f16",
     {"bound": 200, "causal": True, "auto_blocks": True}),
    ("bf16_d64_self_r1", [2], None, 1, 64, 64, "bf16", {"bound": 130, "auto_blocks": True}),
    ("f16_d64_self_causal_r17", [1, 1], None, 17, 64, 64, "f16",
     {"bound": 200, "causal": True, "auto_blocks": True}),
    # A prompt over a static cache of 1100 keys (the LLM decoder's form, a mask per query
    # row): the decode bucket splits the keys (the heuristic's slices) at 1 and 9 queries.
    ("f16_d64_cache_r1", [1, 4], None, 1, 64, 64, "f16",
     {"bound": 64, "static_keys": 1100, "mask": True, "auto_blocks": True}),
    ("bf16_d128_cache_r9", [1, 2], None, 9, 128, 128, "bf16",
     {"bound": 64, "static_keys": 1100, "mask": True, "auto_blocks": True}),
    # The static cache's mask from a position input (where(keys <= pos, 0, finfo.min)):
    # graph.attention's key_bound ends each program's keys at its rows' last position + 1
    # (a decode step at 700 of 1100 keys, a 40-token chunk at 300..339 on the bound's
    # kernel, a 12-token chunk at 0..11 on the decode bucket's).
    ("f16_d64_cachepos_r1", [1, 4], None, 1, 64, 64, "f16",
     {"bound": 64, "static_keys": 1100, "positions": 700, "auto_blocks": True}),
    ("f16_d64_cachepos_r40", [1, 2], None, 40, 64, 64, "f16",
     {"bound": 64, "static_keys": 1100, "positions": 300, "auto_blocks": True}),
    ("bf16_d128_cachepos_r12", [1, 2], None, 12, 128, 128, "bf16",
     {"bound": 64, "static_keys": 1100, "positions": 0, "auto_blocks": True}),
    # The same with torch's bool mask (where(keys <= pos, 0, -inf)); i32 positions up to
    # the type's largest (every key visible: the key loop's end must not wrap at + 1).
    ("f16_d64_cachepos_ninf_r40", [1, 2], None, 40, 64, 64, "f16",
     {"bound": 64, "static_keys": 1100, "positions": 300, "mask_value": -np.inf,
      "auto_blocks": True}),
    ("f16_d64_cachepos_i32max_r20", [1, 1], None, 20, 64, 64, "f16",
     {"bound": 64, "static_keys": 300, "positions": 2**31 - 20, "pos_dtype": np.int32,
      "auto_blocks": True}),
]
# sm_90a (--wgmma --dynamic): the last key block's TMA box ends at the run's last key (its
# repeated keys masked), before key 0 for a run shorter than a block (zero fill), a run
# one key past a block, the run at the bound.
WGMMA_DYNAMIC_CASES = [
    ("f16_d64_self_causal_r200", [1, 1], None, 200, 64, 64, "f16", {"bound": 300, "causal": True}),
    ("bf16_d128_keys_r70", [1, 2], 130, 70, 128, 128, "bf16", {"bound": 300}),
    ("f16_d128_self_r129", [1], None, 129, 128, 128, "f16", {"bound": 260}),
    ("f16_d64_self_causal_full", [1], None, 256, 64, 64, "f16", {"bound": 256, "causal": True}),
    ("f16_d64_self_mask_r70", [2, 2], None, 70, 64, 64, "f16", {"bound": 260, "mask": True}),
    ("bf16_d128_self_causal_mask_r200", [2, 1], None, 200, 128, 128, "bf16",
     {"bound": 300, "causal": True, "mask": True}),
    # A prompt over a static cache of 1100 keys, its mask from positions (graph.attention's
    # key_bound_mask): each tile's keys end at its last position + 1 (positions 300..489:
    # 4 key blocks a tile of the 9; 0..129: 1 and 2 of 6; finfo.min and torch's bool mask,
    # -inf).
    ("f16_d64_cachepos_r190", [1, 2], None, 190, 64, 64, "f16",
     {"bound": 256, "static_keys": 1100, "positions": 300}),
    ("bf16_d128_cachepos_ninf_r130", [1, 1], None, 130, 128, 128, "bf16",
     {"bound": 256, "static_keys": 700, "positions": 0, "mask_value": -np.inf}),
]
TOL = {"f16": 2e-3, "bf16": 1e-2}


def load(path):
    t = onnx.load_tensor(path)
    if t.data_type == onnx.TensorProto.BFLOAT16:
        return ac.from_bf16_bits(np.frombuffer(t.raw_data, dtype=np.uint16)).reshape(
            tuple(t.dims)).astype(np.float64)
    return numpy_helper.to_array(t).astype(np.float64)


def mutate(ir, kind):
    # The FlashAttention-3 kernel's: wgwait: every wgmma.wait_group lets one more group stay in
    # flight; mbwait: no mbarrier waits; empty: the producer does not wait for free stages;
    # turn: no bar.arrive (the ping-pong turns are never passed); transb: P V reads V as
    # K-major; qempty: (persistent) the producer does not wait for the Q block to be free.
    if kind == "wgwait":
        return re.sub(r'"nvvm.wgmma.wait.group.sync.aligned"\(\) <\{group = (\d+) : i64\}>',
                      lambda m: f'"nvvm.wgmma.wait.group.sync.aligned"() <{{group = '
                                f'{int(m.group(1)) + 1} : i64}}>', ir)
    if kind == "mbwait":
        return "\n".join(l for l in ir.split("\n") if '"nvvm.mbarrier.try_wait.parity"' not in l)
    if kind == "turn":
        return "\n".join(l for l in ir.split("\n") if '"nvvm.barrier.arrive"' not in l)
    if kind == "empty":
        # The producer's waits for free stages (their parity is the xori of the phase) gone.
        flips = re.findall(r'(%\S+) = "arith.xori"', ir)
        return "\n".join(l for l in ir.split("\n") if not (
            '"nvvm.mbarrier.try_wait.parity"' in l and
            any(re.search(re.escape(f) + r"\b", l) for f in flips)))
    if kind == "qempty":
        # Persistent: the producer's wait for the Q block of the tile before to be released
        # gone (of the waits on an xori parity, the one outside the key loop: least indented).
        flips = re.findall(r'(%\S+) = "arith.xori"', ir)
        lines = ir.split("\n")
        waits = [i for i, l in enumerate(lines) if '"nvvm.mbarrier.try_wait.parity"' in l and
                 any(re.search(re.escape(f) + r"\b", l) for f in flips)]
        depth = min(len(lines[i]) - len(lines[i].lstrip()) for i in waits)
        drop = {i for i in waits if len(lines[i]) - len(lines[i].lstrip()) == depth}
        return "\n".join(l for i, l in enumerate(lines) if i not in drop)
    if kind == "transb":
        return ir.replace("p, 1, 1, 1;", "p, 1, 1, 0;")
    if kind in simt_sim.COMMON_MUTATIONS:
        return simt_sim.mutate(ir, kind)
    if kind == "shuffle":
        # xor 1 / xor 2 -> xor 0: each thread keeps its own partial max and sum.
        out, consts = [], {}
        for l in ir.split("\n"):
            m = re.match(r'\s*(%\S+) = "arith.constant"\(\) <\{value = (\d+) : i32\}>', l)
            if m:
                consts[m.group(1)] = int(m.group(2))
            m = re.match(r'(\s*%\S+ = "gpu.shuffle"\()(%[^,]+), (%[^,]+), (.*)', l)
            if m and consts.get(m.group(3)) in (1, 2):
                l = f'{m.group(1)}{m.group(2)}, %zero_lane, {m.group(4)}'
            out.append(l)
        ir = "\n".join(out)
        # One constant 0 : i32 at the top of every kernel body (the kernels' module follows
        # @main's plan in the text; @main keeps its own).
        k = ir.index('"builtin.module"', ir.index('"builtin.module"') + 1)
        return ir[:k] + re.sub(r'(\^bb0\([^)]*\):\n)', r'\1      %zero_lane = "arith.constant"() <{value = 0 : i32}> : () -> i32\n', ir[k:])
    raise ValueError(kind)


def attention_combine(sim, kernel, zero_rows=False):
    """The second kernel of a split attention (fused_N_attention after its _partials; buffers:
    inputs, the slices' outputs [S * batch, Sq, Dv] f32, their log-sum-exps [S * batch, Sq, 1]
    f32, the result [batch, Sq, Dv]) computed on the host from the simulated partials:
    y = sum_s exp(lse_s - M) O_s / sum_s exp(lse_s - M), M = max_s lse_s, rounded to the
    result's type (the combine kernel itself runs on the cpu target in attention.test). An
    element never written (NaN) stays NaN, so the check sees it. zero_rows (the attention's
    zero_undefined_rows): rows whose denominator is not > 0 are 0."""
    def run(buffers):
        partials, lses, out = buffers[-3], buffers[-2], buffers[-1]
        slices = int(re.search(r"KV_SPLITS = (\d+)", simt_sim.prop(kernel, "tile.schedule"))
                     .group(1))
        rows = lses.data.size // slices
        o = partials.data.reshape(slices, rows, -1)
        lse = lses.data.reshape(slices, rows, 1)
        with np.errstate(all="ignore"):
            m = np.max(lse, axis=0)
            m = np.where(np.isneginf(m), 0.0, m)
            w = np.exp(lse - m)
            y = (w * o).sum(axis=0) / w.sum(axis=0)
            if zero_rows:
                y = np.where(w.sum(axis=0) > 0, y, 0.0)
        # The partials cover the first query rows of each batch matrix (all of them but for
        # a shape bucket's kernels): those rows of the result [batch, Sq, Dv].
        nb = int(re.search(r"grid = \[\d+, (\d+),", simt_sim.prop(kernel, "tile.schedule"))
                 .group(1))
        dv = o.shape[-1]
        sq = out.data.size // (nb * dv)
        view = out.data.reshape(nb, sq, dv)
        view[:, : rows // nb, :] = simt_sim.round_to(y.reshape(nb, rows // nb, dv), out.elem)
        sim.written[id(out)].reshape(nb, sq, dv)[:, : rows // nb, :] = 1
    return run


def run_case(a, name, batch, sq, skv, d, dv, e, opts):
    d_ = os.path.join(a.work, name)
    os.makedirs(d_, exist_ok=True)
    seed = zlib.crc32(name.encode()) % 1000
    opts = dict(opts)
    splits = opts.pop("splits", None)
    auto_blocks = opts.pop("auto_blocks", False)
    positions = opts.get("positions")
    bound = opts.pop("bound", None)
    model = os.path.join(d_, "model.mlir")
    dims = []
    if bound is not None:
        # skv is the run's length; the compiled model's is the bound.
        ac.dynamic_case(d_, "model", batch, sq, skv, d, dv, e, bound, skv,
                        causal=opts.get("causal", False), seed=seed,
                        q_tail=1000.0 if a.wgmma else np.nan, mask=opts.get("mask", False),
                        static_keys=opts.get("static_keys"), positions=opts.get("positions"),
                        mask_value=opts.get("mask_value"),
                        pos_dtype=opts.get("pos_dtype", np.int64))
        model = os.path.join(d_, "model.onnx")
        dims = [f"--dim=seq=1..{bound}"]
    elif "gqa_expand" in opts:
        h, kvh = opts["gqa_expand"]
        ac.gqa_expand_case(d_, "model", batch[0], h, kvh, sq, d, e,
                           causal=opts.get("causal", False), seed=seed)
    elif "qkv" in opts:
        ac.packed_qkv_case(d_, "model", sq, batch[0], opts["qkv"], d, e,
                           causal=opts.get("causal", False), seed=seed,
                           split=opts.get("split", False))
    elif "heads" in opts:
        ac.head_split_case(d_, "model", batch[0], opts["heads"], sq, skv, d, e,
                           causal=opts.get("causal", False), seed=seed,
                           merge=opts.get("merge", False))
    else:
        ac.case(d_, "model", batch, sq, skv, d, dv, e, seed=seed, **opts)
    if a.wgmma:
        tile = subprocess.run([a.compile, model, "--target=sm_90a", *dims,
                               "--attention=fused", "--emit=tile", "-o", "-"], check=True,
                              capture_output=True, text=True).stdout
        wg_opts = (f"intra-warpgroup-overlap={str(a.overlap).lower()} "
                   f"warpgroup-pingpong={str(a.pingpong).lower()}")
        if a.persistent:
            wg_opts += f" persistent=true max-ctas={a.persistent}"
        lower = f"-convert-tile-attention-to-wgmma={wg_opts}"
    else:
        # Decode cases leave BLOCK_M to the template (one warp per 16 queries).
        # (auto_blocks: the template's choice, shape buckets included.)
        flags = ([f"--attention-kv-splits={splits}"] if splits is not None
                 else [] if auto_blocks else [f"--attention-block-m={a.block_m}"])
        tile = subprocess.run([a.compile, model, "--target=sm_90", *dims,
                               "--attention=fused", *flags, "--emit=tile", "-o", "-"],
                              check=True, capture_output=True, text=True).stdout
        lower = "-convert-tile-attention-to-mma-sync"
    if a.mutate == "rows":
        # K's and V's block loads without the run's row count: V's tail rows are read.
        tile = re.sub(r" rows %[\w#]+", "", tile)
    if a.mutate == "keybound":
        # The key_bound loop over the program's rows runs none (every program's keys end
        # at 0).
        tile, n = re.subn(r"(scf\.for %\w+ = (%\w+) to )%\w+( step %c8 iter_args)",
                          r"\1\2\3", tile)
        if not n:
            raise simt_sim.SimError("no key_bound loop to mutate")
    ir = subprocess.run([a.opt, "-", lower, "-canonicalize", "-cse",
                         "--mlir-print-op-generic"], input=tile, check=True,
                        capture_output=True, text=True).stdout
    if bound is not None and a.mutate != "bound":
        ir = simt_sim.with_symbol_value(ir, bound, skv)
    if a.mutate == "bucket":
        # The first shape bucket's kernels run at every value (the others at none).
        ir = re.sub(r"tile.symrange = array<i64: (\d+), (\d+), (\d+)>",
                    lambda m: (f"tile.symrange = array<i64: {m.group(1)}, 1, 2147483647>"
                               if m.group(2) == "1" else
                               f"tile.symrange = array<i64: {m.group(1)}, 0, 0>"), ir)
    elif a.mutate and a.mutate not in ("rows", "bound", "keybound"):
        ir = mutate(ir, a.mutate)
    s = wgmma_sim.WgmmaSim(ir, seed=seed) if a.wgmma else simt_sim.Sim(ir)
    for kname in list(s.kernels):
        if kname.endswith("_partials") and kname[: -len("_partials")] in s.kernels:
            s.host_kernels[kname[: -len("_partials")]] = attention_combine(
                s, s.kernels[kname[: -len("_partials")]],
                zero_rows=bool(opts.get("empty_rows") or opts.get("empty_batches")))
    if positions is not None and any(k.endswith("_elementwise") for k in s.kernels):
        # (graph.attention's key_bound_mask replaces the static cache's mask: no kernel
        # computes it.)
        raise simt_sim.SimError("the position mask is computed by a kernel")
    if splits is not None or auto_blocks:
        # The slices the template chose: KV_SPLITS of the partials kernel (absent: one).
        scheds = " ".join(simt_sim.prop(k, "tile.schedule") for k in s.kernels.values())
        m = re.search(r"KV_SPLITS = (\d+)", scheds)
        warps = re.search(r"num_warps = (\d+)", scheds).group(1)
        split_note = f", {m.group(1) if m else 1} key slices, {warps} warps"
    else:
        split_note = ""
    data = os.path.join(d_, "model")
    n_in = len([f for f in os.listdir(data) if f.startswith("input_")])
    xs = [load(os.path.join(data, f"input_{i}.pb")) for i in range(n_in)]
    ref = load(os.path.join(data, "output_0.pb"))
    # (A bundle over a symbol runs the launches of the run's shape bucket only.)
    outs = s.run_main(xs, symbols=[skv] if bound is not None else None)
    out = outs[0].data.reshape(ref.shape)
    bucket = (f", bucket {','.join(s.bucket_kernels)}" if s.bucket_kernels else "")
    # Queries of run-time length on the FlashAttention-3 kernel: the query tiles (128 rows)
    # past the run's queries never run, so their rows are never written.
    skipped = ""
    if a.wgmma and bound is not None and sq is None and not a.mutate:
        first = -(-skv // 128) * 128
        tail = out[..., first:, :]
        if tail.size and not np.isnan(tail).all():
            raise simt_sim.SimError(f"{int((~np.isnan(tail)).sum())} elements written in the "
                                    f"query tiles past the run's {skv} queries")
        skipped = f", query rows {first}.. not run" if tail.size else ""
    # (A run-time length: the rows past the run, NaN in ref, hold the tail's garbage.)
    valid = ~np.isnan(ref)
    out, ref = out[valid], ref[valid]
    if np.isnan(out).any():
        raise simt_sim.SimError(f"{int(np.isnan(out).sum())} output elements not written")
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    if a.wgmma:
        return err < TOL[e], (f"rel err {err:.1e} (tol {TOL[e]}), {s.ctas} CTAs, "
                              f"{s.tma_loads} TMA loads{skipped}{bucket}")
    st = s.stats
    lm = st.ldmatrix_wavefronts / max(1, 4 * st.ldmatrix)
    cp = st.cp_wavefronts * 8 / st.cp_async if st.cp_async else 1.0
    ok = err < TOL[e] and lm == 1.0 and cp == 1.0
    return ok, (f"rel err {err:.1e} (tol {TOL[e]}), shared wavefronts per ldmatrix matrix "
                f"{lm:.2f}, per cp.async phase {cp:.2f}, {st.mma} mma.sync{split_note}{bucket}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--compile", required=True)
    p.add_argument("--opt", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--mutate", choices=["wait", "barrier", "trans", "shuffle", "wgwait",
                                        "mbwait", "empty", "turn", "transb", "qempty",
                                        "rows", "bound", "bucket", "keybound"])
    p.add_argument("--block-m", default="64", choices=["64", "128"],
                   help="--attention-block-m: 4 or 8 warps per program")
    p.add_argument("--wgmma", action="store_true",
                   help="the sm_90a FlashAttention-3 kernel (convert-tile-attention-to-wgmma) "
                        "on WGMMA_CASES, run by wgmma_sim.py")
    p.add_argument("--overlap", action="store_true",
                   help="--wgmma: intra-warpgroup-overlap=true")
    p.add_argument("--pingpong", action="store_true",
                   help="--wgmma: warpgroup-pingpong=true")
    p.add_argument("--persistent", type=int, default=0, metavar="CTAS",
                   help="--wgmma: persistent=true max-ctas=CTAS (each CTA loops over tiles)")
    p.add_argument("--decode", action="store_true",
                   help="the mma.sync kernel on DECODE_CASES (few queries, split keys)")
    p.add_argument("--dynamic", action="store_true",
                   help="DYNAMIC_CASES (with --wgmma: WGMMA_DYNAMIC_CASES): a sequence of "
                        "run-time length")
    p.add_argument("filter", nargs="?", default="")
    a = p.parse_args()
    passed = failed = 0
    if a.dynamic:
        cases = WGMMA_DYNAMIC_CASES if a.wgmma else DYNAMIC_CASES
    else:
        cases = WGMMA_CASES if a.wgmma else DECODE_CASES if a.decode else CASES
    for c in cases:
        if not re.search(a.filter, c[0]):
            continue
        try:
            ok, what = run_case(a, *c)
        except simt_sim.SimError as ex:
            ok, what = False, f"simulation error: {ex}"
        print(f"{'PASS' if ok else 'FAIL'} {c[0]}: {what}", flush=True)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    if a.mutate:
        return 0 if passed == 0 and failed > 0 else 1
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
