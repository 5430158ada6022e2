"""Tensors in and out of the runtime: numpy arrays, torch tensors, any DLPack producer.

The runtime takes every tensor as dense row-major bytes of one of its dtypes
(include/aicc/Runtime/Bundle.h). This module maps the Python objects onto those bytes
without copying where it can:

- numpy arrays: their own buffer when C-contiguous (else one ``np.ascontiguousarray`` copy);
- torch tensors and other DLPack producers: the data pointer of their DLPack capsule
  (``torch.utils.dlpack.to_dlpack`` / ``__dlpack__``), on the device they live on; a
  non-contiguous torch tensor is made contiguous first (a copy).
"""

import sys
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np

from . import _aicc
from ._errors import Error

# Runtime dtype name -> (public name, numpy dtype of the bytes).
# numpy has no bfloat16: bf16 tensors cross numpy as uint16 bit patterns.
DTYPES = {
    "f32": ("float32", np.dtype(np.float32)),
    "f16": ("float16", np.dtype(np.float16)),
    "bf16": ("bfloat16", np.dtype(np.uint16)),
    "f64": ("float64", np.dtype(np.float64)),
    "i64": ("int64", np.dtype(np.int64)),
    "i32": ("int32", np.dtype(np.int32)),
    "i16": ("int16", np.dtype(np.int16)),
    "i8": ("int8", np.dtype(np.int8)),
    "u8": ("uint8", np.dtype(np.uint8)),
    "u16": ("uint16", np.dtype(np.uint16)),
    "u32": ("uint32", np.dtype(np.uint32)),
    "u64": ("uint64", np.dtype(np.uint64)),
    "bool": ("bool", np.dtype(np.bool_)),
}
PUBLIC_TO_RUNTIME = {public: rt for rt, (public, _) in DTYPES.items()}

# DLPack (type code, bits) -> runtime dtype name (lanes must be 1).
_DLPACK = {
    (2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16",
    (0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
    (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
    (6, 8): "bool",
}
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST = 1, 2, 3


def numpy_dtype(runtime_dtype: str) -> np.dtype:
    """The numpy dtype holding a runtime dtype's bytes (uint16 for bf16)."""
    return DTYPES[runtime_dtype][1]


def runtime_dtype_of_numpy(dtype: np.dtype) -> Optional[str]:
    for rt, (public, npd) in DTYPES.items():
        if rt != "bf16" and npd == dtype:
            return rt
    return None


def torch_module():
    """torch when it is already imported (aicc never imports it for numpy users)."""
    return sys.modules.get("torch")


def torch_dtype(runtime_dtype: str):
    torch = torch_module()
    return {
        "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
        "f64": torch.float64, "i64": torch.int64, "i32": torch.int32, "i16": torch.int16,
        "i8": torch.int8, "u8": torch.uint8, "bool": torch.bool,
    }.get(runtime_dtype)


def is_torch_tensor(x: Any) -> bool:
    torch = torch_module()
    return torch is not None and isinstance(x, torch.Tensor)


@dataclass
class Buffer:
    """One tensor as the runtime sees it, plus what keeps its memory alive."""

    dtype: str                 # runtime dtype name
    shape: Tuple[int, ...]
    address: int               # first element (host or CUdeviceptr)
    nbytes: int
    device: str                # "cpu" or "cuda"
    device_index: int
    keepalive: Any = None      # the array / tensor / capsule owning the memory
    host_array: Optional[np.ndarray] = None  # for host tensors: the bytes as numpy


def _nbytes(shape, runtime_dtype) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n * numpy_dtype(runtime_dtype).itemsize


def from_numpy(a: np.ndarray, expected: Optional[str] = None) -> Buffer:
    """A host Buffer over `a` (C-contiguous: no copy). `expected` names the dtype the
    model wants: a uint16 array is taken as bf16 bit patterns where bf16 is expected."""
    a = np.ascontiguousarray(a)
    if expected == "bf16" and a.dtype == np.uint16:
        rt = "bf16"
    else:
        rt = runtime_dtype_of_numpy(a.dtype)
        if rt is None:
            raise TypeError("numpy dtype %s has no aicc dtype" % a.dtype)
    return Buffer(rt, tuple(a.shape), a.ctypes.data if a.size else 0, a.nbytes, "cpu", 0,
                  keepalive=a, host_array=a)


def from_dlpack_capsule(capsule, keepalive) -> Buffer:
    """A Buffer over the memory a DLPack capsule describes (the capsule is only read)."""
    address, dev_type, dev_id, code, bits, lanes, shape, strides = _aicc.dlpack_info(capsule)
    if lanes != 1 or (code, bits) not in _DLPACK:
        raise TypeError("DLPack dtype (code %d, %d bits, %d lanes) has no aicc dtype"
                        % (code, bits, lanes))
    rt = _DLPACK[(code, bits)]
    shape = tuple(shape)
    if strides is not None and not _is_compact(shape, strides):
        raise Error("DLPack tensor of shape %s has strides %s: aicc takes dense row-major "
                    "tensors (make it contiguous first)" % (list(shape), list(strides)))
    if dev_type in (_DL_CPU, _DL_CUDA_HOST):
        device = "cpu"
    elif dev_type == _DL_CUDA:
        device = "cuda"
    else:
        raise Error("DLPack device type %d is neither CPU nor CUDA" % dev_type)
    return Buffer(rt, shape, address, _nbytes(shape, rt), device, dev_id,
                  keepalive=(capsule, keepalive))


def _is_compact(shape, strides) -> bool:
    expected = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != expected:
            return False
        expected *= d
    return True


def from_torch(t) -> Buffer:
    """A Buffer over a torch tensor's memory (contiguous: no copy), through DLPack."""
    torch = torch_module()
    if not t.is_contiguous():
        t = t.contiguous()
    if t.requires_grad:
        t = t.detach()
    if t.dtype == torch.bool:
        # torch 1.x cannot export bool through DLPack: its bytes as uint8 (one byte, 0 or 1).
        buf = from_dlpack_capsule(torch.utils.dlpack.to_dlpack(t.view(torch.uint8)), t)
        buf.dtype = "bool"
        return buf
    return from_dlpack_capsule(torch.utils.dlpack.to_dlpack(t), t)


def from_object(x: Any, expected: Optional[str] = None, stream: Optional[int] = None) -> Buffer:
    """A Buffer for any tensor-like input: numpy array, torch tensor, DLPack producer, or
    anything np.asarray takes (lists, scalars: a copy)."""
    if isinstance(x, np.ndarray):
        return from_numpy(x, expected)
    if is_torch_tensor(x):
        return from_torch(x)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        dev_type, _ = x.__dlpack_device__()
        if int(dev_type) == _DL_CUDA:
            capsule = x.__dlpack__(stream=1 if not stream else stream)
        else:
            capsule = x.__dlpack__()
        return from_dlpack_capsule(capsule, x)
    # Python lists and scalars take the dtype the model expects.
    return from_numpy(np.asarray(x, dtype=numpy_dtype(expected) if expected else None),
                      expected)


def host_bytes(buf: Buffer) -> np.ndarray:
    """The bytes of a host Buffer as a C-contiguous numpy array (no copy)."""
    if buf.host_array is not None:
        return buf.host_array
    t = buf.keepalive[1] if isinstance(buf.keepalive, tuple) else buf.keepalive
    if is_torch_tensor(t):
        torch = torch_module()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16)
        return t.numpy()
    return np.from_dlpack(t)


class _MemoryView:
    """Device memory of a runtime session as numpy's ``__array_interface__`` (host) or the
    CUDA Array Interface (version 3) describes it; holds `owner` (the _aicc.Session), so
    that an array or tensor made from it keeps the session, hence the memory, alive."""

    def __init__(self, address: int, shape, typestr: str, cuda: bool, owner: Any):
        self._owner = owner
        iface = {"shape": tuple(int(d) for d in shape), "typestr": typestr,
                 "data": (int(address), False), "strides": None, "version": 3}
        if cuda:
            # No "stream": the caller orders its accesses (docs/python.md).
            self.__cuda_array_interface__ = iface
        else:
            self.__array_interface__ = iface


def view_memory(runtime_dtype: str, shape, address: int, device: str, owner: Any,
                as_numpy: bool = False):
    """A tensor of `runtime_dtype` and `shape` over memory at `address` that `owner`
    keeps alive, without a copy: a torch tensor (CPU or CUDA), or with `as_numpy` (host
    memory only) a numpy array (bf16 as uint16 bit patterns)."""
    npd = numpy_dtype(runtime_dtype)
    if device == "cpu":
        a = np.asarray(_MemoryView(address, shape, npd.str, False, owner))
        if as_numpy:
            return a
        import torch  # noqa: F401 (numpy_to_torch finds it in sys.modules)

        return numpy_to_torch(a, runtime_dtype)
    import torch

    dtype = torch_dtype(runtime_dtype)
    if dtype is None:
        raise TypeError("torch has no dtype for aicc's %s" % runtime_dtype)
    # The CUDA Array Interface has no typestr for bfloat16: its bits as int16.
    typestr = "<i2" if runtime_dtype == "bf16" else npd.str
    t = torch.as_tensor(_MemoryView(address, shape, typestr, True, owner))
    return t.view(torch.bfloat16) if runtime_dtype == "bf16" else t


def empty_numpy(runtime_dtype: str, shape) -> np.ndarray:
    return np.empty(tuple(shape), dtype=numpy_dtype(runtime_dtype))


def empty_torch(runtime_dtype: str, shape, device):
    torch = torch_module()
    dtype = torch_dtype(runtime_dtype)
    if dtype is None:
        raise TypeError("torch has no dtype for aicc's %s" % runtime_dtype)
    return torch.empty(tuple(shape), dtype=dtype, device=device)


def numpy_to_torch(a: np.ndarray, runtime_dtype: str):
    """A CPU torch tensor sharing `a`'s memory (bf16 bit patterns become bfloat16)."""
    torch = torch_module()
    if runtime_dtype == "bf16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def bytes_to_numpy(runtime_dtype: str, shape, raw: np.ndarray) -> np.ndarray:
    """The uint8 bytes the extension returns as an array of `shape` (no copy)."""
    return raw.view(numpy_dtype(runtime_dtype)).reshape(tuple(shape))


def read_tensor_proto(path: str) -> Tuple[str, np.ndarray]:
    """Reads an ONNX TensorProto file (test_data_set_N/input_K.pb): (name, array).
    bf16 tensors come back as uint16 bit patterns."""
    name, (dtype, shape, raw) = _aicc.read_tensor_proto(str(path))
    return name, bytes_to_numpy(dtype, shape, raw)


def write_tensor_proto(path: str, array: Any, name: str = "", dtype: Optional[str] = None) -> None:
    """Writes `array` as an ONNX TensorProto file; `dtype` (runtime name) overrides the
    array's (e.g. "bf16" for uint16 bit patterns)."""
    buf = from_object(array, dtype)
    if buf.device != "cpu":
        raise Error("write_tensor_proto takes host tensors")
    _aicc.write_tensor_proto(str(path), dtype or buf.dtype, list(buf.shape),
                             host_bytes(buf).reshape(-1).view(np.uint8), name)
