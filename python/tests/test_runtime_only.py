"""The runtime-only package (AICC_ENABLE_COMPILER=OFF): no LLVM/MLIR, runs bundles,
refuses to compile with a clear error. The build lays it out in build/python-runtime."""

import os
import subprocess
import sys
import textwrap

import pytest

import aicc
from conftest import BUILD, MLP, REPO

RUNTIME_PKG = BUILD / "python-runtime"
EXT = sorted((RUNTIME_PKG / "aicc").glob("_aicc*.so")) if RUNTIME_PKG.exists() else []

pytestmark = [pytest.mark.compiler,
              # The package is a build product: on a machine without the build tree (the GPU
              # machine's payload) there is nothing to check; with one, it must be there.
              pytest.mark.skipif(not BUILD.exists(), reason="no build tree at %s" % BUILD)]


def _run(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(RUNTIME_PKG))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_runtime_only_extension_links_no_llvm():
    assert EXT, "no runtime-only package in %s (built with the tests)" % RUNTIME_PKG
    ldd = subprocess.run(["ldd", str(EXT[0])], stdout=subprocess.PIPE, text=True).stdout
    assert "libMLIR" not in ldd and "libLLVM" not in ldd, ldd
    full = sorted((BUILD / "python" / "aicc").glob("_aicc*.so"))
    full_ldd = subprocess.run(["ldd", str(full[0])], stdout=subprocess.PIPE, text=True).stdout
    assert "libMLIR" in full_ldd or "libLLVM" in full_ldd


def test_runtime_only_runs_a_bundle_and_refuses_to_compile(mlp_cpu, tmp_path):
    assert EXT
    mlp_cpu.save(tmp_path / "mlp.aicc")
    r = _run("""
        import numpy as np, aicc
        assert not aicc.has_compiler
        m = aicc.load("mlp.aicc")
        _, x = aicc.read_tensor_proto(%r)
        _, y = aicc.read_tensor_proto(%r)
        np.testing.assert_allclose(m(x), y, rtol=1e-4, atol=1e-5)
        for call in (lambda: aicc.compile(%r, target="cpu"),
                     lambda: aicc.reference(%r, [x]),
                     lambda: m.bisect(%r, [x])):
            try:
                call()
            except aicc.CompilerUnavailableError as e:
                assert "runtime-only" in str(e) and "AICC_ENABLE_COMPILER=OFF" in str(e), e
            else:
                raise SystemExit("no CompilerUnavailableError")
        print("ok")
        """ % ((str(MLP / "test_data_set_0" / "input_0.pb"),
                str(MLP / "test_data_set_0" / "output_0.pb")) + (str(MLP / "model.onnx"),) * 3),
        tmp_path)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout
