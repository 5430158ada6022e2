"""SIMT simulator of per-thread GPU kernels in MLIR's generic op form, as
convert-tile-dot-to-mma-sync writes them (run with canonicalize, cse and
--mlir-print-op-generic after it): runs every CTA of the grid, all threads of a CTA in
lockstep (numpy vectors over the threads), and the host plan of @main (allocs, views,
tile.launch). The GPU semantics are written from the PTX ISA, independently of the compiler:
  - cp.async (nvgpu.device_async_copy): 16 bytes, src-size bytes read, the rest zero; copies
    land only when a cp.async.wait_group of the issuing thread retires their commit group
    ("cp.async", "cp.async.commit_group", "cp.async.wait_group");
  - ldmatrix .x4 (.trans): threads 8j..8j+7 address the rows of matrix j; register j of lane
    l holds row l/4, elements 2(l%4)+{0,1} (transposed: column l/4, rows 2(l%4)+{0,1})
    ("Warp-level matrix load instruction: ldmatrix");
  - mma.sync.m16n8k16.row.col f32 += f16/bf16: the A, B, C/D fragment layouts of "Matrix
    Fragments for mma.m16n8k16 with floating point type"; products exact, sum rounded to f32.
  - shfl.sync.bfly (gpu.shuffle xor, 32 lanes), ex2.approx.f32 and lg2.approx.f32
    (llvm.call_intrinsic; 2^x and log2(x), modeled exact: the PTX bounds are 2^-22);
  - st.shared (memref.store / vector.store to the shared view): lands at once, in the
    current barrier interval;
  - ld.shared (vector.load from the shared view, the staged epilogue's copy-out): reads what
    landed before the current barrier interval;
Shared-memory hazards are errors (SimError):
  - write after read: a cp.async issued in the barrier interval of a read of the same
    element, or landing on an element read since the copy was issued;
  - read after write: ldmatrix or ld.shared of an element with a copy in flight, of one that
    landed in the current barrier interval (no bar.sync between the write and the read), or
    never written.
Also errors: misaligned or out-of-bounds cp.async / ldmatrix / global accesses, barriers
under divergent control flow, warp-collective ops (ldmatrix, mma.sync, shfl.sync) with part
of a warp active (a warp-uniform branch may skip them for whole warps), copies in flight at kernel exit, an
ld.shared of elements last stored through a view of another element type. Views of the
dynamic shared memory may have wider elements than the first (the f32 staging tile over the
f16 ring): an element covers several of the first view's slots. Counts the shared-memory
wavefronts of every 8-row ldmatrix matrix and 8-thread cp.async phase (1.0 per matrix /
phase = conflict-free), of the staged epilogue's pair stores (per warp for 4-byte pairs, per
half-warp for 8-byte ones: 32 4-byte banks, 128 bytes per wavefront) and 16-byte ld.shared
(per 8-thread phase).
Values: integers as int64 numpy arrays with i1/i32 wrap-around, floats as float64 rounded to
their MLIR type after every op (f32, f16, bf16 round-to-nearest-even).
"""
import math, re, sys
import numpy as np

# ------------------------------------------------------------------------------------------
# Parser for MLIR's generic op form (one op per line).
# ------------------------------------------------------------------------------------------


class Op:
    __slots__ = ("results", "name", "operands", "props", "attrs", "regions", "in_types",
                 "out_types")

    def __repr__(self):
        return f"{self.results} = {self.name}({self.operands})"


class Block:
    def __init__(self):
        self.args, self.arg_types, self.ops = [], [], []


class Parser:
    def __init__(self, text):
        self.s, self.p = text, 0

    def ws(self):
        s = self.s
        while self.p < len(s) and s[self.p] in " \t\n\r":
            self.p += 1

    def peek(self, t):
        self.ws()
        return self.s.startswith(t, self.p)

    def expect(self, t):
        self.ws()
        if not self.s.startswith(t, self.p):
            raise SyntaxError(f"expected {t!r} at {self.s[self.p:self.p + 80]!r}")
        self.p += len(t)

    def balanced(self, open_, close):
        """Text between `open_` (at p) and its matching `close`, with quotes respected."""
        self.ws()
        assert self.s[self.p] == open_, self.s[self.p:self.p + 40]
        depth, i, s = 0, self.p, self.s
        while True:
            c = s[i]
            if c == '"':
                i += 1
                while s[i] != '"':
                    i += 2 if s[i] == "\\" else 1
            elif c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    out = s[self.p + 1:i]
                    self.p = i + 1
                    return out
            i += 1

    def name(self):
        self.ws()
        m = re.compile(r"[%^][\w$.#-]+").match(self.s, self.p)
        self.p = m.end()
        return m.group(0)

    def op(self):
        o = Op()
        o.results = []
        self.ws()
        if self.s[self.p] == "%":
            while True:
                n = self.name()
                cnt = 1
                if self.s[self.p] == ":":
                    self.p += 1
                    m = re.compile(r"\d+").match(self.s, self.p)
                    cnt = int(m.group(0))
                    self.p = m.end()
                o.results += [n] if cnt == 1 else [f"{n}#{i}" for i in range(cnt)]
                if self.peek(","):
                    self.expect(",")
                    continue
                break
            self.expect("=")
        self.expect('"')
        e = self.s.index('"', self.p)
        o.name = self.s[self.p:e]
        self.p = e + 1
        ops = self.balanced("(", ")")
        o.operands = [x.strip() for x in ops.split(",") if x.strip()]
        if self.peek("["):
            self.balanced("[", "]")
        o.props = ""
        if self.peek("<{"):
            self.expect("<")
            o.props = self.balanced("{", "}")
            self.expect(">")
        o.regions = []
        if self.peek("({"):
            self.expect("(")
            while True:
                o.regions.append(self.region())
                if self.peek(","):
                    self.expect(",")
                    continue
                break
            self.expect(")")
        o.attrs = ""
        if self.peek("{"):
            o.attrs = self.balanced("{", "}")
        self.expect(":")
        self.ws()
        o.in_types = split_types(self.balanced("(", ")"))
        self.expect("->")
        self.ws()
        if self.s[self.p] == "(":
            o.out_types = split_types(self.balanced("(", ")"))
        else:
            e = self.s.index("\n", self.p)
            o.out_types = [self.s[self.p:e].strip()]
            self.p = e
        return o

    def region(self):
        self.expect("{")
        blocks = []
        cur = None
        while True:
            self.ws()
            if self.s[self.p] == "}":
                self.p += 1
                break
            if self.s[self.p] == "^":
                self.name()
                cur = Block()
                blocks.append(cur)
                if self.s[self.p] == "(":
                    for a in split_types(self.balanced("(", ")")):
                        n, t = a.split(":", 1)
                        cur.args.append(n.strip())
                        cur.arg_types.append(t.strip())
                self.expect(":")
                continue
            if cur is None:
                cur = Block()
                blocks.append(cur)
            cur.ops.append(self.op())
        return blocks


def split_types(s):
    out, depth, cur = [], 0, ""
    i = 0
    while i < len(s):
        c = s[i]
        if s.startswith("->", i):
            cur += "->"
            i += 2
            continue
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def prop(o, key, text=None):
    if text is None:
        for t in (o.props, o.attrs):
            v = prop(o, key, t)
            if v is not None:
                return v
        return None
    t = text
    m = re.search(r"(?:^|[\s{,])" + re.escape(key) + r"\s*=\s*", t)
    if not m:
        return None
    i, depth, out = m.end(), 0, ""
    while i < len(t):
        c = t[i]
        if t.startswith("->", i):
            out += "->"
            i += 2
            continue
        if c == '"':
            e = t.index('"', i + 1)
            out += t[i:e + 1]
            i = e + 1
            continue
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        out += c
        i += 1
    return out.strip()


def has_unit(o, key):
    return re.search(r"(?:^|[\s{,])" + re.escape(key) + r"(?:[\s,}]|$)", o.props + " " + o.attrs) is not None


def int_array(s):
    return [int(x) for x in re.findall(r"-?\d+", s.split(":", 1)[1])]


# ------------------------------------------------------------------------------------------
# Numbers.
# ------------------------------------------------------------------------------------------


def round_bf16(x):
    f = np.asarray(x, dtype=np.float32).copy()
    u = f.view(np.uint32).astype(np.uint64)
    nan = np.isnan(f)
    u = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) & np.uint64(0xFFFF0000)
    r = u.astype(np.uint32).view(np.float32)
    return np.where(nan, np.float32(np.nan), r)


def round_to(x, t):
    x = np.asarray(x, dtype=np.float64)
    if t == "f64":
        return x
    if t == "f32":
        return x.astype(np.float32).astype(np.float64)
    if t == "f16":
        return x.astype(np.float16).astype(np.float64)
    if t == "bf16":
        return round_bf16(x).astype(np.float64)
    raise ValueError(t)


def elem_of(t):
    m = re.match(r"(?:memref|vector|tensor)<(?:[\d?]+x)*(\w+)", t)
    return m.group(1) if m else t


def bits_of(t):
    return {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}[t]


def wrap(x, t):
    if t == "index" or t == "i64":
        return x
    b = bits_of(t)
    if b == 1:
        return x & 1
    m = 1 << b
    return ((x + (m >> 1)) % m) - (m >> 1)


def unsigned(x, t):
    if t == "index" or t == "i64":
        return x
    return x & ((1 << bits_of(t)) - 1)


class SimError(Exception):
    pass


# ------------------------------------------------------------------------------------------
# Machine state.
# ------------------------------------------------------------------------------------------


ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


class Buffer:
    """A global buffer, or a view of the CTA's shared memory (`data` a Shared) whose element
    index i covers the shared slots [i * scale, (i + 1) * scale): scale = element bytes / the
    slot bytes (the first view's element size)."""

    def __init__(self, data, elem, space, scale=1):
        self.data, self.elem, self.space, self.scale = data, elem, space, scale


class Shared:
    """Dynamic shared memory of one CTA, per slot (an element of the first view, `unit`
    bytes): the value (NaN until written; a wider element's value sits in its first slot),
    the barrier interval and thread of the last landed write (-2: never), copies in flight,
    the last barrier interval that read it, the element type of the last st.shared (what an
    ld.shared must read it as)."""

    def __init__(self, n_elems, T, unit=2):
        self.unit = unit
        self.w_elem = np.full(n_elems, "", dtype=object)
        self.data = np.full(n_elems, np.nan)
        self.w_epoch = np.full(n_elems, -2, dtype=np.int64)  # -2: never written
        self.w_thread = np.full(n_elems, -1, dtype=np.int64)
        self.pending = np.zeros(n_elems, dtype=np.int64)
        self.r_epoch = np.full(n_elems, -1, dtype=np.int64)


class Stats:
    """Counters over a simulation: ldmatrix x4 ops (per warp) and their shared-memory
    wavefronts (4 per op when conflict-free), cp.async copies (per thread) and the wavefronts
    of their 8-thread phases (1 per 8 copies when conflict-free), mma.sync ops (per warp)."""

    def __init__(self):
        self.ldmatrix = 0
        self.ldmatrix_wavefronts = 0
        self.cp_async = 0
        self.cp_wavefronts = 0
        self.st_shared = 0
        self.ld_shared = 0
        self.st_pair = 0
        self.st_pair_phases = 0  # warps (4-byte pairs) or half-warps (8-byte pairs)
        self.st_pair_wavefronts = 0
        self.ld_wavefronts = 0
        self.ld_phases = 0
        self.mma = 0


class CTA:
    def __init__(self, sim, block_id, T):
        self.sim, self.bid, self.T = sim, block_id, T
        self.env = {}
        self.epoch = 0
        self.shared = None
        self.groups = [[] for _ in range(T)]  # committed groups per thread: lists of copies
        self.open = [[] for _ in range(T)]  # uncommitted copies per thread
        self.mask = np.ones(T, dtype=bool)

    # -- values
    def v(self, name):
        return self.env[name]

    def run_block(self, blk, args):
        for n, a in zip(blk.args, args):
            self.env[n] = a
        for o in blk.ops:
            r = self.op(o)
            if o.name in ("scf.yield", "func.return"):
                return r
        return None

    def uniform(self, x):
        x = np.asarray(x)
        if x.ndim == 0:
            return int(x)
        act = x[self.mask] if x.shape == self.mask.shape else x
        if act.size == 0:
            return int(x.flat[0])
        if not np.all(act == act.flat[0]):
            raise SimError("non-uniform value where a uniform one is needed")
        return int(act.flat[0])

    # -- cp.async
    def land(self, copies):
        sh = self.shared
        for (t, dst, vals, issue_epoch) in copies:
            sl = slice(dst, dst + len(vals))
            if np.any(sh.r_epoch[sl] >= issue_epoch):
                raise SimError(f"WAR race: cp.async (issued in barrier interval {issue_epoch}) "
                               f"lands on smem[{dst}] read in interval {sh.r_epoch[sl].max()}")
            sh.data[sl] = vals
            sh.pending[sl] -= 1
            sh.w_epoch[sl] = self.epoch
            sh.w_thread[sl] = t

    def op(self, o):
        n = o.name
        T = self.T
        env = self.env
        rt = o.out_types[0] if o.out_types else None
        ops = [env[x] for x in o.operands] if n not in ("scf.for", "scf.if") else None

        def set1(v):
            env[o.results[0]] = v

        if n == "arith.constant":
            val = prop(o, "value")
            if val.startswith("dense<"):
                inner = re.match(r"dense<(.*)>\s*:", val).group(1)
                x = float(inner) if "." in inner or "e" in inner or "nan" in inner.lower() or "inf" in inner.lower() else int(inner, 0)
                shape = [int(d) for d in re.findall(r"(\d+)x", rt)]
                set1(np.full([T] + shape, x, dtype=np.float64 if isinstance(x, float) else np.int64))
                return
            # (An i1's prints without its type: `value = false`.)
            lit, ty = val.rsplit(":", 1) if ":" in val else (val, "i1")
            lit, ty = lit.strip(), ty.strip()
            if lit in ("true", "false"):
                set1(np.full(T, 1 if lit == "true" else 0, dtype=np.int64))
            elif ty in ("f32", "f16", "bf16", "f64"):
                x = hexfloat(lit, ty) if lit.startswith("0x") else float(lit)
                set1(np.full(T, round_to(x, ty)))
            else:
                set1(np.full(T, wrap(int(lit, 0), ty), dtype=np.int64))
            return
        if n.startswith("arith."):
            return self.arith(o, ops, rt)
        if n.startswith("math."):
            return self.math(o, ops, rt)
        if n == "gpu.thread_id":
            set1(np.arange(T, dtype=np.int64))
            return
        if n == "gpu.block_id":
            d = prop(o, "dimension")
            set1(np.full(T, self.bid["xyz".index(d[-2])], dtype=np.int64))
            return
        if n == "gpu.grid_dim":  # the launched grid (a persistent kernel's tile stride)
            d = prop(o, "dimension")
            set1(np.full(T, self.sim.grid["xyz".index(d[-2])], dtype=np.int64))
            return
        if n == "gpu.barrier":
            if not np.all(self.mask):
                raise SimError("gpu.barrier under divergent control flow")
            self.epoch += 1
            return
        if n == "gpu.dynamic_shared_memory":
            set1("dynsmem")
            return
        if n == "memref.view":
            if np.any(ops[1] != 0):
                raise SimError("memref.view at a non-zero byte offset")
            cnt = int(re.match(r"memref<(\d+)x", rt).group(1))
            eb = ELEM_BYTES[elem_of(rt)]
            if self.shared is None:
                self.shared = Shared(cnt, T, eb)
                self.sim.smem_elems = cnt
            if eb % self.shared.unit or cnt * eb > self.shared.data.size * self.shared.unit:
                raise SimError(f"shared view {rt} does not fit the first view's slots")
            set1(Buffer(self.shared, elem_of(rt), "shared", eb // self.shared.unit))
            return
        if n == "memref.load":
            buf, idx = ops[0], ops[1]
            v = self.gload(buf, idx, rt)
            if rt[:1] == "i" and rt[1:].isdigit():
                v = v.astype(np.int64)  # host buffers hold integers as float64 (run_main)
            return set1(v)
        if n == "memref.store":
            val, buf, idx = ops
            self.gstore(buf, idx, [val])
            return
        if n == "vector.store":
            val, buf, idx = ops
            k = val.shape[1]
            self.gstore(buf, idx, [val[:, j] for j in range(k)])
            return
        if n == "vector.load":
            buf, idx = ops
            k = int(re.match(r"vector<(\d+)x", rt).group(1))
            if buf.space != "shared":
                raise SimError("vector.load from global memory not simulated")
            return set1(self.sload(buf, idx, k))
        if n == "vector.from_elements":
            set1(np.stack(ops, axis=1))
            return
        if n == "vector.extract":
            pos = int_array(prop(o, "static_position"))
            x = ops[0]
            for p in pos:
                x = x[:, p]
            set1(x)
            return
        if n == "llvm.bitcast":
            set1(ops[0])  # vector<2xbf16> -> i32: the pair is kept as is (mma reads it)
            return
        if n == "llvm.extractvalue":
            pos = int_array(prop(o, "position"))
            set1(ops[0][:, pos[0]])
            return
        if n == "nvgpu.device_async_copy":
            return self.cp_async(o, ops)
        if n == "nvvm.cp.async.commit.group":
            for t in range(T):
                if self.mask[t]:
                    self.groups[t].append(self.open[t])
                    self.open[t] = []
            return
        if n == "nvvm.cp.async.wait.group":
            keep = int(prop(o, "n").split(":")[0])
            for t in range(T):
                if not self.mask[t]:
                    continue
                g = self.groups[t]
                done = g[:max(0, len(g) - keep)]
                self.groups[t] = g[len(done):]
                for grp in done:
                    self.land(grp)
            return
        if n == "gpu.shuffle":
            # shfl.sync.bfly (mode xor, width 32; PTX ISA "shfl.sync"): lane l reads lane
            # l ^ offset of its warp; a warp-collective op.
            if "xor" not in o.props or np.any(ops[2] != 32):
                raise SimError("gpu.shuffle other than xor over 32 lanes not simulated")
            self.active_warps("gpu.shuffle")
            lanes = np.arange(T, dtype=np.int64)
            src = (lanes & ~31) | ((lanes & 31) ^ ops[1])
            env[o.results[0]] = ops[0][src]
            env[o.results[1]] = np.ones(T, dtype=np.int64)
            return
        if n == "llvm.call_intrinsic":
            name = re.search(r'intrin = "([^"]+)"', o.props + o.attrs).group(1)
            if name == "llvm.nvvm.ex2.approx.f32":
                # ex2.approx.f32: 2^x, max relative error 2^-22 (PTX ISA "ex2"); modeled exact.
                with np.errstate(all="ignore"):
                    return set1(round_to(np.exp2(ops[0]), "f32"))
            if name == "llvm.nvvm.lg2.approx.f":
                # lg2.approx.f32: log2(x), -inf for +0, max absolute error 2^-22 (PTX ISA
                # "lg2"); modeled exact.
                with np.errstate(all="ignore"):
                    return set1(round_to(np.log2(ops[0]), "f32"))
            raise SimError(f"intrinsic {name} not simulated")
        if n == "nvgpu.ldmatrix":
            return set1(self.ldmatrix(o, ops, rt))
        if n == "nvvm.mma.sync":
            return self.mma(o, ops)
        if n == "scf.for":
            lb, ub, st = (self.uniform(env[x]) for x in o.operands[:3])
            carried = [env[x] for x in o.operands[3:]]
            body = o.regions[0][0]
            for i in range(lb, ub, st):
                carried = self.run_block(body, [np.full(T, i, dtype=np.int64)] + carried)
            for r, c in zip(o.results, carried):
                env[r] = c
            return
        if n == "scf.if":
            cond = env[o.operands[0]].astype(bool)
            saved = self.mask
            outs = []
            for ri, reg in enumerate(o.regions):
                if not reg:
                    outs.append(None)
                    continue
                m = saved & (cond if ri == 0 else ~cond)
                if not m.any():
                    outs.append(None)
                    continue
                self.mask = m
                outs.append(self.run_block(reg[0], []))
                self.mask = saved
            for k, r in enumerate(o.results):
                a = outs[0][k] if outs[0] is not None else None
                b = outs[1][k] if len(outs) > 1 and outs[1] is not None else None
                if a is None:
                    env[r] = b
                elif b is None:
                    env[r] = a
                else:
                    c = cond.reshape([T] + [1] * (np.ndim(a) - 1))
                    env[r] = np.where(c, a, b)
            return
        if n in ("scf.yield", "func.return"):
            return ops
        raise SimError(f"unsupported op {n}")

    def arith(self, o, ops, rt):
        n = o.name[6:]
        env = self.env
        it = o.in_types[0] if o.in_types else rt
        et = elem_of(rt) if rt else None

        def set1(v):
            env[o.results[0]] = v

        intb = {"addi": np.add, "subi": np.subtract, "muli": np.multiply, "andi": np.bitwise_and,
                "ori": np.bitwise_or, "xori": np.bitwise_xor}
        if n in intb:
            return set1(wrap(intb[n](ops[0], ops[1]), et))
        if n in ("divui", "remui", "minui", "maxui", "shrui"):
            a, b = unsigned(ops[0], et), unsigned(ops[1], et)
            if n in ("divui", "remui") and np.any(b[self.mask] == 0):
                raise SimError(f"arith.{n} by zero")
            b = np.where(b == 0, 1, b)
            f = {"divui": lambda: a // b, "remui": lambda: a % b, "minui": lambda: np.minimum(a, b),
                 "maxui": lambda: np.maximum(a, b), "shrui": lambda: a >> b}[n]
            return set1(wrap(f(), et))
        if n in ("divsi", "remsi"):
            a, b = ops
            b = np.where(b == 0, 1, b)
            q = np.trunc(a / b).astype(np.int64)
            return set1(wrap(q if n == "divsi" else a - q * b, et))
        if n == "shli":
            return set1(wrap(ops[0] << ops[1], et))
        if n == "shrsi":
            return set1(wrap(ops[0] >> ops[1], et))
        if n in ("minsi", "maxsi"):
            return set1((np.minimum if n == "minsi" else np.maximum)(ops[0], ops[1]))
        if n == "cmpi":
            pred = prop(o, "predicate")
            names = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
            p = names[int(pred.split(":")[0])] if pred[0].isdigit() else pred
            a, b = ops
            if p[0] == "u":
                a, b = unsigned(a, it), unsigned(b, it)
            f = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
                 "sgt": np.greater, "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal,
                 "ugt": np.greater, "uge": np.greater_equal}[p]
            return set1(f(a, b).astype(np.int64))
        if n == "select":
            c = ops[0].astype(bool)
            c = c.reshape(list(c.shape) + [1] * (np.ndim(ops[1]) - c.ndim))
            return set1(np.where(c, ops[1], ops[2]))
        if n in ("index_cast", "index_castui", "extsi", "trunci"):
            return set1(wrap(ops[0], et))
        if n == "extui":
            return set1(unsigned(ops[0], elem_of(it)))
        fb = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
              "maxnumf": np.fmax, "minnumf": np.fmin, "maximumf": np.maximum,
              "minimumf": np.minimum, "powf": np.power}
        if n in fb:
            with np.errstate(all="ignore"):
                return set1(round_to(fb[n](ops[0], ops[1]), et))
        if n == "negf":
            return set1(-ops[0])
        if n in ("extf", "truncf"):
            return set1(round_to(ops[0], et))
        if n in ("sitofp", "uitofp"):
            return set1(round_to(ops[0].astype(np.float64), et))
        if n in ("fptosi", "fptoui"):
            return set1(np.trunc(ops[0]).astype(np.int64))
        if n == "cmpf":
            pred = prop(o, "predicate")
            names = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                     "uge", "ult", "ule", "une", "uno", "true"]
            p = names[int(pred.split(":")[0])] if pred[0].isdigit() else pred
            a, b = ops
            unord = np.isnan(a) | np.isnan(b)
            base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b,
                    "ne": a != b}
            if p in ("false", "true"):
                r = np.full(a.shape, p == "true")
            elif p == "ord":
                r = ~unord
            elif p == "uno":
                r = unord
            elif p[0] == "o":
                r = base[p[1:]] & ~unord
            else:
                r = base[p[1:]] | unord
            return set1(r.astype(np.int64))
        raise SimError(f"unsupported op {o.name}")

    def math(self, o, ops, rt):
        n = o.name[5:]
        et = elem_of(rt)
        f = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt, "absf": np.abs,
             "erf": np.vectorize(math.erf, otypes=[np.float64]),
             "erfc": np.vectorize(math.erfc, otypes=[np.float64]), "rsqrt": lambda x: 1 / np.sqrt(x),
             "floor": np.floor, "ceil": np.ceil, "sin": np.sin, "cos": np.cos,
             "exp2": np.exp2, "log2": np.log2, "log1p": np.log1p, "expm1": np.expm1}
        with np.errstate(all="ignore"):
            if n in f:
                self.env[o.results[0]] = round_to(f[n](ops[0]), et)
                return
            if n == "fma":
                self.env[o.results[0]] = round_to(ops[0] * ops[1] + ops[2], et)
                return
            if n == "powf":
                self.env[o.results[0]] = round_to(np.power(ops[0], ops[1]), et)
                return
        raise SimError(f"unsupported op {o.name}")

    # -- memory
    def gload(self, buf, idx, rt):
        m = self.mask
        if buf.space != "global":
            raise SimError("memref.load from shared memory")
        bad = m & ((idx < 0) | (idx >= buf.data.size))
        if bad.any():
            raise SimError(f"global load out of bounds: {idx[bad][:4]} (size {buf.data.size})")
        safe = np.where(m, idx, 0)
        return buf.data[safe].astype(np.float64) if buf.data.dtype.kind == "f" else buf.data[safe]

    def sstore(self, buf, idx, vals):
        """Synchronous shared-memory store (st.shared): lands at once, in the current barrier
        interval; an element read in this interval (WAR) or with a cp.async in flight (WAW)
        is a race. A vector store must be aligned to its size."""
        sh = buf.data
        k, sc = len(vals), buf.scale
        eb = sh.unit * sc
        for t in np.nonzero(self.mask)[0]:
            d = int(idx[t])
            if d < 0 or (d + k) * sc > sh.data.size or d % k:
                raise SimError(f"shared store at {d} ({k} elements) misaligned or out of range")
            sl = slice(d * sc, (d + k) * sc)
            if np.any(sh.r_epoch[sl] >= self.epoch):
                raise SimError(f"WAR race: st.shared to smem[{d * sc}] in barrier interval "
                               f"{self.epoch}, read in the same interval")
            if np.any(sh.pending[sl] > 0):
                raise SimError(f"WAW race: st.shared to smem[{d * sc}] with a cp.async in "
                               f"flight")
            sh.data[sl] = np.nan
            sh.data[sl.start:sl.stop:sc] = [round_to(v[t], buf.elem) for v in vals]
            sh.w_epoch[sl] = self.epoch
            sh.w_thread[sl] = t
            sh.w_elem[sl] = buf.elem
        self.sim.stats.st_shared += int(self.mask.sum())
        if k == 2 and buf.elem in ("f16", "bf16", "f32"):
            # Pair stores (the staged epilogue): 4-byte pairs are served per warp, 8-byte
            # (f32) pairs per half-warp (256 bytes take two wavefronts at best); a phase is
            # conflict-free (one wavefront) when its threads' 4-byte words hit different banks
            # (or are the same word).
            self.sim.stats.st_pair += 1
            act = np.nonzero(self.mask)[0]
            lanes = 32 if eb * k <= 4 else 16
            for w in range(0, self.T, lanes):
                words = {(int(idx[t]) * eb) // 4 + j for t in act if w <= t < w + lanes
                         for j in range(max(1, eb * k // 4))}
                banks = {}
                for wd in words:
                    banks[wd % 32] = banks.get(wd % 32, 0) + 1
                if banks:
                    self.sim.stats.st_pair_wavefronts += max(banks.values())
                    self.sim.stats.st_pair_phases += 1

    def sload(self, buf, idx, k):
        """Vector ld.shared of k elements per active thread (k-aligned): every element must have
        landed before the current barrier interval (RAW: no bar.sync between the write and the
        read is a race) with no cp.async in flight; marks the elements read in this interval.
        Counts the 8-lane phases with an active thread and their shared-memory wavefronts
        (16-byte loads: 1 per phase when conflict-free)."""
        sh = buf.data
        sc = buf.scale
        eb = sh.unit * sc
        out = np.full((self.T, k), np.nan)
        for t in np.nonzero(self.mask)[0]:
            d = int(idx[t])
            if d < 0 or (d + k) * sc > sh.data.size or d % k:
                raise SimError(f"shared load at {d} ({k} elements) misaligned or out of range")
            sl = slice(d * sc, (d + k) * sc)
            if np.any(sh.pending[sl] > 0):
                raise SimError(f"RAW race: ld.shared reads smem[{sl.start}] with a cp.async "
                               f"in flight")
            if np.any(sh.w_epoch[sl] == -2):
                raise SimError(f"ld.shared reads never-written smem[{sl.start}]")
            if np.any(sh.w_epoch[sl] >= self.epoch):
                # Name a writer other than the reader where there is one.
                late = sh.w_epoch[sl] >= self.epoch
                other = late & (sh.w_thread[sl] != t)
                e = sl.start + int(np.argmax(other if other.any() else late))
                raise SimError(f"RAW race: smem[{e}] written (thread {sh.w_thread[e]}) in the "
                               f"current barrier interval {self.epoch}, read by ld.shared "
                               f"(thread {t})")
            if np.any(sh.w_elem[sl] != buf.elem):
                raise SimError(f"ld.shared reads smem[{sl.start}] as {buf.elem}, not as it "
                               f"was stored")
            sh.r_epoch[sl] = np.maximum(sh.r_epoch[sl], self.epoch)
            out[t] = sh.data[sl.start:sl.stop:sc]
        self.sim.stats.ld_shared += int(self.mask.sum())
        for p0 in range(0, self.T, 8):  # phases: lanes 8q .. 8q+7 of a warp
            banks = {}
            for t in range(p0, p0 + 8):
                if self.mask[t]:
                    bg = (int(idx[t]) * eb // 16) % 8
                    banks[bg] = banks.get(bg, 0) + 1
            if banks:
                self.sim.stats.ld_phases += 1
                self.sim.stats.ld_wavefronts += max(banks.values())
        return out

    def gstore(self, buf, idx, vals):
        m = self.mask
        if buf.space == "shared":
            return self.sstore(buf, idx, vals)
        for j, v in enumerate(vals):
            ii = idx + j
            bad = m & ((ii < 0) | (ii >= buf.data.size))
            if bad.any():
                raise SimError(f"global store out of bounds: {ii[bad][:4]}")
            if j == 0 and len(vals) > 1 and np.any((idx[m] % len(vals)) != 0):
                raise SimError("misaligned vector store")
            buf.data[ii[m]] = round_to(v[m], buf.elem) if buf.data.dtype.kind == "f" else v[m]
            self.sim.written[id(buf)][ii[m]] += 1

    def cp_async(self, o, ops):
        dst, didx, src, sidx = ops[0], ops[1], ops[2], ops[3]
        nelem = int(prop(o, "dstElements").split(":")[0])
        nsrc = ops[4] if len(ops) > 4 else np.full(self.T, nelem)
        if nelem * 2 != 16 or not has_unit(o, "bypassL1"):
            raise SimError("expected 16-byte cp.async.cg")
        sh = dst.data
        m = self.mask
        self.sim.stats.cp_async += int(m.sum())
        for t in np.nonzero(m)[0]:
            d, s, k = int(didx[t]), int(sidx[t]), int(nsrc[t])
            if d % 8 or d < 0 or d + 8 > sh.data.size:
                raise SimError(f"cp.async dst {d} misaligned or out of shared memory")
            if s % 8 or s < 0 or s + 8 > src.data.size:
                raise SimError(f"cp.async src {s} misaligned or out of the buffer (size {src.data.size}, src-size {k})")
            if not 0 <= k <= 8:
                raise SimError("cp.async src-size out of range")
            vals = np.zeros(8)
            vals[:k] = src.data[s:s + k]
            if np.any(sh.r_epoch[d:d + 8] >= self.epoch):
                raise SimError(f"WAR race: cp.async to smem[{d}] issued in barrier interval "
                               f"{self.epoch}, read in the same interval")
            sh.pending[d:d + 8] += 1
            self.open[t].append((t, d, vals, self.epoch))
        # bank conflicts: 8 threads (128 bytes) per wavefront
        act = np.nonzero(m)[0]
        for w in range(0, self.T, 32):
            lanes = [t for t in act if w <= t < w + 32]
            for q in range(0, len(lanes), 8):
                grp = lanes[q:q + 8]
                banks = {}
                for t in grp:
                    bg = (int(didx[t]) * 2 // 16) % 8
                    banks[bg] = banks.get(bg, 0) + 1
                self.sim.stats.cp_wavefronts += max(banks.values())

    def active_warps(self, what):
        """The first thread of each warp the current mask runs (warp-collective ops need a
        warp's 32 lanes all active or all not)."""
        warps = []
        for w in range(0, self.T, 32):
            m = self.mask[w:w + 32]
            if m.all():
                warps.append(w)
            elif m.any():
                raise SimError(f"{what} under divergent control flow (warp {w // 32})")
        return warps

    def ldmatrix(self, o, ops, rt):
        buf, idx = ops
        sh = buf.data
        tiles = int(prop(o, "numTiles").split(":")[0])
        trans = prop(o, "transpose") == "true"
        if tiles != 4:
            raise SimError("ldmatrix: only x4")
        T = self.T
        out = np.zeros((T, 4, 2))
        for w in self.active_warps("ldmatrix"):
            mats = []
            for j in range(4):
                rows = []
                banks = {}
                for r in range(8):
                    t = w + 8 * j + r
                    a = int(idx[t])
                    if a % 8 or a < 0 or a + 8 > sh.data.size:
                        raise SimError(f"ldmatrix row address {a} misaligned / out of range")
                    seg = slice(a, a + 8)
                    if np.any(sh.pending[seg] > 0):
                        raise SimError(f"RAW race: ldmatrix reads smem[{a}] with a cp.async in flight")
                    if np.any(sh.w_epoch[seg] == -2):
                        raise SimError(f"ldmatrix reads never-written smem[{a}]")
                    # Landed copies need a barrier before anyone reads them.
                    for e in range(8):
                        wt, we = sh.w_thread[a + e], sh.w_epoch[a + e]
                        if we >= self.epoch:
                            raise SimError(f"RAW race: smem[{a + e}] landed (thread {wt}) in the "
                                           f"current barrier interval {we}, read by warp {w // 32}")
                    sh.r_epoch[seg] = np.maximum(sh.r_epoch[seg], self.epoch)
                    rows.append(sh.data[seg].copy())
                    bg = (a * 2 // 16) % 8
                    banks[bg] = banks.get(bg, 0) + 1
                self.sim.stats.ldmatrix_wavefronts += max(banks.values())
                mats.append(np.array(rows))  # [8 rows, 8 cols]
            self.sim.stats.ldmatrix += 1
            for l in range(32):
                for j in range(4):
                    mt = mats[j]
                    if trans:
                        out[w + l, j] = [mt[2 * (l % 4), l // 4], mt[2 * (l % 4) + 1, l // 4]]
                    else:
                        out[w + l, j] = [mt[l // 4, 2 * (l % 4)], mt[l // 4, 2 * (l % 4) + 1]]
        return out

    def mma(self, o, ops):
        seg = int_array(prop(o, "operandSegmentSizes"))
        if seg != [4, 2, 4] or "m = 16, n = 8, k = 16" not in o.props:
            raise SimError("mma.sync: expected m16n8k16 with 4 A, 2 B, 4 C operands")
        if "layoutA = #nvvm.mma_layout<row>" not in o.props or "layoutB = #nvvm.mma_layout<col>" not in o.props:
            raise SimError("mma.sync: expected row.col")
        ty = re.search(r"multiplicandAPtxType = #nvvm.mma_type<(\w+)>", o.props)
        ty = ty.group(1) if ty else "f16"
        a, b, c = ops[0:4], ops[4:6], ops[6:10]
        T = self.T
        d = np.zeros((T, 4))
        warps = self.active_warps("mma.sync")
        for w in warps:
            A = np.zeros((16, 16))
            B = np.zeros((16, 8))
            C = np.zeros((16, 8))
            for l in range(32):
                g, t4 = l // 4, l % 4
                t = w + l
                # PTX ISA: Matrix Fragments for mma.m16n8k16 with floating point type.
                for i in range(8):
                    row = g if (i < 2 or 4 <= i < 6) else g + 8
                    col = t4 * 2 + (i & 1) + (8 if i >= 4 else 0)
                    A[row, col] = a[i // 2][t, i % 2]
                for i in range(4):
                    row = t4 * 2 + (i & 1) + (8 if i >= 2 else 0)
                    B[row, g] = b[i // 2][t, i % 2]
                for i in range(4):
                    row = g + (8 if i >= 2 else 0)
                    col = t4 * 2 + (i & 1)
                    C[row, col] = c[i][t]
            for M_ in (A, B):
                if np.any((M_ != round_to(M_, ty)) & ~np.isnan(M_)):
                    raise SimError(f"mma operand not representable in {ty}")
            D = round_to(A @ B + C, "f32")
            for l in range(32):
                g, t4 = l // 4, l % 4
                for i in range(4):
                    d[w + l, i] = D[g + (8 if i >= 2 else 0), t4 * 2 + (i & 1)]
        self.sim.stats.mma += len(warps)
        self.env[o.results[0]] = d


def hexfloat(lit, ty):
    v = int(lit, 16)
    if ty == "f32":
        return float(np.array([v], dtype=np.uint32).view(np.float32)[0])
    if ty == "f16":
        return float(np.array([v], dtype=np.uint16).view(np.float16)[0])
    if ty == "bf16":
        return float(np.array([v << 16], dtype=np.uint32).view(np.float32)[0])
    if ty == "f64":
        return float(np.array([v], dtype=np.uint64).view(np.float64)[0])
    raise ValueError(ty)


# The edits of the lowered IR both sim checks make the way a broken lowering would (their
# --mutate): wait: one more cp.async group in flight; barrier: no bar.sync; trans: every
# ldmatrix transpose flipped.
COMMON_MUTATIONS = ("wait", "barrier", "trans")


def mutate(ir, kind):
    if kind == "wait":
        return re.sub(r'"nvvm.cp.async.wait.group"\(\) <\{n = (\d+) : i32\}>',
                      lambda m: f'"nvvm.cp.async.wait.group"() <{{n = {int(m.group(1)) + 1} : i32}}>',
                      ir)
    if kind == "barrier":
        return "\n".join(l for l in ir.split("\n") if '"gpu.barrier"' not in l)
    if kind == "trans":
        return ir.replace("transpose = true", "transpose = TMP").replace(
            "transpose = false", "transpose = true").replace("transpose = TMP", "transpose = false")
    raise ValueError(kind)


def with_symbol_value(ir, bound, run):
    """The lowered module `ir` (generic form) run at symbol value `run` instead of `bound`:
    the session's symbol values of a one-symbol bundle (aicc-compile --dim NAME=1..BOUND)
    are the one i32[1] constant holding the bound, which the runtime's buffer replaces."""
    sym = f"dense<{bound}> : tensor<1xi32>"
    if ir.count(sym) != 1:
        raise SimError(f"{ir.count(sym)} constants '{sym}' (want the symbol values)")
    return ir.replace(sym, f"dense<{run}> : tensor<1xi32>")


def global_values(g, resources=None):
    """The elements of memref.global `g` (a constant: dense hex bytes, a list, a splat, or
    dense_resource<NAME> with its blob in `resources`) as float64, row-major."""
    t = prop(g, "type")
    n = int(np.prod([int(d) for d in re.findall(r"(\d+)x", t)] or [1]))
    el = elem_of(t)
    init = prop(g, "initial_value")
    m = re.match(r'dense<"0x([0-9A-Fa-f]+)">', init)
    r = re.match(r"dense_resource<([\w.]+)>", init)
    if r:
        # A builtin resource blob: "0x" + its alignment (4 bytes, little-endian) + the data.
        if not resources or r.group(1) not in resources:
            raise SimError(f"dense_resource<{r.group(1)}> without its blob")
        hexdata = resources[r.group(1)][8:]
    elif m:
        hexdata = m.group(1)
    if r or m:
        raw = bytes.fromhex(hexdata)
        if el == "bf16":
            v = (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            v = np.frombuffer(raw, dtype={"f16": np.float16, "f32": np.float32,
                                          "f64": np.float64, "i32": np.int32,
                                          "i64": np.int64}[el])
        return v.astype(np.float64).copy()
    body = re.match(r"dense<(.*)>\s*:", init).group(1)
    v = np.array([float(x) for x in re.findall(r"[-+0-9.eEinfa]+", body)], dtype=np.float64)
    return np.full(n, v[0]) if v.size == 1 else v


class Sim:
    def __init__(self, module_text):
        self.ops = Parser(module_text).op()
        # Large constants print as dense_resource<NAME>, their bytes in the file's
        # dialect_resources section ("NAME: \"0x...\"").
        tail = module_text.rfind("dialect_resources")
        self.resources = dict(re.findall(r'([\w.]+): "0x([0-9A-Fa-f]+)"', module_text[tail:])) \
            if tail >= 0 else {}
        self.stats = Stats()
        self.kernels = {}
        # Kernels the caller computes on the host instead (name -> fn(buffers)), e.g. the
        # elementwise sum kernel of a split-K group after the simulated partials kernel.
        self.host_kernels = {}
        self.main = None
        self.globals = {}  # memref.global (the model's constants) by name
        for blk in self.ops.regions[0]:
            for o in blk.ops:
                if o.name == "func.func" and prop(o, "sym_name") == '"main"':
                    self.main = o
                if o.name == "memref.global":
                    self.globals[prop(o, "sym_name").strip('"')] = o
                if o.name == "builtin.module":
                    for kb in o.regions[0]:
                        for k in kb.ops:
                            if k.name == "func.func":
                                self.kernels[prop(k, "sym_name").strip('"')] = k

    def launch(self, kname, buffers):
        if kname in self.host_kernels:
            self.host_kernels[kname](buffers)
            return
        k = self.kernels[kname]
        sched = prop(k, "tile.schedule")
        grid = [int(x) for x in re.search(r"grid = \[(\d+), (\d+), (\d+)\]", sched).groups()]
        self.grid = grid
        warps = int(re.search(r"num_warps = (\d+)", sched).group(1))
        lb = prop(k, "tile.launch_block")
        T = int_array(lb)[0] if lb else 32 * warps
        if not has_unit(k, "tile.mma_sync") and prop(k, "tile.mma_sync") is None:
            raise SimError(f"kernel {kname} was not lowered by convert-tile-dot-to-mma-sync: "
                           f"{prop(k, 'tile.mma_sync_refused')}")
        body = k.regions[0][0]
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    cta = CTA(self, (x, y, z), T)
                    cta.run_block(body, [buffers[i] for i in range(len(body.args))])
                    # Groups still pending at exit must be empty.
                    if any(cta.open[t] or any(cta.groups[t]) for t in range(T)):
                        raise SimError("kernel exits with cp.async copies in flight")

    def run_main(self, inputs, symbols=None):
        """Runs @main's host plan: inputs (numpy arrays, float64 values rounded to their
        types) by argument order; returns the returned buffers (flat numpy arrays). A launch
        with tile.symrange (a shape bucket's kernel) runs only when `symbols` (the run's
        symbol values, as with_symbol_value wrote them) falls in its range, as the runtime
        does; without `symbols` such a launch is an error."""
        blk = self.main.regions[0][0]
        env = {}
        self.written = {}
        self.bucket_kernels = []  # the shape buckets' kernels that ran
        for n, t, x in zip(blk.args, blk.arg_types, inputs):
            b = Buffer(np.asarray(x, dtype=np.float64).reshape(-1).copy(), elem_of(t), "global")
            env[n] = b
            self.written[id(b)] = np.zeros(b.data.size, dtype=np.int64)
        for o in blk.ops:
            if o.name == "memref.alloc":
                t = o.out_types[0]
                dims = [int(d) for d in re.findall(r"(\d+)x", t)]
                b = Buffer(np.full(int(np.prod(dims)) if dims else 1, np.nan), elem_of(t), "global")
                env[o.results[0]] = b
                self.written[id(b)] = np.zeros(b.data.size, dtype=np.int64)
            elif o.name == "memref.get_global":
                g = self.globals[re.search(r"name = @(\w+)", o.props).group(1)]
                b = Buffer(global_values(g, self.resources), elem_of(o.out_types[0]), "global")
                env[o.results[0]] = b
                self.written[id(b)] = np.ones(b.data.size, dtype=np.int64)
            elif o.name in ("memref.reinterpret_cast", "memref.expand_shape",
                            "memref.collapse_shape", "memref.cast"):
                env[o.results[0]] = env[o.operands[0]]
            elif o.name == "tile.launch":
                k = re.search(r"@kernels::@(\w+)", o.props).group(1)
                r = re.search(r"tile.symrange = array<i64: (\d+), (\d+), (\d+)>",
                              o.props + " " + o.attrs)
                if r:
                    if symbols is None:
                        raise SimError(f"launch of {k} has tile.symrange: pass the symbol values")
                    sym, lo, hi = (int(g) for g in r.groups())
                    if not lo <= symbols[sym] <= hi:
                        continue
                    self.bucket_kernels.append(k)
                self.launch(k, [env[x] for x in o.operands])
            elif o.name == "func.return":
                return [env[x] for x in o.operands]
            else:
                raise SimError(f"host op {o.name} not simulated")
