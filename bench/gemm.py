"""GPU side of the tensor-core GEMM benchmark and GPU numerics check (issue 6). Runs on the GPU
machine from the repo root after `tar xzf .gpu/gemm.tgz` (made by scripts/bench-gemm.sh), over
the cases of .device/gemm/cases.json (bench/gemm_models.py), in that order:

  correctness  fresh random operands (normal; B and W scaled by 1/sqrt(K) so outputs are O(1)),
               written as input_K.pb; `aicc-run model.aicc --poison --input ... --output-dir D`
               (--poison: outputs filled with NaN before the run, so an unwritten element
               fails); ||out - ref|| / ||ref|| against a float64 torch reference of the same
               (rounded) operands, on the device; NaN or Inf fails. Tolerances by dtype
               (../.library/device/METHOD.md: f32 arithmetic far under 1e-3, bf16 operands
               1e-3..1e-2): f32 1e-5 (the exact path: no tf32), f16 2e-3, bf16 1e-2; rounding
               the output alone gives about 2e-4 (f16) and 1.7e-3 (bf16) (the CPU dry run).
  timing       aicc: `aicc-run --benchmark N` in the same process as the check (CUDA events
               around N back-to-back runs of the launch plan; mean ms/run; L2 stays warm
               between runs). torch (cuBLAS through torch.matmul / addmm / F.linear, eager) and
               torch.compile of the same function (fresh static-shape compile per case: dynamo
               reset, dynamic=False; default mode, and max-autotune-no-cudagraphs with
               --autotune) timed two ways: `hot` as aicc-run does (events around N
               back-to-back calls, mean) and triton.testing.do_bench's median (L2 flushed before
               every call, the method of ../shared/bench/anchors.py). Ratios are speed ratios
               from the `hot` timings (like for like): torch ms / aicc ms, > 1 when aicc is
               faster. TFLOP/s = 2 * batch * M * N * K / time.
The num_* cases are checked and aicc-timed only. Prints one line per case, then tables;
writes $OUT/gemm.json (rewritten after every case, so a run cut short keeps what it measured).

Modes:
  python3 bench/gemm.py [REGEX ...]          run the cases whose name matches any REGEX
  python3 bench/gemm.py --sass CASE|BUNDLE   extract the bundle's cubin, run cuobjdump -sass,
                                             count HGMMA / HMMA / FFMA per kernel; exit 1 when
                                             no kernel of the sm_90a cubin has an HGMMA
  python3 bench/gemm.py --bundle-info CASE|BUNDLE   print the bundle's manifest summary
  --device cpu: the same flow on CPU bundles (--target=cpu) with a CPU float64 reference and
  wall-clock timings, no torch.compile (the dry run of test/Bench/gemm-dry-run-cpu.sh).
"""
import argparse, json, math, os, re, shutil, struct, subprocess, sys, tempfile, time, traceback
import urllib.parse

import numpy as np
import onnx
import torch
import torch.nn.functional as F

TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}
TORCH_DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# onnx.TensorProto.DataType: FLOAT = 1, FLOAT16 = 10, BFLOAT16 = 16.
ONNX_DT = {torch.float32: 1, torch.float16: 10, torch.bfloat16: 16}
RAW_NP = {1: np.float32, 10: np.float16, 16: np.int16}  # bf16 as its bit pattern

# ---------------------------------------------------------------------------------------------
# Bundle reader (docs/bundle-format.md): magic, u64-sized manifest, code and weights sections.
# ---------------------------------------------------------------------------------------------


def read_bundle(path):
    """The manifest records and the code section of an .aicc bundle: {"target", "kernels":
    [{name, grid, block, shared, params}], "launches": [names], "buffers", "inputs", "outputs",
    "code": bytes}. Raises ValueError on a malformed file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"AICCBND1":
        raise ValueError(f"{path}: not an aicc bundle (magic {data[:8]!r})")
    off, sections = 8, []
    for what in ("manifest", "code", "weights"):
        if off + 8 > len(data):
            raise ValueError(f"{path}: truncated before the {what} size")
        (n,) = struct.unpack_from("<Q", data, off)
        if off + 8 + n > len(data):
            raise ValueError(f"{path}: {what} section of {n} bytes runs past the end")
        sections.append(data[off + 8:off + 8 + n])
        off += 8 + n
    if off != len(data):
        raise ValueError(f"{path}: {len(data) - off} bytes after the weights section")
    manifest, code, _ = sections
    b = {"target": None, "kernels": [], "launches": [], "buffers": [], "inputs": [],
         "outputs": [], "code": code}
    for line in manifest.decode("utf-8").splitlines():
        f = [urllib.parse.unquote(x) for x in line.split(" ")]
        if f[0] == "target":
            b["target"] = f[1]
        elif f[0] == "kernel":
            b["kernels"].append({"name": f[1], "grid": [int(x) for x in f[2:5]],
                                 "block": [int(x) for x in f[5:8]], "shared": int(f[8]),
                                 "params": int(f[9])})
        elif f[0] == "launch":
            b["launches"].append(f[1])
        elif f[0] in ("buffer", "input", "output"):
            b[f[0] + "s"].append(f[1:])
    return b


def bundle_path(root, case_or_path):
    if case_or_path.endswith(".aicc"):
        return case_or_path
    return os.path.join(root, ".device/gemm", case_or_path, "model.aicc")


def bundle_info(path):
    b = read_bundle(path)
    elf = "ELF" if b["code"][:4] == b"\x7fELF" else "not ELF"
    print(f"{path}: target {b['target']}, code {len(b['code'])} bytes ({elf}), "
          f"{len(b['inputs'])} input(s), {len(b['outputs'])} output(s), "
          f"{len(b['launches'])} launch(es)")
    for k in b["kernels"]:
        print(f"  kernel {k['name']} grid {k['grid']} block {k['block']} shared {k['shared']}")
    return b


def sass(path, out_dir):
    """Counts matrix and FMA instructions per kernel in the bundle's cubin (cuobjdump -sass).
    Returns the exit status: 0 when the target is sm_90a and some kernel has an HGMMA."""
    b = bundle_info(path)
    if not (b["target"] or "").startswith("sm_") or b["code"][:4] != b"\x7fELF":
        print(f"target {b['target']}: the code section is not a cubin")
        return 2
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "kernels.cubin")
        with open(cubin, "wb") as f:
            f.write(b["code"])
        r = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"cuobjdump failed ({r.returncode}): {r.stderr[-1000:]}")
        return 1
    name = os.path.basename(os.path.dirname(path)) or "bundle"
    with open(os.path.join(out_dir, f"sass_{name}.txt"), "w") as f:
        f.write(r.stdout)
    counts = sass_counts(r.stdout)
    print(f"| kernel | HGMMA | HMMA | FFMA | HFMA2 | instructions |")
    print("|---|---|---|---|---|---|")
    for fn, c in counts.items():
        print(f"| {fn} | {c.get('HGMMA', 0)} | {c.get('HMMA', 0)} | {c.get('FFMA', 0)} | "
              f"{c.get('HFMA2', 0)} | {sum(c.values())} |")
    has = any(c.get("HGMMA", 0) for c in counts.values())
    if b["target"] != "sm_90a":
        print(f"target {b['target']}: HGMMA (wgmma) needs sm_90a")
        return 1
    print("HGMMA present" if has else "NO HGMMA in any kernel")
    return 0 if has else 1


def sass_counts(text):
    """{function: {opcode: count}} from cuobjdump -sass output. An instruction line reads
    `/*0a80*/   @!P0 HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;`: the opcode is the first word
    after the address and the optional predicate, up to the first dot."""
    counts, fn = {}, None
    ins = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)")
    for line in text.splitlines():
        m = re.search(r"Function\s*:\s*(\S+)", line)
        if m:
            fn = m.group(1)
            counts[fn] = {}
            continue
        m = ins.match(line)
        if m and fn is not None:
            counts[fn][m.group(1)] = counts[fn].get(m.group(1), 0) + 1
    return counts

# ---------------------------------------------------------------------------------------------
# TensorProto files: raw little-endian data, bf16 as its 16-bit pattern (numpy has no bf16).
# ---------------------------------------------------------------------------------------------


def write_pb(path, t):
    p = onnx.TensorProto()
    p.dims.extend(t.shape)
    p.data_type = ONNX_DT[t.dtype]
    c = t.detach().contiguous().cpu()
    p.raw_data = (c.view(torch.int16) if t.dtype == torch.bfloat16 else c).numpy().tobytes()
    with open(path, "wb") as f:
        f.write(p.SerializeToString())


def read_pb(path):
    p = onnx.TensorProto()
    with open(path, "rb") as f:
        p.ParseFromString(f.read())
    if p.data_type not in RAW_NP:
        raise ValueError(f"{path}: data type {p.data_type} is not f32, f16 or bf16")
    if p.raw_data:
        a = np.frombuffer(p.raw_data, dtype=RAW_NP[p.data_type]).reshape(tuple(p.dims))
        t = torch.from_numpy(a.copy())
        return t.view(torch.bfloat16) if p.data_type == 16 else t
    from onnx import numpy_helper
    return torch.from_numpy(numpy_helper.to_array(p).astype(np.float32))

# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------


def make_inputs(c, dev, gen):
    """Fresh random operands in the case's dtype: A ~ N(0, 1), B ~ N(0, 1/K), bias ~ N(0, 1/4)."""
    t = TORCH_DT[c["dtype"]]
    scale = [1.0, 1.0 / math.sqrt(c["K"]), 0.5]  # conv: K = C * KH * KW, the weight's fan-in
    return [(torch.randn(*s, device=dev, generator=gen, dtype=torch.float32) * k).to(t)
            for s, k in zip(c["inputs"], scale)]


def torch_fn(c):
    """The case's function in torch (cuBLAS underneath for the product), on operands as given
    to the model: what the float64 reference and the torch timings both run."""
    if c.get("out_dtype"):  # the model casts its result (bench/gemm_models.py)
        inner = dict(c)
        del inner["out_dtype"]
        f = torch_fn(inner)
        return lambda *xs: f(*xs).to(torch.float64 if xs[0].dtype == torch.float64
                                     else TORCH_DT[c["out_dtype"]])
    if c["kind"] == "conv":
        kw = dict(stride=c["stride"], padding=c["pad"], dilation=c["dil"])
        act = F.relu if c.get("relu") else (lambda y: y)
        if c.get("bias"):
            return lambda x, w, b: act(F.conv2d(x, w, b, **kw))
        return lambda x, w: act(F.conv2d(x, w, **kw))
    if c["kind"] == "matmul":
        if c.get("bias"):
            if c.get("gelu"):
                return lambda a, b, bias: F.gelu(torch.matmul(a, b) + bias)
            return lambda a, b, bias: torch.matmul(a, b) + bias
        return lambda a, b: torch.matmul(a, b)
    ta, tb = c["transA"], c["transB"]
    op = lambda a, b: ((a.t() if ta else a), (b.t() if tb else b))
    if c.get("gelu"):
        if tb and not ta:  # nn.Linear: weight [N, K]
            return lambda a, b, bias: F.gelu(F.linear(a, b, bias))
        return lambda a, b, bias: F.gelu(torch.addmm(bias, *op(a, b)))
    if c.get("bias"):
        return lambda a, b, bias: torch.addmm(bias, *op(a, b))
    return lambda a, b: torch.matmul(*op(a, b))


class Timer:
    """Median (do_bench: L2 flushed before each call) and hot (back-to-back mean) timings, ms."""

    def __init__(self, dev, iters):
        self.dev, self.iters = dev, iters
        if dev == "cuda":
            from triton.testing import do_bench  # gpu-machine
            self.do_bench = do_bench

    def med(self, fn):
        if self.dev == "cuda":
            return self.do_bench(fn, warmup=25, rep=100, return_mode="median")
        ts = []
        for _ in range(3):
            t0 = time.perf_counter(); fn(); ts.append((time.perf_counter() - t0) * 1e3)
        return sorted(ts)[1]

    def hot(self, fn):
        fn()
        if self.dev != "cuda":
            t0 = time.perf_counter()
            for _ in range(self.iters):
                fn()
            return (time.perf_counter() - t0) * 1e3 / self.iters
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        # Keep the GPU busy (about 5 ms at 2 GHz) while Python enqueues the calls, so that
        # launch overhead (10-50 us a call through torch / Dynamo) does not show up as gaps
        # between small kernels: the events then time back-to-back GPU work, as aicc-run's
        # C++ launch loop does.
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(10_000_000)
        s.record()
        for _ in range(self.iters):
            fn()
        e.record()
        e.synchronize()
        return s.elapsed_time(e) / self.iters


class Runner:
    def __init__(self, args):
        self.a = args
        self.root = os.path.abspath(args.root)
        self.poison = True  # until aicc-run says it has no --poison
        self.exe = os.path.join(self.root, ".device/bin/aicc-run")
        self.env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.root, ".device/lib"))

    def run_aicc(self, bundle, inputs, tmp, iters):
        """One aicc-run: the check run on `inputs` (written as .pb files; outputs poisoned),
        then --benchmark iters. Returns (ms/run, output tensor on the CPU, log tail)."""
        args = []
        for i, x in enumerate(inputs):
            p = os.path.join(tmp, f"input_{i}.pb")
            write_pb(p, x)
            args += ["--input", p]
        od = os.path.join(tmp, "out")
        shutil.rmtree(od, ignore_errors=True)
        cmd = [self.exe, bundle, f"--device={self.a.device}", *args, "--output-dir", od,
               "--benchmark", str(iters)]
        try:
            # A kernel that deadlocks must not eat the whole GPU lease.
            r = subprocess.run(cmd + (["--poison"] if self.poison else []), capture_output=True,
                               text=True, env=self.env, timeout=120)
        except subprocess.TimeoutExpired:
            raise RuntimeError("aicc-run timed out after 120 s (a hang?)")
        if self.poison and r.returncode == 2 and "'--poison'" in r.stderr:
            print("note: aicc-run refused --poison, so outputs are not poisoned before the "
                  f"check run (NaN/Inf still fail): {r.stderr.strip()[:200]}", flush=True)
            self.poison = False
            r = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        log = (r.stdout + r.stderr)[-2000:]
        if r.returncode != 0:
            raise RuntimeError(f"aicc-run exit {r.returncode}:\n{log}")
        m = re.search(r"([0-9.]+) ms/run", r.stdout)
        if not m:
            raise RuntimeError(f"no 'ms/run' in aicc-run's output:\n{log}")
        return float(m.group(1)), read_pb(os.path.join(od, "output_0.pb")), log

    def case(self, c, gen):
        dev = self.a.device
        d = os.path.join(self.root, ".device/gemm", c["name"])
        bundle = os.path.join(d, "model.aicc")
        r = {"group": c["group"], "dtype": c["dtype"], "shape": c["inputs"], "M": c["M"],
             "N": c["N"], "K": c["K"], "batch": c["batch"], "flops": c["flops"],
             "tol": c.get("tol", TOL[c["dtype"]])}
        if not os.path.exists(bundle):
            p = os.path.join(d, "compile.log")
            log = open(p).read() if os.path.exists(p) else "(no compile.log)"
            first = next((l for l in log.splitlines() if "error" in l), log.strip()[:200])
            raise RuntimeError(f"no bundle, aicc-compile failed: {first}\n{log[-1500:]}")
        b = read_bundle(bundle)
        r["kernels"] = b["kernels"]
        inputs = make_inputs(c, dev, gen)
        fn = torch_fn(c)
        with torch.no_grad():
            ref = fn(*[x.double() for x in inputs])
        # Fewer timed runs where aicc might be slow (the CUDA-core path on the 8192 cases):
        # the product at a pessimistic 10 TFLOP/s must fit --aicc-ms-cap.
        iters = max(1, min(self.a.iters, int(self.a.aicc_ms_cap / (c["flops"] / 10e9))))
        r["aicc_iters"] = iters
        with tempfile.TemporaryDirectory() as tmp:
            ms, out, _ = self.run_aicc(bundle, inputs, tmp, iters)
        want = TORCH_DT[c["out_dtype"]] if c.get("out_dtype") else inputs[0].dtype
        if list(out.shape) != list(ref.shape) or out.dtype != want:
            raise RuntimeError(f"aicc output {out.dtype}{list(out.shape)}, expected "
                               f"{want}{list(ref.shape)}")
        got = out.to(dev).double()
        finite = bool(torch.isfinite(got).all())
        rel = float(torch.linalg.norm(got - ref) / torch.linalg.norm(ref))
        r.update(aicc_ms=ms, aicc_TFLOPs=c["flops"] / ms / 1e9, rel_err=rel,
                 max_abs_err=float((got - ref).abs().max()), finite=finite,
                 poisoned=self.poison, correct=finite and rel <= c.get("tol", TOL[c["dtype"]]))
        del got, ref, out
        if c["group"] == "num":
            return r
        tm = Timer(dev, self.a.iters)
        # torch 1.13 (the CPU dry run) has no f16 matmul on the CPU: time the f32 version there.
        tin = inputs if dev == "cuda" else [x.float() for x in inputs]
        r["torch_dtype"] = str(tin[0].dtype).replace("torch.", "")
        with torch.no_grad():
            f = lambda: fn(*tin)
            r["torch_hot_ms"] = tm.hot(f)
            r["torch_med_ms"] = tm.med(f)
            modes = [] if dev != "cuda" or self.a.no_compile else ["default"]
            if self.a.autotune and c["group"] in ("square", "linear_gelu"):
                modes.append("max-autotune-no-cudagraphs")
            for mode in modes:
                key = "compile" if mode == "default" else "autotune"
                try:  # a torch.compile failure leaves aicc's figures standing
                    torch._dynamo.reset()
                    cf = torch.compile(fn, dynamic=False,
                                       **({} if mode == "default" else {"mode": mode}))
                    t0 = time.time(); cf(*inputs); torch.cuda.synchronize()
                    r[f"{key}_s"] = time.time() - t0
                    g = lambda: cf(*inputs)
                    r[f"{key}_hot_ms"] = tm.hot(g)
                    r[f"{key}_med_ms"] = tm.med(g)
                except Exception as e:
                    r[f"{key}_error"] = (str(e).strip() or type(e).__name__)[-1000:]
                    print(f"{c['name']}: torch.compile ({mode}) failed: {r[key + '_error']}",
                          flush=True)
        for key in ("torch", "compile", "autotune"):
            if f"{key}_hot_ms" in r:
                r[f"{key}_TFLOPs"] = c["flops"] / r[f"{key}_hot_ms"] / 1e9
                r[f"{key}_med_TFLOPs"] = c["flops"] / r[f"{key}_med_ms"] / 1e9
                r[f"aicc_vs_{key}"] = r[f"{key}_hot_ms"] / ms  # speed ratio, > 1: aicc faster
        return r


def progress(name, r):
    """One line a case while the run goes (the full record is in the JSON)."""
    if "error" in r:
        return f"{name}: FAILED ({r['wall_s']:.1f} s)"
    line = (f"{name}: rel err {r['rel_err']:.2e} {'ok' if r['correct'] else 'WRONG'}, "
            f"aicc {r['aicc_ms']:.4f} ms {r['aicc_TFLOPs']:.1f} TFLOP/s")
    for key, what in (("torch", "cuBLAS"), ("compile", "compile"), ("autotune", "autotune")):
        if f"{key}_hot_ms" in r:
            line += f", {what} {r[f'{key}_hot_ms']:.4f} ms ({r[f'aicc_vs_{key}']:.2f}x)"
    return line + f" ({r['wall_s']:.1f} s)"


def fmt(v, f):
    return "" if v is None else format(v, f)


def ratio(v):
    return "" if v is None else f"{v:.2f}x"


def tables(res):
    cs = res["cases"]
    print(f"\n{res['device_name']}, torch {res['torch']}, {res['date']}; aicc-run --benchmark "
          f"up to {res['iters']}; outputs poisoned: {res['poisoned']}; seed {res['seed']}")
    num = [(n, r) for n, r in cs.items() if r.get("group") == "num"]
    if num:
        print("\n| case | dtype | rel err | tol | max abs err | correct | aicc ms |")
        print("|---|---|---|---|---|---|---|")
    for n, r in num:
        if "error" in r:
            print(f"| {n} | {r['dtype']} | | | | **FAILED: {r['error_line']}** | |")
            continue
        print(f"| {n} | {r['dtype']} | {r['rel_err']:.2e} | {r['tol']:.0e} | "
              f"{r['max_abs_err']:.2e} | {'yes' if r['correct'] else '**NO**'} | "
              f"{r['aicc_ms']:.4f} |")
    lg = [(n, r) for n, r in cs.items() if r.get("group") == "linear_gelu"]
    if lg:
        print("\n| Linear + bias + GELU | rel err | correct | aicc ms | torch eager ms | "
              "torch.compile ms | aicc / eager | aicc / compile |")
        print("|---|---|---|---|---|---|---|---|")
        for n, r in lg:
            if "error" in r:
                print(f"| {n} | | **FAILED: {r['error_line']}** | | | | | |")
                continue
            print(f"| {n} | {r['rel_err']:.2e} | {'yes' if r['correct'] else '**NO**'} | "
                  f"{r['aicc_ms']:.4f} | {fmt(r.get('torch_hot_ms'), '.4f')} | "
                  f"{fmt(r.get('compile_hot_ms'), '.4f')} | {ratio(r.get('aicc_vs_torch'))} | "
                  f"{ratio(r.get('aicc_vs_compile'))} |")
    # conv rows: the torch column is F.conv2d (cuDNN), M x N x K the implicit GEMM's.
    perf = [(n, r) for n, r in cs.items()
            if r.get("group") in ("square", "llm", "conv", "small")]
    if perf:
        print("\n| case | M x N x K | rel err | ok | aicc ms | aicc TFLOP/s | cuBLAS TFLOP/s | "
              "torch.compile TFLOP/s | aicc / cuBLAS | aicc / compile | cuBLAS do_bench "
              "TFLOP/s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, r in perf:
        shape = f"{r['M']} x {r['N']} x {r['K']}"
        if "error" in r:
            print(f"| {n} | {shape} | | **FAILED: {r['error_line']}** | | | | | | | |")
            continue
        print(f"| {n} | {shape} | {r['rel_err']:.1e} | {'yes' if r['correct'] else '**NO**'} | "
              f"{r['aicc_ms']:.4f} | {r['aicc_TFLOPs']:.1f} | "
              f"{fmt(r.get('torch_TFLOPs'), '.1f')} | {fmt(r.get('compile_TFLOPs'), '.1f')} | "
              f"{ratio(r.get('aicc_vs_torch'))} | {ratio(r.get('aicc_vs_compile'))} | "
              f"{fmt(r.get('torch_med_TFLOPs'), '.1f')} |")
    at = [(n, r) for n, r in cs.items() if "autotune_hot_ms" in r]
    if at:
        print("\n| case | torch.compile max-autotune-no-cudagraphs ms | TFLOP/s | compile s | "
              "aicc / autotuned |")
        print("|---|---|---|---|---|")
    for n, r in at:
        print(f"| {n} | {r['autotune_hot_ms']:.4f} | {r['autotune_TFLOPs']:.1f} | "
              f"{r['autotune_s']:.0f} | {ratio(r.get('aicc_vs_autotune'))} |")
    s = res["summary"]
    print(f"\n{s['correct']} correct, {s['wrong']} wrong, {s['failed']} failed, "
          f"{s['skipped']} skipped (of {s['selected']} selected)")


def main():
    p = argparse.ArgumentParser(description="tensor-core GEMM benchmark (issue 6), GPU side")
    p.add_argument("patterns", nargs="*", help="run cases whose name matches one (re.search)")
    p.add_argument("--root", default=os.getcwd(), help="directory holding .device/ (default .)")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--iters", type=int, default=50, help="aicc-run --benchmark N and hot runs")
    p.add_argument("--aicc-ms-cap", type=float, default=1000,
                   help="aicc-run --benchmark runs at most this many ms (at 10 TFLOP/s) a case")
    p.add_argument("--no-big", action="store_true", help="skip the M = 8192 cases")
    p.add_argument("--no-compile", action="store_true", help="no torch.compile timings")
    p.add_argument("--autotune", action="store_true",
                   help="also torch.compile mode=max-autotune-no-cudagraphs (square and "
                        "linear_gelu cases; tens of seconds a case)")
    p.add_argument("--budget", type=float, default=450,
                   help="seconds: cases not started by then are skipped (default 450)")
    p.add_argument("--seed", type=int, default=None, help="default: a fresh one, recorded")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    p.add_argument("--sass", metavar="CASE|BUNDLE")
    p.add_argument("--bundle-info", metavar="CASE|BUNDLE")
    a = p.parse_args()
    out_dir = os.environ.get("OUT", "/tmp")
    if a.sass:
        sys.exit(sass(bundle_path(a.root, a.sass), out_dir))
    if a.bundle_info:
        bundle_info(bundle_path(a.root, a.bundle_info))
        return
    with open(os.path.join(a.root, ".device/gemm/cases.json")) as f:
        cases = [c for c in json.load(f)
                 if not a.patterns or any(re.search(x, c["name"]) for x in a.patterns)]
    if a.list:
        for c in cases:
            print(c["name"], c["inputs"], c["flops"])
        return
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    gen = torch.Generator(device=a.device).manual_seed(seed)
    res = {"device_name": torch.cuda.get_device_name(0) if a.device == "cuda" else "cpu",
           "torch": torch.__version__, "iters": a.iters, "seed": seed, "tolerances": TOL,
           "autotune": a.autotune, "compile": a.device == "cuda" and not a.no_compile,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "poisoned": True,
           "cases": {}}
    runner, t_start = Runner(a), time.time()
    skipped = 0
    json_path = os.path.join(out_dir, "gemm.json")
    for c in cases:
        name = c["name"]
        if a.no_big and c["M"] >= 8192:
            skipped += 1
            continue
        if time.time() - t_start > a.budget:
            print(f"{name}: skipped (budget of {a.budget:.0f} s spent)", flush=True)
            skipped += 1
            continue
        t0 = time.time()
        try:
            r = runner.case(c, gen)
        except Exception as e:  # one failing case must not stop the run
            msg = str(e).strip() or type(e).__name__
            r = {"group": c["group"], "dtype": c["dtype"], "M": c["M"], "N": c["N"],
                 "K": c["K"], "error": msg[-2000:], "traceback": traceback.format_exc()[-2000:],
                 "error_line": (msg.splitlines() or ["?"])[0][:80].replace("|", "/")}
            print(f"{name}: FAILED: {msg[-1500:]}", flush=True)
        r["wall_s"] = time.time() - t0
        res["cases"][name] = r
        res["poisoned"] = runner.poison
        print(progress(name, r), flush=True)
        if a.device == "cuda":
            torch.cuda.empty_cache()
        done = res["cases"].values()
        res["summary"] = {"selected": len(cases), "skipped": skipped,
                          "correct": sum(1 for x in done if x.get("correct")),
                          "wrong": sum(1 for x in done if x.get("correct") is False),
                          "failed": sum(1 for x in done if "error" in x)}
        with open(json_path, "w") as f:
            json.dump(res, f, indent=1)
    res.setdefault("summary", {"selected": len(cases), "skipped": skipped, "correct": 0,
                               "wrong": 0, "failed": 0})
    res["summary"]["skipped"] = skipped
    with open(json_path, "w") as f:
        json.dump(res, f, indent=1)
    tables(res)
    print(f"full results: {json_path}")
    s = res["summary"]
    sys.exit(0 if s["wrong"] == 0 and s["failed"] == 0 else 1)


if __name__ == "__main__":
    main()
