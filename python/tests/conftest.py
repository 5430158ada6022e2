"""pytest configuration of the aicc Python package's tests.

Run against the build tree (what ctest's `python` test does):
    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
Markers:
    gpu     needs a CUDA device; skipped (with the reason) where there is none. Runs on
            the GPU machine with the runtime-only package and bundles compiled here
            (scripts/make-python-gpu-payload.sh, docs/python.md "GPU tests").
    torch2  needs torch >= 2 (torch.compile, the dynamo exporter); skipped under torch 1.x.
    compiler  needs aicc's compiler; skipped only in a runtime-only package (the GPU
            machine's); CI's build always has it.
"""

import ctypes
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import aicc

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "models"
BUILD = Path(os.environ.get("AICC_BUILD_DIR", REPO / "build")).resolve()
# Bundles compiled for the GPU by scripts/make-python-gpu-payload.sh (for a runtime-only
# package, which cannot compile them itself).
GPU_BUNDLES = os.environ.get("AICC_TEST_BUNDLES", str(REPO / ".device-py" / "bundles"))
GPU_TARGET = os.environ.get("AICC_TEST_GPU_TARGET", "sm_90a")


def torch_version():
    try:
        import torch
    except ImportError:
        return None
    return tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2] if p.isdigit())


def cuda_device_count() -> int:
    """CUDA devices the driver shows (0 without a driver): asked of libcuda itself, so
    the answer needs no torch."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    if cuda.cuInit(0) != 0:
        return 0
    n = ctypes.c_int(0)
    if cuda.cuDeviceGetCount(ctypes.byref(n)) != 0:
        return 0
    return n.value


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (the GPU machine)")
    config.addinivalue_line("markers", "torch2: needs torch >= 2 (torch.compile, dynamo export)")
    config.addinivalue_line("markers", "compiler: needs aicc's compiler (not the runtime-only "
                            "package)")


def pytest_collection_modifyitems(config, items):
    tv = torch_version()
    ncuda = None
    for item in items:
        if "gpu" in item.keywords:
            if ncuda is None:
                ncuda = cuda_device_count()
            if ncuda == 0:
                item.add_marker(pytest.mark.skip(reason="no CUDA device (GPU test: run on the "
                                                 "GPU machine, docs/python.md)"))
        if "torch2" in item.keywords and (tv is None or tv < (2, 0)):
            if os.environ.get("AICC_REQUIRE_TORCH2") == "1":
                raise pytest.UsageError(
                    "AICC_REQUIRE_TORCH2=1 but this Python has %s (scripts/setup.sh installs "
                    "torch 2.11 into the project's .venv)" % (
                        "no torch" if tv is None else "torch " + ".".join(map(str, tv))))
            item.add_marker(pytest.mark.skip(reason="needs torch >= 2, this is %s" % (
                "no torch" if tv is None else ".".join(map(str, tv)))))
        if "compiler" in item.keywords and not aicc.has_compiler:
            item.add_marker(pytest.mark.skip(reason="runtime-only aicc package (no compiler)"))


def read_pb(path):
    return aicc.read_tensor_proto(str(path))[1]


def data_set(model_dir, k=0):
    """(inputs, expected outputs) of MODEL_DIR/test_data_set_K, as numpy arrays."""
    d = Path(model_dir) / ("test_data_set_%d" % k)
    ins, outs = [], []
    i = 0
    while (d / ("input_%d.pb" % i)).exists():
        ins.append(read_pb(d / ("input_%d.pb" % i)))
        i += 1
    i = 0
    while (d / ("output_%d.pb" % i)).exists():
        outs.append(read_pb(d / ("output_%d.pb" % i)))
        i += 1
    return ins, outs


def assert_close(got, expected, rtol=1e-4, atol=1e-5):
    got = np.asarray(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


MLP = MODELS / "mlp"
CONVNET_DYN = MODELS / "torch" / "convnet_dynbatch_opset17"


@pytest.fixture(scope="session")
def mlp_cpu():
    """models/mlp compiled for the CPU target (once per session)."""
    if not aicc.has_compiler:
        pytest.skip("runtime-only aicc package (no compiler)")
    return aicc.compile(MLP / "model.onnx", target="cpu")


@pytest.fixture(scope="session")
def convnet_dyn_cpu():
    """The dynamic-batch convnet export, one CPU bundle for batch 1..8."""
    if not aicc.has_compiler:
        pytest.skip("runtime-only aicc package (no compiler)")
    return aicc.compile(CONVNET_DYN / "model.onnx", target="cpu", dims={"batch": (1, 8)})


def gpu_module(name, model, **kwargs):
    """`model` for GPU_TARGET: compiled here when the package has the compiler (ptxas
    needed for a cubin), else loaded from GPU_BUNDLES/NAME.GPU_TARGET.aicc."""
    if aicc.has_compiler:
        return aicc.compile(model, target=GPU_TARGET, **kwargs)
    path = os.path.join(GPU_BUNDLES, "%s.%s.aicc" % (name, GPU_TARGET))
    if not os.path.exists(path):
        pytest.fail("runtime-only package and no precompiled bundle %s "
                    "(scripts/make-python-gpu-payload.sh makes them)" % path)
    return aicc.load(path)
