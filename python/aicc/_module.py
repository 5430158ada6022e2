"""aicc.Module: a compiled bundle, loaded lazily on the device it runs on."""

import os
import re
import tempfile
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _aicc
from . import _tensors as T
from ._errors import Error, RuntimeError as AiccRuntimeError


@dataclass(frozen=True)
class TensorSpec:
    """A model input or output as the bundle records it.

    name: the ONNX name.
    dtype: "float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8",
        "uint8", "uint16", "uint32", "uint64" or "bool".
    shape: dims in elements, outermost first; a symbolic dim (a bundle compiled with
        ``dims={"batch": (1, 64)}``) is its name, ``"batch"``, or ``"4*batch"`` when the
        dim is 4 x the symbol.
    max_shape: the shape with every symbol at its maximum (the buffer's size).
    """

    name: str
    dtype: str
    shape: Tuple[Union[int, str], ...]
    max_shape: Tuple[int, ...]
    # (axis, symbol index, factor) of the symbolic dim, or None.
    symbolic: Optional[Tuple[int, int, int]] = None

    def __repr__(self) -> str:
        return "%s: %s[%s]" % (self.name, self.dtype, ", ".join(str(d) for d in self.shape))

    def shape_at(self, symbol_values: Sequence[int]) -> Tuple[int, ...]:
        """The concrete shape at the given symbol values (Module.symbols order)."""
        if self.symbolic is None:
            return self.max_shape
        axis, sym, factor = self.symbolic
        s = list(self.max_shape)
        s[axis] = factor * symbol_values[sym]
        return tuple(s)


@dataclass(frozen=True)
class BenchmarkResult:
    """Milliseconds of one pass of the launch plan (host copies excluded), over `runs`
    back-to-back passes after one warm-up (Session::benchmark: CUDA events on the GPU,
    steady_clock on the CPU). `symbols`: the symbol values it ran at."""

    runs: int
    mean_ms: float
    median_ms: float
    p90_ms: float
    min_ms: float
    max_ms: float
    symbols: Dict[str, int]


@dataclass(frozen=True)
class BisectReport:
    """What Module.bisect found (aicc-run --bisect's report, docs/debugging.md).

    diverged: some kernel's output is outside the tolerance of the float64 reference.
    first_kernel / first_launch: the first such kernel and its launch index (None when
        nothing diverged).
    kernel_is_wrong: that kernel also diverges on the inputs it actually read (it
        computes its ops wrong), rather than amplifying rounding from upstream.
    text: the whole report (a table of every kernel's max abs/rel error, then the verdict).
    """

    diverged: bool
    first_kernel: Optional[str]
    first_launch: Optional[int]
    kernel_is_wrong: bool
    text: str

    def __str__(self) -> str:
        return self.text


def _specs(records, symbols) -> List[TensorSpec]:
    out = []
    for name, dtype, shape, symbolic in records:
        shown: List[Union[int, str]] = list(shape)
        if symbolic is not None:
            axis, sym, factor = symbolic
            sname = symbols[sym][0]
            shown[axis] = sname if factor == 1 else "%d*%s" % (factor, sname)
        out.append(TensorSpec(name, T.DTYPES[dtype][0], tuple(shown), tuple(shape),
                              tuple(symbolic) if symbolic is not None else None))
    return out


class Module:
    """A compiled model (one aicc bundle, docs/bundle-format.md).

    Made by :func:`aicc.compile`, :func:`aicc.load` or :func:`aicc.from_torch`. The bundle
    is loaded on its device at the first run (``device``: "cpu" for target cpu, "cuda" for
    sm_* targets), once per CUDA device it is given tensors on; a Module compiled for a
    GPU can be inspected and saved on a machine without one.

    Calling it runs the model: ``module(x)`` / ``module(x, y)`` (inputs in ONNX order) or
    ``module.run({"x": x})``. Inputs are numpy arrays, torch tensors, or any DLPack
    producer, of the recorded dtype and shape (symbolic dims: any value in the compiled
    range). Results are of the inputs' kind:

    - numpy in, numpy out. On the CPU target the arrays are copied into the session's
      buffers and the results out of them (Session::runAsync on host pointers, no staging);
      on a GPU the host tensors are copied through pinned staging memory (Session::run).
    - torch tensors in, torch tensors out, on the inputs' device, with no host round trip
      (copied on their device into the session's buffers unless they are those buffers,
      ``buffer_tensor``). On CUDA the
      run is enqueued on ``torch.cuda.current_stream()`` and the call returns without
      waiting, like a torch op; the results are ready in stream order.
    - another DLPack producer: its memory, zero-copy; CPU results come back as numpy, CUDA
      results need ``out=`` tensors (or torch) and run on ``stream=`` (a CUstream as int;
      default: the legacy default stream).

    Thread-safety: runs of one Module are serialized (one session per device); use one
    Module per thread (``aicc.load`` the same bundle again) to run in parallel.
    """

    def __init__(self, bundle: bytes, *, device: Optional[str] = None, cuda_graphs: bool = True):
        self._bundle = bytes(bundle)
        info = _aicc.describe_bundle(self._bundle)
        self.target: str = info["target"]
        """The bundle's target: "cpu", "sm_80", ... "sm_90a"."""
        self.device: str = device or ("cuda" if self.target.startswith("sm_") else "cpu")
        """Where it runs: "cpu" or "cuda"."""
        self.symbols: Dict[str, Tuple[int, int]] = {n: (lo, hi) for n, lo, hi in info["symbols"]}
        """Bounded symbolic dims: name -> (min, max)."""
        self.inputs: List[TensorSpec] = _specs(info["inputs"], info["symbols"])
        """Runtime inputs in ONNX order (inputs fixed at compile time excluded)."""
        self.outputs: List[TensorSpec] = _specs(info["outputs"], info["symbols"])
        """Outputs in ONNX order."""
        self.bound_inputs: List[Tuple[str, str, Tuple[int, ...]]] = [
            (n, T.DTYPES[d][0], tuple(s)) for n, d, s in info["bound_inputs"]]
        """Inputs fixed at compile time (bind_inputs=): (name, dtype, shape)."""
        self.plans: List[Tuple[str, int, int, bool, int]] = [tuple(p) for p in info["plans"]]
        """Whole launch plans per range of a symbol (compile(specialize=...)): (symbol, lo,
        hi, packed, launches), in launch order; empty for a bundle of one plan."""
        self.num_kernels: int = info["num_kernels"]
        self.num_launches: int = info["num_launches"]
        self._symbol_list = info["symbols"]
        self._cuda_graphs = cuda_graphs
        self._sessions: Dict[int, Any] = {}
        self._lock = threading.Lock()

    # -- bundle ------------------------------------------------------------------------
    @property
    def bundle(self) -> bytes:
        """The bundle's bytes (what save() writes)."""
        return self._bundle

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the bundle to `path` (atomically: a temporary file renamed over it)."""
        path = os.fspath(path)
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".aicc-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self._bundle)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def __repr__(self) -> str:
        return "<aicc.Module target=%s inputs=%s outputs=%s>" % (
            self.target, self.inputs, self.outputs)

    # -- sessions ----------------------------------------------------------------------
    def _session(self, device_index: int = 0):
        with self._lock:
            s = self._sessions.get(device_index)
            if s is None:
                s = _aicc.Session(self._bundle, self.device, device_index, self._cuda_graphs)
                self._sessions[device_index] = s
            return s

    def _check_inputs(self, bufs: Sequence["T.Buffer"]) -> None:
        """Session::run's dtype / shape / symbol checks, with its messages, before any
        memory is touched (runAsync would report sizes in bytes)."""
        def fmt(dtype, shape):
            return "%s[%s]" % (dtype, ",".join(str(d) for d in shape))

        bound: Dict[int, Tuple[int, int]] = {}
        for i, (spec, b) in enumerate(zip(self.inputs, bufs)):
            label = "input %d ('%s')" % (i, spec.name)
            want = T.PUBLIC_TO_RUNTIME[spec.dtype]
            if spec.symbolic is None:
                if b.dtype != want or tuple(b.shape) != spec.max_shape:
                    raise AiccRuntimeError("%s: expected %s, got %s" % (
                        label, fmt(want, spec.max_shape), fmt(b.dtype, b.shape)))
                continue
            axis, sym, factor = spec.symbolic
            name, lo, hi = self._symbol_list[sym]
            ok = b.dtype == want and len(b.shape) == len(spec.max_shape) and all(
                k == axis or b.shape[k] == spec.max_shape[k] for k in range(len(b.shape)))
            if not ok:
                raise AiccRuntimeError("%s: expected %s (%s in [%d, %d]), got %s" % (
                    label, fmt(want, spec.shape), name, lo, hi, fmt(b.dtype, b.shape)))
            dim = b.shape[axis]
            if dim % factor:
                raise AiccRuntimeError("%s: dim %d is %d, not a multiple of %d (dim %d is %d x %s)"
                                       % (label, axis, dim, factor, axis, factor, name))
            v = dim // factor
            if not lo <= v <= hi:
                raise AiccRuntimeError("%s: %s = %d is outside the compiled range [%d, %d] "
                                       "(dim %d)" % (label, name, v, lo, hi, axis))
            if sym in bound and bound[sym][1] != v:
                j = bound[sym][0]
                raise AiccRuntimeError("%s: %s = %d, but input %d ('%s') gives %s = %d" % (
                    label, name, v, j, self.inputs[j].name, name, bound[sym][1]))
            bound[sym] = (i, v)

    def _symbol_values(self, shapes: Sequence[Sequence[int]]) -> List[int]:
        values = [hi for _, _, hi in self._symbol_list]
        for spec, shape in zip(self.inputs, shapes):
            if spec.symbolic is None:
                continue
            axis, sym, factor = spec.symbolic
            if axis < len(shape) and shape[axis] % factor == 0 and shape[axis] > 0:
                values[sym] = shape[axis] // factor
        return values

    # -- running -----------------------------------------------------------------------
    def __call__(self, *tensors: Any, out: Optional[Sequence[Any]] = None,
                 stream: Optional[int] = None):
        """Runs the model on `tensors` (one per input, ONNX order). Returns the output, or
        a tuple of outputs when the model has several. See the class docstring for the
        tensor kinds, devices and streams."""
        results = self._run(list(tensors), out, stream)
        return results[0] if len(results) == 1 else tuple(results)

    def run(self, inputs: Union[Dict[str, Any], Sequence[Any]], *,
            out: Optional[Sequence[Any]] = None, stream: Optional[int] = None) -> Dict[str, Any]:
        """Runs the model; `inputs` maps input names to tensors (or is a list in ONNX
        order). Returns {output name: tensor} in output order."""
        if isinstance(inputs, dict):
            names = [s.name for s in self.inputs]
            unknown = sorted(set(inputs) - set(names))
            missing = [n for n in names if n not in inputs]
            if unknown or missing:
                raise Error("inputs: %s%s; the model's inputs are %s" % (
                    "unknown %s" % unknown if unknown else "",
                    ("; " if unknown and missing else "") +
                    ("missing %s" % missing if missing else ""), names))
            inputs = [inputs[n] for n in names]
        results = self._run(list(inputs), out, stream)
        return {s.name: r for s, r in zip(self.outputs, results)}

    def _run(self, tensors: List[Any], out, stream) -> List[Any]:
        if len(tensors) != len(self.inputs):
            raise Error("the model takes %d input(s) (%s), got %d" % (
                len(self.inputs), ", ".join(map(repr, self.inputs)), len(tensors)))
        want = [T.PUBLIC_TO_RUNTIME[s.dtype] for s in self.inputs]
        bufs = [T.from_object(t, w, stream) for t, w in zip(tensors, want)]
        self._check_inputs(bufs)
        devices = {(b.device, b.device_index if b.device == "cuda" else 0) for b in bufs}
        if len(devices) > 1:
            raise Error("the inputs live on different devices: %s" % sorted(devices))
        dev, index = devices.pop() if devices else ("cpu", 0)
        torch_in = any(T.is_torch_tensor(t) for t in tensors)
        values = self._symbol_values([b.shape for b in bufs])
        out_shapes = [s.shape_at(values) for s in self.outputs]
        out_dtypes = [T.PUBLIC_TO_RUNTIME[s.dtype] for s in self.outputs]

        if self.device == "cpu":
            if dev != "cpu":
                raise Error("this module is compiled for target %s (runs on the CPU); its "
                            "inputs live on %s:%d" % (self.target, dev, index))
            return self._run_buffers(0, bufs, out, out_shapes, out_dtypes, 0,
                                     "cpu" if torch_in else None)
        # A GPU target.
        if dev == "cpu":
            return self._run_host(bufs, out, torch_in)
        if stream is None and torch_in:
            torch = T.torch_module()
            stream = torch.cuda.current_stream(torch.device("cuda", index)).cuda_stream
        alloc = "cuda:%d" % index if (torch_in or T.torch_module() is not None) else None
        return self._run_buffers(index, bufs, out, out_shapes, out_dtypes, stream or 0, alloc)

    def _outputs(self, out, out_shapes, out_dtypes, torch_device):
        """Output buffers: `out` when given, else new numpy arrays / torch tensors."""
        if out is not None:
            if len(out) != len(self.outputs):
                raise Error("out= has %d tensor(s), the model has %d output(s)" % (
                    len(out), len(self.outputs)))
            results = list(out)
            for i, r in enumerate(results):
                if T.is_torch_tensor(r) and not r.is_contiguous():
                    raise Error("output %d ('%s'): out= tensor is not contiguous" % (
                        i, self.outputs[i].name))
        elif torch_device is not None:
            results = [T.empty_torch(d, s, torch_device) for d, s in zip(out_dtypes, out_shapes)]
        else:
            results = [T.empty_numpy(d, s) for d, s in zip(out_dtypes, out_shapes)]
        bufs = [T.from_object(r, d) for r, d in zip(results, out_dtypes)]
        for i, (b, d, s) in enumerate(zip(bufs, out_dtypes, out_shapes)):
            if b.dtype != d or tuple(b.shape) != tuple(s):
                raise Error("output %d ('%s'): out= tensor is %s[%s], the run writes %s[%s]" % (
                    i, self.outputs[i].name, b.dtype, ",".join(map(str, b.shape)), d,
                    ",".join(map(str, s))))
            if b.host_array is not None and b.host_array is not results[i]:
                raise Error("output %d ('%s'): out= array is not C-contiguous" % (
                    i, self.outputs[i].name))
        return results, bufs

    def _run_buffers(self, index, bufs, out, out_shapes, out_dtypes, stream, torch_device):
        if self.device == "cuda" and out is None and torch_device is None:
            raise Error("CUDA inputs from a DLPack producer other than torch: pass out= "
                        "tensors (CUDA memory of the output shapes) for the results")
        results, obufs = self._outputs(out, out_shapes, out_dtypes, torch_device)
        for b in obufs:
            if b.device != ("cpu" if self.device == "cpu" else "cuda") or (
                    b.device == "cuda" and b.device_index != index):
                raise Error("out= tensors must live where the inputs do")
        session = self._session(index)
        session.run_buffers([(b.address, b.nbytes) for b in bufs],
                            [(b.address, b.nbytes) for b in obufs], stream)
        return results

    def _run_host(self, bufs, out, torch_in):
        session = self._session(0)
        raw = session.run_host([(b.dtype, list(b.shape), T.host_bytes(b).reshape(-1).view(np.uint8))
                                for b in bufs])
        arrays = [T.bytes_to_numpy(d, s, r) for d, s, r in raw]
        if out is not None:
            for o, a, (d, _, _) in zip(out, arrays, raw):
                if T.is_torch_tensor(o):
                    o.copy_(T.numpy_to_torch(a, d))
                else:
                    np.copyto(o, a)
            return list(out)
        if torch_in:
            return [T.numpy_to_torch(a, d) for a, (d, _, _) in zip(arrays, raw)]
        return arrays

    # -- session buffers ---------------------------------------------------------------
    def buffer_tensor(self, name: str, *, device_index: Optional[int] = None,
                      numpy: bool = False):
        """The session's own memory for model input or output `name`, as a tensor that
        views it without a copy: a torch tensor on the session's device (CUDA, or the
        CPU for the cpu target), or with ``numpy=True`` (cpu target only) a numpy array
        (bf16 as uint16 bit patterns). Its shape is the recorded one, at the bound for a
        symbolic dim; the tensor keeps the session alive.

        Passing it as that input (or as that output's ``out=`` tensor) skips the
        run's copy of it (Session::runAsync takes the session's own buffers in place):
        state such as an LLM's KV cache stays in the session from run to run. A slice
        that starts at the buffer's start and is the tensor the run places there (a
        prefix ``t[:n]`` when the symbolic dim is the outermost non-1 dim) is taken in
        place too; other overlaps with the session's buffers raise aicc.RuntimeError.
        An output may be written into an input's buffer (``out=``): the next run then
        takes that input in place. Every run overwrites these buffers (inputs given
        elsewhere are copied in, outputs written by the kernels); on CUDA, order your
        reads and writes with the runs on the stream (the call's, by default
        ``torch.cuda.current_stream()``). An output the bundle maps onto an input's
        buffer views that input's memory.

        Creates the session if needed: on the CPU, or on CUDA device `device_index`
        (default: torch's current device, where a call on tensors there would run)."""
        found = [(i, s, True) for i, s in enumerate(self.inputs) if s.name == name] + [
            (i, s, False) for i, s in enumerate(self.outputs) if s.name == name]
        if not found:
            raise Error("buffer_tensor: no input or output named %r (inputs %s, outputs %s)" % (
                name, [s.name for s in self.inputs], [s.name for s in self.outputs]))
        index, spec, is_input = found[0]  # an input before an output of the same name
        if self.device == "cpu":
            device_index = 0
        elif numpy:
            raise Error("buffer_tensor(numpy=True) views host memory: this module runs on %s"
                        % self.device)
        elif device_index is None:
            import torch

            device_index = torch.cuda.current_device()
        session = self._session(device_index)
        address, _ = (session.input_buffer(index) if is_input
                      else session.output_buffer(index))
        return T.view_memory(T.PUBLIC_TO_RUNTIME[spec.dtype], spec.max_shape, address,
                             self.device, session, as_numpy=numpy)

    def last_run_copy_bytes(self, device_index: int = 0) -> int:
        """Bytes the last run on that device copied between the caller's tensors and the
        session's buffers (Session::getLastRunCopyBytes): 0 when every input and output
        was taken in place (buffer_tensor)."""
        return self._session(device_index).last_run_copy_bytes

    # -- tools -------------------------------------------------------------------------
    def benchmark(self, iters: int = 100, inputs: Optional[Sequence[Any]] = None,
                  device_index: int = 0) -> BenchmarkResult:
        """Times `iters` passes of the launch plan alone (aicc-run --benchmark's first
        figure: host copies excluded, one warm-up pass first) and returns their mean and
        order statistics in milliseconds. With `inputs`, one run on them first (it binds
        the symbolic dims to their shapes); else the passes run on the buffers as the last
        run left them (zeros before any run; every symbol at its max)."""
        if inputs is not None:
            self(*inputs)
        session = self._session(device_index)
        stats = session.benchmark(int(iters))
        names = [n for n, _, _ in self._symbol_list]
        return BenchmarkResult(symbols=dict(zip(names, session.symbol_values)), **stats)

    def allocated_bytes(self, device_index: int = 0) -> int:
        """Device bytes of the session's buffers (inputs, outputs, temps' arena) plus the
        model's constants, on the device it runs on (loads it if needed)."""
        s = self._session(device_index)
        return s.allocated_bytes + s.constant_bytes

    def bisect(self, model: Any, inputs: Optional[Sequence[Any]] = None, *,
               rtol: Optional[float] = None, atol: Optional[float] = None,
               poison: bool = False) -> BisectReport:
        """Runs this bundle kernel by kernel next to the float64 reference evaluation of
        `model` (the ONNX model it was compiled from: a path, bytes or an
        onnx.ModelProto) and names the first kernel whose output diverges (aicc-run
        --bisect, docs/debugging.md). `inputs`: one tensor per model input (host arrays;
        default: aicc-run's pseudo-random inputs). `rtol`/`atol`: one tolerance for every
        float type (default: per dtype, f32 rtol 1e-4 atol 1e-5). `poison`: fill outputs
        and temps with 0xFF bytes first. Needs the compiler."""
        from ._reference import run_mode

        with tempfile.TemporaryDirectory(prefix="aicc-bisect-") as tmp:
            bundle_path = os.path.join(tmp, "model.aicc")
            self.save(bundle_path)
            rc, text, err = run_mode("bisect", model, inputs, tmp, {
                "bundle": bundle_path, "device": self.device, "rtol": rtol, "atol": atol,
                "poison": poison})
        m = re.search(r"^first divergence: kernel '([^']*)' \(launch (\d+) of", text, re.M)
        if rc != 0 and not m:
            raise Error("bisect failed:\n" + (err or text).strip())
        return BisectReport(diverged=m is not None, first_kernel=m.group(1) if m else None,
                            first_launch=int(m.group(2)) if m else None,
                            kernel_is_wrong="-> this kernel computes its ops wrong" in text,
                            text=text)


def load(path: Union[str, os.PathLike], *, device: Optional[str] = None,
         cuda_graphs: bool = True) -> Module:
    """Loads a bundle file (aicc-compile's output, or Module.save's). `device`: "cpu" or
    "cuda" (default: the target's). Raises aicc.RuntimeError when the file is not a valid
    bundle. The bundle is code: only load bundles you built or trust."""
    with open(os.fspath(path), "rb") as f:
        data = f.read()
    return Module(data, device=device, cuda_graphs=cuda_graphs)
