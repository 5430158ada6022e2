"""A bundle with a bounded symbolic dim (dims={"batch": (1, 8)}) run at several sizes."""

import numpy as np
import pytest

import aicc
from conftest import CONVNET_DYN, assert_close, data_set


def test_inputs_show_the_symbol_by_name(convnet_dyn_cpu):
    m = convnet_dyn_cpu
    assert m.symbols == {"batch": (1, 8)}
    (i,), (o,) = m.inputs, m.outputs
    assert i.shape == ("batch", 3, 16, 16) and i.max_shape == (8, 3, 16, 16)
    assert o.shape == ("batch", 10)
    assert repr(i) == "%s: float32[batch, 3, 16, 16]" % i.name


@pytest.mark.parametrize("k", [0, 1, 2])  # the data sets hold batch 1, 3 and 8
def test_runs_at_each_batch_size(convnet_dyn_cpu, k):
    ins, (y,) = data_set(CONVNET_DYN, k)
    got = convnet_dyn_cpu(*ins)
    assert got.shape == y.shape
    assert_close(got, y)


def test_alternating_sizes_and_benchmark_binding(convnet_dyn_cpu):
    m = convnet_dyn_cpu
    (x1,), (y1,) = data_set(CONVNET_DYN, 0)
    (x3,), (y3,) = data_set(CONVNET_DYN, 1)
    for _ in range(2):
        assert_close(m(x3), y3)
        assert_close(m(x1), y1)
    r = m.benchmark(5, inputs=[x3])
    assert r.symbols == {"batch": 3}


def test_out_of_range_and_bad_shapes(convnet_dyn_cpu):
    m = convnet_dyn_cpu
    name = m.inputs[0].name
    x = np.zeros((9, 3, 16, 16), np.float32)
    with pytest.raises(aicc.RuntimeError) as e:
        m(x)
    assert str(e.value) == ("input 0 ('%s'): batch = 9 is outside the compiled range [1, 8] "
                            "(dim 0)" % name)
    with pytest.raises(aicc.RuntimeError) as e:
        m(np.zeros((2, 3, 16, 15), np.float32))
    assert str(e.value) == ("input 0 ('%s'): expected f32[batch,3,16,16] (batch in [1, 8]), "
                            "got f32[2,3,16,15]" % name)


def test_specialized_plan_at_the_minimum():
    """specialize={"batch": 1}: the plan compiled for batch 1 alone runs at 1, the range's
    at 3 and 8 (aicc-compile --specialize), alternating in one module."""
    if not aicc.has_compiler:
        pytest.skip("runtime-only aicc package (no compiler)")
    model = CONVNET_DYN / "model.onnx"
    bundle = aicc.compile_to(model, "bundle", target="cpu", dims={"batch": (1, 8)},
                             specialize={"batch": 1})
    n = int.from_bytes(bundle[8:16], "little")
    manifest = bundle[16:16 + n].decode()
    assert "plan 0 0 2 8 bound\nplan " in manifest and " 0 1 1 packed\n" in manifest
    m = aicc.compile(model, target="cpu", dims={"batch": (1, 8)}, specialize={"batch": 1})
    assert [p[:4] for p in m.plans] == [("batch", 2, 8, False), ("batch", 1, 1, True)]
    assert sum(p[4] for p in m.plans) == m.num_launches
    for k in (0, 1, 2, 0):
        ins, (y,) = data_set(CONVNET_DYN, k)
        assert_close(m(*ins), y)
    with pytest.raises(aicc.CompileError) as e:
        aicc.compile(model, target="cpu", dims={"batch": (1, 8)}, specialize={"batch": 4})
    assert "--specialize batch=4: V must be the range's MIN 1 or MAX 8" in str(e.value)


@pytest.mark.parametrize("value", [1.9, True, "1"])
def test_specialize_takes_integers_only(value):
    if not aicc.has_compiler:
        pytest.skip("runtime-only aicc package (no compiler)")
    with pytest.raises(aicc.Error) as e:
        aicc.compile(CONVNET_DYN / "model.onnx", target="cpu", dims={"batch": (1, 8)},
                     specialize={"batch": value})
    assert "specialize['batch']: expected an integer, got %r" % (value,) in str(e.value)
