#!/usr/bin/env python3
"""Issue 19's LLM benchmark: a Llama-style decoder with a fixed-capacity KV cache, compiled
once by aicc for every prompt length, against torch's eager, CUDA-graph and torch.compile
loops over the same weights.

The model (Llama-3.2-1B's layer shape, fewer layers; random weights from a fixed seed, f16):
d 2048, 32 query heads and 8 key/value heads of 64, SwiGLU 8192, 8 layers, RoPE, RMSNorm,
a KV cache of MAX = 4096 positions per layer (HF transformers' StaticCache form: one
[B, 8, MAX, 64] key and value tensor per layer, written at the step's positions with
index_copy, attention over the whole cache with the bool mask key <= position). No token
embedding or LM head: the hidden state goes in and out (both sides run the same layers).

  forward(x [B, T, d], pos int64 [T], k_0, v_0, ..., k_7, v_7 [B, 8, MAX, 64])
    -> (hidden [B, T, d], k_0', v_0', ..., k_7', v_7')

Exported with torch.export's Dim("seq", 1..MAX) on x's dim 1 and pos (the dynamo exporter,
opset 18) at batch 1 and at batch 16, and compiled once per batch with
`aicc-compile --dim seq=1..MAX`: one bundle runs the prefill of any prompt length and the
decode steps (seq = 1).

Usage (the GPU machine; scripts/gpu-llm-decode.sh compiles between the two steps):
  llm_decode.py export DIR BATCH      DIR/model.onnx (the weights inline, ~1 GB)
  llm_decode.py testdata DIR          DIR/test_data_set_K: torch's outputs of four calls at
                                      batch 1 on the CPU (with a small LLM_CONFIG)
  llm_decode.py run DIR1 DIR16        DIRb/model.aicc for b = 1, 16; prints JSON lines and a
                                      table: prefill ms at 128 / 512 / 2048 tokens (batch 1)
                                      and decode ms per step / tokens per second (batch 1, 16)
Environment: LLM_CONFIG="d=256,heads=4,kv=2,ffn=512,layers=2,max=256" a smaller model (the
CPU check of the export and the compile here), LLM_PROMPTS, LLM_DECODE_AT.

What is timed (CUDA events, the mean of back-to-back calls after warm-up, each call
enqueued from Python as a serving loop would):
  - torch eager: the module with index_copy_ into the caches in place (StaticCache);
  - torch cuda graph: one torch.cuda.CUDAGraph of that eager step, per shape, replayed;
  - torch.compile(mode="reduce-overhead"): the in-place module, the caches marked static
    (torch._dynamo.mark_static_address, as HF's StaticCache does), dynamic=False;
  - aicc: the symbolic bundle through aicc's Python module on torch tensors (runAsync on
    torch's stream). The caches are the session's own input buffers viewed as torch
    tensors when the runtime offers them (Module.buffer_tensor), else the caller's (each
    call then copies them in and out: counted in the time, as a user would see it).
Correctness first, in the same run: aicc's hidden state and updated caches against torch's
eager ones after a prefill and a few decode steps (f16 tolerance).
"""
import json
import os
import re
import sys
import time

import torch
import torch.nn.functional as F

CONFIG = dict(d=2048, heads=32, kv=8, ffn=8192, layers=8, max=4096)
if os.environ.get("LLM_CONFIG"):
    for kv in os.environ["LLM_CONFIG"].split(","):
        k, v = kv.split("=")
        CONFIG[k.strip()] = int(v)
D, HEADS, KVH, FFN, LAYERS, MAX = (CONFIG[k] for k in ("d", "heads", "kv", "ffn", "layers", "max"))
HD = D // HEADS
PROMPTS = [int(p) for p in os.environ.get("LLM_PROMPTS", "128 512 2048").split()
           if int(p) <= MAX]
DECODE_AT = int(os.environ.get("LLM_DECODE_AT", "512"))  # the decode step's position


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = RMSNorm(D), RMSNorm(D)
        self.q = torch.nn.Linear(D, D, bias=False)
        self.k = torch.nn.Linear(D, KVH * HD, bias=False)
        self.v = torch.nn.Linear(D, KVH * HD, bias=False)
        self.o = torch.nn.Linear(D, D, bias=False)
        self.gate = torch.nn.Linear(D, FFN, bias=False)
        self.up = torch.nn.Linear(D, FFN, bias=False)
        self.down = torch.nn.Linear(FFN, D, bias=False)

    @staticmethod
    def rotate_half(z):
        return torch.cat([-z[..., HD // 2:], z[..., :HD // 2]], dim=-1)

    def forward(self, x, cos, sin, mask, pos, kc, vc, inplace):
        b, t, _ = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, HEADS, HD).transpose(1, 2)
        k = self.k(h).view(b, t, KVH, HD).transpose(1, 2)
        v = self.v(h).view(b, t, KVH, HD).transpose(1, 2)
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        if inplace:  # HF StaticCache.update: index_copy_ into the cache tensors
            kc.index_copy_(2, pos, k)
            vc.index_copy_(2, pos, v)
        else:  # the exported form: new cache tensors (the dynamo exporter's functional graph)
            kc = kc.index_copy(2, pos, k)
            vc = vc.index_copy(2, pos, v)
        y = F.scaled_dot_product_attention(q, kc, vc, attn_mask=mask, enable_gqa=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), kc, vc


class Decoder(torch.nn.Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.layers = torch.nn.ModuleList([Layer() for _ in range(LAYERS)])
        inv = 1.0 / (10000 ** (torch.arange(0, HD, 2).float() / HD))
        f = torch.outer(torch.arange(MAX).float(), inv)
        emb = torch.cat([f, f], dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)
        self.register_buffer("keys", torch.arange(MAX), persistent=False)

    def forward(self, x, pos, *caches):
        cos = self.cos[pos][None, None].to(x.dtype)
        sin = self.sin[pos][None, None].to(x.dtype)
        mask = self.keys[None, :] <= pos[:, None]  # [T, MAX]: key j visible from pos
        out = []
        for i, layer in enumerate(self.layers):
            x, kc, vc = layer(x, cos, sin, mask, pos, caches[2 * i], caches[2 * i + 1],
                              self.inplace)
            out += [kc, vc]
        return (x, *out)


def build(device, inplace=False):
    torch.manual_seed(0)
    return Decoder(inplace).eval().to(device, torch.float16)


def cache_shape(batch):
    return (batch, KVH, MAX, HD)


def names():
    ins = ["x", "pos"] + ["%s_cache_%d" % (kv, i) for i in range(LAYERS) for kv in "kv"]
    outs = ["hidden"] + ["%s_cache_out_%d" % (kv, i) for i in range(LAYERS) for kv in "kv"]
    return ins, outs


def flat_signature(model):
    """model with forward(x, pos, k_cache_0, v_cache_0, ...): torch.export needs one
    argument per cache (a *caches tuple does not match a dynamic_shapes tuple)."""
    ins, _ = names()
    ns = {}
    exec("def forward(self, %s):\n    return self.m(%s)\n" % (", ".join(ins), ", ".join(ins)), ns)
    cls = type("FlatDecoder", (torch.nn.Module,), {"forward": ns["forward"]})
    w = cls()
    w.m = model
    return w


def export(out, batch):
    import onnx
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = flat_signature(build(device))
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    seq = torch.export.Dim("seq", min=1, max=MAX)
    t = 5
    caches = [torch.randn(cache_shape(batch), device=device, dtype=torch.float16)
              for _ in range(2 * LAYERS)]
    args = (torch.randn(batch, t, D, device=device, dtype=torch.float16),
            torch.arange(t, device=device) + 7, *caches)
    ins, outs = names()
    t0 = time.time()
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=ins, output_names=outs,
                          dynamic_shapes=({1: seq}, {0: seq}) + (None,) * (2 * LAYERS),
                          opset_version=18, dynamo=True, external_data=False)
    onnx.checker.check_model(path)
    with open(os.path.join(out, "export.txt"), "w") as f:
        f.write("dynamo, torch %s, %s, batch %d, %s, %.1f s\n"
                % (torch.__version__, device, batch, json.dumps(CONFIG), time.time() - t0))
    print("exported", path, os.path.getsize(path), "bytes", flush=True)


def testdata(out):
    """DIR/test_data_set_K for aicc-run --test-data-set: one decoder session's calls at
    batch 1, torch's eager outputs (on the CPU): K = 0 a 5-token prompt from empty caches, 1
    the decode step at position 5 over the caches 0 wrote, 2 a 7-token chunk at positions
    9..15 over random caches, 3 one token at position MAX - 1 over random caches, and when
    MAX >= 80, 4 a 40-token prompt from empty caches (a run of several programs of the
    kernels over rows of [heads, seq, head_dim]). With a small LLM_CONFIG this is
    test/Tools/llm-decode-tiny.test's model (and llm-decode-gqa.test's)."""
    from onnx import numpy_helper
    model = build("cpu")
    g = torch.Generator().manual_seed(2)
    shape = cache_shape(1)

    def rnd(*s):
        return torch.randn(*s, generator=g).to(torch.float16)

    zeros = [torch.zeros(shape, dtype=torch.float16) for _ in range(2 * LAYERS)]
    calls = []
    with torch.no_grad():
        ins = (rnd(1, 5, D), torch.arange(5), *zeros)
        outs = model(*ins)
        calls.append((ins, outs))
        ins = (rnd(1, 1, D), torch.tensor([5]), *outs[1:])
        calls.append((ins, model(*ins)))
        ins = (rnd(1, 7, D), torch.arange(9, 16), *[rnd(*shape) for _ in zeros])
        calls.append((ins, model(*ins)))
        ins = (rnd(1, 1, D), torch.tensor([MAX - 1]), *[rnd(*shape) for _ in zeros])
        calls.append((ins, model(*ins)))
        if MAX >= 80:
            ins = (rnd(1, 40, D), torch.arange(40), *zeros)
            calls.append((ins, model(*ins)))
    for k, (ins, outs) in enumerate(calls):
        d = os.path.join(out, "test_data_set_%d" % k)
        os.makedirs(d, exist_ok=True)
        for prefix, ts in (("input", ins), ("output", outs)):
            for i, t in enumerate(ts):
                with open(os.path.join(d, "%s_%d.pb" % (prefix, i)), "wb") as f:
                    f.write(numpy_helper.from_array(t.numpy()).SerializeToString())


def time_ms(fn, iters=20, warmup=3):
    """Mean milliseconds of back-to-back calls of fn, CUDA events around them."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / iters


def profile_kernels(fn, title, top=12):
    """The GPU kernels of 5 calls of fn by total time (torch.profiler: CUPTI sees every
    kernel of the process, aicc's driver-API launches too), printed as a table."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
    rows = {}
    for e in prof.events():
        if e.device_type.name != "CUDA":
            continue
        n, d = rows.get(e.name, (0, 0.0))
        rows[e.name] = (n + 1, d + e.device_time)
    total = sum(d for _, d in rows.values())
    print("profile: %s: %.1f us per call in %d kernels per call" % (
        title, total / 5, sum(n for n, _ in rows.values()) // 5), flush=True)
    for name, (n, d) in sorted(rows.items(), key=lambda kv: -kv[1][1])[:top]:
        print("  %8.1f us  %3d x  %s" % (d / 5, n // 5, name[:90]), flush=True)
    # Every kernel by kind: the name without its group number (fused_12_epilogue_upto64 ->
    # epilogue_upto64), so the time no top-N list shows is accounted for too.
    kinds = {}
    for name, (n, d) in rows.items():
        kind = re.sub(r"^fused_\d+_", "", name)
        k, t = kinds.get(kind, (0, 0.0))
        kinds[kind] = (k + n, t + d)
    print("  by kind: " + ", ".join(
        "%s %.1f us (%d)" % (kind, t / 5, k // 5)
        for kind, (k, t) in sorted(kinds.items(), key=lambda kv: -kv[1][1])), flush=True)


class TorchStep:
    """One shape's step of the in-place torch model in its three forms: eager, a CUDA graph
    of eager (static x / pos / caches), torch.compile(mode="reduce-overhead")."""

    def __init__(self, model, compiled, x, pos, caches):
        self.model, self.compiled, self.x, self.pos, self.caches = model, compiled, x, pos, caches

    def eager(self):
        return self.model(self.x, self.pos, *self.caches)

    def graph(self):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                self.eager()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            self.eager()
        return g

    def compiled_step(self):
        return self.compiled(self.x, self.pos, *self.caches)


def aicc_session(path):
    import aicc
    return aicc.load(path)


def aicc_caches(m, batch, like):
    """The caches aicc runs on: the session's own input buffers as torch tensors when the
    module offers them (no copy per call), else new tensors (copied in and out per call)."""
    _, outs = names()
    ins, _ = names()
    if hasattr(m, "buffer_tensor"):
        return [m.buffer_tensor(n) for n in ins[2:]], "session buffers"
    return [torch.zeros_like(like) for _ in range(2 * LAYERS)], "caller buffers (copied)"


def decode_bundle(path, ref, tcaches, batch, rnd, r):
    """The same model compiled for the decode step alone (--dim seq=1, DIR/decode.aicc):
    one step checked against torch eager from the caches torch holds now, then timed at
    DECODE_AT on its own session buffers."""
    import aicc
    md = aicc.load(path)
    dc, how = aicc_caches(md, batch, tcaches[0])
    with torch.no_grad():
        for a, b in zip(dc, tcaches):
            a.copy_(b)
        x = rnd(batch, 1, D)
        pos = torch.tensor([40], device=x.device)
        want = ref(x, pos, *[c.clone() for c in tcaches])[0]
        o = torch.empty(batch, 1, D, device=x.device, dtype=torch.float16)
        md(x, pos, *dc, out=[o] + dc)
        torch.cuda.synchronize()
        r["decode_bundle_maxabs"] = float((o.float() - want.float()).abs().max())
        r["decode_bundle_ok"] = r["decode_bundle_maxabs"] <= 2e-2 * max(
            1.0, float(want.float().abs().max()))
        pos = torch.tensor([DECODE_AT], device=x.device)
        r["decode_bundle_ms"] = time_ms(lambda: md(x, pos, *dc, out=[o] + dc))
        if os.environ.get("LLM_PROFILE"):
            try:
                profile_kernels(lambda: md(x, pos, *dc, out=[o] + dc),
                                "aicc decode bundle batch %d" % batch)
            except Exception as e:  # noqa: BLE001
                print("profile failed:", str(e)[:200], flush=True)
    del md


def run(dir1, dir16):
    import aicc  # noqa: F401  (fails early when the package is missing)
    dev = "cuda"
    ref = build(dev, inplace=True)
    g = torch.Generator(device=dev).manual_seed(1)
    rows = []
    torch._dynamo.config.cache_size_limit = 64

    def rnd(*shape):
        return torch.randn(*shape, generator=g, device=dev, dtype=torch.float16)

    for batch, d in ((1, dir1), (16, dir16)):
        bundle = os.path.join(d, "model.aicc")
        if not os.path.exists(bundle):
            print(json.dumps({"batch": batch, "error": "no bundle " + bundle}), flush=True)
            continue
        m = aicc_session(bundle)
        tcaches = [torch.zeros(cache_shape(batch), device=dev, dtype=torch.float16)
                   for _ in range(2 * LAYERS)]
        for c in tcaches:
            torch._dynamo.mark_static_address(c)
        acaches, how = aicc_caches(m, batch, tcaches[0])
        for c in acaches:
            c.zero_()
        # The same range compiled with --specialize seq=1 (DIR/spec.aicc): the decode step's
        # own plan inside the one bundle; checked and timed beside model.aicc.
        spec = spec_caches = None
        if os.path.exists(os.path.join(d, "spec.aicc")):
            spec = aicc_session(os.path.join(d, "spec.aicc"))
            spec_caches, _ = aicc_caches(spec, batch, tcaches[0])
            for c in spec_caches:
                c.zero_()
        # Correctness: a prompt of 37 tokens from empty caches, then 3 decode steps, aicc on
        # its caches against torch eager on its own.
        check = {"batch": batch, "caches": how}
        errs = []
        spec_errs = []
        t0 = 0
        with torch.no_grad():
            for t in (37, 1, 1, 1):
                x = rnd(batch, t, D)
                pos = torch.arange(t0, t0 + t, device=dev)
                want = ref(x, pos, *tcaches)[0]
                if spec is not None:
                    so = torch.empty(batch, t, D, device=dev, dtype=torch.float16)
                    spec(x, pos, *spec_caches, out=[so] + spec_caches)
                    torch.cuda.synchronize()
                    spec_errs.append(float((so.float() - want.float()).abs().max()))
                outs = [torch.empty(batch, t, D, device=dev, dtype=torch.float16)] + acaches
                res = m(x, pos, *acaches, out=outs)
                got = res[0]
                if got.data_ptr() != outs[0].data_ptr():
                    got = outs[0]
                # Without session buffers the caches come back in new tensors: feed them on.
                if how != "session buffers":
                    for i in range(2 * LAYERS):
                        if res[1 + i].data_ptr() != acaches[i].data_ptr():
                            acaches[i].copy_(res[1 + i])
                torch.cuda.synchronize()
                e = float((got.float() - want.float()).abs().max())
                errs.append(e)
                t0 += t
            cache_err = max(float((a[:, :, :t0].float() - b[:, :, :t0].float()).abs().max())
                            for a, b in zip(acaches, tcaches))
        scale = float(want.float().abs().max())
        check.update(hidden_maxabs=errs, cache_maxabs=cache_err, ref_maxabs=scale,
                     ok=bool(max(errs) <= 2e-2 * max(1.0, scale) and cache_err <= 2e-2))
        if spec is not None:
            spec_cache_err = max(float((a[:, :, :t0].float() - b[:, :, :t0].float()).abs().max())
                                 for a, b in zip(spec_caches, tcaches))
            check.update(spec_hidden_maxabs=spec_errs, spec_cache_maxabs=spec_cache_err,
                         spec_ok=bool(max(spec_errs) <= 2e-2 * max(1.0, scale)
                                      and spec_cache_err <= 2e-2))
        print(json.dumps(check), flush=True)
        rows.append(check)
        compiled = torch.compile(ref, mode="reduce-overhead", dynamic=False)
        shapes = [("decode", 1)] + ([("prefill", p) for p in PROMPTS] if batch == 1 else [])
        for kind, t in shapes:
            r = {"batch": batch, "kind": kind, "tokens": t}
            x = rnd(batch, t, D)
            start = DECODE_AT if kind == "decode" else 0
            pos = torch.arange(start, start + t, device=dev)
            step = TorchStep(ref, compiled, x, pos, tcaches)
            out0 = torch.empty(batch, t, D, device=dev, dtype=torch.float16)
            aouts = [out0] + acaches
            with torch.no_grad():
                r["aicc_ms"] = time_ms(lambda: m(x, pos, *acaches, out=aouts))
                if spec is not None:
                    souts = [torch.empty_like(out0)] + spec_caches
                    r["spec_ms"] = time_ms(lambda: spec(x, pos, *spec_caches, out=souts))
                r["eager_ms"] = time_ms(step.eager)
                try:
                    gr = step.graph()
                    r["cuda_graph_ms"] = time_ms(gr.replay)
                    del gr
                except Exception as e:  # noqa: BLE001
                    r["cuda_graph_error"] = str(e)[:300]
                try:
                    r["compile_ro_ms"] = time_ms(step.compiled_step, warmup=5)
                except Exception as e:  # noqa: BLE001
                    r["compile_ro_error"] = str(e)[:300]
            if os.environ.get("LLM_PROFILE"):
                try:
                    profile_kernels(lambda: m(x, pos, *acaches, out=aouts),
                                    "aicc batch %d %s %d" % (batch, kind, t))
                except Exception as e:  # noqa: BLE001
                    print("profile failed:", str(e)[:200], flush=True)
            if os.environ.get("LLM_PROFILE") and spec is not None and kind == "decode":
                try:
                    profile_kernels(lambda: spec(x, pos, *spec_caches, out=souts),
                                    "aicc specialized batch %d %s %d" % (batch, kind, t))
                except Exception as e:  # noqa: BLE001
                    print("profile failed:", str(e)[:200], flush=True)
            if kind == "decode" and os.path.exists(os.path.join(d, "decode.aicc")):
                decode_bundle(os.path.join(d, "decode.aicc"), ref, tcaches, batch, rnd, r)
            best = min(r[k] for k in ("eager_ms", "cuda_graph_ms", "compile_ro_ms") if k in r)
            r["best_torch_ms"] = best
            r["best_torch_over_aicc"] = best / r["aicc_ms"]
            if "spec_ms" in r:
                r["best_torch_over_spec"] = best / r["spec_ms"]
            if kind == "decode":
                r["aicc_tok_s"] = batch * 1000.0 / r["aicc_ms"]
                r["best_torch_tok_s"] = batch * 1000.0 / best
                if "spec_ms" in r:
                    r["spec_tok_s"] = batch * 1000.0 / r["spec_ms"]
                if "decode_bundle_ms" in r:
                    r["best_torch_over_decode_bundle"] = best / r["decode_bundle_ms"]
                    r["decode_bundle_tok_s"] = batch * 1000.0 / r["decode_bundle_ms"]
            print(json.dumps(r), flush=True)
            rows.append(r)
        del m, spec
        torch.cuda.empty_cache()
    print("\n| batch | step | aicc ms | aicc + --specialize seq=1 ms | aicc decode bundle ms "
          "| eager ms | cuda graph ms | compile(ro) ms | best torch / aicc (specialized) "
          "| aicc tok/s (specialized, decode bundle) | best torch tok/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    f = lambda r, k: ("%.4f" % r[k]) if k in r else "-"  # noqa: E731
    g1 = lambda r, k: ("%.0f" % r[k]) if k in r else "-"  # noqa: E731
    for r in rows:
        if "kind" not in r:
            continue
        what = "decode at %d" % DECODE_AT if r["kind"] == "decode" else "prefill %d" % r["tokens"]
        print("| %d | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s (%s, %s) | %s |" % (
            r["batch"], what, f(r, "aicc_ms"), f(r, "spec_ms"), f(r, "decode_bundle_ms"),
            f(r, "eager_ms"), f(r, "cuda_graph_ms"), f(r, "compile_ro_ms"),
            f(r, "best_torch_over_aicc"), f(r, "best_torch_over_spec"), g1(r, "aicc_tok_s"),
            g1(r, "spec_tok_s"), g1(r, "decode_bundle_tok_s"), g1(r, "best_torch_tok_s")))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "export":
        export(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "testdata":
        testdata(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
