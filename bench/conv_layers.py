# aicc-deps: gpu-machine (torch 2.11, onnx, numpy there; export and the cpu check also run here)
"""Per-layer convolutions (issue 18): every distinct conv layer of torchvision's ResNet-18 and
ResNet-50 at batch 1 and 32, fp16, aicc against cuDNN (torch.nn.functional.conv2d on
channels_last tensors) in one run on the GPU machine. The issue's bar: >= 0.9x cuDNN per shape.

  python3 bench/conv_layers.py shapes                  # the shapes as a markdown table
  python3 bench/conv_layers.py export DIR [--batches 1,32] [--small] [NAME...]
        # DIR/<name>/model.onnx: one Conv of the layer's shape, seeded random f16 weights,
        # between two Transposes: input_0 [N, H, W, C] (NHWC) -> Transpose to NCHW -> Conv
        # (no bias, as in ResNet) -> Transpose back -> output_0 [N, P, Q, K] (NHWC).
        # graph-conv-layout's NHWC plan (docs/fusion.md) cancels both transposes, so the
        # bundle is the conv kernel alone, reading and writing channels-last memory as
        # cuDNN's channels_last conv does. --small divides H and W by 8 (a smoke run on the
        # cpu target; not the layers' shapes); NAME: only those layers (names as `shapes`
        # prints them, with _b<N>).
  (aicc-compile DIR/<name>/model.onnx --target=sm_90a -o DIR/<name>/model.aicc)
  python3 bench/conv_layers.py bench DIR [NAME...]
        # times every DIR/<name>/model.aicc and cuDNN in the same run; $OUT/conv_layers.json
        # and a markdown table (also $OUT/conv_layers.md)

scripts/gpu-cnn-bench.sh does all of it on the GPU machine (export, compile with 16 jobs,
bench) together with bench/models.py's ResNet entries.

Layer names: c<C>_h<H>_k<K>_r<R>_s<stride>_b<N> (H = W, R = S and pad = R // 2 for every
ResNet layer; groups 1). The stem (c3_h224_k64_r7_s2) has 3 input channels: with the NHWC
graph input the transposes cancel before graph-conv-layout's channel padding (it pads only
a conv whose input is still a layout transpose, inside that transpose's kernel), so the conv
gathers 3-channel pixels; c3p4_h224_k64_r7_s2 is the same layer with the input already
padded to 4 zero channels, as the stem runs inside a whole ResNet on sm_90a (its layout
copy, a kernel of its own there, is not timed): both are set against cuDNN's 3-channel conv.

`bench` per layer (CUDA events, AICC_BENCH_ITERS calls after a warm-up, mean ms per call, as
bench/models.py times whole models): cuDNN eager with its heuristics
(torch.backends.cudnn.benchmark off, torch's default), eager with cudnn.benchmark on (its
autotuned algorithm), and one CUDA graph of the autotuned call replayed; the fastest of the
three is the anchor. aicc: `aicc-run --benchmark N --json` (events around N back-to-back runs
of the launch plan, with CUDA graphs; AICC_CONV_NOGRAPH=1 also without). torch warms up 10
calls (and cudnn.benchmark's tuning call); aicc-run runs the plan twice before its timed runs
(the checked run and its benchmark's warm-up). Both read seeded random inputs (N(0, 1)) and
weights (N(0, 1 / fan_in)), the same bytes on both sides (the weights from the ONNX file,
the input from input_0.pb): every aicc output is checked against cuDNN's (rtol = atol = 2e-2
on outputs of unit scale). The bundle's kernel count (launch records) is reported; the
issue wants 1. aicc-run is $AICC_BIN_DIR/aicc-run (LD_LIBRARY_PATH as set), else
.device/bin/aicc-run with .device/lib.

Also per model and batch: the sum over its conv layers (each shape times its count in the
model) of aicc's and the anchor's times: what the convs alone would take (no BN, ReLU or
residual: those are fused into aicc's conv kernels in the whole model).

AICC_BENCH_DEVICE=cpu runs `bench` on the cpu target (torch on the CPU in float32 from the
same f16 values, wall clock; a correctness smoke test of the pipeline, not a benchmark).

Without a GPU: `export` and the cpu `bench` run under Debian's /usr/bin/python3 (torch 1.13,
onnx, numpy; LAYERS then go unchecked against torchvision). bench/models.py's ResNet exports
need torch 2.11 and torchvision, which setup.sh does not install: a developer aid only, in a
venv of its own (PyPI's CUDA wheels; the CUDA libraries they link come from /usr/local/cuda
but for three):
  python3 -m venv /work/venv-export && P=/work/venv-export/bin/pip
  $P download --no-deps -d /tmp/w torch==2.11.0 torchvision==0.26.0 && $P install --no-deps /tmp/w/*
  $P install --no-deps nvidia-cusparselt-cu13==0.8.0 nvidia-nvshmem-cu13==3.4.5 nvidia-cufile
  $P install numpy onnx onnxscript pillow typing_extensions sympy filelock networkx jinja2 fsspec
"""
import json
import os
import sys
import tempfile
import time
import zlib

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
ITERS = int(os.environ.get("AICC_BENCH_ITERS", "200"))

# (C, H, K, R, stride) -> times the layer occurs in (resnet18, resnet50) (torchvision 0.26,
# 224 x 224 input; measured with forward hooks on every nn.Conv2d, and checked again by
# `export` where torchvision imports). W = H, S = R, pad = R // 2, groups 1, no bias.
LAYERS = {
    (3, 224, 64, 7, 2): (1, 1),
    (64, 56, 64, 3, 1): (4, 3),
    (64, 56, 128, 3, 2): (1, 0),
    (64, 56, 128, 1, 2): (1, 0),
    (128, 28, 128, 3, 1): (3, 3),
    (128, 28, 256, 3, 2): (1, 0),
    (128, 28, 256, 1, 2): (1, 0),
    (256, 14, 256, 3, 1): (3, 5),
    (256, 14, 512, 3, 2): (1, 0),
    (256, 14, 512, 1, 2): (1, 0),
    (512, 7, 512, 3, 1): (3, 2),
    (64, 56, 64, 1, 1): (0, 1),
    (64, 56, 256, 1, 1): (0, 4),
    (256, 56, 64, 1, 1): (0, 2),
    (256, 56, 128, 1, 1): (0, 1),
    (128, 56, 128, 3, 2): (0, 1),
    (128, 28, 512, 1, 1): (0, 4),
    (256, 56, 512, 1, 2): (0, 1),
    (512, 28, 128, 1, 1): (0, 3),
    (512, 28, 256, 1, 1): (0, 1),
    (256, 28, 256, 3, 2): (0, 1),
    (256, 14, 1024, 1, 1): (0, 6),
    (512, 28, 1024, 1, 2): (0, 1),
    (1024, 14, 256, 1, 1): (0, 5),
    (1024, 14, 512, 1, 1): (0, 1),
    (512, 14, 512, 3, 2): (0, 1),
    (512, 7, 2048, 1, 1): (0, 3),
    (1024, 14, 2048, 1, 2): (0, 1),
    (2048, 7, 512, 1, 1): (0, 2),
}
MODELS = ("resnet18", "resnet50")
STEM = (3, 224, 64, 7, 2)
PAD4 = "c3p4_h224_k64_r7_s2"  # the stem with its input padded to 4 channels


def tag(key):
    c, h, k, r, s = key
    return "c%d_h%d_k%d_r%d_s%d" % (c, h, k, r, s)


def layer(name):
    """name (with _b<N>, optionally a --small export's _x8) -> dict of the conv's shape."""
    base, _, b = name.rpartition("_b")
    n = int(b)
    pad4 = base == PAD4
    key = STEM if pad4 else next(k for k in LAYERS if tag(k) == base)
    c, h, k, r, s = key
    return {"name": name, "n": n, "c": c, "c_stored": 4 if pad4 else c, "h": h, "w": h,
            "k": k, "r": r, "s": r, "stride": s, "pad": r // 2, "groups": 1,
            "counts": dict(zip(MODELS, LAYERS[key])), "pad4": pad4}


def out_hw(h, r, stride, pad):
    return (h + 2 * pad - r) // stride + 1


def check_against_torchvision():
    """LAYERS against forward hooks on torchvision's resnet18 / resnet50 (when it imports)."""
    try:
        import torch
        import torchvision
    except ImportError:
        return "torchvision not importable: LAYERS not rechecked"
    found = {}
    for i, arch in enumerate(MODELS):
        m = getattr(torchvision.models, arch)().eval()

        def hook(mod, inp, out, i=i):
            x = inp[0]
            assert mod.groups == 1 and mod.bias is None and mod.dilation == (1, 1)
            assert x.shape[2] == x.shape[3] and mod.kernel_size[0] == mod.kernel_size[1]
            assert mod.padding[0] == mod.kernel_size[0] // 2 and mod.stride[0] == mod.stride[1]
            key = (x.shape[1], x.shape[2], mod.out_channels, mod.kernel_size[0], mod.stride[0])
            found.setdefault(key, [0, 0])[i] += 1

        hs = [mod.register_forward_hook(hook) for mod in m.modules()
              if isinstance(mod, torch.nn.Conv2d)]
        with torch.no_grad():
            m(torch.randn(1, 3, 224, 224))
        for h in hs:
            h.remove()
    found = {k: tuple(v) for k, v in found.items()}
    if found != LAYERS:
        sys.exit("LAYERS differ from torchvision %s's:\n%s" % (torchvision.__version__, found))
    return "LAYERS match torchvision %s" % torchvision.__version__


def all_names(batches):
    names = []
    for n in batches:
        names += ["%s_b%d" % (tag(k), n) for k in LAYERS]
        names.append("%s_b%d" % (PAD4, n))
    return names


def shapes():
    print("| layer | C | H = W | K | R = S | stride | pad | P = Q | GFLOP at batch 1 | "
          "in resnet18 | in resnet50 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, (n18, n50) in LAYERS.items():
        c, h, k, r, s = key
        p = out_hw(h, r, s, r // 2)
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %.3f | %d | %d |" % (
            tag(key), c, h, k, r, s, r // 2, p, 2 * k * p * p * c * r * r / 1e9, n18, n50))
    print("\n%d distinct layers (%d in resnet18, %d in resnet50); %s_b<N> is the stem with "
          "its input padded to 4 channels." % (len(LAYERS), sum(1 for v in LAYERS.values()
                                                                if v[0]),
                                               sum(1 for v in LAYERS.values() if v[1]), PAD4))


def seed_of(name):
    return zlib.crc32(name.encode())


def export(out, argv):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    batches, small, names = [1, 32], False, []
    i = 0
    while i < len(argv):
        if argv[i] == "--batches":
            batches = [int(b) for b in argv[i + 1].split(",")]
            i += 2
            continue
        if argv[i] == "--small":
            small = True
        else:
            names.append(argv[i])
        i += 1
    print(check_against_torchvision(), flush=True)
    for name in names or all_names(batches):
        L = layer(name)
        n, c, k, r, st, pad = L["n"], L["c_stored"], L["k"], L["r"], L["stride"], L["pad"]
        h = max(L["h"] // 8, r) if small else L["h"]
        p = out_hw(h, r, st, pad)
        rng = np.random.default_rng(seed_of(name))
        w = (rng.standard_normal((k, c, r, r)) / np.sqrt(L["c"] * r * r)).astype(np.float16)
        if L["pad4"]:
            w[:, 3:] = 0  # the padded channel contributes nothing
        x = rng.standard_normal((n, h, h, c)).astype(np.float16)
        if L["pad4"]:
            x[..., 3:] = 0
        nodes = [
            helper.make_node("Transpose", ["input_0"], ["x_nchw"], perm=[0, 3, 1, 2]),
            helper.make_node("Conv", ["x_nchw", "weight"], ["y_nchw"], kernel_shape=[r, r],
                             strides=[st, st], pads=[pad] * 4, group=1, dilations=[1, 1]),
            helper.make_node("Transpose", ["y_nchw"], ["output_0"], perm=[0, 2, 3, 1]),
        ]
        g = helper.make_graph(
            nodes, name,
            [helper.make_tensor_value_info("input_0", TensorProto.FLOAT16, [n, h, h, c])],
            [helper.make_tensor_value_info("output_0", TensorProto.FLOAT16, [n, p, p, k])],
            initializer=[numpy_helper.from_array(w, "weight")])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8,
                              producer_name="bench/conv_layers.py")
        onnx.checker.check_model(m)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        onnx.save(m, os.path.join(d, "model.onnx"))
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "input_0").SerializeToString())
        L.update(h=h, w=h, p=p, q=p, small=small)
        with open(os.path.join(d, "layer.json"), "w") as f:
            json.dump(L, f)
    print("exported %d layer models to %s" % (len(names or all_names(batches)), out))


def launches(bundle):
    """The bundle's launch records (its kernels as launched: docs/bundle-format.md)."""
    with open(bundle, "rb") as f:
        f.read(8)
        size = int.from_bytes(f.read(8), "little")
        manifest = f.read(size).decode()
    return sum(1 for line in manifest.splitlines() if line.startswith("launch "))


def bench(base, only):
    import onnx
    import torch
    import torch.nn.functional as F
    from onnx import numpy_helper

    sys.path.insert(0, here)
    from models import run_aicc, time_ms

    device = os.environ.get("AICC_BENCH_DEVICE", "cuda")
    cuda = device == "cuda"
    out = os.environ.get("OUT", "/tmp")
    res = {"gpu": torch.cuda.get_device_name(0) if cuda else "cpu", "torch": torch.__version__,
           "cudnn": torch.backends.cudnn.version() if cuda else None, "iters": ITERS,
           "device": device, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "layers": {}}
    names = only or sorted(os.listdir(base), key=lambda s: (int(s.rpartition("_b")[2]), s))
    tmp = tempfile.mkdtemp(prefix="aicc_conv_")
    for name in names:
        d = os.path.join(base, name)
        with open(os.path.join(d, "layer.json")) as f:
            L = json.load(f)
        r = dict(L)
        res["layers"][name] = r
        mp = onnx.load(os.path.join(d, "model.onnx"))
        w_np = numpy_helper.to_array(mp.graph.initializer[0])
        x_np = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "input_0.pb")))
        n, c, h, k, rr, st, pad = (L["n"], L["c"], L["h"], L["k"], L["r"], L["stride"],
                                   L["pad"])
        r["gflop"] = 2 * n * k * L["p"] * L["q"] * c * rr * rr / 1e9
        # torch's operands: the 3 real channels of a padded stem (cuDNN's layer is the
        # 3-channel one), NCHW-shaped views of channels-last memory.
        xc, wc = x_np[..., :c], w_np[:, :c]
        if cuda:
            x = torch.from_numpy(np.ascontiguousarray(xc)).cuda().permute(0, 3, 1, 2)
            w = torch.from_numpy(np.ascontiguousarray(wc)).cuda().to(
                memory_format=torch.channels_last)
            assert x.is_contiguous(memory_format=torch.channels_last)
            conv = lambda: F.conv2d(x, w, None, st, pad, 1, 1)
            with torch.no_grad():
                torch.backends.cudnn.benchmark = False
                ref = conv()
                r["cudnn_default_ms"] = time_ms(conv)
                torch.backends.cudnn.benchmark = True
                conv()  # the autotuning call
                r["cudnn_tuned_ms"] = time_ms(conv)
                g = torch.cuda.CUDAGraph()
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        conv()
                torch.cuda.current_stream().wait_stream(s)
                with torch.cuda.graph(g):
                    conv()
                r["cudnn_graph_ms"] = time_ms(g.replay)
                torch.backends.cudnn.benchmark = False
            want = ref.permute(0, 2, 3, 1).float().cpu().numpy()  # NHWC
            anchors = ("cudnn_default_ms", "cudnn_tuned_ms", "cudnn_graph_ms")
        else:
            x = torch.from_numpy(xc.astype(np.float32)).permute(0, 3, 1, 2)
            w = torch.from_numpy(wc.astype(np.float32))
            conv = lambda: F.conv2d(x, w, None, st, pad, 1, 1)
            with torch.no_grad():
                want = conv().permute(0, 2, 3, 1).numpy()
                t0 = time.perf_counter()
                for _ in range(ITERS):
                    conv()
                r["torch_cpu_ms"] = (time.perf_counter() - t0) * 1e3 / ITERS
            anchors = ("torch_cpu_ms",)
        r["anchor"] = min(anchors, key=lambda a: r[a])
        r["anchor_ms"] = r[r["anchor"]]
        bundle = os.path.join(d, "model.aicc")
        if not os.path.exists(bundle):
            log = os.path.join(d, "compile.log")
            r["aicc_error"] = open(log).read()[-600:] if os.path.exists(log) else "no bundle"
            print(name, "no bundle", flush=True)
            continue
        r["kernels"] = launches(bundle)
        od = os.path.join(tmp, name)
        modes = [(True, "aicc")] + ([(False, "aicc_nograph")]
                                    if cuda and os.environ.get("AICC_CONV_NOGRAPH") == "1"
                                    else [])
        for graphs, key in modes:
            ms, rec = run_aicc(bundle, os.path.join(d, "input_0.pb"), od, graphs,
                               device=device)
            if ms is None:
                r[key + "_error"] = rec
                continue
            r[key + "_ms"] = ms
            r[key + "_plan_ms"] = rec["plan_ms"]
            got = numpy_helper.to_array(onnx.load_tensor(os.path.join(od, "output_0.pb")))
            got = got.astype(np.float64)
            r[key + "_maxabs"] = float(np.max(np.abs(got - want)))
            r[key + "_ok"] = bool(got.shape == want.shape and
                                  np.allclose(got, want, rtol=2e-2, atol=2e-2))
        r["ref_maxabs"] = float(np.max(np.abs(want)))
        if "aicc_ms" in r:
            r["aicc_TFLOPs"] = r["gflop"] / r["aicc_ms"]
            r["anchor_TFLOPs"] = r["gflop"] / r["anchor_ms"]
            r["aicc_vs_anchor"] = r["anchor_ms"] / r["aicc_ms"]
        print(name, json.dumps({k: v for k, v in r.items() if not k.endswith("plan_ms")}),
              flush=True)
        for f in os.listdir(od) if os.path.isdir(od) else []:
            os.remove(os.path.join(od, f))
        with open(os.path.join(out, "conv_layers.json"), "w") as f:  # after each layer
            json.dump(res, f, indent=1)
    md = table(res)
    print(md)
    with open(os.path.join(out, "conv_layers.md"), "w") as f:
        f.write(md)


def table(res):
    ref = "cuDNN" if res["device"] == "cuda" else "torch cpu"
    rows = ["| layer | batch | GFLOP | kernels | aicc ms | %s default | cuDNN tuned | "
            "cuDNN graph | aicc / best | aicc TFLOP/s | best TFLOP/s | correct (max abs err) |"
            % ref,
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    f = lambda r, k: "%.4f" % r[k] if k in r else "-"
    ratios, totals = [], {}
    for name, r in res["layers"].items():
        ratio = r.get("aicc_vs_anchor")
        if ratio is not None and not r.get("pad4"):
            ratios.append(ratio)
        rows.append("| %s | %d | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) |" % (
            name.rpartition("_b")[0], r["n"], r["gflop"], r.get("kernels", "-"), f(r, "aicc_ms"),
            f(r, "cudnn_default_ms") if "cudnn_default_ms" in r else f(r, "torch_cpu_ms"),
            f(r, "cudnn_tuned_ms"), f(r, "cudnn_graph_ms"),
            ("**%.2fx**" if ratio >= 0.9 else "%.2fx") % ratio if ratio else "-",
            "%.1f" % r["aicc_TFLOPs"] if "aicc_TFLOPs" in r else "-",
            "%.1f" % r["anchor_TFLOPs"] if "anchor_TFLOPs" in r else "-",
            r.get("aicc_ok", "-"), "%.3g" % r["aicc_maxabs"] if "aicc_maxabs" in r else "-"))
        if "aicc_ms" in r and not r.get("pad4"):
            for m, cnt in r["counts"].items():
                if cnt:
                    t = totals.setdefault((m, r["n"]), [0.0, 0.0, 0])
                    t[0] += cnt * r["aicc_ms"]
                    t[1] += cnt * r["anchor_ms"]
                    t[2] += cnt
    lines = rows
    if ratios:
        met = sum(1 for x in ratios if x >= 0.9)
        lines.append("\n%d of %d layer shapes (the padded stem left out) at >= 0.9x the fastest "
                     "%s call; geomean %.3fx, lowest %.2fx." % (
                         met, len(ratios), ref, float(np.exp(np.mean(np.log(ratios)))), min(ratios)))
    if totals:
        lines.append("\n| model | batch | convs | aicc ms (sum over its convs) | %s best ms "
                     "(sum) | aicc / %s |\n|---|---|---|---|---|---|" % (ref, ref))
        for (m, n), (a, b, cnt) in sorted(totals.items()):
            lines.append("| %s | %d | %d | %.4f | %.4f | %.2fx |" % (m, n, cnt, a, b, b / a))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "shapes":
        shapes()
    elif len(sys.argv) >= 3 and sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "bench":
        bench(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
