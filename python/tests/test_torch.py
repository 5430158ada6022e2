"""torch tensors (DLPack, zero-copy), aicc.from_torch, and the torch.compile backend.

The CPU cases run with Debian's torch 1.13 (TorchScript exporter, torch.utils.dlpack);
the torch2 ones need torch >= 2 (torch.compile, the dynamo exporter) and run where it is
installed (the GPU machine's torch 2.11, on the CPU target here too when torch 2 is)."""

import logging

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import aicc  # noqa: E402  (after torch: registers the backend with torch >= 2)
from aicc import _tensors  # noqa: E402
from conftest import CONVNET_DYN, MLP, assert_close, data_set  # noqa: E402


def test_torch_cpu_tensors_in_and_out_zero_copy(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    t = torch.from_numpy(x.copy())
    buf = _tensors.from_object(t, "f32")
    assert buf.address == t.data_ptr()  # the kernels read the tensor's own memory
    got = mlp_cpu(t)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float32
    assert_close(got.numpy(), y)
    out = torch.full((16, 32), float("nan"))
    res = mlp_cpu(t, out=[out])
    assert res is out and out.data_ptr() == _tensors.from_object(out).address
    assert_close(out.numpy(), y)


def test_torch_non_contiguous_and_grad_inputs(mlp_cpu):
    (x,), (y,) = data_set(MLP)
    t = torch.from_numpy(np.ascontiguousarray(x.T)).t()  # a transposed view
    assert not t.is_contiguous()
    assert_close(mlp_cpu(t).numpy(), y)
    g = torch.from_numpy(x.copy()).requires_grad_()
    assert_close(mlp_cpu(g).numpy(), y)


def test_dlpack_capsule_of_a_slice_honours_the_offset():
    base = torch.arange(40, dtype=torch.float32)
    view = base[8:24].view(4, 4)
    buf = _tensors.from_object(view)
    assert buf.address == view.data_ptr() == base.data_ptr() + 8 * 4
    assert buf.shape == (4, 4) and buf.dtype == "f32" and buf.nbytes == 64


def test_bool_and_int_dtypes_cross_dlpack():
    assert _tensors.from_object(torch.zeros(3, dtype=torch.bool)).dtype == "bool"
    assert _tensors.from_object(torch.zeros(3, dtype=torch.int64)).dtype == "i64"
    assert _tensors.from_object(torch.zeros(3, dtype=torch.float16)).dtype == "f16"
    assert _tensors.from_object(torch.zeros(3, dtype=torch.bfloat16)).dtype == "bf16"


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 8)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)


@pytest.mark.compiler
def test_from_torch_matches_eager():
    torch.manual_seed(0)
    net = SmallNet().eval()
    x = torch.randn(4, 32)
    m = aicc.from_torch(net, (x,), target="cpu")
    assert m.target == "cpu" and m.inputs[0].shape == (4, 32)
    with torch.no_grad():
        want = net(x)
    x2 = torch.randn(4, 32)
    with torch.no_grad():
        want2 = net(x2)
    assert torch.allclose(m(x), want, rtol=1e-4, atol=1e-6)
    assert torch.allclose(m(x2), want2, rtol=1e-4, atol=1e-6)


@pytest.mark.compiler
def test_from_torch_dynamic_batch():
    torch.manual_seed(0)
    net = SmallNet().eval()
    m = aicc.from_torch(net, (torch.randn(8, 32),), target="cpu",
                        dynamic_axes={"input_0": {0: "batch"}, "output_0": {0: "batch"}},
                        dims={"batch": (1, 8)})
    assert m.inputs[0].shape == ("batch", 32)
    for b in (1, 5):
        x = torch.randn(b, 32)
        with torch.no_grad():
            want = net(x)
        got = m(x)
        assert got.shape == (b, 8)
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-6)


class Weird(torch.nn.Module):
    """A model aicc refuses: NonZero (a data-dependent output shape)."""

    def forward(self, x):
        return torch.nonzero(x > 0).float().sum(0) + x.sum()


@pytest.mark.compiler
def test_from_torch_unsupported_model_raises_compile_error():
    # NonZero's output shape depends on its input's values: aicc refuses it (static shapes)
    # from either exporter (torch 1.x TorchScript, torch 2.x dynamo).
    with pytest.raises(aicc.CompileError) as e:
        aicc.from_torch(Weird(), (torch.randn(4, 4),), target="cpu")
    assert "NonZero" in str(e.value), str(e.value)


# -- the torch.compile backend's logic on FX graphs (torch.fx exists in torch 1.13) --------

@pytest.mark.compiler
def test_backend_compiles_an_fx_graph():
    torch.manual_seed(0)
    net = SmallNet().eval()
    gm = torch.fx.symbolic_trace(net)
    x = torch.randn(4, 32)
    fn = aicc.torch_backend(target="cpu")(gm, [x])
    assert fn is not gm.forward and fn.aicc_module.target == "cpu"
    x2 = torch.randn(4, 32)
    with torch.no_grad():
        assert torch.allclose(fn(x2), net(x2), rtol=1e-4, atol=1e-6)


@pytest.mark.compiler
def test_backend_keeps_a_tuple_of_outputs():
    class Two(torch.nn.Module):
        def forward(self, x, y):
            return (torch.relu(x) * y, x + y)

    gm = torch.fx.symbolic_trace(Two())
    x, y = torch.randn(3, 5), torch.randn(3, 5)
    fn = aicc.torch_backend(target="cpu")(gm, [x, y])
    assert fn is not gm.forward
    got = fn(x, y)
    assert isinstance(got, tuple) and len(got) == 2
    assert torch.allclose(got[0], torch.relu(x) * y) and torch.allclose(got[1], x + y)


@pytest.mark.compiler
def test_backend_falls_back_to_eager_with_a_logged_reason(caplog):
    gm = torch.fx.symbolic_trace(Weird())
    with caplog.at_level(logging.WARNING, logger="aicc.torch"):
        fn = aicc.torch_backend(target="cpu")(gm, [torch.randn(4, 4)])
    assert fn == gm.forward
    msgs = [r.getMessage() for r in caplog.records if r.name == "aicc.torch"]
    assert msgs and "running this graph eagerly" in msgs[-1], msgs

    caplog.clear()
    net = SmallNet()  # parameters require grad, and so does this input
    x = torch.randn(4, 32, requires_grad=True)
    gm = torch.fx.symbolic_trace(net)
    with caplog.at_level(logging.WARNING, logger="aicc.torch"):
        fn = aicc.torch_backend(target="cpu")(gm, [x])
    assert fn == gm.forward
    assert any("gradients are required" in r.getMessage() for r in caplog.records)


# -- torch >= 2 --------------------------------------------------------------------------

@pytest.mark.torch2
@pytest.mark.compiler
def test_dynamo_exporter_from_torch():
    torch.manual_seed(0)
    net = SmallNet().eval()
    x = torch.randn(4, 32)
    m = aicc.from_torch(net, (x,), target="cpu", exporter="dynamo")
    with torch.no_grad():
        assert torch.allclose(m(x), net(x), rtol=1e-4, atol=1e-6)


@pytest.mark.torch2
@pytest.mark.compiler
def test_torch_compile_backend_cpu(caplog):
    # `import aicc` registers the backend only when torch was imported first (conftest
    # imports aicc before torch); an installed package is found through its entry point.
    assert aicc.register_torch_backend()
    torch._dynamo.reset()
    torch.manual_seed(0)
    net = SmallNet().eval()
    x = torch.randn(4, 32)
    compiled = torch.compile(net, backend="aicc")
    with torch.no_grad():
        want = net(x)
        got = compiled(x)
    assert torch.allclose(got, want, rtol=1e-4, atol=1e-6)
    assert not [r for r in caplog.records if r.name == "aicc.torch"], caplog.text


@pytest.mark.torch2
@pytest.mark.compiler
def test_torch_compile_falls_back_with_a_logged_reason(caplog):
    torch._dynamo.reset()

    def f(x):
        # (dynamo breaks the graph at NonZero; Det it captures, and aicc has no lowering)
        return torch.linalg.det(x) * 2

    compiled = torch.compile(f, backend=aicc.torch_backend(target="cpu"))
    x = torch.randn(3, 4, 4)
    with caplog.at_level(logging.WARNING, logger="aicc.torch"):
        got = compiled(x)
    assert torch.allclose(got, f(x))
    assert any("running this graph eagerly" in r.getMessage() for r in caplog.records
               if r.name == "aicc.torch"), caplog.text
