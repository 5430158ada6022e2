#!/usr/bin/python3
"""aicc-onnx-test: ONNX's conformance data as aicc's scoreboard.

Walks ONNX backend test directories (each: model.onnx + test_data_set_N/{input_K,output_K}.pb),
compiles every model with aicc-compile for a target, runs every data set with aicc-run, and
classifies each test:

  pass            every output of every data set within tolerance

When aicc-compile reports that an operand must be a compile-time constant and it is graph
input X, X is bound to the data set's value (--bind-input X=input_K.pb: the file whose
TensorProto is named X, else the K of X's position) and the model recompiled, for up to 8
inputs of at most 64 elements each (shape operands, axes, scalars; never data); data sets that give bound inputs different values get a bundle each. The JSON
result lists them as "bound": [...]; the doc counts and lists those tests.
  mismatch        ran, some output differs (max abs / rel error recorded)
  unsupported     aicc-compile names an ONNX op it does not support (op type + opset)
  compile-error   aicc-compile failed otherwise (message recorded)
  runtime-error   aicc-run failed without comparing (message recorded)
  timeout         a tool ran past --timeout seconds (e.g. a large real model on the slow CPU
                  target; counted as not passing, not as a crash)
  crash           a tool died on a signal (never acceptable)
  not-applicable  the test needs something outside aicc's scope (reason recorded)

Each test runs in its own subprocesses, so a crash is counted, never fatal to the run.

  aicc-onnx-test [--target cpu|sm_90] [--data [LABEL=]DIR ...] [--pypi-venv VENV]
                 [--ort-python PY] [--jobs N] [--filter REGEX]
                 [--json OUT.json] [--doc docs/onnx-conformance.md]
                 [--expected FILE [--update-expected]] [--bin build/bin]
                 [--payload DIR [--only-passing FILE]]   (GPU machine has no compiler:
                     compile here into DIR/cases/NAME/{model.aicc,test_data_set_*})
                 [--gpu-log LOG --doc FILE]               (fold scripts/gpu-check.sh's
                     PASS/FAIL lines into FILE's GPU section)
                 [--reference]   (evaluate each model with the float64 reference evaluator,
                     `aicc-run --reference`, instead of compiling and running a bundle)

Test names are SUITE/TEST, or LABEL/SUITE/TEST for a --data root given a label.
--pypi-venv VENV adds the conformance data of the `onnx` package installed in VENV (scripts/setup.sh
installs a pinned version into .venv), labelled onnx-<version>; it is an error when VENV has none.

Where a test has no expected outputs (a model directory without test_data_set_N, or data sets
with inputs only), onnxruntime computes them (tools/aicc-onnx-test/ort_reference.py run by
--ort-python, default VENV/bin/python): random inputs from a fixed seed when there are none.
The JSON result then says "reference": "onnxruntime".

With --expected, exits 1 when a test listed there as `pass` no longer passes (a regression);
tests that newly pass are reported (refresh the file with --update-expected).
"""
import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys

DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]

# Op families outside aicc's scope, with the reason shown in the report.
NOT_APPLICABLE = {}
for op in ["Adagrad", "Adam", "Momentum", "Gradient"]:
    NOT_APPLICABLE[op] = "training op"
for op in ["StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit",
           "TfIdfVectorizer", "Tokenizer"]:
    NOT_APPLICABLE[op] = "string op"
for op in ["SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
           "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence",
           "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement"]:
    NOT_APPLICABLE[op] = "sequence/optional type"
for op in ["RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
           "Multinomial", "Bernoulli"]:
    NOT_APPLICABLE[op] = "random op (no deterministic expected output)"
NA_DOMAINS = {"ai.onnx.ml": "ONNX-ML domain (classical ML)",
              "ai.onnx.preview.training": "training domain"}


# Failures whose cause is in the test data, not in aicc (checked by hand, with the evidence):
# shown next to the status in the doc; the status itself is unchanged.
KNOWN_DATA_ISSUES = [
    (r"node/test_(blackman|hamming|hann)window", "Debian's older data was generated with "
     "pi = 3.1415 (it matches that to 1e-7); onnx 1.22's data, made with numpy.pi, passes"),
    (r"node/test_gridsample_bicubic$", "expected output rounded to 4 decimals by onnx's test "
     "generator; aicc matches PyTorch's grid_sample and onnx's reference to 1e-6"),
    (r"node/test_averagepool_2d_ceil_last_window_starts_on_pad$", "expected values are "
     "hand-written to 4 decimals (onnx/backend/test/case/node/averagepool.py); aicc's output "
     "equals onnx's reference evaluator"),
    (r"node/test_castlike_(BFLOAT16_to_FLOAT|FLOAT_to_BFLOAT16)", "the test data gives input "
     "'like' shape [1], the model declares [3, 4]; aicc-run refuses the mismatch"),
    (r"node/test_(attention_.*|flexattention_.*|causal_conv_with_state_.*)fp16_expanded",
     "the expanded function body rounds every intermediate to f16; aicc computes the fused "
     "ops in f32 (one f16 ulp apart)"),
]


def known_data_issue(name):
    for pat, why in KNOWN_DATA_ISSUES:
        if re.search(pat, name):
            return why
    return None


def model_info(path):
    """Op types, opset, and a not-applicable reason (or None) for one model."""
    try:
        import onnx
    except ImportError:
        return [], None, None
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception as e:  # a broken model is aicc's to diagnose, not ours
        return [], None, None
    opset = max([o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] or [0])
    ops, reason = [], None
    def walk(graph):
        nonlocal reason
        for n in graph.node:
            ops.append(n.op_type)
            if n.domain in NA_DOMAINS:
                reason = reason or NA_DOMAINS[n.domain]
            elif n.op_type in NOT_APPLICABLE:
                reason = reason or NOT_APPLICABLE[n.op_type]
            for a in n.attribute:
                if a.name == "training_mode" and a.i == 1:
                    reason = reason or "training mode"
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)
    walk(m.graph)
    # Dropout whose training_mode is a graph input (decided at run time): training.
    inits = {i.name for i in m.graph.initializer}
    graph_inputs = {i.name for i in m.graph.input} - inits
    for n in m.graph.node:
        if n.op_type == "Dropout" and len(n.input) >= 3 and n.input[2] in graph_inputs:
            reason = reason or "training mode (runtime flag)"
    for vi in list(m.graph.input) + list(m.graph.output):
        kind = vi.type.WhichOneof("value")
        if kind in ("sequence_type", "optional_type", "map_type"):
            reason = reason or "sequence/optional type"
        elif kind == "tensor_type" and vi.type.tensor_type.elem_type == onnx.TensorProto.STRING:
            reason = reason or "string tensor"
    return sorted(set(ops)), opset, reason


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or "", e.stderr or "", True


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0].strip() if lines else ""


# aicc-compile's diagnostic for an operand that must be a compile-time constant but is a
# graph input: the runner then binds that input to the test data's value and recompiles.
# "it is graph input 'X' (specialize ..." or "it is computed from graph inputs 'X', 'Y' (...".
BIND_HINT = re.compile(r"graph inputs? ('[^']+'(?:, '[^']+')*) \(specialize the model on")
MAX_BOUND_INPUTS = 8
# Only inputs this small are bound: shape operands, axes, scalars; never the data itself.
MAX_BOUND_ELEMENTS = 64


def graph_input_names(model):
    """Names of the model's graph inputs that are not initializers (the K of input_K.pb)."""
    try:
        import onnx
        m = onnx.load(model, load_external_data=False)
    except Exception:
        return []
    inits = {i.name for i in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in inits]


def bound_input_file(set_dir, name, inputs):
    """The data set's input_K.pb holding graph input `name`: the one whose TensorProto is
    named `name`, else the one at the input's position among `inputs`; None if absent."""
    files = sorted((f for f in os.listdir(set_dir) if re.fullmatch(r"input_\d+\.pb", f)),
                   key=lambda f: int(f[6:-3]))
    try:
        import onnx
        for f in files:
            t = onnx.TensorProto()
            with open(os.path.join(set_dir, f), "rb") as fh:
                t.ParseFromString(fh.read())
            if t.name == name:
                return os.path.join(set_dir, f)
    except Exception:
        pass
    if name in inputs:
        path = os.path.join(set_dir, "input_%d.pb" % inputs.index(name))
        if os.path.exists(path):
            return path
    return None


def small_input(path):
    """Whether the TensorProto at `path` has at most MAX_BOUND_ELEMENTS elements."""
    if path is None:
        return False
    try:
        import onnx
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
    except Exception:
        return False
    n = 1
    for d in t.dims:
        n *= d
    return n <= MAX_BOUND_ELEMENTS


def compile_bound(model, bundle, set_dir, bound, inputs, args, first=None):
    """Compiles `model`, binding the inputs in `bound` (names, extended in place) to their
    values in `set_dir`; while aicc-compile asks for more graph inputs to be compile-time
    constants, binds them too and recompiles (at most MAX_BOUND_INPUTS inputs of at most
    MAX_BOUND_ELEMENTS elements). `first`: run()'s result of compiling with `bound` already.
    Returns run()'s tuple for the last compile."""
    result = first
    while True:
        if result is None:
            cmd = [os.path.join(args.bin, "aicc-compile"), model, "--target=" + args.target,
                   "-o", bundle] + args.compile_flag
            for n in bound:
                path = bound_input_file(set_dir, n, inputs)
                if path is None:
                    return 1, "", "error: no value for graph input '%s' in %s" % (n, set_dir), False
                cmd += ["--bind-input", "%s=%s" % (n, path)]
            result = run(cmd, args.timeout)
        rc, out, err, to = result
        m = BIND_HINT.search(err) if rc is not None and rc > 0 else None
        names = re.findall(r"'([^']+)'", m.group(1)) if m else []
        if (not names or any(n in bound for n in names) or
                len(bound) + len(names) > MAX_BOUND_INPUTS or
                not all(small_input(bound_input_file(set_dir, n, inputs)) for n in names)):
            return result
        bound.extend(names)
        result = None


def run_test(test_dir, name, args, workdir):
    model = os.path.join(test_dir, "model.onnx")
    ops, opset, na = model_info(model)
    result = {"test": name, "ops": ops, "opset": opset}
    if na:
        result.update(status="not-applicable", reason=na)
        return result
    if args.reference:
        return run_reference_test(test_dir, model, result, args)
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    bundle = os.path.join(workdir, name.replace("/", "_") + ".aicc")
    # Without bound inputs one bundle runs every data set; with them, one bundle per group of
    # data sets that give the bound inputs the same values.
    bound, inputs = [], None
    first_set = os.path.join(test_dir, sets[0]) if sets else None
    rc, out, err, to = run([os.path.join(args.bin, "aicc-compile"), model,
                            "--target=" + args.target, "-o", bundle] + args.compile_flag,
                           args.timeout)
    if rc is not None and rc > 0 and BIND_HINT.search(err) and first_set:
        inputs = graph_input_names(model)
        rc, out, err, to = compile_bound(model, bundle, first_set, bound, inputs, args,
                                         first=(rc, out, err, to))
    groups = [(bundle, sets)]
    if bound:
        result["bound"] = bound
        values = {}
        for s in sets:
            key = []
            for n in bound:
                path = bound_input_file(os.path.join(test_dir, s), n, inputs)
                key.append(open(path, "rb").read() if path else b"")
            values.setdefault(tuple(key), []).append(s)
        groups = [(bundle if i == 0 else "%s.%d.aicc" % (bundle[:-5], i), g)
                  for i, g in enumerate(values.values())]
    for i, (b, group) in enumerate(groups):
        if i > 0 and rc == 0 and not to:
            rc, out, err, to = compile_bound(model, b, os.path.join(test_dir, group[0]), bound,
                                             inputs, args)
    if to or (rc is not None and rc < 0):
        result.update(status="timeout" if to else "crash", reason="aicc-compile " +
                      ("ran past %d s" % args.timeout if to else "died on signal %d" % -rc))
        return result
    if rc != 0:
        m = re.search(r"unsupported ONNX op '([^']+)'", err)
        # Element types aicc does not implement (float8, int4, float4, complex, string...).
        t = re.search(r"unsupported element type ([A-Z0-9_]+|<unknown> \(\d+\))", err) or \
            re.search(r"cast to ONNX data type (\d+) is not supported", err)
        if m:
            result.update(status="unsupported", reason="%s (opset %s)" % (m.group(1), opset),
                          op=m.group(1))
        elif t:
            result.update(status="unsupported", reason="element type %s" % t.group(1) +
                          " (" + first_error(err)[-120:] + ")", op="element type " + t.group(1))
        else:
            result.update(status="compile-error", reason=first_error(err))
        return result
    if args.payload:
        import shutil
        for i, (b, group) in enumerate(groups):
            case = os.path.join(args.payload, "cases", name.replace("/", "_") +
                                ("" if i == 0 else "_bound%d" % i))
            os.makedirs(case, exist_ok=True)
            shutil.move(b, os.path.join(case, "model.aicc"))
            for d in group:
                shutil.copytree(os.path.join(test_dir, d), os.path.join(case, d),
                                dirs_exist_ok=True)
        result.update(status="pass", reason="compiled into the GPU payload")
        return result
    if args.target != "cpu" and not args.run_gpu:
        result.update(status="pass" if os.path.exists(bundle) else "compile-error",
                      reason="compiled (not run: no GPU)")
        return result
    out = err = ""
    rc = 0
    for b, group in groups:
        cmd = [os.path.join(args.bin, "aicc-run"), b]
        for s in group:
            cmd += ["--test-data-set", os.path.join(test_dir, s)]
        if args.rtol is not None:
            cmd += ["--rtol", str(args.rtol)]
        if args.atol is not None:
            cmd += ["--atol", str(args.atol)]
        rc1, out1, err1, to = run(cmd, args.timeout)
        try:
            os.remove(b)
        except OSError:
            pass
        out += out1
        err += err1
        if to or (rc1 is not None and rc1 < 0):
            result.update(status="timeout" if to else "crash", reason="aicc-run " +
                          ("ran past %d s" % args.timeout if to else "died on signal %d" % -rc1))
            return result
        rc = rc or rc1
    if rc == 0:
        result.update(status="pass")
        return result
    fails = re.findall(r"max_abs_err=(\S+) max_rel_err=(\S+) shape=\S+ FAIL", out)
    if fails:
        a = max(float(f[0]) for f in fails)
        r = max(float(f[1]) for f in fails)
        result.update(status="mismatch", reason="max_abs_err=%.3e max_rel_err=%.3e" % (a, r),
                      max_abs=a, max_rel=r)
    else:
        result.update(status="runtime-error", reason=first_error(err + out))
    return result


def split_label(data):
    """'LABEL=DIR' -> (LABEL, DIR); 'DIR' -> ('', DIR)."""
    label, sep, path = data.partition("=")
    if sep and "/" not in label and label:
        return label, path
    return "", data


def pypi_data(venv):
    """(label, data dir) of the onnx package's backend test data in virtualenv `venv`."""
    import glob
    dirs = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "onnx", "backend",
                                  "test", "data"))
    dists = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "onnx-*.dist-info"))
    if not dirs or not os.path.isdir(os.path.join(dirs[0], "node")):
        return None
    version = os.path.basename(dists[0])[len("onnx-"):-len(".dist-info")] if dists else "pypi"
    return "onnx-" + version, dirs[0]


def needs_reference(test_dir):
    """True when the test has no expected outputs (no data set, or a data set without them)."""
    sets = [d for d in os.listdir(test_dir) if d.startswith("test_data_set_")]
    if not sets:
        return True
    return any(not any(f.startswith("output_") for f in os.listdir(os.path.join(test_dir, s)))
               for s in sets)


def materialize_light(model_path, out_dir):
    """A backend test directory for one of the onnx package's "light" real models
    (data/light/light_X.onnx + light_X_output_0.pb: AlexNet, ResNet-50, DenseNet-121, ...),
    with the input onnx's runner feeds them (onnx/backend/test/runner, generate_dummy_data with
    random=False: arange(n).reshape(shape) / n in float32, symbolic dims as 1)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    set_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(set_dir, exist_ok=True)
    dst = os.path.join(out_dir, "model.onnx")
    if not os.path.exists(dst):
        os.symlink(os.path.abspath(model_path), dst)
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    k = 0
    for x in m.graph.input:
        if x.name in inits:
            continue
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1
                      for d in x.type.tensor_type.shape.dim)
        n = int(np.prod(shape))
        value = (np.arange(n).reshape(shape) / n).astype(np.float32)
        with open(os.path.join(set_dir, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(value, x.name).SerializeToString())
        k += 1
    prefix = os.path.splitext(model_path)[0]
    for i in range(len(m.graph.output)):
        src = "%s_output_%d.pb" % (prefix, i)
        if os.path.exists(src):
            import shutil
            shutil.copyfile(src, os.path.join(set_dir, "output_%d.pb" % i))
    return out_dir


def run_one(test_dir, name, args, workdir):
    """run_test, after computing missing expected outputs with onnxruntime."""
    if os.path.isfile(test_dir):  # a "light" model file
        test_dir = materialize_light(test_dir, os.path.join(workdir, "light",
                                                            name.replace("/", "_")))
    if not needs_reference(test_dir):
        return run_test(test_dir, name, args, workdir)
    model = os.path.join(test_dir, "model.onnx")
    ops, opset, na = model_info(model)
    if na:
        return {"test": name, "ops": ops, "opset": opset, "status": "not-applicable",
                "reason": na}
    # Expected outputs from onnxruntime when it is available, else from aicc's float64
    # reference evaluator (aicc-run --reference); with onnxruntime, the evaluator is also
    # checked against it ("evaluator": "agrees" / "disagrees ..." in the JSON).
    ref_dir = os.path.join(workdir, "ort", name.replace("/", "_"))
    set_dir = os.path.join(ref_dir, "test_data_set_0")
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    cmd = [args.ort_python or sys.executable,
           os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_reference.py"),
           model, ref_dir] + ([] if args.ort_python else ["--inputs-only"])
    if sets:
        cmd += ["--inputs", os.path.join(test_dir, sets[0])]
    rc, out, err, to = run(cmd, args.timeout)
    if rc != 0:
        return {"test": name, "ops": ops, "opset": opset, "status": "not-applicable",
                "reason": "no expected outputs; onnxruntime gives none: " + first_error(err)}
    aicc_run = os.path.join(args.bin, "aicc-run")
    evaluator = None
    if not args.ort_python:
        inputs = sorted((f for f in os.listdir(set_dir) if re.fullmatch(r"input_\d+\.pb", f)),
                        key=lambda f: int(f[6:-3]))
        cmd = [aicc_run, "--reference", model, "--output-dir", set_dir]
        for f in inputs:
            cmd += ["--input", os.path.join(set_dir, f)]
        rc, out, err, to = run(cmd, args.timeout)
        if rc != 0:
            return {"test": name, "ops": ops, "opset": opset, "status": "not-applicable",
                    "reason": "no expected outputs; the reference evaluator gives none: " +
                    first_error(err + out)}
    else:
        rc, out, err, to = run([aicc_run, "--reference", model, "--test-data-set", set_dir],
                               args.timeout)
        evaluator = "agrees" if rc == 0 else "disagrees: " + first_error(
            "\n".join(l for l in (out + err).splitlines() if "FAIL" in l or "error" in l))
    result = run_test(ref_dir, name, args, workdir)
    result["reference"] = "onnxruntime" if args.ort_python else "float64 evaluator"
    if evaluator:
        result["evaluator"] = evaluator
        if result["status"] == "pass" and evaluator != "agrees":
            # Two references disagree: one of them (aicc's evaluator or the compiled code
            # that matched onnxruntime) needs a look; never count it as a pass.
            result.update(status="mismatch", reason="aicc's float64 evaluator " + evaluator)
    return result


def run_reference_test(test_dir, model, result, args):
    """--reference: `aicc-run --reference` imports the model, runs aicc-graph-pipeline and
    evaluates the graph IR in float64; classified like a bundle run (an op the evaluator
    lacks counts as unsupported)."""
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    cmd = [os.path.join(args.bin, "aicc-run"), "--reference", model]
    for s in sets:
        cmd += ["--test-data-set", os.path.join(test_dir, s)]
    if args.rtol is not None:
        cmd += ["--rtol", str(args.rtol)]
    if args.atol is not None:
        cmd += ["--atol", str(args.atol)]
    rc, out, err, to = run(cmd, args.timeout)
    if to or (rc is not None and rc < 0):
        result.update(status="timeout" if to else "crash", reason="aicc-run --reference " +
                      ("ran past %d s" % args.timeout if to else "died on signal %d" % -rc))
        return result
    if rc == 0:
        result.update(status="pass")
        return result
    m = re.search(r"unsupported ONNX op '([^']+)'", err) or \
        re.search(r"reference evaluator: no implementation of '([^']+)'", err)
    if m:
        result.update(status="unsupported", reason=first_error(err), op=m.group(1))
        return result
    fails = re.findall(r"max_abs_err=(\S+) max_rel_err=(\S+) shape=\S+ FAIL", out)
    if fails:
        a = max(float(f[0]) for f in fails)
        r = max(float(f[1]) for f in fails)
        result.update(status="mismatch", reason="max_abs_err=%.3e max_rel_err=%.3e" % (a, r),
                      max_abs=a, max_rel=r)
    else:
        result.update(status="compile-error" if "aicc-graph-pipeline" in err or
                      "cannot load the model" in err else "runtime-error",
                      reason=first_error(err + out))
    return result


def collect(data_dirs, suites, filt):
    tests = []
    for data in data_dirs:
        label, data = split_label(data)
        for suite in suites:
            root = os.path.join(data, suite)
            if not os.path.isdir(root):
                continue
            for t in sorted(os.listdir(root)):
                d = os.path.join(root, t)
                m = re.fullmatch(r"light_(\w+)\.onnx", t) if suite == "light" else None
                if m:  # onnx's "light" real models: one file + its expected output
                    name = (label + "/" if label else "") + "light/test_" + m.group(1)
                    if not filt or re.search(filt, name):
                        tests.append((d, name))
                elif os.path.isfile(os.path.join(d, "model.onnx")):
                    name = (label + "/" if label else "") + suite + "/" + t
                    if filt and not re.search(filt, name):
                        continue
                    tests.append((d, name))
    return tests


def write_doc(path, results, args, command):
    by_status = collections.Counter(r["status"] for r in results)
    per_suite = collections.defaultdict(collections.Counter)
    for r in results:
        per_suite[r["test"].rsplit("/", 1)[0]][r["status"]] += 1
    per_op = collections.defaultdict(collections.Counter)
    for r in results:
        for op in r["ops"] or ["?"]:
            per_op[op][r["status"]] += 1
    statuses = ["pass", "mismatch", "unsupported", "compile-error", "runtime-error", "timeout",
                "crash",
                "not-applicable"]
    applicable = lambda c: sum(c.values()) - c["not-applicable"]
    lines = ["# ONNX conformance scoreboard", "",
             "Generated by `tools/aicc-onnx-test/aicc-onnx-test.py`; do not edit by hand.", "",
             "- Date: %s" % datetime.date.today().isoformat(),
             "- Target: `%s`%s" % (args.target, "" if args.target == "cpu" or args.run_gpu
                                   else " (compiled and assembled only; not run)"),
             "- Data: %s" % ", ".join(args.data),
             "- Command: `%s`" % command,
             "- Expected outputs: the test data's, except %d test(s) without any, whose "
             "reference is onnxruntime (CPU) (aicc's float64 evaluator agrees with it on %d), "
             "and %d whose reference is aicc's float64 evaluator (no onnxruntime)" % (
                 sum(1 for r in results if r.get("reference") == "onnxruntime"),
                 sum(1 for r in results if r.get("evaluator") == "agrees"),
                 sum(1 for r in results if r.get("reference") == "float64 evaluator")),
             "",
             "## Totals", "",
             "| suite | " + " | ".join(statuses) + " | pass / applicable |",
             "|---|" + "---|" * (len(statuses) + 1)]
    for suite in sorted(per_suite) + ["all"]:
        c = by_status if suite == "all" else per_suite[suite]
        app = applicable(c)
        lines.append("| %s | %s | %d / %d (%.1f%%) |" % (
            suite, " | ".join(str(c[s]) for s in statuses), c["pass"], app,
            100.0 * c["pass"] / app if app else 0.0))
    bound = [r for r in results if r.get("bound")]
    if bound:
        lines += ["", "Passes with bound inputs: %d (graph inputs that must be compile-time "
                  "constants, bound to the test data's values with `aicc-compile --bind-input`; "
                  "see \"Tests run with bound inputs\")." %
                  sum(r["status"] == "pass" for r in bound)]
    lines += ["", "## Per op", "",
              "A test counts for every op type its model uses.", "",
              "| op | pass | applicable | other outcomes |", "|---|---|---|---|"]
    for op in sorted(per_op):
        c = per_op[op]
        other = ", ".join("%s %d" % (s, c[s]) for s in statuses[1:] if c[s])
        lines.append("| %s | %d | %d | %s |" % (op, c["pass"], applicable(c), other))
    lines += ["", "## Tests that do not pass", "", "| test | status | detail |", "|---|---|---|"]
    for r in sorted(results, key=lambda r: r["test"]):
        if r["status"] not in ("pass",):
            detail = r.get("reason", "").replace("|", "\\|")[:200]
            if r.get("bound"):
                detail += " (bound: %s)" % ", ".join(r["bound"])
            if known_data_issue(r["test"]):
                detail += " (test data: %s)" % known_data_issue(r["test"])
            lines.append("| %s | %s | %s |" % (r["test"], r["status"], detail))
    if bound:
        lines += ["", "## Tests run with bound inputs", "",
                  "Compiled once per distinct value with `--bind-input NAME=input_K.pb` of the "
                  "test data set.", "", "| test | status | bound inputs |", "|---|---|---|"]
        for r in sorted(bound, key=lambda r: r["test"]):
            lines.append("| %s | %s | %s |" % (r["test"], r["status"], ", ".join(r["bound"])))
    # Keep the GPU section (written by --gpu-log from a GPU-machine run).
    gpu = ""
    if os.path.exists(path):
        old = open(path).read()
        cut = old.find("\n## GPU (cubin path)")
        if cut >= 0:
            gpu = old[cut:]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n" + gpu)
    os.replace(path + ".tmp", path)


def gpu_section(args):
    """Appends (replaces) the GPU section of --doc from scripts/gpu-check.sh output."""
    lines = [l.split() for l in open(args.gpu_log) if l.startswith(("PASS ", "FAIL "))]
    results = {n: s for s, n in ((l[0], l[1]) for l in lines)}
    per_suite = collections.defaultdict(collections.Counter)
    suites = SUITES + ["torch", "ort", "light"]
    def suite_of(n):  # case names are test names with '/' -> '_'
        label, m = "", re.match(r"(onnx-[0-9.]+)_(.*)", n)
        if m:
            label, n = m.group(1) + "/", m.group(2)
        return label + next((x for x in suites if n.startswith(x + "_")), "other")
    for n, s in results.items():
        per_suite[suite_of(n)][s] += 1
    out = ["", "## GPU (cubin path)", "",
           "Every test that passes on the CPU target, compiled here for `%s` "
           "(`aicc-onnx-test --target %s --payload .device --only-passing "
           "test/Conformance/expected-cpu.txt`) and run on the GPU machine by "
           "`scripts/gpu-check.sh` (aicc-run --device=cuda, same tolerances)." % (
               args.target, args.target), "",
           "- Date: %s%s" % (datetime.date.today().isoformat(),
                              "; GPU: " + args.gpu_name if args.gpu_name else ""), "",
           "| suite | pass | fail |", "|---|---|---|"]
    for suite in sorted(per_suite):
        c = per_suite[suite]
        out.append("| %s | %d | %d |" % (suite, c["PASS"], c["FAIL"]))
    total = collections.Counter(results.values())
    out.append("| all | %d | %d |" % (total["PASS"], total["FAIL"]))
    fails = sorted(n for n, s in results.items() if s == "FAIL")
    # Compile-stage failures for the GPU target, from the payload run's --json.
    compile_fails = []
    if args.json and os.path.exists(args.json):
        for r in json.load(open(args.json)):
            if r["status"] != "pass":
                compile_fails.append((r["test"], r.get("reason", "")))
    if not fails and not compile_fails:
        out += ["", "No test that passes on the CPU target fails on the GPU."]
    else:
        out += ["", "Passing on the CPU target, failing on the GPU:", ""]
        out += ["- %s: wrong or no result at run time" % n for n in fails]
        out += ["- %s: does not compile for %s: %s" % (n, args.target, why[why.find("error:"):][:160])
                for n, why in sorted(compile_fails)]
    for note in args.gpu_note or []:
        out += ["", note]
    text = open(args.doc).read() if os.path.exists(args.doc) else ""
    cut = text.find("\n## GPU (cubin path)")
    if cut >= 0:
        text = text[:cut]
    with open(args.doc + ".tmp", "w") as f:
        f.write(text.rstrip("\n") + "\n" + "\n".join(out) + "\n")
    os.replace(args.doc + ".tmp", args.doc)
    print("GPU: %d pass, %d fail" % (total["PASS"], total["FAIL"]))
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--target", default="cpu")
    p.add_argument("--compile-flag", action="append", default=[],
                   help="extra aicc-compile flag, e.g. --compile-flag=--conv-algorithm=implicit-gemm "
                        "(repeatable)")
    p.add_argument("--data", action="append", help="data root(s); default " + DEFAULT_DATA)
    p.add_argument("--suites", default=",".join(SUITES))
    p.add_argument("--pypi-venv", help="add the onnx package's test data from this virtualenv")
    p.add_argument("--ort-python", help="Python with onnxruntime, for tests without outputs")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--filter")
    p.add_argument("--bin", default=os.environ.get("AICC_BIN", here))
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--rtol", type=float)
    p.add_argument("--atol", type=float)
    p.add_argument("--run-gpu", action="store_true", help="run GPU bundles (needs a GPU)")
    p.add_argument("--json")
    p.add_argument("--doc")
    p.add_argument("--expected")
    p.add_argument("--update-expected", action="store_true")
    p.add_argument("--workdir", default=None)
    p.add_argument("--payload")
    p.add_argument("--only-passing")
    p.add_argument("--gpu-log")
    p.add_argument("--gpu-name", default="", help="for the report, e.g. 'NVIDIA H200, driver 580'")
    p.add_argument("--gpu-note", action="append", help="a paragraph for the GPU section "
                   "(e.g. what was not run and why)")
    p.add_argument("--reference", action="store_true",
                   help="evaluate with the float64 reference (aicc-run --reference)")
    args = p.parse_args()
    if args.gpu_log:
        return gpu_section(args)
    args.data = args.data or [DEFAULT_DATA]
    if args.pypi_venv:
        found = pypi_data(args.pypi_venv)
        if not found:
            print("aicc-onnx-test: no onnx backend test data in virtualenv %s (run "
                  "scripts/setup.sh)" % args.pypi_venv, file=sys.stderr)
            return 2
        args.data.append("%s=%s" % found)
        if not args.ort_python and os.path.exists(os.path.join(args.pypi_venv, "bin", "python")):
            args.ort_python = os.path.join(args.pypi_venv, "bin", "python")
    import tempfile
    workdir = args.workdir or tempfile.mkdtemp(prefix="aicc-onnx-test-")
    tests = collect(args.data, args.suites.split(","), args.filter)
    if args.only_passing:
        keep = {l.split()[0] for l in open(args.only_passing)
                if not l.startswith("#") and len(l.split()) == 2 and l.split()[1] == "pass"}
        tests = [(d, n) for d, n in tests if n in keep]
    if not tests:
        print("aicc-onnx-test: no tests found under " + ", ".join(args.data), file=sys.stderr)
        return 2
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = [ex.submit(run_one, d, n, args, workdir) for d, n in tests]
        for f in concurrent.futures.as_completed(futs):
            results.append(f.result())
    results.sort(key=lambda r: r["test"])
    counts = collections.Counter(r["status"] for r in results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    command = "build/bin/aicc-onnx-test --target %s%s --suites %s --doc docs/onnx-conformance.md" % (
        args.target, "".join(" --data " + d for d in args.data if not
                             (args.pypi_venv and d.startswith("onnx-"))) +
        (" --pypi-venv .venv" if args.pypi_venv else ""), args.suites)
    if args.doc:
        write_doc(args.doc, results, args, command)
    status = 0
    if args.expected:
        expected = {}
        if os.path.exists(args.expected):
            for line in open(args.expected):
                parts = line.split()
                if len(parts) == 2 and not line.startswith("#"):
                    expected[parts[0]] = parts[1]
        got = {r["test"]: r["status"] for r in results}
        regressions = [t for t, s in expected.items() if s == "pass" and t in got and got[t] != "pass"]
        newly = [t for t, s in got.items() if s == "pass" and expected.get(t) != "pass"]
        for t in regressions:
            r = next(x for x in results if x["test"] == t)
            print("REGRESSION %s: %s (%s)" % (t, r["status"], r.get("reason", "")))
        if newly and not args.update_expected:
            print("%d test(s) pass that %s does not list as passing (refresh it with "
                  "--update-expected): %s" % (len(newly), args.expected, ", ".join(newly[:20])))
        if args.update_expected:
            with open(args.expected + ".tmp", "w") as f:
                f.write("# aicc-onnx-test expected statuses (target %s); regenerate with "
                        "--update-expected\n" % args.target)
                for r in results:
                    f.write("%s %s\n" % (r["test"], r["status"]))
            os.replace(args.expected + ".tmp", args.expected)
        if regressions:
            status = 1
    if counts["crash"]:
        for r in results:
            if r["status"] == "crash":
                print("CRASH %s: %s" % (r["test"], r.get("reason", "")))
        status = 1
    app = len(results) - counts["not-applicable"]
    print("aicc-onnx-test (%s): %d tests, %d applicable: " % (args.target, len(results), app) +
          ", ".join("%s %d" % (k, counts[k]) for k in ["pass", "mismatch", "unsupported",
                    "compile-error", "runtime-error", "timeout", "crash", "not-applicable"]))
    print("conformance: %d of %d applicable tests pass" % (counts["pass"], app))
    return status


if __name__ == "__main__":
    sys.exit(main())
