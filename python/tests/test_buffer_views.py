"""Module.buffer_tensor: views of the runtime session's own input and output memory,
taken in place by the runs (Session::getInputBuffer / getOutputBuffer / runAsync).

On the CPU target with the checked-in bundle unittests/Runtime/testdata/mlp8-cpu.v4.aicc
(softmax(relu(x @ w + b)), x: f32[8, 4] -> y: f32[8, 3]; its weights are those of
unittests/Runtime/testdata/mlp8.mlir), so the runtime-only package runs it too."""

import gc
import weakref

import numpy as np
import pytest

import aicc

from conftest import REPO

MLP8 = REPO / "unittests" / "Runtime" / "testdata" / "mlp8-cpu.v4.aicc"
W = np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5], [-0.25, 1.0, 2.0], [0.125, -0.375, 1.25]])
B = np.array([0.1, -0.2, 0.3])


def reference(x):
    """The model in float64, independently of the bundle."""
    e = np.exp(np.maximum(x.astype(np.float64) @ W + B, 0.0))
    return e / e.sum(axis=1, keepdims=True)


def copied(m):
    return m.last_run_copy_bytes()


def test_numpy_views_are_taken_in_place():
    rng = np.random.default_rng(7)
    m = aicc.load(MLP8)
    x = m.buffer_tensor("input_0", numpy=True)  # creates the session
    y = m.buffer_tensor("output_0", numpy=True)
    assert (x.shape, x.dtype, y.shape, y.dtype) == ((8, 4), np.float32, (8, 3), np.float32)
    assert m.buffer_tensor("input_0", numpy=True).ctypes.data == x.ctypes.data
    x[...] = rng.standard_normal((8, 4))
    y.fill(np.nan)
    r = m(x, out=[y])
    assert r is y
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)
    assert copied(m) == 0

    # Arrays of the caller's are copied in and out as before.
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    np.testing.assert_allclose(m(xs), reference(xs), rtol=1e-5, atol=1e-6)
    assert copied(m) == 8 * 4 * 4 + 8 * 3 * 4
    # The session's input keeps what was written there until a run copies another in.
    x[...] = xs + 1
    r = m(x)
    np.testing.assert_allclose(r, reference(xs + 1), rtol=1e-5, atol=1e-6)
    assert copied(m) == 8 * 3 * 4

    # An output may be written into an input's buffer (a KV cache's update): the run's
    # copy out follows its launches.
    before = x.copy()
    into_x = x.reshape(-1)[:24].reshape(8, 3)
    m(x, out=[into_x])
    np.testing.assert_allclose(into_x, reference(before), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x.reshape(-1)[24:], before.reshape(-1)[24:])


def test_overlaps_that_are_not_the_buffer_itself_are_refused():
    m = aicc.load(MLP8)
    x = m.buffer_tensor("input_0", numpy=True)
    y = m.buffer_tensor("output_0", numpy=True)
    x[...] = 1.0
    # y's memory shifted by one element: C-contiguous, so taken by its address (never read:
    # the run is refused before any copy).
    shifted = np.lib.stride_tricks.as_strided(y.reshape(-1)[1:], shape=(8, 3), strides=(12, 4))
    with pytest.raises(aicc.RuntimeError, match=r"output 0 \('output_0'\): its 96 bytes at 0x"
                       r"[0-9a-f]+ overlap the session's buffer for output 0 \('output_0'\) "
                       r"\(96 bytes at 0x[0-9a-f]+\) but cannot be taken in place"):
        m(x, out=[shifted])
    with pytest.raises(aicc.Error, match="no input or output named 'nope'"):
        m.buffer_tensor("nope")


def test_torch_views_keep_the_session_alive():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    m = aicc.load(MLP8)
    x = m.buffer_tensor("input_0")
    y = m.buffer_tensor("output_0")
    assert isinstance(x, torch.Tensor) and x.device.type == "cpu" and x.dtype == torch.float32
    assert tuple(x.shape) == (8, 4) and tuple(y.shape) == (8, 3)
    assert x.data_ptr() == m.buffer_tensor("input_0", numpy=True).ctypes.data
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    x.copy_(torch.from_numpy(xs))
    r = m(x, out=[y])
    assert r is y and copied(m) == 0
    np.testing.assert_allclose(y.numpy(), reference(xs), rtol=1e-5, atol=1e-6)

    # The views hold the session: with the Module gone, they still read and write its
    # memory (and it runs on them); once they are gone too, the session is freed.
    session = weakref.ref(m._session(0))
    del m, r
    gc.collect()
    assert session() is not None
    np.testing.assert_allclose(y.numpy(), reference(xs), rtol=1e-5, atol=1e-6)
    x.mul_(2)
    session().run_buffers([(x.data_ptr(), 128)], [(y.data_ptr(), 96)])
    assert session().last_run_copy_bytes == 0
    np.testing.assert_allclose(y.numpy(), reference(2 * xs), rtol=1e-5, atol=1e-6)
    del x
    gc.collect()
    assert session() is not None, "y still views it"
    del y
    gc.collect()
    assert session() is None
