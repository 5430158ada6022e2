"""aicc.reference: the float64 reference evaluator (aicc-run --reference)."""

import os
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _aicc
from . import _tensors as T
from ._compile import _require_compiler, model_bytes
from ._errors import Error


def _model_path(model: Any, tmp: str) -> str:
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    data, _, _ = model_bytes(model)
    path = os.path.join(tmp, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    return path


def _input_files(inputs: Optional[Sequence[Any]], tmp: str) -> List[str]:
    files = []
    for i, x in enumerate(inputs or []):
        if T.is_torch_tensor(x):
            x = x.detach().cpu()
        path = os.path.join(tmp, "input_%d.pb" % i)
        T.write_tensor_proto(path, x)
        files.append(path)
    return files


def run_mode(mode: str, model: Any, inputs: Optional[Sequence[Any]], tmp: str,
             extra: Dict[str, Any]) -> Tuple[int, str, str]:
    """Runs aicc-run's --reference or --bisect mode in-process: (exit status, stdout,
    stderr)."""
    _require_compiler("aicc.reference" if mode == "reference" else "Module.bisect")
    opts = {"model": _model_path(model, tmp), "inputs": _input_files(inputs, tmp)}
    opts.update({k: v for k, v in extra.items() if v is not None})
    fn = _aicc.run_reference_mode if mode == "reference" else _aicc.run_bisect_mode
    return fn(opts)


def reference(model: Any, inputs: Sequence[Any]) -> List[np.ndarray]:
    """Evaluates `model` (an ONNX path, bytes or onnx.ModelProto; or a graph-dialect .mlir
    path) on `inputs` (one host tensor per graph input, ONNX order: numpy arrays or CPU
    torch tensors) with aicc's float64 reference evaluator (include/aicc/Reference/
    Evaluator.h: one plain C++ function per graph op, computing in double and rounding
    each op's result to its element type), and returns the outputs as numpy arrays of the
    model's output dtypes (bf16 as uint16 bit patterns). A model with dynamic dims is
    evaluated at the inputs' shapes. Slow (every value of the model is held in float64):
    an oracle for tests, not a runtime.

    Raises aicc.Error with the evaluator's located diagnostic ("node 'X': error:
    reference evaluator: no implementation of 'graph.foo'") when it cannot evaluate.
    """
    with tempfile.TemporaryDirectory(prefix="aicc-reference-") as tmp:
        out_dir = os.path.join(tmp, "out")
        rc, text, err = run_mode("reference", model, inputs, tmp, {"output_dir": out_dir})
        if rc != 0:
            raise Error("the reference evaluation failed:\n" + (err or text).strip())
        results = []
        i = 0
        while os.path.exists(os.path.join(out_dir, "output_%d.pb" % i)):
            results.append(T.read_tensor_proto(os.path.join(out_dir, "output_%d.pb" % i))[1])
            i += 1
        return results
