"""``python -m aicc compile``: aicc-compile's common case for a pip-installed package, which
carries the compiler in its extension module but not the C++ tools.

    python -m aicc compile model.onnx -o model.aicc [--target cpu|sm_90a|...] [--dim batch=1..64]
        [--specialize batch=1]
        [--shape x=8,3,224,224] [--emit bundle|cubin|ptx|onnx|graph|fused|tile|gpu|cpu|llvm|dot]
        [--fusion-report | --memory-report] [--FLAG=VALUE ...]   # aicc.pipeline_options()
    python -m aicc [compile] --version    # as aicc-compile --version

The flags and their defaults are aicc-compile's (the target defaults to cpu); the same model
and flags give the same bytes. Writes OUT ('-': stdout) through a temporary file renamed on
success (nothing on failure; through a symbolic link, never over a FIFO or device), and
exits 1 with the located diagnostics on stderr when the compiler refuses the model or an
option's value (as aicc-compile does), 2 on a malformed command line.
``python -m aicc options`` lists the knobs with their types and defaults.
"""

import argparse
import os
import stat
import sys
import tempfile

from ._errors import Error

# aicc-compile's --emit values (gpu / cpu: the MLIR after the target's lowering).
_EMIT = ("bundle", "cubin", "ptx", "onnx", "graph", "fused", "tile", "gpu", "cpu", "llvm", "dot")
_INT64_MAX = (1 << 63) - 1


def _int64(text, what):
    v = int(text)
    if not 0 <= v <= _INT64_MAX:
        raise ValueError("%s %s is out of range" % (what, text))
    return v


def _dim(text):
    name, sep, value = text.partition("=")
    lo, dots, hi = value.partition("..")
    try:
        if not sep or not name:
            raise ValueError("expected NAME=N or NAME=MIN..MAX")
        return name, ((_int64(lo, "dim"), _int64(hi, "dim")) if dots else _int64(value, "dim"))
    except ValueError as e:
        msg = str(e) if "out of range" in str(e) else "expected NAME=N or NAME=MIN..MAX"
        raise argparse.ArgumentTypeError("%s, got '%s'" % (msg, text))


def _specialize(text):
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError("expected NAME=V")
        return name, _int64(value, "value")
    except ValueError as e:
        msg = str(e) if "out of range" in str(e) else "expected NAME=V"
        raise argparse.ArgumentTypeError("%s, got '%s'" % (msg, text))


def _shape(text):
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError("expected NAME=D,D,...")
        return name, [_int64(d, "dim") for d in value.split(",")]
    except ValueError as e:
        msg = str(e) if "out of range" in str(e) else "expected NAME=D,D,..."
        raise argparse.ArgumentTypeError("%s, got '%s'" % (msg, text))


def _knobs(rest, parser):
    """--flag=value / --flag value / --flag (bools: true) pairs for aicc.compile's
    **options, checked against the pipeline's knobs (names spelled as aicc-compile's)."""
    from ._compile import pipeline_options

    known = {k.replace("_", "-"): v for k, v in pipeline_options().items()}
    options, i = {}, 0
    while i < len(rest):
        arg = rest[i]
        if not arg.startswith("--"):
            parser.error("unexpected argument '%s'" % arg)
        key, sep, value = arg[2:].partition("=")
        if key not in known:
            parser.error("unknown option '--%s' (python -m aicc options lists them)" % key)
        if not sep:
            if known[key]["type"] == "bool":
                value = "true"
            elif i + 1 < len(rest) and not rest[i + 1].startswith("--"):
                i += 1
                value = rest[i]
            else:
                parser.error("--%s needs a value (a %s)" % (key, known[key]["type"]))
        options[key.replace("-", "_")] = value
        i += 1
    return options


def _output_path(path):
    """The file to write: `path`, or the file a symbolic link names (written through, as
    aicc-compile does). Refuses a dangling link and anything that is not a regular file."""
    if os.path.islink(path):
        target = os.path.realpath(path)
        if not os.path.exists(target):
            raise OSError("cannot write '%s': it is a dangling symbolic link (the file it "
                          "points to does not exist); not writing through it" % path)
        path = target
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError("cannot write '%s': not a regular file" % path)
    return os.path.abspath(path)


def _write(path, data):
    """`data` to `path` through a temporary file in its directory renamed on success, with
    the permissions a new file gets (0666 less the umask); '-' is stdout."""
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    out = _output_path(path)
    fd, tmp = tempfile.mkstemp(prefix=".aicc-", dir=os.path.dirname(out))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def _compile(args, rest, parser):
    from ._compile import compile_to

    kwargs = _knobs(rest, parser)
    dims = {}
    for name, v in args.dim:
        if name in dims:
            parser.error("--dim %s is given twice" % name)
        dims[name] = v
    shapes = {}
    for name, v in args.shape:
        if name in shapes:
            parser.error("--shape %s is given twice" % name)
        shapes[name] = v
    emit = args.emit
    if args.fusion_report or args.memory_report:
        if args.fusion_report and args.memory_report:
            parser.error("--fusion-report and --memory-report: one at a time")
        emit = "fusion-report" if args.fusion_report else "memory-report"
    elif emit in ("gpu", "cpu"):
        emit = "lowered"
    specialize = {}
    for name, v in args.specialize:
        if name in specialize:
            parser.error("--specialize %s is given twice" % name)
        specialize[name] = v
    data = compile_to(args.model, emit, args.target, dims=dims, shapes=shapes,
                      specialize=specialize, cuda_path=args.cuda_path, **kwargs)
    _write(args.output, data.encode("utf-8") if isinstance(data, str) else data)


def main(argv=None):
    from . import _aicc

    parser = argparse.ArgumentParser(prog="python -m aicc", description=__doc__.split("\n")[0],
                                     allow_abbrev=False)
    parser.add_argument("--version", action="version", version=_aicc.version_line)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compile", help="compile a model (aicc-compile)", allow_abbrev=False)
    c.add_argument("--version", action="version", version=_aicc.version_line)
    c.add_argument("model", help=".onnx (or graph-dialect .mlir) file")
    c.add_argument("-o", "--output", required=True, help="where to write the result ('-': stdout)")
    c.add_argument("--target", default="cpu", help="cpu (default, as aicc-compile), sm_80 ... "
                   "sm_90a, sm_100")
    c.add_argument("--emit", default="bundle", choices=_EMIT)
    c.add_argument("--fusion-report", action="store_true", help="write the fusion report")
    c.add_argument("--memory-report", action="store_true", help="write the memory plan")
    c.add_argument("--dim", type=_dim, action="append", default=[],
                   help="NAME=N or NAME=MIN..MAX (ONNX dim_param)")
    c.add_argument("--specialize", type=_specialize, action="append", default=[],
                   help="NAME=V: with --dim NAME=MIN..MAX, also the plan for NAME = V alone "
                   "(V is MIN or MAX)")
    c.add_argument("--shape", type=_shape, action="append", default=[],
                   help="INPUT=D,D,... (a whole input shape)")
    c.add_argument("--cuda-path", help="CUDA toolkit root for ptxas")
    sub.add_parser("options", help="list the pipeline knobs compile takes", allow_abbrev=False)
    args, rest = parser.parse_known_args(argv)
    if args.command == "options" and rest:
        parser.error("options takes no arguments, got %s" % " ".join(rest))
    try:
        if args.command == "options":
            from ._compile import pipeline_options

            for name, o in sorted(pipeline_options().items()):
                print("--%s=<%s> (default %s): %s" % (name.replace("_", "-"), o["type"],
                                                        o["default"], o["description"]))
            return 0
        _compile(args, rest, parser)
    except (Error, OSError) as e:
        print("python -m aicc: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
