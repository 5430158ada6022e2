# -*- Python -*-
# lit configuration of aicc's tests. The build writes lit.site.cfg.py (from
# lit.site.cfg.py.in) into build/test; run `lit -sv build/test` or `ninja check-aicc`.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AICC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.aicc_obj_root, "test")

# Inputs/ hold data read by tests; they are not tests. CMakeLists.txt and the lit
# configuration files are not tests either; generate.py writes Conformance/*.test.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "generate.py", "make_test_models.py"]

# FileCheck, not, count, split-file come from LLVM's bin dir (Debian ships no llvm-lit
# tree, so put it on PATH ahead of anything else).
llvm_config.with_system_environment(["HOME", "TMPDIR", "CUDA_HOME",
                                     "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()
llvm_config.add_tool_substitutions([ToolSubst("split-file", unresolved="fatal")],
                                   [config.llvm_tools_dir])

# ptxas: from the CMake-detected toolkit, /usr/local/cuda/bin, or PATH.
ptxas = None
candidates = []
if config.aicc_ptxas:
    candidates.append(config.aicc_ptxas)
if config.aicc_cuda_root:
    candidates.append(os.path.join(config.aicc_cuda_root, "bin", "ptxas"))
candidates.append("/usr/local/cuda/bin/ptxas")
for c in candidates:
    if os.path.isfile(c) and os.access(c, os.X_OK):
        ptxas = c
        break
if ptxas is None:
    ptxas = shutil.which("ptxas", path=config.environment.get("PATH", os.environ.get("PATH")))
if ptxas is None:
    ptxas = shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    llvm_config.with_environment("PATH", os.path.dirname(ptxas), append_path=True)


def _has_cuda_device():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30, text=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU " in out.stdout


if _has_cuda_device():
    config.available_features.add("cuda-device")

# ONNX backend test data (Debian package libonnx-testdata).
config.onnx_testdata = "/usr/share/libonnx-testdata/data"
if os.path.isdir(config.onnx_testdata):
    config.available_features.add("onnx-testdata")
config.substitutions.append(("%onnx_testdata", config.onnx_testdata))

# The Python of the test scripts (CMake cache variable AICC_PYTHON: Debian's /usr/bin/python3,
# which has the onnx and numpy packages the scripts import).
config.substitutions.append(("%python", config.aicc_python))

# aicc's own tools, by absolute path, from the build tree.
tool_dirs = [config.aicc_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("aicc-opt", unresolved="fatal"),
         ToolSubst("aicc-compile", unresolved="fatal"),
         ToolSubst("aicc-run", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.aicc_tools_dir, append_path=True)
