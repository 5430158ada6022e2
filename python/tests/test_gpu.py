"""On a CUDA device (the GPU machine): numpy in/out through the host path, torch CUDA
tensors zero-copy on the caller's stream, symbolic dims, benchmark, other DLPack producers,
and torch.compile on the GPU. Every test here is marked gpu: it skips, with the reason,
where no CUDA device is visible."""

import numpy as np
import pytest

import aicc
from conftest import CONVNET_DYN, MLP, assert_close, data_set, gpu_module

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def mlp_gpu():
    return gpu_module("mlp", MLP / "model.onnx")


@pytest.fixture(scope="module")
def convnet_dyn_gpu():
    return gpu_module("convnet_dynbatch", CONVNET_DYN / "model.onnx", dims={"batch": (1, 8)})


def test_numpy_in_numpy_out(mlp_gpu):
    (x,), (y,) = data_set(MLP)
    assert mlp_gpu.device == "cuda"
    got = mlp_gpu(x)
    assert isinstance(got, np.ndarray)
    assert_close(got, y)


def test_torch_cuda_tensors_zero_copy_on_the_current_stream(mlp_gpu):
    torch = pytest.importorskip("torch")
    from aicc import _tensors

    (x,), (y,) = data_set(MLP)
    xt = torch.from_numpy(x).cuda()
    assert _tensors.from_object(xt).address == xt.data_ptr()
    got = mlp_gpu(xt)
    assert got.is_cuda and got.device == xt.device and got.dtype == torch.float32
    assert_close(got.cpu().numpy(), y)
    # On a side stream: the run is ordered on it (no host wait inside the call).
    s = torch.cuda.Stream()
    out = torch.full((16, 32), float("nan"), device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        x2 = xt * 1.0  # produced on s
        res = mlp_gpu(x2, out=[out])
        z = res * 2  # consumed on s
    s.synchronize()
    assert res is out
    assert_close(out.cpu().numpy(), y)
    assert_close((z / 2).cpu().numpy(), y)


def test_symbolic_batch_on_the_gpu(convnet_dyn_gpu):
    torch = pytest.importorskip("torch")
    for k in (0, 1, 2):
        ins, (y,) = data_set(CONVNET_DYN, k)
        assert_close(convnet_dyn_gpu(*ins), y, rtol=1e-3, atol=1e-4)
        got = convnet_dyn_gpu(*[torch.from_numpy(i).cuda() for i in ins])
        assert_close(got.cpu().numpy(), y, rtol=1e-3, atol=1e-4)


def test_benchmark_on_the_gpu(mlp_gpu):
    (x,), _ = data_set(MLP)
    r = mlp_gpu.benchmark(50, inputs=[x])
    assert r.runs == 50 and 0 < r.min_ms <= r.median_ms <= r.max_ms


def test_cupy_dlpack_producer_with_out(mlp_gpu):
    cp = pytest.importorskip("cupy")
    (x,), (y,) = data_set(MLP)
    xc = cp.asarray(x)
    out = cp.empty((16, 32), dtype=cp.float32)
    mlp_gpu(xc, out=[out], stream=cp.cuda.get_current_stream().ptr)
    cp.cuda.get_current_stream().synchronize()
    assert_close(cp.asnumpy(out), y)


@pytest.mark.torch2
@pytest.mark.compiler
def test_torch_compile_backend_on_the_gpu():
    torch = pytest.importorskip("torch")
    torch._dynamo.reset()
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(),
                              torch.nn.Linear(128, 32)).cuda().eval()
    x = torch.randn(16, 64, device="cuda")
    compiled = torch.compile(net, backend="aicc")
    with torch.no_grad():
        got = compiled(x)
        want = net(x)
    assert torch.allclose(got, want, rtol=1e-3, atol=1e-4)
