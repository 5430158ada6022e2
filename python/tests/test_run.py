"""Running a Module with numpy arrays on the CPU target: results, zero-copy, errors."""

import numpy as np
import pytest

import aicc
from aicc import _tensors
from conftest import MLP, assert_close, data_set


def test_mlp_matches_torchs_recorded_output(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    got = mlp_cpu(x)
    assert isinstance(got, np.ndarray)
    assert_close(got, y)
    # run() by name, returning {name: array}.
    out = mlp_cpu.run({"x": x})
    assert list(out) == ["probs"]
    assert_close(out["probs"], y)
    assert_close(mlp_cpu.run([x])["probs"], y)


def test_cpu_runs_are_zero_copy(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    # The input's own buffer is what the kernels read ...
    buf = _tensors.from_object(x, "f32")
    assert buf.address == x.ctypes.data and buf.keepalive is x
    # ... and out= arrays are written in place.
    out = np.full((16, 32), np.nan, dtype=np.float32)
    res = mlp_cpu(x, out=[out])
    assert res is out
    assert_close(out, y)


def test_non_contiguous_input_is_copied_and_still_right(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    xt = np.asfortranarray(x)
    assert not xt.flags.c_contiguous
    assert_close(mlp_cpu(xt), y)


def test_wrong_shape_or_dtype_raises_the_runtime_message(mlp_cpu):
    (x,), _ = data_set(MLP)
    with pytest.raises(aicc.RuntimeError) as e:
        mlp_cpu(x[:4])
    assert str(e.value) == "input 0 ('x'): expected f32[16,64], got f32[4,64]"
    assert isinstance(e.value, RuntimeError)  # also the builtin
    with pytest.raises(aicc.RuntimeError, match=r"expected f32\[16,64\], got f64\[16,64\]"):
        mlp_cpu(x.astype(np.float64))
    with pytest.raises(aicc.Error, match="takes 1 input"):
        mlp_cpu(x, x)
    with pytest.raises(aicc.Error, match="unknown \\['y'\\]"):
        mlp_cpu.run({"x": x, "y": x})
    with pytest.raises(aicc.Error, match="out= tensor is f32\\[2,2\\]"):
        mlp_cpu(x, out=[np.zeros((2, 2), np.float32)])


def test_results_are_fresh_arrays_each_run(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    a = mlp_cpu(x)
    b = mlp_cpu(np.zeros_like(x))
    assert_close(a, y)  # not overwritten by the second run
    assert not np.allclose(a, b)


def test_lists_are_taken_as_arrays(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    assert_close(mlp_cpu(x.tolist()), y)


def test_benchmark(mlp_cpu):
    (x,), _ = data_set(MLP)
    r = mlp_cpu.benchmark(20, inputs=[x])
    assert r.runs == 20
    assert 0 < r.min_ms <= r.median_ms <= r.p90_ms <= r.max_ms
    assert r.min_ms <= r.mean_ms <= r.max_ms
    assert r.symbols == {}
    assert mlp_cpu.allocated_bytes() > 16 * 64 * 4


def test_runs_from_several_threads(mlp_cpu):
    """Runs of one Module are serialized (one session), each thread gets its own results;
    the GIL is released while the kernels run."""
    from concurrent.futures import ThreadPoolExecutor

    (x,), (y,) = data_set(MLP)
    xs = [x * (1 + i / 8) for i in range(8)]
    want = [mlp_cpu(a) for a in xs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda a: mlp_cpu(a), xs * 4))
    for i, g in enumerate(got):
        np.testing.assert_array_equal(g, want[i % 8])
