"""aicc: compile ONNX models (and PyTorch models) to fast kernels and run them.

    import aicc, numpy as np
    m = aicc.compile("models/mlp/model.onnx", target="cpu")
    y = m(np.random.rand(*m.inputs[0].shape).astype(np.float32))
    m.save("mlp.aicc"); m2 = aicc.load("mlp.aicc")

See docs/python.md. ``aicc.has_compiler`` is False in the runtime-only build, which loads
and runs bundles but cannot compile.
"""

import sys

from . import _aicc
from ._compile import compile, compile_to, pipeline_options
from ._errors import CompileError, CompilerUnavailableError, Error, RuntimeError
from ._module import BenchmarkResult, BisectReport, Module, TensorSpec, load
from ._reference import reference
from ._tensors import read_tensor_proto, write_tensor_proto
from ._torch import from_torch, register_torch_backend, torch_backend

__version__: str = _aicc.version
"""aicc's version (the project() version of CMakeLists.txt); the commit: _aicc.version_line."""

has_compiler: bool = bool(_aicc.has_compiler)
"""True when this package was built with the compiler (aicc.compile works)."""

__all__ = [
    "BenchmarkResult", "BisectReport", "CompileError", "CompilerUnavailableError", "Error",
    "Module", "RuntimeError", "TensorSpec", "compile", "compile_to", "from_torch",
    "has_compiler", "load", "pipeline_options", "read_tensor_proto", "reference",
    "register_torch_backend", "torch_backend", "write_tensor_proto",
]

if "torch" in sys.modules:
    try:
        register_torch_backend()
    except Exception:  # noqa: BLE001 - a broken torch must not break import aicc
        pass
