#!/usr/bin/python3
"""aicc-opt reproduces aicc-compile, byte for byte, at every MLIR stage and target.

For each case (a model, a target, a set of pipeline knobs) and each MLIR stage S (graph,
fused, tile, and the target's lowering gpu / cpu):
  direct   aicc-opt RAW --pass-pipeline='builtin.module(aicc-pipeline{target=T from=onnx to=S KNOBS})'
  chained  aicc-opt PREV --pass-pipeline='builtin.module(<S's own pipeline>{target=T KNOBS})'
           where PREV is aicc-compile's output of the stage before S, and S's own pipeline is
           aicc-graph-pipeline / aicc-fusion-pipeline / aicc-tile-pipeline / aicc-cpu-pipeline,
           or aicc-pipeline{from=tile to=gpu} (aicc-gpu-pipeline adds gpu-module-to-binary)
must both print exactly what `aicc-compile --target=T --compile-to=S KNOBS` writes. RAW is
`aicc-compile --compile-to=onnx` (the importer's output) for .onnx models, the file itself
for graph-dialect .mlir. The knobs are spelled the same in both tools (aicc-compile's
--conv-layout=nhwc is aicc-pipeline's conv-layout=nhwc: PipelineOptions.def).

usage: reproduce_stages.py WORKDIR MODEL[:TARGET[,TARGET...][:KNOB=V[,KNOB=V...]]] ...
Prints one line per case and stage ("same ..." or "DIFFERS ..."), then a summary; exit 1
when anything differs or a tool fails.
"""
import os
import subprocess
import sys

TARGETS = ["cpu", "sm_80", "sm_90", "sm_90a"]
STAGE_PIPELINE = {"graph": "aicc-graph-pipeline", "fused": "aicc-fusion-pipeline",
                  "tile": "aicc-tile-pipeline", "cpu": "aicc-cpu-pipeline"}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        sys.stdout.write("TOOL FAILED: " + " ".join(cmd) + "\n" +
                         r.stderr.decode(errors="replace"))
        return None
    return r.stdout


def main():
    work, specs = sys.argv[1], sys.argv[2:]
    os.makedirs(work, exist_ok=True)
    checked = differ = 0
    for n, spec in enumerate(specs):
        parts = spec.split(":")
        model = parts[0]
        targets = parts[1].split(",") if len(parts) > 1 and parts[1] else TARGETS
        knobs = parts[2].split(",") if len(parts) > 2 and parts[2] else []
        flags = ["--" + k for k in knobs]
        if model.endswith(".onnx"):
            raw = os.path.join(work, f"{n}-raw.mlir")
            if run(["aicc-compile", model, "--compile-to=onnx", "-o", raw]) is None:
                return 1
        else:
            raw = model
        for t in targets:
            stages = ["graph", "fused", "tile", "cpu" if t == "cpu" else "gpu"]
            prev = raw
            for s in stages:
                out = os.path.join(work, f"{n}-{t}-{s}.mlir")
                if run(["aicc-compile", model, f"--target={t}", f"--compile-to={s}", *flags,
                        "-o", out]) is None:
                    return 1
                with open(out, "rb") as f:
                    want = f.read()
                opts = " ".join([f"target={t}", *knobs])
                own = (f"{STAGE_PIPELINE[s]}{{{opts}}}" if s in STAGE_PIPELINE
                       else f"aicc-pipeline{{{opts} from=tile to=gpu}}")
                for how, inp, pipeline in (
                        ("direct", raw, f"aicc-pipeline{{{opts} from=onnx to={s}}}"),
                        ("chained", prev, own)):
                    got = run(["aicc-opt", inp, f"--pass-pipeline=builtin.module({pipeline})"])
                    if got is None:
                        return 1
                    checked += 1
                    same = got == want
                    differ += not same
                    print(f"{'same' if same else 'DIFFERS'} {os.path.basename(os.path.dirname(model)) or model} "
                          f"{os.path.basename(model)} {t} {s} {how} {' '.join(knobs) or '-'}")
                prev = out
    print(f"reproduce_stages: {checked} comparisons, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
