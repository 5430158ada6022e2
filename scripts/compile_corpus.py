#!/usr/bin/python3
"""Compiles a corpus of models for every target and records what came out, so that a
behaviour-preserving change (issue 15: restructuring with "PTX and CPU objects byte-identical")
can be checked: record before, record after, compare.

usage:
  scripts/compile_corpus.py record OUT.txt [--quick] [--models-only | --conformance-only]
                                [--jobs N]
                                [--targets cpu,sm_80,...]
  scripts/compile_corpus.py compare BEFORE.txt AFTER.txt

record   compiles every case with aicc-compile (bundle output: the cubin or the host .so, the
         manifest and the weights, all of it deterministic) and writes one line per
         (model, target, flags): `sha256 <hash of the bundle>` or, for a refused model,
         `error <hash of the diagnostics>` (refusals must stay the same refusals).
compare  prints every case whose line differs or that only one side has; exit 1 if any.

The corpus: every .onnx under models/ and test/ (the lit tests' inputs: hostile ones are
refused, which is recorded too), and the conformance models of
/usr/share/libonnx-testdata/data/node (Debian's onnx test data); --quick takes every
eighth conformance model, --models-only none of test/ and the conformance models,
--conformance-only only the conformance models. A case
that runs past 120 s is recorded as `timeout` (the 4096-step RNN of importer-audit.test
does on every target). Targets: cpu, sm_80, sm_90, sm_90a (GPU targets need ptxas:
$AICC_CUDA_PATH or /usr/local/cuda). Flag sets: the default for every case; for the models/
cases also the ones the tests use (--conv-layout=nhwc, --allow-tf32, --mma-smem-store=false,
--wgmma-tma-store=false, --conv-algorithm=direct).
Environment: AICC_BUILD_DIR (default build/). On this 2-core machine with one worker beside
other work, --quick (1,572 compiles) takes 25-40 minutes.
"""
import argparse
import concurrent.futures as cf
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGETS = ["cpu", "sm_80", "sm_90", "sm_90a"]
MODEL_FLAGS = [[], ["--conv-layout=nhwc"], ["--allow-tf32"], ["--mma-smem-store=false"],
               ["--wgmma-tma-store=false"], ["--conv-algorithm=direct"]]
CONFORMANCE = pathlib.Path("/usr/share/libonnx-testdata/data/node")


def corpus(quick, models_only=False, conformance_only=False):
    cases = []
    for base in () if conformance_only else ("models",) if models_only else ("models", "test"):
        for p in sorted((ROOT / base).rglob("*.onnx")):
            flags = MODEL_FLAGS if base == "models" else [[]]
            cases += [(str(p.relative_to(ROOT)), f) for f in flags]
    if CONFORMANCE.is_dir() and not models_only:
        conf = sorted(CONFORMANCE.glob("*/model.onnx"))
        if quick:
            conf = conf[::8]
        cases += [(str(p), []) for p in conf]
    return cases


def compile_one(compiler, model, target, flags):
    path = model if os.path.isabs(model) else str(ROOT / model)
    with tempfile.TemporaryDirectory(prefix="aicc-corpus-") as tmp:
        out = os.path.join(tmp, "out.aicc")
        try:
            r = subprocess.run([compiler, f"--target={target}", *flags, path, "-o", out],
                               capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "timeout -"
        if r.returncode == 0 and os.path.exists(out):
            with open(out, "rb") as f:
                return "sha256 " + hashlib.sha256(f.read()).hexdigest()
        # The diagnostics name the model by the path given: hash them relative to it.
        text = (r.stdout + r.stderr).replace(path.encode(), b"MODEL")
        return f"error-{r.returncode} " + hashlib.sha256(text).hexdigest()


def record(args):
    build = pathlib.Path(os.environ.get("AICC_BUILD_DIR", ROOT / "build"))
    compiler = str(build / "bin" / "aicc-compile")
    if not os.access(compiler, os.X_OK):
        sys.exit(f"compile_corpus.py: {compiler} is not built")
    targets = args.targets.split(",")
    jobs = [(m, t, f) for m, f in corpus(args.quick, args.models_only, args.conformance_only) for t in targets]
    print(f"compile_corpus.py: {len(jobs)} compiles on {args.jobs} worker(s)", file=sys.stderr)
    lines = {}
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(compile_one, compiler, m, t, f): (m, t, f) for m, t, f in jobs}
        for i, fut in enumerate(cf.as_completed(futs), 1):
            m, t, f = futs[fut]
            lines[f"{m} {t} {' '.join(f) or '-'}"] = fut.result()
            if i % 200 == 0:
                print(f"  {i}/{len(jobs)}", file=sys.stderr)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        for k in sorted(lines):
            f.write(f"{k} {lines[k]}\n")
    os.replace(tmp, args.out)
    errors = sum(v.startswith("error") for v in lines.values())
    print(f"compile_corpus.py: wrote {args.out}: {len(lines)} cases, {len(lines) - errors} "
          f"bundles, {errors} refusals", file=sys.stderr)


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").rpartition(" ")
            key, _, kind = key.rpartition(" ")
            out[key] = f"{kind} {value}"
    return out


def compare(args):
    a, b = load(args.before), load(args.after)
    diff = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            diff += 1
            print(f"DIFFERS {k}: {a.get(k, 'absent')} -> {b.get(k, 'absent')}")
    print(f"compile_corpus.py: {len(set(a) | set(b))} cases, {diff} differ")
    return 1 if diff else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("--quick", action="store_true")
    r.add_argument("--models-only", action="store_true",
                   help="only models/ (x their flag sets): a 3-minute check between full runs")
    r.add_argument("--conformance-only", action="store_true",
                   help="only the conformance models (all of them unless --quick)")
    r.add_argument("--jobs", type=int, default=os.cpu_count())
    r.add_argument("--targets", default=",".join(TARGETS))
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
