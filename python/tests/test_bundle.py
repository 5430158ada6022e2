"""Saving and loading bundles."""

import os

import numpy as np
import pytest

import aicc
from conftest import MLP, assert_close, data_set


def test_save_load_round_trip(mlp_cpu, tmp_path):
    path = tmp_path / "mlp.aicc"
    mlp_cpu.save(path)
    assert path.read_bytes() == mlp_cpu.bundle
    assert [p.name for p in tmp_path.iterdir()] == ["mlp.aicc"]  # no temporary left
    m = aicc.load(path)
    assert m.bundle == mlp_cpu.bundle
    assert (m.target, m.inputs, m.outputs) == (mlp_cpu.target, mlp_cpu.inputs, mlp_cpu.outputs)
    (x,), (y,) = data_set(MLP)
    np.testing.assert_array_equal(m(x), mlp_cpu(x))
    assert_close(m(x), y)
    # A str path, and Module(bytes) directly.
    assert aicc.load(str(path)).bundle == m.bundle
    assert_close(aicc.Module(path.read_bytes())(x), y)


def test_save_overwrites_atomically(mlp_cpu, tmp_path):
    path = tmp_path / "m.aicc"
    path.write_bytes(b"old")
    mlp_cpu.save(path)
    assert path.read_bytes() == mlp_cpu.bundle


def test_invalid_bundle_is_a_runtime_error(tmp_path):
    bad = tmp_path / "bad.aicc"
    bad.write_bytes(b"this is not a bundle at all")
    with pytest.raises(aicc.RuntimeError, match="not a valid aicc bundle"):
        aicc.load(bad)
    with pytest.raises(FileNotFoundError):
        aicc.load(tmp_path / "missing.aicc")


def test_truncated_bundle_is_refused(mlp_cpu):
    with pytest.raises(aicc.RuntimeError, match="not a valid aicc bundle"):
        aicc.Module(mlp_cpu.bundle[: len(mlp_cpu.bundle) // 2])


@pytest.mark.compiler
def test_gpu_bundle_without_a_gpu_fails_at_run_time(tmp_path):
    """An sm_90a bundle loads as a Module anywhere; running it needs a CUDA device."""
    from conftest import cuda_device_count

    m = aicc.compile(MLP / "model.onnx", target="sm_90a")
    m.save(tmp_path / "m.aicc")
    m2 = aicc.load(tmp_path / "m.aicc")
    assert m2.target == "sm_90a"
    if cuda_device_count() == 0:
        (x,), _ = data_set(MLP)
        with pytest.raises(aicc.RuntimeError):
            m2(x)
    # A cpu device for a GPU bundle is refused by the runtime.
    with pytest.raises(aicc.RuntimeError, match="target"):
        aicc.Module(m.bundle, device="cpu")(np.zeros((16, 64), np.float32))
