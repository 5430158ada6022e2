"""PyTorch integration: aicc.from_torch and the torch.compile backend "aicc".

from_torch exports an nn.Module (or any callable torch.onnx.export takes) to ONNX and
compiles it: with torch >= 2 through torch.onnx's dynamo exporter (``dynamo=True``) when it
works, else (and always with torch 1.x) through the TorchScript exporter. The weights are
baked into the bundle as they are at export time.

The backend (torch >= 2 only): ``torch.compile(model, backend="aicc")`` hands each FX graph
dynamo captures to aicc (FX graph -> ONNX -> bundle for the inputs' device: "cpu", or the
GPU's sm target) and runs it with the graph's input tensors, zero-copy, on torch's current
CUDA stream. A graph aicc cannot take (an export or compile error, symbolic shapes, a
result that differs from eager on the example inputs, gradients required) runs eagerly,
and the reason is logged on the "aicc.torch" logger (WARNING).
"""

import io
import logging
from typing import Any, Callable, Dict, Optional, Sequence

from . import _tensors as T
from ._errors import Error
from ._module import Module

log = logging.getLogger("aicc.torch")

# CUDA compute capability -> aicc target.
_TARGETS = {(8, 0): "sm_80", (8, 6): "sm_86", (8, 9): "sm_89", (9, 0): "sm_90a",
            (10, 0): "sm_100"}


def _torch():
    import torch

    return torch


def torch_major() -> int:
    return int(_torch().__version__.split(".")[0])


def default_target(example_inputs: Sequence[Any]) -> str:
    """"cpu", or the target of the CUDA device the first CUDA tensor lives on."""
    torch = _torch()
    for t in example_inputs:
        if isinstance(t, torch.Tensor) and t.is_cuda:
            cap = torch.cuda.get_device_capability(t.device)
            if cap not in _TARGETS:
                raise Error("no aicc target for CUDA compute capability %d.%d" % cap)
            return _TARGETS[cap]
    return "cpu"


def _count_outputs(model: Any, args: tuple) -> int:
    torch = _torch()
    with torch.no_grad():
        out = model(*args)
    return len(out) if isinstance(out, (tuple, list)) else 1


def export_onnx(model: Any, example_inputs: Sequence[Any], *, exporter: str = "auto",
                opset: Optional[int] = None,
                dynamic_axes: Optional[Dict[str, Dict[int, str]]] = None) -> bytes:
    """The ONNX bytes of `model` traced at `example_inputs`, with graph inputs named
    input_0, input_1 ... and outputs output_0, output_1 ... (the names `dynamic_axes`
    uses, e.g. ``{"input_0": {0: "batch"}, "output_0": {0: "batch"}}``: a dim_param that
    aicc.compile's ``dims={"batch": (1, 8)}`` keeps symbolic).

    exporter: "dynamo" (torch >= 2: torch.onnx.export(..., dynamo=True)), "torchscript"
    (torch.onnx.export's tracer, opset 17 unless `opset`), or "auto" (dynamo when torch >= 2
    and it succeeds, else torchscript, logging why on the "aicc.torch" logger)."""
    torch = _torch()
    args = tuple(example_inputs)
    if exporter not in ("auto", "dynamo", "torchscript"):
        raise ValueError("exporter must be 'auto', 'dynamo' or 'torchscript'")
    names = dict(input_names=["input_%d" % i for i in range(len(args))],
                 output_names=["output_%d" % i for i in range(_count_outputs(model, args))])
    if dynamic_axes:
        names["dynamic_axes"] = dynamic_axes
    if exporter in ("auto", "dynamo") and torch_major() >= 2:
        try:
            kwargs = dict(names, dynamo=True)
            if opset is not None:
                kwargs["opset_version"] = opset
            program = torch.onnx.export(model, args, **kwargs)
            return program.model_proto.SerializeToString()
        except Exception as e:  # noqa: BLE001 - any exporter failure falls back
            if exporter == "dynamo":
                raise
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            log.warning("aicc: torch.onnx dynamo export failed (%s: %s); using the "
                        "TorchScript exporter", type(e).__name__, first)
    elif exporter == "dynamo":
        raise Error("the dynamo exporter needs torch >= 2 (this is %s)" % torch.__version__)
    f = io.BytesIO()
    kwargs = dict(names)
    if torch_major() >= 2:
        kwargs["dynamo"] = False
    with torch.no_grad():
        torch.onnx.export(model, args, f, opset_version=opset or 17,
                          do_constant_folding=True, **kwargs)
    return f.getvalue()


def from_torch(model: Any, example_inputs: Sequence[Any], target: Optional[str] = None, *,
               exporter: str = "auto", opset: Optional[int] = None,
               dynamic_axes: Optional[Dict[str, Dict[int, str]]] = None,
               **compile_kwargs: Any) -> Module:
    """Exports `model` (a torch.nn.Module or callable) at `example_inputs` (a tuple of
    tensors, the positional arguments) to ONNX and compiles it with aicc.compile.

    target: default "cpu" for CPU example inputs, the GPU's target (sm_80 ... sm_90a,
        sm_100) for CUDA ones. exporter, opset, dynamic_axes: see export_onnx (inputs are
        named input_0 ..., outputs output_0 ...). compile_kwargs: as for aicc.compile
        (dims={"batch": (1, 64)}, allow_tf32=True, ...). Returns a Module: call it with
        tensors of the example inputs' dtypes and shapes (torch in, torch out). The
        weights are those of `model` at export time.
    """
    from ._compile import compile as aicc_compile

    data = export_onnx(model, example_inputs, exporter=exporter, opset=opset,
                       dynamic_axes=dynamic_axes)
    return aicc_compile(data, target or default_target(example_inputs), **compile_kwargs)


class _Fallback(Exception):
    pass


def _check_graph_inputs(example_inputs: Sequence[Any]) -> None:
    torch = _torch()
    for i, t in enumerate(example_inputs):
        if not isinstance(t, torch.Tensor):
            raise _Fallback("graph input %d is a %s, not a tensor (symbolic shapes?)"
                            % (i, type(t).__name__))
        if T.torch_dtype(_runtime_dtype(t)) is None:
            raise _Fallback("graph input %d has dtype %s" % (i, t.dtype))
    if torch.is_grad_enabled() and any(t.requires_grad for t in example_inputs):
        raise _Fallback("gradients are required (aicc compiles inference graphs only)")


def _runtime_dtype(t) -> str:
    torch = _torch()
    for rt in T.DTYPES:
        if T.torch_dtype(rt) == t.dtype:
            return rt
    return ""


def torch_backend(target: Optional[str] = None, *, rtol: float = 1e-3, atol: float = 1e-4,
                  check: bool = True, **compile_kwargs: Any) -> Callable:
    """A torch.compile backend: ``torch.compile(model, backend=aicc.torch_backend(...))``.
    target: as for from_torch (default: from the inputs' device). check: compare aicc's
    results on the example inputs with the graph's eager results (rtol/atol) and run
    eagerly when they differ. compile_kwargs: as for aicc.compile."""

    def backend(gm, example_inputs):
        torch = _torch()
        try:
            _check_graph_inputs(example_inputs)
            with torch.no_grad():
                expected = gm(*example_inputs)
            single = not isinstance(expected, (tuple, list))
            expected_list = [expected] if single else list(expected)
            if not all(isinstance(e, torch.Tensor) for e in expected_list):
                raise _Fallback("the graph returns something other than tensors")
            try:
                module = from_torch(gm, example_inputs, target, **compile_kwargs)
            except Exception as e:  # noqa: BLE001
                raise _Fallback("%s: %s" % (type(e).__name__, str(e).strip()))
            if len(module.outputs) != len(expected_list):
                raise _Fallback("the ONNX export has %d outputs, the graph %d"
                                % (len(module.outputs), len(expected_list)))
            if check:
                got = module.run(list(example_inputs))
                for (name, g), e in zip(got.items(), expected_list):
                    if g.shape != e.shape or not torch.allclose(
                            g.to(e.dtype), e, rtol=rtol, atol=atol, equal_nan=True):
                        raise _Fallback("output '%s' differs from eager on the example inputs"
                                        % name)
        except _Fallback as reason:
            log.warning("aicc: running this graph eagerly: %s", reason)
            return gm.forward

        def run(*args):
            outs = module.run(list(args))
            values = list(outs.values())
            return values[0] if single else type(expected)(values) if isinstance(
                expected, tuple) else values

        run.aicc_module = module
        return run

    return backend


def aicc_backend(gm, example_inputs):
    """The backend registered as "aicc": torch_backend() with its defaults."""
    return torch_backend()(gm, example_inputs)


def register_torch_backend() -> bool:
    """Registers "aicc" with torch._dynamo (torch >= 2); False with torch 1.x. Called by
    ``import aicc`` when torch is already imported; an installed aicc is also found by
    torch through its ``torch_dynamo_backends`` entry point."""
    if torch_major() < 2:
        return False
    from torch._dynamo import list_backends, register_backend

    if "aicc" not in list_backends(exclude_tags=()):
        register_backend(name="aicc")(aicc_backend)
    return True
