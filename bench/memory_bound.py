# aicc-deps: gpu-machine (torch 2.11 + triton there; scripts/bench-memory-bound.sh makes its inputs here)
"""GPU side of the memory-bound benchmark (issue 5). Runs on the GPU machine from the repo root
after `tar xzf .gpu/bench.tgz` (made by scripts/bench-memory-bound.sh): for every case in
.device/bench/<case>/ it makes random inputs with torch, runs aicc's bundle through aicc-run
(--benchmark: CUDA events around N back-to-back runs of the launch plan, mean ms/run), checks
aicc's output against torch eager on the same inputs, and times torch eager and torch.compile
with triton.testing.do_bench medians (../shared/bench/anchors.py's method) in the same run.
GB/s = (bytes of every input + bytes of the output) / time: each byte crossing HBM once.
Writes $OUT/memory_bound.json and prints a markdown table.
"""
import json, os, re, subprocess, sys, tempfile, time
import numpy as np
import torch, torch.nn.functional as F
from onnx import numpy_helper
import onnx
from triton.testing import do_bench

root = os.getcwd()
dev = "cuda"
ITERS = int(os.environ.get("AICC_BENCH_ITERS", "100"))
only = sys.argv[1:]


def med(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def dt(name):
    return torch.float16 if name.endswith("f16") else torch.float32


def case_spec(name):
    """(inputs, torch function) for a case name made by memory_bound_models.py."""
    t = dt(name)
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *s: torch.randn(*s, device=dev, generator=g, dtype=torch.float32).to(t)
    if name == "ew5_f32":
        return [rnd(1 << 28)], lambda x: torch.sigmoid(torch.relu(x * 2.0 + 1.0) - 0.5) * x
    shape = (8192, 65536) if "_long" in name else (262144, 256) if "_short" in name else (8192, 8192)
    k = shape[1]
    w = torch.ones(k, device=dev, dtype=t)
    b = torch.zeros(k, device=dev, dtype=t)
    if name.startswith("softmax"):
        return [rnd(*shape)], lambda x: torch.softmax(x, dim=-1)
    if name.startswith("layernorm"):
        return [rnd(*shape)], lambda x: F.layer_norm(x, (k,), w, b, 1e-5)
    if name.startswith("rmsnorm"):
        return [rnd(*shape)], lambda x: F.rms_norm(x, (k,), w, 1e-6)
    if name.startswith("residual_layernorm"):
        return [rnd(*shape), rnd(*shape)], lambda x, r: F.layer_norm(x + r, (k,), w, b, 1e-5)
    raise SystemExit(f"unknown case {name}")


def run_aicc(case_dir, inputs, tmp, check=True):
    """Times the bundle; with `check`, on `inputs` (written as .pb files) and returns its output.
    Without (schedule variants), on aicc-run's own pseudo-random inputs: writing and parsing
    1 GiB .pb files takes ~20 s a case."""
    args = []
    for i, x in enumerate(inputs if check else []):
        p = os.path.join(tmp, f"input_{i}.pb")
        with open(p, "wb") as f:
            f.write(numpy_helper.from_array(x.cpu().numpy()).SerializeToString())
        args += ["--input", p]
    od = os.path.join(tmp, "out")
    cmd = [os.path.join(root, ".device/bin/aicc-run"), os.path.join(case_dir, "model.aicc"),
           "--device=cuda", *args, *(["--output-dir", od] if check else []),
           "--benchmark", str(ITERS)]
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(root, ".device/lib"))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return None, None, (r.stdout + r.stderr)[-2000:]
    m = re.search(r"([0-9.]+) ms/run", r.stdout)
    if not check:
        return float(m.group(1)), None, r.stdout[-500:]
    out = onnx.load_tensor(os.path.join(od, "output_0.pb"))
    return float(m.group(1)), numpy_helper.to_array(out), r.stdout[-500:]


def main():
    res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "iters": ITERS,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cases": {}}
    x = torch.empty(2**31, dtype=torch.uint8, device=dev); y = torch.empty_like(x)
    res["copy_GBps"] = 2 * x.numel() / med(lambda: y.copy_(x)) / 1e6
    del x, y
    cases = sorted(os.listdir(os.path.join(root, ".device/bench")))
    for name in cases:
        if only and name not in only:
            continue
        inputs, fn = case_spec(name.split("@")[0])
        variant = "@" in name  # a schedule variant of a case: aicc timing only
        with torch.no_grad():
            ref = fn(*inputs)
        nbytes = sum(t.numel() * t.element_size() for t in inputs) + ref.numel() * ref.element_size()
        r = {"bytes": nbytes}
        with tempfile.TemporaryDirectory() as tmp:
            ms, out, log = run_aicc(os.path.join(root, ".device/bench", name), inputs, tmp,
                                    check=not variant)
        if ms is not None and out is None:
            r.update(aicc_ms=ms, aicc_GBps=nbytes / ms / 1e6, max_abs_err=0.0, correct=None)
        elif ms is None:
            r["aicc_error"] = log
            print(f"{name}: aicc-run failed:\n{log}", flush=True)
        else:
            got = torch.from_numpy(out.astype(np.float32)).to(dev)
            want = ref.float()
            err = (got - want).abs()
            tol = (1e-2 + 1e-2 * want.abs()) if ref.dtype == torch.float16 else (1e-4 + 1e-4 * want.abs())
            r.update(aicc_ms=ms, aicc_GBps=nbytes / ms / 1e6, max_abs_err=float(err.max()),
                     correct=bool((err <= tol).all()))
        del ref
        if variant:
            res["cases"][name] = r
            print(name, json.dumps(r), flush=True)
            continue
        with torch.no_grad():
            r["eager_ms"] = med(lambda: fn(*inputs))
            # A fresh, static-shape compile per case: the case lambdas share code objects, and
            # Dynamo would otherwise recompile later shapes as dynamic (slower) kernels.
            torch._dynamo.reset()
            cf = torch.compile(fn, dynamic=False)
            t0 = time.time(); cf(*inputs); torch.cuda.synchronize()
            r["compile_s"] = time.time() - t0
            r["compiled_ms"] = med(lambda: cf(*inputs))
        r["compiled_GBps"] = nbytes / r["compiled_ms"] / 1e6
        if "aicc_ms" in r:
            r["speedup_vs_compile"] = r["compiled_ms"] / r["aicc_ms"]
        res["cases"][name] = r
        print(name, json.dumps(r), flush=True)
        del inputs
        torch.cuda.empty_cache()
    out = os.environ.get("OUT", "/tmp")
    json.dump(res, open(os.path.join(out, "memory_bound.json"), "w"), indent=1)
    print(f"\n{res['gpu']}, torch {res['torch']}, {res['date']}; copy {res['copy_GBps']:.0f} GB/s")
    print("| case | aicc ms | aicc GB/s | eager ms | torch.compile ms | compile GB/s | aicc / compile speed | max abs err | correct |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in res["cases"].items():
        if "@" in name:
            print(f"| {name} | {r.get('aicc_ms', 0):.4f} | {r.get('aicc_GBps', 0):.0f} | | | | | "
                  f"| not checked (timing only) |")
            continue
        if "aicc_ms" not in r:
            print(f"| {name} | failed | | {r['eager_ms']:.4f} | {r['compiled_ms']:.4f} | {r['compiled_GBps']:.0f} | | | no |")
            continue
        print(f"| {name} | {r['aicc_ms']:.4f} | {r['aicc_GBps']:.0f} | {r['eager_ms']:.4f} | "
              f"{r['compiled_ms']:.4f} | {r['compiled_GBps']:.0f} | {r['speedup_vs_compile']:.2f}x | "
              f"{r['max_abs_err']:.2e} | {'yes' if r['correct'] else 'NO'} |")


if __name__ == "__main__":
    main()
