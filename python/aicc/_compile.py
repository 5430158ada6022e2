"""aicc.compile: a model (path, bytes, onnx.ModelProto) to a Module."""

import numbers
import os
import tempfile
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from . import _aicc
from ._errors import CompilerUnavailableError, Error
from ._module import Module
from . import _tensors as T

ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


def _require_compiler(what: str) -> None:
    if not _aicc.has_compiler:
        raise CompilerUnavailableError(
            "%s needs the compiler, but this aicc package is the runtime-only build "
            "(built with AICC_ENABLE_COMPILER=OFF): it can only load and run bundles "
            "compiled elsewhere (aicc.load)" % what)


def model_bytes(model: ModelLike) -> Tuple[bytes, str, bool]:
    """(bytes, name for diagnostics, is MLIR text) of a model given as a path, bytes or an
    onnx.ModelProto (anything with SerializeToString)."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        with open(path, "rb") as f:
            return f.read(), path, path.endswith(".mlir")
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), "<bytes>", False
    if hasattr(model, "SerializeToString"):
        return model.SerializeToString(), "<onnx.ModelProto>", False
    raise TypeError("model must be a path, bytes or an onnx.ModelProto, got %s"
                    % type(model).__name__)


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _request(model, target, dims, shapes, bind_inputs, cuda_path, max_tensor_bytes, options,
             tmp, specialize=None):
    data, name, is_mlir = model_bytes(model)
    opts = [(k.replace("_", "-"), _option_text(v)) for k, v in options.items()]
    dim_list = []
    for dname, v in (dims or {}).items():
        if isinstance(v, range):
            v = (v.start, v.stop - 1)
        if isinstance(v, (tuple, list)):
            if len(v) != 2:
                raise Error("dims['%s']: expected N or (MIN, MAX), got %r" % (dname, v))
            dim_list.append((dname, int(v[0]), int(v[1]), True))
        else:
            dim_list.append((dname, int(v), int(v), False))
    binds = []
    for i, (bname, value) in enumerate((bind_inputs or {}).items()):
        if isinstance(value, (str, os.PathLike)):
            binds.append((bname, os.fspath(value)))
        else:
            path = os.path.join(tmp, "bind_%d.pb" % i)
            T.write_tensor_proto(path, value, bname)
            binds.append((bname, path))
    shape_list = [(n, [int(d) for d in s]) for n, s in (shapes or {}).items()]
    return dict(model=data, buffer_name=name, is_mlir=is_mlir, target=target, options=opts,
                bind_inputs=binds, input_shapes=shape_list, dims=dim_list,
                cuda_path=cuda_path or "", max_tensor_bytes=int(max_tensor_bytes or 0),
                specialize=[(n, _integer(v, "specialize['%s']" % n))
                            for n, v in (specialize or {}).items()])


def _integer(v, what):
    """`v` as an int when it is one (numpy integers too), else aicc.Error."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise Error("%s: expected an integer, got %r" % (what, v))
    return int(v)


def compile(model: ModelLike, target: str = "sm_90a", *,
            dims: Optional[Mapping[str, Union[int, Tuple[int, int], range]]] = None,
            shapes: Optional[Mapping[str, Sequence[int]]] = None,
            bind_inputs: Optional[Mapping[str, Any]] = None,
            specialize: Optional[Mapping[str, int]] = None,
            cuda_path: Optional[str] = None, max_tensor_bytes: Optional[int] = None,
            device: Optional[str] = None, cuda_graphs: bool = True,
            **options: Any) -> Module:
    """Compiles a model into a runnable Module (one bundle).

    model: an .onnx path (or a graph-dialect .mlir path), the bytes of an ONNX model, or an
        onnx.ModelProto.
    target: "cpu", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a" (default) or "sm_100".
    dims: ONNX dim_params: ``{"batch": 8}`` compiles for one size, ``{"batch": (1, 64)}``
        (or ``range(1, 65)``) one bundle for every size in [1, 64], compiled at 64
        (aicc-compile --dim, docs/symbolic-shapes.md).
    shapes: whole input shapes, ``{"x": [8, 3, 224, 224]}`` (--shape).
    bind_inputs: graph inputs fixed at compile time to a value, ``{"shape": np.array(...)}``
        or a TensorProto .pb path (--bind-input); they are no longer Module inputs.
    specialize: with a range in dims, ``{"seq": 1}`` adds the plan compiled for seq = 1
        alone (the range's MIN or MAX), which a call at that value runs (--specialize,
        docs/symbolic-shapes.md "A whole plan for one value").
    cuda_path: CUDA toolkit root for ptxas (default: $CUDA_HOME, /usr/local/cuda, PATH).
    max_tensor_bytes: cap on any one tensor's bytes (default 16 GiB).
    device, cuda_graphs: as for :class:`aicc.Module`.
    **options: pipeline knobs by their aicc-compile flag with ``_`` for ``-``:
        ``allow_tf32=True``, ``conv_layout="nhwc"``, ``matmul_config="128x128x64x4"``,
        ``attention="unfused"`` ... (:func:`aicc.pipeline_options` lists them all).

    Raises aicc.CompileError carrying the located diagnostics when the model is refused
    (``node 'Foo_3': error: ...``), aicc.CompilerUnavailableError in a runtime-only
    package. Deterministic: the same model and options give the same bundle bytes.
    """
    _require_compiler("aicc.compile")
    with tempfile.TemporaryDirectory(prefix="aicc-compile-") as tmp:
        req = _request(model, target, dims, shapes, bind_inputs, cuda_path, max_tensor_bytes,
                       options, tmp, specialize)
        bundle = _aicc.compile(emit="bundle", **req)
    return Module(bundle, device=device, cuda_graphs=cuda_graphs)


def compile_to(model: ModelLike, emit: str, target: str = "sm_90a", **kwargs: Any) -> Union[str, bytes]:
    """Compiles `model` and returns an intermediate artifact instead of a Module: emit is
    "onnx" (the importer's graph IR), "graph", "fused", "tile", "lowered", "llvm", "ptx",
    "dot", "fusion-report", "memory-report" (text, str) or "cubin" / "bundle" (bytes).
    Takes compile()'s keyword arguments."""
    _require_compiler("aicc.compile_to")
    with tempfile.TemporaryDirectory(prefix="aicc-compile-") as tmp:
        dims, shapes = kwargs.pop("dims", None), kwargs.pop("shapes", None)
        binds, spec = kwargs.pop("bind_inputs", None), kwargs.pop("specialize", None)
        cuda_path, cap = kwargs.pop("cuda_path", None), kwargs.pop("max_tensor_bytes", None)
        req = _request(model, target, dims, shapes, binds, cuda_path, cap, kwargs, tmp, spec)
        data = _aicc.compile(emit=emit, **req)
    return data if emit in ("cubin", "bundle") else data.decode("utf-8")


def pipeline_options() -> Dict[str, Dict[str, str]]:
    """Every pipeline knob compile() takes as a keyword (flag name with ``_``): its type
    ("bool", "int", "string"), default and description."""
    _require_compiler("aicc.pipeline_options")
    return {flag.replace("-", "_"): {"type": t, "default": d, "description": desc}
            for flag, t, d, desc in _aicc.pipeline_options()}
