# aicc-deps: gpu-machine (torch 2.11, torchvision, onnx there; scripts/bench-models.sh compiles here)
"""Whole-model latency (issue 16): aicc against torch's best, in one run on the GPU machine.

Two steps on the GPU machine, with a compile here in between:

  python3 bench/models.py export OUT     # torch 2.11 exports every model of ZOO (fixed seeds)
                                        # to OUT/<name>/model.onnx (+ input_0.pb), with the
                                        # dynamo exporter, else the TorchScript one (also
                                        # runs here under a PyPI torch 2.11 on the CPU: the
                                        # modules and inputs are built on the host from the
                                        # seeds, so weights and inputs are the GPU machine's)
  (here) scripts/bench-models.sh DIR    # aicc-compile each model into .device/models/<name>/
  python3 bench/models.py bench         # times aicc and torch in the same run
  python3 bench/models.py profile NAME... # torch's kernels per variant (torch.profiler), to set
                                        # beside aicc's (ncu on the bundle) per kernel

`bench` rebuilds each torch model from the same seed, feeds it the exported input, and times,
all the same way (CUDA events around N back-to-back calls after a warm-up; mean per call):
torch eager, torch.compile (default), torch.compile(mode="reduce-overhead"), one CUDA graph of
the eager model replayed, and aicc (`aicc-run --benchmark N`: events around N back-to-back runs
of the launch plan, with CUDA graphs and with --no-cuda-graphs). Each aicc output is checked
against torch eager's. Peak device memory: torch's weights, input and
torch.cuda.max_memory_allocated above them during an eager call; aicc's is what its runtime
reports it allocated (aicc-run --json's device_bytes: every non-alias
buffer, the temps' arena once; aicc_bytes recomputes it from the manifest as a cross-check).
A bundle directory NAME@VARIANT (scripts/bench-models.sh AICC_BENCH_VARIANTS: the same model
compiled with other flags) is timed against torch's figures for NAME, measured once; the
geomean leaves the variants out. Writes $OUT/models.json and prints a markdown table.

Where aicc lives: $AICC_BIN_DIR/aicc-run when AICC_BIN_DIR is set (LD_LIBRARY_PATH left as the
caller set it: scripts/gpu-cnn-bench.sh), else .device/bin/aicc-run with .device/lib; the
bundles: $AICC_BENCH_MODELS_DIR/<name>/model.aicc, else .device/models/<name>/.
AICC_BENCH_COMPILE_MODES (default "default,reduce-overhead") picks the torch.compile variants.

ResNet-18 / ResNet-50 at batch 1 and 32 (resnet18_f16_b1 ... resnet50_f16_b32, issue 18)
are exported only when named (ResNet-50's weights are 51 MB per batch size: they are
exported and compiled on the GPU machine by scripts/gpu-cnn-bench.sh).

  python3 bench/models.py check NAME...   # no GPU: aicc's cpu-target bundle
        # $AICC_BENCH_MODELS_DIR/<name>/model.aicc against torch on the CPU (float32 from the
        # same f16 weights and input); a correctness check of the export and the pipeline
"""
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "models", "torch"))
ITERS = int(os.environ.get("AICC_BENCH_ITERS", "200"))


class MLP(torch.nn.Module):
    """models/mlp's architecture (Linear -> GELU -> Linear -> Softmax)."""

    def __init__(self, d_in=64, d_hidden=256, d_out=32):
        super().__init__()
        self.fc1 = torch.nn.Linear(d_in, d_hidden)
        self.fc2 = torch.nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return torch.softmax(self.fc2(F.gelu(self.fc1(x))), dim=-1)


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y.to(x.dtype)) * self.weight


class LlamaLayer(torch.nn.Module):
    """One Llama-style decoder layer: RMSNorm, RoPE, grouped-query causal attention (eager
    softmax), SwiGLU MLP, residuals."""

    def __init__(self, d=1024, heads=16, kv_heads=4, ffn=2816, seq=512):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.gate = torch.nn.Linear(d, ffn, bias=False)
        self.up = torch.nn.Linear(d, ffn, bias=False)
        self.down = torch.nn.Linear(ffn, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        f = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat([f, f], dim=-1)
        self.register_buffer("cos", emb.cos()[None, None], persistent=False)
        self.register_buffer("sin", emb.sin()[None, None], persistent=False)
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1),
                             persistent=False)

    @staticmethod
    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat([-b, a], dim=-1)

    def forward(self, x):
        b, t, c = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        cos, sin = self.cos[:, :, :t].to(x.dtype), self.sin[:, :, :t].to(x.dtype)
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        rep = self.h // self.kv
        k = k[:, :, None].expand(b, self.kv, rep, t, self.hd).reshape(b, self.h, t, self.hd)
        v = v[:, :, None].expand(b, self.kv, rep, t, self.hd).reshape(b, self.h, t, self.hd)
        att = (q @ k.transpose(-2, -1)) / (self.hd ** 0.5) + self.mask[:t, :t].to(x.dtype)
        y = (torch.softmax(att.float(), dim=-1).to(x.dtype) @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.o(y)
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class GPT2(torch.nn.Module):
    """GPT-2 (Radford et al. 2019; HF transformers' GPT2LMHeadModel) with `layers` blocks,
    fed `inputs_embeds` (the token-embedding lookup stays outside, a Gather): learned position
    embeddings, pre-LayerNorm blocks (fused qkv projection, causal softmax attention,
    tanh-GELU MLP of 4x width) and the final LayerNorm: GPT2Model's last hidden state. With
    `vocab` the LM head follows (GPT2LMHeadModel; 38.6 M more weights at 50257, over the
    GPU machine's 64 MiB payload in f16, so the zoo's entry leaves it out)."""

    def __init__(self, layers=2, d=768, heads=12, seq=128, vocab=0):
        super().__init__()
        import make_models as mm
        self.wpe = torch.nn.Parameter(torch.randn(seq, d) * 0.02)
        self.blocks = torch.nn.ModuleList(mm.GPTBlock(d, heads, seq) for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d)
        self.lm_head = torch.nn.Linear(d, vocab, bias=False) if vocab else None

    def forward(self, x):
        x = x + self.wpe[: x.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        x = self.ln_f(x)
        return self.lm_head(x) if self.lm_head is not None else x


def zoo():
    """name -> (constructor, input shape, dtype). Constructors run after torch.manual_seed(0)."""
    import make_models as mm

    def bn(m):
        return mm.randomize_bn(m)

    def tv(arch):  # torchvision only where a model needs it (not on the host)
        import torchvision
        return getattr(torchvision.models, arch)()

    return {
        "mlp": (lambda: MLP(), (16, 64), torch.float32),
        "mlp_b8": (lambda: MLP(), (8, 64), torch.float32),
        "mlp_wide_b8": (lambda: MLP(512, 512, 10), (8, 512), torch.float32),
        "convnet": (lambda: bn(mm.ConvNet()), (2, 3, 16, 16), torch.float32),
        "resnet_block": (lambda: bn(mm.BasicBlock()), (2, 8, 16, 16), torch.float32),
        "bert_encoder": (lambda: mm.Encoder(), (2, 8, 32), torch.float32),
        "gpt_block": (lambda: mm.GPTBlock(), (2, 8, 32), torch.float32),
        "bert2_d256_f16": (lambda: mm.Encoder(256, 4, 2), (2, 128, 256), torch.float16),
        "llama_layer_f16": (lambda: LlamaLayer(), (2, 512, 1024), torch.float16),
        "gpt2_2l_f16": (lambda: GPT2(), (2, 128, 768), torch.float16),
        "resnet18_f16": (lambda: bn(tv("resnet18")), (8, 3, 224, 224),
                         torch.float16),
        "mobilenet_v3_small_f16": (lambda: tv("mobilenet_v3_small"),
                                   (8, 3, 224, 224), torch.float16),
        # issue 18's CNN sizes (scripts/gpu-cnn-bench.sh exports and compiles them on the GPU
        # machine: ResNet-50's 51 MB of f16 weights per batch size are past the payload)
        "resnet18_f16_b1": (lambda: bn(tv("resnet18")), (1, 3, 224, 224), torch.float16),
        "resnet18_f16_b32": (lambda: bn(tv("resnet18")), (32, 3, 224, 224), torch.float16),
        "resnet50_f16_b1": (lambda: bn(tv("resnet50")), (1, 3, 224, 224), torch.float16),
        "resnet50_f16_b32": (lambda: bn(tv("resnet50")), (32, 3, 224, 224), torch.float16),
    }


def base_name(name):
    """A bundle directory NAME@VARIANT (scripts/bench-models.sh AICC_BENCH_VARIANTS) holds
    model NAME compiled with the variant's flags."""
    return name.split("@", 1)[0]


def build(name, device="cuda"):
    ctor, shape, dtype = zoo()[base_name(name)]
    torch.manual_seed(0)
    model = ctor().eval().to(device, dtype)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(*shape, generator=g).to(device, dtype)
    return model, x


# Exported only when named (see the docstring).
NAMED_ONLY = ("resnet18_f16_b1", "resnet18_f16_b32", "resnet50_f16_b1", "resnet50_f16_b32")


def export(out):
    import onnx
    from onnx import numpy_helper

    names = sys.argv[3:] or [n for n in zoo() if n not in NAMED_ONLY]
    # The GPU machine exports on the device; without one (torch 1.13 here) the f32 models
    # export on the CPU with the TorchScript exporter.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for name in names:
        model, x = build(name, device)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        how = "dynamo"
        t0 = time.time()
        try:
            with torch.no_grad():
                torch.onnx.export(model, (x,), path, input_names=["input_0"],
                                  output_names=["output_0"], opset_version=18, dynamo=True,
                                  external_data=False)
            onnx.checker.check_model(onnx.load(path))
        except Exception as e:  # noqa: BLE001 - record and fall back
            how = "torchscript (dynamo failed: %s)" % str(e).splitlines()[0][:200]
            legacy = {} if torch.__version__ < "2" else {"dynamo": False}
            with torch.no_grad():
                torch.onnx.export(model, (x,), path, input_names=["input_0"],
                                  output_names=["output_0"], opset_version=17, **legacy)
        write_input(os.path.join(d, "input_0.pb"), x)
        with open(os.path.join(d, "exporter.txt"), "w") as f:
            f.write("%s, torch %s, %.1f s\n" % (how, torch.__version__, time.time() - t0))
        print(name, how, os.path.getsize(path), "bytes", flush=True)


def write_input(path, x):
    """x as the onnx.TensorProto aicc-run reads (f16 or f32)."""
    from onnx import numpy_helper
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(x.float().cpu().numpy().astype(
            np.float16 if x.dtype == torch.float16 else np.float32)).SerializeToString())


def time_ms(fn, iters=ITERS):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / iters


def peak(fn):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


def aicc_bytes(bundle):
    """Device bytes aicc's runtime allocates: every non-alias buffer except arena temps, plus
    the arena (docs/bundle-format.md)."""
    with open(bundle, "rb") as f:
        f.read(8)
        n = int.from_bytes(f.read(8), "little")
        manifest = f.read(n).decode()
    total, arena, temps = 0, None, 0
    for line in manifest.splitlines():
        p = line.split()
        if p[0] == "arena":
            arena = int(p[1])
        elif p[0] == "buffer" and p[3] != "alias":
            size = max(int(p[4]), 1)
            if p[3] == "temp":
                temps += size
            else:
                total += size
    return total + (arena if arena is not None else temps), arena, temps


def aicc_run_tool():
    """(aicc-run's path, the environment to run it in): $AICC_BIN_DIR/aicc-run with the
    caller's LD_LIBRARY_PATH, else .device/bin/aicc-run with .device/lib."""
    bindir = os.environ.get("AICC_BIN_DIR")
    if bindir:
        return os.path.join(bindir, "aicc-run"), dict(os.environ)
    return (os.path.join(root, ".device/bin/aicc-run"),
            dict(os.environ, LD_LIBRARY_PATH=os.path.join(root, ".device/lib")))


def run_aicc(bundle, inp, outdir, graphs, aicc_run=None, device="cuda"):
    """aicc-run --benchmark ITERS --json: (mean ms per plan run, the JSON record: per-run
    statistics, whole runs with host copies, device bytes the runtime allocated), or
    (None, the log's tail) on failure."""
    os.makedirs(outdir, exist_ok=True)
    js = os.path.join(outdir, "benchmark.json")
    default, env = aicc_run_tool()
    cmd = [aicc_run or default, bundle, "--device=" + device,
           "--input", inp, "--output-dir", outdir, "--benchmark", str(ITERS), "--json", js]
    if not graphs:
        cmd.append("--no-cuda-graphs")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return None, (r.stdout + r.stderr)[-1500:]
    with open(js) as f:
        rec = json.load(f)
    return rec["plan_ms"]["mean"], rec


def models_dir():
    return os.environ.get("AICC_BENCH_MODELS_DIR") or os.path.join(root, ".device/models")


def bench():
    import onnx
    from onnx import numpy_helper

    out = os.environ.get("OUT", "/tmp")
    res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "iters": ITERS,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "models": {}}
    base = models_dir()
    names = sys.argv[2:] or sorted(os.listdir(base))
    measured = {}  # base name -> torch's figures, measured once for all of its variants
    for name in names:
        d = os.path.join(base, name)
        r = {"exporter": open(os.path.join(d, "exporter.txt")).read().strip()
             if os.path.exists(os.path.join(d, "exporter.txt")) else "?"}
        res["models"][name] = r
        model, x = build(name)
        if not os.path.exists(os.path.join(d, "input_0.pb")):
            # The exported input again (build() draws it from the same seeded generator on
            # the host), so a payload need not carry the CNNs' 2.4 MB inputs.
            write_input(os.path.join(d, "input_0.pb"), x)
        xin = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "input_0.pb")))
        x = torch.from_numpy(xin.copy()).to("cuda")
        r["torch_weight_bytes"] = sum(t.numel() * t.element_size()
                                      for t in list(model.parameters()) + list(model.buffers()))
        # The input lives on the device in both: aicc's device_bytes hold its input buffer,
        # and torch's eager peak is measured above what was allocated before the call.
        r["torch_input_bytes"] = x.numel() * x.element_size()
        with torch.no_grad():
            ref = model(x).float()
        if base_name(name) not in measured:
            torch_figures(model, x, r)
            measured[base_name(name)] = {k: v for k, v in r.items()
                                         if k.startswith(("eager", "cuda_graph", "compile"))}
        r.update(measured[base_name(name)])
        aicc_figures(d, name, x, ref, r)
        torch_best = min(r.get(k, 1e9) for k in ("eager_ms", "cuda_graph_ms", "compile_ms",
                                                 "compile_ro_ms"))
        r["torch_best_ms"] = torch_best
        if "aicc_ms" in r:
            r["speedup_vs_best"] = torch_best / r["aicc_ms"]
        print(name, json.dumps(r), flush=True)
        del model
        torch.cuda.empty_cache()
        with open(os.path.join(out, "models.json"), "w") as f:  # after each model
            json.dump(res, f, indent=1)
    table(res)


def torch_figures(model, x, r):
    """torch eager, one CUDA graph of the eager model replayed, torch.compile (default and
    reduce-overhead): ms per call and peak bytes, into r."""
    with torch.no_grad():
        r["eager_ms"] = time_ms(lambda: model(x))
        r["eager_peak"] = peak(lambda: model(x))
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            gy = model(x)
        r["cuda_graph_ms"] = time_ms(g.replay)
        modes = os.environ.get("AICC_BENCH_COMPILE_MODES", "default,reduce-overhead").split(",")
        for mode, key in ((None, "compile"), ("reduce-overhead", "compile_ro")):
            if (mode or "default") not in modes:
                continue
            torch._dynamo.reset()
            try:
                cm = torch.compile(model, mode=mode, dynamic=False)
                for _ in range(3):
                    cm(x)
                r[key + "_ms"] = time_ms(lambda: cm(x))
                r[key + "_peak"] = peak(lambda: cm(x))
            except Exception as e:  # noqa: BLE001
                r[key + "_error"] = str(e)[:300]
        del gy


def aicc_figures(d, name, x, ref, r):
    """aicc-run --benchmark with and without CUDA graphs, each output checked against ref."""
    from onnx import load_tensor, numpy_helper

    bundle = os.path.join(d, "model.aicc")
    if not os.path.exists(bundle):
        log = os.path.join(d, "compile.log")
        r["aicc_error"] = open(log).read()[-600:] if os.path.exists(log) else "no bundle"
        return
    od = os.path.join("/tmp", "aicc_out_" + name)
    for graphs, key in ((True, "aicc"), (False, "aicc_nograph")):
        ms, log = run_aicc(bundle, os.path.join(d, "input_0.pb"), od, graphs)
        if ms is None:
            r[key + "_error"] = log
            continue
        r[key + "_ms"] = ms
        r[key + "_plan_ms"] = log["plan_ms"]
        r[key + "_whole_run_ms"] = log["whole_run_with_host_copies_ms"]
        r["aicc_device_bytes"] = log["device_bytes"]  # what the runtime allocated
        r["aicc_launches"] = log["launches"]
        got = numpy_helper.to_array(load_tensor(os.path.join(od, "output_0.pb")))
        want = ref.cpu().numpy()
        tol = 2e-2 if x.dtype == torch.float16 else 1e-3
        # atol scales with the output's magnitude past 1: ResNet-50's f16 logits reach ~1e3
        # (random BN statistics), where two f16 evaluations (torch's eager against its own
        # f32) differ by ~1 in places, 1e-3 of the largest (checked on the CPU, 2026-12-05).
        scale = max(1.0, float(np.max(np.abs(want))))
        r[key + "_maxabs"] = float(np.max(np.abs(got.astype(np.float64) - want)))
        r[key + "_ref_maxabs"] = scale
        r[key + "_ok"] = bool(np.allclose(got.astype(np.float64), want, rtol=tol,
                                          atol=tol * scale))
    r["aicc_bytes"], r["aicc_arena"], r["aicc_temps_unplanned"] = aicc_bytes(bundle)


def profile():
    """torch.profiler over 20 calls of torch eager and of torch.compile(mode="reduce-overhead")
    (its CUDA graph replays are traced kernel by kernel by CUPTI): GPU microseconds per call of
    each kernel name, summed, largest first. Writes $OUT/profile-<name>.json."""
    from torch.profiler import ProfilerActivity, profile as tprofile

    out = os.environ.get("OUT", "/tmp")
    for name in sys.argv[2:]:
        model, x = build(name)
        res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        with torch.no_grad():
            torch._dynamo.reset()
            cm = torch.compile(model, mode="reduce-overhead", dynamic=False)
            for variant, fn in (("eager", lambda: model(x)), ("compile_ro", lambda: cm(x))):
                for _ in range(5):
                    fn()
                torch.cuda.synchronize()
                with tprofile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(20):
                        fn()
                    torch.cuda.synchronize()
                kernels = {}
                for e in prof.events():
                    if e.device_type == torch.autograd.DeviceType.CUDA:
                        k = kernels.setdefault(e.name, [0, 0.0])
                        k[0] += 1
                        k[1] += e.device_time
                rows = sorted(([n, c / 20, t / 20] for n, (c, t) in kernels.items()),
                              key=lambda r: -r[2])
                res[variant] = {"us_per_call": sum(r[2] for r in rows), "kernels": rows}
                print("%s %s: %.1f us of kernels per call, %d launches" % (
                    name, variant, res[variant]["us_per_call"], sum(r[1] for r in rows)))
                for n, c, t in rows[:25]:
                    print("  %8.1f us  %5.1f x  %s" % (t, c, n[:150]))
        with open(os.path.join(out, "profile-%s.json" % name), "w") as f:
            json.dump(res, f, indent=1)


def check():
    """aicc's cpu-target bundles against torch on the CPU, no GPU needed: each NAME's
    $AICC_BENCH_MODELS_DIR/<name>/model.aicc run once by aicc-run --device=cpu on its
    input_0.pb, torch's module rebuilt from the seed, its f16 weights and the f16 input
    evaluated in float32. Passes when every output element is within 2e-2 of torch's,
    relative to the output's largest magnitude (f16 rounding over a whole network, against
    an f32 evaluation). Exit 1 when one fails."""
    import tempfile

    from onnx import load_tensor, numpy_helper

    tool, env = aicc_run_tool()
    failed = 0
    for name in sys.argv[2:]:
        d = os.path.join(models_dir(), name)
        model, _ = build(name, "cpu")
        model = model.float()
        xin = numpy_helper.to_array(load_tensor(os.path.join(d, "input_0.pb")))
        with torch.no_grad():
            want = model(torch.from_numpy(xin.astype(np.float32))).numpy().astype(np.float64)
        with tempfile.TemporaryDirectory() as od:
            t0 = time.time()
            r = subprocess.run([tool, os.path.join(d, "model.aicc"), "--device=cpu", "--input",
                                os.path.join(d, "input_0.pb"), "--output-dir", od],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                print("FAIL %s: aicc-run: %s" % (name, (r.stdout + r.stderr)[-800:]))
                failed += 1
                continue
            secs = time.time() - t0
            got = numpy_helper.to_array(load_tensor(os.path.join(od, "output_0.pb")))
        got = got.astype(np.float64)
        scale = max(float(np.max(np.abs(want))), 1e-30)
        err = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("inf")
        ok = err <= 2e-2 * scale
        failed += not ok
        agree = int(np.sum(got.reshape(got.shape[0], -1).argmax(1)
                           == want.reshape(want.shape[0], -1).argmax(1))) if ok else 0
        print("%s %s: output %s, max |torch| %.4g, max abs err %.4g (%.2e of it), "
              "argmax agrees on %d of %d rows; aicc-run %.1f s" % (
                  "PASS" if ok else "FAIL", name, list(got.shape), scale, err, err / scale,
                  agree, got.shape[0], secs), flush=True)
    sys.exit(1 if failed else 0)


def torch_bytes(r):
    """torch's device bytes for one call, counted as aicc's device_bytes are: weights and
    buffers, the input, and what the eager call allocates at its peak (its output included).
    Records of runs before 2026-12-04 have no torch_input_bytes: their torch figure left the
    input out."""
    return r["eager_peak"] + r["torch_weight_bytes"] + r.get("torch_input_bytes", 0)


def table(res):
    print("\n| model | aicc ms (graph) | aicc ms (no graph) | eager | CUDA graph | compile | "
          "reduce-overhead | aicc / best | correct | kernels | aicc MB | torch MB (weights + "
          "input + eager peak) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    sp = []
    for name, r in res["models"].items():
        f = lambda k: "%.4f" % r[k] if k in r else "-"
        if "speedup_vs_best" in r and "@" not in name:
            sp.append(r["speedup_vs_best"])
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, f("aicc_ms"), f("aicc_nograph_ms"), f("eager_ms"), f("cuda_graph_ms"),
            f("compile_ms"), f("compile_ro_ms"),
            "%.2fx" % r["speedup_vs_best"] if "speedup_vs_best" in r else "-",
            r.get("aicc_ok", "-"), r.get("aicc_launches", "-"), "%.2f" % (r.get("aicc_device_bytes", r.get("aicc_bytes", 0)) / 2**20)
            if "aicc_bytes" in r else "-", "%.2f" % (torch_bytes(r) / 2**20)))
    if sp:
        print("geomean aicc / torch best (default compiles, no @variants): %.3fx over %d "
              "models" % (float(np.exp(np.mean(np.log(sp)))), len(sp)))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "export":
        export(sys.argv[2])
    elif len(sys.argv) >= 2 and sys.argv[1] == "bench":
        bench()
    elif len(sys.argv) >= 3 and sys.argv[1] == "profile":
        profile()
    elif len(sys.argv) >= 3 and sys.argv[1] == "check":
        check()
    else:
        sys.exit(__doc__)
