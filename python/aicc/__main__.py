"""``python -m aicc compile``: aicc-compile's common case for a pip-installed package, which
carries the compiler in its extension module but not the C++ tools.

    python -m aicc compile model.onnx -o model.aicc [--target sm_90a] [--dim batch=1..64]
        [--shape x=8,3,224,224] [--emit bundle|cubin|ptx|graph|fused|tile|llvm|...]
        [--FLAG=VALUE ...]          # any pipeline knob of aicc.pipeline_options()
    python -m aicc [compile] --version    # as aicc-compile --version

Writes OUT through a temporary file renamed on success (nothing on failure) and exits 1
with the located diagnostics on stderr when the model is refused, 2 on a bad command line.
``python -m aicc options`` lists the knobs with their types and defaults.
"""

import argparse
import os
import sys
import tempfile

from ._errors import Error

_TEXT = ("onnx", "graph", "fused", "tile", "lowered", "llvm", "ptx", "dot", "fusion-report",
         "memory-report")


def _dim(text):
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError("expected NAME=N or NAME=MIN..MAX, got '%s'" % text)
    lo, dots, hi = value.partition("..")
    try:
        return name, ((int(lo), int(hi)) if dots else int(value))
    except ValueError:
        raise argparse.ArgumentTypeError("expected NAME=N or NAME=MIN..MAX, got '%s'" % text)


def _shape(text):
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, [int(d) for d in value.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected NAME=D,D,..., got '%s'" % text)


def _knobs(rest, parser):
    """--flag=value / --flag value / --flag (true) pairs for aicc.compile's **options,
    checked against the pipeline's knobs."""
    from ._compile import pipeline_options

    known = pipeline_options()
    options, i = {}, 0
    while i < len(rest):
        arg = rest[i]
        if not arg.startswith("--"):
            parser.error("unexpected argument '%s'" % arg)
        key, sep, value = arg[2:].partition("=")
        name = key.replace("-", "_")
        if name not in known:
            parser.error("unknown option '--%s' (python -m aicc options lists them)" % key)
        if not sep:
            if known[name]["type"] != "bool" and i + 1 < len(rest):
                i += 1
                value = rest[i]
            else:
                value = "true"
        options[name] = value
        i += 1
    return options


def _compile(args, rest, parser):
    from ._compile import compile_to

    kwargs = _knobs(rest, parser)
    data = compile_to(args.model, args.emit, args.target, dims=dict(args.dim),
                      shapes=dict(args.shape), cuda_path=args.cuda_path, **kwargs)
    out = os.path.abspath(args.output)
    fd, tmp = tempfile.mkstemp(prefix=".aicc-", dir=os.path.dirname(out))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None):
    from . import _aicc

    parser = argparse.ArgumentParser(prog="python -m aicc", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=_aicc.version_line)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compile", help="compile a model (aicc-compile)")
    c.add_argument("--version", action="version", version=_aicc.version_line)
    c.add_argument("model", help=".onnx (or graph-dialect .mlir) file")
    c.add_argument("-o", "--output", required=True, help="where to write the result")
    c.add_argument("--target", default="sm_90a", help="cpu, sm_80 ... sm_90a, sm_100")
    c.add_argument("--emit", default="bundle", choices=("bundle", "cubin") + _TEXT)
    c.add_argument("--dim", type=_dim, action="append", default=[],
                   help="NAME=N or NAME=MIN..MAX (ONNX dim_param)")
    c.add_argument("--shape", type=_shape, action="append", default=[],
                   help="INPUT=D,D,... (a whole input shape)")
    c.add_argument("--cuda-path", help="CUDA toolkit root for ptxas")
    sub.add_parser("options", help="list the pipeline knobs compile takes")
    args, rest = parser.parse_known_args(argv)
    try:
        if args.command == "options":
            from ._compile import pipeline_options

            for name, o in sorted(pipeline_options().items()):
                print("--%s=<%s> (default %s): %s" % (name.replace("_", "-"), o["type"],
                                                        o["default"], o["description"]))
            return 0
        _compile(args, rest, parser)
    except Error as e:
        print("python -m aicc: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("python -m aicc: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
