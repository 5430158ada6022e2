"""The exceptions aicc raises. The C++ extension raises these classes by name."""

import builtins


class Error(Exception):
    """Base class of every error aicc raises."""


class CompileError(Error):
    """The compiler refused the model or failed.

    ``str(error)`` (and ``error.diagnostics``) is every diagnostic as aicc-compile prints
    it, located: ONNX node names (``node 'Gemm_0': error: ...``) or ``file:line:col``, the
    op and the reason.
    """

    @property
    def diagnostics(self) -> str:
        return str(self)


class RuntimeError(Error, builtins.RuntimeError):
    """Loading or running a bundle failed (the runtime's message: an input of the wrong
    dtype or shape, ``input 0 ('x'): expected f32[2,3], got f32[3,2]``; a bundle that does
    not validate; a driver error). Also a :class:`builtins.RuntimeError`."""


class CompilerUnavailableError(Error):
    """This aicc package is the runtime-only build (``AICC_ENABLE_COMPILER=OFF``): it loads
    and runs bundles, but cannot compile, evaluate the reference or bisect."""
