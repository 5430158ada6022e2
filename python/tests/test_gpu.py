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


def _no_fallback(caplog):
    """The backend logs on "aicc.torch" when a graph runs eagerly instead of through aicc."""
    eager = [r.getMessage() for r in caplog.records
             if r.name == "aicc.torch" and "eagerly" in r.getMessage()]
    assert not eager, eager


@pytest.mark.torch2
@pytest.mark.compiler
def test_torch_compile_backend_on_the_gpu(caplog):
    torch = pytest.importorskip("torch")
    torch._dynamo.reset()
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(),
                              torch.nn.Linear(128, 32)).cuda().eval()
    x = torch.randn(16, 64, device="cuda")
    compiled = torch.compile(net, backend="aicc")
    with caplog.at_level("WARNING", logger="aicc.torch"), torch.no_grad():
        got = compiled(x)
        want = net(x)
        again = compiled(x + 1)  # the compiled graph again, on new values
        want_again = net(x + 1)
    _no_fallback(caplog)
    assert got.is_cuda and got.device == x.device
    assert torch.allclose(got, want, rtol=1e-3, atol=1e-4)
    assert torch.allclose(again, want_again, rtol=1e-3, atol=1e-4)


class _Block(object):
    """A pre-norm transformer block in fp16 (LayerNorm, 4-head causal attention through
    F.scaled_dot_product_attention, GELU MLP): what from_torch users compile."""

    @staticmethod
    def make(torch, d=128, heads=4):
        F = torch.nn.functional

        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.ln1 = torch.nn.LayerNorm(d)
                self.qkv = torch.nn.Linear(d, 3 * d)
                self.proj = torch.nn.Linear(d, d)
                self.ln2 = torch.nn.LayerNorm(d)
                self.up = torch.nn.Linear(d, 4 * d)
                self.down = torch.nn.Linear(4 * d, d)

            def forward(self, x):
                b, s, _ = x.shape
                q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
                q, k, v = (t.reshape(b, s, heads, d // heads).transpose(1, 2) for t in (q, k, v))
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
                return x + self.down(F.gelu(self.up(self.ln2(x))))

        return Block()


@pytest.mark.torch2
@pytest.mark.compiler
def test_from_torch_f16_transformer_block_on_the_gpu():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = _Block.make(torch).cuda().half().eval()
    x = torch.randn(2, 64, 128, device="cuda", dtype=torch.float16)
    module = aicc.from_torch(net, (x,))  # target from the device: sm_90a on a Hopper GPU
    with torch.no_grad():
        want = net(x).float()
        got = module(x)
    assert got.is_cuda and got.dtype == torch.float16
    err = (got.float() - want).abs().max().item()
    assert err < 2e-2 * max(1.0, want.abs().max().item()), err
