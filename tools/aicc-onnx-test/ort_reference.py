"""Reference outputs from onnxruntime (CPU) for an ONNX test that has none.

Run with the Python of the project's virtual environment (scripts/setup.sh installs onnx and
onnxruntime from PyPI into .venv), not Debian's python3:

  .venv/bin/python ort_reference.py MODEL.onnx OUT_DIR [--inputs SET_DIR] [--seed N]
                                    [--inputs-only]   (any Python with onnx + numpy)

Writes OUT_DIR/model.onnx (a link or copy of MODEL) and OUT_DIR/test_data_set_0/ with
input_K.pb (copied from SET_DIR, or random: float ~ N(0, 1), integers in [0, 4), bools
uniform, from numpy's default_rng(N)) and output_K.pb computed by onnxruntime, i.e. an ONNX
backend test directory that aicc-onnx-test and aicc-run --test-data-set can use. onnxruntime is
an implementation independent of aicc, so agreement is evidence, not proof.

Exits 1 with one line on stderr when the model has dynamic input shapes (random inputs need
static shapes) or onnxruntime cannot run it.
"""
import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def random_input(vi, rng):
    t = vi.type.tensor_type
    shape = []
    for d in t.shape.dim:
        if not d.HasField("dim_value"):
            raise ValueError("graph input '%s' has a dynamic dimension" % vi.name)
        shape.append(d.dim_value)
    if hasattr(onnx.helper, "tensor_dtype_to_np_dtype"):
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
    else:  # onnx < 1.13 (Debian 12's python3-onnx)
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 4, shape).astype(dtype)
    raise ValueError("graph input '%s' has unsupported type %s" % (vi.name, dtype))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--inputs", help="a test_data_set directory with input_K.pb files")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--inputs-only", action="store_true",
                   help="write the inputs only (no onnxruntime needed): the caller computes "
                        "the outputs, e.g. with aicc-run --reference")
    a = p.parse_args()
    try:
        m = onnx.load(a.model, load_external_data=False)
        inits = {i.name for i in m.graph.initializer}
        graph_inputs = [vi for vi in m.graph.input if vi.name not in inits]
        feeds = {}
        if a.inputs:
            for k, vi in enumerate(graph_inputs):
                t = onnx.TensorProto()
                with open(os.path.join(a.inputs, "input_%d.pb" % k), "rb") as f:
                    t.ParseFromString(f.read())
                feeds[vi.name] = numpy_helper.to_array(t)
        else:
            rng = np.random.default_rng(a.seed)
            for vi in graph_inputs:
                feeds[vi.name] = random_input(vi, rng)
        if a.inputs_only:
            outs = []
        else:
            import onnxruntime as ort
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
            outs = sess.run(None, feeds)
    except Exception as e:  # report, do not trace back: the runner records the line
        print("ort_reference: %s: %s" % (a.model, str(e).splitlines()[0] if str(e) else e),
              file=sys.stderr)
        return 1
    set_dir = os.path.join(a.out, "test_data_set_0")
    os.makedirs(set_dir, exist_ok=True)
    model_dst = os.path.join(a.out, "model.onnx")
    if not os.path.exists(model_dst):
        shutil.copyfile(a.model, model_dst)
        # External data files live next to the model: link the directory's other files.
        src_dir = os.path.dirname(os.path.abspath(a.model))
        for f in os.listdir(src_dir):
            if f != "model.onnx" and not f.startswith("test_data_set_"):
                dst = os.path.join(a.out, f)
                if not os.path.exists(dst):
                    os.symlink(os.path.join(src_dir, f), dst)
    for k, vi in enumerate(graph_inputs):
        with open(os.path.join(set_dir, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(feeds[vi.name], vi.name).SerializeToString())
    for k, (vi, y) in enumerate(zip(m.graph.output, outs)):
        with open(os.path.join(set_dir, "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(y), vi.name).SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
