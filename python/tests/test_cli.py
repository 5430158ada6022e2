"""python -m aicc compile: aicc-compile's common case from the Python package."""

import os
import subprocess
import sys

import pytest

import aicc
from conftest import BUILD, MLP

pytestmark = pytest.mark.compiler


def _run(*args):
    return subprocess.run([sys.executable, "-m", "aicc"] + list(args), capture_output=True,
                          text=True)


def test_compile_writes_aicc_compiles_bundle(tmp_path):
    out = tmp_path / "mlp.aicc"
    r = _run("compile", str(MLP / "model.onnx"), "-o", str(out), "--target", "sm_90a",
             "--allow-tf32", "--conv-layout=nhwc")
    assert r.returncode == 0, r.stderr
    tool = BUILD / "bin" / "aicc-compile"
    if not tool.exists():
        pytest.skip("no %s to compare with" % tool)
    ref = tmp_path / "ref.aicc"
    subprocess.run([str(tool), str(MLP / "model.onnx"), "--target=sm_90a", "--allow-tf32",
                    "--conv-layout=nhwc", "-o", str(ref)], check=True)
    assert out.read_bytes() == ref.read_bytes()


def test_emit_text_and_dims(tmp_path):
    out = tmp_path / "fused.mlir"
    r = _run("compile", str(MLP / "model.onnx"), "-o", str(out), "--target", "cpu",
             "--emit", "fused")
    assert r.returncode == 0, r.stderr
    assert "graph." in out.read_text()


def test_refused_model_exits_1_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    out = tmp_path / "bad.aicc"
    r = _run("compile", str(bad), "-o", str(out), "--target", "cpu")
    assert r.returncode == 1
    assert "cannot parse the file as an ONNX ModelProto" in r.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize("args,message", [
    (["--bogus=1"], "unknown option '--bogus'"),
    (["--allow_tf32"], "unknown option '--allow_tf32'"),
    (["--tar", "cpu"], "unknown option '--tar'"),
    (["--dim", "batch"], "expected NAME=N or NAME=MIN..MAX"),
    (["--dim", "batch=99999999999999999999999"], "dim 99999999999999999999999 is out of range"),
    (["--dim", "batch=2", "--dim", "batch=3"], "--dim batch is given twice"),
    (["--shape", "x=1,a"], "expected NAME=D,D,..."),
    (["--specialize", "batch"], "expected NAME=V"),
    (["--specialize", "batch=1", "--specialize", "batch=2"], "--specialize batch is given twice"),
    (["--attention"], "--attention needs a value (a string)"),
    (["--fusion-report", "--memory-report"], "one at a time"),
])
def test_bad_command_line_exits_2(tmp_path, args, message):
    r = _run("compile", str(MLP / "model.onnx"), "-o", str(tmp_path / "x.aicc"), *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_default_target_and_reports_are_aicc_compiles(tmp_path):
    tool = BUILD / "bin" / "aicc-compile"
    if not tool.exists():
        pytest.skip("no %s to compare with" % tool)
    for extra in ([], ["--fusion-report"], ["--memory-report"], ["--emit=tile"]):
        out, ref = tmp_path / "py.out", tmp_path / "ref.out"
        r = _run("compile", str(MLP / "model.onnx"), "-o", str(out), *extra)
        assert r.returncode == 0, r.stderr
        subprocess.run([str(tool), str(MLP / "model.onnx"), "-o", str(ref)] + extra, check=True)
        assert out.read_bytes() == ref.read_bytes(), extra


def test_output_to_stdout_through_links_never_over_a_fifo(tmp_path):
    r = subprocess.run([sys.executable, "-m", "aicc", "compile", str(MLP / "model.onnx"), "-o",
                        "-", "--emit", "graph"], capture_output=True)
    assert r.returncode == 0 and b"graph." in r.stdout
    real = tmp_path / "real.aicc"
    real.write_bytes(b"old")
    link = tmp_path / "link.aicc"
    link.symlink_to(real)
    r = _run("compile", str(MLP / "model.onnx"), "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and real.read_bytes()[:3] != b"old"
    assert oct(real.stat().st_mode & 0o777) != "0o600"
    dangling = tmp_path / "dangling.aicc"
    dangling.symlink_to(tmp_path / "missing")
    r = _run("compile", str(MLP / "model.onnx"), "-o", str(dangling))
    assert r.returncode == 1 and "dangling symbolic link" in r.stderr
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = _run("compile", str(MLP / "model.onnx"), "-o", str(fifo))
    assert r.returncode == 1 and "not a regular file" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.aicc", "fifo", "link.aicc",
                                                           "real.aicc"]


def test_version_as_the_tools_print_it():
    for args in (["--version"], ["compile", "--version"]):
        r = _run(*args)
        assert r.returncode == 0 and r.stdout.startswith("aicc %s (commit " % aicc.__version__)
    tool = BUILD / "bin" / "aicc-compile"
    if tool.exists():
        line = subprocess.run([str(tool), "--version"], capture_output=True, text=True).stdout
        assert line.splitlines()[0] == r.stdout.strip()


def test_options_lists_the_knobs():
    r = _run("options")
    assert r.returncode == 0 and "--allow-tf32=<bool>" in r.stdout
    assert _run("options", "--bogus").returncode == 2
