#!/usr/bin/python3
"""Dependency audit: everything the tests, scripts and benchmarks use is installed by setup.sh.

A green CI on a machine where packages were once installed by hand can hide a missing install
step (it did: a test imported torch that scripts/setup.sh never installed). This audit compares
what the tree uses with what scripts/setup.sh installs, on the machine it runs on:

- Python imports: every `import X` / `from X import` in a tracked .py file, and in the Python
  embedded in tracked shell scripts and lit tests (heredocs, `-c`), is either the standard
  library, a module of this tree, or found by /usr/bin/python3 in a file that a Debian package
  of setup.sh's dependency closure owns (`dpkg -S`), or found in the project's venv in a
  distribution of the closure of setup.sh's PyPI pins. Imports that only ever run on the GPU
  machine (which has its own torch/triton) are marked on their line with `# gpu-machine`, or a
  whole file with `# aicc-deps: gpu-machine` in its first 20 lines.
- Programs: the first word of every command in the lit tests' RUN lines and every CTest
  COMMAND resolves (LLVM's bin dir first, as lit.cfg.py does, then PATH) to a file owned by a
  package of the closure. Tests that `REQUIRES:` an optional feature (ptxas, cuda-device) are
  skipped: the feature is detected and the test does not run without it.
- Shared libraries: every library that the built binaries (BUILD/bin) load (ldd) belongs to a
  package of the closure.

"The closure" is setup.sh's PKGS plus their recursive Depends/PreDepends (apt-cache depends
--recurse, no Recommends/Suggests, as `apt-get install --no-install-recommends` installs) plus
what debootstrap's minbase variant holds (Essential: yes and Priority: required).

Usage: scripts/check-deps.py [--build BUILD] [--venv VENV] [--setup SETUP.sh] [-v]
Exit status 0 when every use is covered, 1 otherwise (each gap printed with file:line).
"""

import argparse
import ast
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = "/usr/lib/llvm-22/bin"
GPU_LINE = "# gpu-machine"
GPU_FILE = "# aicc-deps: gpu-machine"
# Shell builtins and keywords that can start a RUN command.
BUILTINS = {"cd", "echo", "printf", "test", "[", "true", "false", "set", "export", "exit",
            "read", "for", "do", "done", "if", "then", "else", "fi", "while", "ulimit", "("}
# Features of lit.cfg.py that gate optional tools (REQUIRES: lines).
OPTIONAL_FEATURES = {"ptxas", "cuda-device"}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def bash_array(text, name):
    m = re.search(r"^%s=\((.*?)\)" % name, text, re.M | re.S)
    if not m:
        sys.exit("check-deps: scripts/setup.sh has no %s=( ... ) array" % name)
    body = "\n".join(line.split("#", 1)[0] for line in m.group(1).splitlines())
    return body.split()


def debian_closure(pkgs):
    out = run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
               "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + pkgs)
    if out.returncode != 0:
        sys.exit("check-deps: apt-cache depends failed:\n" + out.stderr)
    closure = set()
    for line in out.stdout.splitlines():
        if line and not line.startswith(" "):
            closure.add(line.strip().strip("<>").split(":")[0])
    # What debootstrap --variant=minbase installs: Essential and Priority: required.
    q = run(["dpkg-query", "-W", "-f", "${Package}\t${Essential}\t${Priority}\n"])
    for line in q.stdout.splitlines():
        name, essential, priority = (line.split("\t") + ["", ""])[:3]
        if essential == "yes" or priority == "required":
            closure.add(name)
    return closure


def owners(paths):
    """Maps each path to the set of Debian packages owning it (empty when none)."""
    result = {}
    for p in paths:
        cands = {p, os.path.realpath(p)}
        for c in list(cands):  # merged /usr: dpkg may list either spelling
            if c.startswith("/usr/"):
                cands.add(c[4:])
            else:
                cands.add("/usr" + c)
        pkgs = set()
        out = run(["dpkg", "-S"] + sorted(cands))
        for line in out.stdout.splitlines():
            if ": " in line:
                for pkg in line.split(": ", 1)[0].split(", "):
                    pkgs.add(pkg.split(":")[0])
        result[p] = pkgs
    return result


def tracked_files():
    out = run(["git", "-C", ROOT, "ls-files", "-z"])
    if out.returncode != 0:
        sys.exit("check-deps: git ls-files failed: " + out.stderr)
    return [f for f in out.stdout.split("\0") if f]


def imports_of_source(source):
    """Yields (lineno, top-level module) for the import statements of Python `source`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


IMPORT_LINE = re.compile(r"^\s*(?:import\s+[A-Za-z_]|from\s+[A-Za-z_][\w.]*\s+import\s)")


def python_imports(files):
    """Returns [(file, line, module)] over tracked Python and the Python inside scripts/tests."""
    uses = []
    for f in files:
        path = os.path.join(ROOT, f)
        if not os.path.isfile(path) or os.path.getsize(path) > 2_000_000:
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        lines = text.splitlines()
        if any(GPU_FILE in l for l in lines[:20]):
            continue
        if f.endswith(".py") or f.endswith(".py.in"):
            found = list(imports_of_source(text))
            if not found and IMPORT_LINE.search(text):
                found = None  # not parseable as a whole (a template): fall back to lines
        else:
            found = None
        if found is None:
            if not (f.endswith((".sh", ".test", ".mlir", ".py", ".in", ".txt")) or
                    "/scripts/" in "/" + f or f.startswith(".ci/")):
                continue
            found = []
            for n, line in enumerate(lines, 1):
                # Python in a heredoc, in `python3 -c "..."`, or in a lit RUN line.
                for chunk in re.split(r"[;\"']", line):
                    chunk = re.sub(r"^\s*(//|#)?\s*(RUN:)?", "", chunk)
                    if IMPORT_LINE.match(chunk):
                        for _, mod in imports_of_source(chunk.strip()):
                            found.append((n, mod))
        for n, mod in found:
            if GPU_LINE in lines[n - 1]:
                continue
            uses.append((f, n, mod))
    return uses


def module_origins(python, modules):
    """Asks `python` where each top-level module lives: {module: path or None or 'builtin'}."""
    code = r"""
import importlib.util, sys
for m in sys.argv[1:]:
    try:
        s = importlib.util.find_spec(m)
    except Exception:
        s = None
    if s is None:
        print(m, "-")
    elif s.origin in (None, "built-in", "frozen") and not s.submodule_search_locations:
        print(m, "builtin")
    else:
        print(m, s.origin if s.origin not in (None, "namespace")
              else list(s.submodule_search_locations)[0])
"""
    out = run([python, "-I", "-c", code] + sorted(modules))
    res = {}
    for line in out.stdout.splitlines():
        m, _, origin = line.partition(" ")
        res[m] = None if origin == "-" else origin
    return res


def pypi_closure(venv_python, pins):
    code = r"""
import sys, re
from importlib.metadata import distribution, PackageNotFoundError
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
todo, seen = [p.split("==")[0] for p in sys.argv[1:]], set()
while todo:
    n = norm(todo.pop())
    if n in seen:
        continue
    seen.add(n)
    try:
        d = distribution(n)
    except PackageNotFoundError:
        continue
    for r in d.requires or []:
        if "extra ==" in r:
            continue
        todo.append(re.split(r"[ ;<>=!~\[(]", r, 1)[0])
print("\n".join(sorted(seen)))
"""
    out = run([venv_python, "-I", "-c", code] + pins)
    return set(out.stdout.split())


def venv_distributions(venv_python, modules):
    code = r"""
import sys, re, json
from importlib.metadata import packages_distributions
pd = packages_distributions()
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
print(json.dumps({m: [norm(d) for d in pd.get(m, [])] for m in sys.argv[1:]}))
"""
    import json
    out = run([venv_python, "-I", "-c", code] + sorted(modules))
    return json.loads(out.stdout or "{}")


def run_commands(files):
    """Returns [(file, line, program)] for the first word of every command of lit RUN lines."""
    uses = []
    for f in files:
        if not f.startswith("test/") or not f.endswith((".mlir", ".test")):
            continue
        text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        req = set()
        for m in re.finditer(r"REQUIRES:\s*(.*)", text):
            req |= {r.strip() for r in m.group(1).split(",")}
        if req & OPTIONAL_FEATURES:
            continue
        # lit joins a RUN line ending in a backslash with the next one.
        runs, pending, start = [], "", 0
        for n, line in enumerate(text.splitlines(), 1):
            m = re.search(r"RUN:(.*)", line)
            if not m:
                continue
            body = m.group(1).rstrip()
            if not pending:
                start = n
            if body.endswith("\\"):
                pending += body[:-1] + " "
                continue
            runs.append((start, pending + body))
            pending = ""
        for n, body in runs:
            try:
                lex = shlex.shlex(body, posix=True, punctuation_chars=True)
                lex.whitespace_split = True
                tokens = list(lex)
            except ValueError:
                uses.append((f, n, "<unparseable RUN line>"))
                continue
            at_start = True
            for tok in tokens:
                if tok in ("|", "||", "&&", ";", "&", "|&", "(", ")"):
                    at_start = True
                    continue
                if not at_start:
                    continue
                if tok in ("not", "!", "env", "--crash") or re.match(r"^\w+=", tok):
                    continue
                at_start = False
                if tok.startswith(("%", "aicc-", "$", ">", "<", "2>")) or tok in BUILTINS \
                        or re.match(r"^\d*[<>]", tok):
                    continue
                uses.append((f, n, tok))
    return uses


def ctest_commands(files):
    uses = []
    for f in files:
        if not f.endswith("CMakeLists.txt"):
            continue
        for n, line in enumerate(open(os.path.join(ROOT, f)).read().splitlines(), 1):
            m = re.search(r"COMMAND\s+(/\S+)", line)
            if m and "${" not in m.group(1):
                uses.append((f, n, m.group(1)))
    return uses


def which(prog):
    if prog.startswith("/"):
        return prog if os.path.exists(prog) else None
    return shutil.which(prog, path=LLVM_BIN + os.pathsep + os.environ.get("PATH", ""))


def elf_files(d):
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        p = os.path.join(d, name)
        if os.path.isfile(p) and open(p, "rb").read(4) == b"\x7fELF":
            yield p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--venv", default=os.environ.get("AICC_VENV", os.path.join(ROOT, ".venv")))
    ap.add_argument("--setup", default=os.path.join(ROOT, "scripts", "setup.sh"),
                    help="the setup script whose PKGS / PYPI_PKGS arrays are audited")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    setup = open(args.setup).read()
    pkgs, pins = bash_array(setup, "PKGS"), bash_array(setup, "PYPI_PKGS")
    closure = debian_closure(pkgs)
    venv_python = os.path.join(args.venv, "bin", "python")
    pypi = pypi_closure(venv_python, pins) if os.path.exists(venv_python) else set()
    files = tracked_files()
    gaps = []

    # Python.
    local = {os.path.splitext(os.path.basename(f))[0] for f in files if f.endswith(".py")}
    # Packages of this tree (python/aicc: `import aicc`), by their directory's name.
    local |= {os.path.basename(os.path.dirname(f)) for f in files
              if os.path.basename(f) == "__init__.py"}
    uses = python_imports(files)
    mods = {m for _, _, m in uses
            if m not in sys.stdlib_module_names and m not in local and m != "__future__"}
    origins = module_origins("/usr/bin/python3", mods | {"lit"})
    # lit's own modules come with the lit program (lit.cfg.py runs inside it).
    lit_prog = which("lit")
    lit_owner = owners([lit_prog]).get(lit_prog, set()) if lit_prog else set()
    deb_paths = {o for o in origins.values() if o and o != "builtin"}
    deb_owner = owners(sorted(deb_paths))
    missing_deb = {m for m in mods if not origins.get(m)}
    venv_dists = venv_distributions(venv_python, missing_deb) if pypi else {}
    for f, n, m in uses:
        if m not in mods:
            continue
        o = origins.get(m)
        if m == "lit" and lit_owner & closure:
            continue
        if o == "builtin":
            continue
        if o:
            own = deb_owner.get(o, set())
            if own & closure:
                continue
            why = ("found at %s, owned by %s, which setup.sh does not install" %
                   (o, ", ".join(sorted(own))) if own else
                   "found at %s, which no Debian package owns (installed by hand?)" % o)
        else:
            dists = set(venv_dists.get(m, []))
            if dists & pypi:
                continue
            why = ("in the venv from %s, not among setup.sh's PyPI pins or their needs" %
                   ", ".join(sorted(dists)) if dists else
                   "not importable by /usr/bin/python3 nor in the venv")
        gaps.append("%s:%d: Python module '%s' is %s" % (f, n, m, why))

    # Programs.
    progs = run_commands(files) + ctest_commands(files)
    paths = {p: which(p) for p in {p for _, _, p in progs}}
    prog_owner = owners(sorted({p for p in paths.values() if p}))
    for f, n, p in progs:
        path = paths[p]
        if not path:
            gaps.append("%s:%d: program '%s' is not installed" % (f, n, p))
        elif not prog_owner.get(path, set()) & closure:
            own = prog_owner.get(path, set())
            gaps.append("%s:%d: program '%s' (%s) comes from %s" %
                        (f, n, p, path, ", ".join(sorted(own)) + ", not installed by setup.sh"
                         if own else "no Debian package (installed by hand?)"))

    # Shared libraries of the built binaries.
    bins = list(elf_files(os.path.join(args.build, "bin")))
    libs = {}
    for b in bins:
        for line in run(["ldd", b]).stdout.splitlines():
            m = re.search(r"=>\s+(/\S+)", line)
            if m:
                libs.setdefault(m.group(1), os.path.basename(b))
    lib_owner = owners(sorted(libs))
    for lib, b in sorted(libs.items()):
        if not lib_owner.get(lib, set()) & closure:
            own = lib_owner.get(lib, set())
            gaps.append("%s: links %s from %s" %
                        (b, lib, ", ".join(sorted(own)) + ", not installed by setup.sh"
                         if own else "no Debian package"))

    if args.verbose or gaps:
        print("check-deps: %d Debian packages in setup.sh's closure, %d PyPI distributions; "
              "%d Python imports, %d commands, %d libraries of %d binaries checked" %
              (len(closure), len(pypi), len(uses), len(progs), len(libs), len(bins)))
    for g in gaps:
        print("check-deps: " + g)
    if gaps:
        print("check-deps: %d use(s) not covered by scripts/setup.sh: add the package there, "
              "or mark a GPU-machine-only import with '%s'" % (len(gaps), GPU_LINE))
        return 1
    print("check-deps: every Python import, test command and linked library is installed by "
          "scripts/setup.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
