#!/usr/bin/env python3
"""Issue 19's symbolic-sequence check and benchmark: one bundle for every prompt length.

GPT-2 (bench/models.py's GPT2: 2 layers, d 768, 12 heads, learned positions for 1024, f16)
exported once with the sequence dynamic (torch.export's Dim("seq", 1..1024), batch 1, the
dynamo exporter: the causal mask and the position table are sliced to the length), compiled
once with `--dim seq=1..1024`, and per length:

  - checked against torch's eager forward pass on the same device, with `aicc-run --poison`
    (every buffer's tail NaN before each run);
  - timed (aicc-run --benchmark, CUDA graphs) against the same range compiled with one tile
    config (`--shape-buckets=1`, sym1.aicc, when present), the bundle specialized to that
    length (`--dim seq=N` on the same ONNX file) and torch eager, one CUDA graph of eager replayed and
    torch.compile(mode="reduce-overhead", dynamic=False), all in this process's run.

Usage (the GPU machine, scripts/gpu-dynamic-seq.sh):
  dynamic_seq.py export DIR            the ONNX model and DIR/export.txt
  dynamic_seq.py run DIR [LEN ...]     needs DIR/sym.aicc and DIR/seqN.aicc (compiled by the
                                       script); prints one JSON line per length and a table
Without a GPU `export` runs on the CPU (a check of the export and the compile).
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "models", "torch"))
import models as bm  # noqa: E402  (bench/models.py)

MAX = 1024
LENGTHS = (1, 7, 64, 128, 513, 1024)


def build(device):
    torch.manual_seed(0)
    model = bm.GPT2(layers=2, d=768, heads=12, seq=MAX).eval().to(device, torch.float16)
    return model


def export(out):
    import onnx
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = build(device)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    seq = torch.export.Dim("seq", min=1, max=MAX)
    x = torch.randn(1, 16, 768, device=device, dtype=torch.float16)
    t0 = time.time()
    with torch.no_grad():
        torch.onnx.export(model, (x,), path, input_names=["input_0"], output_names=["output_0"],
                          dynamic_shapes=({1: seq},), opset_version=18, dynamo=True,
                          external_data=False)
    onnx.checker.check_model(onnx.load(path))
    with open(os.path.join(out, "export.txt"), "w") as f:
        f.write("dynamo, torch %s, %s, %.1f s\n" % (torch.__version__, device, time.time() - t0))
    print("exported", path, os.path.getsize(path), "bytes", flush=True)


def run(out, lengths):
    from onnx import load_tensor, numpy_helper
    model = build("cuda")
    g = torch.Generator().manual_seed(1)
    aicc_run, env = bm.aicc_run_tool()
    rows = []
    for n in lengths:
        r = {"seq": n}
        x = torch.randn(1, n, 768, generator=g).to("cuda", torch.float16)
        with torch.no_grad():
            ref = model(x)
        d = os.path.join(out, "seq%d" % n)
        os.makedirs(d, exist_ok=True)
        bm.write_input(os.path.join(d, "input_0.pb"), x)
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(ref.float().cpu().numpy().astype(np.float16),
                                            "output_0").SerializeToString())
        # Correctness with every tail NaN: the symbolic bundle (sym.aicc, sm_90a's wgmma
        # kernels) and, where compiled, the same for sm_90 (sym_sm90.aicc: mma.sync kernels).
        for key, bundle in (("sym", "sym.aicc"), ("sym_sm90", "sym_sm90.aicc")):
            if not os.path.exists(os.path.join(out, bundle)):
                continue
            od = os.path.join(d, key + "_out")
            chk = subprocess.run([aicc_run, os.path.join(out, bundle), "--device=cuda",
                                  "--poison", "--input", os.path.join(d, "input_0.pb"),
                                  "--output-dir", od], capture_output=True, text=True, env=env)
            if chk.returncode != 0:
                r[key + "_error"] = (chk.stdout + chk.stderr)[-600:]
                continue
            got = numpy_helper.to_array(load_tensor(os.path.join(od, "output_0.pb")))
            want = ref.float().cpu().numpy()
            r[key + "_maxabs"] = float(np.max(np.abs(got.astype(np.float64) - want)))
            r["ref_maxabs"] = float(np.max(np.abs(want)))
            r[key + "_ok"] = bool(np.allclose(got.astype(np.float64), want, rtol=2e-2,
                                              atol=2e-2 * max(1.0, r["ref_maxabs"])))
        for key, bundle in (("sym", "sym.aicc"), ("sym1", "sym1.aicc"),
                            ("spec", "seq%d.aicc" % n)):
            path = os.path.join(out, bundle)
            if key == "sym1" and not os.path.exists(path):
                continue
            if not os.path.exists(path):
                r[key + "_ms_error"] = "no bundle " + bundle
                continue
            ms, log = bm.run_aicc(path, os.path.join(d, "input_0.pb"),
                                  os.path.join(d, key + "_bench"), graphs=True)
            if ms is None:
                r[key + "_ms_error"] = log
            else:
                r[key + "_ms"] = ms
                r[key + "_launches"] = log.get("launches")
        os.environ.setdefault("AICC_BENCH_COMPILE_MODES", "reduce-overhead")
        bm.torch_figures(model, x, r)
        if "sym_ms" in r and "spec_ms" in r:
            r["sym_over_spec"] = r["sym_ms"] / r["spec_ms"]
        if "sym1_ms" in r and "spec_ms" in r:
            r["sym1_over_spec"] = r["sym1_ms"] / r["spec_ms"]
        best = min(v for k, v in r.items() if k in ("eager_ms", "cuda_graph_ms", "compile_ro_ms"))
        if "sym_ms" in r:
            r["best_torch_over_sym"] = best / r["sym_ms"]
        print(json.dumps(r), flush=True)
        rows.append(r)
    print("\n| seq | sym ok (max abs err) | sm_90 sym ok | sym ms | one-config sym ms | spec ms "
          "| sym/spec | one-config/spec | eager ms | cuda graph ms | compile(ro) ms "
          "| best torch / sym |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    f = lambda r, k: ("%.4f" % r[k]) if k in r else "-"  # noqa: E731
    for r in rows:
        print("| %d | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["seq"], r.get("sym_ok", "error"), f(r, "sym_maxabs"), r.get("sym_sm90_ok", "-"),
            f(r, "sym_ms"), f(r, "sym1_ms"),
            f(r, "spec_ms"), f(r, "sym_over_spec"), f(r, "sym1_over_spec"), f(r, "eager_ms"),
            f(r, "cuda_graph_ms"), f(r, "compile_ro_ms"), f(r, "best_torch_over_sym")))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "export":
        export(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2], [int(a) for a in sys.argv[3:]] or LENGTHS)
    else:
        sys.exit(__doc__)
