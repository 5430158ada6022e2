"""Type stubs of the C++ extension aicc._aicc (python/src). Private: use the aicc package.

Tensors cross as (dtype, shape, bytes): dtype a runtime name ("f32", "f16", "bf16", "f64",
"i64", "i32", "i16", "i8", "u8", "u16", "u32", "u64", "bool"), shape in elements
(outermost first), bytes a 1-D uint8 numpy array of the row-major little-endian elements.
Errors are raised as the classes of aicc._errors.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

has_compiler: bool
version: str  # "0.1.0"
version_line: str  # "aicc 0.1.0 (commit 1a2b3c4d5e6f)", the tools' --version

# (name, dtype, shape at the bound, (axis, symbol index, factor) or None)
_TensorRecord = Tuple[str, str, List[int], Optional[Tuple[int, int, int]]]

def describe_bundle(bundle: bytes) -> Dict[str, Any]:
    """target, format_version, inputs/outputs (list of _TensorRecord), symbols
    ([(name, min, max)]), bound_inputs ([(name, dtype, shape)]), num_kernels,
    num_launches, code_bytes, weight_bytes. Raises aicc.RuntimeError on an invalid bundle."""

class Session:
    """A bundle loaded on one device (aicc::runtime::Model) and one Session of it."""

    def __init__(self, bundle: bytes, device: str, device_index: int = 0,
                 cuda_graphs: bool = True) -> None: ...
    def run_host(self, inputs: Sequence[Tuple[str, Sequence[int], Any]]
                 ) -> List[Tuple[str, List[int], np.ndarray]]:
        """Session::run: host tensors in and out (copies)."""
    def run_buffers(self, inputs: Sequence[Tuple[int, int]], outputs: Sequence[Tuple[int, int]],
                    stream: int = 0) -> None:
        """Session::runAsync on caller-owned (address, bytes) buffers of the session's
        device, enqueued on `stream` (a CUstream as int; 0: legacy default; cpu: 0)."""
    def input_buffer(self, index: int) -> Tuple[int, int]:
        """Session::getInputBuffer: (address, bytes at the bound) of the session's own
        memory for input `index` (a CUdeviceptr on cuda, a host address on cpu); runs
        given exactly this address take the input in place. Raises aicc.RuntimeError on
        an index out of range."""
    def output_buffer(self, index: int) -> Tuple[int, int]:
        """Session::getOutputBuffer: the same for output `index` (an input's memory when
        the bundle returns that input's buffer); aicc.RuntimeError for a constant output."""
    def benchmark(self, iters: int) -> Dict[str, float]:
        """runs, mean_ms, median_ms, p90_ms, min_ms, max_ms."""
    def poison(self, byte: int = 0xFF) -> None: ...
    @property
    def device(self) -> str: ...
    @property
    def device_index(self) -> int: ...
    @property
    def symbol_values(self) -> List[int]: ...
    @property
    def uses_cuda_graphs(self) -> bool: ...
    @property
    def last_run_copy_bytes(self) -> int:
        """Session::getLastRunCopyBytes: bytes the last run copied between the caller's
        memory and the session's buffers (0 for buffers taken in place)."""
    @property
    def allocated_bytes(self) -> int: ...
    @property
    def constant_bytes(self) -> int: ...

def dlpack_info(capsule: Any) -> Tuple[int, int, int, int, int, int, List[int], Optional[List[int]]]:
    """(address of the first element, device type, device id, dtype code, bits, lanes,
    shape, strides in elements or None) of a "dltensor" capsule, which stays unconsumed."""

def read_tensor_proto(path: str) -> Tuple[str, Tuple[str, List[int], np.ndarray]]: ...
def write_tensor_proto(path: str, dtype: str, shape: Sequence[int], data: Any,
                       name: str = "") -> None: ...

# Present only when has_compiler:
def compile(model: bytes, buffer_name: str, is_mlir: bool, target: str, emit: str,
            options: Sequence[Tuple[str, str]], bind_inputs: Sequence[Tuple[str, str]],
            input_shapes: Sequence[Tuple[str, Sequence[int]]],
            dims: Sequence[Tuple[str, int, int, bool]], cuda_path: str,
            max_tensor_bytes: int,
            specialize: Sequence[Tuple[str, int]] = ...) -> bytes: ...
def pipeline_options() -> List[Tuple[str, str, str, str]]: ...
def run_reference_mode(options: Dict[str, Any]) -> Tuple[int, str, str]: ...
def run_bisect_mode(options: Dict[str, Any]) -> Tuple[int, str, str]: ...
