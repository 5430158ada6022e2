"""aicc.reference (the float64 evaluator) and Module.bisect (aicc-run --bisect)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import aicc
from conftest import CONVNET_DYN, MLP, assert_close, data_set

pytestmark = pytest.mark.compiler


def test_reference_matches_torch_on_the_mlp():
    (x,), (y,) = data_set(MLP)
    (got,) = aicc.reference(MLP / "model.onnx", [x])
    assert_close(got, y)
    # bytes and ModelProto too
    (got2,) = aicc.reference(onnx.load(str(MLP / "model.onnx")), [x])
    np.testing.assert_array_equal(got, got2)


def test_reference_of_a_dynamic_model_at_the_inputs_shapes():
    for k in (0, 1):
        ins, (y,) = data_set(CONVNET_DYN, k)
        (got,) = aicc.reference(CONVNET_DYN / "model.onnx", ins)
        assert_close(got, y)


def test_reference_errors_are_raised_with_the_diagnostic():
    (x,), _ = data_set(MLP)
    with pytest.raises(aicc.Error) as e:
        aicc.reference(MLP / "model.onnx", [x, x])
    assert "reference evaluation failed" in str(e.value)
    assert "the model has 1 input(s) but 2 --input tensor(s) were given" in str(e.value)


def test_bisect_finds_no_divergence_on_a_correct_bundle(mlp_cpu):
    (x,), _ = data_set(MLP)
    r = mlp_cpu.bisect(MLP / "model.onnx", [x])
    assert not r.diverged and r.first_kernel is None
    assert "no divergence" in r.text
    assert "fused_0_" in r.text  # the table names every kernel


def test_bisect_names_the_first_kernel_that_diverges(mlp_cpu):
    """The bundle against a model whose second Linear has other weights: the kernels are
    the same, the reference differs from the second matmul on."""
    model = onnx.load(str(MLP / "model.onnx"))
    inits = {i.name: i for i in model.graph.initializer}
    # The second layer's weight: the initializer feeding the second Gemm/MatMul node.
    mm = [n for n in model.graph.node if n.op_type in ("Gemm", "MatMul")][1]
    w_name = next(i for i in mm.input if i in inits)
    w = numpy_helper.to_array(inits[w_name]).copy()
    inits[w_name].CopyFrom(numpy_helper.from_array(w * 1.5 + 0.25, w_name))
    (x,), _ = data_set(MLP)
    r = mlp_cpu.bisect(model, [x])
    assert r.diverged, r.text
    assert r.first_kernel and r.first_kernel.startswith("fused_")
    assert r.first_launch >= 1  # the first matmul (and GELU) still agree
    assert "first divergence: kernel '%s'" % r.first_kernel in r.text


def test_bisect_of_a_bundle_from_another_model_is_an_error(mlp_cpu):
    with pytest.raises(aicc.Error, match="was the bundle compiled from this model"):
        mlp_cpu.bisect(CONVNET_DYN.parent / "convnet_opset17" / "model.onnx")
