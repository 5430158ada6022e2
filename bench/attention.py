# aicc-deps: gpu-machine (torch 2.11 + triton there; scripts/bench-attention.sh makes its inputs here)
"""GPU side of the attention benchmark (issue 17). Runs on the GPU machine from the repo root
after scripts/bench-attention.sh made .device/attn/<case>/{fused,unfused}.aicc (the cases of
bench/attention_models.py). Per case it makes seeded random q, k, v [B, H, S, D] with torch,
runs aicc's bundles (KINDS below: fused = the default, on sm_90a the FlashAttention-3 wgmma
kernel with the intra-warpgroup overlap and the warpgroup ping-pong since 2026-12-05; plain /
ovl / pp = the same with neither / only the overlap / only the ping-pong (noovl, ovlpp:
earlier bundle names); persist = fused with --attention-persistent (one CTA per SM looping
over the query-block tiles; nopersist: with --attention-persistent=false); mma128 / mma64 = the mma.sync
FlashAttention-2 kernel with BLOCK_M 128 / 64; unfused = four kernels) through aicc-run (--benchmark: CUDA events around N back-to-back runs
of the launch plan, mean ms/run), checks the fused bundle's output against
torch.nn.functional.scaled_dot_product_attention on the same inputs (cases up to
AICC_ATTN_CHECK_MAX_S keys; larger ones are timed on aicc-run's own inputs), and times SDPA
with triton.testing.do_bench medians in the same run.
TFLOP/s = 4 B H S^2 D / time, halved for causal (FlashAttention's count; _mask cases count
the masked keys too). _mask cases pass the padding mask to both (SDPA's attn_mask).
Decode cases (attention_models.parse_decode: Q queries of H heads over an S-position cache of
HKV heads) compare with SDPA's enable_gqa on q [B, H, Q, D], k, v [B, HKV, S, D] (aicc's
bundle takes the same memory as [B, HKV, H / HKV, Q, D] and [B, HKV, 1, S, D]); kinds fused
(the key split the heuristic picks) and nosplit (--attention-kv-splits=1); besides TFLOP/s
(4 B H Q S D) they report the bytes K, V, q and the output move, GB/s and the fraction of the
HBM bandwidth HBM_TBPS (4.8, the H200's; the chip table's hbmTBps).
Writes $OUT/attention.json and prints a markdown table.
usage: python3 bench/attention.py [CASE...]
"""
import json, os, re, subprocess, sys, tempfile, time
import numpy as np
import torch, torch.nn.functional as F
from onnx import numpy_helper
import onnx
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from attention_models import parse, parse_decode  # noqa: E402

root = os.getcwd()
dev = "cuda"
ITERS = int(os.environ.get("AICC_BENCH_ITERS", "50"))
CHECK_MAX_S = int(os.environ.get("AICC_ATTN_CHECK_MAX_S", "4096"))
only = sys.argv[1:]
KINDS = ("fused", "persist", "nopersist", "plain", "noovl", "ovl", "pp", "ovlpp", "mma128", "mma64", "nosplit",
         "unfused")
HBM_TBPS = float(os.environ.get("AICC_HBM_TBPS", "4.8"))


def med(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def run_aicc(bundle, inputs, tmp):
    """(ms/run, output or None, log). With `inputs` they are written as .pb files and the
    output is read back; without, aicc-run times its own inputs."""
    args = []
    for i, x in enumerate(inputs or []):
        p = os.path.join(tmp, f"input_{i}.pb")
        a = x.cpu()
        if a.dtype == torch.bfloat16:
            t = onnx.helper.make_tensor(f"input_{i}", onnx.TensorProto.BFLOAT16, list(a.shape),
                                        a.view(torch.int16).numpy().tobytes(), raw=True)
        else:
            t = numpy_helper.from_array(a.numpy(), f"input_{i}")
        with open(p, "wb") as f:
            f.write(t.SerializeToString())
        args += ["--input", p]
    od = os.path.join(tmp, "out")
    cmd = [os.path.join(root, ".device/bin/aicc-run"), bundle, "--device=cuda", *args,
           *(["--output-dir", od] if inputs else []), "--benchmark", str(ITERS)]
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(root, ".device/lib"))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return None, None, (r.stdout + r.stderr)[-2000:]
    ms = float(re.search(r"([0-9.]+) ms/run", r.stdout).group(1))
    if not inputs:
        return ms, None, r.stdout[-500:]
    out = onnx.load_tensor(os.path.join(od, "output_0.pb"))
    if out.data_type == onnx.TensorProto.BFLOAT16:
        raw = np.frombuffer(out.raw_data, dtype=np.uint16).astype(np.uint32) << 16
        arr = raw.view(np.float32).reshape(tuple(out.dims))
    else:
        arr = numpy_helper.to_array(out).astype(np.float32)
    return ms, arr, r.stdout[-500:]


def main():
    res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "iters": ITERS,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cases": {}}
    base = os.path.join(root, ".device/attn")
    for name in sorted(os.listdir(base)):
        if only and name not in only:
            continue
        dec = parse_decode(name)
        g = torch.Generator(device=dev).manual_seed(0)
        if dec:
            e, b, h, hkv, nq, s, d = dec
            t = torch.float16 if e == "f16" else torch.bfloat16
            q = torch.randn(b, h, nq, d, device=dev, generator=g).to(t)
            k, v = (torch.randn(b, hkv, s, d, device=dev, generator=g).to(t) for _ in range(2))
            causal = False
            flops = 4 * b * h * nq * s * d
            nbytes = 2 * (2 * b * hkv * s * d + 2 * b * h * nq * d)
            sdpa = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
            feeds = [q.view(b, hkv, h // hkv, nq, d), k.view(b, hkv, 1, s, d),
                     v.view(b, hkv, 1, s, d)]
        else:
            e, b, h, s, d, causal, masked = parse(name)
            t = torch.float16 if e == "f16" else torch.bfloat16
            q, k, v = (torch.randn(b, h, s, d, device=dev, generator=g).to(t) for _ in range(3))
            flops = 4 * b * h * s * s * d / (2 if causal else 1)
            nbytes = None
            feeds = [q, k, v]
            mask = None
            if masked:
                # A padding mask: sequence i of the batch has s - 128 i valid positions
                # (0 there, -inf after), as BERT's / HF's attention_mask becomes.
                valid = torch.tensor([max(1, s - 128 * i) for i in range(b)], device=dev)
                pos = torch.arange(s, device=dev)
                mask = torch.where(pos[None, :] < valid[:, None], 0.0, float("-inf"))
                mask = mask.to(t).view(b, 1, 1, s)
                feeds.append(mask)
            sdpa = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                          is_causal=causal)
        r = {"flops": flops}
        if nbytes:
            r["bytes"] = nbytes
        with torch.no_grad():
            ref = sdpa()
            r["sdpa_ms"] = med(sdpa)
        r["sdpa_TFLOPs"] = flops / r["sdpa_ms"] / 1e9
        if nbytes:
            r["sdpa_GBps"] = nbytes / r["sdpa_ms"] / 1e6
            r["sdpa_hbm_frac"] = r["sdpa_GBps"] / (HBM_TBPS * 1e3)
        check = s <= CHECK_MAX_S or dec
        for kind in KINDS:
            bundle = os.path.join(base, name, kind + ".aicc")
            if not os.path.exists(bundle):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                ms, out, log = run_aicc(bundle, feeds if check and kind != "unfused" else None,
                                        tmp)
            if ms is None:
                r[kind + "_error"] = log
                print(f"{name} {kind}: aicc-run failed:\n{log}", flush=True)
                continue
            r[kind + "_ms"] = ms
            r[kind + "_TFLOPs"] = flops / ms / 1e9
            r[kind + "_vs_sdpa"] = r["sdpa_ms"] / ms
            if nbytes:
                r[kind + "_GBps"] = nbytes / ms / 1e6
                r[kind + "_hbm_frac"] = r[kind + "_GBps"] / (HBM_TBPS * 1e3)
            if out is not None:
                got = torch.from_numpy(out).to(dev).reshape(ref.shape)
                want = ref.float()
                err = (got - want).abs()
                atol, rtol = (4e-3, 1e-2) if e == "f16" else (2e-2, 2e-2)
                ok = bool((err <= atol + rtol * want.abs()).all())
                r["max_abs_err"] = max(r.get("max_abs_err", 0.0), float(err.max()))
                r["correct"] = r.get("correct", True) and ok
                r[kind + "_correct"] = ok
        res["cases"][name] = r
        print(name, json.dumps(r), flush=True)
        del q, k, v, ref, feeds
        torch.cuda.empty_cache()
    out = os.environ.get("OUT", "/tmp")
    json.dump(res, open(os.path.join(out, "attention.json"), "w"), indent=1)
    print(f"\n{res['gpu']}, torch {res['torch']}, {res['date']}, aicc-run --benchmark {ITERS}")
    kinds = [k for k in KINDS if any(k + "_ms" in r for r in res["cases"].values())]
    print("| case | SDPA ms | SDPA TFLOP/s | " +
          " | ".join(f"{k} ms (TFLOP/s, x SDPA)" for k in kinds) + " | max abs err | correct |")
    print("|---|---|---|" + "---|" * len(kinds) + "---|---|")
    for name, r in res["cases"].items():
        f = lambda key, fmt: (fmt % r[key]) if key in r else "-"
        cells = [f"{r[k + '_ms']:.4f} ({r[k + '_TFLOPs']:.0f}, {r[k + '_vs_sdpa']:.2f}x)"
                 if k + "_ms" in r else "-" for k in kinds]
        print(f"| {name} | {f('sdpa_ms', '%.4f')} | {f('sdpa_TFLOPs', '%.0f')} | " +
              " | ".join(cells) + f" | {f('max_abs_err', '%.2g')} | {r.get('correct', 'not checked')} |")

    dec = {n: r for n, r in res["cases"].items() if "bytes" in r}
    if dec:
        print(f"\nDecode: GB/s and fraction of {HBM_TBPS} TB/s (K, V, q and the output)")
        print("| case | SDPA GB/s | " + " | ".join(f"{k} GB/s (x HBM, x SDPA)" for k in kinds) + " |")
        print("|---|---|" + "---|" * len(kinds))
        for name, r in dec.items():
            cells = [f"{r[k + '_GBps']:.0f} ({r[k + '_hbm_frac']:.2f}, {r[k + '_vs_sdpa']:.2f}x)"
                     if k + "_GBps" in r else "-" for k in kinds]
            print(f"| {name} | {r['sdpa_GBps']:.0f} ({r['sdpa_hbm_frac']:.2f}) | " +
                  " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
